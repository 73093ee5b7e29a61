//! # agent-tool-exit-worktree: the ExitWorktree tool
//!
//! Leaves the worktree the session entered with EnterWorktree, as Claude Code's `ExitWorktree`
//! does: `keep` leaves the folder and branch on disk, `remove` deletes them
//! (`git worktree remove --force`, then `git branch -D`). Either way the session's working
//! directory and original (project) directory go back to what they were before EnterWorktree,
//! through a context modifier, and the session state in the app state
//! ([`agent_tools_worktree::active`]) is cleared.
//!
//! Input `{action: "keep" | "remove", discard_changes?}`. The input check refuses, with Claude
//! Code's error codes:
//! - 1: there is no active EnterWorktree session (nothing changes);
//! - for `remove` without `discard_changes: true`:
//!   3: the worktree's state cannot be checked (`git status` or `git rev-list` failed, or no
//!   base commit); 2: it has uncommitted files and/or commits since it was entered — the
//!   message counts them and tells the model to confirm with the user and retry with
//!   `discard_changes: true`.
//!
//! Output `{action, originalCwd, worktreePath, worktreeBranch, discardedFiles?,
//! discardedCommits?, message}`; the model sees the message. Flags as Claude Code's: not
//! read-only, not concurrency-safe, destructive when the action is `remove`, deferred. `keep` is
//! allowed; `remove` is checked as a write of the worktree's folder (asked in the default mode,
//! allowed in `acceptEdits`, refused in plan mode), where Claude Code allows it; the code-2
//! check above still stands between the model and lost work. Git runs guarded in a folder the
//! user has not trusted ([`agent_tools_worktree::guard`]). `remove` runs the session's
//! `WorktreeRemove` hooks first (input `worktree_path`; what they answer is not read); a
//! worktree a `WorktreeCreate` hook made (it has no branch) is then left to them, git removes
//! any other. Not done: killing the tmux session Claude Code may attach to a worktree.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_worktree::Git;
//! use serde_json::json;
//! let repo = agent_tools_testkit::GitRepo::new(); // a temporary repository: one commit on main
//! let git = Git { env: repo.env(), ..Git::default() };
//! let mut ctx = ToolUseContext::new(&repo.root);
//! let enter = agent_tool_enter_worktree::tool_with(git.clone());
//! let mut entered = call_tool(enter.as_ref(), "toolu_1", json!({"name": "spike"}), &ctx).await;
//! ctx = (entered.context_modifier.take().unwrap())(ctx);
//! let exit = agent_tool_exit_worktree::tool_with(git);
//! let mut done = call_tool(exit.as_ref(), "toolu_2", json!({"action": "keep"}), &ctx).await;
//! let worktree = repo.root.join(".claude/worktrees/spike");
//! assert_eq!(done.block.content.text(), format!(
//!     "Left the worktree; it stays at {} on branch worktree-spike with its work. The session is back in {}.",
//!     worktree.display(), repo.root.display()
//! ));
//! ctx = (done.context_modifier.take().unwrap())(ctx);
//! assert_eq!(ctx.cwd, repo.root);
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::Path;
use std::sync::Arc;

use agent_tools_core::{
    PermissionResult, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_worktree::{Git, WorktreeSession};

pub use crate::input::{ExitAction, ExitWorktreeInput};
pub use crate::render::{
    ExitWorktreeOutput, NO_SESSION, cannot_verify, describe_changes, kept, removal_failed, removed, unsaved_work,
};

/// The API name.
pub const NAME: &str = "ExitWorktree";

/// Validation error code: no active worktree session.
pub const NO_SESSION_CODE: i32 = 1;
/// Validation error code: `remove` would discard uncommitted files or commits.
pub const UNSAVED_WORK_CODE: i32 = 2;
/// Validation error code: `remove` cannot verify the worktree's state.
pub const CANNOT_VERIFY_CODE: i32 = 3;

/// The ExitWorktree tool definition: how it runs git.
#[derive(Debug, Clone, Default)]
pub struct ExitWorktreeTool {
    /// The git program and environment (default: `git` from the search path).
    pub git: Git,
}

/// ExitWorktree with the default git, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ExitWorktreeTool::default())
}

/// ExitWorktree running git as `git` says (another program, extra environment).
pub fn tool_with(git: Git) -> Arc<dyn Tool> {
    build_tool(ExitWorktreeTool { git })
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl ExitWorktreeTool {
    /// Uncommitted files and commits since entry, or why they cannot be counted.
    async fn changes(
        &self,
        session: &WorktreeSession,
        ctx: &ToolUseContext,
    ) -> Result<agent_tools_worktree::Changes, String> {
        let Some(base) = &session.base_commit else {
            return Err("the commit the worktree started from is unknown".to_owned());
        };
        self.git
            .for_context(ctx)
            .changes(&session.worktree_path, base, session.worktree_branch.as_deref())
            .await
            .map_err(|error| error.to_string())
    }
}

impl ToolDef for ExitWorktreeTool {
    type Input = ExitWorktreeInput;
    type Output = ExitWorktreeOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Moves the session and may delete a folder and a branch: not read-only, never run beside
    // other calls, destructive for `remove`, local only.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false })
        .deferred()
        .search_hint("leave the git worktree, keep or remove it");

    fn summary(&self, input: &ExitWorktreeInput) -> String {
        match input.action {
            ExitAction::Keep => "Leave the worktree and keep it".to_owned(),
            ExitAction::Remove => "Leave the worktree and remove it".to_owned(),
        }
    }

    fn is_destructive(&self, input: &ExitWorktreeInput) -> bool {
        input.action == ExitAction::Remove
    }

    fn activity_description(&self, _input: &ExitWorktreeInput) -> Option<String> {
        Some("Exiting worktree".to_owned())
    }

    /// `keep` changes nothing on disk and is allowed; `remove` deletes the worktree's folder and
    /// branch, so it is checked as a write of that folder (deny rules, plan mode, `acceptEdits`
    /// inside the working directories; otherwise the user is asked). Claude Code allows both
    /// unasked; a removal is a write like any other here.
    async fn check_permissions(&self, input: &ExitWorktreeInput, ctx: &ToolUseContext) -> PermissionResult {
        match (input.action, agent_tools_worktree::active(ctx)) {
            (ExitAction::Remove, Some(session)) => {
                agent_tools_permissions::check_write_permission(&session.worktree_path, ctx)
            }
            _ => PermissionResult::allow(),
        }
    }

    async fn validate_input(&self, input: &ExitWorktreeInput, ctx: &ToolUseContext) -> ValidationResult {
        let Some(session) = agent_tools_worktree::active(ctx) else {
            return ValidationResult::error(NO_SESSION, NO_SESSION_CODE);
        };
        if input.action == ExitAction::Keep || input.discard_changes == Some(true) {
            return ValidationResult::Ok;
        }
        let path = shown(&session.worktree_path);
        match self.changes(&session, ctx).await {
            Err(reason) => ValidationResult::error(cannot_verify(&path, &reason), CANNOT_VERIFY_CODE),
            Ok(changes) if !changes.is_clean() => {
                ValidationResult::error(unsaved_work(&path, changes.files, changes.commits), UNSAVED_WORK_CODE)
            }
            Ok(_) => ValidationResult::Ok,
        }
    }

    async fn call(
        &self,
        input: ExitWorktreeInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<ExitWorktreeOutput>, ToolError> {
        let Some(session) = agent_tools_worktree::active(ctx) else {
            return Err(ToolError::failed(NO_SESSION));
        };
        let path = shown(&session.worktree_path);
        let back_in = shown(&session.original_cwd);
        let branch = session.worktree_branch.clone();
        let mut output = ExitWorktreeOutput {
            action: input.action,
            original_cwd: back_in.clone(),
            worktree_path: path.clone(),
            worktree_branch: branch.clone(),
            discarded_files: None,
            discarded_commits: None,
            message: String::new(),
        };
        match input.action {
            ExitAction::Keep => output.message = kept(&path, branch.as_deref(), &back_in),
            ExitAction::Remove => {
                // Counted before removing, for the report; a failure to count does not stop a
                // removal the input check already let through.
                if ctx.has_hooks("WorktreeRemove") {
                    let mut payload = serde_json::Map::new();
                    payload.insert("worktree_path".into(), path.clone().into());
                    let _ = ctx.fire_hook("WorktreeRemove", "", payload).await;
                }
                // A worktree a WorktreeCreate hook made is the hooks' to remove.
                if branch.is_none() {
                    output.message = removed(&path, None, "", None, &back_in);
                    return Ok(finish(ctx, session, output));
                }
                let changes = self.changes(&session, ctx).await.ok();
                let git = self.git.for_context(ctx);
                // A folder already deleted by hand only needs git to forget it.
                let removal = if session.worktree_path.exists() {
                    git.remove_worktree(&session.repo_root, &session.worktree_path).await
                } else {
                    git.prune_worktrees(&session.repo_root).await
                };
                removal.map_err(|error| ToolError::failed(removal_failed(&path, &error.to_string())))?;
                let branch_problem = match &branch {
                    Some(branch) => git.delete_branch(&session.repo_root, branch).await.err(),
                    None => None,
                };
                output.discarded_files = changes.map(|c| c.files);
                output.discarded_commits = changes.map(|c| c.commits);
                let discarded = changes.map(|c| describe_changes(c.files, c.commits)).unwrap_or_default();
                let problem = branch_problem.map(|error| error.to_string());
                output.message = removed(&path, branch.as_deref(), &discarded, problem.as_deref(), &back_in);
            }
        }
        Ok(finish(ctx, session, output))
    }

    fn map_tool_result(&self, output: &ExitWorktreeOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.message.clone())
    }
}

/// Ends the worktree session and goes back where it started.
fn finish(
    ctx: &ToolUseContext,
    session: WorktreeSession,
    output: ExitWorktreeOutput,
) -> ToolResult<ExitWorktreeOutput> {
    agent_tools_worktree::end(ctx);
    let (cwd, project_dir) = (session.original_cwd, session.original_project_dir);
    ToolResult::new(output).with_context_modifier(move |mut ctx| {
        ctx.cwd = cwd;
        ctx.original_cwd = project_dir;
        ctx
    })
}
