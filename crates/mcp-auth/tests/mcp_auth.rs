//! The McpAuth pseudo-tool against the real local OAuth fixture: the URL it gives, the same URL
//! while pending, `on_authorized` after the browser's visit, and its unsupported and error answers.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::call_tool;
use agent_tools_core::{MaxResultSize, Tool, ToolUseContext, is_deferred};
use agent_tools_mcp_auth::{AuthTarget, McpAuthConfig, OnAuthorized, tool};
use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
use agent_tools_mcp_oauth::{AuthorizeOptions, OAuthStore};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const TOOL_NAME: &str = "mcp__fixture__authenticate";

/// An `on_authorized` that reports each run on a channel (and answers `answer`).
fn reporting(answer: Result<(), String>) -> (OnAuthorized, mpsc::UnboundedReceiver<()>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let on_authorized: OnAuthorized = Arc::new(move || {
        let sender = sender.clone();
        let answer = answer.clone();
        Box::pin(async move {
            let _ = sender.send(());
            answer
        })
    });
    (on_authorized, receiver)
}

fn http_tool(url: &str, store: &OAuthStore, options: AuthorizeOptions, on_authorized: OnAuthorized) -> Arc<dyn Tool> {
    tool(McpAuthConfig {
        tool_name: TOOL_NAME.to_owned(),
        server_name: "fixture".to_owned(),
        target: AuthTarget::Http { url: url.to_owned(), store: store.clone(), options },
        on_authorized,
    })
}

async fn call(tool: &dyn Tool, dir: &std::path::Path) -> (Value, String) {
    let done = call_tool(tool, "toolu_1", json!({}), &ToolUseContext::new(dir)).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    (done.data.unwrap().to_json(), done.block.content.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_gives_the_url_and_runs_on_authorized_after_the_browser_visit() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    let (on_authorized, mut ran) = reporting(Ok(()));
    let auth = http_tool(&fixture.mcp_url(), &store, AuthorizeOptions::default(), on_authorized);

    let (output, text) = call(auth.as_ref(), config.path()).await;
    assert_eq!(output["status"], "auth_url");
    let url = output["authUrl"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{}/authorize?", fixture.issuer())), "{url}");
    assert_eq!(output["message"], text);
    assert_eq!(
        text,
        format!(
            "The MCP server \"fixture\" needs the user to sign in before its tools can be used. Ask the user to open \
             this URL in their browser and approve access:\n\n{url}\n\nOnce they have, the server's tools take the \
             place of this one. Calling this tool again before then returns the same URL; the sign-in stops waiting \
             after 5 minutes."
        )
    );

    // Pending: the same URL, no second registration.
    let (again, _) = call(auth.as_ref(), config.path()).await;
    assert_eq!(again["authUrl"], url);
    assert_eq!(fixture.registrations(), 1);
    assert!(ran.try_recv().is_err(), "nothing ran before the sign-in");

    assert_eq!(browse(&url).await.unwrap().status, 200);
    tokio::time::timeout(Duration::from_secs(5), ran.recv()).await.unwrap().unwrap();
    assert!(store.server("fixture", &fixture.mcp_url()).has_tokens().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_is_a_deferred_mcp_tool_that_takes_an_empty_object() {
    let (on_authorized, _ran) = reporting(Ok(()));
    let config = tempfile::tempdir().unwrap();
    let auth = http_tool(
        "https://mcp.example.com/mcp",
        &OAuthStore::new(config.path()),
        AuthorizeOptions::default(),
        on_authorized,
    );
    assert_eq!(auth.name(), TOOL_NAME);
    assert!(is_deferred(auth.as_ref()));
    let info = auth.mcp_info().unwrap();
    assert_eq!((info.server_name.as_str(), info.tool_name.as_str()), ("fixture", "authenticate"));
    assert_eq!(auth.max_result_size_chars(), MaxResultSize::Chars(10_000));
    let parsed = auth.parse(json!({})).unwrap();
    assert!(!auth.is_read_only(&parsed));
    assert!(!auth.is_concurrency_safe(&parsed));
    assert!(auth.parse(json!({"url": "x"})).is_err(), "only {{}} is accepted");
    assert_eq!(auth.user_facing_name(None), "fixture - authenticate (MCP)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_that_cannot_start_is_an_error_status() {
    let config = tempfile::tempdir().unwrap();
    let (on_authorized, mut ran) = reporting(Ok(()));
    let auth = http_tool(
        "http://mcp.example.com/mcp",
        &OAuthStore::new(config.path()),
        AuthorizeOptions::default(),
        on_authorized,
    );
    let (output, text) = call(auth.as_ref(), config.path()).await;
    assert_eq!(output, json!({"status": "error", "message": text}));
    assert!(text.starts_with(
        "Signing in to the MCP server \"fixture\" could not start: refusing the MCP server http://mcp.example.com/mcp: \
         only https, or http on 127.0.0.1/localhost, is allowed."
    ), "{text}");
    assert!(ran.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_sign_in_that_timed_out_the_next_call_starts_a_new_one_and_says_why() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let config = tempfile::tempdir().unwrap();
    let store = OAuthStore::new(config.path());
    let (on_authorized, mut ran) = reporting(Ok(()));
    let options = AuthorizeOptions { timeout: Duration::from_millis(100), ..AuthorizeOptions::default() };
    let built = agent_tools_mcp_auth::McpAuthTool::new(McpAuthConfig {
        tool_name: TOOL_NAME.to_owned(),
        server_name: "fixture".to_owned(),
        target: AuthTarget::Http { url: fixture.mcp_url(), store: store.clone(), options },
        on_authorized,
    });
    let ctx = ToolUseContext::new(config.path());
    let first = agent_tools_core::ToolDef::call(&built, Default::default(), &ctx).await.unwrap().data;
    let first_url = first.auth_url.unwrap();
    assert_eq!(built.pending_url().await.as_deref(), Some(first_url.as_str()));
    let idle = tokio::time::timeout(Duration::from_secs(5), async {
        while built.pending_url().await.is_some() {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(idle.is_ok(), "the timed-out sign-in is no longer pending");
    let second = agent_tools_core::ToolDef::call(&built, Default::default(), &ctx).await.unwrap().data;
    assert_ne!(second.auth_url.as_deref(), Some(first_url.as_str()));
    assert!(
        second.message.starts_with("The previous sign-in did not complete (no sign-in arrived within 100 ms). "),
        "{}",
        second.message
    );
    assert!(ran.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_servers_are_told_apart() {
    let config = tempfile::tempdir().unwrap();
    let (on_authorized, _ran) = reporting(Ok(()));
    let auth = tool(McpAuthConfig {
        tool_name: "mcp__files__authenticate".to_owned(),
        server_name: "files".to_owned(),
        target: AuthTarget::Unsupported { reason: "it is a stdio server".to_owned() },
        on_authorized,
    });
    let (output, text) = call(auth.as_ref(), config.path()).await;
    assert_eq!(output, json!({"status": "unsupported", "message": text}));
}
