//! # agent-tool-task-list: the TaskList tool
//!
//! The session's task list at a glance, as Claude Code's `TaskList` (task list V2) shows it:
//! input `{}`; one line per task, `#<id> [<status>] <subject>[ (<owner>)][ [blocked by #x, #y]]`,
//! in id order, where `blocked by` names only the blockers that are not completed; tasks whose
//! `metadata._internal` is truthy are hidden; an empty list answers `No tasks found`. The
//! output data is `{tasks: [{id, subject, status, owner?, blockedBy}]}`.
//!
//! The list is found through the context ([`agent_tools_tasklist::store_for`]). Flags as
//! Claude Code's: read-only, concurrency-safe, deferred, allowed by default, 100,000-character
//! result limit. One addition: a task file that cannot be read is not dropped silently (as
//! Claude Code does) but named on a `Skipped: …` line after the tasks, and in the data's
//! `skipped`.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.tasks_dir = Some(dir.path().join("tasks"));
//! ctx.options.task_list_id = Some("demo".into());
//! let list = agent_tool_task_list::tool();
//! let done = call_tool(list.as_ref(), "toolu_1", json!({}), &ctx).await;
//! assert_eq!(done.block.content.text(), "No tasks found");
//! let store = agent_tools_tasklist::TaskStore::new(dir.path().join("tasks"), "demo");
//! store.create(agent_tools_tasklist::NewTask { subject: "Run the tests".into(), ..Default::default() }).unwrap();
//! let done = call_tool(list.as_ref(), "toolu_2", json!({}), &ctx).await;
//! assert_eq!(done.block.content.text(), "#1 [pending] Run the tests");
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::collections::HashSet;
use std::sync::Arc;

use agent_tools_core::{Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool};
use agent_tools_tasklist::{Listing, TaskStatus, run_blocking, store_for};

pub use crate::input::TaskListInput;
pub use crate::render::{NO_TASKS, TaskListOutput, TaskSummary, text};

/// The API name.
pub const NAME: &str = "TaskList";

/// The TaskList tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskListTool;

/// TaskList, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskListTool)
}

/// The visible tasks of `listing` with their open blockers (Claude Code's TaskList: internal
/// tasks hidden, completed blockers dropped from `blockedBy`).
pub fn summarise(listing: Listing) -> TaskListOutput {
    let completed: HashSet<String> =
        listing.tasks.iter().filter(|task| task.status == TaskStatus::Completed).map(|task| task.id.clone()).collect();
    let tasks = listing
        .tasks
        .into_iter()
        .filter(|task| !task.is_internal())
        .map(|task| TaskSummary {
            blocked_by: task.blocked_by.into_iter().filter(|id| !completed.contains(id)).collect(),
            id: task.id,
            subject: task.subject,
            status: task.status,
            owner: task.owner,
        })
        .collect();
    TaskListOutput { tasks, skipped: listing.skipped.iter().map(ToString::to_string).collect() }
}

impl ToolDef for TaskListTool {
    type Input = TaskListInput;
    type Output = TaskListOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Reads the task list's folder.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("list all tasks in the task list");

    fn summary(&self, _input: &TaskListInput) -> String {
        "List tasks".to_owned()
    }

    fn user_facing_name(&self, _input: Option<&TaskListInput>) -> String {
        "List Tasks".to_owned()
    }

    fn activity_description(&self, _input: &TaskListInput) -> Option<String> {
        Some("Listing tasks".to_owned())
    }

    async fn call(&self, _input: TaskListInput, ctx: &ToolUseContext) -> Result<ToolResult<TaskListOutput>, ToolError> {
        let store = store_for(ctx).map_err(|error| ToolError::failed(error.to_string()))?;
        let listing = run_blocking(move || store.list()).await.map_err(|error| ToolError::failed(error.to_string()))?;
        Ok(ToolResult::new(summarise(listing)))
    }

    fn map_tool_result(&self, output: &TaskListOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, text(output))
    }
}
