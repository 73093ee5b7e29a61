//! # agent-tools-mcp-server: a session's tool pool as an MCP server
//!
//! What `agent-tools serve` runs, as a library: [`ToolServer`] serves any
//! [`Session`] — the full pool, or one a program assembled itself —
//! over rmcp, and [`serve_stdio`] runs it on standard input and output. (rmcp keeps client and
//! server in one crate; here the MCP client is `agent-tools-mcp`, which the session uses to reach
//! other servers, and this crate sits above the session it serves, so the two cannot be one.)
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use agent_tools_host::{Environment, Session};
//! use rmcp::ServerHandler as _;
//! let project = tempfile::tempdir()?;
//! let session = Arc::new(Session::builder(project.path()).environment(Environment::empty()).build().await?);
//! let server = agent_tools_mcp_server::ToolServer::new(Arc::clone(&session)).await;
//! assert!(server.tools().iter().any(|tool| tool.name == "Grep"));
//! assert!(server.session().is_some());
//! assert_eq!(server.get_info().server_info.name, "agent-tools");
//! session.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! - `tools/list` gives each tool's name, description (its model-facing prompt), input schema and
//!   annotations from its [`ToolFlags`](agent_tools_core::ToolFlags): `readOnlyHint` only when
//!   read-only for every input, `destructiveHint` when some input may destroy, `openWorldHint`
//!   when it reaches the network or external processes.
//! - `tools/call` runs the call through the same executor as `run` (parse, validate, permissions,
//!   call) and returns the rendered `tool_result` content (text and images), `isError` for error
//!   results, and the tool's output object as `structuredContent`. What a tool adds to the
//!   conversation beside its result (Read's PDF documents and page images) follows as more content:
//!   an MCP client has no other way to see it. An unknown tool is an error result naming it, not a
//!   protocol error. ToolSearch's `tool_reference` blocks, which only the Messages API can expand,
//!   become text parts holding each tool's definition (description and input schema); and since
//!   `tools/list` gave the client every schema, no input error carries the "load it with
//!   ToolSearch first" hint.
//! - One session per server: the file-read state, the working directory and the permission mode
//!   carry over from call to call. Concurrency-safe calls run side by side on a snapshot of the
//!   session, and their context change (EnterPlanMode's switch to plan mode) applies to the
//!   session when they finish; any other call runs alone and its context change (e.g. Bash's
//!   `cd`) applies before the next one.
//! - A background task that finished since the previous call (Bash's `run_in_background`) is
//!   reported after the next call's result, as an extra text part holding its
//!   `<task-notification>`. The server's tasks are stopped when it exits.
//! - Questions (permission questions, AskUserQuestion's form, ExitPlanMode's plan) go to the
//!   client's user through form elicitation when the client declares it, in either protocol era:
//!   under 2025-xx (`initialize`), from the capabilities it declared there, as `elicitation/create`
//!   requests; under 2026-07-28, from the capabilities each request carries in its `_meta`, as
//!   multi round-trip `InputRequiredResult`s (the private `rounds` module). A client without it
//!   gets a refusal the model can act on.
//! - Every line from the client gets an answer or a log line (the private `transport` module):
//!   one that is not JSON gets `-32700`, one that is not a message `-32600`, a protocol request
//!   whose params do not fit (`tools/call` whose `arguments` is not an object, or without
//!   `name`) `-32602`.
//! - Logs go to stderr only; stdout carries nothing but the protocol.

pub mod elicitation;
pub mod events;
pub mod forward;
pub mod http;
mod logging;
pub mod progress;
pub mod questions;
mod rounds;
mod transport;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_tools_core::CancellationToken;
use agent_tools_core::Invocation;
use agent_tools_core::{ContentBlock as AnyBlock, KnownBlock, Message, MessageContent, ToolUseBlock};
use agent_tools_core::{ContentPart, PromptOptions, Tool, ToolResultContent};
use agent_tools_host::{CallOptions, PermissionPrompter, Session};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ResourceContents, ServerCapabilities, ServerConfig,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

pub use elicitation::ElicitationPrompter;
pub use forward::ClientElicitor;

/// The MCP server of a session: its `tools/list` entries (built once), the session, and the
/// calls waiting for a 2026-07-28 client to answer a question. Cloning it shares them all (a
/// call asking under 2026-07-28 runs on a task of its own).
#[derive(Clone)]
pub struct ToolServer {
    /// This MCP session's session and listing: set at once for [`ToolServer::new`], opened at
    /// the first request that needs it for a server of [`http`].
    served: Arc<tokio::sync::OnceCell<Served>>,
    /// How an HTTP server opens sessions, and the one its stateless requests share.
    opener: Option<Arc<http::Opener>>,
    calls: Arc<AtomicU64>,
    rounds: Arc<rounds::Rounds>,
    log: Arc<logging::Log>,
    /// Whether this MCP session's pool is watched for changes (once, at its first request).
    watching: Arc<std::sync::atomic::AtomicBool>,
}

/// A session and its `tools/list` entries, described again whenever the session's pool
/// changes (its MCP servers' tools changed).
#[derive(Clone)]
pub(crate) struct Served {
    session: Arc<Session>,
    listing: Arc<std::sync::Mutex<Listing>>,
    /// Passes the session's own MCP servers' questions on to this server's client.
    forward: Option<Arc<ClientElicitor>>,
    /// Whether several clients share this session (stateless 2026-07-28 requests over HTTP):
    /// each call then runs isolated ([`CallOptions::isolated`]), and no "allow for the rest of
    /// this session" is offered.
    shared: bool,
}

/// The `tools/list` entries of one pool.
struct Listing {
    pool: Arc<[Arc<dyn Tool>]>,
    tools: Arc<Vec<rmcp::model::Tool>>,
}

impl Served {
    pub(crate) async fn new(session: Arc<Session>, forward: Option<Arc<ClientElicitor>>) -> Self {
        let pool = session.pool();
        let tools = Self::describe_all(&session, &pool).await;
        Self { session, listing: Arc::new(std::sync::Mutex::new(Listing { pool, tools })), forward, shared: false }
    }

    async fn describe_all(session: &Session, pool: &[Arc<dyn Tool>]) -> Arc<Vec<rmcp::model::Tool>> {
        Arc::new(
            session
                .with_prompt_options(|options| pool.iter().map(|tool| describe(tool.as_ref(), options)).collect())
                .await,
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Listing> {
        self.listing.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The entries of the pool as it stands now.
    async fn tools(&self) -> Arc<Vec<rmcp::model::Tool>> {
        let pool = self.session.pool();
        {
            let listing = self.lock();
            if Arc::ptr_eq(&listing.pool, &pool) {
                return Arc::clone(&listing.tools);
            }
        }
        let tools = Self::describe_all(&self.session, &pool).await;
        let mut listing = self.lock();
        *listing = Listing { pool, tools: Arc::clone(&tools) };
        tools
    }

    /// The entries as last described (without looking for a change).
    fn current(&self) -> Arc<Vec<rmcp::model::Tool>> {
        Arc::clone(&self.lock().tools)
    }
}

/// Tells the client `notifications/tools/list_changed` each time the session's MCP servers'
/// tools change, until the session or the client is gone.
fn watch_pool(served: &Served, peer: rmcp::service::Peer<RoleServer>) {
    let mut changes = served.session.mcp().changes();
    let session = Arc::downgrade(&served.session);
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            let Some(session) = session.upgrade() else { return };
            session.refresh_pool();
            drop(session);
            if let Err(error) = peer.notify_tool_list_changed().await {
                tracing::debug!(%error, "tools/list_changed could not be sent; the client is gone");
                return;
            }
        }
    });
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client's first messages were not a valid MCP handshake.
    #[error("the MCP handshake failed: {0}")]
    Handshake(Box<rmcp::service::ServerInitializeError>),
    /// The connection failed while serving.
    #[error("the MCP server stopped with an error: {0}")]
    Stopped(#[from] tokio::task::JoinError),
}

/// Whether a request is of the 2026-07-28 protocol (or later), by the version its own `_meta`
/// names or, failing that, the one `initialize` agreed on. (Versions are dates, so they compare
/// as text, as rmcp compares them.)
fn is_2026_era(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Whether a client with `capabilities` can show an elicitation form: it declares elicitation
/// with `form`, or (the shape from before modes existed) with neither `form` nor `url`.
fn shows_forms(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.elicitation.as_ref())
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// The MCP `tools/list` entry for a tool: its name, description, input schema, annotations and,
/// when it documents one, its output schema.
pub fn describe(tool: &dyn Tool, options: &PromptOptions<'_>) -> rmcp::model::Tool {
    let flags = tool.flags();
    let schema = match tool.input_schema() {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let mut annotations = ToolAnnotations::new().read_only(flags.read_only);
    if !flags.read_only {
        annotations = annotations.destructive(flags.destructive);
    }
    annotations.open_world_hint = Some(flags.open_world);
    let mut listed = rmcp::model::Tool::new(tool.name().to_owned(), tool.description(options), Arc::new(schema))
        .with_annotations(annotations);
    // A documented output (a proxied MCP tool's `outputSchema`) is passed on.
    if let Some(Value::Object(output)) = tool.output_schema() {
        listed.output_schema = Some(Arc::new(output));
    }
    listed
}

impl ToolServer {
    /// The server of `session`: every tool of its pool, described once. Calls run against the
    /// session's context (see [`Session::call`]); the session's own prompter is replaced, call
    /// by call, by the client's user (elicitation) or a refusal.
    pub async fn new(session: Arc<Session>) -> Self {
        Self::with_forwarding(session, None).await
    }

    /// [`ToolServer::new`], passing the questions of the session's own MCP servers
    /// (`elicitation/create`) on to this server's client through `elicitor`, which must be the
    /// one the session was built with ([`agent_tools_host::SessionBuilder::mcp_elicitor`]).
    pub async fn with_forwarding(session: Arc<Session>, elicitor: Option<Arc<ClientElicitor>>) -> Self {
        let served = Served::new(session, elicitor).await;
        Self {
            served: Arc::new(tokio::sync::OnceCell::new_with(Some(served))),
            opener: None,
            calls: Arc::new(AtomicU64::new(0)),
            rounds: Arc::new(rounds::Rounds::default()),
            log: Arc::new(logging::Log::default()),
            watching: Arc::default(),
        }
    }

    /// A server of one MCP session over HTTP, whose session `opener` opens at its first request.
    pub(crate) fn lazy(opener: Arc<http::Opener>) -> Self {
        Self {
            served: Arc::new(tokio::sync::OnceCell::new()),
            opener: Some(opener),
            calls: Arc::new(AtomicU64::new(0)),
            rounds: Arc::new(rounds::Rounds::default()),
            log: Arc::new(logging::Log::default()),
            watching: Arc::default(),
        }
    }

    /// The `tools/list` entries, in pool order (empty until the session is open).
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.served.get().map_or_else(Vec::new, |served| served.current().as_ref().clone())
    }

    /// The session served, once it is open.
    pub fn session(&self) -> Option<&Arc<Session>> {
        self.served.get().map(|served| &served.session)
    }

    /// The session this request is served by, and where its 2026-07-28 questions wait: the
    /// server's own (opened now if need be, in the working directory the client's roots choose),
    /// or, for a stateless 2026-07-28 request over HTTP, the one such requests share.
    async fn served(&self, context: &RequestContext<RoleServer>) -> Result<(Served, Arc<rounds::Rounds>), ErrorData> {
        let Some(opener) = &self.opener else {
            let served = self.served.get().cloned().ok_or_else(|| ErrorData::internal_error("no session", None))?;
            if !is_2026_era(context) {
                self.watch(&served, context);
            }
            return Ok((served, Arc::clone(&self.rounds)));
        };
        if is_2026_era(context) {
            return Ok((opener.stateless().await?, opener.rounds()));
        }
        let served = self.served.get_or_try_init(|| opener.open_for(context)).await?.clone();
        self.watch(&served, context);
        Ok((served, Arc::clone(&self.rounds)))
    }

    /// Starts telling this client about pool changes, once (a 2026-07-28 client has no channel
    /// for them: it lists again when it wants).
    fn watch(&self, served: &Served, context: &RequestContext<RoleServer>) {
        if !self.watching.swap(true, Ordering::SeqCst) {
            watch_pool(served, context.peer.clone());
            events::attach(&served.session, context.peer.clone(), Arc::clone(&self.log));
            if let Some(forward) = &served.forward {
                forward.attach(&context.peer);
            }
        }
    }

    /// Runs one call and makes its MCP result: the tool result's content with tool references
    /// rendered, then what the call added beside it and the notes of background tasks that
    /// finished since the last call.
    async fn call(
        &self,
        served: &Served,
        block: ToolUseBlock,
        cancel: CancellationToken,
        prompter: Arc<dyn PermissionPrompter>,
        progress: Option<progress::Forwarder>,
    ) -> CallToolResult {
        let sink = progress.as_ref().and_then(progress::Forwarder::sink);
        let options = CallOptions {
            cancel: Some(cancel),
            prompter: Some(prompter),
            progress: sink,
            interrupt: None,
            isolated: served.shared,
        };
        let started = std::time::Instant::now();
        let done = served.session.call(&block, options).await;
        if let Some(progress) = progress {
            progress.finish().await;
        }
        self.log.call_finished(&block.name, done.block.is_error, started.elapsed()).await;
        let pool = served.session.pool();
        let content = served
            .session
            .with_prompt_options(|options| {
                agent_tools_host::render_tool_references(&done.block.content, &pool, options)
            })
            .await;
        let mut result = to_mcp(&content, &done);
        // Background tasks that finished since the last call: an MCP client has no other channel
        // for them, so they ride along with this result as extra text.
        let pending = served.session.drain_notifications().await;
        result.content.extend(pending.into_iter().map(|note| ContentBlock::text(note.text)));
        result
    }
}

/// The parts of a tool's extra messages that an MCP client must see too: images and documents
/// (Read sends PDF pages and image size notes that way, as Claude Code does), and their text.
fn extra_content(messages: &[Message]) -> Vec<ContentBlock> {
    let mut content = Vec::new();
    for message in messages {
        let MessageContent::Blocks(blocks) = &message.content else {
            if let MessageContent::Text(text) = &message.content {
                content.push(ContentBlock::text(text.clone()));
            }
            continue;
        };
        for block in blocks {
            match block {
                AnyBlock::Known(KnownBlock::Text { text }) => content.push(ContentBlock::text(text.clone())),
                AnyBlock::Known(KnownBlock::Image { source }) => {
                    content.push(ContentBlock::image(source.data.clone(), source.media_type.clone()));
                }
                AnyBlock::Other(other) if other.get("type").and_then(Value::as_str) == Some("document") => {
                    let source = &other["source"];
                    if let (Some(data), Some(media_type)) =
                        (source.get("data").and_then(Value::as_str), source.get("media_type").and_then(Value::as_str))
                    {
                        let uri = format!("agent-tools://document/{}", content.len());
                        content.push(ContentBlock::resource(
                            ResourceContents::blob(data.to_owned(), uri).with_mime_type(media_type.to_owned()),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    content
}

/// Converts a finished call into the MCP result, with `content` standing for its block's content
/// (tool references rendered).
fn to_mcp(content: &ToolResultContent, done: &Invocation) -> CallToolResult {
    let mut content = match content {
        ToolResultContent::Text(text) => vec![ContentBlock::text(text.clone())],
        ToolResultContent::Parts(parts) => parts
            .iter()
            .map(|part| match part {
                ContentPart::Text { text } => ContentBlock::text(text.clone()),
                ContentPart::Image { source } => ContentBlock::image(source.data.clone(), source.media_type.clone()),
                ContentPart::ToolReference { tool_name } => ContentBlock::text(tool_name.clone()),
            })
            .collect(),
    };
    content.extend(extra_content(&done.new_messages));
    let mut result =
        if done.block.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    // MCP's `structuredContent` is an object; other outputs are fully carried by the text.
    result.structured_content = done.data.as_ref().map(|data| data.to_json()).filter(Value::is_object);
    result
}

impl ServerHandler for ToolServer {
    #[allow(deprecated, reason = "logging is deprecated by 2026-07-28 (SEP-2577) but part of 2025-11-25")]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_logging().build(),
        )
        .with_server_info(Implementation::new("agent-tools", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Claude Code's tools (Read, Glob, Grep and more) for the server's working directory. \
                 Relative paths resolve against it.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (served, _) = self.served(&context).await?;
        Ok(ListToolsResult::with_all_items(served.tools().await.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A 2026-07-28 client's retry, with the answer to the question its call asked.
        let (served, rounds) = self.served(&context).await?;
        if let Some(state) = request.request_state.as_deref() {
            let running = rounds.resume(state, &request.name, request.input_responses.as_ref())?;
            return Ok(rounds.drive(running, &context.ct).await);
        }
        let number = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let input = request.arguments.map_or_else(|| Value::Object(serde_json::Map::new()), Value::Object);
        let block = ToolUseBlock { id: format!("mcp_call_{number}"), name: request.name.into_owned(), input };
        tracing::debug!(tool = %block.name, id = %block.id, "tools/call");
        self.log.attach(&context.peer).await;
        // The client asked for progress (`_meta.progressToken`): the tool's progress events
        // become `notifications/progress` on this request's stream.
        let progress = context.meta.get_progress_token().map(|token| progress::forward(context.peer.clone(), token));
        if is_2026_era(&context) && shows_forms(context.client_capabilities().as_ref()) {
            // Its questions end this request with the question; the call waits on its own task.
            let cancel = CancellationToken::new();
            let (asker, running) = rounds::channel(block.name.clone(), cancel.clone());
            let prompter = Arc::new(rounds::RoundsPrompter::new(asker.clone(), !served.shared));
            let server = self.clone();
            tokio::spawn(async move {
                let result = server.call(&served, block, cancel, prompter, progress).await;
                asker.finish(result).await;
            });
            return Ok(rounds.drive(running, &context.ct).await);
        }
        // Under 2025-xx: `elicitation/create` requests, if the client declared elicitation at
        // `initialize`; else (and under 2026-07-28 without it) a refusal.
        let prompter = Arc::new(ElicitationPrompter::new(context.peer));
        Ok(self.call(&served, block, context.ct, prompter, progress).await.into())
    }

    #[allow(deprecated, reason = "logging/setLevel is deprecated by 2026-07-28 (SEP-2577) but part of 2025-11-25")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log.attach(&context.peer).await;
        self.log.set_level(request.level);
        Ok(())
    }
}

/// Serves `session` over standard input and output until the client disconnects. Every line
/// gets an answer or a log line (`transport`); logs go to stderr only.
///
/// # Errors
/// [`ServeError`]: the handshake failed, or the connection broke.
pub async fn serve_stdio(session: Arc<Session>) -> Result<(), ServeError> {
    serve_stdio_with(ToolServer::new(session).await).await
}

/// [`serve_stdio`] for a server made beforehand (with [`ToolServer::with_forwarding`]).
///
/// # Errors
/// As [`serve_stdio`].
pub async fn serve_stdio_with(server: ToolServer) -> Result<(), ServeError> {
    let transport = transport::LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
    let running = server.serve(transport).await.map_err(|error| ServeError::Handshake(Box::new(error)))?;
    running.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::ImageSource;
    use serde_json::json;

    #[test]
    fn form_elicitation_is_declared_with_form_or_with_the_bare_capability() {
        let declared = |capabilities: Value| {
            shows_forms(Some(&serde_json::from_value::<ClientCapabilities>(capabilities).unwrap()))
        };
        assert!(declared(json!({"elicitation": {}})));
        assert!(declared(json!({"elicitation": {"form": {}}})));
        assert!(declared(json!({"elicitation": {"form": {}, "url": {}}})));
        assert!(!declared(json!({"elicitation": {"url": {}}})));
        assert!(!declared(json!({"sampling": {}})));
        assert!(!shows_forms(None));
    }

    #[test]
    fn images_documents_and_text_of_extra_messages_become_mcp_content() {
        let message = Message::user(vec![
            AnyBlock::text("Image size changed"),
            AnyBlock::Known(KnownBlock::Image { source: ImageSource::base64("image/jpeg", "AAAA") }),
            AnyBlock::Other(
                json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}),
            ),
            AnyBlock::Other(json!({"type": "thinking", "thinking": "skipped"})),
        ]);
        let content = serde_json::to_value(extra_content(&[message])).unwrap();
        assert_eq!(
            content,
            json!([
                {"type": "text", "text": "Image size changed"},
                {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"},
                {"type": "resource", "resource": {"uri": "agent-tools://document/2", "mimeType": "application/pdf", "blob": "JVBERi0="}}
            ])
        );
    }
}
