//! Properties of Edit on generated files: random text, line endings (LF, CRLF, mixed, with or
//! without a final line break) and encodings (UTF-8, UTF-8 with BOM, UTF-16LE/BE, Windows-1252),
//! and a random unique piece of the text replaced. After each edit the bytes before and after the
//! edited span are identical, the file decodes (in its own encoding) to the expected text, the
//! new line breaks take the ending of the lines around them, and no input — also strings that do
//! not match — makes the tool panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools_core::{FileStamp, content_hash};
use agent_tools_files::{Encoding, decode, encode, normalize_newlines};
use agent_tools_testkit::Session;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::json;

/// Characters every encoding can store (no byte sequence that starts a binary signature).
const PLAIN: &[char] = &['a', 'b', 'c', 'x', 'y', 'z', '1', ' ', ' ', '\t', '=', '(', '"', '\''];
/// Beyond ASCII, for the Unicode encodings.
const UNICODE: &[char] = &['\u{e9}', '\u{fc}', '\u{2192}', '\u{4e2d}', '\u{1F600}', '\u{2019}', '\u{a0}'];
/// Windows-1252 characters stored as bytes 0x80–0xBF, which can never form UTF-8 on their own,
/// so a file holding one is always read as Windows-1252.
const CP1252: &[char] =
    &['\u{20ac}', '\u{2026}', '\u{2018}', '\u{2019}', '\u{2122}', '\u{a3}', '\u{a7}', '\u{b0}', '\u{bf}'];

const ENCODINGS: [Encoding; 5] =
    [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le, Encoding::Utf16Be, Encoding::Windows1252];

fn alphabet(encoding: Encoding) -> Vec<char> {
    let extra = if encoding == Encoding::Windows1252 { CP1252 } else { UNICODE };
    PLAIN.iter().chain(extra).copied().collect()
}

/// A generated file: its lines (text, and whether each ends in CRLF) and a final line break or not.
#[derive(Debug, Clone)]
struct Doc {
    encoding: Encoding,
    lines: Vec<(String, bool)>,
    final_break: bool,
}

impl Doc {
    /// The decoded text with its line endings, and the normalised offsets of the CRLF breaks.
    fn raw(&self) -> (String, String, Vec<usize>) {
        let (mut raw, mut text, mut crlf) = (String::new(), String::new(), Vec::new());
        for (index, (line, is_crlf)) in self.lines.iter().enumerate() {
            raw.push_str(line);
            text.push_str(line);
            if index + 1 < self.lines.len() || self.final_break {
                if *is_crlf {
                    crlf.push(text.len());
                    raw.push_str("\r\n");
                } else {
                    raw.push('\n');
                }
                text.push('\n');
            }
        }
        (raw, text, crlf)
    }
}

fn doc() -> impl Strategy<Value = Doc> {
    (0..ENCODINGS.len(), 0..3usize, 1..8usize, any::<bool>()).prop_flat_map(|(encoding, style, count, final_break)| {
        let encoding = ENCODINGS[encoding];
        let chars = alphabet(encoding);
        let line = proptest::collection::vec(proptest::sample::select(chars), 0..12)
            .prop_map(|chars| chars.into_iter().collect::<String>());
        let crlf = match style {
            0 => Just(false).boxed(),
            1 => Just(true).boxed(),
            _ => any::<bool>().boxed(),
        };
        proptest::collection::vec((line, crlf), count).prop_map(move |lines| Doc { encoding, lines, final_break })
    })
}

/// A replacement text over the file's alphabet and line breaks, with at least one letter.
fn replacement(encoding: Encoding) -> impl Strategy<Value = String> {
    let mut chars = alphabet(encoding);
    chars.extend(['\n', '\n']);
    (proptest::collection::vec(proptest::sample::select(chars), 0..10), any::<Index>()).prop_map(|(chars, at)| {
        let mut text: String = chars.into_iter().collect();
        let at = at.index(text.chars().count() + 1);
        let byte = text.char_indices().nth(at).map_or(text.len(), |(byte, _)| byte);
        text.insert(byte, 'Q');
        text
    })
}

/// The shortest piece of `text` starting at `start` that occurs at exactly one position (the
/// whole text at worst), on character boundaries.
fn unique_piece(text: &str, start: Index, len: Index) -> (usize, usize) {
    let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
    let first = start.index(bounds.len() - 1);
    let mut last = (first + 1 + len.index(4)).min(bounds.len() - 1);
    loop {
        let piece = &text[bounds[first]..bounds[last]];
        // Once at every position, overlapping ones too ("aa" is twice in "aaa").
        if bounds.iter().filter(|at| text[**at..].starts_with(piece)).count() == 1 {
            return (bounds[first], bounds[last]);
        }
        if last + 1 < bounds.len() {
            last += 1;
        } else {
            return (0, text.len());
        }
    }
}

/// Edit's trailing-whitespace rule, written out independently: strip spaces and tabs at the end
/// of each line of `new` that is not a line of `old`; the last piece only when it ends a line.
fn strip_model(new: &str, old: &str, ends_line: bool) -> String {
    let old_lines: Vec<&str> = old.split('\n').collect();
    let pieces: Vec<&str> = new.split('\n').collect();
    let last = pieces.len() - 1;
    pieces
        .iter()
        .enumerate()
        .map(|(index, piece)| {
            if (index < last || ends_line) && !old_lines.contains(piece) {
                piece.trim_end_matches([' ', '\t'])
            } else {
                piece
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn bom_len(encoding: Encoding) -> usize {
    match encoding {
        Encoding::Utf8Bom => 3,
        Encoding::Utf16Le | Encoding::Utf16Be => 2,
        Encoding::Utf8 | Encoding::Windows1252 => 0,
    }
}

fn mark_read(s: &Session, name: &str) {
    let bytes = s.bytes(name);
    s.ctx.read_file_state.set(
        &s.path(name),
        FileStamp {
            content: normalize_newlines(&decode(&bytes).text).into(),
            timestamp_ms: 0,
            offset: None,
            limit: None,
            is_partial_view: false,
            content_hash: Some(content_hash(&bytes)),
            from_read: true,
        },
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn an_edit_changes_its_span_and_nothing_else(
        (doc, new) in doc().prop_flat_map(|doc| { let encoding = doc.encoding; (Just(doc), replacement(encoding)) }),
        start in any::<Index>(),
        len in any::<Index>(),
        markdown in any::<bool>(),
    ) {
        let (raw, text, crlf) = doc.raw();
        prop_assume!(!text.is_empty());
        let before = encode(&raw, doc.encoding).unwrap();
        let seen = decode(&before);
        // ASCII-only text in a "Windows-1252" file is plain UTF-8, and that is what it is.
        let encoding = seen.encoding;
        prop_assert_eq!(&seen.text, &raw);

        let (s_at, e_at) = unique_piece(&text, start, len);
        let old = &text[s_at..e_at];
        prop_assume!(old != new);
        let ends_line = e_at == text.len() || text.as_bytes()[e_at] == b'\n';
        let new_expected = if markdown { new.clone() } else { strip_model(&new, old, ends_line) };
        let expected_text = format!("{}{}{}", &text[..s_at], new_expected, &text[e_at..]);

        let name = if markdown { "f.md" } else { "f.txt" };
        let s = Session::new();
        let path = s.put(name, &before);
        mark_read(&s, name);
        let (result, is_error) = runtime().block_on(
            s.run(agent_tool_file_edit::tool().as_ref(), json!({"file_path": path, "old_string": old, "new_string": new})),
        );
        if expected_text == text {
            // The edit changes nothing once whitespace is stripped: refused, file untouched.
            prop_assert!(is_error, "{}", result);
            prop_assert_eq!(s.bytes(name), before);
            return Ok(());
        }
        prop_assert!(!is_error, "{}", result);
        let after = s.bytes(name);

        // The bytes before and after the span are the file's own.
        let raw_offset = |at: usize| at + crlf.iter().filter(|p| **p < at).count();
        let (raw_s, raw_e) = (raw_offset(s_at), raw_offset(e_at));
        let prefix = encode(&raw[..raw_s], encoding).unwrap().len();
        let suffix = encode(&raw[raw_e..], encoding).unwrap().len() - bom_len(encoding);
        prop_assert!(after.len() >= prefix + suffix);
        prop_assert_eq!(&after[..prefix], &before[..prefix]);
        prop_assert_eq!(&after[after.len() - suffix..], &before[before.len() - suffix..]);

        // The file decodes, in its encoding, to the expected text (a legacy file whose only
        // legacy characters were replaced is plain ASCII now, and reads as UTF-8).
        let decoded = decode(&after);
        let expected_encoding =
            if encoding == Encoding::Windows1252 && expected_text.is_ascii() { Encoding::Utf8 } else { encoding };
        prop_assert_eq!(decoded.encoding, expected_encoding);
        prop_assert_eq!(normalize_newlines(&decoded.text), expected_text);

        // The new line breaks all take one ending: the one the lines around the span have.
        let middle = &decoded.text[raw_s..decoded.text.len() - (raw.len() - raw_e)];
        let breaks = middle.matches('\n').count();
        let crlf_breaks = middle.matches("\r\n").count();
        let is_crlf = |at: usize| crlf.contains(&at);
        let inside: Vec<bool> = (s_at..e_at).filter(|at| text.as_bytes()[*at] == b'\n').map(is_crlf).collect();
        let (c, l) = (inside.iter().filter(|x| **x).count(), inside.iter().filter(|x| !**x).count());
        let want_crlf = if c != l {
            c > l
        } else if let Some(at) = text[e_at..].find('\n') {
            is_crlf(e_at + at)
        } else if let Some(at) = text[..s_at].rfind('\n') {
            is_crlf(at)
        } else {
            false
        };
        prop_assert_eq!(crlf_breaks, if want_crlf { breaks } else { 0 });
    }

    #[test]
    fn strings_that_do_not_match_never_panic_or_damage(
        doc in doc(),
        old in "[ab\n\r' \u{2019}\u{a0}]{0,6}",
        new in "[ab\n\r' \u{e9}\u{20ac}]{0,6}",
        replace_all in any::<bool>(),
    ) {
        let (raw, _, _) = doc.raw();
        let before = encode(&raw, doc.encoding).unwrap();
        let s = Session::new();
        let path = s.put("f.txt", &before);
        mark_read(&s, "f.txt");
        let (result, is_error) = runtime().block_on(s.run(
            agent_tool_file_edit::tool().as_ref(),
            json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": replace_all}),
        ));
        prop_assert!(!result.contains("worker failed"), "{}", result);
        let after = s.bytes("f.txt");
        if is_error {
            prop_assert_eq!(after, before);
        } else {
            // Still the same encoding, and still decodable without loss.
            let decoded = decode(&after);
            prop_assert!(decoded.lossless);
            let was = decode(&before).encoding;
            if !(was == Encoding::Windows1252 && after.is_ascii()) {
                prop_assert_eq!(decoded.encoding, was);
            }
        }
    }
}
