//! Grep's output → `tool_result` text. The exact strings live here.

use agent_tools_core::quote::quote;
use serde::Serialize;

use crate::input::OutputMode;
use crate::search::{Entry, LineText};

/// Lines longer than this many bytes are not shown whole (ripgrep's `--max-columns 500`, as
/// Claude Code runs it): a matching line is cut to a window of about this many bytes around its
/// match, with markers saying how much was left out (`[… 1200 chars before]`); a context line is
/// replaced by `OMITTED_CONTEXT_LINE` (`[Omitted long context line]`).
pub const MAX_LINE_BYTES: usize = 500;

/// What stands in for a context line longer than [`MAX_LINE_BYTES`].
pub const OMITTED_CONTEXT_LINE: &str = "[Omitted long context line]";

/// What Grep found (the MCP `structuredContent`; field names as Claude Code's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrepOutput {
    /// The output mode used.
    pub mode: OutputMode,
    /// Files listed (`files_with_matches`, the page shown) or files with matches (`count`, all
    /// of them, as the closing line counts); 0 for `content`.
    pub num_files: usize,
    /// The listed files (`files_with_matches` only), relative to the working directory when
    /// inside it, most recently modified first.
    pub filenames: Vec<String>,
    /// The shown lines joined with `\n` (`content` and `count`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// How many lines `content` holds (`content` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_lines: Option<usize>,
    /// Every match of every file (`count` only; the page may show fewer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_matches: Option<u64>,
    /// The page size, present only when the result was cut by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_limit: Option<u64>,
    /// The number of entries skipped, present only when more than 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_offset: Option<u64>,
    /// Entries the search found before paging (files, lines or `path:count` lines): when the
    /// page is empty but this is not, the offset is past the last entry (not in Claude Code's
    /// output object).
    #[serde(skip)]
    pub found_entries: usize,
}

/// The text for a page past the last entry (Claude Code's): the search found something.
pub const NO_ENTRIES_AT_OFFSET: &str = "No entries at this offset";

/// The text when `files_with_matches` finds nothing.
pub const NO_FILES_FOUND: &str = "No files found";

/// The text when `content` or `count` finds nothing.
pub const NO_MATCHES_FOUND: &str = "No matches found";

/// The line between two groups of lines that are not adjacent (ripgrep's context separator).
pub const GROUP_SEPARATOR: &str = "--";

/// The result text for an output.
pub fn render(output: &GrepOutput) -> String {
    let pagination = pagination(output.applied_limit, output.applied_offset);
    match output.mode {
        OutputMode::FilesWithMatches => {
            if output.filenames.is_empty() && output.found_entries > 0 {
                return match pagination {
                    Some(pagination) => {
                        format!("{NO_ENTRIES_AT_OFFSET}. [Showing results with pagination = {pagination}]")
                    }
                    None => format!("{NO_ENTRIES_AT_OFFSET}."),
                };
            }
            if output.filenames.is_empty() {
                return NO_FILES_FOUND.to_owned();
            }
            let noun = if output.num_files == 1 { "file" } else { "files" };
            let mut text = format!("Found {} {noun}", output.num_files);
            if let Some(pagination) = pagination {
                text.push(' ');
                text.push_str(&pagination);
            }
            for name in &output.filenames {
                text.push('\n');
                text.push_str(name);
            }
            text
        }
        OutputMode::Content => {
            let mut text = match output.content.as_deref() {
                Some(content) if !content.is_empty() => content.to_owned(),
                _ if output.found_entries > 0 => NO_ENTRIES_AT_OFFSET.to_owned(),
                _ => NO_MATCHES_FOUND.to_owned(),
            };
            if let Some(pagination) = pagination {
                text.push_str(&format!("\n\n[Showing results with pagination = {pagination}]"));
            }
            text
        }
        OutputMode::Count => {
            let body = match output.content.as_deref() {
                Some(content) if !content.is_empty() => content,
                _ if output.found_entries > 0 => NO_ENTRIES_AT_OFFSET,
                _ => NO_MATCHES_FOUND,
            };
            let total = output.num_matches.unwrap_or(0);
            let occurrences = if total == 1 { "occurrence" } else { "occurrences" };
            let files = if output.num_files == 1 { "file" } else { "files" };
            let mut text = format!("{body}\n\nFound {total} total {occurrences} across {} {files}.", output.num_files);
            if let Some(pagination) = pagination {
                text.push_str(&format!(" with pagination = {pagination}"));
            }
            text
        }
    }
}

/// `limit: N, offset: M`, with only the parts that apply; `None` when neither does.
pub fn pagination(limit: Option<u64>, offset: Option<u64>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(limit) = limit {
        parts.push(format!("limit: {limit}"));
    }
    if let Some(offset) = offset.filter(|offset| *offset > 0) {
        parts.push(format!("offset: {offset}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// How `content` lines are prefixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStyle {
    /// Prefix each line with its file's path (off when a single file was searched).
    pub show_path: bool,
    /// Prefix each line with its line number.
    pub show_numbers: bool,
    /// Put a [`GROUP_SEPARATOR`] between files too (ripgrep does when context is requested).
    pub separate_files: bool,
}

/// The `content` lines for files in order, ripgrep's no-heading format: `path:LINE:text` for
/// matches, `path-LINE-text` for context, a [`GROUP_SEPARATOR`] between groups that are not
/// adjacent.
pub fn content_lines<'a>(files: impl IntoIterator<Item = (&'a str, &'a [Entry])>, style: LineStyle) -> Vec<String> {
    let mut lines = Vec::new();
    for (path, entries) in files {
        if style.separate_files && !lines.is_empty() {
            lines.push(GROUP_SEPARATOR.to_owned());
        }
        for entry in entries {
            let (line, text, is_match) = match entry {
                Entry::Break => {
                    lines.push(GROUP_SEPARATOR.to_owned());
                    continue;
                }
                Entry::Match { line, text } => (*line, text, true),
                Entry::Context { line, text } => (*line, text, false),
            };
            let mark = if is_match { ':' } else { '-' };
            let mut out = String::new();
            if style.show_path {
                out.push_str(path);
                out.push(mark);
            }
            if style.show_numbers {
                out.push_str(&line.to_string());
                out.push(mark);
            }
            push_line_text(&mut out, text);
            lines.push(out);
        }
    }
    lines
}

/// Appends a line's text as shown: lossy UTF-8 with each NUL byte as the two characters `\0`; a
/// window of a long line with its markers; the notice for a long context line.
fn push_line_text(out: &mut String, text: &LineText) {
    match text {
        LineText::Whole(bytes) => push_escaped(out, bytes),
        LineText::Window { text, before, after } => out.push_str(&window_text(text, *before, *after)),
        LineText::Omitted => out.push_str(OMITTED_CONTEXT_LINE),
    }
}

fn push_escaped(out: &mut String, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if text.contains('\0') {
        out.push_str(&text.replace('\0', "\\0"));
    } else {
        out.push_str(&text);
    }
}

/// A part of a long matching line with markers saying how much was left out on each side:
/// `[… 1200 chars before] <part> [3000 chars after …]` (a side with nothing left out has no
/// marker).
pub fn window_text(part: &[u8], before: usize, after: usize) -> String {
    let mut out = String::new();
    if before > 0 {
        out.push_str(&format!("[… {before} chars before] "));
    }
    push_escaped(&mut out, part);
    if after > 0 {
        out.push_str(&format!(" [{after} chars after …]"));
    }
    out
}

/// One `count` entry: `path:N`.
pub fn count_line(path: &str, count: u64) -> String {
    format!("{path}:{count}")
}

/// The validation message for a `path` that does not exist.
pub fn missing_path(path: &str, cwd: &str) -> String {
    format!("Path does not exist: {}. Note: your current working directory is {cwd}.", quote(path))
}

/// The validation message for a `path` that is neither a file nor a folder.
pub fn not_searchable(path: &str, cwd: &str) -> String {
    format!(
        "Path is not a file or a folder: {}. Only regular files and folders can be searched. \
         Note: your current working directory is {cwd}.",
        quote(path)
    )
}

/// The longest parser message shown whole; a longer one (it repeats the pattern) is cut to its
/// first characters and its last line, which says what is wrong.
const MAX_PARSER_MESSAGE_CHARS: usize = 1_000;

/// `error` short enough to show: whole, or its first characters and its last line.
fn parser_message(error: &str) -> String {
    if error.chars().count() <= MAX_PARSER_MESSAGE_CHARS {
        return error.to_owned();
    }
    let last = error.lines().last().unwrap_or_default();
    format!("{}\n{}", quote(error), quote(last))
}

/// The error for a pattern that is not a valid regular expression (the parser's message, cut
/// when it is long).
pub fn invalid_regex(error: &str) -> String {
    let error = parser_message(error);
    format!(
        "Search failed — the pattern is not a valid regular expression:\n{error}\n\
         (Patterns use Rust regex syntax: escape `(`, `)`, `[`, `{{`, `}}`, `.`, `*`, `+`, `?`, `|` with `\\` to match them literally.)"
    )
}

/// The error for a pattern with a literal line break while `multiline` is off.
pub fn needs_multiline(error: &str) -> String {
    let error = parser_message(error);
    format!(
        "Search failed — the pattern contains a line break, which can only match with `multiline: true`. \
         Set `multiline: true` to match across lines.\n({error})"
    )
}

/// The error for a `glob` that is not a valid glob.
pub fn invalid_glob(error: &str) -> String {
    let error = parser_message(error);
    format!("Search failed — the `glob` filter is not a valid glob: {error}")
}

/// The error for an unknown `type`.
pub fn unknown_type(name: &str) -> String {
    format!(
        "Search failed — `{}` is not a known file type. Use a ripgrep type name such as rust, py, js, ts, \
         go, java, c, cpp, md, json or yaml, or filter by file name with `glob` instead.",
        quote(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str], limit: Option<u64>, offset: Option<u64>) -> GrepOutput {
        GrepOutput {
            mode: OutputMode::FilesWithMatches,
            num_files: names.len(),
            filenames: names.iter().map(|s| s.to_string()).collect(),
            content: None,
            num_lines: None,
            num_matches: None,
            applied_limit: limit,
            applied_offset: offset,
            found_entries: names.len(),
        }
    }

    fn counts(lines: &[&str], total: u64, limit: Option<u64>, offset: Option<u64>) -> GrepOutput {
        GrepOutput {
            mode: OutputMode::Count,
            num_files: lines.len(),
            filenames: Vec::new(),
            content: Some(lines.join("\n")),
            num_lines: None,
            num_matches: Some(total),
            applied_limit: limit,
            applied_offset: offset,
            found_entries: lines.len(),
        }
    }

    #[test]
    fn files_with_matches_header_and_pagination() {
        assert_eq!(render(&files(&[], None, None)), "No files found");
        assert_eq!(render(&files(&["a"], None, None)), "Found 1 file\na");
        assert_eq!(render(&files(&["a", "b"], Some(2), Some(1))), "Found 2 files limit: 2, offset: 1\na\nb");
        assert_eq!(render(&files(&["a", "b"], None, Some(3))), "Found 2 files offset: 3\na\nb");
    }

    #[test]
    fn count_summary_singular_and_plural() {
        assert_eq!(
            render(&counts(&[], 0, None, None)),
            "No matches found\n\nFound 0 total occurrences across 0 files."
        );
        assert_eq!(render(&counts(&["a:1"], 1, None, None)), "a:1\n\nFound 1 total occurrence across 1 file.");
        assert_eq!(
            render(&counts(&["a:2"], 2, Some(1), None)),
            "a:2\n\nFound 2 total occurrences across 1 file. with pagination = limit: 1"
        );
    }

    #[test]
    fn content_pagination_suffix() {
        let output = GrepOutput {
            mode: OutputMode::Content,
            num_files: 0,
            filenames: Vec::new(),
            content: Some("a:1:x".into()),
            num_lines: Some(1),
            num_matches: None,
            applied_limit: None,
            applied_offset: Some(1),
            found_entries: 2,
        };
        assert_eq!(render(&output), "a:1:x\n\n[Showing results with pagination = offset: 1]");
        // Past the last entry (Claude Code's texts, recorded for each mode).
        let past = GrepOutput { content: Some(String::new()), num_lines: Some(0), applied_offset: Some(10), ..output };
        assert_eq!(render(&past), "No entries at this offset\n\n[Showing results with pagination = offset: 10]");
        let files_past = GrepOutput { found_entries: 3, ..files(&[], None, Some(10)) };
        assert_eq!(render(&files_past), "No entries at this offset. [Showing results with pagination = offset: 10]");
        let counts_past = GrepOutput { num_files: 3, found_entries: 3, ..counts(&[], 4, None, Some(10)) };
        assert_eq!(
            render(&counts_past),
            "No entries at this offset\n\nFound 4 total occurrences across 3 files. with pagination = offset: 10"
        );
    }

    #[test]
    fn lines_are_prefixed_like_ripgrep() {
        let entries = vec![
            Entry::Context { line: 1, text: LineText::Whole(b"k-2-v".to_vec()) },
            Entry::Match { line: 2, text: LineText::Whole(b"MATCHX".to_vec()) },
            Entry::Break,
            Entry::Match { line: 9, text: LineText::Whole(b"a\0b".to_vec()) },
        ];
        let style = LineStyle { show_path: true, show_numbers: true, separate_files: true };
        assert_eq!(
            content_lines([("a-1.txt", entries.as_slice()), ("b", entries[1..2].as_ref())], style),
            ["a-1.txt-1-k-2-v", "a-1.txt:2:MATCHX", "--", "a-1.txt:9:a\\0b", "--", "b:2:MATCHX"]
        );
        let bare = LineStyle { show_path: false, show_numbers: false, separate_files: false };
        assert_eq!(content_lines([("a", &entries[..2])], bare), ["k-2-v", "MATCHX"]);
    }

    #[test]
    fn long_lines_show_a_window_with_markers_and_long_context_a_notice() {
        let style = LineStyle { show_path: false, show_numbers: true, separate_files: false };
        let entries = [
            Entry::Match { line: 2, text: LineText::Window { text: b"ab\0".to_vec(), before: 1200, after: 3000 } },
            Entry::Match { line: 3, text: LineText::Window { text: b"head".to_vec(), before: 0, after: 7 } },
            Entry::Match { line: 4, text: LineText::Window { text: b"tail".to_vec(), before: 7, after: 0 } },
            Entry::Context { line: 5, text: LineText::Omitted },
        ];
        assert_eq!(
            content_lines([("f", &entries[..])], style),
            [
                "2:[… 1200 chars before] ab\\0 [3000 chars after …]",
                "3:head [7 chars after …]",
                "4:[… 7 chars before] tail",
                "5-[Omitted long context line]"
            ]
        );
    }
}
