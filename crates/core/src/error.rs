//! [`ToolError`]: how a tool's `call` fails.
//!
//! Two kinds of failure are kept apart, as DESIGN.md asks: a *tool error* is an error `tool_result`
//! the model reads and can act on (a bad path, a failed command), and an *internal error* (a bug, a
//! broken invariant) is logged and surfaces as a short error result without internals.

/// A failed tool call.
///
/// Mirrors what Claude Code does with an exception thrown by `call()`: an `is_error` result whose
/// text is the message, **not** wrapped in `<tool_use_error>` (that wrapper is for input and
/// validation errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// A failure the model should read: the message is the whole result text.
    #[error("{0}")]
    Failed(String),
    /// The call was cancelled through the context's cancellation token.
    #[error("[Request interrupted by user for tool use]")]
    Cancelled,
    /// A bug or broken invariant; the detail is logged, the model sees a short notice.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ToolError {
    /// A failure with a message for the model.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    /// An internal error (logged; the model sees a short notice).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::Internal(message.into())
    }
}
