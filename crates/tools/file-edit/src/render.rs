//! Edit's output → `tool_result` text. The refusal texts and the state notes are the engine's
//! (`agent_tools_files::edit`), shared with MultiEdit.

use agent_tools_files::Hunk;
use agent_tools_files::edit::{Seen, state_note};
use serde::Serialize;

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

/// The result text (Claude Code's): the note says what the model's context holds of the file
/// now — all of it, part of it (no note), or a version older than the file's.
pub fn render(output: &EditOutput) -> String {
    let path = &output.file_path;
    let note = state_note(output.seen).map(|note| format!(" {note}")).unwrap_or_default();
    if output.created {
        format!("File created successfully at: {path}{note}")
    } else if output.replace_all {
        // Claude Code's sentence, then the count, so the model can check the edit touched as
        // many places as it meant to.
        let n = output.replacements;
        format!(
            "The file {path} has been updated. All occurrences were successfully replaced. Replacements made: {n}.{note}"
        )
    } else {
        format!("The file {path} has been updated successfully.{note}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_files::edit::CHANGED_SINCE_READ;

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
