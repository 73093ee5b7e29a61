//! A small, safe reader for the YAML frontmatter of a markdown file: a skill's `SKILL.md`, a
//! legacy command, or an agent definition in `.claude/agents/*.md`.
//!
//! Such frontmatter is flat: `key: value` pairs whose values are plain or quoted strings,
//! booleans, flow lists (`[Read, Grep]`), block lists (`- Read` lines) and folded or literal block
//! scalars (`>` / `|`). This module reads exactly that subset and refuses anything else (nested
//! maps, anchors, tabs for indentation) with an error instead of guessing, so a malformed file is
//! skipped with a warning. No YAML crate is in the workspace's lock file, and a full YAML
//! implementation would be a large dependency for a dozen flat keys.
//!
//! ```
//! use agent_tools_core::frontmatter::{self, Value};
//! let (head, body) = frontmatter::split("---\nname: reviewer\ntools: [Read, Grep]\n---\nReview code.\n").unwrap();
//! let map = frontmatter::parse(head.unwrap()).unwrap();
//! assert_eq!(map["name"], Value::Text("reviewer".into()));
//! assert_eq!(map["tools"].to_list(), ["Read", "Grep"]);
//! assert_eq!(body, "Review code.\n");
//! ```

use std::collections::BTreeMap;

use crate::permissions::parse_rule_list;

/// A frontmatter value: a string (booleans and numbers stay text) or a list of strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar, unquoted and trimmed.
    Text(String),
    /// A list of scalars.
    List(Vec<String>),
}

impl Value {
    /// The value as a list: a list as is; a scalar split on commas and spaces outside
    /// parentheses (Claude Code accepts `allowed-tools: Read, Grep` as well as a YAML list, and
    /// splits it with `parseToolListFromCLI`, core's [`parse_rule_list`]), keeping parenthesised
    /// rule content such as `Bash(git status:*)` whole.
    pub fn to_list(&self) -> Vec<String> {
        match self {
            Self::List(items) => items.iter().filter(|item| !item.trim().is_empty()).cloned().collect(),
            Self::Text(text) => parse_rule_list(text),
        }
    }

    /// The value as text (a list joined with `, `).
    pub fn to_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::List(items) => items.join(", "),
        }
    }

    /// True for `true`, `yes` and `on` (any case).
    pub fn is_true(&self) -> bool {
        matches!(self, Self::Text(text) if matches!(text.to_ascii_lowercase().as_str(), "true" | "yes" | "on"))
    }
}

/// Parsed frontmatter: keys in file order would not matter, so a sorted map.
pub type Frontmatter = BTreeMap<String, Value>;

/// Splits a markdown file into its frontmatter text and body. A file that does not start with a
/// `---` line has no frontmatter (`None`, the whole text is the body); one whose frontmatter is
/// never closed is an error.
pub fn split(text: &str) -> Result<(Option<&str>, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return Ok((None, text));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((Some(&rest[..offset]), &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err("the frontmatter has no closing `---` line".to_owned())
}

/// Parses frontmatter text (without its `---` lines). Errors name the line (1-based).
pub fn parse(text: &str) -> Result<Frontmatter, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut map = Frontmatter::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let number = i + 1;
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(format!("line {number}: unexpected indentation"));
        }
        let Some((key, raw)) = line.split_once(':') else {
            return Err(format!("line {number}: expected `key: value`"));
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) || key.starts_with(['-', '[', '{', '&', '*', '!']) {
            return Err(format!("line {number}: `{key}` is not a plain key"));
        }
        let raw = strip_comment(raw).trim();
        let value = if raw.is_empty() {
            // A block list, or an empty value.
            let mut items = Vec::new();
            while i < lines.len() {
                let next = lines[i];
                let trimmed = next.trim_start();
                if next.trim().is_empty() {
                    i += 1;
                    continue;
                }
                if !next.starts_with(' ') && !trimmed.starts_with("- ") && trimmed != "-" {
                    break;
                }
                let Some(item) = trimmed.strip_prefix('-') else {
                    return Err(format!("line {}: nested maps are not supported", i + 1));
                };
                items.push(scalar(strip_comment(item).trim(), i + 1)?);
                i += 1;
            }
            if items.is_empty() { Value::Text(String::new()) } else { Value::List(items) }
        } else if raw.strip_prefix(['>', '|']).is_some_and(|rest| rest.trim_matches(['-', '+']).is_empty()) {
            let folded = raw.starts_with('>');
            let mut block = Vec::new();
            while i < lines.len() && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty()) {
                block.push(lines[i].trim());
                i += 1;
            }
            while block.last().is_some_and(|line| line.is_empty()) {
                block.pop();
            }
            Value::Text(if folded { fold(&block) } else { block.join("\n") })
        } else if let Some(inner) = raw.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(format!("line {number}: unclosed `[`"));
            };
            let items: Result<Vec<String>, String> = split_flow(inner)
                .into_iter()
                .filter(|item| !item.trim().is_empty())
                .map(|item| scalar(item.trim(), number))
                .collect();
            Value::List(items?)
        } else if raw.starts_with(['{', '&', '*', '!']) {
            return Err(format!("line {number}: maps, anchors and tags are not supported"));
        } else {
            // A plain scalar may continue on more-indented lines (folded with spaces).
            let mut text = scalar(raw, number)?;
            while i < lines.len() && lines[i].starts_with([' ', '\t']) && !lines[i].trim().is_empty() {
                text.push(' ');
                text.push_str(lines[i].trim());
                i += 1;
            }
            Value::Text(text)
        };
        map.insert(key.to_owned(), value);
    }
    Ok(map)
}

/// Joins the lines of a folded block: single newlines become spaces, blank lines stay breaks.
fn fold(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line);
        }
    }
    out
}

/// Splits the inside of a flow list on commas outside quotes and parentheses.
fn split_flow(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut depth, mut quote) = (0, 0usize, None::<char>);
    for (index, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                out.push(&inner[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out
}

/// Drops a ` #` comment outside quotes.
fn strip_comment(raw: &str) -> &str {
    let mut quote = None::<char>;
    let mut previous = ' ';
    for (index, c) in raw.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') if previous.is_whitespace() || index == 0 => quote = Some(c),
            (None, '#') if previous.is_whitespace() => return &raw[..index],
            _ => {}
        }
        previous = c;
    }
    raw
}

/// A scalar: quotes removed (`''` inside single quotes, the common escapes inside double ones).
fn scalar(raw: &str, number: usize) -> Result<String, String> {
    if let Some(inner) = raw.strip_prefix('"') {
        let Some(inner) = inner.strip_suffix('"') else {
            return Err(format!("line {number}: unclosed `\"`"));
        };
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        return Ok(out);
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        let Some(inner) = inner.strip_suffix('\'') else {
            return Err(format!("line {number}: unclosed `'`"));
        };
        return Ok(inner.replace("''", "'"));
    }
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_subset_skills_use() {
        let text = "name: pdf\ndescription: >\n  Fill PDF forms\n  and merge files.\nallowed-tools: [Read, \"Bash(git diff:*)\"]\nhooks:\n  - one\n  - two\nmodel: 'claude-x' # comment\ndisable-model-invocation: true\n";
        let map = parse(text).unwrap();
        assert_eq!(map["name"], Value::Text("pdf".into()));
        assert_eq!(map["description"], Value::Text("Fill PDF forms and merge files.".into()));
        assert_eq!(map["allowed-tools"].to_list(), vec!["Read", "Bash(git diff:*)"]);
        assert_eq!(map["hooks"], Value::List(vec!["one".into(), "two".into()]));
        assert_eq!(map["model"], Value::Text("claude-x".into()));
        assert!(map["disable-model-invocation"].is_true());
    }

    #[test]
    fn a_comma_list_keeps_rule_content_whole() {
        assert_eq!(
            Value::Text("Read, Bash(git status:*) Grep".into()).to_list(),
            vec!["Read", "Bash(git status:*)", "Grep"]
        );
        // As Claude Code's `parseToolListFromCLI`: only a space or a comma separates (this crate's
        // own splitter used to split on tabs and line breaks too).
        assert_eq!(Value::Text("Read\tGrep, Write".into()).to_list(), vec!["Read\tGrep", "Write"]);
    }

    #[test]
    fn refuses_what_it_does_not_understand() {
        assert!(parse("name: [a, b").is_err());
        assert!(parse("just text").is_err());
        assert!(parse("  indented: x").is_err());
        assert!(parse("meta:\n  nested: map").is_err());
        assert!(parse("desc: \"open").is_err());
        assert!(parse("x: {a: 1}").is_err());
    }

    #[test]
    fn splits_frontmatter_from_the_body() {
        assert_eq!(split("---\nname: a\n---\nBody\n").unwrap(), (Some("name: a\n"), "Body\n"));
        assert_eq!(split("No frontmatter").unwrap(), (None, "No frontmatter"));
        assert!(split("---\nname: a\nBody").is_err());
        assert_eq!(split("---\nname: a\n---").unwrap(), (Some("name: a\n"), ""));
    }
}
