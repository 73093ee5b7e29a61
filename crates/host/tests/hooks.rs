//! PreToolUse and PostToolUse command hooks, run as real shell commands.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use agent_tools_core::ToolUseContext;
use agent_tools_core::{MessageContent, ToolUseBlock};
use agent_tools_host::hooks::{CommandHook, HookMatcher};
use agent_tools_host::{Executor, Hooks};
use serde_json::json;

fn hook(matcher: &str, command: &str, timeout: Option<f64>) -> HookMatcher {
    HookMatcher {
        matcher: matcher.into(),
        hooks: vec![CommandHook {
            kind: "command".into(),
            command: command.into(),
            timeout,
            condition: None,
            ..CommandHook::default()
        }],
    }
}

fn executor(pre: Vec<HookMatcher>, post: Vec<HookMatcher>) -> Executor {
    Executor::new(vec![common::tool("Echo"), common::tool("Other")]).with_hooks(Hooks {
        pre_tool_use: pre,
        post_tool_use: post,
        ..Hooks::default()
    })
}

fn call(text: &str) -> ToolUseBlock {
    ToolUseBlock { id: "toolu_1".into(), name: "Echo".into(), input: json!({"text": text}) }
}

fn system_texts(done: &agent_tools_core::Invocation) -> Vec<String> {
    done.new_messages
        .iter()
        .map(|message| match &message.content {
            MessageContent::Blocks(blocks) => {
                serde_json::to_value(blocks).unwrap()[0]["text"].as_str().unwrap().to_owned()
            }
            MessageContent::Text(text) => text.clone(),
        })
        .collect()
}

#[tokio::test]
async fn exit_2_blocks_the_call_and_feeds_stderr_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let command = "echo 'blocked by the test hook' >&2; exit 2";
    let done = executor(vec![hook("Echo", command, None)], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(
        done.block.content.text(),
        format!("PreToolUse:Echo hook error: [{command}]: blocked by the test hook\n")
    );
    // Exit 2 without a word still blocks, with Claude Code's stand-in.
    let silent = "exit 2";
    let done = executor(vec![hook("Echo", silent, None)], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "PreToolUse:Echo hook error: [exit 2]: No stderr output");
    // Another tool is not matched.
    let other = ToolUseBlock { name: "Other".into(), ..call("x") };
    let done = executor(vec![hook("Echo", command, None)], vec![]).run_tool_use(&other, &ctx).await;
    assert!(!done.block.is_error);
}

#[tokio::test]
async fn exit_1_and_crashes_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let done = executor(vec![hook("*", "echo oops >&2; exit 1", None), hook("", "kill -9 $$", None)], vec![])
        .run_tool_use(&call("hi"), &ctx)
        .await;
    assert!(!done.block.is_error);
    assert!(done.block.content.text().starts_with("Echo: hi"));
}

#[tokio::test]
async fn json_answers_deny_or_rewrite_the_input_and_the_hook_sees_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let deny = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Writes are frozen by the test hook"}}'"#;
    let done = executor(vec![hook("Echo", deny, None)], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert_eq!(
        (done.block.content.text().as_str(), done.block.is_error),
        ("PreToolUse:Echo hook error: Writes are frozen by the test hook", true)
    );

    let rewrite = r#"cat > seen.json; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"text": "rewritten-by-hook"}}}'"#;
    let done = executor(vec![hook("Echo", rewrite, None)], vec![]).run_tool_use(&call("original"), &ctx).await;
    assert!(done.block.content.text().starts_with("Echo: rewritten-by-hook"), "{}", done.block.content.text());
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Echo");
    assert_eq!(seen["tool_input"], json!({"text": "original"}));
    assert_eq!(seen["tool_use_id"], "toolu_1");
    assert_eq!(seen["permission_mode"], "default");
}

#[tokio::test]
async fn a_hanging_hook_is_killed_at_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let started = Instant::now();
    let done = executor(vec![hook("Echo", "sleep 30", Some(0.3))], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert!(!done.block.is_error);
    assert!(started.elapsed() < Duration::from_secs(10), "the hook's timeout must bound the call");
}

/// The answer is taken when the hook exits: a child left behind with the hook's stdout must not
/// turn its `deny` into a timeout that lets the call through. And a `deny` printed by a hook that
/// then hangs past its timeout still refuses.
#[tokio::test]
async fn a_printed_deny_holds_whatever_the_hook_leaves_running() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let deny = r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "frozen"}}'"#;
    // The background sleep keeps stdout open for longer than the hook's timeout.
    let leaves_a_child = format!("{deny}; sleep 30 &");
    let done = executor(vec![hook("Echo", &leaves_a_child, Some(20.0))], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert_eq!((done.block.content.text().as_str(), done.block.is_error), ("PreToolUse:Echo hook error: frozen", true));
    let hangs = format!("{deny}; sleep 30");
    let done = executor(vec![hook("Echo", &hangs, Some(0.5))], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert_eq!((done.block.content.text().as_str(), done.block.is_error), ("PreToolUse:Echo hook error: frozen", true));
    // An exit 2 with a child holding stderr blocks with what it said.
    let blocks = "echo 'not now' >&2; sleep 30 >&2 & exit 2";
    let done = executor(vec![hook("Echo", blocks, Some(20.0))], vec![]).run_tool_use(&call("hi"), &ctx).await;
    assert_eq!(done.block.content.text(), format!("PreToolUse:Echo hook error: [{blocks}]: not now\n"));
}

/// Matchers follow Claude Code's documented rule (plain names and lists are exact, anything
/// else an unanchored regular expression), through the executor.
#[tokio::test]
async fn matchers_pick_hooks_by_name_list_or_expression() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let block = "echo no >&2; exit 2";
    for (matcher, blocked) in
        [("Ech", false), ("Other, Echo", true), ("Other|Echo", true), ("^Ec", true), ("^Oth", false)]
    {
        let done = executor(vec![hook(matcher, block, None)], vec![]).run_tool_use(&call("hi"), &ctx).await;
        assert_eq!(done.block.is_error, blocked, "{matcher}");
    }
}

#[tokio::test]
async fn post_hooks_add_system_messages_and_never_change_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let feedback = "echo 'post hook feedback' >&2; exit 2";
    let context = r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Context added by the test hook"}}'"#;
    let response = "cat > response.json";
    let done =
        executor(vec![], vec![hook("Echo", feedback, None), hook("Echo", context, None), hook("Echo", response, None)])
            .run_tool_use(&call("ran"), &ctx)
            .await;
    assert!(!done.block.is_error);
    assert!(done.block.content.text().starts_with("Echo: ran"));
    assert_eq!(
        system_texts(&done),
        [
            format!(
                "PostToolUse:Echo hook blocking error from command: \"{feedback}\": [{feedback}]: post hook feedback\n"
            ),
            "PostToolUse:Echo hook additional context: Context added by the test hook".to_owned(),
        ]
    );
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("response.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "PostToolUse");
    assert!(seen["tool_response"].as_str().unwrap().starts_with("Echo: ran"));
}
