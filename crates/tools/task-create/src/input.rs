//! TaskCreate's input.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// TaskCreate's input (Claude Code's field names; the object is closed, as Claude Code's
/// `z.strictObject`).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskCreateInput {
    /// A brief title for the task, in the imperative (e.g. "Run the tests")
    pub subject: String,
    /// What needs to be done, in enough detail to do it later
    pub description: String,
    /// The present continuous form shown while the task is in progress (e.g. "Running the tests")
    #[serde(default)]
    pub active_form: Option<String>,
    /// Any extra data to keep with the task
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// The refusal of an empty or blank `subject` (a deliberate difference: Claude Code accepts it
/// and creates a task with no title).
pub const EMPTY_SUBJECT: &str = "Subject cannot be empty";
