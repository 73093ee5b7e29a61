//! # agent-tools-mcp-oauth: OAuth 2.1 for remote MCP servers
//!
//! What Claude Code does for an MCP server that answers 401: find its authorization server,
//! sign the user in with the authorization-code flow and PKCE, keep the tokens, refresh them,
//! and connect with them. Built on rmcp's OAuth support (`AuthorizationManager`, `AuthClient`);
//! this crate adds the parts an agent needs around it:
//!
//! - [`OAuthStore`]: the tokens in the user's config folder (`<dir>/mcp-oauth/`, folder `0700`,
//!   files `0600`, written atomically), one file per server name and URL, as rmcp's
//!   `CredentialStore`; refreshes and sign-ins save under a lock shared by every process using
//!   the file ([`ServerCredentialStore::lock`]), so processes sharing a server whose refresh
//!   tokens rotate all stay signed in;
//! - [`authorize`]: starts a flow without opening a browser — discovery (RFC 9728, RFC 8414),
//!   dynamic client registration (RFC 7591) when no client id is configured, PKCE S256, a loopback
//!   callback on `127.0.0.1` that checks `state`, exchanges the code, stores the tokens and stops —
//!   and returns the URL for the user with a [`PendingAuthorization`] to wait on (bounded,
//!   5 minutes by default);
//! - [`authorized_client`]: an `AuthClient<reqwest::Client>` for rmcp's
//!   `StreamableHttpClientTransport::with_client` when tokens are stored (refreshed when expired),
//!   `None` when the server needs authenticating (again);
//! - [`probe_auth`]: whether a server wants OAuth (401 with a `Bearer` challenge).
//!
//! Only `https` URLs, or `http` on a loopback host (`127.0.0.0/8`, `::1`, `localhost`), are used
//! for the server and its authorization endpoints. Tokens are never logged. The library never
//! reads environment variables: the caller passes the config folder.
//!
//! With the `fixture` feature, the `fixture` module runs a real OAuth authorization server and a protected
//! MCP server on `127.0.0.1` — what this example and the tests use:
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use agent_tools_mcp_oauth::{AuthProbe, AuthorizeOptions, OAuthStore, authorize, authorized_client, probe_auth};
//! use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
//!
//! let server = Fixture::start(FixtureOptions::default()).await.unwrap();
//! let url = server.mcp_url();
//! let config = tempfile::tempdir().unwrap();
//! let store = OAuthStore::new(config.path());
//!
//! // Without tokens the server answers 401 with a Bearer challenge.
//! let AuthProbe::NeedsAuth { challenge } = probe_auth(&url, Duration::from_secs(5)).await.unwrap() else {
//!     panic!("the fixture wants OAuth")
//! };
//! assert!(authorized_client("demo", &url, &store).await.unwrap().is_none());
//!
//! // Start the flow; the user would open this URL. Here a plain HTTP client plays the browser.
//! let options = AuthorizeOptions { challenge: Some(challenge), ..AuthorizeOptions::default() };
//! let pending = authorize("demo", &url, &store, options).await.unwrap();
//! assert!(pending.auth_url().contains("code_challenge_method=S256"));
//! let page = browse(pending.auth_url()).await.unwrap();
//! assert_eq!(page.status, 200);
//! pending.wait().await.unwrap();
//!
//! // The tokens are stored: the next connect gets an authorized client.
//! assert!(store.server("demo", &url).has_tokens().unwrap());
//! assert!(authorized_client("demo", &url, &store).await.unwrap().is_some());
//! # });
//! ```

mod connect;
#[cfg(feature = "fixture")]
pub mod fixture;
mod flow;
pub mod store;

use std::net::IpAddr;
use std::time::Duration;

pub use connect::{AuthProbe, authorized_client, authorized_manager, probe_auth};
pub use flow::{
    AuthorizeOptions, CALLBACK_PATH, DEFAULT_CLIENT_NAME, DEFAULT_TIMEOUT, PendingAuthorization, authorize,
};
/// rmcp's types this crate's API hands out (the authorized client, its errors, the stored
/// credentials).
pub use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationManager, StoredCredentials};
pub use store::{OAuthStore, ServerCredentialStore, TokenLock};

/// What can go wrong. Messages name URLs and files, never tokens.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// A URL that would carry tokens or codes in the clear: plain `http` to a host that is not
    /// loopback (or not a URL at all).
    #[error("refusing the {what} {url}: only https, or http on 127.0.0.1/localhost, is allowed")]
    InsecureUrl {
        /// Which URL (`MCP server`, `authorization endpoint`, `token endpoint` …).
        what: &'static str,
        /// The URL.
        url: String,
    },
    /// The server publishes no OAuth metadata (no RFC 9728 or RFC 8414 document).
    #[error("{0} publishes no OAuth metadata, so it cannot be signed in to")]
    NoMetadata(String),
    /// rmcp's OAuth machinery failed (discovery, registration, the code exchange, a refresh).
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// The token file cannot be read or written, or is not a valid token file.
    #[error("OAuth token store: {0}")]
    Store(String),
    /// The loopback callback failed (cannot listen, a malformed redirect).
    #[error("OAuth callback: {0}")]
    Callback(String),
    /// The user or the authorization server refused (`error` in the redirect).
    #[error("authorization refused: {0}")]
    Denied(String),
    /// Nobody came back from the browser within the flow's time.
    #[error("no sign-in arrived within {}", human(*.0))]
    TimedOut(Duration),
    /// An HTTP request of a probe failed.
    #[error("{0}")]
    Http(String),
}

/// `300 s`, `1500 ms`: a duration as people read it.
fn human(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) { format!("{} s", millis / 1000) } else { format!("{millis} ms") }
}

/// Checks that `url` may carry OAuth traffic: `https` with a host, or `http` to a loopback host
/// (`127.0.0.0/8`, `::1`, `localhost`, `*.localhost`), as RFC 8252 and the MCP authorization spec
/// allow for local servers.
///
/// # Errors
/// [`OAuthError::InsecureUrl`] naming `what` otherwise.
pub fn check_endpoint(what: &'static str, url: &str) -> Result<url::Url, OAuthError> {
    let refuse = || OAuthError::InsecureUrl { what, url: url.to_owned() };
    let parsed = url::Url::parse(url).map_err(|_| refuse())?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(domain)) => {
            let domain = domain.trim_end_matches('.').to_ascii_lowercase();
            domain == "localhost" || domain.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => return Err(refuse()),
    };
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if loopback => Ok(parsed),
        _ => Err(refuse()),
    }
}

/// reqwest is built without a TLS crypto provider; ring is the workspace's. Installing it again
/// (another crate did) is refused harmlessly.
pub(crate) fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_carries_tokens() {
        for good in [
            "https://auth.example.com/authorize",
            "http://127.0.0.1:8080/token",
            "http://127.5.6.7/token",
            "http://localhost:3000/mcp",
            "http://LOCALHOST./mcp",
            "http://api.localhost/mcp",
            "http://[::1]:9000/callback",
        ] {
            assert!(check_endpoint("test", good).is_ok(), "{good}");
        }
        for bad in [
            "http://auth.example.com/authorize",
            "http://10.0.0.1/token",
            "http://localhost.example.com/x",
            "ftp://127.0.0.1/x",
            "javascript:alert(1)",
            "not a url",
            "",
        ] {
            let error = check_endpoint("token endpoint", bad).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("refusing the token endpoint {bad}: only https, or http on 127.0.0.1/localhost, is allowed")
            );
        }
    }
}
