//! The process environment as a value: the variables Claude Code reads, taken once, so that a
//! [`Session`](crate::Session) is built from what the caller hands it and tests can hand it any
//! environment they like.
//!
//! Library code never calls `std::env::var` behind the caller's back: a program passes
//! [`Environment::from_process`], a test passes [`Environment::empty`] with the few variables it
//! sets. What each variable means is documented where it is used: [`Environment::host_config`]
//! (the pool's switches), [`Environment::mcp_options`] (MCP timeouts), and the folders below.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::pool::{HostConfig, SmallModelConfig};
use crate::tool_search::ToolSearchMode;

/// The variable telling a program started as an MCP server by agent-tools how deep it is
/// nested (0 or unset: started by the user).
pub const MCP_DEPTH_VAR: &str = "AGENT_TOOLS_MCP_DEPTH";

/// A snapshot of environment variables (names to values). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    vars: HashMap<String, OsString>,
}

impl Environment {
    /// The current process's environment, read now.
    pub fn from_process() -> Self {
        Self { vars: std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value))).collect() }
    }

    /// No variables at all (no home folder, every switch off).
    pub fn empty() -> Self {
        Self::default()
    }

    /// This environment with `name` set to `value`.
    #[must_use]
    pub fn with(mut self, name: &str, value: impl Into<OsString>) -> Self {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// This environment without `name`.
    #[must_use]
    pub fn without(mut self, name: &str) -> Self {
        self.vars.remove(name);
        self
    }

    /// The raw value of `name`.
    pub fn get(&self, name: &str) -> Option<&OsString> {
        self.vars.get(name)
    }

    /// A non-blank value of `name`, as text.
    pub fn text(&self, name: &str) -> Option<String> {
        self.vars.get(name).and_then(|value| value.to_str()).filter(|value| !value.trim().is_empty()).map(str::to_owned)
    }

    /// Whether `name` is set to a truthy value (`1`, `true`, `yes`, `on`; any case), as Claude
    /// Code's `isEnvTruthy` reads its switches.
    pub fn flag(&self, name: &str) -> bool {
        self.text(name)
            .is_some_and(|value| matches!(value.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
    }

    /// A whole number in `name` (`MCP_TIMEOUT=5000`); `None` when unset or not a number.
    pub fn number(&self, name: &str) -> Option<u64> {
        self.text(name).and_then(|value| value.trim().parse().ok())
    }

    /// An absolute path in `name` (relative values are ignored, as Claude Code ignores them).
    pub fn absolute_path(&self, name: &str) -> Option<PathBuf> {
        self.vars.get(name).map(PathBuf::from).filter(|path| path.is_absolute())
    }

    /// The home folder (`HOME`).
    pub fn home(&self) -> Option<PathBuf> {
        self.vars.get("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)
    }

    /// Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR` when absolute, else `~/.claude`.
    /// The task tools keep their lists in `<it>/tasks`, plans go to `<it>/plans`, skills come
    /// from `<it>/skills`.
    pub fn claude_config_dir(&self) -> Option<PathBuf> {
        self.absolute_path("CLAUDE_CONFIG_DIR").or_else(|| self.home().map(|home| home.join(".claude")))
    }

    /// Where sessions keep their folders: `$XDG_STATE_HOME/agent-tools/sessions`, else
    /// `~/.local/state/agent-tools/sessions`, else `<temp>/agent-tools/sessions`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.absolute_path("XDG_STATE_HOME")
            .or_else(|| self.home().map(|home| home.join(".local/state")))
            .unwrap_or_else(std::env::temp_dir)
            .join("agent-tools")
            .join("sessions")
    }

    /// How deep in a chain of agent-tools programs started as MCP servers this one is
    /// ([`MCP_DEPTH_VAR`]; 0: started by the user).
    pub fn mcp_depth(&self) -> u64 {
        self.number(MCP_DEPTH_VAR).unwrap_or(0)
    }

    /// Claude Code's `ENABLE_TOOL_SEARCH` (unset or `true`: on; `false`: off; `auto[:N]`), forced
    /// off by `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`, as Claude Code does.
    pub fn tool_search_mode(&self) -> ToolSearchMode {
        if self.flag("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS") {
            return ToolSearchMode::Off;
        }
        ToolSearchMode::from_env_value(self.text("ENABLE_TOOL_SEARCH").as_deref())
    }

    /// WebFetch's secondary model and WebSearch's API, when `ANTHROPIC_API_KEY` is set:
    /// `ANTHROPIC_BASE_URL` and `ANTHROPIC_SMALL_FAST_MODEL` override the address and model.
    pub fn small_model(&self) -> Option<SmallModelConfig> {
        Some(SmallModelConfig {
            api_key: self.text("ANTHROPIC_API_KEY")?,
            base_url: self.text("ANTHROPIC_BASE_URL"),
            model: self.text("ANTHROPIC_SMALL_FAST_MODEL"),
        })
    }

    /// The pool's switches, as Claude Code reads them: `CLAUDE_CODE_SIMPLE` (simple mode),
    /// `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`, the small model, `CLAUDE_CODE_ENABLE_TASKS` (task
    /// list V2: Claude Code also turns it on in its interactive chat, which none of our front
    /// ends is), tool search, coordinator, LSP, REPL, cron and brief switches, and the tools' own
    /// options ([`Self::tool_options`]). The skill, command and agent folders, the teams folder
    /// and Config's settings files are the session's to fill (they depend on workspace trust and
    /// the config folder).
    pub fn host_config(&self) -> HostConfig {
        HostConfig {
            simple: self.flag("CLAUDE_CODE_SIMPLE"),
            disable_background_tasks: self.flag("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS"),
            small_model: self.small_model(),
            todo_v2: self.flag("CLAUDE_CODE_ENABLE_TASKS"),
            tool_search: self.tool_search_mode(),
            subagents: false,
            structured_output: None,
            coordinator: self.flag("CLAUDE_CODE_COORDINATOR_MODE"),
            lsp: self.flag("ENABLE_LSP_TOOL"),
            repl: !self.text("CLAUDE_CODE_REPL").is_some_and(|value| {
                matches!(value.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off")
            }),
            repl_mode: self.flag("CLAUDE_REPL_MODE"),
            disable_cron: self.flag("CLAUDE_CODE_DISABLE_CRON"),
            brief: self.flag("CLAUDE_CODE_BRIEF"),
            tools: self.tool_options(),
        }
    }

    /// The options of the tool crates that read the environment, each in its own type: Glob's
    /// ignore files (`CLAUDE_CODE_GLOB_NO_IGNORE=true` turns them off, as in Claude Code),
    /// PowerShell's `pwsh` on `PATH`, TeamCreate's `CLAUDE_CODE_TEAMMATE_MODE` and `tmux` on
    /// `PATH`, and RemoteTrigger's endpoint ([`Self::remote_trigger`]). A tool whose feature is
    /// off has none.
    #[allow(unused_mut)] // With no such tool compiled in, nothing is set.
    pub fn tool_options(&self) -> agent_tools_core::ToolOptions {
        let mut tools = agent_tools_core::ToolOptions::new();
        let path = self.get("PATH").map(OsString::as_os_str);
        #[cfg(feature = "glob")]
        if self.text("CLAUDE_CODE_GLOB_NO_IGNORE").is_some_and(|value| value.trim() == "true") {
            tools.update::<agent_tool_glob::GlobConfig>(|glob| glob.walk.respect_ignore_files = false);
        }
        #[cfg(feature = "powershell")]
        if let Some(pwsh) = crate::pool::find_pwsh(path) {
            tools.insert(agent_tool_powershell::PowerShellConfig {
                shell: Some(pwsh),
                ..agent_tool_powershell::PowerShellConfig::default()
            });
        }
        #[cfg(feature = "team-create")]
        tools.update::<agent_tool_team_create::TeamConfig>(|team| {
            team.teammate_mode =
                agent_tool_team_create::TeammateMode::parse(self.text("CLAUDE_CODE_TEAMMATE_MODE").as_deref());
            team.tmux = agent_tools_core::path::find_program("tmux", path).map(agent_tool_team_create::TmuxConfig::new);
        });
        #[cfg(feature = "remote-trigger")]
        if let Some((base_url, token)) = self.remote_trigger() {
            tools.insert(agent_tool_remote_trigger::RemoteTriggerConfig::new(base_url, token));
        }
        let _ = path;
        tools
    }

    /// RemoteTrigger's endpoint, the base URL and the bearer token: `AGENT_TOOLS_TRIGGERS_URL`
    /// and `AGENT_TOOLS_TRIGGERS_TOKEN`, both set (Claude Code calls claude.ai with its login;
    /// ours calls whatever API the user names).
    pub fn remote_trigger(&self) -> Option<(String, String)> {
        Some((self.text("AGENT_TOOLS_TRIGGERS_URL")?, self.text("AGENT_TOOLS_TRIGGERS_TOKEN")?))
    }

    /// MCP client options: `MCP_TIMEOUT` (connect, ms), `MCP_TOOL_TIMEOUT` (per call, ms) and
    /// `MAX_MCP_OUTPUT_TOKENS`, as Claude Code reads them; zero or unreadable values keep the
    /// defaults. Servers start in `cwd`, which is also the one root answered to `roots/list` (as
    /// Claude Code answers); remote servers' OAuth tokens are kept under the Claude config
    /// folder's `mcp-oauth/` (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub fn mcp_options(&self, cwd: &Path) -> agent_tools_mcp::McpOptions {
        let defaults = agent_tools_mcp::McpOptions::default();
        let positive = |name: &str| self.number(name).filter(|value| *value > 0);
        agent_tools_mcp::McpOptions {
            connect_timeout: positive("MCP_TIMEOUT").map_or(defaults.connect_timeout, Duration::from_millis),
            tool_timeout: positive("MCP_TOOL_TIMEOUT").map(Duration::from_millis),
            max_output_tokens: positive("MAX_MCP_OUTPUT_TOKENS")
                .and_then(|tokens| usize::try_from(tokens).ok())
                .unwrap_or(defaults.max_output_tokens),
            cwd: Some(cwd.to_path_buf()),
            roots: vec![cwd.to_path_buf()],
            oauth: self.claude_config_dir().map(agent_tools_mcp::OAuthStore::new),
            ..defaults
        }
    }

    /// The task list id Claude Code shares between sessions (`CLAUDE_CODE_TASK_LIST_ID`).
    pub fn task_list_id(&self) -> Option<String> {
        self.text("CLAUDE_CODE_TASK_LIST_ID")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_numbers_and_folders_are_read_as_claude_code_reads_them() {
        let env = Environment::empty()
            .with("HOME", "/home/me")
            .with("CLAUDE_CODE_SIMPLE", "Yes")
            .with("CLAUDE_CODE_GLOB_NO_IGNORE", "1")
            .with("MCP_TIMEOUT", "2500")
            .with("MCP_TOOL_TIMEOUT", "0")
            .with("XDG_STATE_HOME", "relative/ignored")
            .with("ENABLE_TOOL_SEARCH", "false");
        let config = env.host_config();
        assert!(config.simple);
        #[cfg(feature = "glob")]
        {
            let glob = |config: &HostConfig| config.tools.get_or_default::<agent_tool_glob::GlobConfig>();
            assert!(glob(&config).walk.respect_ignore_files, "only the exact value `true` turns ignore files off");
            let off = env.clone().with("CLAUDE_CODE_GLOB_NO_IGNORE", " true").host_config();
            assert!(!glob(&off).walk.respect_ignore_files);
        }
        assert_eq!(config.tool_search, ToolSearchMode::Off);
        assert_eq!(config.small_model, None);
        let mcp = env.mcp_options(Path::new("/w"));
        assert_eq!(mcp.connect_timeout, Duration::from_millis(2500));
        assert_eq!(mcp.tool_timeout, None, "zero keeps the default");
        assert_eq!(env.claude_config_dir(), Some(PathBuf::from("/home/me/.claude")));
        assert_eq!(env.sessions_dir(), PathBuf::from("/home/me/.local/state/agent-tools/sessions"));
        let env = env.with("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "true").with("ENABLE_TOOL_SEARCH", "true");
        assert_eq!(env.tool_search_mode(), ToolSearchMode::Off);
        assert_eq!(Environment::empty().mcp_depth(), 0);
        assert_eq!(Environment::empty().with(MCP_DEPTH_VAR, "3").mcp_depth(), 3);
    }

    #[test]
    fn teams_read_the_teammate_mode_and_find_tmux_and_the_pool_offers_them_with_sub_agents() {
        let bin = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let tmux = bin.path().join("tmux");
        std::fs::write(&tmux, "#!/bin/sh\n").unwrap_or_else(|error| panic!("{error}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let _ = std::fs::set_permissions(&tmux, std::fs::Permissions::from_mode(0o755));
        }
        let env = Environment::empty().with("CLAUDE_CODE_TEAMMATE_MODE", "tmux").with("PATH", bin.path());
        let config = env.host_config();
        #[cfg(feature = "team-create")]
        {
            use agent_tool_team_create::{TeamConfig, TeammateMode};
            let team = |config: &HostConfig| config.tools.get_or_default::<TeamConfig>();
            assert_eq!(team(&config).teammate_mode, TeammateMode::Tmux);
            assert_eq!(team(&config).tmux.map(|tmux| tmux.program), Some(tmux));
            assert_eq!(team(&Environment::empty().host_config()).tmux, None);
        }

        let names = |config: &HostConfig| -> Vec<String> {
            crate::pool::get_all_base_tools(config)
                .iter()
                .filter(|tool| tool.is_enabled())
                .map(|tool| tool.name().to_owned())
                .collect()
        };
        let teams =
            |names: &[String]| names.iter().filter(|name| name.starts_with("Team")).cloned().collect::<Vec<_>>();
        // Only with sub-agents; TeamCreate needs a teams folder.
        assert!(teams(&names(&config)).is_empty());
        #[cfg(all(feature = "team-create", feature = "team-delete"))]
        {
            let with_agents = HostConfig { subagents: true, ..config };
            assert_eq!(teams(&names(&with_agents)), ["TeamDelete"]);
            let mut with_folder = with_agents;
            with_folder.tools.update::<agent_tool_team_create::TeamConfig>(|team| {
                team.teams_dir = Some(bin.path().join("teams"));
            });
            let all = names(&with_folder);
            assert_eq!(teams(&all), ["TeamCreate", "TeamDelete"]);
            let at = |name: &str| all.iter().position(|tool| tool == name);
            assert!(at("ListAgents") < at("TeamCreate"), "{all:?}");
        }
    }
}
