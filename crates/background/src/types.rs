//! The registry's public types: a task's status, type and snapshot, what starts a shell task
//! and who hears its lines, the errors of starting and stopping, and the registry's settings.

use super::*;

/// A task's status (Claude Code's `TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    /// Registered, not started yet.
    #[default]
    Pending,
    /// Running.
    Running,
    /// Ended by itself with exit code 0.
    Completed,
    /// Ended by itself with another exit code (or killed by a signal it did not get from us).
    Failed,
    /// Stopped (TaskStop, or the registry shutting down).
    Killed,
}

impl TaskStatus {
    /// The status as Claude Code writes it: `pending`, `running`, `completed`, `failed`, `killed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Killed => "killed",
        }
    }

    /// True once the task has ended (completed, failed or killed).
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Killed)
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task's type (Claude Code's `TaskType`; the two kinds of task this registry holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TaskType {
    /// A background shell command (`local_bash`, ids starting with `b`).
    #[serde(rename = "local_bash")]
    LocalBash,
    /// A background sub-agent (`local_agent`, ids starting with `a`); see
    /// [`TaskRegistry::register_agent`].
    #[serde(rename = "local_agent")]
    LocalAgent,
}

impl TaskType {
    /// The type as Claude Code writes it (`local_bash`, `local_agent`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::LocalBash => "local_bash",
            Self::LocalAgent => "local_agent",
        }
    }
}

impl fmt::Display for TaskType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a task is and how it stands, at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSnapshot {
    /// The id (`b` + 8 of `[0-9a-z]` for a shell task, `a` + 8 for an agent task).
    pub id: String,
    /// The type.
    pub task_type: TaskType,
    /// The status.
    pub status: TaskStatus,
    /// What it does, in words (Bash's `description`, else the command; the Agent tool's
    /// `description` for an agent task).
    pub description: String,
    /// The command line; for an agent task, its description.
    pub command: String,
    /// The file its output goes to (an agent task's: the sub-agent's JSONL transcript).
    pub output_path: PathBuf,
    /// The shell's exit code (128 + N when a signal N ended it), once known; `None` for an
    /// agent task.
    pub exit_code: Option<i32>,
    /// When it started, in ms since the Unix epoch.
    pub started_at_ms: u64,
    /// When it ended (or was stopped), in ms since the Unix epoch.
    pub ended_at_ms: Option<u64>,
    /// The `tool_use` id of the call that started it, if known.
    pub tool_use_id: Option<String>,
    /// The shell's process id (also the task's session and process group id); `None` for an
    /// agent task.
    pub pid: Option<u32>,
    /// The agent id of the sub-agent that started the task; `None` when the main conversation
    /// did (see [`TaskRegistry::stop_owned_by`]).
    pub owner: Option<String>,
    /// An agent task's `name` (the Agent tool's, which SendMessage and TaskStop accept in place
    /// of the id); `None` for a shell task or an unnamed agent.
    pub name: Option<String>,
    /// An agent task's agent type (`general-purpose`, `Explore`, a custom agent's name).
    pub agent_type: Option<String>,
    /// An agent task's prompt (the task it was given).
    pub prompt: Option<String>,
    /// An agent task's result once it has ended: its final text, or the error it ended with
    /// (see [`TaskRegistry::finish_agent`]).
    pub result: Option<String>,
    /// An agent task's work so far ([`TaskRegistry::report_progress`]); `None` before its
    /// first tool call and for a shell task.
    pub progress: Option<TaskProgress>,
}

/// What an agent task has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TaskProgress {
    /// Tool calls it has finished.
    pub tool_uses: u32,
    /// The tool of the last one.
    pub last_tool_name: String,
    /// Tokens in its context after its last request.
    pub total_tokens: u64,
}

/// A shell command to run in the background.
///
/// Two ways to run it: [`ShellTaskSpec::new`] gives a POSIX shell the command line (`shell -c
/// SCRIPT bash COMMAND`, where the script sets the terminal up, runs the command with `eval` and
/// waits for the children it left running with `&`); [`ShellTaskSpec::with_args`] runs a program
/// with arguments the caller built (a shell that is not POSIX, such as PowerShell), after the same
/// terminal set-up.
#[derive(Debug, Clone)]
pub struct ShellTaskSpec {
    /// The shell (bash, or any shell that takes `-c SCRIPT NAME ARG`), or with
    /// [`ShellTaskSpec::args`] the program to run.
    pub shell: PathBuf,
    /// The command line: what runs (unless [`ShellTaskSpec::args`] is given) and what the task
    /// is known by.
    pub command: String,
    /// The program's own arguments, when it is not run as `shell -c SCRIPT bash COMMAND`: the task
    /// then runs `/bin/sh -c 'stty -onlcr -echo; exec </dev/null; exec "$@"' sh shell args…`, so
    /// the terminal is set up and stdin is empty as for a POSIX shell, and the program itself
    /// (same process) is the task. It must then carry the command itself (in an argument or
    /// through [`ShellTaskSpec::env`]); children it leaves running are not waited for.
    pub args: Option<Vec<OsString>>,
    /// What it does, in words (shown in the notification); empty means the command.
    pub description: String,
    /// Where it runs.
    pub cwd: PathBuf,
    /// Environment added to the inherited one.
    pub env: Vec<(OsString, OsString)>,
    /// The `tool_use` id of the call that starts it (named in the notification).
    pub tool_use_id: Option<String>,
    /// A program (and its arguments) the shell runs under, e.g. a sandbox: the task runs
    /// `program args… shell -c …` instead of `shell -c …`.
    pub prefix: Option<(PathBuf, Vec<OsString>)>,
    /// The agent id of the sub-agent that starts it ([`ToolUseContext::agent_id`]); `None` in the
    /// main conversation. [`TaskRegistry::stop_owned_by`] stops a sub-agent's tasks with it.
    pub owner: Option<String>,
    /// Where its completion notification goes (the starting conversation's
    /// [`ToolUseContext::notifications`], so a sub-agent's command notifies the sub-agent);
    /// `None` for the registry's queue ([`TasksConfig::notifications`]).
    pub notifications: Option<NotificationQueue>,
    /// Who reads the output line by line as it arrives (a watcher such as the Monitor tool), if
    /// anyone; see [`LineListener`] for what a line is and when it is delivered. The output file
    /// is written the same either way.
    pub on_line: Option<OnLine>,
    /// The text of the notification queued when the task ends by itself, given the task as it
    /// ended (`None` from it: no notification); `None` here for [`text::notification`], Claude
    /// Code's `<task-notification>` for a background command. A watcher names its own (the
    /// Monitor tool's says the watch ended).
    pub completion_text: Option<CompletionText>,
}

/// Builds the notification queued when a shell task ends by itself, from the task as it ended
/// (see [`ShellTaskSpec::completion_text`]); `None` queues nothing.
pub type CompletionText = fn(&TaskSnapshot) -> Option<String>;

/// Reads a shell task's output line by line, as the thread that copies it to the output file
/// sees it ([`ShellTaskSpec::on_line`]).
///
/// A line is the text between two `\n` after the cleaning the output file gets (escape
/// sequences removed, `\r\n` and a redrawing `\r` made `\n`, see [`ansi`]), without the `\n`,
/// invalid UTF-8 replaced by `U+FFFD`. A line longer than [`MAX_LINE_BYTES`] is delivered in
/// pieces of at most that many bytes (cut between characters). The last line, if the output
/// does not end with `\n`, is delivered when the output ends; then [`LineListener::end`] is
/// called, once.
///
/// Every call comes from that one thread, in order, while it copies: a listener that blocks
/// holds the output up (and, once the terminal's buffer is full, the command). Any
/// `Fn(&str) + Send + Sync` closure is a listener that ignores the end.
pub trait LineListener: Send + Sync {
    /// One line of output, without its `\n`.
    fn line(&self, line: &str);

    /// The output has ended: every process closed the terminal (the command and its children
    /// ended, or the task was stopped). Called once, after the last [`LineListener::line`] and
    /// before the task's end is recorded and its completion notification queued — as long as it
    /// returns within the registry's [`TasksConfig::drain_timeout`] — so what it queues comes
    /// first. Does nothing by default.
    fn end(&self) {}
}

impl<F: Fn(&str) + Send + Sync> LineListener for F {
    fn line(&self, line: &str) {
        self(line);
    }
}

/// Longest line, in bytes, a [`LineListener`] receives whole; a longer one comes in pieces
/// (64 KiB).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// A shared [`LineListener`], as [`ShellTaskSpec::on_line`] holds it. Cheap to clone.
#[derive(Clone)]
pub struct OnLine(Arc<dyn LineListener>);

impl OnLine {
    /// Wraps a listener (a closure `|line: &str| …`, or a type implementing [`LineListener`]).
    pub fn new(listener: impl LineListener + 'static) -> Self {
        Self(Arc::new(listener))
    }

    /// Wraps a listener the caller keeps a handle on too.
    pub fn shared(listener: Arc<dyn LineListener>) -> Self {
        Self(listener)
    }

    /// The listener.
    pub fn listener(&self) -> &dyn LineListener {
        self.0.as_ref()
    }
}

impl fmt::Debug for OnLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OnLine(..)")
    }
}

impl ShellTaskSpec {
    /// A command to run with `shell` in `cwd`, described by itself, with no extra environment.
    pub fn new(shell: impl Into<PathBuf>, command: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            shell: shell.into(),
            command: command.into(),
            args: None,
            description: String::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            tool_use_id: None,
            prefix: None,
            owner: None,
            notifications: None,
            on_line: None,
            completion_text: None,
        }
    }

    /// A task that runs `program args…` in `cwd` (see [`ShellTaskSpec::args`]); `command` is the
    /// command line it runs, for the task's listing and notification.
    pub fn with_args(
        program: impl Into<PathBuf>,
        args: Vec<OsString>,
        command: impl Into<String>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self { args: Some(args), ..Self::new(program, command, cwd) }
    }
}

/// Why a task could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The registry was shut down.
    #[error("background tasks have been shut down for this session")]
    ShutDown,
    /// The output file (or its folder) could not be created.
    #[error("cannot create the output file {path}: {source}")]
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The shell could not be started on a pseudo-terminal.
    #[error("cannot start {shell} in the background: {message}")]
    Spawn {
        /// The shell.
        shell: String,
        /// Why.
        message: String,
    },
}

/// Why a task could not be stopped (Claude Code's TaskStop errors), or an agent task restarted
/// ([`TaskRegistry::restart_agent`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StopError {
    /// No task has this id (for [`TaskRegistry::restart_agent`]: no agent task).
    #[error("No task found with ID: {0}")]
    NotFound(String),
    /// The task has already ended.
    #[error("Task {id} is not running (status: {status})")]
    NotRunning {
        /// The task's id.
        id: String,
        /// Its status.
        status: TaskStatus,
    },
    /// The agent task is still running (or still winding down after a stop), so it cannot be
    /// restarted.
    #[error("Task {0} is still running")]
    StillRunning(String),
    /// The registry was shut down, so nothing can be restarted.
    #[error("background tasks have been shut down for this session")]
    ShutDown,
}

/// How a [`TaskRegistry::wait`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The task has ended.
    Finished(TaskSnapshot),
    /// The time ran out first; the task as it stands.
    TimedOut(TaskSnapshot),
    /// The cancellation token fired first.
    Cancelled,
    /// No task has this id.
    NotFound,
}

/// The registry's settings.
#[derive(Debug, Clone)]
pub struct TasksConfig {
    /// The folder for output files (`<id>.output`); `None` for a private temporary folder that is
    /// removed with the registry.
    pub output_dir: Option<PathBuf>,
    /// Time between SIGTERM and SIGKILL when a task is stopped.
    pub kill_grace: Duration,
    /// How long, after a shell exits, output still in the terminal is waited for before the task
    /// counts as ended (children that keep the terminal open are not waited for).
    pub drain_timeout: Duration,
    /// The terminal's width in columns.
    pub columns: u16,
    /// The terminal's height in rows.
    pub rows: u16,
    /// Where completion notifications go, unless a task's spec names its own queue.
    pub notifications: NotificationQueue,
}

impl Default for TasksConfig {
    fn default() -> Self {
        Self {
            output_dir: None,
            kill_grace: Duration::from_millis(500),
            drain_timeout: Duration::from_millis(250),
            columns: 200,
            rows: 50,
            notifications: NotificationQueue::default(),
        }
    }
}

impl TasksConfig {
    /// The settings for a session: output files under `<session_dir>/tasks/` (a private
    /// temporary folder without a session folder), notifications on the session's queue — the
    /// [`NotificationQueue`] kept in [`ToolUseContext::root_app_state`], which in the main
    /// conversation is [`ToolUseContext::notifications`] itself.
    pub fn for_context(ctx: &ToolUseContext) -> Self {
        Self {
            output_dir: ctx.options.session_dir.as_ref().map(|dir| dir.join("tasks")),
            notifications: root_notifications(ctx),
            ..Self::default()
        }
    }
}
