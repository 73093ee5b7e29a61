//! Glob's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// Glob's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob pattern to match file paths against, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`.
    pub pattern: String,
    /// The folder to search in. Leave it out to search the current working directory; do not
    /// pass "undefined" or "null". Must be an existing folder if given.
    #[serde(default)]
    pub path: Option<String>,
}

impl GlobInput {
    /// The `path` argument, with the empty string and the words "undefined" and "null" (which
    /// models sometimes send instead of leaving the field out) treated as absent.
    pub fn search_path(&self) -> Option<&str> {
        self.path.as_deref().map(str::trim).filter(|path| !matches!(*path, "" | "undefined" | "null"))
    }
}
