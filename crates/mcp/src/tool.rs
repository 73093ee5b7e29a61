//! One MCP server tool as an agent-tools tool definition ([`ToolDef`]) (Claude Code's `MCPTool` spread with the
//! server tool's name, schema, description and annotations).

use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::InputIssue;
use agent_tools_core::McpMeta;
use agent_tools_core::{
    InputError, MaxResultSize, PromptOptions, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolResultContent,
    ToolUseContext,
};
use agent_tools_core::{McpInfo, ToolFlags};
use agent_tools_core::{
    PermissionBehavior, PermissionResult, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination,
};
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value};

use crate::client::{CallError, McpOptions, ServerConnection};
use crate::schema::InputValidator;
use crate::transform::{SaveTarget, cap_output, error_message, transform_result};

/// Most characters of a server's tool description sent to the model (Claude Code's
/// `MAX_MCP_DESCRIPTION_LENGTH`).
pub const MAX_DESCRIPTION_CHARS: usize = 2_048;

/// Result size past which the executor saves a resource tool's result to a file (Claude Code's
/// 100,000 for its MCP tools; the host caps it at its 50,000). Server tools are bounded by the MCP
/// output cap instead (see [`McpTool`]).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// A description cut to [`MAX_DESCRIPTION_CHARS`] characters with `… [truncated]` appended.
pub fn truncate_description(description: &str) -> String {
    match description.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((end, _)) => format!("{}… [truncated]", &description[..end]),
        None => description.to_owned(),
    }
}

/// A server tool as an ordinary [`ToolDef`] (built with `build_tool`).
///
/// - name `mcp__<server>__<tool>`, at most 64 characters of `[a-zA-Z0-9_-]` (see
///   [`crate::names`]: long names are shortened with a hash, and permission rules, hooks and
///   ToolSearch use this listed name); `mcp_info` keeps the raw names, and calls go to the
///   server under its raw tool name;
/// - input schema: the server's `inputSchema`, verbatim. parsing checks the input
///   against it (compiled once, on the first call; see [`crate::schema`]), so a wrong or missing
///   field is an `InputValidationError` that never reaches the server — for a deferred tool the
///   executor adds its ToolSearch `select:` hint. A schema that does not compile only
///   leaves the "is an object" check;
/// - prompt: the server's description, truncated (see [`truncate_description`]);
/// - read-only and concurrency-safe ⇔ `readOnlyHint`; destructive ⇔ `destructiveHint`; open
///   world ⇔ `openWorldHint` (each `false` when absent); search hint and always-load from
///   `_meta["anthropic/searchHint"]` / `_meta["anthropic/alwaysLoad"]`;
/// - deferred; results are bounded by the MCP output cap (`MAX_MCP_OUTPUT_TOKENS`,
///   [`McpOptions::max_output_tokens`]): a longer result keeps its first `4 × cap` characters
///   inline, says it was cut, and points at the whole output saved under the session's folder.
///   The executor's own size limit does not apply on top
///   ([`MaxResultSize::Unlimited`]): Claude Code's 50,000-character limit would replace the
///   capped content with a 2 KB preview, leaving the model little of what the call returned;
/// - permission: passthrough, so the general rules decide (ask unless `mcp__srv__tool`,
///   `mcp__srv` or `mcp__srv__*` allows), suggesting an allow rule for the tool;
/// - user-facing name `<server> - <title or tool> (MCP)`.
pub struct McpTool {
    name: String,
    tool_name: String,
    title: Option<String>,
    description: String,
    schema: Value,
    output_schema: Option<Value>,
    validator: InputValidator,
    flags: ToolFlags,
    search_hint: Option<String>,
    always_load: bool,
    connection: Arc<ServerConnection>,
    tool_timeout: Option<Duration>,
    max_output_tokens: usize,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl McpTool {
    /// Wraps the `tools/list` entry `listed` (as JSON) of `connection`'s server, under the API
    /// name `name` (from [`crate::names::NameAllocator`]).
    pub(crate) fn new(connection: Arc<ServerConnection>, name: String, listed: &Value, options: &McpOptions) -> Self {
        let tool_name = listed_name(listed).to_owned();
        let annotations = listed.get("annotations").unwrap_or(&Value::Null);
        let hint = |key: &str| annotations.get(key).and_then(Value::as_bool).unwrap_or(false);
        let read_only = hint("readOnlyHint");
        let flags = ToolFlags {
            read_only,
            concurrency_safe: read_only,
            destructive: hint("destructiveHint"),
            open_world: hint("openWorldHint"),
        };
        let title = annotations
            .get("title")
            .or_else(|| listed.get("title"))
            .and_then(Value::as_str)
            .filter(|title| !title.is_empty())
            .map(str::to_owned);
        let meta = listed.get("_meta").unwrap_or(&Value::Null);
        let tool_timeout = connection.tool_timeout(&tool_name, options.tool_timeout);
        Self {
            name,
            description: truncate_description(listed.get("description").and_then(Value::as_str).unwrap_or_default()),
            schema: listed.get("inputSchema").cloned().unwrap_or_else(|| serde_json::json!({"type": "object"})),
            output_schema: listed.get("outputSchema").filter(|schema| schema.is_object()).cloned(),
            validator: InputValidator::new(),
            search_hint: meta.get("anthropic/searchHint").and_then(Value::as_str).map(str::to_owned),
            always_load: meta.get("anthropic/alwaysLoad").and_then(Value::as_bool).unwrap_or(false),
            tool_name,
            title,
            flags,
            connection,
            tool_timeout,
            max_output_tokens: options.max_output_tokens,
        }
    }

    async fn run(
        &self,
        arguments: Map<String, Value>,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<McpOutput>, ToolError> {
        let tool_use_id = ctx.tool_use_id.clone().unwrap_or_default();
        let params = serde_json::from_value::<CallToolRequestParams>(serde_json::json!({
            "name": self.tool_name,
            "arguments": arguments,
            "_meta": {"claudecode/toolUseId": tool_use_id},
        }))
        .unwrap_or_else(|_| CallToolRequestParams::new(self.tool_name.clone()).with_arguments(arguments));
        let server = &self.connection.name;
        let result = match self.connection.call_tool(params, self.tool_timeout, ctx, &self.name).await {
            Ok(result) => result,
            Err(CallError::Cancelled) => return Err(ToolError::Cancelled),
            Err(CallError::Timeout(limit)) => {
                return Err(ToolError::failed(format!(
                    "MCP server \"{server}\" tool \"{}\" timed out after {} ms",
                    self.tool_name,
                    limit.as_millis()
                )));
            }
            Err(CallError::Failed(error)) => {
                return Err(ToolError::failed(format!(
                    "MCP server \"{server}\" tool \"{}\" failed: {error}",
                    self.tool_name
                )));
            }
        };
        let result = serde_json::to_value(&result).unwrap_or(Value::Null);
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(ToolError::failed(error_message(&result)));
        }
        let save = SaveTarget { session_dir: ctx.options.session_dir.as_deref(), name: &tool_use_id };
        let content = cap_output(transform_result(&result, server, save), self.max_output_tokens, save);
        let structured = result.get("structuredContent").filter(|value| !value.is_null()).cloned();
        let meta = McpMeta { meta: result.get("_meta").cloned(), structured_content: structured.clone() };
        let mut done = ToolResult::new(McpOutput { content, structured: structured.unwrap_or(Value::Null) });
        done.mcp_meta = Some(meta);
        Ok(done)
    }
}

/// The raw name of a `tools/list` entry (empty when it has none).
pub(crate) fn listed_name(listed: &Value) -> &str {
    listed.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The refusal of an input that is not a JSON object.
fn not_an_object(tool: &str, value: &Value) -> InputError {
    InputError::Invalid {
        tool: tool.to_owned(),
        issues: vec![InputIssue::Invalid {
            path: String::new(),
            message: format!("The input must be a JSON object, not {}", agent_tools_core::type_phrase(value)),
        }],
    }
}

/// A server tool's output: the content the model sees (already capped) and the server's
/// `structuredContent`, which alone is the output's JSON (MCP `structuredContent` again, when
/// `agent-tools serve` passes it on).
pub struct McpOutput {
    content: ToolResultContent,
    structured: Value,
}

impl serde::Serialize for McpOutput {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.structured.serialize(serializer)
    }
}

impl ToolDef for McpTool {
    /// The family name: each server tool's own name is `mcp__<server>__<tool>` ([`McpTool`]).
    const NAME: &'static str = "mcp";

    const CAPABILITIES: agent_tools_core::Capabilities = agent_tools_core::Capabilities::DEFAULT.deferred();
    type Input = Map<String, Value>;
    type Output = McpOutput;

    fn name(&self) -> &str {
        &self.name
    }

    fn flags(&self) -> ToolFlags {
        self.flags
    }

    fn search_hint(&self) -> Option<&str> {
        self.search_hint.as_deref()
    }

    fn input_json_schema(&self) -> Option<Value> {
        Some(self.schema.clone())
    }

    fn output_schema(&self) -> Option<Value> {
        self.output_schema.clone()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        self.description.clone()
    }

    /// One short line for permission questions and logs (the server's description, often several
    /// paragraphs, is the prompt): `<server> - <title or tool> (MCP)`.
    fn summary(&self, input: &Self::Input) -> String {
        self.user_facing_name(Some(input))
    }

    /// Unlimited for the executor: the MCP output cap bounds these results (see [`McpTool`]).
    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Unlimited
    }

    /// The input must be a JSON object (a JSON text of one is accepted) that the server's
    /// `inputSchema` accepts.
    ///
    /// # Errors
    /// [`InputError::Invalid`] listing every problem (missing, wrong type, undeclared keys
    /// beside another problem, any other keyword).
    fn parse_input(&self, json: &Value, schema: &Value) -> Result<Self::Input, InputError> {
        let Value::Object(map) = json else { return Err(not_an_object(&self.name, json)) };
        let issues = self.validator.check(&self.name, schema, json);
        if issues.is_empty() { Ok(map.clone()) } else { Err(InputError::Invalid { tool: self.name.clone(), issues }) }
    }

    /// Passthrough, so the general rules decide, suggesting an allow rule for the tool.
    async fn check_permissions(&self, _input: &Self::Input, _ctx: &ToolUseContext) -> PermissionResult {
        let suggestion = PermissionUpdate::AddRules {
            destination: PermissionUpdateDestination::LocalSettings,
            rules: vec![PermissionRuleValue { tool_name: self.name.clone(), rule_content: None }],
            behavior: PermissionBehavior::Allow,
        };
        match PermissionResult::passthrough(format!("{} needs approval.", self.name)) {
            PermissionResult::Passthrough { message, decision_reason, blocked_path, .. } => {
                PermissionResult::Passthrough { message, decision_reason, suggestions: vec![suggestion], blocked_path }
            }
            other => other,
        }
    }

    async fn call(&self, input: Self::Input, ctx: &ToolUseContext) -> Result<ToolResult<McpOutput>, ToolError> {
        self.run(input, ctx).await
    }

    fn map_tool_result(&self, output: &McpOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock { tool_use_id: tool_use_id.to_owned(), content: output.content.clone(), is_error: false }
    }

    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        format!("{} - {} (MCP)", self.connection.name, self.title.as_deref().unwrap_or(&self.tool_name))
    }

    fn always_load(&self) -> bool {
        self.always_load
    }

    fn mcp_info(&self) -> Option<McpInfo> {
        Some(McpInfo { server_name: self.connection.name.clone(), tool_name: self.tool_name.clone() })
    }

    fn activity_description(&self, _input: &Self::Input) -> Option<String> {
        Some(format!("Running {}", self.user_facing_name(None)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_descriptions_are_truncated_on_a_char_boundary() {
        let text = "é".repeat(MAX_DESCRIPTION_CHARS + 5);
        let cut = truncate_description(&text);
        assert_eq!(cut, format!("{}… [truncated]", "é".repeat(MAX_DESCRIPTION_CHARS)));
        assert_eq!(truncate_description("short"), "short");
    }

    #[test]
    fn an_input_that_is_not_an_object_is_refused_in_words() {
        let error = not_an_object("t", &serde_json::json!([1]));
        assert_eq!(
            error.to_string(),
            "t failed due to the following issue:\nThe input must be a JSON object, not an array"
        );
    }
}
