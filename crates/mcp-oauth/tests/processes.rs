//! One server's tokens shared by several processes, against the fixture's rotating refresh
//! tokens (each refresh spends the old refresh token): copies of this test binary connect at
//! the same moment with an expired access token, and every one of them keeps the server's tools.
//! Also: a refused refresh uses the tokens another writer saved while it was under way.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdout, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
use agent_tools_mcp_oauth::{
    AuthClient, AuthorizeOptions, OAuthStore, ServerCredentialStore, authorize, authorized_client,
};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

const NAME: &str = "fixture";
const CHILD_CONFIG: &str = "AGENT_TOOLS_MCP_OAUTH_TEST_CONFIG";
const CHILD_URL: &str = "AGENT_TOOLS_MCP_OAUTH_TEST_URL";
const CHILD_NAME: &str = "AGENT_TOOLS_MCP_OAUTH_TEST_NAME";
const PROCESSES: usize = 3;

async fn sign_in(fixture: &Fixture, store: &OAuthStore) {
    let pending = authorize(NAME, &fixture.mcp_url(), store, AuthorizeOptions::default()).await.unwrap();
    let page = browse(pending.auth_url()).await.unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    pending.wait().await.unwrap();
}

/// Lists the server's tools and calls `echo` with `text`: what a session does with the server.
async fn use_the_server(client: AuthClient<reqwest::Client>, url: &str, text: &str) -> (Vec<String>, String) {
    let transport =
        StreamableHttpClientTransport::with_client(client, StreamableHttpClientTransportConfig::with_uri(url));
    let service = ().serve(transport).await.unwrap();
    let tools = service.list_all_tools().await.unwrap().iter().map(|tool| tool.name.to_string()).collect();
    let arguments = serde_json::json!({"text": text}).as_object().cloned().unwrap();
    let result = service.call_tool(CallToolRequestParams::new("echo").with_arguments(arguments)).await.unwrap();
    let result = serde_json::to_value(&result).unwrap();
    let answer = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    service.cancel().await.unwrap();
    (tools, answer)
}

/// Makes the stored access token expired for the client (received two hours before now, for a
/// lifetime of one hour), as after a night's pause.
fn expire_for_the_client(file: &ServerCredentialStore) {
    let mut credentials = file.read().unwrap().unwrap();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    credentials.token_received_at = Some(now - 2 * 3600);
    file.write(credentials).unwrap();
}

fn access_token(file: &ServerCredentialStore) -> String {
    let credentials = serde_json::to_value(file.read().unwrap().unwrap()).unwrap();
    credentials["token_response"]["access_token"].as_str().unwrap().to_owned()
}

/// One process of the shared-tokens test: says `ready` (the harness may print its `test … `
/// before it on the line), waits for a line on stdin (so all of
/// them start together), connects with the stored tokens and uses the server.
#[test]
#[ignore = "a child of three_processes_with_an_expired_token_all_keep_the_servers_tools"]
fn connecting_child() {
    let (Ok(config), Ok(url), Ok(name)) =
        (std::env::var(CHILD_CONFIG), std::env::var(CHILD_URL), std::env::var(CHILD_NAME))
    else {
        return;
    };
    println!("ready");
    std::io::stdout().flush().unwrap();
    agent_tools_testkit::procs::await_release();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let store = OAuthStore::new(&config);
        let Some(client) = authorized_client(NAME, &url, &store).await.unwrap() else {
            println!("outcome: needs authentication");
            return;
        };
        let (tools, answer) = use_the_server(client, &url, &name).await;
        println!("outcome: tools {tools:?}, {answer}");
    });
}

fn spawn_child(config: &std::path::Path, url: &str, name: &str) -> Child {
    agent_tools_testkit::procs::test_role("connecting_child")
        .env(CHILD_CONFIG, config)
        .env(CHILD_URL, url)
        .env(CHILD_NAME, name)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Children that said `ready` and were told `go` at the same moment.
struct Started {
    children: Vec<Child>,
    outputs: Vec<BufReader<ChildStdout>>,
}

/// Waits until every child says `ready`, then tells them all `go`.
fn start_together(mut children: Vec<Child>) -> Started {
    let mut outputs: Vec<_> = children.iter_mut().map(|child| BufReader::new(child.stdout.take().unwrap())).collect();
    for (index, output) in outputs.iter_mut().enumerate() {
        let said_ready =
            std::io::BufRead::lines(&mut *output).map_while(Result::ok).any(|line| line.ends_with("ready"));
        assert!(said_ready, "child {index} never got ready");
    }
    agent_tools_testkit::procs::release(&mut children);
    Started { children, outputs }
}

/// Waits for the children to end; returns each one's `outcome:` line (or all it said).
fn finish(started: Started) -> Vec<String> {
    let Started { mut children, outputs } = started;
    let outcomes = outputs
        .into_iter()
        .map(|output| {
            let lines: Vec<String> = output.lines().map_while(Result::ok).collect();
            // The test harness may have put `test connecting_child ... ` before a line.
            let outcome = lines.iter().find_map(|line| line.find("outcome: ").map(|at| line[at..].to_owned()));
            outcome.unwrap_or_else(|| lines.join("\n"))
        })
        .collect();
    for (index, child) in children.iter_mut().enumerate() {
        assert!(child.wait().unwrap().success(), "child {index} failed");
    }
    outcomes
}

fn assert_all_kept_the_server(outcomes: &[String]) {
    for (index, outcome) in outcomes.iter().enumerate() {
        assert_eq!(outcome, &format!("outcome: tools [\"echo\"], echo: process {index}"), "process {index}");
    }
}

/// Spends the stored refresh token at the token endpoint by hand and saves what comes back,
/// as another process's refresh does.
async fn refresh_by_hand(fixture: &Fixture, file: &ServerCredentialStore) {
    let mut credentials = file.read().unwrap().unwrap();
    let stored = serde_json::to_value(&credentials).unwrap();
    let refresh_token = stored["token_response"]["refresh_token"].as_str().unwrap().to_owned();
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "refresh_token")
        .append_pair("refresh_token", &refresh_token)
        .append_pair("client_id", &credentials.client_id)
        .finish();
    let response = reqwest::Client::new()
        .post(format!("{}/token", fixture.issuer()))
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    credentials.token_response = Some(serde_json::from_str(&response.text().await.unwrap()).unwrap());
    credentials.token_received_at = Some(SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs());
    file.write(credentials).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_with_an_expired_token_all_keep_the_servers_tools() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let url = fixture.mcp_url();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    sign_in(&fixture, &store).await;
    let file = store.server(NAME, &url);
    let signed_in_with = access_token(&file);
    // Expired for the client and for the server alike: every process must refresh before it
    // can connect, and the one refresh token is good for one refresh only.
    expire_for_the_client(&file);
    fixture.revoke_access_tokens();

    let children: Vec<Child> =
        (0..PROCESSES).map(|index| spawn_child(config.path(), &url, &format!("process {index}"))).collect();
    let outcomes = tokio::task::spawn_blocking(move || finish(start_together(children))).await.unwrap();
    assert_all_kept_the_server(&outcomes);
    assert_eq!(fixture.tool_calls(), PROCESSES);
    // The first process in the lock refreshed; the others found its tokens inside the lock.
    assert_eq!(fixture.refresh_grants(), 1, "one refresh for {PROCESSES} processes");
    assert_eq!(fixture.refused_refreshes(), 0, "no process spent a refresh token spent already");
    assert_ne!(access_token(&file), signed_in_with, "the refreshed tokens are stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_waiting_for_the_lock_use_the_tokens_its_holder_saved() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let url = fixture.mcp_url();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    sign_in(&fixture, &store).await;
    let file = store.server(NAME, &url);
    expire_for_the_client(&file);
    fixture.revoke_access_tokens();

    // This test is the process in the middle of a refresh: it holds the lock while the three
    // start, discover the server and come to their tokens.
    let held = file.lock().await.unwrap();
    let discovered = fixture.metadata_requests();
    let children: Vec<Child> =
        (0..PROCESSES).map(|index| spawn_child(config.path(), &url, &format!("process {index}"))).collect();
    let started = tokio::task::spawn_blocking(move || start_together(children)).await.unwrap();
    let all_discovered = agent_tools_testkit::eventually(Duration::from_secs(30), || {
        fixture.metadata_requests() >= discovered + PROCESSES
    })
    .await;
    assert!(all_discovered, "the processes never discovered the server");
    refresh_by_hand(&fixture, &file).await;
    drop(held);

    let outcomes = tokio::task::spawn_blocking(move || finish(started)).await.unwrap();
    assert_all_kept_the_server(&outcomes);
    // Inside the lock each found the tokens saved by its holder: no refresh of their own.
    assert_eq!(fixture.refresh_grants(), 1, "only the holder's refresh");
    assert_eq!(fixture.refused_refreshes(), 0, "no process spent the refresh token the holder spent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_uses_the_tokens_another_process_saved_meanwhile() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let url = fixture.mcp_url();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    sign_in(&fixture, &store).await;
    let file = store.server(NAME, &url);
    expire_for_the_client(&file);
    fixture.revoke_access_tokens();
    fixture.revoke_refresh_tokens();
    // Another sign-in (elsewhere) whose tokens land in our file while our refresh is refused.
    let elsewhere = tempfile::tempdir().unwrap();
    let other_store = OAuthStore::new(elsewhere.path());
    sign_in(&fixture, &other_store).await;
    let newer = other_store.server(NAME, &url).read().unwrap().unwrap();
    let newer_access = serde_json::to_value(&newer).unwrap()["token_response"]["access_token"].clone();
    {
        let file = file.clone();
        fixture.on_refresh_request(move || file.write(newer.clone()).unwrap());
    }

    let client = authorized_client(NAME, &url, &store).await.unwrap().expect("the newer tokens are used");
    let (tools, answer) = use_the_server(client, &url, "still here").await;
    assert_eq!(tools, ["echo"]);
    assert_eq!(answer, "echo: still here");
    assert_eq!((fixture.refresh_grants(), fixture.refused_refreshes()), (0, 1), "the one refresh was refused");
    assert_eq!(access_token(&file), newer_access.as_str().unwrap(), "the newer tokens stay in the file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_lock_excludes_a_second_holder_until_dropped() {
    let config = tempfile::tempdir().unwrap();
    let file = OAuthStore::new(config.path()).server(NAME, "http://127.0.0.1:9/mcp");
    let held = file.lock().await.unwrap();
    assert!(agent_tools_files::FileLock::try_acquire(&file.lock_path()).unwrap().is_none(), "held across opens");
    let waiter = {
        let file = file.clone();
        tokio::spawn(async move { file.lock().await.map(drop) })
    };
    drop(held);
    waiter.await.unwrap().unwrap();
    // Inside `while_locked`, a nested `while_locked` of the same file does not wait for itself.
    let nested = file.while_locked(async { file.while_locked(async { 7 }).await.unwrap() }).await.unwrap();
    assert_eq!(nested, 7);
}
