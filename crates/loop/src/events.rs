//! What the loop reports: [`AgentEvent`]s while it runs, a [`QueryResult`] at the end.

use std::collections::BTreeMap;

use agent_tools_api::{StreamEvent, Usage};
use serde::Serialize;
use serde_json::Value;

/// Something that happened in a query, in order.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A message in `claude -p --output-format stream-json`'s shape: an `assistant` event per
    /// finished content block (`{"type":"assistant","message":{…,"content":[block]},
    /// "parent_tool_use_id","session_id","uuid"}`), a `user` event per `tool_result` (with the
    /// tool's structured output as `tool_use_result`), a `system` event (`compact_boundary`).
    Message(Value),
    /// A piece of the answer's text as it streams (for a terminal).
    TextDelta(String),
    /// A raw stream event of the Messages API (`--include-partial-messages`).
    Stream(StreamEvent),
    /// A line for the user, not the model: a retry, a hook's `systemMessage`, an API error.
    Notice(String),
    /// A running call's progress (a tool's own `Progress` data as JSON), for a terminal.
    Progress(agent_tools_core::ProgressEvent),
    /// A call finished; its `user` event follows. `denied`: a permission or hook refused it.
    CallFinished {
        /// The `tool_use` id.
        tool_use_id: String,
        /// The tool's name.
        tool_name: String,
        /// Whether the result is an error.
        is_error: bool,
        /// Whether a permission decision or a hook refused the call.
        denied: bool,
    },
}

/// How a query ended (`claude -p`'s result `subtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultSubtype {
    /// The model ended its turn.
    Success,
    /// `--max-turns` was reached.
    ErrorMaxTurns,
    /// `--max-budget-usd` was reached.
    ErrorMaxBudgetUsd,
    /// The API failed for good, or the query was interrupted.
    ErrorDuringExecution,
    /// The model kept ending its answer without a valid `StructuredOutput` call.
    ErrorMaxStructuredOutputRetries,
}

impl ResultSubtype {
    /// The subtype as `claude -p` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::ErrorMaxTurns => "error_max_turns",
            Self::ErrorMaxBudgetUsd => "error_max_budget_usd",
            Self::ErrorDuringExecution => "error_during_execution",
            Self::ErrorMaxStructuredOutputRetries => "error_max_structured_output_retries",
        }
    }
}

/// The end of a query: what `claude -p` prints as its `result` message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct QueryResult {
    /// How it ended.
    pub subtype: ResultSubtype,
    /// Whether that is an error.
    pub is_error: bool,
    /// The model's last text (or the error's).
    pub result: String,
    /// The assistant messages of this query as Claude Code counts them in its result's
    /// `num_turns`: one per content block of each answer (an answer of three `tool_use` blocks
    /// counts three).
    pub num_turns: u32,
    /// Requests sent to the model in this query (what `max_turns` limits).
    pub requests: u32,
    /// Wall time of the query, in milliseconds.
    pub duration_ms: u64,
    /// Time spent waiting for the API, in milliseconds.
    pub duration_api_ms: u64,
    /// The session's id.
    pub session_id: String,
    /// Dollars spent by the session so far.
    pub total_cost_usd: f64,
    /// Tokens used by the session so far.
    pub usage: Usage,
    /// Tokens and dollars per model.
    pub model_usage: BTreeMap<String, (Usage, f64)>,
    /// Calls refused by permissions or hooks: `{"tool_name","tool_use_id","tool_input"}`.
    pub permission_denials: Vec<Value>,
    /// The last answer's `stop_reason`, when it ended normally.
    pub stop_reason: Option<String>,
    /// Why the loop stopped: `completed`, `max_turns`, `budget_exhausted`, `interrupted`,
    /// `api_error`, `hook_blocked`, `hook_stopped`, `structured_output`.
    pub terminal_reason: String,
    /// Tool calls made in this query.
    pub tool_uses: u32,
    /// The distinct tools called in this query, in first-use order.
    pub tools_used: Vec<String>,
    /// The text blocks of the last answer of this query that had text.
    pub last_content: Vec<String>,
    /// The usage of the last request of this query.
    pub last_usage: Usage,
    /// The object the model passed to a successful `StructuredOutput` call (with
    /// [`crate::AgentOptions::output_schema`]).
    pub structured_output: Option<Value>,
    /// What went wrong, for an error result (`Reached maximum budget ($0.5)` …): the result
    /// line's `errors`, which the TypeScript SDK reads an error's text from.
    pub errors: Vec<String>,
}

impl QueryResult {
    /// The `result` message, as `claude -p --output-format json|stream-json` prints it.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.line()).unwrap_or_default()
    }

    /// The `result` line, in `claude -p`'s field order.
    pub fn line(&self) -> ResultLine<'_> {
        ResultLine {
            kind: "result",
            subtype: self.subtype.as_str(),
            is_error: self.is_error,
            duration_ms: self.duration_ms,
            duration_api_ms: self.duration_api_ms,
            num_turns: self.num_turns,
            result: &self.result,
            stop_reason: self.stop_reason.as_deref(),
            session_id: &self.session_id,
            total_cost_usd: self.total_cost_usd,
            usage: &self.usage,
            model_usage: self
                .model_usage
                .iter()
                .map(|(model, (usage, cost))| {
                    let usage = ModelUsage {
                        input_tokens: usage.input_tokens,
                        output_tokens: usage.output_tokens,
                        cache_read_input_tokens: usage.cache_read_input_tokens,
                        cache_creation_input_tokens: usage.cache_creation_input_tokens,
                        cost_usd: *cost,
                    };
                    (model.as_str(), usage)
                })
                .collect(),
            permission_denials: &self.permission_denials,
            terminal_reason: &self.terminal_reason,
            uuid: crate::agent::uuid(),
            structured_output: self.structured_output.as_ref(),
            errors: &self.errors,
        }
    }
}

/// The `result` line of `claude -p --output-format json|stream-json` (see [`QueryResult`] for
/// each field).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ResultLine<'a> {
    /// Always `result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// [`ResultSubtype::as_str`].
    pub subtype: &'static str,
    /// Whether the query ended in error.
    pub is_error: bool,
    /// Wall time, ms.
    pub duration_ms: u64,
    /// Time waiting for the API, ms.
    pub duration_api_ms: u64,
    /// Assistant messages, as Claude Code counts them.
    pub num_turns: u32,
    /// The last text, or the error's.
    pub result: &'a str,
    /// The last answer's `stop_reason`.
    pub stop_reason: Option<&'a str>,
    /// The session.
    pub session_id: &'a str,
    /// Dollars spent so far.
    pub total_cost_usd: f64,
    /// Tokens used so far.
    pub usage: &'a Usage,
    /// Tokens and dollars per model.
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<&'a str, ModelUsage>,
    /// Calls refused by permissions or hooks.
    pub permission_denials: &'a [Value],
    /// Why the loop stopped.
    pub terminal_reason: &'a str,
    /// This line's id.
    pub uuid: String,
    /// The `StructuredOutput` object, when one was asked for and given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<&'a Value>,
    /// What went wrong (error results only).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub errors: &'a [String],
}

/// One model's line of [`ResultLine::model_usage`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelUsage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Dollars.
    #[serde(rename = "costUSD")]
    pub cost_usd: f64,
}
