//! # agent-tool-task-output: the TaskOutput tool
//!
//! Reads a background task's status and output, as Claude Code's `TaskOutput` tool does (aliases
//! `AgentOutputTool` and `BashOutputTool`): the same input fields (`task_id`, `block` default
//! true, `timeout` in ms from 0 to 600000, default 30000), the same checks (`Task ID is required`,
//! `No task found with ID: X`) and the same result layout, parts separated by blank lines:
//!
//! ```text
//! <retrieval_status>success</retrieval_status>
//!
//! <task_id>b2k9x7q1m</task_id>
//!
//! <task_type>local_bash</task_type>
//!
//! <status>completed</status>
//!
//! <exit_code>0</exit_code>
//!
//! <output>
//! …the end of the output, at most 32,000 characters, behind
//! [Truncated. Full output: PATH] when earlier output was left out…
//! </output>
//! ```
//!
//! `retrieval_status` is `success` when the task has finished, `timeout` when a blocking wait
//! ran out first, and `not_ready` for `block: false` on a running task. Reporting a finished task
//! counts as telling the model, so its pending `<task-notification>` is withdrawn. The tasks are
//! the session's [`agent_tools_background::TaskRegistry`] (Bash's `run_in_background` starts
//! shell tasks, the Agent tool's background agents are agent tasks).
//!
//! A background agent (Claude Code's `local_agent` task) is found by its id or its `name`, and
//! reported with `<task_type>local_agent</task_type>`, no `<exit_code>`, and as `<output>` the
//! agent's final text (or the error it ended with) once it has finished — nothing while it runs
//! (its transcript is in its output file). The output object then also has the agent's `prompt`
//! and `result`.
//!
//! Read-only and concurrency-safe; deferred (`should_defer`) as in Claude Code. A blocking wait
//! sleeps until the task changes state, the time runs out or the call is cancelled (the
//! context's token, or a user interrupt: its interrupt behaviour is `Cancel`) — it never polls.
//!
//! Different from Claude Code, on purpose: the output shown is always the end of the output file
//! (Claude Code shows a running task's first 30,000 bytes but a finished task's end), and the
//! legacy input names (`bash_id`, `wait_up_to`) are not translated.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_background::{ShellTaskSpec, TaskRegistry};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! // What Bash's `run_in_background` does: a task in the session's registry.
//! let spec = ShellTaskSpec::new("/bin/bash", "echo hi", dir.path());
//! let task = TaskRegistry::for_context(&ctx).spawn_shell(spec).unwrap();
//! let input = serde_json::json!({"task_id": task.id, "timeout": 30_000});
//! let done = call_tool(agent_tool_task_output::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), format!(
//!     "<retrieval_status>success</retrieval_status>\n\n<task_id>{}</task_id>\n\n\
//!      <task_type>local_bash</task_type>\n\n<status>completed</status>\n\n\
//!      <exit_code>0</exit_code>\n\n<output>\nhi\n</output>",
//!     task.id
//! ));
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_background::{TaskRegistry, TaskSnapshot, TaskType, WaitOutcome};
use agent_tools_core::{
    InterruptBehavior, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use serde::Serialize;

pub use crate::input::{DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, TaskOutputInput};
pub use crate::render::{MAX_OUTPUT_CHARS, RetrievalStatus, TaskOutputOutput, TaskView};

/// The API name.
pub const NAME: &str = "TaskOutput";

/// The names the tool had before (Claude Code's aliases).
pub const ALIASES: &[&str] = &["AgentOutputTool", "BashOutputTool"];

/// Progress while a blocking call waits (Claude Code's `waiting_for_task`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskOutputProgress {
    /// JSON key `type`. Always `waiting_for_task`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The task's description.
    pub task_description: String,
    /// The task's type.
    pub task_type: String,
}

/// The TaskOutput tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskOutputTool;

/// TaskOutput, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskOutputTool)
}

/// The task with this id in the session, else the agent task with this name, if any.
fn find(ctx: &ToolUseContext, id: &str) -> Option<(TaskRegistry, TaskSnapshot)> {
    let registry = TaskRegistry::existing(ctx)?;
    let task = registry.get(id).or_else(|| registry.find_agent(id))?;
    Some((registry, task))
}

/// The task as reported: a shell task with the end of its output read from its file, an agent
/// task with its result once it has finished.
async fn view(task: TaskSnapshot) -> TaskView {
    if task.task_type == TaskType::LocalAgent {
        let output = if task.status.is_finished() { task.result.clone().unwrap_or_default() } else { String::new() };
        return TaskView {
            task_id: task.id,
            task_type: task.task_type.as_str().to_owned(),
            status: task.status.as_str().to_owned(),
            description: task.description,
            output,
            exit_code: None,
            error: None,
            output_file: task.output_path.to_string_lossy().into_owned(),
            prompt: task.prompt,
            result: task.result,
        };
    }
    let path = task.output_path.clone();
    let read = tokio::task::spawn_blocking(move || agent_tools_background::read_tail(&path, MAX_OUTPUT_CHARS)).await;
    let output_file = task.output_path.to_string_lossy().into_owned();
    let (output, error) = match read {
        Ok(Ok(tail)) => (render::format_output(&tail.text, tail.truncated, &output_file), None),
        Ok(Err(error)) => (String::new(), Some(format!("Could not read the output file: {error}"))),
        Err(error) => (String::new(), Some(format!("Could not read the output file: {error}"))),
    };
    TaskView {
        task_id: task.id,
        task_type: task.task_type.as_str().to_owned(),
        status: task.status.as_str().to_owned(),
        description: task.description,
        output,
        exit_code: task.exit_code,
        error,
        output_file,
        prompt: None,
        result: None,
    }
}

impl ToolDef for TaskOutputTool {
    type Input = TaskOutputInput;
    type Output = TaskOutputOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::MainConversation)
        .flags(ToolFlags::LOCAL_READ_ONLY)
        .deferred()
        .search_hint("read a background task's status and output");

    fn aliases(&self) -> &[&str] {
        ALIASES
    }

    fn summary(&self, _input: &TaskOutputInput) -> String {
        "Read a background task's output (prefer Read on its output file)".to_owned()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn user_facing_name(&self, _input: Option<&TaskOutputInput>) -> String {
        "Task Output".to_owned()
    }

    fn activity_description(&self, input: &TaskOutputInput) -> Option<String> {
        Some(if input.blocks() {
            format!("Waiting for task {}", input.task_id)
        } else {
            format!("Reading task {}", input.task_id)
        })
    }

    /// `Task ID is required` for an empty id, `No task found with ID: X` for one that is
    /// neither a task's id nor an agent task's name (Claude Code's texts and error codes 1 and 2).
    async fn validate_input(&self, input: &TaskOutputInput, ctx: &ToolUseContext) -> ValidationResult {
        if input.task_id.is_empty() {
            return ValidationResult::error(render::TASK_ID_REQUIRED, 1);
        }
        if find(ctx, &input.task_id).is_none() {
            return ValidationResult::error(render::no_task(&input.task_id), 2);
        }
        ValidationResult::Ok
    }

    async fn call(
        &self,
        input: TaskOutputInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TaskOutputOutput>, ToolError> {
        let Some((registry, task)) = find(ctx, &input.task_id) else {
            return Err(ToolError::failed(render::no_task(&input.task_id)));
        };
        let (status, task) = if !input.blocks() {
            if task.status.is_finished() {
                registry.mark_notified(&task.id);
                (RetrievalStatus::Success, task)
            } else {
                (RetrievalStatus::NotReady, task)
            }
        } else {
            ctx.report_progress(
                NAME,
                &TaskOutputProgress {
                    kind: "waiting_for_task",
                    task_description: task.description.clone(),
                    task_type: task.task_type.as_str().to_owned(),
                },
            );
            match registry.wait(&task.id, input.wait(), &ctx.cancel).await {
                WaitOutcome::Finished(done) => {
                    registry.mark_notified(&done.id);
                    (RetrievalStatus::Success, done)
                }
                WaitOutcome::TimedOut(running) => (RetrievalStatus::Timeout, running),
                WaitOutcome::Cancelled => return Err(ToolError::Cancelled),
                WaitOutcome::NotFound => return Err(ToolError::failed(render::no_task(&input.task_id))),
            }
        };
        Ok(ToolResult::new(TaskOutputOutput { retrieval_status: status, task: Some(view(task).await) }))
    }

    fn map_tool_result(&self, output: &TaskOutputOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
