//! What the MCP client tests share: the crate's stdio test server, started through the configs
//! the CLI would read, and a context with a session folder.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use agent_tools_core::{Tool, ToolUseContext};
use agent_tools_mcp::config::{NamedServer, parse_config};
use agent_tools_mcp::{McpOptions, McpSession, connect_all};
use serde_json::{Value, json};

/// The test server binary.
pub const SERVER: &str = env!("CARGO_BIN_EXE_agent-tools-mcp-test-server");

/// Servers from the entries of an `mcpServers` object.
pub fn servers(entries: Value) -> Vec<NamedServer> {
    parse_config(&json!({"mcpServers": entries}).to_string(), "test").unwrap()
}

/// The test server as the one server `name`, with `args`.
pub fn one_server(name: &str, args: &[&str]) -> Vec<NamedServer> {
    servers(json!({name: {"command": SERVER, "args": args}}))
}

/// A session connected to [`one_server`]; the test fails if it does not connect.
pub async fn connect(name: &str, args: &[&str], options: McpOptions) -> McpSession {
    let session = connect_all(&one_server(name, args), &options).await;
    assert_eq!(session.failures(), &[], "the test server should connect");
    session
}

/// The session's tool named `name`.
pub fn find(session: &McpSession, name: &str) -> Arc<dyn Tool> {
    session.tools().into_iter().find(|tool| tool.name() == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// A context in `dir` whose session folder is `dir/session`.
pub fn ctx(dir: &Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(dir);
    ctx.options.session_dir = Some(dir.join("session"));
    ctx
}
