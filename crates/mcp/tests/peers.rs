//! The client against real remote peers: `@modelcontextprotocol/server-everything` over
//! Streamable HTTP and over the legacy HTTP+SSE transport (from `MCP_PEER_EVERYTHING`, e.g.
//! `node /work/main/.ci/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
//! without it these tests print why and pass, unless `AGENT_TOOLS_REQUIRE_MCP_PEERS=1`), a tiny
//! HTTP server of the test's own that records the headers it gets and answers 401, and the
//! crate's stdio test server for requests no well-behaved server sends.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]
#![allow(deprecated)] // sampling is deprecated by SEP-2577 in rmcp, and still what servers use

use std::collections::BTreeSet;
use std::io::{Read as _, Write as _};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_tools_core::ProgressEvent;
use agent_tools_core::call_tool;
use agent_tools_mcp::config::{expand_env, parse_config};
use agent_tools_mcp::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Elicitor, FailureKind,
    McpOptions, McpSession, Sampler, connect_all,
};
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

mod common;

use common::{SERVER, ctx, find};

/// The 13 tools server-everything lists to a client that declares no capabilities.
const BASE_TOOLS: [&str; 13] = [
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
    "simulate-research-query",
];

/// The peer's command line, or `None` (with the reason printed) when the test should skip.
fn peer_command() -> Option<Vec<String>> {
    match std::env::var("MCP_PEER_EVERYTHING") {
        Ok(command) if !command.trim().is_empty() => Some(command.split_whitespace().map(str::to_owned).collect()),
        _ => {
            assert!(
                std::env::var("AGENT_TOOLS_REQUIRE_MCP_PEERS").as_deref() != Ok("1"),
                "AGENT_TOOLS_REQUIRE_MCP_PEERS=1 but MCP_PEER_EVERYTHING is not set"
            );
            eprintln!("skipped: MCP_PEER_EVERYTHING is not set (the server-everything command line)");
            None
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running server-everything, killed when dropped.
struct Peer {
    child: std::process::Child,
    command: Vec<String>,
    mode: &'static str,
    port: u16,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Peer {
    /// Starts server-everything in `mode` (`streamableHttp` or `sse`) and waits for its port.
    fn start(command: &[String], mode: &'static str) -> Self {
        Self::start_on(command, mode, free_port())
    }

    fn start_on(command: &[String], mode: &'static str, port: u16) -> Self {
        let peer = Self { child: spawn(command, mode, port), command: command.to_vec(), mode, port };
        wait_for_port(port);
        peer
    }

    /// Kills the peer and starts it again on the same port.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn(&self.command, self.mode, self.port);
        wait_for_port(self.port);
    }

    /// The server's config entry: `type` and `url` (`${PEER_PORT}` in it, expanded by the test).
    fn entry(&self) -> Value {
        match self.mode {
            "sse" => json!({"type": "sse", "url": "http://127.0.0.1:${PEER_PORT}/sse"}),
            _ => json!({"type": "http", "url": "http://127.0.0.1:${PEER_PORT}/mcp"}),
        }
    }
}

fn spawn(command: &[String], mode: &str, port: u16) -> std::process::Child {
    std::process::Command::new(&command[0])
        .args(&command[1..])
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start server-everything")
}

fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "server-everything did not listen on {port}");
        // tidy:allow-sleep polling a child process's port: nothing to wait on but the socket.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A session with `peer` as server `ev`, its url expanded from `${PEER_PORT}`.
async fn session_with(peer: &Peer, options: &McpOptions) -> McpSession {
    let config = json!({"mcpServers": {"ev": peer.entry()}}).to_string();
    let mut servers = parse_config(&config, "test").unwrap();
    let port = peer.port.to_string();
    let missing = expand_env(&mut servers, &|name| (name == "PEER_PORT").then(|| port.clone()));
    assert_eq!(missing, []);
    let session = connect_all(&servers, options).await;
    assert_eq!(session.failures(), &[], "server-everything should connect");
    session
}

/// The raw names of the session's server tools.
fn raw_names(session: &McpSession) -> BTreeSet<String> {
    session.tools().iter().filter_map(|tool| tool.mcp_info()).map(|info| info.tool_name).collect()
}

/// Waits (up to 10 s) until the server lists `count` tools; the change signal must have fired
/// for every change after the first listing.
async fn wait_for_tools(session: &McpSession, count: usize) -> BTreeSet<String> {
    let mut changes = session.changes();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let names = raw_names(session);
        if names.len() == count {
            return names;
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        assert!(
            tokio::time::timeout(left, changes.changed()).await.is_ok(),
            "expected {count} tools, have {}: {names:?}",
            names.len()
        );
    }
}

fn base() -> BTreeSet<String> {
    BASE_TOOLS.iter().map(|name| (*name).to_owned()).collect()
}

struct TestElicitor(Mutex<Vec<(String, String)>>);

impl Elicitor for TestElicitor {
    fn elicit<'a>(&'a self, server: &'a str, params: ElicitRequestParams) -> BoxFuture<'a, ElicitResult> {
        let message = serde_json::to_value(&params).unwrap()["message"].as_str().unwrap_or_default().to_owned();
        self.0.lock().unwrap().push((server.to_owned(), message));
        Box::pin(async {
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada", "check": true}})).unwrap()
        })
    }
}

struct TestSampler(Mutex<Vec<(String, Value)>>);

impl Sampler for TestSampler {
    fn sample<'a>(
        &'a self,
        server: &'a str,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>> {
        self.0.lock().unwrap().push((server.to_owned(), serde_json::to_value(&params).unwrap()));
        Box::pin(async {
            Ok(serde_json::from_value(json!({
                "model": "test-model", "stopReason": "endTurn", "role": "assistant",
                "content": {"type": "text", "text": "sampled!"}
            }))
            .unwrap())
        })
    }
}

/// Everything a session with no capabilities and one with all of them can do against `peer`.
async fn exercise(peer: &Peer) {
    let dir = tempfile::tempdir().unwrap();
    // No capabilities declared: the 13 base tools, none of the conditional ones.
    let plain = session_with(peer, &McpOptions::default()).await;
    // The peer adds tools after init for declared capabilities only; this waits past that
    // moment to see that none came (an absence has no event to wait on).
    tokio::time::sleep(Duration::from_millis(600)).await; // tidy:allow-sleep see above
    assert_eq!(raw_names(&plain), base());
    // Without a Sampler, the sampling tool is not offered at all.
    assert!(!raw_names(&plain).contains("trigger-sampling-request"));
    let call = |session: &McpSession, name: &str, input: Value| {
        let tool = find(session, &format!("mcp__ev__{name}"));
        let ctx = ctx(dir.path());
        async move { call_tool(tool.as_ref(), "toolu_1", input, &ctx).await }
    };
    let echo = call(&plain, "echo", json!({"message": "hi"})).await;
    assert_eq!(echo.block.content.text(), "Echo: hi");
    assert!(!echo.block.is_error);
    let weather = call(&plain, "get-structured-content", json!({"location": "New York"})).await;
    assert_eq!(weather.data.unwrap().to_json(), json!({"temperature": 33, "conditions": "Cloudy", "humidity": 82}));

    // Progress: four notifications reach the tool's progress, then the result.
    let events: Arc<Mutex<Vec<ProgressEvent>>> = Arc::default();
    let mut progress_ctx = ctx(dir.path());
    let sink = Arc::clone(&events);
    progress_ctx.progress = Some(Arc::new(move |event| sink.lock().unwrap().push(event)));
    let long = find(&plain, "mcp__ev__trigger-long-running-operation");
    let done = call_tool(long.as_ref(), "toolu_p", json!({"duration": 1, "steps": 4}), &progress_ctx).await;
    assert_eq!(done.block.content.text(), "Long running operation completed. Duration: 1 seconds, Steps: 4.");
    let events = events.lock().unwrap().clone();
    assert_eq!(events.len(), 4, "{events:?}");
    for (index, event) in events.iter().enumerate() {
        assert_eq!(event.tool_use_id, "toolu_p");
        assert_eq!(event.tool_name, "mcp__ev__trigger-long-running-operation");
        assert_eq!(event.data["type"], "mcp_progress");
        assert_eq!(event.data["serverName"], "ev");
        assert_eq!(event.data["progress"], json!(index as f64 + 1.0));
        assert_eq!(event.data["total"], json!(4.0));
    }

    // Cancellation: a 10 s call cancelled after 0.5 s ends at once, and the session goes on.
    let cancel_ctx = ctx(dir.path());
    let cancel = cancel_ctx.cancel.clone();
    tokio::spawn(async move {
        // tidy:allow-sleep the cancellation must come while the call runs on the peer.
        tokio::time::sleep(Duration::from_millis(500)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let cancelled = call_tool(long.as_ref(), "toolu_c", json!({"duration": 10, "steps": 2}), &cancel_ctx).await;
    assert!(cancelled.block.is_error);
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    let after = call(&plain, "echo", json!({"message": "after"})).await;
    assert_eq!(after.block.content.text(), "Echo: after");

    // Resource subscriptions: once subscribed (and the peer's updates switched on), the
    // resource's notifications/resources/updated arrive; the peer sends one every 5 s.
    let watched = "demo://resource/dynamic/text/1";
    let mut updates = plain.resource_updates();
    plain.subscribe("ev", watched).await.unwrap();
    let toggled = call(&plain, "toggle-subscriber-updates", json!({})).await;
    assert!(!toggled.block.is_error, "{}", toggled.block.content.text());
    let update = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            match updates.recv().await {
                Ok(update) if update.uri == watched => return update,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(error) => panic!("the updates stopped: {error}"),
            }
        }
    })
    .await
    .expect("an update of the subscribed resource");
    assert_eq!(update.server, "ev");
    plain.unsubscribe("ev", watched).await.unwrap();
    assert!(plain.subscribe("nope", watched).await.unwrap_err().contains("no connected MCP server"));
    plain.shutdown().await;

    // Roots, elicitation and sampling declared: the peer adds its three tools and says so.
    let elicitor = Arc::new(TestElicitor(Mutex::default()));
    let sampler = Arc::new(TestSampler(Mutex::default()));
    let root = dir.path().join("project root");
    std::fs::create_dir_all(&root).unwrap();
    let options = McpOptions {
        roots: vec![root.clone()],
        elicitor: Some(elicitor.clone()),
        sampler: Some(sampler.clone()),
        ..McpOptions::default()
    };
    let full = session_with(peer, &options).await;
    let mut expected = base();
    expected.extend(["get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"].map(str::to_owned));
    assert_eq!(wait_for_tools(&full, 16).await, expected);
    // Tool names did not move when the list grew.
    assert!(full.tools().iter().any(|tool| tool.name() == "mcp__ev__echo"));

    let roots = call(&full, "get-roots-list", json!({})).await;
    let uri = url::Url::from_file_path(&root).unwrap().to_string();
    assert!(uri.contains("project%20root"), "{uri}");
    assert!(
        roots
            .block
            .content
            .text()
            .starts_with(&format!("Current MCP Roots (1 total):\n\n1. project root\n   URI: {uri}\n")),
        "{}",
        roots.block.content.text()
    );

    let elicited = call(&full, "trigger-elicitation-request", json!({})).await;
    let text = elicited.block.content.text();
    assert!(text.contains("✅ User provided the requested information!"), "{text}");
    assert!(text.contains("User inputs:\n- Name: Ada\n- Agreed to terms: true"), "{text}");
    assert_eq!(
        elicitor.0.lock().unwrap().as_slice(),
        [("ev".to_owned(), "Please provide inputs for the following fields:".to_owned())]
    );

    let sampled = call(&full, "trigger-sampling-request", json!({"prompt": "hi", "maxTokens": 5})).await;
    let text = sampled.block.content.text();
    assert!(text.starts_with("LLM sampling result: \n"), "{text}");
    let answer: Value = serde_json::from_str(text.trim_start_matches("LLM sampling result: \n")).unwrap();
    assert_eq!(answer["model"], "test-model");
    assert_eq!(answer["content"]["text"], "sampled!");
    let asked = sampler.0.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0, "ev");
    assert_eq!(asked[0].1["messages"][0]["content"]["text"], "Resource trigger-sampling-request context: hi");
    assert_eq!(asked[0].1["maxTokens"], 5);
    full.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http() {
    let Some(command) = peer_command() else { return };
    let peer = Peer::start(&command, "streamableHttp");
    exercise(&peer).await;

    // Resources over HTTP: listed and read.
    let dir = tempfile::tempdir().unwrap();
    let session = session_with(&peer, &McpOptions::default()).await;
    let list = find(&session, "ListMcpResourcesTool");
    let listed = call_tool(list.as_ref(), "l", json!({"server": "ev"}), &ctx(dir.path())).await;
    let entries: Vec<Value> = serde_json::from_str(&listed.block.content.text()).unwrap();
    let uris: Vec<&str> = entries.iter().filter_map(|entry| entry["uri"].as_str()).collect();
    assert!(uris.contains(&"demo://resource/static/document/architecture.md"), "{uris:?}");
    assert!(entries.iter().all(|entry| entry["server"] == "ev"));
    let read = find(&session, "ReadMcpResourceTool");
    let first = uris[0].to_owned();
    let got = call_tool(read.as_ref(), "r", json!({"server": "ev", "uri": first}), &ctx(dir.path())).await;
    assert!(!got.block.is_error, "{}", got.block.content.text());
    let got: Value = serde_json::from_str(&got.block.content.text()).unwrap();
    assert_eq!(got["contents"][0]["uri"], first);
    assert!(got["contents"][0]["text"].as_str().is_some_and(|text| !text.is_empty()));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_sse() {
    let Some(command) = peer_command() else { return };
    let peer = Peer::start(&command, "sse");
    exercise(&peer).await;
}

/// Kills the peer under a live session and starts it again on the same port: the next call
/// reconnects, and the tool keeps its name.
async fn reconnects(mode: &'static str) {
    let Some(command) = peer_command() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut peer = Peer::start(&command, mode);
    let session = session_with(&peer, &McpOptions::default()).await;
    let echo = find(&session, "mcp__ev__echo");
    let first = call_tool(echo.as_ref(), "e1", json!({"message": "one"}), &ctx(dir.path())).await;
    assert_eq!(first.block.content.text(), "Echo: one");
    peer.restart();
    let again = call_tool(echo.as_ref(), "e2", json!({"message": "two"}), &ctx(dir.path())).await;
    assert_eq!(again.block.content.text(), "Echo: two", "{mode}");
    assert!(find(&session, "mcp__ev__echo").name() == "mcp__ev__echo");
    assert_eq!(session.failures(), &[]);

    // A server that stays down: a call says so, and after the bounded reconnection attempts
    // the server is lost for good (a call in flight as the connection drops fails as lost
    // during the call; the next one tries to reconnect).
    drop(peer);
    let mut changes = session.changes();
    changes.mark_unchanged();
    let mut texts = Vec::new();
    for attempt in 0..3 {
        let down = call_tool(echo.as_ref(), &format!("d{attempt}"), json!({"message": "x"}), &ctx(dir.path())).await;
        assert!(down.block.is_error);
        texts.push(down.block.content.text());
        if texts.last().unwrap().contains("could not reconnect") {
            break;
        }
    }
    let last = texts.last().unwrap();
    assert!(
        last.starts_with(
            "MCP server \"ev\" tool \"echo\" failed: not connected and could not reconnect after 3 attempts: "
        ),
        "{mode}: {texts:?}"
    );
    assert!(changes.has_changed().unwrap());
    assert!(session.tools().is_empty());
    let failures = session.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].kind, FailureKind::Lost);
    assert!(failures[0].message.starts_with("could not reconnect after 3 attempts: "), "{}", failures[0].message);
    // Later calls fail at once with the reason.
    let after = call_tool(echo.as_ref(), "d9", json!({"message": "x"}), &ctx(dir.path())).await;
    assert!(
        after.block.content.text().contains("not connected (lost: could not reconnect"),
        "{}",
        after.block.content.text()
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_streamable_http_connection_is_reconnected() {
    reconnects("streamableHttp").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_sse_connection_is_reconnected() {
    reconnects("sse").await;
}

/// A one-thread HTTP server that records each request's head and answers 401 with a
/// `WWW-Authenticate` challenge.
fn unauthorized_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&heads);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            seen.lock().unwrap().push(String::from_utf8_lossy(&head).to_lowercase());
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"http://x/.well-known\"\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    (port, heads)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_are_sent_and_a_401_needs_authentication() {
    let (port, heads) = unauthorized_server();
    let config = json!({"mcpServers": {
        "web": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp"),
                "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "${TEAM:-core}"}},
        "old": {"type": "sse", "url": format!("http://127.0.0.1:{port}/sse"), "headers": {"X-Api-Key": "${TOKEN}"}},
    }})
    .to_string();
    let mut servers = parse_config(&config, "test").unwrap();
    assert_eq!(expand_env(&mut servers, &|name| (name == "TOKEN").then(|| "s3cret".to_owned())), []);
    let session = connect_all(&servers, &McpOptions::default()).await;
    let failures = session.failures();
    assert_eq!(failures.len(), 2, "{failures:?}");
    for failure in &failures {
        assert!(failure.needs_auth(), "{failure:?}");
        assert_eq!(failure.message, "needs authentication (HTTP 401)");
        assert_eq!(
            failure.kind,
            FailureKind::NeedsAuth { challenge: Some("Bearer resource_metadata=\"http://x/.well-known\"".to_owned()) }
        );
    }
    let heads = heads.lock().unwrap().clone();
    let post = heads.iter().find(|head| head.starts_with("post /mcp ")).expect("a POST to /mcp");
    assert!(post.contains("\r\nauthorization: bearer s3cret\r\n"), "{post}");
    assert!(post.contains("\r\nx-team: core\r\n"), "{post}");
    let get = heads.iter().find(|head| head.starts_with("get /sse ")).expect("a GET of /sse");
    assert!(get.contains("\r\nx-api-key: s3cret\r\n"), "{get}");
    assert!(get.contains("\r\naccept: text/event-stream\r\n"), "{get}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_the_client_did_not_declare_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let servers = common::servers(json!({"ask": {"command": SERVER, "args": ["--ask-client", "--no-resources"]}}));
    let session = connect_all(&servers, &McpOptions::default()).await;
    assert_eq!(session.failures(), &[]);
    let sampling = call_tool(find(&session, "mcp__ask__ask-sampling").as_ref(), "s", json!({}), &ctx(dir.path())).await;
    assert_eq!(sampling.block.content.text(), "refused: -32601 sampling is not available in this session");
    let elicit =
        call_tool(find(&session, "mcp__ask__ask-elicitation").as_ref(), "e", json!({}), &ctx(dir.path())).await;
    assert_eq!(elicit.block.content.text(), "refused: -32601 elicitation is not available in this session");
    session.shutdown().await;

    // With a Sampler, the same request is answered.
    let sampler = Arc::new(TestSampler(Mutex::default()));
    let options = McpOptions { sampler: Some(sampler.clone()), ..McpOptions::default() };
    let session = connect_all(&servers, &options).await;
    let sampling = call_tool(find(&session, "mcp__ask__ask-sampling").as_ref(), "s", json!({}), &ctx(dir.path())).await;
    let text = sampling.block.content.text();
    assert!(text.starts_with("answered: ") && text.contains("\"model\":\"test-model\""), "{text}");
    assert_eq!(sampler.0.lock().unwrap()[0].0, "ask");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_that_exits_is_lost_and_leaves_the_tool_list() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let servers = common::servers(json!({
        "short": {"command": SERVER, "args": ["--no-resources", "--pid-file", pid_file.to_str().unwrap()]}
    }));
    let session = connect_all(&servers, &McpOptions::default()).await;
    assert_eq!(session.tools().len(), 8);
    let echo = find(&session, "mcp__short__echo");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    std::process::Command::new("kill").arg(pid.trim()).status().unwrap();
    let mut changes = session.changes();
    changes.mark_unchanged();
    // The process ending closes the connection; the next call finds it lost.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let done = call_tool(echo.as_ref(), "e", json!({"text": "x"}), &ctx(dir.path())).await;
        if done.block.is_error {
            let text = done.block.content.text();
            assert!(text.contains("MCP server \"short\""), "{text}");
            break;
        }
        assert!(Instant::now() < deadline, "the killed server still answers");
        // tidy:allow-sleep polling, bounded by the deadline, until the kill shows.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Lost for good: reported, its tools gone, the change signalled.
    let deadline = Instant::now() + Duration::from_secs(5);
    while session.failures().is_empty() {
        assert!(Instant::now() < deadline);
        let _ = call_tool(echo.as_ref(), "e", json!({"text": "x"}), &ctx(dir.path())).await;
        // tidy:allow-sleep polling, bounded by the deadline, until the loss is recorded.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(session.failures()[0].kind, FailureKind::Lost);
    assert_eq!(session.failures()[0].message, "its process ended");
    assert!(session.tools().is_empty());
    assert!(changes.has_changed().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_server_and_per_tool_timeouts_come_before_mcp_tool_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let servers = common::servers(json!({
        "t": {"command": SERVER, "args": ["--no-resources"], "timeout": 300, "toolTimeouts": {"echo": 5000}}
    }));
    // MCP_TOOL_TIMEOUT of 20 s is overridden by the server's 300 ms.
    let options = McpOptions { tool_timeout: Some(Duration::from_secs(20)), ..McpOptions::default() };
    let session = connect_all(&servers, &options).await;
    let started = Instant::now();
    let slow = call_tool(find(&session, "mcp__t__slow").as_ref(), "s", json!({"ms": 3000}), &ctx(dir.path())).await;
    assert!(slow.block.is_error);
    assert_eq!(slow.block.content.text(), "MCP server \"t\" tool \"slow\" timed out after 300 ms");
    assert!(started.elapsed() < Duration::from_secs(2));
    // The per-tool entry gives echo its own limit; the connection is still usable.
    let echo = call_tool(find(&session, "mcp__t__echo").as_ref(), "e", json!({"text": "ok"}), &ctx(dir.path())).await;
    assert_eq!(echo.block.content.text(), "ok");
    session.shutdown().await;
}
