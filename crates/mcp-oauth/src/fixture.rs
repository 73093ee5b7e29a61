//! A real OAuth 2.1 authorization server and an OAuth-protected MCP server on `127.0.0.1`, for
//! tests (feature `fixture`): what a remote MCP server with sign-in looks like, without the
//! internet.
//!
//! - the authorization server (its own port) serves RFC 8414 metadata at
//!   `/.well-known/oauth-authorization-server`, dynamic client registration at `/register`,
//!   `/authorize` (approves at once: redirects to the registered `redirect_uri` with a `code` and
//!   the same `state`), and `/token` (the `authorization_code` grant, checking the PKCE S256
//!   verifier against the challenge, and the `refresh_token` grant, rotating refresh tokens);
//! - the MCP server (another port) serves RFC 9728 protected-resource metadata and, at `/mcp`,
//!   rmcp's Streamable HTTP service with one tool, `echo`, behind a bearer check that accepts only
//!   unexpired, unrevoked access tokens this authorization server issued and otherwise answers
//!   `401` with `WWW-Authenticate: Bearer resource_metadata="…"`.
//!
//! [`browse`] plays the user's browser. Counters tell a test what happened (registrations, code
//! and refresh grants, tool calls), and [`Fixture::on_refresh_request`] lets a test act at the
//! moment a refresh reaches the server (another process saving tokens meanwhile).

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

/// The path of the protected MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// How the fixture behaves.
#[derive(Debug, Clone)]
pub struct FixtureOptions {
    /// How long an access token is valid (`expires_in`, whole seconds, at least 1). The MCP server
    /// refuses a token half a second after that, so a client must have refreshed by then.
    pub access_token_lifetime: Duration,
    /// Records a PKCE challenge that no verifier matches, so every code exchange is refused with
    /// `invalid_grant` (as a server does when a client sends the wrong verifier).
    pub break_pkce: bool,
}

impl Default for FixtureOptions {
    fn default() -> Self {
        Self { access_token_lifetime: Duration::from_secs(3600), break_pkce: false }
    }
}

struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
}

struct Grant {
    client_id: String,
}

#[derive(Default)]
struct Tables {
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Code>,
    access: HashMap<String, Instant>,
    refresh: HashMap<String, Grant>,
    revoked: HashSet<String>,
}

struct State {
    options: FixtureOptions,
    issuer: String,
    resource: String,
    resource_metadata: String,
    tables: Mutex<Tables>,
    registrations: AtomicUsize,
    code_grants: AtomicUsize,
    refresh_grants: AtomicUsize,
    refused_refreshes: AtomicUsize,
    refused_tokens: AtomicUsize,
    metadata_requests: AtomicUsize,
    tool_calls: Arc<AtomicUsize>,
    counter: AtomicUsize,
    refresh_hook: Mutex<Option<RefreshHook>>,
}

/// What [`Fixture::on_refresh_request`] runs.
type RefreshHook = Arc<dyn Fn() + Send + Sync>;

impl State {
    fn tables(&self) -> std::sync::MutexGuard<'_, Tables> {
        self.tables.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A fresh unguessable-enough token for a test server: a hash of a counter, the time and a
    /// per-process random key.
    fn token(&self, kind: &str) -> String {
        use std::hash::{BuildHasher as _, Hasher as _};
        let number = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_usize(number);
        hasher.write_u128(
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos(),
        );
        let digest = Sha256::digest(format!("{kind}-{number}-{}", hasher.finish()).as_bytes());
        let hex: String = digest.iter().take(16).map(|byte| format!("{byte:02x}")).collect();
        format!("{kind}_{hex}")
    }
}

/// The running fixture; dropping it stops both servers.
pub struct Fixture {
    state: Arc<State>,
    _stop: DropGuard,
}

impl std::fmt::Debug for Fixture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixture").field("issuer", &self.state.issuer).field("resource", &self.state.resource).finish()
    }
}

impl Fixture {
    /// Starts both servers on free `127.0.0.1` ports. Needs a multi-threaded Tokio runtime.
    ///
    /// # Errors
    /// The ports cannot be bound.
    pub async fn start(options: FixtureOptions) -> std::io::Result<Self> {
        let auth = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let mcp = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let issuer = format!("http://127.0.0.1:{}", auth.local_addr()?.port());
        let mcp_origin = format!("http://127.0.0.1:{}", mcp.local_addr()?.port());
        let state = Arc::new(State {
            options,
            resource: format!("{mcp_origin}{MCP_PATH}"),
            resource_metadata: format!("{mcp_origin}/.well-known/oauth-protected-resource{MCP_PATH}"),
            issuer,
            tables: Mutex::new(Tables::default()),
            registrations: AtomicUsize::new(0),
            code_grants: AtomicUsize::new(0),
            refresh_grants: AtomicUsize::new(0),
            refused_refreshes: AtomicUsize::new(0),
            metadata_requests: AtomicUsize::new(0),
            refused_tokens: AtomicUsize::new(0),
            tool_calls: Arc::new(AtomicUsize::new(0)),
            counter: AtomicUsize::new(0),
            refresh_hook: Mutex::new(None),
        });
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = stop.child_token();
        let calls = Arc::clone(&state.tool_calls);
        let service = StreamableHttpService::new(
            move || Ok(EchoServer { calls: Arc::clone(&calls) }),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let service = Arc::new(service);
        {
            let state = Arc::clone(&state);
            serve(auth, stop.clone(), move |request| {
                let state = Arc::clone(&state);
                async move { authorization_server(&state, request).await }
            });
        }
        {
            let state = Arc::clone(&state);
            serve(mcp, stop.clone(), move |request| {
                let state = Arc::clone(&state);
                let service = Arc::clone(&service);
                async move { resource_server(&state, &service, request).await }
            });
        }
        Ok(Self { state, _stop: stop.drop_guard() })
    }

    /// The protected MCP endpoint (`http://127.0.0.1:<port>/mcp`).
    pub fn mcp_url(&self) -> String {
        self.state.resource.clone()
    }

    /// The authorization server's issuer (`http://127.0.0.1:<port>`).
    pub fn issuer(&self) -> String {
        self.state.issuer.clone()
    }

    /// Dynamic client registrations so far.
    pub fn registrations(&self) -> usize {
        self.state.registrations.load(Ordering::SeqCst)
    }

    /// Successful `authorization_code` grants so far.
    pub fn code_grants(&self) -> usize {
        self.state.code_grants.load(Ordering::SeqCst)
    }

    /// Successful `refresh_token` grants so far.
    pub fn refresh_grants(&self) -> usize {
        self.state.refresh_grants.load(Ordering::SeqCst)
    }

    /// `refresh_token` grants refused so far (a refresh token spent already, revoked or unknown).
    pub fn refused_refreshes(&self) -> usize {
        self.state.refused_refreshes.load(Ordering::SeqCst)
    }

    /// Requests for the authorization server's metadata so far (one per discovery: a client
    /// that asked has finished discovering and goes on to its tokens).
    pub fn metadata_requests(&self) -> usize {
        self.state.metadata_requests.load(Ordering::SeqCst)
    }

    /// Requests the MCP server refused with 401 so far.
    pub fn refused_requests(&self) -> usize {
        self.state.refused_tokens.load(Ordering::SeqCst)
    }

    /// `tools/call` requests the MCP server answered so far.
    pub fn tool_calls(&self) -> usize {
        self.state.tool_calls.load(Ordering::SeqCst)
    }

    /// Makes every access token issued so far invalid at the MCP server (as a server-side
    /// expiry or revocation does); refresh tokens stay valid.
    pub fn revoke_access_tokens(&self) {
        let mut tables = self.state.tables();
        let issued: Vec<String> = tables.access.keys().cloned().collect();
        tables.revoked.extend(issued);
    }

    /// Makes every refresh token issued so far invalid (refreshes get `invalid_grant`).
    pub fn revoke_refresh_tokens(&self) {
        self.state.tables().refresh.clear();
    }

    /// Runs `hook` each time a `refresh_token` grant request arrives, before it is answered
    /// (replacing any earlier hook): what a test does there happens while the client waits for
    /// its refresh.
    pub fn on_refresh_request(&self, hook: impl Fn() + Send + Sync + 'static) {
        let mut slot = self.state.refresh_hook.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *slot = Some(Arc::new(hook));
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn serve<F, Fut>(listener: TcpListener, stop: CancellationToken, route: F)
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Response<Body>> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => continue,
                },
                () = stop.cancelled() => return,
            };
            let route = route.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let route = route.clone();
                    async move { Ok::<_, Infallible>(route(request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                tokio::pin!(connection);
                tokio::select! {
                    _ = connection.as_mut() => {}
                    () = stop.cancelled() => connection.as_mut().graceful_shutdown(),
                }
            });
        }
    });
}

fn respond(status: StatusCode, content_type: &'static str, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static(content_type));
    response
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    respond(status, "application/json", body.to_string())
}

fn oauth_error(error: &str, description: &str) -> Response<Body> {
    json_response(StatusCode::BAD_REQUEST, &json!({"error": error, "error_description": description}))
}

async fn read_body(request: Request<Incoming>) -> Option<Bytes> {
    Limited::new(request.into_body(), 64 * 1024).collect().await.ok().map(|body| body.to_bytes())
}

fn form(bytes: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(bytes).into_owned().collect()
}

fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

async fn authorization_server(state: &State, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path().to_owned();
    match (request.method().clone(), path.as_str()) {
        (Method::GET, "/.well-known/oauth-authorization-server") => {
            state.metadata_requests.fetch_add(1, Ordering::SeqCst);
            authorization_server_metadata(state)
        }
        (Method::POST, "/register") => register(state, request).await,
        (Method::GET, "/authorize") => approve(state, request.uri().query().unwrap_or_default()),
        (Method::POST, "/token") => token(state, request).await,
        _ => respond(StatusCode::NOT_FOUND, "text/plain", "not found".to_owned()),
    }
}

fn authorization_server_metadata(state: &State) -> Response<Body> {
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": state.issuer,
            "authorization_endpoint": format!("{}/authorize", state.issuer),
            "token_endpoint": format!("{}/token", state.issuer),
            "registration_endpoint": format!("{}/register", state.issuer),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["mcp"],
        }),
    )
}

async fn register(state: &State, request: Request<Incoming>) -> Response<Body> {
    let Some(body) = read_body(request).await else { return oauth_error("invalid_client_metadata", "unreadable body") };
    let Ok(metadata) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error("invalid_client_metadata", "not JSON");
    };
    let redirect_uris: Vec<String> = metadata
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|uris| uris.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    if redirect_uris.is_empty() || redirect_uris.iter().any(|uri| !uri.starts_with("http://127.0.0.1:")) {
        return oauth_error("invalid_redirect_uri", "redirect URIs must be loopback");
    }
    let client_id = state.token("client");
    state.tables().clients.insert(client_id.clone(), redirect_uris.clone());
    state.registrations.fetch_add(1, Ordering::SeqCst);
    json_response(
        StatusCode::CREATED,
        &json!({
            "client_id": client_id,
            "client_name": metadata.get("client_name").cloned().unwrap_or(Value::Null),
            "redirect_uris": redirect_uris,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }),
    )
}

fn approve(state: &State, query: &str) -> Response<Body> {
    let params = form(query.as_bytes());
    let get = |key: &str| params.get(key).cloned().unwrap_or_default();
    let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
    let registered = state.tables().clients.get(&client_id).is_some_and(|uris| uris.contains(&redirect_uri));
    if !registered {
        // Never redirect to an unregistered URI.
        return respond(StatusCode::BAD_REQUEST, "text/plain", "unknown client or redirect_uri".to_owned());
    }
    let Ok(mut target) = url::Url::parse(&redirect_uri) else {
        return respond(StatusCode::BAD_REQUEST, "text/plain", "bad redirect_uri".to_owned());
    };
    if get("response_type") != "code" || get("code_challenge_method") != "S256" || get("code_challenge").is_empty() {
        target.query_pairs_mut().append_pair("error", "invalid_request").append_pair("state", &get("state"));
    } else if get("resource") != state.resource {
        target.query_pairs_mut().append_pair("error", "invalid_target").append_pair("state", &get("state"));
    } else {
        let code = state.token("code");
        let challenge = if state.options.break_pkce { "not-the-challenge".to_owned() } else { get("code_challenge") };
        state.tables().codes.insert(code.clone(), Code { client_id, redirect_uri, challenge });
        target.query_pairs_mut().append_pair("code", &code).append_pair("state", &get("state"));
    }
    let mut response = respond(StatusCode::FOUND, "text/plain", String::new());
    if let Ok(location) = hyper::header::HeaderValue::from_str(target.as_str()) {
        response.headers_mut().insert(hyper::header::LOCATION, location);
    }
    response
}

fn issue(state: &State, client_id: &str) -> Response<Body> {
    let lifetime = state.options.access_token_lifetime.max(Duration::from_secs(1));
    let access_token = state.token("access");
    let refresh_token = state.token("refresh");
    let mut tables = state.tables();
    tables.access.insert(access_token.clone(), Instant::now() + lifetime + Duration::from_millis(500));
    tables.refresh.insert(refresh_token.clone(), Grant { client_id: client_id.to_owned() });
    drop(tables);
    json_response(
        StatusCode::OK,
        &json!({
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": lifetime.as_secs(),
            "refresh_token": refresh_token,
        }),
    )
}

async fn token(state: &State, request: Request<Incoming>) -> Response<Body> {
    let Some(body) = read_body(request).await else { return oauth_error("invalid_request", "unreadable body") };
    let params = form(&body);
    let get = |key: &str| params.get(key).cloned().unwrap_or_default();
    match get("grant_type").as_str() {
        "authorization_code" => {
            let Some(code) = state.tables().codes.remove(&get("code")) else {
                return oauth_error("invalid_grant", "unknown or used code");
            };
            if code.client_id != get("client_id") || code.redirect_uri != get("redirect_uri") {
                return oauth_error("invalid_grant", "the code was issued to another client or redirect_uri");
            }
            if s256(&get("code_verifier")) != code.challenge {
                return oauth_error("invalid_grant", "PKCE verification failed");
            }
            state.code_grants.fetch_add(1, Ordering::SeqCst);
            issue(state, &code.client_id)
        }
        "refresh_token" => {
            let hook = state.refresh_hook.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
            if let Some(hook) = hook {
                hook();
            }
            // Refresh tokens rotate: each is good for one refresh.
            let Some(grant) = state.tables().refresh.remove(&get("refresh_token")) else {
                state.refused_refreshes.fetch_add(1, Ordering::SeqCst);
                return oauth_error("invalid_grant", "unknown refresh token");
            };
            if grant.client_id != get("client_id") {
                state.refused_refreshes.fetch_add(1, Ordering::SeqCst);
                return oauth_error("invalid_grant", "the refresh token was issued to another client");
            }
            state.refresh_grants.fetch_add(1, Ordering::SeqCst);
            issue(state, &grant.client_id)
        }
        _ => oauth_error("unsupported_grant_type", "only authorization_code and refresh_token"),
    }
}

async fn resource_server(
    state: &State,
    service: &StreamableHttpService<EchoServer, LocalSessionManager>,
    request: Request<Incoming>,
) -> Response<Body> {
    let path = request.uri().path().to_owned();
    if path.starts_with("/.well-known/oauth-protected-resource") {
        return json_response(
            StatusCode::OK,
            &json!({
                "resource": state.resource,
                "authorization_servers": [state.issuer],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["mcp"],
            }),
        );
    }
    if path != MCP_PATH {
        return respond(StatusCode::NOT_FOUND, "text/plain", "not found".to_owned());
    }
    let presented = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .map(str::to_owned);
    let valid = presented.as_ref().is_some_and(|token| {
        let tables = state.tables();
        !tables.revoked.contains(token) && tables.access.get(token).is_some_and(|expiry| Instant::now() < *expiry)
    });
    if !valid {
        state.refused_tokens.fetch_add(1, Ordering::SeqCst);
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", state.resource_metadata);
        if presented.is_some() {
            challenge.push_str(", error=\"invalid_token\"");
        }
        let mut response = respond(StatusCode::UNAUTHORIZED, "text/plain", "unauthorized".to_owned());
        if let Ok(value) = hyper::header::HeaderValue::from_str(&challenge) {
            response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, value);
        }
        return response;
    }
    service.handle(request).await
}

/// The MCP server behind the bearer check: one tool, `echo`, which answers `echo: <text>`.
#[derive(Clone)]
struct EchoServer {
    calls: Arc<AtomicUsize>,
}

impl ServerHandler for EchoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("oauth-fixture", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
        let schema = match schema {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let tool = Tool::new("echo", "Answers with the text it is given.", Arc::new(schema));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let text = request.arguments.as_ref().and_then(|args| args.get("text")).and_then(Value::as_str).unwrap_or("");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))]).into())
    }
}

/// What the browser ended on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserPage {
    /// The last response's HTTP status.
    pub status: u16,
    /// Its URL (after redirects).
    pub url: String,
    /// Its body.
    pub body: String,
}

/// Plays the user's browser: GETs `url` and follows redirects (to the loopback callback).
///
/// # Errors
/// The request failed (a message).
pub async fn browse(url: &str) -> Result<BrowserPage, String> {
    crate::install_crypto();
    let client = reqwest::Client::builder().build().map_err(|error| error.to_string())?;
    let response = client.get(url).send().await.map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let url = response.url().to_string();
    let body = response.text().await.map_err(|error| error.to_string())?;
    Ok(BrowserPage { status, url, body })
}

/// Where the authorization server sends the browser for `auth_url` (the `Location` of its
/// redirect), without following it — to tamper with the callback in a test.
///
/// # Errors
/// The request failed or the answer was no redirect.
pub async fn redirect_target(auth_url: &str) -> Result<String, String> {
    crate::install_crypto();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| error.to_string())?;
    let response = client.get(auth_url).send().await.map_err(|error| error.to_string())?;
    response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| format!("no redirect: HTTP {}", response.status()))
}
