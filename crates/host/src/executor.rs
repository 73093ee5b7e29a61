//! The executor: runs an assistant turn's `tool_use` blocks and returns their `tool_result`s.
//!
//! Each block goes through Claude Code's `runToolUse` stages: find the tool (aliases too) →
//! strict parse → `validate_input` → permission decision → `call` → map the output to a
//! `tool_result` → the empty-result text. Unknown tools, parse and validation failures come back
//! wrapped in `<tool_use_error>…</tool_use_error>`; permission denials and failed calls come back
//! as plain error text. Blocks run one after another, in order; a tool's context modifier
//! applies before the next block runs.

use std::sync::Arc;

use agent_tools_core::invoke::{
    Invocation, input_error_result, parse_and_validate, unknown_tool_result, wrap_tool_use_error,
};
use agent_tools_core::result::{ContentBlock, Message, ToolUseBlock};
use agent_tools_core::{Tool, ToolResultBlock, ToolUseContext};

use crate::permissions::{PermissionDecision, has_permissions_to_use_tool, resolve_ask};
use crate::pool::find_in_pool;

/// What the model reads when a call is skipped because the turn was cancelled.
pub const CANCEL_MESSAGE: &str = "The user does not want this action to run now. Stop and wait for their instructions.";

/// Runs one `tool_use` block against the pool and returns its finished result.
///
/// `ctx` is the session's context; the call sees a copy with `tool_use_id` set. Nothing here
/// panics on any input: every failure is an error result.
pub async fn run_tool_use(pool: &[Arc<dyn Tool>], tool_use: &ToolUseBlock, ctx: &ToolUseContext) -> Invocation {
    let id = tool_use.id.as_str();
    let Some(tool) = find_in_pool(pool, &tool_use.name) else {
        return unknown_tool(pool, id, &tool_use.name);
    };
    let tool = tool.as_ref();
    if ctx.cancel.is_cancelled() {
        return Invocation::refused(ToolResultBlock::error(id, CANCEL_MESSAGE));
    }
    let (parsed, call_ctx) = match parse_and_validate(tool, id, tool_use.input.clone(), ctx).await {
        Ok(prepared) => prepared,
        Err(refused) => return refused,
    };
    let decision = match has_permissions_to_use_tool(tool, &parsed, &call_ctx).await {
        PermissionDecision::Ask { message } => resolve_ask(tool.name(), &message, &call_ctx.permission_context),
        other => other,
    };
    let parsed = match decision {
        PermissionDecision::Deny { message, .. } => return Invocation::refused(ToolResultBlock::error(id, message)),
        PermissionDecision::Ask { message } => return Invocation::refused(ToolResultBlock::error(id, message)),
        PermissionDecision::Allow { updated_input: None } => parsed,
        PermissionDecision::Allow { updated_input: Some(updated) } => match tool.parse(updated) {
            Ok(reparsed) => reparsed,
            Err(error) => return Invocation::refused(input_error_result(id, &error)),
        },
    };
    tracing::debug!(tool = tool.name(), id, "calling tool");
    let outcome = tool.call(parsed, &call_ctx).await;
    Invocation::from_call(id, tool.name(), outcome)
}

/// The unknown-tool result, with a hint when the name differs from a pooled tool only in case
/// (`grep` for `Grep`).
fn unknown_tool(pool: &[Arc<dyn Tool>], id: &str, name: &str) -> Invocation {
    let mut block = unknown_tool_result(id, name);
    if let Some(near) = pool.iter().find(|tool| tool.name().eq_ignore_ascii_case(name)) {
        block.content = agent_tools_core::ToolResultContent::Text(wrap_tool_use_error(&format!(
            "Error: No such tool available: {name}. Tool names are case-sensitive: did you mean {}?",
            near.name()
        )));
    }
    Invocation::refused(block)
}

/// Runs the blocks in order, applying each call's context modifier to `ctx` before the next one
/// runs, and returns the results in block order.
pub async fn run_tool_uses(
    pool: &[Arc<dyn Tool>],
    tool_uses: &[ToolUseBlock],
    ctx: &mut ToolUseContext,
) -> Vec<Invocation> {
    let mut done = Vec::with_capacity(tool_uses.len());
    for tool_use in tool_uses {
        let mut invocation = run_tool_use(pool, tool_use, ctx).await;
        if let Some(modifier) = invocation.context_modifier.take() {
            *ctx = modifier(ctx.clone());
        }
        done.push(invocation);
    }
    done
}

/// The user message that answers a turn: one `tool_result` block per call, in block order. (Extra
/// messages a tool adds stay in its [`Invocation::new_messages`].)
pub fn tool_result_message(invocations: &[Invocation]) -> Message {
    Message::user(invocations.iter().map(|done| ContentBlock::from(done.block.clone())).collect())
}
