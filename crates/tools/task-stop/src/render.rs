//! TaskStop's output → `tool_result` text. The exact strings live here.

use agent_tools_core::quote::quote;
use serde::Serialize;

/// What TaskStop produced; the result text is this object as compact JSON (Claude Code's
/// `jsonStringify(output)`, keys in this order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskStopOutput {
    /// `Successfully stopped task: ID (COMMAND)`; for an agent task, `(DESCRIPTION)`.
    pub message: String,
    /// The stopped task's id.
    pub task_id: String,
    /// Its type (`local_bash`, `local_agent`).
    pub task_type: String,
    /// A shell task's command line; left out for an agent task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The success message (Claude Code's text): `what` is a shell task's command, an agent task's
/// description.
pub fn stopped(id: &str, what: &str) -> String {
    format!("Successfully stopped task: {id} ({what})")
}

/// The result text: the output as compact JSON.
pub fn render(output: &TaskStopOutput) -> String {
    serde_json::to_string(output).unwrap_or_else(|_| output.message.clone())
}

/// Neither `task_id` nor `shell_id` given (Claude Code's text).
pub const MISSING_ID: &str = "Missing required parameter: task_id";

/// An id no task has (Claude Code's text).
pub fn no_task(id: &str) -> String {
    format!("No task found with ID: {}", quote(id))
}

/// A task that has already ended (Claude Code's text).
pub fn not_running(id: &str, status: &str) -> String {
    format!("Task {id} is not running (status: {status})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_is_the_output_as_json() {
        let output = TaskStopOutput {
            message: stopped("b1", "npm run \"dev\""),
            task_id: "b1".into(),
            task_type: "local_bash".into(),
            command: Some("npm run \"dev\"".into()),
        };
        assert_eq!(
            render(&output),
            r#"{"message":"Successfully stopped task: b1 (npm run \"dev\")","task_id":"b1","task_type":"local_bash","command":"npm run \"dev\""}"#
        );
        let agent = TaskStopOutput {
            message: stopped("a1", "Review the diff"),
            task_id: "a1".into(),
            task_type: "local_agent".into(),
            command: None,
        };
        assert_eq!(
            render(&agent),
            r#"{"message":"Successfully stopped task: a1 (Review the diff)","task_id":"a1","task_type":"local_agent"}"#
        );
        assert_eq!(not_running("b1", "completed"), "Task b1 is not running (status: completed)");
    }
}
