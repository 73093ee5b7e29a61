//! # agent-tool-monitor: the Monitor tool
//!
//! Watches a shell command in the background and tells the model about each line it prints, as
//! Claude Code's `Monitor` tool does: the same name, input (`description`, `timeout_ms`,
//! `command`), flags and result text, a `{taskId, timeoutMs}` output, and notifications that reach
//! the model between turns while the command runs.
//!
//! - **A background task**: the command runs with bash as a task of the session's
//!   [`agent_tools_background::TaskRegistry`], exactly as Bash's `run_in_background` starts one —
//!   in the working directory, on a pseudo-terminal, with [`agent_tools_shell::SHELL_ENV`], in the
//!   sandbox when sandbox mode says so, owned by the sub-agent that started it. So TaskStop stops
//!   it, TaskOutput (or Read of its output file) reads its whole output, and the session's
//!   shutdown ends it. The call returns at once:
//!   `Monitor started (task b…, timeout 300000ms). You will be notified on each event. Keep
//!   working — do not poll or sleep. Events may arrive while you are waiting for the user — an
//!   event is not their reply.`
//! - **Events**: each line the command prints (escape sequences removed; blank lines skipped) is
//!   an event, queued on the calling conversation's [`agent_tools_core::NotificationQueue`]
//!   ([`agent_tools_core::ToolUseContext::notifications`]) under the key `monitor:<task id>`
//!   (the bare id is withdrawn when TaskOutput reads the task; events must not be). Lines that
//!   arrive within [`MonitorConfig::batch_window`] (200 ms) of the first are one event; an event
//!   holds at most [`MonitorConfig::max_event_chars`] (4,000) characters of lines and says how
//!   many it left out; and while an event still waits in the queue, the next batch joins it, so
//!   a chatty command leaves one event per watch in the queue, never a flood. The texts are in
//!   [`render`] (`render::event`).
//! - **The end**: when the command exits by itself, the task's completion notification says the
//!   watch ended and with which exit code (`render::ended`, under the bare task id, after the
//!   last events). At `timeout_ms` (at most 3,600,000 accepted, capped at 1,800,000: 30 minutes)
//!   the task is stopped — its whole process tree — and one notice says it timed out
//!   (`render::timed_out`). A task stopped otherwise (TaskStop, shutdown) sends neither.
//! - **Permission**: the command passes the same check as the Bash command it is (see
//!   `permission`): `Bash(…)` rules part by part, path checks, the mode, the read-only
//!   allow-list, the sandbox's auto-allow; whole-tool `Bash` rules and `Monitor(…)` rules count
//!   too. Nothing is allowed by default.
//! - **Validation**: a missing `command` is refused (`Monitor needs a command: …`), as is an empty
//!   one; `timeout_ms` outside 1000..=3600000 is refused with a message naming both bounds; a
//!   missing `timeout_ms` means 300,000 (the schema lists it as required, as Claude Code's does).
//!
//! Deferred (ToolSearch loads its schema), concurrency-safe, not read-only, results of at most
//! 10,000 characters. The call only starts the task, so an interrupt has nothing to stop.
//!
//! Where this differs from Claude Code: its `ws` form (watching a WebSocket URL) is left out, so
//! `command` is the only source; and since the command runs on a terminal, what it writes to
//! stderr is an event too, like its stdout.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let queue = ctx.notifications();
//! let mut pushed = queue.watch();
//! let input = serde_json::json!({
//!     "description": "Build steps",
//!     "timeout_ms": 60000,
//!     "command": "echo compiling; echo 'linking <main>'",
//! });
//! let done = call_tool(agent_tool_monitor::tool().as_ref(), "toolu_1", input, &ctx).await;
//! let text = done.block.content.text();
//! assert!(text.starts_with("Monitor started (task b") && text.contains(", timeout 60000ms). "), "{text}");
//! // The events, then the notification that the watch ended.
//! let mut texts: Vec<String> = Vec::new();
//! while !texts.iter().any(|text| text.contains("<status>completed</status>")) {
//!     tokio::time::timeout(Duration::from_secs(30), pushed.pushed()).await.unwrap();
//!     texts.extend(queue.drain().into_iter().map(|pending| pending.text));
//! }
//! let all = texts.concat();
//! assert!(all.contains("<kind>monitor</kind>\n<description>Build steps</description>\n<event>\ncompiling\n"), "{all}");
//! assert!(all.contains("\nlinking &lt;main&gt;\n</event>"), "{all}");
//! assert!(texts.last().unwrap().contains("Monitor ended: its command exited with code 0."));
//! # });
//! ```

mod input;
mod permission;
pub mod render;
mod watch;

use agent_tools_core::{Capabilities, ToolKind};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_background::{OnLine, TaskRegistry};
use agent_tools_core::InputError;
use agent_tools_core::PermissionMatcher;
use agent_tools_core::{
    MaxResultSize, PermissionResult, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_shell::{SHELL_ENV, Shell, sandbox, start_dir};
use serde_json::Value;

pub use crate::input::{DEFAULT_TIMEOUT_MS, MAX_EFFECTIVE_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, MonitorInput};
pub use crate::render::MonitorOutput;

use crate::permission::BashCommands;
use crate::watch::{Settings, Watch};

/// The API name.
pub const NAME: &str = "Monitor";

/// Most characters of a result (Claude Code's `maxResultSizeChars` for Monitor).
pub const MAX_RESULT_CHARS: usize = 10_000;

/// Monitor's settings: the shell and sandbox (what Bash's settings say for its background
/// commands), and how lines become events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitorConfig {
    /// The bash binary: `/bin/bash` when it exists, else `bash` looked up on `PATH` (Bash's
    /// default; pass Bash's [`agent_tools_shell::ShellConfig::shell`] to keep them the same).
    pub shell: PathBuf,
    /// The bubblewrap binary for sandbox mode; `None` looks `bwrap` up on `PATH` (as Bash's
    /// `bwrap` setting).
    pub bwrap: Option<PathBuf>,
    /// The temporary folder the sandbox lets commands write; `None` for the system's (as Bash's
    /// `temp_dir` setting).
    pub temp_dir: Option<PathBuf>,
    /// How long an event stays open for more lines after its first one (default 200 ms).
    pub batch_window: Duration,
    /// Most characters of output lines in one event (default 4,000); the lines past it are
    /// counted, not shown.
    pub max_event_chars: usize,
    /// The longest a watch runs, in milliseconds (default [`MAX_EFFECTIVE_TIMEOUT_MS`], 30
    /// minutes); a larger `timeout_ms` is capped to it.
    pub max_timeout_ms: u64,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        Self {
            shell: BashCommands::default_program(),
            bwrap: None,
            temp_dir: None,
            batch_window: Duration::from_millis(200),
            max_event_chars: 4_000,
            max_timeout_ms: MAX_EFFECTIVE_TIMEOUT_MS,
        }
    }
}

/// The Monitor tool definition.
#[derive(Debug, Clone, Default)]
pub struct MonitorTool {
    config: MonitorConfig,
}

impl MonitorTool {
    /// The tool with these settings.
    pub fn new(config: MonitorConfig) -> Self {
        Self { config }
    }

    /// The settings.
    pub fn config(&self) -> &MonitorConfig {
        &self.config
    }

    /// Whether the command runs in the sandbox: sandbox mode is on and the command is not one of
    /// `sandbox.excludedCommands` (Monitor has no `dangerouslyDisableSandbox`).
    fn sandboxed(command: &str, ctx: &ToolUseContext) -> bool {
        sandbox::wanted(&ctx.options.sandbox, None, |excluded| sandbox::is_excluded(command, excluded))
    }
}

/// Monitor with default settings, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(MonitorTool::default())
}

/// Monitor with the given settings.
pub fn tool_with(config: MonitorConfig) -> Arc<dyn Tool> {
    build_tool(MonitorTool::new(config))
}

impl ToolDef for MonitorTool {
    type Input = MonitorInput;
    type Output = MonitorOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Runs any command (so possibly destructive and open-world), never read-only;
    // concurrency-safe, as in Claude Code (the call only starts a task).
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Execute)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: true, open_world: true })
        .deferred()
        .search_hint("watch a command's output and get notified of each new line");

    fn summary(&self, input: &MonitorInput) -> String {
        input.label().to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_CHARS)
    }

    /// Whether the command may delete or overwrite data (`true` when in doubt), as for Bash.
    fn is_destructive(&self, input: &MonitorInput) -> bool {
        input.command().is_none_or(BashCommands::is_destructive)
    }

    /// Rules match the command (`Monitor(tail -f:*)`), so "allow always" keeps it.
    fn rule_content_field(&self) -> Option<&'static str> {
        Some("command")
    }

    /// What the auto mode's classifier judges: the command itself.
    fn to_auto_classifier_input(&self, input: &MonitorInput) -> Value {
        Value::String(input.command.clone().unwrap_or_default())
    }

    /// Tells whether a rule pattern (`tail -f:*`) covers any part of the command, for hook
    /// conditions (Claude Code's `preparePermissionMatcher`), as for Bash.
    fn prepare_permission_matcher(&self, input: &MonitorInput) -> Option<PermissionMatcher> {
        input.command().map(BashCommands::permission_matcher)
    }

    fn activity_description(&self, input: &MonitorInput) -> Option<String> {
        Some(format!("Monitoring {}", input.label()))
    }

    /// Parses with `timeout_ms`'s default and bounds (see `input::parse`).
    fn parse_input(&self, json: &Value, schema: &Value) -> Result<MonitorInput, InputError> {
        input::parse(NAME, json, schema)
    }

    /// A command must be given (the `ws` form is not supported) and say something.
    async fn validate_input(&self, input: &MonitorInput, _ctx: &ToolUseContext) -> ValidationResult {
        match &input.command {
            None => ValidationResult::error(render::MISSING_COMMAND, 1),
            Some(command) if command.trim().is_empty() => ValidationResult::error(render::EMPTY_COMMAND, 1),
            Some(_) => ValidationResult::Ok,
        }
    }

    /// Bash's permission check for the command (see the crate docs); without a command, a
    /// question (the call is refused by validation anyway).
    async fn check_permissions(&self, input: &MonitorInput, ctx: &ToolUseContext) -> PermissionResult {
        match input.command() {
            Some(command) => permission::check(command, self.config.bwrap.as_deref(), ctx).await,
            None => PermissionResult::ask(render::MISSING_COMMAND),
        }
    }

    /// Starts the command as a background task and its watch, and returns at once.
    async fn call(&self, input: MonitorInput, ctx: &ToolUseContext) -> Result<ToolResult<MonitorOutput>, ToolError> {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let command = input.command().ok_or_else(|| ToolError::failed(render::MISSING_COMMAND))?;
        let timeout = input.timeout(self.config.max_timeout_ms);
        let (dir, _reset) = start_dir(ctx)?;
        let prefix = if Self::sandboxed(command, ctx) {
            let policy = sandbox::policy(&dir, self.config.temp_dir.as_deref(), ctx);
            Some(sandbox::prefix(self.config.bwrap.as_deref(), &policy)?)
        } else {
            None
        };
        let label = input.label().to_owned();
        let settings =
            Settings { window: self.config.batch_window, max_event_chars: self.config.max_event_chars.max(1) };
        let watch = Arc::new(Watch::new(label.clone(), ctx.notifications(), settings));
        let mut spec = BashCommands::background(&self.config.shell, command, &dir);
        spec.description = label;
        spec.env = SHELL_ENV.iter().map(|(key, value)| ((*key).into(), (*value).into())).collect();
        spec.tool_use_id = ctx.tool_use_id.clone();
        spec.prefix = prefix;
        // A sub-agent's watch is its own: stopped with it, and its notifications reach it.
        spec.owner = ctx.agent_id.clone();
        spec.notifications = Some(ctx.notifications());
        spec.on_line = Some(OnLine::shared(Arc::clone(&watch) as Arc<dyn agent_tools_background::LineListener>));
        spec.completion_text = Some(render::ended);
        let registry = TaskRegistry::for_context(ctx);
        let task =
            registry.spawn_shell(spec).map_err(|error| ToolError::failed(render::start_failed(&error.to_string())))?;
        watch.started(task.id.clone(), task.output_path.clone());
        if let Err(error) = watch::arm(watch, registry.downgrade(), &task.id, timeout) {
            let _ = registry.stop(&task.id).await;
            return Err(ToolError::failed(render::start_failed(&format!("cannot start its timer: {error}"))));
        }
        tracing::debug!(id = %task.id, command, "monitor started");
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        Ok(ToolResult::new(MonitorOutput { task_id: task.id, timeout_ms }))
    }

    fn map_tool_result(&self, output: &MonitorOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::started(output))
    }
}
