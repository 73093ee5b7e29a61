//! TaskCreate's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

/// What TaskCreate produced (Claude Code's output data: `{task: {id, subject}}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskCreateOutput {
    /// The new task.
    pub task: CreatedTask,
}

/// The id and subject of the new task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreatedTask {
    /// Its id (a decimal string).
    pub id: String,
    /// Its subject, as given.
    pub subject: String,
}

/// The result text: `Task #<id> created successfully: <subject>` (Claude Code's, verbatim).
pub fn created(output: &TaskCreateOutput) -> String {
    format!("Task #{} created successfully: {}", output.task.id, output.task.subject)
}
