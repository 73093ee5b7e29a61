//! Tool search on the host side: what a client of the Messages API must do around ToolSearch
//! (Claude Code's `utils/toolSearch.ts` and `services/api/claude.ts`), for hosts without
//! server-side tool search too.
//!
//! - [`ToolSearchMode`]: Claude Code's `ENABLE_TOOL_SEARCH` switch (the CLI reads it).
//! - [`is_tool_search_active`]: ToolSearch is in the pool and some tool is deferred
//!   ([`agent_tools_core::is_deferred`]).
//! - [`api_tools`]: the Messages API `tools` array, deferred tools marked `defer_loading`.
//! - [`available_deferred_tools_message`]: the `<available-deferred-tools>` text that names the
//!   deferred tools to the model.
//! - [`render_tool_references`]: `tool_reference` blocks made readable for clients that cannot
//!   expand them (MCP clients, plain-text output).
//! - [`deferred_schema_hint`] and the discovered-tool set ([`record_discovered`],
//!   [`is_discovered`]) behind the executor's "load it with `select:NAME` first" hint.

use std::collections::HashSet;
use std::sync::Arc;

use agent_tools_core::{
    ContentPart, PromptOptions, TOOL_SEARCH_NAME, Tool, ToolResultContent, ToolUseContext, is_deferred,
    tool_matches_name,
};
use serde_json::{Map, Value, json};

/// Whether tool search is on (Claude Code's `ENABLE_TOOL_SEARCH` modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSearchMode {
    /// Always defer (Claude Code's `tst`): unset, empty, `true` or `auto:0`.
    #[default]
    On,
    /// Claude Code's `tst-auto` (`auto`, `auto:1`–`auto:99`): it defers only when the deferred
    /// tools' definitions exceed that percentage of the context window. Here it behaves as
    /// [`ToolSearchMode::On`]: the host does not know the model's context window.
    Auto,
    /// No deferral (Claude Code's `standard`): `false` or `auto:100`. ToolSearch is left out of
    /// the pool.
    Off,
}

impl ToolSearchMode {
    /// The mode for a value of `ENABLE_TOOL_SEARCH` (`None` when unset). Values Claude Code does
    /// not define are taken as on, its default.
    pub fn from_env_value(value: Option<&str>) -> Self {
        let value = value.map(|value| value.trim().to_ascii_lowercase()).unwrap_or_default();
        match value.as_str() {
            "" | "true" | "auto:0" => Self::On,
            "false" | "auto:100" => Self::Off,
            "auto" => Self::Auto,
            other => match other.strip_prefix("auto:").and_then(|n| n.parse::<u8>().ok()) {
                Some(1..=99) => Self::Auto,
                Some(100..) => Self::Off,
                _ => Self::On,
            },
        }
    }

    /// True for [`ToolSearchMode::On`] and [`ToolSearchMode::Auto`].
    pub fn is_on(self) -> bool {
        self != Self::Off
    }
}

/// Whether tool search applies to requests made with `pool`: ToolSearch is in it and at least
/// one tool is deferred (Claude Code turns it off per request otherwise).
pub fn is_tool_search_active(pool: &[Arc<dyn Tool>]) -> bool {
    pool.iter().any(|tool| tool.name() == TOOL_SEARCH_NAME) && pool.iter().any(|tool| is_deferred(tool.as_ref()))
}

/// The Messages API `tools` array for `pool`: one `{"name", "description", "input_schema"}`
/// object per tool, where `description` is the tool's prompt.
///
/// When tool search is active ([`is_tool_search_active`]) every deferred tool also has
/// `"defer_loading": true`, so the API keeps its definition out of the model's context until a
/// `tool_reference` names it. Otherwise ToolSearch is left out and nothing is marked, as Claude
/// Code does. (Claude Code also leaves undiscovered deferred tools out of the array entirely and
/// names them in [`available_deferred_tools_message`]; this array keeps them, marked, so the API
/// can expand references to them.)
pub fn api_tools(pool: &[Arc<dyn Tool>], options: &PromptOptions<'_>) -> Vec<Value> {
    let active = is_tool_search_active(pool);
    pool.iter()
        .filter(|tool| active || tool.name() != TOOL_SEARCH_NAME)
        .map(|tool| {
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(tool.name().to_owned()));
            entry.insert("description".into(), Value::String(tool.description(options)));
            entry.insert("input_schema".into(), tool.input_schema().clone());
            if active && is_deferred(tool.as_ref()) {
                entry.insert("defer_loading".into(), Value::Bool(true));
            }
            Value::Object(entry)
        })
        .collect()
}

/// The message that names the deferred tools to the model:
/// `<available-deferred-tools>\nA\nB\n</available-deferred-tools>`, names sorted, one per line
/// (the meta user message Claude Code prepends to a request). `None` when tool search is not
/// active.
pub fn available_deferred_tools_message(pool: &[Arc<dyn Tool>]) -> Option<String> {
    if !is_tool_search_active(pool) {
        return None;
    }
    let mut names: Vec<&str> = pool.iter().filter(|tool| is_deferred(tool.as_ref())).map(|tool| tool.name()).collect();
    names.sort_unstable();
    Some(format!("<available-deferred-tools>\n{}\n</available-deferred-tools>", names.join("\n")))
}

/// A tool's full definition as text: `<function>{"description", "name", "parameters"}</function>`
/// (the form tool definitions take in a model's prompt), with the prompt as description and the
/// input schema as parameters.
pub fn tool_definition_text(tool: &dyn Tool, options: &PromptOptions<'_>) -> String {
    let definition =
        json!({"description": tool.description(options), "name": tool.name(), "parameters": tool.input_schema()});
    format!("<function>{definition}</function>")
}

/// The content with each `tool_reference` part replaced by a text part holding the tool's
/// definition ([`tool_definition_text`]): what the API's expansion gives the model, for clients
/// that cannot expand references (an MCP client, text output). A reference to a tool not in
/// `pool` (by name or alias) becomes `Tool NAME is not available.`. Other content is unchanged.
pub fn render_tool_references(
    content: &ToolResultContent,
    pool: &[Arc<dyn Tool>],
    options: &PromptOptions<'_>,
) -> ToolResultContent {
    match content {
        ToolResultContent::Parts(parts)
            if parts.iter().any(|part| matches!(part, ContentPart::ToolReference { .. })) =>
        {
            let parts = parts
                .iter()
                .map(|part| match part {
                    ContentPart::ToolReference { tool_name } => {
                        ContentPart::text(match pool.iter().find(|tool| tool_matches_name(tool.as_ref(), tool_name)) {
                            Some(tool) => tool_definition_text(tool.as_ref(), options),
                            None => format!("Tool {tool_name} is not available."),
                        })
                    }
                    other => other.clone(),
                })
                .collect();
            ToolResultContent::Parts(parts)
        }
        other => other.clone(),
    }
}

/// What follows an `InputValidationError` for a deferred tool whose schema the model was never
/// given: Claude Code's hint, verbatim, to load it with `select:NAME` first, and the tool's input
/// schema (compact JSON). Starts with a blank line.
///
/// The executor adds it to any parse failure of such a tool, built-in or MCP: an MCP tool's parse
/// checks the input against the server's `inputSchema`, so a call made before ToolSearch loaded
/// the tool, with a misspelt or missing field, gets this hint instead of reaching the server
/// (anthropics/claude-code#60052).
pub fn deferred_schema_hint(tool: &dyn Tool) -> String {
    format!(
        "\n\nThis tool's schema was not sent to the API — it was not in the discovered-tool set derived from \
         message history. Without the schema in your prompt, typed parameters (arrays, numbers, booleans) get \
         emitted as strings and the client-side parser rejects them. Load the tool first: call ToolSearch with \
         query \"select:{}\", then retry this call. For reference, this tool's input schema is: {}",
        tool.name(),
        tool.input_schema()
    )
}

/// The session's discovered tools: names that appeared in `tool_reference` blocks of earlier
/// results (Claude Code derives the same set from message history). Kept in the app state.
#[derive(Debug, Default)]
struct DiscoveredTools {
    names: HashSet<String>,
}

/// Records tool names as discovered for the session of `ctx` (the executor does this for every
/// result that holds `tool_reference` blocks).
pub fn record_discovered<'a>(ctx: &ToolUseContext, names: impl IntoIterator<Item = &'a str>) {
    ctx.app_state.with(|state| {
        state.update::<DiscoveredTools, _>(|found| found.names.extend(names.into_iter().map(str::to_owned)));
    });
}

/// Whether the session of `ctx` has discovered the tool `name` (see [`record_discovered`]).
pub fn is_discovered(ctx: &ToolUseContext, name: &str) -> bool {
    ctx.app_state.with(|state| state.get::<DiscoveredTools>().is_some_and(|found| found.names.contains(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_enable_tool_search() {
        for (value, mode) in [
            (None, ToolSearchMode::On),
            (Some(""), ToolSearchMode::On),
            (Some("true"), ToolSearchMode::On),
            (Some("auto:0"), ToolSearchMode::On),
            (Some("auto"), ToolSearchMode::Auto),
            (Some("auto:10"), ToolSearchMode::Auto),
            (Some("auto:99"), ToolSearchMode::Auto),
            (Some("auto:100"), ToolSearchMode::Off),
            (Some("FALSE"), ToolSearchMode::Off),
            (Some("auto:x"), ToolSearchMode::On),
        ] {
            assert_eq!(ToolSearchMode::from_env_value(value), mode, "{value:?}");
        }
        assert!(ToolSearchMode::Auto.is_on() && !ToolSearchMode::Off.is_on());
    }
}
