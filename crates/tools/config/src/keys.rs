//! The settings Config knows: their names, types, allowed values, defaults and the file each is
//! written to ([`SETTINGS`]), and the checking of a new value ([`Setting::coerce`]).
//!
//! These are the keys agent-tools itself reads from Claude Code's settings files (the
//! `agent-tools-settings` crate): a key nothing reads is not offered, so a change always does
//! something.

use serde::Serialize;
use serde_json::Value;

use crate::input::ConfigValue;
use crate::render;

/// The file a setting is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Scope {
    /// The user's own settings, `~/.claude/settings.json`: personal preferences that follow the
    /// user into every project (Claude Code's Config writes `model` and
    /// `permissions.defaultMode` there).
    User,
    /// The project's local settings, `.claude/settings.local.json`: this checkout only, not
    /// shared through version control (where Claude Code's `/sandbox` keeps the sandbox
    /// switches).
    Local,
}

impl Scope {
    /// The file's usual name, for messages and the prompt (`~/.claude/settings.json`,
    /// `.claude/settings.local.json`).
    pub fn file_name(self) -> &'static str {
        match self {
            Self::User => "~/.claude/settings.json",
            Self::Local => ".claude/settings.local.json",
        }
    }
}

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false` (also the strings `"true"` and `"false"`, any case).
    Bool,
    /// A string that is not blank.
    Text,
    /// One of these strings, exactly.
    Choice(&'static [&'static str]),
    /// A whole number, 0 or more (also a string of digits).
    WholeNumber,
}

impl Kind {
    /// The kind in words, for the prompt: `boolean`, `string`, `one of: a, b`, `whole number`.
    pub fn describe(self) -> String {
        match self {
            Self::Bool => "boolean".to_owned(),
            Self::Text => "string".to_owned(),
            Self::Choice(options) => format!("one of: {}", options.join(", ")),
            Self::WholeNumber => "whole number".to_owned(),
        }
    }

    /// Whether a value found in a settings file counts as set for this kind. The rules are those
    /// of `agent-tools-settings`, which ignores a value of the wrong shape: a boolean, a
    /// non-blank string (any string for a choice: the file may hold a value Config does not
    /// offer, such as `bypassPermissions`), a whole number.
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Self::Bool => value.is_boolean(),
            Self::Text => value.as_str().is_some_and(|text| !text.trim().is_empty()),
            Self::Choice(_) => value.is_string(),
            Self::WholeNumber => value.as_u64().is_some(),
        }
    }
}

/// A setting's default, the value in effect when no file sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// No fixed default (the program decides, e.g. the model).
    None,
    /// This boolean.
    Bool(bool),
    /// This string.
    Text(&'static str),
    /// This number.
    Number(u64),
}

impl Fallback {
    /// The default as JSON, if there is one.
    pub fn to_json(self) -> Option<Value> {
        match self {
            Self::None => None,
            Self::Bool(flag) => Some(Value::Bool(flag)),
            Self::Text(text) => Some(Value::String(text.to_owned())),
            Self::Number(number) => Some(Value::from(number)),
        }
    }
}

/// One setting Config can read and change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// Its name: the key path in the settings file, dots between levels
    /// (`permissions.defaultMode` is `{"permissions": {"defaultMode": …}}`).
    pub key: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// The file Config writes it to.
    pub scope: Scope,
    /// Its value when no file sets it.
    pub default: Fallback,
    /// What it does, in a line, for the prompt.
    pub about: &'static str,
}

/// The permission modes Config may set as `permissions.defaultMode`. `bypassPermissions` (no
/// questions at all) and `auto` are left out on purpose: a model should not be able to start
/// the user's next sessions without safeguards; the user can still write them by hand.
pub const MODES: &[&str] = &["default", "acceptEdits", "plan", "dontAsk"];

/// Every setting Config supports, in the order the prompt lists them.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "model",
        kind: Kind::Text,
        scope: Scope::User,
        default: Fallback::None,
        about: "The model the agent uses: an alias (opus, sonnet, haiku) or a full model ID.",
    },
    Setting {
        key: "permissions.defaultMode",
        kind: Kind::Choice(MODES),
        scope: Scope::User,
        default: Fallback::Text("default"),
        about: "The permission mode a session starts in.",
    },
    Setting {
        key: "cleanupPeriodDays",
        kind: Kind::WholeNumber,
        scope: Scope::User,
        default: Fallback::Number(30),
        about: "Session folders unused for longer than this many days are removed at start-up.",
    },
    Setting {
        key: "plansDirectory",
        kind: Kind::Text,
        scope: Scope::Local,
        default: Fallback::None,
        about: "Where plan files go, relative to the project root (default: the plans folder in ~/.claude).",
    },
    Setting {
        key: "lsp.enabled",
        kind: Kind::Bool,
        scope: Scope::User,
        default: Fallback::Bool(false),
        about: "Offer the LSP tool (go to definition, references, hover) through language servers.",
    },
    Setting {
        key: "lsp.diagnostics",
        kind: Kind::Bool,
        scope: Scope::User,
        default: Fallback::Bool(true),
        about: "When LSP is on, report the errors an edit introduced in the edit's result.",
    },
    Setting {
        key: "lsp.builtinServers",
        kind: Kind::Bool,
        scope: Scope::User,
        default: Fallback::Bool(true),
        about: "When LSP is on, use the well-known language servers found on PATH.",
    },
    Setting {
        key: "sandbox.enabled",
        kind: Kind::Bool,
        scope: Scope::Local,
        default: Fallback::Bool(false),
        about: "Run shell commands in the sandbox.",
    },
    Setting {
        key: "sandbox.autoAllowBashIfSandboxed",
        kind: Kind::Bool,
        scope: Scope::Local,
        default: Fallback::Bool(true),
        about: "Sandboxed shell commands run without asking unless a rule says otherwise.",
    },
    Setting {
        key: "sandbox.allowUnsandboxedCommands",
        kind: Kind::Bool,
        scope: Scope::Local,
        default: Fallback::Bool(true),
        about: "A shell command may ask to run outside the sandbox (it is then asked about).",
    },
];

/// The setting named `key` (exact, case-sensitive, as settings files are).
pub fn find(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|setting| setting.key == key)
}

/// Every supported name, in table order.
pub fn names() -> Vec<&'static str> {
    SETTINGS.iter().map(|setting| setting.key).collect()
}

impl Setting {
    /// The key's levels (`["permissions", "defaultMode"]`).
    pub fn path(&self) -> impl Iterator<Item = &'static str> {
        self.key.split('.')
    }

    /// Checks a new value and turns it into what the file will hold. Booleans also accept the
    /// strings `"true"` / `"false"` (any case, as Claude Code's Config does); whole numbers
    /// also accept a string of digits; strings are trimmed.
    ///
    /// # Errors
    /// The message for the model when the value has the wrong type,
    /// is blank, or is not one of the allowed values.
    pub fn coerce(&self, value: &ConfigValue) -> Result<Value, String> {
        let wrong = || render::invalid_value(self, value);
        match (self.kind, value) {
            (Kind::Bool, ConfigValue::Bool(flag)) => Ok(Value::Bool(*flag)),
            (Kind::Bool, ConfigValue::Text(text)) => match text.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(wrong()),
            },
            (Kind::Text, ConfigValue::Text(text)) if !text.trim().is_empty() => {
                Ok(Value::String(text.trim().to_owned()))
            }
            (Kind::Choice(options), ConfigValue::Text(text)) if options.contains(&text.trim()) => {
                Ok(Value::String(text.trim().to_owned()))
            }
            (Kind::WholeNumber, ConfigValue::Number(number)) => number.as_u64().map(Value::from).ok_or_else(wrong),
            (Kind::WholeNumber, ConfigValue::Text(text)) => {
                text.trim().parse::<u64>().map(Value::from).map_err(|_| wrong())
            }
            _ => Err(wrong()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn value(json: Value) -> ConfigValue {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn names_are_unique_and_nested_at_most_once() {
        let mut names = names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SETTINGS.len());
        assert!(SETTINGS.iter().all(|setting| setting.path().count() <= 2));
    }

    #[test]
    fn values_are_coerced_by_kind() {
        let lsp = find("lsp.enabled").unwrap();
        assert_eq!(lsp.coerce(&value(json!(true))), Ok(json!(true)));
        assert_eq!(lsp.coerce(&value(json!("False"))), Ok(json!(false)));
        assert!(lsp.coerce(&value(json!("yes"))).is_err());
        assert!(lsp.coerce(&value(json!(1))).is_err());
        let days = find("cleanupPeriodDays").unwrap();
        assert_eq!(days.coerce(&value(json!(7))), Ok(json!(7)));
        assert_eq!(days.coerce(&value(json!(" 14 "))), Ok(json!(14)));
        assert!(days.coerce(&value(json!(-1))).is_err());
        assert!(days.coerce(&value(json!(1.5))).is_err());
        let mode = find("permissions.defaultMode").unwrap();
        assert_eq!(mode.coerce(&value(json!("plan"))), Ok(json!("plan")));
        assert!(mode.coerce(&value(json!("bypassPermissions"))).is_err());
        assert!(mode.coerce(&value(json!("Plan"))).is_err());
        let model = find("model").unwrap();
        assert_eq!(model.coerce(&value(json!(" opus "))), Ok(json!("opus")));
        assert!(model.coerce(&value(json!("  "))).is_err());
        assert!(model.coerce(&value(json!(false))).is_err());
    }

    #[test]
    fn file_values_count_only_in_the_right_shape() {
        assert!(Kind::Bool.accepts(&json!(false)) && !Kind::Bool.accepts(&json!("false")));
        assert!(Kind::Text.accepts(&json!("x")) && !Kind::Text.accepts(&json!(" ")));
        assert!(Kind::Choice(MODES).accepts(&json!("bypassPermissions")));
        assert!(Kind::WholeNumber.accepts(&json!(0)) && !Kind::WholeNumber.accepts(&json!(-3)));
    }
}
