//! Read's input.

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;

/// Read's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// The absolute path of the file to read (a relative path is resolved against the working
    /// directory).
    pub file_path: String,
    /// The line number to start reading at, counting from 1. Only needed for large files.
    #[serde(default, deserialize_with = "semantic::opt_u64")]
    #[schemars(range(min = 0))]
    pub offset: Option<u64>,
    /// How many lines to read. Only needed for large files.
    #[serde(default, deserialize_with = "semantic::opt_u64")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub limit: Option<u64>,
    /// PDF files only: the pages to read, as one page ("3"), a range ("1-5") or a first page to
    /// the end ("3-"); pages count from 1, and one call reads at most 20 pages.
    #[serde(default)]
    pub pages: Option<String>,
    /// Read a file over the size limit anyway, and with a larger token budget: only when all
    /// of it is truly needed, or the user asked for the whole file.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    pub allow_large: Option<bool>,
}
