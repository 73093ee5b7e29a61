//! TaskOutput's input.

use std::time::Duration;

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;

/// Default wait in milliseconds (Claude Code's 30 seconds).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// Longest wait in milliseconds (10 minutes).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// TaskOutput's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputInput {
    /// The ID of the task to read, as returned when it was started (e.g. `b2k9x7q1m`).
    pub task_id: String,
    /// Whether to wait for the task to finish before answering (default true). With false the
    /// answer comes at once, with the output so far.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    pub block: Option<bool>,
    /// How long to wait for the task when `block` is true, in milliseconds (default 30000, at most
    /// 600000).
    #[serde(default)]
    #[schemars(range(min = 0, max = 600_000))]
    pub timeout: Option<f64>,
}

impl TaskOutputInput {
    /// Whether to wait (`block`, default true).
    pub fn blocks(&self) -> bool {
        self.block.unwrap_or(true)
    }

    /// How long to wait: `timeout` ms (absent means [`DEFAULT_TIMEOUT_MS`]), within
    /// 0..=[`MAX_TIMEOUT_MS`] (the schema already refuses values outside it).
    pub fn wait(&self) -> Duration {
        let ms = match self.timeout {
            Some(ms) if ms.is_finite() => ms.clamp(0.0, MAX_TIMEOUT_MS as f64),
            _ => DEFAULT_TIMEOUT_MS as f64,
        };
        // Non-negative and at most MAX_TIMEOUT_MS here, so the cast is exact enough and in range.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Duration::from_millis(ms.round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(block: Option<bool>, timeout: Option<f64>) -> TaskOutputInput {
        TaskOutputInput { task_id: "b1".into(), block, timeout }
    }

    #[test]
    fn defaults_wait_thirty_seconds() {
        assert!(input(None, None).blocks());
        assert!(!input(Some(false), None).blocks());
        assert_eq!(input(None, None).wait(), Duration::from_secs(30));
        assert_eq!(input(None, Some(0.0)).wait(), Duration::ZERO);
        assert_eq!(input(None, Some(1500.4)).wait(), Duration::from_millis(1500));
        assert_eq!(input(None, Some(1e12)).wait(), Duration::from_secs(600));
        assert_eq!(input(None, Some(f64::NAN)).wait(), Duration::from_secs(30));
    }
}
