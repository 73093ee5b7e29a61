//! # agent-tools-host: the tool pool and the executor
//!
//! Composes the agent-tools tool crates the way Claude Code's `src/tools.ts` does, and runs turns
//! of `tool_use` blocks the way its agent loop does.
//!
//! - Every tool crate is an optional dependency behind a Cargo feature of the same short name
//!   (`file-read`, `glob`, `grep`, …); `default` enables all of them. A build with
//!   `--no-default-features --features grep,glob` has a pool of exactly `[Glob, Grep]`.
//! - [`pool`]: [`get_all_base_tools`], [`get_tools`], [`assemble_tool_pool`].
//! - [`permissions`]: the permission decision for one call (rules, the tool's check, the mode).
//! - [`executor`]: [`run_tool_use`] / [`run_tool_uses`] — find, parse, validate, permissions, call,
//!   map — with Claude Code's error envelopes.
//! - [`tool_search`]: deferred tools and ToolSearch around the API — the `tools` array with
//!   `defer_loading` ([`api_tools`]), the `<available-deferred-tools>` message, and
//!   `tool_reference` blocks rendered as text for clients that cannot expand them.
//!
//! - [`session`]: a [`Session`] — settings, rules, trust, MCP servers, the pool, the executor,
//!   background tasks and their shutdown — built by a [`SessionBuilder`]; what `agent-tools call`,
//!   `run` and `serve` stand on.
//!
//! An embedder's whole session (settings as JSON, an MCP server that fails to start and is only
//! a notice, a background command, shutdown):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agent_tools_core::ToolUseBlock;
//! use agent_tools_host::{CallOptions, Environment, Session};
//! use serde_json::json;
//! let project = tempfile::tempdir()?;
//! let session = Session::builder(project.path())
//!     .environment(Environment::empty().with("PATH", "/usr/bin:/bin"))
//!     .settings_json(r#"{"permissions": {"allow": ["Bash(sleep:*)"], "deny": ["Read(./.env)"]}}"#)
//!     .mcp_config(r#"{"mcpServers": {"gone": {"command": "/no/such/server"}}}"#)
//!     .build()
//!     .await?;
//! assert_eq!(session.mcp().failures()[0].name, "gone");
//! # if session.find_tool("Bash").is_none() { return Ok(()); } // a build without the `bash` feature
//! let sleep = json!({"command": "sleep 30", "run_in_background": true, "description": "nap"});
//! let call = ToolUseBlock { id: "toolu_1".into(), name: "Bash".into(), input: sleep };
//! let done = session.call(&call, CallOptions::default()).await;
//! assert!(!done.block.is_error, "{}", done.block.content.text());
//! let stopped = session.shutdown().await;
//! assert_eq!(stopped[0].description, "nap");
//! # Ok(()) }
//! ```

pub mod commands;
#[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
pub mod cron;
mod elicitation;
pub mod environment;
pub mod executor;
pub mod hooks;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod permissions;
pub mod pool;
pub mod session;
pub mod size;
pub mod tool_search;

pub use environment::Environment;
pub use executor::{CallObserver, Executor, Turn, run_tool_use, run_tool_uses, tool_result_message};
pub use hooks::Hooks;
pub use permissions::{
    AutoClassifier, ClassifierRequest, ClassifierVerdict, PermissionAnswer, PermissionPrompter, PermissionRequest,
};
pub use pool::{
    HostConfig, SmallModelConfig, assemble_tool_pool, every_tool_config, filter_tools_by_deny_rules, find_pwsh,
    get_all_base_tools, get_tools, structured_output_tool,
};
pub use session::{
    CRON_KEY_PREFIX, CallOptions, ForkOptions, Session, SessionBuilder, SessionError, WorkspaceTrust,
    scheduled_prompt_text,
};
pub use tool_search::{
    ToolSearchMode, api_tools, available_deferred_tools_message, is_tool_search_active, render_tool_references,
};
