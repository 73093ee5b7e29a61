//! The command line's session: the flags and the process environment handed to the host's
//! [`SessionBuilder`](agent_tools_host::SessionBuilder), with the terminal's parts — the trust
//! question, the permission prompter, notices on stderr — plugged in.

use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::PermissionMode;
use agent_tools_host::{Environment, PermissionPrompter, Session, WorkspaceTrust};
use agent_tools_settings::parse_tool_list;
use anyhow::Context as _;

use crate::GlobalOptions;

/// Which kind of program runs: a one-shot command, the MCP server, or the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `list`, `call`, `run`.
    Command,
    /// `serve`.
    Server,
    /// `agent`: its prompter and trust come in [`Extras`].
    Agent,
}

/// What a front end adds to the session the global flags describe (the agent's `--tools`,
/// `--resume`, `--add-dir`, the SDK's hooks and permission callback).
#[derive(Default)]
pub(crate) struct Extras {
    /// The session id to use (a resumed session's, or `--session-id`).
    pub(crate) session_id: Option<String>,
    /// More deny rules (`--tools` denies every built-in tool it does not name).
    pub(crate) deny: Vec<String>,
    /// The `--settings` value to use instead of the flag's (the flag's merged with more).
    pub(crate) settings: Option<String>,
    /// Whether the settings files are read, when not the flags' choice (`--setting-sources`).
    pub(crate) settings_files: Option<bool>,
    /// Which `.claude` folders (the user's, the project's) skills, commands and agents come
    /// from, when not both (`--setting-sources`).
    pub(crate) claude_folders: Option<(bool, bool)>,
    /// How workspace trust is settled, when not by the kind's default.
    pub(crate) trust: Option<WorkspaceTrust>,
    /// Who answers permission questions (`Kind::Agent`; the other kinds choose their own).
    pub(crate) prompter: Option<Arc<dyn PermissionPrompter>>,
    /// The auto mode's classifier (`--permission-mode auto`).
    pub(crate) classifier: Option<Arc<dyn agent_tools_host::AutoClassifier>>,
    /// The JSON Schema of a structured final answer (`agent --json-schema`).
    pub(crate) output_schema: Option<serde_json::Value>,
    /// Answers MCP servers' sampling requests (`Kind::Agent`: the loop's model).
    pub(crate) sampler: Option<Arc<dyn agent_tools_mcp::Sampler>>,
    /// Answers MCP servers' elicitations (`serve`: its own client's user).
    pub(crate) elicitor: Option<Arc<dyn agent_tools_mcp::Elicitor>>,
    /// Brief mode (`agent --brief`): SendUserMessage is in the pool.
    pub(crate) brief: bool,
    /// The session's own sub-agents (`agent --agents`, the SDK's `agents`).
    pub(crate) agents: Vec<agent_tool_agent::definitions::AgentDefinition>,
    /// Carries the messages of an Agent SDK's in-process MCP servers.
    pub(crate) sdk_servers: Option<Arc<dyn agent_tools_mcp::SdkServers>>,
}

/// The working directory the flags name: `--cwd` (canonical), else the current one.
pub(crate) fn working_dir(options: &GlobalOptions) -> anyhow::Result<PathBuf> {
    let cwd = match &options.cwd {
        Some(dir) => dir.canonicalize().with_context(|| format!("--cwd {}", dir.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    anyhow::ensure!(cwd.is_dir(), "--cwd {} is not a directory", cwd.display());
    Ok(cwd)
}

/// Opens the session the flags describe, with what a front end adds ([`Extras`]): the working
/// directory from `--cwd` (or the current one), the settings files unless `--no-settings`, the
/// rules, the mode (`serve` defaults to bypassPermissions: the MCP client asks its user before
/// each call), MCP servers, and — for `list`, `call` and `run` — the terminal to ask on when
/// there is one.
pub(crate) async fn open_with(options: &GlobalOptions, kind: Kind, extras: Extras) -> anyhow::Result<Session> {
    let cwd = working_dir(options)?;
    let mode = if options.dangerously_skip_permissions {
        Some(PermissionMode::BypassPermissions)
    } else {
        options.permission_mode
    };
    let mode = match (mode, kind) {
        (None, Kind::Server) => Some(PermissionMode::BypassPermissions),
        (mode, _) => mode,
    };
    let terminal = kind == Kind::Command && crate::prompt::terminal_available();
    let trust = if options.trust_workspace {
        WorkspaceTrust::Trusted
    } else if let Some(trust) = extras.trust {
        trust
    } else if terminal {
        WorkspaceTrust::Ask(Arc::new(crate::trust::ask))
    } else {
        WorkspaceTrust::Recorded
    };
    let settings_files = extras.settings_files.unwrap_or(!options.no_settings);
    let mut builder = Session::builder(cwd)
        .environment(Environment::from_process())
        .settings_files(settings_files)
        .permission_mode(mode)
        .allow_rules(options.allowed_tools.iter().flat_map(|text| parse_tool_list(text)))
        .deny_rules(options.disallowed_tools.iter().flat_map(|text| parse_tool_list(text)))
        .deny_rules(extras.deny)
        .project_mcp_servers(!options.strict_mcp_config)
        .workspace_trust(trust)
        .notices(|notice| crate::report(format_args!("agent-tools: {notice}")));
    if let Some(id) = extras.session_id {
        builder = builder.session_id(id);
    }
    if let Some((user, project)) = extras.claude_folders {
        builder = builder.claude_folders(user, project);
    }
    if let Some(sampler) = extras.sampler {
        builder = builder.mcp_sampler(sampler);
    }
    if let Some(elicitor) = extras.elicitor {
        builder = builder.mcp_elicitor(elicitor);
    }
    if let Some(bridge) = extras.sdk_servers {
        builder = builder.mcp_sdk_servers(bridge);
    }
    if let Some(classifier) = extras.classifier {
        builder = builder.auto_classifier(classifier);
    }
    if let Some(settings) = extras.settings.as_ref().or(options.settings.as_ref()) {
        builder = builder.settings_json(settings);
    }
    for config in &options.mcp_config {
        builder = builder.mcp_config(config);
    }
    match kind {
        Kind::Command => {
            builder = if terminal {
                builder.prompter(Arc::new(crate::prompt::TerminalPrompter))
            } else {
                // Nobody to ask: refuse, and say how such calls can be allowed.
                builder.prompter(Arc::new(crate::prompt::NoTerminal))
            };
        }
        Kind::Agent => {
            if let Some(prompter) = extras.prompter {
                builder = builder.prompter(prompter);
            }
            // The agent loop runs sub-agents: the Agent tool is in its pool.
            let mut config = Environment::from_process().host_config();
            config.subagents = true;
            // TeamCreate's tmux teammates run this very program (`agent --teammate`).
            config
                .tools
                .update::<agent_tools_team::TeamConfig>(|team| team.agent_program = std::env::current_exe().ok());
            config.structured_output = extras.output_schema;
            config.brief |= extras.brief;
            config.tools.update::<agent_tool_agent::AgentFolders>(|agents| agents.session = extras.agents);
            builder = builder.host_config(config);
        }
        // The MCP client got every tool's schema from tools/list: no "load it with ToolSearch
        // first" hint on input errors.
        Kind::Server => builder = builder.all_schemas_sent(true),
    }
    Ok(builder.build().await?)
}
