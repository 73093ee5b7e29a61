//! The command line's session: the flags and the process environment handed to the host's
//! [`SessionBuilder`](agent_tools_host::SessionBuilder), with the terminal's parts — the trust
//! question, the permission prompter, notices on stderr — plugged in.

use std::sync::Arc;

use agent_tools_core::PermissionMode;
use agent_tools_host::{Environment, Session, WorkspaceTrust};
use agent_tools_settings::parse_tool_list;
use anyhow::Context as _;

use crate::GlobalOptions;

/// Which kind of program runs: a one-shot command, or the MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `list`, `call`, `run`.
    Command,
    /// `serve`.
    Server,
}

/// Opens the session the flags describe: the working directory from `--cwd` (or the current
/// one), the settings files unless `--no-settings`, the rules, the mode (`serve` defaults to
/// bypassPermissions: the MCP client asks its user before each call), MCP servers, and — for
/// `list`, `call` and `run` — the terminal to ask on when there is one.
pub(crate) async fn open(options: &GlobalOptions, kind: Kind) -> anyhow::Result<Session> {
    let cwd = match &options.cwd {
        Some(dir) => dir.canonicalize().with_context(|| format!("--cwd {}", dir.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    anyhow::ensure!(cwd.is_dir(), "--cwd {} is not a directory", cwd.display());
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
    } else if terminal {
        WorkspaceTrust::Ask(Arc::new(crate::trust::ask))
    } else {
        WorkspaceTrust::Recorded
    };
    let mut builder = Session::builder(cwd)
        .environment(Environment::from_process())
        .settings_files(!options.no_settings)
        .permission_mode(mode)
        .allow_rules(options.allowed_tools.iter().flat_map(|text| parse_tool_list(text)))
        .deny_rules(options.disallowed_tools.iter().flat_map(|text| parse_tool_list(text)))
        .project_mcp_servers(!options.strict_mcp_config)
        .workspace_trust(trust)
        .notices(|notice| crate::report(format_args!("agent-tools: {notice}")));
    if let Some(settings) = &options.settings {
        builder = builder.settings_json(settings);
    }
    for config in &options.mcp_config {
        builder = builder.mcp_config(config);
    }
    if kind == Kind::Command {
        builder = if terminal {
            builder.prompter(Arc::new(crate::prompt::TerminalPrompter))
        } else {
            // Nobody to ask: refuse, and say how such calls can be allowed.
            builder.prompter(Arc::new(crate::prompt::NoTerminal))
        };
    }
    Ok(builder.build().await?)
}
