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
//! Without a session folder the preview is given with a note that the rest was not kept.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use agent_tools_core::tool::MaxResultSize;
use agent_tools_core::{ContentPart, ToolResultBlock, ToolResultContent};
use agent_tools_files::messages::format_file_size;

/// The cap on every tool's limit (Claude Code's `DEFAULT_MAX_RESULT_SIZE_CHARS`).
pub const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 50_000;

/// Characters of preview.
pub const PREVIEW_CHARS: usize = 2_000;

/// The limit a tool's results are held to, or `None` for never.
pub fn threshold(limit: MaxResultSize) -> Option<usize> {
    match limit {
        MaxResultSize::Unlimited => None,
        MaxResultSize::Chars(chars) => Some(chars.min(DEFAULT_MAX_RESULT_SIZE_CHARS)),
    }
}

/// The first [`PREVIEW_CHARS`] characters, cut back to the last line break when that break is
/// past the first half; and whether anything was left out.
pub fn preview(text: &str) -> (&str, bool) {
    let Some((end, _)) = text.char_indices().nth(PREVIEW_CHARS) else { return (text, false) };
    let head = &text[..end];
    match head.rfind('\n') {
        Some(newline) if head[..newline].chars().count() > PREVIEW_CHARS / 2 => (&head[..newline], true),
        _ => (head, true),
    }
}

fn save(dir: &Path, tool_use_id: &str, content: &ToolResultContent) -> std::io::Result<PathBuf> {
    let folder = dir.join("tool-results");
    std::fs::create_dir_all(&folder)?;
    let safe_id: String =
        tool_use_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    let (path, bytes) = match content {
        ToolResultContent::Text(text) => (folder.join(format!("{safe_id}.txt")), text.as_bytes().to_vec()),
        ToolResultContent::Parts(parts) => {
            (folder.join(format!("{safe_id}.json")), serde_json::to_vec_pretty(parts).unwrap_or_default())
        }
    };
    // Saved once: a retry of the same call must not overwrite what the model was pointed at.
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(mut file) => file.write_all(&bytes)?,
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    Ok(path)
}

/// Applies the size limit to a finished result (see the module docs).
pub fn control(block: ToolResultBlock, limit: MaxResultSize, session_dir: Option<&Path>) -> ToolResultBlock {
    let Some(limit) = threshold(limit) else { return block };
    if block.content.has_image() || block.content.text_len() <= limit {
        return block;
    }
    let text = block.content.text();
    let size = format_file_size(text.len() as u64);
    let (shown, cut) = preview(&text);
    let tail = if cut { "\n...\n" } else { "\n" };
    let saved = session_dir.map(|dir| save(dir, &block.tool_use_id, &block.content));
    let header = match saved {
        Some(Ok(path)) => format!("Output too large ({size}). Full output saved to: {}", path.display()),
        Some(Err(error)) => {
            tracing::warn!(%error, "cannot save an oversized result");
            format!("Output too large ({size}). It could not be saved ({error}); only a preview is kept.")
        }
        None => format!("Output too large ({size}). Only a preview is kept."),
    };
    let content = format!("<persisted-output>\n{header}\n\nPreview (first 2KB):\n{shown}{tail}</persisted-output>");
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
