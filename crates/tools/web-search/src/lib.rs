//! # agent-tool-web-search: the WebSearch tool
//!
//! Claude Code's `WebSearch`: one request to the Anthropic Messages API (`POST
//! {base_url}/v1/messages`) whose only tool is the server tool `web_search_20250305` (with the
//! call's `allowed_domains` or `blocked_domains`, `max_uses` 8) and whose user message is
//! `Perform a web search for the query: <query>`. The reply's `text` blocks and
//! `web_search_tool_result` blocks become the output's `results`, in order; the model sees them
//! as Claude Code lays them out (see [`render::render`]).
//!
//! The tool is enabled only with an API key ([`WebSearchConfig::api`]); the host leaves it out of
//! the pool otherwise. Read-only, concurrency-safe, deferred; permission passthrough (it asks
//! unless a tool-wide `WebSearch` allow rule, and suggests one). Input checks: code 1 for a
//! query shorter than 2 characters, code 2 when both domain lists are given. API errors,
//! timeouts and cancellation end the call with a clear error.
//!
//! Differences from Claude Code: the request is not streamed (no progress), and it goes to the
//! configured model (the host passes its small model) rather than the session's main model.
//!
//! ```
//! use agent_tool_web_search::{SearchApiConfig, WebSearchConfig, tool, tool_with};
//! // Searches go through the Messages API, so the tool is in a pool only with an API key; this
//! // example runs offline and shows just that (the crate's tests drive a local fake API).
//! assert!(!tool().is_enabled());
//! let keyed = tool_with(WebSearchConfig { api: Some(SearchApiConfig::new("sk-ant-…")) });
//! assert!(keyed.is_enabled());
//! assert_eq!(keyed.name(), "WebSearch");
//! ```

pub mod api;
mod input;
pub mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use agent_tools_core::{
    PermissionBehavior, PermissionResult, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination,
};
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};

pub use crate::api::SearchApiConfig;
pub use crate::input::WebSearchInput;
pub use crate::render::{CITE_REMINDER, SearchHit, SearchHits, SearchResult, WebSearchOutput};

/// The API name.
pub const NAME: &str = "WebSearch";

/// The message of validation error 1 (query missing or shorter than 2 characters).
pub const QUERY_TOO_SHORT: &str = "Error: Missing query";
/// The message of validation error 2 (both domain lists given).
pub const BOTH_DOMAIN_LISTS: &str =
    "Error: Cannot specify both allowed_domains and blocked_domains in the same request";

/// WebSearch's settings: where the Messages API is. `None` (the default) disables the tool.
#[derive(Debug, Clone, Default)]
pub struct WebSearchConfig {
    /// The API to search through.
    pub api: Option<SearchApiConfig>,
}

/// The WebSearch tool definition: its settings and its HTTP client (made on first use).
#[derive(Debug, Default)]
pub struct WebSearchTool {
    config: WebSearchConfig,
    client: OnceLock<Result<agent_tools_api::Client, String>>,
}

impl WebSearchTool {
    /// A tool with these settings.
    pub fn new(config: WebSearchConfig) -> Self {
        Self { config, client: OnceLock::new() }
    }

    /// The settings.
    pub fn config(&self) -> &WebSearchConfig {
        &self.config
    }

    fn api(&self) -> Result<(&SearchApiConfig, &agent_tools_api::Client), ToolError> {
        let Some(api) = self.config.api.as_ref().filter(|api| !api.credential.is_empty()) else {
            return Err(ToolError::failed("Web search is not available: no Anthropic API key is configured."));
        };
        let client = self.client.get_or_init(|| api::client(api));
        let client = client.as_ref().map_err(|err| ToolError::failed(err.clone()))?;
        Ok((api, client))
    }
}

/// WebSearch without an API key: disabled. For tests and hosts that check the definition.
pub fn tool() -> Arc<dyn Tool> {
    tool_with(WebSearchConfig::default())
}

/// WebSearch with these settings.
pub fn tool_with(config: WebSearchConfig) -> Arc<dyn Tool> {
    build_tool(WebSearchTool::new(config))
}

impl ToolDef for WebSearchTool {
    type Input = WebSearchInput;
    type Output = WebSearchOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Reads the network only: read-only, concurrency-safe, never destructive, open-world.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Fetch)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: true })
        .deferred()
        .search_hint("search the web for current information");

    fn summary(&self, input: &WebSearchInput) -> String {
        format!("Claude wants to search the web for: {}", input.query)
    }

    /// What the auto mode's classifier judges: The query.
    fn to_auto_classifier_input(&self, input: &WebSearchInput) -> serde_json::Value {
        serde_json::Value::String(input.query.clone())
    }

    fn is_enabled(&self) -> bool {
        self.config.api.as_ref().is_some_and(|api| !api.credential.is_empty())
    }

    fn user_facing_name(&self, _input: Option<&WebSearchInput>) -> String {
        "Web Search".to_owned()
    }

    fn activity_description(&self, input: &WebSearchInput) -> Option<String> {
        Some(format!("Searching for {}", input.query))
    }

    /// Code 1: query shorter than 2 characters; code 2: both domain lists given.
    async fn validate_input(&self, input: &WebSearchInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.query.chars().count() < 2 {
            return ValidationResult::error(QUERY_TOO_SHORT, 1);
        }
        if input.allowed_domains.is_some() && input.blocked_domains.is_some() {
            return ValidationResult::error(BOTH_DOMAIN_LISTS, 2);
        }
        ValidationResult::Ok
    }

    /// Passthrough: the general rules decide (a tool-wide `WebSearch` allow rule lets it run,
    /// otherwise the user is asked); the suggestion is that rule, in the local settings.
    async fn check_permissions(&self, _input: &WebSearchInput, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Passthrough {
            message: "WebSearch requires permission.".to_owned(),
            decision_reason: None,
            suggestions: vec![PermissionUpdate::AddRules {
                destination: PermissionUpdateDestination::LocalSettings,
                rules: vec![PermissionRuleValue { tool_name: NAME.to_owned(), rule_content: None }],
                behavior: PermissionBehavior::Allow,
            }],
            blocked_path: None,
        }
    }

    async fn call(
        &self,
        input: WebSearchInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<WebSearchOutput>, ToolError> {
        let started = Instant::now();
        let (config, client) = self.api()?;
        let request = api::request(config, &input);
        let reply = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            reply = api::send(client, &request) => reply.map_err(ToolError::failed)?,
        };
        let results = render::results_of(&reply.content);
        Ok(ToolResult::new(WebSearchOutput {
            query: input.query,
            results,
            duration_seconds: started.elapsed().as_secs_f64(),
        }))
    }

    fn map_tool_result(&self, output: &WebSearchOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
