//! Notifications queued during a session (a background task that finished) reach the model after
//! the next turn's results, as text blocks of the same user message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_tools_core::ToolUseBlock;
use agent_tools_core::ToolUseContext;
use agent_tools_host::Executor;
use serde_json::{Value, json};

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.into(), name: name.into(), input }
}

#[tokio::test]
async fn queued_notifications_follow_the_results_once() {
    let executor = Executor::new(vec![common::tool("Echo")]);
    let mut ctx = ToolUseContext::new("/w");
    ctx.notifications().push("b1", "<task-notification>one</task-notification>");
    ctx.notifications().push("b2", "<task-notification>two</task-notification>");
    let turn = executor.run_turn(&[block("toolu_1", "Echo", json!({"text": "hi"}))], &mut ctx).await;
    assert_eq!(turn.len(), 1);
    assert_eq!(turn.notifications.len(), 2);
    assert_eq!(
        serde_json::to_value(turn.message()).unwrap(),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Echo: hi (cwd /w)"},
            {"type": "text", "text": "<task-notification>one</task-notification>"},
            {"type": "text", "text": "<task-notification>two</task-notification>"}
        ]})
    );
    // Delivered once: the next turn carries only its own results.
    let next = executor.run_turn(&[block("toolu_2", "Echo", json!({"text": "again"}))], &mut ctx).await;
    assert!(next.notifications.is_empty());
    assert_eq!(serde_json::to_value(next.message()).unwrap()["content"].as_array().unwrap().len(), 1);
}

#[cfg(feature = "bash")]
#[tokio::test]
async fn a_background_task_that_finished_is_reported_after_the_next_results() {
    use std::time::Duration;

    use agent_tools_background::{TaskRegistry, WaitOutcome};
    use agent_tools_core::{PermissionMode, ToolPermissionContext};
    use agent_tools_host::{HostConfig, get_all_base_tools};

    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let executor = Executor::new(get_all_base_tools(&HostConfig::default()));
    let mut ctx = ToolUseContext::new(&root);
    ctx.options.session_dir = Some(root.join(".session"));
    ctx.permission_context =
        std::sync::Arc::new(ToolPermissionContext { mode: PermissionMode::BypassPermissions, ..Default::default() });

    // The task waits for a file, so it cannot finish before the first turn ends.
    let start = block(
        "toolu_bg",
        "Bash",
        json!({"command": "while [ ! -e go ]; do sleep 0.01; done; echo done", "description": "wait for go", "run_in_background": true}),
    );
    let first = executor.run_turn(&[start], &mut ctx).await;
    let data = first[0].data.as_ref().unwrap().to_json();
    let id = data["backgroundTaskId"].as_str().unwrap().to_owned();
    assert!(first[0].block.content.text().starts_with(&format!("Command running in background with ID: {id}.")));
    assert!(first.notifications.is_empty());

    std::fs::write(root.join("go"), "").unwrap();
    let tasks = TaskRegistry::existing(&ctx).unwrap();
    let done = tasks.wait(&id, Duration::from_secs(30), &ctx.cancel).await;
    assert!(matches!(done, WaitOutcome::Finished(_)), "{done:?}");

    let second = executor.run_turn(&[block("toolu_2", "Bash", json!({"command": "echo next"}))], &mut ctx).await;
    let message = serde_json::to_value(second.message()).unwrap();
    let content = message["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert_eq!(content[0]["type"], "tool_result");
    assert_eq!(content[0]["content"], "next");
    let output = root.join(".session/tasks").join(format!("{id}.output"));
    assert_eq!(
        content[1],
        json!({"type": "text", "text": format!(
            "<task-notification>\n<task-id>{id}</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<output-file>{}</output-file>\n<status>completed</status>\n<summary>Background command \"wait for go\" completed (exit code 0)</summary>\n</task-notification>",
            output.display()
        )})
    );
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "done\n");
    agent_tools_background::shutdown(&ctx);
}
