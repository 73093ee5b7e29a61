//! What a tool is, as typed capabilities: the generic code (the host, the loop, the sub-agent
//! tool sets) asks these instead of keeping lists of tool names.
//!
//! A tool declares them once, in [`ToolDef::CAPABILITIES`](crate::ToolDef::CAPABILITIES); the
//! erased [`Tool::capabilities`](crate::Tool::capabilities) hands them on. The default is the
//! fail-closed one: kind [`ToolKind::Other`], used by the main conversation and foreground
//! sub-agents only ([`AgentScope::Foreground`]), not a shell, not kept by a coordinator.

use crate::tool::ToolFlags;

use serde::Serialize;

/// What sort of work a tool does: the kinds of the Agent Client Protocol and zed's `ToolKind`
/// (an editor shows each with its icon), with `agent` for the tools that start or talk to
/// agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads a file (Read): the LSP layer opens what it read.
    Read,
    /// Changes files (Edit, Write, MultiEdit, NotebookEdit): the LSP layer reports the new
    /// diagnostics of the file its `get_path` names.
    Edit,
    /// Runs a program (Bash, PowerShell, Monitor, REPL).
    Execute,
    /// Finds files or symbols (Glob, Grep, LSP, ToolSearch).
    Search,
    /// Reaches a network service (WebFetch, WebSearch, RemoteTrigger).
    Fetch,
    /// Plans and keeps notes for the model or the user (TodoWrite, the task list, plan mode,
    /// AskUserQuestion, Sleep).
    Think,
    /// Starts, steers or talks to agents (Agent, SendMessage, the team tools, TaskOutput,
    /// TaskStop).
    Agent,
    /// Anything else (the default).
    Other,
}

impl ToolKind {
    /// The kind's name as the protocols spell it (`read`, `edit`, `execute` …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Edit => "edit",
            Self::Execute => "execute",
            Self::Search => "search",
            Self::Fetch => "fetch",
            Self::Think => "think",
            Self::Agent => "agent",
            Self::Other => "other",
        }
    }
}

/// Where a tool may be used besides the main conversation: Claude Code's sub-agent tool sets
/// (its `constants/tools.ts`), as a property of the tool instead of lists of names.
///
/// | scope | main | foreground sub-agent | in-process teammate | background agent | Claude Code's set |
/// |---|---|---|---|---|---|
/// | [`MainConversation`](Self::MainConversation) | yes | no | no | no | `ALL_AGENT_DISALLOWED_TOOLS` |
/// | [`Foreground`](Self::Foreground) (default) | yes | yes | no | no | (the rest) |
/// | [`Team`](Self::Team) | yes | yes | yes | no | `IN_PROCESS_TEAMMATE_ALLOWED_TOOLS` |
/// | [`Everywhere`](Self::Everywhere) | yes | yes | yes | yes | `ASYNC_AGENT_ALLOWED_TOOLS` |
///
/// A custom agent (from an agent file) loses the same tools a built-in one does
/// (`CUSTOM_AGENT_DISALLOWED_TOOLS` equals `ALL_AGENT_DISALLOWED_TOOLS` in Claude Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentScope {
    /// Only the main conversation: the tool talks to the user, switches the session's plan mode,
    /// manages the session's background tasks or leads its team (TaskOutput, TaskStop,
    /// AskUserQuestion, Enter/ExitPlanMode, TeamCreate, TeamDelete).
    MainConversation,
    /// The main conversation and foreground sub-agents (the default).
    Foreground,
    /// Also in-process teammates: the shared task list, messages and schedules (TaskCreate,
    /// TaskGet, TaskList, TaskUpdate, SendMessage, the cron tools).
    Team,
    /// Every agent, background ones too: the working tools (Read, Edit, Bash, Grep, WebFetch …).
    Everywhere,
}

impl AgentScope {
    /// A short label for listings: `main`, `subagents`, `teammates`, `all agents`.
    pub const fn label(self) -> &'static str {
        match self {
            Self::MainConversation => "main",
            Self::Foreground => "subagents",
            Self::Team => "teammates",
            Self::Everywhere => "all agents",
        }
    }

    /// Whether a sub-agent (foreground, not a teammate) inherits the tool.
    pub const fn in_subagents(self) -> bool {
        !matches!(self, Self::MainConversation)
    }

    /// Whether an in-process teammate (a background agent of a team) keeps the tool.
    pub const fn in_teammates(self) -> bool {
        matches!(self, Self::Team | Self::Everywhere)
    }

    /// Whether a background agent (not a teammate) keeps the tool.
    pub const fn in_background(self) -> bool {
        matches!(self, Self::Everywhere)
    }
}

/// A tool's typed capabilities (see the module docs): what it is, who may use it, the fixed
/// answers of its flags, whether it is deferred and how ToolSearch finds it. Built in `const`
/// context:
///
/// ```
/// use agent_tools_core::{AgentScope, Capabilities, ToolFlags, ToolKind};
/// const BASH: Capabilities = Capabilities::new(ToolKind::Execute).scope(AgentScope::Everywhere).shell();
/// assert!(BASH.shell && BASH.scope.in_background());
/// assert_eq!(Capabilities::DEFAULT.kind, ToolKind::Other);
/// assert!(!Capabilities::DEFAULT.scope.in_teammates());
/// // Fail-closed flags unless said otherwise; not deferred; no search hint.
/// assert_eq!(Capabilities::DEFAULT.flags, ToolFlags::NOTHING);
/// const GREP: Capabilities =
///     Capabilities::new(ToolKind::Search).flags(ToolFlags::LOCAL_READ_ONLY).search_hint("search file contents");
/// assert!(GREP.flags.read_only && !GREP.deferred && GREP.search_hint == Some("search file contents"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Capabilities {
    /// What sort of work the tool does.
    pub kind: ToolKind,
    /// Which agents may use it.
    pub scope: AgentScope,
    /// It runs a command line in a shell (Bash, PowerShell): its successful `tool_result` says
    /// `is_error: false` explicitly, as Claude Code's shell tools do.
    pub shell: bool,
    /// An agent in coordinator mode keeps it (Claude Code's `COORDINATOR_MODE_ALLOWED_TOOLS`:
    /// Agent, TaskStop, SendMessage, StructuredOutput): a coordinator dispatches and does no
    /// work itself.
    pub dispatch: bool,
    /// What the tool promises whatever its input (read-only, concurrency-safe, destructive,
    /// open-world): [`ToolDef::flags`](crate::ToolDef::flags)'s default. Fail-closed unless
    /// set: [`ToolFlags::NOTHING`].
    pub flags: ToolFlags,
    /// Its schema is held back until ToolSearch loads it (Claude Code's `shouldDefer`):
    /// [`ToolDef::should_defer`](crate::ToolDef::should_defer)'s default.
    pub deferred: bool,
    /// A few words ToolSearch matches besides the name (Claude Code's `searchHint`):
    /// [`ToolDef::search_hint`](crate::ToolDef::search_hint)'s default.
    pub search_hint: Option<&'static str>,
}

impl Capabilities {
    /// The fail-closed default: [`ToolKind::Other`], [`AgentScope::Foreground`], not a shell,
    /// not kept by a coordinator, [`ToolFlags::NOTHING`], not deferred, no search hint.
    pub const DEFAULT: Self = Self::new(ToolKind::Other);

    /// A tool of `kind` with the default scope and no other capability.
    pub const fn new(kind: ToolKind) -> Self {
        Self {
            kind,
            scope: AgentScope::Foreground,
            shell: false,
            dispatch: false,
            flags: ToolFlags::NOTHING,
            deferred: false,
            search_hint: None,
        }
    }

    /// The same, with these flags.
    pub const fn flags(mut self, flags: ToolFlags) -> Self {
        self.flags = flags;
        self
    }

    /// The same, deferred until ToolSearch loads it.
    pub const fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// The same, found by ToolSearch with `hint` too.
    pub const fn search_hint(mut self, hint: &'static str) -> Self {
        self.search_hint = Some(hint);
        self
    }

    /// The same, used by the agents `scope` names.
    pub const fn scope(mut self, scope: AgentScope) -> Self {
        self.scope = scope;
        self
    }

    /// The same, as a shell tool.
    pub const fn shell(mut self) -> Self {
        self.shell = true;
        self
    }

    /// The same, kept by a coordinator.
    pub const fn dispatch(mut self) -> Self {
        self.dispatch = true;
        self
    }
}

impl Default for Capabilities {
    fn default() -> Self {
        Self::DEFAULT
    }
}
