//! What a host tells the team tools: where teams live, how teammates run, and the tmux to run
//! them in.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// How TeamCreate starts teammates (Claude Code's `teammateMode` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TeammateMode {
    /// Background sub-agents in this process (the default).
    #[default]
    InProcess,
    /// `agent-tools agent --teammate` processes in tmux panes, when tmux and the agent program
    /// are known ([`TeamConfig::tmux`], [`TeamConfig::agent_program`]); else in-process, with
    /// a note in TeamCreate's result.
    Tmux,
}

impl TeammateMode {
    /// `tmux` → [`Self::Tmux`]; anything else (`in-process`, Claude Code's `auto`, unset) →
    /// [`Self::InProcess`]. Any case, surrounding blanks ignored.
    pub fn parse(value: Option<&str>) -> Self {
        match value.map(|value| value.trim().to_ascii_lowercase()) {
            Some(value) if value == "tmux" => Self::Tmux,
            _ => Self::InProcess,
        }
    }
}

/// The tmux that runs tmux teammates. Every command goes to a private server
/// (`tmux -L <socket> -f /dev/null`), so a user's own tmux sessions and `~/.tmux.conf` are never
/// touched; the server is started by the first teammate's `new-session`, with this process's
/// environment plus [`Self::env`] (which every teammate inherits).
#[derive(Clone, PartialEq, Eq)]
pub struct TmuxConfig {
    /// The `tmux` program (a host looks it up on its `PATH`).
    pub program: PathBuf,
    /// The server's socket name (`-L`): [`Self::default_socket`] unless a test picks its own.
    pub socket: String,
    /// Variables set on the tmux commands, so a server they start (and every teammate in it)
    /// has them; values are never put on a command line.
    pub env: Vec<(OsString, OsString)>,
    /// How long TeamDelete waits for tmux teammates to stop after their shutdown request before
    /// it kills their tmux session.
    pub shutdown_grace: Duration,
}

impl std::fmt::Debug for TmuxConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Values of `env` may be secrets: only their names are shown.
        let names: Vec<_> = self.env.iter().map(|(name, _)| name).collect();
        f.debug_struct("TmuxConfig")
            .field("program", &self.program)
            .field("socket", &self.socket)
            .field("env", &names)
            .field("shutdown_grace", &self.shutdown_grace)
            .finish()
    }
}

/// The default [`TmuxConfig::shutdown_grace`]: 5 s.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

impl TmuxConfig {
    /// `program` on [`Self::default_socket`], no extra variables, the default grace.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            socket: Self::default_socket(),
            env: Vec::new(),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }

    /// `agent-tools-<pid>`: one private server per lead process, started by it (so its
    /// teammates inherit the lead's environment). `tmux -L agent-tools-<pid> attach` shows them.
    pub fn default_socket() -> String {
        format!("agent-tools-{}", std::process::id())
    }
}

/// The team tools' configuration (`agent_tool_team_create::tool_with`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TeamConfig {
    /// The teams folder: a host passes `<config dir>/teams` (`~/.claude/teams`). `None`: the
    /// tool is disabled (there is nowhere to keep a team).
    pub teams_dir: Option<PathBuf>,
    /// How teammates run.
    pub teammate_mode: TeammateMode,
    /// The `agent-tools` program a tmux teammate runs (`<it> agent --teammate TEAM/NAME …`);
    /// `None`: tmux teammates cannot be started.
    pub agent_program: Option<PathBuf>,
    /// The tmux to start them in; `None`: tmux is not installed.
    pub tmux: Option<TmuxConfig>,
    /// How long a tmux teammate waits for a message before it exits; `None`: the teammate's
    /// default (30 min).
    pub teammate_idle_timeout: Option<Duration>,
}
