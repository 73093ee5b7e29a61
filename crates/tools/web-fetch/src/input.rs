//! WebFetch's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// WebFetch's input (Claude Code's field names, a strict object: unknown fields are refused).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The URL to fetch content from
    #[schemars(extend("format" = "uri"))]
    pub url: String,
    /// The prompt to run on the fetched content
    pub prompt: String,
}
