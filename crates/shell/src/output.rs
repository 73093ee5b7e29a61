//! Reading a command's output file back, bounded: the whole text when it is small, else the head
//! and the tail (found by seeking) with a marker saying how much was left out between them. The
//! middle is only streamed through to count its lines and characters, so the file may be of any
//! size without being held in memory.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use agent_tools_core::persist;

use crate::render::{self, MAX_MARKER_CHARS, truncation_marker_with};

/// The output as shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The text: blank lines at both ends and trailing whitespace removed, at most the budget's
    /// characters.
    pub text: String,
    /// Whether part of the output was left out.
    pub truncated: bool,
    /// Size of the whole output in bytes.
    pub total_bytes: u64,
}

/// Reads the output file at `path`, keeping at most `budget` characters (marker included).
pub fn read_output(path: &Path, budget: usize) -> io::Result<Shown> {
    read_output_with(path, budget, None)
}

/// What to add to the marker when output is cut: a note of at most `reserve` characters, made
/// only if a cut happens (making it may save the whole output to a file).
pub struct Spill<'a> {
    /// Most characters the note may take; the head and tail get that much less room.
    pub reserve: usize,
    /// Makes the note (called at most once, and only when output is cut).
    pub note: &'a mut dyn FnMut() -> String,
}

/// [`read_output`], with a note put after the marker when output is cut (see [`Spill`]).
pub fn read_output_with(path: &Path, budget: usize, spill: Option<Spill<'_>>) -> io::Result<Shown> {
    let mut file = File::open(path)?;
    let total_bytes = file.metadata()?.len();
    let full_budget = budget;
    let (budget, note) = match spill {
        Some(spill) => (budget.saturating_sub(spill.reserve + 1), Some(spill.note)),
        None => (budget, None),
    };
    let mut note = note;
    let mut make_note = move || note.as_mut().map(|make| make());
    let half = budget.saturating_sub(MAX_MARKER_CHARS) / 2;
    // Enough bytes for `half` characters of any width, plus room for blank lines trimmed away.
    let window = u64::try_from(half).unwrap_or(u64::MAX).saturating_mul(4).saturating_add(4096);
    let (text, truncated) = if total_bytes <= window.saturating_mul(2) {
        let mut bytes = Vec::with_capacity(usize::try_from(total_bytes).unwrap_or(0));
        file.read_to_end(&mut bytes)?;
        let full = String::from_utf8_lossy(&bytes);
        let trimmed = trim_output(&full);
        if trimmed.chars().count() <= full_budget {
            (trimmed.to_owned(), false)
        } else {
            let middle = char_midpoint(trimmed);
            let (head, tail) = trimmed.split_at(middle);
            (cut(head, &Stats::default(), tail, half, make_note().as_deref()), true)
        }
    } else {
        let mut head = read_at(&mut file, 0, window)?;
        let head_end = complete_prefix(&head);
        head.truncate(head_end);
        let mut tail_start = total_bytes - window;
        let mut tail = read_at(&mut file, tail_start, window)?;
        let skip = tail.iter().take(3).take_while(|byte| is_continuation(**byte)).count();
        tail.drain(..skip);
        tail_start += skip as u64;
        let middle = scan(&mut file, head.len() as u64, tail_start)?;
        let head = String::from_utf8_lossy(&head);
        let tail = String::from_utf8_lossy(&tail);
        let text = cut(trim_leading_blank_lines(&head), &middle, tail.trim_end(), half, make_note().as_deref());
        (text, true)
    };
    Ok(Shown { text, truncated, total_bytes })
}

/// Reads the output within `budget` characters; when it must be cut and `save_as` is given, saves
/// the whole output there (at most [`persist::MAX_SAVED_BYTES`]) and puts a `<persisted-output>`
/// block naming the file after the cut marker — or, when saving fails, a block saying so.
/// Returns what is shown and where the output was saved (if it was).
pub fn read_and_save(output: &Path, budget: usize, save_as: Option<&Path>) -> (io::Result<Shown>, Option<PathBuf>) {
    let Some(save_as) = save_as else { return (read_output(output, budget), None) };
    let size = std::fs::metadata(output).map_or(0, |meta| meta.len());
    let saved_note = persist::persisted_output(&persist::too_large_line(size, Ok(save_as)), None);
    let failed_note = persist::persisted_output(&render::not_saved(&persist::format_file_size(size)), None);
    let reserve = saved_note.chars().count().max(failed_note.chars().count());
    let mut saved = None;
    let mut note = || match persist::save_file_once(output, save_as) {
        Ok(_) => {
            saved = Some(save_as.to_path_buf());
            saved_note.clone()
        }
        Err(error) => {
            tracing::warn!(%error, path = %save_as.display(), "cannot save the whole output");
            failed_note.clone()
        }
    };
    let shown = read_output_with(output, budget, Some(Spill { reserve, note: &mut note }));
    (shown, saved)
}

/// The output with blank lines at the start, and all whitespace at the end, removed (indentation
/// of the first line kept).
pub fn trim_output(text: &str) -> &str {
    trim_leading_blank_lines(text).trim_end()
}

fn trim_leading_blank_lines(text: &str) -> &str {
    match text.find(|c: char| !c.is_whitespace()) {
        None => "",
        Some(first) => match text[..first].rfind('\n') {
            Some(newline) => &text[newline + 1..],
            None => text,
        },
    }
}

/// Lines and characters of a part of the output that is left out, and its first and last bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Stats {
    chars: u64,
    newlines: u64,
    first: Option<u8>,
    last: Option<u8>,
}

impl Stats {
    fn of(text: &str) -> Self {
        let mut stats = Self::default();
        stats.add_bytes(text.as_bytes());
        stats
    }

    fn add_bytes(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.chars += bytes.iter().filter(|byte| !is_continuation(**byte)).count() as u64;
        self.newlines += bytes.iter().filter(|byte| **byte == b'\n').count() as u64;
        self.first = self.first.or(bytes.first().copied());
        self.last = bytes.last().copied();
    }

    fn then(mut self, next: &Self) -> Self {
        self.chars += next.chars;
        self.newlines += next.newlines;
        self.first = self.first.or(next.first);
        self.last = next.last.or(self.last);
        self
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of `bytes` without a multi-byte character cut off at its end.
fn complete_prefix(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if is_continuation(byte) {
            continue;
        }
        let width = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if width > back { len - back } else { len };
    }
    len
}

fn read_at(file: &mut File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.by_ref().take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Streams through `start..end` of the file, counting without keeping it.
fn scan(file: &mut File, start: u64, end: u64) -> io::Result<Stats> {
    file.seek(SeekFrom::Start(start))?;
    let mut stats = Stats::default();
    let mut left = end.saturating_sub(start);
    let mut buffer = vec![0_u8; 256 * 1024];
    while left > 0 {
        let want = usize::try_from(left.min(buffer.len() as u64)).unwrap_or(buffer.len());
        let got = file.read(&mut buffer[..want])?;
        if got == 0 {
            break;
        }
        stats.add_bytes(&buffer[..got]);
        left -= got as u64;
    }
    Ok(stats)
}

/// The byte index of the character in the middle of `text`.
fn char_midpoint(text: &str) -> usize {
    let count = text.chars().count();
    text.char_indices().nth(count / 2).map_or(text.len(), |(index, _)| index)
}

/// The byte index after the first `n` characters of `text`.
fn byte_index_after_chars(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(index, _)| index)
}

/// Joins the first `half` characters of `head` and the last `half` characters of `tail` (cut at
/// line ends when one is near) with a marker counting what lies between them: the rest of
/// `head`, the unread `middle`, and the start of `tail`.
fn cut(head: &str, middle: &Stats, tail: &str, half: usize, note: Option<&str>) -> String {
    let snap = half / 4;
    let mut head_end = byte_index_after_chars(head, half);
    if head_end < head.len()
        && let Some(newline) = head[..head_end].rfind('\n')
        && head[newline..head_end].chars().count() <= snap
    {
        head_end = newline;
    }
    let tail_chars = tail.chars().count();
    let mut tail_start = byte_index_after_chars(tail, tail_chars.saturating_sub(half));
    if tail_start > 0
        && let Some(newline) = tail[tail_start..].find('\n')
        && tail[tail_start..=tail_start + newline].chars().count() <= snap
    {
        tail_start += newline + 1;
    }
    let (kept_head, rest_of_head) = head.split_at(head_end);
    let (start_of_tail, kept_tail) = tail.split_at(tail_start);
    let omitted = Stats::of(rest_of_head).then(middle).then(&Stats::of(start_of_tail));
    if omitted.chars == 0 {
        return format!("{kept_head}{kept_tail}");
    }
    // Lines not shown in full: each newline left out ends one, plus the line the cut falls in,
    // minus the ends where a cut falls exactly on a line boundary.
    let head_on_boundary = kept_head.is_empty() || omitted.first == Some(b'\n');
    let tail_on_boundary = kept_tail.is_empty() || omitted.last == Some(b'\n');
    let lines = (omitted.newlines + 1).saturating_sub(u64::from(head_on_boundary) + u64::from(tail_on_boundary));
    format!("{kept_head}{}{kept_tail}", truncation_marker_with(lines, omitted.chars, note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn shown(bytes: &[u8], budget: usize) -> Shown {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        read_output(file.path(), budget).unwrap()
    }

    #[test]
    fn trims_blank_lines_and_trailing_whitespace() {
        assert_eq!(trim_output("\n\n  \nhello world\n\n"), "hello world");
        assert_eq!(trim_output("\n  indented\nnext  \n"), "  indented\nnext");
        assert_eq!(trim_output(" \n\t\n"), "");
        assert_eq!(shown(b"\n\nhello\n", 1000).text, "hello");
    }

    #[test]
    fn small_output_is_whole() {
        let out = shown(b"a\nb\n", 1000);
        assert_eq!(out, Shown { text: "a\nb".into(), truncated: false, total_bytes: 4 });
    }

    #[test]
    fn cuts_at_line_boundaries_and_counts_lines() {
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        let out = shown(text.as_bytes(), 500);
        assert!(out.truncated);
        assert!(out.text.chars().count() <= 500, "{}", out.text.len());
        assert!(out.text.starts_with("1\n2\n3\n"));
        assert!(out.text.ends_with("\n999\n1000"));
        let (head, rest) = out.text.split_once("\n\n... [").unwrap();
        let (marker, tail) = rest.split_once("] ...\n\n").unwrap();
        let last_head: u64 = head.lines().last().unwrap().parse().unwrap();
        let first_tail: u64 = tail.lines().next().unwrap().parse().unwrap();
        let omitted: String = (last_head + 1..first_tail).map(|i| format!("\n{i}")).collect::<String>() + "\n";
        assert_eq!(
            marker,
            format!("{} lines ({} characters) truncated", first_tail - last_head - 1, omitted.chars().count())
        );
    }

    #[test]
    fn big_files_are_read_by_seeking() {
        // Larger than two windows, so the middle is only scanned.
        let mut text: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
        text.insert_str(0, "\n\n");
        let out = shown(text.as_bytes(), 30_000);
        assert!(out.truncated);
        assert_eq!(out.total_bytes, text.len() as u64);
        assert!(out.text.chars().count() <= 30_000);
        assert!(out.text.starts_with("1\n2\n3\n"));
        assert!(out.text.ends_with("199999\n200000"));
        let (head, rest) = out.text.split_once("\n\n... [").unwrap();
        let (marker, tail) = rest.split_once("] ...\n\n").unwrap();
        let last_head: u64 = head.lines().last().unwrap().parse().unwrap();
        let first_tail: u64 = tail.lines().next().unwrap().parse().unwrap();
        let omitted: usize = (last_head + 1..first_tail).map(|i| i.to_string().len() + 1).sum::<usize>() + 1;
        assert_eq!(marker, format!("{} lines ({omitted} characters) truncated", first_tail - last_head - 1));
    }

    #[test]
    fn one_huge_line_is_cut_and_the_end_survives() {
        let mut bytes = vec![b'a'; 3_000_000];
        bytes.extend_from_slice(b"\nEND\n");
        let out = shown(&bytes, 30_000);
        assert!(out.text.chars().count() <= 30_000);
        assert!(out.text.starts_with("aaaa"));
        assert!(out.text.ends_with("aaaa\nEND"));
        let (head, rest) = out.text.split_once("\n\n... [").unwrap();
        let tail = rest.split_once("] ...\n\n").unwrap().1;
        let kept_a = head.len() + tail.matches('a').count();
        assert!(out.text.contains(&format!("[1 line ({} characters) truncated]", 3_000_000 - kept_a)));
    }

    #[test]
    fn multibyte_characters_are_never_split() {
        let text = "é".repeat(200_000);
        let out = shown(text.as_bytes(), 1000);
        assert!(!out.text.contains('\u{FFFD}'));
        assert!(out.text.chars().count() <= 1000);
        let kept = out.text.matches('é').count();
        assert!(out.text.contains(&format!("[1 line ({} characters) truncated]", 200_000 - kept)));
        let small = "日本".repeat(300);
        let out = shown(small.as_bytes(), 100);
        assert!(!out.text.contains('\u{FFFD}'));
        assert!(out.text.chars().count() <= 100);
    }

    #[test]
    fn a_note_is_made_only_when_output_is_cut_and_fits_the_budget() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        file.write_all(text.as_bytes()).unwrap();
        let note = "<persisted-output>\nsaved\n</persisted-output>";
        let mut calls = 0;
        let mut make = || {
            calls += 1;
            note.to_owned()
        };
        let out = read_output_with(file.path(), 500, Some(Spill { reserve: note.len(), note: &mut make })).unwrap();
        assert!(out.text.chars().count() <= 500, "{}", out.text.chars().count());
        assert!(out.text.starts_with("1\n2\n"));
        assert!(out.text.ends_with("\n1000"));
        assert!(out.text.contains(&format!("truncated] ...\n{note}\n\n")), "{}", out.text);
        assert_eq!(calls, 1);
        let mut unused = || unreachable!("no cut, no note");
        let whole = read_output_with(file.path(), 10_000, Some(Spill { reserve: 50, note: &mut unused })).unwrap();
        assert!(!whole.truncated);
    }

    #[test]
    fn complete_prefix_drops_a_cut_character() {
        assert_eq!(complete_prefix("aé".as_bytes()), 3);
        assert_eq!(complete_prefix(&"aé".as_bytes()[..2]), 1);
        assert_eq!(complete_prefix(&"a日".as_bytes()[..3]), 1);
        assert_eq!(complete_prefix(b""), 0);
    }
}
