//! Write's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// Write's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// The absolute path of the file to create or replace (a relative path is resolved against
    /// the working directory). Missing folders are created.
    pub file_path: String,
    /// The whole new content of the file.
    pub content: String,
}
