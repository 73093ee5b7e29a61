//! # agent-tools-mcp: MCP servers' tools as agent-tools tools
//!
//! The client side of MCP, as Claude Code uses it (`services/mcp/client.ts`, `tools/MCPTool/`):
//!
//! - [`config`]: server configs in Claude Code's format, `{"mcpServers": {"name": {...}}}`, from a
//!   project's `.mcp.json` or a `--mcp-config` file or JSON text: stdio (`command`, `args`,
//!   `env`), `http` (Streamable HTTP) and `sse` (legacy HTTP+SSE) with `url` and `headers`,
//!   `${VAR}` / `${VAR:-default}` expansion through a lookup the caller gives
//!   ([`config::expand_env`]), and our per-server `"timeout"` and per-tool `"toolTimeouts"` (ms);
//! - [`connect_all`]: starts each stdio server as a child process (rmcp's child-process
//!   transport) and reaches remote ones (rmcp's Streamable HTTP client; our own HTTP+SSE
//!   transport, which refuses an endpoint on another origin), initialises each within a
//!   timeout and lists its tools. A server that fails is reported in [`McpSession::failures`]
//!   and skipped, never fatal; a 401 is [`FailureKind::NeedsAuth`], `ws` servers are
//!   [`FailureKind::Unsupported`];
//! - our side of MCP: `roots` (from [`McpOptions::roots`]), form `elicitation` and `sampling`
//!   only when an [`Elicitor`] / [`Sampler`] is given (otherwise not declared, and a request
//!   is refused in words), server logs to `tracing::debug`;
//! - a live tool list: a server's `notifications/tools/list_changed` re-lists its tools, a
//!   server lost for good leaves, [`McpSession::add_server`] adds one; [`McpSession::changes`]
//!   signals each change, and tools that stay keep their names;
//! - [`McpTool`]: each server tool as a [`Tool`](agent_tools_core::Tool) named
//!   `mcp__<server>__<tool>` — at most 64 characters of `[a-zA-Z0-9_-]`, long names shortened
//!   with a hash and mapped back to the server's name ([`names`]) —, with the server's
//!   input schema verbatim and inputs checked against it before the call ([`schema`]),
//!   flags from its annotations, permission passthrough (the general rules decide: ask unless an
//!   allow rule names the tool, by its listed name, or its server), and Claude Code's result
//!   transformation and output cap ([`transform`]: a cut result keeps its start inline and points
//!   at the whole output saved to a file);
//! - calls send a progress token (the server's `notifications/progress` become the call's
//!   `mcp_progress` events), send `notifications/cancelled` when cancelled or past their time
//!   (the tool's `"toolTimeouts"` entry, else the server's `"timeout"`, else
//!   [`McpOptions::tool_timeout`]), and leave the connection usable; a remote server whose
//!   connection dropped is reconnected by the next call ([`RECONNECT_ATTEMPTS`] with
//!   backoff), else the call says it could not;
//! - `ListMcpResourcesTool` and `ReadMcpResourceTool` ([`resources`]), added once when a server
//!   has the `resources` capability;
//! - [`McpSession::shutdown`]: ends the servers when the session ends.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_mcp::{config::parse_config, connect_all, McpOptions};
//! // A stdio server of one tool, `shout`, as a shell script that answers each request by its id.
//! let server = r#"while read -r line; do
//!   id=$(printf %s "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
//!   case "$line" in
//!     *'"initialize"'*) r='{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
//!       r=$r'"serverInfo":{"name":"demo","version":"1"}}' ;;
//!     *'"tools/list"'*) r='{"tools":[{"name":"shout","inputSchema":{"type":"object"}}]}' ;;
//!     *'"tools/call"'*) r='{"content":[{"type":"text","text":"HELLO"}]}' ;;
//!     *) continue ;;
//!   esac; printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$r"; done"#;
//! let config = serde_json::json!({"mcpServers": {
//!     "demo": {"command": "sh", "args": ["-c", server]},
//!     "gone": {"command": "/no/such/server"},
//! }});
//! let servers = parse_config(&config.to_string(), "inline").unwrap();
//! let session = connect_all(&servers, &McpOptions::default()).await;
//! assert_eq!(session.failures()[0].name, "gone"); // reported and skipped, never fatal
//! let tools = session.tools(); // hand these to agent_tools_host::assemble_tool_pool
//! assert_eq!(tools[0].name(), "mcp__demo__shout");
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! let done = call_tool(tools[0].as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert_eq!(done.block.content.text(), "HELLO");
//! session.shutdown().await;
//! # });
//! ```
//!
//! The library never reads environment variables; the CLI turns `MCP_TIMEOUT`,
//! `MCP_TOOL_TIMEOUT` and `MAX_MCP_OUTPUT_TOKENS` into [`McpOptions`].

mod client;
pub mod config;
mod handler;
mod http;
mod manage;
pub mod names;
pub mod resources;
pub mod schema;
mod sdk;
mod sse;
mod tool;
pub mod transform;
mod transport;

pub use agent_tools_mcp_oauth::OAuthStore;
pub use client::{
    DEFAULT_CONNECT_TIMEOUT, FailureKind, McpOptions, McpSession, RECONNECT_ATTEMPTS, RECONNECT_BACKOFF,
    ResourceUpdate, ServerConnection, ServerFailure, connect_all,
};
pub use handler::{ELICITATION_UNAVAILABLE, Elicitor, SAMPLING_UNAVAILABLE, Sampler};
pub use manage::DynamicServers;
pub use names::{MAX_TOOL_NAME_CHARS, NameAllocator, mcp_tool_name, normalize_name};
/// rmcp's request and result types the [`Elicitor`] and [`Sampler`] traits use.
#[allow(deprecated)] // sampling is deprecated by SEP-2577 in rmcp, and still what servers use
pub use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
};
pub use sdk::SdkServers;
pub use tool::{MAX_DESCRIPTION_CHARS, MAX_RESULT_CHARS, McpTool, truncate_description};
