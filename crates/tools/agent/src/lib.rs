//! # agent-tool-agent: the Agent tool
//!
//! Claude Code's `Agent` tool (formerly `Task`, still its alias) starts a sub-agent: the query
//! loop again, with a fresh conversation, its own system prompt, its own share of the caller's
//! tools and, optionally, its own model; it works on one task and reports back. The loop is a
//! floor above the tools, so the tool runs the agent through the
//! [`SubagentRunner`](agent_tools_core::SubagentRunner) the agent loop puts in
//! [`ToolUseContext::subagents`](agent_tools_core::ToolUseContext::subagents); without one (an MCP
//! server) a call is an error the model can read.
//!
//! - [`definitions`]: the built-in agents (`general-purpose`, `Explore`, `Plan`), the parser of
//!   `.claude/agents/*.md` files, layering built-in < user < project, and the listing the tool's
//!   prompt shows (`- <type>: <when to use> (Tools: …)`);
//! - [`tool_sets`]: which of the caller's tools a sub-agent keeps (Claude Code's sets, applied
//!   in its order, then the definition's `tools` / `disallowedTools`; `Agent` itself to a bounded
//!   depth, [`DEFAULT_MAX_DEPTH`]);
//! - the tool: input as Claude Code 2.1.332's ([`AgentInput`]; unknown fields dropped), the
//!   agent registered as a `local_agent` background task (id `a` + 8 characters, its transcript
//!   the task's output file), run in the **background** by default (the launch note now, a
//!   `<task-notification>` later; TaskOutput and TaskStop work on it) or in the **foreground**
//!   (`run_in_background: false`: [`render::completed`], the report indented under a
//!   `[Subagent hand-back]` line, `agentId`, `<usage>`); `isolation: "worktree"` in a fresh git
//!   worktree, removed afterwards when unchanged; an `Agent(<type>)` deny rule refuses a type.
//!   Read-only and concurrency-safe (its tools check their own permissions; several agents run at
//!   once); a user interrupt stops a foreground agent.
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner};
//! use agent_tools_core::{call_tool, BoxFuture, ToolUseContext};
//!
//! /// A stand-in for the agent loop: answers every agent with one line.
//! struct Echo;
//! impl SubagentRunner for Echo {
//!     fn run<'a>(&'a self, request: SubagentRequest, _: &'a ToolUseContext)
//!         -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
//!         Box::pin(async move {
//!             Ok(SubagentOutcome { content: vec![format!("did: {}", request.prompt)], ..Default::default() })
//!         })
//!     }
//!     fn resume<'a>(&'a self, id: &'a str, _: String, _: &'a ToolUseContext)
//!         -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
//!         Box::pin(async move { Err(SubagentError::Unknown(id.to_owned())) })
//!     }
//!     fn resolve_model(&self, alias: &str, _: &str) -> String { alias.to_owned() }
//! }
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.subagents = Some(Arc::new(Echo));
//! let input = serde_json::json!({"description": "Say hi", "prompt": "greet", "run_in_background": false});
//! let done = call_tool(agent_tool_agent::tool().as_ref(), "toolu_1", input, &ctx).await;
//! let text = done.block.content.text();
//! assert!(text.starts_with("[Subagent hand-back] "), "{text}");
//! assert!(text.contains("The report follows:\n  did: greet\nagentId: a"), "{text}");
//! # });
//! ```

pub mod definitions;
mod input;
pub mod render;
mod tool;
pub mod tool_sets;

pub use crate::input::{AgentInput, Effort, Isolation, ModelAlias};
pub use crate::tool::{
    ALIASES, AgentConfig, AgentFolders, AgentOutput, AgentTool, DEFAULT_AGENT_TYPE, DEFAULT_MAX_DEPTH, NAME, TextBlock,
    all_definitions, tool, tool_from_folders, tool_with,
};
