//! The authorization-code flow with PKCE, without a browser: [`authorize`] discovers the
//! server's authorization server, registers a client when none is configured, listens on a
//! loopback port for the browser's redirect, and hands back the URL for the user plus a
//! [`PendingAuthorization`] that completes when the tokens are stored.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadataSource, AuthorizationRequest, AuthorizationSession,
};
use tokio::net::TcpListener;
use tokio::sync::{Mutex, oneshot};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::store::{OAuthStore, ServerCredentialStore};
use crate::{OAuthError, check_endpoint, install_crypto};

/// The path of the loopback redirect URI (`http://127.0.0.1:<port>/callback`).
pub const CALLBACK_PATH: &str = "/callback";

/// How long a flow waits for the browser by default: 5 minutes (Claude Code's MCP OAuth flow
/// gives up after 5 minutes too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The client name sent with dynamic client registration by default.
pub const DEFAULT_CLIENT_NAME: &str = "agent-tools";

/// How to run one authorization (Claude Code's per-server `oauth` settings, `clientId` and
/// `callbackPort`, plus the flow's limits).
#[derive(Debug, Clone)]
pub struct AuthorizeOptions {
    /// A client id registered with the authorization server beforehand; `None` registers one
    /// dynamically (RFC 7591), as Claude Code does when a server's config names none.
    pub client_id: Option<String>,
    /// The secret of `client_id`, for a confidential pre-registered client.
    pub client_secret: Option<String>,
    /// The `client_name` sent when registering (default [`DEFAULT_CLIENT_NAME`]).
    pub client_name: String,
    /// Scopes to ask for; empty lets the server's challenge and metadata decide.
    pub scopes: Vec<String>,
    /// The loopback port of the redirect URI; 0 (the default) picks a free one. A pre-registered
    /// client usually needs the port it was registered with (Claude Code's `callbackPort`).
    pub callback_port: u16,
    /// How long to wait for the browser's redirect (default [`DEFAULT_TIMEOUT`]); the flow then
    /// fails with [`OAuthError::TimedOut`] and the port is closed.
    pub timeout: Duration,
    /// The `WWW-Authenticate` value of the server's 401 (from [`crate::probe_auth`] or a failed
    /// connect), which names its resource metadata; `None` discovers it from the server.
    pub challenge: Option<String>,
}

impl Default for AuthorizeOptions {
    fn default() -> Self {
        Self {
            client_id: None,
            client_secret: None,
            client_name: DEFAULT_CLIENT_NAME.to_owned(),
            scopes: Vec::new(),
            callback_port: 0,
            timeout: DEFAULT_TIMEOUT,
            challenge: None,
        }
    }
}

/// A flow waiting for the user: open [`PendingAuthorization::auth_url`] in a browser, then
/// [`PendingAuthorization::wait`] for the outcome.
///
/// Dropping it (or the future of `wait`) abandons the flow and closes the loopback port.
#[derive(Debug)]
pub struct PendingAuthorization {
    auth_url: String,
    redirect_uri: String,
    outcome: oneshot::Receiver<Result<(), OAuthError>>,
    _stop: DropGuard,
}

impl PendingAuthorization {
    /// The authorization server's URL for the user to open (with `client_id`, `redirect_uri`,
    /// `state`, the PKCE `code_challenge` and `resource`).
    pub fn auth_url(&self) -> &str {
        &self.auth_url
    }

    /// The loopback redirect URI the browser comes back to (`http://127.0.0.1:<port>/callback`).
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits until the browser came back and the tokens are stored (`Ok`), or the flow failed:
    /// the user or server refused ([`OAuthError::Denied`]), the code exchange failed
    /// ([`OAuthError::Auth`], e.g. a PKCE verifier the server did not accept), the store could
    /// not be written, or the timeout passed ([`OAuthError::TimedOut`]). Callbacks whose `state`
    /// does not match are answered with an error page and ignored: they neither end the flow nor
    /// store anything.
    ///
    /// # Errors
    /// As above.
    pub async fn wait(self) -> Result<(), OAuthError> {
        let Self { outcome, _stop, .. } = self;
        outcome.await.unwrap_or_else(|_| Err(OAuthError::Callback("the callback listener stopped".to_owned())))
    }
}

/// Starts the authorization of the MCP server `server_url` (configured as `server_name`) and
/// returns once the URL for the user is ready; no browser is opened.
///
/// Steps: discovery (RFC 9728 protected-resource metadata, from `options.challenge` or the
/// server's own 401 or its well-known URL, then RFC 8414 authorization-server metadata); a check
/// that every endpoint is `https` or loopback `http`; a loopback listener on
/// `127.0.0.1:<callback_port>`; dynamic client registration (RFC 7591) unless
/// `options.client_id` is set; an authorization URL with PKCE S256 and a random `state`. The
/// listener then waits (at most `options.timeout`) for the redirect, compares its `state`
/// exactly, exchanges the code, stores the tokens in `store` (see
/// [`crate::store::ServerCredentialStore`]), answers the browser with a short page and stops.
///
/// Mirrors Claude Code's MCP OAuth flow (`performMCPOAuthFlow`) minus opening the browser, which
/// is the caller's (or the user's) part.
///
/// # Errors
/// [`OAuthError::InsecureUrl`] for a plain-`http` non-loopback server or endpoint;
/// [`OAuthError::NoMetadata`] when the server publishes no OAuth metadata;
/// [`OAuthError::Auth`] when discovery or registration fails; [`OAuthError::Callback`] when the
/// port cannot be bound.
pub async fn authorize(
    server_name: &str,
    server_url: &str,
    store: &OAuthStore,
    options: AuthorizeOptions,
) -> Result<PendingAuthorization, OAuthError> {
    check_endpoint("MCP server", server_url)?;
    install_crypto();
    let mut manager = AuthorizationManager::new(server_url).await?;
    let tokens = store.server(server_name, server_url);
    manager.set_credential_store(tokens.clone());
    let resolution = manager.resolve_metadata_from_challenge(options.challenge.as_deref()).await?;
    if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Err(OAuthError::NoMetadata(server_url.to_owned()));
    }
    let metadata = resolution.metadata;
    check_endpoint("authorization endpoint", &metadata.authorization_endpoint)?;
    check_endpoint("token endpoint", &metadata.token_endpoint)?;
    if let Some(registration) = &metadata.registration_endpoint {
        check_endpoint("registration endpoint", registration)?;
    }
    manager.set_metadata(metadata);

    let listener =
        TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, options.callback_port))).await.map_err(|error| {
            OAuthError::Callback(format!("cannot listen on 127.0.0.1:{}: {error}", options.callback_port))
        })?;
    let port = listener
        .local_addr()
        .map_err(|error| OAuthError::Callback(format!("cannot read the callback port: {error}")))?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");

    let mut request = AuthorizationRequest::new(&redirect_uri).with_client_name(&options.client_name);
    if !options.scopes.is_empty() {
        request = request.with_scopes(options.scopes.iter().cloned());
    }
    if let Some(client_id) = &options.client_id {
        request = request.with_preregistered_client(client_id);
        if let Some(secret) = &options.client_secret {
            request = request.with_client_secret(secret);
        }
    }
    let session = AuthorizationSession::new(manager, request).await.map_err(|(_, error)| OAuthError::Auth(error))?;
    let auth_url = session.get_authorization_url().to_owned();
    check_endpoint("authorization URL", &auth_url)?;
    let state = url::Url::parse(&auth_url)
        .ok()
        .and_then(|url| url.query_pairs().find(|(key, _)| key == "state").map(|(_, value)| value.into_owned()))
        .ok_or_else(|| OAuthError::Callback("the authorization URL carries no state".to_owned()))?;

    let (sender, outcome) = oneshot::channel();
    let stop = CancellationToken::new();
    let callback = Arc::new(Callback {
        session,
        state,
        sender: Mutex::new(Some(sender)),
        stop: stop.clone(),
        server_name: server_name.to_owned(),
        tokens,
    });
    tokio::spawn(serve(listener, callback, options.timeout));
    tracing::debug!(server = server_name, %redirect_uri, "OAuth flow waiting for the browser");
    Ok(PendingAuthorization { auth_url, redirect_uri, outcome, _stop: stop.drop_guard() })
}

/// What the callback listener shares between its connections.
struct Callback {
    session: AuthorizationSession,
    state: String,
    /// Taken by whoever ends the flow (the one good callback, a refusal, the timeout).
    sender: Mutex<Option<oneshot::Sender<Result<(), OAuthError>>>>,
    stop: CancellationToken,
    server_name: String,
    /// The server's token file (its lock is held while the code is exchanged and saved).
    tokens: ServerCredentialStore,
}

impl Callback {
    async fn finish(&self, outcome: Result<(), OAuthError>) {
        if let Some(sender) = self.sender.lock().await.take() {
            let _ = sender.send(outcome);
        }
        self.stop.cancel();
    }
}

async fn serve(listener: TcpListener, callback: Arc<Callback>, timeout: Duration) {
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::debug!(%error, "callback listener: accept failed");
                    continue;
                }
            },
            () = &mut deadline => {
                callback.finish(Err(OAuthError::TimedOut(timeout))).await;
                break;
            }
            () = callback.stop.cancelled() => break,
        };
        let callback = Arc::clone(&callback);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let callback = Arc::clone(&callback);
                async move { Ok::<_, Infallible>(handle(&callback, &request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            if let Err(error) = connection.await {
                tracing::debug!(%error, "callback connection ended");
            }
        });
    }
}

/// Answers one request to the listener.
async fn handle(callback: &Callback, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    if request.uri().path() != CALLBACK_PATH {
        return page(StatusCode::NOT_FOUND, "Not found", "This address only receives the sign-in redirect.");
    }
    let query = request.uri().query().unwrap_or_default();
    let param = |name: &str| {
        url::form_urlencoded::parse(query.as_bytes()).find(|(key, _)| key == name).map(|(_, value)| value.into_owned())
    };
    let state_matches = param("state").is_some_and(|state| same_secret(state.as_bytes(), callback.state.as_bytes()));
    if !state_matches {
        tracing::warn!(server = %callback.server_name, "OAuth callback with a state that does not match; ignored");
        return page(
            StatusCode::BAD_REQUEST,
            "Sign-in not accepted",
            "This redirect does not belong to the sign-in in progress (its state does not match), so nothing was \
             stored. Start again from the link the assistant gave you.",
        );
    }
    if let Some(error) = param("error") {
        let description = param("error_description").unwrap_or_default();
        let shown = if description.is_empty() { error.clone() } else { format!("{error}: {description}") };
        callback.finish(Err(OAuthError::Denied(shown.clone()))).await;
        return page(StatusCode::BAD_REQUEST, "Sign-in refused", &format!("The authorization server said: {shown}"));
    }
    let Some(code) = param("code") else {
        callback.finish(Err(OAuthError::Callback("the redirect carried no code".to_owned()))).await;
        return page(StatusCode::BAD_REQUEST, "Sign-in failed", "The redirect carried no authorization code.");
    };
    let mut slot = callback.sender.lock().await;
    let Some(sender) = slot.take() else {
        return page(StatusCode::OK, "Sign-in already finished", "You can close this tab.");
    };
    let issuer = param("iss");
    // The save happens under the token file's lock, so it never lands in the middle of another
    // process's refresh (which would then overwrite it with tokens of the old grant).
    let exchanged = async {
        let _lock = callback.tokens.lock().await?;
        callback
            .session
            .handle_callback_with_issuer(&code, &callback.state, issuer.as_deref())
            .await
            .map_err(OAuthError::Auth)
    }
    .await;
    drop(slot);
    let response = match &exchanged {
        Ok(_) => page(
            StatusCode::OK,
            "Signed in",
            &format!(
                "agent-tools is now signed in to the MCP server \"{}\". You can close this tab.",
                callback.server_name
            ),
        ),
        Err(error) => {
            page(StatusCode::BAD_REQUEST, "Sign-in failed", &format!("The sign-in could not be completed: {error}"))
        }
    };
    let _ = sender.send(exchanged.map(drop));
    callback.stop.cancel();
    response
}

/// Equality of two secrets in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A short HTML page for the browser.
fn page(status: StatusCode, title: &str, message: &str) -> Response<Full<Bytes>> {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body style=\"font-family: sans-serif; margin: 3em\"><h1>{title}</h1><p>{}</p></body></html>",
        escape_html(message),
        title = escape_html(title),
    );
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-store"));
    response
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_exactly() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }

    #[test]
    fn pages_escape_what_a_server_sends() {
        assert_eq!(
            escape_html("<script>\"x\" & 'y'</script>"),
            "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
        );
    }
}
