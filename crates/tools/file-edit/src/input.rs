//! Edit's input.

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;

/// Edit's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// The absolute path of the file to change (a relative path is resolved against the working
    /// directory).
    pub file_path: String,
    /// The exact text to find, copied from the file as Read showed it (without the line-number
    /// prefix). Empty to create a file that does not exist, or to fill an empty one.
    pub old_string: String,
    /// The text to put in its place. Must differ from `old_string`.
    pub new_string: String,
    /// Replace every occurrence of `old_string` instead of exactly one. Defaults to false.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    #[schemars(extend("default" = false))]
    pub replace_all: Option<bool>,
}

impl EditInput {
    /// Whether every occurrence is to be replaced.
    pub fn replace_all(&self) -> bool {
        self.replace_all.unwrap_or(false)
    }
}
