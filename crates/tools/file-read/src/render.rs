//! Read's output → `tool_result` text, and Read's messages. The exact strings live here.

use std::fmt::Write as _;

use agent_tools_core::result::ImageSource;
use agent_tools_core::{ContentPart, ToolResultContent};
pub use agent_tools_files::messages::format_file_size;
use serde::Serialize;

use crate::notebook::{self, Cell, Piece};

/// A text file's lines as read (Claude Code's `{type: "text", file: {…}}` output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextFile {
    /// The path as the model gave it.
    pub file_path: String,
    /// The selected lines joined with `\n`.
    pub content: String,
    /// How many lines were selected.
    pub num_lines: usize,
    /// The first selected line's number (1-based).
    pub start_line: u64,
    /// Lines in the whole file.
    pub total_lines: u64,
    /// The `offset` asked for, if any (used to word the past-the-end warning).
    #[serde(skip)]
    pub requested_offset: Option<u64>,
    /// A note about the file's bytes, shown after the lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding_note: Option<EncodingNote>,
}

/// Something the model should know about a text file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EncodingNote {
    /// NUL bytes near the start (shown as `\0`).
    NulBytes,
    /// Bytes that are not UTF-8: the text was decoded as Windows-1252.
    NotUtf8,
}

/// What Read returns (the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReadOutput {
    /// A text file.
    Text {
        /// The lines read.
        file: TextFile,
    },
    /// A Jupyter notebook.
    Notebook {
        /// What was read.
        file: NotebookFile,
    },
}

/// A notebook as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotebookFile {
    /// The path as the model gave it.
    pub file_path: String,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// The result content: text for text files (see [`render_text`]); for notebooks, the cells and
/// their outputs as text and image parts.
pub fn render(output: &ReadOutput) -> ToolResultContent {
    match output {
        ReadOutput::Text { file } => ToolResultContent::Text(render_text(file)),
        ReadOutput::Notebook { file } => ToolResultContent::Parts(
            notebook::render(&file.cells)
                .into_iter()
                .map(|piece| match piece {
                    Piece::Text(text) => ContentPart::text(text),
                    Piece::Image(media_type, data) => {
                        ContentPart::Image { source: ImageSource::base64(media_type, data) }
                    }
                })
                .collect(),
        ),
    }
}

/// The text of a text read: `N<TAB>line` for each line (NUL bytes shown as `\0`) and the
/// encoding note if any, or a warning when no line was selected.
pub fn render_text(file: &TextFile) -> String {
    if file.num_lines == 0 {
        return if file.total_lines == 0 {
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>".to_owned()
        } else {
            format!(
                "<system-reminder>Warning: the file exists but is shorter than the provided offset ({}). The file has {} lines.</system-reminder>",
                file.requested_offset.unwrap_or(file.start_line),
                file.total_lines
            )
        };
    }
    let mut text = number_lines(file.content.split('\n'), file.start_line);
    if text.contains('\0') {
        text = text.replace('\0', "\\0");
    }
    match file.encoding_note {
        Some(EncodingNote::NulBytes) => text.push_str(
            "\n\n[Note: this file holds NUL bytes in its first 8 KB, shown above as \\0. It may be binary data, \
             UTF-16/UTF-32 without a byte-order mark, or text with stray NULs. To change it, use a command that keeps \
             its encoding, or ask the user whether to convert it to UTF-8.]",
        ),
        Some(EncodingNote::NotUtf8) => text.push_str(
            "\n\n[Note: this file is not valid UTF-8, so it was decoded as Windows-1252. If it uses another legacy \
             encoding (Shift-JIS, GBK …), some characters above are wrong. Edit and Write keep the file's encoding.]",
        ),
        None => {}
    }
    text
}

/// Numbers lines as Claude Code's Read does: the number, a TAB, the line.
pub fn number_lines<'a>(lines: impl Iterator<Item = &'a str>, start_line: u64) -> String {
    let mut out = String::new();
    for (index, line) in lines.enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{}\t{line}", start_line + index as u64);
    }
    out
}

/// Message for a path that does not exist.
pub fn file_not_found(cwd: &str) -> String {
    format!("File does not exist. Note: your current working directory is {cwd}.")
}

/// Message for a path that is a folder (Node's wording, which models know).
pub fn is_directory(path: &str) -> String {
    format!("EISDIR: illegal operation on a directory, read '{path}'")
}

/// Message for a file too large to read whole.
pub fn too_large(size: u64, max: u64) -> String {
    format!(
        "File content ({}) exceeds maximum allowed size ({}). Read it in parts with offset and limit, or search it with Grep.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for text too long for the model's budget.
pub fn too_many_tokens(tokens: u64, max: u64) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({max}). Read it in parts with offset and limit, or search it with Grep."
    )
}

/// Message for a binary file.
pub fn binary_file(path: &str) -> String {
    format!(
        "This tool cannot read binary files, and {path} holds binary data. Use a command or script that understands its format."
    )
}

/// Message for a device that never ends or blocks.
pub fn blocked_device(path: &str) -> String {
    format!("Cannot read {path}: this device file blocks or never ends.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_with_a_tab() {
        assert_eq!(number_lines(["a", ""].into_iter(), 9), "9\ta\n10\t");
    }
}
