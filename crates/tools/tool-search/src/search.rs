//! The search itself: `select:` lookups and the keyword scoring, free of the tool contract's
//! plumbing. Mirrors Claude Code's `ToolSearchTool.ts` (`parseToolName`, `searchToolsWithKeywords`).

use std::sync::Arc;

use agent_tools_core::{Tool, tool_matches_name};
use regex::Regex;

/// The `select:` prefix (matched case-insensitively).
pub const SELECT_PREFIX: &str = "select:";

/// Prefix of MCP tool names.
const MCP_PREFIX: &str = "mcp__";

/// A tool name cut into lower-cased search parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameParts {
    /// The parts: for `mcp__slack__send_message` `["slack", "send", "message"]`, for
    /// `NotebookEdit` `["notebook", "edit"]`.
    pub parts: Vec<String>,
    /// The parts joined by spaces (`slack send message`, `notebook edit`).
    pub full: String,
    /// Whether the name is an MCP tool's (`mcp__…`), which weighs name matches more.
    pub is_mcp: bool,
}

/// Cuts a tool name into parts (Claude Code's `parseToolName`): an MCP name loses its `mcp__`
/// prefix and is split on `__` and `_`; any other name is split where a lower-case letter meets
/// an upper-case one and on `_`. Parts are lower-cased; empty parts are dropped.
pub fn name_parts(name: &str) -> NameParts {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        let rest = rest.to_lowercase();
        let parts = rest.split('_').filter(|part| !part.is_empty()).map(str::to_owned).collect();
        let full = rest.replace("__", " ").replace('_', " ");
        return NameParts { parts, full, is_mcp: true };
    }
    let mut spaced = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if previous.is_some_and(|p| p.is_ascii_lowercase()) && c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        spaced.push(if c == '_' { ' ' } else { c });
        previous = Some(c);
    }
    let parts: Vec<String> = spaced.to_lowercase().split_whitespace().map(str::to_owned).collect();
    let full = parts.join(" ");
    NameParts { parts, full, is_mcp: false }
}

/// The tools a `select:` query names (comma-separated, trimmed), each looked up by name or alias
/// among `deferred` first, then among `all`; duplicates are removed and unknown names skipped
/// (Claude Code's `select:` handling). `list` is the text after `select:`.
pub fn select(list: &str, deferred: &[Arc<dyn Tool>], all: &[Arc<dyn Tool>]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for wanted in list.split(',').map(str::trim).filter(|name| !name.is_empty()) {
        let tool = deferred
            .iter()
            .find(|tool| tool_matches_name(tool.as_ref(), wanted))
            .or_else(|| all.iter().find(|tool| tool_matches_name(tool.as_ref(), wanted)));
        if let Some(tool) = tool
            && !found.iter().any(|name| name == tool.name())
        {
            found.push(tool.name().to_owned());
        }
    }
    found
}

/// A whole-word matcher for `term` (JavaScript's `\b…\b`, ASCII word characters).
fn word_pattern(term: &str) -> Option<Regex> {
    Regex::new(&format!(r"(?-u:\b){}(?-u:\b)", regex::escape(term))).ok()
}

fn matches_word(pattern: Option<&Regex>, text: &str) -> bool {
    pattern.is_some_and(|pattern| pattern.is_match(text))
}

/// One searchable tool: its name, parts, lower-cased description (its prompt) and search hint.
struct Searchable {
    name: String,
    parts: NameParts,
    description: String,
    hint: Option<String>,
}

impl Searchable {
    fn new(tool: &dyn Tool, describe: &dyn Fn(&dyn Tool) -> String) -> Self {
        Self {
            name: tool.name().to_owned(),
            parts: name_parts(tool.name()),
            description: describe(tool).to_lowercase(),
            hint: tool.search_hint().map(str::to_lowercase).filter(|hint| !hint.is_empty()),
        }
    }

    /// Whether a required term appears in a name part (substring), the description or the hint
    /// (whole word).
    fn has(&self, term: &str, pattern: Option<&Regex>) -> bool {
        self.parts.parts.iter().any(|part| part.contains(term))
            || matches_word(pattern, &self.description)
            || self.hint.as_deref().is_some_and(|hint| matches_word(pattern, hint))
    }

    /// Claude Code's score of one term: name part exact +10 (MCP +12), else name-part substring
    /// +5 (MCP +6); if still 0 and the spaced full name contains it +3; search-hint word +4;
    /// description word +2.
    fn score(&self, term: &str, pattern: Option<&Regex>) -> u32 {
        let parts = &self.parts;
        let mut score = if parts.parts.iter().any(|part| part == term) {
            if parts.is_mcp { 12 } else { 10 }
        } else if parts.parts.iter().any(|part| part.contains(term)) {
            if parts.is_mcp { 6 } else { 5 }
        } else {
            0
        };
        if score == 0 && parts.full.contains(term) {
            score += 3;
        }
        if self.hint.as_deref().is_some_and(|hint| matches_word(pattern, hint)) {
            score += 4;
        }
        if matches_word(pattern, &self.description) {
            score += 2;
        }
        score
    }
}

/// A keyword search over `deferred` (Claude Code's `searchToolsWithKeywords`), at most `max`
/// names:
/// 1. a query equal to a tool's name (case-insensitive; deferred tools first, then `all`) gives
///    that tool alone;
/// 2. a query starting with `mcp__` (and longer) gives the deferred tools whose names start with
///    it, in pool order, when there are any;
/// 3. otherwise the query is split on whitespace; `+term` terms are required (every one must be
///    in a name part, the description or the search hint); every term is scored (see
///    [`name_parts`] and the weights above); tools scoring above 0 are sorted by score, ties in
///    pool order.
///
/// `describe` gives a tool's description (its prompt); it is called once per deferred tool.
pub fn keyword_search(
    query: &str,
    deferred: &[Arc<dyn Tool>],
    all: &[Arc<dyn Tool>],
    max: usize,
    describe: &dyn Fn(&dyn Tool) -> String,
) -> Vec<String> {
    let query = query.trim().to_lowercase();
    let exact = deferred
        .iter()
        .find(|tool| tool.name().to_lowercase() == query)
        .or_else(|| all.iter().find(|tool| tool.name().to_lowercase() == query));
    if let Some(tool) = exact {
        return vec![tool.name().to_owned()];
    }
    if query.starts_with(MCP_PREFIX) && query.len() > MCP_PREFIX.len() {
        let prefixed: Vec<String> = deferred
            .iter()
            .filter(|tool| tool.name().to_lowercase().starts_with(&query))
            .take(max)
            .map(|tool| tool.name().to_owned())
            .collect();
        if !prefixed.is_empty() {
            return prefixed;
        }
    }
    let terms: Vec<&str> = query.split_whitespace().collect();
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for term in &terms {
        match term.strip_prefix('+') {
            Some(rest) if !rest.is_empty() => required.push(rest),
            _ => optional.push(*term),
        }
    }
    let scoring: Vec<(&str, Option<Regex>)> =
        required.iter().chain(&optional).map(|term| (*term, word_pattern(term))).collect();
    let required_count = required.len();
    let mut scored: Vec<(String, u32)> = deferred
        .iter()
        .map(|tool| Searchable::new(tool.as_ref(), describe))
        .filter(|tool| scoring[..required_count].iter().all(|(term, pattern)| tool.has(term, pattern.as_ref())))
        .map(|tool| {
            let total = scoring.iter().map(|(term, pattern)| tool.score(term, pattern.as_ref())).sum();
            (tool.name, total)
        })
        .filter(|(_, score)| *score > 0)
        .collect();
    // The sort is stable: equal scores keep pool order.
    scored.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    scored.into_iter().take(max).map(|(name, _)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_like_claude_code() {
        let mcp = name_parts("mcp__slack__send_message");
        assert_eq!(mcp.parts, ["slack", "send", "message"]);
        assert_eq!(mcp.full, "slack send message");
        assert!(mcp.is_mcp);
        let normal = name_parts("NotebookEdit");
        assert_eq!(normal.parts, ["notebook", "edit"]);
        assert_eq!(normal.full, "notebook edit");
        assert!(!normal.is_mcp);
        assert_eq!(name_parts("ListMcpResourcesTool").parts, ["list", "mcp", "resources", "tool"]);
        assert_eq!(name_parts("snake_case_Name").parts, ["snake", "case", "name"]);
        assert_eq!(name_parts("WebFetch").full, "web fetch");
        // Upper-case runs stay together, as Claude Code's `([a-z])([A-Z])` split does.
        assert_eq!(name_parts("LSPTool").parts, ["lsptool"]);
    }

    #[test]
    fn words_match_on_ascii_word_boundaries() {
        let pattern = word_pattern("file");
        assert!(matches_word(pattern.as_ref(), "edit a file."));
        assert!(!matches_word(pattern.as_ref(), "edit files"));
        // As in JavaScript, `é` is not a word character, so no boundary follows it before a space.
        assert!(!matches_word(word_pattern("café").as_ref(), "un café noir"));
        assert!(matches_word(word_pattern("café").as_ref(), "un cafés"));
    }
}
