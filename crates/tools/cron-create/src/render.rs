//! CronCreate's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

/// The days a recurring job lives before its last run (30, as Claude Code 2.1.332 says).
pub const MAX_AGE_DAYS: i64 = agent_tools_cron::RECURRING_MAX_AGE_MS / (24 * 60 * 60 * 1000);

/// What CronCreate produced (Claude Code's output fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CronCreateOutput {
    /// The job's id (eight hex digits).
    pub id: String,
    /// The schedule in words.
    pub human_schedule: String,
    /// Recurring or one-shot.
    pub recurring: bool,
    /// Saved in the project's file.
    pub durable: bool,
    /// When it fires next, ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_fire_at: Option<i64>,
    /// A recurring job's maximum age, ms (0: never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<i64>,
    /// Why a durable job could not be saved (it is then session-only).
    #[serde(skip)]
    pub save_error: Option<String>,
    /// The next run as a local date and time (`2026-12-04 09:00 +01:00`).
    #[serde(skip)]
    pub next_fire_text: Option<String>,
}

/// The result text (Claude Code's sentences):
///
/// ```text
/// Scheduled recurring job 1a2b3c4d (every 5 minutes). Next run: 2026-12-04 01:05 +00:00. Session-only (not written to disk, dies when the session ends). Auto-expires after 30 days. Use CronDelete to cancel sooner.
/// Scheduled one-shot task 1a2b3c4d (on Dec 4 at 17:30). Next run: …. Persisted to .claude/scheduled_tasks.json. It will fire once then auto-delete.
/// ```
pub fn render(output: &CronCreateOutput) -> String {
    let next = output.next_fire_text.as_ref().map_or_else(String::new, |at| format!(" Next run: {at}."));
    let place = if output.durable {
        "Persisted to .claude/scheduled_tasks.json".to_owned()
    } else if let Some(error) = &output.save_error {
        format!("Session-only (it could not be saved: {error})")
    } else {
        "Session-only (not written to disk, dies when the session ends)".to_owned()
    };
    let (id, schedule) = (&output.id, &output.human_schedule);
    if output.recurring {
        format!(
            "Scheduled recurring job {id} ({schedule}).{next} {place}. Auto-expires after {MAX_AGE_DAYS} days. Use CronDelete to cancel sooner."
        )
    } else {
        format!("Scheduled one-shot task {id} ({schedule}).{next} {place}. It will fire once then auto-delete.")
    }
}
