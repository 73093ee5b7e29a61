//! Edit's output → `tool_result` text, and Edit's messages. The exact strings live here (the
//! read-before-write texts it shares with Write come from `agent_tools_files::messages`).

use agent_tools_core::quote::quote_up_to;
use agent_tools_files::Hunk;
use serde::Serialize;

use crate::edit::Seen;

pub use agent_tools_files::messages::{MODIFIED_SINCE_READ, NOT_READ, UNEXPECTEDLY_MODIFIED};

/// What Edit returns (Claude Code's output fields; the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditOutput {
    /// The path as the model gave it.
    pub file_path: String,
    /// The text replaced: `old_string`, or the file's own spelling of it when only the
    /// curly-quote fallback found it.
    pub old_string: String,
    /// The replacement as the model gave it.
    pub new_string: String,
    /// The file's text before the edit, line endings normalised to `\n` (empty for a new file).
    pub original_file: String,
    /// The line diff of the edit.
    pub structured_patch: Vec<Hunk>,
    /// Whether the user changed the proposed edit (never, here: there is no proposal dialog).
    pub user_modified: bool,
    /// Whether every occurrence was replaced.
    pub replace_all: bool,
    /// Whether the Edit created the file (not in Claude Code's output; used for the result text).
    #[serde(skip)]
    pub created: bool,
    /// How many occurrences were replaced (not in Claude Code's output).
    #[serde(skip)]
    pub replacements: usize,
    /// How much of the file the model had seen (decides the note after the result text).
    #[serde(skip)]
    pub seen: Seen,
}

/// Said after an edit of a file the model had seen whole (Claude Code's text): its content in
/// the model's context is the file's.
pub const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";

/// Said after an edit of a file that had changed on disk since the model read it.
pub const CHANGED_SINCE_READ: &str = "(note: the file had changed on disk since you last read it. The edit applied cleanly, but the file holds changes you have not seen: Read it before an edit that depends on the text around this one.)";

/// The note after a successful edit's text, by how much of the file the model had seen:
/// [`STATE_IS_CURRENT`] for all of it, nothing for part of it (a Read with `offset` or `limit`),
/// [`CHANGED_SINCE_READ`] when it had changed on disk since the model read it. MultiEdit adds
/// the same note.
pub fn state_note(seen: Seen) -> Option<&'static str> {
    match seen {
        Seen::Whole => Some(STATE_IS_CURRENT),
        Seen::Part => None,
        Seen::Changed => Some(CHANGED_SINCE_READ),
    }
}

/// The result text (Claude Code's): the note says what the model's context holds of the file
/// now — all of it, part of it (no note), or a version older than the file's.
pub fn render(output: &EditOutput) -> String {
    let path = &output.file_path;
    let note = state_note(output.seen).map(|note| format!(" {note}")).unwrap_or_default();
    if output.created {
        format!("File created successfully at: {path}{note}")
    } else if output.replace_all {
        // Claude Code's sentence, then the count, so the model can check the edit touched as
        // many places as it meant to (case 007).
        let n = output.replacements;
        format!(
            "The file {path} has been updated. All occurrences were successfully replaced. Replacements made: {n}.{note}"
        )
    } else {
        format!("The file {path} has been updated successfully.{note}")
    }
}

/// `old_string` equals `new_string` (Claude Code's text).
pub const NO_CHANGES: &str = "No changes to make: old_string and new_string are exactly the same.";

/// An empty `old_string` for a file that has content (Claude Code's text).
pub const ALREADY_EXISTS: &str = "Cannot create new file - file already exists.";

/// A Jupyter notebook (Claude Code's text).
pub const NOTEBOOK: &str = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file.";

/// The edit changes nothing in the file (Claude Code's text).
pub const IDENTICAL: &str = "Original and edited file match exactly. Failed to apply edit.";

/// The most characters of `old_string` the not-found and ambiguous messages repeat: an
/// ordinary edit's text comes back whole, as in Claude Code's messages; a huge one is cut, with
/// its length.
pub const ECHO_MAX_CHARS: usize = 2_000;

/// `old_string` is not in the file (Claude Code's text).
pub fn not_found(old_string: &str) -> String {
    let old_string = quote_up_to(old_string, ECHO_MAX_CHARS);
    format!("String to replace not found in file.\nString: {old_string}")
}

/// `old_string` occurs `count` times and `replace_all` is false (Claude Code's text).
pub fn ambiguous(count: usize, old_string: &str) -> String {
    format!(
        "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {}",
        quote_up_to(old_string, ECHO_MAX_CHARS)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(replace_all: bool, created: bool) -> EditOutput {
        EditOutput {
            file_path: "/w/f.txt".into(),
            old_string: "a".into(),
            new_string: "b".into(),
            original_file: "a\n".into(),
            structured_patch: Vec::new(),
            user_modified: false,
            replace_all,
            created,
            replacements: 2,
            seen: Seen::Whole,
        }
    }

    #[test]
    fn texts_match_claude_code() {
        assert_eq!(
            render(&output(false, false)),
            "The file /w/f.txt has been updated successfully. (file state is current in your context — no need to Read it back)"
        );
        assert_eq!(
            render(&output(true, false)),
            "The file /w/f.txt has been updated. All occurrences were successfully replaced. Replacements made: 2. (file state is current in your context — no need to Read it back)"
        );
        assert_eq!(
            render(&EditOutput { replacements: 1, ..output(true, false) }),
            "The file /w/f.txt has been updated. All occurrences were successfully replaced. Replacements made: 1. (file state is current in your context — no need to Read it back)"
        );
        // After a Read with offset or limit the model has seen part of the file: no note.
        assert_eq!(
            render(&EditOutput { seen: Seen::Part, ..output(false, false) }),
            "The file /w/f.txt has been updated successfully."
        );
        assert_eq!(
            render(&EditOutput { seen: Seen::Changed, ..output(false, false) }),
            format!("The file /w/f.txt has been updated successfully. {CHANGED_SINCE_READ}")
        );
        assert_eq!(
            render(&output(false, true)),
            "File created successfully at: /w/f.txt (file state is current in your context — no need to Read it back)"
        );
        assert_eq!(
            serde_json::to_value(output(true, false)).unwrap(),
            serde_json::json!({"filePath": "/w/f.txt", "oldString": "a", "newString": "b", "originalFile": "a\n",
                "structuredPatch": [], "userModified": false, "replaceAll": true})
        );
    }
}
