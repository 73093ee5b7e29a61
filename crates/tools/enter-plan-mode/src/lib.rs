//! # agent-tool-enter-plan-mode: the EnterPlanMode tool
//!
//! Switches the session into plan mode, as Claude Code's `EnterPlanMode` does: the call returns a
//! context modifier that sets the permission mode to `plan` and remembers the mode it replaced
//! in `pre_plan_mode` (Claude Code's `prePlanMode`; calling it again while planning keeps the
//! first one), so ExitPlanMode can restore it. In plan mode the file tools refuse to write,
//! except to the session's plan file.
//!
//! The plan file is `<plans dir>/<random word slug>.md` ([`agent_tools_plan::plan_file_path`];
//! the plans folder comes from `ToolUseOptions::plans_dir`, which the CLI fills with
//! `~/.claude/plans` or the `plansDirectory` setting). The call creates the folder and names the
//! file in its result, so the model knows where to write its plan (Claude Code names it in the
//! plan-mode reminders it attaches to later turns; this crate has no such channel).
//!
//! Input `{}` (strict: any field is an unexpected parameter). Output `{message, planFilePath}`;
//! the model reads the message followed by instructions (explore, weigh approaches, ask when
//! unclear, design, write the plan file, call ExitPlanMode; change no other file).
//!
//! Errors: called inside a sub-agent (`ctx.agent_id` set) it fails with [`NOT_IN_SUB_AGENTS`]
//! (Claude Code throws in agent contexts); a plans folder that cannot be created is reported.
//!
//! Flags as Claude Code's: read-only, concurrency-safe, deferred, allowed by default (only a
//! rule can make it ask). The mode change applies after the call's batch, as any context change
//! of concurrency-safe calls does.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, PermissionMode, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! let mut done = call_tool(agent_tool_enter_plan_mode::tool().as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert!(done.block.content.text().starts_with("Entered plan mode. Explore the code"));
//! if let Some(modifier) = done.context_modifier.take() {
//!     ctx = modifier(ctx);
//! }
//! assert_eq!(ctx.permission_context.mode, PermissionMode::Plan);
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool};

pub use crate::input::EnterPlanModeInput;
pub use crate::render::{ENTERED, EnterPlanModeOutput, NOT_IN_SUB_AGENTS, result_text};

/// The API name.
pub const NAME: &str = "EnterPlanMode";

/// The EnterPlanMode tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnterPlanModeTool;

/// EnterPlanMode, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(EnterPlanModeTool)
}

impl ToolDef for EnterPlanModeTool {
    type Input = EnterPlanModeInput;
    type Output = EnterPlanModeOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Changes only the session's mode (and creates the plans folder): read-only and
    // concurrency-safe as in Claude Code, nothing destructive, local.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::MainConversation)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("switch to plan mode to design an approach before coding");

    fn summary(&self, _input: &EnterPlanModeInput) -> String {
        "Enter plan mode to design an approach before changing code".to_owned()
    }

    fn activity_description(&self, _input: &EnterPlanModeInput) -> Option<String> {
        Some("Entering plan mode".to_owned())
    }

    async fn call(
        &self,
        _input: EnterPlanModeInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<EnterPlanModeOutput>, ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::failed(NOT_IN_SUB_AGENTS));
        }
        let path = agent_tools_plan::plan_file_path(ctx);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|error| {
                ToolError::failed(format!("Cannot create the plans folder {}: {error}", dir.display()))
            })?;
        }
        let output =
            EnterPlanModeOutput { message: ENTERED.to_owned(), plan_file_path: path.to_string_lossy().into_owned() };
        Ok(ToolResult::new(output).with_context_modifier(|mut ctx| {
            agent_tools_plan::enter_plan_mode(Arc::make_mut(&mut ctx.permission_context));
            ctx
        }))
    }

    fn map_tool_result(&self, output: &EnterPlanModeOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, result_text(output))
    }
}
