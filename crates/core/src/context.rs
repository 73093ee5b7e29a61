//! [`ToolUseContext`]: everything a tool call receives besides its input.
//!
//! Grouped like Claude Code's `ToolUseContext`: options (the tool pool, model, flags, budgets),
//! control (cancellation, ids), state (the file-read state, app state, messages), the working
//! directory and permission context, and limits. Cloning is cheap (shared parts are behind `Arc`).
//! Library code never reads environment variables: the CLI turns environment and flags into this.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use serde::Serialize;
use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

use crate::permissions::ToolPermissionContext;

use crate::tool::Tool;

/// Session-wide options (Claude Code's `ToolUseContext.options`).
#[derive(Clone, Default)]
pub struct ToolUseOptions {
    /// The tool pool the model sees (used by tools that list or call other tools).
    pub tools: Arc<[Arc<dyn Tool>]>,
    /// The pool sub-agents take their tools from when it is not [`Self::tools`]: in coordinator
    /// mode the conversation itself only dispatches, while its workers get the whole pool.
    /// `None`: sub-agents take theirs from [`Self::tools`].
    pub worker_tools: Option<Arc<[Arc<dyn Tool>]>>,
    /// The main loop's model name (e.g. `claude-sonnet-4-5`); empty when unknown.
    pub main_loop_model: String,
    /// The session id (used to name per-session files).
    pub session_id: String,
    /// The session's own folder, if any: oversized results are saved under
    /// `<session_dir>/tool-results/`. Without one they are cut instead.
    pub session_dir: Option<PathBuf>,
    /// Whether and how shell commands run in a sandbox (Claude Code's `sandbox` settings).
    pub sandbox: SandboxSettings,
    /// The folder holding the task lists of the TaskCreate / TaskGet / TaskList / TaskUpdate
    /// tools, one sub-folder per list (Claude Code's `~/.claude/tasks`; the CLI fills it in).
    /// When `None` the task tools keep their lists under `<session_dir>/task-lists`, or, without
    /// a session folder, in a private temporary folder that lasts as long as the session's app
    /// state.
    pub tasks_dir: Option<PathBuf>,
    /// Which task list the task tools use (Claude Code's `CLAUDE_CODE_TASK_LIST_ID`, which lets
    /// several sessions share one list). When `None` the list is the session's own
    /// ([`Self::session_id`]).
    pub task_list_id: Option<String>,
    /// The folder holding plan files (Claude Code's `~/.claude/plans`, or its `plansDirectory`
    /// setting resolved inside the project; the CLI fills it in). EnterPlanMode names the
    /// session's plan file in it and ExitPlanMode reads the plan from there. When `None` the plan
    /// tools use `<home>/.claude/plans`, else `<session_dir>/plans`, else a `agent-tools-plans`
    /// folder in the temporary directory.
    pub plans_dir: Option<PathBuf>,
    /// Whether the user trusts the working directory's folder (workspace trust: a record for it,
    /// `--trust-workspace`). An untrusted folder's own configuration runs nothing: the git
    /// commands tools run themselves (EnterWorktree's `git worktree add`, LSP's `git
    /// check-ignore`) then switch off what a repository configures to run (hooks, fsmonitor,
    /// filters). `false` by default: fail closed; the host sets it from the session's trust.
    pub workspace_trusted: bool,
}

/// Claude Code's `sandbox` settings, merged over the settings files: whether shell commands run
/// sandboxed (file system read-only outside the working directories and the temporary folder,
/// no network), and the ways out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `sandbox.enabled` (default false).
    pub enabled: bool,
    /// `sandbox.autoAllowBashIfSandboxed` (default true): a command that will run sandboxed needs
    /// no approval unless a deny or ask rule matches it.
    pub auto_allow_bash_if_sandboxed: bool,
    /// `sandbox.allowUnsandboxedCommands` (default true): whether `dangerouslyDisableSandbox`
    /// is honoured (the call then goes through the normal approval instead).
    pub allow_unsandboxed_commands: bool,
    /// `sandbox.excludedCommands`: commands (in `Bash(…)` rule syntax: exact, `prefix:*`,
    /// wildcards) that always run outside the sandbox.
    pub excluded_commands: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            auto_allow_bash_if_sandboxed: true,
            allow_unsandboxed_commands: true,
            excluded_commands: Vec::new(),
        }
    }
}

impl fmt::Debug for ToolUseOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("ToolUseOptions")
            .field("tools", &names)
            .field("main_loop_model", &self.main_loop_model)
            .field("session_id", &self.session_id)
            .field("session_dir", &self.session_dir)
            .field("sandbox", &self.sandbox)
            .field("tasks_dir", &self.tasks_dir)
            .field("task_list_id", &self.task_list_id)
            .field("plans_dir", &self.plans_dir)
            .field("workspace_trusted", &self.workspace_trusted)
            .finish()
    }
}

/// Limits on what file-reading tools return (Claude Code's `fileReadingLimits`); `None` means the
/// tool's own default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileReadingLimits {
    /// Maximum tokens of returned text (Read's default: 25,000).
    pub max_tokens: Option<u64>,
    /// Maximum file size in bytes when no `limit` is given (Read's default: 256 KiB).
    pub max_size_bytes: Option<u64>,
}

/// Limits on Glob (Claude Code's `globLimits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GlobLimits {
    /// Maximum paths listed (default 100).
    pub max_results: Option<usize>,
}

/// All per-context limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Read limits.
    pub file_reading: FileReadingLimits,
    /// Glob limits.
    pub glob: GlobLimits,
}

/// What the file-read state remembers about one file: the content the model saw and when.
///
/// Mirrors an entry of Claude Code's `readFileState` (`{content, timestamp, offset, limit,
/// isPartialView}`). Edit and Write use it to refuse changing a file that was not read, or that
/// changed on disk after it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// The file's text as last read or written (line endings normalised to `\n`).
    pub content: Arc<str>,
    /// The file's modification time when read, in whole milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// The `offset` of the Read that produced this entry (`None` after a full read or a write).
    pub offset: Option<u64>,
    /// The `limit` of the Read that produced this entry.
    pub limit: Option<u64>,
    /// True when the model saw only part of the file in a way that does not allow editing.
    pub is_partial_view: bool,
    /// [`content_hash`] of the whole file's bytes when it was read or written, if known. Edit and
    /// Write compare it with the file on disk: a changed hash means the file changed since,
    /// whatever its modification time says (a `touch` alone is not a change).
    pub content_hash: Option<u64>,
    /// True when Read made the entry (false after a write). Read's "file unchanged" answer to a
    /// repeated read applies only to what the model saw through Read.
    pub from_read: bool,
}

impl FileStamp {
    /// True when the entry came from reading the whole file (no offset or limit).
    pub fn is_full_read(&self) -> bool {
        self.offset.is_none() && self.limit.is_none() && !self.is_partial_view
    }
}

/// A hash of a file's bytes, for telling whether the file changed since it was read. Stable
/// within a process (and across runs of the same build); not for storage.
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = ContentHasher::default();
    hasher.update(bytes);
    hasher.finish()
}

/// [`content_hash`] computed piece by piece (for files read in chunks): feeding the pieces in
/// order gives the same value as hashing the whole.
#[derive(Debug, Clone, Default)]
pub struct ContentHasher {
    inner: std::collections::hash_map::DefaultHasher,
}

impl ContentHasher {
    /// Adds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.inner, bytes);
    }

    /// The hash of everything added so far.
    pub fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.inner)
    }
}

/// Modification time of a file in whole milliseconds since the Unix epoch (Claude Code's
/// `Math.floor(mtimeMs)`); 0 when unknown.
pub fn mtime_ms(modified: std::io::Result<SystemTime>) -> u64 {
    modified
        .ok()
        .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// Most entries the file-read state keeps (Claude Code: 100).
pub const FILE_STATE_MAX_ENTRIES: usize = 100;
/// Most content bytes the file-read state keeps (Claude Code: 25 MB).
pub const FILE_STATE_MAX_BYTES: usize = 25 * 1024 * 1024;

#[derive(Default, Clone)]
struct FileStateInner {
    entries: HashMap<PathBuf, (u64, FileStamp)>,
    clock: u64,
    bytes: usize,
}

/// The file-read state: absolute path → [`FileStamp`], least recently used entries evicted past
/// [`FILE_STATE_MAX_ENTRIES`] entries or [`FILE_STATE_MAX_BYTES`] of content. Shared by clones.
#[derive(Clone, Default)]
pub struct FileReadState {
    inner: Arc<Mutex<FileStateInner>>,
}

impl fmt::Debug for FileReadState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileReadState").field("entries", &self.len()).finish()
    }
}

/// The key the file-read state uses for a path: the path with symbolic links and `.`/`..`
/// resolved when the file exists, so a read through `dir/./f` or a link counts for `dir/f`.
pub fn file_state_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| crate::path::normalize(path))
}

impl FileReadState {
    fn lock(&self) -> MutexGuard<'_, FileStateInner> {
        // A panic while holding this lock cannot leave the map inconsistent (every update is a
        // single insert/remove), so a poisoned lock is still safe to use.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The entry for a path (looked up by [`file_state_key`]), marking it recently used.
    pub fn get(&self, path: &Path) -> Option<FileStamp> {
        let key = file_state_key(path);
        let path = key.as_path();
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        inner.entries.get_mut(path).map(|(used, stamp)| {
            *used = now;
            stamp.clone()
        })
    }

    /// Records what was read or written for a path (kept under [`file_state_key`]), evicting old
    /// entries if needed.
    pub fn set(&self, path: &Path, stamp: FileStamp) {
        let path = file_state_key(path);
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let size = stamp.content.len();
        if let Some((_, old)) = inner.entries.insert(path, (now, stamp)) {
            inner.bytes -= old.content.len();
        }
        inner.bytes += size;
        while inner.entries.len() > FILE_STATE_MAX_ENTRIES
            || (inner.bytes > FILE_STATE_MAX_BYTES && inner.entries.len() > 1)
        {
            let Some(oldest) = inner.entries.iter().min_by_key(|(_, (used, _))| *used).map(|(path, _)| path.clone())
            else {
                break;
            };
            if let Some((_, old)) = inner.entries.remove(&oldest) {
                inner.bytes -= old.content.len();
            }
        }
    }

    /// An independent copy (Claude Code's `cloneFileStateCache`): a sub-agent starts knowing
    /// what its caller read, and what it reads later stays its own.
    pub fn snapshot(&self) -> Self {
        let copy = self.lock().clone();
        Self { inner: Arc::new(Mutex::new(copy)) }
    }

    /// Forgets a path.
    pub fn remove(&self, path: &Path) {
        let key = file_state_key(path);
        let mut inner = self.lock();
        if let Some((_, old)) = inner.entries.remove(&key) {
            inner.bytes -= old.content.len();
        }
    }

    /// Forgets every path (after a compaction the model no longer sees what it read: a Read
    /// must not answer "unchanged since you last read it", and an edit needs a fresh read).
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.entries.clear();
        inner.bytes = 0;
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Session state shared by tools (todos, tasks, plan mode …), keyed by type so each tool crate
/// keeps its own state without the core knowing it.
///
/// Mirrors Claude Code's `getAppState()` / `setAppState()`.
#[derive(Default)]
pub struct AppState {
    entries: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl AppState {
    /// The state of type `T`, if set.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.entries.get(&TypeId::of::<T>()).and_then(|value| value.downcast_ref())
    }

    /// Runs `f` on the state of type `T` (created with `Default` if missing) and returns what it
    /// returns.
    pub fn update<T: Any + Send + Sync + Default, R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut value: Box<T> =
            self.entries.remove(&TypeId::of::<T>()).and_then(|boxed| boxed.downcast::<T>().ok()).unwrap_or_default();
        let out = f(&mut value);
        self.entries.insert(TypeId::of::<T>(), value);
        out
    }

    /// Replaces the state of type `T`.
    pub fn set<T: Any + Send + Sync>(&mut self, value: T) {
        self.entries.insert(TypeId::of::<T>(), Box::new(value));
    }
}

/// A shared handle to the [`AppState`] (Claude Code's `getAppState`/`setAppState`).
#[derive(Clone, Default)]
pub struct AppStateHandle {
    inner: Arc<Mutex<AppState>>,
}

impl fmt::Debug for AppStateHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AppStateHandle")
    }
}

impl AppStateHandle {
    /// True when both handles reach the same state.
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Runs `f` with the state locked and returns what it returns.
    pub fn with<R>(&self, f: impl FnOnce(&mut AppState) -> R) -> R {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }
}

/// A message waiting to reach the model: `text` is what the model reads, `key` says what it is
/// about (a background task's id), so it can be withdrawn when the model already learnt it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingNotification {
    /// What the notification is about (e.g. a task id); used by [`NotificationQueue::remove`].
    pub key: String,
    /// The text the model reads (e.g. a `<task-notification>` block).
    pub text: String,
}

/// Messages waiting to reach the model between tool calls, oldest first (Claude Code's queue of
/// pending notifications, fed for instance by background tasks that finish). Shared by clones and
/// safe to push from any thread. The host's executor drains it at the end of a turn and appends
/// the texts to the user message it returns.
#[derive(Clone)]
pub struct NotificationQueue {
    inner: Arc<Mutex<Vec<PendingNotification>>>,
    /// Counts pushes, so [`NotificationQueue::watch`] can wake a waiter (Sleep, an idle loop).
    pushes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Default for NotificationQueue {
    fn default() -> Self {
        Self { inner: Arc::default(), pushes: Arc::new(tokio::sync::watch::Sender::new(0)) }
    }
}

/// Waits for the pushes to a [`NotificationQueue`] made after it was taken
/// ([`NotificationQueue::watch`]). A push between taking it and waiting is not missed.
#[derive(Debug)]
pub struct QueueWatch {
    pushes: tokio::sync::watch::Receiver<u64>,
}

impl QueueWatch {
    /// Returns once something was pushed since the watch was taken, or since this last
    /// returned. Never returns while the queue lives and nothing is pushed (dropping the future
    /// is harmless).
    pub async fn pushed(&mut self) {
        if self.pushes.changed().await.is_err() {
            // Every queue handle is gone: nothing will ever be pushed.
            std::future::pending::<()>().await;
        }
    }
}

impl fmt::Debug for NotificationQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NotificationQueue").field("pending", &self.len()).finish()
    }
}

impl NotificationQueue {
    fn lock(&self) -> MutexGuard<'_, Vec<PendingNotification>> {
        // Every update is a single push, drain or retain: a poisoned lock is still consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a notification and wakes every [`QueueWatch`].
    pub fn push(&self, key: impl Into<String>, text: impl Into<String>) {
        self.lock().push(PendingNotification { key: key.into(), text: text.into() });
        self.pushes.send_modify(|count| *count = count.wrapping_add(1));
    }

    /// A watch that wakes on the pushes made from now on (Claude Code's Sleep wakes early when
    /// a message or a task notification is queued).
    pub fn watch(&self) -> QueueWatch {
        let mut pushes = self.pushes.subscribe();
        pushes.mark_unchanged();
        QueueWatch { pushes }
    }

    /// Takes every queued notification, oldest first.
    pub fn drain(&self) -> Vec<PendingNotification> {
        std::mem::take(&mut *self.lock())
    }

    /// Withdraws the queued notifications about `key`; returns how many there were.
    pub fn remove(&self, key: &str) -> usize {
        let mut queue = self.lock();
        let before = queue.len();
        queue.retain(|pending| pending.key != key);
        before - queue.len()
    }

    /// The keys of the queued notifications, oldest first (the queue is left as it is).
    pub fn keys(&self) -> Vec<String> {
        self.lock().iter().map(|pending| pending.key.clone()).collect()
    }

    /// Number of queued notifications.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One progress report from a running tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgressEvent {
    /// The `tool_use` id of the call.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The tool's progress data (its `Progress` type as JSON).
    pub data: Value,
}

/// Receives progress events (the CLI shows them; `run --stream` prints them).
pub type ProgressSink = Arc<dyn Fn(ProgressEvent) + Send + Sync>;

/// Everything a tool call receives besides its input.
#[derive(Clone)]
pub struct ToolUseContext {
    /// Session options.
    pub options: ToolUseOptions,
    /// Fires when the call (or the whole turn) is cancelled; long-running tools must watch it.
    pub cancel: CancellationToken,
    /// Fires when the user interrupts the turn (types a new message). Only calls whose tool's
    /// `interrupt_behavior` is `Cancel` are stopped by it; the executor links it to their `cancel`.
    pub interrupt: CancellationToken,
    /// The `tool_use` id of the current call (set by the executor).
    pub tool_use_id: Option<String>,
    /// Set inside sub-agents only.
    pub agent_id: Option<String>,
    /// The sub-agent's type (`general-purpose`, `Explore`, a custom agent's name); set inside
    /// sub-agents only.
    pub agent_type: Option<String>,
    /// How deep in sub-agents this context is: 0 for the main conversation, 1 inside an agent it
    /// started, and so on (Claude Code's `queryTracking.depth`).
    pub query_depth: u32,
    /// Runs sub-agents (the Agent tool, Skill's `context: fork`); the agent loop puts it here,
    /// and without it there are none.
    pub subagents: Option<Arc<dyn crate::subagent::SubagentRunner>>,
    /// Runs other tools of the pool for this call (the REPL tool's scripts): the host's executor
    /// puts itself here for every call it runs; `None` outside an executor.
    pub tool_caller: Option<Arc<dyn crate::caller::ToolCaller>>,
    /// What has been read, for Edit/Write preconditions.
    pub read_file_state: FileReadState,
    /// State shared by the tools of this conversation (a sub-agent has its own).
    pub app_state: AppStateHandle,
    /// The session's state, the same at every depth of sub-agents (Claude Code's
    /// `setAppStateForTasks`): infrastructure that outlives a turn, such as the background task
    /// registry, lives here. In the main conversation it is [`Self::app_state`] itself.
    pub root_app_state: AppStateHandle,
    /// The current working directory (absolute). Relative paths in inputs resolve against it.
    pub cwd: PathBuf,
    /// The directory the session started in (the project root).
    pub original_cwd: PathBuf,
    /// The user's home directory, for `~` in paths.
    pub home_dir: Option<PathBuf>,
    /// Permission mode, rules and extra working directories.
    pub permission_context: Arc<ToolPermissionContext>,
    /// Output limits.
    pub limits: Limits,
    /// Where progress events go, if anywhere.
    pub progress: Option<ProgressSink>,
    /// The session's hooks, which tools fire their events through
    /// ([`ToolUseContext::fire_hook`]); `None` runs no hook.
    pub hooks: Option<Arc<dyn crate::HookEvents>>,
}

impl fmt::Debug for ToolUseContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolUseContext")
            .field("options", &self.options)
            .field("tool_use_id", &self.tool_use_id)
            .field("agent_id", &self.agent_id)
            .field("agent_type", &self.agent_type)
            .field("query_depth", &self.query_depth)
            .field("cwd", &self.cwd)
            .field("original_cwd", &self.original_cwd)
            .field("permission_context", &self.permission_context)
            .field("limits", &self.limits)
            .field("hooks", &self.hooks.is_some())
            .finish_non_exhaustive()
    }
}

impl ToolUseContext {
    /// A context rooted at `cwd` (which should be absolute), with empty state and default
    /// options, limits and permissions.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        let app_state = AppStateHandle::default();
        Self {
            options: ToolUseOptions::default(),
            cancel: CancellationToken::new(),
            interrupt: CancellationToken::new(),
            tool_use_id: None,
            agent_id: None,
            agent_type: None,
            query_depth: 0,
            subagents: None,
            tool_caller: None,
            read_file_state: FileReadState::default(),
            app_state: app_state.clone(),
            root_app_state: app_state,
            original_cwd: cwd.clone(),
            cwd,
            home_dir: None,
            permission_context: Arc::new(ToolPermissionContext::default()),
            limits: Limits::default(),
            progress: None,
            hooks: None,
        }
    }

    /// Resolves a path from a tool input against the working directory (see
    /// [`crate::path::expand_path`]).
    pub fn resolve_path(&self, path: &str) -> PathBuf {
        crate::path::expand_path(path, &self.cwd, self.home_dir.as_deref())
    }

    /// The session's [`NotificationQueue`], kept in the app state (created on first use, then
    /// shared by every clone of this context).
    pub fn notifications(&self) -> NotificationQueue {
        self.app_state.with(|state| state.update(|queue: &mut NotificationQueue| queue.clone()))
    }

    /// Sends a progress event for the current call, if anyone listens.
    pub fn report_progress<P: Serialize>(&self, tool_name: &str, progress: &P) {
        if let Some(sink) = &self.progress {
            let data = serde_json::to_value(progress).unwrap_or(Value::Null);
            sink(ProgressEvent {
                tool_use_id: self.tool_use_id.clone().unwrap_or_default(),
                tool_name: tool_name.to_owned(),
                data,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(content: &str) -> FileStamp {
        FileStamp {
            content: content.into(),
            timestamp_ms: 1,
            offset: None,
            limit: None,
            is_partial_view: false,
            content_hash: None,
            from_read: true,
        }
    }

    #[tokio::test]
    async fn a_queue_watch_wakes_on_pushes_made_after_it_was_taken() {
        let queue = NotificationQueue::default();
        queue.push("before", "old news");
        let mut watch = queue.watch();
        // The push before the watch does not count; one between taking and waiting does.
        let pusher = queue.clone();
        pusher.push("task", "done");
        watch.pushed().await;
        assert_eq!(queue.keys(), ["before", "task"]);
        // Nothing pushed since: it waits (until the next push, from another task).
        let waiter = tokio::spawn(async move { watch.pushed().await });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        pusher.push("later", "more");
        waiter.await.unwrap_or_else(|error| panic!("the waiter failed: {error}"));
    }

    #[test]
    fn file_read_state_evicts_the_least_recently_used_entry() {
        let state = FileReadState::default();
        for i in 0..FILE_STATE_MAX_ENTRIES {
            state.set(&PathBuf::from(format!("/f{i}")), stamp("x"));
        }
        // Touch /f0 so /f1 becomes the oldest.
        assert!(state.get(Path::new("/f0")).is_some());
        state.set(Path::new("/new"), stamp("y"));
        assert_eq!(state.len(), FILE_STATE_MAX_ENTRIES);
        assert!(state.get(Path::new("/f0")).is_some());
        assert!(state.get(Path::new("/f1")).is_none());
        assert_eq!(state.get(Path::new("/new")).map(|s| s.content.to_string()), Some("y".into()));
    }

    #[test]
    fn a_snapshot_of_the_file_read_state_is_independent() {
        let parent = FileReadState::default();
        parent.set(Path::new("/read-before"), stamp("a"));
        let child = parent.snapshot();
        child.set(Path::new("/read-by-child"), stamp("b"));
        parent.set(Path::new("/read-by-parent"), stamp("c"));
        assert!(child.get(Path::new("/read-before")).is_some());
        assert!(parent.get(Path::new("/read-by-child")).is_none());
        assert!(child.get(Path::new("/read-by-parent")).is_none());
    }

    #[test]
    fn a_new_context_is_its_own_root() {
        let ctx = ToolUseContext::new("/w");
        assert!(ctx.app_state.same_as(&ctx.root_app_state));
        assert!(!ctx.app_state.same_as(&AppStateHandle::default()));
        assert_eq!((ctx.query_depth, ctx.agent_id.is_none(), ctx.subagents.is_none()), (0, true, true));
    }

    #[test]
    fn file_read_state_bounds_content_bytes() {
        let state = FileReadState::default();
        let big = "a".repeat(FILE_STATE_MAX_BYTES / 2 + 1);
        state.set(Path::new("/a"), stamp(&big));
        state.set(Path::new("/b"), stamp(&big));
        assert_eq!(state.len(), 1);
        assert!(state.get(Path::new("/b")).is_some());
        state.remove(Path::new("/b"));
        assert!(state.is_empty());
    }

    #[test]
    fn paths_are_keyed_after_resolving_links_and_dots() {
        let dir = std::env::temp_dir().join(format!("agent-tools-core-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let state = FileReadState::default();
        state.set(&dir.join(".").join("f.txt"), stamp("x"));
        assert!(state.get(&file).is_some());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&file, dir.join("link.txt")).unwrap();
            assert!(state.get(&dir.join("link.txt")).is_some());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chunked_hashing_equals_whole_hashing() {
        let mut hasher = ContentHasher::default();
        hasher.update(b"hello ");
        hasher.update(b"world");
        assert_eq!(hasher.finish(), content_hash(b"hello world"));
        assert_ne!(content_hash(b"a"), content_hash(b"b"));
    }

    #[test]
    fn notifications_are_shared_drained_and_withdrawn() {
        let ctx = ToolUseContext::new("/w");
        let copy = ctx.clone();
        copy.notifications().push("b1", "one");
        ctx.notifications().push("b2", "two");
        ctx.notifications().push("b1", "three");
        assert_eq!(ctx.notifications().len(), 3);
        assert_eq!(ctx.notifications().remove("b1"), 2);
        let drained = copy.notifications().drain();
        assert_eq!(drained, vec![PendingNotification { key: "b2".into(), text: "two".into() }]);
        assert!(ctx.notifications().is_empty());
    }

    #[test]
    fn app_state_is_keyed_by_type() {
        #[derive(Default, Debug, PartialEq)]
        struct Todos(Vec<String>);
        let handle = AppStateHandle::default();
        let copy = handle.clone();
        copy.with(|state| state.update(|todos: &mut Todos| todos.0.push("a".into())));
        assert_eq!(handle.with(|state| state.get::<Todos>().map(|t| t.0.len())), Some(1));
        assert_eq!(handle.with(|state| state.get::<u32>().copied()), None);
    }
}
