//! Deciding an Edit: every check in Claude Code's order, the matches, and the file's new bytes.
//! Free of the contract; [`plan`] runs in `validate_input` and again in `call`.

use std::ops::Range;
use std::path::Path;

use agent_tools_core::context::FileReadState;
use agent_tools_files::{
    Encoding, Freshness, LineEnding, LoadError, MAX_FILE_BYTES, TextFile, Unrepresentable, check_freshness,
    encode_text, load_text_file, normalize_newlines,
};

use crate::tolerant::{find_loose, preserve_quote_style};

/// What the model asked for.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The text to find, as sent.
    pub old_string: &'a str,
    /// The replacement, as sent.
    pub new_string: &'a str,
    /// Replace every occurrence.
    pub replace_all: bool,
}

/// Why an Edit may not go ahead, in the order Claude Code checks.
#[derive(Debug)]
pub enum Refusal {
    /// `old_string` equals `new_string`.
    NoChange,
    /// The file cannot be loaded (folder, device, binary, too large, I/O).
    Load(LoadError),
    /// No file, and `old_string` is not empty.
    FileMissing,
    /// `old_string` is empty but the file has content.
    AlreadyExists,
    /// A Jupyter notebook: NotebookEdit's job.
    Notebook,
    /// The model has not read the file.
    NotRead,
    /// The file changed on disk since the model read it.
    Modified,
    /// The file's bytes do not decode cleanly in its encoding.
    Undecodable(Encoding),
    /// `old_string` is not in the file.
    NotFound,
    /// `old_string` is in the file this many times and `replace_all` is false.
    Ambiguous(usize),
    /// The new text has a character the file's encoding lacks.
    Unrepresentable(Unrepresentable),
    /// The edit would leave the file exactly as it is.
    Identical,
}

/// An Edit ready to write.
#[derive(Debug)]
pub struct Planned {
    /// The file before the edit (`None` when the Edit creates it).
    pub original: Option<Box<TextFile>>,
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// The new text, line endings normalised to `\n` (for the read state and the diff).
    pub text: String,
    /// The text actually replaced: `old_string`, or the file's own spelling of it when only the
    /// curly-quote fallback found it.
    pub actual_old: String,
}

impl Planned {
    /// True when the Edit creates the file.
    pub fn creates(&self) -> bool {
        self.original.is_none()
    }
}

/// Runs every check on the file at `path` and computes the edited file.
///
/// # Errors
/// The first [`Refusal`] that applies.
pub fn plan(path: &Path, state: &FileReadState, request: Request<'_>) -> Result<Planned, Refusal> {
    let Request { old_string, new_string, replace_all } = request;
    if old_string == new_string {
        return Err(Refusal::NoChange);
    }
    let Some(file) = load_text_file(path, MAX_FILE_BYTES).map_err(Refusal::Load)? else {
        if !old_string.is_empty() {
            return Err(Refusal::FileMissing);
        }
        // A new file gets `new_string` byte for byte, like a Write of a new file.
        return Ok(Planned {
            original: None,
            bytes: new_string.as_bytes().to_vec(),
            text: normalize_newlines(new_string),
            actual_old: String::new(),
        });
    };
    if old_string.is_empty() {
        if !file.is_blank() {
            return Err(Refusal::AlreadyExists);
        }
        // Filling an empty (or whitespace-only) file: nothing in it can be lost, so no Read is
        // needed (as in Claude Code); if it gained content meanwhile, the check above refuses.
        let raw = match file.line_ending {
            LineEnding::CrLf => LineEnding::CrLf.apply(new_string),
            LineEnding::Lf => new_string.to_owned(),
        };
        return finish(file, raw, String::new());
    }
    if is_notebook(path) {
        return Err(Refusal::Notebook);
    }
    match check_freshness(state, &file) {
        Freshness::Fresh => {}
        Freshness::NotRead => return Err(Refusal::NotRead),
        Freshness::Modified => return Err(Refusal::Modified),
    }
    if !file.lossless {
        return Err(Refusal::Undecodable(file.encoding));
    }

    let old = normalize_newlines(old_string);
    let new = normalize_newlines(new_string);
    let mut found: Vec<Range<usize>> = file.text.match_indices(old.as_str()).map(|(at, s)| at..at + s.len()).collect();
    if found.is_empty() {
        found = find_loose(&file.text, &old);
    }
    let Some(first) = found.first() else {
        return Err(Refusal::NotFound);
    };
    if found.len() > 1 && !replace_all {
        return Err(Refusal::Ambiguous(found.len()));
    }
    let actual_old = file.text[first.clone()].to_owned();
    if !replace_all {
        found.truncate(1);
    }

    let mut raw = String::with_capacity(file.raw.len() + new.len());
    let mut copied = 0;
    for (index, range) in found.iter().enumerate() {
        let next_start = found.get(index + 1).map_or(usize::MAX, |next| next.start);
        let end = deletion_end(&file.text, range, &old, &new, next_start);
        let replacement = preserve_quote_style(&old, &file.text[range.clone()], &new);
        let (raw_start, raw_end) = (file.raw_offset(range.start), file.raw_offset(end));
        raw.push_str(&file.raw[copied..raw_start]);
        raw.push_str(&file.line_ending.apply(&replacement));
        copied = raw_end;
    }
    raw.push_str(&file.raw[copied..]);
    finish(file, raw, actual_old)
}

/// Where a replaced span ends. Deleting whole lines (an empty `new_string`, a match starting a
/// line and ending just before a line break, an `old_string` without a final line break) takes
/// that line break too, so no blank line is left behind — Claude Code's rule, limited to whole
/// lines so that deleting the end of a line never joins it to the next.
fn deletion_end(text: &str, range: &Range<usize>, old: &str, new: &str, next_start: usize) -> usize {
    let starts_line = range.start == 0 || text.as_bytes().get(range.start - 1) == Some(&b'\n');
    let line_break_follows = text.as_bytes().get(range.end) == Some(&b'\n');
    if new.is_empty() && !old.ends_with('\n') && starts_line && line_break_follows && next_start > range.end {
        range.end + 1
    } else {
        range.end
    }
}

/// Encodes the new raw text in the file's encoding and builds the plan.
fn finish(file: TextFile, raw: String, actual_old: String) -> Result<Planned, Refusal> {
    if raw == file.raw {
        return Err(Refusal::Identical);
    }
    let bytes = encode_text(&raw, file.encoding).map_err(Refusal::Unrepresentable)?;
    Ok(Planned { text: normalize_newlines(&raw), original: Some(Box::new(file)), bytes, actual_old })
}

fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ipynb"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deleting_whole_lines_takes_their_line_break() {
        let text = "a\nremove me\nb\n";
        let range = 2..11;
        assert_eq!(deletion_end(text, &range, "remove me", "", usize::MAX), 12);
        // Not for a replacement, nor an old_string with its own line break.
        assert_eq!(deletion_end(text, &range, "remove me", "x", usize::MAX), 11);
        // Not for the end of a line: "a = 1 # note" minus " # note" must not join the lines.
        let text = "a = 1 # note\nb = 2\n";
        assert_eq!(deletion_end(text, &(5..12), " # note", "", usize::MAX), 12);
        // Never into the next match.
        assert_eq!(deletion_end("x\n\nx", &(0..1), "x", "", 1), 1);
    }

    /// Generated files and strings over an alphabet of line breaks, quotes and spaces: `plan`
    /// never panics, and a literal single replacement changes exactly the matched text.
    #[test]
    fn generated_edits_never_panic_and_replace_exactly() {
        const PIECES: &[&str] = &["a", "b", "\n", "\r\n", "\r", "\u{2019}", "'", "\u{a0}", " ", "\u{e9}"];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let state = FileReadState::default();
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % bound as u64).unwrap()
        };
        for _ in 0..1500 {
            let mut pick = |max: usize| -> String { (0..next(max)).map(|_| PIECES[next(PIECES.len())]).collect() };
            let (content, old, new) = (pick(12), pick(4), pick(3));
            let replace_all = content.len() % 2 == 0;
            std::fs::write(&path, &content).unwrap();
            agent_tools_files::record_write(&state, &path, &normalize_newlines(&content), content.as_bytes());
            let request = Request { old_string: &old, new_string: &new, replace_all };
            let Ok(planned) = plan(&path, &state, request) else { continue };
            // What is recorded is what is on disk.
            let on_disk = TextFile::from_bytes(&path, &planned.bytes, 0).text;
            assert_eq!(planned.text, on_disk, "{content:?} {old:?} {new:?}");
            let lone_cr = |s: &str| s.replace("\r\n", "").contains('\r');
            let (text, old_n, new_n) =
                (normalize_newlines(&content), normalize_newlines(&old), normalize_newlines(&new));
            let literal = !old.is_empty() && !new.is_empty() && !replace_all && text.contains(&old_n);
            if literal && !lone_cr(&content) && !lone_cr(&new) {
                assert_eq!(planned.text, text.replacen(&old_n, &new_n, 1), "{content:?} {old:?} {new:?}");
            }
        }
    }
}
