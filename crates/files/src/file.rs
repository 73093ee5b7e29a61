//! Loading a text file for editing: its bytes' hash, encoding, line endings, and the text the
//! model sees, with a map back to the file's own text so an edit changes only its span.

use std::io;
use std::path::{Path, PathBuf};

use agent_tools_core::text::{SNIFF_BYTES, looks_binary};
use agent_tools_core::{content_hash, mtime_ms};

use crate::encoding::{Encoding, LineEnding, decode, encode};

/// Largest file Edit and Write load, in bytes (Claude Code's 1 GiB).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// A text file as loaded for editing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The path it was loaded from (as resolved from the model's input).
    pub path: PathBuf,
    /// Its encoding.
    pub encoding: Encoding,
    /// False when encoding [`TextFile::raw`] back would not give the file's bytes (broken UTF-16
    /// or UTF-8 after a mark): such a file cannot be edited without changing other bytes.
    pub lossless: bool,
    /// Its dominant line-ending style.
    pub line_ending: LineEnding,
    /// The decoded text with its line endings as in the file (no byte-order mark).
    pub raw: String,
    /// [`TextFile::raw`] with every `\r\n` turned into `\n`: the text the model reads and matches.
    pub text: String,
    /// Byte offsets in `text` of each `\n` that is `\r\n` in `raw`, ascending.
    crlf_at: Vec<usize>,
    /// [`content_hash`] of the file's bytes.
    pub content_hash: u64,
    /// The file's modification time (whole ms since the Unix epoch).
    pub mtime_ms: u64,
    /// The file's size in bytes.
    pub size: u64,
}

impl TextFile {
    /// Builds a text file from bytes (no I/O), for a file at `path` modified at `mtime_ms`.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: &[u8], mtime_ms: u64) -> Self {
        let decoded = decode(bytes);
        let line_ending = LineEnding::detect(&decoded.text);
        let (text, crlf_at) = split_crlf(&decoded.text);
        Self {
            path: path.into(),
            encoding: decoded.encoding,
            lossless: decoded.lossless,
            line_ending,
            raw: decoded.text,
            text,
            crlf_at,
            content_hash: content_hash(bytes),
            mtime_ms,
            size: bytes.len() as u64,
        }
    }

    /// The offset in [`TextFile::raw`] of the offset `text_offset` in [`TextFile::text`].
    ///
    /// A `\n` that was `\r\n` in the file maps to its `\r`, so a span of `text` maps to the span
    /// of `raw` holding exactly the same lines: a span ending just before such a `\n` leaves the
    /// `\r` outside, and a span ending just after it takes the `\r\n` whole.
    pub fn raw_offset(&self, text_offset: usize) -> usize {
        text_offset + self.crlf_at.partition_point(|at| *at < text_offset)
    }

    /// True when the file holds nothing but whitespace (Edit may then fill it from an empty
    /// `old_string`).
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// The same file with its text changed in memory (nothing is written): `raw` is the new
    /// decoded text with its line endings as they are to be written. The normalised text, the
    /// CRLF map and the dominant line ending are computed anew; the path, encoding, hash,
    /// modification time and size stay those of the file as loaded, so a sequence of edits can
    /// be applied one after another to the result of the previous one and written once.
    ///
    /// ```
    /// use agent_tools_files::TextFile;
    /// let file = TextFile::from_bytes("/f", b"a\r\nb\r\n", 0);
    /// let next = file.edited("A\r\nb\r\n".to_owned());
    /// assert_eq!((next.text.as_str(), next.raw_offset(2)), ("A\nb\n", 3));
    /// assert_eq!(next.content_hash, file.content_hash);
    /// ```
    #[must_use]
    pub fn edited(&self, raw: String) -> Self {
        let line_ending = LineEnding::detect(&raw);
        let (text, crlf_at) = split_crlf(&raw);
        Self {
            path: self.path.clone(),
            encoding: self.encoding,
            lossless: self.lossless,
            line_ending,
            raw,
            text,
            crlf_at,
            content_hash: self.content_hash,
            mtime_ms: self.mtime_ms,
            size: self.size,
        }
    }

    /// Whether the `\n` at `text_offset` of [`TextFile::text`] is written `\r\n` in the file.
    pub fn is_crlf_break(&self, text_offset: usize) -> bool {
        self.crlf_at.binary_search(&text_offset).is_ok()
    }

    /// True when the file ends some lines with `\r\n` and others with a bare `\n`.
    pub fn has_mixed_line_endings(&self) -> bool {
        let breaks = self.text.bytes().filter(|byte| *byte == b'\n').count();
        !self.crlf_at.is_empty() && self.crlf_at.len() < breaks
    }

    /// The line ending to give new line breaks that replace `text[range]`, so that in a file with
    /// mixed endings added lines look like the lines around them:
    ///
    /// 1. the style most of the line breaks inside the range have (when there is a majority);
    /// 2. else the style of the line break that ends the line where the range ends;
    /// 3. else that of the last line break before the range;
    /// 4. else the file's dominant style ([`TextFile::line_ending`]).
    ///
    /// In a file with one style throughout, that style.
    ///
    /// ```
    /// use agent_tools_files::{LineEnding, TextFile};
    /// let file = TextFile::from_bytes("/f", b"a\nb\r\nc\r\nd\n", 0);
    /// assert_eq!(file.text, "a\nb\nc\nd\n");
    /// assert_eq!(file.line_ending_near(2..3), LineEnding::CrLf); // "b": its line ends in CRLF
    /// assert_eq!(file.line_ending_near(6..7), LineEnding::Lf); // "d"
    /// assert_eq!(file.line_ending_near(0..2), LineEnding::Lf); // "a\n"
    /// ```
    pub fn line_ending_near(&self, range: std::ops::Range<usize>) -> LineEnding {
        let bytes = self.text.as_bytes();
        let start = range.start.min(bytes.len());
        let end = range.end.clamp(start, bytes.len());
        let style = |at: usize| if self.is_crlf_break(at) { LineEnding::CrLf } else { LineEnding::Lf };
        let (mut crlf, mut lf) = (0usize, 0usize);
        for (at, _) in bytes[start..end].iter().enumerate().filter(|(_, byte)| **byte == b'\n') {
            match style(start + at) {
                LineEnding::CrLf => crlf += 1,
                LineEnding::Lf => lf += 1,
            }
        }
        if crlf != lf {
            return if crlf > lf { LineEnding::CrLf } else { LineEnding::Lf };
        }
        if let Some(at) = bytes[end..].iter().position(|byte| *byte == b'\n') {
            return style(end + at);
        }
        if let Some(at) = bytes[..start].iter().rposition(|byte| *byte == b'\n') {
            return style(at);
        }
        self.line_ending
    }
}

/// `raw` with `\r\n` → `\n`, and where each such `\n` sits in the result.
fn split_crlf(raw: &str) -> (String, Vec<usize>) {
    if !raw.contains("\r\n") {
        return (raw.to_owned(), Vec::new());
    }
    let mut text = String::with_capacity(raw.len());
    let mut crlf_at = Vec::new();
    let mut rest = raw;
    while let Some(index) = rest.find("\r\n") {
        text.push_str(&rest[..index]);
        crlf_at.push(text.len());
        text.push('\n');
        rest = &rest[index + 2..];
    }
    text.push_str(rest);
    (text, crlf_at)
}

/// Why a file could not be loaded for editing.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The path is a folder.
    #[error("the path is a directory")]
    IsDirectory,
    /// The path is a device, pipe or socket.
    #[error("the path is not a regular file")]
    NotRegularFile,
    /// Larger than the limit, in bytes.
    #[error("the file is {size} bytes, more than the {max} allowed")]
    TooLarge {
        /// The file's size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// The content is binary ([`looks_binary`]).
    #[error("the file holds binary data")]
    Binary,
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Loads the text file at `path`; `Ok(None)` when nothing is there (a missing file, or a path
/// through a missing folder or a file).
///
/// # Errors
/// [`LoadError`] for a folder, a device, a file over `max_bytes`, binary content, or an I/O
/// failure.
pub fn load_text_file(path: &Path, max_bytes: u64) -> Result<Option<TextFile>, LoadError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if is_missing(&error) => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    if meta.is_dir() {
        return Err(LoadError::IsDirectory);
    }
    if !meta.is_file() {
        return Err(LoadError::NotRegularFile);
    }
    if meta.len() > max_bytes {
        return Err(LoadError::TooLarge { size: meta.len(), max: max_bytes });
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if is_missing(&error) => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    if bytes.len() as u64 > max_bytes {
        return Err(LoadError::TooLarge { size: bytes.len() as u64, max: max_bytes });
    }
    if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        return Err(LoadError::Binary);
    }
    Ok(Some(TextFile::from_bytes(path, &bytes, mtime_ms(meta.modified()))))
}

/// Whether an I/O error means "nothing at this path".
pub(crate) fn is_missing(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory)
}

/// Encodes LF-normalised or raw `text` for a file: in `encoding`, with the mark it needs. A
/// leading U+FEFF in `text` is dropped when the encoding writes its own mark, so the mark is
/// never doubled.
///
/// # Errors
/// [`crate::Unrepresentable`] for a Windows-1252 file and a character it lacks.
pub fn encode_text(text: &str, encoding: Encoding) -> Result<Vec<u8>, crate::Unrepresentable> {
    let text = match encoding {
        Encoding::Utf8Bom | Encoding::Utf16Le | Encoding::Utf16Be => text.strip_prefix('\u{feff}').unwrap_or(text),
        Encoding::Utf8 | Encoding::Windows1252 => text,
    };
    encode(text, encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_offsets_map_spans_to_whole_lines() {
        let file = TextFile::from_bytes("/f", b"ab\r\ncd\r\n\r\nef\n", 0);
        assert_eq!(file.text, "ab\ncd\n\nef\n");
        assert_eq!(file.line_ending, LineEnding::CrLf);
        // "cd" is text[3..5]; raw[4..6].
        assert_eq!((file.raw_offset(3), file.raw_offset(5)), (4, 6));
        assert_eq!(&file.raw[file.raw_offset(3)..file.raw_offset(5)], "cd");
        // "cd\n" takes the CRLF whole.
        assert_eq!(&file.raw[file.raw_offset(3)..file.raw_offset(6)], "cd\r\n");
        // "\nef" starts at the CR of the blank line's break.
        assert_eq!(&file.raw[file.raw_offset(6)..file.raw_offset(9)], "\r\nef");
        // The lone LF at the end maps one to one.
        assert_eq!(file.raw_offset(file.text.len()), file.raw.len());
    }

    #[test]
    fn loads_report_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_text_file(&dir.path().join("missing"), 10).unwrap().is_none());
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(load_text_file(&dir.path().join("file/below"), 10).unwrap().is_none());
        assert!(matches!(load_text_file(dir.path(), 10), Err(LoadError::IsDirectory)));
        assert!(matches!(load_text_file(&dir.path().join("file"), 0), Err(LoadError::TooLarge { size: 1, max: 0 })));
        std::fs::write(dir.path().join("bin"), b"\x7fELF\x02\x01\x01\x00\x00\x00").unwrap();
        assert!(matches!(load_text_file(&dir.path().join("bin"), 100), Err(LoadError::Binary)));
        #[cfg(unix)]
        assert!(matches!(load_text_file(Path::new("/dev/null"), 100), Err(LoadError::NotRegularFile)));
        let file = load_text_file(&dir.path().join("file"), 10).unwrap().unwrap();
        assert_eq!((file.text.as_str(), file.size, file.encoding), ("x", 1, Encoding::Utf8));
    }

    #[test]
    fn the_byte_order_mark_is_never_doubled() {
        assert_eq!(encode_text("\u{feff}a", Encoding::Utf8Bom).unwrap(), b"\xef\xbb\xbfa");
        assert_eq!(encode_text("\u{feff}a", Encoding::Utf8).unwrap(), b"\xef\xbb\xbfa");
        assert_eq!(encode_text("a", Encoding::Utf16Be).unwrap(), [0xFE, 0xFF, 0, b'a']);
    }
}
