//! # agent-tools-background: the session's background tasks
//!
//! (Named for background processes, so it does not read like `agent-tools-tasklist`, the Task*
//! tools' on-disk task list.)
//!
//! Claude Code's background tasks — shell commands (`run_in_background` on Bash) and sub-agents
//! (the Agent tool's background agents), read with TaskOutput, stopped with TaskStop — as a
//! registry kept in the session's root app state ([`ToolUseContext::root_app_state`]), so the
//! main conversation and sub-agents at any depth share one:
//!
//! - **Ids and statuses**: a shell task's id is `b` and 8 characters of `[0-9a-z]` (an agent
//!   task's, `a` and 8); a task is `pending`, `running`, `completed` (exit code 0), `failed` (any
//!   other exit code) or `killed` (stopped). Each has a description, its command, an exit code
//!   once known, start and end times (ms since the Unix epoch), the agent id of the sub-agent
//!   that started it (its owner; none in the main conversation), and an output file
//!   `<session folder>/tasks/<id>.output` (a private temporary folder, removed with the
//!   registry, when the session has no folder).
//! - **A terminal of its own**: the command runs under the shell on a pseudo-terminal (so programs
//!   that buffer their output when it goes to a file or pipe still write line by line), as the
//!   leader of its own session and process group, with stdin from `/dev/null`. What reaches the
//!   output file has its ANSI escape sequences removed and its line ends made `\n`
//!   ([`ansi::AnsiStripper`]). The shell waits for the children the command started with `&`, so
//!   `server & worker &` is one task that runs while they do; the task ends, with the command's
//!   exit code, when they all have. Processes that detach themselves (a double fork, `setsid`)
//!   are not waited for, but are still stopped with the task or the registry.
//! - **Stopping** ([`TaskRegistry::stop`]) ends the whole process tree: the shell's descendants
//!   (whatever session they moved to), its group and session, every process carrying the task's
//!   marker or holding its terminal; SIGTERM, a short grace, then SIGKILL to what is left —
//!   children that ignore SIGTERM, `&` grandchildren and `setsid -f` orphans included
//!   ([`procs`]). [`TaskRegistry::stop_owned_by`] stops everything one sub-agent started.
//! - **Shutting down** ([`TaskRegistry::shutdown`], also run when the last handle is dropped)
//!   stops every running task and whatever finished tasks left behind.
//! - **Ending with the process**: each task is registered with the process's watchdog before it
//!   starts ([`lifeline`]), so if the process that started it dies — even by SIGKILL, when no
//!   shutdown can run — the watchdog ends the task's processes and whatever finished tasks left.
//! - **Notifications**: a task that finishes by itself queues a `<task-notification>` (Claude
//!   Code's text, see [`text::notification`]) on the queue its spec names — the starting
//!   conversation's, so a sub-agent's command notifies the sub-agent — or else the session's
//!   [`NotificationQueue`]; the host's executor appends it to the next user message. A stopped
//!   task does not notify (the model stopped it), and a task whose result the model already read
//!   withdraws its notification. A task may bring its own notification text
//!   ([`ShellTaskSpec::completion_text`]; the Monitor tool's says the watch ended).
//! - **Reading lines as they come** ([`ShellTaskSpec::on_line`]): a [`LineListener`] gets each
//!   cleaned output line as the copying thread sees it, then an end call before the task's end is
//!   recorded — what a watcher (the Monitor tool) turns into notifications while the command runs.
//! - **Agent tasks** ([`TaskRegistry::register_agent`], type `local_agent`) have no process: the
//!   Agent tool runs the sub-agent as a future and the registry only tracks it. Registering gives
//!   the future an empty output file (for the agent's JSONL transcript), a cancellation token
//!   that fires when the task is stopped, and an inbox that SendMessage writes to. The future
//!   ends with [`TaskRegistry::finish_agent`] (status, final text, the notification to queue);
//!   [`TaskRegistry::stop`] on an agent task marks it `killed`, fires the token, stops what the
//!   agent started, and waits (bounded) for that call. [`TaskRegistry::restart_agent`] runs a
//!   finished agent again (SendMessage to a stopped agent); [`TaskRegistry::find_agent`] finds
//!   one by id or name.
//!
//! Linux is where the process-tree search and the watchdog work (they read `/proc`); elsewhere only
//! the process group is signalled. The registry uses plain threads (two per running shell task),
//! so it works with or without a Tokio runtime; only [`TaskRegistry::wait`], [`TaskRegistry::stop`]
//! and [`TaskRegistry::stop_owned_by_async`] are async.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use agent_tools_background::{ShellTaskSpec, TaskRegistry, TaskStatus, WaitOutcome};
//! use agent_tools_core::ToolUseContext;
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let tasks = TaskRegistry::for_context(&ctx);
//! let task = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "echo started; exit 2", dir.path())).unwrap();
//! let WaitOutcome::Finished(done) = tasks.wait(&task.id, Duration::from_secs(30), &ctx.cancel).await else {
//!     panic!("the task did not finish");
//! };
//! assert_eq!((done.status, done.exit_code), (TaskStatus::Failed, Some(2)));
//! assert_eq!(std::fs::read_to_string(&task.output_path).unwrap(), "started\n"); // `\r\n` made `\n`
//! let server = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "sleep 300", dir.path())).unwrap();
//! let stopped = tasks.shutdown(); // every running task, with everything it started
//! assert_eq!(stopped.iter().map(|task| &task.id).collect::<Vec<_>>(), [&server.id]);
//! assert_eq!(tasks.get(&server.id).unwrap().status, TaskStatus::Killed);
//! # });
//! ```
//!
//! An agent task, as the Agent tool drives one in the background:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus, TaskType, WaitOutcome};
//! use agent_tools_core::ToolUseContext;
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let tasks = TaskRegistry::for_context(&ctx);
//! let spec = AgentTaskSpec {
//!     description: "Find the config loader".into(),
//!     prompt: "Where is the config loaded?".into(),
//!     agent_type: "Explore".into(),
//!     name: Some("scout".into()),
//!     ..AgentTaskSpec::default()
//! };
//! let agent = tasks.register_agent(spec).unwrap();
//! assert!(agent.id.starts_with('a') && agent.id.len() == 9);
//! // The runner's future: the agent works, then reports how it ended.
//! let runner = {
//!     let (tasks, id) = (tasks.clone(), agent.id.clone());
//!     tokio::spawn(async move {
//!         let end = AgentEnd {
//!             status: TaskStatus::Completed,
//!             result: "In src/config.rs".into(),
//!             notification: Some("<task-notification>…</task-notification>".into()),
//!         };
//!         tasks.finish_agent(&id, end);
//!     })
//! };
//! let WaitOutcome::Finished(done) = tasks.wait(&agent.id, Duration::from_secs(30), &ctx.cancel).await else {
//!     panic!("the agent did not finish");
//! };
//! runner.await.unwrap();
//! assert_eq!((done.task_type, done.status), (TaskType::LocalAgent, TaskStatus::Completed));
//! assert_eq!(done.result.as_deref(), Some("In src/config.rs"));
//! assert_eq!(tasks.find_agent("scout").unwrap().id, agent.id);
//! assert_eq!(ctx.notifications().drain()[0].text, "<task-notification>…</task-notification>");
//! # });
//! ```

mod agent;
pub mod ansi;
pub mod group;
pub mod lifeline;
pub mod procs;
mod spawn;
pub mod text;
mod types;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use agent_tools_core::CancellationToken;
use agent_tools_core::{NotificationQueue, ToolUseContext};
use serde::Serialize;

pub use crate::agent::{AgentEnd, AgentTask, AgentTaskSpec, LinkedCancel};
pub use crate::text::{OutputTail, read_tail};
pub use crate::types::{
    CompletionText, LineListener, MAX_LINE_BYTES, OnLine, ShellTaskSpec, SpawnError, StopError, TaskProgress,
    TaskSnapshot, TaskStatus, TaskType, TasksConfig, WaitOutcome,
};

/// The session's notification queue: the one in the root app state (created on first use), as
/// [`ToolUseContext::notifications`] does for the conversation's own app state.
fn root_notifications(ctx: &ToolUseContext) -> NotificationQueue {
    ctx.root_app_state.with(|state| state.update(|queue: &mut NotificationQueue| queue.clone()))
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// A task's changing part.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskState {
    pub(crate) status: TaskStatus,
    pub(crate) exit_code: Option<i32>,
    pub(crate) ended_at_ms: Option<u64>,
    /// The model has been told (or need not be told) that the task ended.
    pub(crate) notified: bool,
    /// The shell has been reaped (its pid may be reused from then on).
    pub(crate) reaped: bool,
    /// The terminal's output has all been copied.
    pub(crate) output_done: bool,
    /// An agent task's final text or error ([`TaskRegistry::finish_agent`]).
    pub(crate) result: Option<String>,
    /// An agent task's work has returned ([`TaskRegistry::finish_agent`] was called since it
    /// last started).
    pub(crate) settled: bool,
    /// An agent task's work so far.
    pub(crate) progress: Option<TaskProgress>,
}

/// A task's terminal while processes may hold it: its identity, and a handle on its master side.
/// While the handle is open the terminal (`/dev/pts/N`) cannot be given to anyone else, so a
/// process with it as a standard stream is the task's, whatever session it moved to or
/// environment it cleared. Let go once every process has closed it (the output is done).
pub(crate) struct Terminal {
    pub(crate) id: procs::FileId,
    pub(crate) _hold: Mutex<Box<dyn std::io::Read + Send>>,
}

/// The parts only a shell task has: its processes.
pub(crate) struct ShellProcess {
    pub(crate) pid: i32,
    /// The shell as [`procs`] names it (pid and start time).
    root: Option<procs::ProcessId>,
    /// The task's terminal, while a process may hold it.
    terminal: Mutex<Option<Arc<Terminal>>>,
    /// The task's registration with the process's watchdog, held as long as the task is.
    _watch: lifeline::Watch,
    /// The notification it queues when it ends by itself ([`ShellTaskSpec::completion_text`]).
    pub(crate) completion_text: CompletionText,
}

/// The parts only an agent task has: what it was asked, and the handles its runner holds.
pub(crate) struct AgentWork {
    name: Option<String>,
    agent_type: String,
    prompt: String,
    inbox: NotificationQueue,
    /// Fired when the task is stopped; replaced when it restarts.
    cancel: Mutex<CancellationToken>,
}

impl AgentWork {
    fn cancel(&self) -> CancellationToken {
        self.cancel.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// What kind of task it is, with the parts only that kind has.
pub(crate) enum TaskKind {
    /// A background shell command.
    Shell(ShellProcess),
    /// A background sub-agent.
    Agent(AgentWork),
}

/// One task, shared by the registry and the threads that follow it.
pub(crate) struct Task {
    pub(crate) id: String,
    pub(crate) description: String,
    pub(crate) command: String,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) output_path: PathBuf,
    pub(crate) started_at_ms: u64,
    /// The agent id of the sub-agent that started it.
    pub(crate) owner: Option<String>,
    /// Where its completion notification goes.
    pub(crate) notifications: NotificationQueue,
    pub(crate) kind: TaskKind,
    state: Mutex<TaskState>,
    changed: Condvar,
    status: tokio::sync::watch::Sender<TaskStatus>,
    /// The registry's event stream ([`TaskRegistry::events`]).
    pub(crate) events: tokio::sync::broadcast::Sender<TaskSnapshot>,
}

impl Task {
    fn lock(&self) -> MutexGuard<'_, TaskState> {
        // Every update is a few field writes: a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn agent(&self) -> Option<&AgentWork> {
        match &self.kind {
            TaskKind::Agent(agent) => Some(agent),
            TaskKind::Shell(_) => None,
        }
    }

    /// Changes the state under the lock, then wakes whoever waits on it.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut TaskState) -> R) -> R {
        let out = change(&mut self.lock());
        self.changed.notify_all();
        out
    }

    /// Waits until `done(state)` holds or `deadline` passes; returns whether it holds.
    pub(crate) fn wait_until(&self, deadline: Instant, done: impl Fn(&TaskState) -> bool) -> bool {
        let mut state = self.lock();
        loop {
            if done(&state) {
                return true;
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) else {
                return false;
            };
            state = match self.changed.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Tells async waiters the current status.
    pub(crate) fn publish(&self) {
        let status = self.lock().status;
        self.status.send_replace(status);
        // Nobody listening is fine.
        let _ = self.events.send(self.snapshot());
    }

    pub(crate) fn snapshot(&self) -> TaskSnapshot {
        let state = self.lock().clone();
        let (task_type, pid, exit_code) = match &self.kind {
            TaskKind::Shell(shell) => (TaskType::LocalBash, u32::try_from(shell.pid).ok(), state.exit_code),
            TaskKind::Agent(_) => (TaskType::LocalAgent, None, None),
        };
        let agent = self.agent();
        TaskSnapshot {
            id: self.id.clone(),
            task_type,
            status: state.status,
            description: self.description.clone(),
            command: self.command.clone(),
            output_path: self.output_path.clone(),
            exit_code,
            started_at_ms: self.started_at_ms,
            ended_at_ms: state.ended_at_ms,
            tool_use_id: self.tool_use_id.clone(),
            pid,
            owner: self.owner.clone(),
            name: agent.and_then(|agent| agent.name.clone()),
            agent_type: agent.map(|agent| agent.agent_type.clone()),
            prompt: agent.map(|agent| agent.prompt.clone()),
            result: state.result,
            progress: state.progress,
        }
    }

    fn is_running(&self) -> bool {
        !self.lock().status.is_finished()
    }

    /// Marks a running task stopped (it will not notify); false if it was not running.
    fn mark_killed(&self) -> Result<(), TaskStatus> {
        let result = self.update(|state| {
            if state.status.is_finished() {
                return Err(state.status);
            }
            state.status = TaskStatus::Killed;
            state.notified = true;
            state.ended_at_ms = Some(now_ms());
            Ok(())
        });
        self.publish();
        result
    }

    /// A shell task as [`procs::terminate`] looks for it, and a hold on its terminal (if any) to
    /// keep while it looks; `None` for an agent task (it has no processes of its own).
    fn target(&self) -> Option<(procs::Target, Option<Arc<Terminal>>)> {
        let TaskKind::Shell(shell) = &self.kind else { return None };
        let reaped = self.lock().reaped;
        let terminal = shell.terminal.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let mut target = procs::Target::task(shell.root.filter(|_| !reaped), &self.id);
        target.stdio = terminal.as_ref().map(|terminal| terminal.id);
        Some((target, terminal))
    }

    /// Lets the terminal go (every process has closed it).
    pub(crate) fn release_terminal(&self) {
        if let TaskKind::Shell(shell) = &self.kind {
            shell.terminal.lock().unwrap_or_else(PoisonError::into_inner).take();
        }
    }
}

/// How long a stop waits for a stopped agent's runner to return ([`TaskRegistry::finish_agent`]).
const AGENT_SETTLE: Duration = Duration::from_secs(5);

/// How long a stop waits for a stopped shell to be reaped, after SIGKILL.
const SHELL_REAP: Duration = Duration::from_secs(2);

/// Task events a slow [`TaskRegistry::events`] receiver may fall behind by.
const EVENTS_KEPT: usize = 256;

struct Inner {
    config: TasksConfig,
    output_dir: PathBuf,
    tasks: Mutex<Vec<Arc<Task>>>,
    shut_down: Mutex<bool>,
    events: tokio::sync::broadcast::Sender<TaskSnapshot>,
    /// Held for its folder (output files when the session has none); removed last.
    _temp: Option<tempfile::TempDir>,
}

impl Inner {
    fn tasks(&self) -> MutexGuard<'_, Vec<Arc<Task>>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn find(&self, id: &str) -> Option<Arc<Task>> {
        self.tasks().iter().find(|task| task.id == id).cloned()
    }

    /// The running tasks `owner` started.
    fn running_owned_by(&self, owner: &str) -> Vec<Arc<Task>> {
        self.tasks().iter().filter(|task| task.owner.as_deref() == Some(owner) && task.is_running()).cloned().collect()
    }

    /// A fresh id with this type letter and its new, empty output file.
    fn new_output(&self, prefix: char) -> Result<(String, PathBuf, std::fs::File), SpawnError> {
        let output_dir = &self.output_dir;
        std::fs::create_dir_all(output_dir)
            .map_err(|source| SpawnError::Output { path: output_dir.clone(), source })?;
        loop {
            let id = text::new_task_id(prefix);
            if self.find(&id).is_some() {
                continue;
            }
            let path = output_dir.join(format!("{id}.output"));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok((id, path, file)),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(source) => return Err(SpawnError::Output { path, source }),
            }
        }
    }

    /// Finishes stopping `killed` (tasks just marked killed): withdraws their notifications,
    /// fires the agents' cancel tokens and stops, the same way, the running tasks those agents
    /// started (at any depth); then ends the shells' process trees and waits, bounded, for the
    /// shells to be reaped and the agents to settle. Returns every task it stopped, `killed`
    /// first.
    fn finish_stopping(&self, killed: Vec<Arc<Task>>) -> Vec<Arc<Task>> {
        let mut stopped = killed;
        let mut next = 0;
        while let Some(task) = stopped.get(next).cloned() {
            next += 1;
            task.notifications.remove(&task.id);
            if let Some(agent) = task.agent() {
                agent.cancel().cancel();
                // An owned task that ended meanwhile fails `mark_killed` and is left as it is.
                let owned = self.running_owned_by(&task.id);
                stopped.extend(owned.into_iter().filter(|owned| owned.mark_killed().is_ok()));
            }
        }
        let (targets, _terminals): (Vec<procs::Target>, Vec<_>) =
            stopped.iter().filter_map(|task| task.target()).unzip();
        if !targets.is_empty() {
            let left = procs::terminate(&targets, self.config.kill_grace);
            if left > 0 {
                tracing::warn!(left, "processes of stopped tasks outlived SIGKILL");
            }
        }
        let now = Instant::now();
        for task in &stopped {
            match &task.kind {
                TaskKind::Shell(_) => task.wait_until(now + SHELL_REAP, |state| state.reaped),
                TaskKind::Agent(_) => task.wait_until(now + AGENT_SETTLE, |state| state.settled),
            };
        }
        stopped
    }

    fn shutdown(&self) -> Vec<TaskSnapshot> {
        *self.shut_down.lock().unwrap_or_else(PoisonError::into_inner) = true;
        let tasks: Vec<Arc<Task>> = self.tasks().clone();
        if tasks.is_empty() {
            return Vec::new();
        }
        let stopped: Vec<&Arc<Task>> = tasks.iter().filter(|task| task.mark_killed().is_ok()).collect();
        // Agents are told to stop, not waited for: every process they started is a task here.
        for agent in stopped.iter().filter_map(|task| task.agent()) {
            agent.cancel().cancel();
        }
        // Finished tasks are searched too: a child may have outlived its shell.
        let (targets, _terminals): (Vec<procs::Target>, Vec<_>) = tasks.iter().filter_map(|task| task.target()).unzip();
        if !targets.is_empty() {
            let left = procs::terminate(&targets, self.config.kill_grace);
            if left > 0 {
                tracing::warn!(left, "processes of background tasks outlived SIGKILL");
            }
        }
        let deadline = Instant::now() + SHELL_REAP;
        for task in stopped.iter().filter(|task| matches!(task.kind, TaskKind::Shell(_))) {
            task.wait_until(deadline, |state| state.reaped);
        }
        stopped.iter().map(|task| task.snapshot()).collect()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The session's background tasks (see the crate docs). Cheap to clone; clones share the tasks.
/// When the last clone is dropped, every task is stopped.
#[derive(Clone)]
pub struct TaskRegistry {
    inner: Arc<Inner>,
}

impl fmt::Debug for TaskRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRegistry")
            .field("output_dir", &self.inner.output_dir)
            .field("tasks", &self.inner.tasks().len())
            .finish_non_exhaustive()
    }
}

impl TaskRegistry {
    /// A registry with these settings. Without an `output_dir` it makes a private temporary
    /// folder (if even that fails, output files go straight to the system's temporary folder).
    pub fn new(config: TasksConfig) -> Self {
        let (output_dir, temp) = match &config.output_dir {
            Some(dir) => (dir.clone(), None),
            None => match tempfile::Builder::new().prefix("agent-tools-tasks-").tempdir() {
                Ok(temp) => (temp.path().to_path_buf(), Some(temp)),
                Err(error) => {
                    tracing::warn!(%error, "cannot make a folder for task output; using the temporary folder");
                    (std::env::temp_dir(), None)
                }
            },
        };
        Self {
            inner: Arc::new(Inner {
                config,
                output_dir,
                tasks: Mutex::new(Vec::new()),
                shut_down: Mutex::new(false),
                events: tokio::sync::broadcast::channel(EVENTS_KEPT).0,
                _temp: temp,
            }),
        }
    }

    /// The session's registry: the one in `ctx`'s root app state
    /// ([`ToolUseContext::root_app_state`], the same at every depth of sub-agents), or a new one
    /// made with [`TasksConfig::for_context`] and kept there.
    pub fn for_context(ctx: &ToolUseContext) -> Self {
        if let Some(registry) = Self::existing(ctx) {
            return registry;
        }
        // Read from the context before locking its root app state (the queue lives there too).
        let config = TasksConfig::for_context(ctx);
        ctx.root_app_state.with(|state| {
            if let Some(registry) = state.get::<Self>() {
                return registry.clone();
            }
            let registry = Self::new(config);
            state.set(registry.clone());
            registry
        })
    }

    /// The session's registry (in the root app state), if any task was ever started in it
    /// (looking never makes one).
    pub fn existing(ctx: &ToolUseContext) -> Option<Self> {
        ctx.root_app_state.with(|state| state.get::<Self>().cloned())
    }

    /// A handle that does not keep the registry alive (for a thread that outlives calls, such as
    /// a watcher's timer): while it is the only handle left, the registry is dropped — and its
    /// tasks stopped — as if it did not exist.
    pub fn downgrade(&self) -> WeakTaskRegistry {
        WeakTaskRegistry { inner: Arc::downgrade(&self.inner) }
    }

    /// Puts this registry in `ctx`'s root app state (replacing any other), for hosts that
    /// configure their own.
    pub fn install(&self, ctx: &ToolUseContext) {
        ctx.root_app_state.with(|state| state.set(self.clone()));
    }

    /// The folder output files go to.
    pub fn output_dir(&self) -> &Path {
        &self.inner.output_dir
    }

    /// Starts a shell command in the background (see the crate docs) and returns it, running.
    ///
    /// # Errors
    /// [`SpawnError`] when the registry was shut down, the output file cannot be created, or the
    /// shell cannot be started.
    pub fn spawn_shell(&self, spec: ShellTaskSpec) -> Result<TaskSnapshot, SpawnError> {
        // Held until the task is registered, so a shutdown either sees it or comes first.
        let shut_down = self.inner.shut_down.lock().unwrap_or_else(PoisonError::into_inner);
        if *shut_down {
            return Err(SpawnError::ShutDown);
        }
        let (id, output_path, output) = self.inner.new_output('b')?;
        let config = &self.inner.config;
        let started = spawn::spawn(spawn::Launch {
            shell: spec.shell.clone(),
            command: spec.command.clone(),
            args: spec.args.clone(),
            cwd: spec.cwd.clone(),
            env: spec.env.clone(),
            prefix: spec.prefix.clone(),
            task_id: id.clone(),
            output,
            columns: config.columns,
            rows: config.rows,
        });
        let started = match started {
            Ok(started) => started,
            Err(error) => {
                let _ = std::fs::remove_file(&output_path);
                return Err(error);
            }
        };
        let description = if spec.description.trim().is_empty() { spec.command.clone() } else { spec.description };
        let (status, _) = tokio::sync::watch::channel(TaskStatus::Running);
        let spawn::Started { pid, root, watch, terminal, io } = started;
        let task = Arc::new(Task {
            id,
            description,
            command: spec.command,
            tool_use_id: spec.tool_use_id,
            output_path,
            started_at_ms: now_ms(),
            owner: spec.owner,
            notifications: spec.notifications.unwrap_or_else(|| config.notifications.clone()),
            kind: TaskKind::Shell(ShellProcess {
                pid,
                root,
                terminal: Mutex::new(terminal.map(Arc::new)),
                _watch: watch,
                completion_text: spec.completion_text.unwrap_or(text::notification),
            }),
            state: Mutex::new(TaskState { status: TaskStatus::Running, ..TaskState::default() }),
            changed: Condvar::new(),
            status,
            events: self.inner.events.clone(),
        });
        if let Err(error) = spawn::follow(&task, pid, io, spec.on_line, config.drain_timeout) {
            spawn::abandon(pid);
            return Err(SpawnError::Spawn {
                shell: spec.shell.display().to_string(),
                message: format!("cannot start a thread to follow it: {error}"),
            });
        }
        tracing::debug!(id = %task.id, pid, "background task started");
        self.inner.tasks().push(Arc::clone(&task));
        drop(shut_down);
        let snapshot = task.snapshot();
        let _ = self.inner.events.send(snapshot.clone());
        Ok(snapshot)
    }

    /// Every task's start and each change of its status, as it happens: a snapshot when a task
    /// is registered (`running`) and one at each status it reaches (`completed`, `failed`,
    /// `killed`). What a front end tells its client with (Claude Code's `task_started`,
    /// `task_updated` and `task_notification` lines). A receiver that falls more than 256
    /// behind loses the oldest.
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<TaskSnapshot> {
        self.inner.events.subscribe()
    }

    /// Records that agent task `id` finished a call of `tool_name` (its running count and last
    /// tool) with `total_tokens` in its context, and tells [`Self::events`] listeners (Claude
    /// Code's `task_progress`). A task that is not running, or not there, is left alone.
    pub fn report_progress(&self, id: &str, tool_name: &str, total_tokens: u64) {
        let Some(task) = self.inner.find(id) else { return };
        let changed = task.update(|state| {
            if state.status.is_finished() {
                return false;
            }
            let progress = state.progress.get_or_insert_with(TaskProgress::default);
            progress.tool_uses += 1;
            progress.total_tokens = total_tokens;
            tool_name.clone_into(&mut progress.last_tool_name);
            true
        });
        if changed {
            task.publish();
        }
    }

    /// The task with this id, as it stands.
    pub fn get(&self, id: &str) -> Option<TaskSnapshot> {
        self.inner.find(id).map(|task| task.snapshot())
    }

    /// Every task, oldest first.
    pub fn list(&self) -> Vec<TaskSnapshot> {
        self.inner.tasks().iter().map(|task| task.snapshot()).collect()
    }

    /// Waits until the task ends, `timeout` passes, or `cancel` fires, without polling. Works
    /// for both kinds of task: an agent task ends when [`Self::finish_agent`] records its end or
    /// it is stopped.
    pub async fn wait(&self, id: &str, timeout: Duration, cancel: &CancellationToken) -> WaitOutcome {
        let Some(task) = self.inner.find(id) else { return WaitOutcome::NotFound };
        let mut status = task.status.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if status.borrow_and_update().is_finished() {
                return WaitOutcome::Finished(task.snapshot());
            }
            tokio::select! {
                changed = status.changed() => {
                    if changed.is_err() {
                        return WaitOutcome::Finished(task.snapshot());
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    let snapshot = task.snapshot();
                    return if snapshot.status.is_finished() {
                        WaitOutcome::Finished(snapshot)
                    } else {
                        WaitOutcome::TimedOut(snapshot)
                    };
                }
                () = cancel.cancelled() => return WaitOutcome::Cancelled,
            }
        }
    }

    /// Records that the model has seen the task's result: its queued notification (if not yet
    /// delivered) is withdrawn and none will follow (Claude Code marks such tasks notified).
    pub fn mark_notified(&self, id: &str) {
        if let Some(task) = self.inner.find(id) {
            task.update(|state| state.notified = true);
            task.notifications.remove(id);
        }
    }

    /// Stops a running task, blocking until it is gone, and returns it, now `killed`; it does
    /// not notify (a queued notification is withdrawn).
    ///
    /// A shell task's whole process tree ends (see [`procs::terminate`]); this waits for its
    /// processes to be gone (at most the grace period and a few seconds). An agent task's
    /// `cancel` token fires, the running tasks it started are stopped too
    /// ([`Self::stop_owned_by`]), and this waits (at most about 5 seconds) until its runner has
    /// returned and called [`Self::finish_agent`] — so from a runtime with a single thread, use
    /// [`Self::stop`], which waits off that thread.
    ///
    /// # Errors
    /// [`StopError::NotFound`] for an unknown id, [`StopError::NotRunning`] for a task that has
    /// already ended.
    pub fn stop_blocking(&self, id: &str) -> Result<TaskSnapshot, StopError> {
        let task = self.inner.find(id).ok_or_else(|| StopError::NotFound(id.to_owned()))?;
        task.mark_killed().map_err(|status| StopError::NotRunning { id: id.to_owned(), status })?;
        self.inner.finish_stopping(vec![Arc::clone(&task)]);
        tracing::debug!(id, "background task stopped");
        Ok(task.snapshot())
    }

    /// [`Self::stop_blocking`] on Tokio's blocking pool.
    ///
    /// # Errors
    /// As [`Self::stop_blocking`].
    pub async fn stop(&self, id: &str) -> Result<TaskSnapshot, StopError> {
        let registry = self.clone();
        let owned = id.to_owned();
        match tokio::task::spawn_blocking(move || registry.stop_blocking(&owned)).await {
            Ok(result) => result,
            // The blocking pool is gone (the runtime is shutting down): stop here instead.
            Err(_) => self.stop_blocking(id),
        }
    }

    /// Stops every running task — shell and agent tasks alike — that the sub-agent `owner` (an
    /// agent id) started, and, through the agents among them, what those started; as
    /// [`Self::stop_blocking`] does for one task, and within the same bounds. Used when an agent
    /// is cancelled, so nothing it started is left running (Claude Code's
    /// `killShellTasksForAgent`). Returns every task it stopped, now `killed`.
    pub fn stop_owned_by(&self, owner: &str) -> Vec<TaskSnapshot> {
        let killed: Vec<Arc<Task>> =
            self.inner.running_owned_by(owner).into_iter().filter(|task| task.mark_killed().is_ok()).collect();
        if killed.is_empty() {
            return Vec::new();
        }
        let stopped = self.inner.finish_stopping(killed);
        tracing::debug!(owner, stopped = stopped.len(), "stopped the tasks an agent started");
        stopped.iter().map(|task| task.snapshot()).collect()
    }

    /// [`Self::stop_owned_by`] on Tokio's blocking pool.
    pub async fn stop_owned_by_async(&self, owner: &str) -> Vec<TaskSnapshot> {
        let registry = self.clone();
        let owned = owner.to_owned();
        match tokio::task::spawn_blocking(move || registry.stop_owned_by(&owned)).await {
            Ok(stopped) => stopped,
            Err(_) => self.stop_owned_by(owner),
        }
    }

    /// Stops every running task and whatever finished tasks left running, and refuses new ones;
    /// returns the tasks that were still running (now `killed`), so a program can tell its user.
    /// Running agent tasks have their `cancel` token fired but are not waited for (the processes
    /// they started are tasks here, and stop with the rest). Blocks for at most the grace period
    /// and a few seconds. Safe to call more than once (later calls return nothing); also run
    /// when the last handle is dropped.
    pub fn shutdown(&self) -> Vec<TaskSnapshot> {
        self.inner.shutdown()
    }
}

/// A [`TaskRegistry`] handle that does not keep it alive ([`TaskRegistry::downgrade`]).
#[derive(Clone)]
pub struct WeakTaskRegistry {
    inner: std::sync::Weak<Inner>,
}

impl WeakTaskRegistry {
    /// The registry, unless every [`TaskRegistry`] handle is gone (it was dropped, which
    /// stopped its tasks).
    pub fn upgrade(&self) -> Option<TaskRegistry> {
        self.inner.upgrade().map(|inner| TaskRegistry { inner })
    }
}

impl fmt::Debug for WeakTaskRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakTaskRegistry").field("alive", &(self.inner.strong_count() > 0)).finish()
    }
}

/// Shuts down the session's registry (the one in [`ToolUseContext::root_app_state`]), if it has
/// one (what a program calls on its way out), and returns the tasks it stopped while they were
/// still running.
pub fn shutdown(ctx: &ToolUseContext) -> Vec<TaskSnapshot> {
    TaskRegistry::existing(ctx).map(|registry| registry.shutdown()).unwrap_or_default()
}
