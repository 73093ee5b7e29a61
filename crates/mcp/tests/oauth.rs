//! A remote server that needs OAuth, end to end against the real local fixture (an authorization
//! server and a protected MCP server on 127.0.0.1, from `agent-tools-mcp-oauth`): the 401 gives
//! `mcp__<server>__authenticate` in place of the server's tools; calling it gives the URL; after
//! the user's browser visit the server is connected and its tools replace the pseudo-tool; a new
//! session connects with the stored tokens at once.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_mcp::config::parse_config;
use agent_tools_mcp::{McpOptions, connect_all};
use agent_tools_mcp_oauth::OAuthStore;
use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
use serde_json::json;

fn names(tools: &[std::sync::Arc<dyn agent_tools_core::Tool>]) -> Vec<String> {
    tools.iter().map(|tool| tool.name().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_needs_oauth_is_signed_in_through_its_authenticate_tool() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"docs": {"type": "http", "url": fixture.mcp_url()}}});
    let servers = parse_config(&config.to_string(), "inline").unwrap();
    let options = McpOptions { oauth: Some(OAuthStore::new(config_dir.path())), ..McpOptions::default() };

    let session = connect_all(&servers, &options).await;
    assert!(session.failures()[0].needs_auth(), "{:?}", session.failures());
    assert_eq!(names(&session.tools()), ["mcp__docs__authenticate"]);
    let mut changes = session.changes();
    let ctx = ToolUseContext::new(config_dir.path());
    let auth = session.tools()[0].clone();
    let started = call_tool(auth.as_ref(), "toolu_1", json!({}), &ctx).await;
    let output = started.data.unwrap().to_json();
    assert_eq!(output["status"], "auth_url", "{output}");
    let url = output["authUrl"].as_str().unwrap();
    assert!(started.block.content.text().contains(url));

    // The user's browser: the authorization server redirects to our callback.
    assert_eq!(browse(url).await.unwrap().status, 200);
    tokio::time::timeout(Duration::from_secs(10), changes.changed()).await.unwrap().unwrap();
    assert_eq!(names(&session.tools()), ["mcp__docs__echo"], "the real tools replace the pseudo-tool");
    assert!(session.failures().is_empty(), "{:?}", session.failures());
    let echo = session.tools()[0].clone();
    let done = call_tool(echo.as_ref(), "toolu_2", json!({"text": "signed in"}), &ctx).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    assert!(done.block.content.text().contains("signed in"), "{}", done.block.content.text());
    session.shutdown().await;

    // A new session finds the stored tokens: connected at once, no second sign-in.
    let again = connect_all(&servers, &options).await;
    assert_eq!(names(&again.tools()), ["mcp__docs__echo"]);
    assert_eq!(fixture.code_grants(), 1);
    again.shutdown().await;

    // Without a token store a 401 is only a failure: no pseudo-tool.
    let bare = connect_all(&servers, &McpOptions::default()).await;
    assert!(bare.tools().is_empty());
    assert!(bare.failures()[0].needs_auth());
}
