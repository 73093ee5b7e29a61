//! The git commands behind worktree sessions, run as child processes of the real `git` with a
//! fixed argument list (no shell, and nothing the model wrote is ever an option: names are
//! validated and only reach git inside absolute paths and `worktree-…` branch names).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::slug::{branch_for, worktree_dir};

/// How to run git: the program, extra environment variables for it, and whether the
/// repository's own configuration may run programs.
///
/// The default runs `git` found on the search path with the environment inherited, guarded: a
/// program the repository configures (hooks, `core.fsmonitor`, filters, drivers, helpers) does
/// not run ([`crate::guard`]). Library code never reads the environment; a host or a test that
/// wants git isolated from the user's configuration adds variables such as `HOME` and
/// `GIT_CONFIG_NOSYSTEM` here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Git {
    /// The git program (default `git`).
    pub program: PathBuf,
    /// Variables set for every git command, on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Whether the repository's configuration may run programs in these git commands (default
    /// `false`: only in a folder the user trusts; see [`Git::for_context`]).
    pub trust_repository: bool,
}

impl Default for Git {
    fn default() -> Self {
        Self { program: PathBuf::from("git"), env: Vec::new(), trust_repository: false }
    }
}

/// A git command that could not run or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// The program could not be started (not installed, not executable).
    #[error("could not run {program}: {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The repository's configuration names a program that cannot be switched off, in a folder
    /// that is not trusted: git was not run.
    #[error(transparent)]
    Unguarded(#[from] crate::guard::GuardError),
    /// Git ran and exited unsuccessfully.
    #[error("`git {command}` failed: {stderr}")]
    Failed {
        /// The git subcommand and its arguments, for the message.
        command: String,
        /// Git's error output, trimmed (or the exit status when there was none).
        stderr: String,
    },
}

/// Why a worktree could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CreateError {
    /// The working directory is not inside a git work tree (Claude Code falls back to
    /// `WorktreeCreate` hooks here; this crate has none).
    #[error("{0} is not inside a git repository")]
    NotARepository(PathBuf),
    /// The repository has no commit yet, so there is nothing to check out.
    #[error("the repository at {0} has no commits yet; commit something first")]
    NoCommits(PathBuf),
    /// The folder exists but is not a worktree of this repository.
    #[error("{0} already exists and is not a git worktree of this repository")]
    FolderInTheWay(PathBuf),
    /// The branch the name maps to already exists (another name flattens to it, as `a/b` and
    /// `a-b` both give `worktree-a-b`, or someone made it by hand).
    #[error(
        "the branch {branch} already exists (a worktree name that maps to the same branch, or one made by hand); choose another name"
    )]
    BranchTaken {
        /// The branch.
        branch: String,
    },
    /// A git command failed.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// A worktree ready to work in (created now, or found from an earlier session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The main repository's root (canonical).
    pub repo_root: PathBuf,
    /// The worktree's folder: `<repo_root>/.claude/worktrees/<name>`.
    pub path: PathBuf,
    /// Its branch: `worktree-<flattened name>`.
    pub branch: String,
    /// The worktree's `HEAD` commit on entry; commits after it count as the session's work.
    pub base_commit: String,
    /// True when the folder already held a worktree of this repository, which is reused
    /// (Claude Code resumes an existing worktree of the same name the same way).
    pub existed: bool,
}

/// Uncommitted files and commits in a worktree since it was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changes {
    /// Lines of `git status --porcelain`: modified, staged, deleted and untracked files.
    pub files: u64,
    /// `git rev-list --count <base>..HEAD`: commits not on the base commit.
    pub commits: u64,
}

impl Changes {
    /// True when there is nothing to lose.
    pub fn is_clean(&self) -> bool {
        self.files == 0 && self.commits == 0
    }
}

impl Git {
    /// This git as the session of `ctx` may run it: the repository's configuration may run
    /// programs only when the user trusts the working folder
    /// ([`ToolUseOptions::workspace_trusted`](agent_tools_core::ToolUseOptions::workspace_trusted)).
    #[must_use]
    pub fn for_context(&self, ctx: &agent_tools_core::ToolUseContext) -> Self {
        Self { trust_repository: ctx.options.workspace_trusted, ..self.clone() }
    }

    /// The arguments that go before every git command in `dir`: none when the repository is
    /// trusted, else the `-c` settings that switch off what its configuration would run
    /// ([`crate::guard::guard_args`] over `git config --list --name-only -z`, which runs nothing).
    ///
    /// # Errors
    /// Git cannot run or cannot read the configuration, or a setting cannot be switched off.
    pub async fn guard(&self, dir: &Path) -> Result<Vec<OsString>, GitError> {
        if self.trust_repository {
            return Ok(Vec::new());
        }
        let mut command = tokio::process::Command::from(self.listing(dir));
        let output = command.kill_on_drop(true).output().await.map_err(|error| self.spawn_error(&error))?;
        Self::guard_from(&output)
    }

    /// [`Git::guard`] for code that is not async (the environment snapshot at start-up).
    ///
    /// # Errors
    /// As [`Git::guard`].
    pub fn guard_blocking(&self, dir: &Path) -> Result<Vec<OsString>, GitError> {
        if self.trust_repository {
            return Ok(Vec::new());
        }
        let output = self.listing(dir).output().map_err(|error| self.spawn_error(&error))?;
        Self::guard_from(&output)
    }

    /// `git -C <dir> config --list --name-only -z`: the names the configuration sets.
    fn listing(&self, dir: &Path) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command
            .arg("-C")
            .arg(dir)
            .args(["config", "--list", "--name-only", "-z"])
            .env("GIT_TERMINAL_PROMPT", "0")
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn guard_from(output: &std::process::Output) -> Result<Vec<OsString>, GitError> {
        if !output.status.success() {
            return Err(GitError::Failed {
                command: "config --list --name-only -z".into(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        Ok(crate::guard::guard_args(&output.stdout)?)
    }

    fn spawn_error(&self, error: &std::io::Error) -> GitError {
        GitError::Spawn { program: self.program.to_string_lossy().into_owned(), reason: error.to_string() }
    }

    /// May the session of `ctx` make a new worktree (`git worktree add`) from its working
    /// directory? A new checkout and branch is a write, checked as one of the folder it goes in:
    /// `<repository root>/.claude/worktrees/<name>`, or the worktrees folder itself when the name
    /// is not known yet (deny rules, plan mode refuses, `acceptEdits` inside the working
    /// directories allows, otherwise the user is asked). Claude Code allows EnterWorktree and an
    /// isolated Agent unasked.
    pub async fn creation_permission(
        &self,
        ctx: &agent_tools_core::ToolUseContext,
        name: Option<&str>,
    ) -> agent_tools_core::PermissionResult {
        let root = self.for_context(ctx).repo_root(&ctx.cwd).await.unwrap_or_else(|_| ctx.cwd.clone());
        let folder = match name {
            Some(name) => worktree_dir(&root, name),
            None => root.join(crate::slug::WORKTREES_DIR),
        };
        agent_tools_permissions::check_write_permission(&folder, ctx)
    }

    /// Runs `git -C <dir> <args>` with stdin closed, guarded unless the repository is trusted
    /// ([`Git::guard`]); returns its standard output.
    ///
    /// # Errors
    /// [`GitError::Spawn`] when git cannot start, [`GitError::Failed`] on a non-zero exit,
    /// [`GitError::Unguarded`] when the repository's configuration cannot be made safe.
    pub async fn run(&self, dir: &Path, args: &[&OsStr]) -> Result<String, GitError> {
        let guard = self.guard(dir).await?;
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&guard)
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let shown = || args.iter().map(|arg| arg.to_string_lossy()).collect::<Vec<_>>().join(" ");
        tracing::debug!(dir = %dir.display(), args = %shown(), "running git");
        let output = command.output().await.map_err(|error| self.spawn_error(&error))?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        let stderr = if stderr.is_empty() { output.status.to_string() } else { stderr };
        Err(GitError::Failed { command: shown(), stderr })
    }

    async fn run_str(&self, dir: &Path, args: &[&str]) -> Result<String, GitError> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        self.run(dir, &args).await
    }

    /// The root of the main working tree of the repository containing `dir`, canonical, even
    /// when `dir` is inside a linked worktree (found through `--git-common-dir`). Mirrors
    /// Claude Code's `findCanonicalGitRoot`.
    ///
    /// # Errors
    /// [`CreateError::NotARepository`] when `dir` is not in a git work tree.
    pub async fn repo_root(&self, dir: &Path) -> Result<PathBuf, CreateError> {
        let top = match self.run_str(dir, &["rev-parse", "--show-toplevel"]).await {
            Ok(top) => PathBuf::from(top.trim_end_matches('\n')),
            Err(GitError::Failed { .. }) => return Err(CreateError::NotARepository(dir.to_path_buf())),
            Err(error) => return Err(error.into()),
        };
        let common = self.run_str(dir, &["rev-parse", "--path-format=absolute", "--git-common-dir"]).await?;
        let common = PathBuf::from(common.trim_end_matches('\n'));
        // A normal repository keeps its common dir at `<main root>/.git`; anything else (a
        // submodule, a separate git dir) has no such link, and the work tree's top is the root.
        let root = match common.parent() {
            Some(parent) if common.file_name() == Some(OsStr::new(".git")) && parent.is_dir() => parent.to_path_buf(),
            _ => top,
        };
        Ok(std::fs::canonicalize(&root).unwrap_or(root))
    }

    /// The commit `HEAD` points to in `dir`, or `None` when there is none (an unborn branch).
    ///
    /// # Errors
    /// [`GitError::Spawn`] when git cannot run.
    pub async fn head(&self, dir: &Path) -> Result<Option<String>, GitError> {
        match self.run_str(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).await {
            Ok(sha) => Ok(Some(sha.trim().to_owned())),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Creates (or finds) the worktree `name` of the repository containing `cwd`: the folder
    /// `<root>/.claude/worktrees/<name>` on a new branch `worktree-<flattened name>` starting at
    /// the main repository's `HEAD` (`git worktree add -b <branch> <folder> HEAD`). A folder that
    /// already is a worktree of this repository is reused as it is. `name` must have passed
    /// [`crate::validate_name`].
    ///
    /// # Errors
    /// Not a repository, no commits, a foreign folder in the way, or git's own refusal (for
    /// example an existing branch of that name).
    pub async fn create(&self, cwd: &Path, name: &str) -> Result<Worktree, CreateError> {
        let repo_root = self.repo_root(cwd).await?;
        let path = worktree_dir(&repo_root, name);
        let branch = branch_for(name);
        if path.exists() {
            let found = self.run_str(&path, &["rev-parse", "--show-toplevel"]).await.ok();
            let same = found.is_some_and(|top| {
                let top = PathBuf::from(top.trim_end_matches('\n'));
                std::fs::canonicalize(top).ok() == std::fs::canonicalize(&path).ok()
            });
            let head = if same { self.head(&path).await? } else { None };
            let Some(base_commit) = head else { return Err(CreateError::FolderInTheWay(path)) };
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            return Ok(Worktree { repo_root, path, branch, base_commit, existed: true });
        }
        if self.head(&repo_root).await?.is_none() {
            return Err(CreateError::NoCommits(repo_root));
        }
        let branch_ref = format!("refs/heads/{branch}");
        if self.run_str(&repo_root, &["show-ref", "--verify", "--quiet", &branch_ref]).await.is_ok() {
            return Err(CreateError::BranchTaken { branch });
        }
        let args: [&OsStr; 6] =
            ["worktree".as_ref(), "add".as_ref(), "-b".as_ref(), branch.as_ref(), path.as_os_str(), "HEAD".as_ref()];
        self.run(&repo_root, &args).await?;
        // The main repository should not see the worktrees as untracked (or embedded) content:
        // a `.gitignore` of `*` in the worktrees folder hides them without touching the user's
        // own ignore files. Best effort: a failure only leaves them visible.
        let ignore = repo_root.join(crate::slug::WORKTREES_DIR).join(".gitignore");
        if !ignore.exists() {
            let _ = std::fs::write(&ignore, "*\n");
        }
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let base_commit = self.head(&path).await?.ok_or_else(|| GitError::Failed {
            command: "rev-parse HEAD".into(),
            stderr: format!("the new worktree at {} has no HEAD", path.display()),
        })?;
        Ok(Worktree { repo_root, path, branch, base_commit, existed: false })
    }

    /// Uncommitted files and commits that removing the worktree at `path` would lose
    /// (`git status --porcelain`, then `git rev-list --count`). Mirrors Claude Code's
    /// `countWorktreeChanges`, with one fix: with the worktree's `branch` known, the commits
    /// counted are those no other branch, tag or remote-tracking ref holds
    /// (`HEAD --not --exclude=<branch> --branches --tags --remotes`), so a kept worktree entered
    /// again still counts the commits made before; without it, those since `base_commit`
    /// (`<base>..HEAD`), as Claude Code counts.
    ///
    /// # Errors
    /// Either git command failing, or a base that is not a commit id: the state cannot be verified.
    pub async fn changes(&self, path: &Path, base_commit: &str, branch: Option<&str>) -> Result<Changes, GitError> {
        let status = self.run_str(path, &["status", "--porcelain"]).await?;
        let files = status.lines().filter(|line| !line.trim().is_empty()).count() as u64;
        let args: Vec<String> = match branch {
            Some(branch) => ["rev-list", "--count", "HEAD", "--not"]
                .into_iter()
                .map(str::to_owned)
                .chain([format!("--exclude={branch}"), "--branches".into(), "--tags".into(), "--remotes".into()])
                .collect(),
            None => {
                if base_commit.is_empty() || !base_commit.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err(GitError::Failed {
                        command: "rev-list".into(),
                        stderr: format!("the base commit {base_commit:?} is not a commit id"),
                    });
                }
                vec!["rev-list".into(), "--count".into(), format!("{base_commit}..HEAD")]
            }
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let count = self.run_str(path, &args).await?;
        let commits = count.trim().parse::<u64>().map_err(|_| GitError::Failed {
            command: args.join(" "),
            stderr: format!("unexpected output {:?}", count.trim()),
        })?;
        Ok(Changes { files, commits })
    }

    /// Removes the worktree folder, changes and all (`git worktree remove --force <path>`, run
    /// from the main repository root).
    ///
    /// # Errors
    /// Git's refusal (for example a locked worktree).
    pub async fn remove_worktree(&self, repo_root: &Path, path: &Path) -> Result<(), GitError> {
        let args: [&OsStr; 4] = ["worktree".as_ref(), "remove".as_ref(), "--force".as_ref(), path.as_os_str()];
        self.run(repo_root, &args).await.map(drop)
    }

    /// Forgets worktrees whose folders are gone (`git worktree prune`), so their branches can be
    /// deleted.
    ///
    /// # Errors
    /// Git's refusal.
    pub async fn prune_worktrees(&self, repo_root: &Path) -> Result<(), GitError> {
        self.run_str(repo_root, &["worktree", "prune"]).await.map(drop)
    }

    /// Deletes a branch whatever it holds (`git branch -D <branch>`).
    ///
    /// # Errors
    /// Git's refusal (no such branch, or checked out elsewhere).
    pub async fn delete_branch(&self, repo_root: &Path, branch: &str) -> Result<(), GitError> {
        // `--` keeps a branch name from ever being read as an option.
        let args: [&OsStr; 4] = ["branch".as_ref(), "-D".as_ref(), "--".as_ref(), branch.as_ref()];
        self.run(repo_root, &args).await.map(drop)
    }
}
