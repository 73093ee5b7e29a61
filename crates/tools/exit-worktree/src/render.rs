//! ExitWorktree's output → `tool_result` text, and the refusals. The exact strings live here.

use serde::Serialize;

use crate::input::ExitAction;

/// What ExitWorktree produced (Claude Code's output data, camelCase keys; its `tmuxSessionName`
/// is never set here). The model sees `message` alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitWorktreeOutput {
    /// What was done.
    pub action: ExitAction,
    /// The working directory the session is back in.
    pub original_cwd: String,
    /// The worktree's folder (gone after `remove`).
    pub worktree_path: String,
    /// The worktree's branch (deleted after `remove`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree_branch: Option<String>,
    /// After `remove`: uncommitted files thrown away (absent when they could not be counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded_files: Option<u64>,
    /// After `remove`: commits not on the starting commit thrown away (absent when they could
    /// not be counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded_commits: Option<u64>,
    /// The result text.
    pub message: String,
}

fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// "2 uncommitted files and 1 commit" — the parts that are not zero, joined by "and".
pub fn describe_changes(files: u64, commits: u64) -> String {
    let mut parts = Vec::new();
    if files > 0 {
        parts.push(plural(files, "uncommitted file", "uncommitted files"));
    }
    if commits > 0 {
        parts.push(plural(commits, "commit", "commits"));
    }
    parts.join(" and ")
}

/// Validation code 1: no worktree session to leave.
pub const NO_SESSION: &str = "There is no worktree session to leave. ExitWorktree only acts on a worktree that EnterWorktree created during this session; it never touches worktrees made by hand or by an earlier session. Nothing was changed.";

/// Validation code 2: the worktree holds work that removing it would lose.
pub fn unsaved_work(path: &str, files: u64, commits: u64) -> String {
    let commits_note = if commits > 0 { " not on the commit it started from" } else { "" };
    format!(
        "The worktree at {path} has {}{commits_note}; removing it would lose that work for good. Ask the user to confirm, then call ExitWorktree again with discard_changes: true, or use action \"keep\" to leave the worktree in place.",
        describe_changes(files, commits)
    )
}

/// Validation code 3: the worktree's state cannot be checked.
pub fn cannot_verify(path: &str, reason: &str) -> String {
    format!(
        "Could not check whether the worktree at {path} holds unsaved work ({reason}), so it was not removed. If the user agrees to lose whatever is there, call ExitWorktree again with discard_changes: true, or use action \"keep\" to leave the worktree in place."
    )
}

/// The result text after `keep`.
pub fn kept(path: &str, branch: Option<&str>, back_in: &str) -> String {
    let branch = branch.map(|branch| format!(" on branch {branch}")).unwrap_or_default();
    format!("Left the worktree; it stays at {path}{branch} with its work. The session is back in {back_in}.")
}

/// The result text after `remove`. `discarded` is [`describe_changes`] of what was thrown away
/// (empty when nothing was); `branch_problem` says why the branch could not be deleted, if so.
pub fn removed(
    path: &str,
    branch: Option<&str>,
    discarded: &str,
    branch_problem: Option<&str>,
    back_in: &str,
) -> String {
    let branch_note = match (branch, branch_problem) {
        (Some(branch), None) => format!(" and deleted its branch {branch}"),
        _ => String::new(),
    };
    let discarded = if discarded.is_empty() { String::new() } else { format!(" Discarded {discarded}.") };
    let problem = match (branch, branch_problem) {
        (Some(branch), Some(problem)) => format!(" The branch {branch} could not be deleted: {problem}."),
        _ => String::new(),
    };
    format!(
        "Left and removed the worktree at {path}{branch_note}.{discarded}{problem} The session is back in {back_in}."
    )
}

/// The error when git cannot remove the worktree (the session stays in it).
pub fn removal_failed(path: &str, reason: &str) -> String {
    format!("Could not remove the worktree at {path}: {reason}. The session is still in the worktree.")
}
