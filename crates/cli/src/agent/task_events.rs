//! Background tasks as the Agent SDKs follow them: a `system/task_started` line when a shell
//! command or an agent starts in the background, and `task_updated` and `task_notification`
//! when it ends (Claude Code's lines; the Python SDK keeps its input open while a `local_agent`
//! task it saw start has not ended).

use std::collections::HashMap;

use agent_tools_background::{TaskRegistry, TaskSnapshot, TaskStatus};
use agent_tools_loop::protocol::{OutputLine, SystemLine, TaskPatch};
use tokio::sync::broadcast::error::RecvError;

use super::output;

/// Prints the lines of `registry`'s tasks as they start and end, until the registry is gone.
pub(crate) async fn forward(registry: TaskRegistry, session_id: String) {
    let mut events = registry.events();
    drop(registry);
    let mut seen: HashMap<String, (TaskStatus, u32)> = HashMap::new();
    loop {
        let task = match events.recv().await {
            Ok(task) => task,
            Err(RecvError::Lagged(_)) => continue,
            Err(RecvError::Closed) => break,
        };
        let calls = task.progress.as_ref().map_or(0, |progress| progress.tool_uses);
        let before = seen.insert(task.id.clone(), (task.status, calls));
        if before == Some((task.status, calls)) {
            continue;
        }
        let first = before.is_none();
        if before.is_some_and(|(status, done)| status == task.status && done < calls) {
            output::line(&OutputLine::System(progress_line(&task, &session_id)));
            continue;
        }
        for line in lines(&task, first, &session_id) {
            output::line(&OutputLine::System(line));
        }
    }
}

/// A `task_progress` line: the task's calls so far and its last tool.
fn progress_line(task: &TaskSnapshot, session_id: &str) -> SystemLine {
    let progress = task.progress.clone().unwrap_or_default();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis());
    let elapsed = u64::try_from(now).unwrap_or(u64::MAX).saturating_sub(task.started_at_ms);
    SystemLine::TaskProgress {
        task_id: task.id.clone(),
        tool_use_id: task.tool_use_id.clone(),
        description: task.description.clone(),
        usage: serde_json::json!({"total_tokens": progress.total_tokens, "tool_uses": progress.tool_uses, "duration_ms": elapsed}),
        last_tool_name: progress.last_tool_name,
        session_id: session_id.to_owned(),
        uuid: output::uuid(),
    }
}

/// The lines a task's new `status` makes: `task_started` when it is `first` seen, and the
/// end's two lines when it has ended.
fn lines(task: &TaskSnapshot, first: bool, session_id: &str) -> Vec<SystemLine> {
    let mut lines = Vec::new();
    if first {
        lines.push(SystemLine::TaskStarted {
            task_id: task.id.clone(),
            tool_use_id: task.tool_use_id.clone(),
            description: task.description.clone(),
            task_type: task.task_type.as_str().to_owned(),
            session_id: session_id.to_owned(),
            uuid: output::uuid(),
        });
    }
    let ended = match task.status {
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Killed => "stopped",
        TaskStatus::Pending | TaskStatus::Running => return lines,
    };
    lines.push(SystemLine::TaskUpdated {
        task_id: task.id.clone(),
        patch: TaskPatch { status: task.status.as_str().to_owned(), end_time: task.ended_at_ms },
        session_id: session_id.to_owned(),
        uuid: output::uuid(),
    });
    let summary = match (&task.result, task.exit_code) {
        (Some(result), _) => first_line(result),
        (None, Some(code)) => format!("{} (exit code {code})", task.description),
        (None, None) => task.description.clone(),
    };
    lines.push(SystemLine::TaskNotification {
        task_id: task.id.clone(),
        tool_use_id: task.tool_use_id.clone(),
        status: ended.to_owned(),
        output_file: task.output_path.display().to_string(),
        summary,
        session_id: session_id.to_owned(),
        uuid: output::uuid(),
    });
    lines
}

/// A result's first line, at most 200 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or_default().trim();
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}
