//! [`ToolCaller`]: how a tool calls other tools of the pool (the REPL tool's scripts), through
//! the host's executor, so that an inner call is parsed, validated, hooked and permission-checked
//! exactly as the same call made by the model would be.
//!
//! The host's executor puts itself into the context of each call it runs
//! ([`ToolUseContext::tool_caller`](crate::ToolUseContext::tool_caller)); a context made
//! without an executor has none, and a tool that needs one says so in its result. The trait
//! lives here and its implementation in the host, so tool crates never depend on the host.

use std::sync::Arc;

use serde_json::Value;

use crate::ToolUseContext;
use crate::tool::{BoxFuture, Tool};

/// The result of one inner call, as the model would have seen it.
#[derive(Debug, Clone, PartialEq)]
pub struct InnerResult {
    /// The `tool_result`'s text (its text parts joined).
    pub text: String,
    /// Whether the result is an error (`is_error`): an input error, a denial, a failure.
    pub is_error: bool,
    /// The tool's output object (what `structuredContent` carries over MCP), when it made one.
    pub data: Option<Value>,
}

/// Calls the pool's tools on behalf of a tool (implemented by the host's executor).
pub trait ToolCaller: Send + Sync {
    /// The tools an inner call may name, in pool order (in REPL mode this includes the
    /// primitives hidden from the model's own list).
    fn tools(&self) -> Arc<[Arc<dyn Tool>]>;

    /// Runs `name` with `input` as one `tool_use` (id `id`) in a context derived from
    /// `parent`: the executor's whole pipeline, hooks and permission questions included.
    /// Always answers: an unknown tool or a refused call is an [`InnerResult`] with
    /// `is_error` set.
    fn call<'a>(
        &'a self,
        id: String,
        name: String,
        input: Value,
        parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, InnerResult>;
}
