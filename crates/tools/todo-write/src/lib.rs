//! # agent-tool-todo-write: the TodoWrite tool
//!
//! The session's checklist, as Claude Code's `TodoWrite` tool keeps it: every call sends the
//! whole list (`todos`: items of `content`, `status` ∈ `pending | in_progress | completed`,
//! `activeForm`), which replaces the stored one. The list belongs to the caller: the sub-agent
//! (`agent_id`) inside a sub-agent, else the session (`session_id`), so a sub-agent's list never
//! overwrites its parent's. When every submitted item is `completed` the stored list is cleared
//! (the output still reports the submitted list as `newTodos`).
//!
//! The result text is Claude Code's fixed confirmation ([`render::MODIFIED`]); the output data is
//! `{oldTodos, newTodos}`. Empty `content` / `activeForm` are refused by the input check with
//! Claude Code's messages. The JSON Schema is Claude Code's (every object closed, as the API's
//! strict mode needs); one deliberate difference: an unknown item key (`id`, `priority` from
//! older versions) is refused by name, where Claude Code's runtime drops it silently. Always allowed, not read-only, not concurrency-safe, deferred, strict.
//!
//! Claude Code offers TodoWrite in non-interactive sessions and its Task* tools instead in
//! interactive ones; this crate has no such switch (the host decides which tools it composes).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! let todos = serde_json::json!({"todos": [
//!     {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"}
//! ]});
//! let done = call_tool(agent_tool_todo_write::tool().as_ref(), "toolu_1", todos, &ctx).await;
//! assert!(done.block.content.text().starts_with("Todos have been modified successfully."));
//! assert_eq!(agent_tool_todo_write::todos(&ctx).len(), 1);
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::collections::HashMap;
use std::sync::Arc;

use agent_tools_core::{Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool};

pub use crate::input::{EMPTY_ACTIVE_FORM, EMPTY_CONTENT, TodoItem, TodoStatus, TodoWriteInput};
pub use crate::render::{MODIFIED, TodoWriteOutput};

/// The API name.
pub const NAME: &str = "TodoWrite";

/// The TodoWrite tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct TodoWriteTool;

/// TodoWrite, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TodoWriteTool)
}

/// Every list of the session, keyed by owner (agent id or session id); kept in the app state.
#[derive(Debug, Default)]
struct TodoLists {
    lists: HashMap<String, Vec<TodoItem>>,
}

/// Whose list a call works on: the sub-agent's inside a sub-agent, else the session's.
fn owner(ctx: &ToolUseContext) -> String {
    ctx.agent_id.clone().unwrap_or_else(|| ctx.options.session_id.clone())
}

/// The current list of the caller in `ctx` (the sub-agent's, else the session's); empty if it
/// has none. For hosts that show the list (Claude Code's todo panel and `todo_reminder`).
pub fn todos(ctx: &ToolUseContext) -> Vec<TodoItem> {
    let key = owner(ctx);
    ctx.app_state
        .with(|state| state.get::<TodoLists>().and_then(|all| all.lists.get(&key).cloned()).unwrap_or_default())
}

impl ToolDef for TodoWriteTool {
    type Input = TodoWriteInput;
    type Output = TodoWriteOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Changes only the session's in-memory list: no files, no network, nothing irreversible.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: false })
        .deferred()
        .search_hint("manage the session task checklist");

    fn summary(&self, input: &TodoWriteInput) -> String {
        format!("Update the todo list ({} items)", input.todos.len())
    }

    /// What the auto mode's classifier judges: How many items the list would hold (Claude Code's own view).
    fn to_auto_classifier_input(&self, input: &TodoWriteInput) -> serde_json::Value {
        serde_json::Value::String(format!("{} items", input.todos.len()))
    }

    fn user_facing_name(&self, _input: Option<&TodoWriteInput>) -> String {
        "Update Todos".to_owned()
    }

    fn activity_description(&self, _input: &TodoWriteInput) -> Option<String> {
        Some("Updating todos".to_owned())
    }

    async fn call(
        &self,
        input: TodoWriteInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TodoWriteOutput>, ToolError> {
        let key = owner(ctx);
        let all_done = input.todos.iter().all(|item| item.status == TodoStatus::Completed);
        let stored = if all_done { Vec::new() } else { input.todos.clone() };
        let old_todos = ctx
            .app_state
            .with(|state| state.update::<TodoLists, _>(|all| all.lists.insert(key, stored).unwrap_or_default()));
        Ok(ToolResult::new(TodoWriteOutput { old_todos, new_todos: input.todos }))
    }

    fn map_tool_result(&self, _output: &TodoWriteOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, MODIFIED)
    }
}
