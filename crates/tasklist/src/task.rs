//! The task record as it is stored on disk (Claude Code's `Task` of `utils/tasks.ts`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a task stands (Claude Code's three stored values; `deleted` is not a status but the
/// removal of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started (every new task).
    Pending,
    /// Being worked on.
    InProgress,
    /// Done; a completed task no longer blocks the tasks it blocks.
    Completed,
}

impl TaskStatus {
    /// The status as it is written in files and results: `pending`, `in_progress`, `completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One task: the content of `<list folder>/<id>.json`, with Claude Code's camelCase keys
/// `{id, subject, description, activeForm?, owner?, status, blocks, blockedBy, metadata?}`.
///
/// Reading is lenient where it costs nothing (a file without `blocks` / `blockedBy` reads as
/// having none; unknown keys are ignored, as Claude Code's schema strips them); `id`, `subject`,
/// `description` and `status` are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The id: a decimal string (`"1"`, `"2"` …) for tasks created here. The file name is
    /// authoritative: a file whose `id` disagrees with its name reads with the name's id.
    pub id: String,
    /// A short title, in the imperative ("Run the tests").
    pub subject: String,
    /// What needs doing, in detail.
    pub description: String,
    /// The present-continuous form shown while the task is in progress ("Running the tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// Who works on it (an agent name), if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Where it stands.
    pub status: TaskStatus,
    /// Ids of the tasks this one blocks (they wait for it).
    #[serde(default)]
    pub blocks: Vec<String>,
    /// Ids of the tasks that block this one (it waits for them).
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Free-form data attached by the model or a host. A truthy `_internal` key hides the task
    /// from TaskList (see [`Task::is_internal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Task {
    /// Whether `metadata._internal` is truthy in JavaScript's sense (anything but absent,
    /// `null`, `false`, `0` and `""`): Claude Code's TaskList hides such tasks.
    pub fn is_internal(&self) -> bool {
        self.metadata.as_ref().and_then(|metadata| metadata.get("_internal")).is_some_and(is_truthy)
    }
}

/// JavaScript truthiness of a JSON value.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// What a new task is made of; the store gives it an id, status `pending` and no links
/// (Claude Code's `createTask` input).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewTask {
    /// The title.
    pub subject: String,
    /// The details.
    pub description: String,
    /// The present-continuous form, if given.
    pub active_form: Option<String>,
    /// The owner, if any (TaskCreate never sets one).
    pub owner: Option<String>,
    /// Metadata, stored as given.
    pub metadata: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_round_trip_with_claude_codes_keys() {
        let task = Task {
            id: "3".into(),
            subject: "Ship".into(),
            description: "Ship it".into(),
            active_form: Some("Shipping".into()),
            owner: None,
            status: TaskStatus::InProgress,
            blocks: vec!["4".into()],
            blocked_by: vec![],
            metadata: None,
        };
        let value = serde_json::to_value(&task).unwrap_or_default();
        assert_eq!(
            value,
            json!({"id": "3", "subject": "Ship", "description": "Ship it", "activeForm": "Shipping",
                   "status": "in_progress", "blocks": ["4"], "blockedBy": []})
        );
        assert_eq!(serde_json::from_value::<Task>(value).ok(), Some(task));
    }

    #[test]
    fn internal_follows_javascript_truthiness() {
        let with = |value: Value| Task {
            id: "1".into(),
            subject: String::new(),
            description: String::new(),
            active_form: None,
            owner: None,
            status: TaskStatus::Pending,
            blocks: vec![],
            blocked_by: vec![],
            metadata: Some(Map::from_iter([("_internal".to_owned(), value)])),
        };
        for hidden in [json!(true), json!(1), json!("yes"), json!({})] {
            assert!(with(hidden).is_internal());
        }
        for shown in [json!(false), json!(0), json!(""), Value::Null] {
            assert!(!with(shown).is_internal());
        }
    }
}
