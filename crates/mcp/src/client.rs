//! Connecting to the configured servers, keeping their tool lists current, reconnecting remote
//! ones, and ending them: [`connect_all`] and [`McpSession`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use agent_tools_core::ProgressEvent;
use agent_tools_core::{Tool, ToolUseContext};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use serde_json::Value;
use tokio::sync::watch;

use crate::config::{NamedServer, ServerConfig};
use crate::handler::{Elicitor, HandlerShared, Sampler};
use crate::names::{NameAllocator, normalize_name};
use crate::tool::{McpTool, listed_name};
use crate::transform::DEFAULT_MAX_OUTPUT_TOKENS;
use crate::transport::{Service, open};

/// How long a server gets to start and answer `initialize` and `tools/list` (Claude Code's
/// `MCP_TIMEOUT` default, 30 s).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server gets to exit once its stdin is closed, before it is signalled and killed.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(8);

/// Connection attempts when a remote server's connection is found dropped (Claude Code retries
/// remote servers a bounded number of times with a growing delay).
pub const RECONNECT_ATTEMPTS: u32 = 3;

/// The delay before the second reconnection attempt; it doubles for each further one.
pub const RECONNECT_BACKOFF: Duration = Duration::from_millis(250);

/// Time allowed for one reconnection attempt (initialize included), at most the connect
/// timeout.
const RECONNECT_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// The `reason` of the `notifications/cancelled` sent when a call is cancelled.
const CANCEL_REASON: &str = "The user cancelled the tool call";

/// Settings for connecting and calling; the CLI fills them from flags and the environment (this
/// crate never reads the environment).
#[derive(Clone)]
pub struct McpOptions {
    /// Time allowed to start a server and list its tools (default [`DEFAULT_CONNECT_TIMEOUT`];
    /// Claude Code's `MCP_TIMEOUT`).
    pub connect_timeout: Duration,
    /// Time allowed for one `tools/call`; `None` waits until the call is cancelled (Claude Code's
    /// `MCP_TOOL_TIMEOUT`, whose default is about 28 hours). A server's `"timeout"` and
    /// `"toolTimeouts"` ([`NamedServer::tool_timeout`]) come first.
    pub tool_timeout: Option<Duration>,
    /// Estimated tokens past which a tool's output is cut (Claude Code's `MAX_MCP_OUTPUT_TOKENS`,
    /// default 25,000).
    pub max_output_tokens: usize,
    /// The working directory stdio servers are started in (default: the process's).
    pub cwd: Option<PathBuf>,
    /// The roots answered to `roots/list`, as `file://` URIs named by their last component
    /// (absolute paths; others are left out). Claude Code answers its working directory, which is
    /// what a host should pass. The `roots` capability is declared only when this is not empty.
    /// Default: none.
    pub roots: Vec<PathBuf>,
    /// Answers servers' form elicitations; only with one is the `elicitation` capability
    /// declared. Default: none.
    pub elicitor: Option<Arc<dyn Elicitor>>,
    /// Answers servers' `sampling/createMessage`; only with one is the `sampling` capability
    /// declared. Default: none (a request is refused with [`crate::SAMPLING_UNAVAILABLE`]).
    pub sampler: Option<Arc<dyn Sampler>>,
    /// Where OAuth tokens of remote servers are kept (the user's config folder; see
    /// [`agent_tools_mcp_oauth::OAuthStore`]). With one, an `http` server whose tokens are
    /// stored is connected with them (refreshed as needed), and one that answers 401 gets the
    /// `mcp__<server>__authenticate` tool (McpAuth) in place of its tools, which signs in and
    /// then connects it. Default: none (a 401 is only a failure).
    pub oauth: Option<agent_tools_mcp_oauth::OAuthStore>,
    /// Carries the messages of `"type": "sdk"` servers to the SDK host that runs them (Claude
    /// Code's `mcp_message` control request). Default: none (such servers fail to connect).
    pub sdk: Option<Arc<dyn crate::SdkServers>>,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            tool_timeout: None,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            cwd: None,
            roots: Vec::new(),
            elicitor: None,
            sampler: None,
            oauth: None,
            sdk: None,
        }
    }
}

impl std::fmt::Debug for McpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("tool_timeout", &self.tool_timeout)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("cwd", &self.cwd)
            .field("roots", &self.roots)
            .field("elicitor", &self.elicitor.is_some())
            .field("sampler", &self.sampler.is_some())
            .field("oauth", &self.oauth.as_ref().map(agent_tools_mcp_oauth::OAuthStore::dir))
            .field("sdk", &self.sdk.is_some())
            .finish()
    }
}

/// Why a server is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// It could not be started, reached, initialised or listed.
    Failed,
    /// A remote server answered HTTP 401: it needs authentication (OAuth) before it can be
    /// used. `challenge` is its `WWW-Authenticate` header, when it sent one.
    NeedsAuth {
        /// The `WWW-Authenticate` challenge.
        challenge: Option<String>,
    },
    /// Its transport type is not supported (`ws`, …).
    Unsupported,
    /// It was connected, then lost for good (its process ended, or a remote server could not be
    /// reconnected); its tools left the session's list.
    Lost,
}

/// A server's `notifications/resources/updated`: the resource `uri` of `server` changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceUpdate {
    /// The server's configured name.
    pub server: String,
    /// The resource that changed.
    pub uri: String,
}

/// A server that was configured but could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// The configured name.
    pub name: String,
    /// What went wrong, one line (`needs authentication (HTTP 401)` for a 401).
    pub message: String,
    /// What kind of failure it is.
    pub kind: FailureKind,
}

impl ServerFailure {
    pub(crate) fn failed(name: &str, message: impl Into<String>) -> Self {
        Self { name: name.to_owned(), message: message.into(), kind: FailureKind::Failed }
    }

    /// Whether the server needs authentication ([`FailureKind::NeedsAuth`]).
    pub fn needs_auth(&self) -> bool {
        matches!(self.kind, FailureKind::NeedsAuth { .. })
    }
}

/// The current service of a connection, numbered so a stale call cannot drop a newer one.
struct Link {
    generation: u64,
    service: Option<Service>,
}

/// A connection to one server, shared by its tools. A remote (`http`/`sse`) server whose
/// connection dropped is reconnected by the next call that needs it.
pub struct ServerConnection {
    /// The server's configured (raw) name.
    pub name: String,
    /// Whether the server advertised the `resources` capability (when it first connected).
    pub has_resources: bool,
    server: NamedServer,
    connect_timeout: Duration,
    cwd: Option<PathBuf>,
    handler: Arc<HandlerShared>,
    link: tokio::sync::Mutex<Link>,
    listing: tokio::sync::Mutex<()>,
    shut: AtomicBool,
    lost: AtomicBool,
    lost_reason: Mutex<String>,
    session: Weak<Shared>,
}

impl std::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("name", &self.name)
            .field("has_resources", &self.has_resources)
            .finish_non_exhaustive()
    }
}

/// How one `tools/call` went wrong.
pub(crate) enum CallError {
    /// The call's cancellation token fired (`notifications/cancelled` was sent).
    Cancelled,
    /// The time limit passed (`notifications/cancelled` was sent).
    Timeout(Duration),
    /// Anything else, in words.
    Failed(String),
}

impl ServerConnection {
    fn is_remote(&self) -> bool {
        matches!(self.server.config, ServerConfig::Http { .. } | ServerConfig::Sse { .. })
    }

    /// The time allowed for one call of the raw tool `tool` (see [`NamedServer::tool_timeout`]).
    pub(crate) fn tool_timeout(&self, tool: &str, default: Option<Duration>) -> Option<Duration> {
        self.server.tool_timeout(tool, default)
    }

    /// The live peer, reconnecting a remote server whose connection dropped (bounded attempts
    /// with backoff). A stdio server whose process ended, or a remote one that cannot be
    /// reconnected, is lost for good: its tools leave the session.
    ///
    /// # Errors
    /// A one-line reason naming the server.
    pub(crate) async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        self.peer_with_generation().await.map(|(peer, _)| peer)
    }

    async fn peer_with_generation(&self) -> Result<(Peer<RoleClient>, u64), String> {
        let name = &self.name;
        if self.shut.load(Ordering::SeqCst) {
            return Err("not connected (the session ended)".to_owned());
        }
        let mut link = self.link.lock().await;
        if let Some(service) = &link.service
            && !service.is_closed()
        {
            return Ok((service.peer().clone(), link.generation));
        }
        if let Some(service) = link.service.take() {
            service.cancellation_token().cancel();
        }
        if self.lost.load(Ordering::SeqCst) {
            return Err(format!("not connected (lost: {})", self.lost_reason()));
        }
        if !self.is_remote() {
            drop(link);
            let message = "its process ended".to_owned();
            self.mark_lost(&message);
            return Err(format!("not connected: {message}"));
        }
        let mut last = String::new();
        for attempt in 0..RECONNECT_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(RECONNECT_BACKOFF * 2u32.pow(attempt - 1)).await;
            }
            let timeout = self.connect_timeout.min(RECONNECT_ATTEMPT_TIMEOUT);
            let options = self.session.upgrade().map(|shared| shared.options.clone()).unwrap_or_default();
            match open(&self.server, &self.handler, timeout, self.cwd.as_deref(), &options).await {
                Ok(service) => {
                    tracing::debug!(server = %name, attempt, "MCP server reconnected");
                    let peer = service.peer().clone();
                    link.generation += 1;
                    link.service = Some(service);
                    let generation = link.generation;
                    drop(link);
                    // The server may list other tools now; names of the ones that stay are kept.
                    if let Some(connection) = self.session.upgrade().and_then(|shared| shared.connection(name)) {
                        tokio::spawn(async move { connection.refresh_tools().await });
                    }
                    return Ok((peer, generation));
                }
                Err(failure) => last = failure.message,
            }
        }
        drop(link);
        let message = format!("could not reconnect after {RECONNECT_ATTEMPTS} attempts: {last}");
        self.mark_lost(&message);
        Err(format!("not connected and {message}"))
    }

    /// Drops the service of `generation` (its transport failed), so the next call reconnects.
    async fn invalidate(&self, generation: u64) {
        let mut link = self.link.lock().await;
        if link.generation == generation
            && let Some(service) = link.service.take()
        {
            service.cancellation_token().cancel();
        }
    }

    fn lost_reason(&self) -> String {
        self.lost_reason.lock().map(|reason| reason.clone()).unwrap_or_default()
    }

    fn mark_lost(&self, message: &str) {
        if let Ok(mut reason) = self.lost_reason.lock() {
            message.clone_into(&mut reason);
        }
        if self.lost.swap(true, Ordering::SeqCst) {
            return;
        }
        tracing::warn!(server = %self.name, message, "MCP server lost");
        if let Some(shared) = self.session.upgrade() {
            shared.lose(&self.name, message);
        }
    }

    /// Closes the connection for good (a stdio server's stdin is closed, it is waited for, and
    /// signalled and killed if it lingers); it is never reconnected.
    pub(crate) async fn close(&self) {
        self.shut.store(true, Ordering::SeqCst);
        let service = self.link.lock().await.service.take();
        if let Some(mut service) = service
            && let Err(error) = service.close_with_timeout(SHUTDOWN_TIMEOUT).await
        {
            tracing::warn!(%error, server = %self.name, "an MCP server connection did not close cleanly");
        }
    }

    /// Re-lists the server's tools and updates the session's list (after
    /// `notifications/tools/list_changed`, or a reconnection). Listings run one at a time, so
    /// the newest listing is the one kept. A failure keeps the old list.
    pub(crate) async fn refresh_tools(self: &Arc<Self>) {
        let _one_at_a_time = self.listing.lock().await;
        let peer = {
            let link = self.link.lock().await;
            match &link.service {
                Some(service) if !service.is_closed() => service.peer().clone(),
                _ => return,
            }
        };
        match tokio::time::timeout(self.connect_timeout, peer.list_all_tools()).await {
            Ok(Ok(tools)) => {
                let listed: Vec<Value> = tools.iter().filter_map(|tool| serde_json::to_value(tool).ok()).collect();
                if let Some(shared) = self.session.upgrade() {
                    shared.set_tools(self, listed);
                }
            }
            Ok(Err(error)) => tracing::debug!(server = %self.name, %error, "tools/list after list_changed failed"),
            Err(_) => tracing::debug!(server = %self.name, "tools/list after list_changed timed out"),
        }
    }

    /// Calls the raw tool of `params` within `timeout`, passing the server's progress to
    /// `ctx`'s progress sink as `tool_name`'s progress, and sending `notifications/cancelled`
    /// when `ctx.cancel` fires or the time is up (the connection stays usable). A call whose
    /// message could not be delivered because the connection dropped is retried once, after
    /// reconnecting.
    pub(crate) async fn call_tool(
        &self,
        params: CallToolRequestParams,
        timeout: Option<Duration>,
        ctx: &ToolUseContext,
        tool_name: &str,
    ) -> Result<CallToolResult, CallError> {
        let mut retried = false;
        loop {
            let (peer, generation) = tokio::select! {
                () = ctx.cancel.cancelled() => return Err(CallError::Cancelled),
                peer = self.peer_with_generation() => peer.map_err(CallError::Failed)?,
            };
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            let mut handle = match peer.send_cancellable_request(request, PeerRequestOptions::no_options()).await {
                Ok(handle) => handle,
                Err(error) => {
                    self.invalidate(generation).await;
                    if self.is_remote() && !retried {
                        retried = true;
                        continue;
                    }
                    return Err(CallError::Failed(format!("not connected: {error}")));
                }
            };
            let _route = ctx.progress.clone().map(|sink| {
                let tool_use_id = ctx.tool_use_id.clone().unwrap_or_default();
                let (server, tool, name) = (self.name.clone(), params.name.to_string(), tool_name.to_owned());
                self.handler.progress.add(
                    handle.progress_token.clone(),
                    Arc::new(move |progress| {
                        let data = serde_json::json!({
                            "type": "mcp_progress",
                            "status": "progress",
                            "serverName": server,
                            "toolName": tool,
                            "progress": progress.progress,
                            "total": progress.total,
                            "progressMessage": progress.message,
                        });
                        sink(ProgressEvent { tool_use_id: tool_use_id.clone(), tool_name: name.clone(), data });
                    }),
                )
            });
            enum Ended {
                Cancelled,
                Timeout(Duration),
                Answer(Box<Result<Result<ServerResult, ServiceError>, tokio::sync::oneshot::error::RecvError>>),
            }
            let limit = async {
                match timeout {
                    Some(limit) => {
                        tokio::time::sleep(limit).await;
                        limit
                    }
                    None => std::future::pending().await,
                }
            };
            let ended = tokio::select! {
                () = ctx.cancel.cancelled() => Ended::Cancelled,
                limit = limit => Ended::Timeout(limit),
                answer = &mut handle.rx => Ended::Answer(Box::new(answer)),
            };
            let answer = match ended {
                Ended::Cancelled => {
                    // Sent in the background: the call ends now, whatever the transport does.
                    tokio::spawn(handle.cancel(Some(CANCEL_REASON.to_owned())));
                    return Err(CallError::Cancelled);
                }
                Ended::Timeout(limit) => {
                    let reason = format!("timed out after {} ms", limit.as_millis());
                    tokio::spawn(handle.cancel(Some(reason)));
                    return Err(CallError::Timeout(limit));
                }
                Ended::Answer(answer) => answer,
            };
            // Progress notifications are handled on tasks of their own: let those queued before
            // the answer reach the sink before the route goes.
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
            return match *answer {
                Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
                Ok(Ok(_)) => {
                    Err(CallError::Failed("the server's answer to tools/call is not a tool result".to_owned()))
                }
                Ok(Err(ServiceError::TransportSend(error))) => {
                    self.invalidate(generation).await;
                    if self.is_remote() && !retried {
                        // The message never reached the server: send it again once, reconnected.
                        retried = true;
                        continue;
                    }
                    Err(CallError::Failed(format!("the connection to the server failed: {}", error.error)))
                }
                Ok(Err(ServiceError::McpError(error))) => Err(CallError::Failed(error.message.to_string())),
                Ok(Err(error)) => Err(CallError::Failed(error.to_string())),
                Err(_closed) => {
                    self.invalidate(generation).await;
                    Err(CallError::Failed("the connection to the server was lost during the call".to_owned()))
                }
            };
        }
    }
}

/// The session's current connections, for the resource tools (which outlive no session).
#[derive(Clone)]
pub(crate) struct Connections(Weak<Shared>);

impl Connections {
    /// The connected servers now, in configuration order.
    pub(crate) fn list(&self) -> Vec<Arc<ServerConnection>> {
        self.0.upgrade().map(|shared| shared.connections()).unwrap_or_default()
    }
}

/// What a session's connections and tools share.
pub(crate) struct Shared {
    options: McpOptions,
    state: Mutex<State>,
    changes: watch::Sender<u64>,
    updates: tokio::sync::broadcast::Sender<ResourceUpdate>,
    version: AtomicU64,
    resource_tools: Vec<Arc<dyn Tool>>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) names: NameAllocator,
    /// (server, raw tool) → listed name, kept for the session so a tool keeps its name.
    pub(crate) assigned: HashMap<(String, String), String>,
    pub(crate) servers: Vec<Arc<ServerConnection>>,
    pub(crate) listed: HashMap<String, Vec<Value>>,
    pub(crate) tools: HashMap<String, Vec<Arc<dyn Tool>>>,
    pub(crate) failures: Vec<ServerFailure>,
    /// The McpAuth tool of each server waiting to be signed in to, by server name.
    pub(crate) sign_ins: Vec<(String, Arc<dyn Tool>)>,
    /// Every server configured, connected or not, so one can be connected again.
    pub(crate) configured: Vec<NamedServer>,
    /// The servers switched off ([`McpSession::disable_server`]), by name.
    pub(crate) disabled: Vec<String>,
    /// The servers [`McpSession::set_dynamic_servers`] added last.
    pub(crate) dynamic: Vec<NamedServer>,
}

impl Shared {
    fn new(options: McpOptions) -> Arc<Self> {
        Arc::new_cyclic(|weak: &Weak<Shared>| {
            let mut names = NameAllocator::new();
            names.reserve(crate::resources::LIST_MCP_RESOURCES);
            names.reserve(crate::resources::READ_MCP_RESOURCE);
            Shared {
                options,
                state: Mutex::new(State { names, ..State::default() }),
                changes: watch::channel(0).0,
                updates: tokio::sync::broadcast::channel(64).0,
                version: AtomicU64::new(0),
                resource_tools: crate::resources::tools(Connections(weak.clone())),
            }
        })
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn bump(&self) {
        let version = self.version.fetch_add(1, Ordering::SeqCst) + 1;
        self.changes.send_replace(version);
    }

    fn connections(&self) -> Vec<Arc<ServerConnection>> {
        self.lock().servers.clone()
    }

    pub(crate) fn connection(&self, name: &str) -> Option<Arc<ServerConnection>> {
        self.lock().servers.iter().find(|connection| connection.name == name).cloned()
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let state = self.lock();
        let mut tools: Vec<Arc<dyn Tool>> = state
            .servers
            .iter()
            .flat_map(|connection| state.tools.get(&connection.name).cloned().unwrap_or_default())
            .collect();
        tools.extend(state.sign_ins.iter().map(|(_, tool)| Arc::clone(tool)));
        if state.servers.iter().any(|connection| connection.has_resources) {
            tools.extend(self.resource_tools.iter().cloned());
        }
        tools
    }

    /// Offers `mcp__<server>__authenticate` for an `http` server that answered 401, when the
    /// session keeps OAuth tokens; once signed in, the tool connects the server and leaves.
    fn offer_sign_in(self: &Arc<Self>, server: &NamedServer, challenge: Option<String>) {
        let (Some(store), ServerConfig::Http { url, .. }) = (&self.options.oauth, &server.config) else {
            return;
        };
        let weak = Arc::downgrade(self);
        let named = server.clone();
        let on_authorized: agent_tools_mcp_auth::OnAuthorized = Arc::new(move || {
            let weak = weak.clone();
            let server = named.clone();
            Box::pin(async move {
                let shared = weak.upgrade().ok_or_else(|| "the session has ended".to_owned())?;
                let (connection, listed) = establish(&shared, &server).await.map_err(|failure| failure.message)?;
                shared.lock().sign_ins.retain(|(name, _)| *name != server.name);
                register(&shared, &connection, listed).await;
                Ok(())
            })
        });
        let mut state = self.lock();
        if state.sign_ins.iter().any(|(name, _)| *name == server.name) {
            return;
        }
        let key = (server.name.clone(), agent_tools_mcp_auth::TOOL_SUFFIX.to_owned());
        let tool_name = match state.assigned.get(&key) {
            Some(name) => name.clone(),
            None => {
                let name = state.names.allocate(&server.name, agent_tools_mcp_auth::TOOL_SUFFIX);
                state.assigned.insert(key, name.clone());
                name
            }
        };
        let options = agent_tools_mcp_oauth::AuthorizeOptions { challenge, ..Default::default() };
        let tool = agent_tools_mcp_auth::tool(agent_tools_mcp_auth::McpAuthConfig {
            tool_name,
            server_name: server.name.clone(),
            target: agent_tools_mcp_auth::AuthTarget::Http { url: url.clone(), store: store.clone(), options },
            on_authorized,
        });
        state.sign_ins.push((server.name.clone(), tool));
    }

    /// Adds a connected server with its first listing (names are handed out in listing order).
    fn add(&self, connection: &Arc<ServerConnection>, listed: Vec<Value>) {
        {
            let mut state = self.lock();
            state.failures.retain(|failure| failure.name != connection.name);
            state.servers.retain(|known| known.name != connection.name);
            state.servers.push(Arc::clone(connection));
            let tools = self.build(&mut state, connection, &listed);
            state.tools.insert(connection.name.clone(), tools);
            state.listed.insert(connection.name.clone(), listed);
        }
        self.bump();
    }

    /// Replaces a server's tools after a new listing; nothing changes (and no signal) when the
    /// listing is the same or the server is no longer in the session.
    fn set_tools(&self, connection: &Arc<ServerConnection>, listed: Vec<Value>) {
        {
            let mut state = self.lock();
            if !state.servers.iter().any(|known| Arc::ptr_eq(known, connection)) {
                return;
            }
            if state.listed.get(&connection.name) == Some(&listed) {
                return;
            }
            let tools = self.build(&mut state, connection, &listed);
            tracing::debug!(server = %connection.name, tools = tools.len(), "MCP tool list changed");
            state.tools.insert(connection.name.clone(), tools);
            state.listed.insert(connection.name.clone(), listed);
        }
        self.bump();
    }

    fn build(&self, state: &mut State, connection: &Arc<ServerConnection>, listed: &[Value]) -> Vec<Arc<dyn Tool>> {
        let mut tools = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for tool in listed {
            let raw = listed_name(tool);
            if !seen.insert(raw.to_owned()) {
                continue; // a server listing a name twice gets it once
            }
            let key = (connection.name.clone(), raw.to_owned());
            let name = match state.assigned.get(&key) {
                Some(name) => name.clone(),
                None => {
                    let name = state.names.allocate(&connection.name, raw);
                    if !name.ends_with(&format!("__{}", normalize_name(raw))) {
                        tracing::debug!(server = %connection.name, tool = raw, %name, "MCP tool name shortened or made unique");
                    }
                    state.assigned.insert(key, name.clone());
                    name
                }
            };
            tools.push(agent_tools_core::build_tool(McpTool::new(Arc::clone(connection), name, tool, &self.options)));
        }
        tools
    }

    fn lose(&self, name: &str, message: &str) {
        {
            let mut state = self.lock();
            state.servers.retain(|connection| connection.name != name);
            state.tools.remove(name);
            state.listed.remove(name);
            state.failures.push(ServerFailure {
                name: name.to_owned(),
                message: message.to_owned(),
                kind: FailureKind::Lost,
            });
        }
        self.bump();
    }
}

/// The MCP side of a session: the connected servers, their tools (plus the resource tools when
/// a server offers resources), and the servers that failed. The tool list changes as servers
/// say theirs changed, are lost or are added: [`McpSession::changes`] tells when.
///
/// End it with [`McpSession::shutdown`]: each stdio server's stdin is closed and it is waited
/// for, then signalled and killed if it lingers. Dropping it without that still ends the
/// servers, but in the background of the Tokio runtime (which must still be running).
pub struct McpSession {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for McpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("McpSession")
            .field("connections", &state.servers.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())
            .field("tools", &state.tools.values().map(Vec::len).sum::<usize>())
            .field("failures", &state.failures)
            .finish()
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        for connection in self.shared.connections() {
            connection.shut.store(true, Ordering::SeqCst);
            if let Ok(mut link) = connection.link.try_lock()
                && let Some(service) = link.service.take()
            {
                service.cancellation_token().cancel();
            }
        }
    }
}

impl McpSession {
    /// A session with no servers (what a run without MCP configuration gets; no rmcp work).
    pub fn empty() -> Self {
        Self::with_options(McpOptions::default())
    }

    fn with_options(options: McpOptions) -> Self {
        Self { shared: Shared::new(options) }
    }

    /// The current tools: every tool of every connected server (`mcp__<server>__<tool>`), then
    /// `ListMcpResourcesTool` and `ReadMcpResourceTool` when any server offers resources. Pass
    /// them to the host's `assemble_tool_pool`, which sorts them and applies deny rules; call
    /// again after [`Self::changes`] signals. A tool that stays keeps its name.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.shared.tools()
    }

    /// A receiver whose value (a counter) goes up whenever [`Self::tools`] changes: a server's
    /// `notifications/tools/list_changed` with a different listing, a server lost for good, a
    /// server added ([`Self::add_server`]). Await `changed()` on it, then read `tools()`.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// The `notifications/resources/updated` of every server, from now on, as
    /// [`ResourceUpdate`]s (a receiver that falls more than 64 behind loses the oldest).
    pub fn resource_updates(&self) -> tokio::sync::broadcast::Receiver<ResourceUpdate> {
        self.shared.updates.subscribe()
    }

    /// Asks `server` to tell of changes to the resource `uri` (`resources/subscribe`); they come
    /// through [`Self::resource_updates`]. (Claude Code's tools do not subscribe; this is for a
    /// program using the session.)
    ///
    /// # Errors
    /// No such server, a server without the `resources.subscribe` capability, or its error.
    pub async fn subscribe(&self, server: &str, uri: &str) -> Result<(), String> {
        let peer = self.subscribable(server).await?;
        #[allow(deprecated, reason = "resources/subscribe is the 2025-11-25 way, which servers speak")]
        let params = rmcp::model::SubscribeRequestParams::new(uri);
        #[allow(deprecated, reason = "resources/subscribe is the 2025-11-25 way, which servers speak")]
        peer.subscribe(params).await.map_err(|error| format!("resources/subscribe failed: {error}"))
    }

    /// Stops the updates of [`Self::subscribe`] (`resources/unsubscribe`).
    ///
    /// # Errors
    /// As [`Self::subscribe`].
    pub async fn unsubscribe(&self, server: &str, uri: &str) -> Result<(), String> {
        let peer = self.subscribable(server).await?;
        #[allow(deprecated, reason = "resources/unsubscribe is the 2025-11-25 way, which servers speak")]
        let params = rmcp::model::UnsubscribeRequestParams::new(uri);
        #[allow(deprecated, reason = "resources/unsubscribe is the 2025-11-25 way, which servers speak")]
        peer.unsubscribe(params).await.map_err(|error| format!("resources/unsubscribe failed: {error}"))
    }

    async fn subscribable(&self, server: &str) -> Result<Peer<RoleClient>, String> {
        let connection =
            self.shared.connection(server).ok_or_else(|| format!("no connected MCP server is named {server:?}"))?;
        let peer = connection.peer().await?;
        let subscribes = peer
            .peer_info()
            .and_then(|info| info.capabilities.resources.as_ref().and_then(|resources| resources.subscribe))
            .unwrap_or(false);
        if !subscribes {
            return Err(format!("MCP server {server:?} does not offer resource subscriptions"));
        }
        Ok(peer)
    }

    /// The connected servers, in configuration order (then in the order they were added).
    pub fn connections(&self) -> Vec<Arc<ServerConnection>> {
        self.shared.connections()
    }

    /// The servers that could not be used (failed to start, to initialise, need
    /// authentication, an unsupported transport) or were lost, in configuration order, then in
    /// the order they were lost.
    pub fn failures(&self) -> Vec<ServerFailure> {
        self.shared.lock().failures.clone()
    }

    /// Connects one more server (or, after it failed or was lost, that server again — e.g. once
    /// it has been authenticated) and adds its tools; [`Self::changes`] signals.
    ///
    /// # Errors
    /// The failure, also recorded in [`Self::failures`] (replacing an earlier one of the same
    /// server); a server of that name that is connected already is refused.
    pub async fn add_server(&self, server: &NamedServer) -> Result<(), ServerFailure> {
        if self.shared.connection(&server.name).is_some() {
            return Err(ServerFailure::failed(&server.name, "a server of this name is connected already"));
        }
        {
            let mut state = self.shared.lock();
            state.disabled.retain(|name| *name != server.name);
            state.configured.retain(|known| known.name != server.name);
            state.configured.push(server.clone());
        }
        match establish(&self.shared, server).await {
            Ok((connection, listed)) => {
                register(&self.shared, &connection, listed).await;
                Ok(())
            }
            Err(failure) => {
                if let FailureKind::NeedsAuth { challenge } = &failure.kind {
                    self.shared.offer_sign_in(server, challenge.clone());
                }
                let mut state = self.shared.lock();
                state.failures.retain(|known| known.name != failure.name);
                state.failures.push(failure.clone());
                Err(failure)
            }
        }
    }

    /// Ends every server: closes each connection (a stdio server's stdin is closed, it is
    /// waited for, and signalled and killed if it lingers). Idempotent; the tools fail with a
    /// "not connected" error afterwards, and are never reconnected.
    pub async fn shutdown(&self) {
        let connections = self.shared.connections();
        let closing = connections.iter().map(|connection| connection.close());
        futures_util::future::join_all(closing).await;
    }
}

/// Connects to every server of `servers` at once, each within `options.connect_timeout`, and
/// lists its tools, named as [`crate::names`] says (unique, at most 64 characters): stdio
/// servers as child processes, `http` ones over Streamable HTTP and `sse` ones over the legacy
/// HTTP+SSE transport, with their headers. A server that fails to start, to connect (a 401 is
/// [`FailureKind::NeedsAuth`]), to initialise or to list its tools, or that uses another
/// transport, is recorded in [`McpSession::failures`] and skipped: it is never fatal (Claude
/// Code shows such servers as failed and goes on).
pub async fn connect_all(servers: &[NamedServer], options: &McpOptions) -> McpSession {
    let session = McpSession::with_options(options.clone());
    session.shared.lock().configured = servers.to_vec();
    let attempts = servers.iter().map(|server| establish(&session.shared, server));
    let outcomes = futures_util::future::join_all(attempts).await;
    // Names are handed out in configuration and listing order, so the same servers always get
    // the same names, each unique and within the API's 64 characters.
    for (server, outcome) in servers.iter().zip(outcomes) {
        match outcome {
            Ok((connection, listed)) => register(&session.shared, &connection, listed).await,
            Err(failure) => {
                if let FailureKind::NeedsAuth { challenge } = &failure.kind {
                    session.shared.offer_sign_in(server, challenge.clone());
                }
                session.shared.lock().failures.push(failure);
            }
        }
    }
    session
}

/// Adds a connection to the session and binds its handler; a `tools/list_changed` that came
/// while it was connecting is acted on now.
async fn register(shared: &Arc<Shared>, connection: &Arc<ServerConnection>, listed: Vec<Value>) {
    shared.add(connection, listed);
    if connection.handler.bind(connection) {
        connection.refresh_tools().await;
    }
}

/// Connects `server`, initialises it and lists its tools.
async fn establish(
    shared: &Arc<Shared>,
    server: &NamedServer,
) -> Result<(Arc<ServerConnection>, Vec<Value>), ServerFailure> {
    let options = &shared.options;
    let handler = HandlerShared::new(
        &server.name,
        &options.roots,
        options.elicitor.clone(),
        options.sampler.clone(),
        shared.updates.clone(),
    );
    let timeout = options.connect_timeout;
    let service = open(server, &handler, timeout, options.cwd.as_deref(), options).await?;
    let capabilities = service.peer().peer_info().map(|info| info.capabilities.clone()).unwrap_or_default();
    let listed = if capabilities.tools.is_some() {
        match tokio::time::timeout(timeout, service.peer().list_all_tools()).await {
            Ok(Ok(tools)) => tools.iter().filter_map(|tool| serde_json::to_value(tool).ok()).collect(),
            Ok(Err(error)) => {
                let _ = service.cancel().await;
                return Err(ServerFailure::failed(&server.name, format!("tools/list failed: {error}")));
            }
            Err(_) => {
                let _ = service.cancel().await;
                return Err(ServerFailure::failed(
                    &server.name,
                    format!("tools/list did not answer within {} ms", timeout.as_millis()),
                ));
            }
        }
    } else {
        Vec::new()
    };
    let connection = Arc::new(ServerConnection {
        name: server.name.clone(),
        has_resources: capabilities.resources.is_some(),
        server: server.clone(),
        connect_timeout: timeout,
        cwd: options.cwd.clone(),
        handler,
        link: tokio::sync::Mutex::new(Link { generation: 0, service: Some(service) }),
        listing: tokio::sync::Mutex::new(()),
        shut: AtomicBool::new(false),
        lost: AtomicBool::new(false),
        lost_reason: Mutex::new(String::new()),
        session: Arc::downgrade(shared),
    });
    Ok((connection, listed))
}
