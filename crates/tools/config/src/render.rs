//! Config's output → `tool_result` text, and every message it shows. The exact strings live
//! here.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::input::ConfigValue;
use crate::keys::{Kind, Setting};
use crate::store::{Found, StoreError};

/// Whether a call read or changed the setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Operation {
    /// Read (no `value` given).
    Get,
    /// Changed.
    Set,
}

/// What Config produced (Claude Code's output fields `success`, `operation`, `setting`,
/// `value`, `previousValue`, `newValue`, `error`, plus where the value lives). Fields that do
/// not apply are left out of the JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOutput {
    /// False when the call failed; `error` says why and the result is an error result.
    pub success: bool,
    /// Get or set; left out when the setting is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<Operation>,
    /// The setting's name as given.
    pub setting: String,
    /// Get: the value in effect (left out when no file sets it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Get, when no file sets it: the value in effect anyway, if there is a fixed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Set: what the written file held before (left out when it held nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_value: Option<Value>,
    /// Set: the value written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
    /// Get: the file the value comes from; set: the file written. A path, or `--settings`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Set: a file of higher precedence that sets the key too, so the new value is not the one
    /// in effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overridden_by: Option<Found>,
    /// Why the call failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ConfigOutput {
    /// A successful call on `setting` with nothing filled in yet.
    pub fn ok(setting: &str, operation: Operation) -> Self {
        Self {
            success: true,
            operation: Some(operation),
            setting: setting.to_owned(),
            value: None,
            default: None,
            previous_value: None,
            new_value: None,
            file: None,
            overridden_by: None,
            error: None,
        }
    }

    /// A failed call: `error` for the model.
    pub fn failure(setting: &str, operation: Option<Operation>, error: String) -> Self {
        Self { success: false, operation, error: Some(error), ..Self::ok(setting, Operation::Get) }
    }
}

/// The result text (Claude Code's): `SETTING = VALUE` for a read, `Set SETTING to VALUE` for a
/// change (values as compact JSON), `Error: MESSAGE` for a failure. Ours in addition: a setting
/// no file sets reads `SETTING is not set` (with `(default: VALUE)` when there is one), and a
/// change that a file of higher precedence overrides gets a second paragraph saying so.
pub fn result_text(output: &ConfigOutput) -> String {
    if let Some(error) = &output.error {
        return format!("Error: {error}");
    }
    let setting = &output.setting;
    match output.operation {
        Some(Operation::Set) => {
            let value = output.new_value.as_ref().map_or_else(|| "null".to_owned(), Value::to_string);
            let mut text = set_message(setting, &value);
            if let Some(over) = &output.overridden_by {
                text.push_str(&format!(
                    "\n\nNote: {} sets {setting} to {}, and it takes precedence, so that value stays in effect.",
                    over.file, over.value
                ));
            }
            text
        }
        _ => match (&output.value, &output.default) {
            (Some(value), _) => format!("{setting} = {value}"),
            (None, Some(default)) => format!("{setting} is not set (default: {default})"),
            (None, None) => format!("{setting} is not set"),
        },
    }
}

/// `Set SETTING to VALUE`: the result of a change (Claude Code's text) and the call's summary.
/// `value` is compact JSON.
pub fn set_message(setting: &str, value: &str) -> String {
    format!("Set {setting} to {value}")
}

/// The permission question for a change: what would be set, and in which file, said so that
/// it reads right when the call is refused too (a headless run gives the question back as the
/// refusal): `Config asks to set model to "opus" in /p/.claude/settings.json. Until that is
/// approved, the setting is not changed.` `value` is compact JSON.
pub fn set_question(setting: &str, value: &str, file: &std::path::Path) -> String {
    format!(
        "Config asks to set {setting} to {value} in {}. Until that is approved, the setting is not changed.",
        file.display()
    )
}

/// An unknown setting: its name and every supported one.
pub fn unknown_setting(setting: &str, supported: &[&str]) -> String {
    format!("Unknown setting: {}. Supported settings: {}", Value::from(setting), supported.join(", "))
}

/// A value the setting does not take.
pub fn invalid_value(setting: &Setting, value: &ConfigValue) -> String {
    let key = setting.key;
    match setting.kind {
        Kind::Bool => format!("Invalid value {value} for {key}: expected true or false"),
        Kind::Text => format!("Invalid value {value} for {key}: expected a non-empty string"),
        Kind::Choice(options) => format!("Invalid value {value} for {key}. Options: {}", options.join(", ")),
        Kind::WholeNumber => format!("Invalid value {value} for {key}: expected a whole number, 0 or more"),
    }
}

/// No file is configured for the setting's scope (the host gave no path).
pub fn no_file(setting: &Setting) -> String {
    format!("Cannot set {}: no {} file is configured for this session", setting.key, setting.scope.file_name())
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, reason } => write!(f, "Cannot read {}: {reason}", path.display()),
            Self::Invalid { origin, reason } => {
                write!(f, "{origin} is not valid JSON ({reason}); fix or remove it first")
            }
            Self::NotObject { origin } => write!(f, "{origin} does not hold a JSON object; fix or remove it first"),
            Self::Parent { origin, key } => {
                write!(
                    f,
                    "{origin}: {} is not a JSON object, so nothing can be set inside it",
                    Value::from(key.as_str())
                )
            }
            Self::Write { path, reason } => write!(f, "Cannot write {}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for StoreError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::find;
    use crate::store::Layer;
    use serde_json::json;

    fn get(value: Option<Value>, default: Option<Value>) -> ConfigOutput {
        ConfigOutput { value, default, ..ConfigOutput::ok("model", Operation::Get) }
    }

    #[test]
    fn texts() {
        let read = get(Some(json!("opus")), None);
        assert_eq!(result_text(&read), r#"model = "opus""#);
        let mut unset = get(None, Some(json!(false)));
        unset.setting = "lsp.enabled".into();
        assert_eq!(result_text(&unset), "lsp.enabled is not set (default: false)");
        unset.default = None;
        assert_eq!(result_text(&unset), "lsp.enabled is not set");
        let mut set = ConfigOutput::ok("model", Operation::Set);
        set.new_value = Some(json!(true));
        assert_eq!(result_text(&set), "Set model to true");
        set.overridden_by =
            Some(Found { value: json!("haiku"), file: "/p/.claude/settings.local.json".into(), layer: Layer::Local });
        assert_eq!(
            result_text(&set),
            "Set model to true\n\nNote: /p/.claude/settings.local.json sets model to \"haiku\", and it takes precedence, so that value stays in effect."
        );
        assert_eq!(result_text(&ConfigOutput::failure("x", None, "boom".into())), "Error: boom");
        let mode = find("permissions.defaultMode").unwrap();
        assert_eq!(
            invalid_value(mode, &ConfigValue::Text("yolo".into())),
            r#"Invalid value "yolo" for permissions.defaultMode. Options: default, acceptEdits, plan, dontAsk"#
        );
        assert_eq!(unknown_setting("th\"eme", &["a", "b"]), r#"Unknown setting: "th\"eme". Supported settings: a, b"#);
    }
}
