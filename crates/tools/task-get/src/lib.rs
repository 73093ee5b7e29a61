//! # agent-tool-task-get: the TaskGet tool
//!
//! One task of the session's task list in full, as Claude Code's `TaskGet` (task list V2) shows
//! it: input `{taskId}`; the text is `Task #<id>: <subject>`, `Status: <status>`,
//! `Description: <description>`, then `Blocked by: #a, #b` and `Blocks: #c` when there are
//! any (only blockers not completed yet, as TaskList counts them: Claude Code's TaskGet still
//! listed completed ones, anthropics/claude-code#22100); an unknown id
//! answers `Task not found` (not an error). The output data is
//! `{task: {id, subject, description, status, blocks, blockedBy} | null}`.
//!
//! The list is found through the context ([`agent_tools_tasklist::store_for`]). Flags as
//! Claude Code's: read-only, concurrency-safe, deferred, allowed by default, 100,000-character
//! result limit. A task file that is not a valid task is an error result naming the file and
//! what is wrong with it.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_tasklist::{NewTask, TaskStore};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.tasks_dir = Some(dir.path().join("tasks"));
//! ctx.options.task_list_id = Some("demo".into());
//! let store = TaskStore::new(dir.path().join("tasks"), "demo");
//! store.create(NewTask { subject: "Build".into(), description: "Build it".into(), ..Default::default() }).unwrap();
//! let get = agent_tool_task_get::tool();
//! let done = call_tool(get.as_ref(), "toolu_1", serde_json::json!({"taskId": "1"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Task #1: Build\nStatus: pending\nDescription: Build it");
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool};
use agent_tools_tasklist::{TaskStatus, run_blocking, store_for};

pub use crate::input::TaskGetInput;
pub use crate::render::{NOT_FOUND, TaskDetails, TaskGetOutput, text};

/// The API name.
pub const NAME: &str = "TaskGet";

/// The TaskGet tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskGetTool;

/// TaskGet, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskGetTool)
}

impl ToolDef for TaskGetTool {
    type Input = TaskGetInput;
    type Output = TaskGetOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Reads one file of the task list's folder.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("show one task of the task list");

    fn summary(&self, input: &TaskGetInput) -> String {
        format!("Get task #{}", input.task_id)
    }

    fn user_facing_name(&self, _input: Option<&TaskGetInput>) -> String {
        "Get Task".to_owned()
    }

    fn activity_description(&self, input: &TaskGetInput) -> Option<String> {
        Some(format!("Reading task #{}", input.task_id))
    }

    async fn call(&self, input: TaskGetInput, ctx: &ToolUseContext) -> Result<ToolResult<TaskGetOutput>, ToolError> {
        let store = store_for(ctx).map_err(|error| ToolError::failed(error.to_string()))?;
        let task = run_blocking(move || {
            let Some(mut task) = store.get(&input.task_id)? else { return Ok(None) };
            // What still blocks it, as TaskList says: a completed blocker is done.
            let mut open = Vec::with_capacity(task.blocked_by.len());
            for id in std::mem::take(&mut task.blocked_by) {
                let done = matches!(store.get(&id)?, Some(blocker) if blocker.status == TaskStatus::Completed);
                if !done {
                    open.push(id);
                }
            }
            task.blocked_by = open;
            Ok(Some(task))
        })
        .await
        .map_err(|error: agent_tools_tasklist::TaskListError| ToolError::failed(error.to_string()))?;
        Ok(ToolResult::new(TaskGetOutput { task: task.map(TaskDetails::from) }))
    }

    fn map_tool_result(&self, output: &TaskGetOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, text(output))
    }
}
