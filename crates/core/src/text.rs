//! Telling text from binary, shared by the tools that read files (Read, Grep, Edit, Write);
//! and a duration in words for messages ([`human_duration`]).
//!
//! ripgrep calls any file with a NUL byte binary, and Claude Code's Read decides by file
//! extension; both hide real text: a source file with one stray NUL, a `.dat` file of plain
//! text. Here a file is binary when its first [`SNIFF_BYTES`] carry a known binary signature, or
//! hold a NUL **and** look like binary data overall (many control bytes, or many bytes that are
//! not UTF-8).

/// How many leading bytes [`looks_binary`] needs to see.
pub const SNIFF_BYTES: usize = 8192;

/// Leading bytes of common binary formats.
const SIGNATURES: &[&[u8]] = &[
    b"\x7fELF",             // ELF executables and libraries
    b"\x89PNG\r\n\x1a\n",   // PNG
    b"\xff\xd8\xff",        // JPEG
    b"GIF87a",              // GIF
    b"GIF89a",              // GIF
    b"%PDF-",               // PDF
    b"PK\x03\x04",          // ZIP, JAR, DOCX, XLSX …
    b"\x1f\x8b",            // gzip
    b"BZh",                 // bzip2 (with a block-size digit, checked below)
    b"\xfd7zXZ\x00",        // xz
    b"\x28\xb5\x2f\xfd",    // zstd
    b"7z\xbc\xaf\x27\x1c",  // 7-Zip
    b"\xcf\xfa\xed\xfe",    // Mach-O 64
    b"\xce\xfa\xed\xfe",    // Mach-O 32
    b"\xca\xfe\xba\xbe",    // Mach-O fat / Java class
    b"\x00asm",             // WebAssembly
    b"SQLite format 3\x00", // SQLite
    b"RIFF",                // WAV, AVI, WebP
    b"OggS",                // Ogg
    b"ID3",                 // MP3
    b"\x00\x00\x01\x00",    // ICO
];

/// Whether `sample` (the first bytes of a file, ideally [`SNIFF_BYTES`] of them) is binary data.
///
/// ```
/// use agent_tools_core::text::looks_binary;
/// assert!(!looks_binary(b"fn main() {}\n"));
/// assert!(!looks_binary(b"hello TOKEN here\x00more text\nsecond line TOKEN\n")); // a stray NUL
/// assert!(looks_binary(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00"));
/// assert!(looks_binary(&[0u8, 1, 2, 3, 0, 0, 200, 17, 0, 9]));
/// ```
pub fn looks_binary(sample: &[u8]) -> bool {
    let sample = &sample[..sample.len().min(SNIFF_BYTES)];
    if utf16_bom(sample).is_some() {
        // UTF-16 text is full of NUL bytes, but with a byte-order mark it is plainly text.
        return false;
    }
    if SIGNATURES.iter().any(|signature| {
        sample.starts_with(signature) && (*signature != b"BZh" || sample.get(3).is_some_and(u8::is_ascii_digit))
    }) {
        return true;
    }
    if !sample.contains(&0) {
        return false;
    }
    let control =
        sample.iter().filter(|b| b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)).count();
    let not_utf8 = invalid_utf8_bytes(sample);
    // Text with a stray NUL stays well under both bounds; binary data is far above one of them.
    control * 10 >= sample.len() * 3 || not_utf8 * 10 >= sample.len() * 3
}

/// A UTF-16 byte-order mark at the start of `bytes`: `Some(true)` for little-endian (`FF FE`),
/// `Some(false)` for big-endian (`FE FF`).
pub fn utf16_bom(bytes: &[u8]) -> Option<bool> {
    if bytes.starts_with(&[0xFF, 0xFE]) {
        Some(true)
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some(false)
    } else {
        None
    }
}

/// Counts the bytes of `bytes` that are not part of valid UTF-8 (a sequence cut at the end of the
/// sample counts as valid).
fn invalid_utf8_bytes(mut bytes: &[u8]) -> usize {
    let mut invalid = 0;
    loop {
        match std::str::from_utf8(bytes) {
            Ok(_) => return invalid,
            Err(error) => match error.error_len() {
                Some(len) => {
                    invalid += len;
                    bytes = &bytes[error.valid_up_to() + len..];
                }
                None => return invalid,
            },
        }
    }
}

/// A duration as messages say it: `300 ms`, `1 second`, `20 seconds`, `2.5 seconds` (WebFetch's
/// and RemoteTrigger's timeouts).
///
/// ```
/// use std::time::Duration;
/// use agent_tools_core::text::human_duration;
/// assert_eq!(human_duration(Duration::from_millis(300)), "300 ms");
/// assert_eq!(human_duration(Duration::from_secs(1)), "1 second");
/// assert_eq!(human_duration(Duration::from_secs(30)), "30 seconds");
/// assert_eq!(human_duration(Duration::from_millis(2_500)), "2.5 seconds");
/// ```
pub fn human_duration(duration: std::time::Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1_000 {
        format!("{millis} ms")
    } else if millis == 1_000 {
        "1 second".to_owned()
    } else if millis.is_multiple_of(1_000) {
        format!("{} seconds", millis / 1_000)
    } else {
        format!("{:.1} seconds", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_stray_nul_or_legacy_bytes_is_text() {
        assert!(!looks_binary(b"hi\x00\nthere\xff\n"));
        assert!(!looks_binary(b"caf\x88\xe9\n"));
        assert!(!looks_binary(b""));
        assert!(!looks_binary("naïve ünïcödé\n".as_bytes()));
    }

    #[test]
    fn binary_formats_and_dense_control_bytes_are_binary() {
        assert!(looks_binary(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\xfe\x00\xff\x00"));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"));
        assert!(looks_binary(b"BZh91AY&SY"));
        assert!(!looks_binary(b"BZh is a prefix of this text\n"));
        // Pseudo-random bytes (compressed data) always hold a NUL and are mostly not UTF-8.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        assert!(looks_binary(&noise));
        // UTF-16 without a byte-order mark cannot be treated as text; with one it is text.
        let utf16: Vec<u8> = "plain ascii".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(looks_binary(&utf16));
        assert!(!looks_binary(&[&[0xFF, 0xFE][..], &utf16].concat()));
    }
}
