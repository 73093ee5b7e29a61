//! Text encodings and line endings: telling them from a file's bytes, and writing text back the
//! same way.
//!
//! Claude Code knows two encodings (UTF-16LE when the file starts with `FF FE`, else UTF-8) and
//! decides CRLF from the first 4,096 characters. Here:
//!
//! - UTF-8, UTF-8 with a byte-order mark, UTF-16LE and UTF-16BE with their marks;
//! - any other file that is not valid UTF-8 is read as Windows-1252, a legacy single-byte
//!   encoding in which every byte is a character. Decoding and encoding back are exact inverses,
//!   so bytes outside an edit never change (Claude Code turns each such byte into `EF BF BD`);
//! - CRLF when the whole text has more `\r\n` than lone `\n`, else LF.
//!
//! [`decode`] tells the encoding and decodes a whole file; [`Encoding::from_bom`],
//! [`decode_as`] and [`Utf16Decoder`] are its parts, for a reader that streams a file in chunks
//! (Read) and must show exactly the text [`decode`] would give.

use std::fmt;

/// How a text file's characters are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark (also plain ASCII).
    Utf8,
    /// UTF-8 starting with the byte-order mark `EF BB BF`.
    Utf8Bom,
    /// UTF-16, little-endian, starting with `FF FE`.
    Utf16Le,
    /// UTF-16, big-endian, starting with `FE FF`.
    Utf16Be,
    /// Windows-1252 (a superset of Latin-1's printable characters): one byte per character. Used for
    /// files that are not valid UTF-8 and have no byte-order mark.
    Windows1252,
}

impl Encoding {
    /// The encoding's usual name (`UTF-8`, `UTF-8 with BOM`, `UTF-16LE`, `UTF-16BE`,
    /// `Windows-1252`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Utf8 => "UTF-8",
            Self::Utf8Bom => "UTF-8 with BOM",
            Self::Utf16Le => "UTF-16LE",
            Self::Utf16Be => "UTF-16BE",
            Self::Windows1252 => "Windows-1252",
        }
    }
}

impl Encoding {
    /// The encoding a byte-order mark at the start of `bytes` announces, and the mark's length in
    /// bytes: `EF BB BF` → ([`Encoding::Utf8Bom`], 3), `FF FE` → ([`Encoding::Utf16Le`], 2),
    /// `FE FF` → ([`Encoding::Utf16Be`], 2); `None` without a mark. The UTF-8 mark is checked
    /// first, as [`decode`] does.
    ///
    /// ```
    /// use agent_tools_files::Encoding;
    /// assert_eq!(Encoding::from_bom(b"\xff\xfea\x00"), Some((Encoding::Utf16Le, 2)));
    /// assert_eq!(Encoding::from_bom(b"plain"), None);
    /// ```
    pub fn from_bom(bytes: &[u8]) -> Option<(Self, usize)> {
        if bytes.starts_with(UTF8_BOM) {
            return Some((Self::Utf8Bom, UTF8_BOM.len()));
        }
        agent_tools_core::text::utf16_bom(bytes)
            .map(|little_endian| (if little_endian { Self::Utf16Le } else { Self::Utf16Be }, 2))
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a text file ends its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LineEnding {
    /// `\n` (also the choice for a file with no line break).
    #[default]
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The characters that end a line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::CrLf => "\r\n",
        }
    }

    /// The style of `text`: CRLF when `\r\n` pairs outnumber lone `\n`, else LF.
    ///
    /// ```
    /// use agent_tools_files::LineEnding;
    /// assert_eq!(LineEnding::detect("a\r\nb\r\nc\n"), LineEnding::CrLf);
    /// assert_eq!(LineEnding::detect("a\r\nb\nc\n"), LineEnding::Lf);
    /// assert_eq!(LineEnding::detect("no line break"), LineEnding::Lf);
    /// ```
    pub fn detect(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut crlf = 0usize;
        let mut lf = 0usize;
        for (index, byte) in bytes.iter().enumerate() {
            if *byte == b'\n' {
                if index > 0 && bytes[index - 1] == b'\r' {
                    crlf += 1;
                } else {
                    lf += 1;
                }
            }
        }
        if crlf > lf { Self::CrLf } else { Self::Lf }
    }

    /// `text` with every line break written in this style: `\r\n` pairs are first read as one
    /// break, so no `\r\r\n` ever appears. LF leaves `text` unchanged.
    ///
    /// ```
    /// use agent_tools_files::LineEnding;
    /// assert_eq!(LineEnding::CrLf.apply("a\nb\r\nc"), "a\r\nb\r\nc");
    /// assert_eq!(LineEnding::Lf.apply("a\r\nb"), "a\r\nb");
    /// ```
    pub fn apply(self, text: &str) -> String {
        match self {
            Self::Lf => text.to_owned(),
            Self::CrLf => normalize_newlines(text).replace('\n', "\r\n"),
        }
    }
}

/// `text` with every `\r\n` turned into `\n` (a lone `\r` is kept), as the model sees files.
pub fn normalize_newlines(text: &str) -> String {
    if text.contains("\r\n") { text.replace("\r\n", "\n") } else { text.to_owned() }
}

/// A file's bytes, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The encoding found.
    pub encoding: Encoding,
    /// The text, without the byte-order mark, line endings as in the file.
    pub text: String,
    /// True when encoding `text` back gives the same bytes. False only for broken data (a
    /// UTF-16 file with an odd byte or a lone surrogate, a UTF-8 file with a mark but bad bytes).
    pub lossless: bool,
}

/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Decodes a file's bytes: UTF-8 or UTF-16 after a byte-order mark, plain UTF-8 when valid,
/// else Windows-1252.
///
/// ```
/// use agent_tools_files::{decode, Encoding};
/// assert_eq!(decode(b"caf\xc3\xa9").encoding, Encoding::Utf8);
/// let legacy = decode(b"Bot\xe3o \x99");
/// assert_eq!((legacy.encoding, legacy.text.as_str()), (Encoding::Windows1252, "Bot\u{e3}o \u{2122}"));
/// ```
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some((encoding, mark)) = Encoding::from_bom(bytes) {
        return decode_as(&bytes[mark..], encoding);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Decoded { encoding: Encoding::Utf8, text: text.to_owned(), lossless: true },
        Err(_) => decode_as(bytes, Encoding::Windows1252),
    }
}

/// Decodes `bytes` (without a byte-order mark) in a known `encoding`, exactly as [`decode`]
/// decodes a file of that encoding: UTF-8 (with or without a mark) with bad bytes as U+FFFD,
/// UTF-16 as [`Utf16Decoder`] does, Windows-1252 byte for character. Use it for a piece of a
/// file whose encoding [`decode`] (or [`Encoding::from_bom`]) told from the whole.
///
/// ```
/// use agent_tools_files::{decode_as, Encoding};
/// // A piece of a Windows-1252 file that happens to be valid UTF-8 on its own.
/// assert_eq!(decode_as(b"\xc3\xa9", Encoding::Windows1252).text, "\u{c3}\u{a9}");
/// assert_eq!(decode_as(b"a\x00b\x00", Encoding::Utf16Le).text, "ab");
/// ```
pub fn decode_as(bytes: &[u8], encoding: Encoding) -> Decoded {
    let (text, lossless) = match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => match std::str::from_utf8(bytes) {
            Ok(text) => (text.to_owned(), true),
            Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
        },
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let mut decoder = Utf16Decoder::new(encoding == Encoding::Utf16Le);
            let mut text = String::with_capacity(bytes.len() / 2);
            decoder.feed(bytes, &mut text);
            decoder.finish(&mut text);
            (text, decoder.lossless())
        }
        Encoding::Windows1252 => (bytes.iter().map(|b| cp1252_char(*b)).collect(), true),
    };
    Decoded { encoding, text, lossless }
}

/// UTF-16 to text, chunk by chunk: feeding a file's bytes (after its byte-order mark) in pieces
/// of any size gives exactly what [`char::decode_utf16`] gives on the whole — an unpaired
/// surrogate becomes U+FFFD, and so does a final odd byte (at [`Utf16Decoder::finish`]).
#[derive(Debug, Clone)]
pub struct Utf16Decoder {
    little_endian: bool,
    odd: Option<u8>,
    high: Option<u16>,
    lossless: bool,
}

impl Utf16Decoder {
    /// A decoder for little-endian (`FF FE`) or big-endian (`FE FF`) UTF-16.
    pub fn new(little_endian: bool) -> Self {
        Self { little_endian, odd: None, high: None, lossless: true }
    }

    /// Decodes the next piece of bytes onto `out`; a byte or surrogate left over waits for the
    /// next piece.
    pub fn feed(&mut self, bytes: &[u8], out: &mut String) {
        let mut bytes = bytes;
        if let Some(first) = self.odd.take() {
            let Some((&second, rest)) = bytes.split_first() else {
                self.odd = Some(first);
                return;
            };
            self.unit([first, second], out);
            bytes = rest;
        }
        let pairs = bytes.chunks_exact(2);
        if let [last] = pairs.remainder() {
            self.odd = Some(*last);
        }
        for pair in pairs {
            self.unit([pair[0], pair[1]], out);
        }
    }

    /// Ends the text: a surrogate or byte left over becomes U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.high.take().is_some() {
            self.replace(out);
        }
        if self.odd.take().is_some() {
            self.replace(out);
        }
    }

    /// True while every unit decoded cleanly (no unpaired surrogate, no odd byte so far).
    pub fn lossless(&self) -> bool {
        self.lossless
    }

    fn replace(&mut self, out: &mut String) {
        self.lossless = false;
        out.push(char::REPLACEMENT_CHARACTER);
    }

    fn unit(&mut self, pair: [u8; 2], out: &mut String) {
        let unit = if self.little_endian { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) };
        match unit {
            0xD800..=0xDBFF => {
                if self.high.replace(unit).is_some() {
                    self.replace(out);
                }
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some(high) => {
                    let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    match char::from_u32(code) {
                        Some(ch) => out.push(ch),
                        None => self.replace(out),
                    }
                }
                None => self.replace(out),
            },
            _ => {
                if self.high.take().is_some() {
                    self.replace(out);
                }
                match char::from_u32(u32::from(unit)) {
                    Some(ch) => out.push(ch),
                    None => self.replace(out),
                }
            }
        }
    }
}

/// A character that the target encoding cannot store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unrepresentable {
    /// The encoding.
    pub encoding: Encoding,
    /// The first character it has no byte for.
    pub ch: char,
}

impl fmt::Display for Unrepresentable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} has no character U+{:04X} ({:?})", self.encoding, u32::from(self.ch), self.ch)
    }
}

/// Encodes `text` (no byte-order mark in it) in `encoding`, adding the encoding's mark.
///
/// # Errors
/// [`Unrepresentable`] when `encoding` is Windows-1252 and `text` has a character it lacks.
pub fn encode(text: &str, encoding: Encoding) -> Result<Vec<u8>, Unrepresentable> {
    Ok(match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => [UTF8_BOM, text.as_bytes()].concat(),
        Encoding::Utf16Le => {
            let mut out = Vec::with_capacity(2 + text.len() * 2);
            out.extend_from_slice(&[0xFF, 0xFE]);
            out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
            out
        }
        Encoding::Utf16Be => {
            let mut out = Vec::with_capacity(2 + text.len() * 2);
            out.extend_from_slice(&[0xFE, 0xFF]);
            out.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
            out
        }
        Encoding::Windows1252 => {
            let mut out = Vec::with_capacity(text.len());
            for ch in text.chars() {
                out.push(cp1252_byte(ch).ok_or(Unrepresentable { encoding, ch })?);
            }
            out
        }
    })
}

/// The first character of `text` that `encoding` cannot store, if any.
pub fn unrepresentable(text: &str, encoding: Encoding) -> Option<Unrepresentable> {
    match encoding {
        Encoding::Windows1252 => {
            text.chars().find(|ch| cp1252_byte(*ch).is_none()).map(|ch| Unrepresentable { encoding, ch })
        }
        _ => None,
    }
}

/// Windows-1252's characters for bytes `0x80..=0x9F`. The five bytes the code page leaves
/// undefined map to the C1 control of the same number (as WHATWG's decoder does), so every byte
/// has a character and decoding is reversible.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}', '\u{02C6}',
    '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}', '\u{0090}', '\u{2018}',
    '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}',
    '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

fn cp1252_char(byte: u8) -> char {
    match byte {
        0x80..=0x9F => CP1252_HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

fn cp1252_byte(ch: char) -> Option<u8> {
    let code = u32::from(ch);
    if code < 0x80 || (0xA0..=0xFF).contains(&code) {
        return u8::try_from(code).ok();
    }
    CP1252_HIGH.iter().position(|c| *c == ch).and_then(|index| u8::try_from(0x80 + index).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_round_trips() {
        let text = "h\u{e9}llo \u{1F600}\r\nline\n";
        for encoding in [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le, Encoding::Utf16Be] {
            let bytes = encode(text, encoding).unwrap();
            let decoded = decode(&bytes);
            assert_eq!(decoded, Decoded { encoding, text: text.to_owned(), lossless: true }, "{encoding}");
        }
    }

    #[test]
    fn windows_1252_is_a_bijection_on_bytes() {
        let all: Vec<u8> = (0..=255u8).collect();
        // Not valid UTF-8, so read as Windows-1252.
        let decoded = decode(&all);
        assert_eq!(decoded.encoding, Encoding::Windows1252);
        assert_eq!(decoded.text.chars().count(), 256);
        assert_eq!(encode(&decoded.text, Encoding::Windows1252).unwrap(), all);
        assert_eq!(cp1252_char(0x99), '\u{2122}');
        assert_eq!(cp1252_byte('\u{f5}'), Some(0xF5));
        assert_eq!(
            encode("a\u{1F600}", Encoding::Windows1252),
            Err(Unrepresentable { encoding: Encoding::Windows1252, ch: '\u{1F600}' })
        );
        // C1 controls whose byte holds a printable character cannot be stored.
        assert_eq!(cp1252_byte('\u{0080}'), None);
        assert_eq!(cp1252_byte('\u{0081}'), Some(0x81));
    }

    #[test]
    fn broken_utf16_is_marked_lossy() {
        let odd = decode(&[0xFF, 0xFE, b'a', 0, b'b']);
        assert_eq!((odd.encoding, odd.text.as_str(), odd.lossless), (Encoding::Utf16Le, "a\u{fffd}", false));
        let lone_surrogate = decode(&[0xFF, 0xFE, 0x00, 0xD8, b'a', 0]);
        assert!(!lone_surrogate.lossless);
        let bad_utf8_after_bom = decode(b"\xef\xbb\xbfcaf\xe9");
        assert_eq!((bad_utf8_after_bom.encoding, bad_utf8_after_bom.lossless), (Encoding::Utf8Bom, false));
    }

    #[test]
    fn utf16_in_any_pieces_is_the_whole_decoded() {
        let text = "h\u{e9}\u{1F600}\r\nz";
        for encoding in [Encoding::Utf16Le, Encoding::Utf16Be] {
            let mut bytes = encode(text, encoding).unwrap();
            // A lone high surrogate and an odd final byte.
            bytes.extend_from_slice(if encoding == Encoding::Utf16Le {
                &[0x3D, 0xD8, b'q']
            } else {
                &[0xD8, 0x3D, b'q']
            });
            let whole = decode(&bytes);
            assert_eq!((whole.encoding, whole.lossless), (encoding, false));
            assert_eq!(Encoding::from_bom(&bytes), Some((encoding, 2)));
            for size in 1..8 {
                let mut decoder = Utf16Decoder::new(encoding == Encoding::Utf16Le);
                let mut out = String::new();
                for piece in bytes[2..].chunks(size) {
                    decoder.feed(piece, &mut out);
                }
                decoder.finish(&mut out);
                assert_eq!(out, whole.text, "{encoding} in pieces of {size}");
                assert!(!decoder.lossless());
            }
        }
        assert_eq!(Encoding::from_bom(b"\xef\xbb\xbfx"), Some((Encoding::Utf8Bom, 3)));
        assert_eq!(
            decode_as(b"caf\xe9", Encoding::Utf8Bom),
            Decoded { encoding: Encoding::Utf8Bom, text: "caf\u{fffd}".into(), lossless: false }
        );
        assert_eq!(decode_as(b"\x80\x99", Encoding::Windows1252).text, "\u{20ac}\u{2122}");
    }

    #[test]
    fn line_endings_never_double_the_carriage_return() {
        assert_eq!(LineEnding::CrLf.apply("x\r\ny\r\n"), "x\r\ny\r\n");
        assert_eq!(LineEnding::CrLf.apply("a\rb\n"), "a\rb\r\n");
        assert_eq!(normalize_newlines("a\r\nb\rc\n"), "a\nb\rc\n");
        assert_eq!(LineEnding::detect(""), LineEnding::Lf);
        assert_eq!(LineEnding::detect("\r\n"), LineEnding::CrLf);
    }
}
