//! A session: one working directory's tool pool, context, executor, MCP connections, background
//! tasks and session folder, built once and ended once.
//!
//! [`SessionBuilder`] turns what Claude Code reads at start-up into a [`Session`]: the settings
//! files (`~/.claude/settings.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json`, a `--settings` file or JSON text) and command-line rules, the
//! permission mode, workspace trust (an untrusted folder's own configuration is left out), the
//! project's `.mcp.json` servers as its settings approve them and `--mcp-config` servers, the
//! pool's switches from the [`Environment`], hooks, the sandbox settings, the plans and task
//! folders. The front ends — `call`, `run`, `serve`, the agent loop — are thin layers over it.
//!
//! The session owns the pool once: its context's `options.tools` and its executor hold the same
//! `Arc`, set here and nowhere else.
//!
//! # Calls
//! [`Session::call`] runs one `tool_use` block against the session's long-lived context, as an
//! MCP server or a REPL needs: a concurrency-safe call runs on a snapshot beside other such
//! calls, any other call runs alone; either way its context change (a `cd`, plan mode, an
//! "allow always") is applied to the session once, when it finishes. [`Session::run_turn`] runs
//! an assistant turn's blocks with the executor's batching.
//!
//! # Ending
//! [`Session::shutdown`] stops the background tasks (their process trees) and ends the MCP
//! servers, and reports the tasks that were still running. Dropping a session that was not shut
//! down stops its tasks too (MCP servers then end in the background of the Tokio runtime), so an
//! embedder that forgets to shut down leaks nothing.

mod builder;
pub mod cleanup;
pub mod trust;

pub use builder::SessionBuilder;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_tools_background::TaskSnapshot;
use agent_tools_core::Invocation;
use agent_tools_core::{CancellationToken, NotificationQueue, PendingNotification, ProgressSink};
use agent_tools_core::{ContextModifier, ToolUseBlock};
use agent_tools_core::{PermissionMode, PromptOptions, Tool, ToolPermissionContext, ToolUseContext, find_tool_by_name};
use agent_tools_mcp::McpSession;
use agent_tools_mcp::config::{self as mcp_config, NamedServer, ServerConfig};
use agent_tools_settings::{LoadedSettings, SettingsSources};
use tokio::sync::RwLock;

use crate::environment::{Environment, MCP_DEPTH_VAR};
use crate::executor::{Executor, Turn};
use crate::hooks::Hooks;
use crate::permissions::PermissionPrompter;
use crate::pool::{HostConfig, assemble_tool_pool};
pub use trust::Gated;

/// Deepest nesting of agent-tools programs started as MCP servers at which MCP servers are still
/// started (a guard against a project whose `.mcp.json` names `agent-tools serve`).
pub const MAX_MCP_DEPTH: u64 = 8;

/// Claude Code's default `cleanupPeriodDays`: session folders idle this long are removed when a
/// session starts.
pub const DEFAULT_CLEANUP_PERIOD_DAYS: u64 = 30;

/// The question put to the user about an unrecorded folder: the folder and what its own
/// configuration would do; `true` trusts it (and records that).
pub type TrustQuestion = Arc<dyn Fn(&Path, &Gated) -> bool + Send + Sync>;

/// Who decides whether an untrusted project folder's own configuration (its `.mcp.json`
/// servers, hooks, allow rules, mode, extra folders, sandbox exceptions and skills) applies.
#[derive(Clone, Default)]
pub enum WorkspaceTrust {
    /// Only a trust record (ours, or Claude Code's in `~/.claude.json`) for the folder or one
    /// above it; otherwise that configuration is left out, with one notice saying what.
    #[default]
    Recorded,
    /// Trusted for this session without asking (`--trust-workspace`, or an embedder that
    /// vouches for the folder itself).
    Trusted,
    /// As `Recorded`, but an unrecorded folder whose configuration would be left out is put to
    /// this question first (the folder, what it would do); a yes is recorded.
    Ask(TrustQuestion),
}

impl std::fmt::Debug for WorkspaceTrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Recorded => "Recorded",
            Self::Trusted => "Trusted",
            Self::Ask(_) => "Ask(..)",
        })
    }
}

/// Why a session could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The working directory does not exist or is not a folder.
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    /// A settings file exists but cannot be read or used (its path and the reason are in the
    /// message, so it is not also a `source`).
    #[error("cannot use the settings: {0}")]
    Settings(agent_tools_settings::SettingsError),
    /// An MCP configuration given to the builder is broken.
    #[error(transparent)]
    McpConfig(#[from] mcp_config::ConfigError),
    /// The JSON Schema of a structured answer (`--json-schema`) is not usable.
    #[error("the JSON Schema for structured output is not usable: {0}")]
    OutputSchema(String),
}

impl From<agent_tools_settings::SettingsError> for SessionError {
    fn from(error: agent_tools_settings::SettingsError) -> Self {
        Self::Settings(error)
    }
}

/// What receives the session's notices: servers skipped, configuration left out, old session
/// folders that could not be removed. A front end shows them (the CLI prints them on stderr);
/// the default logs them as warnings.
pub type Notices = Arc<dyn Fn(&str) + Send + Sync>;

/// The key of a fired scheduled job's notification on the conversation's queue: `cron:<job
/// id>`; its text is the job's prompt as it was given ([`Session::start_cron_into_queue`]).
pub const CRON_KEY_PREFIX: &str = "cron:";

/// What the model reads of a scheduled job that fired while it works (with the next tool
/// results, in the loop or over MCP): its prompt, marked as the user's own scheduled request.
pub fn scheduled_prompt_text(id: &str, prompt: &str) -> String {
    format!("A job you scheduled (CronCreate, id {id}) is due now. Its prompt:\n\n{prompt}")
}

/// A fresh session id: a UUID v4, as Claude Code's session ids are.
pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Whether `id` can name a session folder: 1 to 64 ASCII letters, digits, `-` or `_`.
pub fn is_plain_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// How one [`Session::call`] runs: its cancellation, who answers its questions, where its
/// progress goes. The defaults: a fresh token, the session's prompter, no progress.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Cancels this call outright (an MCP `notifications/cancelled`).
    pub cancel: Option<CancellationToken>,
    /// A user's interrupt (Ctrl-C, the Agent SDK's `interrupt`): stops the call if its tool's
    /// `interrupt_behavior` is `Cancel`, else lets it finish.
    pub interrupt: Option<CancellationToken>,
    /// Asks this call's permission questions instead of the session's prompter.
    pub prompter: Option<Arc<dyn PermissionPrompter>>,
    /// Receives this call's progress events.
    pub progress: Option<ProgressSink>,
    /// Runs the call on its own: a copy of the session's context with no files read yet, whose
    /// changes (a `cd`, an "allow always" answer, the files it read) are not kept. For requests
    /// of several clients that share one session and must not see each other (stateless MCP
    /// 2026-07-28 requests over HTTP).
    pub isolated: bool,
}

/// How a sub-agent's session differs from its caller's (see [`Session::fork`]).
#[derive(Clone, Default)]
pub struct ForkOptions {
    /// The sub-agent's id (its context's `agent_id`).
    pub agent_id: String,
    /// Its type (its context's `agent_type`).
    pub agent_type: String,
    /// The names of the caller's tools it keeps; the others are not in its pool.
    pub tools: Vec<String>,
    /// Tools it has that its caller does not (its own `StructuredOutput`), added after those.
    pub extra_tools: Vec<Arc<dyn Tool>>,
    /// The permission mode it asks for; `None` keeps the caller's. Never wider than the
    /// caller's: `fork` runs it through
    /// [`subagent_permission_mode`](agent_tools_core::subagent_permission_mode).
    pub permission_mode: Option<PermissionMode>,
    /// Limits on its tools (its definition's `tools: Bash(git diff:*)`), added to the caller's,
    /// which it inherits with the caller's permission context: restrictions only accumulate.
    pub tool_restrictions: Vec<agent_tools_core::ToolRestriction>,
    /// Its working directory (a worktree); `None` keeps the caller's.
    pub cwd: Option<PathBuf>,
    /// A background agent: nobody is asked, a call that would ask is refused (Claude Code's
    /// `shouldAvoidPermissionPrompts`).
    pub background: bool,
    /// Its notification queue (what SendMessage and its own background tasks push).
    pub inbox: NotificationQueue,
    /// Its cancellation: the runner links it to the caller's, so stopping the caller stops it.
    pub cancel: CancellationToken,
    /// Allow rules it gets on top of the caller's (source `command`, as a skill's
    /// `allowed-tools`).
    pub allow_rules: Vec<String>,
}

/// The pool as it stands, and the executor over it.
struct LivePool {
    pool: Arc<[Arc<dyn Tool>]>,
    executor: Executor,
}

/// What the pool is assembled from besides the MCP tools: the rules (deny rules naming a whole
/// tool) and the switches, as the session was built with them.
struct PoolRecipe {
    permissions: ToolPermissionContext,
    config: HostConfig,
}

/// A working session (see the module docs). Build one with [`Session::builder`].
pub struct Session {
    /// The pool and the executor over it, replaced together when the MCP tools change.
    live: std::sync::RwLock<LivePool>,
    /// How to assemble the pool again (`None` for a fork, whose pool is fixed).
    recipe: Option<PoolRecipe>,
    /// Says when the MCP servers' tools changed (list_changed, a server lost, a sign-in).
    mcp_changes: std::sync::Mutex<tokio::sync::watch::Receiver<u64>>,
    hooks: Hooks,
    ctx: RwLock<ToolUseContext>,
    /// The context as built: it shares the app state (the background task registry) with every
    /// later copy, so the session can end its tasks without waiting for a running call.
    pub(crate) root: ToolUseContext,
    mcp: Arc<McpSession>,
    trusted: bool,
    model: Option<String>,
    /// The settings' `env` (a trusted folder's files included).
    settings_env: Vec<(String, String)>,
    env: Environment,
    shut_down: AtomicBool,
    /// A sub-agent's session ([`Session::fork`]): its shutdown ends only what the agent started;
    /// the background task registry and the MCP servers stay the caller's.
    forked: bool,
    /// Fires to stop everything the session's agent runs (see [`Session::cancel_token`]).
    cancel: std::sync::Mutex<CancellationToken>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("tools", &self.pool().iter().map(|tool| tool.name()).collect::<Vec<_>>())
            .field("mcp", &self.mcp)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

/// Applies a finished call's context change to the session's context, keeping the session's
/// own cancellation token (the call ran with its own).
fn apply_change(session: &mut ToolUseContext, base: ToolUseContext, modifier: ContextModifier) {
    let (cancel, interrupt) = (session.cancel.clone(), session.interrupt.clone());
    let mut changed = modifier(base);
    changed.cancel = cancel;
    changed.interrupt = interrupt;
    *session = changed;
}

impl Session {
    /// A builder for a session in the working directory `cwd`.
    pub fn builder(cwd: impl Into<PathBuf>) -> SessionBuilder {
        SessionBuilder::new(cwd.into())
    }

    /// The tool pool, in the order the model sees it, as it stands now: when the MCP servers'
    /// tools changed since the last look (a server's `tools/list_changed`, a server lost, a
    /// server signed in to through its McpAuth tool), the pool is assembled again first, so the
    /// next request, `tools/list` or call sees the new tools (Claude Code refreshes its MCP
    /// tools the same way). A fork's pool is fixed.
    pub fn pool(&self) -> Arc<[Arc<dyn Tool>]> {
        self.refresh_pool();
        Arc::clone(&self.live_pool().pool)
    }

    fn live_pool(&self) -> std::sync::RwLockReadGuard<'_, LivePool> {
        self.live.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Assembles the pool again if the MCP tools changed; returns whether it did.
    pub fn refresh_pool(&self) -> bool {
        let Some(recipe) = &self.recipe else { return false };
        {
            let mut changes = self.mcp_changes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if !changes.has_changed().unwrap_or(false) {
                return false;
            }
            changes.borrow_and_update();
        }
        let pool: Arc<[Arc<dyn Tool>]> =
            assemble_tool_pool(&recipe.permissions, self.mcp.tools(), &recipe.config).into();
        let mut live = self.live.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        live.executor = live.executor.for_pool(Arc::clone(&pool));
        live.pool = pool;
        tracing::debug!(tools = live.pool.len(), "the tool pool was assembled again: the MCP tools changed");
        true
    }

    /// The tool `name` names (an alias too), if it is in the pool.
    pub fn find_tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        find_tool_by_name(&self.pool(), name).cloned()
    }

    /// Whether `block` may run alongside other calls ([`runs_concurrently`](agent_tools_core::runs_concurrently)
    /// over this session's pool): [`Session::call`] runs such calls under a shared lock.
    pub fn runs_concurrently(&self, block: &ToolUseBlock) -> bool {
        agent_tools_core::runs_concurrently(self.find_tool(&block.name).as_deref(), &block.input)
    }

    /// The executor (hooks, the session's prompter, the concurrency cap) over the pool as it
    /// stands now.
    pub fn executor(&self) -> Executor {
        self.refresh_pool();
        self.live_pool().executor.clone()
    }

    /// Whether the working directory's own configuration applies (see [`WorkspaceTrust`]).
    pub fn is_trusted(&self) -> bool {
        self.trusted
    }

    /// The session's id (the folder name under [`Environment::sessions_dir`]).
    pub fn id(&self) -> &str {
        &self.root.options.session_id
    }

    /// The session's own folder (spilled results, task output files; the transcript is in
    /// Claude Code's projects folder), if it has one.
    pub fn folder(&self) -> Option<&Path> {
        self.root.options.session_dir.as_deref()
    }

    /// The working directory the session started in (canonical).
    pub fn project_dir(&self) -> &Path {
        &self.root.original_cwd
    }

    /// The tools' options the pool was assembled with (`None` for a sub-agent's session, whose
    /// pool is its caller's).
    pub fn tool_options(&self) -> Option<&agent_tools_core::ToolOptions> {
        self.recipe.as_ref().map(|recipe| &recipe.config.tools)
    }

    /// The settings' `model`, if a settings file names one.
    pub fn settings_model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The settings' `env` variables, in order (a project's own files only once the folder is
    /// trusted): what the front end reads as if the process had them (Claude Code applies them
    /// to its environment).
    pub fn settings_env(&self) -> &[(String, String)] {
        &self.settings_env
    }

    /// The environment the session was built with.
    pub fn environment(&self) -> &Environment {
        &self.env
    }

    /// The hooks of the session's settings (empty in an untrusted folder but for the user's own).
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// The MCP servers this session connected to, and those that failed.
    pub fn mcp(&self) -> &McpSession {
        &self.mcp
    }

    /// A copy of the session's context as it is now (working directory, permission context,
    /// file-read state, shared task registry).
    pub async fn context(&self) -> ToolUseContext {
        let mut ctx = self.ctx.read().await.clone();
        ctx.options.tools = self.pool();
        ctx
    }

    /// The session's context if no serial call holds it now, without waiting; else the context
    /// the session started with (its working directory and rules as built). For work that runs
    /// while a call may be waiting on it (a hook fired by that call's permission question).
    pub fn context_without_waiting(&self) -> ToolUseContext {
        let mut ctx = match self.ctx.try_read() {
            Ok(ctx) => ctx.clone(),
            Err(_) => self.root.clone(),
        };
        ctx.options.tools = self.pool();
        ctx
    }

    /// The permission context as it is now (rules, mode, "allow always" answers).
    pub async fn permission_context(&self) -> Arc<ToolPermissionContext> {
        Arc::clone(&self.ctx.read().await.permission_context)
    }

    /// Calls `with` with the prompt options of the pool as it stands now (for a tool's `prompt`,
    /// `api_tools`, tool-reference rendering).
    pub async fn with_prompt_options<R>(&self, with: impl FnOnce(&PromptOptions<'_>) -> R) -> R {
        let permissions = self.permission_context().await;
        let pool = self.pool();
        with(&PromptOptions { tools: &pool, permission_context: Some(&permissions) })
    }

    /// Runs one `tool_use` block against the session's context (see "Calls" in the module docs).
    pub async fn call(&self, block: &ToolUseBlock, options: CallOptions) -> Invocation {
        let executor = match options.prompter {
            Some(prompter) => self.executor().with_prompter(prompter),
            None => self.executor(),
        };
        let pool = self.pool();
        let prepare = |mut ctx: ToolUseContext| {
            ctx.options.tools = Arc::clone(&pool);
            ctx.cancel = options.cancel.clone().unwrap_or_default();
            if let Some(interrupt) = &options.interrupt {
                ctx.interrupt = interrupt.clone();
            }
            if options.progress.is_some() {
                ctx.progress.clone_from(&options.progress);
            }
            ctx
        };
        if options.isolated {
            let mut ctx = prepare(self.context().await);
            ctx.read_file_state = agent_tools_core::FileReadState::default();
            let mut done = executor.run_tool_use(block, &ctx).await;
            done.context_modifier = None;
            return done;
        }
        if self.runs_concurrently(block) {
            let ctx = prepare(self.context().await);
            let mut done = executor.run_tool_use(block, &ctx).await;
            // Its change (EnterPlanMode's mode switch) applies once it is done, to the session as
            // it is then, as a batch's changes apply after the batch.
            if let Some(modifier) = done.context_modifier.take() {
                let mut session = self.ctx.write().await;
                let base = session.clone();
                apply_change(&mut session, base, modifier);
            }
            return done;
        }
        let mut session = self.ctx.write().await;
        let ctx = prepare(session.clone());
        let mut done = executor.run_tool_use(block, &ctx).await;
        if let Some(modifier) = done.context_modifier.take() {
            let mut base = ctx;
            base.progress.clone_from(&session.progress);
            apply_change(&mut session, base, modifier);
        }
        done
    }

    /// Runs an assistant turn's `tool_use` blocks with the executor's batching, alone on the
    /// session, and keeps the turn's context changes. `progress` receives the calls' progress.
    pub async fn run_turn(&self, blocks: &[ToolUseBlock], progress: Option<ProgressSink>) -> Turn {
        let executor = self.executor();
        let mut session = self.ctx.write().await;
        let mut ctx = session.clone();
        ctx.options.tools = self.pool();
        if progress.is_some() {
            ctx.progress = progress;
        }
        let turn = executor.run_turn(blocks, &mut ctx).await;
        ctx.progress.clone_from(&session.progress);
        ctx.cancel = session.cancel.clone();
        *session = ctx;
        turn
    }

    /// Switches the session's permission mode (the Agent SDK's `set_permission_mode`); calls
    /// that start afterwards use it. Waits for a running serial call to finish.
    ///
    /// # Errors
    /// A message when the mode is `bypassPermissions` and the session was not started with it
    /// available (`--dangerously-skip-permissions` or that mode at the start), as in Claude Code.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), String> {
        let mut ctx = self.ctx.write().await;
        if mode == PermissionMode::BypassPermissions && !ctx.permission_context.is_bypass_permissions_mode_available {
            return Err("bypassPermissions is not available in this session: start it with \
                        --dangerously-skip-permissions (or --permission-mode bypassPermissions)"
                .to_owned());
        }
        Arc::make_mut(&mut ctx.permission_context).mode = mode;
        Ok(())
    }

    /// Applies permission updates to the session's rules, mode and directories (the Agent SDKs'
    /// `apply_flag_settings`, a host's own changes). Whatever their destination, they hold
    /// for this session only: no settings file is written. Waits for a running serial call.
    pub async fn update_permissions(&self, updates: &[agent_tools_core::PermissionUpdate]) {
        let mut ctx = self.ctx.write().await;
        let permissions = Arc::make_mut(&mut ctx.permission_context);
        for update in updates {
            crate::permissions::apply_update(permissions, update);
        }
    }

    /// Narrows a sub-agent's permissions to what `caller` may do before it goes on for that
    /// caller (SendMessage continuing a stopped agent): its mode through
    /// [`subagent_permission_mode`](agent_tools_core::subagent_permission_mode)
    /// with its own mode as the one asked for, and the caller's tool restrictions added to its
    /// own ([`ToolPermissionContext::narrow_to`]). Waits for a running serial call to finish.
    pub async fn narrow_permissions_to(&self, caller: &ToolPermissionContext) {
        let mut ctx = self.ctx.write().await;
        Arc::make_mut(&mut ctx.permission_context).narrow_to(caller);
    }

    /// The notifications waiting for the model (a background task that finished), oldest
    /// first, taken off the queue.
    pub async fn drain_notifications(&self) -> Vec<PendingNotification> {
        self.ctx.read().await.notifications().drain()
    }

    /// A sub-agent's session, made from the caller's context `parent` the way Claude Code's
    /// `createSubagentContext` makes one: the caller's pool cut down to `options.tools` (and its
    /// extra tools), the same executor (hooks, prompter unless it runs in the background,
    /// classifier), MCP connections, environment and session folder; a context that is the
    /// caller's with a *copy* of its file-read state, a fresh app state whose notification queue
    /// is `options.inbox`, the same root app state (background tasks), the agent's id, type and
    /// cancellation, one more level of `query_depth`, its own working directory when given, its
    /// permission mode narrowed from the caller's (`options.permission_mode` applies only where
    /// it is not wider), and the caller's tool restrictions plus `options.tool_restrictions`.
    /// Nothing the sub-agent changes in its context reaches the caller.
    pub fn fork(&self, parent: &ToolUseContext, options: ForkOptions) -> Session {
        let source = parent.options.worker_tools.as_ref().unwrap_or(&parent.options.tools);
        let mut tools: Vec<Arc<dyn Tool>> =
            source.iter().filter(|tool| options.tools.iter().any(|name| name == tool.name())).cloned().collect();
        for extra in options.extra_tools {
            if !tools.iter().any(|tool| tool.name() == extra.name()) {
                tools.push(extra);
            }
        }
        let pool: Arc<[Arc<dyn Tool>]> = tools.into();
        let parent_mode = parent.permission_context.mode;
        let mut ctx = parent.clone();
        ctx.options.tools = Arc::clone(&pool);
        ctx.options.worker_tools = None;
        ctx.agent_id = Some(options.agent_id);
        ctx.agent_type = Some(options.agent_type);
        ctx.query_depth = parent.query_depth.saturating_add(1);
        ctx.read_file_state = parent.read_file_state.snapshot();
        ctx.app_state = agent_tools_core::AppStateHandle::default();
        let inbox = options.inbox;
        ctx.app_state.with(|state| state.set(inbox));
        ctx.root_app_state = parent.root_app_state.clone();
        ctx.cancel = options.cancel;
        ctx.interrupt = CancellationToken::new();
        ctx.tool_use_id = None;
        ctx.progress = None;
        // The runner installs the sub-agent's own runner (it needs this session).
        ctx.subagents = None;
        if let Some(cwd) = options.cwd {
            ctx.original_cwd.clone_from(&cwd);
            ctx.cwd = cwd;
        }
        let permissions = Arc::make_mut(&mut ctx.permission_context);
        // Whatever the tool asked, never wider than the caller's mode (the tools ask through
        // the same rule; this is the one place every sub-agent goes through).
        permissions.mode = agent_tools_core::subagent_permission_mode(parent_mode, options.permission_mode);
        permissions.add_restrictions(options.tool_restrictions);
        if options.background {
            permissions.should_avoid_permission_prompts = true;
        }
        for rule in options.allow_rules {
            *permissions = permissions.clone().with_rule(
                agent_tools_core::PermissionBehavior::Allow,
                agent_tools_core::PermissionRuleSource::Command,
                rule,
            );
        }
        let executor = self.executor().for_pool(Arc::clone(&pool));
        let cancel = std::sync::Mutex::new(ctx.cancel.clone());
        Session {
            cancel,
            hooks: self.hooks.clone(),
            live: std::sync::RwLock::new(LivePool { pool, executor }),
            recipe: None,
            mcp_changes: std::sync::Mutex::new(self.mcp.changes()),
            root: ctx.clone(),
            ctx: RwLock::new(ctx),
            mcp: Arc::clone(&self.mcp),
            trusted: self.trusted,
            model: self.model.clone(),
            settings_env: self.settings_env.clone(),
            env: self.env.clone(),
            shut_down: AtomicBool::new(false),
            forked: true,
        }
    }

    /// The token that stops the session's agent: the loop gives each call a child of it, so
    /// firing it cancels every running call. A main session's never fires by itself; a
    /// sub-agent's is the one its runner linked to the caller ([`ForkOptions::cancel`]).
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Replaces [`Session::cancel_token`] (a stopped sub-agent continued by SendMessage runs
    /// under its new caller's cancellation).
    pub fn replace_cancel_token(&self, token: CancellationToken) {
        *self.cancel.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = token;
    }

    /// Whether this is a sub-agent's session ([`Session::fork`]).
    pub fn is_fork(&self) -> bool {
        self.forked
    }

    /// The agent id of a sub-agent's session (`None` for the main one).
    pub fn agent_id(&self) -> Option<&str> {
        self.root.agent_id.as_deref()
    }

    /// Runs the session's scheduler of prompts (CronCreate's jobs) for a conversation: each job
    /// that fires has its prompt queued on the session's notification queue (key
    /// [`CRON_KEY_PREFIX`] and the job's id), where the agent loop takes it as a prompt. `None`
    /// when the session has no scheduler (no cron tool in its pool, or none built in) or it runs
    /// already. It stops when the session shuts down.
    pub fn start_cron_into_queue(&self) -> Option<tokio::task::JoinHandle<()>> {
        #[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
        return crate::cron::start_into_queue(self);
        #[cfg(not(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list")))]
        None
    }

    /// Runs the session's scheduler for a front end that is not a conversation (`serve`): each
    /// job that fires goes to `sink` as JSON, `{"id","cron","prompt","recurring","durable",
    /// "scheduledFor" (ms since the Unix epoch),"last"}`. `None` as for
    /// [`Session::start_cron_into_queue`].
    pub fn start_cron_json(
        &self,
        mut sink: impl FnMut(serde_json::Value) + Send + 'static,
    ) -> Option<tokio::task::JoinHandle<()>> {
        #[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
        return self.start_cron(move |fired| {
            sink(serde_json::json!({
                "id": fired.id, "cron": fired.cron, "prompt": fired.prompt, "recurring": fired.recurring,
                "durable": fired.durable, "scheduledFor": fired.scheduled_for, "last": fired.last,
            }));
        });
        #[cfg(not(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list")))]
        {
            let _ = &mut sink;
            None
        }
    }

    /// True while a session-only one-shot scheduled job waits to fire (a headless run waits for
    /// it before it exits; durable and recurring jobs do not keep it alive).
    pub fn has_pending_one_shot(&self) -> bool {
        #[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
        return self.cron().is_some_and(|cron| cron.has_pending_one_shot());
        #[cfg(not(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list")))]
        false
    }

    /// Installs the runner the session's tools start sub-agents with (the agent loop does this
    /// for the session it runs on); calls that start afterwards see it.
    pub async fn install_subagent_runner(&self, runner: Arc<dyn agent_tools_core::SubagentRunner>) {
        self.ctx.write().await.subagents = Some(runner);
    }

    /// Ends the session: stops every background task (its whole process tree) and ends the MCP
    /// servers. Returns the tasks that were still running. Idempotent: a second call stops
    /// nothing and returns nothing. A sub-agent's session ([`Session::fork`]) stops only the
    /// tasks the agent started, and leaves the MCP servers to the session that connected them.
    pub async fn shutdown(&self) -> Vec<TaskSnapshot> {
        if self.shut_down.swap(true, Ordering::SeqCst) {
            return Vec::new();
        }
        if self.forked {
            let (Some(id), Some(registry)) =
                (self.root.agent_id.clone(), agent_tools_background::TaskRegistry::existing(&self.root))
            else {
                return Vec::new();
            };
            return tokio::task::spawn_blocking(move || registry.stop_owned_by(&id)).await.unwrap_or_default();
        }
        #[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
        crate::cron::stop(&self.root);
        let root = self.root.clone();
        let stopped = tokio::task::spawn_blocking(move || agent_tools_background::shutdown(&root)).await;
        self.mcp.shutdown().await;
        #[cfg(feature = "lsp")]
        if let Some(manager) = agent_tools_lsp::from_context(&self.root) {
            manager.shutdown().await;
        }
        stopped.unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A sub-agent's session shares the caller's tasks: its runner ends what it started.
        if !self.forked && !self.shut_down.swap(true, Ordering::SeqCst) {
            let stopped = agent_tools_background::shutdown(&self.root);
            if !stopped.is_empty() {
                tracing::debug!(count = stopped.len(), "background tasks stopped with the session");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::builder::plans_dir;
    use super::*;

    #[test]
    fn the_plans_folder_is_the_setting_inside_the_project_else_the_config_folder() {
        let project = Path::new("/work/proj");
        let config = PathBuf::from("/home/me/.claude");
        assert_eq!(plans_dir(None, project, Some(&config)), Some(PathBuf::from("/home/me/.claude/plans")));
        assert_eq!(plans_dir(Some("docs/plans"), project, Some(&config)), Some(PathBuf::from("/work/proj/docs/plans")));
        assert_eq!(plans_dir(Some("./plans/../notes"), project, None), Some(PathBuf::from("/work/proj/notes")));
        assert_eq!(plans_dir(Some("/work/proj/p"), project, None), Some(PathBuf::from("/work/proj/p")));
        for outside in ["../elsewhere", "/tmp/plans", "a/../../x"] {
            assert_eq!(plans_dir(Some(outside), project, Some(&config)), Some(PathBuf::from("/home/me/.claude/plans")));
        }
        assert_eq!(plans_dir(None, project, None), None);
    }
}
