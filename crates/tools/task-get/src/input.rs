//! TaskGet's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// TaskGet's input (Claude Code's field name; the object is closed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskGetInput {
    /// The id of the task to show
    pub task_id: String,
}
