//! Deciding what a Write does and the bytes it writes. Free of the contract.

use std::collections::HashSet;
use std::path::Path;

use agent_tools_core::FileReadState;
use agent_tools_files::{
    Encoding, LineEnding, LoadError, MAX_FILE_BYTES, StaleRead, TextFile, encode_text, load_text_file,
    normalize_newlines, require_fresh, restyle_like, strip_trailing_whitespace,
};

/// What a Write will do.
#[derive(Debug)]
pub enum Plan {
    /// Create a file that does not exist.
    Create,
    /// Replace this file, read by the model and unchanged since.
    Update(Box<TextFile>),
}

/// Why a Write may not go ahead.
#[derive(Debug)]
pub enum Refusal {
    /// The file exists and the model has not read it, or it changed on disk since.
    Stale(StaleRead),
    /// The file cannot be loaded (folder, device, binary, too large, I/O).
    Load(LoadError),
}

/// Checks the file at `path` against the file-read state and says what a Write would do.
///
/// # Errors
/// A [`Refusal`] when the file exists and was not read, changed since, or is not a text file.
pub fn plan(path: &Path, state: &FileReadState) -> Result<Plan, Refusal> {
    match load_text_file(path, MAX_FILE_BYTES).map_err(Refusal::Load)? {
        None => Ok(Plan::Create),
        Some(file) => {
            require_fresh(state, &file).map_err(Refusal::Stale)?;
            Ok(Plan::Update(Box::new(file)))
        }
    }
}

/// The bytes to write and the text to record (line endings normalised to `\n`).
///
/// Trailing spaces and tabs are stripped from each line of `content` unless `keep_whitespace`
/// (Markdown and patches, see `agent_tools_files::keeps_trailing_whitespace`); a line that is
/// in the replaced file exactly as written keeps its whitespace.
///
/// A new file gets `content` exactly otherwise, as UTF-8. An existing file keeps its
/// conventions: a CRLF file gets every line break of `content` as `\r\n` (never `\r\r\n`); a
/// file with mixed line endings keeps the ending of each line `content` leaves unchanged and
/// gives new lines the ending of the lines around them; the content is stored in the file's
/// encoding with its byte-order mark. A Windows-1252 file whose new content has characters that
/// encoding lacks, or whose new bytes would read back as different UTF-8 text, becomes UTF-8 (the
/// whole file is replaced, so nothing else can be damaged).
pub fn encode(plan: &Plan, content: &str, keep_whitespace: bool) -> (Vec<u8>, String) {
    match plan {
        Plan::Create => {
            let content =
                if keep_whitespace { content.into() } else { strip_trailing_whitespace(content, true, |_| false) };
            (content.as_bytes().to_vec(), normalize_newlines(&content))
        }
        Plan::Update(file) => {
            let content = if keep_whitespace {
                content.into()
            } else {
                // The replaced file's lines, gathered only if a line of `content` has trailing
                // whitespace to keep or strip.
                let old_lines: std::cell::OnceCell<HashSet<&str>> = std::cell::OnceCell::new();
                strip_trailing_whitespace(content, true, |line| {
                    old_lines.get_or_init(|| file.text.split('\n').collect()).contains(line)
                })
            };
            let text = if file.has_mixed_line_endings() {
                restyle_like(file, &normalize_newlines(&content))
            } else {
                match file.line_ending {
                    LineEnding::CrLf => LineEnding::CrLf.apply(&content),
                    LineEnding::Lf => content.into_owned(),
                }
            };
            let bytes = match encode_text(&text, file.encoding) {
                // Legacy bytes that happen to be valid UTF-8 (`é€€` is `E9 80 80`, which is `退`)
                // would read back as other text: such content is stored as UTF-8, as is content
                // with characters Windows-1252 lacks.
                Ok(bytes)
                    if file.encoding == Encoding::Windows1252
                        && !bytes.is_ascii()
                        && std::str::from_utf8(&bytes).is_ok() =>
                {
                    text.as_bytes().to_vec()
                }
                Ok(bytes) => bytes,
                Err(_) => text.as_bytes().to_vec(),
            };
            (bytes, normalize_newlines(&text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(bytes: &[u8]) -> Plan {
        Plan::Update(Box::new(TextFile::from_bytes("/f", bytes, 0)))
    }

    #[test]
    fn new_files_get_the_content_verbatim() {
        assert_eq!(encode(&Plan::Create, "x\r\ny\n", false).0, b"x\r\ny\n");
    }

    #[test]
    fn overwrites_keep_crlf_and_the_encoding() {
        let (bytes, text) = encode(&update(b"<a>\r\n  <b/>\r\n</a>\r\n"), "<a>\n  <c/>\r\n</a>\n", false);
        assert_eq!(bytes, b"<a>\r\n  <c/>\r\n</a>\r\n");
        assert_eq!(text, "<a>\n  <c/>\n</a>\n");
        assert_eq!(encode(&update(b"\xef\xbb\xbfold\n"), "new\n", false).0, b"\xef\xbb\xbfnew\n");
        assert_eq!(encode(&update(&[0xFF, 0xFE, b'a', 0]), "b", false).0, [0xFF, 0xFE, b'b', 0]);
        // LF files keep what the model sent.
        assert_eq!(encode(&update(b"a\nb\n"), "x\r\ny\n", false).0, b"x\r\ny\n");
    }

    #[test]
    fn trailing_whitespace_goes_unless_it_was_there_or_matters() {
        assert_eq!(encode(&Plan::Create, "a  \n\t\nb ", false).0, b"a\n\nb");
        assert_eq!(encode(&Plan::Create, "a  \n", true).0, b"a  \n");
        // A line kept from the file keeps its whitespace; a new one does not.
        assert_eq!(encode(&update(b"keep  \nold\n"), "keep  \nnew  \n", false).0, b"keep  \nnew\n");
    }

    #[test]
    fn mixed_line_endings_follow_the_lines() {
        let (bytes, text) = encode(&update(b"a\r\nb\nc\r\n"), "a\nb\nB\nc\n", false);
        assert_eq!(bytes, b"a\r\nb\nB\nc\r\n");
        assert_eq!(text, "a\nb\nB\nc\n");
    }

    #[test]
    fn legacy_files_stay_legacy_unless_they_cannot() {
        assert_eq!(encode(&update(b"caf\xe9\n"), "na\u{ef}ve\n", false).0, b"na\xefve\n");
        assert_eq!(encode(&update(b"caf\xe9\n"), "\u{4e2d}\n", false).0, "\u{4e2d}\n".as_bytes());
        // E9 80 80 would read back as U+9000.
        assert_eq!(
            encode(&update(b"caf\xe9\n"), "\u{e9}\u{20ac}\u{20ac}", false).0,
            "\u{e9}\u{20ac}\u{20ac}".as_bytes()
        );
    }
}
