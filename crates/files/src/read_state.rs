//! The read-before-write rule, and recording what a tool wrote.
//!
//! Claude Code refuses to change a file the model has not read, or one whose modification time is
//! newer than the read (excused only when a full read's text is unchanged). Timestamps alone
//! raise false alarms: a `touch`, an antivirus scan or a sync tool bumps the time of an unchanged
//! file, and the model is told to read it again, and again. Here the rule compares the
//! **content hash** recorded at the read with the file's bytes now; the timestamp rule is only the
//! fallback for entries recorded without a hash.
//!
//! One implementation for the three tools that change files: [`require_fresh`] (Write,
//! NotebookEdit) or [`check_freshness`] (Edit, which may edit a changed file) decides, and
//! [`StaleRead::message`] words the refusal; [`record_read`] is how Read records what it showed.

use std::path::Path;
use std::time::SystemTime;

use agent_tools_core::{FileReadState, FileStamp, content_hash, mtime_ms};

use crate::file::TextFile;

/// Whether a file may be changed, given what the model read of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Read, and unchanged since.
    Fresh,
    /// Never read in this session (or only seen as a partial view).
    NotRead,
    /// Changed on disk since it was read.
    Modified,
}

/// Why the read-before-write rule refuses a change (Claude Code's two refusals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleRead {
    /// The model has not read the file ([`Freshness::NotRead`]).
    NotRead,
    /// The file changed on disk since the model read it ([`Freshness::Modified`]).
    Modified,
}

impl StaleRead {
    /// The refusal text the model reads, Claude Code's: [`crate::messages::NOT_READ`], or for a
    /// change [`crate::messages::MODIFIED_SINCE_READ`] when found while validating the input and
    /// [`crate::messages::UNEXPECTEDLY_MODIFIED`] when found at the call (`at_call`), after
    /// validation had passed.
    pub fn message(self, at_call: bool) -> &'static str {
        use crate::messages::{MODIFIED_SINCE_READ, NOT_READ, UNEXPECTEDLY_MODIFIED};
        match self {
            Self::NotRead => NOT_READ,
            Self::Modified if at_call => UNEXPECTEDLY_MODIFIED,
            Self::Modified => MODIFIED_SINCE_READ,
        }
    }
}

/// The read-before-write rule as Write and NotebookEdit apply it: `Ok` when `file` is
/// [`Freshness::Fresh`], else why not.
///
/// # Errors
/// [`StaleRead`] when the file was not read or changed since.
pub fn require_fresh(state: &FileReadState, file: &TextFile) -> Result<(), StaleRead> {
    match check_freshness(state, file) {
        Freshness::Fresh => Ok(()),
        Freshness::NotRead => Err(StaleRead::NotRead),
        Freshness::Modified => Err(StaleRead::Modified),
    }
}

/// Records what a Read showed of the file at `path`: `content` (the text shown, line endings
/// normalised to `\n`; the whole text when the read covered the whole file), `hash` (the
/// [`content_hash`] of the whole file's bytes), its modification time, and the range asked for or
/// shown (`offset`, the first line, 1-based; `limit`, the line count; both `None` for a full
/// read). Edit, Write and NotebookEdit then accept the file while its bytes stay the same; a
/// later Read of the same range answers with a stub (Claude Code's `readFileState` entry).
pub fn record_read(
    state: &FileReadState,
    path: &Path,
    content: String,
    hash: u64,
    modified: std::io::Result<SystemTime>,
    offset: Option<u64>,
    limit: Option<u64>,
) {
    state.set(
        path,
        FileStamp {
            content: content.into(),
            timestamp_ms: mtime_ms(modified),
            offset,
            limit,
            is_partial_view: false,
            content_hash: Some(hash),
            from_read: true,
        },
    );
}

/// Checks `file` (as on disk now) against the file-read state.
///
/// - no entry, or an entry that is a partial view → [`Freshness::NotRead`] (a Read with
///   `offset`/`limit` counts as a read);
/// - an entry with a content hash → fresh exactly when the hash equals `file.content_hash`,
///   whatever the modification times say;
/// - an entry without a hash (recorded by older code) → Claude Code's rule: fresh when the file's
///   modification time is not newer than the read, or when the entry is a full read whose text
///   equals the file's text.
pub fn check_freshness(state: &FileReadState, file: &TextFile) -> Freshness {
    let Some(stamp) = state.get(&file.path) else {
        return Freshness::NotRead;
    };
    if stamp.is_partial_view {
        return Freshness::NotRead;
    }
    let fresh = match stamp.content_hash {
        Some(hash) => hash == file.content_hash,
        None => file.mtime_ms <= stamp.timestamp_ms || (stamp.is_full_read() && *stamp.content == *file.text),
    };
    if fresh { Freshness::Fresh } else { Freshness::Modified }
}

/// Records a file the tool has just written as fully known to the model: its text with line
/// endings normalised to `\n`, the hash of `bytes` (what was written), its modification time now,
/// no offset or limit. A following Edit or Write then needs no new Read.
pub fn record_write(state: &FileReadState, path: &Path, text_lf: &str, bytes: &[u8]) {
    let modified = std::fs::metadata(path).and_then(|meta| meta.modified());
    state.set(
        path,
        FileStamp {
            content: text_lf.into(),
            timestamp_ms: mtime_ms(modified),
            offset: None,
            limit: None,
            is_partial_view: false,
            content_hash: Some(content_hash(bytes)),
            from_read: false,
        },
    );
}

/// Records a file the tool has just written when the model has **not** seen all of it (it had
/// read a part, or the file had changed on disk since its read): its later Edits and Writes need
/// no new Read — the bytes are known — but nothing may claim its whole content is in the model's
/// context (the entry is not a full read).
pub fn record_partial_write(state: &FileReadState, path: &Path, text_lf: &str, bytes: &[u8]) {
    record_write(state, path, text_lf, bytes);
    if let Some(stamp) = state.get(path) {
        state.set(path, FileStamp { offset: Some(1), ..stamp });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(content: &str, timestamp_ms: u64, hash: Option<u64>) -> FileStamp {
        FileStamp {
            content: content.into(),
            timestamp_ms,
            offset: None,
            limit: None,
            is_partial_view: false,
            content_hash: hash,
            from_read: true,
        }
    }

    #[test]
    fn the_hash_decides_when_there_is_one() {
        let state = FileReadState::default();
        let file = TextFile::from_bytes("/nowhere/f", b"a\n", 5_000);
        assert_eq!(check_freshness(&state, &file), Freshness::NotRead);
        // A newer mtime with the same bytes is not a change.
        state.set(&file.path, stamp("a\n", 1_000, Some(file.content_hash)));
        assert_eq!(check_freshness(&state, &file), Freshness::Fresh);
        // Different bytes are a change even with an older mtime.
        let changed = TextFile::from_bytes("/nowhere/f", b"b\n", 10);
        assert_eq!(check_freshness(&state, &changed), Freshness::Modified);
        // A partial view does not count as a read.
        state.set(&file.path, FileStamp { is_partial_view: true, ..stamp("a\n", 9_000, Some(file.content_hash)) });
        assert_eq!(check_freshness(&state, &file), Freshness::NotRead);
        // A read with offset/limit does.
        state.set(
            &file.path,
            FileStamp { offset: Some(2), limit: Some(1), ..stamp("", 9_000, Some(file.content_hash)) },
        );
        assert_eq!(check_freshness(&state, &file), Freshness::Fresh);
    }

    #[test]
    fn a_recorded_read_makes_the_file_fresh_and_refusals_are_worded_once() {
        let state = FileReadState::default();
        let file = TextFile::from_bytes("/nowhere/r", b"x\r\n", 5_000);
        assert_eq!(require_fresh(&state, &file), Err(StaleRead::NotRead));
        record_read(&state, &file.path, file.text.clone(), file.content_hash, Ok(SystemTime::UNIX_EPOCH), None, None);
        assert_eq!(require_fresh(&state, &file), Ok(()));
        assert!(state.get(&file.path).is_some_and(|stamp| stamp.from_read && stamp.is_full_read()));
        let changed = TextFile::from_bytes("/nowhere/r", b"y\r\n", 5_000);
        assert_eq!(require_fresh(&state, &changed), Err(StaleRead::Modified));
        assert_eq!(StaleRead::NotRead.message(true), crate::messages::NOT_READ);
        assert_eq!(StaleRead::Modified.message(false), crate::messages::MODIFIED_SINCE_READ);
        assert_eq!(StaleRead::Modified.message(true), crate::messages::UNEXPECTEDLY_MODIFIED);
    }

    #[test]
    fn without_a_hash_claude_codes_timestamp_rule_applies() {
        let state = FileReadState::default();
        let file = TextFile::from_bytes("/nowhere/g", b"a\r\nb\r\n", 5_000);
        state.set(&file.path, stamp("other", 5_000, None));
        assert_eq!(check_freshness(&state, &file), Freshness::Fresh);
        state.set(&file.path, stamp("other", 4_999, None));
        assert_eq!(check_freshness(&state, &file), Freshness::Modified);
        // A full read with the same text excuses a newer mtime.
        state.set(&file.path, stamp("a\nb\n", 4_999, None));
        assert_eq!(check_freshness(&state, &file), Freshness::Fresh);
        // A partial read does not.
        state.set(&file.path, FileStamp { limit: Some(1), ..stamp("a\nb\n", 4_999, None) });
        assert_eq!(check_freshness(&state, &file), Freshness::Modified);
    }
}
