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

/// Above this many changed lines (old plus new, once the common first and last lines are set
/// aside) the hunks are not searched for at all: one hunk replaces the changed lines. Finding
/// the smallest change set costs far more than linear time there, and the patch is only
/// bookkeeping (the model never sees it).
const MAX_SEARCHED_LINES: usize = 20_000;

/// The hunks turning `old` into `new` (empty when they are equal).
///
/// The lines both texts begin and end with are set aside first (in linear time); only the lines
/// between, with their context, are diffed, within a time budget (`diff_budget`) and only when
/// they are at most `MAX_SEARCHED_LINES`; past that the middle becomes one hunk. Every result
/// is a correct patch; only its size varies.
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
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let suffix =
        old_lines[prefix..].iter().rev().zip(new_lines[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (old_end, new_end) = (old_lines.len() - suffix, new_lines.len() - suffix);
    // The changed lines with their context: the slices the hunks come from.
    let start = prefix.saturating_sub(CONTEXT_LINES);
    let (old_to, new_to) =
        ((old_end + CONTEXT_LINES).min(old_lines.len()), (new_end + CONTEXT_LINES).min(new_lines.len()));
    if (old_end - prefix) + (new_end - prefix) > MAX_SEARCHED_LINES {
        return vec![one_hunk(&old_lines, &new_lines, start, prefix, (old_end, new_end), (old_to, new_to))];
    }
    let (old_part, new_part) = (old_lines[start..old_to].concat(), new_lines[start..new_to].concat());
    let diff = TextDiff::configure().timeout(diff_budget(&old_part, &new_part)).diff_lines(&old_part, &new_part);
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
                push_line(&mut lines, prefix, change.value());
            }
        }
        hunks.push(Hunk {
            old_start: start_line(start + old_range.start, old_range.len()),
            old_lines: old_range.len(),
            new_start: start_line(start + new_range.start, new_range.len()),
            new_lines: new_range.len(),
            lines,
        });
    }
    hunks
}

/// Appends one line of a hunk: `tag` and the line without its line break, then the
/// `\ No newline at end of file` marker when it has none (only the last line of a text can).
fn push_line(lines: &mut Vec<String>, tag: char, line: &str) {
    let text = line.strip_suffix('\n').unwrap_or(line);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let mut shown = String::with_capacity(text.len() + 1);
    shown.push(tag);
    shown.push_str(text);
    lines.push(shown);
    if !line.ends_with('\n') {
        lines.push("\\ No newline at end of file".to_owned());
    }
}

/// The single hunk for a change too large to search: context from `start`, the old lines
/// `prefix..ends.0` removed, the new lines `prefix..ends.1` added, context up to `tos`.
fn one_hunk(
    old_lines: &[&str],
    new_lines: &[&str],
    start: usize,
    prefix: usize,
    ends: (usize, usize),
    tos: (usize, usize),
) -> Hunk {
    let mut lines = Vec::with_capacity((tos.0 - start) + (tos.1 - start));
    for line in &old_lines[start..prefix] {
        push_line(&mut lines, ' ', line);
    }
    for line in &old_lines[prefix..ends.0] {
        push_line(&mut lines, '-', line);
    }
    for line in &new_lines[prefix..ends.1] {
        push_line(&mut lines, '+', line);
    }
    for line in &old_lines[ends.0..tos.0] {
        push_line(&mut lines, ' ', line);
    }
    let (old_count, new_count) = (tos.0 - start, tos.1 - start);
    Hunk {
        old_start: start_line(start, old_count),
        old_lines: old_count,
        new_start: start_line(start, new_count),
        new_lines: new_count,
        lines,
    }
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

    /// Applies `hunks` to `old` (texts without carriage returns).
    fn apply(old: &str, hunks: &[Hunk]) -> String {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut next = 0; // index of the next old line not yet copied
        for hunk in hunks {
            let first = if hunk.old_lines == 0 { hunk.old_start } else { hunk.old_start - 1 };
            out.extend(old_lines[next..first].iter().copied());
            next = first;
            let mut pending: Option<String> = None;
            for line in &hunk.lines {
                if line == "\\ No newline at end of file" {
                    if let Some(text) = pending.take() {
                        out.push_str(&text);
                    }
                    continue;
                }
                if let Some(text) = pending.take() {
                    out.push_str(&text);
                    out.push('\n');
                }
                let (tag, text) = line.split_at(1);
                match tag {
                    " " => {
                        pending = Some(text.to_owned());
                        next += 1;
                    }
                    "-" => next += 1,
                    _ => pending = Some(text.to_owned()),
                }
            }
            if let Some(text) = pending.take() {
                out.push_str(&text);
                out.push('\n');
            }
        }
        out.extend(old_lines[next..].iter().copied());
        out
    }

    #[test]
    fn every_patch_turns_old_into_new_searched_or_not() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            seed.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
        };
        for round in 0..300 {
            let lines = (next(40) + 1) as usize;
            let old: Vec<String> = (0..lines).map(|i| format!("l{}", i % 7)).collect();
            let mut new = old.clone();
            for _ in 0..next(6) {
                let at = next(new.len() as u64 + 1) as usize;
                match next(3) {
                    0 if at < new.len() => {
                        new.remove(at);
                    }
                    1 => new.insert(at, format!("n{round}")),
                    _ if at < new.len() => new[at] = format!("c{round}"),
                    _ => {}
                }
            }
            let end = |v: &[String], newline: bool| {
                let mut text = v.join("\n");
                if newline && !text.is_empty() {
                    text.push('\n');
                }
                text
            };
            let (old_text, new_text) = (end(&old, next(2) == 0), end(&new, next(2) == 0));
            let hunks = structured_patch(&old_text, &new_text);
            assert_eq!(apply(&old_text, &hunks), new_text, "{old_text:?} -> {new_text:?}: {hunks:?}");
            // The single hunk of a change too large to search is as correct.
            let old_lines: Vec<&str> = old_text.split_inclusive('\n').collect();
            let new_lines: Vec<&str> = new_text.split_inclusive('\n').collect();
            if old_text != new_text {
                let hunk = one_hunk(
                    &old_lines,
                    &new_lines,
                    0,
                    0,
                    (old_lines.len(), new_lines.len()),
                    (old_lines.len(), new_lines.len()),
                );
                assert_eq!(apply(&old_text, &[hunk]), new_text, "{old_text:?} -> {new_text:?} as one hunk");
            }
        }
    }
}
