//! The hook events the loop fires besides the turn's own (SessionStart, UserPromptSubmit, Stop,
//! SubagentStart/Stop, PreCompact, in `agent.rs`): Setup, StopFailure, Interrupt, PostCompact,
//! InstructionsLoaded, PostToolBatch, CwdChanged, Pre/PostModelSwitch, UserPromptExpansion and
//! TeammateIdle. Each runs through the session's hooks (`Agent::run_hooks`), so inside a
//! sub-agent its input carries `agent_id` and `agent_type`.

use agent_tools_api::{ApiError, Usage, cost_usd};
use agent_tools_core::Invocation;
use agent_tools_core::ToolUseBlock;
use serde_json::{Map, Value, json};

use super::Agent;
use crate::memory::{MemoryFile, MemoryKind};

/// A prompt a front end expanded before sending it (a slash command, an MCP prompt): what
/// `UserPromptExpansion` hooks are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptExpansion<'a> {
    /// `slash_command` or `mcp_prompt`.
    pub expansion_type: &'a str,
    /// The command's name, without its slash (`review`); the matcher selects on it.
    pub command_name: &'a str,
    /// What followed the command's name.
    pub command_args: &'a str,
    /// Where the command comes from (`user`, `project`, a plugin's name …), when known.
    pub command_source: Option<&'a str>,
    /// The prompt the expansion produced.
    pub prompt: &'a str,
}

/// The `error` of a StopFailure hook's input (the SDKs' `SDKAssistantMessageError`) for an
/// API error: `authentication_failed`, `billing_error`, `rate_limit`, `overloaded`,
/// `invalid_request`, `model_not_found`, `server_error` or `unknown`.
pub fn stop_failure_kind(error: &ApiError) -> &'static str {
    let kind = error.api_error_type().unwrap_or_default();
    match kind.as_str() {
        "authentication_error" | "permission_error" => return "authentication_failed",
        "billing_error" => return "billing_error",
        "rate_limit_error" => return "rate_limit",
        "overloaded_error" => return "overloaded",
        "not_found_error" => return "model_not_found",
        "invalid_request_error" | "request_too_large" => return "invalid_request",
        "api_error" => return "server_error",
        _ => {}
    }
    match error.status().map(|status| status.as_u16()) {
        Some(401 | 403) => "authentication_failed",
        Some(402) => "billing_error",
        Some(429) => "rate_limit",
        Some(529) => "overloaded",
        Some(404) => "model_not_found",
        Some(400 | 413 | 422) => "invalid_request",
        Some(code) if code >= 500 => "server_error",
        _ => "unknown",
    }
}

impl Agent {
    /// `Setup` (`trigger: init`), before the first prompt of a new main conversation; the
    /// context its hooks add.
    pub(super) async fn setup_hooks(&self) -> Vec<String> {
        let mut payload = Map::new();
        payload.insert("trigger".into(), json!("init"));
        self.run_hooks("Setup", "init", payload).await.context
    }

    /// `StopFailure`: an API error ended the turn (`error`, `error_details`,
    /// `last_assistant_message`). What the hooks answer is not read.
    pub(super) async fn stop_failure_hooks(&self, error: &ApiError, details: &str, last_text: &str) {
        let kind = stop_failure_kind(error);
        let mut payload = Map::new();
        payload.insert("error".into(), json!(kind));
        payload.insert("error_details".into(), json!(details));
        if !last_text.is_empty() {
            payload.insert("last_assistant_message".into(), json!(last_text));
        }
        let _ = self.run_hooks("StopFailure", kind, payload).await;
    }

    /// `Interrupt`: a user interrupt ended the turn (`source: user`, `reason: stop`,
    /// `via: client`: an SDK's `interrupt`, a signal).
    pub(super) async fn interrupt_hooks(&self) {
        let mut payload = Map::new();
        payload.insert("source".into(), json!("user"));
        payload.insert("reason".into(), json!("stop"));
        payload.insert("via".into(), json!("client"));
        let _ = self.run_hooks("Interrupt", "stop", payload).await;
    }

    /// After a compaction: `PostCompact` (`trigger`, `compact_summary`), then for the main
    /// conversation `SessionStart` with `source: compact`, as Claude Code starts afresh from the
    /// summary. The context the SessionStart hooks add.
    pub(super) async fn post_compact_hooks(&self, trigger: &str, summary: &str) -> Vec<String> {
        let mut payload = Map::new();
        payload.insert("trigger".into(), json!(trigger));
        payload.insert("compact_summary".into(), json!(summary));
        let _ = self.run_hooks("PostCompact", trigger, payload).await;
        if self.session.is_fork() {
            return Vec::new();
        }
        let mut payload = Map::new();
        payload.insert("source".into(), json!("compact"));
        payload.insert("model".into(), json!(self.model()));
        self.run_hooks("SessionStart", "compact", payload).await.context
    }

    /// `InstructionsLoaded` for each memory file loaded at the start (`file_path`,
    /// `memory_type`, `load_reason`: `session_start`, or `include` with `parent_file_path` for
    /// an import).
    pub(super) async fn instructions_loaded_hooks(&self, files: &[MemoryFile]) {
        if self.session.hooks().event("InstructionsLoaded").is_empty() {
            return;
        }
        for file in files {
            let memory_type = match file.kind {
                MemoryKind::User => "User",
                MemoryKind::Project => "Project",
                MemoryKind::Local => "Local",
            };
            let reason = if file.importer.is_some() { "include" } else { "session_start" };
            let mut payload = Map::new();
            payload.insert("file_path".into(), json!(file.path));
            payload.insert("memory_type".into(), json!(memory_type));
            payload.insert("load_reason".into(), json!(reason));
            if let Some(parent) = &file.importer {
                payload.insert("parent_file_path".into(), json!(parent));
            }
            let _ = self.run_hooks("InstructionsLoaded", reason, payload).await;
        }
    }

    /// `PostToolBatch` after a round of calls (`tool_calls`: each call's `tool_name`,
    /// `tool_input`, `tool_use_id` and `tool_response`); the context its hooks add.
    pub(super) async fn post_tool_batch_hooks(&self, calls: &[(ToolUseBlock, Invocation, Value)]) -> Vec<String> {
        if self.session.hooks().event("PostToolBatch").is_empty() {
            return Vec::new();
        }
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|(block, done, _)| {
                let mut call = json!({
                    "tool_name": self.tool_name(block), "tool_input": block.input, "tool_use_id": block.id,
                });
                let response = done.data.as_ref().map(|data| data.to_json());
                if let Some(response) = response {
                    call["tool_response"] = response;
                } else if !done.block.is_error {
                    call["tool_response"] = json!(done.block.content.text());
                }
                call
            })
            .collect();
        let mut payload = Map::new();
        payload.insert("tool_calls".into(), json!(tool_calls));
        self.run_hooks("PostToolBatch", "", payload).await.context
    }

    /// `CwdChanged`: a round of calls moved the working directory (`old_cwd`, `new_cwd`).
    /// `watchPaths` in an answer is not read (this program watches no files).
    pub(super) async fn cwd_changed_hooks(&self, old: &std::path::Path, new: &std::path::Path) {
        let mut payload = Map::new();
        payload.insert("old_cwd".into(), json!(old));
        payload.insert("new_cwd".into(), json!(new));
        let _ = self.run_hooks("CwdChanged", "", payload).await;
    }

    /// Switches the model from the next request on, with the model switch hooks: the
    /// `PreModelSwitch` hooks first (`from_model`, `to_model`, `requested_model`, `source` —
    /// `sdk` for the SDKs' `set_model`, `command` for a slash command —, `context_tokens`,
    /// `prompt_cache_warm`, `cache_ttl`, `estimated_cache_write_usd`, `pricing`), whose
    /// `permissionDecision: "deny"` (or a block) keeps the model — and so does `ask`, since a
    /// headless agent has nobody to ask, as in Claude Code — then, once switched, the
    /// `PostModelSwitch` hooks, whose `additionalContext` reaches the model with the next
    /// request. `model` `None` goes back to the model the agent started with.
    ///
    /// # Errors
    /// Why a hook kept the model.
    pub async fn switch_model(&self, model: Option<&str>, source: &str) -> Result<String, String> {
        let from = self.model();
        let to = model.map_or_else(|| self.options.model.clone(), crate::resolve_model);
        let hooks = self.session.hooks();
        if hooks.event("PreModelSwitch").is_empty() && hooks.event("PostModelSwitch").is_empty() {
            self.set_model(model);
            return Ok(to);
        }
        let tokens = self.measured.load(std::sync::atomic::Ordering::Relaxed);
        let usage = Usage { cache_creation_input_tokens: tokens, ..Usage::default() };
        let mut payload = Map::new();
        payload.insert("from_model".into(), json!(from));
        payload.insert("to_model".into(), json!(to));
        payload.insert("requested_model".into(), json!(model));
        payload.insert("source".into(), json!(source));
        payload.insert("context_tokens".into(), json!(tokens));
        payload.insert("prompt_cache_warm".into(), json!(tokens > 0));
        payload.insert("cache_ttl".into(), json!("5m"));
        payload.insert("estimated_cache_write_usd".into(), json!(cost_usd(&to, &usage)));
        payload.insert("pricing".into(), json!("catalog"));
        let before = self.run_hooks("PreModelSwitch", &to, payload.clone()).await;
        let reason = before.specific_str("permissionDecisionReason").unwrap_or_default().to_owned();
        if let Some(why) = before.blocked.clone().or(before.stop.clone()) {
            return Err(format!("A PreModelSwitch hook kept the model {from}: {why}"));
        }
        match before.specific_str("permissionDecision") {
            Some("deny") => return Err(format!("A PreModelSwitch hook kept the model {from}: {reason}")),
            Some("ask") => {
                return Err(format!(
                    "A PreModelSwitch hook asks to confirm the switch to {to}, and a headless agent cannot ask: {reason}"
                ));
            }
            _ => {}
        }
        self.set_model(model);
        let after = self.run_hooks("PostModelSwitch", &to, payload).await;
        if !after.context.is_empty() {
            let queue = self.session.context_without_waiting().notifications();
            for context in after.context {
                queue.push("PostModelSwitch", context);
            }
        }
        Ok(to)
    }

    /// Runs the `UserPromptExpansion` hooks of a prompt a front end expanded (a slash command,
    /// an MCP prompt), before it is sent as a query: the input is `expansion_type`,
    /// `command_name` (the matcher selects on it), `command_args`, `command_source` and `prompt`.
    /// Returns the context the hooks add (for the front end to send with the prompt).
    ///
    /// # Errors
    /// The reason a hook blocked the expansion (exit code 2, `decision: "block"`, `continue:
    /// false`): the prompt must not be sent.
    pub async fn expand_prompt(&self, expansion: &PromptExpansion<'_>) -> Result<Vec<String>, String> {
        let mut payload = Map::new();
        payload.insert("expansion_type".into(), json!(expansion.expansion_type));
        payload.insert("command_name".into(), json!(expansion.command_name));
        payload.insert("command_args".into(), json!(expansion.command_args));
        if let Some(source) = expansion.command_source {
            payload.insert("command_source".into(), json!(source));
        }
        payload.insert("prompt".into(), json!(expansion.prompt));
        let outcome = self.run_hooks("UserPromptExpansion", expansion.command_name, payload).await;
        match outcome.blocked.or(outcome.stop) {
            Some(reason) => Err(reason),
            None => Ok(outcome.context),
        }
    }

    /// Runs the `DirectoryAdded` hooks once for each folder added to the session's working
    /// directories (`directory`, absolute; `source`, which the matcher selects on). Claude Code's
    /// sources are `slash_command` (`/add-dir`) and `register_repo_root` (the SDK request); the
    /// front ends here add `add_dir_flag` for `--add-dir` and `apply_flag_settings` for the SDKs'
    /// request of that name.
    pub async fn directories_added(&self, directories: &[std::path::PathBuf], source: &str) {
        if self.session.hooks().event("DirectoryAdded").is_empty() {
            return;
        }
        for directory in directories {
            let mut payload = Map::new();
            payload.insert("directory".into(), json!(directory));
            payload.insert("source".into(), json!(source));
            let _ = self.run_hooks("DirectoryAdded", source, payload).await;
        }
    }

    /// Runs the `TeammateIdle` hooks of a teammate about to wait for its next message
    /// (`teammate_name`, `team_name`). A hook that blocks keeps it working: its reason is what
    /// the teammate is told next (`Some`).
    pub async fn teammate_idle(&self, teammate_name: &str, team_name: &str) -> Option<String> {
        let mut payload = Map::new();
        payload.insert("teammate_name".into(), json!(teammate_name));
        payload.insert("team_name".into(), json!(team_name));
        let outcome = self.run_hooks("TeammateIdle", "", payload).await;
        outcome.blocked.or(outcome.stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_map_to_the_sdks_error_kinds() {
        let streamed = |kind: &str| ApiError::StreamError { kind: kind.into(), message: "m".into() };
        assert_eq!(stop_failure_kind(&streamed("overloaded_error")), "overloaded");
        assert_eq!(stop_failure_kind(&streamed("rate_limit_error")), "rate_limit");
        assert_eq!(stop_failure_kind(&streamed("api_error")), "server_error");
        assert_eq!(stop_failure_kind(&streamed("authentication_error")), "authentication_failed");
        assert_eq!(stop_failure_kind(&ApiError::StreamEnded), "unknown");
    }
}
