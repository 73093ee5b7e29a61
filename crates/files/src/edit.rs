//! Edit's engine, shared by Edit and MultiEdit: every check in Claude Code's order, the
//! matches, the file's new bytes, the refusal texts and the write. Free of the Tool contract;
//! [`plan`] runs in Edit's `validate_input` and again in its `call`.
//!
//! The work is split so that a batch of edits (MultiEdit) runs the same code:
//! [`plan_batch`] loads the file and runs the file-level checks (exists, not a notebook, read and
//! unchanged, decodable) once, [`apply`] makes one replacement **in memory** on a [`TextFile`],
//! and the batch is a fold — `file = file.edited(apply(&file, edit, keep)?.raw)` for each edit in
//! order, each matched against the result of the previous one; the first refusal ends the batch
//! before anything is written, and [`finish`] encodes the last text once for a single atomic
//! write ([`write_planned`]). [`plan`] (one Edit) is the batch of one. [`refusal_message`] gives
//! each [`Refusal`] Edit's text (Claude Code's) and [`error_codes`] code; [`state_note`] is the
//! note after a successful edit's text.

mod tolerant;

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use agent_tools_core::FileReadState;
use agent_tools_core::ToolError;
use agent_tools_core::quote::quote_up_to;

use self::tolerant::{desanitize, desanitize_with, find_loose, preserve_quote_style};
use crate::{
    Encoding, Freshness, LoadError, MAX_FILE_BYTES, StaleRead, TextFile, Unrepresentable, check_freshness, encode_text,
    keeps_trailing_whitespace, load_text_file, messages, normalize_newlines, record_partial_write, record_write,
    strip_trailing_whitespace, write_atomic,
};

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
    /// The model has not read the file, or (reported only when an edit no longer matches) the
    /// file changed on disk since it read it.
    Stale(StaleRead),
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

/// How much of the file the model had seen when it asked for the edit: what the result may say
/// about the file's state in its context (Claude Code's texts differ by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Seen {
    /// All of it, unchanged since: a full Read, or the model's own last Write or Edit (and a file
    /// the Edit creates or fills).
    #[default]
    Whole,
    /// Part of it: a Read with `offset` or `limit`.
    Part,
    /// It changed on disk since the model read it; `old_string` still matched as required, so the
    /// edit was made on the file as it is now (Claude Code 2.1's rule).
    Changed,
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
    /// How many occurrences were replaced (0 when the Edit creates or fills a file).
    pub replacements: usize,
    /// How much of the file the model had seen.
    pub seen: Seen,
}

impl Planned {
    /// True when the Edit creates the file.
    pub fn creates(&self) -> bool {
        self.original.is_none()
    }
}

/// One replacement made in memory.
#[derive(Debug)]
pub struct Applied {
    /// The file's new decoded text, line endings as they are to be written.
    pub raw: String,
    /// The text replaced (the first match, in the file's own spelling).
    pub actual_old: String,
    /// How many occurrences were replaced.
    pub replacements: usize,
}

/// Runs every check on the file at `path` and computes the edited file (one Edit: the batch of
/// one, see [`plan_batch`]).
///
/// # Errors
/// The first [`Refusal`] that applies.
pub fn plan(path: &Path, state: &FileReadState, request: Request<'_>) -> Result<Planned, Refusal> {
    plan_batch(path, state, std::slice::from_ref(&request))
        .map(|batch| batch.planned)
        .map_err(|refused| refused.refusal)
}

/// What one edit of a batch replaced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Replaced {
    /// The text replaced (the first match, in the file's own spelling); empty when the edit
    /// created or filled the file.
    pub actual_old: String,
    /// How many occurrences were replaced (0 when the edit created or filled the file).
    pub replacements: usize,
}

/// A batch of edits ready to write.
#[derive(Debug)]
pub struct PlannedBatch {
    /// The file's new bytes and text, as for one Edit; its `actual_old` and `replacements` are
    /// those of the last edit.
    pub planned: Planned,
    /// What each edit replaced, in the order of the requests.
    pub edits: Vec<Replaced>,
}

/// Why a batch may not go ahead: the [`Refusal`], and which edit it concerns.
#[derive(Debug)]
pub struct BatchRefusal {
    /// The 0-based index of the refused edit; `None` when the refusal is about the file itself
    /// (missing, unreadable, a notebook, not read, changed since read, undecodable, an encoding
    /// that lacks a character of the result) or about the batch as a whole (no edits, or edits
    /// that together leave the file as it was).
    pub edit: Option<usize>,
    /// Why.
    pub refusal: Refusal,
}

impl BatchRefusal {
    fn at(edit: usize) -> impl FnOnce(Refusal) -> Self {
        move |refusal| Self { edit: Some(edit), refusal }
    }

    fn file(refusal: Refusal) -> Self {
        Self { edit: None, refusal }
    }
}

/// Runs every check on the file at `path` and computes the file after every request, applied in
/// order, each to the result of the previous one (Claude Code's MultiEdit semantics; its extra
/// refusal of an `old_string` found inside an earlier `new_string` is not kept, since matching
/// the running result is the point). Nothing is written.
///
/// The checks, in Claude Code's order: any request with `old_string == new_string` (before the
/// disk is touched); then the file-level checks once (loadable, exists unless the first request
/// creates it with an empty `old_string`, not a notebook, read and unchanged since, decodable);
/// then each edit against the running text — not found, ambiguous without `replace_all`, or a
/// change that leaves the text as it was. An empty `old_string` creates a missing file or fills
/// an empty one, and is refused once the text has content. A file changed on disk since it was
/// read is still edited when every `old_string` matches as required; an edit that does not
/// match it is reported as the change ([`StaleRead::Modified`]), as for one Edit.
///
/// # Errors
/// The first [`BatchRefusal`] that applies; an empty `requests` is [`Refusal::Identical`] for
/// the batch as a whole.
pub fn plan_batch(path: &Path, state: &FileReadState, requests: &[Request<'_>]) -> Result<PlannedBatch, BatchRefusal> {
    let Some(first) = requests.first() else {
        return Err(BatchRefusal::file(Refusal::Identical));
    };
    if let Some(index) = requests.iter().position(|request| request.old_string == request.new_string) {
        return Err(BatchRefusal::at(index)(Refusal::NoChange));
    }
    let keep_whitespace = keeps_trailing_whitespace(path);
    let whole = |text: &'_ str| -> String {
        if keep_whitespace { text.to_owned() } else { strip_trailing_whitespace(text, true, |_| false).into_owned() }
    };
    let Some(file) = load_text_file(path, MAX_FILE_BYTES).map_err(|error| BatchRefusal::file(Refusal::Load(error)))?
    else {
        if !first.old_string.is_empty() {
            return Err(BatchRefusal::file(Refusal::FileMissing));
        }
        // A new file gets `new_string` byte for byte (less trailing whitespace), like a Write of
        // a new file; the later edits apply to that text.
        let content = whole(first.new_string);
        let new_file = TextFile::from_bytes(path, content.as_bytes(), 0);
        let mut edits = vec![Replaced::default()];
        let done = fold(&new_file, &requests[1..], 1, Seen::Whole, keep_whitespace, &mut edits)?;
        let done = done.as_ref().unwrap_or(&new_file);
        let bytes = encode_text(&done.raw, done.encoding)
            .map_err(|problem| BatchRefusal::file(Refusal::Unrepresentable(problem)))?;
        let last = edits.last().cloned().unwrap_or_default();
        let planned = Planned {
            original: None,
            bytes,
            text: normalize_newlines(&done.raw),
            actual_old: last.actual_old,
            replacements: last.replacements,
            seen: Seen::Whole,
        };
        return Ok(PlannedBatch { planned, edits });
    };
    if first.old_string.is_empty() && !file.is_blank() {
        return Err(BatchRefusal::at(0)(Refusal::AlreadyExists));
    }
    if is_notebook(path) {
        return Err(BatchRefusal::file(Refusal::Notebook));
    }
    let mut edits = Vec::with_capacity(requests.len());
    let (filled, seen) = if first.old_string.is_empty() {
        // Filling an empty (or whitespace-only) file: nothing in it can be lost, so no Read is
        // needed (as in Claude Code); if it gained content meanwhile, the check above refuses.
        edits.push(Replaced::default());
        (Some(file.edited(file.line_ending.apply(&whole(first.new_string)))), Seen::Whole)
    } else {
        let seen = match check_freshness(state, &file) {
            Freshness::Fresh if state.get(&file.path).is_some_and(|stamp| stamp.is_full_read()) => Seen::Whole,
            Freshness::Fresh => Seen::Part,
            Freshness::NotRead => return Err(BatchRefusal::file(Refusal::Stale(StaleRead::NotRead))),
            Freshness::Modified => Seen::Changed,
        };
        if !file.lossless {
            return Err(BatchRefusal::file(Refusal::Undecodable(file.encoding)));
        }
        (None, seen)
    };
    let skip = usize::from(filled.is_some());
    let start = filled.as_ref().unwrap_or(&file);
    let done = fold(start, &requests[skip..], skip, seen, keep_whitespace, &mut edits)?;
    let raw = match (done, filled) {
        (Some(done), _) | (None, Some(done)) => done.raw,
        (None, None) => file.raw.clone(),
    };
    let last = edits.last().cloned().unwrap_or_default();
    let mut planned = finish(file, raw, last.actual_old, last.replacements).map_err(BatchRefusal::file)?;
    planned.seen = seen;
    Ok(PlannedBatch { planned, edits })
}

/// Applies `requests` in order to `start` (the first of them is request number `offset` of the
/// batch), pushing what each replaced onto `edits`; returns the last text, or `None` when there
/// was nothing to apply.
fn fold(
    start: &TextFile,
    requests: &[Request<'_>],
    offset: usize,
    seen: Seen,
    keep_whitespace: bool,
    edits: &mut Vec<Replaced>,
) -> Result<Option<TextFile>, BatchRefusal> {
    let mut current: Option<TextFile> = None;
    for (index, request) in requests.iter().enumerate() {
        let refused = BatchRefusal::at(offset + index);
        let text = current.as_ref().unwrap_or(start);
        if request.old_string.is_empty() {
            // Only the first edit may create or fill the file; by now it has content.
            return Err(refused(Refusal::AlreadyExists));
        }
        // When the file changed since it was read and an edit no longer matches, the change is
        // what the model must hear about.
        let applied = match apply(text, *request, keep_whitespace) {
            Err(Refusal::NotFound) if seen == Seen::Changed => {
                return Err(BatchRefusal::file(Refusal::Stale(StaleRead::Modified)));
            }
            Err(refusal) => return Err(refused(refusal)),
            Ok(applied) => applied,
        };
        if applied.raw == text.raw {
            return Err(refused(Refusal::Identical));
        }
        let next = text.edited(applied.raw);
        edits.push(Replaced { actual_old: applied.actual_old, replacements: applied.replacements });
        current = Some(next);
    }
    Ok(current)
}

/// Makes one replacement in `file`'s text, in memory.
///
/// `old_string` is found as written (line breaks as `\n` or `\r\n`), else through the tolerant
/// fallback (curly quotes, no-break spaces), else with the tags the API sanitises written out
/// (`<fnr>` → `<function_results>` …, applied to `new_string` too). Each replacement is spliced
/// into the file's own text, so nothing outside the replaced span changes; its line breaks take
/// the ending of the lines around it ([`TextFile::line_ending_near`]); trailing whitespace is
/// stripped from the lines it ends unless `keep_whitespace` (see
/// [`crate::strip_trailing_whitespace`]), and a deletion that empties a line removes
/// the line ([`deletion_span`]).
///
/// # Errors
/// [`Refusal::NotFound`], or [`Refusal::Ambiguous`] for several matches without `replace_all`.
pub fn apply(file: &TextFile, request: Request<'_>, keep_whitespace: bool) -> Result<Applied, Refusal> {
    let mut old = normalize_newlines(request.old_string);
    let mut new = normalize_newlines(request.new_string);
    let text = file.text.as_str();
    let exact = |old: &str| -> Vec<Range<usize>> {
        if old.is_empty() { Vec::new() } else { text.match_indices(old).map(|(at, s)| at..at + s.len()).collect() }
    };
    let mut found = exact(&old);
    if found.is_empty() {
        found = find_loose(text, &old);
    }
    if found.is_empty()
        && let Some((written_out, applied)) = desanitize(&old)
    {
        found = exact(&written_out);
        if !found.is_empty() {
            new = desanitize_with(&new, &applied);
            old = written_out;
        }
    }
    let Some(first) = found.first() else {
        return Err(Refusal::NotFound);
    };
    if found.len() > 1 && !request.replace_all {
        return Err(Refusal::Ambiguous(found.len()));
    }
    let actual_old = text[first.clone()].to_owned();
    if !request.replace_all {
        found.truncate(1);
    }

    let mut raw = String::with_capacity(file.raw.len() + new.len());
    let mut copied_raw = 0;
    let mut copied_text = 0;
    for (index, range) in found.iter().enumerate() {
        let next_start = found.get(index + 1).map_or(usize::MAX, |next| next.start);
        let actual = &text[range.clone()];
        let ends_line = range.end == text.len() || text.as_bytes().get(range.end) == Some(&b'\n');
        let new_text: Cow<'_, str> = if keep_whitespace {
            Cow::Borrowed(new.as_str())
        } else {
            strip_trailing_whitespace(&new, ends_line, |line| actual.split('\n').any(|kept| kept == line))
        };
        let replacement = preserve_quote_style(&old, actual, &new_text);
        let span =
            if replacement.is_empty() { deletion_span(text, range, copied_text, next_start) } else { range.clone() };
        let ending = file.line_ending_near(span.clone());
        let (raw_start, raw_end) = (file.raw_offset(span.start), file.raw_offset(span.end));
        raw.push_str(file.raw.get(copied_raw..raw_start).unwrap_or_default());
        raw.push_str(&ending.apply(&replacement));
        copied_raw = raw_end;
        copied_text = span.end;
    }
    raw.push_str(file.raw.get(copied_raw..).unwrap_or_default());
    Ok(Applied { raw, actual_old, replacements: found.len() })
}

/// The span a deletion of `text[range]` removes. Claude Code's rule is that deleting text also
/// deletes the line break after it, so that deleting a line leaves no blank line. Here that holds
/// whenever the deletion empties its line: the match is followed by a line break and preceded on
/// its line only by spaces or tabs — then the whole line goes, its indentation and its line break
/// too. A deletion that leaves other text on the line (the end of a line, say `  # note`) keeps
/// the line break: Claude Code would join the line to the next one, and deleting the text after
/// an indentation would leave that indentation before the next line.
///
/// `done` is where the previous replacement ended and `next_start` where the next one starts: the
/// span never reaches into either.
pub fn deletion_span(text: &str, range: &Range<usize>, done: usize, next_start: usize) -> Range<usize> {
    let bytes = text.as_bytes();
    let start = range.start.min(bytes.len());
    let matched = &bytes[start..range.end.clamp(start, bytes.len())];
    if matched.first() == Some(&b'\n') || matched.last() == Some(&b'\n') {
        return range.clone();
    }
    if bytes.get(range.end) != Some(&b'\n') || next_start <= range.end {
        return range.clone();
    }
    let line_start = bytes[..start].iter().rposition(|byte| *byte == b'\n').map_or(0, |at| at + 1);
    if line_start < done || !bytes[line_start..start].iter().all(|byte| matches!(byte, b' ' | b'\t')) {
        return range.clone();
    }
    line_start..range.end + 1
}

/// Encodes the new raw text in the file's encoding and builds the plan.
///
/// # Errors
/// [`Refusal::Identical`] when nothing changed, [`Refusal::Unrepresentable`] when the file's
/// encoding lacks a character of the new text.
pub fn finish(file: TextFile, raw: String, actual_old: String, replacements: usize) -> Result<Planned, Refusal> {
    if raw == file.raw {
        return Err(Refusal::Identical);
    }
    let bytes = encode_text(&raw, file.encoding).map_err(Refusal::Unrepresentable)?;
    Ok(Planned {
        text: normalize_newlines(&raw),
        original: Some(Box::new(file)),
        bytes,
        actual_old,
        replacements,
        seen: Seen::Whole,
    })
}

fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ipynb"))
}

/// `validate_input` error codes of Edit and MultiEdit (Claude Code's numbers; ours from 11).
pub mod error_codes {
    /// `old_string` equals `new_string`.
    pub const NO_CHANGE: i32 = 1;
    /// An empty `old_string` for a file with content.
    pub const ALREADY_EXISTS: i32 = 3;
    /// No such file.
    pub const FILE_MISSING: i32 = 4;
    /// A notebook.
    pub const NOTEBOOK: i32 = 5;
    /// Not read.
    pub const NOT_READ: i32 = 6;
    /// Changed since read.
    pub const MODIFIED_SINCE_READ: i32 = 7;
    /// `old_string` not found.
    pub const NOT_FOUND: i32 = 8;
    /// Several matches without `replace_all`.
    pub const AMBIGUOUS: i32 = 9;
    /// Larger than 1 GiB.
    pub const TOO_LARGE: i32 = 10;
    /// A folder, device or binary file, or one that cannot be read.
    pub const NOT_A_TEXT_FILE: i32 = 11;
    /// The file's encoding cannot take the edit (broken bytes, or a character it lacks).
    pub const ENCODING: i32 = 12;
    /// The edit would change nothing.
    pub const IDENTICAL: i32 = 13;
}

/// `old_string` equals `new_string` (Claude Code's text).
pub const NO_CHANGES: &str = "No changes to make: old_string and new_string are exactly the same.";

/// An empty `old_string` for a file that has content (Claude Code's text).
pub const ALREADY_EXISTS: &str = "Cannot create new file - file already exists.";

/// A Jupyter notebook (Claude Code's text).
pub const NOTEBOOK: &str = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file.";

/// The edit changes nothing in the file (Claude Code's text).
pub const IDENTICAL: &str = "Original and edited file match exactly. Failed to apply edit.";

/// The most characters of `old_string` the not-found and ambiguous messages repeat: an
/// ordinary edit's text comes back whole, as in Claude Code's messages; a huge one is cut, with
/// its length.
pub const ECHO_MAX_CHARS: usize = 2_000;

/// `old_string` is not in the file (Claude Code's text).
pub fn not_found(old_string: &str) -> String {
    let old_string = quote_up_to(old_string, ECHO_MAX_CHARS);
    format!("String to replace not found in file.\nString: {old_string}")
}

/// `old_string` occurs `count` times and `replace_all` is false (Claude Code's text).
pub fn ambiguous(count: usize, old_string: &str) -> String {
    format!(
        "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {}",
        quote_up_to(old_string, ECHO_MAX_CHARS)
    )
}

/// Said after an edit of a file the model had seen whole (Claude Code's text): its content in
/// the model's context is the file's.
pub const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";

/// Said after an edit of a file that had changed on disk since the model read it.
pub const CHANGED_SINCE_READ: &str = "(note: the file had changed on disk since you last read it. The edit applied cleanly, but the file holds changes you have not seen: Read it before an edit that depends on the text around this one.)";

/// The note after a successful edit's text, by how much of the file the model had seen:
/// [`STATE_IS_CURRENT`] for all of it, nothing for part of it (a Read with `offset` or `limit`),
/// [`CHANGED_SINCE_READ`] when it had changed on disk since the model read it. Edit and
/// MultiEdit add the same note.
pub fn state_note(seen: Seen) -> Option<&'static str> {
    match seen {
        Seen::Whole => Some(STATE_IS_CURRENT),
        Seen::Part => None,
        Seen::Changed => Some(CHANGED_SINCE_READ),
    }
}

/// Edit's message and [`error_codes`] code for a refusal (Claude Code's texts): `file_path` as
/// the model gave it, `old_string` as the refused edit gave it (quoted by the not-found and
/// ambiguous texts), `cwd` for the missing-file text; `at_call` words a change found in `call`
/// (after validation passed) as Claude Code does ([`StaleRead::message`]).
pub fn refusal_message(
    refusal: &Refusal,
    file_path: &str,
    old_string: &str,
    cwd: &Path,
    at_call: bool,
) -> (String, i32) {
    use error_codes as code;
    let path = file_path;
    match refusal {
        Refusal::NoChange => (NO_CHANGES.to_owned(), code::NO_CHANGE),
        Refusal::Load(error @ LoadError::TooLarge { .. }) => {
            (messages::load_error("edit", path, error), code::TOO_LARGE)
        }
        Refusal::Load(error) => (messages::load_error("edit", path, error), code::NOT_A_TEXT_FILE),
        Refusal::FileMissing => (messages::file_not_found(cwd.display()), code::FILE_MISSING),
        Refusal::AlreadyExists => (ALREADY_EXISTS.to_owned(), code::ALREADY_EXISTS),
        Refusal::Notebook => (NOTEBOOK.to_owned(), code::NOTEBOOK),
        Refusal::Stale(stale) => {
            let code = match stale {
                StaleRead::NotRead => code::NOT_READ,
                StaleRead::Modified => code::MODIFIED_SINCE_READ,
            };
            (stale.message(at_call).to_owned(), code)
        }
        Refusal::Undecodable(encoding) => (messages::undecodable(path, encoding), code::ENCODING),
        Refusal::NotFound => (not_found(old_string), code::NOT_FOUND),
        Refusal::Ambiguous(count) => (ambiguous(*count, old_string), code::AMBIGUOUS),
        Refusal::Unrepresentable(problem) => (messages::unrepresentable(path, problem), code::ENCODING),
        Refusal::Identical => (IDENTICAL.to_owned(), code::IDENTICAL),
    }
}

/// Writes a planned edit (or batch) to `path` atomically, keeping the file's permissions, and
/// records the new content in the read state: as wholly known when the model had seen the whole
/// file ([`Seen::Whole`]), else as partly known, so a later Write still needs a Read (Claude
/// Code's rule for an edit after a partial Read). `file_path` is the path as the model gave it.
///
/// # Errors
/// [`ToolError::Failed`] with the cannot-write text when the write fails; nothing is recorded
/// then.
pub fn write_planned(path: &Path, file_path: &str, state: &FileReadState, planned: &Planned) -> Result<(), ToolError> {
    write_atomic(path, &planned.bytes).map_err(|error| ToolError::failed(messages::cannot_write(file_path, error)))?;
    // The model knows the whole file only when it had seen all of it before.
    match planned.seen {
        Seen::Whole => record_write(state, path, &planned.text, &planned.bytes),
        Seen::Part | Seen::Changed => record_partial_write(state, path, &planned.text, &planned.bytes),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deletion_that_empties_its_line_removes_the_line() {
        let max = usize::MAX;
        let text = "a\nremove me\nb\n";
        assert_eq!(deletion_span(text, &(2..11), 0, max), 2..12);
        // An indented line: the indentation goes too, so the next line keeps its own.
        let text = "if x:\n    foo()\n    bar()\n";
        assert_eq!(deletion_span(text, &(10..15), 0, max), 6..16);
        // The end of a line: "a = 1 # note" minus " # note" must not join the lines.
        let text = "a = 1 # note\nb = 2\n";
        assert_eq!(deletion_span(text, &(5..12), 0, max), 5..12);
        // The start of a line with text after it.
        assert_eq!(deletion_span(text, &(0..2), 0, max), 0..2);
        // An old_string with its own line break at either end is taken as it is.
        assert_eq!(deletion_span("a\nb\nc\n", &(1..3), 0, max), 1..3);
        assert_eq!(deletion_span("a\nb\nc\n", &(2..4), 0, max), 2..4);
        // The last line, without a line break after it.
        assert_eq!(deletion_span("a\nb", &(2..3), 0, max), 2..3);
        // Never into the next match, nor back over the previous one.
        assert_eq!(deletion_span("x\n\nx", &(0..1), 0, 1), 0..1);
        assert_eq!(deletion_span("xx\n", &(1..2), 1, max), 1..2);
    }

    /// Generated files and strings over an alphabet of line breaks, quotes and spaces: `plan`
    /// never panics, and a literal single replacement in a Markdown file (where trailing
    /// whitespace is kept) changes exactly the matched text.
    #[test]
    fn generated_edits_never_panic_and_replace_exactly() {
        const PIECES: &[&str] = &["a", "b", "\n", "\r\n", "\r", "\u{2019}", "'", "\u{a0}", " ", "\u{e9}"];
        let dir = tempfile::tempdir().unwrap();
        let (markdown, plain) = (dir.path().join("f.md"), dir.path().join("f.txt"));
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
            let path = if old.len() % 2 == 0 { &markdown } else { &plain };
            std::fs::write(path, &content).unwrap();
            record_write(&state, path, &normalize_newlines(&content), content.as_bytes());
            let request = Request { old_string: &old, new_string: &new, replace_all };
            let Ok(planned) = plan(path, &state, request) else { continue };
            // What is recorded is what is on disk.
            let on_disk = TextFile::from_bytes(path, &planned.bytes, 0).text;
            assert_eq!(planned.text, on_disk, "{content:?} {old:?} {new:?}");
            let lone_cr = |s: &str| s.replace("\r\n", "").contains('\r');
            let (text, old_n, new_n) =
                (normalize_newlines(&content), normalize_newlines(&old), normalize_newlines(&new));
            let literal = !old.is_empty() && !new.is_empty() && !replace_all && text.contains(&old_n);
            if literal && path == &markdown && !lone_cr(&content) && !lone_cr(&new) {
                assert_eq!(planned.text, text.replacen(&old_n, &new_n, 1), "{content:?} {old:?} {new:?}");
            }
        }
    }
}
