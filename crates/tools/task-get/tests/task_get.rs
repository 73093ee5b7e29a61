//! TaskGet through the contract, on a real task folder: Claude Code's lines, links, a missing
//! task, and a corrupt file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_task_get::tool;
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_tasklist::{NewTask, TaskStatus, TaskStore};
use serde_json::{Value, json};

fn ctx(tasks: &std::path::Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.session_id = "session-1".into();
    ctx.options.tasks_dir = Some(tasks.to_path_buf());
    ctx
}

async fn call(ctx: &ToolUseContext, input: Value) -> (String, bool, Value) {
    let done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.map(|data| data.to_json()).unwrap_or(Value::Null);
    (done.block.content.text(), done.block.is_error, data)
}

fn seed(tasks: &std::path::Path) -> TaskStore {
    let store = TaskStore::new(tasks, "session-1");
    for subject in ["Build", "Test", "Ship"] {
        store
            .create(NewTask { subject: subject.into(), description: format!("{subject} it"), ..NewTask::default() })
            .unwrap();
    }
    store
}

#[tokio::test]
async fn a_task_reads_as_claude_codes_lines() {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path());
    let ctx = ctx(dir.path());
    let (text, is_error, data) = call(&ctx, json!({"taskId": "1"})).await;
    assert!(!is_error);
    assert_eq!(text, "Task #1: Build\nStatus: pending\nDescription: Build it");
    assert_eq!(
        data,
        json!({"task": {"id": "1", "subject": "Build", "description": "Build it", "status": "pending",
                        "blocks": [], "blockedBy": []}})
    );
}

#[tokio::test]
async fn links_are_listed_blockers_first_and_a_completed_blocker_no_longer_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path());
    store
        .transaction(|tx| {
            tx.link("1", "2")?;
            tx.link("2", "3")?;
            let mut build = tx.require("1")?;
            build.status = TaskStatus::Completed;
            tx.put(&build)
        })
        .unwrap();
    let ctx = ctx(dir.path());
    let (text, _, data) = call(&ctx, json!({"taskId": "2"})).await;
    // TaskList no longer shows #1 as a blocker, so
    // neither does TaskGet.
    assert_eq!(text, "Task #2: Test\nStatus: pending\nDescription: Test it\nBlocks: #3");
    assert_eq!(data["task"]["blockedBy"], json!([]));
    let (text, _, data) = call(&ctx, json!({"taskId": "3"})).await;
    assert_eq!(text, "Task #3: Ship\nStatus: pending\nDescription: Ship it\nBlocked by: #2");
    assert_eq!(data["task"]["blockedBy"], json!(["2"]));
    let (text, _, _) = call(&ctx, json!({"taskId": "1"})).await;
    assert_eq!(text, "Task #1: Build\nStatus: completed\nDescription: Build it\nBlocks: #2");
}

#[tokio::test]
async fn an_unknown_id_is_not_found_and_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path());
    let ctx = ctx(dir.path());
    for id in ["9", "", "../session-1/1", "1.json", "#1"] {
        let (text, is_error, data) = call(&ctx, json!({"taskId": id})).await;
        assert_eq!((text.as_str(), is_error), ("Task not found", false), "{id:?}");
        assert_eq!(data, json!({"task": null}));
    }
    // An empty list (no folder yet) too.
    let empty = tempfile::tempdir().unwrap();
    let (text, _, _) = call(&self::ctx(empty.path()), json!({"taskId": "1"})).await;
    assert_eq!(text, "Task not found");
}

#[tokio::test]
async fn a_corrupt_task_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path());
    std::fs::write(store.dir().join("2.json"), "{not json").unwrap();
    let (text, is_error, _) = call(&ctx(dir.path()), json!({"taskId": "2"})).await;
    assert!(is_error);
    assert!(text.contains("2.json is not a valid task: key must be a string"), "{text}");
}

#[tokio::test]
async fn the_schema_and_flags_are_claude_codes() {
    let tool = tool();
    let schema = tool.input_schema().clone();
    assert_eq!(schema["required"], json!(["taskId"]));
    assert_eq!(schema["properties"]["taskId"]["type"], "string");
    assert!(tool.should_defer() && tool.flags().read_only && tool.flags().concurrency_safe);
    let parsed = tool.parse(json!({"taskId": "1"})).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    let dir = tempfile::tempdir().unwrap();
    let (text, is_error, _) = call(&ctx(dir.path()), json!({"taskId": 1})).await;
    assert!(is_error, "{text}");
    let (text, is_error, _) = call(&ctx(dir.path()), json!({"taskId": "1", "verbose": true})).await;
    assert!(is_error && text.contains("unexpected parameter `verbose`"), "{text}");
}
