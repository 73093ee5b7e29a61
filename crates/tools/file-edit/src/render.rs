//! Edit's output → `tool_result` text, and Edit's messages. The exact strings live here (the
//! read-before-write texts it shares with Write come from `agent_tools_files::messages`).

use agent_tools_files::Hunk;
use serde::Serialize;

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
    /// How many occurrences were replaced (not in Claude Code's output; used for the result
    /// text of a `replace_all` edit).
    #[serde(skip)]
    pub replacements: usize,
}

/// Said after every successful edit: the model already knows the file's content.
const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";

/// The result text.
pub fn render(output: &EditOutput) -> String {
    let path = &output.file_path;
    if output.created {
        format!("File created successfully at: {path} {STATE_IS_CURRENT}")
    } else if output.replace_all {
        // Claude Code says only "All occurrences were successfully replaced."; the count lets
        // the model check that the edit touched as many places as it meant to.
        match output.replacements {
            1 => format!(
                "The file {path} has been updated. The only occurrence was successfully replaced. {STATE_IS_CURRENT}"
            ),
            n => format!(
                "The file {path} has been updated. All {n} occurrences were successfully replaced. {STATE_IS_CURRENT}"
            ),
        }
    } else {
        format!("The file {path} has been updated successfully. {STATE_IS_CURRENT}")
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

/// `old_string` is not in the file (Claude Code's text).
pub fn not_found(old_string: &str) -> String {
    format!("String to replace not found in file.\nString: {old_string}")
}

/// `old_string` occurs `count` times and `replace_all` is false (Claude Code's text).
pub fn ambiguous(count: usize, old_string: &str) -> String {
    format!(
        "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old_string}"
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
            "The file /w/f.txt has been updated. All 2 occurrences were successfully replaced. (file state is current in your context — no need to Read it back)"
        );
        assert_eq!(
            render(&EditOutput { replacements: 1, ..output(true, false) }),
            "The file /w/f.txt has been updated. The only occurrence was successfully replaced. (file state is current in your context — no need to Read it back)"
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
