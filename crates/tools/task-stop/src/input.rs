//! TaskStop's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// TaskStop's input (Claude Code's field names): the id as `task_id`, or as `shell_id` from the
/// tool's old name, KillShell.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStopInput {
    /// The ID of the background task to stop.
    #[serde(default)]
    pub task_id: Option<String>,
    /// Deprecated: the same as `task_id`.
    #[serde(default)]
    pub shell_id: Option<String>,
}

impl TaskStopInput {
    /// The id given: `task_id`, else `shell_id`; `None` when neither is there or it is empty.
    pub fn id(&self) -> Option<&str> {
        self.task_id.as_deref().or(self.shell_id.as_deref()).filter(|id| !id.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_id_wins_over_shell_id() {
        let both = TaskStopInput { task_id: Some("b1".into()), shell_id: Some("b2".into()) };
        assert_eq!(both.id(), Some("b1"));
        let old = TaskStopInput { task_id: None, shell_id: Some("b2".into()) };
        assert_eq!(old.id(), Some("b2"));
        let empty = TaskStopInput { task_id: Some(String::new()), shell_id: None };
        assert_eq!(empty.id(), None);
    }
}
