//! The line diff of a change, as hunks: Claude Code's `structuredPatch` (the `diff` package's
//! format, three lines of context), for the tools' output data. The model never sees it.

use std::time::Duration;

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change (Claude Code's 3).
pub const CONTEXT_LINES: usize = 3;

/// How long the diff may search for the smallest change set before it settles for a larger,
/// still correct one: [`DIFF_FIXED_BUDGET`] plus [`DIFF_BUDGET_PER_MB`] for each megabyte of the
/// two texts, so a tool's answer follows its write within a few milliseconds plus time linear in
/// the size (a 2 MB rewrite searched for 500 ms before).
fn diff_budget(old: &str, new: &str) -> Duration {
    let megabytes = (old.len() + new.len()) as f64 / 1_000_000.0;
    DIFF_FIXED_BUDGET + DIFF_BUDGET_PER_MB.mul_f64(megabytes)
}

/// The part of the diff's time budget every change gets.
const DIFF_FIXED_BUDGET: Duration = Duration::from_millis(2);

/// The part of the diff's time budget per megabyte of old plus new text.
const DIFF_BUDGET_PER_MB: Duration = Duration::from_millis(5);

/// One hunk of a line diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// First line of the hunk in the old text (1-based; for an empty range, the line before it).
    pub old_start: usize,
    /// Lines of the old text in the hunk.
    pub old_lines: usize,
    /// First line of the hunk in the new text.
    pub new_start: usize,
    /// Lines of the new text in the hunk.
    pub new_lines: usize,
    /// The lines, each starting with ` ` (context), `-` (removed) or `+` (added), without their
    /// line break; `\ No newline at end of file` follows a last line that has none.
    pub lines: Vec<String>,
}

/// The hunks turning `old` into `new` (empty when they are equal).
///
/// ```
/// let hunks = agent_tools_files::structured_patch("a\nb\nc\n", "a\nB\nc\n");
/// assert_eq!(hunks.len(), 1);
/// assert_eq!((hunks[0].old_start, hunks[0].old_lines, hunks[0].new_lines), (1, 3, 3));
/// assert_eq!(hunks[0].lines, [" a", "-b", "+B", " c"]);
/// ```
pub fn structured_patch(old: &str, new: &str) -> Vec<Hunk> {
    if old == new {
        return Vec::new();
    }
    let diff = TextDiff::configure().timeout(diff_budget(old, new)).diff_lines(old, new);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let prefix = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let value = change.value();
                let line = value.strip_suffix('\n').unwrap_or(value);
                let line = line.strip_suffix('\r').unwrap_or(line);
                lines.push(format!("{prefix}{line}"));
                if change.missing_newline() {
                    lines.push("\\ No newline at end of file".to_owned());
                }
            }
        }
        hunks.push(Hunk {
            old_start: start_line(old_range.start, old_range.len()),
            old_lines: old_range.len(),
            new_start: start_line(new_range.start, new_range.len()),
            new_lines: new_range.len(),
            lines,
        });
    }
    hunks
}

fn start_line(index: usize, len: usize) -> usize {
    if len == 0 { index } else { index + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distant_changes_make_separate_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old.replacen("2\n", "two\n", 1).replace("19\n", "nineteen\n");
        let hunks = structured_patch(&old, &new);
        assert_eq!(hunks.len(), 2);
        assert_eq!((hunks[0].old_start, hunks[0].old_lines), (1, 5));
        assert_eq!(hunks[1].lines, [" 16", " 17", " 18", "-19", "+nineteen", " 20"]);
    }

    #[test]
    fn a_rewrite_too_large_to_search_is_still_a_correct_patch() {
        // Every line changed, scattered: the search stops at its budget and settles for a larger
        // change set, which must still turn old into new.
        let old: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
        let new: String =
            (0..40_000).map(|i| if i % 3 == 0 { format!("line {i}\n") } else { format!("LINE {i}\n") }).collect();
        let hunks = structured_patch(&old, &new);
        let mut rebuilt_old = Vec::new();
        let mut rebuilt_new = Vec::new();
        for hunk in &hunks {
            for line in &hunk.lines {
                let (tag, text) = line.split_at(1);
                if tag != "+" {
                    rebuilt_old.push(text.to_owned());
                }
                if tag != "-" {
                    rebuilt_new.push(text.to_owned());
                }
            }
        }
        // One hunk covers the whole file here (changes every few lines), so the hunk is the file.
        assert_eq!(hunks.len(), 1);
        assert_eq!(rebuilt_old.join("\n") + "\n", old);
        assert_eq!(rebuilt_new.join("\n") + "\n", new);
        assert!(diff_budget(&old, &new) < Duration::from_millis(10));
    }

    #[test]
    fn a_new_file_and_a_missing_final_newline() {
        let hunks = structured_patch("", "a\nb");
        assert_eq!((hunks[0].old_start, hunks[0].old_lines, hunks[0].new_start, hunks[0].new_lines), (0, 0, 1, 2));
        assert_eq!(hunks[0].lines, ["+a", "+b", "\\ No newline at end of file"]);
        assert!(structured_patch("same", "same").is_empty());
    }
}
