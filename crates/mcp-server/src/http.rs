//! `agent-tools serve --http`: the pool over MCP's Streamable HTTP transport (rmcp's
//! `StreamableHttpService`) at `/mcp`, one [`Session`] per MCP session.
//!
//! Safe by default:
//! - it listens where it is told, and the CLI's default is `127.0.0.1`;
//! - every request to `/mcp` must carry `Authorization: Bearer <token>`; without it, the answer
//!   is `401` with a `WWW-Authenticate: Bearer resource_metadata="…"` header naming the OAuth 2.0
//!   protected-resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource`, so a
//!   client that speaks MCP authorization can discover how to authenticate;
//! - the `Host` header must name an allowed host (loopback by default) and an `Origin` header,
//!   when present, an allowed origin (the server's own loopback URLs by default): rmcp answers
//!   `403` otherwise, which stops DNS-rebinding attacks from a browser.
//!
//! Each MCP session (`Mcp-Session-Id`, made at `initialize`) gets a session of its own from the
//! caller's factory — its own working directory state, file-read state, background tasks and
//! permission mode — ended by `DELETE`, by [`HttpOptions::idle_timeout`] of inactivity, or when
//! the server stops; a session's end drops it, which stops its background tasks.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_host::Session;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::ToolServer;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The path of the OAuth 2.0 protected-resource metadata (RFC 9728).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Makes the session of a new MCP session (each `initialize` calls it once). The future need
/// not be `Send`: it is run to its end where the session is asked for.
pub type SessionFactory = Arc<dyn Fn() -> SessionFuture + Send + Sync>;

/// What a [`SessionFactory`] returns.
pub type SessionFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Arc<Session>, String>>>>;

/// How the HTTP server runs.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The bearer token every request must carry.
    pub token: String,
    /// Hosts the `Host` header may name (`localhost`, `127.0.0.1`, `::1` by default); add the
    /// public name when the server sits behind a reverse proxy.
    pub allowed_hosts: Vec<String>,
    /// Origins a browser's `Origin` header may name; empty: the server's own loopback URLs.
    pub allowed_origins: Vec<String>,
    /// An MCP session with no request for this long is ended (default 30 minutes).
    pub idle_timeout: Duration,
}

impl HttpOptions {
    /// Loopback hosts only, the server's own origins, a 30-minute idle timeout.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            idle_timeout: Duration::from_secs(30 * 60),
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn text(status: StatusCode, body: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_owned())).boxed());
    *response.status_mut() = status;
    response
}

/// Compares two tokens in time that does not depend on where they differ.
fn same_token(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The URL the server is reached at, as the request names it.
fn base_url(request: &Request<Incoming>, local: SocketAddr) -> String {
    let host = request
        .headers()
        .get(hyper::header::HOST)
        .and_then(|value| value.to_str().ok())
        .map_or_else(|| local.to_string(), str::to_owned);
    format!("http://{host}")
}

/// Serves the pool on `listener` until `stop` fires: `/mcp` through rmcp's Streamable HTTP
/// service (each new MCP session's [`Session`] from `factory`), the resource metadata, `404` for
/// any other path. Must run on a multi-threaded Tokio runtime (a new session is built while the
/// request that opens it waits).
///
/// # Errors
/// The listener's address cannot be read.
pub async fn serve_http(
    listener: TcpListener,
    factory: SessionFactory,
    options: HttpOptions,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let mut origins = options.allowed_origins.clone();
    if origins.is_empty() {
        let port = local.port();
        origins = vec![
            format!("http://localhost:{port}"),
            format!("http://127.0.0.1:{port}"),
            format!("http://[::1]:{port}"),
        ];
    }
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts.clone_from(&options.allowed_hosts);
    config.allowed_origins = origins;
    config.cancellation_token = stop.child_token();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.idle_timeout);
    let service = StreamableHttpService::new(
        move || {
            let factory = Arc::clone(&factory);
            // rmcp asks for the handler synchronously, inside the request that opens the session.
            tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(async move {
                    let session = factory().await.map_err(std::io::Error::other)?;
                    Ok(ToolServer::new(session).await)
                })
            })
        },
        Arc::new(manager),
        config,
    );
    let token = Arc::new(options.token.into_bytes());
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(%error, "cannot accept a connection");
                    continue;
                }
            },
            () = stop.cancelled() => return Ok(()),
        };
        let service = service.clone();
        let token = Arc::clone(&token);
        let stop = stop.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let token = Arc::clone(&token);
                async move { Ok::<_, Infallible>(route(request, &service, &token, local).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), handler);
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, %peer, "connection ended");
                    }
                }
                () = stop.cancelled() => connection.as_mut().graceful_shutdown(),
            }
        });
    }
}

async fn route(
    request: Request<Incoming>,
    service: &StreamableHttpService<ToolServer, LocalSessionManager>,
    token: &[u8],
    local: SocketAddr,
) -> Response<Body> {
    let path = request.uri().path().to_owned();
    if path == RESOURCE_METADATA_PATH {
        let base = base_url(&request, local);
        let metadata = serde_json::json!({
            "resource": format!("{base}{MCP_PATH}"),
            "bearer_methods_supported": ["header"],
            "authorization_servers": [],
            "resource_name": "agent-tools",
        });
        let mut response = text(StatusCode::OK, &metadata.to_string());
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
        return response;
    }
    if path != MCP_PATH {
        return text(StatusCode::NOT_FOUND, "Not found: the MCP endpoint is /mcp");
    }
    let given = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    if !given.is_some_and(|given| same_token(given.as_bytes(), token)) {
        let challenge = format!("Bearer resource_metadata=\"{}{RESOURCE_METADATA_PATH}\"", base_url(&request, local));
        let mut response = text(StatusCode::UNAUTHORIZED, "Unauthorized: send Authorization: Bearer <token>");
        if let Ok(value) = hyper::header::HeaderValue::from_str(&challenge) {
            response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, value);
        }
        return response;
    }
    let deleting = request.method() == hyper::Method::DELETE;
    let mut response = service.handle(request).await;
    // rmcp answers a session's DELETE with 202; clients (the Python SDK) expect 200 or 204.
    if deleting && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// A new random bearer token (128 bits from the operating system's generator, as hex).
pub fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token(b"abc", b"abc"));
        assert!(!same_token(b"abd", b"abc"));
        assert!(!same_token(b"ab", b"abc"));
        assert_eq!(new_token().len(), 32);
        assert_ne!(new_token(), new_token());
    }
}
