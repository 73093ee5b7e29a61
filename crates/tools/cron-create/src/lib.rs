//! # agent-tool-cron-create: the CronCreate tool
//!
//! Schedules a prompt, as Claude Code's `CronCreate` does: `cron` is a five-field expression in
//! local time, `prompt` what enters the conversation when it matches, `recurring` (default true)
//! fires at every match until the job is deleted or 30 days old (its last run), and `durable`
//! (default false) keeps the job in the project's `.claude/scheduled_tasks.json` so it outlives
//! the session. The jobs are the session's [`agent_tools_cron::CronScheduler`]; the front end runs
//! its driver (the agent loop queues a fired job's prompt; `serve` sends it to its client).
//!
//! Validation has Claude Code's codes and texts: 1 `Invalid cron expression '…'. Expected 5
//! fields: M H DoM Mon DoW.`, 2 `Cron expression '…' does not match any calendar date in the
//! next year.`, 3 `Too many scheduled jobs (max 50). Cancel one first.`, 4 a durable job asked
//! for by a sub-agent. The result:
//!
//! ```text
//! Scheduled recurring job 1a2b3c4d (every 5 minutes). Next run: 2026-12-04 01:05 +00:00. Session-only (not written to disk, dies when the session ends). Auto-expires after 30 days. Use CronDelete to cancel sooner.
//! ```
//!
//! Not read-only, not concurrency-safe, deferred. Permission: a session-only job is allowed
//! (Claude Code's default); a durable one writes a prompt that fires in the user's later
//! sessions into `.claude/scheduled_tasks.json`, so it is checked as a write of that file — a
//! file inside `.claude/`, asked in every mode as a Write to it would be. Claude Code allows it
//! unasked.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_cron::{CronConfig, CronScheduler, FakeClock, Zone};
//! let ctx = ToolUseContext::new("/tmp");
//! let clock = Arc::new(FakeClock::new(1_796_346_000_000)); // 2026-12-04 01:00 UTC
//! CronScheduler::new(CronConfig { zone: Zone::utc(), ..CronConfig::new(None, clock) }).install(&ctx);
//! let input = serde_json::json!({"cron": "*/5 * * * *", "prompt": "check the build"});
//! let done = call_tool(agent_tool_cron_create::tool().as_ref(), "toolu_1", input, &ctx).await;
//! let text = done.block.content.text();
//! assert!(text.starts_with("Scheduled recurring job "), "{text}");
//! assert!(text.ends_with(" (every 5 minutes). Next run: 2026-12-04 01:05 +00:00. Session-only (not written \
//! to disk, dies when the session ends). Auto-expires after 30 days. Use CronDelete to cancel sooner."), "{text}");
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    PermissionResult, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_cron::{CronError, CronScheduler, NewJob, store};
use serde_json::Value;

pub use crate::input::CronCreateInput;
pub use crate::render::{CronCreateOutput, MAX_AGE_DAYS};

/// The API name.
pub const NAME: &str = "CronCreate";

/// What the model reads when the session has no scheduler.
pub const NO_SCHEDULER: &str = "Scheduled jobs are not available in this session.";

/// What the model reads for a blank prompt.
pub const EMPTY_PROMPT: &str = "The prompt is empty: give the text that should run when the job fires.";

/// The CronCreate tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct CronCreateTool;

/// CronCreate, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(CronCreateTool)
}

fn new_job(input: &CronCreateInput, ctx: &ToolUseContext) -> NewJob {
    NewJob {
        cron: input.cron.trim().to_owned(),
        prompt: input.prompt.clone(),
        recurring: input.recurring.unwrap_or(true),
        durable: input.durable.unwrap_or(false),
        agent_id: ctx.agent_id.clone(),
    }
}

fn failed(error: &CronError) -> ToolError {
    ToolError::failed(error.to_string())
}

impl ToolDef for CronCreateTool {
    type Input = CronCreateInput;
    type Output = CronCreateOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Changes the session's jobs (and maybe the project's file); no network.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: false })
        .deferred()
        .search_hint("schedule a recurring or one-shot prompt");

    fn summary(&self, input: &CronCreateInput) -> String {
        format!("Schedule '{}': {}", input.cron, input.prompt.chars().take(60).collect::<String>())
    }

    fn user_facing_name(&self, _input: Option<&CronCreateInput>) -> String {
        "Schedule".to_owned()
    }

    fn get_path(&self, input: &CronCreateInput) -> Option<String> {
        input.durable.unwrap_or(false).then(|| store::FILE.to_owned())
    }

    /// A durable job is a write of the durable jobs' file (see the crate docs); a session-only
    /// one changes nothing on disk.
    async fn check_permissions(&self, input: &CronCreateInput, ctx: &ToolUseContext) -> PermissionResult {
        if !input.durable.unwrap_or(false) {
            return PermissionResult::allow();
        }
        let file = CronScheduler::existing(ctx)
            .and_then(|scheduler| scheduler.durable_path().map(std::path::Path::to_path_buf))
            .unwrap_or_else(|| ctx.original_cwd.join(store::FILE));
        agent_tools_permissions::check_write_permission(&file, ctx)
    }

    fn to_auto_classifier_input(&self, input: &CronCreateInput) -> Value {
        Value::String(format!("{}: {}", input.cron, input.prompt))
    }

    /// Claude Code's checks and codes (see the crate docs).
    async fn validate_input(&self, input: &CronCreateInput, ctx: &ToolUseContext) -> ValidationResult {
        let Some(scheduler) = CronScheduler::existing(ctx) else { return ValidationResult::error(NO_SCHEDULER, 0) };
        if input.prompt.trim().is_empty() {
            return ValidationResult::error(EMPTY_PROMPT, 1);
        }
        match scheduler.check(&new_job(input, ctx)) {
            Ok(_) => ValidationResult::Ok,
            Err(error) => ValidationResult::error(error.to_string(), error.code()),
        }
    }

    async fn call(
        &self,
        input: CronCreateInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<CronCreateOutput>, ToolError> {
        let scheduler = CronScheduler::existing(ctx).ok_or_else(|| ToolError::failed(NO_SCHEDULER))?;
        let created = scheduler.create(new_job(&input, ctx)).map_err(|error| failed(&error))?;
        let zone = scheduler.zone();
        Ok(ToolResult::new(CronCreateOutput {
            id: created.id,
            human_schedule: created.human_schedule,
            recurring: created.recurring,
            durable: created.durable,
            next_fire_text: created.next_fire_at.map(|at| zone.format(at)),
            next_fire_at: created.next_fire_at,
            max_age_ms: created.max_age_ms,
            save_error: created.save_error,
        }))
    }

    fn map_tool_result(&self, output: &CronCreateOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
