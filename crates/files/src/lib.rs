//! # agent-tools-files: what the file-changing tools share
//!
//! The machinery under Write, Edit and NotebookEdit, free of the Tool contract:
//!
//! - [`load_text_file`] → [`TextFile`]: a file's encoding ([`Encoding`]: UTF-8, UTF-8 with BOM,
//!   UTF-16LE/BE with BOM, Windows-1252 for other non-UTF-8 text), its line-ending style
//!   ([`LineEnding`]), the text with `\r\n` normalised to `\n` (what the model reads and matches
//!   against), the hash of its bytes and its modification time. [`TextFile::raw_offset`] maps a
//!   span of the normalised text back to the file's own text, so an edit can change that span
//!   and not one byte besides; [`TextFile::line_ending_near`] says which ending new line breaks
//!   at a span take in a file with mixed endings; [`TextFile::edited`] applies edits in memory,
//!   one after another, before a single write; [`encode_text`] writes text back in the file's
//!   encoding; [`decode`] alone decodes bytes, and its parts ([`Encoding::from_bom`],
//!   [`decode_as`], [`Utf16Decoder`]) let Read decode a file it streams exactly as Edit sees it;
//! - [`restyle_like`]: a whole new text in the line endings of the file it replaces, line by
//!   line (Write over a file with mixed endings);
//! - [`strip_trailing_whitespace`] / [`keeps_trailing_whitespace`]: Claude Code's stripping of
//!   trailing spaces from what the model writes, within limits that never touch what it did not
//!   write;
//! - [`check_freshness`]: the read-before-write rule against the context's file-read state —
//!   not read, or changed since it was read (by content hash: a changed modification time alone
//!   is not a change); [`require_fresh`] applies it for Write and NotebookEdit, and
//!   [`StaleRead::message`] words its refusals for all three tools; [`record_read`] is how Read
//!   records what it showed;
//! - [`write_atomic`]: temporary file in the same folder (unnamed until complete, on Linux),
//!   flushed and synced, permissions (and owner) kept, renamed over the target; missing folders
//!   created; the original is never half-written and stale temporary files of killed writers are
//!   removed (`tests/atomic.rs` kills writers mid-write 400 times and reads during writes);
//! - [`FileLock`] and [`lock_path_beside`]: an exclusive lock on a lock file that holds across
//!   threads and processes, for read-modify-write cycles on files several processes share
//!   (lock, read, change, [`write_atomic`], unlock);
//! - [`record_write`]: what a tool wrote becomes the model's known state, so a second edit needs
//!   no new Read;
//! - [`structured_patch`]: the line-diff hunks of the tools' output data;
//! - [`edit`]: Edit's engine (checks, matching, the edited bytes, refusal texts, the write),
//!   which Edit and MultiEdit both run;
//! - [`messages`]: the texts these rules produce, shared so the tools word them identically.
//!
//! ## Where this mirrors Claude Code and where it differs
//!
//! Mirrored: the "not read yet" / "modified since read" rule and texts, normalising CRLF for
//! matching and restoring it on write, keeping a UTF-16 file UTF-16, refreshing the read state
//! after a write, the 1 GiB limit, stripping trailing whitespace outside Markdown. Different, on
//! purpose: freshness is decided by content, not timestamps (Claude Code refuses edits after a
//! mere `touch`); non-UTF-8 files are read as Windows-1252 and written back byte-exact (Claude
//! Code replaces every such byte with U+FFFD);
//! UTF-16BE and UTF-8 BOMs are kept; mixed line endings are kept line by line; writes are atomic
//! and keep the file's mode; a symbolic link stays a link; a read-only file stays unwritten;
//! trailing whitespace is stripped only from lines the model wrote anew, where they end.
//!
//! ```
//! use agent_tools_core::FileReadState;
//! use agent_tools_files::{check_freshness, load_text_file, record_write, write_atomic, Freshness, MAX_FILE_BYTES};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("notes.txt");
//! std::fs::write(&path, "one\r\ntwo\r\n").unwrap();
//! let state = FileReadState::default();
//! let file = load_text_file(&path, MAX_FILE_BYTES).unwrap().unwrap();
//! assert_eq!(file.text, "one\ntwo\n");
//! assert_eq!(check_freshness(&state, &file), Freshness::NotRead);
//!
//! let new_text = file.text.replace("two", "2");
//! let bytes = agent_tools_files::encode_text(&file.line_ending.apply(&new_text), file.encoding).unwrap();
//! write_atomic(&path, &bytes).unwrap();
//! record_write(&state, &path, &new_text, &bytes);
//! assert_eq!(std::fs::read(&path).unwrap(), b"one\r\n2\r\n");
//! let again = load_text_file(&path, MAX_FILE_BYTES).unwrap().unwrap();
//! assert_eq!(check_freshness(&state, &again), Freshness::Fresh);
//! ```

mod atomic;
pub mod edit;
mod encoding;
mod file;
mod lock;
pub mod messages;
mod patch;
mod read_state;
mod restyle;
mod whitespace;

pub use crate::atomic::{write_atomic, write_target};
pub use crate::encoding::{
    Decoded, Encoding, LineEnding, Unrepresentable, Utf16Decoder, decode, decode_as, encode, normalize_newlines,
    unrepresentable,
};
pub use crate::file::{LoadError, MAX_FILE_BYTES, TextFile, encode_text, load_text_file};
pub use crate::lock::{FileLock, lock_path_beside};
pub use crate::patch::{CONTEXT_LINES, Hunk, structured_patch};
pub use crate::read_state::{
    Freshness, StaleRead, check_freshness, record_partial_write, record_read, record_write, require_fresh,
};
pub use crate::restyle::restyle_like;
pub use crate::whitespace::{keeps_trailing_whitespace, strip_trailing_whitespace};
