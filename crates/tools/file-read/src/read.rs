//! Reading a text file's lines: the range, the line count, long lines and the limits. Free of the
//! contract.
//!
//! The file is streamed in chunks, whatever its size: only the selected lines are kept, and of a
//! line too long to show whole only its head. Memory stays bounded (a few hundred KB) for a file of
//! any size or a single line of any length.
//!
//! **Long lines.** The selected lines are shown whole when they fit the limits (the size limit
//! without a `limit`, the token limit always). When they do not, every line longer than
//! [`MAX_LINE_CHARS`] characters is cut to that length with a marker giving the number of
//! characters left out, and the limits are checked on that bounded text: a minified file of one
//! 600 KB line reads at once as its first 2,000 characters, while a file of many ordinary lines over
//! the size limit is still refused (the model should then use `offset`/`limit`).
//!
//! **Pages.** The token limit applies to what is returned, as in Claude Code 2.1: when the
//! selected lines (numbered, as the model sees them) would take more tokens than the limit, the
//! result is the leading lines that fit — a *page* — and [`TextRange::page_end`] says where it
//! stopped, so the caller can say how to read on. A page always holds at least one line.
//!
//! **Encodings.** The text is decoded exactly as Edit decodes the whole file
//! ([`agent_tools_files::decode`], through its streaming parts `Encoding::from_bom`,
//! `Utf16Decoder` and `decode_as`): UTF-8 (a byte-order mark removed), UTF-16 with a byte-order
//! mark, and Windows-1252 for a file that is not valid UTF-8 anywhere in it.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use agent_tools_core::text::SNIFF_BYTES;
use agent_tools_core::{ContentHasher, content_hash};
use agent_tools_files::{Encoding, Utf16Decoder, decode, decode_as};

use crate::render;

/// Longest line shown whole when the lines must be bounded, in characters (Claude Code's cap).
pub const MAX_LINE_CHARS: usize = 2000;

/// Bytes kept of a line that may be cut: [`MAX_LINE_CHARS`] characters take at most this many.
const HEAD_BYTES: usize = MAX_LINE_CHARS * 4;

/// Bytes read from the file at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The limits a read must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Most bytes of text returned when no `limit` is given.
    pub max_size: u64,
    /// Most tokens of text returned (estimated as bytes / 4).
    pub max_tokens: u64,
}

/// What was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRange {
    /// The selected lines joined with `\n` (line endings normalised, BOM removed, long lines cut
    /// when they had to be).
    pub content: String,
    /// How many lines were selected.
    pub num_lines: usize,
    /// Number of the first selected line (1-based).
    pub start_line: u64,
    /// Lines in the whole file (0 for an empty file; a final newline starts one more, empty line).
    pub total_lines: u64,
    /// The whole file's text, when the whole file was read and shown uncut (for the file-read
    /// state).
    pub whole_text: Option<String>,
    /// `content_hash` of the whole file's bytes (the file is always read to its end).
    pub hash: u64,
    /// The first [`SNIFF_BYTES`] bytes hold a NUL byte (shown to the model as `\0`).
    pub has_nul: bool,
    /// The text is neither UTF-8 nor UTF-16 with a byte-order mark: it was decoded as
    /// Windows-1252.
    pub not_utf8: bool,
    /// How many of the selected lines were cut to [`MAX_LINE_CHARS`] characters.
    pub cut_lines: usize,
    /// When the token limit cut the selection short: the number of the last line shown (the
    /// selection went on past it).
    pub page_end: Option<u64>,
    /// The tokens the whole selection would take as the model sees it (numbered, long lines
    /// cut), estimated as bytes / 4.
    pub selection_tokens: u64,
}

/// Why a read failed.
#[derive(Debug)]
pub enum ReadError {
    /// No such file.
    NotFound,
    /// The path is a folder.
    IsDirectory,
    /// The path is a device, FIFO or socket: reading it could block or never end.
    NotRegular,
    /// Without a `limit`, the text to show is larger than the size limit even with long lines cut.
    TooLarge {
        /// File size in bytes (or the text's, when decoding made it larger).
        size: u64,
        /// The limit in bytes.
        max: u64,
    },
    /// The text to show is over the token limit even with long lines cut.
    TooManyTokens {
        /// The estimated tokens.
        tokens: u64,
        /// The limit.
        max: u64,
    },
    /// Any other I/O error.
    Io(io::Error),
}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> Self {
        match error.kind() {
            io::ErrorKind::NotFound => Self::NotFound,
            io::ErrorKind::IsADirectory => Self::IsDirectory,
            _ => Self::Io(error),
        }
    }
}

/// A rough token count, as Claude Code estimates it before asking the API: bytes / 4.
pub fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// Opens `path` for reading, after checking (without opening it) that it is a regular file: a
/// FIFO or device could block the open or the read forever.
///
/// # Errors
/// [`ReadError::NotFound`], [`ReadError::IsDirectory`], [`ReadError::NotRegular`] or an I/O error.
pub fn open_regular(path: &Path) -> Result<(File, std::fs::Metadata), ReadError> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(ReadError::IsDirectory);
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    let file = File::open(path)?;
    Ok((file, meta))
}

/// Reads a whole file (a notebook) as text, refusing files over `max_size` bytes. Returns the text
/// (decoded as Edit decodes it, line endings as in the file) and the hash of its bytes.
///
/// # Errors
/// [`ReadError`] for a missing path, a folder, a special file, a file too large or an I/O failure.
pub fn read_whole(path: &Path, max_size: u64) -> Result<(String, u64), ReadError> {
    let (mut file, meta) = open_regular(path)?;
    if meta.len() > max_size {
        return Err(ReadError::TooLarge { size: meta.len(), max: max_size });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.by_ref().take(max_size.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_size {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, max: max_size });
    }
    Ok((decode(&bytes).text, content_hash(&bytes)))
}

/// The hash of a file's bytes, read in chunks.
///
/// # Errors
/// As [`open_regular`], or an I/O failure.
pub fn hash_file(path: &Path) -> Result<u64, ReadError> {
    let (file, _) = open_regular(path)?;
    let mut raw = RawReader::new(file);
    while !raw.next_chunk()?.is_empty() {}
    Ok(raw.hasher.finish())
}

/// Reads lines `offset..offset+limit` (1-based; `offset` 0 counts as 1) of the file at `path`,
/// within `bounds` (see the module docs for long lines and the limits).
///
/// # Errors
/// [`ReadError`] for a missing path, a folder, a special file, text too large for the limits, or
/// an I/O failure.
pub fn read_text(path: &Path, offset: Option<u64>, limit: Option<u64>, bounds: Bounds) -> Result<TextRange, ReadError> {
    let (file, meta) = open_regular(path)?;
    let start = offset.unwrap_or(1).max(1);
    let mut raw = RawReader::new(file);
    let mut lines = Lines::new(start - 1, limit, bounds);
    let mut transcode = Transcode::Undecided;
    let mut utf16_out = String::new();
    loop {
        let chunk = raw.next_chunk()?;
        if chunk.is_empty() {
            break;
        }
        let text: &[u8] = match &mut transcode {
            Transcode::Undecided => {
                // The first chunk holds the whole file or at least CHUNK_BYTES bytes.
                match Encoding::from_bom(chunk) {
                    Some((encoding @ (Encoding::Utf16Le | Encoding::Utf16Be), mark)) => {
                        let mut state = Utf16Decoder::new(encoding == Encoding::Utf16Le);
                        utf16_out.clear();
                        state.feed(&chunk[mark..], &mut utf16_out);
                        transcode = Transcode::Utf16(state);
                        utf16_out.as_bytes()
                    }
                    Some((_, mark)) => {
                        transcode = Transcode::Utf8 { bom: true };
                        &chunk[mark..]
                    }
                    None => {
                        transcode = Transcode::Utf8 { bom: false };
                        chunk
                    }
                }
            }
            Transcode::Utf8 { .. } => chunk,
            Transcode::Utf16(state) => {
                utf16_out.clear();
                state.feed(chunk, &mut utf16_out);
                utf16_out.as_bytes()
            }
        };
        lines.feed(text);
        if let Some(error) = lines.stop(meta.len(), false) {
            return Err(error);
        }
    }
    if let Transcode::Utf16(state) = &mut transcode {
        utf16_out.clear();
        state.finish(&mut utf16_out);
        lines.feed(utf16_out.as_bytes());
    }
    lines.finish();
    if let Some(error) = lines.stop(meta.len(), true) {
        return Err(error);
    }
    let encoding = match transcode {
        Transcode::Utf16(_) => Shown::Utf8,
        Transcode::Utf8 { bom: true } if !lines.utf8.valid => Shown::Utf8Lossy,
        Transcode::Utf8 { .. } | Transcode::Undecided if lines.utf8.valid => Shown::Utf8,
        Transcode::Utf8 { .. } | Transcode::Undecided => Shown::Windows1252,
    };
    let utf16 = matches!(transcode, Transcode::Utf16(_));
    lines.into_range(start, offset.is_none() && limit.is_none(), encoding, &meta, &raw, utf16)
}

/// How a file's bytes become text, decided at the first chunk.
#[derive(Debug)]
enum Transcode {
    /// No chunk seen yet (the file is empty).
    Undecided,
    /// UTF-8 or a legacy encoding, decided at the end; `bom` when a UTF-8 mark was removed.
    Utf8 {
        /// A UTF-8 byte-order mark started the file.
        bom: bool,
    },
    /// UTF-16, turned into UTF-8 on the fly.
    Utf16(Utf16Decoder),
}

/// How the selected lines' bytes are turned into text once the whole file has been seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// Valid UTF-8 (or UTF-16 already turned into it).
    Utf8,
    /// UTF-8 after a byte-order mark, with bad bytes: shown as U+FFFD, as Edit's decoder does.
    Utf8Lossy,
    /// Not UTF-8: one byte per character.
    Windows1252,
}

/// The file's raw bytes, chunk by chunk, hashed and sniffed for NUL bytes on the way.
struct RawReader {
    file: File,
    buffer: Vec<u8>,
    hasher: ContentHasher,
    seen: usize,
    has_nul: bool,
}

impl RawReader {
    fn new(file: File) -> Self {
        Self { file, buffer: vec![0; CHUNK_BYTES], hasher: ContentHasher::default(), seen: 0, has_nul: false }
    }

    /// The next chunk: full, except the last; empty at the end of the file.
    fn next_chunk(&mut self) -> io::Result<&[u8]> {
        let mut filled = 0;
        while filled < self.buffer.len() {
            match self.file.read(&mut self.buffer[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        let chunk = &self.buffer[..filled];
        self.hasher.update(chunk);
        if self.seen < SNIFF_BYTES {
            self.has_nul |= chunk[..chunk.len().min(SNIFF_BYTES - self.seen)].contains(&0);
        }
        self.seen = self.seen.saturating_add(filled);
        Ok(chunk)
    }
}

/// Whether bytes fed piece by piece are valid UTF-8 (a sequence may span two pieces, never two
/// lines: `\n` cannot occur inside one).
#[derive(Debug)]
struct Utf8Check {
    valid: bool,
    carry: [u8; 4],
    carry_len: usize,
}

impl Utf8Check {
    fn feed(&mut self, bytes: &[u8]) {
        if !self.valid {
            return;
        }
        let mut bytes = bytes;
        while self.carry_len > 0 {
            let Some((&byte, rest)) = bytes.split_first() else {
                return;
            };
            bytes = rest;
            self.carry[self.carry_len] = byte;
            self.carry_len += 1;
            match std::str::from_utf8(&self.carry[..self.carry_len]) {
                Ok(_) => self.carry_len = 0,
                Err(error) if error.error_len().is_none() && self.carry_len < 4 => {}
                Err(_) => {
                    self.valid = false;
                    return;
                }
            }
        }
        if let Err(error) = std::str::from_utf8(bytes) {
            if error.error_len().is_some() {
                self.valid = false;
            } else {
                let rest = &bytes[error.valid_up_to()..];
                self.carry[..rest.len()].copy_from_slice(rest);
                self.carry_len = rest.len();
            }
        }
    }

    /// A line (or the file) ended: a sequence still open is invalid.
    fn end(&mut self) {
        if self.carry_len > 0 {
            self.valid = false;
            self.carry_len = 0;
        }
    }
}

/// Characters in UTF-8 bytes (bytes that do not continue a sequence).
/// Bytes a line of `len` bytes takes as the model sees it at line number `number`: the number,
/// a tab, the line bounded to [`MAX_LINE_CHARS`] (with room for the cut marker) and a line break.
fn shown_cost(number: u64, len: u64) -> u64 {
    /// Room for [`render::line_cut_marker`]'s text.
    const MARKER_BYTES: u64 = 64;
    let digits = u64::from(number.checked_ilog10().unwrap_or(0) + 1);
    let text = if len > MAX_LINE_CHARS as u64 { MAX_LINE_CHARS as u64 + MARKER_BYTES } else { len };
    digits + 1 + text + 1
}

fn utf8_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|byte| (**byte & 0xC0) != 0x80).count() as u64
}

/// One selected line as kept: all its bytes, or its first [`HEAD_BYTES`].
#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    /// Length in bytes (without the line ending).
    len: u64,
    /// Characters, counted as UTF-8.
    chars: u64,
    /// The last byte seen, to strip a `\r` before `\n`.
    last: Option<u8>,
}

/// Splits the text into lines, keeps the selected ones within the memory budget, and tracks what
/// the limits need.
#[derive(Debug)]
struct Lines {
    skip: u64,
    take: u64,
    has_limit: bool,
    bounds: Bounds,
    /// Index of the line being read.
    index: u64,
    /// Any text seen (an empty file has no lines).
    any: bool,
    current: Kept,
    kept: Vec<Kept>,
    /// Whole lines are kept while their bytes stay under the budget of a result that could fit.
    keep_whole: bool,
    kept_bytes: u64,
    /// A lower bound of the bounded (cut) text's length in bytes: it decides the errors early.
    floor: u64,
    /// Bytes the kept lines take numbered and bounded, as the model will see them.
    page_bytes: u64,
    /// Bytes the whole selection would take numbered and bounded.
    selection_bytes: u64,
    /// The page is full (the next line would pass the token limit): later lines are counted,
    /// not kept.
    page_full: bool,
    /// The number of the last line kept when the page filled up.
    page_end: Option<u64>,
    /// The bounded text is surely over the size limit (only without a `limit`).
    over_size: bool,
    utf8: Utf8Check,
}

impl Lines {
    fn new(skip: u64, limit: Option<u64>, bounds: Bounds) -> Self {
        Self {
            skip,
            take: limit.unwrap_or(u64::MAX),
            has_limit: limit.is_some(),
            bounds,
            index: 0,
            any: false,
            current: Kept::default(),
            kept: Vec::new(),
            keep_whole: true,
            kept_bytes: 0,
            floor: 0,
            page_bytes: 0,
            selection_bytes: 0,
            page_full: false,
            page_end: None,
            over_size: false,
            utf8: Utf8Check { valid: true, carry: [0; 4], carry_len: 0 },
        }
    }

    fn selected(&self) -> bool {
        self.index >= self.skip && self.index - self.skip < self.take
    }

    /// Most bytes of whole lines worth keeping: past this, the uncut text cannot fit.
    fn whole_budget(&self) -> u64 {
        let token_bytes = self.bounds.max_tokens.saturating_mul(4);
        if self.has_limit { token_bytes } else { token_bytes.min(self.bounds.max_size) }
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.any |= !bytes.is_empty();
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|byte| *byte == b'\n') {
            self.extend(&rest[..end]);
            self.end_line();
            rest = &rest[end + 1..];
        }
        self.extend(rest);
    }

    fn extend(&mut self, part: &[u8]) {
        if part.is_empty() {
            return;
        }
        self.utf8.feed(part);
        if !self.selected() {
            return;
        }
        let current = &mut self.current;
        current.len += part.len() as u64;
        current.last = part.last().copied();
        if self.page_full {
            return;
        }
        current.chars += utf8_chars(part);
        let room = if self.keep_whole { usize::MAX } else { HEAD_BYTES.saturating_sub(current.bytes.len()) };
        let kept = &part[..part.len().min(room)];
        current.bytes.extend_from_slice(kept);
        if self.keep_whole {
            self.kept_bytes += kept.len() as u64;
            if self.kept_bytes > self.whole_budget() {
                self.keep_heads_only();
            }
        }
    }

    /// The uncut text cannot fit: from now on keep only the heads of long lines.
    fn keep_heads_only(&mut self) {
        self.keep_whole = false;
        for line in self.kept.iter_mut().chain(std::iter::once(&mut self.current)) {
            line.bytes.truncate(HEAD_BYTES);
            line.bytes.shrink_to_fit();
        }
    }

    fn end_line(&mut self) {
        self.utf8.end();
        if self.selected() && !self.page_full {
            let mut line = std::mem::take(&mut self.current);
            if line.last == Some(b'\r') {
                line.len -= 1;
                line.chars -= 1;
                if line.bytes.len() as u64 > line.len {
                    line.bytes.pop();
                }
            }
            line.last = None;
            let cost = shown_cost(self.index + 1, line.len);
            self.selection_bytes += cost;
            if !self.kept.is_empty() {
                self.floor += 1;
            }
            self.floor += line.len.min(MAX_LINE_CHARS as u64);
            if !self.kept.is_empty() && self.page_bytes + cost > self.bounds.max_tokens.saturating_mul(4) {
                // This line would pass the token limit: the page ends before it.
                self.page_full = true;
                self.page_end = Some(self.index);
            } else {
                self.page_bytes += cost;
                self.kept.push(line);
            }
        } else if self.selected() {
            let len = if self.current.last == Some(b'\r') { self.current.len - 1 } else { self.current.len };
            self.floor += 1 + len.min(MAX_LINE_CHARS as u64);
            self.selection_bytes += shown_cost(self.index + 1, len);
            self.current = Kept::default();
        }
        if !self.has_limit && self.floor > self.bounds.max_size {
            self.over_size = true;
        }
        self.index += 1;
    }

    fn finish(&mut self) {
        self.utf8.end();
        if self.any {
            self.end_line();
        }
    }

    /// The error the read ends with, once it is certain: over the size limit (without a
    /// `limit`). The token limit is never an error: it ends the page.
    fn stop(&self, file_size: u64, _at_end: bool) -> Option<ReadError> {
        if self.over_size {
            return Some(ReadError::TooLarge { size: file_size.max(self.floor), max: self.bounds.max_size });
        }
        None
    }

    fn into_range(
        self,
        start: u64,
        whole: bool,
        encoding: Shown,
        meta: &std::fs::Metadata,
        raw: &RawReader,
        utf16: bool,
    ) -> Result<TextRange, ReadError> {
        let total_lines = self.index;
        let hash = raw.hasher.finish();
        let has_nul = !utf16 && raw.has_nul;
        let not_utf8 = encoding == Shown::Windows1252;
        let page_end = self.page_end;
        let selection_tokens = self.selection_bytes.div_ceil(4);
        let whole = whole && page_end.is_none();
        let range = |content: String, cut_lines: usize, whole_text: Option<String>| TextRange {
            num_lines: self.kept.len(),
            content,
            start_line: start,
            total_lines,
            whole_text,
            hash,
            has_nul,
            not_utf8,
            cut_lines,
            page_end,
            selection_tokens,
        };
        let fits = |content: &str| {
            (self.has_limit || content.len() as u64 <= self.bounds.max_size)
                && estimate_tokens(content.len()) <= self.bounds.max_tokens
        };
        if self.keep_whole {
            let lines: Vec<String> = self.kept.iter().map(|line| shown_text(line, encoding)).collect();
            let content = lines.join("\n");
            if fits(&content) {
                let whole_text = whole.then(|| content.clone());
                return Ok(range(content, 0, whole_text));
            }
        }
        let mut cut_lines = 0;
        let mut lines = Vec::with_capacity(self.kept.len());
        for line in &self.kept {
            let chars = if encoding == Shown::Windows1252 { line.len } else { line.chars };
            let text = shown_text(line, encoding);
            if chars > MAX_LINE_CHARS as u64 {
                cut_lines += 1;
                let head: String = text.chars().take(MAX_LINE_CHARS).collect();
                lines.push(format!("{head}{}", render::line_cut_marker(chars - MAX_LINE_CHARS as u64)));
            } else {
                lines.push(text);
            }
        }
        let content = lines.join("\n");
        if !self.has_limit && content.len() as u64 > self.bounds.max_size {
            return Err(ReadError::TooLarge { size: meta.len().max(content.len() as u64), max: self.bounds.max_size });
        }
        let tokens = estimate_tokens(content.len());
        if tokens > self.bounds.max_tokens {
            return Err(ReadError::TooManyTokens { tokens, max: self.bounds.max_tokens });
        }
        Ok(range(content, cut_lines, None))
    }
}

/// The text of a kept line.
fn shown_text(line: &Kept, encoding: Shown) -> String {
    match encoding {
        Shown::Utf8 | Shown::Utf8Lossy => String::from_utf8_lossy(&line.bytes).into_owned(),
        Shown::Windows1252 => decode_as(&line.bytes, Encoding::Windows1252).text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const ROOMY: Bounds = Bounds { max_size: u64::MAX / 8, max_tokens: u64::MAX / 8 };

    fn file(content: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, content).unwrap();
        (dir, path)
    }

    fn size(max_size: u64) -> Bounds {
        Bounds { max_size, max_tokens: u64::MAX / 8 }
    }

    /// What Edit sees of a file, split as Read numbers it.
    fn edit_view(bytes: &[u8]) -> Vec<String> {
        let text = decode(bytes).text;
        if text.is_empty() {
            return Vec::new();
        }
        text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned()).collect()
    }

    #[test]
    fn splits_lines_strips_cr_and_bom() {
        let (_dir, path) = file(b"\xef\xbb\xbfone\r\ntwo\r\n");
        let read = read_text(&path, None, None, size(1024)).unwrap();
        assert_eq!(read.content, "one\ntwo\n");
        assert_eq!(read.num_lines, 3);
        assert_eq!(read.total_lines, 3);
        assert_eq!(read.whole_text.as_deref(), Some("one\ntwo\n"));
        assert_eq!(read.hash, content_hash(b"\xef\xbb\xbfone\r\ntwo\r\n"));
    }

    #[test]
    fn ranges_agree_with_what_edit_sees() {
        let text: String = (1..=50).map(|i| format!("line {i}\r\n")).collect();
        let cases: Vec<Vec<u8>> = vec![
            format!("\u{feff}{text}").into_bytes(),
            b"no final newline".to_vec(),
            b"\n".to_vec(),
            b"".to_vec(),
            b"\xef\xbb\xbf".to_vec(),
            b"caf\xe9\r\nna\xefve\n\xc3\xa9t\xc3\xa9\n".to_vec(),
            "d\u{e9}j\u{e0} vu\n\u{1f600}\n".as_bytes().to_vec(),
            b"\xef\xbb\xbfbad \xff byte\nok\n".to_vec(),
            [
                &[0xFF, 0xFE][..],
                &"wide\r\n\u{1f600} text\n".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<_>>(),
            ]
            .concat(),
            [&[0xFE, 0xFF][..], &"big\nendian".encode_utf16().flat_map(u16::to_be_bytes).collect::<Vec<_>>()].concat(),
            vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0, b'\n', 0, 7],
        ];
        for bytes in cases {
            let (_dir, path) = file(&bytes);
            let expected = edit_view(&bytes);
            for (offset, limit) in
                [(None, None), (None, Some(3)), (Some(2), Some(1)), (Some(49), Some(10)), (Some(60), Some(2))]
            {
                let read = read_text(&path, offset, limit, ROOMY).unwrap();
                let skip = usize::try_from(offset.unwrap_or(1) - 1).unwrap();
                let want: Vec<String> = expected
                    .iter()
                    .skip(skip)
                    .take(limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap()))
                    .cloned()
                    .collect();
                assert_eq!(read.content, want.join("\n"), "{bytes:?} {offset:?} {limit:?}");
                assert_eq!(read.num_lines, want.len(), "{bytes:?} {offset:?} {limit:?}");
                assert_eq!(read.total_lines, expected.len() as u64, "{bytes:?}");
                assert_eq!(read.hash, content_hash(&bytes));
                assert_eq!(read.not_utf8, decode(&bytes).encoding == Encoding::Windows1252, "{bytes:?}");
            }
        }
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        // A multi-byte character across the 64 KB chunk boundary stays UTF-8; a UTF-16 pair too.
        let mut bytes = vec![b'a'; CHUNK_BYTES - 1];
        bytes.extend_from_slice("\u{e9}\n\u{1f600}".as_bytes());
        let (_dir, path) = file(&bytes);
        let read = read_text(&path, Some(1), Some(1), ROOMY).unwrap();
        assert!(!read.not_utf8);
        assert_eq!(read.total_lines, 2);
        let mut wide = vec![0xFF, 0xFE];
        wide.extend(std::iter::repeat_n([b'x', 0], CHUNK_BYTES / 2 - 2).flatten());
        wide.extend("\u{1f600}\n".encode_utf16().flat_map(u16::to_le_bytes));
        let (_dir, path) = file(&wide);
        let read = read_text(&path, None, None, ROOMY).unwrap();
        assert!(read.content.ends_with("x\u{1f600}\n"), "{}", &read.content[read.content.len() - 10..]);
        // A stray invalid byte far past the first chunk makes the whole file Windows-1252.
        let mut legacy = "caf\u{e9}\n".as_bytes().to_vec();
        legacy.extend(std::iter::repeat_n(b'z', 3 * CHUNK_BYTES));
        legacy.extend_from_slice(b"\n\xe9\n");
        let (_dir, path) = file(&legacy);
        let read = read_text(&path, None, Some(1), ROOMY).unwrap();
        assert!(read.not_utf8);
        assert_eq!(read.content, "caf\u{c3}\u{a9}");
    }

    #[test]
    fn notes_nul_bytes_and_non_utf8_text() {
        let (_dir, path) = file(b"hi\x00\nthere\xff\n");
        let whole = read_text(&path, None, None, ROOMY).unwrap();
        assert!(whole.has_nul && whole.not_utf8);
        let (_dir, path) = file("plain ünïcode\n".as_bytes());
        let plain = read_text(&path, None, None, ROOMY).unwrap();
        assert!(!plain.has_nul && !plain.not_utf8);
    }

    #[test]
    fn refuses_large_text_without_a_limit() {
        let (_dir, path) = file(&[b'x'; 100]);
        assert!(matches!(read_text(&path, None, None, size(99)), Err(ReadError::TooLarge { size: 100, max: 99 })));
        assert!(matches!(read_text(&path, Some(1), None, size(99)), Err(ReadError::TooLarge { .. })));
        assert_eq!(read_text(&path, None, Some(1), size(99)).unwrap().num_lines, 1);
    }

    #[test]
    fn long_lines_are_whole_when_they_fit_and_cut_when_they_do_not() {
        let long = "y".repeat(2500);
        let (_dir, path) = file(format!("short\n{long}\ntail\n").as_bytes());
        let read = read_text(&path, None, None, size(10_000)).unwrap();
        assert_eq!((read.cut_lines, read.content.len()), (0, 2500 + 12));
        assert!(read.whole_text.is_some());
        let read = read_text(&path, None, None, size(2_400)).unwrap();
        assert_eq!(read.cut_lines, 1);
        assert_eq!(read.content, format!("short\n{}{}\ntail\n", "y".repeat(2000), render::line_cut_marker(500)));
        assert_eq!(read.whole_text, None);
        // Too many tokens with a limit: cut as well.
        let read = read_text(&path, Some(2), Some(1), Bounds { max_size: 1, max_tokens: 600 }).unwrap();
        assert_eq!(read.content, format!("{}{}", "y".repeat(2000), render::line_cut_marker(500)));
    }

    #[test]
    fn cut_lines_count_characters_not_bytes() {
        let line = "\u{e9}".repeat(2100);
        let (_dir, path) = file(line.as_bytes());
        let read = read_text(&path, None, None, size(4150)).unwrap();
        assert_eq!(read.content, format!("{}{}", "\u{e9}".repeat(2000), render::line_cut_marker(100)));
        // In a Windows-1252 file, a byte is a character.
        let mut legacy = vec![0xE9; 2100];
        legacy.extend_from_slice(b"\r\n");
        let (_dir, path) = file(&legacy);
        let read = read_text(&path, None, None, size(4150)).unwrap();
        assert_eq!(read.content, format!("{}{}\n", "\u{e9}".repeat(2000), render::line_cut_marker(100)));
    }

    #[test]
    fn errors_come_early_and_count_the_bounded_text() {
        let many: String = (0..1000).map(|_| "z".repeat(3000) + "\n").collect();
        let (_dir, path) = file(many.as_bytes());
        // 1001 lines, each cut to 2000 characters: still over 256 KB.
        assert!(matches!(
            read_text(&path, None, None, Bounds { max_size: 256 * 1024, max_tokens: 25_000 }),
            Err(ReadError::TooLarge { size: 3_001_000, .. })
        ));
        // Sixty cut lines are over the token limit: the page ends with the last that fits.
        let read = read_text(&path, Some(1), Some(60), Bounds { max_size: 256 * 1024, max_tokens: 25_000 }).unwrap();
        assert_eq!((read.num_lines, read.cut_lines, read.page_end), (48, 48, Some(48)));
        assert_eq!(read.selection_tokens, (60 * (1 + 1 + 2000 + 64 + 1) + 51_u64).div_ceil(4));
        assert!(read.whole_text.is_none());
        let read = read_text(&path, Some(1), Some(40), Bounds { max_size: 256 * 1024, max_tokens: 25_000 }).unwrap();
        assert_eq!((read.num_lines, read.cut_lines, read.total_lines), (40, 40, 1001));
    }

    #[test]
    fn missing_folder_and_special_paths_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read_text(&dir.path().join("nope"), None, None, ROOMY), Err(ReadError::NotFound)));
        assert!(matches!(read_text(dir.path(), None, None, ROOMY), Err(ReadError::IsDirectory)));
        assert!(matches!(read_text(Path::new("/dev/null"), None, None, ROOMY), Err(ReadError::NotRegular)));
    }

    #[test]
    fn whole_reads_and_hashes() {
        let (_dir, path) = file(b"\xff\xfea\x00");
        let (text, hash) = read_whole(&path, 10).unwrap();
        assert_eq!((text.as_str(), hash), ("a", content_hash(b"\xff\xfea\x00")));
        assert_eq!(hash_file(&path).unwrap(), hash);
        assert!(matches!(read_whole(&path, 3), Err(ReadError::TooLarge { size: 4, max: 3 })));
    }
}
