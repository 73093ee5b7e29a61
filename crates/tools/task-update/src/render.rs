//! TaskUpdate's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

/// What TaskUpdate produced (Claude Code's output data, camelCase keys:
/// `{success, taskId, updatedFields, error?, statusChange?}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskUpdateOutput {
    /// Whether the update was made.
    pub success: bool,
    /// The task asked for.
    pub task_id: String,
    /// The fields that changed, in Claude Code's order: `subject`, `description`, `activeForm`,
    /// `owner`, `metadata`, `status`, `blocks`, `blockedBy`; or just `deleted`. A field given
    /// with its current value is not listed.
    pub updated_fields: Vec<String>,
    /// Why it failed (only when `success` is false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The status before and after, when it changed (`to` is `deleted` for a deletion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_change: Option<StatusChange>,
}

/// A status change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusChange {
    /// The old status.
    pub from: String,
    /// The new status (or `deleted`).
    pub to: String,
}

/// The failure text for an id the list does not have (Claude Code's).
pub const NOT_FOUND: &str = "Task not found";

/// The result text (Claude Code's): on success `Updated task #<id> <field>, <field>` (with a
/// trailing space and nothing after it when nothing changed); on failure the error text alone.
/// Neither is an error result: Claude Code deliberately keeps a failed update from cancelling
/// the calls beside it.
pub fn text(output: &TaskUpdateOutput) -> String {
    if output.success {
        format!("Updated task #{} {}", output.task_id, output.updated_fields.join(", "))
    } else {
        output.error.clone().unwrap_or_else(|| format!("Task #{} not found", output.task_id))
    }
}
