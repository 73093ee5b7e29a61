//! Saving output that is too large to show, and the `<persisted-output>` text that points at it.
//!
//! Shared by the host's result-size control (a result over its tool's limit is replaced by a
//! preview) and by tools that save their own full output (Bash keeps the head and the tail of a
//! long output inline and saves the whole of it). Mirrors Claude Code's `toolResultStorage.ts`:
//! files go to `<session_dir>/tool-results/`, are created once (a retry never overwrites what the
//! model was pointed at), and the model reads:
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
//! Sizes are written as Claude Code's `formatFileSize` writes them ([`format_file_size`]).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Characters of preview in a `<persisted-output>` block (Claude Code's 2 KB).
pub const PREVIEW_CHARS: usize = 2_000;

/// The folder under a session's folder that holds saved outputs.
pub const TOOL_RESULTS_DIR: &str = "tool-results";

/// A byte count as Claude Code's `formatFileSize` writes it: `N bytes` under 1 KiB, else one
/// decimal (a trailing `.0` dropped) in KB, MB or GB of 1024.
///
/// ```
/// use agent_tools_core::persist::format_file_size;
/// assert_eq!(format_file_size(5), "5 bytes");
/// assert_eq!(format_file_size(1024 * 1024 * 1024), "1GB");
/// assert_eq!(format_file_size(1536), "1.5KB");
/// ```
pub fn format_file_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1024.0;
    for unit in ["KB", "MB"] {
        if value < 1024.0 {
            return format!("{}{unit}", one_decimal(value));
        }
        value /= 1024.0;
    }
    format!("{}GB", one_decimal(value))
}

fn one_decimal(value: f64) -> String {
    let text = format!("{:.1}", (value * 10.0).round() / 10.0);
    text.strip_suffix(".0").map_or(text.clone(), str::to_owned)
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

/// `<session_dir>/tool-results/<name>.<extension>`, with `name` (a `tool_use` id) reduced to
/// ASCII letters, digits, `_` and `-` so it can never leave the folder.
pub fn result_path(session_dir: &Path, name: &str, extension: &str) -> PathBuf {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    let safe = if safe.is_empty() { "output".to_owned() } else { safe };
    session_dir.join(TOOL_RESULTS_DIR).join(format!("{safe}.{extension}"))
}

/// Writes `bytes` to `path` (creating its folder) unless the file already exists: saved once, so
/// a retry of the same call never overwrites what the model was pointed at.
///
/// # Errors
/// When the folder or the file cannot be created or written.
pub fn save_once(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut file) => file.write_all(bytes),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
}

/// Most bytes [`save_file_once`] copies when it cannot link (Claude Code's 64 MiB).
pub const MAX_SAVED_BYTES: u64 = 64 * 1024 * 1024;

/// Saves the file at `source` as `path` (creating its folder) unless `path` already exists: a
/// hard link when both are on one file system (any size, no copy), else a copy of at most
/// [`MAX_SAVED_BYTES`]. Returns whether the saved file is the whole of `source`.
///
/// # Errors
/// When the folder cannot be created or the file cannot be linked or copied.
pub fn save_file_once(source: &Path, path: &Path) -> io::Result<bool> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    match std::fs::hard_link(source, path) {
        Ok(()) => return Ok(true),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => return Ok(true),
        Err(_) => {}
    }
    let mut from = std::fs::File::open(source)?;
    let total = from.metadata()?.len();
    let mut to = match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => return Ok(true),
        Err(error) => return Err(error),
    };
    let copied = io::copy(&mut io::Read::take(&mut from, MAX_SAVED_BYTES), &mut to)?;
    Ok(copied >= total)
}

/// The first line of a `<persisted-output>` block: `Output too large (SIZE). Full output saved to:
/// PATH` when the file was saved, else a note that only what is shown was kept.
pub fn too_large_line(size_bytes: u64, saved: Result<&Path, &io::Error>) -> String {
    let size = format_file_size(size_bytes);
    match saved {
        Ok(path) => format!("Output too large ({size}). Full output saved to: {}", path.display()),
        Err(error) => format!("Output too large ({size}). It could not be saved ({error}); only a preview is kept."),
    }
}

/// A `<persisted-output>` block: the `header` line, then, when `shown` is given, the preview of
/// it (see [`preview`]) followed by `...` when the preview left something out.
pub fn persisted_output(header: &str, shown: Option<&str>) -> String {
    match shown {
        None => format!("<persisted-output>\n{header}\n</persisted-output>"),
        Some(text) => {
            let (head, cut) = preview(text);
            let tail = if cut { "\n...\n" } else { "\n" };
            format!("<persisted-output>\n{header}\n\nPreview (first 2KB):\n{head}{tail}</persisted-output>")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_like_claude_code() {
        assert_eq!(format_file_size(1023), "1023 bytes");
        assert_eq!(format_file_size(353_894), "345.6KB");
        // Halves round up, as JavaScript's toFixed(1) does: 781.25 → 781.3.
        assert_eq!(format_file_size(800_000), "781.3KB");
        assert_eq!(format_file_size(3 * 1024 * 1024 + 512 * 1024), "3.5MB");
    }

    #[test]
    fn previews_cut_at_a_late_line_break() {
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        let (shown, cut) = preview(&text);
        assert!(cut);
        assert_eq!(shown.lines().last(), Some("527"));
        let one_line = "x".repeat(5000);
        assert_eq!(preview(&one_line).0.len(), PREVIEW_CHARS);
        assert_eq!(preview("short"), ("short", false));
    }

    #[test]
    fn blocks_and_paths() {
        let dir = Path::new("/s");
        assert_eq!(result_path(dir, "toolu_1", "txt"), Path::new("/s/tool-results/toolu_1.txt"));
        assert_eq!(result_path(dir, "../x", "txt"), Path::new("/s/tool-results/___x.txt"));
        assert_eq!(result_path(dir, "", "json"), Path::new("/s/tool-results/output.json"));
        let header = too_large_line(60_900, Ok(Path::new("/s/t.txt")));
        assert_eq!(header, "Output too large (59.5KB). Full output saved to: /s/t.txt");
        assert_eq!(persisted_output(&header, None), format!("<persisted-output>\n{header}\n</persisted-output>"));
        assert_eq!(
            persisted_output("H", Some("a\nb")),
            "<persisted-output>\nH\n\nPreview (first 2KB):\na\nb\n</persisted-output>"
        );
    }

    #[test]
    fn files_are_saved_once() {
        let dir = std::env::temp_dir().join(format!("agent-tools-persist-{}", std::process::id()));
        let path = result_path(&dir, "t", "txt");
        save_once(&path, b"first").unwrap();
        save_once(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        let source = dir.join("source.txt");
        std::fs::write(&source, b"whole output").unwrap();
        let linked = result_path(&dir, "u", "txt");
        assert!(save_file_once(&source, &linked).unwrap());
        assert_eq!(std::fs::read(&linked).unwrap(), b"whole output");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
