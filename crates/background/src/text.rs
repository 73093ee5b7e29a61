//! The texts about tasks: ids, the completion notification, and reading the end of an output
//! file.

use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{TaskSnapshot, TaskStatus};

/// Characters a task id is made of, after its type letter (Claude Code's alphabet).
const ID_ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// A fresh task id: `prefix` (`b` for a shell task) and 8 characters of `[0-9a-z]`, as Claude
/// Code's `generateTaskId`. Random per process and call (the caller checks it is unused).
pub fn new_task_id(prefix: char) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::hash::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.write_u32(std::process::id());
    let mut bits = hasher.finish();
    let mut id = String::with_capacity(9);
    id.push(prefix);
    for _ in 0..8 {
        id.push(char::from(ID_ALPHABET[(bits % 36) as usize]));
        bits /= 36;
    }
    id
}

/// Whether `text` has the shape of a task id (a letter and 8 of `[0-9a-z]`).
pub fn looks_like_task_id(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && text.len() == 9
        && chars.all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
}

/// `&`, `<` and `>` as XML entities, so a description cannot close the tags around it.
pub fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The one-line summary of a finished shell task (Claude Code's wording, which models know):
/// `Background command "DESC" completed (exit code N)`, `… failed with exit code N`, or
/// `… was stopped`. `None` while the task runs.
pub fn summary(task: &TaskSnapshot) -> Option<String> {
    let description = &task.description;
    let exit = |text: &str| task.exit_code.map(|code| format!("{text}{code}")).unwrap_or_default();
    match task.status {
        TaskStatus::Completed => {
            let code = task.exit_code.map(|code| format!(" (exit code {code})")).unwrap_or_default();
            Some(format!("Background command \"{description}\" completed{code}"))
        }
        TaskStatus::Failed => Some(format!("Background command \"{description}\" failed{}", exit(" with exit code "))),
        TaskStatus::Killed => Some(format!("Background command \"{description}\" was stopped")),
        TaskStatus::Pending | TaskStatus::Running => None,
    }
}

/// The notification queued when a task finishes (Claude Code's `<task-notification>`):
///
/// ```text
/// <task-notification>
/// <task-id>b1x2y3z4w</task-id>
/// <tool-use-id>toolu_01</tool-use-id>
/// <output-file>/…/tasks/b1x2y3z4w.output</output-file>
/// <status>completed</status>
/// <summary>Background command "Run the tests" completed (exit code 0)</summary>
/// </task-notification>
/// ```
///
/// The `<tool-use-id>` line is there only when the task knows the call that started it. `None`
/// while the task runs.
pub fn notification(task: &TaskSnapshot) -> Option<String> {
    let summary = summary(task)?;
    let tool_use = task.tool_use_id.as_ref().map(|id| format!("\n<tool-use-id>{id}</tool-use-id>")).unwrap_or_default();
    Some(format!(
        "<task-notification>\n<task-id>{}</task-id>{tool_use}\n<output-file>{}</output-file>\n<status>{}</status>\n<summary>{}</summary>\n</task-notification>",
        task.id,
        task.output_path.display(),
        task.status,
        escape_xml(&summary)
    ))
}

/// The end of an output file, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputTail {
    /// The last characters of the output (all of it when it fits), invalid UTF-8 replaced.
    pub text: String,
    /// Whether earlier output was left out.
    pub truncated: bool,
    /// Size of the whole file in bytes.
    pub total_bytes: u64,
}

/// Reads at most the last `max_chars` characters of the file at `path`, without reading more
/// than about four bytes per character from its end. A missing file reads as empty (a task that
/// printed nothing yet).
///
/// # Errors
/// When the file exists but cannot be read.
pub fn read_tail(path: &Path, max_chars: usize) -> io::Result<OutputTail> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(OutputTail { text: String::new(), truncated: false, total_bytes: 0 });
        }
        Err(error) => return Err(error),
    };
    let total_bytes = file.metadata()?.len();
    let window = u64::try_from(max_chars).unwrap_or(u64::MAX).saturating_mul(4).saturating_add(4);
    let start = total_bytes.saturating_sub(window);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(window).read_to_end(&mut bytes)?;
    // Do not start inside a multi-byte character.
    let skip = if start > 0 { bytes.iter().take(3).take_while(|byte| **byte & 0xC0 == 0x80).count() } else { 0 };
    let text = String::from_utf8_lossy(&bytes[skip..]);
    let count = text.chars().count();
    if count <= max_chars {
        return Ok(OutputTail { text: text.into_owned(), truncated: start > 0, total_bytes });
    }
    let cut = text.char_indices().nth(count - max_chars).map_or(text.len(), |(index, _)| index);
    Ok(OutputTail { text: text[cut..].to_owned(), truncated: true, total_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TaskType;
    use std::path::PathBuf;

    fn snapshot(status: TaskStatus, exit_code: Option<i32>) -> TaskSnapshot {
        TaskSnapshot {
            id: "b0a1b2c3d".into(),
            task_type: TaskType::LocalBash,
            status,
            description: "Run <the> tests & more".into(),
            command: "make test".into(),
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
    fn ids_have_claude_codes_shape_and_differ() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_task_id('b')).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| looks_like_task_id(id) && id.starts_with('b')));
        assert!(!looks_like_task_id("b123"));
        assert!(!looks_like_task_id("B12345678"));
        assert!(!looks_like_task_id("b1234567_"));
    }

    #[test]
    fn summaries_and_notifications_use_claude_codes_words() {
        let done = snapshot(TaskStatus::Completed, Some(0));
        assert_eq!(summary(&done).unwrap(), "Background command \"Run <the> tests & more\" completed (exit code 0)");
        assert_eq!(
            notification(&done).unwrap(),
            "<task-notification>\n<task-id>b0a1b2c3d</task-id>\n<tool-use-id>toolu_01</tool-use-id>\n<output-file>/s/tasks/b0a1b2c3d.output</output-file>\n<status>completed</status>\n<summary>Background command \"Run &lt;the&gt; tests &amp; more\" completed (exit code 0)</summary>\n</task-notification>"
        );
        let failed = snapshot(TaskStatus::Failed, Some(2));
        assert_eq!(summary(&failed).unwrap(), "Background command \"Run <the> tests & more\" failed with exit code 2");
        let stopped = TaskSnapshot { tool_use_id: None, ..snapshot(TaskStatus::Killed, Some(143)) };
        assert_eq!(summary(&stopped).unwrap(), "Background command \"Run <the> tests & more\" was stopped");
        assert!(!notification(&stopped).unwrap().contains("tool-use-id"));
        assert_eq!(notification(&snapshot(TaskStatus::Running, None)), None);
    }

    #[test]
    fn tails_keep_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        assert_eq!(read_tail(&path, 10).unwrap(), OutputTail { text: String::new(), truncated: false, total_bytes: 0 });
        std::fs::write(&path, "hello\n").unwrap();
        assert_eq!(
            read_tail(&path, 10).unwrap(),
            OutputTail { text: "hello\n".into(), truncated: false, total_bytes: 6 }
        );
        let long: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        std::fs::write(&path, &long).unwrap();
        let tail = read_tail(&path, 10).unwrap();
        assert_eq!(tail.text, "\n999\n1000\n");
        assert!(tail.truncated);
        std::fs::write(&path, "é".repeat(100)).unwrap();
        let tail = read_tail(&path, 7).unwrap();
        assert_eq!(tail.text, "é".repeat(7));
    }
}
