//! RemoteTrigger's input: the action, the trigger it is about, and the JSON body it sends.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What to do with triggers (Claude Code's `action` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// List the account's triggers: `GET /v1/code/triggers`.
    List,
    /// Read one trigger: `GET /v1/code/triggers/{trigger_id}`.
    Get,
    /// Create a trigger from `body`: `POST /v1/code/triggers`.
    Create,
    /// Change a trigger with `body`: `POST /v1/code/triggers/{trigger_id}`.
    Update,
    /// Run a trigger now: `POST /v1/code/triggers/{trigger_id}/run`, with `body` or `{}`.
    Run,
}

impl Action {
    /// Every action, in the schema's order.
    pub const ALL: [Self; 5] = [Self::List, Self::Get, Self::Create, Self::Update, Self::Run];

    /// The input's spelling (`list`, `get` …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::List => "list",
            Self::Get => "get",
            Self::Create => "create",
            Self::Update => "update",
            Self::Run => "run",
        }
    }

    /// Whether the action names one trigger (`get`, `update`, `run`).
    pub fn needs_trigger_id(self) -> bool {
        matches!(self, Self::Get | Self::Update | Self::Run)
    }

    /// Whether the action must send a body (`create`, `update`).
    pub fn needs_body(self) -> bool {
        matches!(self, Self::Create | Self::Update)
    }

    /// Whether the action only reads (`list`, `get`).
    pub fn is_read(self) -> bool {
        matches!(self, Self::List | Self::Get)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A plain string enum, as Claude Code's schema has it.
impl JsonSchema for Action {
    fn schema_name() -> Cow<'static, str> {
        "Action".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Self::ALL.iter().map(|action| action.as_str()).collect();
        json_schema!({"type": "string", "enum": names})
    }
}

/// RemoteTrigger's input (Claude Code's field names, a strict object).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoteTriggerInput {
    /// What to do: list, get, create, update or run.
    pub action: Action,
    /// The trigger's ID; required for get, update and run. Letters, digits, "_" and "-" only.
    #[serde(default)]
    pub trigger_id: Option<String>,
    /// The JSON body to send; required for create and update, optional for run.
    #[serde(default)]
    pub body: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actions_parse_by_their_lowercase_names() {
        let input: RemoteTriggerInput =
            serde_json::from_value(json!({"action": "run", "trigger_id": "trg_1", "body": {"a": 1}})).unwrap();
        assert_eq!(input.action, Action::Run);
        assert_eq!(input.body.unwrap()["a"], json!(1));
        assert!(serde_json::from_value::<RemoteTriggerInput>(json!({"action": "delete"})).is_err());
        assert!(serde_json::from_value::<RemoteTriggerInput>(json!({"action": "create", "body": [1]})).is_err());
        assert!(Action::ALL.iter().all(|action| action.is_read() != (action.needs_body() || *action == Action::Run)));
    }
}
