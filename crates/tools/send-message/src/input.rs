//! SendMessage's input (Claude Code's field names).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A structured message between an agent and its team lead (serialised, as JSON text, into a
/// teammate's mailbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Structured {
    /// Asks the recipient to finish and stop.
    ShutdownRequest {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Answers a shutdown request (sent to `team-lead`).
    ShutdownResponse {
        /// The request answered.
        request_id: String,
        /// Whether the recipient agrees to stop.
        approve: bool,
        /// Why not (required when not approving).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Answers a teammate's plan.
    PlanApprovalResponse {
        /// The request answered.
        request_id: String,
        /// Whether the plan is approved.
        approve: bool,
        /// What to change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
}

/// The message: plain text, or a structured message.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageBody {
    /// Plain text (needs a `summary`).
    Text(String),
    /// A structured message.
    Structured(Structured),
}

/// SendMessage's input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageInput {
    /// The recipient: an agent's id or name (from the Agent call), a teammate's name, "team-lead", or "*" for every running agent and teammate
    pub to: String,
    /// A 5-10 word summary of the message, shown in place of it (required for a text message)
    #[serde(default)]
    pub summary: Option<String>,
    /// The message: text, or a structured shutdown / plan-approval message
    pub message: MessageBody,
}
