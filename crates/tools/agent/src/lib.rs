//! # agent-tool-agent: the Agent tool
//!
//! Claude Code's `Agent` tool (formerly `Task`) launches a sub-agent: a fresh conversation with
//! its own system prompt, its own share of the caller's tools and, optionally, its own model,
//! which works on a task and reports back. The tool itself is being built; this crate has, so
//! far, the pieces it stands on:
//!
//! - [`definitions`]: agent definitions — the built-in agents (`general-purpose`, `Explore`,
//!   `Plan`), the parser of `.claude/agents/*.md` files, loading a folder of them, layering
//!   built-in < user < project, and the listing the tool's prompt shows;
//! - [`tool_sets`]: which of the caller's tools a sub-agent keeps.

pub mod definitions;
mod input;
pub mod render;
mod tool;
pub mod tool_sets;

pub use crate::input::{AgentInput, Effort, Isolation, ModelAlias};
pub use crate::tool::{
    ALIASES, AgentConfig, AgentOutput, AgentTool, DEFAULT_AGENT_TYPE, DEFAULT_MAX_DEPTH, NAME, TextBlock, tool,
    tool_with,
};
