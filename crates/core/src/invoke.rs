//! Running one tool call through the contract, and the error envelopes the model sees.
//!
//! [`call_tool`] is the short pipeline a single-tool user needs: strict parse → `validate_input`
//! → `call` → result mapping → the empty-result text. It does **not** check permissions: deciding
//! what may run is the caller's job (the host's executor adds rules, modes and the tool's own
//! `check_permissions`). The helpers below build the exact envelopes Claude Code uses, so the
//! host and this function produce identical texts.

use serde_json::Value;

use crate::context::ToolUseContext;
use crate::error::ToolError;
use crate::input::{InputError, ParsedInput};
use crate::result::{ContextModifier, Message, ToolResult, ToolResultBlock, ToolResultContent};
use crate::tool::{CallOutput, StructuredData, Tool};
use crate::validation::ValidationResult;

/// The one concurrency rule every runner of calls applies (the host's executor and
/// `Session::call`, the agent loop's streaming execution, the REPL's script calls): a call may run
/// alongside others only when its tool (`None`: not in the pool) is known and says this `input`
/// is concurrency-safe. An unknown tool, an input that does not parse, or a tool that says no
/// runs alone.
pub fn runs_concurrently(tool: Option<&(dyn Tool + 'static)>, input: &Value) -> bool {
    tool.is_some_and(|tool| tool.is_concurrency_safe_json(input))
}

/// Error texts longer than this are cut in the middle (Claude Code's `formatError`).
pub const MAX_ERROR_CHARS: usize = 10_000;

/// Wraps a message in `<tool_use_error>…</tool_use_error>`, the envelope Claude Code uses for
/// errors raised before a tool runs (unknown tool, schema and validation failures).
pub fn wrap_tool_use_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

/// The result for a `tool_use` naming no tool in the pool.
pub fn unknown_tool_result(tool_use_id: &str, name: &str) -> ToolResultBlock {
    let name = crate::quote::quote(name);
    ToolResultBlock::error(tool_use_id, wrap_tool_use_error(&format!("Error: No such tool available: {name}")))
}

/// The result for input that failed the strict parse.
pub fn input_error_result(tool_use_id: &str, error: &InputError) -> ToolResultBlock {
    ToolResultBlock::error(tool_use_id, wrap_tool_use_error(&format!("InputValidationError: {error}")))
}

/// The result for input refused by `validate_input`.
pub fn validation_error_result(tool_use_id: &str, message: &str) -> ToolResultBlock {
    ToolResultBlock::error(tool_use_id, wrap_tool_use_error(message))
}

/// The result for a failed `call`: the message as is (no wrapper), cut in the middle past
/// [`MAX_ERROR_CHARS`]. Internal errors are logged and shown without their details.
pub(crate) fn tool_error_result(tool_use_id: &str, tool_name: &str, error: &ToolError) -> ToolResultBlock {
    let text = match error {
        ToolError::Failed(message) => truncate_middle(message, MAX_ERROR_CHARS),
        ToolError::Cancelled => error.to_string(),
        ToolError::Internal(detail) => {
            tracing::error!(tool = tool_name, %detail, "internal error in tool call");
            wrap_tool_use_error(&format!(
                "Error calling tool ({tool_name}): an internal error occurred. The details are in the host's log."
            ))
        }
    };
    ToolResultBlock::error(tool_use_id, text)
}

/// The text that replaces empty content: `(NAME completed with no output)`.
pub(crate) fn empty_result_text(tool_name: &str) -> String {
    format!("({tool_name} completed with no output)")
}

/// Keeps the first and last `max / 2` characters of a long text with a marker between them.
pub fn truncate_middle(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let half = max / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(total - half).collect();
    format!("{head}\n\n... [{} characters truncated] ...\n\n{tail}", total - 2 * half)
}

/// The finished result of one call: the block the model sees plus what else the call produced.
pub struct Invocation {
    /// The `tool_result` block (errors included).
    pub block: ToolResultBlock,
    /// The tool's output data, when the call succeeded.
    pub data: Option<Box<dyn StructuredData>>,
    /// Messages to append after the result.
    pub new_messages: Vec<Message>,
    /// A change to the context for later calls.
    pub context_modifier: Option<ContextModifier>,
    /// The call was refused by a permission decision or a PreToolUse hook (Claude Code lists
    /// such calls in its result's `permission_denials`).
    pub permission_denied: bool,
    /// A hook after the call answered `"continue": false`: the query ends after this round of
    /// calls, without asking the model again; the hook's `stopReason` (maybe empty).
    pub stop: Option<String>,
}

impl std::fmt::Debug for Invocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invocation").field("block", &self.block).finish_non_exhaustive()
    }
}

impl Invocation {
    /// An invocation that ended before the tool ran (with an error block).
    pub fn refused(block: ToolResultBlock) -> Self {
        Self {
            block,
            data: None,
            new_messages: Vec::new(),
            context_modifier: None,
            permission_denied: false,
            stop: None,
        }
    }

    /// Turns what `call` returned into an invocation: the mapped block (empty content replaced by
    /// `empty_result_text`) or the error result.
    pub fn from_call(tool_use_id: &str, tool_name: &str, outcome: Result<ToolResult<CallOutput>, ToolError>) -> Self {
        match outcome {
            Ok(result) => {
                let mut block = result.data.block;
                block.tool_use_id = tool_use_id.to_owned();
                if block.content.is_empty() {
                    block.content = ToolResultContent::Text(empty_result_text(tool_name));
                }
                Self {
                    block,
                    data: Some(result.data.data),
                    new_messages: result.new_messages,
                    context_modifier: result.context_modifier,
                    permission_denied: false,
                    stop: None,
                }
            }
            Err(error) => Self::refused(tool_error_result(tool_use_id, tool_name, &error)),
        }
    }
}

/// The stages every call goes through before anything may run: strict parse, then
/// `validate_input` with a context whose `tool_use_id` is set. Returns the parsed input and that
/// context, or the finished (refused) invocation with Claude Code's envelope.
///
/// # Errors
/// The refused [`Invocation`] for input that does not parse or does not validate.
pub async fn parse_and_validate(
    tool: &dyn Tool,
    tool_use_id: &str,
    input: Value,
    ctx: &ToolUseContext,
) -> Result<(ParsedInput, ToolUseContext), Invocation> {
    let parsed = tool.parse(input).map_err(|error| Invocation::refused(input_error_result(tool_use_id, &error)))?;
    let mut ctx = ctx.clone();
    ctx.tool_use_id = Some(tool_use_id.to_owned());
    if let ValidationResult::Error { message, .. } = tool.validate_input(&parsed, &ctx).await {
        return Err(Invocation::refused(validation_error_result(tool_use_id, &message)));
    }
    Ok((parsed, ctx))
}

/// Runs one call without permission checks: strict parse → `validate_input` → `call` → mapping.
///
/// `ctx.tool_use_id` is set to `tool_use_id` for the call. Every failure comes back as an error
/// block in Claude Code's envelope; nothing panics.
pub async fn call_tool(tool: &dyn Tool, tool_use_id: &str, input: Value, ctx: &ToolUseContext) -> Invocation {
    match parse_and_validate(tool, tool_use_id, input, ctx).await {
        Ok((parsed, ctx)) => Invocation::from_call(tool_use_id, tool.name(), tool.call(parsed, &ctx).await),
        Err(refused) => refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_errors_are_cut_in_the_middle() {
        let text = format!("{}{}", "a".repeat(6000), "b".repeat(6000));
        let cut = truncate_middle(&text, MAX_ERROR_CHARS);
        assert!(cut.starts_with(&"a".repeat(5000)));
        assert!(cut.ends_with(&"b".repeat(5000)));
        assert!(cut.contains("\n\n... [2000 characters truncated] ...\n\n"));
        assert_eq!(truncate_middle("short", 10), "short");
    }

    #[test]
    fn envelopes_match_claude_code() {
        assert_eq!(
            unknown_tool_result("t", "NoSuchTool").content,
            ToolResultContent::Text(
                "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>".into()
            )
        );
        assert_eq!(empty_result_text("Bash"), "(Bash completed with no output)");
        let failed = tool_error_result("t", "Read", &ToolError::failed("File does not exist."));
        assert!(failed.is_error);
        assert_eq!(failed.content, ToolResultContent::Text("File does not exist.".into()));
        let internal = tool_error_result("t", "Read", &ToolError::internal("secret detail"));
        assert!(!internal.content.text().contains("secret detail"));
    }
}
