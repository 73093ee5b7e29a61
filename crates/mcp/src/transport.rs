//! Opening a transport to one MCP server — a child process over stdio, streamable HTTP (with
//! stored OAuth tokens when the user signed in before) or SSE — and initialising it, with each
//! way it can fail said as a [`ServerFailure`].

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::service::{ClientInitializeError, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{RoleClient, ServiceExt as _};
use tokio::io::AsyncBufReadExt as _;

use crate::client::{FailureKind, ServerFailure};
use crate::config::{NamedServer, ServerConfig};
use crate::handler::{Handler, HandlerShared};
use crate::http::SessionClient;
use crate::sse::{SseError, SseTransport};

/// A connection attempt's outcome: rmcp's running client service with our handler.
pub(crate) type Service = RunningService<RoleClient, Handler>;

/// Opens a transport to `server` and initialises it within `timeout`.
pub(crate) async fn open(
    server: &NamedServer,
    handler: &Arc<HandlerShared>,
    timeout: Duration,
    cwd: Option<&std::path::Path>,
    options: &crate::McpOptions,
) -> Result<Service, ServerFailure> {
    let oauth = options.oauth.as_ref();
    let name = &server.name;
    let handler = Handler(Arc::clone(handler));
    let initialised = match &server.config {
        ServerConfig::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env).kill_on_drop(true);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let (transport, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|error| ServerFailure::failed(name, format!("cannot start `{command}`: {error}")))?;
            if let Some(stderr) = stderr {
                // The server's own log lines go to our debug log, never to our stdout/stderr.
                let name = name.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::debug!(server = %name, "{line}");
                    }
                });
            }
            tokio::time::timeout(timeout, handler.serve(transport)).await
        }
        ServerConfig::Http { url, headers } => {
            let parsed = parse_url(name, url)?;
            let client = http_client(&parsed, timeout).map_err(|message| ServerFailure::failed(name, message))?;
            let headers = header_map(headers).map_err(|message| ServerFailure::failed(name, message))?;
            // A stale session is reconnected by us (fresh handler, fresh listing), not re-initialised
            // inside rmcp's transport.
            let config = StreamableHttpClientTransportConfig::with_uri(parsed.as_str())
                .custom_headers(headers.into_iter().filter_map(|(key, value)| Some((key?, value))).collect())
                .reinit_on_expired_session(false);
            // Signed in before: the stored tokens go with every request (refreshed as needed).
            let manager = match oauth {
                Some(store) => agent_tools_mcp_oauth::authorized_manager(name, url, store).await.map_err(|error| {
                    ServerFailure::failed(name, format!("its stored sign-in cannot be used: {error}"))
                })?,
                None => None,
            };
            match manager {
                Some(manager) => {
                    let client = agent_tools_mcp_oauth::AuthClient::new(SessionClient(client), manager);
                    let transport = StreamableHttpClientTransport::with_client(client, config);
                    tokio::time::timeout(timeout, handler.serve(transport)).await
                }
                None => {
                    let transport = StreamableHttpClientTransport::with_client(SessionClient(client), config);
                    tokio::time::timeout(timeout, handler.serve(transport)).await
                }
            }
        }
        ServerConfig::Sse { url, headers } => {
            let parsed = parse_url(name, url)?;
            let client = http_client(&parsed, timeout).map_err(|message| ServerFailure::failed(name, message))?;
            let headers = header_map(headers).map_err(|message| ServerFailure::failed(name, message))?;
            let transport = SseTransport::connect(client, parsed, headers, timeout)
                .await
                .map_err(|error| transport_failure(name, &error))?;
            tokio::time::timeout(timeout, handler.serve(transport)).await
        }
        ServerConfig::Sdk => {
            let Some(bridge) = &options.sdk else {
                return Err(ServerFailure {
                    name: name.clone(),
                    message:
                        "an SDK server (type \"sdk\") runs inside a Claude Agent SDK program; none drives this session"
                            .to_owned(),
                    kind: FailureKind::Unsupported,
                });
            };
            let transport = crate::sdk::SdkTransport::new(Arc::clone(bridge), name);
            tokio::time::timeout(timeout, handler.serve(transport)).await
        }
        ServerConfig::Unsupported { kind } => {
            return Err(ServerFailure {
                name: name.clone(),
                message: format!("transport type \"{kind}\" is not supported (only stdio, http and sse servers are)"),
                kind: FailureKind::Unsupported,
            });
        }
    };
    match initialised {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => Err(init_failure(name, &error)),
        Err(_) => {
            Err(ServerFailure::failed(name, format!("the server did not initialise within {} ms", timeout.as_millis())))
        }
    }
}

fn parse_url(name: &str, url: &str) -> Result<url::Url, ServerFailure> {
    let parsed = url::Url::parse(url)
        .map_err(|error| ServerFailure::failed(name, format!("the url {url:?} is not valid: {error}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ServerFailure::failed(name, format!("the url {url:?} is not http or https")));
    }
    Ok(parsed)
}

/// A reqwest client: rustls with ring, the connect timeout, no proxy for a loopback host, no
/// redirects (a redirect could carry the headers elsewhere).
fn http_client(url: &url::Url, connect_timeout: Duration) -> Result<reqwest::Client, String> {
    // reqwest is built without a crypto provider of its own; ring is ours. Another crate may
    // have installed it already: a second install is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(connect_timeout)
        .user_agent(concat!("agent-tools/", env!("CARGO_PKG_VERSION")));
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let builder = if loopback { builder.no_proxy() } else { builder };
    builder.build().map_err(|error| format!("cannot make an HTTP client: {error}"))
}

/// The configured headers as HTTP headers.
///
/// # Errors
/// A header name or value that HTTP does not allow, named.
fn header_map(headers: &std::collections::BTreeMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (key, value) in headers {
        let name =
            HeaderName::from_bytes(key.as_bytes()).map_err(|_| format!("the header name {key:?} is not valid"))?;
        let value = HeaderValue::from_str(value).map_err(|_| format!("the value of header {key:?} is not valid"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// An initialisation error in one line; a 401 is [`FailureKind::NeedsAuth`].
fn init_failure(name: &str, error: &ClientInitializeError) -> ServerFailure {
    if let ClientInitializeError::TransportError { error: transport, .. } = error {
        let inner: &(dyn std::error::Error + 'static) = transport.error.as_ref();
        if let Some(http) = inner.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            if let StreamableHttpError::AuthRequired(auth) = http {
                return needs_auth(name, Some(auth.www_authenticate_header.clone()));
            }
            return ServerFailure::failed(name, format!("cannot connect: {http}"));
        }
        if let Some(sse) = inner.downcast_ref::<SseError>() {
            return transport_failure(name, sse);
        }
    }
    ServerFailure::failed(name, format!("the server did not initialise: {error}"))
}

fn transport_failure(name: &str, error: &SseError) -> ServerFailure {
    match error {
        SseError::Unauthorized { challenge } => needs_auth(name, challenge.clone()),
        other => ServerFailure::failed(name, format!("cannot connect: {other}")),
    }
}

fn needs_auth(name: &str, challenge: Option<String>) -> ServerFailure {
    let challenge = challenge.filter(|text| !text.is_empty());
    ServerFailure {
        name: name.to_owned(),
        message: "needs authentication (HTTP 401)".to_owned(),
        kind: FailureKind::NeedsAuth { challenge },
    }
}
