//! Hook events, fired from wherever they happen: a tool (TaskCreate's `TaskCreated`,
//! EnterWorktree's `WorktreeCreate`), the executor, the agent loop.
//!
//! The contract is here so a tool crate can fire an event without knowing who runs the hooks:
//! the host puts its hooks in [`ToolUseContext::hooks`] (a [`HookEvents`]), and
//! [`ToolUseContext::fire_hook`] runs those of one event. Without hooks nothing runs and the
//! answer is empty ([`HookOutcome::default`]).
//!
//! An event is named as Claude Code names it (`TaskCreated`), its matcher target is the value
//! the settings' `matcher` is compared with (a tool name, `startup`, `manual` …; empty when the
//! event has none), and its payload holds the event's own input fields (`task_id`,
//! `task_subject` …); the runner adds the common ones (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `permission_mode`, and `agent_id` / `agent_type` inside a sub-agent).

use serde_json::{Map, Value};

use crate::{BoxFuture, ToolUseContext};

/// What the hooks of one event said, all of them together (Claude Code's aggregated hook
/// result).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// A block: a hook's exit code 2 (its stderr) or JSON `"decision": "block"` (its
    /// `reason`). What it blocks depends on the event (a prompt, the end of a turn, a task's
    /// creation …). The first block ends the run.
    pub blocked: Option<String>,
    /// `hookSpecificOutput.additionalContext` of each hook (and for the events whose plain
    /// stdout is context — `UserPromptSubmit`, `SessionStart`, `Setup` — a successful hook's
    /// plain stdout): context the model reads.
    pub context: Vec<String>,
    /// JSON `"continue": false`: stop, with `stopReason`.
    pub stop: Option<String>,
    /// JSON `systemMessage`: lines for the user.
    pub user_messages: Vec<String>,
    /// The fields of every hook's `hookSpecificOutput` (its `hookEventName` left out), a later
    /// hook's field replacing an earlier one's: `decision` (PermissionRequest), `worktreePath`
    /// (WorktreeCreate), `action` / `content` (Elicitation), `retry` (PermissionDenied) …
    pub specific: Map<String, Value>,
    /// The plain (not JSON) stdout of each hook that succeeded, trimmed; empty ones left out.
    pub outputs: Vec<String>,
    /// Each hook that failed without blocking (it could not start, exited with another code
    /// than 0 or 2, timed out, or an HTTP hook's request failed or was refused), in words.
    pub errors: Vec<String>,
    /// How many hooks ran (started, whatever their end).
    pub ran: usize,
}

impl HookOutcome {
    /// The string field `name` of the hooks' `hookSpecificOutput`, if one gave it.
    pub fn specific_str(&self, name: &str) -> Option<&str> {
        self.specific.get(name).and_then(Value::as_str)
    }
}

/// Runs the hooks of an event (see the module docs). The host's hooks implement it.
pub trait HookEvents: Send + Sync {
    /// Whether any hook is configured for `event` (when none is, the caller need not build the
    /// payload).
    fn handles(&self, event: &str) -> bool;

    /// Runs the hooks of `event` whose matcher selects `target`, each with the common fields
    /// and `payload` as its input; their answers together.
    fn fire<'a>(
        &'a self,
        event: &'a str,
        target: &'a str,
        payload: Map<String, Value>,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, HookOutcome>;
}

impl ToolUseContext {
    /// Whether a hook is configured for `event` in this context.
    pub fn has_hooks(&self, event: &str) -> bool {
        self.hooks.as_ref().is_some_and(|hooks| hooks.handles(event))
    }

    /// Runs the hooks of `event` for `target` with `payload` (see [`HookEvents::fire`]); an
    /// empty answer when there are none.
    pub async fn fire_hook(&self, event: &str, target: &str, payload: Map<String, Value>) -> HookOutcome {
        match &self.hooks {
            Some(hooks) if hooks.handles(event) => hooks.fire(event, target, payload, self).await,
            _ => HookOutcome::default(),
        }
    }
}
