//! Deciding what a Write does and the bytes it writes. Free of the contract.

use std::path::Path;

use agent_tools_core::context::FileReadState;
use agent_tools_files::{
    Encoding, Freshness, LineEnding, LoadError, MAX_FILE_BYTES, TextFile, check_freshness, encode_text, load_text_file,
    normalize_newlines, unrepresentable,
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
    /// The file exists and the model has not read it.
    NotRead,
    /// The file changed on disk since the model read it.
    Modified,
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
        Some(file) => match check_freshness(state, &file) {
            Freshness::Fresh => Ok(Plan::Update(Box::new(file))),
            Freshness::NotRead => Err(Refusal::NotRead),
            Freshness::Modified => Err(Refusal::Modified),
        },
    }
}

/// The bytes to write and the text to record (line endings normalised to `\n`).
///
/// A new file gets `content` exactly, as UTF-8. An existing file keeps its conventions: a CRLF
/// file gets every line break of `content` as `\r\n` (never `\r\r\n`), and the content is stored
/// in the file's encoding with its byte-order mark. A Windows-1252 file whose new content has
/// characters that encoding lacks becomes UTF-8 (the whole file is replaced, so nothing else can
/// be damaged).
pub fn encode(plan: &Plan, content: &str) -> (Vec<u8>, String) {
    match plan {
        Plan::Create => (content.as_bytes().to_vec(), normalize_newlines(content)),
        Plan::Update(file) => {
            let text = match file.line_ending {
                LineEnding::CrLf => LineEnding::CrLf.apply(content),
                LineEnding::Lf => content.to_owned(),
            };
            let encoding = match file.encoding {
                Encoding::Windows1252 if unrepresentable(&text, Encoding::Windows1252).is_some() => Encoding::Utf8,
                other => other,
            };
            let bytes = encode_text(&text, encoding).unwrap_or_else(|_| text.as_bytes().to_vec());
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
        assert_eq!(encode(&Plan::Create, "x\r\ny\n").0, b"x\r\ny\n");
    }

    #[test]
    fn overwrites_keep_crlf_and_the_encoding() {
        let (bytes, text) = encode(&update(b"<a>\r\n  <b/>\r\n</a>\r\n"), "<a>\n  <c/>\r\n</a>\n");
        assert_eq!(bytes, b"<a>\r\n  <c/>\r\n</a>\r\n");
        assert_eq!(text, "<a>\n  <c/>\n</a>\n");
        assert_eq!(encode(&update(b"\xef\xbb\xbfold\n"), "new\n").0, b"\xef\xbb\xbfnew\n");
        assert_eq!(encode(&update(&[0xFF, 0xFE, b'a', 0]), "b").0, [0xFF, 0xFE, b'b', 0]);
        // LF files keep what the model sent.
        assert_eq!(encode(&update(b"a\nb\n"), "x\r\ny\n").0, b"x\r\ny\n");
    }

    #[test]
    fn legacy_files_stay_legacy_unless_they_cannot() {
        assert_eq!(encode(&update(b"caf\xe9\n"), "na\u{ef}ve\n").0, b"na\xefve\n");
        assert_eq!(encode(&update(b"caf\xe9\n"), "\u{4e2d}\n").0, "\u{4e2d}\n".as_bytes());
    }
}
