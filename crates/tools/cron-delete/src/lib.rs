//! # agent-tool-cron-delete: the CronDelete tool
//!
//! Cancels a scheduled job, as Claude Code's `CronDelete` does: the input `{id}`, the checks
//! (code 1 `No scheduled job with id '…'`, code 2 a job another agent made), and the result
//! `Cancelled job <id>.`. A durable job is removed from `.claude/scheduled_tasks.json` too. The
//! jobs are the session's [`agent_tools_cron::CronScheduler`].
//!
//! Not read-only, not concurrency-safe, deferred; permission: allowed (Claude Code's default).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_cron::{CronConfig, CronScheduler, NewJob};
//! let ctx = ToolUseContext::new("/tmp");
//! let scheduler = CronScheduler::new(CronConfig::system(None));
//! scheduler.install(&ctx);
//! let job = scheduler.create(NewJob::new("0 9 * * *", "standup notes")).unwrap();
//! let tool = agent_tool_cron_delete::tool();
//! let done = call_tool(tool.as_ref(), "toolu_1", serde_json::json!({"id": job.id}), &ctx).await;
//! assert_eq!(done.block.content.text(), format!("Cancelled job {}.", job.id));
//! assert!(scheduler.list(None).unwrap().is_empty());
//! let again = call_tool(tool.as_ref(), "toolu_2", serde_json::json!({"id": job.id}), &ctx).await;
//! assert!(again.block.is_error);
//! # });
//! ```

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_cron::CronScheduler;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The API name.
pub const NAME: &str = "CronDelete";

/// What the model reads when the session has no scheduler.
pub const NO_SCHEDULER: &str = "Scheduled jobs are not available in this session.";

/// CronDelete's input (Claude Code's field name).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronDeleteInput {
    /// Job ID returned by CronCreate.
    pub id: String,
}

/// What CronDelete produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CronDeleteOutput {
    /// The cancelled job's id.
    pub id: String,
}

/// The result text (Claude Code's): `Cancelled job <id>.`
pub fn render(output: &CronDeleteOutput) -> String {
    format!("Cancelled job {}.", output.id)
}

/// The CronDelete tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct CronDeleteTool;

/// CronDelete, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(CronDeleteTool)
}

impl ToolDef for CronDeleteTool {
    type Input = CronDeleteInput;
    type Output = CronDeleteOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Changes the session's jobs (and maybe the project's file).
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Team)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: false })
        .deferred()
        .search_hint("cancel a scheduled cron job");

    fn summary(&self, input: &CronDeleteInput) -> String {
        format!("Cancel scheduled job {}", input.id)
    }

    fn user_facing_name(&self, _input: Option<&CronDeleteInput>) -> String {
        "Cancel schedule".to_owned()
    }

    fn to_auto_classifier_input(&self, input: &CronDeleteInput) -> serde_json::Value {
        serde_json::Value::String(input.id.clone())
    }

    /// Claude Code's checks: the job exists (code 1) and is this agent's (code 2).
    async fn validate_input(&self, input: &CronDeleteInput, ctx: &ToolUseContext) -> ValidationResult {
        let Some(scheduler) = CronScheduler::existing(ctx) else { return ValidationResult::error(NO_SCHEDULER, 0) };
        match scheduler.check_delete(input.id.trim(), ctx.agent_id.as_deref()) {
            Ok(()) => ValidationResult::Ok,
            Err(error) => ValidationResult::error(error.to_string(), error.code()),
        }
    }

    async fn call(
        &self,
        input: CronDeleteInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<CronDeleteOutput>, ToolError> {
        let scheduler = CronScheduler::existing(ctx).ok_or_else(|| ToolError::failed(NO_SCHEDULER))?;
        let id = input.id.trim().to_owned();
        scheduler.delete(&id, ctx.agent_id.as_deref()).map_err(|error| ToolError::failed(error.to_string()))?;
        Ok(ToolResult::new(CronDeleteOutput { id }))
    }

    fn map_tool_result(&self, output: &CronDeleteOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render(output))
    }
}
