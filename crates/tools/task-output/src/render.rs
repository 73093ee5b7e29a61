//! TaskOutput's output → `tool_result` text. The exact strings live here.

use agent_tools_core::quote::quote;
use serde::Serialize;

/// Most characters of task output shown (Claude Code's `TASK_MAX_OUTPUT_LENGTH` default).
pub const MAX_OUTPUT_CHARS: usize = 32_000;

/// How the retrieval went (Claude Code's `retrieval_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RetrievalStatus {
    /// The task has finished; this is its final state.
    Success,
    /// The wait ran out while the task was still running.
    Timeout,
    /// `block: false` and the task is still running.
    NotReady,
}

impl RetrievalStatus {
    /// The status as written in the result (`success`, `timeout`, `not_ready`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Timeout => "timeout",
            Self::NotReady => "not_ready",
        }
    }
}

/// A task as TaskOutput reports it (Claude Code's field names, `exitCode` included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskView {
    /// The task's id.
    pub task_id: String,
    /// Its type (`local_bash`, `local_agent`).
    pub task_type: String,
    /// Its status (`running`, `completed`, `failed`, `killed`).
    pub status: String,
    /// What it does, in words.
    pub description: String,
    /// The end of its output (at most [`MAX_OUTPUT_CHARS`] characters, with a
    /// `[Truncated. Full output: PATH]` header when earlier output was left out); for an agent
    /// task, its result once it has finished (empty while it runs).
    pub output: String,
    /// JSON key `exitCode`. Its exit code, once it has ended (never for an agent task).
    #[serde(rename = "exitCode", skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// What went wrong reading it, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The file its whole output is in (an agent task's: its JSONL transcript).
    pub output_file: String,
    /// An agent task's prompt (the task it was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// An agent task's result once it has finished: its final text, or its error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// What TaskOutput produced (the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskOutputOutput {
    /// How the retrieval went.
    pub retrieval_status: RetrievalStatus,
    /// The task.
    pub task: Option<TaskView>,
}

/// The `output` field: all of `text` when it fits in [`MAX_OUTPUT_CHARS`] (and nothing earlier
/// was left out), else a `[Truncated. Full output: PATH]` header, a blank line and as much of the
/// end as fits (Claude Code's `formatTaskOutput`).
pub fn format_output(text: &str, earlier_left_out: bool, path: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_OUTPUT_CHARS && !earlier_left_out {
        return text.to_owned();
    }
    let header = format!("[Truncated. Full output: {path}]\n\n");
    let room = MAX_OUTPUT_CHARS.saturating_sub(header.chars().count());
    let skip = count.saturating_sub(room);
    let start = text.char_indices().nth(skip).map_or(text.len(), |(index, _)| index);
    format!("{header}{}", &text[start..])
}

/// The result text: tagged parts separated by blank lines (Claude Code's layout).
pub fn render(output: &TaskOutputOutput) -> String {
    let mut parts = vec![format!("<retrieval_status>{}</retrieval_status>", output.retrieval_status.as_str())];
    if let Some(task) = &output.task {
        parts.push(format!("<task_id>{}</task_id>", task.task_id));
        parts.push(format!("<task_type>{}</task_type>", task.task_type));
        parts.push(format!("<status>{}</status>", task.status));
        if let Some(code) = task.exit_code {
            parts.push(format!("<exit_code>{code}</exit_code>"));
        }
        if !task.output.trim().is_empty() {
            parts.push(format!("<output>\n{}\n</output>", task.output.trim_end()));
        }
        if let Some(error) = &task.error {
            parts.push(format!("<error>{error}</error>"));
        }
    }
    parts.join("\n\n")
}

/// The validation message for an empty id (Claude Code's text).
pub const TASK_ID_REQUIRED: &str = "Task ID is required";

/// The message for an id no task has (Claude Code's text).
pub fn no_task(id: &str) -> String {
    format!("No task found with ID: {}", quote(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(output: &str, exit_code: Option<i32>) -> TaskView {
        TaskView {
            task_id: "b1".into(),
            task_type: "local_bash".into(),
            status: "completed".into(),
            description: "d".into(),
            output: output.into(),
            exit_code,
            error: None,
            output_file: "/t/b1.output".into(),
            prompt: None,
            result: None,
        }
    }

    #[test]
    fn parts_are_separated_by_blank_lines() {
        let done = TaskOutputOutput { retrieval_status: RetrievalStatus::Success, task: Some(view("hi\n\n", Some(0))) };
        assert_eq!(
            render(&done),
            "<retrieval_status>success</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nhi\n</output>"
        );
        let mut quiet = view(" \n", None);
        quiet.error = Some("boom".into());
        let text = render(&TaskOutputOutput { retrieval_status: RetrievalStatus::NotReady, task: Some(quiet) });
        assert!(text.starts_with("<retrieval_status>not_ready</retrieval_status>"));
        assert!(text.ends_with("<status>completed</status>\n\n<error>boom</error>"), "{text}");
        let none = TaskOutputOutput { retrieval_status: RetrievalStatus::Timeout, task: None };
        assert_eq!(render(&none), "<retrieval_status>timeout</retrieval_status>");
    }

    #[test]
    fn long_output_keeps_its_end_behind_a_header() {
        assert_eq!(format_output("short", false, "/p"), "short");
        let long: String = (0..40_000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let shown = format_output(&long, false, "/p/b1.output");
        assert!(shown.starts_with("[Truncated. Full output: /p/b1.output]\n\n"));
        assert_eq!(shown.chars().count(), MAX_OUTPUT_CHARS);
        assert!(long.ends_with(shown.split_once("\n\n").unwrap().1));
        assert!(format_output("tail only", true, "/p").starts_with("[Truncated. Full output: /p]\n\ntail only"));
    }
}
