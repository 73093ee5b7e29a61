//! JSON that keeps its layout: where each value sits in the text ([`parse`] → [`Node`]), how the
//! file is laid out ([`Layout`]), new values written in that layout ([`write_value`]), and the
//! inside of an object or array rebuilt item by item with the text between items kept
//! ([`Items`]).
//!
//! A notebook is changed by replacing the text of one cell (or of the cells list's inside) and
//! nothing else, so every other byte of the file — other cells, numbers, escapes, key order,
//! indentation, the final newline — stays as it was.

use std::ops::Range;

use serde_json::Value;

/// Deepest nesting parsed (serde_json, which validates the text first, stops at 128).
const MAX_DEPTH: usize = 256;

/// A JSON value and where it is in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Byte range of the value (from its first to its last character).
    pub span: Range<usize>,
    /// What it is.
    pub kind: Kind,
}

/// The kinds of [`Node`] that matter here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An object and its members, in text order.
    Object(Vec<Member>),
    /// An array and its elements.
    Array(Vec<Node>),
    /// A string, number, `true`, `false` or `null`.
    Scalar,
}

/// One member of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The decoded key.
    pub key: String,
    /// Where the key (with its quotes) starts.
    pub key_start: usize,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The members, for an object.
    pub fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(members) => members,
            _ => &[],
        }
    }

    /// The elements, for an array.
    pub fn elements(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(elements) => elements,
            _ => &[],
        }
    }

    /// The value of the last member named `key` (the one a JSON reader keeps), for an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.members().iter().rev().find(|member| member.key == key).map(|member| &member.value)
    }
}

/// The parse of a whole text.
#[derive(Debug)]
pub struct Parsed {
    /// The top-level value.
    pub root: Node,
    /// Whether a string escapes a non-ASCII character as `\uXXXX` (a sign of `ensure_ascii`).
    pub escaped_non_ascii: bool,
}

/// Finds where every value of `text` is. `None` when `text` is not one JSON value (callers
/// validate it with serde_json first, for its error messages; this never panics either way).
pub fn parse(text: &str) -> Option<Parsed> {
    let mut scan = Scan { text, bytes: text.as_bytes(), pos: 0, escaped_non_ascii: false };
    let root = scan.value(0)?;
    scan.skip_whitespace();
    (scan.pos == scan.bytes.len()).then_some(Parsed { root, escaped_non_ascii: scan.escaped_non_ascii })
}

struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    escaped_non_ascii: bool,
}

impl Scan<'_> {
    fn skip_whitespace(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_whitespace();
        let start = self.pos;
        let kind = match self.bytes.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_whitespace();
                if self.eat(b'}').is_none() {
                    loop {
                        self.skip_whitespace();
                        let key_start = self.pos;
                        self.string()?;
                        let key = serde_json::from_str::<String>(self.text.get(key_start..self.pos)?).ok()?;
                        self.skip_whitespace();
                        self.eat(b':')?;
                        let value = self.value(depth + 1)?;
                        members.push(Member { key, key_start, value });
                        self.skip_whitespace();
                        if self.eat(b',').is_none() {
                            self.eat(b'}')?;
                            break;
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.pos += 1;
                let mut elements = Vec::new();
                self.skip_whitespace();
                if self.eat(b']').is_none() {
                    loop {
                        elements.push(self.value(depth + 1)?);
                        self.skip_whitespace();
                        if self.eat(b',').is_none() {
                            self.eat(b']')?;
                            break;
                        }
                    }
                }
                Kind::Array(elements)
            }
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while let Some(byte) = self.bytes.get(self.pos) {
                    if matches!(byte, b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                if self.pos == start {
                    return None;
                }
                Kind::Scalar
            }
        };
        Some(Node { span: start..self.pos, kind })
    }

    /// Skips a string, its quotes included; notes `\u` escapes of non-ASCII characters.
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => {
                    if self.bytes.get(self.pos + 1)? == &b'u' {
                        let hex = self.text.get(self.pos + 2..self.pos + 6)?;
                        if u32::from_str_radix(hex, 16).ok()? >= 0x80 {
                            self.escaped_non_ascii = true;
                        }
                        self.pos += 6;
                    } else {
                        self.pos += 2;
                    }
                }
                _ => self.pos += 1,
            }
        }
    }
}

/// How a JSON file is laid out, so new values look like the old ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The line break (`\n`, or `\r\n` in a file written with CRLF).
    pub newline: &'static str,
    /// One level of indentation (Jupyter writes one space), or `None` for JSON on one line.
    pub indent: Option<String>,
    /// Between a key and its value (`": "` as Python and Jupyter write it, or `":"`).
    pub colon: String,
    /// Between items on one line, in one-line JSON (`", "` or `","`).
    pub comma: String,
    /// Whether non-ASCII characters are written as `\uXXXX` (Python's `ensure_ascii`); Jupyter
    /// writes them as they are.
    pub ensure_ascii: bool,
}

impl Default for Layout {
    /// Jupyter's layout: one-space indentation, `": "`, characters as they are.
    fn default() -> Self {
        Self {
            newline: "\n",
            indent: Some(" ".to_owned()),
            colon: ": ".to_owned(),
            comma: ", ".to_owned(),
            ensure_ascii: false,
        }
    }
}

impl Layout {
    /// The layout of `text`, as seen in its top-level object: the indentation of its first
    /// member, the text between that member's key and value, and between its first two members.
    /// Jupyter's layout where the text shows nothing.
    pub fn detect(text: &str, parsed: &Parsed) -> Self {
        let mut layout = Self { ensure_ascii: text.is_ascii() && parsed.escaped_non_ascii, ..Self::default() };
        let members = parsed.root.members();
        let Some(first) = members.first() else {
            return layout;
        };
        let lead = text.get(parsed.root.span.start + 1..first.key_start).unwrap_or_default();
        match lead.rfind('\n') {
            Some(at) => {
                layout.indent = Some(lead[at + 1..].to_owned());
                layout.newline = if lead[..at].ends_with('\r') { "\r\n" } else { "\n" };
            }
            None => layout.indent = None,
        }
        if let Some(colon) = key_end(text, first.key_start).and_then(|end| text.get(end..first.value.span.start)) {
            layout.colon = colon.to_owned();
        }
        if let Some(second) = members.get(1)
            && let Some(between) = text.get(first.value.span.end..second.key_start)
            && !between.contains('\n')
        {
            layout.comma = between.to_owned();
        }
        layout
    }
}

/// Where the key string starting at `key_start` ends (after its closing quote).
fn key_end(text: &str, key_start: usize) -> Option<usize> {
    let mut scan = Scan { text, bytes: text.as_bytes(), pos: key_start, escaped_non_ascii: false };
    scan.string()?;
    Some(scan.pos)
}

/// Appends `value` to `out` as Python's `json.dumps` writes it in `layout`, for a value on a line
/// indented by `indent` (`None`: on one line). Empty arrays and objects are `[]` and `{}`.
pub fn write_value(out: &mut String, value: &Value, layout: &Layout, indent: Option<&str>) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => write_string(out, text, layout.ensure_ascii),
        Value::Array(items) => {
            write_container(out, ('[', ']'), items.iter().map(|item| (None, item)), items.is_empty(), layout, indent);
        }
        Value::Object(members) => {
            let entries = members.iter().map(|(key, value)| (Some(key.as_str()), value));
            write_container(out, ('{', '}'), entries, members.is_empty(), layout, indent);
        }
    }
}

fn write_container<'v>(
    out: &mut String,
    (open, close): (char, char),
    entries: impl Iterator<Item = (Option<&'v str>, &'v Value)>,
    empty: bool,
    layout: &Layout,
    indent: Option<&str>,
) {
    out.push(open);
    if empty {
        out.push(close);
        return;
    }
    let inner = match (indent, &layout.indent) {
        (Some(indent), Some(unit)) => Some(format!("{indent}{unit}")),
        _ => None,
    };
    for (index, (key, value)) in entries.enumerate() {
        match &inner {
            Some(inner) => {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(layout.newline);
                out.push_str(inner);
            }
            None if index > 0 => out.push_str(&layout.comma),
            None => {}
        }
        if let Some(key) = key {
            write_string(out, key, layout.ensure_ascii);
            out.push_str(&layout.colon);
        }
        write_value(out, value, layout, inner.as_deref());
    }
    if let (Some(_), Some(indent)) = (&inner, indent) {
        out.push_str(layout.newline);
        out.push_str(indent);
    }
    out.push(close);
}

/// Appends `text` as a JSON string the way Python writes it: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`,
/// `\f`, other control characters as `\u00XX` (lower-case hex); with `ensure_ascii` every
/// character outside ` `…`~` as `\uXXXX` (surrogate pairs above U+FFFF).
pub fn write_string(out: &mut String, text: &str, ensure_ascii: bool) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ch if u32::from(ch) < 0x20 || (ensure_ascii && !(' '..='~').contains(&ch)) => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
}

/// The inside of an object or array as its items and the text between them, to add or remove
/// items while every other byte stays: `{` + lead + item + sep + item … + trail + `}`.
#[derive(Debug, Clone)]
pub struct Items {
    /// Each item: the text before it (the lead for the first, else the separator that was there)
    /// and its own text.
    items: Vec<(String, String)>,
    /// The text before the first item.
    lead: String,
    /// The text between items, for new ones.
    sep: String,
    /// The text after the last item.
    trail: String,
    /// The indentation of an item's line (`None` when the items share one line).
    pub indent: Option<String>,
}

impl Items {
    /// The items of `node` (an object's members from key to value, or an array's elements),
    /// where `node` sits on a line indented by `indent` (`None`: one-line JSON).
    pub fn of(text: &str, node: &Node, layout: &Layout, indent: Option<&str>) -> Self {
        let spans: Vec<Range<usize>> = match &node.kind {
            Kind::Object(members) => members.iter().map(|member| member.key_start..member.value.span.end).collect(),
            Kind::Array(elements) => elements.iter().map(|element| element.span.clone()).collect(),
            Kind::Scalar => Vec::new(),
        };
        let open = node.span.start + 1;
        let close = node.span.end.saturating_sub(1).max(open);
        let piece = |range: Range<usize>| text.get(range).unwrap_or_default().to_owned();
        let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
            // Empty: lay new items out as the file's layout says.
            let item_indent = match (indent, &layout.indent) {
                (Some(indent), Some(unit)) => Some(format!("{indent}{unit}")),
                _ => None,
            };
            let (lead, trail) = match (&item_indent, indent) {
                (Some(item_indent), Some(indent)) => {
                    (format!("{}{item_indent}", layout.newline), format!("{}{indent}", layout.newline))
                }
                _ => (String::new(), String::new()),
            };
            let sep = if lead.is_empty() { layout.comma.clone() } else { format!(",{lead}") };
            let indent = item_indent;
            return Self { items: Vec::new(), lead, sep, trail, indent };
        };
        let lead = piece(open..first.start);
        let trail = piece(last.end..close);
        let mut items = Vec::with_capacity(spans.len());
        let mut before = lead.clone();
        for (index, span) in spans.iter().enumerate() {
            if index > 0 {
                before = piece(spans[index - 1].end..span.start);
            }
            items.push((before.clone(), piece(span.clone())));
        }
        let sep = match items.get(1) {
            Some((sep, _)) => sep.clone(),
            None if lead.contains('\n') => format!(",{lead}"),
            None => format!("{}{lead}", layout.comma),
        };
        let indent = lead.rfind('\n').map(|at| lead[at + 1..].to_owned());
        Self { items, lead, sep, trail, indent }
    }

    /// Replaces the text of item `index`.
    pub fn set(&mut self, index: usize, body: String) {
        if let Some(item) = self.items.get_mut(index) {
            item.1 = body;
        }
    }

    /// Inserts `body` as item `index` (at the end when past it).
    pub fn insert(&mut self, index: usize, body: String) {
        let index = index.min(self.items.len());
        if index == 0 {
            if let Some(first) = self.items.first_mut() {
                first.0.clone_from(&self.sep);
            }
            self.items.insert(0, (self.lead.clone(), body));
        } else {
            self.items.insert(index, (self.sep.clone(), body));
        }
    }

    /// Removes item `index`.
    pub fn remove(&mut self, index: usize) {
        if index >= self.items.len() {
            return;
        }
        self.items.remove(index);
        if index == 0
            && let Some(first) = self.items.first_mut()
        {
            first.0.clone_from(&self.lead);
        }
    }

    /// The inside text (between the brackets): empty when no item is left, as Python writes
    /// `[]` and `{}`.
    pub fn render(&self) -> String {
        if self.items.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        for (before, body) in &self.items {
            out.push_str(before);
            out.push_str(body);
        }
        out.push_str(&self.trail);
        out
    }
}

/// Splits `text` into lines as Python's `str.splitlines(keepends=True)` does, which is how
/// nbformat stores a cell's source: each line keeps its line break (`\n`, `\r\n`, `\r`, and the
/// other breaks Python knows), the last has none unless the text ends with one, and an empty text
/// has no lines.
///
/// ```
/// # use agent_tool_notebook_edit::split_lines;
/// assert_eq!(split_lines("a\nb"), ["a\n", "b"]);
/// assert_eq!(split_lines("a\r\nb\n"), ["a\r\n", "b\n"]);
/// assert!(split_lines("").is_empty());
/// ```
pub fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        let end = match ch {
            '\r' => match chars.peek() {
                Some((next, '\n')) => {
                    let end = next + 1;
                    chars.next();
                    end
                }
                _ => at + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                at + ch.len_utf8()
            }
            _ => continue,
        };
        lines.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_the_values() {
        let text = "{\n \"a\": [1, {\"b\": \"x\\\"y\"}],\n \"c\": null\n}\n";
        let parsed = parse(text).unwrap();
        let a = parsed.root.get("a").unwrap();
        assert_eq!(&text[a.span.clone()], "[1, {\"b\": \"x\\\"y\"}]");
        assert_eq!(&text[a.elements()[1].get("b").unwrap().span.clone()], "\"x\\\"y\"");
        assert_eq!(&text[parsed.root.get("c").unwrap().span.clone()], "null");
        assert!(!parsed.escaped_non_ascii);
        assert!(parse("{\"a\": 1").is_none());
        assert!(parse("{} x").is_none());
        assert!(parse("").is_none());
        assert!(parse("[\"\\u00e9\"]").unwrap().escaped_non_ascii);
        assert!(!parse("[\"\\\\u00e9\"]").unwrap().escaped_non_ascii);
    }

    #[test]
    fn layouts_are_detected() {
        let jupyter = "{\n \"cells\": [],\n \"nbformat\": 4\n}\n";
        assert_eq!(Layout::detect(jupyter, &parse(jupyter).unwrap()), Layout::default());
        let two = "{\r\n  \"cells\":[]\r\n}";
        let layout = Layout::detect(two, &parse(two).unwrap());
        assert_eq!((layout.newline, layout.indent.as_deref(), layout.colon.as_str()), ("\r\n", Some("  "), ":"));
        let compact = "{\"cells\":[],\"nbformat\":4}";
        let layout = Layout::detect(compact, &parse(compact).unwrap());
        assert_eq!((layout.indent, layout.colon.as_str(), layout.comma.as_str()), (None, ":", ","));
        let ascii = "{\"a\": \"caf\\u00e9\"}";
        assert!(Layout::detect(ascii, &parse(ascii).unwrap()).ensure_ascii);
    }

    #[test]
    fn values_are_written_as_python_writes_them() {
        let value =
            serde_json::json!({"a": [], "b": {}, "c": ["x\n", "y"], "d": null, "e": "\u{e9}\u{1F600}\u{7f}\u{1}\t"});
        let mut out = String::new();
        write_value(&mut out, &value, &Layout::default(), Some("  "));
        assert_eq!(
            out,
            "{\n   \"a\": [],\n   \"b\": {},\n   \"c\": [\n    \"x\\n\",\n    \"y\"\n   ],\n   \"d\": null,\n   \"e\": \"\u{e9}\u{1F600}\u{7f}\\u0001\\t\"\n  }"
        );
        let ascii = Layout { ensure_ascii: true, indent: None, ..Layout::default() };
        let mut out = String::new();
        write_value(&mut out, &value, &ascii, None);
        assert_eq!(
            out,
            "{\"a\": [], \"b\": {}, \"c\": [\"x\\n\", \"y\"], \"d\": null, \"e\": \"\\u00e9\\ud83d\\ude00\\u007f\\u0001\\t\"}"
        );
    }

    #[test]
    fn items_keep_the_text_between_them() {
        let text = "[\n  1,\n  2,\n  3\n ]";
        let node = parse(text).unwrap().root;
        let layout = Layout::default();
        let mut items = Items::of(text, &node, &layout, Some(" "));
        assert_eq!(items.render(), &text[1..text.len() - 1]);
        assert_eq!(items.indent.as_deref(), Some("  "));
        items.insert(0, "0".into());
        items.insert(4, "4".into());
        items.remove(2);
        assert_eq!(format!("[{}]", items.render()), "[\n  0,\n  1,\n  3,\n  4\n ]");
        for _ in 0..4 {
            items.remove(0);
        }
        assert_eq!(format!("[{}]", items.render()), "[]");
        items.insert(0, "9".into());
        assert_eq!(format!("[{}]", items.render()), "[\n  9\n ]");

        let empty = parse("[]").unwrap().root;
        let mut items = Items::of("[]", &empty, &layout, Some("  "));
        assert_eq!(items.indent.as_deref(), Some("   "));
        items.insert(0, "1".into());
        items.insert(1, "2".into());
        assert_eq!(format!("[{}]", items.render()), "[\n   1,\n   2\n  ]");

        let one_line = parse("[1, 2]").unwrap().root;
        let mut items = Items::of("[1, 2]", &one_line, &Layout { indent: None, ..layout }, None);
        items.insert(1, "5".into());
        assert_eq!(format!("[{}]", items.render()), "[1, 5, 2]");
        assert_eq!(items.indent, None);
    }

    #[test]
    fn lines_split_as_python_splits_them() {
        assert_eq!(split_lines("# Title\nLine one\nLine two"), ["# Title\n", "Line one\n", "Line two"]);
        assert_eq!(split_lines("a\rb\u{2028}c\n\n"), ["a\r", "b\u{2028}", "c\n", "\n"]);
        assert_eq!(split_lines("x"), ["x"]);
    }
}
