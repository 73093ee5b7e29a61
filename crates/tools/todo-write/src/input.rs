//! TodoWrite's input: the whole list, every call.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

/// TodoWrite's input (Claude Code's field names and JSON Schema). Every object is closed
/// (`additionalProperties: false`), as the API's strict tool mode requires and as Claude Code's
/// advertised schema says; an item key of older versions (`id`, `priority`) is refused by name
/// where Claude Code's runtime would silently drop it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The updated todo list
    pub todos: Vec<TodoItem>,
}

/// One item of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in the imperative ("Run the tests"). Not empty.
    #[serde(deserialize_with = "content")]
    #[schemars(length(min = 1))]
    pub content: String,
    /// Where the item stands.
    pub status: TodoStatus,
    /// The same step as it is happening ("Running the tests"), shown while it is in progress.
    /// Not empty.
    #[serde(deserialize_with = "active_form")]
    #[schemars(length(min = 1))]
    pub active_form: String,
}

/// An item's status (Claude Code's three values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (one item at a time).
    InProgress,
    /// Done.
    Completed,
}

/// A plain string enum, as Claude Code's schema has it (no per-value sub-schemas).
impl JsonSchema for TodoStatus {
    fn schema_name() -> Cow<'static, str> {
        "TodoStatus".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["pending", "in_progress", "completed"]})
    }
}

/// Claude Code's message for an empty `content`.
pub const EMPTY_CONTENT: &str = "Content cannot be empty";
/// Claude Code's message for an empty `activeForm`.
pub const EMPTY_ACTIVE_FORM: &str = "Active form cannot be empty";

fn non_empty<'de, D: Deserializer<'de>>(deserializer: D, message: &'static str) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() { Err(serde::de::Error::custom(message)) } else { Ok(text) }
}

fn content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    non_empty(deserializer, EMPTY_CONTENT)
}

fn active_form<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    non_empty(deserializer, EMPTY_ACTIVE_FORM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_refuse_empty_text() {
        let item: TodoItem =
            serde_json::from_value(json!({"content": "Ship", "status": "in_progress", "activeForm": "Shipping"}))
                .unwrap();
        assert_eq!(item.status, TodoStatus::InProgress);
        let empty = serde_json::from_value::<TodoItem>(json!({"content": "", "status": "pending", "activeForm": "x"}));
        assert!(empty.unwrap_err().to_string().contains(EMPTY_CONTENT));
        let empty = serde_json::from_value::<TodoItem>(json!({"content": "x", "status": "pending", "activeForm": ""}));
        assert!(empty.unwrap_err().to_string().contains(EMPTY_ACTIVE_FORM));
    }
}
