//! TaskUpdate's input.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Map, Value};

/// TaskUpdate's input (Claude Code's field names and order; the object is closed). Every field
/// but `taskId` is optional: only what is given is changed.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskUpdateInput {
    /// The id of the task to update
    pub task_id: String,
    /// A new title for the task
    #[serde(default)]
    pub subject: Option<String>,
    /// A new description for the task
    #[serde(default)]
    pub description: Option<String>,
    /// The present continuous form shown while the task is in progress (e.g. "Running the tests")
    #[serde(default)]
    pub active_form: Option<String>,
    /// The new status; `deleted` removes the task for good
    #[serde(default)]
    pub status: Option<UpdateStatus>,
    /// Ids of tasks that cannot start until this one is completed
    #[serde(default)]
    pub add_blocks: Option<Vec<String>>,
    /// Ids of tasks that must be completed before this one can start
    #[serde(default)]
    pub add_blocked_by: Option<Vec<String>>,
    /// The new owner of the task (an agent name)
    #[serde(default)]
    pub owner: Option<String>,
    /// Metadata keys to merge into the task's metadata; a key set to null is removed
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// The status TaskUpdate can set (Claude Code's three statuses, and `deleted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Remove the task (its id is never reused).
    Deleted,
}

/// A plain string enum, as Claude Code's schema has it.
impl JsonSchema for UpdateStatus {
    fn schema_name() -> Cow<'static, str> {
        "UpdateStatus".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["pending", "in_progress", "completed", "deleted"]})
    }
}

/// The refusal of an empty or blank new `subject` (as TaskCreate refuses one; Claude Code
/// accepts it).
pub const EMPTY_SUBJECT: &str = "Subject cannot be empty";
