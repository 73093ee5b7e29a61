//! CronCreate's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// CronCreate's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronCreateInput {
    /// Standard 5-field cron expression in local time: "M H DoM Mon DoW" (e.g. "*/5 * * * *" =
    /// every 5 minutes, "30 14 28 2 *" = Feb 28 at 2:30pm local, once).
    pub cron: String,
    /// The prompt to enqueue at each fire time.
    pub prompt: String,
    /// true (default) = fire on every match until deleted or auto-expired after 30 days. false =
    /// fire once at the next match, then auto-delete.
    #[serde(default)]
    pub recurring: Option<bool>,
    /// true = persist to .claude/scheduled_tasks.json and survive restarts. false (default) =
    /// in memory only, gone when this session ends.
    #[serde(default)]
    pub durable: Option<bool>,
}
