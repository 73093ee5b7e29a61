//! Line endings for a whole new text written over a file with mixed line endings: each line the
//! new text keeps from the old file keeps its own line ending, and each new line takes the ending
//! of the line before it (or, at the top, of the line after it).

use std::time::Duration;

use similar::{DiffOp, TextDiff};

use crate::encoding::LineEnding;
use crate::file::TextFile;

/// How long the line diff may look for the smallest change set; past it the diff is larger (more
/// lines count as new and take their neighbours' ending) but still correct.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// `new_text` (line breaks written `\n`) with the line endings of `original`: lines unchanged
/// from the original are written with the ending they had; lines that replace old lines take
/// the ending most of those had; other new lines take the ending of the nearest unchanged line
/// before them (after them when none is before), or the file's dominant ending when no line is
/// unchanged. A new line whose text ends in a lone `\r` is written with CRLF whatever its
/// neighbours have, since `\r` + `\n` would read back as one CRLF line break.
///
/// ```
/// use agent_tools_files::TextFile;
/// let file = TextFile::from_bytes("/f", b"one\r\ntwo\nthree\r\n", 0);
/// assert_eq!(agent_tools_files::restyle_like(&file, "one\nTWO\nthree\nfour\n"), "one\r\nTWO\nthree\r\nfour\r\n");
/// assert_eq!(agent_tools_files::restyle_like(&file, "zero\none\ntwo\n"), "zero\r\none\r\ntwo\n");
/// ```
pub fn restyle_like(original: &TextFile, new_text: &str) -> String {
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).diff_lines(original.text.as_str(), new_text);
    // Each old line's text as written in the file, and the ending it has (None for a last line
    // without one).
    let mut old_raw: Vec<(&str, Option<LineEnding>)> = Vec::with_capacity(diff.old_slices().len());
    let mut at = 0;
    for line in diff.old_slices() {
        let end = at + line.len();
        let raw = original.raw.get(original.raw_offset(at)..original.raw_offset(end)).unwrap_or(line);
        let ending = line
            .ends_with('\n')
            .then(|| if original.is_crlf_break(end - 1) { LineEnding::CrLf } else { LineEnding::Lf });
        old_raw.push((raw, ending));
        at = end;
    }
    let ops = diff.ops();
    // The ending of the first unchanged line at or after each op, for new lines at the top.
    let mut next_kept: Vec<Option<LineEnding>> = vec![None; ops.len() + 1];
    for (index, op) in ops.iter().enumerate().rev() {
        next_kept[index] = match op {
            DiffOp::Equal { old_index, len, .. } => {
                old_raw[*old_index..old_index + len].iter().find_map(|(_, ending)| *ending).or(next_kept[index + 1])
            }
            _ => next_kept[index + 1],
        };
    }
    let new_lines = diff.new_slices();
    let mut out = String::with_capacity(new_text.len() + new_text.len() / 8);
    let mut previous: Option<LineEnding> = None;
    for (index, op) in ops.iter().enumerate() {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                for (raw, ending) in &old_raw[*old_index..old_index + len] {
                    out.push_str(raw);
                    previous = ending.or(previous);
                }
            }
            DiffOp::Delete { .. } => {}
            DiffOp::Insert { new_index, new_len, .. } | DiffOp::Replace { new_index, new_len, .. } => {
                let replaced = match op {
                    DiffOp::Replace { old_index, old_len, .. } => majority(&old_raw[*old_index..old_index + old_len]),
                    _ => None,
                };
                let ending = replaced.or(previous).or(next_kept[index + 1]).unwrap_or(original.line_ending);
                for line in &new_lines[*new_index..new_index + new_len] {
                    match line.strip_suffix('\n') {
                        Some(body) => {
                            out.push_str(body);
                            // A line whose text ends in a lone CR keeps it only before a CRLF.
                            let ending = if body.ends_with('\r') { LineEnding::CrLf } else { ending };
                            out.push_str(ending.as_str());
                        }
                        None => out.push_str(line),
                    }
                }
            }
        }
    }
    out
}

/// The ending most of `lines` have, if one is more common than the other.
fn majority(lines: &[(&str, Option<LineEnding>)]) -> Option<LineEnding> {
    let crlf = lines.iter().filter(|(_, ending)| *ending == Some(LineEnding::CrLf)).count();
    let lf = lines.iter().filter(|(_, ending)| *ending == Some(LineEnding::Lf)).count();
    match crlf.cmp(&lf) {
        std::cmp::Ordering::Greater => Some(LineEnding::CrLf),
        std::cmp::Ordering::Less => Some(LineEnding::Lf),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_lines_keep_their_endings_and_new_ones_follow_their_neighbours() {
        let file = TextFile::from_bytes("/f", b"a\r\nb\nc\r\nd\n", 0);
        assert!(file.has_mixed_line_endings());
        // Nothing changed: byte for byte.
        assert_eq!(restyle_like(&file, "a\nb\nc\nd\n"), "a\r\nb\nc\r\nd\n");
        // A line added after b (LF) and one after c (CRLF).
        assert_eq!(restyle_like(&file, "a\nb\nb2\nc\nc2\nd\n"), "a\r\nb\nb2\nc\r\nc2\r\nd\n");
        // The last line loses its line break, a new last line has none.
        assert_eq!(restyle_like(&file, "a\nb\nc\nd"), "a\r\nb\nc\r\nd");
        assert_eq!(restyle_like(&file, "a\nb\nc\nd\ne"), "a\r\nb\nc\r\nd\ne");
        // Everything new: the dominant ending (a tie is LF).
        assert_eq!(restyle_like(&file, "x\ny\n"), "x\ny\n");
        let crlf_mostly = TextFile::from_bytes("/f", b"a\r\nb\r\nc\n", 0);
        assert_eq!(restyle_like(&crlf_mostly, "x\ny\n"), "x\r\ny\r\n");
        // A changed line keeps the ending of the line it replaces; a lone CR in it is content.
        assert_eq!(restyle_like(&file, "a\nb\rb\nc\nd\n"), "a\r\nb\rb\nc\r\nd\n");
        assert_eq!(restyle_like(&file, "A\nb\nc\nd\n"), "A\r\nb\nc\r\nd\n");
        assert_eq!(restyle_like(&file, "a\nb\r\nc\nd\n"), "a\r\nb\r\r\nc\r\nd\n");
    }
}
