//! TaskGet's output → `tool_result` text. The exact strings live here.

use agent_tools_tasklist::{Task, TaskStatus};
use serde::Serialize;

/// What TaskGet produced (Claude Code's output data: `{task: {…} | null}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskGetOutput {
    /// The task, or `null` when the list has no task of that id.
    pub task: Option<TaskDetails>,
}

/// The task as TaskGet reports it (Claude Code's fields, camelCase; `blockedBy` unfiltered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDetails {
    /// The id.
    pub id: String,
    /// The title.
    pub subject: String,
    /// The details.
    pub description: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// Ids of the tasks it blocks.
    pub blocks: Vec<String>,
    /// Ids of the tasks still blocking it: blockers that are completed are left out, so TaskGet
    /// and TaskList agree (Claude Code's TaskGet kept them, anthropics/claude-code#22100).
    pub blocked_by: Vec<String>,
}

impl From<Task> for TaskDetails {
    fn from(task: Task) -> Self {
        Self {
            id: task.id,
            subject: task.subject,
            description: task.description,
            status: task.status,
            blocks: task.blocks,
            blocked_by: task.blocked_by,
        }
    }
}

/// The result for an id the list does not have (Claude Code's text).
pub const NOT_FOUND: &str = "Task not found";

fn ids(ids: &[String]) -> String {
    ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")
}

/// The result text (Claude Code's): `Task #<id>: <subject>`, `Status: <status>`,
/// `Description: <description>`, then `Blocked by: #a, #b` and `Blocks: #c` when not empty, one
/// per line; [`NOT_FOUND`] without a task.
pub fn text(output: &TaskGetOutput) -> String {
    let Some(task) = &output.task else { return NOT_FOUND.to_owned() };
    let mut lines = vec![
        format!("Task #{}: {}", task.id, task.subject),
        format!("Status: {}", task.status),
        format!("Description: {}", task.description),
    ];
    if !task.blocked_by.is_empty() {
        lines.push(format!("Blocked by: {}", ids(&task.blocked_by)));
    }
    if !task.blocks.is_empty() {
        lines.push(format!("Blocks: {}", ids(&task.blocks)));
    }
    lines.join("\n")
}
