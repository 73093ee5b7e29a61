//! # agent-tools-mcp: MCP servers' tools as agent-tools tools
//!
//! The client side of MCP, as Claude Code uses it (`services/mcp/client.ts`, `tools/MCPTool/`):
//!
//! - [`config`]: server configs in Claude Code's format, `{"mcpServers": {"name": {"command",
//!   "args", "env"}}}`, from a project's `.mcp.json` or a `--mcp-config` file or JSON text;
//! - [`connect_all`]: starts each stdio server as a child process (rmcp's child-process
//!   transport), initialises it within a timeout and lists its tools. A server that fails is
//!   reported in [`McpSession::failures`] and skipped, never fatal; `http`/`sse`/`ws` servers are
//!   reported as unsupported;
//! - [`McpTool`]: each server tool as a [`Tool`](agent_tools_core::Tool) named
//!   `mcp__<server>__<tool>`, with the server's input schema verbatim, flags from its annotations,
//!   permission passthrough (the general rules decide: ask unless an allow rule names the tool or
//!   its server), and Claude Code's result transformation and output cap ([`transform`]);
//! - `ListMcpResourcesTool` and `ReadMcpResourceTool` ([`resources`]), added once when a server
//!   has the `resources` capability;
//! - [`McpSession::shutdown`]: ends the servers when the session ends.
//!
//! ```no_run
//! # async fn demo() {
//! use agent_tools_mcp::{McpOptions, config, connect_all};
//! let servers = config::parse_config(
//!     r#"{"mcpServers": {"tools": {"command": "agent-tools", "args": ["serve"]}}}"#, "inline").unwrap();
//! let session = connect_all(&servers, &McpOptions::default()).await;
//! for failure in session.failures() {
//!     eprintln!("MCP server {} skipped: {}", failure.name, failure.message);
//! }
//! let tools = session.tools(); // hand these to agent_tools_host::assemble_tool_pool
//! # drop(tools);
//! session.shutdown().await;
//! # }
//! ```
//!
//! The library never reads environment variables; the CLI turns `MCP_TIMEOUT`,
//! `MCP_TOOL_TIMEOUT` and `MAX_MCP_OUTPUT_TOKENS` into [`McpOptions`].

mod client;
pub mod config;
pub mod resources;
mod tool;
pub mod transform;

pub use client::{DEFAULT_CONNECT_TIMEOUT, McpOptions, McpSession, ServerConnection, ServerFailure, connect_all};
pub use tool::{MAX_DESCRIPTION_CHARS, MAX_RESULT_CHARS, McpTool, mcp_tool_name, normalize_name, truncate_description};
