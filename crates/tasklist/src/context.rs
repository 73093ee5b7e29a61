//! Finding a session's task list from its [`ToolUseContext`].

use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::ToolUseContext;

use crate::store::{TaskListError, TaskStore};

/// The folder under the session's folder that holds task lists when the context names no
/// tasks folder: `<session_dir>/task-lists/<list id>/`.
pub const SESSION_SUBDIR: &str = "task-lists";

/// The list a call works on: [`ToolUseOptions::task_list_id`] when set and not blank (Claude
/// Code's `CLAUDE_CODE_TASK_LIST_ID`), else the session id. Sub-agents share the session's list,
/// as in Claude Code. (Claude Code's team-based list ids belong to agent swarms, which are not
/// implemented.) The id is sanitised when the store is opened.
///
/// [`ToolUseOptions::task_list_id`]: agent_tools_core::ToolUseOptions::task_list_id
pub fn list_id(ctx: &ToolUseContext) -> String {
    match &ctx.options.task_list_id {
        Some(id) if !id.trim().is_empty() => id.clone(),
        _ => ctx.options.session_id.clone(),
    }
}

/// A private temporary folder for the lists of a session without a tasks folder or session
/// folder; kept in the session's app state and removed when the app state is dropped.
#[derive(Debug, Default)]
struct TempRoot(Option<Arc<tempfile::TempDir>>);

/// The folder holding the task lists: [`ToolUseOptions::tasks_dir`] (the CLI's
/// `~/.claude/tasks`), else `<session_dir>/task-lists`, else a private temporary folder shared by
/// every clone of this context's app state.
///
/// # Errors
/// [`TaskListError::NoFolder`] when the temporary folder cannot be created.
///
/// [`ToolUseOptions::tasks_dir`]: agent_tools_core::ToolUseOptions::tasks_dir
pub fn tasks_root(ctx: &ToolUseContext) -> Result<PathBuf, TaskListError> {
    if let Some(dir) = &ctx.options.tasks_dir {
        return Ok(dir.clone());
    }
    if let Some(dir) = &ctx.options.session_dir {
        return Ok(dir.join(SESSION_SUBDIR));
    }
    ctx.app_state.with(|state| {
        state.update(|root: &mut TempRoot| {
            if let Some(dir) = &root.0 {
                return Ok(dir.path().to_path_buf());
            }
            let dir = tempfile::Builder::new()
                .prefix("agent-tools-task-lists-")
                .tempdir()
                .map_err(|error| TaskListError::NoFolder(error.to_string()))?;
            let path = dir.path().to_path_buf();
            root.0 = Some(Arc::new(dir));
            Ok(path)
        })
    })
}

/// The task list of the call in `ctx`: [`tasks_root`] joined with the sanitised [`list_id`].
///
/// # Errors
/// As [`tasks_root`].
pub fn store_for(ctx: &ToolUseContext) -> Result<TaskStore, TaskListError> {
    Ok(TaskStore::new(tasks_root(ctx)?, &list_id(ctx)))
}

/// Runs a blocking list operation off the async runtime's worker threads (lock waits and file
/// writes must not stall other calls). Outside a Tokio runtime it runs in place.
///
/// # Errors
/// Whatever `work` returns; [`TaskListError::Interrupted`] if the worker stopped.
pub async fn run_blocking<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, TaskListError> + Send + 'static,
) -> Result<R, TaskListError> {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(work).await.map_err(|error| TaskListError::Interrupted(error.to_string()))?
        }
        Err(_) => work(),
    }
}
