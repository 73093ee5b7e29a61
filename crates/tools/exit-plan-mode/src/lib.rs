//! # agent-tool-exit-plan-mode: the ExitPlanMode tool (V2)
//!
//! Ends plan mode once the user approves the plan, as Claude Code's `ExitPlanMode` (V2) does. The
//! plan is not a model input: it is read from the session's plan file
//! ([`agent_tools_plan::plan_file_path`], the one EnterPlanMode named).
//!
//! - **Input** `{allowedPrompts?: [{tool: "Bash", prompt}], plan?, planFilePath?}` (strict).
//!   `plan` / `planFilePath` are what Claude Code's hosts inject (SDK, hooks, a plan the user
//!   edited): a given `plan` replaces the plan file's content and is written there;
//!   `planFilePath` is informational (the plan file is always the session's own).
//! - **validate_input**: outside plan mode, error code 1 ([`NOT_IN_PLAN_MODE`]).
//! - **Permission**: always `ask`, with [`QUESTION`] ("Exit plan mode?") followed by the plan and
//!   the permissions it asks for ([`question`]), so the terminal and MCP elicitation show the
//!   user what they approve. `requires_user_interaction` is true, so even bypass mode and allow
//!   rules ask. A "no" gives the host's standard rejection and the session stays in plan mode.
//! - **call**: returns a context modifier restoring the mode plan mode replaced
//!   (`pre_plan_mode`, else `default`). Output `{plan, isAgent, filePath}` (+ `planWasEdited`
//!   when true).
//! - **Result text** ([`result_text`]): in a sub-agent a short approval asking for "ok"; no plan:
//!   leaving plan mode was approved; otherwise the approval, where the plan is saved, and
//!   `## Approved Plan:` (or `## Approved Plan (edited by user):`) followed by the plan.
//!
//! Flags as Claude Code's: not read-only (it may write the plan file), concurrency-safe,
//! deferred. Not done: `allowedPrompts` are shown to the user but not turned into permissions
//! (Claude Code hands them to its auto-mode classifier, which this project has not), and the
//! teammate / swarm variants.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{call_tool, PermissionMode, PermissionResult, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! ctx.options.plans_dir = Some(dir.path().join("plans"));
//! agent_tools_plan::enter_plan_mode(Arc::make_mut(&mut ctx.permission_context)); // as EnterPlanMode does
//! let plan = agent_tools_plan::plan_file_path(&ctx);
//! agent_tools_plan::write_plan(&plan, "# Plan\n\n1. Add the flag.\n").unwrap();
//! let tool = agent_tool_exit_plan_mode::tool();
//! let asked = tool.check_permissions(&tool.parse(serde_json::json!({})).unwrap(), &ctx).await;
//! let PermissionResult::Ask { message, .. } = asked else { panic!("{asked:?}") };
//! assert!(message.starts_with("Exit plan mode?\n\nThe plan ("), "{message}");
//! // The user said yes:
//! let mut done = call_tool(tool.as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert!(done.block.content.text().ends_with("\n\n## Approved Plan:\n# Plan\n\n1. Add the flag.\n"));
//! ctx = (done.context_modifier.take().unwrap())(ctx);
//! assert_eq!(ctx.permission_context.mode, PermissionMode::Default);
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{PermissionMode, PermissionResult};
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};

pub use crate::input::{AllowedPrompt, ExitPlanModeInput, PromptTool};
pub use crate::render::{
    AGENT_APPROVED, APPROVED_WITHOUT_PLAN, ExitPlanModeOutput, NOT_IN_PLAN_MODE, QUESTION, question, result_text,
};

/// The API name.
pub const NAME: &str = "ExitPlanMode";

/// The ExitPlanMode tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExitPlanModeTool;

/// ExitPlanMode, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ExitPlanModeTool)
}

/// The plan the call is about: the host-supplied one, else the plan file's.
fn plan_for(input: &ExitPlanModeInput, path: &std::path::Path) -> Option<String> {
    match &input.plan {
        Some(plan) if !plan.trim().is_empty() => Some(plan.clone()),
        _ => agent_tools_plan::read_plan(path),
    }
}

use agent_tools_core::Interaction;

impl ToolDef for ExitPlanModeTool {
    type Input = ExitPlanModeInput;
    type Output = ExitPlanModeOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // May write the plan file (a host-supplied plan), so not read-only; concurrency-safe as in
    // Claude Code; nothing destructive; local.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::MainConversation)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("present the plan for approval and leave plan mode");

    fn summary(&self, _input: &ExitPlanModeInput) -> String {
        "Present the plan for approval and leave plan mode".to_owned()
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }

    fn activity_description(&self, _input: &ExitPlanModeInput) -> Option<String> {
        Some("Presenting the plan".to_owned())
    }

    /// The plan for the user to approve (the question's message shows it too).
    fn interaction(&self, input: &ExitPlanModeInput, ctx: &ToolUseContext) -> Option<Interaction> {
        let plan = plan_for(input, &agent_tools_plan::plan_file_path(ctx)).unwrap_or_default();
        Some(Interaction::Plan { plan })
    }

    async fn validate_input(&self, _input: &ExitPlanModeInput, ctx: &ToolUseContext) -> ValidationResult {
        if ctx.permission_context.mode == PermissionMode::Plan {
            ValidationResult::Ok
        } else {
            ValidationResult::error(NOT_IN_PLAN_MODE, 1)
        }
    }

    /// Always asks, showing the plan (Claude Code's "Exit plan mode?" dialog).
    async fn check_permissions(&self, input: &ExitPlanModeInput, ctx: &ToolUseContext) -> PermissionResult {
        let path = agent_tools_plan::plan_file_path(ctx);
        let plan = plan_for(input, &path);
        let prompts = input.allowed_prompts.as_deref().unwrap_or_default();
        PermissionResult::ask(question(plan.as_deref(), &path.to_string_lossy(), prompts))
    }

    async fn call(
        &self,
        input: ExitPlanModeInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<ExitPlanModeOutput>, ToolError> {
        let path = agent_tools_plan::plan_file_path(ctx);
        let on_file = agent_tools_plan::read_plan(&path);
        let mut plan_was_edited = false;
        let plan = match input.plan {
            Some(given) if !given.trim().is_empty() => {
                if on_file.as_deref() != Some(given.as_str()) {
                    plan_was_edited = on_file.is_some();
                    agent_tools_plan::write_plan(&path, &given).map_err(|error| {
                        ToolError::failed(format!("Cannot save the plan to {}: {error}", path.display()))
                    })?;
                }
                Some(given)
            }
            _ => on_file,
        };
        let output = ExitPlanModeOutput {
            plan,
            is_agent: ctx.agent_id.is_some(),
            file_path: path.to_string_lossy().into_owned(),
            plan_was_edited,
        };
        Ok(ToolResult::new(output).with_context_modifier(|mut ctx| {
            agent_tools_plan::exit_plan_mode(Arc::make_mut(&mut ctx.permission_context));
            ctx
        }))
    }

    fn map_tool_result(&self, output: &ExitPlanModeOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, result_text(output))
    }
}
