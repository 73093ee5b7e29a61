//! The shared machinery end to end on real files: load → splice → encode → atomic write →
//! record, in every encoding and line-ending style, and the freshness rule against `touch` and
//! real changes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;

use agent_tools_core::FileReadState;
use agent_tools_files::{
    Encoding, Freshness, LineEnding, MAX_FILE_BYTES, check_freshness, encode, encode_text, load_text_file,
    record_write, write_atomic,
};

/// Replaces `old` (found in the normalised text) in the file's own text, as Edit does.
fn splice(path: &std::path::Path, old: &str, new: &str) -> Vec<u8> {
    let file = load_text_file(path, MAX_FILE_BYTES).unwrap().unwrap();
    let start = file.text.find(old).unwrap();
    let (raw_start, raw_end) = (file.raw_offset(start), file.raw_offset(start + old.len()));
    let raw = format!("{}{}{}", &file.raw[..raw_start], file.line_ending.apply(new), &file.raw[raw_end..]);
    encode_text(&raw, file.encoding).unwrap()
}

#[test]
fn every_encoding_and_line_ending_round_trips_with_only_the_span_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    for encoding in [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le, Encoding::Utf16Be] {
        for (ending, before, after) in [
            (LineEnding::Lf, "caf\u{e9}\nold\nend\n", "caf\u{e9}\nnew\nlines\nend\n"),
            (LineEnding::CrLf, "caf\u{e9}\r\nold\r\nend", "caf\u{e9}\r\nnew\r\nlines\r\nend"),
        ] {
            fs::write(&path, encode(before, encoding).unwrap()).unwrap();
            let file = load_text_file(&path, MAX_FILE_BYTES).unwrap().unwrap();
            assert_eq!((file.encoding, file.line_ending), (encoding, ending));
            let bytes = splice(&path, "old\n", "new\nlines\n");
            assert_eq!(bytes, encode(after, encoding).unwrap(), "{encoding} {ending:?}");
        }
    }
    // Windows-1252: every other byte is kept exactly.
    fs::write(&path, b"\x80\x81\x8d\x99 old \xff\r\n").unwrap();
    assert_eq!(splice(&path, "old", "new \u{e9}"), b"\x80\x81\x8d\x99 new \xe9 \xff\r\n");
}

#[test]
fn freshness_follows_content_and_a_write_refreshes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.md");
    fs::write(&path, "alpha\nbeta\n").unwrap();
    let state = FileReadState::default();
    let load = || load_text_file(&path, MAX_FILE_BYTES).unwrap().unwrap();
    assert_eq!(check_freshness(&state, &load()), Freshness::NotRead);

    let bytes = b"alpha\ngamma\n";
    write_atomic(&path, bytes).unwrap();
    record_write(&state, &path, "alpha\ngamma\n", bytes);
    assert_eq!(check_freshness(&state, &load()), Freshness::Fresh);

    filetime::set_file_mtime(&path, filetime::FileTime::from_unix_time(1_893_456_000, 0)).unwrap();
    assert_eq!(check_freshness(&state, &load()), Freshness::Fresh);

    fs::write(&path, "alpha\nexternal\n").unwrap();
    assert_eq!(check_freshness(&state, &load()), Freshness::Modified);

    // The state is keyed by the canonical path: another spelling finds it.
    let dotted = dir.path().join(".").join("log.md");
    let file = load_text_file(&dotted, MAX_FILE_BYTES).unwrap().unwrap();
    assert_eq!(check_freshness(&state, &file), Freshness::Modified);
}
