//! TaskList's input: nothing.

use schemars::JsonSchema;
use serde::Deserialize;

/// TaskList's input: an empty, closed object (`{}`), as Claude Code's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskListInput {}
