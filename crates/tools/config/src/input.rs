//! Config's input: the setting's name and, to change it, the new value.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Number, Value};

/// Config's input (Claude Code's field names, a strict object): `setting` alone reads it,
/// `setting` and `value` change it.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigInput {
    /// The setting's name, with dots for nested keys (e.g. "model", "permissions.defaultMode",
    /// "lsp.enabled").
    pub setting: String,
    /// The new value. Leave it out to read the current value.
    #[serde(default)]
    pub value: Option<ConfigValue>,
}

impl ConfigInput {
    /// True when the call only reads (no `value`).
    pub fn is_get(&self) -> bool {
        self.value.is_none()
    }
}

/// A value the model may give: a string, a boolean or a number (Claude Code's
/// `string | boolean | number`). Which of them a setting takes, and which strings it turns into
/// booleans or numbers, is the setting's business ([`crate::Setting::coerce`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ConfigValue {
    /// A JSON boolean.
    Bool(bool),
    /// A JSON number, kept exactly as sent (no float rounding).
    Number(Number),
    /// A JSON string.
    Text(String),
}

impl ConfigValue {
    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Bool(flag) => Value::Bool(*flag),
            Self::Number(number) => Value::Number(number.clone()),
            Self::Text(text) => Value::String(text.clone()),
        }
    }
}

impl fmt::Display for ConfigValue {
    /// The value as compact JSON (`true`, `30`, `"opus"`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json().to_string())
    }
}

/// `{"type": ["string", "boolean", "number"]}`: the union Claude Code's schema gives.
impl JsonSchema for ConfigValue {
    fn schema_name() -> Cow<'static, str> {
        "ConfigValue".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["string", "boolean", "number"]})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_keep_their_json_type() {
        let parse = |value: Value| serde_json::from_value::<ConfigInput>(json!({"setting": "s", "value": value}));
        assert_eq!(parse(json!(true)).unwrap().value, Some(ConfigValue::Bool(true)));
        assert_eq!(parse(json!("true")).unwrap().value, Some(ConfigValue::Text("true".into())));
        assert_eq!(parse(json!(30)).unwrap().value.unwrap().to_string(), "30");
        assert_eq!(parse(json!(2.5)).unwrap().value.unwrap().to_string(), "2.5");
        assert!(parse(json!([1])).is_err());
        assert!(parse(json!({"a": 1})).is_err());
        let get: ConfigInput = serde_json::from_value(json!({"setting": "model"})).unwrap();
        assert!(get.is_get());
    }
}
