//! # agent-tool-task-update: the TaskUpdate tool
//!
//! Changes, links or deletes one task of the session's task list, as Claude Code's
//! `TaskUpdate` (task list V2) does. Input `{taskId, subject?, description?, activeForm?,
//! status?: pending|in_progress|completed|deleted, addBlocks?, addBlockedBy?, owner?,
//! metadata?}`:
//!
//! - Only fields whose value actually changes are written and named in `updatedFields`.
//! - `metadata` keys are merged into the task's metadata; a `null` value removes the key.
//! - `status: "deleted"` deletes the task file (its id is never reused, and other tasks' links
//!   to it are removed); `updatedFields` is then `["deleted"]`.
//! - `addBlocks` / `addBlockedBy` record each new dependency on both tasks.
//!
//! The result text is `Updated task #<id> <field>, <field>`; a failure (unknown task, …) is its
//! reason alone, **not** an error result — Claude Code does that on purpose, so one failed
//! update does not cancel the calls beside it. The output data is `{success, taskId,
//! updatedFields, error?, statusChange?: {from, to}}`.
//!
//! Deliberate differences: a link to an unknown id, or from a task to itself, fails the whole
//! update with a clear reason before anything is written (Claude Code skips it silently and
//! still reports the field); a blank new `subject` is refused. Not done: the verification nudge,
//! and the swarm parts (automatic owner, `task_assignment` mailbox messages, the teammate
//! reminder).
//!
//! A change of a task's status to `completed` first runs the `TaskCompleted` hooks (input
//! `task_id`, `task_subject`, `task_description`, and in a team `teammate_name` and
//! `team_name`); a hook that blocks (exit code 2, `decision: "block"`, `continue: false`) keeps
//! the task as it was, and the update fails with its reason (`success: false`), as in Claude
//! Code.
//!
//! Flags as Claude Code's: not read-only, concurrency-safe (every update runs under the list's
//! lock), deferred, allowed by default, 100,000-character result limit.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_tasklist::{NewTask, TaskStatus, TaskStore};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.tasks_dir = Some(dir.path().join("tasks"));
//! ctx.options.task_list_id = Some("demo".into());
//! let store = TaskStore::new(dir.path().join("tasks"), "demo");
//! store.create(NewTask { subject: "Build".into(), ..Default::default() }).unwrap();
//! let input = serde_json::json!({"taskId": "1", "status": "in_progress"});
//! let done = call_tool(agent_tool_task_update::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "Updated task #1 status");
//! assert_eq!(store.get("1").unwrap().unwrap().status, TaskStatus::InProgress);
//! # });
//! ```

mod input;
mod render;
mod update;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_tasklist::{run_blocking, store_for};

pub use crate::input::{EMPTY_SUBJECT, TaskUpdateInput, UpdateStatus};
pub use crate::render::{NOT_FOUND, StatusChange, TaskUpdateOutput, text};
pub use crate::update::apply;

/// The API name.
pub const NAME: &str = "TaskUpdate";

/// The TaskUpdate tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskUpdateTool;

/// TaskUpdate, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskUpdateTool)
}

impl ToolDef for TaskUpdateTool {
    type Input = TaskUpdateInput;
    type Output = TaskUpdateOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Rewrites (or removes) small files in the task list's folder, under the list's lock;
    // destructive for some input (`status: "deleted"` removes a task for good).
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: true, open_world: false })
        .deferred()
        .search_hint("update a task's status, owner or dependencies");

    fn summary(&self, input: &TaskUpdateInput) -> String {
        format!("Update task #{}", input.task_id)
    }

    fn is_destructive(&self, input: &TaskUpdateInput) -> bool {
        input.status == Some(UpdateStatus::Deleted)
    }

    fn user_facing_name(&self, _input: Option<&TaskUpdateInput>) -> String {
        "Update Task".to_owned()
    }

    fn activity_description(&self, input: &TaskUpdateInput) -> Option<String> {
        Some(format!("Updating task #{}", input.task_id))
    }

    async fn validate_input(&self, input: &TaskUpdateInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.subject.as_ref().is_some_and(|subject| subject.trim().is_empty()) {
            ValidationResult::error(EMPTY_SUBJECT, 1)
        } else {
            ValidationResult::Ok
        }
    }

    async fn call(
        &self,
        input: TaskUpdateInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TaskUpdateOutput>, ToolError> {
        let store = match store_for(ctx) {
            Ok(store) => store,
            Err(error) => {
                return Ok(ToolResult::new(TaskUpdateOutput {
                    success: false,
                    task_id: input.task_id,
                    updated_fields: Vec::new(),
                    error: Some(error.to_string()),
                    status_change: None,
                }));
            }
        };
        if let Some(reason) = completion_blocked(&store, &input, ctx).await {
            return Ok(ToolResult::new(TaskUpdateOutput {
                success: false,
                task_id: input.task_id,
                updated_fields: Vec::new(),
                error: Some(format!("TaskCompleted hook blocked the completion: {reason}")),
                status_change: None,
            }));
        }
        let task_id = input.task_id.clone();
        let output = run_blocking(move || Ok(apply(&store, &input))).await.unwrap_or_else(|error| TaskUpdateOutput {
            success: false,
            task_id,
            updated_fields: Vec::new(),
            error: Some(error.to_string()),
            status_change: None,
        });
        Ok(ToolResult::new(output))
    }

    fn map_tool_result(&self, output: &TaskUpdateOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, text(output))
    }
}

/// Runs the `TaskCompleted` hooks when the update completes a task that is not completed yet;
/// the reason a hook blocked it, if one did.
async fn completion_blocked(
    store: &agent_tools_tasklist::TaskStore,
    input: &TaskUpdateInput,
    ctx: &ToolUseContext,
) -> Option<String> {
    if input.status != Some(UpdateStatus::Completed) || !ctx.has_hooks("TaskCompleted") {
        return None;
    }
    let (lookup, id) = (store.clone(), input.task_id.clone());
    let task = run_blocking(move || lookup.get(&id)).await.ok().flatten()?;
    if task.status == agent_tools_tasklist::TaskStatus::Completed {
        return None;
    }
    let subject = input.subject.as_deref().unwrap_or(&task.subject);
    let description = input.description.as_deref().unwrap_or(&task.description);
    let mut payload = serde_json::Map::new();
    payload.insert("task_id".into(), task.id.as_str().into());
    payload.insert("task_subject".into(), subject.into());
    payload.insert("task_description".into(), description.into());
    if let Some((team, name)) = agent_tools_team::state::team_of(ctx) {
        payload.insert("teammate_name".into(), name.into());
        payload.insert("team_name".into(), team.name().into());
    }
    let outcome = ctx.fire_hook("TaskCompleted", "", payload).await;
    outcome.blocked.or(outcome.stop)
}
