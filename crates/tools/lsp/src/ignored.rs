//! Which result files git ignores: locations in them are dropped before the results are shown,
//! as Claude Code's LSP tool drops them (build output, vendored code, virtual environments).
//!
//! `git check-ignore --stdin -z` runs in the working directory, 50 paths at a time, each run
//! given 5 s. Only paths inside the repository's work tree are asked about (git refuses a whole
//! batch when one path is outside it); when git fails, times out or the folder is no
//! repository, nothing is dropped. In a folder the user has not trusted, git runs with what the
//! repository configures to run switched off (`agent_tools_worktree::guard`: its fsmonitor, its
//! hooks); when that cannot be done, git is not run and nothing is dropped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// How many paths one `git check-ignore` run is given.
pub const BATCH: usize = 50;

/// How long one git run may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(5);

/// The paths among `paths` that git ignores in the repository holding `cwd` (the paths as
/// given). Empty when `cwd` is in no repository or git cannot answer. `git` says how git runs:
/// guarded unless [`agent_tools_worktree::Git::trust_repository`] (see the module docs).
pub async fn ignored(paths: &[PathBuf], cwd: &Path, git: &agent_tools_worktree::Git) -> HashSet<PathBuf> {
    let mut found = HashSet::new();
    if paths.is_empty() {
        return found;
    }
    let Ok(Ok(guard)) = tokio::time::timeout(GIT_TIMEOUT, git.guard(cwd)).await else { return found };
    let git = Guarded { git, guard };
    let Some(top) = toplevel(cwd, &git).await else { return found };
    // What git is given (the real path, so a link in the spelling does not put the file
    // "outside" the repository) → the path as the server named it.
    let mut asked: HashMap<String, PathBuf> = HashMap::new();
    for path in paths {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if real.starts_with(&top)
            && let Some(text) = real.to_str()
        {
            asked.entry(text.to_owned()).or_insert_with(|| path.clone());
        }
    }
    let names: Vec<&String> = asked.keys().collect();
    for batch in names.chunks(BATCH) {
        for name in check_ignore(batch, cwd, &git).await {
            if let Some(original) = asked.get(&name) {
                found.insert(original.clone());
            }
        }
    }
    found
}

/// Git with the arguments that keep a repository's own programs from running.
struct Guarded<'a> {
    git: &'a agent_tools_worktree::Git,
    guard: Vec<std::ffi::OsString>,
}

impl Guarded<'_> {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.git.program);
        command.args(&self.guard).envs(self.git.env.iter().map(|(key, value)| (key, value)));
        command
    }
}

/// The work tree's top folder (real path), if `cwd` is in one.
async fn toplevel(cwd: &Path, git: &Guarded<'_>) -> Option<PathBuf> {
    let mut command = git.command();
    command
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(GIT_TIMEOUT, command.output()).await.ok()?.ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let top = PathBuf::from(text.trim_end_matches(['\n', '\r']));
    Some(std::fs::canonicalize(&top).unwrap_or(top))
}

/// The names git prints for one batch (exit status 0); nothing when it prints none (status 1)
/// or fails.
async fn check_ignore(batch: &[&String], cwd: &Path, git: &Guarded<'_>) -> Vec<String> {
    let mut command = git.command();
    command
        .args(["check-ignore", "--stdin", "-z"])
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let Ok(mut child) = command.spawn() else { return Vec::new() };
    let mut input = Vec::new();
    for name in batch {
        input.extend_from_slice(name.as_bytes());
        input.push(0);
    }
    let stdin = child.stdin.take();
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A failed write shows as git's failure below.
            let _ = stdin.write_all(&input).await;
        }
    };
    let run = async { tokio::join!(write, child.wait_with_output()).1 };
    let Ok(Ok(output)) = tokio::time::timeout(GIT_TIMEOUT, run).await else { return Vec::new() };
    if output.status.code() != Some(0) {
        return Vec::new();
    }
    output
        .stdout
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .filter_map(|name| std::str::from_utf8(name).ok().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
        let status = std::process::Command::new("git").args(["init", "-q"]).current_dir(root).status().unwrap();
        assert!(status.success());
        dir
    }

    #[tokio::test]
    async fn ignored_paths_are_found_from_a_subfolder_past_paths_outside_the_repository() {
        let dir = repo();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let paths = vec![
            root.join("build/gen.py"),
            root.join("main.py"),
            // Outside the repository: git would refuse the whole batch for it.
            PathBuf::from("/usr/lib/python3/os.py"),
            root.join("sub/run.log"),
        ];
        let found = ignored(&paths, &root.join("sub"), &agent_tools_worktree::Git::default()).await;
        let mut found: Vec<PathBuf> = found.into_iter().collect();
        found.sort();
        assert_eq!(found, [root.join("build/gen.py"), root.join("sub/run.log")]);
    }

    #[tokio::test]
    async fn more_than_one_batch_is_asked_about() {
        let dir = repo();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let paths: Vec<PathBuf> = (0..2 * BATCH + 7).map(|n| root.join(format!("build/f{n}.py"))).collect();
        assert_eq!(ignored(&paths, &root, &agent_tools_worktree::Git::default()).await.len(), 2 * BATCH + 7);
    }

    #[tokio::test]
    async fn outside_a_repository_nothing_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let paths = vec![dir.path().join("build/gen.py")];
        let git = agent_tools_worktree::Git::default();
        assert!(ignored(&paths, dir.path(), &git).await.is_empty());
        assert!(ignored(&[], dir.path(), &git).await.is_empty());
    }
}
