//! # agent-tool-bash: the Bash tool
//!
//! Runs shell commands, as Claude Code's `Bash` tool does: the same name, input fields
//! (`command`, `timeout`, `description`, `run_in_background`) and result text — the merged output
//! for a command that succeeded, `Exit code N` followed by the output for one that failed.
//!
//! Each call runs a fresh `bash -c` in the session's working directory, in its own process
//! group, with stdin from `/dev/null` and stdout and stderr appended to one temporary file (so
//! they interleave in the order written, and a background child holding them open can never keep
//! the call waiting: the call ends when the shell exits). Pagers, editors and git prompts are
//! turned off through the environment ([`SHELL_ENV`]).
//!
//! - **Working directory**: the directory the shell ends in — after success, failure or `exit` —
//!   becomes the session's working directory, through the result's context modifier. Variables
//!   and functions do not carry over. If the working directory has been deleted, the call starts
//!   in the original directory and says so (`Shell cwd was reset to …`).
//! - **Exit codes** ([`semantics`]): non-zero is an error, except exit code 1 of `grep`/`rg` (no
//!   match), `find` (some folders unreadable), `diff` (files differ) and `test`/`[` (false), judged
//!   by the last sub-command's first word, as Claude Code does.
//! - **Timeout**: default 2 minutes, at most 10 (larger values are clamped). A command past its
//!   timeout is stopped with its whole process group (SIGTERM, then SIGKILL) and the result is
//!   `Exit code 143`, the output so far, and `Command timed out after Ns`. Cancelling the
//!   context's token stops it the same way.
//! - **Size**: at most 30,000 characters of output reach the model (10,000 for a failed command,
//!   as Claude Code cuts error results): the head and the tail, read by seeking so any size of
//!   output is fine, with a marker counting the lines and characters left out. When the session
//!   has a folder, the whole output is also saved to `<session>/tool-results/<tool_use_id>.txt`
//!   and a `<persisted-output>` block after the marker names the file. The command itself always
//!   runs to completion.
//! - **Background** (`run_in_background: true`): the command becomes a task of the session's
//!   [`agent_tools_tasks::TaskRegistry`] — on a pseudo-terminal of its own, its output (escape
//!   sequences stripped) in `<session>/tasks/<id>.output` — and the call returns at once with
//!   Claude Code's `Command running in background with ID: …` text. The task queues a
//!   `<task-notification>` when it ends; TaskOutput reads it and TaskStop stops it. With
//!   [`BashConfig::background_tasks`] off the field is not in the schema.
//!
//! - **Sandbox** (`sandbox.enabled` in the settings, see [`agent_tools_core::SandboxSettings`]):
//!   foreground and background commands run under bubblewrap — writes only in the working
//!   directories, the temporary folder and the session's folder (code-running paths such as
//!   `.git/hooks` excluded), no network; `dangerouslyDisableSandbox` and `excludedCommands` are
//!   the ways out, and a sandboxed command needs no approval unless a rule or safety check asks.
//!   Without a working `bwrap` the command is refused, never run unsandboxed.
//!
//! Where this differs from Claude Code, on purpose: a timed-out command is killed rather than
//! moved to the background, a `cd` persists even when the command then fails, and long output
//! keeps its head and tail inline (with the whole saved to a file) instead of a 2 KB preview.
//!
//! The tool needs a Tokio runtime with I/O and time enabled (`#[tokio::main]`, or
//! `Builder::enable_all`), since it waits for processes and timers.
//!
//! ```no_run
//! # async fn demo() {
//! use agent_tools_core::{invoke::call_tool, ToolUseContext};
//! let bash = agent_tool_bash::tool();
//! let mut ctx = ToolUseContext::new(std::env::current_dir().unwrap());
//! let mut done = call_tool(bash.as_ref(), "toolu_1", serde_json::json!({"command": "cd src && ls"}), &ctx).await;
//! println!("{}", done.block.content.text());
//! if let Some(modifier) = done.context_modifier.take() {
//!     ctx = modifier(ctx); // the next call starts in src/
//! }
//! # }
//! ```

mod input;
mod output;
mod render;
mod sandbox;
pub mod semantics;
mod shell;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_core::invoke::MAX_ERROR_CHARS;
use agent_tools_core::persist;
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    build_tool,
};
use agent_tools_tasks::{ShellTaskSpec, TaskRegistry};
use serde::Serialize;
use serde_json::Value;

pub use crate::input::BashInput;
pub use crate::render::BashOutput;
pub use crate::shell::SHELL_ENV;

/// The API name.
pub const NAME: &str = "Bash";

/// Default timeout in milliseconds (2 minutes).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// Largest timeout in milliseconds (10 minutes); larger values are clamped to it.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Most characters of output shown for a command that succeeded (Claude Code's 30,000).
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// Bash's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashConfig {
    /// The shell to run: `/bin/bash` when it exists, else `bash` looked up on `PATH`.
    pub shell: PathBuf,
    /// Timeout for calls that give none (milliseconds).
    pub default_timeout_ms: u64,
    /// Largest timeout a call may ask for (milliseconds; never below the default).
    pub max_timeout_ms: u64,
    /// Time between SIGTERM and SIGKILL when a command is stopped.
    pub kill_grace: Duration,
    /// Most characters of a successful result.
    pub max_output_chars: usize,
    /// Most characters of an error result (non-zero exit or timeout).
    pub max_error_chars: usize,
    /// Where the per-call temporary files go; `None` for the system's temporary folder.
    pub temp_dir: Option<PathBuf>,
    /// How long a command runs before progress reports start.
    pub progress_after: Duration,
    /// Time between progress reports.
    pub progress_every: Duration,
    /// Whether `run_in_background` exists. When false (Claude Code's
    /// `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`, which the CLI reads) the field is left out of the
    /// schema, so a call that sends it is refused like any unknown field.
    pub background_tasks: bool,
    /// The bubblewrap binary for sandbox mode; `None` looks `bwrap` up on `PATH` (the search
    /// path the shell inherits).
    pub bwrap: Option<PathBuf>,
}

impl Default for BashConfig {
    fn default() -> Self {
        let bin_bash = Path::new("/bin/bash");
        Self {
            shell: if bin_bash.is_file() { bin_bash.to_path_buf() } else { PathBuf::from("bash") },
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_timeout_ms: MAX_TIMEOUT_MS,
            kill_grace: Duration::from_millis(500),
            max_output_chars: MAX_OUTPUT_CHARS,
            max_error_chars: MAX_ERROR_CHARS,
            temp_dir: None,
            progress_after: Duration::from_secs(2),
            progress_every: Duration::from_secs(1),
            background_tasks: true,
            bwrap: None,
        }
    }
}

/// A progress report while a command runs (after [`BashConfig::progress_after`], about every
/// [`BashConfig::progress_every`]); field names as Claude Code's `bash_progress`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashProgress {
    /// The last few lines of output so far.
    pub output: String,
    /// Whole seconds since the command started.
    pub elapsed_time_seconds: u64,
    /// Bytes of output so far.
    pub total_bytes: u64,
    /// The call's timeout in milliseconds.
    pub timeout_ms: u64,
}

/// The Bash tool definition.
#[derive(Debug, Clone, Default)]
pub struct BashTool {
    config: BashConfig,
}

impl BashTool {
    /// A Bash tool with the given settings.
    pub fn new(config: BashConfig) -> Self {
        Self { config }
    }

    /// The settings.
    pub fn config(&self) -> &BashConfig {
        &self.config
    }
}

/// Bash with default settings, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(BashTool::default())
}

/// Bash with the given settings.
pub fn tool_with(config: BashConfig) -> Arc<dyn Tool> {
    build_tool(BashTool::new(config))
}

/// Where a call starts: the working directory, or the original one (with the reset note) when the
/// working directory is gone.
fn start_dir(ctx: &ToolUseContext) -> Result<(PathBuf, Option<String>), ToolError> {
    if ctx.cwd.is_dir() {
        return Ok((ctx.cwd.clone(), None));
    }
    if ctx.original_cwd.is_dir() {
        let original = ctx.original_cwd.to_string_lossy();
        tracing::info!(cwd = %ctx.cwd.display(), %original, "working directory is gone; starting in the original");
        return Ok((ctx.original_cwd.clone(), Some(render::cwd_reset(&original))));
    }
    Err(ToolError::failed(render::no_working_directory(
        &ctx.cwd.to_string_lossy(),
        &ctx.original_cwd.to_string_lossy(),
    )))
}

/// Whether `dir` is the same directory as `cwd` (compared after resolving links).
fn same_dir(dir: &Path, cwd: &Path) -> bool {
    dir == cwd || std::fs::canonicalize(cwd).is_ok_and(|resolved| resolved == dir)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl ToolDef for BashTool {
    type Input = BashInput;
    type Output = BashOutput;
    type Progress = BashProgress;

    fn name(&self) -> &str {
        NAME
    }

    fn search_hint(&self) -> Option<&str> {
        Some("run shell commands, builds, tests and git")
    }

    /// The derived schema, without `run_in_background` when background tasks are off.
    fn input_json_schema(&self) -> Option<Value> {
        if self.config.background_tasks {
            return None;
        }
        let mut schema = agent_tools_core::schema::input_schema_for::<BashInput>();
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            properties.remove("run_in_background");
        }
        Some(schema)
    }

    fn description(&self, input: &BashInput) -> String {
        input.summary().unwrap_or(&input.command).to_owned()
    }

    fn prompt(&self, _options: &PromptOptions<'_>) -> String {
        let mut prompt = include_str!("prompt.md").to_owned();
        if self.config.background_tasks {
            prompt.push('\n');
            prompt.push_str(include_str!("prompt_background.md"));
        }
        prompt.push_str(include_str!("prompt_sandbox.md"));
        prompt
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_OUTPUT_CHARS)
    }

    fn strict(&self) -> bool {
        true
    }

    fn flags(&self) -> ToolFlags {
        ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: true }
    }

    fn activity_description(&self, input: &BashInput) -> Option<String> {
        Some(format!("Running {}", input.summary().unwrap_or(&input.command)))
    }

    fn tool_use_summary(&self, input: &BashInput) -> Option<String> {
        Some(input.summary().unwrap_or(&input.command).to_owned())
    }

    fn render_tool_use(&self, input: &BashInput) -> Option<String> {
        Some(input.command.clone())
    }

    fn render_progress(&self, progress: &Value) -> Option<String> {
        let progress: BashProgressView = serde_json::from_value(progress.clone()).ok()?;
        Some(render::progress(&progress.output, progress.elapsed_time_seconds, progress.total_bytes))
    }

    /// Read-only when the parsed command provably only reads: every part a known command with
    /// allow-listed flags, no expansion, no file written (see
    /// `agent_tools_permissions::is_read_only_command`, Claude Code's read-only validation).
    fn is_read_only(&self, input: &BashInput) -> bool {
        agent_tools_permissions::is_read_only_command(&input.command, None)
    }

    /// Read-only calls may run side by side with other concurrency-safe calls, as in Claude Code,
    /// unless they change the working directory (`cd src && ls`): those run in order, so the
    /// directory they end in carries over to the calls after them.
    fn is_concurrency_safe(&self, input: &BashInput) -> bool {
        self.is_read_only(input) && !agent_tools_permissions::shell::changes_working_directory(&input.command)
    }

    /// Whether the command may delete or overwrite data (`rm`, `git reset --hard`, `> file` …);
    /// `true` when in doubt (see `agent_tools_permissions::is_destructive_command`).
    fn is_destructive(&self, input: &BashInput) -> bool {
        agent_tools_permissions::is_destructive_command(&input.command)
    }

    /// Claude Code's Bash permission check: each part of the command against `Bash(…)` rules, the
    /// paths it reads and writes against `Read(…)`/`Edit(…)` rules and the working directories,
    /// the mode, and the read-only allow-list (see `agent_tools_permissions::check_shell_command`).
    ///
    /// In sandbox mode with `autoAllowBashIfSandboxed` (the default), a command that will run
    /// sandboxed needs no approval unless a deny rule, an ask rule or a safety check says so.
    async fn check_permissions(&self, input: &BashInput, ctx: &ToolUseContext) -> agent_tools_core::PermissionResult {
        use agent_tools_core::PermissionResult;
        use agent_tools_core::permissions::PermissionDecisionReason;
        let result = agent_tools_permissions::check_shell_command(NAME, &input.command, ctx);
        let settings = &ctx.options.sandbox;
        if !settings.auto_allow_bash_if_sandboxed
            || !sandbox::wanted(input, settings)
            || !sandbox::available(self.config.bwrap.as_deref())
        {
            return result;
        }
        match &result {
            PermissionResult::Allow { .. } | PermissionResult::Deny { .. } => result,
            PermissionResult::Ask { decision_reason, .. } | PermissionResult::Passthrough { decision_reason, .. }
                if matches!(
                    decision_reason,
                    Some(PermissionDecisionReason::Rule { .. } | PermissionDecisionReason::SafetyCheck { .. })
                ) =>
            {
                result
            }
            PermissionResult::Ask { .. } | PermissionResult::Passthrough { .. } => PermissionResult::Allow {
                updated_input: None,
                decision_reason: Some(PermissionDecisionReason::Other {
                    reason: "runs in the sandbox (sandbox.autoAllowBashIfSandboxed)".to_owned(),
                }),
            },
        }
    }

    /// Tells whether a `Bash(…)` rule pattern (`git push:*`) covers any part of the command, for
    /// hook conditions (Claude Code's `preparePermissionMatcher`).
    fn prepare_permission_matcher(&self, input: &BashInput) -> Option<agent_tools_core::tool::PermissionMatcher> {
        Some(agent_tools_permissions::shell_permission_matcher(&input.command))
    }

    async fn call(&self, input: BashInput, ctx: &ToolUseContext) -> Result<ToolResult<BashOutput>, ToolError> {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if input.in_background() && self.config.background_tasks {
            return self.start_in_background(&input, ctx).map(ToolResult::new);
        }
        self.run_in_foreground(input, ctx).await
    }

    /// `Exit code N` results are error blocks (`is_error: true`), like Claude Code's thrown
    /// errors; their text is already within [`BashConfig::max_error_chars`].
    fn map_tool_result(&self, output: &BashOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = render::render(output);
        if output.is_error() {
            ToolResultBlock::error(tool_use_id, text)
        } else {
            ToolResultBlock::text(tool_use_id, text)
        }
    }
}

impl BashTool {
    /// `run_in_background`: the command becomes a task of the session's [`TaskRegistry`] and the
    /// call returns at once with its id and output file (Claude Code's text).
    fn start_in_background(&self, input: &BashInput, ctx: &ToolUseContext) -> Result<BashOutput, ToolError> {
        let (dir, reset_note) = start_dir(ctx)?;
        let prefix = if sandbox::wanted(input, &ctx.options.sandbox) {
            let policy = sandbox::policy(&dir, self.config.temp_dir.as_deref(), ctx);
            Some(sandbox::prefix(self.config.bwrap.as_deref(), &policy)?)
        } else {
            None
        };
        let registry = TaskRegistry::for_context(ctx);
        let mut spec = ShellTaskSpec::new(&self.config.shell, &input.command, &dir);
        spec.prefix = prefix;
        spec.description = input.summary().unwrap_or(&input.command).to_owned();
        spec.env = SHELL_ENV.iter().map(|(key, value)| ((*key).into(), (*value).into())).collect();
        spec.tool_use_id = ctx.tool_use_id.clone();
        let task = registry
            .spawn_shell(spec)
            .map_err(|error| ToolError::failed(render::background_failed(&error.to_string())))?;
        tracing::debug!(id = %task.id, command = %input.command, "started in the background");
        Ok(BashOutput {
            stdout: String::new(),
            stderr: reset_note.unwrap_or_default(),
            interrupted: false,
            exit_code: 0,
            failed: false,
            return_code_interpretation: None,
            timed_out: false,
            truncated: false,
            output_bytes: 0,
            cwd: dir.to_string_lossy().into_owned(),
            duration_ms: 0,
            background_task_id: Some(task.id),
            background_output_file: Some(task.output_path.to_string_lossy().into_owned()),
            persisted_output_path: None,
            persisted_output_size: None,
        })
    }

    /// Runs the command and waits for it (see the crate docs).
    async fn run_in_foreground(
        &self,
        input: BashInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<BashOutput>, ToolError> {
        let started = Instant::now();
        let config = &self.config;
        let (dir, reset_note) = start_dir(ctx)?;
        let max_timeout_ms = config.max_timeout_ms.max(config.default_timeout_ms);
        let timeout = input.timeout(config.default_timeout_ms, max_timeout_ms);
        let timeout_ms = millis(timeout);
        let sandboxed = sandbox::wanted(&input, &ctx.options.sandbox);
        let prefix = if sandboxed {
            let policy = sandbox::policy(&dir, config.temp_dir.as_deref(), ctx);
            Some(sandbox::prefix(config.bwrap.as_deref(), &policy)?)
        } else {
            None
        };
        let request = shell::Request {
            shell: &config.shell,
            command: &input.command,
            cwd: &dir,
            timeout,
            kill_grace: config.kill_grace,
            temp_dir: config.temp_dir.as_deref(),
            progress_after: config.progress_after,
            progress_every: config.progress_every,
            prefix: prefix.as_ref().map(|(program, args)| (program.as_path(), args.as_slice())),
        };
        let report = |snapshot: shell::Snapshot| {
            ctx.report_progress(
                NAME,
                &BashProgress {
                    output: snapshot.tail,
                    elapsed_time_seconds: snapshot.elapsed.as_secs(),
                    total_bytes: snapshot.total_bytes,
                    timeout_ms,
                },
            );
        };
        let progress: Option<&(dyn Fn(shell::Snapshot) + Send + Sync)> =
            if ctx.progress.is_some() { Some(&report) } else { None };
        let finished = shell::run(&request, &ctx.cancel, progress).await.map_err(|error| {
            ToolError::failed(render::spawn_failed(&config.shell.to_string_lossy(), &error.to_string()))
        })?;
        let (exit_code, timed_out) = match finished.ending {
            shell::Ending::Exited(code) => (code, false),
            shell::Ending::TimedOut => (render::TIMEOUT_EXIT_CODE, true),
            shell::Ending::Cancelled => return Err(ToolError::Cancelled),
        };
        let meaning = semantics::interpret(&input.command, exit_code);

        let notes: Vec<String> =
            timed_out.then(|| render::timed_out(timeout_ms)).into_iter().chain(reset_note).collect();
        let mut stderr = notes.join("\n");
        let is_error = meaning.is_error || timed_out;
        // The output's share of the result: the limit less the `Exit code` line and the notes
        // (a failed sandboxed command keeps room for the sandbox note).
        let limit = if is_error { config.max_error_chars } else { config.max_output_chars };
        let mut overhead = if stderr.is_empty() { 0 } else { stderr.chars().count() + 1 };
        if is_error {
            overhead += render::exit_code_line(exit_code).len() + 1;
            if sandboxed {
                overhead += sandbox::violation_note("Read-only file system").map_or(0, |note| note.chars().count() + 1);
            }
        }
        let budget = limit.saturating_sub(overhead);
        // Output that must be cut is also saved whole under the session's folder.
        let saved_at = ctx.options.session_dir.as_ref().map(|dir| {
            let name = ctx.tool_use_id.clone().unwrap_or_else(|| format!("bash-{}", std::process::id()));
            persist::result_path(dir, &name, "txt")
        });
        let files = finished.files;
        let session_cwd = ctx.cwd.clone();
        let read = tokio::task::spawn_blocking(move || {
            let (shown, saved) = read_and_save(&files.output_path(), budget, saved_at.as_deref());
            let new_cwd = files.final_cwd().unwrap_or(dir);
            let moved = !same_dir(&new_cwd, &session_cwd);
            (shown, saved, new_cwd, moved)
        })
        .await
        .map_err(|error| ToolError::internal(format!("bash output reader failed: {error}")))?;
        let (shown, saved, new_cwd, moved) = read;
        let shown =
            shown.map_err(|error| ToolError::internal(format!("could not read the command's output: {error}")))?;
        if sandboxed
            && is_error
            && let Some(note) = sandbox::violation_note(&shown.text)
        {
            if !stderr.is_empty() {
                stderr.push('\n');
            }
            stderr.push_str(note);
        }

        let data = BashOutput {
            stdout: shown.text,
            stderr,
            interrupted: timed_out,
            exit_code,
            failed: is_error,
            return_code_interpretation: meaning.message.filter(|_| !is_error).map(str::to_owned),
            timed_out,
            truncated: shown.truncated,
            output_bytes: shown.total_bytes,
            cwd: new_cwd.to_string_lossy().into_owned(),
            duration_ms: millis(started.elapsed()),
            background_task_id: None,
            background_output_file: None,
            persisted_output_size: saved.as_ref().map(|_| shown.total_bytes),
            persisted_output_path: saved.map(|path| path.to_string_lossy().into_owned()),
        };
        // A failed or timed-out command is still an `Ok` result (mapped to an error block by
        // `map_tool_result`), so that its context modifier carries the directory it ended in:
        // a `ToolError` cannot carry one.
        let result = ToolResult::new(data);
        if !moved {
            return Ok(result);
        }
        tracing::debug!(from = %ctx.cwd.display(), to = %new_cwd.display(), "working directory changed");
        Ok(result.with_context_modifier(move |mut ctx| {
            ctx.cwd = new_cwd;
            ctx
        }))
    }
}

/// Reads the output within `budget` characters; when it must be cut and `save_as` is given, saves
/// the whole output there and puts a `<persisted-output>` block naming the file after the cut
/// marker. Returns what is shown and where the output was saved (if it was).
fn read_and_save(
    output: &Path,
    budget: usize,
    save_as: Option<&Path>,
) -> (std::io::Result<output::Shown>, Option<PathBuf>) {
    let Some(save_as) = save_as else { return (output::read_output(output, budget), None) };
    let size = std::fs::metadata(output).map_or(0, |meta| meta.len());
    let saved_note = persist::persisted_output(&persist::too_large_line(size, Ok(save_as)), None);
    let failed_note = persist::persisted_output(&render::not_saved(&persist::format_file_size(size)), None);
    let reserve = saved_note.chars().count().max(failed_note.chars().count());
    let mut saved = None;
    let mut note = || match persist::save_file_once(output, save_as) {
        Ok(_) => {
            saved = Some(save_as.to_path_buf());
            saved_note.clone()
        }
        Err(error) => {
            tracing::warn!(%error, path = %save_as.display(), "cannot save the whole output");
            failed_note.clone()
        }
    };
    let shown = output::read_output_with(output, budget, Some(output::Spill { reserve, note: &mut note }));
    (shown, saved)
}

/// The fields of a [`BashProgress`] the renderer reads back from JSON.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct BashProgressView {
    #[serde(default)]
    output: String,
    #[serde(default)]
    elapsed_time_seconds: u64,
    #[serde(default)]
    total_bytes: u64,
}
