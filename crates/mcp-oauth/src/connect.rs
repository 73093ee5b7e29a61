//! Connecting with stored tokens ([`authorized_client`]) and telling whether a server wants
//! OAuth at all ([`probe_auth`]).

use std::time::Duration;

use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationManager, AuthorizationMetadataSource};

use crate::store::{OAuthStore, ServerCredentialStore, token_field};
use crate::{OAuthError, check_endpoint, install_crypto};

/// The HTTP client that an [`AuthClient`] wraps for the MCP requests themselves.
fn http_client(timeout: Option<Duration>) -> Result<reqwest::Client, OAuthError> {
    install_crypto();
    let mut builder = reqwest::Client::builder();
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build().map_err(|error| OAuthError::Http(format!("cannot build an HTTP client: {error}")))
}

/// An HTTP client for rmcp's `StreamableHttpClientTransport::with_client` that puts the stored
/// access token of `server_name`/`server_url` on every request, or `None` when the server needs
/// (again) an authorization first.
///
/// - no token file, or one with no tokens (a refresh token the server rejected) → `None`;
/// - the server's authorization server moved (another issuer) → the old tokens are cleared, `None`;
/// - an access token that expired is refreshed now with the refresh token; a refresh the server
///   refuses, or no refresh token → `None` ("needs authentication again"), as Claude Code then
///   shows the server as needing authentication;
/// - later, while connected, the client refreshes an access token as it nears its expiry, and
///   once more when the server answers 401; a 401 that survives that comes out of the transport
///   as `StreamableHttpError::AuthRequired` with the server's challenge.
///
/// Discovery runs again here (the metadata is not cached), so this makes a few HTTP requests.
///
/// # Errors
/// [`OAuthError::Store`] for an unreadable or corrupt token file; [`OAuthError::InsecureUrl`]
/// for a plain-`http` non-loopback server or token endpoint; [`OAuthError::Auth`] when discovery
/// fails or a refresh fails for a reason worth retrying (network, a server error).
pub async fn authorized_client(
    server_name: &str,
    server_url: &str,
    store: &OAuthStore,
) -> Result<Option<AuthClient<reqwest::Client>>, OAuthError> {
    match authorized_manager(server_name, server_url, store).await? {
        Some(manager) => Ok(Some(AuthClient::new(http_client(None)?, manager))),
        None => Ok(None),
    }
}

/// What [`authorized_client`] wraps: the signed-in `AuthorizationManager` of `server_name` at
/// `server_url` (tokens loaded, an expired access token refreshed), for a caller that puts its
/// own HTTP client under rmcp's `AuthClient` (`AuthClient::new(client, manager)`). `Ok(None)`
/// in the same cases.
///
/// The tokens are read and, when expired, refreshed under the token file's lock
/// ([`crate::ServerCredentialStore::while_locked`]), so of several processes starting at once
/// with an expired access token one refreshes and the others use what it saved. A refresh the
/// server refuses is not the end while the file holds other tokens by then (another process
/// saved them, e.g. a sign-in): those are tried once before giving up.
///
/// # Errors
/// As [`authorized_client`].
pub async fn authorized_manager(
    server_name: &str,
    server_url: &str,
    store: &OAuthStore,
) -> Result<Option<AuthorizationManager>, OAuthError> {
    check_endpoint("MCP server", server_url)?;
    let file = store.server(server_name, server_url);
    if !read_tokens(&file).await?.is_some_and(|tokens| tokens.is_signed_in()) {
        return Ok(None);
    }
    install_crypto();
    let (manager, tried) = manager_from_store(server_url, &file).await?;
    if manager.is_some() {
        return Ok(manager);
    }
    // Refused, or nothing usable: tokens saved since by another process are worth one more try.
    match read_tokens(&file).await? {
        Some(now) if now.is_signed_in() && Some(&now) != tried.as_ref() => {
            Ok(manager_from_store(server_url, &file).await?.0)
        }
        _ => Ok(None),
    }
}

/// The tokens of a token file, as far as telling two saves apart goes.
#[derive(Debug, PartialEq, Eq)]
struct Tokens {
    access: Option<String>,
    refresh: Option<String>,
}

impl Tokens {
    fn is_signed_in(&self) -> bool {
        self.access.is_some() || self.refresh.is_some()
    }
}

/// The tokens stored in `file` now; `None` without a file.
async fn read_tokens(file: &ServerCredentialStore) -> Result<Option<Tokens>, OAuthError> {
    let file = file.clone();
    let credentials = tokio::task::spawn_blocking(move || file.read())
        .await
        .map_err(|error| OAuthError::Store(format!("the token file task failed: {error}")))??;
    Ok(credentials.map(|credentials| Tokens {
        access: token_field(&credentials, "access_token"),
        refresh: token_field(&credentials, "refresh_token"),
    }))
}

/// One attempt: discovery, then — under the token file's lock — the stored tokens, refreshed
/// if expired. Returns the manager when signed in, and the tokens the attempt started from.
async fn manager_from_store(
    server_url: &str,
    file: &ServerCredentialStore,
) -> Result<(Option<AuthorizationManager>, Option<Tokens>), OAuthError> {
    let mut manager = AuthorizationManager::new(server_url).await?;
    manager.set_credential_store(file.clone());
    let resolution = manager.resolve_metadata().await?;
    if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Err(OAuthError::NoMetadata(server_url.to_owned()));
    }
    check_endpoint("token endpoint", &resolution.metadata.token_endpoint)?;
    manager.set_metadata(resolution.metadata);
    let (tried, signed_in) = file
        .while_locked(async {
            // Read inside the lock: what another process saved a moment ago counts.
            let tried = read_tokens(file).await?;
            if !manager.initialize_from_store().await? {
                return Ok((tried, false));
            }
            match manager.get_access_token().await {
                Ok(_) => Ok((tried, true)),
                Err(AuthError::AuthorizationRequired) => Ok((tried, false)),
                Err(error) => Err(OAuthError::from(error)),
            }
        })
        .await??;
    Ok((signed_in.then_some(manager), tried))
}

/// What a server said to a request without credentials ([`probe_auth`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthProbe {
    /// It did not answer 401: no authorization needed (or none this crate can give).
    Open,
    /// 401 with a `Bearer` challenge: OAuth is needed. `challenge` is the `WWW-Authenticate` value
    /// (pass it as [`crate::AuthorizeOptions::challenge`]; it usually names the RFC 9728
    /// `resource_metadata`).
    NeedsAuth {
        /// The `WWW-Authenticate` header's value.
        challenge: String,
    },
    /// 401 without a `Bearer` challenge (an API key, Basic auth): OAuth cannot help.
    Unauthorized {
        /// The `WWW-Authenticate` header's value, if any.
        challenge: Option<String>,
    },
}

/// Asks `server_url` (an MCP Streamable HTTP endpoint) whether it needs OAuth: POSTs an
/// `initialize` request without credentials and reads the answer (see [`AuthProbe`]). A session
/// the server opens for the probe is ended with a DELETE. Waits at most `timeout`.
///
/// This is how Claude Code learns that a remote server needs authentication (its connect gets a
/// 401 and the server is marked `needs-auth`).
///
/// # Errors
/// [`OAuthError::InsecureUrl`] for a plain-`http` non-loopback URL; [`OAuthError::Http`] when the
/// server cannot be reached.
pub async fn probe_auth(server_url: &str, timeout: Duration) -> Result<AuthProbe, OAuthError> {
    check_endpoint("MCP server", server_url)?;
    let client = http_client(Some(timeout))?;
    let initialize = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": crate::DEFAULT_CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let response = client
        .post(server_url)
        .header(reqwest::header::ACCEPT, "application/json, text/event-stream")
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(initialize.to_string())
        .send()
        .await
        .map_err(|error| OAuthError::Http(format!("cannot reach {server_url}: {error}")))?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        if let Some(session) = response.headers().get("mcp-session-id").cloned() {
            let _ = client.delete(server_url).header("mcp-session-id", session).send().await;
        }
        return Ok(AuthProbe::Open);
    }
    let challenges: Vec<String> = response
        .headers()
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .map(str::to_owned)
        .collect();
    let bearer = challenges.iter().find(|value| {
        value.trim_start().split([' ', ',']).next().is_some_and(|scheme| scheme.eq_ignore_ascii_case("bearer"))
    });
    Ok(match bearer {
        Some(challenge) => AuthProbe::NeedsAuth { challenge: challenge.clone() },
        None => AuthProbe::Unauthorized { challenge: challenges.into_iter().next() },
    })
}
