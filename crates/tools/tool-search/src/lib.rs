//! # agent-tool-tool-search: the ToolSearch tool
//!
//! Claude Code's `ToolSearch`: when tool search is on, the schemas of *deferred* tools (MCP tools
//! and tools that set `should_defer`, see [`agent_tools_core::is_deferred`]) are not sent to the
//! model; it only learns their names, and calls ToolSearch to load the ones it needs.
//!
//! Input `{query, max_results?}` (`max_results` defaults to 5). Two kinds of query:
//! - `select:A,B` (prefix case-insensitive): each name is looked up by name or alias among the
//!   deferred tools, then among all tools; duplicates removed, unknown names skipped
//!   (`select:KillShell` finds TaskStop through its alias). `max_results` does not apply.
//! - keywords: an exact tool name gives that tool; `mcp__server…` gives the deferred tools with
//!   that prefix; otherwise the deferred tools are scored term by term (name parts, search
//!   hint, description; `+term` required) — see [`search::keyword_search`].
//!
//! The output data is `{matches, query, total_deferred_tools}`. The `tool_result` is the text
//! `No matching deferred tools found` when nothing matched, else one
//! `{"type": "tool_reference", "tool_name": NAME}` block per match, which the Messages API
//! expands into the tools' definitions (clients that cannot expand them show the definitions as
//! text: see the host's `render_tool_references`).
//!
//! The tool searches the pool in the call's context (`ctx.options.tools`). It is read-only,
//! concurrency-safe, always allowed, and never deferred itself (`always_load`).
//!
//! Deliberate differences: `max_results` below 1 (or not finite) is refused by the input check
//! instead of silently slicing the list; Claude Code's "MCP servers still connecting" note never
//! appears (servers are connected before the pool is built).
//!
//! ```
//! # async fn demo() {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let mut ctx = ToolUseContext::new(std::env::current_dir().unwrap());
//! ctx.options.tools = vec![agent_tool_tool_search::tool()].into();
//! let done = call_tool(agent_tool_tool_search::tool().as_ref(), "toolu_1",
//!     serde_json::json!({"query": "select:Nothing"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "No matching deferred tools found");
//! # }
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(demo());
//! ```

mod input;
mod render;
pub mod search;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    PromptOptions, TOOL_SEARCH_NAME, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool, is_deferred,
};

pub use crate::input::{DEFAULT_MAX_RESULTS, ToolSearchInput};
pub use crate::render::{NO_MATCHES, ToolSearchOutput};

/// The API name (`ToolSearch`).
pub const NAME: &str = TOOL_SEARCH_NAME;

/// The ToolSearch tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolSearchTool;

/// ToolSearch, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ToolSearchTool)
}

/// Runs a query against `tools` (the pool) with at most `max` keyword results; `describe` gives
/// a tool's description (its prompt). What [`ToolSearchTool`]'s `call` does, for hosts that
/// search without a context.
pub fn search_pool(
    query: &str,
    max: usize,
    tools: &[Arc<dyn Tool>],
    describe: &dyn Fn(&dyn Tool) -> String,
) -> ToolSearchOutput {
    let deferred: Vec<Arc<dyn Tool>> = tools.iter().filter(|tool| is_deferred(tool.as_ref())).cloned().collect();
    let trimmed = query.trim();
    let is_select =
        trimmed.get(..search::SELECT_PREFIX.len()).is_some_and(|head| head.eq_ignore_ascii_case(search::SELECT_PREFIX));
    let matches = if is_select {
        search::select(&trimmed[search::SELECT_PREFIX.len()..], &deferred, tools)
    } else {
        search::keyword_search(query, &deferred, tools, max, describe)
    };
    ToolSearchOutput { matches, query: query.to_owned(), total_deferred_tools: deferred.len() }
}

impl ToolDef for ToolSearchTool {
    type Input = ToolSearchInput;
    type Output = ToolSearchOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities =
        Capabilities::new(ToolKind::Search).scope(AgentScope::Everywhere).flags(ToolFlags::LOCAL_READ_ONLY);

    fn summary(&self, input: &ToolSearchInput) -> String {
        format!("Search for tools: {}", input.query)
    }

    fn always_load(&self) -> bool {
        true
    }

    fn activity_description(&self, _input: &ToolSearchInput) -> Option<String> {
        Some("Searching for tools".to_owned())
    }

    /// `max_results` must be a number of at least 1.
    async fn validate_input(&self, input: &ToolSearchInput, _ctx: &ToolUseContext) -> ValidationResult {
        match (input.max_results, input.limit()) {
            (Some(given), None) => {
                ValidationResult::error(format!("max_results must be a number of at least 1, not {given}."), 1)
            }
            _ => ValidationResult::Ok,
        }
    }

    async fn call(
        &self,
        input: ToolSearchInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<ToolSearchOutput>, ToolError> {
        let max = input.limit().unwrap_or(DEFAULT_MAX_RESULTS);
        let tools = &ctx.options.tools;
        let options = PromptOptions { tools, permission_context: Some(&ctx.permission_context) };
        let describe = |tool: &dyn Tool| tool.description(&options);
        Ok(ToolResult::new(search_pool(&input.query, max, tools, &describe)))
    }

    fn map_tool_result(&self, output: &ToolSearchOutput, tool_use_id: &str) -> ToolResultBlock {
        render::result_block(output, tool_use_id)
    }
}
