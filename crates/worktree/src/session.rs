//! The session's active worktree, kept in the context's app state so EnterWorktree and
//! ExitWorktree (two crates that never depend on each other) share it.

use std::path::PathBuf;

use agent_tools_core::ToolUseContext;

/// A worktree the session entered with EnterWorktree and has not left yet.
///
/// Mirrors Claude Code's `WorktreeSession` (`originalCwd`, `worktreePath`, `worktreeName`,
/// `worktreeBranch`, `originalHeadCommit`); it also keeps the original project directory so
/// leaving restores both directories exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeSession {
    /// The name the worktree was entered with (`feature/login`).
    pub name: String,
    /// The worktree's folder (canonical).
    pub worktree_path: PathBuf,
    /// Its branch (`worktree-feature-login`); `None` for a worktree a `WorktreeCreate` hook
    /// made (its removal is the `WorktreeRemove` hooks' business, not git's).
    pub worktree_branch: Option<String>,
    /// The main repository's root, where git commands that add or remove worktrees run.
    pub repo_root: PathBuf,
    /// The working directory before entering (`ctx.cwd`), restored on exit.
    pub original_cwd: PathBuf,
    /// The project directory before entering (`ctx.original_cwd`), restored on exit.
    pub original_project_dir: PathBuf,
    /// The worktree's `HEAD` on entry; `None` when it is unknown (changes cannot be verified).
    pub base_commit: Option<String>,
}

/// The app-state slot (one per session, like Claude Code's process-wide `currentWorktreeSession`).
#[derive(Debug, Default)]
struct ActiveWorktree(Option<WorktreeSession>);

/// The session's active worktree, if EnterWorktree created one that ExitWorktree has not left.
pub fn active(ctx: &ToolUseContext) -> Option<WorktreeSession> {
    ctx.app_state.with(|state| state.get::<ActiveWorktree>().and_then(|slot| slot.0.clone()))
}

/// Records `session` as the active worktree, unless one already is.
///
/// # Errors
/// The session already active (left unchanged), boxed.
pub fn begin(ctx: &ToolUseContext, session: WorktreeSession) -> Result<(), Box<WorktreeSession>> {
    ctx.app_state.with(|state| {
        state.update(|slot: &mut ActiveWorktree| match &slot.0 {
            Some(current) => Err(Box::new(current.clone())),
            None => {
                slot.0 = Some(session);
                Ok(())
            }
        })
    })
}

/// Forgets the active worktree and returns it (`None` when there was none).
pub fn end(ctx: &ToolUseContext) -> Option<WorktreeSession> {
    ctx.app_state.with(|state| state.update(|slot: &mut ActiveWorktree| slot.0.take()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(name: &str) -> WorktreeSession {
        WorktreeSession {
            name: name.into(),
            worktree_path: PathBuf::from("/r/.claude/worktrees").join(name),
            worktree_branch: Some(format!("worktree-{name}")),
            repo_root: "/r".into(),
            original_cwd: "/r/sub".into(),
            original_project_dir: "/r".into(),
            base_commit: Some("abc".into()),
        }
    }

    #[test]
    fn one_session_at_a_time_shared_by_clones() {
        let ctx = ToolUseContext::new("/r");
        let copy = ctx.clone();
        assert_eq!(active(&ctx), None);
        assert_eq!(begin(&ctx, session("a")), Ok(()));
        assert_eq!(begin(&copy, session("b")), Err(Box::new(session("a"))));
        assert_eq!(active(&copy), Some(session("a")));
        assert_eq!(end(&copy), Some(session("a")));
        assert_eq!(end(&ctx), None);
        assert_eq!(begin(&ctx, session("b")), Ok(()));
    }
}
