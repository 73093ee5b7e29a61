//! The whole OAuth flow against the real local fixture (an authorization server and a protected
//! MCP server on 127.0.0.1): discovery, registration, PKCE, the loopback callback, the token
//! file, an rmcp client on the stored tokens, and refreshes.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse, redirect_target};
use agent_tools_mcp_oauth::{
    AuthClient, AuthProbe, AuthorizeOptions, OAuthError, OAuthStore, PendingAuthorization, authorize,
    authorized_client, probe_auth,
};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

const NAME: &str = "fixture";

async fn start(options: FixtureOptions) -> (Fixture, tempfile::TempDir, OAuthStore) {
    let fixture = Fixture::start(options).await.unwrap();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    (fixture, config, store)
}

async fn begin(fixture: &Fixture, store: &OAuthStore) -> PendingAuthorization {
    authorize(NAME, &fixture.mcp_url(), store, AuthorizeOptions::default()).await.unwrap()
}

/// The whole sign-in: start, the browser's visit, the stored tokens.
async fn sign_in(fixture: &Fixture, store: &OAuthStore) {
    let pending = begin(fixture, store).await;
    let page = browse(pending.auth_url()).await.unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    pending.wait().await.unwrap();
}

async fn connect(
    client: AuthClient<reqwest::Client>,
    url: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let transport =
        StreamableHttpClientTransport::with_client(client, StreamableHttpClientTransportConfig::with_uri(url));
    ().serve(transport).await.unwrap()
}

async fn echo(service: &rmcp::service::RunningService<rmcp::RoleClient, ()>, text: &str) -> String {
    let arguments = serde_json::json!({"text": text}).as_object().cloned().unwrap();
    let result = service.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments)).await.unwrap();
    let result = serde_json::to_value(&result).unwrap();
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn stored_access_token(store: &OAuthStore, url: &str) -> String {
    let text = std::fs::read_to_string(store.server(NAME, url).path()).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    file["credentials"]["token_response"]["access_token"].as_str().unwrap().to_owned()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_tokens_needs_auth() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let probe = probe_auth(&fixture.mcp_url(), Duration::from_secs(5)).await.unwrap();
    let AuthProbe::NeedsAuth { challenge } = probe else { panic!("expected NeedsAuth, got {probe:?}") };
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            fixture.mcp_url().trim_end_matches("/mcp")
        )
    );
    assert!(authorized_client(NAME, &fixture.mcp_url(), &store).await.unwrap().is_none());
    assert!(!store.dir().exists(), "nothing is written before a sign-in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_full_flow_stores_private_tokens_and_an_rmcp_client_lists_and_calls_the_tool() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let url = fixture.mcp_url();
    let AuthProbe::NeedsAuth { challenge } = probe_auth(&url, Duration::from_secs(5)).await.unwrap() else {
        panic!("the fixture wants OAuth")
    };
    let options = AuthorizeOptions { challenge: Some(challenge), ..AuthorizeOptions::default() };
    let pending = authorize(NAME, &url, &store, options).await.unwrap();
    assert!(pending.redirect_uri().starts_with("http://127.0.0.1:"), "{}", pending.redirect_uri());
    assert!(pending.redirect_uri().ends_with("/callback"));
    let auth = url::Url::parse(pending.auth_url()).unwrap();
    assert_eq!(auth.as_str().split('?').next().unwrap(), format!("{}/authorize", fixture.issuer()));
    let query: std::collections::HashMap<String, String> = auth.query_pairs().into_owned().collect();
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["response_type"], "code");
    assert_eq!(query["redirect_uri"], pending.redirect_uri());
    assert_eq!(query["resource"], url);
    assert!(query["state"].len() >= 16);
    assert_eq!(fixture.registrations(), 1, "no client id configured: one dynamic registration");

    let page = browse(pending.auth_url()).await.unwrap();
    assert_eq!(page.status, 200);
    assert!(page.url.starts_with(pending.redirect_uri()), "{}", page.url);
    assert!(page.body.contains("Signed in"), "{}", page.body);
    pending.wait().await.unwrap();
    assert_eq!(fixture.code_grants(), 1);

    let file = store.server(NAME, &url);
    assert!(file.has_tokens().unwrap());
    #[cfg(unix)]
    {
        assert_eq!(mode(file.path()), 0o600);
        assert_eq!(mode(store.dir()), 0o700);
    }
    let mut names: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
    // The token file and its lock file (held while the code was exchanged and saved).
    assert_eq!(names, [name(&file.lock_path()), name(file.path())], "no temporary file is left");
    #[cfg(unix)]
    assert_eq!(mode(&file.lock_path()), 0o600);

    let client = authorized_client(NAME, &url, &store).await.unwrap().expect("tokens are stored");
    let service = connect(client, &url).await;
    let tools = service.list_all_tools().await.unwrap();
    assert_eq!(tools.iter().map(|tool| tool.name.to_string()).collect::<Vec<_>>(), ["echo"]);
    assert_eq!(echo(&service, "hello").await, "echo: hello");
    assert_eq!(fixture.tool_calls(), 1);
    assert_eq!(fixture.refresh_grants(), 0);
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_access_token_is_refreshed_before_the_next_call() {
    let options = FixtureOptions { access_token_lifetime: Duration::from_secs(1), ..FixtureOptions::default() };
    let (fixture, _config, store) = start(options).await;
    let url = fixture.mcp_url();
    sign_in(&fixture, &store).await;
    let first = stored_access_token(&store, &url);
    let service = connect(authorized_client(NAME, &url, &store).await.unwrap().unwrap(), &url).await;
    assert_eq!(echo(&service, "one").await, "echo: one");
    // tidy:allow-sleep the access token must expire in real time (its lifetime is 1 s).
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert_eq!(echo(&service, "two").await, "echo: two");
    assert!(fixture.refresh_grants() >= 1, "the second call needed a refresh");
    assert_ne!(stored_access_token(&store, &url), first, "the refreshed token was stored");
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_server_stops_accepting_is_refreshed_and_the_call_retried() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let url = fixture.mcp_url();
    sign_in(&fixture, &store).await;
    let service = connect(authorized_client(NAME, &url, &store).await.unwrap().unwrap(), &url).await;
    assert_eq!(echo(&service, "before").await, "echo: before");
    let refused = fixture.refused_requests();
    fixture.revoke_access_tokens();
    assert_eq!(echo(&service, "after").await, "echo: after");
    assert!(fixture.refused_requests() > refused, "the old token was refused");
    // The call's retry refreshes once; another request of the client in flight at the same
    // moment may meet the revoked token too and refresh after it (refreshes are serialised, not
    // merged): two grants were seen once in a full run on a loaded 2-core machine.
    let grants = fixture.refresh_grants();
    assert!((1..=2).contains(&grants), "{grants} refresh grants");
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_means_signing_in_again() {
    let options = FixtureOptions { access_token_lifetime: Duration::from_secs(1), ..FixtureOptions::default() };
    let (fixture, _config, store) = start(options).await;
    let url = fixture.mcp_url();
    sign_in(&fixture, &store).await;
    fixture.revoke_refresh_tokens();
    // tidy:allow-sleep the access token must expire in real time (its lifetime is 1 s).
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert!(authorized_client(NAME, &url, &store).await.unwrap().is_none());
    let file = store.server(NAME, &url);
    assert!(!file.has_tokens().unwrap(), "the refused tokens are dropped");
    assert!(file.read().unwrap().is_some(), "the client id stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_with_another_state_is_refused_stores_nothing_and_the_flow_goes_on() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let pending = begin(&fixture, &store).await;
    let target = redirect_target(pending.auth_url()).await.unwrap();
    let mut forged = url::Url::parse(&target).unwrap();
    let pairs: Vec<(String, String)> = forged.query_pairs().into_owned().collect();
    forged.query_pairs_mut().clear();
    for (key, value) in &pairs {
        let value = if key == "state" { format!("{value}x") } else { value.clone() };
        forged.query_pairs_mut().append_pair(key, &value);
    }
    let page = browse(forged.as_str()).await.unwrap();
    assert_eq!(page.status, 400);
    assert!(page.body.contains("state does not match"), "{}", page.body);
    // A state of the same length but other characters, and none at all, fare no better.
    let mut same_length = url::Url::parse(&target).unwrap();
    same_length.query_pairs_mut().clear();
    for (key, value) in &pairs {
        let value = if key == "state" { "A".repeat(value.len()) } else { value.clone() };
        same_length.query_pairs_mut().append_pair(key, &value);
    }
    assert_eq!(browse(same_length.as_str()).await.unwrap().status, 400);
    let code = pairs.iter().find(|(key, _)| key == "code").unwrap().1.clone();
    let no_state = format!("{}?code={code}", pending.redirect_uri());
    assert_eq!(browse(&no_state).await.unwrap().status, 400);
    let elsewhere = pending.redirect_uri().replace("/callback", "/favicon.ico");
    assert_eq!(browse(&elsewhere).await.unwrap().status, 404);
    assert!(!store.dir().exists(), "nothing was stored");
    assert_eq!(fixture.code_grants(), 0, "the code was never exchanged");

    // The real redirect still completes the flow.
    assert_eq!(browse(&target).await.unwrap().status, 200);
    pending.wait().await.unwrap();
    assert!(store.server(NAME, &fixture.mcp_url()).has_tokens().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pkce_verifier_the_server_refuses_fails_the_flow() {
    let options = FixtureOptions { break_pkce: true, ..FixtureOptions::default() };
    let (fixture, _config, store) = start(options).await;
    let pending = begin(&fixture, &store).await;
    let page = browse(pending.auth_url()).await.unwrap();
    assert_eq!(page.status, 400);
    assert!(page.body.contains("could not be completed"), "{}", page.body);
    let error = pending.wait().await.unwrap_err();
    assert!(matches!(error, OAuthError::Auth(_)), "{error:?}");
    assert!(error.to_string().contains("token exchange failed"), "{error}");
    assert_eq!(fixture.code_grants(), 0);
    assert!(!store.server(NAME, &fixture.mcp_url()).path().exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_in_the_redirect_ends_the_flow() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let pending = begin(&fixture, &store).await;
    let target = url::Url::parse(&redirect_target(pending.auth_url()).await.unwrap()).unwrap();
    let state = target.query_pairs().find(|(key, _)| key == "state").unwrap().1.into_owned();
    let mut refused = url::Url::parse(pending.redirect_uri()).unwrap();
    refused
        .query_pairs_mut()
        .append_pair("error", "access_denied")
        .append_pair("error_description", "<b>no</b>")
        .append_pair("state", &state);
    let page = browse(refused.as_str()).await.unwrap();
    assert_eq!(page.status, 400);
    assert!(page.body.contains("access_denied: &lt;b&gt;no&lt;/b&gt;"), "{}", page.body);
    let error = pending.wait().await.unwrap_err();
    assert_eq!(error.to_string(), "authorization refused: access_denied: <b>no</b>");
    assert!(!store.dir().exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_nobody_finishes_times_out_and_closes_its_port() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let options = AuthorizeOptions { timeout: Duration::from_millis(200), ..AuthorizeOptions::default() };
    let pending = authorize(NAME, &fixture.mcp_url(), &store, options).await.unwrap();
    let port = url::Url::parse(pending.redirect_uri()).unwrap().port().unwrap();
    let error = pending.wait().await.unwrap_err();
    assert!(matches!(error, OAuthError::TimedOut(_)), "{error:?}");
    let closed = agent_tools_testkit::eventually(Duration::from_secs(5), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    })
    .await;
    assert!(closed, "the callback port is closed after the flow");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_pending_flow_closes_its_port() {
    let (fixture, _config, store) = start(FixtureOptions::default()).await;
    let pending = begin(&fixture, &store).await;
    let port = url::Url::parse(pending.redirect_uri()).unwrap().port().unwrap();
    drop(pending);
    let closed = agent_tools_testkit::eventually(Duration::from_secs(5), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    })
    .await;
    assert!(closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_to_a_remote_host_is_refused_before_any_request() {
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    let url = "http://mcp.example.com/mcp";
    let expected = format!("refusing the MCP server {url}: only https, or http on 127.0.0.1/localhost, is allowed");
    let error = authorize(NAME, url, &store, AuthorizeOptions::default()).await.unwrap_err();
    assert_eq!(error.to_string(), expected);
    assert_eq!(authorized_client(NAME, url, &store).await.unwrap_err().to_string(), expected);
    assert_eq!(probe_auth(url, Duration::from_secs(1)).await.unwrap_err().to_string(), expected);
}
