//! [`ValidationResult`]: what a tool's `validate_input` decides before permissions are checked.
//!
//! Mirrors Claude Code's `ValidationResult = {result: true} | {result: false, message, errorCode}`.
//! A failure becomes an error `tool_result` wrapped in `<tool_use_error>…</tool_use_error>`.

use serde::{Deserialize, Serialize};

/// The outcome of `validate_input`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum ValidationResult {
    /// The input is acceptable.
    Ok,
    /// The input is refused; `message` is shown to the model.
    #[serde(rename_all = "camelCase")]
    Error {
        /// What the model reads (inside `<tool_use_error>`).
        message: String,
        /// The tool-specific error code (Claude Code's `errorCode`), for logs and tests.
        error_code: i32,
    },
}

/// The error code of a refusal by a permission rule met in `validate_input` (a `Read(…)` or
/// `Edit(…)` deny rule): the executor counts such a call among the permission denials, as
/// Claude Code lists it in its result's `permission_denials`.
pub const DENIED_BY_RULE: i32 = -403;

impl ValidationResult {
    /// A refusal because a deny rule covers what the call would touch ([`DENIED_BY_RULE`]).
    pub fn denied_by_rule(message: impl Into<String>) -> Self {
        Self::Error { message: message.into(), error_code: DENIED_BY_RULE }
    }

    /// A refusal with a message and code.
    pub fn error(message: impl Into<String>, error_code: i32) -> Self {
        Self::Error { message: message.into(), error_code }
    }

    /// True for [`ValidationResult::Ok`].
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok)
    }
}
