//! What an [`Agent`](crate::Agent) is built with.

use std::path::PathBuf;

use agent_tools_api::RetryPolicy;

/// The model the loop asks when neither `--model`, `ANTHROPIC_MODEL` nor the settings' `model`
/// names one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// Most tokens of one answer, when not set.
pub const DEFAULT_MAX_TOKENS: u32 = 32_000;

/// The context window assumed for a model, in tokens.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// How many times in a row an answer cut off at `max_tokens` is continued.
pub const MAX_TOKENS_CONTINUATIONS: u32 = 3;

/// How the loop runs (Claude Code's `claude -p` flags, as values).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentOptions {
    /// The model asked (resolved: an id, not an alias).
    pub model: String,
    /// Most tokens of one answer (`max_tokens`).
    pub max_tokens: u32,
    /// Most model turns (requests) of one query (`--max-turns`); `None`: no limit.
    pub max_turns: Option<u32>,
    /// Most dollars the session may spend (`--max-budget-usd`); checked before each request.
    pub max_budget_usd: Option<f64>,
    /// Replaces the default system prompt (`--system-prompt`).
    pub system_prompt: Option<String>,
    /// Appended to the system prompt (`--append-system-prompt`).
    pub append_system_prompt: Option<String>,
    /// Extra working directories (`--add-dir`), named in the environment block.
    pub additional_dirs: Vec<PathBuf>,
    /// The model's context window in tokens; the conversation is compacted when a request's
    /// input reaches [`AgentOptions::compact_at`] of it.
    pub context_window: u64,
    /// The fraction of the context window at which the conversation is compacted (0.0–1.0).
    pub compact_at: f64,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
    /// Save the conversation as it grows, in Claude Code's layout and format
    /// ([`transcript`](crate::transcript)), for `--continue` and `--resume` and the Agent SDKs'
    /// session functions; off for `--no-session-persistence`.
    pub persist: bool,
    /// The conversation to resume (from a transcript), oldest first.
    pub resume: Vec<serde_json::Value>,
    /// The `tool_use` id of the Agent call this loop runs for (a sub-agent's events carry it as
    /// `parent_tool_use_id`).
    pub parent_tool_use_id: Option<String>,
    /// Load `CLAUDE.md` memory files.
    pub memory: bool,
    /// Which of them load, by the setting source each belongs to (`--setting-sources`; default
    /// all three).
    pub memory_sources: crate::memory::MemorySources,
    /// The `thinking` request parameter, sent as given (e.g. `{"type": "enabled",
    /// "budget_tokens": 4000}`); `None`: not sent.
    pub thinking: Option<serde_json::Value>,
    /// Programmatic tool calling (the Messages API's, in beta): the request adds Anthropic's
    /// code execution tool (`code_execution_20250825`) and lets it call the pool's tools
    /// (`allowed_callers` on each tool definition but ToolSearch, StructuredOutput and deferred
    /// ones), so the model's code in Anthropic's container calls them; those `tool_use` blocks
    /// (with a `caller`) run through the same executor as any other, and the container's id is
    /// sent back with each request. The CLI turns it on with
    /// `AGENT_TOOLS_PROGRAMMATIC_TOOL_CALLING=1`. Off by default.
    pub programmatic_tool_calling: bool,
    /// When the model makes the same call (tool and input) as its last one and gets the same
    /// result, a line after the result says so and asks for something else: a small local model
    /// otherwise repeats a call until `max_turns`. The CLI turns it on for the OpenAI-compatible
    /// backend. Off by default (the Messages API's models do not need it, and Claude Code's
    /// results carry no such line).
    pub repeated_call_note: bool,
    /// The auto mode's classifier (also given to the session's builder): the agent records each
    /// prompt of the user in it, as the intent calls are judged against.
    pub classifier: Option<std::sync::Arc<crate::classifier::ModelClassifier>>,
    /// Where the credential came from, as the `system/init` event's `apiKeySource` says it
    /// (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `none`).
    pub api_key_source: String,
    /// The transcript file, instead of `<config dir>/projects/<slug>/<session id>.jsonl` (a
    /// resumed session's own, wherever it was found; a sub-agent's in its session's `subagents`
    /// folder or its task's output file). Only used when [`AgentOptions::persist`] is on. In the
    /// options a sub-agent runner starts from, the caller's transcript.
    pub transcript_file: Option<PathBuf>,
    /// The entry of the transcript new entries continue from (`--resume-session-at`: the
    /// conversation branches there); `None`: after the file's last message.
    pub transcript_parent: Option<String>,
    /// A JSON Schema the final answer must satisfy (`--json-schema`): the model must finish by
    /// calling the `StructuredOutput` tool (which the session's pool must hold, built with the
    /// same schema); an answer that ends without it is sent back with a reminder, at most
    /// [`MAX_STRUCTURED_OUTPUT_RETRIES`] times.
    pub output_schema: Option<serde_json::Value>,
    /// Let the session's tools start sub-agents (the Agent tool, Skill's `context: fork`): the
    /// agent installs its runner in the session before its first query.
    pub subagents: bool,
    /// The totals the agent adds its requests to (and checks [`AgentOptions::max_budget_usd`]
    /// against): `None` for its own; a sub-agent gets its caller's, so the main result counts
    /// every agent's spending.
    pub spend: Option<std::sync::Arc<crate::spend::Spend>>,
    /// How many times in a row a Stop (or SubagentStop) hook may block the end of a turn while
    /// the model runs no tool before the turn ends anyway, with a notice
    /// ([`stop_hook_cap_notice`](crate::agent::stop_hook_cap_notice)); `0` for no cap.
    /// Claude Code's cap, with its default [`DEFAULT_STOP_HOOK_BLOCK_CAP`] and its
    /// `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` override (read by the CLI). Each blocked end is a
    /// request, so `max_turns` and `max_budget_usd` count them too.
    pub stop_hook_block_cap: u32,
}

/// Claude Code's default cap on consecutive Stop-hook blocks (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`).
pub const DEFAULT_STOP_HOOK_BLOCK_CAP: u32 = 8;

/// How many answers that end without calling `StructuredOutput` are sent back before the query
/// fails with `error_max_structured_output_retries`.
pub const MAX_STRUCTURED_OUTPUT_RETRIES: u32 = 5;

impl AgentOptions {
    /// The defaults with this model.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
            max_turns: None,
            max_budget_usd: None,
            system_prompt: None,
            append_system_prompt: None,
            additional_dirs: Vec::new(),
            context_window: DEFAULT_CONTEXT_WINDOW,
            compact_at: 0.9,
            retry: RetryPolicy::default(),
            persist: true,
            resume: Vec::new(),
            parent_tool_use_id: None,
            memory: true,
            memory_sources: crate::memory::MemorySources::ALL,
            thinking: None,
            programmatic_tool_calling: false,
            repeated_call_note: false,
            classifier: None,
            api_key_source: "ANTHROPIC_API_KEY".to_owned(),
            transcript_file: None,
            transcript_parent: None,
            output_schema: None,
            subagents: true,
            spend: None,
            stop_hook_block_cap: DEFAULT_STOP_HOOK_BLOCK_CAP,
        }
    }
}

/// The model id an alias names (`sonnet`, `opus`, `haiku`, as `--model` takes them); any other
/// name is kept as it is.
pub fn resolve_model(name: &str) -> String {
    match name.trim() {
        "sonnet" | "default" => "claude-sonnet-4-5".to_owned(),
        "opus" => "claude-opus-4-5".to_owned(),
        "haiku" => "claude-haiku-4-5".to_owned(),
        other => other.to_owned(),
    }
}
