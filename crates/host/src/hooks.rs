//! Hooks in Claude Code's format: every hook event the Agent SDKs define, run as command hooks
//! or HTTP hooks.
//!
//! Hooks come from the settings files (`"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks":
//! [{"type": "command", "command": "…", "timeout": 60, "if": "Bash(git *)"}]}]}`); the Agent
//! SDKs' callbacks arrive the same way (the CLI turns each into a command hook that calls back),
//! so every event fired here reaches them too. [`Hooks`] holds a session's hooks; it is what the
//! executor runs around calls, what the loop runs at its own events, and (as the core's
//! [`HookEvents`]) what tools fire their events through ([`ToolUseContext::fire_hook`]).
//!
//! # Events
//!
//! [`EVENTS`] lists the 35 events of the TypeScript SDK's `HOOK_EVENTS`, each with the input
//! field its matchers select on and where this program fires it. Every hook's input holds the
//! common fields — `session_id`, `transcript_path` (the main conversation's transcript, also
//! inside sub-agents), `cwd`, `hook_event_name`, `permission_mode`, and inside a sub-agent
//! `agent_id` and `agent_type` — then the event's own fields (Claude Code's names: `tool_name`,
//! `tool_input`, `tool_use_id`, `tool_response`, `error`, `source`, `trigger` …).
//!
//! A matcher selects by [`matcher_selects`] on the event's target (a tool's name, SessionStart's
//! `source`, Pre/PostCompact's `trigger` …); an event without a target runs every hook of it.
//! A hook's `if` (a permission-rule pattern) is checked on the tool events the executor runs
//! (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied);
//! elsewhere it is not, and the hook runs.
//!
//! Two events never fire here, because they have no counterpart in this program:
//! `MessageDisplay` (Claude Code's terminal shows an answer a few lines at a time and lets a
//! hook rewrite what is displayed; a headless agent displays nothing — its messages go out
//! whole, as stream-json) and `PreSkillShellCommand` (Claude Code runs a skill's inline
//! `` !`command` `` lines as it loads the skill; our Skill tool never runs a skill's shell
//! lines, so there is no command to ask about).
//!
//! # Running a hook
//!
//! - **command** (`{"type": "command", "command": "…"}`): runs as `sh -c COMMAND` in the
//!   session's working directory, in its own process group, with the input as JSON on stdin and
//!   `CLAUDE_PROJECT_DIR` set. Exit 0: stdout may be JSON (below); other stdout is plain output
//!   (context for `UserPromptSubmit`, `SessionStart` and `Setup`; WorktreeCreate's path).
//!   Exit 2: a blocking error, with stderr as the reason. Any other exit, a crash or a timeout
//!   (default 60 s, then every process the hook started is killed, its process group and
//!   whatever left it): logged, and the event goes on — except that a refusal the hook had
//!   already printed when it timed out still counts. A hook's answer is taken when its process
//!   exits: a child it left holding stdout open does not make the hook wait for its timeout.
//!   Like a shell command, a hook is registered with the process's watchdog while it runs
//!   ([`agent_tools_background::group`]).
//! - **http** (`{"type": "http", "url": "…", "headers": {…}, "allowedEnvVars": […],
//!   "timeout": N}`): the input is POSTed as JSON; a 2xx answer's body is read as a command
//!   hook's stdout on exit 0; any other status, a failed request or a timeout is a non-blocking
//!   error (so an HTTP hook refuses through JSON: `decision: "block"`, a deny). Only `http` and
//!   `https` URLs, without credentials in them, and — when the settings set
//!   `allowedHttpHookUrls` — only URLs one of its patterns matches (`*` matches any run of
//!   characters; an empty list allows none; Claude Code's rule: when no settings file sets it,
//!   any URL is allowed). Whatever the list, a hook never reaches a private, shared or
//!   link-local address (cloud metadata endpoints among them; loopback stays allowed:
//!   [`blocked_address`], Claude Code's guard), and redirects are not followed (they could lead
//!   elsewhere). A header value
//!   may name environment variables (`$NAME`, `${NAME}`): only those of the hook's
//!   `allowedEnvVars` — cut down to the settings' `httpHookAllowedEnvVars` when set — are filled
//!   in, any other becomes empty.
//!
//! Hooks from a project's own settings files run only in a trusted folder (the settings'
//! trust gate removes them, HTTP ones included, with `allowedHttpHookUrls` and
//! `httpHookAllowedEnvVars`, which could only widen the user's lists).
//!
//! # What a hook answers
//!
//! JSON on stdout (exit 0): `continue: false` (stop, with `stopReason`), `decision: "block"`
//! (with `reason`), `systemMessage` (a line for the user), and `hookSpecificOutput`, whose
//! fields depend on the event (`permissionDecision`, `updatedInput`, `additionalContext`,
//! PermissionRequest's `decision`, WorktreeCreate's `worktreePath` …). [`HookOutcome`] gathers
//! the answers of an event's hooks, run one after another; the first block, stop or refusal
//! (`permissionDecision: "deny"`, a `decision` whose `behavior` is `deny`) ends the run, and a
//! later hook's `allow` never replaces an earlier `ask`.
//!
//! # Hook notices
//!
//! Each hook run is reported to the listener ([`Hooks::set_listener`]) as a
//! [`HookNotice::Started`] then a [`HookNotice::Response`] — the `system/hook_started` and
//! `system/hook_response` lines of `--include-hook-events` ([`HookNotice::to_json`]).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use agent_tools_background::group;
use agent_tools_core::{BoxFuture, HookEvents, Message, ToolUseContext};
use regex::Regex;
use serde_json::{Map, Value, json};

mod http;

pub use agent_tools_core::HookOutcome;
pub use agent_tools_settings::{CommandHook, HookMatcher};
pub use http::{HttpPolicy, blocked_address, expand_header, url_matches};

/// What the hooks of one event said (the loop's name for [`HookOutcome`]).
pub type EventOutcome = HookOutcome;

/// Seconds a hook may run when its settings give no `timeout`.
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

/// Most bytes kept of a hook's stdout or stderr (or an HTTP hook's answer).
const MAX_OUTPUT_BYTES: usize = 1 << 20;

/// One hook event: its name, the input field its matchers select on, and where this program
/// fires it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSpec {
    /// Claude Code's name (`PreToolUse`).
    pub name: &'static str,
    /// The input field a matcher is compared with (`tool_name`, `source` …); `None` when the
    /// event takes no matcher (every hook of it runs).
    pub matcher: Option<&'static str>,
    /// Where it fires, in words; `None` for the events that do not apply here (see the module
    /// docs).
    pub fired: Option<&'static str>,
}

const fn spec(name: &'static str, matcher: Option<&'static str>, fired: Option<&'static str>) -> EventSpec {
    EventSpec { name, matcher, fired }
}

/// Every hook event of the Agent SDKs, in the TypeScript SDK's `HOOK_EVENTS` order.
pub const EVENTS: &[EventSpec] = &[
    spec("PreToolUse", Some("tool_name"), Some("the executor, before the permission check of each call")),
    spec("PostToolUse", Some("tool_name"), Some("the executor, after a call that succeeded")),
    spec("PostToolUseFailure", Some("tool_name"), Some("the executor, after a call that failed or was interrupted")),
    spec("PostToolBatch", None, Some("the loop, after a round of calls, before its results go to the model")),
    spec("Notification", Some("notification_type"), Some("the front end, before it asks the user (permission_prompt)")),
    spec("UserPromptSubmit", None, Some("the loop, before a prompt reaches the conversation")),
    spec(
        "UserPromptExpansion",
        Some("command_name"),
        Some("the loop's expand_prompt, when a front end expands a slash command"),
    ),
    spec("SessionStart", Some("source"), Some("the loop, before the first prompt (startup, resume)")),
    spec("SessionEnd", Some("reason"), Some("the front end, when the session ends")),
    spec("Stop", None, Some("the loop, when the model ends its turn")),
    spec("StopFailure", Some("error"), Some("the loop, when an API error ends the turn")),
    spec("Interrupt", Some("reason"), Some("the loop, when a user interrupt ends the turn")),
    spec("SubagentStart", Some("agent_type"), Some("a sub-agent's loop, before its first prompt")),
    spec("SubagentStop", Some("agent_type"), Some("a sub-agent's loop, when it ends its turn")),
    spec("PreCompact", Some("trigger"), Some("the loop, before a compaction")),
    spec("PostCompact", Some("trigger"), Some("the loop, after a compaction")),
    spec("PreModelSwitch", Some("to_model"), Some("the loop's switch_model (the SDK's set_model)")),
    spec("PostModelSwitch", Some("to_model"), Some("the loop's switch_model, once the model changed")),
    spec("PermissionRequest", Some("tool_name"), Some("the executor, before a call's permission question is asked")),
    spec(
        "PermissionDenied",
        Some("tool_name"),
        Some("the executor, after a call was refused (rules, mode, user, hook)"),
    ),
    spec("Setup", Some("trigger"), Some("the loop, before the first prompt of a new session (init)")),
    spec("TeammateIdle", None, Some("a teammate's loop, when it goes idle waiting for messages")),
    spec("TaskCreated", None, Some("TaskCreate, after the task is written (a block deletes it)")),
    spec("TaskCompleted", None, Some("TaskUpdate, when a task becomes completed (a block refuses it)")),
    spec("Elicitation", Some("mcp_server_name"), Some("an MCP server's elicitation, before it is asked")),
    spec("ElicitationResult", Some("mcp_server_name"), Some("an MCP server's elicitation, once answered")),
    spec("ConfigChange", Some("source"), Some("the Config tool, after it wrote a settings file")),
    spec("WorktreeCreate", None, Some("EnterWorktree, in place of git worktree add")),
    spec("WorktreeRemove", None, Some("ExitWorktree, when it removes the worktree")),
    spec("InstructionsLoaded", Some("load_reason"), Some("the loop, for each CLAUDE.md file loaded")),
    spec("CwdChanged", None, Some("the loop, when a round of calls moved the working directory")),
    spec("FileChanged", Some("file_path"), Some("the executor, after a call of an edit tool wrote a file")),
    spec("DirectoryAdded", Some("source"), Some("the front end, for each --add-dir folder")),
    spec("MessageDisplay", None, None),
    spec("PreSkillShellCommand", Some("command_name"), None),
];

/// The event named `name` (exactly, as Claude Code spells it).
pub fn event_spec(name: &str) -> Option<&'static EventSpec> {
    EVENTS.iter().find(|event| event.name == name)
}

/// Receives a session's hook notices ([`Hooks::set_listener`]).
pub type HookListener = Arc<dyn Fn(&HookNotice) + Send + Sync>;

/// One hook run, as `--include-hook-events` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookNotice {
    /// A hook started.
    Started {
        /// A fresh id, the same in the hook's response.
        hook_id: String,
        /// `Event:target` (`PreToolUse:Bash`), or the event alone when it has no target.
        hook_name: String,
        /// The event.
        hook_event: String,
    },
    /// A hook ended.
    Response {
        /// The id of its start.
        hook_id: String,
        /// As in its start.
        hook_name: String,
        /// The event.
        hook_event: String,
        /// Its stdout then its stderr.
        output: String,
        /// Its stdout (an HTTP hook's answer body).
        stdout: String,
        /// Its stderr (why an HTTP hook failed).
        stderr: String,
        /// A command hook's exit code (none when it was killed or is an HTTP hook).
        exit_code: Option<i32>,
        /// `success` (exit 0, a 2xx answer), `error` (anything else) or `cancelled` (it
        /// timed out).
        outcome: &'static str,
    },
}

impl HookNotice {
    /// The event of the hook.
    pub fn event(&self) -> &str {
        match self {
            Self::Started { hook_event, .. } | Self::Response { hook_event, .. } => hook_event,
        }
    }

    /// The stream-json line: `{"type": "system", "subtype": "hook_started", "hook_id",
    /// "hook_name", "hook_event", "uuid", "session_id"}`, or `"subtype": "hook_response"` with
    /// `output`, `stdout`, `stderr`, `exit_code` (when there is one) and `outcome` too.
    pub fn to_json(&self, session_id: &str) -> Value {
        let uuid = uuid::Uuid::new_v4().to_string();
        match self {
            Self::Started { hook_id, hook_name, hook_event } => json!({
                "type": "system", "subtype": "hook_started", "hook_id": hook_id, "hook_name": hook_name,
                "hook_event": hook_event, "uuid": uuid, "session_id": session_id,
            }),
            Self::Response { hook_id, hook_name, hook_event, output, stdout, stderr, exit_code, outcome } => {
                let mut line = json!({
                    "type": "system", "subtype": "hook_response", "hook_id": hook_id, "hook_name": hook_name,
                    "hook_event": hook_event, "output": output, "stdout": stdout, "stderr": stderr,
                    "outcome": outcome, "uuid": uuid, "session_id": session_id,
                });
                if let Some(code) = exit_code {
                    line["exit_code"] = json!(code);
                }
                line
            }
        }
    }
}

/// The hooks of a session. Clones share the transcript path and the listener.
#[derive(Clone, Default)]
pub struct Hooks {
    /// `PreToolUse` matchers, in settings order.
    pub pre_tool_use: Vec<HookMatcher>,
    /// `PostToolUse` matchers, in settings order.
    pub post_tool_use: Vec<HookMatcher>,
    /// Every other event's matchers, by event name.
    pub events: BTreeMap<String, Vec<HookMatcher>>,
    /// The limits on HTTP hooks.
    pub http: HttpPolicy,
    /// What the clones share (the transcript path, the listener): leave it to `Default`.
    pub shared: SharedState,
}

/// What the clones of a [`Hooks`] share: set through [`Hooks::set_transcript_path`] and
/// [`Hooks::set_listener`].
#[derive(Clone, Default)]
pub struct SharedState(Arc<Shared>);

impl std::ops::Deref for SharedState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The inside of a [`SharedState`].
#[derive(Default)]
pub struct Shared {
    /// The main conversation's transcript, for every hook's `transcript_path`.
    transcript_path: RwLock<String>,
    listener: RwLock<Option<HookListener>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("pre_tool_use", &self.pre_tool_use)
            .field("post_tool_use", &self.post_tool_use)
            .field("events", &self.events)
            .field("http", &self.http)
            .finish_non_exhaustive()
    }
}

impl Hooks {
    /// The hooks of the settings: every event of [`EVENTS`] (other keys are ignored, as Claude
    /// Code ignores events it does not know), with the HTTP limits.
    pub fn from_settings(settings: &agent_tools_settings::LoadedSettings) -> Self {
        let mut hooks = Self {
            pre_tool_use: settings.hooks("PreToolUse"),
            post_tool_use: settings.hooks("PostToolUse"),
            http: HttpPolicy {
                allowed_urls: settings.allowed_http_hook_urls(),
                allowed_env_vars: settings.http_hook_allowed_env_vars(),
            },
            ..Self::default()
        };
        for event in EVENTS.iter().filter(|event| !matches!(event.name, "PreToolUse" | "PostToolUse")) {
            let matchers = settings.hooks(event.name);
            if !matchers.is_empty() {
                hooks.events.insert(event.name.to_owned(), matchers);
            }
        }
        hooks
    }

    /// These hooks with `hook` added to `event` under a matcher of its own (`matcher`: a tool
    /// name, `startup` …; empty for every target), after the ones already there.
    #[must_use]
    pub fn with_hook(mut self, event: &str, matcher: &str, hook: CommandHook) -> Self {
        let entry = HookMatcher { matcher: matcher.to_owned(), hooks: vec![hook] };
        match event {
            "PreToolUse" => self.pre_tool_use.push(entry),
            "PostToolUse" => self.post_tool_use.push(entry),
            _ => self.events.entry(event.to_owned()).or_default().push(entry),
        }
        self
    }

    /// True when there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty() && self.post_tool_use.is_empty() && self.events.values().all(Vec::is_empty)
    }

    /// The matchers of an event (empty when none).
    pub fn event(&self, event: &str) -> &[HookMatcher] {
        match event {
            "PreToolUse" => &self.pre_tool_use,
            "PostToolUse" => &self.post_tool_use,
            _ => self.events.get(event).map_or(&[], Vec::as_slice),
        }
    }

    /// Sets the transcript every hook's `transcript_path` names (the main conversation's; the
    /// loop sets it when it opens the transcript).
    pub fn set_transcript_path(&self, path: &str) {
        *self.shared.transcript_path.write().unwrap_or_else(std::sync::PoisonError::into_inner) = path.to_owned();
    }

    /// The transcript hooks are told about (empty until set).
    pub fn transcript_path(&self) -> String {
        self.shared.transcript_path.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Sends every hook run's notices to `listener` from now on (`None` stops them).
    pub fn set_listener(&self, listener: Option<HookListener>) {
        *self.shared.listener.write().unwrap_or_else(std::sync::PoisonError::into_inner) = listener;
    }

    fn notify(&self, notice: &HookNotice) {
        let listener = self.shared.listener.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(listener) = listener {
            listener(notice);
        }
    }

    /// The fields every hook's input starts with: `session_id`, `transcript_path`, `cwd`,
    /// `permission_mode`, `hook_event_name`, and `agent_id` / `agent_type` when the context
    /// has them (inside a sub-agent).
    pub fn base_input(&self, event: &str, ctx: &ToolUseContext) -> Map<String, Value> {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(ctx.options.session_id));
        input.insert("transcript_path".into(), json!(self.transcript_path()));
        input.insert("cwd".into(), json!(ctx.cwd));
        input.insert("permission_mode".into(), json!(ctx.permission_context.mode.as_str()));
        input.insert("hook_event_name".into(), json!(event));
        if let Some(id) = &ctx.agent_id {
            input.insert("agent_id".into(), json!(id));
        }
        if let Some(kind) = &ctx.agent_type {
            input.insert("agent_type".into(), json!(kind));
        }
        input
    }

    /// Runs one hook (command or HTTP) with `input`, telling the listener.
    async fn run_hook(
        &self,
        hook: &CommandHook,
        event: &str,
        target: &str,
        input: &Value,
        ctx: &ToolUseContext,
    ) -> HookRun {
        let hook_id = uuid::Uuid::new_v4().to_string();
        let hook_name = if target.is_empty() { event.to_owned() } else { format!("{event}:{target}") };
        self.notify(&HookNotice::Started {
            hook_id: hook_id.clone(),
            hook_name: hook_name.clone(),
            hook_event: event.to_owned(),
        });
        let run =
            if hook.kind == "http" { self.run_http(hook, input).await } else { run_command(hook, input, ctx).await };
        let outcome = match run.status {
            Some(0) => "success",
            None if run.timed_out => "cancelled",
            _ => "error",
        };
        self.notify(&HookNotice::Response {
            hook_id,
            hook_name,
            hook_event: event.to_owned(),
            output: format!("{}{}", run.stdout, run.stderr),
            stdout: run.stdout.clone(),
            stderr: run.stderr.clone(),
            exit_code: run.exit_code,
            outcome,
        });
        run
    }
}

impl HookEvents for Hooks {
    fn handles(&self, event: &str) -> bool {
        !self.event(event).is_empty()
    }

    fn fire<'a>(
        &'a self,
        event: &'a str,
        target: &'a str,
        payload: Map<String, Value>,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, HookOutcome> {
        Box::pin(run_event(self, event, target, payload, ctx))
    }
}

/// Runs the hooks of `event` whose matcher selects `target` (an empty target selects every
/// matcher), one after another, each with the common fields ([`Hooks::base_input`]) and
/// `payload` as its input, and gathers their answers (see the module docs). A hook's `if` is
/// not checked: [`run_tool_event`] checks it for the tool events.
pub async fn run_event(
    hooks: &Hooks,
    event: &str,
    target: &str,
    payload: Map<String, Value>,
    ctx: &ToolUseContext,
) -> HookOutcome {
    run_selected(hooks, event, target, None, payload, ctx).await
}

/// [`run_event`] for a tool event (`PostToolUseFailure`, `PermissionRequest`,
/// `PermissionDenied` …): the matcher selects `tool`, and a hook with an `if` runs only when
/// `condition` holds for its pattern.
pub async fn run_tool_event(
    hooks: &Hooks,
    event: &str,
    tool: &str,
    condition: HookCondition<'_>,
    payload: Map<String, Value>,
    ctx: &ToolUseContext,
) -> HookOutcome {
    run_selected(hooks, event, tool, Some(condition), payload, ctx).await
}

async fn run_selected(
    hooks: &Hooks,
    event: &str,
    target: &str,
    condition: Option<HookCondition<'_>>,
    payload: Map<String, Value>,
    ctx: &ToolUseContext,
) -> HookOutcome {
    let mut outcome = HookOutcome::default();
    let mut input = hooks.base_input(event, ctx);
    input.extend(payload);
    let input = Value::Object(input);
    let selected: Vec<&CommandHook> = hooks
        .event(event)
        .iter()
        .filter(|matcher| target.is_empty() || matcher_selects(&matcher.matcher, target))
        .flat_map(|matcher| matcher.hooks.iter())
        .filter(|hook| runnable(hook))
        .filter(|hook| match (condition, hook.condition.as_deref()) {
            (Some(holds), Some(pattern)) => holds(pattern),
            _ => true,
        })
        .collect();
    for hook in selected {
        outcome.ran += 1;
        let run = hooks.run_hook(hook, event, target, &input, ctx).await;
        let described = describe(hook);
        match run.status {
            // A hook that timed out after printing a refusal still refuses (never fail open).
            None if run.timed_out => {
                outcome.errors.push(format!("{described} timed out"));
                if let Some(output) = json_output(&run.stdout)
                    && refuses(&output)
                    && absorb(&mut outcome, event, &output).is_break()
                {
                    return outcome;
                }
            }
            Some(2) => {
                let stderr = if run.stderr.is_empty() { "No stderr output" } else { run.stderr.trim_end() };
                outcome.blocked = Some(stderr.to_owned());
                return outcome;
            }
            Some(0) => match json_output(&run.stdout) {
                Some(output) => {
                    if absorb(&mut outcome, event, &output).is_break() {
                        return outcome;
                    }
                }
                None => {
                    let text = run.stdout.trim();
                    if !text.is_empty() {
                        if matches!(event, "UserPromptSubmit" | "SessionStart" | "Setup") {
                            outcome.context.push(text.to_owned());
                        }
                        outcome.outputs.push(text.to_owned());
                    }
                }
            },
            other => {
                tracing::warn!(hook = %described, event, status = ?other, stderr = %run.stderr.trim(), "hook failed");
                let why = run.stderr.trim();
                outcome.errors.push(match other {
                    Some(code) => format!("{described} exited with {code}: {why}"),
                    None => format!("{described} failed: {why}"),
                });
            }
        }
    }
    outcome
}

/// Whether a hook's JSON answer refuses something: a block, a `deny`, a stop.
fn refuses(output: &Value) -> bool {
    output.get("decision").and_then(Value::as_str) == Some("block")
        || output.get("continue").and_then(Value::as_bool) == Some(false)
        || output.pointer("/hookSpecificOutput/permissionDecision").and_then(Value::as_str) == Some("deny")
        || output.pointer("/hookSpecificOutput/decision/behavior").and_then(Value::as_str) == Some("deny")
}

/// Takes one hook's JSON answer into `outcome`; `Break` when it ends the run (a stop, a block,
/// a refusal).
fn absorb(outcome: &mut HookOutcome, event: &str, output: &Value) -> std::ops::ControlFlow<()> {
    use std::ops::ControlFlow;
    if let Some(message) = output.get("systemMessage").and_then(Value::as_str) {
        outcome.user_messages.push(message.to_owned());
    }
    if let Some(specific) = output.get("hookSpecificOutput").and_then(Value::as_object) {
        // Another event's answer (a hook shared between events) is not this event's.
        let named = specific.get("hookEventName").and_then(Value::as_str);
        if named.is_none_or(|name| name == event) {
            for (key, value) in specific {
                match key.as_str() {
                    "hookEventName" => {}
                    "additionalContext" => {
                        if let Some(context) = value.as_str() {
                            outcome.context.push(context.to_owned());
                        }
                    }
                    // An earlier `ask` (or `deny`) is never relaxed by a later `allow`.
                    "permissionDecision" => {
                        let rank = |decision: Option<&str>| match decision {
                            Some("deny") => 3,
                            Some("ask") => 2,
                            Some("defer") => 1,
                            _ => 0,
                        };
                        if rank(value.as_str()) >= rank(outcome.specific_str("permissionDecision")) {
                            outcome.specific.insert(key.clone(), value.clone());
                        }
                    }
                    _ => {
                        outcome.specific.insert(key.clone(), value.clone());
                    }
                }
            }
        }
    }
    if output.get("continue").and_then(Value::as_bool) == Some(false) {
        let reason = output.get("stopReason").and_then(Value::as_str).unwrap_or_default();
        outcome.stop = Some(reason.to_owned());
        return ControlFlow::Break(());
    }
    if output.get("decision").and_then(Value::as_str) == Some("block") {
        let reason = output.get("reason").and_then(Value::as_str).unwrap_or_default();
        outcome.blocked = Some(reason.to_owned());
        return ControlFlow::Break(());
    }
    let denied = outcome.specific_str("permissionDecision") == Some("deny")
        || outcome.specific.get("decision").and_then(|decision| decision.get("behavior")).and_then(Value::as_str)
            == Some("deny");
    if denied { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
}

/// A hook in a few words, for logs and errors.
fn describe(hook: &CommandHook) -> String {
    match hook.kind.as_str() {
        "http" => format!("the HTTP hook {}", hook.url.as_deref().unwrap_or_default()),
        _ => format!("the hook command {:?}", hook.command),
    }
}

/// Whether a hook can run here: a command hook with a command, an HTTP hook with a URL (other
/// types — `prompt`, `agent` — need a model, and are skipped).
fn runnable(hook: &CommandHook) -> bool {
    match hook.kind.as_str() {
        "command" => !hook.command.trim().is_empty(),
        "http" => hook.url.as_deref().is_some_and(|url| !url.trim().is_empty()),
        _ => false,
    }
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

/// How one hook ended.
struct HookRun {
    /// `Some(0)` for success (exit 0, a 2xx answer), `Some(2)` for a blocking error, another
    /// code for a failure; `None` when it timed out, was killed by a signal or could not start.
    status: Option<i32>,
    /// A command hook's exit code.
    exit_code: Option<i32>,
    stdout: String,
    stderr: String,
    /// It did not end within its timeout (a command's processes were all killed).
    timed_out: bool,
}

fn timeout_secs(hook: &CommandHook) -> f64 {
    hook.timeout.filter(|t| t.is_finite() && *t > 0.0).unwrap_or(DEFAULT_TIMEOUT_SECS).min(86_400.0)
}

/// Runs a hook's command ([`group::run_captured`]: its own process group, registered with the
/// watchdog, the input on stdin, stdout and stderr kept up to [`MAX_OUTPUT_BYTES`], the whole
/// tree killed at the timeout, output read for [`group::OUTPUT_GRACE`] after it exits).
async fn run_command(hook: &CommandHook, input: &Value, ctx: &ToolUseContext) -> HookRun {
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(&hook.command).current_dir(&ctx.cwd).env("CLAUDE_PROJECT_DIR", &ctx.original_cwd);
    let seconds = timeout_secs(hook);
    let timeout = Duration::from_secs_f64(seconds);
    let payload = input.to_string();
    let run = match group::run_captured(command, Some(payload.as_bytes()), timeout, MAX_OUTPUT_BYTES).await {
        Ok(run) => run,
        Err(error) => {
            tracing::warn!(command = %hook.command, %error, "hook could not start");
            return HookRun {
                status: None,
                exit_code: None,
                stdout: String::new(),
                stderr: format!("the hook could not start: {error}"),
                timed_out: false,
            };
        }
    };
    if run.timed_out {
        tracing::warn!(command = %hook.command, seconds, "hook timed out; its processes were killed");
    }
    let code = run.status.and_then(|status| status.code());
    HookRun {
        status: code,
        exit_code: code,
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
        timed_out: run.timed_out,
    }
}

/// A tool event's payload: `tool_name`, `tool_input`, `tool_use_id`.
fn tool_payload(tool: &str, input: &Value, ctx: &ToolUseContext) -> Map<String, Value> {
    let mut payload = Map::new();
    payload.insert("tool_name".into(), json!(tool));
    payload.insert("tool_input".into(), input.clone());
    payload.insert("tool_use_id".into(), json!(ctx.tool_use_id));
    payload
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
        .filter(|hook| runnable(hook))
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
        let mut payload = hooks.base_input("PreToolUse", ctx);
        payload.extend(tool_payload(tool, &current, ctx));
        let run = hooks.run_hook(hook, "PreToolUse", tool, &Value::Object(payload), ctx).await;
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
                let name = if hook.kind == "http" { hook.url.as_deref().unwrap_or_default() } else { &hook.command };
                outcome.blocked = Some(format!("PreToolUse:{tool} hook error: [{name}]: {stderr}"));
                return outcome;
            }
            Some(0) => {}
            other => {
                tracing::warn!(hook = %describe(hook), status = ?other, stderr = %run.stderr.trim(), "hook failed; the call goes on");
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
            // An earlier question is never relaxed by a later allow.
            Some("ask") => outcome.decision = Some(HookDecision::Ask(reason)),
            Some("allow") if !matches!(outcome.decision, Some(HookDecision::Ask(_))) => {
                outcome.decision = Some(HookDecision::Allow);
            }
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

/// Runs the PostToolUse hooks that select `tool` after a call that succeeded (and whose `if`
/// `condition` holds), with its `tool_response` and `duration_ms`; returns the system messages
/// they add (blocking feedback and additional context). The tool's result is never changed.
pub async fn run_post_tool_use(
    hooks: &Hooks,
    tool: &str,
    input: &Value,
    response: &Value,
    duration_ms: u64,
    condition: HookCondition<'_>,
    ctx: &ToolUseContext,
) -> (Vec<Message>, Option<String>) {
    let mut messages = Vec::new();
    let mut stop = None;
    for hook in selected(&hooks.post_tool_use, tool, condition) {
        let mut payload = hooks.base_input("PostToolUse", ctx);
        payload.extend(tool_payload(tool, input, ctx));
        payload.insert("tool_response".into(), response.clone());
        payload.insert("duration_ms".into(), json!(duration_ms));
        let run = hooks.run_hook(hook, "PostToolUse", tool, &Value::Object(payload), ctx).await;
        match run.status {
            Some(2) => {
                let name = if hook.kind == "http" { hook.url.as_deref().unwrap_or_default() } else { &hook.command };
                messages.push(Message::system_text(format!(
                    "PostToolUse:{tool} hook blocking error from command: \"{0}\": [{0}]: {1}",
                    name, run.stderr
                )));
            }
            Some(0) => {
                let output = json_output(&run.stdout);
                let context = output.as_ref().and_then(|output| {
                    output.pointer("/hookSpecificOutput/additionalContext").and_then(Value::as_str).map(str::to_owned)
                });
                if let Some(context) = context {
                    messages
                        .push(Message::system_text(format!("PostToolUse:{tool} hook additional context: {context}")));
                }
                // `"continue": false`: the query ends after this round (Claude Code's
                // preventContinuation), with the hook's `stopReason`.
                if let Some(output) =
                    output.filter(|output| output.get("continue").and_then(Value::as_bool) == Some(false))
                {
                    let reason = output.get("stopReason").and_then(Value::as_str).unwrap_or_default();
                    stop.get_or_insert_with(|| reason.to_owned());
                }
            }
            other => tracing::warn!(hook = %describe(hook), status = ?other, "post hook failed"),
        }
    }
    (messages, stop)
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

    #[test]
    fn every_sdk_event_is_known_once() {
        assert_eq!(EVENTS.len(), 35);
        for event in EVENTS {
            assert_eq!(EVENTS.iter().filter(|other| other.name == event.name).count(), 1, "{}", event.name);
        }
        assert_eq!(event_spec("SessionStart").and_then(|event| event.matcher), Some("source"));
        assert!(event_spec("MessageDisplay").is_some_and(|event| event.fired.is_none()));
        assert!(event_spec("Bogus").is_none());
    }

    #[test]
    fn url_patterns_match_the_whole_url_with_stars() {
        assert!(url_matches("https://hooks.example.com/*", "https://hooks.example.com/a/b"));
        assert!(url_matches("http://localhost:*", "http://localhost:8080/x"));
        assert!(!url_matches("https://hooks.example.com/*", "https://hooks.example.com.evil.net/"));
        assert!(!url_matches("https://hooks.example.com/a", "https://hooks.example.com/a/b"), "anchored");
        assert!(url_matches("https://a.example/?x=(1)", "https://a.example/?x=(1)"), "literal otherwise");
        let policy = HttpPolicy { allowed_urls: Some(vec!["http://127.0.0.1:*".into()]), allowed_env_vars: None };
        assert!(policy.check_url("http://127.0.0.1:9/hook").is_ok());
        assert!(policy.check_url("http://10.0.0.1:9/hook").is_err());
        assert!(policy.check_url("http://user:pw@127.0.0.1:9/").is_err(), "credentials are refused");
        assert!(policy.check_url("file:///etc/passwd").is_err());
        let none = HttpPolicy { allowed_urls: Some(Vec::new()), allowed_env_vars: None };
        assert!(none.check_url("http://127.0.0.1:9/").is_err(), "an empty list allows nothing");
        assert!(HttpPolicy::default().check_url("https://anywhere.example/").is_ok());
    }

    #[test]
    fn hooks_never_reach_private_or_link_local_addresses() {
        let blocked = |text: &str| blocked_address(text.parse().unwrap_or_else(|_| panic!("{text}")));
        for address in [
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(blocked(address), "{address}");
        }
        for address in ["127.0.0.1", "::1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"] {
            assert!(!blocked(address), "{address}");
        }
        let url = reqwest::Url::parse("http://169.254.169.254/latest/meta-data/").unwrap_or_else(|_| panic!("url"));
        assert!(http::http_client(&url).is_err_and(|why| why.contains("may not reach")));
    }

    #[test]
    fn header_variables_are_filled_in_only_when_allowed() {
        let lookup = |name: &str| Some(format!("<{name}>"));
        assert_eq!(expand_header("Bearer $TOKEN", &["TOKEN"], lookup), "Bearer <TOKEN>");
        assert_eq!(expand_header("${TOKEN}-$SECRET", &["TOKEN"], lookup), "<TOKEN>-");
        assert_eq!(expand_header("no vars $", &[], lookup), "no vars $");
        let hook = CommandHook { allowed_env_vars: vec!["A".into(), "B".into()], ..CommandHook::new_http("http://x/") };
        let policy = HttpPolicy { allowed_urls: None, allowed_env_vars: Some(vec!["B".into()]) };
        assert_eq!(policy.env_vars(&hook), ["B"]);
        assert_eq!(HttpPolicy::default().env_vars(&hook), ["A", "B"]);
    }
}
