//! WebSearch's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// WebSearch's input (Claude Code's field names; the object is closed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// The search query to use
    #[schemars(length(min = 2))]
    pub query: String,
    /// Only include search results from these domains
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// Never include search results from these domains
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_domains: Option<Vec<String>>,
}
