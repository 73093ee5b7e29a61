//! Tools' typed capabilities in place of name lists: the real pool's capabilities give Claude
//! Code's sub-agent tool sets, LSP's read and edit tools and its shell tools exactly; a new tool
//! that only declares capabilities lands in the right sub-agent sets; plan mode is held by the
//! host for an edit or execute call whatever the tool's own check says.

#![cfg(all(feature = "agent", feature = "bash", feature = "file-edit"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::sync::Arc;

use agent_tool_agent::definitions::built_in;
use agent_tool_agent::tool_sets::{ToolSetOptions, tools_for_agent};
use agent_tools_core::{
    AgentScope, Capabilities, PromptOptions, Tool, ToolDef, ToolError, ToolKind, ToolResult, ToolResultBlock,
    ToolUseContext, build_tool,
};
use agent_tools_core::{PermissionMode, ToolPermissionContext};
use agent_tools_host::permissions::{PermissionDecision, has_permissions_to_use_tool, plan_mode_message};
use agent_tools_host::{HostConfig, every_tool_config, get_all_base_tools};
use serde_json::json;

/// Every optional tool switched on, in both task-list modes (the Task* tools and TodoWrite).
fn every_tool() -> Vec<Arc<dyn Tool>> {
    let everything = every_tool_config();
    let mut tools = get_all_base_tools(&everything);
    for tool in get_all_base_tools(&HostConfig { todo_v2: true, ..everything }) {
        if !tools.iter().any(|known| known.name() == tool.name()) {
            tools.push(tool);
        }
    }
    tools
}

/// The names of the tools whose capabilities pass `keep`, sorted.
fn names_where(tools: &[Arc<dyn Tool>], keep: impl Fn(Capabilities) -> bool) -> BTreeSet<String> {
    tools.iter().filter(|tool| keep(tool.capabilities())).map(|tool| tool.name().to_owned()).collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

/// Claude Code's sets (its `constants/tools.ts`, with Agent allowed in sub-agents and MultiEdit,
/// PowerShell, StructuredOutput and the worktree tools in the background set, as 2.1.332 runs
/// them), restricted to the tools this build has.
#[test]
fn the_pools_capabilities_give_claude_codes_tool_sets() {
    let tools = every_tool();
    let built: BTreeSet<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
    let only_built = |names: &[&str]| set(names).intersection(&built).cloned().collect::<BTreeSet<_>>();
    assert_eq!(
        names_where(&tools, |c| c.scope == AgentScope::MainConversation),
        only_built(&[
            "TaskOutput",
            "ExitPlanMode",
            "EnterPlanMode",
            "AskUserQuestion",
            "TaskStop",
            "TeamCreate",
            "TeamDelete"
        ])
    );
    assert_eq!(
        names_where(&tools, |c| c.scope.in_background()),
        only_built(&[
            "Read",
            "WebSearch",
            "TodoWrite",
            "Grep",
            "WebFetch",
            "Glob",
            "Bash",
            "PowerShell",
            "Edit",
            "Write",
            "NotebookEdit",
            "MultiEdit",
            "Skill",
            "ToolSearch",
            "EnterWorktree",
            "ExitWorktree",
            "Agent",
        ])
    );
    assert_eq!(
        names_where(&tools, |c| c.scope == AgentScope::Team),
        only_built(&[
            "TaskCreate",
            "TaskGet",
            "TaskList",
            "TaskUpdate",
            "SendMessage",
            "CronCreate",
            "CronDelete",
            "CronList"
        ])
    );
    assert_eq!(names_where(&tools, |c| c.dispatch), only_built(&["Agent", "TaskStop", "SendMessage"]));
    // What the LSP layer and the loop used to list by name.
    assert_eq!(names_where(&tools, |c| c.kind == ToolKind::Read), only_built(&["Read"]));
    assert_eq!(
        names_where(&tools, |c| c.kind == ToolKind::Edit),
        only_built(&["Edit", "Write", "MultiEdit", "NotebookEdit"])
    );
    assert_eq!(names_where(&tools, |c| c.shell), only_built(&["Bash", "PowerShell"]));
    assert!(built.contains("Bash") && built.contains("Agent"), "{built:?}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoInput {}

/// A tool that exists only in this test, with the given capabilities and nothing else about
/// where it may go; its own permission check is the contract's default (allow).
macro_rules! test_tool {
    ($ty:ident, $name:literal $(, $capabilities:expr)?) => {
        struct $ty;

        impl ToolDef for $ty {
            const NAME: &'static str = $name;
            $(const CAPABILITIES: Capabilities = $capabilities;)?
            type Input = NoInput;
            type Output = String;

            fn description(&self, _: &PromptOptions<'_>) -> String {
                format!("The {} test tool.", $name)
            }

            fn summary(&self, _: &NoInput) -> String {
                $name.into()
            }

            async fn call(&self, _: NoInput, _: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                Ok(ToolResult::new("done".to_owned()))
            }

            fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
                ToolResultBlock::text(tool_use_id, output.clone())
            }
        }
    };
}

// An edit tool every agent may use.
test_tool!(Throwaway, "Throwaway", Capabilities::new(ToolKind::Edit).scope(AgentScope::Everywhere));
// A tool with the default capabilities.
test_tool!(Foreground, "Foreground");

#[test]
fn a_new_tool_joins_the_sub_agent_sets_its_scope_names() {
    let throwaway = build_tool(Throwaway);
    let mut tools = every_tool();
    tools.push(Arc::clone(&throwaway));
    let pool: Vec<(&str, Capabilities)> = tools.iter().map(|tool| (tool.name(), tool.capabilities())).collect();
    let general = &built_in()[0];
    for options in [
        ToolSetOptions::default(),
        ToolSetOptions { background: true, ..ToolSetOptions::default() },
        ToolSetOptions { background: true, teammate: true, ..ToolSetOptions::default() },
    ] {
        let kept = tools_for_agent(&pool, general, &options);
        assert!(kept.iter().any(|name| name == "Throwaway"), "{options:?}: {kept:?}");
        assert!(!kept.iter().any(|name| name == "AskUserQuestion"), "{options:?}: {kept:?}");
    }
    // Not a dispatcher: a coordinator does not keep it.
    let coordinator = ToolSetOptions { coordinator: true, ..ToolSetOptions::default() };
    assert!(!tools_for_agent(&pool, general, &coordinator).iter().any(|name| name == "Throwaway"));
    // With the default scope it would stay out of background agents.
    let plain = build_tool(Foreground);
    let pool = [(plain.name(), plain.capabilities())];
    let background = ToolSetOptions { background: true, ..ToolSetOptions::default() };
    assert!(tools_for_agent(&pool, general, &background).is_empty());
    assert_eq!(tools_for_agent(&pool, general, &ToolSetOptions::default()), ["Foreground"]);
}

fn context(mode: PermissionMode, bypass_available: bool) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.permission_context = Arc::new(ToolPermissionContext {
        mode,
        is_bypass_permissions_mode_available: bypass_available,
        ..Default::default()
    });
    ctx
}

async fn decide(tool: &Arc<dyn Tool>, ctx: &ToolUseContext) -> PermissionDecision {
    let input = tool.parse(json!({})).unwrap();
    has_permissions_to_use_tool(tool.as_ref(), &input, ctx).await
}

#[tokio::test]
async fn plan_mode_holds_an_edit_whatever_the_tools_own_check_says() {
    let throwaway = build_tool(Throwaway);
    // Its own check allows (the contract's default), so outside plan mode it just runs …
    assert!(matches!(
        decide(&throwaway, &context(PermissionMode::Default, false)).await,
        PermissionDecision::Allow { .. }
    ));
    // … and in plan mode the host asks, even when plan mode was entered from bypass mode.
    for bypass_available in [false, true] {
        match decide(&throwaway, &context(PermissionMode::Plan, bypass_available)).await {
            PermissionDecision::Ask { message, forced, .. } => {
                assert_eq!(message, plan_mode_message("Throwaway"));
                assert_eq!(
                    message,
                    "Plan mode is on: Throwaway would make a change, and that needs the user's approval."
                );
                assert!(forced);
            }
            other => panic!("plan mode let an edit through: {other:?}"),
        }
    }
    // A tool that asks keeps its own question, and plan mode entered from bypass mode no longer
    // waves it through: the real Bash, asked to create a file.
    let dir = tempfile::tempdir().unwrap();
    let bash = get_all_base_tools(&HostConfig::default()).into_iter().find(|tool| tool.name() == "Bash").unwrap();
    let input = bash.parse(json!({"command": "touch made.txt", "description": "create"})).unwrap();
    for bypass_available in [false, true] {
        let mut ctx = context(PermissionMode::Plan, bypass_available);
        ctx.cwd = dir.path().canonicalize().unwrap();
        match has_permissions_to_use_tool(bash.as_ref(), &input, &ctx).await {
            PermissionDecision::Ask { message, .. } => assert!(message.contains("touch made.txt"), "{message}"),
            other => panic!("plan mode (bypass available: {bypass_available}) let `touch` through: {other:?}"),
        }
    }
    // A read-only command is not held.
    let ls = bash.parse(json!({"command": "ls", "description": "list"})).unwrap();
    let mut ctx = context(PermissionMode::Plan, true);
    ctx.cwd = dir.path().canonicalize().unwrap();
    assert!(matches!(has_permissions_to_use_tool(bash.as_ref(), &ls, &ctx).await, PermissionDecision::Allow { .. }));
    // A tool of another kind is the tool's own business, as before.
    let other = build_tool(Foreground);
    assert!(matches!(decide(&other, &context(PermissionMode::Plan, false)).await, PermissionDecision::Allow { .. }));
}

/// `description` defaults to the tool's `PROMPT`, which defaults to nothing: every tool of this
/// build says something to the model (a tool that forgot both would be offered blank).
#[test]
fn every_tool_has_a_description() {
    let options = agent_tools_core::PromptOptions::default();
    let blank: Vec<String> = every_tool()
        .iter()
        .filter(|tool| tool.description(&options).trim().is_empty())
        .map(|tool| tool.name().to_owned())
        .collect();
    assert!(blank.is_empty(), "tools without a description: {blank:?}");
    assert!(every_tool().len() >= 40);
}
