//! The executor's stages and envelopes, on test tools.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::ToolUseBlock;
use agent_tools_core::build_tool;
use agent_tools_core::{PermissionBehavior, PermissionMode, PermissionRuleSource, ToolPermissionContext};
use agent_tools_core::{Tool, ToolUseContext};
use agent_tools_host::{run_tool_use, run_tool_uses, tool_result_message};
use common::TestTool;
use serde_json::{Value, json};

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.into(), name: name.into(), input }
}

fn pool() -> Vec<Arc<dyn Tool>> {
    vec![
        common::tool("Echo"),
        build_tool(TestTool { deny: true, ..TestTool::named("Refuser") }),
        build_tool(TestTool { change_cwd_to: Some(PathBuf::from("/elsewhere")), ..TestTool::named("Mover") }),
    ]
}

fn ctx_with(permissions: ToolPermissionContext) -> ToolUseContext {
    let mut ctx = ToolUseContext::new("/start");
    ctx.permission_context = Arc::new(permissions);
    ctx
}

async fn text_of(ctx: &ToolUseContext, name: &str, input: Value) -> (String, bool) {
    let done = run_tool_use(&pool(), &block("toolu_1", name, input), ctx).await;
    assert_eq!(done.block.tool_use_id, "toolu_1");
    (done.block.content.text(), done.block.is_error)
}

#[tokio::test]
async fn a_permitted_call_runs_and_aliases_resolve() {
    let ctx = ctx_with(ToolPermissionContext::default());
    assert_eq!(text_of(&ctx, "Echo", json!({"text": "hi"})).await, ("Echo: hi (cwd /start)".into(), false));
    assert_eq!(text_of(&ctx, "OldEcho", json!({"text": "hi"})).await, ("Echo: hi (cwd /start)".into(), false));
}

#[tokio::test]
async fn unknown_tools_parse_and_validation_failures_are_wrapped() {
    let ctx = ctx_with(ToolPermissionContext::default());
    assert_eq!(
        text_of(&ctx, "NoSuchTool", json!({})).await,
        ("<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>".into(), true)
    );
    assert_eq!(
        text_of(&ctx, "echo", json!({})).await,
        (
            "<tool_use_error>Error: No such tool available: echo. Tool names are case-sensitive: did you mean Echo?</tool_use_error>"
                .into(),
            true
        )
    );
    assert_eq!(
        text_of(&ctx, "Echo", json!({"text": "a", "bogus": 1})).await,
        (
            "<tool_use_error>InputValidationError: Echo failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>"
                .into(),
            true
        )
    );
    assert_eq!(
        text_of(&ctx, "Echo", json!({"text": "invalid"})).await,
        ("<tool_use_error>text may not be 'invalid'</tool_use_error>".into(), true)
    );
}

#[tokio::test]
async fn call_failures_and_denials_are_plain_error_text() {
    let ctx = ctx_with(ToolPermissionContext::default());
    assert_eq!(text_of(&ctx, "Echo", json!({"text": "fail"})).await, ("the call failed".into(), true));
    assert_eq!(text_of(&ctx, "Refuser", json!({"text": "x"})).await, ("the test tool refuses".into(), true));
}

#[tokio::test]
async fn a_whole_tool_deny_rule_wins_even_in_bypass_mode() {
    let mut permissions = ToolPermissionContext::default().with_rule(
        PermissionBehavior::Deny,
        PermissionRuleSource::ProjectSettings,
        "Echo",
    );
    permissions.mode = PermissionMode::BypassPermissions;
    let ctx = ctx_with(permissions);
    assert_eq!(
        text_of(&ctx, "Echo", json!({"text": "x"})).await,
        ("Permission to use Echo has been denied.".into(), true)
    );
}

#[tokio::test]
async fn an_ask_rule_is_refused_when_nobody_can_answer() {
    let permissions =
        ToolPermissionContext::default().with_rule(PermissionBehavior::Ask, PermissionRuleSource::UserSettings, "Echo");
    let (text, is_error) = text_of(&ctx_with(permissions.clone()), "Echo", json!({"text": "x"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        "Permission to use Echo has been denied: this call needs approval and no one is available to give it. Permission to use Echo is required, and it has not been granted."
    );
    let mut dont_ask = permissions;
    dont_ask.mode = PermissionMode::DontAsk;
    let (text, _) = text_of(&ctx_with(dont_ask), "Echo", json!({"text": "x"})).await;
    assert!(text.starts_with("Permission to use Echo has been denied because the session runs in don't-ask mode."));
}

#[tokio::test]
async fn a_panic_anywhere_in_a_call_is_an_internal_error_result_and_the_session_goes_on() {
    let ctx = ctx_with(ToolPermissionContext::default());
    let internal = "<tool_use_error>Error calling tool (Echo): an internal error occurred. The details are in the host's log.</tool_use_error>";
    for text in ["panic in validate_input", "panic in check_permissions", "panic in call"] {
        assert_eq!(text_of(&ctx, "Echo", json!({"text": text})).await, (internal.to_owned(), true), "{text}");
    }
    // The next call runs as usual.
    let (text, is_error) = text_of(&ctx, "Echo", json!({"text": "after"})).await;
    assert!(!is_error && text.starts_with("Echo: after"), "{text}");
}

#[tokio::test]
async fn a_cancelled_turn_runs_nothing() {
    let ctx = ctx_with(ToolPermissionContext::default());
    ctx.cancel.cancel();
    let (text, is_error) = text_of(&ctx, "Echo", json!({"text": "x"})).await;
    assert!(is_error);
    assert_eq!(text, agent_tools_host::executor::CANCEL_MESSAGE);
}

#[tokio::test]
async fn blocks_run_in_order_and_context_modifiers_apply_before_the_next() {
    let mut ctx = ctx_with(ToolPermissionContext::default());
    let calls = [
        block("toolu_1", "Echo", json!({"text": "one"})),
        block("toolu_2", "Mover", json!({"text": "two"})),
        block("toolu_3", "Nope", json!({})),
        block("toolu_4", "Echo", json!({"text": "four"})),
    ];
    let done = run_tool_uses(&pool(), &calls, &mut ctx).await;
    let message = serde_json::to_value(tool_result_message(&done)).unwrap();
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Echo: one (cwd /start)"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Mover: two (cwd /start)"},
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "<tool_use_error>Error: No such tool available: Nope</tool_use_error>", "is_error": true},
            {"type": "tool_result", "tool_use_id": "toolu_4", "content": "Echo: four (cwd /elsewhere)"}
        ]})
    );
    assert_eq!(ctx.cwd, PathBuf::from("/elsewhere"));
}
