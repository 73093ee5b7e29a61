//! ExitPlanMode through the contract, on real plan files: the plan-mode check, the question that
//! shows the plan, the restored mode, the result texts, and host-supplied plans.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tool_exit_plan_mode::{AGENT_APPROVED, APPROVED_WITHOUT_PLAN, NOT_IN_PLAN_MODE, tool};
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionMode, PermissionResult, ToolPermissionContext};
use agent_tools_core::{ToolUseContext, ValidationResult};
use serde_json::{Value, json};

const PLAN: &str = "# Plan\n\n1. Add the flag.\n2. Test it.\n";

/// A session in plan mode, entered from `before`.
fn planning(dir: &std::path::Path, before: Option<PermissionMode>) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(dir.join("proj"));
    ctx.options.plans_dir = Some(dir.join("plans"));
    ctx.permission_context =
        Arc::new(ToolPermissionContext { mode: PermissionMode::Plan, pre_plan_mode: before, ..Default::default() });
    ctx
}

async fn exit(ctx: &ToolUseContext, input: Value) -> (String, bool, Value, ToolUseContext) {
    let mut done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.as_ref().map(|data| data.to_json()).unwrap_or(Value::Null);
    let after = done.context_modifier.take().map_or_else(|| ctx.clone(), |modifier| modifier(ctx.clone()));
    (done.block.content.text(), done.block.is_error, data, after)
}

#[tokio::test]
async fn outside_plan_mode_it_is_refused_with_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = planning(dir.path(), None);
    ctx.permission_context = Arc::new(ToolPermissionContext::default());
    let parsed = tool().parse(json!({})).unwrap();
    assert_eq!(tool().validate_input(&parsed, &ctx).await, ValidationResult::error(NOT_IN_PLAN_MODE, 1));
    let (text, is_error, _, after) = exit(&ctx, json!({})).await;
    assert!(is_error);
    assert_eq!(text, format!("<tool_use_error>{NOT_IN_PLAN_MODE}</tool_use_error>"));
    assert_eq!(after.permission_context.mode, PermissionMode::Default);
}

#[tokio::test]
async fn approval_restores_the_previous_mode_and_returns_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = planning(dir.path(), Some(PermissionMode::AcceptEdits));
    let path = agent_tools_plan::plan_file_path(&ctx);
    agent_tools_plan::write_plan(&path, PLAN).unwrap();

    // The question shows the plan and the permissions it asks for.
    let parsed = tool().parse(json!({"allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]})).unwrap();
    let asked = tool().check_permissions(&parsed, &ctx).await;
    let PermissionResult::Ask { message, .. } = asked else { panic!("expected ask, got {asked:?}") };
    assert_eq!(
        message,
        format!(
            "Exit plan mode?\n\nThe plan ({}):\n\n# Plan\n\n1. Add the flag.\n2. Test it.\n\nThe plan asks permission to:\n- Bash: run tests",
            path.display()
        )
    );

    let (text, is_error, data, after) = exit(&ctx, json!({})).await;
    assert!(!is_error, "{text}");
    assert_eq!(after.permission_context.mode, PermissionMode::AcceptEdits);
    assert_eq!(after.permission_context.pre_plan_mode, None);
    let file = path.display().to_string();
    assert_eq!(data, json!({"plan": PLAN, "isAgent": false, "filePath": file}));
    assert_eq!(
        text,
        format!(
            "The user approved your plan: you can start implementing it now. If a todo list fits the work, update it first.\n\n\
             The plan is saved at: {file}\nRefer back to it during the implementation when you need to.\n\n## Approved Plan:\n{PLAN}"
        )
    );
}

#[tokio::test]
async fn without_a_plan_it_approves_leaving_and_restores_default() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = planning(dir.path(), None);
    let parsed = tool().parse(json!({})).unwrap();
    let asked = tool().check_permissions(&parsed, &ctx).await;
    let path = agent_tools_plan::plan_file_path(&ctx);
    assert_eq!(
        asked.message(),
        Some(
            format!("Exit plan mode?\n\nNo plan was written: the plan file {} is missing or empty.", path.display())
                .as_str()
        )
    );
    agent_tools_plan::write_plan(&path, "\n  \n").unwrap();
    let (text, is_error, data, after) = exit(&ctx, json!({})).await;
    assert!(!is_error);
    assert_eq!(text, APPROVED_WITHOUT_PLAN);
    assert_eq!(data["plan"], Value::Null);
    assert_eq!(after.permission_context.mode, PermissionMode::Default);
}

#[tokio::test]
async fn a_host_supplied_plan_is_saved_and_marked_edited() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = planning(dir.path(), Some(PermissionMode::Default));
    let path = agent_tools_plan::plan_file_path(&ctx);
    agent_tools_plan::write_plan(&path, PLAN).unwrap();
    let edited = "# Plan\n\n1. Add the flag, documented.\n";
    let input = json!({"plan": edited, "planFilePath": "/elsewhere/ignored.md"});
    let (text, is_error, data, _) = exit(&ctx, input).await;
    assert!(!is_error, "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    assert!(!std::path::Path::new("/elsewhere/ignored.md").exists());
    assert_eq!(data["planWasEdited"], json!(true));
    assert!(text.ends_with(&format!("## Approved Plan (edited by user):\n{edited}")), "{text}");

    // The same text as the file is not an edit; a missing file is simply written.
    let other = tempfile::tempdir().unwrap();
    let fresh = planning(other.path(), None);
    let (text, _, data, _) = exit(&fresh, json!({"plan": PLAN})).await;
    assert_eq!(data.get("planWasEdited"), None);
    assert!(text.ends_with(&format!("## Approved Plan:\n{PLAN}")), "{text}");
    assert_eq!(std::fs::read_to_string(agent_tools_plan::plan_file_path(&fresh)).unwrap(), PLAN);
}

#[tokio::test]
async fn a_sub_agent_gets_the_short_approval_and_its_own_plan_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = planning(dir.path(), None);
    ctx.agent_id = Some("a9".into());
    let (text, is_error, data, _) = exit(&ctx, json!({})).await;
    assert!(!is_error);
    assert_eq!(text, AGENT_APPROVED);
    assert_eq!(data["isAgent"], json!(true));
    assert!(data["filePath"].as_str().unwrap().ends_with("-agent-a9.md"), "{data}");
}

#[test]
fn flags_and_schema_match_claude_code() {
    let tool = tool();
    let flags = tool.flags();
    assert!(!flags.read_only && flags.concurrency_safe && !flags.destructive && !flags.open_world);
    assert!(tool.should_defer() && tool.requires_user_interaction());
    let schema = tool.input_schema();
    assert_eq!(schema["additionalProperties"], json!(false));
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["allowedPrompts", "plan", "planFilePath"]);
    for bad in [
        json!({"allowedPrompts": [{"tool": "Write", "prompt": "x"}]}),
        json!({"allowedPrompts": [{"tool": "Bash"}]}),
        json!({"allowedPrompts": "run tests"}),
        json!({"plan": 3}),
        json!({"launchSwarm": true}),
        json!(null),
    ] {
        assert!(tool.parse(bad.clone()).is_err(), "{bad}");
    }
}
