//! A shell tool's call from start to result: where it starts, the sandbox, the foreground run
//! (timeout, cancellation, progress, bounded output saved whole when cut, the directory it ends
//! in) or the start of a background task. The tool supplies what differs between shells: the
//! program and arguments, and what an exit code means.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_tools_background::{ShellTaskSpec, TaskRegistry};
use agent_tools_core::MAX_ERROR_CHARS;
use agent_tools_core::persist;
use agent_tools_core::{ToolError, ToolResult, ToolUseContext};
use serde::Serialize;

use crate::input::ShellInput;
use crate::output::read_and_save;
use crate::process::{self, Argv, CallFiles, Ending, Request, SHELL_ENV, Snapshot};
use crate::render::{self, ShellOutput};
use crate::sandbox;
use crate::tool::Shell;

/// Default timeout in milliseconds (2 minutes; Claude Code's `BASH_DEFAULT_TIMEOUT_MS` default).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// Largest timeout in milliseconds (10 minutes; Claude Code's `BASH_MAX_TIMEOUT_MS` default);
/// larger values are clamped to it.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Most characters of output shown for a command that succeeded (Claude Code's 30,000).
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// A shell tool's settings: the shell, and how its commands run. Tools name it for their shell
/// (`BashConfig` is `ShellConfig<Bash>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellConfig<S: Shell> {
    /// The shell's program (see [`Shell::Program`]).
    pub shell: S::Program,
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

impl<S: Shell> Default for ShellConfig<S> {
    fn default() -> Self {
        Self {
            shell: S::default_program(),
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

impl<S: Shell> ShellConfig<S> {
    /// The time a call may run: its `timeout` (ms) with the default for none and clamped to the
    /// largest (which is never below the default) — Claude Code's PowerShell
    /// `min(timeout || default, max)`.
    pub fn timeout_for(&self, input: &ShellInput) -> Duration {
        input.timeout(self.default_timeout_ms, self.max_timeout_ms.max(self.default_timeout_ms))
    }
}

/// A progress report while a command runs (after [`ShellConfig::progress_after`], about every
/// [`ShellConfig::progress_every`]); field names as Claude Code's `bash_progress`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShellProgress {
    /// The last few lines of output so far.
    pub output: String,
    /// Whole seconds since the command started.
    pub elapsed_time_seconds: u64,
    /// Bytes of output so far.
    pub total_bytes: u64,
    /// The call's timeout in milliseconds.
    pub timeout_ms: u64,
}

/// How an exit code reads for a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interpretation {
    /// Whether the result is an error (`Exit code N` first, `is_error: true`).
    pub is_error: bool,
    /// What a non-error, non-zero code means ("No matches found" …), for transcripts; the model
    /// sees only the output.
    pub message: Option<&'static str>,
}

impl Interpretation {
    /// The plain reading: any non-zero code is an error.
    pub fn plain(exit_code: i32) -> Self {
        Self { is_error: exit_code != 0, message: None }
    }
}

/// Where a call starts: the working directory, or the original one (with the `Shell cwd was reset
/// to …` note) when the working directory is gone.
///
/// # Errors
/// A [`ToolError`] when neither directory exists (nothing is run).
pub fn start_dir(ctx: &ToolUseContext) -> Result<(PathBuf, Option<String>), ToolError> {
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

/// The sandbox prefix for a call starting in `dir`, when it runs sandboxed.
fn sandbox_prefix<S: Shell>(
    sandboxed: bool,
    dir: &Path,
    settings: &ShellConfig<S>,
    ctx: &ToolUseContext,
) -> Result<Option<(PathBuf, Vec<std::ffi::OsString>)>, ToolError> {
    if !sandboxed {
        return Ok(None);
    }
    let policy = sandbox::policy(dir, settings.temp_dir.as_deref(), ctx);
    sandbox::prefix(settings.bwrap.as_deref(), &policy).map(Some)
}

/// Whether `dir` is the same directory as `cwd` (compared after resolving links).
fn same_dir(dir: &Path, cwd: &Path) -> bool {
    dir == cwd || std::fs::canonicalize(cwd).is_ok_and(|resolved| resolved == dir)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Builds the program and arguments of a foreground call, given the file the shell must write its
/// final working directory to (an absolute path, whatever happens to the command).
pub type ArgvBuilder<'a> = &'a (dyn Fn(&Path) -> Argv + Sync);

/// One foreground call of a shell tool.
pub struct Foreground<'a, S: Shell> {
    /// The tool's API name: progress events carry it, and the temporary folder is named after it.
    pub tool_name: &'a str,
    /// The call's input.
    pub input: &'a ShellInput,
    /// The tool's settings (how commands run).
    pub settings: &'a ShellConfig<S>,
    /// Whether the call runs in the sandbox (see [`sandbox::wanted`]).
    pub sandboxed: bool,
    /// The program and arguments.
    pub argv: ArgvBuilder<'a>,
    /// What an exit code means for this command.
    pub interpret: fn(&str, i32) -> Interpretation,
}

/// Runs a command and waits for it, as Claude Code's Bash does in the foreground: in the start
/// directory ([`start_dir`]), sandboxed if asked, stopped with everything it started (its
/// process group and what left it, see [`process`]) at the timeout (`Exit code 143` and
/// `Command timed out after Ns`) or at cancellation ([`ToolError::Cancelled`]), progress
/// reported through the context, the output read back within [`ShellConfig::max_output_chars`]
/// (or [`ShellConfig::max_error_chars`] for an error) — head and tail, the whole saved under
/// `<session>/tool-results/<tool_use_id>.txt` when cut — and the directory it ended in carried
/// to the next call by the result's context modifier.
///
/// A failed or timed-out command is an `Ok` result whose output says so
/// ([`ShellOutput::is_error`]).
///
/// # Errors
/// [`ToolError::Failed`] when the program cannot be started (`Could not run …`), the sandbox
/// cannot be built or no start directory exists; [`ToolError::Cancelled`] when cancelled.
pub async fn run_foreground<S: Shell>(
    call: Foreground<'_, S>,
    ctx: &ToolUseContext,
) -> Result<ToolResult<ShellOutput>, ToolError> {
    let started = Instant::now();
    let settings = call.settings;
    let (dir, reset_note) = start_dir(ctx)?;
    let timeout = settings.timeout_for(call.input);
    let timeout_ms = millis(timeout);
    let prefix = sandbox_prefix(call.sandboxed, &dir, settings, ctx)?;
    let temp_prefix = format!("agent-tools-{}-", call.tool_name.to_ascii_lowercase());
    let files = CallFiles::create(settings.temp_dir.as_deref(), &temp_prefix)
        .map_err(|error| ToolError::failed(render::spawn_failed(call.tool_name, &error.to_string())))?;
    let argv = (call.argv)(&files.cwd_path());
    let label = argv.program.to_string_lossy().into_owned();
    let argv = argv.under(prefix);
    let request = Request {
        argv: &argv,
        cwd: &dir,
        timeout,
        kill_grace: settings.kill_grace,
        progress_after: settings.progress_after,
        progress_every: settings.progress_every,
    };
    let report = |snapshot: Snapshot| {
        ctx.report_progress(
            call.tool_name,
            &ShellProgress {
                output: snapshot.tail,
                elapsed_time_seconds: snapshot.elapsed.as_secs(),
                total_bytes: snapshot.total_bytes,
                timeout_ms,
            },
        );
    };
    let progress: Option<&(dyn Fn(Snapshot) + Send + Sync)> = if ctx.progress.is_some() { Some(&report) } else { None };
    let finished = process::run(&request, files, &ctx.cancel, progress)
        .await
        .map_err(|error| ToolError::failed(render::spawn_failed(&label, &error.to_string())))?;
    let (exit_code, timed_out) = match finished.ending {
        Ending::Exited(code) => (code, false),
        Ending::TimedOut => (render::TIMEOUT_EXIT_CODE, true),
        Ending::Cancelled => return Err(ToolError::Cancelled),
    };
    let meaning = (call.interpret)(&call.input.command, exit_code);

    let notes: Vec<String> = timed_out.then(|| render::timed_out(timeout_ms)).into_iter().chain(reset_note).collect();
    let mut stderr = notes.join("\n");
    let is_error = meaning.is_error || timed_out;
    // The output's share of the result: the limit less the `Exit code` line and the notes
    // (a failed sandboxed command keeps room for the sandbox note).
    let limit = if is_error { settings.max_error_chars } else { settings.max_output_chars };
    let mut overhead = if stderr.is_empty() { 0 } else { stderr.chars().count() + 1 };
    if is_error {
        overhead += render::exit_code_line(exit_code).len() + 1;
        if call.sandboxed {
            let longest = [true, false].map(|may| sandbox::violation_note("Read-only file system", may));
            overhead += longest.iter().flatten().map(|note| note.chars().count() + 1).max().unwrap_or(0);
        }
    }
    let budget = limit.saturating_sub(overhead);
    // Output that must be cut is also saved whole under the session's folder.
    let saved_at = ctx.options.session_dir.as_ref().map(|dir| {
        let name = ctx
            .tool_use_id
            .clone()
            .unwrap_or_else(|| format!("{}-{}", call.tool_name.to_ascii_lowercase(), std::process::id()));
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
    .map_err(|error| ToolError::internal(format!("shell output reader failed: {error}")))?;
    let (shown, saved, mut new_cwd, mut moved) = read;
    let shown = shown.map_err(|error| ToolError::internal(format!("could not read the command's output: {error}")))?;
    // A `cd` that leaves the working directories is undone, as Claude Code does: the next call
    // starts back in the project, and the model reads why.
    if moved && !agent_tools_permissions::paths::is_inside_working_directories(&new_cwd, ctx) {
        tracing::debug!(to = %new_cwd.display(), "the command left the working directories; the shell's cwd is reset");
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(&render::cwd_reset(&ctx.original_cwd.to_string_lossy()));
        new_cwd = ctx.original_cwd.clone();
        moved = !same_dir(&new_cwd, &ctx.cwd);
    }
    if call.sandboxed
        && is_error
        && let Some(note) = sandbox::violation_note(&shown.text, ctx.options.sandbox.allow_unsandboxed_commands)
    {
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(note);
    }

    let data = ShellOutput {
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
    // A failed or timed-out command is still an `Ok` result (mapped to an error block by the
    // tool's result mapping), so that its context modifier carries the directory it ended in:
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

/// One `run_in_background` call of a shell tool.
pub struct Background<'a, S: Shell> {
    /// The call's input.
    pub input: &'a ShellInput,
    /// The tool's settings (the sandbox's binary and temporary folder).
    pub settings: &'a ShellConfig<S>,
    /// Whether the call runs in the sandbox (see [`sandbox::wanted`]).
    pub sandboxed: bool,
    /// The task to start, given the directory it starts in; its description, environment
    /// ([`SHELL_ENV`] is added), `tool_use` id, sandbox prefix, owner and notification queue are
    /// filled in.
    pub spec: &'a dyn Fn(&Path) -> ShellTaskSpec,
}

/// Starts the command as a task of the session's [`TaskRegistry`] and returns at once with its
/// id and output file (Claude Code's `Command running in background with ID: …` text). Started
/// inside a sub-agent, the task is owned by it ([`ToolUseContext::agent_id`]; stopped with the
/// agent) and its completion notification goes to the sub-agent's queue
/// ([`ToolUseContext::notifications`]) rather than the session's.
///
/// # Errors
/// [`ToolError::Failed`] when the task cannot be started (`Could not start the command in the
/// background: …`), the sandbox cannot be built or no start directory exists.
pub fn start_background<S: Shell>(call: Background<'_, S>, ctx: &ToolUseContext) -> Result<ShellOutput, ToolError> {
    let input = call.input;
    let (dir, reset_note) = start_dir(ctx)?;
    let prefix = sandbox_prefix(call.sandboxed, &dir, call.settings, ctx)?;
    let registry = TaskRegistry::for_context(ctx);
    let mut spec = (call.spec)(&dir);
    spec.prefix = prefix;
    spec.description = input.summary().unwrap_or(&input.command).to_owned();
    let mut env: Vec<_> = SHELL_ENV.iter().map(|(key, value)| ((*key).into(), (*value).into())).collect();
    env.append(&mut spec.env);
    spec.env = env;
    spec.tool_use_id = ctx.tool_use_id.clone();
    // A sub-agent's command is its own: stopped with it, and its notification reaches it.
    spec.owner = ctx.agent_id.clone();
    spec.notifications = Some(ctx.notifications());
    let task =
        registry.spawn_shell(spec).map_err(|error| ToolError::failed(render::background_failed(&error.to_string())))?;
    tracing::debug!(id = %task.id, command = %input.command, "started in the background");
    Ok(ShellOutput {
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
