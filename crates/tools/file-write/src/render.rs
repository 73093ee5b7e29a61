//! Write's output → `tool_result` text, and Write's messages. The exact strings live here (the
//! read-before-write refusals it shares with Edit come from `agent_tools_files::StaleRead`).

use agent_tools_files::Hunk;
use serde::Serialize;

/// Whether the Write made a new file or replaced one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// The file did not exist.
    Create,
    /// An existing file was replaced.
    Update,
}

/// What Write returns (Claude Code's output fields; the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteOutput {
    /// JSON key `type`. `create` or `update`.
    #[serde(rename = "type")]
    pub kind: WriteKind,
    /// The path as the model gave it.
    pub file_path: String,
    /// The content as the model gave it.
    pub content: String,
    /// The line diff from the old text to the new (empty for a new file).
    pub structured_patch: Vec<Hunk>,
    /// The old text, line endings normalised to `\n` (`null` for a new file).
    pub original_file: Option<String>,
}

/// Said after every successful write: the model already knows the file's content.
const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";

/// The result text.
pub fn render(output: &WriteOutput) -> String {
    match output.kind {
        WriteKind::Create => format!("File created successfully at: {} {STATE_IS_CURRENT}", output.file_path),
        WriteKind::Update => {
            format!("The file {} has been updated successfully. {STATE_IS_CURRENT}", output.file_path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(kind: WriteKind) -> WriteOutput {
        WriteOutput {
            kind,
            file_path: "rel.txt".into(),
            content: "x".into(),
            structured_patch: Vec::new(),
            original_file: None,
        }
    }

    #[test]
    fn texts_match_claude_code() {
        assert_eq!(
            render(&output(WriteKind::Create)),
            "File created successfully at: rel.txt (file state is current in your context — no need to Read it back)"
        );
        assert_eq!(
            render(&output(WriteKind::Update)),
            "The file rel.txt has been updated successfully. (file state is current in your context — no need to Read it back)"
        );
        let json = serde_json::to_value(output(WriteKind::Create)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "create", "filePath": "rel.txt", "content": "x", "structuredPatch": [], "originalFile": null})
        );
    }
}
