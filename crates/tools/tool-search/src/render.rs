//! ToolSearch's output → `tool_result` content. The exact strings live here.

use agent_tools_core::{ContentPart, ToolResultBlock};
use serde::Serialize;

/// The result text when nothing matched (Claude Code's, verbatim).
pub const NO_MATCHES: &str = "No matching deferred tools found";

/// What ToolSearch produced (Claude Code's output data: `{matches, query, total_deferred_tools}`;
/// `pending_mcp_servers` is never set here, since MCP servers are connected before the pool is
/// built).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSearchOutput {
    /// The names found, best first.
    pub matches: Vec<String>,
    /// The query as given.
    pub query: String,
    /// How many deferred tools the pool holds.
    pub total_deferred_tools: usize,
}

/// The `tool_result`: [`NO_MATCHES`] as text, or one `{"type": "tool_reference", "tool_name"}`
/// part per match, in order.
pub fn result_block(output: &ToolSearchOutput, tool_use_id: &str) -> ToolResultBlock {
    if output.matches.is_empty() {
        return ToolResultBlock::text(tool_use_id, NO_MATCHES);
    }
    ToolResultBlock::parts(tool_use_id, output.matches.iter().map(ContentPart::tool_reference).collect())
}
