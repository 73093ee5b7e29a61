//! # agent-tools-worktree: git worktree sessions
//!
//! What Claude Code's `EnterWorktree` and `ExitWorktree` tools share (its `utils/worktree.ts`),
//! as a support crate so the two tool crates never depend on each other:
//!
//! - the session state: which worktree is active, where the session was before, its branch and
//!   base commit ([`WorktreeSession`], kept in the context's app state: [`active`], [`begin`],
//!   [`end`]);
//! - the names: [`validate_name`] (Claude Code's rules), the folder `.claude/worktrees/<name>`
//!   ([`worktree_dir`]), the branch `worktree-<name with / replaced by ->` ([`branch_for`]), and a
//!   random readable name ([`random_name`]);
//! - the git commands, run on the real `git` with fixed arguments ([`Git`]) and, in a folder
//!   the user has not trusted, with everything the repository configures to run switched off
//!   ([`guard`]): the canonical
//!   repository root ([`Git::repo_root`]), `git worktree add -b` ([`Git::create`]), the changes a
//!   removal would discard ([`Git::changes`]), `git worktree remove --force`
//!   ([`Git::remove_worktree`]) and `git branch -D` ([`Git::delete_branch`]).
//!
//! Not here: Claude Code's `WorktreeCreate`/`WorktreeRemove` hooks (worktrees for other version
//! control systems), its tmux sessions, and the post-creation setup (copying local settings,
//! symlinked folders, `.worktreeinclude` files).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_worktree::{branch_for, validate_name, Changes, Git};
//! assert!(validate_name("feature/login").is_ok() && validate_name("../escape").is_err());
//! assert_eq!(branch_for("feature/login"), "worktree-feature-login");
//! let repo = agent_tools_testkit::GitRepo::new(); // a temporary repository: one commit on main
//! let git = Git { env: repo.env(), ..Git::default() }; // isolated from the user's git config
//! let made = git.create(&repo.root, "feature/login").await.unwrap();
//! assert_eq!(made.path, repo.root.join(".claude/worktrees/feature/login"));
//! std::fs::write(made.path.join("notes.txt"), "work\n").unwrap();
//! let changes = git.changes(&made.path, &made.base_commit, Some(&made.branch)).await.unwrap();
//! assert_eq!(changes, Changes { files: 1, commits: 0 });
//! git.remove_worktree(&made.repo_root, &made.path).await.unwrap();
//! assert!(!made.path.exists());
//! # });
//! ```

mod git;
pub mod guard;
mod session;
mod slug;

pub use crate::git::{Changes, CreateError, Git, GitError, Worktree};
pub use crate::session::{WorktreeSession, active, begin, end};
pub use crate::slug::{
    BRANCH_PREFIX, MAX_NAME_CHARS, NameError, WORKTREES_DIR, branch_for, flatten, random_name, validate_name,
    worktree_dir,
};
