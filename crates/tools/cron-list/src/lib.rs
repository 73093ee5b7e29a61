//! # agent-tool-cron-list: the CronList tool
//!
//! Lists the scheduled jobs, as Claude Code's `CronList` does: the input `{}`, and one line per
//! job (a sub-agent sees only its own):
//!
//! ```text
//! 1a2b3c4d — every 5 minutes (recurring) [session-only], next run 2026-12-04 01:05 +00:00: check the build
//! ```
//!
//! (the prompt cut to 80 characters), or `No scheduled jobs.`. A durable job found in the
//! project's file that this user's sessions did not sign (a repository's, Claude Code's) is
//! marked [`FOREIGN`]: it never runs. Durable jobs come first, read
//! from `.claude/scheduled_tasks.json`; session-only ones are marked `[session-only]`. The jobs
//! are the session's [`agent_tools_cron::CronScheduler`].
//!
//! Read-only, concurrency-safe, deferred.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_cron::{CronConfig, CronScheduler, FakeClock, NewJob, Zone};
//! let ctx = ToolUseContext::new("/tmp");
//! let clock = Arc::new(FakeClock::new(1_796_346_000_000)); // 2026-12-04 01:00 UTC
//! let scheduler = CronScheduler::new(CronConfig { zone: Zone::utc(), ..CronConfig::new(None, clock) });
//! scheduler.install(&ctx);
//! let tool = agent_tool_cron_list::tool();
//! let done = call_tool(tool.as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert_eq!(done.block.content.text(), "No scheduled jobs.");
//! let job = scheduler.create(NewJob::new("*/5 * * * *", "check the build")).unwrap();
//! let done = call_tool(tool.as_ref(), "toolu_2", serde_json::json!({}), &ctx).await;
//! assert_eq!(
//!     done.block.content.text(),
//!     format!("{} — every 5 minutes (recurring) [session-only], next run 2026-12-04 01:05 +00:00: check the build", job.id)
//! );
//! # });
//! ```

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool};
use agent_tools_cron::{CronScheduler, Zone};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The API name.
pub const NAME: &str = "CronList";

/// The result when there are no jobs (Claude Code's text).
pub const NO_JOBS: &str = "No scheduled jobs.";

/// How a durable job not made by this user's sessions is marked: it never runs here.
pub const FOREIGN: &str = " [not made in your sessions: it will not run; CronDelete removes it]";

/// Most characters of a prompt shown per line.
pub const PROMPT_CHARS: usize = 80;

/// CronList's input: nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronListInput {}

/// One job (Claude Code's fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedJob {
    /// Its id.
    pub id: String,
    /// The expression.
    pub cron: String,
    /// The expression in words.
    pub human_schedule: String,
    /// The prompt.
    pub prompt: String,
    /// Present (true) for a recurring job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurring: Option<bool>,
    /// Present (false) for a session-only job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durable: Option<bool>,
    /// When it runs next, ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_fire_at: Option<i64>,
    /// Present (true) for a durable job this user's sessions did not make (a repository's,
    /// Claude Code's): it never runs here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreign: Option<bool>,
}

/// What CronList produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CronListOutput {
    /// The jobs, durable ones first.
    pub jobs: Vec<ListedJob>,
    /// The zone the next runs are shown in.
    #[serde(skip)]
    pub zone: Zone,
}

/// The prompt on one line (line breaks and other control characters as spaces, so a prompt
/// cannot forge more job lines), cut to `chars` characters with `…`.
fn cut(text: &str, chars: usize) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.chars().count() <= chars {
        return line;
    }
    let mut cut: String = line.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The result text: one line per job (see the crate docs), or [`NO_JOBS`].
pub fn render(output: &CronListOutput) -> String {
    if output.jobs.is_empty() {
        return NO_JOBS.to_owned();
    }
    let lines: Vec<String> = output
        .jobs
        .iter()
        .map(|job| {
            let kind = if job.recurring == Some(true) { " (recurring)" } else { " (one-shot)" };
            let session = if job.durable == Some(false) { " [session-only]" } else { "" };
            let session = if job.foreign == Some(true) { FOREIGN } else { session };
            let next = job.next_fire_at.map_or_else(String::new, |at| format!(", next run {}", output.zone.format(at)));
            format!("{} — {}{kind}{session}{next}: {}", job.id, job.human_schedule, cut(&job.prompt, PROMPT_CHARS))
        })
        .collect();
    lines.join("\n")
}

/// The CronList tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct CronListTool;

/// CronList, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(CronListTool)
}

impl ToolDef for CronListTool {
    type Input = CronListInput;
    type Output = CronListOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("list active cron jobs");

    fn summary(&self, _input: &CronListInput) -> String {
        "List scheduled jobs".to_owned()
    }

    fn user_facing_name(&self, _input: Option<&CronListInput>) -> String {
        "List schedules".to_owned()
    }

    async fn call(&self, _input: CronListInput, ctx: &ToolUseContext) -> Result<ToolResult<CronListOutput>, ToolError> {
        let Some(scheduler) = CronScheduler::existing(ctx) else {
            return Ok(ToolResult::new(CronListOutput { jobs: Vec::new(), zone: Zone::Local }));
        };
        let jobs = scheduler.list(ctx.agent_id.as_deref()).map_err(|error| ToolError::failed(error.to_string()))?;
        let jobs = jobs
            .into_iter()
            .map(|job| ListedJob {
                id: job.id,
                cron: job.cron,
                human_schedule: job.human_schedule,
                prompt: job.prompt,
                recurring: job.recurring.then_some(true),
                durable: (!job.durable).then_some(false),
                next_fire_at: job.next_fire_at,
                foreign: job.foreign.then_some(true),
            })
            .collect();
        Ok(ToolResult::new(CronListOutput { jobs, zone: scheduler.zone() }))
    }

    fn map_tool_result(&self, output: &CronListOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render(output))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_stays_on_its_line() {
        assert_eq!(
            cut("check\ndeadbeef — every minute (recurring): run", 80),
            "check deadbeef — every minute (recurring): run"
        );
        assert_eq!(cut(&"é".repeat(100), 5), "éééé…");
    }
}
