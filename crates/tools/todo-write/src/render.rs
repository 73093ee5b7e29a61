//! TodoWrite's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

use crate::input::TodoItem;

/// What TodoWrite produced (Claude Code's output data, camelCase keys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TodoWriteOutput {
    /// The list before this call (empty on the first call, and after a list was completed).
    pub old_todos: Vec<TodoItem>,
    /// The list as submitted (even when it was cleared because every item was completed).
    pub new_todos: Vec<TodoItem>,
}

/// The result text: a fixed confirmation the model relies on (Claude Code's sentence, verbatim).
pub const MODIFIED: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";
