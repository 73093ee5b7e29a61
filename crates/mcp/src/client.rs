//! Connecting to the configured servers, and ending them: [`connect_all`] and [`McpSession`].

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::Tool;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::Value;
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::Mutex;

use crate::config::{NamedServer, ServerConfig};
use crate::names::{NameAllocator, normalize_name};
use crate::tool::{McpTool, listed_name};
use crate::transform::DEFAULT_MAX_OUTPUT_TOKENS;

/// How long a server gets to start and answer `initialize` and `tools/list` (Claude Code's
/// `MCP_TIMEOUT` default, 30 s).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server gets to exit once its stdin is closed, before it is signalled and killed.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(8);

/// Settings for connecting and calling; the CLI fills them from flags and the environment (this
/// crate never reads the environment).
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Time allowed to start a server and list its tools (default [`DEFAULT_CONNECT_TIMEOUT`];
    /// Claude Code's `MCP_TIMEOUT`).
    pub connect_timeout: Duration,
    /// Time allowed for one `tools/call`; `None` waits until the call is cancelled (Claude Code's
    /// `MCP_TOOL_TIMEOUT`, whose default is about 28 hours).
    pub tool_timeout: Option<Duration>,
    /// Estimated tokens past which a tool's output is cut (Claude Code's `MAX_MCP_OUTPUT_TOKENS`,
    /// default 25,000).
    pub max_output_tokens: usize,
    /// The working directory servers are started in (default: the process's).
    pub cwd: Option<PathBuf>,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            tool_timeout: None,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            cwd: None,
        }
    }
}

/// A live connection to one server, shared by its tools.
#[derive(Debug)]
pub struct ServerConnection {
    /// The server's configured (raw) name.
    pub name: String,
    /// Whether the server advertised the `resources` capability.
    pub has_resources: bool,
    pub(crate) peer: Peer<RoleClient>,
}

/// A server that was configured but could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// The configured name.
    pub name: String,
    /// What went wrong, one line.
    pub message: String,
}

/// The MCP side of a session: the connected servers, their tools (plus the resource tools when
/// a server offers resources), and the servers that failed.
///
/// End it with [`McpSession::shutdown`]: each server's stdin is closed and it is waited for,
/// then signalled and killed if it lingers. Dropping it without that still ends the servers,
/// but in the background of the Tokio runtime (which must still be running).
pub struct McpSession {
    connections: Vec<Arc<ServerConnection>>,
    services: Mutex<Vec<RunningService<RoleClient, ()>>>,
    tools: Vec<Arc<dyn Tool>>,
    failures: Vec<ServerFailure>,
}

impl std::fmt::Debug for McpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSession")
            .field("connections", &self.connections.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
            .field("tools", &self.tools.len())
            .field("failures", &self.failures)
            .finish()
    }
}

impl McpSession {
    /// A session with no servers (what a run without MCP configuration gets; no rmcp work).
    pub fn empty() -> Self {
        Self { connections: Vec::new(), services: Mutex::new(Vec::new()), tools: Vec::new(), failures: Vec::new() }
    }

    /// Every tool of every connected server (`mcp__<server>__<tool>`), then
    /// `ListMcpResourcesTool` and `ReadMcpResourceTool` when any server offers resources. Pass
    /// them to the host's `assemble_tool_pool`, which sorts them and applies deny rules.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    /// The connected servers, in configuration order.
    pub fn connections(&self) -> &[Arc<ServerConnection>] {
        &self.connections
    }

    /// The servers that could not be used (failed to start, to initialise, or an unsupported
    /// transport), in configuration order.
    pub fn failures(&self) -> &[ServerFailure] {
        &self.failures
    }

    /// Ends every server: closes its stdin, waits for it to exit, and signals and kills it if it
    /// does not. Idempotent; the tools fail with a "not connected" error afterwards.
    pub async fn shutdown(&self) {
        let services = std::mem::take(&mut *self.services.lock().await);
        let closing = services.into_iter().map(|mut service| async move {
            if let Err(error) = service.close_with_timeout(SHUTDOWN_TIMEOUT).await {
                tracing::warn!(%error, "an MCP server connection did not close cleanly");
            }
        });
        futures_util::future::join_all(closing).await;
    }
}

/// Connects to every stdio server of `servers` at once, each within `options.connect_timeout`,
/// and lists its tools, named as [`crate::names`] says (unique, at most 64 characters). A server that fails to start, to initialise or to list its tools, or that
/// uses a transport other than stdio, is recorded in [`McpSession::failures`] and skipped: it is
/// never fatal (Claude Code shows such servers as failed and goes on).
pub async fn connect_all(servers: &[NamedServer], options: &McpOptions) -> McpSession {
    let attempts = servers.iter().map(|server| connect(server, options));
    let outcomes = futures_util::future::join_all(attempts).await;
    let mut session = McpSession::empty();
    let mut services = Vec::new();
    // Names are handed out in configuration and listing order, so the same servers always get
    // the same names, each unique and within the API's 64 characters.
    let mut names = NameAllocator::new();
    for (server, outcome) in servers.iter().zip(outcomes) {
        match outcome {
            Ok((service, connection, listed)) => {
                let connection = Arc::new(connection);
                for tool in &listed {
                    let raw = listed_name(tool);
                    let name = names.allocate(&connection.name, raw);
                    if !name.ends_with(&format!("__{}", normalize_name(raw))) {
                        tracing::debug!(server = %connection.name, tool = raw, %name, "MCP tool name shortened or made unique");
                    }
                    session.tools.push(agent_tools_core::build_tool(McpTool::new(
                        Arc::clone(&connection),
                        name,
                        tool,
                        options,
                    )));
                }
                session.connections.push(connection);
                services.push(service);
            }
            Err(message) => session.failures.push(ServerFailure { name: server.name.clone(), message }),
        }
    }
    if session.connections.iter().any(|connection| connection.has_resources) {
        let connections: Arc<[Arc<ServerConnection>]> = session.connections.clone().into();
        session.tools.extend(crate::resources::tools(connections));
    }
    session.services = Mutex::new(services);
    session
}

type Connected = (RunningService<RoleClient, ()>, ServerConnection, Vec<Value>);

async fn connect(server: &NamedServer, options: &McpOptions) -> Result<Connected, String> {
    let (command, args, env) = match &server.config {
        ServerConfig::Stdio { command, args, env } => (command, args, env),
        ServerConfig::Unsupported { kind } => {
            return Err(format!("transport type \"{kind}\" is not supported (only stdio servers are)"));
        }
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env).kill_on_drop(true);
    if let Some(cwd) = &options.cwd {
        cmd.current_dir(cwd);
    }
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start `{command}`: {error}"))?;
    if let Some(stderr) = stderr {
        // The server's own log lines go to our debug log, never to our stdout/stderr.
        let name = server.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %name, "{line}");
            }
        });
    }
    let timeout = options.connect_timeout;
    let service = match tokio::time::timeout(timeout, ().serve(transport)).await {
        Ok(Ok(service)) => service,
        Ok(Err(error)) => return Err(format!("the server did not initialise: {error}")),
        Err(_) => return Err(format!("the server did not initialise within {} ms", timeout.as_millis())),
    };
    let capabilities = service.peer().peer_info().map(|info| info.capabilities.clone()).unwrap_or_default();
    let tools = if capabilities.tools.is_some() {
        match tokio::time::timeout(timeout, service.peer().list_all_tools()).await {
            Ok(Ok(tools)) => tools.iter().filter_map(|tool| serde_json::to_value(tool).ok()).collect(),
            Ok(Err(error)) => {
                let _ = service.cancel().await;
                return Err(format!("tools/list failed: {error}"));
            }
            Err(_) => {
                let _ = service.cancel().await;
                return Err(format!("tools/list did not answer within {} ms", timeout.as_millis()));
            }
        }
    } else {
        Vec::new()
    };
    let connection = ServerConnection {
        name: server.name.clone(),
        has_resources: capabilities.resources.is_some(),
        peer: service.peer().clone(),
    };
    Ok((service, connection, tools))
}
