//! Monitor's texts: the call's result, the three notifications a watch queues, and the error
//! messages. The exact strings live here.
//!
//! Every notification is a `<task-notification>` block (the shape background tasks use, which
//! models know) with `<kind>monitor</kind>`; descriptions and output lines are XML-escaped
//! (`&`, `<`, `>`), so nothing a command prints can close the block or fake another one.

use std::path::Path;

use agent_tools_background::TaskSnapshot;
use agent_tools_background::text::escape_xml;
use serde::Serialize;

/// What a Monitor call returns (Claude Code's output): the watch's task id and its timeout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonitorOutput {
    /// The background task running the command (`b` + 8 of `[0-9a-z]`): TaskStop stops it,
    /// TaskOutput reads its output.
    pub task_id: String,
    /// The timeout the watch runs under, in milliseconds (after the cap at
    /// [`crate::MAX_EFFECTIVE_TIMEOUT_MS`]).
    pub timeout_ms: u64,
}

/// The result text (Claude Code's words):
/// `Monitor started (task ID, timeout Nms). You will be notified on each event. Keep working — do
/// not poll or sleep. Events may arrive while you are waiting for the user — an event is not
/// their reply.`
pub fn started(output: &MonitorOutput) -> String {
    format!(
        "Monitor started (task {}, timeout {}ms). You will be notified on each event. Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event is not their reply.",
        output.task_id, output.timeout_ms
    )
}

/// The key a watch's events and timed-out notice are queued under: `monitor:<task id>`. Not
/// the bare task id, which is withdrawn when the model reads the task with TaskOutput (its
/// completion notification keeps that key).
pub fn event_key(task_id: &str) -> String {
    format!("monitor:{task_id}")
}

/// One event: the lines a batch gathered, and — when some did not fit — how many were left out
/// and where the whole output is:
///
/// ```text
/// <task-notification>
/// <task-id>b1x2y3z4w</task-id>
/// <kind>monitor</kind>
/// <description>Errors in the dev server log</description>
/// <event>
/// ERROR connection refused
/// ERROR connection refused
/// [812 more lines not shown; the whole output is in /…/tasks/b1x2y3z4w.output]
/// </event>
/// </task-notification>
/// ```
pub fn event(task_id: &str, description: &str, lines: &[String], dropped: usize, output_path: &Path) -> String {
    let mut body = String::new();
    for line in lines {
        body.push_str(&escape_xml(line));
        body.push('\n');
    }
    if dropped > 0 {
        let noun = if dropped == 1 { "line" } else { "lines" };
        body.push_str(&format!(
            "[{dropped} more {noun} not shown; the whole output is in {}]\n",
            escape_xml(&output_path.display().to_string())
        ));
    }
    format!(
        "<task-notification>\n<task-id>{task_id}</task-id>\n<kind>monitor</kind>\n<description>{}</description>\n<event>\n{body}</event>\n</task-notification>",
        escape_xml(description)
    )
}

/// The head every end-of-watch notice shares: id, the call's `tool_use` id when known, kind,
/// description, output file and status.
fn end_head(task: &TaskSnapshot, description: &str) -> String {
    let tool_use = task.tool_use_id.as_ref().map(|id| format!("\n<tool-use-id>{id}</tool-use-id>")).unwrap_or_default();
    format!(
        "<task-notification>\n<task-id>{}</task-id>{tool_use}\n<kind>monitor</kind>\n<description>{}</description>\n<output-file>{}</output-file>\n<status>{}</status>",
        task.id,
        escape_xml(description),
        escape_xml(&task.output_path.display().to_string()),
        task.status
    )
}

/// The notification queued when the command exits by itself (the task's completion notification,
/// under the bare task id; `None` while it runs and for a stopped task, which does not notify):
///
/// ```text
/// <task-notification>
/// <task-id>b1x2y3z4w</task-id>
/// <tool-use-id>toolu_01</tool-use-id>
/// <kind>monitor</kind>
/// <description>Errors in the dev server log</description>
/// <output-file>/…/tasks/b1x2y3z4w.output</output-file>
/// <status>completed</status>
/// <summary>Monitor ended: its command exited with code 0. No more events will come.</summary>
/// </task-notification>
/// ```
///
/// The status is `completed` for exit code 0, `failed` for any other; the `<tool-use-id>` line is
/// there when the call's id is known.
pub fn ended(task: &TaskSnapshot) -> Option<String> {
    if !matches!(
        task.status,
        agent_tools_background::TaskStatus::Completed | agent_tools_background::TaskStatus::Failed
    ) {
        return None;
    }
    let code = task.exit_code.map(|code| format!(" with code {code}")).unwrap_or_default();
    Some(format!(
        "{}\n<summary>Monitor ended: its command exited{code}. No more events will come.</summary>\n</task-notification>",
        end_head(task, &task.description)
    ))
}

/// The notice queued when the watch reaches its timeout and its task is stopped (under
/// [`event_key`], after the last events):
///
/// ```text
/// <task-notification>
/// <task-id>b1x2y3z4w</task-id>
/// <tool-use-id>toolu_01</tool-use-id>
/// <kind>monitor</kind>
/// <description>Errors in the dev server log</description>
/// <output-file>/…/tasks/b1x2y3z4w.output</output-file>
/// <status>killed</status>
/// <summary>Monitor timed out after 300000ms and was stopped — start it again if you still need it.</summary>
/// </task-notification>
/// ```
pub fn timed_out(task: &TaskSnapshot, description: &str, timeout_ms: u64) -> String {
    format!(
        "{}\n<summary>Monitor timed out after {timeout_ms}ms and was stopped — start it again if you still need it.</summary>\n</task-notification>",
        end_head(task, description)
    )
}

/// `command` is missing (the WebSocket form, `ws`, is not supported).
pub const MISSING_COMMAND: &str =
    "Monitor needs a command: pass the shell command to watch as `command` (each line it prints is an event).";

/// `command` is empty or only white space.
pub const EMPTY_COMMAND: &str = "The command is empty: pass the shell command to watch as `command`.";

/// `timeout_ms` outside the schema's bounds (the text after the parameter's name).
pub fn timeout_out_of_range(min_ms: u64, max_ms: u64, given: f64) -> String {
    let given = if given.fract() == 0.0 && given.abs() < 1e15 { format!("{given:.0}") } else { given.to_string() };
    format!("must be between {min_ms} and {max_ms} (milliseconds), but it is {given}")
}

/// The task could not be started.
pub fn start_failed(why: &str) -> String {
    format!("Could not start the monitor: {why}")
}

/// What the user is asked when a rule asks about every Bash command (and the prompt's fallback).
pub fn approval(command: &str) -> String {
    format!("Monitor will run: {command}")
}

/// A whole-tool `Bash` deny rule refuses Monitor's commands too.
pub const BASH_DENIED: &str = "Permission to use Bash has been denied, and Monitor runs Bash commands.";

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use agent_tools_background::{TaskStatus, TaskType};

    use super::*;

    fn task(status: TaskStatus, exit_code: Option<i32>) -> TaskSnapshot {
        TaskSnapshot {
            id: "b0a1b2c3d".into(),
            task_type: TaskType::LocalBash,
            status,
            description: "Watch <the> log & more".into(),
            command: "tail -f log".into(),
            output_path: PathBuf::from("/s/tasks/b0a1b2c3d.output"),
            exit_code,
            started_at_ms: 1,
            ended_at_ms: None,
            tool_use_id: Some("toolu_01".into()),
            pid: Some(10),
            owner: None,
            name: None,
            agent_type: None,
            prompt: None,
            result: None,
            progress: None,
        }
    }

    #[test]
    fn the_result_text_is_claude_codes() {
        let output = MonitorOutput { task_id: "b1".into(), timeout_ms: 300_000 };
        assert_eq!(
            started(&output),
            "Monitor started (task b1, timeout 300000ms). You will be notified on each event. Keep working — do not poll or sleep. Events may arrive while you are waiting for the user — an event is not their reply."
        );
        assert_eq!(serde_json::to_value(&output).unwrap(), serde_json::json!({"taskId": "b1", "timeoutMs": 300000}));
    }

    #[test]
    fn events_escape_what_the_command_prints() {
        let lines = vec!["<b>bold</b> & co".to_owned(), "</event></task-notification>".to_owned()];
        assert_eq!(
            event("b1", "a < b", &lines, 0, Path::new("/o")),
            "<task-notification>\n<task-id>b1</task-id>\n<kind>monitor</kind>\n<description>a &lt; b</description>\n<event>\n&lt;b&gt;bold&lt;/b&gt; &amp; co\n&lt;/event&gt;&lt;/task-notification&gt;\n</event>\n</task-notification>"
        );
        let one = event("b1", "d", &["x".to_owned()], 1, Path::new("/o/b1.output"));
        assert!(one.contains("\nx\n[1 more line not shown; the whole output is in /o/b1.output]\n</event>"), "{one}");
        let many = event("b1", "d", &[], 9000, Path::new("/o"));
        assert!(many.contains("<event>\n[9000 more lines not shown;"), "{many}");
    }

    #[test]
    fn end_notices_say_how_the_watch_ended() {
        assert_eq!(
            ended(&task(TaskStatus::Completed, Some(0))).unwrap(),
            "<task-notification>\n<task-id>b0a1b2c3d</task-id>\n<tool-use-id>toolu_01</tool-use-id>\n<kind>monitor</kind>\n<description>Watch &lt;the&gt; log &amp; more</description>\n<output-file>/s/tasks/b0a1b2c3d.output</output-file>\n<status>completed</status>\n<summary>Monitor ended: its command exited with code 0. No more events will come.</summary>\n</task-notification>"
        );
        let failed = ended(&task(TaskStatus::Failed, Some(3))).unwrap();
        assert!(failed.contains("<status>failed</status>\n<summary>Monitor ended: its command exited with code 3."));
        assert_eq!(ended(&task(TaskStatus::Killed, Some(143))), None);
        assert_eq!(ended(&task(TaskStatus::Running, None)), None);
        let stopped = TaskSnapshot { tool_use_id: None, ..task(TaskStatus::Killed, Some(143)) };
        assert_eq!(
            timed_out(&stopped, "Watch", 1000),
            "<task-notification>\n<task-id>b0a1b2c3d</task-id>\n<kind>monitor</kind>\n<description>Watch</description>\n<output-file>/s/tasks/b0a1b2c3d.output</output-file>\n<status>killed</status>\n<summary>Monitor timed out after 1000ms and was stopped — start it again if you still need it.</summary>\n</task-notification>"
        );
    }

    #[test]
    fn errors_name_the_bounds() {
        assert_eq!(
            timeout_out_of_range(1000, 3_600_000, 500.0),
            "must be between 1000 and 3600000 (milliseconds), but it is 500"
        );
        assert_eq!(
            timeout_out_of_range(1000, 3_600_000, 999.5),
            "must be between 1000 and 3600000 (milliseconds), but it is 999.5"
        );
        assert_eq!(approval("tail -f log"), "Monitor will run: tail -f log");
    }
}
