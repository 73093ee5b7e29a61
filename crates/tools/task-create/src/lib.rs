//! # agent-tool-task-create: the TaskCreate tool
//!
//! Adds a task to the session's task list, as Claude Code's `TaskCreate` (task list V2) does:
//! input `{subject, description, activeForm?, metadata?}`; the task gets the next id of the list
//! (a decimal string, never reused), status `pending` and no links, and is written to
//! `<tasks folder>/<list id>/<id>.json` by [`agent_tools_tasklist`]. The result text is
//! `Task #<id> created successfully: <subject>`; the output data is `{task: {id, subject}}`.
//!
//! Where the list lives comes from the context ([`agent_tools_tasklist::store_for`]): the
//! host's tasks folder (the CLI's `~/.claude/tasks`) and list id (`CLAUDE_CODE_TASK_LIST_ID`),
//! else the session's own list under its folder.
//!
//! Flags as Claude Code's: not read-only, concurrency-safe (ids are allocated under a lock, so
//! parallel creates get distinct ids), deferred, permission allowed by default, 100,000-character
//! result limit. Deliberate difference: a blank `subject` is refused ([`EMPTY_SUBJECT`]).
//! Once the task is written the `TaskCreated` hooks run (input `task_id`, `task_subject`,
//! `task_description`, and in a team `teammate_name` and `team_name`); a hook that blocks (exit
//! code 2, `decision: "block"`, `continue: false`) has the task deleted again and the call fail
//! with its reason, as in Claude Code. Not done: the swarm parts.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.tasks_dir = Some(dir.path().join("tasks"));
//! ctx.options.task_list_id = Some("demo".into());
//! let input = serde_json::json!({"subject": "Run the tests", "description": "cargo test, all green"});
//! let done = call_tool(agent_tool_task_create::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "Task #1 created successfully: Run the tests");
//! assert!(dir.path().join("tasks/demo/1.json").is_file());
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_tasklist::{NewTask, run_blocking, store_for};

pub use crate::input::{EMPTY_SUBJECT, TaskCreateInput};
pub use crate::render::{CreatedTask, TaskCreateOutput, created};

/// The API name.
pub const NAME: &str = "TaskCreate";

/// The TaskCreate tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskCreateTool;

/// TaskCreate, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TaskCreateTool)
}

impl ToolDef for TaskCreateTool {
    type Input = TaskCreateInput;
    type Output = TaskCreateOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Writes one small file in the task list's folder; nothing irreversible, nothing remote.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("create a task in the task list");

    fn summary(&self, input: &TaskCreateInput) -> String {
        format!("Create task: {}", input.subject)
    }

    fn user_facing_name(&self, _input: Option<&TaskCreateInput>) -> String {
        "Create Task".to_owned()
    }

    fn activity_description(&self, input: &TaskCreateInput) -> Option<String> {
        Some(format!("Creating task: {}", input.subject))
    }

    async fn validate_input(&self, input: &TaskCreateInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.subject.trim().is_empty() { ValidationResult::error(EMPTY_SUBJECT, 1) } else { ValidationResult::Ok }
    }

    async fn call(
        &self,
        input: TaskCreateInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TaskCreateOutput>, ToolError> {
        let store = store_for(ctx).map_err(|error| ToolError::failed(error.to_string()))?;
        let new = NewTask {
            subject: input.subject,
            description: input.description,
            active_form: input.active_form,
            owner: None,
            metadata: input.metadata,
        };
        let created = store.clone();
        let task =
            run_blocking(move || created.create(new)).await.map_err(|error| ToolError::failed(error.to_string()))?;
        if ctx.has_hooks("TaskCreated") {
            let outcome =
                ctx.fire_hook("TaskCreated", "", task_payload(&task.id, &task.subject, &task.description, ctx)).await;
            if let Some(reason) = outcome.blocked.or(outcome.stop) {
                let id = task.id.clone();
                let _ = run_blocking(move || store.transaction(|tx| tx.delete(&id))).await;
                return Err(ToolError::failed(format!("TaskCreated hook blocked the task: {reason}")));
            }
        }
        Ok(ToolResult::new(TaskCreateOutput { task: CreatedTask { id: task.id, subject: task.subject } }))
    }

    fn map_tool_result(&self, output: &TaskCreateOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, created(output))
    }
}

/// The input of the task hooks (`TaskCreated`, `TaskCompleted`): `task_id`, `task_subject`,
/// `task_description`, and in a team `teammate_name` and `team_name`.
fn task_payload(
    id: &str,
    subject: &str,
    description: &str,
    ctx: &ToolUseContext,
) -> serde_json::Map<String, serde_json::Value> {
    let mut payload = serde_json::Map::new();
    payload.insert("task_id".into(), id.into());
    payload.insert("task_subject".into(), subject.into());
    payload.insert("task_description".into(), description.into());
    if let Some((team, name)) = agent_tools_team::state::team_of(ctx) {
        payload.insert("teammate_name".into(), name.into());
        payload.insert("team_name".into(), team.name().into());
    }
    payload
}
