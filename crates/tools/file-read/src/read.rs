//! Reading a text file's lines: the range, the line count, and the limits. Free of the contract.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use agent_tools_core::context::{ContentHasher, content_hash};
use agent_tools_core::text::{SNIFF_BYTES, utf16_bom};
use agent_tools_files::{Encoding, decode};

/// What was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRange {
    /// The selected lines joined with `\n` (line endings normalised, BOM removed).
    pub content: String,
    /// How many lines were selected.
    pub num_lines: usize,
    /// Number of the first selected line (1-based).
    pub start_line: u64,
    /// Lines in the whole file (0 for an empty file; a final newline starts one more, empty line).
    pub total_lines: u64,
    /// The whole file's text, when the whole file was read (for the file-read state).
    pub whole_text: Option<String>,
    /// `content_hash` of the whole file's bytes (the file is always read to its end).
    pub hash: u64,
    /// The first [`SNIFF_BYTES`] bytes hold a NUL byte (shown to the model as `\0`).
    pub has_nul: bool,
    /// The text is neither UTF-8 nor UTF-16 with a byte-order mark: some bytes show as U+FFFD.
    pub not_utf8: bool,
}

/// Why a read failed.
#[derive(Debug)]
pub enum ReadError {
    /// No such file.
    NotFound,
    /// The path is a folder.
    IsDirectory,
    /// The file is larger than the limit and no `limit` was given.
    TooLarge {
        /// File size in bytes.
        size: u64,
        /// The limit in bytes.
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

/// Reads lines `offset..offset+limit` (1-based; `offset` 0 counts as 1) of the file at `path`.
///
/// Without a `limit`, files larger than `max_size` bytes are refused (Claude Code's 256 KiB rule).
/// With a `limit`, large files are streamed: only the selected lines are kept, the rest are
/// counted.
///
/// # Errors
/// [`ReadError`] for a missing path, a folder, a file too large, or an I/O failure.
pub fn read_text(path: &Path, offset: Option<u64>, limit: Option<u64>, max_size: u64) -> Result<TextRange, ReadError> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(ReadError::IsDirectory);
    }
    let size = meta.len();
    if limit.is_none() && size > max_size {
        return Err(ReadError::TooLarge { size, max: max_size });
    }
    let start = offset.unwrap_or(1).max(1);
    let skip = start - 1;
    let take = limit.unwrap_or(u64::MAX);
    let whole = offset.is_none() && limit.is_none();

    // UTF-16 cannot be split on `\n` bytes, so it is always decoded whole.
    let mut mark = [0u8; 2];
    let utf16 = file.read_exact(&mut mark).is_ok() && utf16_bom(&mark).is_some();
    file.seek(SeekFrom::Start(0))?;
    if size <= max_size || utf16 {
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        file.read_to_end(&mut bytes)?;
        let hash = content_hash(&bytes);
        // Decoded exactly as Edit decodes it, so text copied from here matches there.
        let decoded = decode(&bytes);
        let utf16 = matches!(decoded.encoding, Encoding::Utf16Le | Encoding::Utf16Be);
        let has_nul = !utf16 && bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0);
        let not_utf8 = decoded.encoding == Encoding::Windows1252;
        let text = decoded.text;
        if text.is_empty() {
            return Ok(TextRange {
                content: String::new(),
                num_lines: 0,
                start_line: start,
                total_lines: 0,
                whole_text: whole.then(String::new),
                hash,
                has_nul,
                not_utf8,
            });
        }
        let all: Vec<&str> = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
        let total_lines = all.len() as u64;
        let lines: Vec<&str> = all
            .iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(usize::try_from(take).unwrap_or(usize::MAX))
            .copied()
            .collect();
        let content = lines.join("\n");
        let whole_text = if whole { Some(content.clone()) } else { None };
        return Ok(TextRange {
            content,
            num_lines: lines.len(),
            start_line: start,
            total_lines,
            whole_text,
            hash,
            has_nul,
            not_utf8,
        });
    }

    // A large file with a limit: stream it.
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut lines = Vec::new();
    let mut total_lines = 0u64;
    let mut buffer = Vec::new();
    let mut first = true;
    let mut hasher = ContentHasher::default();
    let mut seen = 0usize;
    let mut has_nul = false;
    let mut not_utf8 = false;
    loop {
        buffer.clear();
        let read = reader.read_until(b'\n', &mut buffer)?;
        hasher.update(&buffer);
        if seen < SNIFF_BYTES {
            has_nul |= buffer[..buffer.len().min(SNIFF_BYTES - seen)].contains(&0);
        }
        seen = seen.saturating_add(read);
        let ended_with_newline = buffer.last() == Some(&b'\n');
        if read == 0 {
            // After a final newline the split form has one more, empty line.
            if !first {
                if total_lines >= skip && total_lines - skip < take {
                    lines.push(String::new());
                }
                total_lines += 1;
            }
            break;
        }
        if total_lines >= skip && total_lines - skip < take {
            let mut line: &[u8] = &buffer;
            if first {
                line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            }
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let text = decode(line);
            not_utf8 |= text.encoding == Encoding::Windows1252;
            lines.push(text.text);
        }
        first = false;
        total_lines += 1;
        if !ended_with_newline {
            break;
        }
    }
    Ok(TextRange {
        content: lines.join("\n"),
        num_lines: lines.len(),
        start_line: start,
        total_lines,
        whole_text: None,
        hash: hasher.finish(),
        has_nul,
        not_utf8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn file(content: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, content).unwrap();
        (dir, path)
    }

    #[test]
    fn splits_lines_strips_cr_and_bom() {
        let (_dir, path) = file(b"\xef\xbb\xbfone\r\ntwo\r\n");
        let read = read_text(&path, None, None, 1024).unwrap();
        assert_eq!(read.content, "one\ntwo\n");
        assert_eq!(read.num_lines, 3);
        assert_eq!(read.total_lines, 3);
        assert_eq!(read.whole_text.as_deref(), Some("one\ntwo\n"));
    }

    #[test]
    fn streamed_and_whole_reads_agree() {
        let text: String = (1..=50).map(|i| format!("line {i}\r\n")).collect();
        let (_dir, path) = file(format!("\u{feff}{text}").as_bytes());
        for (offset, limit) in
            [(None, Some(3)), (Some(1), Some(1)), (Some(49), Some(10)), (Some(51), Some(2)), (Some(60), Some(2))]
        {
            let whole = read_text(&path, offset, limit, u64::MAX).unwrap();
            let streamed = read_text(&path, offset, limit, 10).unwrap();
            assert_eq!(whole.content, streamed.content, "{offset:?} {limit:?}");
            assert_eq!(whole.num_lines, streamed.num_lines, "{offset:?} {limit:?}");
            assert_eq!(whole.total_lines, streamed.total_lines, "{offset:?} {limit:?}");
            assert_eq!(whole.total_lines, 51);
            assert_eq!(whole.hash, streamed.hash, "{offset:?} {limit:?}");
            assert_eq!(whole.hash, content_hash(&std::fs::read(&path).unwrap()));
        }
        let (_dir, path) = file(b"no final newline");
        assert_eq!(read_text(&path, None, Some(5), 1).unwrap().content, "no final newline");
        assert_eq!(read_text(&path, None, Some(5), 1).unwrap().total_lines, 1);
    }

    #[test]
    fn notes_nul_bytes_and_non_utf8_text_whole_or_streamed() {
        let (_dir, path) = file(b"hi\x00\nthere\xff\n");
        let whole = read_text(&path, None, None, 1024).unwrap();
        assert!(whole.has_nul && whole.not_utf8);
        let streamed = read_text(&path, None, Some(5), 1).unwrap();
        assert!(streamed.has_nul && streamed.not_utf8);
        let (_dir, path) = file("plain ünïcode\n".as_bytes());
        let plain = read_text(&path, None, None, 1024).unwrap();
        assert!(!plain.has_nul && !plain.not_utf8);
    }

    #[test]
    fn refuses_large_files_without_a_limit() {
        let (_dir, path) = file(&[b'x'; 100]);
        assert!(matches!(read_text(&path, None, None, 99), Err(ReadError::TooLarge { size: 100, max: 99 })));
        assert!(matches!(read_text(&path, Some(1), None, 99), Err(ReadError::TooLarge { .. })));
        assert_eq!(read_text(&path, None, Some(1), 99).unwrap().num_lines, 1);
    }

    #[test]
    fn missing_and_folder_paths_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read_text(&dir.path().join("nope"), None, None, 10), Err(ReadError::NotFound)));
        assert!(matches!(read_text(dir.path(), None, None, 10), Err(ReadError::IsDirectory)));
    }
}
