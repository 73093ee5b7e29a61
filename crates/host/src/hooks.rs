//! PreToolUse and PostToolUse command hooks, in Claude Code's format.
//!
//! Hooks come from the settings files (`"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks":
//! [{"type": "command", "command": "…", "timeout": 60, "if": "Bash(git *)"}]}]}`). A hook with an
//! `if` runs only for calls its rule pattern matches ([`HookCondition`]). A hook runs as `sh -c COMMAND` in the
//! session's working directory, its own process group, with the event as JSON on stdin
//! (`session_id`, `cwd`, `permission_mode`, `hook_event_name`, `tool_name`, `tool_input`,
//! `tool_use_id`, and `tool_response` after the call) and `CLAUDE_PROJECT_DIR` set.
//!
//! - Exit 0: stdout may be JSON with `hookSpecificOutput` (`permissionDecision` `allow` | `deny` |
//!   `ask`, `permissionDecisionReason`, `updatedInput`, `additionalContext`), the legacy
//!   `decision`/`reason`, or `systemMessage`; anything else on stdout is ignored.
//! - Exit 2: a blocking error. Before the call it refuses the call and the model reads stderr;
//!   after the call stderr reaches the model as a system message (the result stands).
//! - Any other exit, a crash or a timeout (default 60 s, then every process the hook started is
//!   killed, its process group and whatever left it):
//!   logged, and the call goes on — except that a `deny` (or `ask`) the hook had already printed
//!   when it timed out still counts. A hook can never hang a call, and never fail open where it
//!   said deny.
//!
//! A hook's answer is taken when the hook process exits: a child it left behind holding stdout
//! open does not make the hook wait for its timeout (the output is read for a moment more, then
//! the answer is what was printed). Like a shell command, a hook is registered with the
//! process's watchdog while it runs, so it ends with the process that started it
//! ([`agent_tools_background::group`]).

use std::time::Duration;

use agent_tools_background::group;
use agent_tools_core::Message;
use agent_tools_core::ToolUseContext;
use regex::Regex;
use serde_json::{Value, json};

pub use agent_tools_settings::{CommandHook, HookMatcher};

/// Seconds a hook may run when its settings give no `timeout`.
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

/// Most bytes kept of a hook's stdout or stderr.
const MAX_OUTPUT_BYTES: usize = 1 << 20;

/// The loop-level hook events a session keeps in [`Hooks::events`] (the agent loop runs them;
/// the executor runs only PreToolUse and PostToolUse).
pub const LOOP_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PreCompact",
];

/// The hooks of a session.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// `PreToolUse` matchers, in settings order.
    pub pre_tool_use: Vec<HookMatcher>,
    /// `PostToolUse` matchers, in settings order.
    pub post_tool_use: Vec<HookMatcher>,
    /// The loop-level events' matchers ([`LOOP_EVENTS`]), by event name.
    pub events: std::collections::BTreeMap<String, Vec<HookMatcher>>,
}

impl Hooks {
    /// True when there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty() && self.post_tool_use.is_empty() && self.events.is_empty()
    }

    /// The matchers of a loop-level event (empty when none).
    pub fn event(&self, event: &str) -> &[HookMatcher] {
        self.events.get(event).map_or(&[], Vec::as_slice)
    }
}

/// What the hooks of one loop-level event said (Claude Code's hook output for `UserPromptSubmit`,
/// `Stop`, `SessionStart`, `SessionEnd`, `Notification`, `PreCompact`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventOutcome {
    /// A block: exit code 2 (its stderr) or JSON `"decision": "block"` (its `reason`). For
    /// `UserPromptSubmit` the prompt is refused; for `Stop` the loop goes on with the reason as
    /// the next user message.
    pub blocked: Option<String>,
    /// `hookSpecificOutput.additionalContext`, and for `UserPromptSubmit` / `SessionStart` a
    /// successful hook's plain stdout: context the model reads.
    pub context: Vec<String>,
    /// JSON `"continue": false`: stop the session, with `stopReason`.
    pub stop: Option<String>,
    /// JSON `systemMessage`: a line for the user.
    pub user_messages: Vec<String>,
}

/// Runs the hooks of a loop-level `event` whose matcher selects `target` (`startup` /
/// `resume` for SessionStart, `manual` / `auto` for PreCompact; an empty target selects every
/// matcher), in order, each with `payload` (the common fields are added: `session_id`,
/// `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`) on stdin. A hook that fails
/// to start, exits with another code or times out is logged and ignored.
pub async fn run_event(
    hooks: &Hooks,
    event: &str,
    target: &str,
    payload: serde_json::Map<String, Value>,
    transcript_path: &str,
    ctx: &ToolUseContext,
) -> EventOutcome {
    let mut outcome = EventOutcome::default();
    let mut input = serde_json::Map::new();
    input.insert("session_id".into(), json!(ctx.options.session_id));
    input.insert("transcript_path".into(), json!(transcript_path));
    input.insert("cwd".into(), json!(ctx.cwd));
    input.insert("permission_mode".into(), json!(ctx.permission_context.mode.as_str()));
    input.insert("hook_event_name".into(), json!(event));
    input.extend(payload);
    let input = Value::Object(input);
    let hooks = hooks
        .event(event)
        .iter()
        .filter(|matcher| target.is_empty() || matcher_selects(&matcher.matcher, target))
        .flat_map(|matcher| matcher.hooks.iter())
        .filter(|hook| hook.kind == "command" && !hook.command.trim().is_empty());
    for hook in hooks {
        let Some(run) = run_command(hook, &input, ctx).await else { continue };
        match run.status {
            Some(2) => {
                let stderr = if run.stderr.is_empty() { "No stderr output" } else { run.stderr.trim_end() };
                outcome.blocked = Some(stderr.to_owned());
                return outcome;
            }
            Some(0) => {}
            other => {
                tracing::warn!(command = %hook.command, event, status = ?other, stderr = %run.stderr.trim(), "hook failed");
                continue;
            }
        }
        let Some(output) = json_output(&run.stdout) else {
            let text = run.stdout.trim();
            if !text.is_empty() && matches!(event, "UserPromptSubmit" | "SessionStart") {
                outcome.context.push(text.to_owned());
            }
            continue;
        };
        if let Some(message) = output.get("systemMessage").and_then(Value::as_str) {
            outcome.user_messages.push(message.to_owned());
        }
        if let Some(context) = output.pointer("/hookSpecificOutput/additionalContext").and_then(Value::as_str) {
            outcome.context.push(context.to_owned());
        }
        if output.get("continue").and_then(Value::as_bool) == Some(false) {
            let reason = output.get("stopReason").and_then(Value::as_str).unwrap_or_default();
            outcome.stop = Some(reason.to_owned());
            return outcome;
        }
        if output.get("decision").and_then(Value::as_str) == Some("block") {
            let reason = output.get("reason").and_then(Value::as_str).unwrap_or_default();
            outcome.blocked = Some(reason.to_owned());
            return outcome;
        }
    }
    outcome
}

/// Whether a matcher selects `tool`, by Claude Code's documented rule: empty or `*` selects
/// every tool; a matcher of only letters, digits, `_`, `-`, spaces, `,` and `|` is an exact tool
/// name or a list of them (`Edit|Write`, `Read, Grep`); anything else is an unanchored regular
/// expression (`^Gl`, `mcp__srv__.*`, `Notebook.*`). An invalid expression selects nothing.
pub fn matcher_selects(matcher: &str, tool: &str) -> bool {
    let matcher = matcher.trim();
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    let plain = matcher.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
    if plain {
        return matcher.split(['|', ',']).map(str::trim).any(|name| name == tool);
    }
    Regex::new(matcher).is_ok_and(|regex| regex.is_match(tool))
}

/// A hook's permission answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookDecision {
    /// Run without asking (deny rules and safety checks still apply).
    Allow,
    /// Refuse, with the hook's reason.
    Deny(String),
    /// Ask the user.
    Ask(String),
}

/// What the PreToolUse hooks decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolUse {
    /// A refusal the model reads (exit 2 or a JSON deny), as Claude Code words it.
    pub blocked: Option<String>,
    /// A permission answer.
    pub decision: Option<HookDecision>,
    /// A replacement input.
    pub updated_input: Option<Value>,
    /// System messages for the conversation (additional context).
    pub messages: Vec<Message>,
}

/// How one hook process ended.
struct HookRun {
    /// Its exit code; `None` when it timed out (or was killed by a signal).
    status: Option<i32>,
    stdout: String,
    stderr: String,
    /// It did not exit within its timeout; every process it started was killed.
    timed_out: bool,
}

/// Runs a hook's command ([`group::run_captured`]: its own process group, registered with the
/// watchdog, the event on stdin, stdout and stderr kept up to [`MAX_OUTPUT_BYTES`], the whole
/// tree killed at the timeout, output read for [`group::OUTPUT_GRACE`] after it exits). `None`
/// when it could not start.
async fn run_command(hook: &CommandHook, input: &Value, ctx: &ToolUseContext) -> Option<HookRun> {
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(&hook.command).current_dir(&ctx.cwd).env("CLAUDE_PROJECT_DIR", &ctx.original_cwd);
    let seconds = hook.timeout.filter(|t| t.is_finite() && *t > 0.0).unwrap_or(DEFAULT_TIMEOUT_SECS);
    let timeout = Duration::from_secs_f64(seconds.min(86_400.0));
    let payload = input.to_string();
    let run = match group::run_captured(command, Some(payload.as_bytes()), timeout, MAX_OUTPUT_BYTES).await {
        Ok(run) => run,
        Err(error) => {
            tracing::warn!(command = %hook.command, %error, "hook could not start");
            return None;
        }
    };
    if run.timed_out {
        tracing::warn!(command = %hook.command, seconds, "hook timed out; its processes were killed");
    }
    Some(HookRun {
        status: run.status.and_then(|status| status.code()),
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
        timed_out: run.timed_out,
    })
}

fn event_input(event: &str, tool: &str, input: &Value, ctx: &ToolUseContext) -> Value {
    json!({
        "session_id": ctx.options.session_id,
        "transcript_path": "",
        "cwd": ctx.cwd,
        "permission_mode": ctx.permission_context.mode.as_str(),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": ctx.tool_use_id,
    })
}

/// Whether a hook of `matchers` that selects `tool` has an `if` condition: only then is the
/// call's rule matching (for Bash, a parse of the command) prepared.
pub fn any_condition(matchers: &[HookMatcher], tool: &str) -> bool {
    matchers
        .iter()
        .filter(|matcher| matcher_selects(&matcher.matcher, tool))
        .flat_map(|matcher| &matcher.hooks)
        .any(|hook| hook.condition.is_some())
}

/// Whether a hook's `if` condition (a permission-rule pattern such as `Bash(git *)`) holds for
/// the call: the executor answers it with the tool's own rule matching.
pub type HookCondition<'a> = &'a (dyn Fn(&str) -> bool + Sync);

fn selected<'a>(
    matchers: &'a [HookMatcher],
    tool: &'a str,
    condition: HookCondition<'a>,
) -> impl Iterator<Item = &'a CommandHook> {
    matchers
        .iter()
        .filter(move |matcher| matcher_selects(&matcher.matcher, tool))
        .flat_map(|matcher| matcher.hooks.iter())
        .filter(|hook| hook.kind == "command" && !hook.command.trim().is_empty())
        .filter(move |hook| hook.condition.as_deref().is_none_or(condition))
}

fn json_output(stdout: &str) -> Option<Value> {
    let text = stdout.trim();
    text.starts_with('{').then(|| serde_json::from_str(text).ok()).flatten()
}

/// Runs the PreToolUse hooks that select `tool` for a call with `input` (and whose `if`
/// `condition` holds), in order; the first refusal ends the run.
pub async fn run_pre_tool_use(
    hooks: &Hooks,
    tool: &str,
    input: &Value,
    condition: HookCondition<'_>,
    ctx: &ToolUseContext,
) -> PreToolUse {
    let mut outcome = PreToolUse::default();
    let mut current = input.clone();
    for hook in selected(&hooks.pre_tool_use, tool, condition) {
        let Some(run) = run_command(hook, &event_input("PreToolUse", tool, &current, ctx), ctx).await else { continue };
        match run.status {
            // A hook that timed out after printing a refusal still refuses (never fail open).
            None if run.timed_out => {
                let Some(output) = json_output(&run.stdout) else { continue };
                // Only a refusal or a question counts from a hook that did not finish.
                let (said, reason) = json_decision(&output);
                match said {
                    Some("deny") => {
                        outcome.blocked = Some(format!("PreToolUse:{tool} hook error: {reason}"));
                        return outcome;
                    }
                    Some("ask") => outcome.decision = Some(HookDecision::Ask(reason)),
                    _ => {}
                }
                continue;
            }
            Some(2) => {
                // Claude Code's text, with its stand-in for a hook that printed nothing.
                let stderr = if run.stderr.is_empty() { "No stderr output" } else { run.stderr.as_str() };
                outcome.blocked = Some(format!("PreToolUse:{tool} hook error: [{}]: {stderr}", hook.command));
                return outcome;
            }
            Some(0) => {}
            other => {
                tracing::warn!(command = %hook.command, status = ?other, stderr = %run.stderr.trim(), "hook failed; the call goes on");
                continue;
            }
        }
        let Some(output) = json_output(&run.stdout) else { continue };
        let (decision, reason) = json_decision(&output);
        let specific = output.get("hookSpecificOutput").cloned().unwrap_or(Value::Null);
        if let Some(context) = specific.get("additionalContext").and_then(Value::as_str) {
            outcome
                .messages
                .push(Message::system_text(format!("PreToolUse:{tool} hook additional context: {context}")));
        }
        if let Some(updated) = specific.get("updatedInput").filter(|value| value.is_object()) {
            current = updated.clone();
            outcome.updated_input = Some(updated.clone());
        }
        match decision {
            Some("deny") => {
                outcome.blocked = Some(format!("PreToolUse:{tool} hook error: {reason}"));
                return outcome;
            }
            Some("ask") => outcome.decision = Some(HookDecision::Ask(reason)),
            Some("allow") => outcome.decision = Some(HookDecision::Allow),
            _ => {}
        }
    }
    outcome
}

/// What a PreToolUse hook's JSON answer decides and why: `hookSpecificOutput.permissionDecision`
/// (`allow`, `deny`, `ask`), else the older top-level `decision` (`approve` → `allow`, `block` →
/// `deny`); the reason from `permissionDecisionReason`, else `reason` (empty when neither).
fn json_decision(output: &Value) -> (Option<&str>, String) {
    let specific = output.get("hookSpecificOutput");
    let reason = specific
        .and_then(|specific| specific.get("permissionDecisionReason"))
        .or_else(|| output.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let decision = specific.and_then(|specific| specific.get("permissionDecision")).and_then(Value::as_str).or_else(
        || match output.get("decision").and_then(Value::as_str) {
            Some("approve") => Some("allow"),
            Some("block") => Some("deny"),
            _ => None,
        },
    );
    (decision, reason)
}

/// Runs the PostToolUse hooks that select `tool` after a call (and whose `if` `condition`
/// holds); returns the system messages they add (blocking feedback and additional context). The
/// tool's result is never changed.
pub async fn run_post_tool_use(
    hooks: &Hooks,
    tool: &str,
    input: &Value,
    response: &Value,
    condition: HookCondition<'_>,
    ctx: &ToolUseContext,
) -> Vec<Message> {
    let mut messages = Vec::new();
    for hook in selected(&hooks.post_tool_use, tool, condition) {
        let mut payload = event_input("PostToolUse", tool, input, ctx);
        payload["tool_response"] = response.clone();
        let Some(run) = run_command(hook, &payload, ctx).await else { continue };
        match run.status {
            Some(2) => messages.push(Message::system_text(format!(
                "PostToolUse:{tool} hook blocking error from command: \"{0}\": [{0}]: {1}",
                hook.command, run.stderr
            ))),
            Some(0) => {
                let context = json_output(&run.stdout).and_then(|output| {
                    output.pointer("/hookSpecificOutput/additionalContext").and_then(Value::as_str).map(str::to_owned)
                });
                if let Some(context) = context {
                    messages
                        .push(Message::system_text(format!("PostToolUse:{tool} hook additional context: {context}")));
                }
            }
            other => tracing::warn!(command = %hook.command, status = ?other, "post hook failed"),
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_select_like_claude_code() {
        assert!(matcher_selects("", "Bash"));
        assert!(matcher_selects("*", "Read"));
        assert!(matcher_selects("Bash", "Bash"));
        assert!(!matcher_selects("Bash", "BashOutput"), "a plain name is exact");
        assert!(!matcher_selects("Bas", "Bash"));
        assert!(matcher_selects("Edit|Write", "Write"));
        assert!(matcher_selects("Read, Grep", "Grep"), "a list of names");
        assert!(!matcher_selects("Edit|Write", "Read"));
        assert!(matcher_selects("mcp__github__.*", "mcp__github__list"));
        // Anything else is an unanchored regular expression.
        assert!(matcher_selects("^Gl", "Glob"));
        assert!(!matcher_selects("^Gl", "MyGlob"));
        assert!(matcher_selects("Notebook.*", "NotebookEdit"));
        assert!(matcher_selects("ash$", "Bash"));
        assert!(!matcher_selects("(", "("), "an invalid expression selects nothing");
    }
}
