//! # agent-tool-task-stop: the TaskStop tool
//!
//! Stops a running background task, as Claude Code's `TaskStop` tool does (alias `KillShell`, its
//! old name, and `KillBash`): the input `task_id`, or the deprecated `shell_id`; the checks
//! `Missing required parameter: task_id`, `No task found with ID: X` and `Task X is not running
//! (status: S)`; and the result, the output object as JSON:
//!
//! ```text
//! {"message":"Successfully stopped task: b2k9x7q1m (npm run dev)","task_id":"b2k9x7q1m","task_type":"local_bash","command":"npm run dev"}
//! ```
//!
//! Stopping ends the task's whole process tree — SIGTERM, a short grace, then SIGKILL, children
//! that ignore SIGTERM and `&` grandchildren included — and the call returns once they are gone
//! (see [`agent_tools_background::TaskRegistry::stop`]). The task becomes `killed` and sends no
//! `<task-notification>`: the model stopped it. The tasks are the session's
//! [`agent_tools_background::TaskRegistry`] (Bash's `run_in_background` starts shell tasks, the
//! Agent tool's background agents are agent tasks).
//!
//! A background agent (a `local_agent` task) is accepted by its id or its `name`, as in Claude
//! Code ("named background agents are also accepted by agent ID or name"). Stopping it cancels
//! the agent, stops what it started, and returns once it has wound down; the result then names
//! its description and has no `command`:
//!
//! ```text
//! {"message":"Successfully stopped task: a3k9x7q1m (Review the diff)","task_id":"a3k9x7q1m","task_type":"local_agent"}
//! ```
//!
//! Not read-only, concurrency-safe (as in Claude Code), deferred (`should_defer`).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_background::{ShellTaskSpec, TaskRegistry, TaskStatus};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! // What Bash's `run_in_background` does: a task in the session's registry.
//! let tasks = TaskRegistry::for_context(&ctx);
//! let task = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "sleep 300", dir.path())).unwrap();
//! let input = serde_json::json!({"task_id": task.id});
//! let done = call_tool(agent_tool_task_stop::tool().as_ref(), "toolu_1", input, &ctx).await;
//! let reply: serde_json::Value = serde_json::from_str(&done.block.content.text()).unwrap();
//! assert_eq!(reply, serde_json::json!({
//!     "message": format!("Successfully stopped task: {} (sleep 300)", task.id),
//!     "task_id": task.id, "task_type": "local_bash", "command": "sleep 300",
//! }));
//! assert_eq!(tasks.get(&task.id).unwrap().status, TaskStatus::Killed);
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_background::{StopError, TaskRegistry, TaskSnapshot, TaskType};
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};

pub use crate::input::TaskStopInput;
pub use crate::render::TaskStopOutput;

/// The API name.
pub const NAME: &str = "TaskStop";

/// The names the tool had before (Claude Code's aliases).
pub const ALIASES: &[&str] = &["KillShell", "KillBash"];

/// The TaskStop tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskStopTool;

/// TaskStop, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskStopTool)
}

/// The task the model named: the task with this id, else the agent task with this name.
fn find(ctx: &ToolUseContext, id: &str) -> Option<(TaskRegistry, TaskSnapshot)> {
    let registry = TaskRegistry::existing(ctx)?;
    let task = registry.get(id).or_else(|| registry.find_agent(id))?;
    Some((registry, task))
}

impl ToolDef for TaskStopTool {
    type Input = TaskStopInput;
    type Output = TaskStopOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Stops processes (destructive for them), never touches files or the network.

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::MainConversation)
        .dispatch()
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: true, open_world: false })
        .deferred()
        .search_hint("stop a running background task");

    fn aliases(&self) -> &[&str] {
        ALIASES
    }

    fn summary(&self, input: &TaskStopInput) -> String {
        format!("Stop background task {}", input.id().unwrap_or("?"))
    }

    fn user_facing_name(&self, _input: Option<&TaskStopInput>) -> String {
        "Stop Task".to_owned()
    }

    fn activity_description(&self, input: &TaskStopInput) -> Option<String> {
        Some(format!("Stopping task {}", input.id().unwrap_or("?")))
    }

    /// Claude Code's checks: an id must be given (code 1), name a task — by id, or an agent task
    /// by name — (code 1), and that task must be running (code 3).
    async fn validate_input(&self, input: &TaskStopInput, ctx: &ToolUseContext) -> ValidationResult {
        let Some(id) = input.id() else { return ValidationResult::error(render::MISSING_ID, 1) };
        let Some((_, task)) = find(ctx, id) else {
            return ValidationResult::error(render::no_task(id), 1);
        };
        if task.status.is_finished() {
            return ValidationResult::error(render::not_running(id, task.status.as_str()), 3);
        }
        ValidationResult::Ok
    }

    async fn call(&self, input: TaskStopInput, ctx: &ToolUseContext) -> Result<ToolResult<TaskStopOutput>, ToolError> {
        let Some(id) = input.id() else { return Err(ToolError::failed(render::MISSING_ID)) };
        let Some((registry, found)) = find(ctx, id) else { return Err(ToolError::failed(render::no_task(id))) };
        let task = registry.stop(&found.id).await.map_err(|error| match error {
            StopError::NotRunning { status, .. } => ToolError::failed(render::not_running(id, status.as_str())),
            StopError::NotFound(_) | StopError::StillRunning(_) | StopError::ShutDown => {
                ToolError::failed(render::no_task(id))
            }
        })?;
        let (message, command) = match task.task_type {
            TaskType::LocalAgent => (render::stopped(&task.id, &task.description), None),
            TaskType::LocalBash => (render::stopped(&task.id, &task.command), Some(task.command)),
        };
        Ok(ToolResult::new(TaskStopOutput {
            message,
            task_id: task.id,
            task_type: task.task_type.as_str().to_owned(),
            command,
        }))
    }

    fn map_tool_result(&self, output: &TaskStopOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
