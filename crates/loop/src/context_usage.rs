//! What fills an agent's context window, by category: the numbers of Claude Code's `/context`
//! command and the Agent SDKs' `get_context_usage` answer (`SDKControlGetContextUsageResponse`
//! of the TypeScript SDK: `categories`, `totalTokens`, `maxTokens`, `percentage` …).
//!
//! Tokens are estimated from text length (a token per 4 bytes of the JSON or text sent), not
//! counted by the API: close enough to see what takes the room. The conversation's share is
//! the last request's measured input when the history is busy (a query runs).

use serde::Serialize;
use serde_json::Value;

/// Bytes per estimated token.
const BYTES_PER_TOKEN: usize = 4;

/// A text's estimated tokens.
pub fn estimate_tokens(text: &str) -> u64 {
    u64::try_from(text.len().div_ceil(BYTES_PER_TOKEN)).unwrap_or(u64::MAX)
}

/// The context window's use (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContextUsage {
    /// Each category's tokens: system prompt, tools (loaded and deferred, built-in and MCP),
    /// messages, the autocompact buffer and the free space.
    pub categories: Vec<Category>,
    /// Tokens in use (everything but the free space, the buffer and deferred tools).
    pub total_tokens: u64,
    /// The window's size.
    pub max_tokens: u64,
    /// The window's size (no reduction applies here).
    pub raw_max_tokens: u64,
    /// `total_tokens` as a percentage of `max_tokens`, 0–100.
    pub percentage: f64,
    /// The model the next request asks.
    pub model: String,
    /// The conversation is compacted when it nears the window's end.
    pub is_auto_compact_enabled: bool,
    /// Tokens past which it is compacted.
    pub auto_compact_threshold: u64,
    /// CLAUDE.md files (not itemised here: they are part of the messages).
    pub memory_files: Vec<Value>,
    /// Each MCP tool's share.
    pub mcp_tools: Vec<McpToolUsage>,
    /// Agent definitions (not itemised here: they are part of the Agent tool's description).
    pub agents: Vec<Value>,
    /// The `/context` grid (not drawn here).
    pub grid_rows: Vec<Vec<Value>>,
}

/// One category of [`ContextUsage`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Category {
    /// `system_prompt`, `system_tools`, `system_tools_deferred`, `mcp_tools`,
    /// `mcp_tools_deferred`, `messages`, `autocompact_buffer` or `free_space`.
    pub id: &'static str,
    /// Its name for people.
    pub name: &'static str,
    /// Tokens.
    pub tokens: u64,
    /// The colour `/context` draws it in.
    pub color: &'static str,
    /// `used`, `deferred`, `buffer` or `free`.
    pub kind: &'static str,
    /// Tools sent only by name until ToolSearch loads them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_deferred: bool,
}

/// One MCP tool's share of [`ContextUsage`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct McpToolUsage {
    /// The tool's name (`mcp__server__tool`).
    pub name: String,
    /// Its server.
    pub server_name: String,
    /// Its definition's estimated tokens.
    pub tokens: u64,
    /// Sent in full (not deferred).
    pub is_loaded: bool,
}

/// What [`ContextUsage::measure`] reads.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The system prompt's blocks.
    pub system: &'a [Value],
    /// The request's `tools` (a deferred one carries `defer_loading`).
    pub tools: &'a [Value],
    /// The conversation's estimated tokens.
    pub messages: u64,
    /// The model.
    pub model: &'a str,
    /// The window's size in tokens.
    pub window: u64,
    /// The share of it at which the conversation is compacted (0–1).
    pub compact_at: f64,
}

impl ContextUsage {
    /// Measures what `inputs` put in the window.
    pub fn measure(inputs: Inputs<'_>) -> Self {
        let system: u64 = inputs
            .system
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .map(estimate_tokens)
            .sum();
        let (mut builtin, mut builtin_deferred, mut mcp, mut mcp_deferred) = (0, 0, 0, 0);
        let mut mcp_tools = Vec::new();
        for tool in inputs.tools {
            let tokens = estimate_tokens(&tool.to_string());
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let deferred = tool.get("defer_loading").is_some();
            match (name.strip_prefix("mcp__"), deferred) {
                (Some(rest), _) => {
                    if deferred {
                        mcp_deferred += tokens
                    } else {
                        mcp += tokens
                    }
                    mcp_tools.push(McpToolUsage {
                        name: name.to_owned(),
                        server_name: rest.split("__").next().unwrap_or_default().to_owned(),
                        tokens,
                        is_loaded: !deferred,
                    });
                }
                (None, true) => builtin_deferred += tokens,
                (None, false) => builtin += tokens,
            }
        }
        let total = system + builtin + mcp + inputs.messages;
        let threshold = (inputs.window as f64 * inputs.compact_at) as u64;
        let buffer = inputs.window.saturating_sub(threshold);
        let free = inputs.window.saturating_sub(total).saturating_sub(buffer);
        let category = |id, name, tokens, color, kind| Category { id, name, tokens, color, kind, is_deferred: false };
        let deferred =
            |id, name, tokens| Category { is_deferred: true, ..category(id, name, tokens, "inactive", "deferred") };
        let categories = vec![
            category("system_prompt", "System prompt", system, "promptBorder", "used"),
            category("system_tools", "System tools", builtin, "inactive", "used"),
            deferred("system_tools_deferred", "System tools (deferred)", builtin_deferred),
            category("mcp_tools", "MCP tools", mcp, "cyan_FOR_SUBAGENTS_ONLY", "used"),
            deferred("mcp_tools_deferred", "MCP tools (deferred)", mcp_deferred),
            category("messages", "Messages", inputs.messages, "purple_FOR_SUBAGENTS_ONLY", "used"),
            category("autocompact_buffer", "Autocompact buffer", buffer, "inactive", "buffer"),
            category("free_space", "Free space", free, "promptBorder", "free"),
        ];
        let percentage = if inputs.window == 0 { 0.0 } else { total as f64 * 100.0 / inputs.window as f64 };
        Self {
            categories,
            total_tokens: total,
            max_tokens: inputs.window,
            raw_max_tokens: inputs.window,
            percentage: (percentage * 100.0).round() / 100.0,
            model: inputs.model.to_owned(),
            is_auto_compact_enabled: true,
            auto_compact_threshold: threshold,
            memory_files: Vec::new(),
            mcp_tools,
            agents: Vec::new(),
            grid_rows: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn categories_add_up_and_serialise_as_the_sdks_read_them() {
        let system = [json!({"type": "text", "text": "x".repeat(400)})];
        let tools = [
            json!({"name": "Read", "description": "d"}),
            json!({"name": "mcp__calc__add", "description": "d"}),
            json!({"name": "mcp__calc__sub", "description": "d", "defer_loading": true}),
        ];
        let usage = ContextUsage::measure(Inputs {
            system: &system,
            tools: &tools,
            messages: 1_000,
            model: "claude-sonnet-4-5",
            window: 200_000,
            compact_at: 0.9,
        });
        assert_eq!(usage.categories[0].tokens, 100);
        let read = estimate_tokens(&tools[0].to_string());
        assert_eq!(usage.total_tokens, 100 + read + usage.categories[3].tokens + 1_000);
        assert_eq!(usage.auto_compact_threshold, 180_000);
        let sum: u64 = usage.categories.iter().filter(|c| c.kind != "deferred").map(|c| c.tokens).sum();
        assert_eq!(sum, 200_000);
        assert_eq!(usage.mcp_tools.len(), 2);
        assert_eq!((usage.mcp_tools[1].server_name.as_str(), usage.mcp_tools[1].is_loaded), ("calc", false));
        let wire = serde_json::to_value(&usage).unwrap();
        for key in [
            "categories",
            "totalTokens",
            "maxTokens",
            "rawMaxTokens",
            "percentage",
            "model",
            "isAutoCompactEnabled",
            "memoryFiles",
            "mcpTools",
            "agents",
            "gridRows",
        ] {
            assert!(wire.get(key).is_some(), "{key} missing: {wire}");
        }
        assert_eq!(wire["categories"][2]["isDeferred"], json!(true));
        assert!(wire["categories"][0].get("isDeferred").is_none());
    }
}
