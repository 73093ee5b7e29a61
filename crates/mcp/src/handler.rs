//! Our side of the conversation: what we tell servers we can do, and how we answer their
//! requests and notifications (rmcp's [`ClientHandler`]).
//!
//! - `roots`: declared when [`McpOptions::roots`] is not empty; `roots/list` answers them as
//!   `file://` URIs (Claude Code declares roots and answers with its working directory, which
//!   is what a host passes);
//! - `elicitation` (form mode): declared only when an [`Elicitor`] is given, which answers each
//!   `elicitation/create`; without one, a request gets a JSON-RPC error saying so;
//! - `sampling`: declared only when a [`Sampler`] is given; without one, a
//!   `sampling/createMessage` gets a JSON-RPC error saying sampling is not available;
//! - `notifications/resources/updated` go to [`crate::McpSession::resource_updates`];
//! - `notifications/message` go to `tracing::debug`, `notifications/progress` to the call
//!   that asked for them, `notifications/tools/list_changed` re-list the server's tools.
//!
//! [`McpOptions::roots`]: crate::McpOptions::roots

// Roots, sampling and logging are marked deprecated by SEP-2577 in rmcp; the protocol versions
// servers speak today (2025-11-25 and before) still have them, and Claude Code uses them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use futures_util::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ErrorCode, Implementation, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, Root,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

use crate::client::ServerConnection;

/// Answers a server's `elicitation/create` (form mode) — in Claude Code, the dialog that asks
/// the user. Given in [`crate::McpOptions::elicitor`]; only then is the `elicitation`
/// capability declared.
pub trait Elicitor: Send + Sync {
    /// Asks for what `params` describes on behalf of the server named `server` (its configured
    /// name), and returns the user's answer (`accept` with content, `decline` or `cancel`).
    fn elicit<'a>(&'a self, server: &'a str, params: ElicitRequestParams) -> BoxFuture<'a, ElicitResult>;
}

/// Answers a server's `sampling/createMessage` with a model's reply. Given in
/// [`crate::McpOptions::sampler`]; only then is the `sampling` capability declared.
pub trait Sampler: Send + Sync {
    /// Samples for the server named `server`.
    ///
    /// # Errors
    /// A message sent back to the server as the JSON-RPC error of its request.
    fn sample<'a>(
        &'a self,
        server: &'a str,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>>;
}

/// The message of the error a `sampling/createMessage` gets without a [`Sampler`].
pub const SAMPLING_UNAVAILABLE: &str = "sampling is not available in this session";
/// The message of the error an `elicitation/create` gets without an [`Elicitor`].
pub const ELICITATION_UNAVAILABLE: &str = "elicitation is not available in this session";

/// Where one call's progress notifications go.
pub(crate) type ProgressRoute = Arc<dyn Fn(&ProgressNotificationParam) + Send + Sync>;

/// The calls waiting for progress, by their progress token; shared by every connection
/// attempt of one server.
#[derive(Default, Clone)]
pub(crate) struct ProgressRoutes(Arc<Mutex<HashMap<ProgressToken, ProgressRoute>>>);

impl ProgressRoutes {
    /// Routes `token`'s notifications to `route` until the guard is dropped.
    pub(crate) fn add(&self, token: ProgressToken, route: ProgressRoute) -> RouteGuard {
        if let Ok(mut routes) = self.0.lock() {
            routes.insert(token.clone(), route);
        }
        RouteGuard { routes: self.clone(), token }
    }

    fn dispatch(&self, params: &ProgressNotificationParam) {
        let route = self.0.lock().ok().and_then(|routes| routes.get(&params.progress_token).cloned());
        if let Some(route) = route {
            route(params);
        }
    }
}

/// Removes a progress route when dropped.
pub(crate) struct RouteGuard {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        if let Ok(mut routes) = self.routes.0.lock() {
            routes.remove(&self.token);
        }
    }
}

/// Which connection a handler serves: unknown while the first connection is being made, when
/// a `tools/list_changed` is only remembered (and acted on once the connection is known).
#[derive(Default)]
pub(crate) struct Slot {
    connection: Option<Weak<ServerConnection>>,
    pending_refresh: bool,
}

/// What every connection attempt of one server shares.
pub(crate) struct HandlerShared {
    server: String,
    info: ClientConfig,
    roots: Vec<Root>,
    elicitor: Option<Arc<dyn Elicitor>>,
    sampler: Option<Arc<dyn Sampler>>,
    pub(crate) progress: ProgressRoutes,
    slot: Mutex<Slot>,
    updates: tokio::sync::broadcast::Sender<crate::ResourceUpdate>,
}

impl HandlerShared {
    pub(crate) fn new(
        server: &str,
        roots: &[std::path::PathBuf],
        elicitor: Option<Arc<dyn Elicitor>>,
        sampler: Option<Arc<dyn Sampler>>,
        updates: tokio::sync::broadcast::Sender<crate::ResourceUpdate>,
    ) -> Arc<Self> {
        let mut capabilities = serde_json::json!({});
        if !roots.is_empty() {
            capabilities["roots"] = serde_json::json!({"listChanged": false});
        }
        if elicitor.is_some() {
            capabilities["elicitation"] = serde_json::json!({"form": {}});
        }
        if sampler.is_some() {
            capabilities["sampling"] = serde_json::json!({});
        }
        let capabilities: ClientCapabilities = serde_json::from_value(capabilities).unwrap_or_default();
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info.client_info = Implementation::new("agent-tools", env!("CARGO_PKG_VERSION"));
        Arc::new(Self {
            server: server.to_owned(),
            info,
            roots: roots.iter().filter_map(|path| root(path)).collect(),
            elicitor,
            sampler,
            progress: ProgressRoutes::default(),
            slot: Mutex::new(Slot::default()),
            updates,
        })
    }

    /// Names the connection; returns whether a `tools/list_changed` came before.
    pub(crate) fn bind(&self, connection: &Arc<ServerConnection>) -> bool {
        let Ok(mut slot) = self.slot.lock() else { return false };
        slot.connection = Some(Arc::downgrade(connection));
        std::mem::take(&mut slot.pending_refresh)
    }
}

/// `path` as a root: its `file://` URI, named by its last component.
fn root(path: &Path) -> Option<Root> {
    let url = url::Url::from_file_path(path).ok()?;
    let mut root = Root::new(url.to_string());
    root.name = path.file_name().map(|name| name.to_string_lossy().into_owned());
    Some(root)
}

/// The rmcp handler of one connection attempt.
#[derive(Clone)]
pub(crate) struct Handler(pub(crate) Arc<HandlerShared>);

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.0.info.clone()
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Nobody listening is fine: the update is dropped.
        let _ = self.0.updates.send(crate::ResourceUpdate { server: self.0.server.clone(), uri: params.uri });
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(self.0.roots.clone()))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(elicitor) = &self.0.elicitor else {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, ELICITATION_UNAVAILABLE, None));
        };
        if !matches!(request, ElicitRequestParams::FormElicitationParams { .. }) {
            return Err(ErrorData::invalid_params("only form elicitation is supported by this client", None));
        }
        Ok(elicitor.elicit(&self.0.server, request).await)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(sampler) = &self.0.sampler else {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, SAMPLING_UNAVAILABLE, None));
        };
        sampler.sample(&self.0.server, params).await.map_err(|message| ErrorData::internal_error(message, None))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.0.progress.dispatch(&params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        tracing::debug!(server = %self.0.server, level = ?params.level, logger = ?params.logger, data = %params.data, "MCP server log");
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let connection = {
            let Ok(mut slot) = self.0.slot.lock() else { return };
            match slot.connection.as_ref() {
                Some(connection) => connection.upgrade(),
                None => {
                    slot.pending_refresh = true;
                    None
                }
            }
        };
        if let Some(connection) = connection {
            connection.refresh_tools().await;
        }
    }
}
