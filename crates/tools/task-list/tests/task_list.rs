//! TaskList through the contract, on a real task folder: Claude Code's lines, owners, open
//! blockers only, hidden internal tasks, an empty list, and unreadable files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_task_list::tool;
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_tasklist::{NewTask, TaskStatus, TaskStore};
use serde_json::{Map, Value, json};

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

fn create(store: &TaskStore, subject: &str, metadata: Option<Value>) {
    let metadata = metadata.map(|value| serde_json::from_value::<Map<String, Value>>(value).unwrap());
    store.create(NewTask { subject: subject.into(), description: "d".into(), metadata, ..NewTask::default() }).unwrap();
}

#[tokio::test]
async fn an_empty_list_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (text, is_error, data) = call(&ctx(dir.path()), json!({})).await;
    assert_eq!((text.as_str(), is_error), ("No tasks found", false));
    assert_eq!(data, json!({"tasks": []}));
}

#[tokio::test]
async fn tasks_list_as_claude_codes_lines_with_open_blockers_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = TaskStore::new(dir.path(), "session-1");
    for subject in ["Build", "Test", "Ship", "Announce"] {
        create(&store, subject, None);
    }
    for _ in 5..=10 {
        create(&store, "Filler", Some(json!({"_internal": false})));
    }
    create(&store, "Hidden", Some(json!({"_internal": true})));
    store
        .transaction(|tx| {
            tx.link("1", "3")?;
            tx.link("2", "3")?;
            tx.link("3", "4")?;
            let mut build = tx.require("1")?;
            build.status = TaskStatus::Completed;
            let mut test = tx.require("2")?;
            test.status = TaskStatus::InProgress;
            test.owner = Some("tester".into());
            let mut ship = tx.require("3")?;
            ship.owner = Some(String::new()); // an empty owner is no owner
            tx.put(&build)?;
            tx.put(&test)?;
            tx.put(&ship)?;
            for id in 5..=10 {
                tx.delete(&id.to_string())?;
            }
            Ok(())
        })
        .unwrap();
    let (text, is_error, data) = call(&ctx(dir.path()), json!({})).await;
    assert!(!is_error);
    assert_eq!(
        text,
        "#1 [completed] Build\n#2 [in_progress] Test (tester)\n#3 [pending] Ship [blocked by #2]\n#4 [pending] Announce [blocked by #3]"
    );
    assert_eq!(
        data["tasks"][1],
        json!({"id": "2", "subject": "Test", "status": "in_progress", "owner": "tester", "blockedBy": []})
    );
    assert_eq!(data["tasks"][2]["blockedBy"], json!(["2"]));
    assert_eq!(data["tasks"].as_array().unwrap().len(), 4, "the internal task is hidden");
    assert!(data.get("skipped").is_none());
}

#[tokio::test]
async fn numeric_ids_come_in_numeric_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = TaskStore::new(dir.path(), "session-1");
    for n in 1..=11 {
        create(&store, &format!("T{n}"), None);
    }
    let (text, _, _) = call(&ctx(dir.path()), json!({})).await;
    let ids: Vec<&str> = text.lines().map(|line| line.split(' ').next().unwrap()).collect();
    assert_eq!(ids, ["#1", "#2", "#3", "#4", "#5", "#6", "#7", "#8", "#9", "#10", "#11"]);
}

#[tokio::test]
async fn unreadable_task_files_are_named_not_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let store = TaskStore::new(dir.path(), "session-1");
    create(&store, "Good", None);
    std::fs::write(store.dir().join("2.json"), "[]").unwrap();
    let (text, is_error, data) = call(&ctx(dir.path()), json!({})).await;
    assert!(!is_error);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "#1 [pending] Good");
    assert!(lines[1].starts_with("Skipped: task file ") && lines[1].contains("2.json is not a valid task"), "{text}");
    assert_eq!(data["skipped"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn the_schema_and_flags_are_claude_codes() {
    let tool = tool();
    let schema = tool.input_schema().clone();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["properties"].as_object().is_none_or(Map::is_empty), "{schema}");
    assert!(tool.should_defer() && tool.flags().read_only && tool.flags().concurrency_safe);
    let dir = tempfile::tempdir().unwrap();
    let (text, is_error, _) = call(&ctx(dir.path()), json!({"status": "pending"})).await;
    // Claude Code's strictObject({}) wording: an unexpected parameter, named.
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: TaskList failed due to the following issue:\nAn unexpected parameter `status` was provided</tool_use_error>"
    );
}
