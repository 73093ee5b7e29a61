//! The runner handle through which the Agent tool (and Skill's `context: fork`) runs a
//! sub-agent: dependency injection across the floors. The trait lives here, the implementation in the
//! agent loop crate, which puts it in [`ToolUseContext::subagents`]; a tool never depends on the
//! loop, so the crate graph stays a tree.
//!
//! A sub-agent is Claude Code's `runAgent`: the query loop run again inside a tool call, with a
//! context made by `createSubagentContext` — a copy of the caller's file-read state, its own
//! cancellation (fired with the caller's), its own messages, app state and notification queue
//! (the `inbox` SendMessage writes to), the session's background tasks ([`ToolUseContext::root_app_state`]),
//! its agent id and type, one more level of [`ToolUseContext::query_depth`].

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::context::{NotificationQueue, ToolUseContext};
use crate::permissions::{PermissionMode, ToolRestriction};
use crate::tool::BoxFuture;

// Claude Code's sub-agent tool sets (its `constants/tools.ts`) are the tools' own
// [`AgentScope`](crate::AgentScope) and [`Capabilities::dispatch`](crate::Capabilities::dispatch):
// the Agent tool, Skill's `context: fork` and TeamCreate ask the tools, not lists of names.

/// Everything a runner needs to start one sub-agent; the Agent tool resolves it from the agent
/// definition and the call's input.
#[derive(Debug, Clone, Default)]
pub struct SubagentRequest {
    /// The agent's id (`a` + 8 of `[0-9a-z]`, the id of its background task when it has one).
    pub agent_id: String,
    /// Its type (`general-purpose`, `Explore`, a custom agent's `name`).
    pub agent_type: String,
    /// The call's `description` (3–5 words).
    pub description: String,
    /// The task, sent as the agent's first user message.
    pub prompt: String,
    /// The agent definition's system prompt.
    pub system_prompt: String,
    /// The model: a full model id, or `None` to use the caller's model.
    pub model: Option<String>,
    /// The names of the caller's tools the agent keeps, in pool order (the Agent tool applied
    /// Claude Code's sub-agent tool sets and the definition's `tools` / `disallowedTools`).
    pub tools: Vec<String>,
    /// The permission mode the agent runs in; `None` keeps the caller's. Never wider than the
    /// caller's: the tools choose it with
    /// [`subagent_permission_mode`](crate::permissions::subagent_permission_mode), and
    /// `Session::fork` applies that again to whatever is asked here.
    pub permission_mode: Option<PermissionMode>,
    /// Limits on the tools the agent keeps (its definition's `tools: Bash(git diff:*)`), added
    /// to the caller's own ([`ToolPermissionContext::tool_restrictions`], which the agent
    /// inherits), so a nested agent only narrows. Enforced in every mode.
    ///
    /// [`ToolPermissionContext::tool_restrictions`]: crate::permissions::ToolPermissionContext::tool_restrictions
    pub tool_restrictions: Vec<ToolRestriction>,
    /// The working directory (a worktree for `isolation: "worktree"`); `None` keeps the caller's.
    pub cwd: Option<PathBuf>,
    /// Runs without the caller waiting (a background agent): permission questions are denied
    /// instead of asked, as Claude Code's `shouldAvoidPermissionPrompts`.
    pub background: bool,
    /// The most turns the agent may take (the definition's `maxTurns`).
    pub max_turns: Option<u32>,
    /// A JSON Schema the agent's final answer must satisfy: the agent gets a `StructuredOutput`
    /// tool with it and must finish through it.
    pub output_schema: Option<Value>,
    /// Leaves CLAUDE.md files out of the agent's context (Explore and Plan).
    pub omit_claude_md: bool,
    /// Where the agent's transcript (JSONL) goes; `None` for none.
    pub transcript: Option<PathBuf>,
    /// The agent's notification queue: what is pushed here (SendMessage, its own background
    /// tasks) reaches it with its next tool results.
    pub inbox: NotificationQueue,
    /// Allow rules the agent gets on top of the caller's (a forked skill's `allowed-tools`).
    pub allow_rules: Vec<String>,
}

/// What a finished sub-agent reports (Claude Code's `AgentToolResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentOutcome {
    /// The text blocks of its last assistant message that had text (empty when it wrote none).
    pub content: Vec<String>,
    /// The model it ran on.
    pub model: String,
    /// The usage of its last request (the Messages API's `usage` object).
    pub usage: Value,
    /// Tokens in its context at the end: the last request's input (cache reads and writes
    /// included) and output tokens (Claude Code's `totalTokens`).
    pub total_tokens: u64,
    /// How many tool calls it made.
    pub total_tool_use_count: u32,
    /// The distinct tools it called, in first-use order.
    pub tools_used: Vec<String>,
    /// How long it ran, in ms.
    pub total_duration_ms: u64,
    /// The object it passed to `StructuredOutput`, when it had an output schema.
    pub structured_output: Option<Value>,
    /// Why it stopped when it did not finish its answer (`max_turns`, `interrupted`,
    /// `api_error`, …); `None` when it completed.
    pub stopped: Option<String>,
}

/// Why a sub-agent could not run or resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubagentError {
    /// The caller was cancelled (or the agent stopped) before the agent finished.
    #[error("the agent was stopped before it finished")]
    Cancelled,
    /// No agent with this id can be resumed here.
    #[error("No agent to continue with ID: {0}")]
    Unknown(String),
    /// Anything else, in words for the model.
    #[error("{0}")]
    Failed(String),
}

/// Runs sub-agents for the tools of one session (the agent loop implements it).
pub trait SubagentRunner: Send + Sync {
    /// Runs `request` to its end in a context derived from `parent` (see the module docs); the
    /// future ends early with [`SubagentError::Cancelled`] when `parent.cancel` fires, after the
    /// agent's running tool calls were stopped.
    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>>;

    /// Continues the finished agent `agent_id` with `message` as its next user message (SendMessage
    /// to an agent that stopped), and runs it to its end as [`Self::run`] does.
    fn resume<'a>(
        &'a self,
        agent_id: &'a str,
        message: String,
        parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>>;

    /// The model id a tool's `model` alias (`sonnet`, `opus`, `haiku`, or a full id) names, given
    /// the caller's model `parent_model` (an alias of the caller's own family keeps its exact
    /// model, as in Claude Code).
    fn resolve_model(&self, alias: &str, parent_model: &str) -> String;
}

/// What a finished agent that wrote no text reports.
pub const NO_OUTPUT: &str = "(Subagent completed but returned no output.)";

impl SubagentOutcome {
    /// The agent's report: its structured output (pretty JSON) when it gave one, else its text
    /// blocks (each trimmed at the end, joined by a blank line), else [`NO_OUTPUT`].
    pub fn report(&self) -> String {
        if let Some(object) = &self.structured_output {
            return serde_json::to_string_pretty(object).unwrap_or_else(|_| object.to_string());
        }
        let text = self.content.iter().map(|block| block.trim_end()).collect::<Vec<_>>().join("\n\n");
        if text.trim().is_empty() { NO_OUTPUT.to_owned() } else { text }
    }
}

/// `&`, `<` and `>` as entities, so a description cannot close the tags around it.
fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The `<task-notification>` a background agent queues when it ends (Claude Code 2.1.332's
/// tags; the loop adds its "not user input" preamble):
///
/// ```text
/// <task-notification>
/// <task-id>ID</task-id>
/// <tool-use-id>TOOLU</tool-use-id>          (when known)
/// <output-file>PATH</output-file>
/// <status>completed</status>                (or failed)
/// <summary>Agent "DESCRIPTION" finished</summary>
/// <note>…</note>
/// <result>REPORT</result>
/// <usage><subagent_tokens>N</subagent_tokens><tool_uses>N</tool_uses><duration_ms>N</duration_ms></usage>
/// </task-notification>
/// ```
pub fn task_notification(
    agent_id: &str,
    tool_use_id: Option<&str>,
    output_file: &str,
    description: &str,
    ended: &Result<SubagentOutcome, String>,
) -> String {
    let tool_use = tool_use_id.map(|id| format!("\n<tool-use-id>{id}</tool-use-id>")).unwrap_or_default();
    let head = format!(
        "<task-notification>\n<task-id>{agent_id}</task-id>{tool_use}\n<output-file>{output_file}</output-file>"
    );
    let note = "<note>This notification comes each time the agent stops with no background work of its own still \
                running. A message sent to it (SendMessage) wakes it again, so the same task-id may notify more than \
                once.</note>";
    match ended {
        Ok(outcome) => format!(
            "{head}\n<status>completed</status>\n<summary>Agent \"{}\" finished</summary>\n{note}\n<result>{}</result>\n\
             <usage><subagent_tokens>{}</subagent_tokens><tool_uses>{}</tool_uses><duration_ms>{}</duration_ms></usage>\n\
             </task-notification>",
            escape_xml(description),
            outcome.report(),
            outcome.total_tokens,
            outcome.total_tool_use_count,
            outcome.total_duration_ms
        ),
        Err(error) => format!(
            "{head}\n<status>failed</status>\n<summary>Agent \"{}\" failed: {}</summary>\n</task-notification>",
            escape_xml(description),
            escape_xml(error)
        ),
    }
}
