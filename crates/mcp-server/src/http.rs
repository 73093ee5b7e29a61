//! `agent-tools serve --http`: the pool over MCP's Streamable HTTP transport (rmcp's
//! `StreamableHttpService`) at `/mcp`, one [`Session`] per MCP session.
//!
//! Safe by default:
//! - it listens where it is told, and the CLI's default is `127.0.0.1`;
//! - every request to `/mcp` must carry `Authorization: Bearer <token>` (unless the caller
//!   turned the token off, which the CLI allows only on a loopback address); without it, the answer
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
use std::path::{Path, PathBuf};
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

use crate::{Served, ToolServer};
use rmcp::RoleServer;
use rmcp::model::ErrorData;
use rmcp::service::RequestContext;

/// How long a client gets to answer `roots/list` when its session opens.
const ROOTS_WAIT: Duration = Duration::from_secs(5);

/// Opens the sessions of one HTTP server: each MCP session's own, in a working directory inside
/// the roots, and the one session that stateless (2026-07-28) requests share.
pub(crate) struct Opener {
    factory: SessionFactory,
    roots: Vec<PathBuf>,
    stateless: tokio::sync::OnceCell<Served>,
    stateless_rounds: Arc<crate::rounds::Rounds>,
}

impl Opener {
    /// Builds a session in `cwd` (the factory's future runs to its end here).
    async fn open(&self, cwd: PathBuf) -> Result<Served, ErrorData> {
        let factory = Arc::clone(&self.factory);
        let opened = tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(factory(cwd)))
            .map_err(|error| ErrorData::internal_error(format!("the session could not be opened: {error}"), None))?;
        Ok(Served::new(opened.session, opened.elicitor).await)
    }

    /// The session of the MCP session `context` belongs to, in the working directory its
    /// client's roots choose ([`choose_cwd`]).
    #[allow(deprecated, reason = "roots are deprecated by 2026-07-28 (SEP-2577); this is the 2025-11-25 path")]
    pub(crate) async fn open_for(&self, context: &RequestContext<RoleServer>) -> Result<Served, ErrorData> {
        let declares_roots = context.peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        let offered = if declares_roots {
            match tokio::time::timeout(ROOTS_WAIT, context.peer.list_roots()).await {
                Ok(Ok(listed)) => listed.roots.into_iter().map(|root| root.uri).collect(),
                Ok(Err(error)) => {
                    tracing::debug!(%error, "roots/list failed; the session opens in the first root");
                    Vec::new()
                }
                Err(_) => Vec::new(),
            }
        } else {
            Vec::new()
        };
        self.open(choose_cwd(&offered, &self.roots)).await
    }

    /// The session stateless requests share (2026-07-28 has no sessions, SEP-2567), opened in
    /// the first root at the first such request.
    pub(crate) async fn stateless(&self) -> Result<Served, ErrorData> {
        let first = self.roots[0].clone();
        let open = || async {
            let mut served = self.open(first).await?;
            served.shared = true;
            Ok::<_, ErrorData>(served)
        };
        self.stateless.get_or_try_init(open).await.cloned()
    }

    /// Where stateless requests' questions wait (a retry may reach any handler).
    pub(crate) fn rounds(&self) -> Arc<crate::rounds::Rounds> {
        Arc::clone(&self.stateless_rounds)
    }
}

/// The working directory for a client that offered the `file://` roots `offered`: the first of
/// them that is one of `allowed` or inside one (after resolving links, so a link cannot lead
/// out), else the first of `allowed`. `allowed` must not be empty.
pub fn choose_cwd(offered: &[String], allowed: &[PathBuf]) -> PathBuf {
    for uri in offered {
        let Some(path) = file_uri_path(uri) else { continue };
        let Ok(path) = path.canonicalize() else { continue };
        if path.is_dir() && allowed.iter().any(|root| path.starts_with(root)) {
            return path;
        }
        tracing::info!(root = %uri, "a client root outside the --root folders is ignored");
    }
    allowed[0].clone()
}

/// The path of a `file://` URI (`file:///srv/a%20b` → `/srv/a b`); `None` for another scheme,
/// a host other than empty or `localhost`, or a relative path.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[index + 1..index + 3]).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    let text = String::from_utf8(decoded).ok()?;
    Some(Path::new(&text).to_path_buf())
}

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The path of the OAuth 2.0 protected-resource metadata (RFC 9728).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Makes a session whose working directory is the given folder (one of the `--root` folders or a
/// folder inside one). The future need not be `Send`: it is run to its end where the session is
/// asked for.
pub type SessionFactory = Arc<dyn Fn(PathBuf) -> SessionFuture + Send + Sync>;

/// What a [`SessionFactory`] returns.
pub type SessionFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<OpenedSession, String>>>>;

/// A session a [`SessionFactory`] opened, and the elicitor it was built with, if any (its own MCP
/// servers' questions then go on to the MCP session's client, see [`crate::ClientElicitor`]).
pub struct OpenedSession {
    /// The session.
    pub session: Arc<Session>,
    /// The session's `mcp_elicitor`, when it is a [`crate::ClientElicitor`].
    pub elicitor: Option<Arc<crate::ClientElicitor>>,
}

/// How the HTTP server runs.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The bearer token every request must carry; `None` accepts requests without one (only
    /// for a server on a loopback address that nothing but the local user can reach, such as a
    /// test harness that cannot send headers; the CLI's `--no-auth` refuses any other address).
    pub token: Option<String>,
    /// Hosts the `Host` header may name (`localhost`, `127.0.0.1`, `::1` by default); add the
    /// public name when the server sits behind a reverse proxy.
    pub allowed_hosts: Vec<String>,
    /// Origins a browser's `Origin` header may name; empty: the server's own loopback URLs.
    pub allowed_origins: Vec<String>,
    /// An MCP session with no request for this long is ended (default 30 minutes).
    pub idle_timeout: Duration,
    /// The folders sessions may work in (`--root`; canonical paths, the first is the default
    /// working directory). Empty: the server's current directory.
    pub roots: Vec<PathBuf>,
}

impl HttpOptions {
    /// Loopback hosts only, the server's own origins, a 30-minute idle timeout.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: Some(token.into()),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            idle_timeout: Duration::from_secs(30 * 60),
            roots: Vec::new(),
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

/// The URL the server is reached at, as the request names it (its `Host`, already checked to be
/// an allowed one); `https` when a reverse proxy says the client came over TLS
/// (`X-Forwarded-Proto: https`).
fn base_url(request: &Request<Incoming>, local: SocketAddr) -> String {
    let host = request
        .headers()
        .get(hyper::header::HOST)
        .and_then(|value| value.to_str().ok())
        .map_or_else(|| local.to_string(), str::to_owned);
    let tls = request
        .headers()
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
    format!("{}://{host}", if tls { "https" } else { "http" })
}

/// Whether the request's `Host` names one of `allowed` (the name, without its port; a request
/// without one is refused).
fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => host
            .rsplit_once(':')
            .map_or(host, |(name, port)| if port.chars().all(|c| c.is_ascii_digit()) { name } else { host }),
    };
    allowed.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
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
        // Behind a reverse proxy, the server's own origin is the proxy's public name.
        for host in &options.allowed_hosts {
            if !["localhost", "127.0.0.1", "::1"].contains(&host.as_str()) {
                origins.push(format!("https://{host}"));
                origins.push(format!("http://{host}"));
            }
        }
    }
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts.clone_from(&options.allowed_hosts);
    config.allowed_origins = origins;
    config.cancellation_token = stop.child_token();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.idle_timeout);
    let mut roots = options.roots.clone();
    if roots.is_empty() {
        roots.push(std::env::current_dir()?.canonicalize()?);
    }
    let opener =
        Arc::new(Opener { factory, roots, stateless: tokio::sync::OnceCell::new(), stateless_rounds: Arc::default() });
    // Each MCP session's handler opens its session at its first request (when the client's
    // roots can be asked); a stateless request's handler serves the shared one.
    let service =
        StreamableHttpService::new(move || Ok(ToolServer::lazy(Arc::clone(&opener))), Arc::new(manager), config);
    let token = Arc::new(options.token.map(String::into_bytes));
    let hosts: Arc<[String]> = options.allowed_hosts.clone().into();
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
        // Small JSON-RPC answers must not wait for the peer's delayed ACK (Nagle).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let service = service.clone();
        let token = Arc::clone(&token);
        let hosts = Arc::clone(&hosts);
        let stop = stop.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let token = Arc::clone(&token);
                let hosts = Arc::clone(&hosts);
                async move { Ok::<_, Infallible>(route(request, &service, &token, &hosts, local).await) }
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
    token: &Option<Vec<u8>>,
    hosts: &[String],
    local: SocketAddr,
) -> Response<Body> {
    // A Host a rebinding page would send is refused first: nothing is built from it.
    let host = request.headers().get(hyper::header::HOST).and_then(|value| value.to_str().ok());
    if !host_allowed(host, hosts) {
        return text(StatusCode::FORBIDDEN, "Forbidden: Host header is not allowed");
    }
    let path = request.uri().path().to_owned();
    // RFC 9728 also names the metadata of a resource at a path by that path.
    if path == RESOURCE_METADATA_PATH || path == format!("{RESOURCE_METADATA_PATH}{MCP_PATH}") {
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
    let authorized = match token {
        Some(token) => given.is_some_and(|given| same_token(given.as_bytes(), token)),
        None => true,
    };
    if !authorized {
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
    fn the_working_directory_is_the_first_offered_root_inside_the_allowed_ones() {
        let base = tempfile::tempdir().unwrap();
        let base = base.path().canonicalize().unwrap();
        let allowed = base.join("projects");
        std::fs::create_dir_all(allowed.join("a b")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(base.join("elsewhere"), allowed.join("link")).unwrap();
        let roots = vec![allowed.clone()];
        let uri = |path: &Path| format!("file://{}", path.display()).replace(' ', "%20");
        assert_eq!(choose_cwd(&[], &roots), allowed);
        assert_eq!(choose_cwd(&[uri(&allowed.join("a b"))], &roots), allowed.join("a b"));
        // Outside, through a link that leads out, missing, another scheme: the first root.
        assert_eq!(choose_cwd(&[uri(&base.join("elsewhere"))], &roots), allowed);
        assert_eq!(choose_cwd(&[uri(&allowed.join("link"))], &roots), allowed);
        assert_eq!(choose_cwd(&[uri(&allowed.join("missing"))], &roots), allowed);
        assert_eq!(
            choose_cwd(&["https://example.com/x".into(), uri(&allowed.join("a b"))], &roots),
            allowed.join("a b")
        );
        assert_eq!(file_uri_path("file://localhost/srv/x").as_deref(), Some(Path::new("/srv/x")));
        assert_eq!(file_uri_path("file://host/srv/x"), None);
        assert_eq!(file_uri_path("file:///srv/%ZZ"), None);
        assert_eq!(file_uri_path("file:///srv/%4"), Some(PathBuf::from("/srv/%4")));
    }

    #[test]
    fn the_host_is_checked_by_its_name_without_the_port() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "tools.example.com"].map(String::from).to_vec();
        for host in ["127.0.0.1:8765", "localhost", "[::1]:80", "TOOLS.example.com:443", "tools.example.com"] {
            assert!(host_allowed(Some(host), &allowed), "{host}");
        }
        for host in ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "::1", "[::2]:80", ""] {
            assert!(!host_allowed(Some(host), &allowed), "{host}");
        }
        assert!(!host_allowed(None, &allowed));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token(b"", b""));
        assert!(same_token(b"abc", b"abc"));
        assert!(!same_token(b"abd", b"abc"));
        assert!(!same_token(b"ab", b"abc"));
        assert_eq!(new_token().len(), 32);
        assert_ne!(new_token(), new_token());
    }
}
