//! EnterPlanMode through the contract, on a real plans folder: the mode switch, the plan file it
//! names, the strict empty input, and the sub-agent refusal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tool_enter_plan_mode::{ENTERED, NOT_IN_SUB_AGENTS, tool};
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionMode, ToolPermissionContext};
use agent_tools_core::{ToolUseContext, ValidationResult};
use serde_json::{Value, json};

fn context(dir: &std::path::Path, mode: PermissionMode) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(dir.join("proj"));
    ctx.options.plans_dir = Some(dir.join("plans"));
    ctx.permission_context = Arc::new(ToolPermissionContext { mode, ..Default::default() });
    ctx
}

/// One call; the text, the error flag, the output and the context after its modifier.
async fn enter(ctx: &ToolUseContext, input: Value) -> (String, bool, Value, ToolUseContext) {
    let mut done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.as_ref().map(|data| data.to_json()).unwrap_or(Value::Null);
    let after = done.context_modifier.take().map_or_else(|| ctx.clone(), |modifier| modifier(ctx.clone()));
    (done.block.content.text(), done.block.is_error, data, after)
}

#[tokio::test]
async fn enters_plan_mode_remembering_the_mode_and_names_the_plan_file() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), PermissionMode::AcceptEdits);
    let (text, is_error, data, after) = enter(&ctx, json!({})).await;
    assert!(!is_error, "{text}");
    assert_eq!(after.permission_context.mode, PermissionMode::Plan);
    assert_eq!(after.permission_context.pre_plan_mode, Some(PermissionMode::AcceptEdits));
    let plan = agent_tools_plan::current_plan_file(&ctx).expect("the plan file was chosen");
    assert_eq!(plan.parent(), Some(dir.path().join("plans").as_path()));
    assert!(plan.parent().unwrap().is_dir(), "the plans folder exists");
    assert!(!plan.exists(), "the plan file is the model's to write");
    let path = plan.display().to_string();
    assert_eq!(data, json!({"message": ENTERED, "planFilePath": path}));
    assert!(text.starts_with(&format!("{ENTERED}\n\nWhile in plan mode:\n1. ")), "{text}");
    assert!(text.contains(&format!("Write the plan to the plan file, {path}, with the Write tool")), "{text}");
    assert!(text.contains("Call ExitPlanMode when the plan is ready"), "{text}");
    assert!(text.ends_with("this is a read-only phase of exploring and planning."), "{text}");

    // Entering again keeps the first remembered mode and the same plan file.
    let (again, _, data, twice) = enter(&after, json!({})).await;
    assert!(again.contains(&path));
    assert_eq!(data["planFilePath"], json!(path));
    assert_eq!(twice.permission_context.pre_plan_mode, Some(PermissionMode::AcceptEdits));
}

#[tokio::test]
async fn any_field_is_an_unexpected_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), PermissionMode::Default);
    for input in [json!({"plan": "x"}), json!({"mode": "plan"})] {
        let key = input.as_object().unwrap().keys().next().unwrap().clone();
        let (text, is_error, _, after) = enter(&ctx, input).await;
        assert!(is_error);
        assert_eq!(
            text,
            format!(
                "<tool_use_error>InputValidationError: EnterPlanMode failed due to the following issue:\nAn unexpected parameter `{key}` was provided</tool_use_error>"
            )
        );
        assert_eq!(after.permission_context.mode, PermissionMode::Default);
    }
    for hostile in [json!([1]), json!(7), json!("plan"), json!(true)] {
        let (_, is_error, _, after) = enter(&ctx, hostile).await;
        assert!(is_error);
        assert_eq!(after.permission_context.mode, PermissionMode::Default);
    }
    assert_eq!(agent_tools_plan::current_plan_file(&ctx), None, "refused calls name no plan file");
}

#[tokio::test]
async fn a_sub_agent_cannot_enter_plan_mode() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = context(dir.path(), PermissionMode::Default);
    ctx.agent_id = Some("agent-1".into());
    let (text, is_error, data, after) = enter(&ctx, json!({})).await;
    assert!(is_error);
    assert_eq!(text, NOT_IN_SUB_AGENTS);
    assert_eq!(data, Value::Null);
    assert_eq!(after.permission_context.mode, PermissionMode::Default);
    assert!(!dir.path().join("plans").exists());
}

#[test]
fn flags_and_schema_match_claude_code() {
    let tool = tool();
    let flags = tool.flags();
    assert!(flags.read_only && flags.concurrency_safe && !flags.destructive && !flags.open_world);
    assert!(tool.should_defer());
    assert!(!tool.requires_user_interaction());
    assert_eq!(tool.input_schema()["additionalProperties"], json!(false));
    assert!(tool.input_schema().get("properties").is_none_or(|p| p == &json!({})));
    let parsed = tool.parse(json!({})).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    let ctx = ToolUseContext::new("/w");
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    assert_eq!(rt.block_on(tool.validate_input(&parsed, &ctx)), ValidationResult::Ok);
    assert_eq!(rt.block_on(tool.check_permissions(&parsed, &ctx)).behavior(), "allow");
}
