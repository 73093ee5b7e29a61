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
//! ```no_run
//! # async fn demo() {
//! use agent_tools_core::{ToolPermissionContext, ToolUseContext};
//! use agent_tools_core::result::ToolUseBlock;
//! use agent_tools_host::{HostConfig, assemble_tool_pool, run_tool_uses};
//! let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
//! let mut ctx = ToolUseContext::new(std::env::current_dir().unwrap());
//! let calls = [ToolUseBlock { id: "toolu_1".into(), name: "Glob".into(), input: serde_json::json!({"pattern": "*.toml"}) }];
//! for done in run_tool_uses(&pool, &calls, &mut ctx).await {
//!     println!("{}", done.block.content.text());
//! }
//! # }
//! ```

pub mod executor;
pub mod hooks;
pub mod permissions;
pub mod pool;
pub mod size;
pub mod tool_search;

pub use executor::{Executor, Turn, run_tool_use, run_tool_uses, tool_result_message};
pub use hooks::Hooks;
pub use permissions::{PermissionAnswer, PermissionPrompter, PermissionRequest};
pub use pool::{
    HostConfig, SmallModelConfig, assemble_tool_pool, filter_tools_by_deny_rules, find_pwsh, get_all_base_tools,
    get_tools,
};
pub use tool_search::{
    ToolSearchMode, api_tools, available_deferred_tools_message, is_tool_search_active, render_tool_references,
};
