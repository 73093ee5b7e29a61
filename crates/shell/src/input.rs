//! A shell tool's input (Bash's fields, which PowerShell shares).

use std::time::Duration;

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A shell tool's input (Claude Code's field names for Bash and PowerShell). The doc comments
/// are Bash's schema descriptions; another shell replaces `command`'s with [`input_schema`].
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellInput {
    /// The shell command line to run, exactly as you would type it into bash.
    pub command: String,
    /// How long the command may run, in milliseconds, before it is stopped. Leave it out (or
    /// pass 0) for the default of 120000 (2 minutes); the most allowed is 600000 (10 minutes).
    #[serde(default, deserialize_with = "semantic::opt_f64")]
    pub timeout: Option<f64>,
    /// A short summary of what the command does, in the active voice, e.g. "List files in the
    /// current folder" or "Install the package's dependencies". Five to ten words is plenty.
    #[serde(default)]
    pub description: Option<String>,
    /// Set to true to start the command in the background and get its task ID at once, instead
    /// of waiting for it to finish. Its output goes to a file you can Read while it runs; you are
    /// told when it finishes, and TaskStop stops it.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    pub run_in_background: Option<bool>,
    /// Set to true to run this command outside the sandbox, when sandbox mode is on and the
    /// sandbox stopped it (a write outside the project, a download). The call then needs the
    /// user's approval like any other; leave it out otherwise.
    #[serde(default, rename = "dangerouslyDisableSandbox", deserialize_with = "semantic::opt_bool")]
    pub dangerously_disable_sandbox: Option<bool>,
}

impl ShellInput {
    /// The time the command may run: `timeout` in milliseconds, with absent, zero, negative or
    /// non-finite values meaning `default_ms`, and anything above `max_ms` clamped to it.
    pub fn timeout(&self, default_ms: u64, max_ms: u64) -> Duration {
        let max_ms = max_ms.max(1);
        let ms = match self.timeout {
            Some(ms) if ms.is_finite() && ms >= 1.0 => {
                // `ms` is finite and at least 1 here; the cast saturates above u64::MAX.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let whole = ms.round() as u64;
                whole
            }
            // Below one millisecond (0 included) means "the default", as in Claude Code.
            _ => default_ms,
        };
        Duration::from_millis(ms.clamp(1, max_ms))
    }

    /// Whether the call asks to run in the background (`run_in_background: true` or `"true"`).
    pub fn in_background(&self) -> bool {
        self.run_in_background == Some(true)
    }

    /// The `description` field when it says something, else `None`.
    pub fn summary(&self) -> Option<&str> {
        self.description.as_deref().map(str::trim).filter(|text| !text.is_empty())
    }
}

/// The JSON Schema of [`ShellInput`] as a tool sends it, when it differs from the derived one:
/// without `run_in_background` when `background_tasks` is false (Claude Code's
/// `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`; a call that sends the field is then refused like any
/// unknown field), and with `command_description` as the `command` field's description when
/// given. `None` when neither applies (the derived schema stands).
pub fn input_schema(background_tasks: bool, command_description: Option<&str>) -> Option<Value> {
    if background_tasks && command_description.is_none() {
        return None;
    }
    let mut schema = agent_tools_core::schema::input_schema_for::<ShellInput>();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        if !background_tasks {
            properties.remove("run_in_background");
        }
        if let (Some(text), Some(command)) =
            (command_description, properties.get_mut("command").and_then(Value::as_object_mut))
        {
            command.insert("description".to_owned(), Value::String(text.to_owned()));
        }
    }
    Some(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(timeout: Option<f64>) -> ShellInput {
        ShellInput {
            command: "true".into(),
            timeout,
            description: None,
            run_in_background: None,
            dangerously_disable_sandbox: None,
        }
    }

    #[test]
    fn timeouts_default_and_clamp() {
        assert_eq!(input(None).timeout(120_000, 600_000), Duration::from_millis(120_000));
        assert_eq!(input(Some(0.0)).timeout(120_000, 600_000), Duration::from_millis(120_000));
        assert_eq!(input(Some(-5.0)).timeout(120_000, 600_000), Duration::from_millis(120_000));
        assert_eq!(input(Some(1500.0)).timeout(120_000, 600_000), Duration::from_millis(1500));
        assert_eq!(input(Some(1e12)).timeout(120_000, 600_000), Duration::from_millis(600_000));
        assert_eq!(input(Some(f64::INFINITY)).timeout(120_000, 600_000), Duration::from_millis(120_000));
    }

    #[test]
    fn the_schema_changes_only_when_asked() {
        assert_eq!(input_schema(true, None), None);
        let without = input_schema(false, None).unwrap();
        let keys: Vec<&String> = without["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["command", "timeout", "description", "dangerouslyDisableSandbox"]);
        let renamed = input_schema(true, Some("A PowerShell command.")).unwrap();
        assert_eq!(renamed["properties"]["command"]["description"], "A PowerShell command.");
        assert!(renamed["properties"].get("run_in_background").is_some());
        assert_eq!(renamed["required"], serde_json::json!(["command"]));
    }

    #[test]
    fn blank_descriptions_are_absent() {
        let mut with = input(None);
        assert_eq!(with.summary(), None);
        with.description = Some("  ".into());
        assert_eq!(with.summary(), None);
        with.description = Some("List files".into());
        assert_eq!(with.summary(), Some("List files"));
    }
}
