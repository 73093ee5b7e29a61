//! Result-size control: a result larger than its tool's limit is saved to a file and replaced by
//! a preview.
//!
//! Mirrors Claude Code's `toolResultStorage.ts`: the limit is the tool's `max_result_size_chars`
//! capped at [`DEFAULT_MAX_RESULT_SIZE_CHARS`] (Grep 20,000, Bash 30,000, most tools 50,000);
//! Read (unlimited) and results with images are never saved. The file is
//! `<session_dir>/tool-results/<tool_use_id>.txt` (`.json` for a list of text parts), and the
//! model sees:
//!
//! ```text
//! <persisted-output>
//! Output too large (59.5KB). Full output saved to: PATH
//!
//! Preview (first 2KB):
//! …the first 2,000 characters, cut at a line break past the first 1,000…
//! ...
//! </persisted-output>
//! ```
//!
//! Without a session folder the preview is given with a note that the rest was not kept. The
//! format and the saving live in [`agent_tools_core::persist`], which tools that save their own
//! output (Bash) share.

use std::path::{Path, PathBuf};

use agent_tools_core::MaxResultSize;
use agent_tools_core::persist::{persisted_output, result_path, save_once, too_large_line};
use agent_tools_core::{ContentPart, ToolResultBlock, ToolResultContent};

pub use agent_tools_core::persist::{PREVIEW_CHARS, preview};

/// The cap on every tool's limit (Claude Code's `DEFAULT_MAX_RESULT_SIZE_CHARS`).
pub const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 50_000;

/// The limit a tool's results are held to, or `None` for never.
pub fn threshold(limit: MaxResultSize) -> Option<usize> {
    match limit {
        MaxResultSize::Unlimited => None,
        MaxResultSize::Chars(chars) => Some(chars.min(DEFAULT_MAX_RESULT_SIZE_CHARS)),
    }
}

fn save(dir: &Path, tool_use_id: &str, content: &ToolResultContent) -> std::io::Result<PathBuf> {
    let (path, bytes) = match content {
        ToolResultContent::Text(text) => (result_path(dir, tool_use_id, "txt"), text.as_bytes().to_vec()),
        ToolResultContent::Parts(parts) => {
            (result_path(dir, tool_use_id, "json"), serde_json::to_vec_pretty(parts).unwrap_or_default())
        }
    };
    save_once(&path, &bytes)?;
    Ok(path)
}

/// Applies the size limit to a finished result (see the module docs).
pub fn control(block: ToolResultBlock, limit: MaxResultSize, session_dir: Option<&Path>) -> ToolResultBlock {
    let Some(limit) = threshold(limit) else { return block };
    if block.content.has_image() || block.content.text_len() <= limit {
        return block;
    }
    let text = block.content.text();
    let size = text.len() as u64;
    let saved = session_dir.map(|dir| save(dir, &block.tool_use_id, &block.content));
    let header = match &saved {
        Some(Ok(path)) => too_large_line(size, Ok(path)),
        Some(Err(error)) => {
            tracing::warn!(%error, "cannot save an oversized result");
            too_large_line(size, Err(error))
        }
        None => {
            format!("Output too large ({}). Only a preview is kept.", agent_tools_core::persist::format_file_size(size))
        }
    };
    let content = persisted_output(&header, Some(&text));
    let content = match block.content {
        ToolResultContent::Text(_) => ToolResultContent::Text(content),
        ToolResultContent::Parts(_) => ToolResultContent::Parts(vec![ContentPart::text(content)]),
    };
    ToolResultBlock { content, ..block }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_cut_at_a_late_line_break() {
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        let (shown, cut) = preview(&text);
        assert!(cut);
        assert!(shown.ends_with("\n527") || shown.ends_with("527"), "{}", &shown[shown.len() - 10..]);
        assert_eq!(shown.lines().last(), Some("527"));
        let one_line = "x".repeat(5000);
        assert_eq!(preview(&one_line).0.len(), PREVIEW_CHARS);
        assert_eq!(preview("short"), ("short", false));
    }

    #[test]
    fn oversized_results_are_saved_once_and_previewed() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=12_000).map(|i| format!("{i}\n")).collect();
        let block = ToolResultBlock::text("toolu_big", text.clone());
        let controlled = control(block.clone(), MaxResultSize::Chars(30_000), Some(dir.path()));
        let saved = dir.path().join("tool-results/toolu_big.txt");
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
        let shown = controlled.content.text();
        assert!(shown.starts_with(&format!(
            "<persisted-output>\nOutput too large (59.5KB). Full output saved to: {}\n\nPreview (first 2KB):\n1\n2\n3\n",
            saved.display()
        )));
        assert!(shown.ends_with("\n527\n...\n</persisted-output>"), "{}", &shown[shown.len() - 40..]);
        // Within the limit, unlimited tools and images: unchanged.
        assert_eq!(control(block.clone(), MaxResultSize::Unlimited, Some(dir.path())), block);
        let small = ToolResultBlock::text("t", "ok");
        assert_eq!(control(small.clone(), MaxResultSize::Chars(10), None), small);
        // The cap: a tool claiming 100,000 is held to 50,000.
        assert_eq!(threshold(MaxResultSize::Chars(100_000)), Some(50_000));
        // No session folder: a preview and a note.
        let unsaved = control(block, MaxResultSize::Chars(20_000), None);
        assert!(unsaved.content.text().contains("Output too large (59.5KB). Only a preview is kept."));
    }
}
