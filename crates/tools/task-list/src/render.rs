//! TaskList's output → `tool_result` text. The exact strings live here.

use agent_tools_tasklist::TaskStatus;
use serde::Serialize;

/// What TaskList produced (Claude Code's output data: `{tasks: [...]}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskListOutput {
    /// The visible tasks, by id.
    pub tasks: Vec<TaskSummary>,
    /// Task files that could not be read, each as a sentence naming the file and the problem.
    /// Absent from the data when there are none (so the data is Claude Code's shape then).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

/// One line of the list (Claude Code's fields, camelCase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSummary {
    /// The id.
    pub id: String,
    /// The title.
    pub subject: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// Who works on it, if anyone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The ids of the blockers that are not completed yet.
    pub blocked_by: Vec<String>,
}

/// The result for a list with no visible task (Claude Code's text).
pub const NO_TASKS: &str = "No tasks found";

/// The result text (Claude Code's): one line per task,
/// `#<id> [<status>] <subject>[ (<owner>)][ [blocked by #x, #y]]`, or [`NO_TASKS`]. Unreadable
/// task files follow, one `Skipped …` line each (there are none in Claude Code's output, which
/// drops them silently).
pub fn text(output: &TaskListOutput) -> String {
    let mut lines: Vec<String> = output
        .tasks
        .iter()
        .map(|task| {
            let owner = match task.owner.as_deref() {
                Some(owner) if !owner.is_empty() => format!(" ({owner})"),
                _ => String::new(),
            };
            let blocked = if task.blocked_by.is_empty() {
                String::new()
            } else {
                let ids: Vec<String> = task.blocked_by.iter().map(|id| format!("#{id}")).collect();
                format!(" [blocked by {}]", ids.join(", "))
            };
            format!("#{} [{}] {}{owner}{blocked}", task.id, task.status, task.subject)
        })
        .collect();
    if lines.is_empty() {
        lines.push(NO_TASKS.to_owned());
    }
    lines.extend(output.skipped.iter().map(|problem| format!("Skipped: {problem}")));
    lines.join("\n")
}
