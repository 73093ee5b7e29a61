//! Grep's input.

use std::borrow::Cow;

use agent_tools_core::semantic;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// Lines or entries shown when `head_limit` is left out (Claude Code's 250).
pub const DEFAULT_HEAD_LIMIT: u64 = 250;

/// What Grep reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The matching lines themselves (`path:line:text`), with optional context lines.
    Content,
    /// Only the paths of files that contain a match, most recently modified first.
    #[default]
    FilesWithMatches,
    /// For each file with matches, how many lines match (`path:count`).
    Count,
}

/// A plain string enum (as Claude Code's schema has it), without per-value sub-schemas.
impl JsonSchema for OutputMode {
    fn schema_name() -> Cow<'static, str> {
        "OutputMode".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["content", "files_with_matches", "count"]})
    }
}

/// Grep's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to look for, in Rust regex syntax (as ripgrep uses). Characters
    /// such as `(`, `)`, `[`, `{`, `}`, `.`, `*`, `+`, `?` and `|` are operators: escape them with
    /// a backslash to search for them literally, e.g. `foo\(` or `interface\{\}`.
    pub pattern: String,
    /// The file or folder to search. Leave it out to search the current working directory; do
    /// not pass "undefined" or "null".
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files whose names match this glob, e.g. `*.rs`, `*.{ts,tsx}` or
    /// `src/**/*.py`. Several globs may be given separated by spaces or commas; a glob starting
    /// with `!` excludes the files it matches.
    #[serde(default)]
    pub glob: Option<String>,
    /// What to report: `content` shows matching lines, `files_with_matches` (the default) lists
    /// the files that match, `count` gives the number of matching lines per file.
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// JSON key `-B`. Lines of context to show before each match (`content` mode only).
    #[schemars(description = "Lines of context to show before each match (`content` mode only).")]
    #[serde(rename = "-B", default, deserialize_with = "semantic::opt_u64")]
    pub before_context: Option<u64>,
    /// JSON key `-A`. Lines of context to show after each match (`content` mode only).
    #[schemars(description = "Lines of context to show after each match (`content` mode only).")]
    #[serde(rename = "-A", default, deserialize_with = "semantic::opt_u64")]
    pub after_context: Option<u64>,
    /// JSON key `-C`. Lines of context to show before and after each match (`content` mode
    /// only). Overrides `-B` and `-A`.
    #[schemars(
        description = "Lines of context to show before and after each match (`content` mode only). Overrides `-B` and `-A`."
    )]
    #[serde(rename = "-C", default, deserialize_with = "semantic::opt_u64")]
    pub context_short: Option<u64>,
    /// Lines of context to show before and after each match (`content` mode only). Same as
    /// `-C`, and takes precedence over it.
    #[serde(default, deserialize_with = "semantic::opt_u64")]
    pub context: Option<u64>,
    /// JSON key `-n`. Show line numbers (`content` mode only). On unless set to false.
    #[schemars(description = "Show line numbers (`content` mode only). On unless set to false.")]
    #[serde(rename = "-n", default, deserialize_with = "semantic::opt_bool")]
    pub line_numbers: Option<bool>,
    /// JSON key `-i`. Ignore upper and lower case when matching.
    #[schemars(description = "Ignore upper and lower case when matching.")]
    #[serde(rename = "-i", default, deserialize_with = "semantic::opt_bool")]
    pub case_insensitive: Option<bool>,
    /// JSON key `-o`. Show only the matched part of each line, one match per output line
    /// (`content` mode only).
    #[schemars(
        description = "Show only the matched part of each line, one match per output line (`content` mode only)."
    )]
    #[serde(rename = "-o", default, deserialize_with = "semantic::opt_bool")]
    pub only_matching: Option<bool>,
    /// JSON key `type`. Only search files of this type, using ripgrep's type names, e.g. `rust`,
    /// `py`, `js`, `ts`, `go`, `java`, `md`. Usually quicker than a `glob` for common languages.
    #[schemars(
        description = "Only search files of this type, using ripgrep's type names, e.g. `rust`, `py`, `js`, `ts`, `go`, `java`, `md`. Usually quicker than a `glob` for common languages."
    )]
    #[serde(rename = "type", default)]
    pub file_type: Option<String>,
    /// Show at most this many output lines (`content`), files (`files_with_matches`) or
    /// `path:count` entries (`count`), after skipping `offset`. Defaults to 250; 0 means no limit
    /// (use it sparingly: large results fill the context).
    #[serde(default, deserialize_with = "semantic::opt_u64")]
    pub head_limit: Option<u64>,
    /// Skip this many output lines, files or entries before applying `head_limit`, to page
    /// through a long result. Defaults to 0.
    #[serde(default, deserialize_with = "semantic::opt_u64")]
    pub offset: Option<u64>,
    /// Let the pattern match across line breaks: `.` also matches a newline and `\n` may be used
    /// in the pattern. Off by default (each line is matched on its own).
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    pub multiline: Option<bool>,
}

impl GrepInput {
    /// The `path` argument, with the empty string and the words "undefined" and "null" (which
    /// models sometimes send instead of leaving the field out) treated as absent.
    pub fn search_path(&self) -> Option<&str> {
        self.path.as_deref().map(str::trim).filter(|path| !matches!(*path, "" | "undefined" | "null"))
    }

    /// The `glob` argument, blank treated as absent.
    pub fn glob_filter(&self) -> Option<&str> {
        self.glob.as_deref().map(str::trim).filter(|glob| !glob.is_empty())
    }

    /// The `type` argument, blank treated as absent.
    pub fn type_filter(&self) -> Option<&str> {
        self.file_type.as_deref().map(str::trim).filter(|name| !name.is_empty())
    }

    /// The output mode (default `files_with_matches`).
    pub fn mode(&self) -> OutputMode {
        self.output_mode.unwrap_or_default()
    }

    /// Context lines `(before, after)` for `content` mode: `context` wins over `-C`, which wins
    /// over `-B`/`-A`. Always `(0, 0)` in the other modes.
    pub fn context_lines(&self) -> (u64, u64) {
        if self.mode() != OutputMode::Content {
            return (0, 0);
        }
        match self.context.or(self.context_short) {
            Some(both) => (both, both),
            None => (self.before_context.unwrap_or(0), self.after_context.unwrap_or(0)),
        }
    }

    /// Whether `content` lines carry line numbers (default true).
    pub fn show_line_numbers(&self) -> bool {
        self.line_numbers.unwrap_or(true)
    }

    /// Whether only the matched parts are shown (`content` mode only).
    pub fn only_matching(&self) -> bool {
        self.mode() == OutputMode::Content && self.only_matching.unwrap_or(false)
    }

    /// The page size; `None` means unlimited (`head_limit: 0`).
    pub fn limit(&self) -> Option<u64> {
        match self.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT) {
            0 => None,
            limit => Some(limit),
        }
    }

    /// Entries skipped before the page (default 0).
    pub fn skip(&self) -> u64 {
        self.offset.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> GrepInput {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn context_precedence_is_context_then_c_then_a_b() {
        let base = json!({"pattern": "x", "output_mode": "content", "-A": 1, "-B": 2});
        assert_eq!(parse(base.clone()).context_lines(), (2, 1));
        let mut with_c = base.clone();
        with_c["-C"] = json!(3);
        assert_eq!(parse(with_c.clone()).context_lines(), (3, 3));
        with_c["context"] = json!("4");
        assert_eq!(parse(with_c).context_lines(), (4, 4));
        let mut files = base;
        files["output_mode"] = json!("files_with_matches");
        assert_eq!(parse(files).context_lines(), (0, 0));
    }

    #[test]
    fn defaults_and_lenient_scalars() {
        let input = parse(json!({"pattern": "x"}));
        assert_eq!(input.mode(), OutputMode::FilesWithMatches);
        assert!(input.show_line_numbers());
        assert_eq!(input.limit(), Some(DEFAULT_HEAD_LIMIT));
        assert_eq!(input.skip(), 0);
        let input = parse(json!({"pattern": "x", "-n": "false", "head_limit": "0", "offset": "2", "path": "null"}));
        assert!(!input.show_line_numbers());
        assert_eq!(input.limit(), None);
        assert_eq!(input.skip(), 2);
        assert_eq!(input.search_path(), None);
    }
}
