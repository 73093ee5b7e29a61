//! EnterWorktree's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

/// What EnterWorktree produced (Claude Code's output data, camelCase keys). The model sees
/// `message` alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnterWorktreeOutput {
    /// The worktree's folder: the session's working directory from now on.
    pub worktree_path: String,
    /// The worktree's branch (`worktree-<name>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree_branch: Option<String>,
    /// The result text.
    pub message: String,
}

/// The result text: where the worktree is, on which branch, and how to leave it. `existed` is
/// true when a worktree of that name was already there and is reused.
pub fn message(path: &str, branch: Option<&str>, existed: bool) -> String {
    let verb = if existed { "Entered the existing worktree" } else { "Created a worktree" };
    let branch = branch.map(|branch| format!(" on branch {branch}")).unwrap_or_default();
    format!(
        "{verb} at {path}{branch}. The session now works in it: relative paths and commands start there. \
         Call ExitWorktree to leave it, keeping or removing it."
    )
}

/// The error when a worktree session is already active.
pub fn already_active(path: &str) -> String {
    format!("Already in a worktree session (at {path}). Call ExitWorktree before entering another worktree.")
}

/// The error when the worktree cannot be created; `reason` comes from the git layer.
pub fn cannot_create(reason: &str) -> String {
    format!("Cannot create a worktree: {reason}.")
}

/// The error when the working directory is not in a git repository.
pub fn not_a_repository(dir: &str) -> String {
    format!(
        "Cannot create a worktree: {dir} is not inside a git repository. EnterWorktree works with git repositories \
         only (worktree hooks for other version control systems are not supported)."
    )
}
