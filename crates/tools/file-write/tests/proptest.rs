//! Properties of Write on generated files: random lines, line endings (LF, CRLF, mixed, with or
//! without a final line break) and encodings (UTF-8, UTF-8 with BOM, UTF-16LE/BE, Windows-1252),
//! overwritten with the same text after one random change (a line replaced, added or removed).
//! The file keeps its encoding; lines the new content keeps keep their bytes and line endings;
//! new lines take the ending of the lines around them; trailing whitespace goes only from new
//! lines outside Markdown; and no content makes the tool panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools_core::{FileStamp, content_hash};
use agent_tools_files::{Encoding, decode, encode, normalize_newlines};
use agent_tools_testkit::Session;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::json;

const PLAIN: &[char] = &['a', 'b', 'x', 'y', '1', ' ', ' ', '\t', '=', '"'];
const UNICODE: &[char] = &['\u{e9}', '\u{2192}', '\u{4e2d}', '\u{1F600}', '\u{a0}'];
/// Windows-1252 characters stored as bytes 0x80–0xBF (never UTF-8 on their own).
const CP1252: &[char] = &['\u{20ac}', '\u{2026}', '\u{2019}', '\u{2122}', '\u{b0}'];

const ENCODINGS: [Encoding; 5] =
    [Encoding::Utf8, Encoding::Utf8Bom, Encoding::Utf16Le, Encoding::Utf16Be, Encoding::Windows1252];

fn alphabet(encoding: Encoding) -> Vec<char> {
    let extra = if encoding == Encoding::Windows1252 { CP1252 } else { UNICODE };
    PLAIN.iter().chain(extra).copied().collect()
}

fn body(encoding: Encoding) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(alphabet(encoding)), 0..8)
        .prop_map(|chars| chars.into_iter().collect())
}

/// One line: its text (unique: it starts with a tag), and its ending (`None` for a last line
/// without a line break).
type Line = (String, Option<&'static str>);

#[derive(Debug, Clone)]
struct Case {
    encoding: Encoding,
    old: Vec<Line>,
    /// 0: replace line `at`, 1: insert a line before `at`, 2: remove line `at`.
    change: usize,
    at: Index,
    new_body: String,
}

fn case() -> impl Strategy<Value = Case> {
    (0..ENCODINGS.len(), 0..3usize, 1..7usize, any::<bool>()).prop_flat_map(|(encoding, style, count, final_break)| {
        let encoding = ENCODINGS[encoding];
        let crlf = match style {
            0 => Just(false).boxed(),
            1 => Just(true).boxed(),
            _ => any::<bool>().boxed(),
        };
        (proptest::collection::vec((body(encoding), crlf), count), 0..3usize, any::<Index>(), body(encoding)).prop_map(
            move |(lines, change, at, new_body)| {
                let last = lines.len() - 1;
                let old = lines
                    .into_iter()
                    .enumerate()
                    .map(|(index, (text, crlf))| {
                        let ending = if index == last && !final_break {
                            None
                        } else if crlf {
                            Some("\r\n")
                        } else {
                            Some("\n")
                        };
                        (format!("L{index}:{text}"), ending)
                    })
                    .collect();
                Case { encoding, old, change, at, new_body }
            },
        )
    })
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

fn join(lines: &[Line]) -> String {
    lines.iter().map(|(text, ending)| format!("{text}{}", ending.unwrap_or_default())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn unchanged_lines_keep_their_bytes_and_new_lines_follow_their_neighbours(
        case in case(),
        markdown in any::<bool>(),
    ) {
        let Case { encoding, old, change, at, new_body } = case;
        let raw = join(&old);
        let before = encode(&raw, encoding).unwrap();
        let seen = decode(&before);
        prop_assert_eq!(&seen.text, &raw);
        let encoding = seen.encoding;
        let old_lines: Vec<&str> = old.iter().map(|(text, _)| text.as_str()).collect();
        let crlf = old.iter().filter(|(_, ending)| *ending == Some("\r\n")).count();
        let lf = old.iter().filter(|(_, ending)| *ending == Some("\n")).count();
        let dominant = if crlf > lf { "\r\n" } else { "\n" };
        let strip = |text: &str| -> String {
            if markdown || old_lines.contains(&text) { text.to_owned() } else { text.trim_end_matches([' ', '\t']).to_owned() }
        };

        // The new content (line breaks as `\n`) and the lines expected in the file.
        let mut content: Vec<(String, bool)> = old.iter().map(|(text, ending)| (text.clone(), ending.is_some())).collect();
        let mut expected: Vec<Line> = old.clone();
        let line = format!("N:{new_body}");
        match change {
            0 => {
                let at = at.index(old.len());
                // A replaced line keeps its ending (a last line without one stays without).
                content[at].0.clone_from(&line);
                expected[at].0 = strip(&line);
            }
            1 => {
                let at = at.index(old.len() + 1);
                let ending = if at > 0 {
                    old[at - 1].1
                } else {
                    old.iter().find_map(|(_, ending)| *ending)
                };
                content.insert(at, (line.clone(), true));
                if at == old.len() && old[at - 1].1.is_none() {
                    // A line added after a last line without a break: that line gains one.
                    content[at - 1].1 = true;
                    content[at].1 = false;
                    let previous = old[..at - 1].iter().rev().find_map(|(_, ending)| *ending).unwrap_or(dominant);
                    expected[at - 1].1 = Some(previous);
                    expected.insert(at, (strip(&line), None));
                } else {
                    expected.insert(at, (strip(&line), Some(ending.unwrap_or(dominant))));
                }
            }
            _ => {
                // (When the last line goes, the one before it keeps its line break.)
                let at = at.index(old.len());
                content.remove(at);
                expected.remove(at);
            }
        }
        let content: String =
            content.iter().map(|(text, brk)| format!("{text}{}", if *brk { "\n" } else { "" })).collect();
        let mixed = crlf > 0 && lf > 0;
        let expected_raw = if mixed {
            join(&expected)
        } else {
            let flat: String = expected
                .iter()
                .map(|(text, ending)| format!("{text}{}", if ending.is_some() { "\n" } else { "" }))
                .collect();
            if crlf > 0 { flat.replace('\n', "\r\n") } else { flat }
        };

        let name = if markdown { "f.md" } else { "f.txt" };
        let s = Session::new();
        let path = s.put(name, &before);
        mark_read(&s, name);
        let (result, is_error) = runtime().block_on(
            s.run(agent_tool_file_write::tool().as_ref(), json!({"file_path": path, "content": content})),
        );
        prop_assert!(!is_error, "{}", result);
        let after = s.bytes(name);
        let decoded = decode(&after);
        let expected_encoding =
            if encoding == Encoding::Windows1252 && expected_raw.is_ascii() { Encoding::Utf8 } else { encoding };
        prop_assert_eq!(decoded.encoding, expected_encoding);
        prop_assert_eq!(&decoded.text, &expected_raw);
        prop_assert_eq!(after, encode(&expected_raw, expected_encoding).unwrap());
    }

    #[test]
    fn any_content_is_written_without_panic(
        case in case(),
        content in "[ab\n\r \t\u{e9}\u{20ac}\u{4e2d}]{0,12}",
    ) {
        let raw = join(&case.old);
        let before = encode(&raw, case.encoding).unwrap();
        let s = Session::new();
        let path = s.put("f.txt", &before);
        mark_read(&s, "f.txt");
        let (result, is_error) = runtime().block_on(
            s.run(agent_tool_file_write::tool().as_ref(), json!({"file_path": path, "content": content})),
        );
        prop_assert!(!is_error, "{}", result);
        let decoded = decode(&s.bytes("f.txt"));
        prop_assert!(decoded.lossless);
        // What the model reads back is what it wrote, less trailing spaces and tabs on new lines.
        let old_text = normalize_newlines(&raw);
        let kept: Vec<&str> = old_text.split('\n').collect();
        let want: Vec<String> = normalize_newlines(&content)
            .split('\n')
            .map(|line| {
                let trimmed = line.trim_end_matches([' ', '\t']);
                // A lone CR is never left at a line's end, where it would join the line break.
                if kept.contains(&line) || trimmed.ends_with('\r') { line.to_owned() } else { trimmed.to_owned() }
            })
            .collect();
        prop_assert_eq!(normalize_newlines(&decoded.text), want.join("\n"));
    }
}
