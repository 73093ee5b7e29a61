//! Monitor's input (Claude Code's fields, without the WebSocket form), and how a raw input is
//! parsed: the default and the bounds of `timeout_ms`.

use std::time::Duration;

use agent_tools_core::{InputError, InputIssue, parse_strict, semantic};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::render;

/// The timeout of a call that sends none, in milliseconds (5 minutes; Claude Code's default).
pub const DEFAULT_TIMEOUT_MS: u64 = 300_000;

/// The smallest `timeout_ms` accepted, in milliseconds (1 second).
pub const MIN_TIMEOUT_MS: u64 = 1_000;

/// The largest `timeout_ms` accepted, in milliseconds (1 hour; the schema's maximum).
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// The longest a watch really runs, in milliseconds (30 minutes): larger accepted values are
/// capped to it, as Claude Code does.
pub const MAX_EFFECTIVE_TIMEOUT_MS: u64 = 1_800_000;

/// Monitor's input (Claude Code's field names; its `ws` WebSocket form is not supported).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorInput {
    /// A short description of what is being watched, e.g. "Errors in the dev server log". It
    /// names the watch in every notification.
    pub description: String,
    /// How long the watch may run, in milliseconds, before its command is stopped: from 1000 to
    /// 3600000, and values above 1800000 (30 minutes) count as 1800000. Use 300000 (5 minutes)
    /// when unsure.
    #[serde(deserialize_with = "number")]
    #[schemars(range(min = 1000, max = 3_600_000), extend("default" = 300_000))]
    pub timeout_ms: f64,
    /// The shell command to watch, run with bash in the working directory. Each line it prints
    /// is an event you are notified of; the watch ends when the command exits.
    // Required in the schema: Claude Code's leaves it optional for its WebSocket form, which
    // this tool does not have.
    #[schemars(required)]
    pub command: Option<String>,
}

/// A required number that may come as a numeric string (`"300000"`), as Claude Code's
/// `semanticNumber` accepts.
fn number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    semantic::opt_f64(deserializer)?.ok_or_else(|| de::Error::custom("expected a number"))
}

impl MonitorInput {
    /// The command when it says something (not empty or only white space).
    pub fn command(&self) -> Option<&str> {
        self.command.as_deref().filter(|command| !command.trim().is_empty())
    }

    /// The watch's timeout: `timeout_ms` rounded, within [`MIN_TIMEOUT_MS`] and capped at
    /// `cap_ms` (normally [`MAX_EFFECTIVE_TIMEOUT_MS`]).
    pub fn timeout(&self, cap_ms: u64) -> Duration {
        let cap = cap_ms.max(MIN_TIMEOUT_MS);
        let ms = if self.timeout_ms.is_finite() { self.timeout_ms.round() } else { DEFAULT_TIMEOUT_MS as f64 };
        // Clamped to a range of u64 values first, so the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = ms.clamp(MIN_TIMEOUT_MS as f64, cap as f64) as u64;
        Duration::from_millis(ms)
    }

    /// The description when it says something, else the command (what the task is known by).
    pub fn label(&self) -> &str {
        let description = self.description.trim();
        if description.is_empty() { self.command.as_deref().unwrap_or_default().trim() } else { description }
    }
}

/// A JSON number, or a numeric string, as a number.
fn numeric(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok().filter(|number| number.is_finite()),
        _ => None,
    }
}

/// Parses a raw input strictly against `schema`, as zod parses Claude Code's: a missing
/// `timeout_ms` means [`DEFAULT_TIMEOUT_MS`] (the schema still lists it as required, as Claude
/// Code's does), and one outside [`MIN_TIMEOUT_MS`]..=[`MAX_TIMEOUT_MS`] is refused with a message
/// naming both bounds — with every other problem of the input listed after it.
///
/// # Errors
/// [`InputError::Invalid`] listing what does not fit.
pub fn parse(tool: &str, json: &Value, schema: &Value) -> Result<MonitorInput, InputError> {
    let mut json = json.clone();
    let mut issues = Vec::new();
    if let Value::Object(map) = &mut json {
        match map.get("timeout_ms").map(numeric) {
            None => {
                map.insert("timeout_ms".into(), Value::from(DEFAULT_TIMEOUT_MS));
            }
            Some(Some(ms)) if !(MIN_TIMEOUT_MS as f64..=MAX_TIMEOUT_MS as f64).contains(&ms) => {
                issues.push(InputIssue::Invalid {
                    path: "timeout_ms".into(),
                    message: render::timeout_out_of_range(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, ms),
                });
                // Checked above; the rest of the input is still checked.
                map.insert("timeout_ms".into(), Value::from(DEFAULT_TIMEOUT_MS));
            }
            Some(_) => {}
        }
    }
    let parsed = parse_strict::<MonitorInput>(tool, schema, &json);
    if issues.is_empty() {
        return parsed;
    }
    match parsed {
        Ok(_) => Err(InputError::Invalid { tool: tool.to_owned(), issues }),
        Err(InputError::Invalid { issues: more, .. }) => {
            issues.extend(more);
            Err(InputError::Invalid { tool: tool.to_owned(), issues })
        }
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(timeout_ms: f64) -> MonitorInput {
        MonitorInput { description: "d".into(), timeout_ms, command: Some("tail -f x".into()) }
    }

    #[test]
    fn timeouts_round_and_are_capped_at_thirty_minutes() {
        assert_eq!(input(1000.0).timeout(MAX_EFFECTIVE_TIMEOUT_MS), Duration::from_millis(1000));
        assert_eq!(input(1500.6).timeout(MAX_EFFECTIVE_TIMEOUT_MS), Duration::from_millis(1501));
        assert_eq!(input(3_600_000.0).timeout(MAX_EFFECTIVE_TIMEOUT_MS), Duration::from_millis(1_800_000));
        assert_eq!(input(f64::NAN).timeout(MAX_EFFECTIVE_TIMEOUT_MS), Duration::from_millis(300_000));
    }

    #[test]
    fn blank_commands_say_nothing_and_labels_fall_back_to_the_command() {
        let blank = MonitorInput { command: Some("  ".into()), ..input(1000.0) };
        assert_eq!(blank.command(), None);
        let unnamed = MonitorInput { description: " ".into(), ..input(1000.0) };
        assert_eq!(unnamed.label(), "tail -f x");
        assert_eq!(input(1000.0).label(), "d");
    }
}
