//! TaskCreate through the contract, on a real task folder: Claude Code's text and data, the
//! stored record, ids under concurrency, and the refusals a model can trigger.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_task_create::tool;
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::{Value, json};

fn ctx(tasks: &std::path::Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.session_id = "session-1".into();
    ctx.options.tasks_dir = Some(tasks.to_path_buf());
    ctx
}

/// One call; returns the result text, the error flag and the output data as JSON.
async fn call(ctx: &ToolUseContext, input: Value) -> (String, bool, Value) {
    let done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.map(|data| data.to_json()).unwrap_or(Value::Null);
    (done.block.content.text(), done.block.is_error, data)
}

fn read(path: std::path::PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_task_is_created_with_claude_codes_text_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let input = json!({"subject": "Run the tests", "description": "cargo test, all green", "activeForm": "Running the tests",
                       "metadata": {"area": "ci", "priority": 2}});
    let (text, is_error, data) = call(&ctx, input).await;
    assert!(!is_error);
    assert_eq!(text, "Task #1 created successfully: Run the tests");
    assert_eq!(data, json!({"task": {"id": "1", "subject": "Run the tests"}}));
    assert_eq!(
        read(dir.path().join("session-1/1.json")),
        json!({"id": "1", "subject": "Run the tests", "description": "cargo test, all green",
               "activeForm": "Running the tests", "status": "pending", "blocks": [], "blockedBy": [],
               "metadata": {"area": "ci", "priority": 2}})
    );
    let (text, _, _) = call(&ctx, json!({"subject": "Ship", "description": ""})).await;
    assert_eq!(text, "Task #2 created successfully: Ship");
    assert_eq!(read(dir.path().join("session-1/2.json"))["description"], "");
}

#[tokio::test]
async fn the_list_id_from_the_host_wins_over_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ctx(dir.path());
    ctx.options.task_list_id = Some("../shared list".into());
    call(&ctx, json!({"subject": "A", "description": "a"})).await;
    assert!(dir.path().join("---shared-list/1.json").is_file(), "the list id is sanitised");
}

#[tokio::test]
async fn without_a_tasks_folder_the_session_folder_is_used() {
    let session = tempfile::tempdir().unwrap();
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.session_id = "s".into();
    ctx.options.session_dir = Some(session.path().to_path_buf());
    let (text, _, _) = call(&ctx, json!({"subject": "A", "description": "a"})).await;
    assert_eq!(text, "Task #1 created successfully: A");
    assert!(session.path().join("task-lists/s/1.json").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_creates_get_distinct_ids() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let calls = (0..16).map(|n| {
        let ctx = ctx.clone();
        tokio::spawn(async move { call(&ctx, json!({"subject": format!("t{n}"), "description": "d"})).await })
    });
    let mut ids = Vec::new();
    for handle in calls {
        let (_, is_error, data) = handle.await.unwrap();
        assert!(!is_error);
        ids.push(data["task"]["id"].as_str().unwrap().parse::<u32>().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, (1..=16).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_schema_and_flags_are_claude_codes() {
    let tool = tool();
    let schema = tool.input_schema().clone();
    assert_eq!(schema["required"], json!(["subject", "description"]));
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["subject", "description", "activeForm", "metadata"]);
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["properties"]["metadata"]["type"], "object");
    assert!(tool.should_defer());
    assert!(!tool.flags().read_only && tool.flags().concurrency_safe);
    let parsed = tool.parse(json!({"subject": "s", "description": "d"})).unwrap();
    assert!(tool.is_concurrency_safe(&parsed) && !tool.is_read_only(&parsed));
}

#[tokio::test]
async fn bad_input_is_refused_with_a_reason_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let cases = [
        (json!({"subject": "", "description": "d"}), "Subject cannot be empty"),
        (json!({"subject": "  ", "description": "d"}), "Subject cannot be empty"),
        (json!({"subject": "s"}), "`description` is missing"),
        (json!({"subject": "s", "description": "d", "status": "completed"}), "unexpected parameter `status`"),
        (json!({"subject": 3, "description": "d"}), "subject"),
        (json!({"subject": "s", "description": "d", "metadata": [1]}), "metadata"),
    ];
    for (input, expected) in cases {
        let (text, is_error, _) = call(&ctx, input.clone()).await;
        assert!(is_error, "{input} should be refused");
        assert!(text.contains(expected), "{input}: {text}");
    }
    assert!(!dir.path().join("session-1").exists(), "nothing refused was stored");
}

#[tokio::test]
async fn an_unwritable_folder_is_a_readable_failure() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let ctx = ctx(&file);
    let (text, is_error, _) = call(&ctx, json!({"subject": "s", "description": "d"})).await;
    assert!(is_error);
    assert!(text.starts_with("cannot create the folder"), "{text}");
}
