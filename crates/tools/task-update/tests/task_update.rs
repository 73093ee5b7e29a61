//! TaskUpdate through the contract, on a real task folder: changed fields only, status and
//! owner, links both ways, metadata merge, deletion with ids never reused, and failures as
//! plain (non-error) results.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_task_update::tool;
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

fn seed(tasks: &std::path::Path, count: usize) -> TaskStore {
    let store = TaskStore::new(tasks, "session-1");
    for n in 1..=count {
        store.create(NewTask { subject: format!("T{n}"), description: "d".into(), ..NewTask::default() }).unwrap();
    }
    store
}

#[tokio::test]
async fn status_and_owner_changes_are_named_and_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 1);
    let ctx = ctx(dir.path());
    let (text, is_error, data) =
        call(&ctx, json!({"taskId": "1", "status": "in_progress", "owner": "main", "subject": "T1"})).await;
    assert!(!is_error);
    assert_eq!(text, "Updated task #1 owner, status", "an unchanged subject is not listed");
    assert_eq!(
        data,
        json!({"success": true, "taskId": "1", "updatedFields": ["owner", "status"],
               "statusChange": {"from": "pending", "to": "in_progress"}})
    );
    let task = store.get("1").unwrap().unwrap();
    assert_eq!((task.status, task.owner.as_deref()), (TaskStatus::InProgress, Some("main")));

    let (text, _, data) = call(
        &ctx,
        json!({"taskId": "1", "subject": "Renamed", "description": "more", "activeForm": "Renaming", "status": "completed"}),
    )
    .await;
    assert_eq!(text, "Updated task #1 subject, description, activeForm, status");
    assert_eq!(data["statusChange"], json!({"from": "in_progress", "to": "completed"}));

    // Nothing changes: Claude Code's text, trailing space and all.
    let (text, is_error, data) = call(&ctx, json!({"taskId": "1", "status": "completed", "owner": "main"})).await;
    assert_eq!((text.as_str(), is_error), ("Updated task #1 ", false));
    assert!(data.get("statusChange").is_none());
}

#[tokio::test]
async fn links_are_added_both_ways_new_ids_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 4);
    let ctx = ctx(dir.path());
    let (text, _, _) = call(&ctx, json!({"taskId": "2", "addBlocks": ["3", "4", "3"], "addBlockedBy": ["1"]})).await;
    assert_eq!(text, "Updated task #2 blocks, blockedBy");
    let two = store.get("2").unwrap().unwrap();
    assert_eq!((two.blocks, two.blocked_by), (vec!["3".to_owned(), "4".to_owned()], vec!["1".to_owned()]));
    assert_eq!(store.get("1").unwrap().unwrap().blocks, ["2"]);
    assert_eq!(store.get("3").unwrap().unwrap().blocked_by, ["2"]);
    assert_eq!(store.get("4").unwrap().unwrap().blocked_by, ["2"]);
    // Links that exist already are not news.
    let (text, _, _) = call(&ctx, json!({"taskId": "2", "addBlocks": ["3"], "addBlockedBy": []})).await;
    assert_eq!(text, "Updated task #2 ");
}

#[tokio::test]
async fn metadata_is_merged_and_null_deletes_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 1);
    let ctx = ctx(dir.path());
    let (text, _, _) = call(&ctx, json!({"taskId": "1", "metadata": {"a": 1, "b": "x"}})).await;
    assert_eq!(text, "Updated task #1 metadata");
    let (text, _, _) = call(&ctx, json!({"taskId": "1", "metadata": {"b": null, "c": [true]}})).await;
    assert_eq!(text, "Updated task #1 metadata");
    assert_eq!(serde_json::to_value(store.get("1").unwrap().unwrap().metadata).unwrap(), json!({"a": 1, "c": [true]}));
    let (text, _, _) = call(&ctx, json!({"taskId": "1", "metadata": {"a": 1, "zz": null}})).await;
    assert_eq!(text, "Updated task #1 ", "a merge that changes nothing is not a change");
}

#[tokio::test]
async fn deleting_removes_the_file_and_the_links_and_the_id_stays_used() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 3);
    let ctx = ctx(dir.path());
    call(&ctx, json!({"taskId": "3", "addBlockedBy": ["1", "2"]})).await;
    let (text, is_error, data) = call(&ctx, json!({"taskId": "3", "status": "deleted", "subject": "ignored"})).await;
    assert_eq!((text.as_str(), is_error), ("Updated task #3 deleted", false));
    assert_eq!(
        data,
        json!({"success": true, "taskId": "3", "updatedFields": ["deleted"],
               "statusChange": {"from": "pending", "to": "deleted"}})
    );
    assert!(!store.dir().join("3.json").exists());
    assert!(store.get("1").unwrap().unwrap().blocks.is_empty());
    assert!(store.get("2").unwrap().unwrap().blocks.is_empty());
    let next = store.create(NewTask { subject: "next".into(), ..NewTask::default() }).unwrap();
    assert_eq!(next.id, "4", "a deleted id is never reused");
    let (text, is_error, _) = call(&ctx, json!({"taskId": "3", "status": "deleted"})).await;
    assert_eq!((text.as_str(), is_error), ("Task not found", false));
}

#[tokio::test]
async fn failures_are_plain_results_that_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 2);
    let ctx = ctx(dir.path());
    let before: Vec<_> = store.list().unwrap().tasks;
    let cases = [
        (json!({"taskId": "9", "status": "completed"}), "Task not found"),
        (json!({"taskId": "../1", "status": "completed"}), "Task not found"),
        (
            json!({"taskId": "1", "status": "completed", "addBlocks": ["2", "7"]}),
            "Task #7 not found (addBlocks); nothing was changed",
        ),
        (json!({"taskId": "1", "addBlockedBy": ["8"]}), "Task #8 not found (addBlockedBy); nothing was changed"),
        (json!({"taskId": "1", "addBlocks": ["1"]}), "Task #1 cannot block itself (addBlocks); nothing was changed"),
    ];
    for (input, expected) in cases {
        let (text, is_error, data) = call(&ctx, input.clone()).await;
        assert_eq!((text.as_str(), is_error), (expected, false), "{input}");
        assert_eq!(data["success"], false);
        assert_eq!(data["updatedFields"], json!([]));
        assert_eq!(data["error"], expected);
    }
    assert_eq!(store.list().unwrap().tasks, before, "no failed update wrote anything");

    std::fs::write(store.dir().join("2.json"), "{").unwrap();
    let (text, is_error, _) = call(&ctx, json!({"taskId": "2", "status": "completed"})).await;
    assert!(!is_error);
    assert!(text.contains("2.json is not a valid task"), "{text}");
}

#[tokio::test]
async fn bad_input_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path(), 1);
    let ctx = ctx(dir.path());
    let cases = [
        (json!({"taskId": "1", "status": "done"}), "status"),
        (json!({"taskId": "1", "status": "open"}), "status"),
        (json!({"taskId": "1", "subject": " "}), "Subject cannot be empty"),
        (json!({"status": "completed"}), "`taskId` is missing"),
        (json!({"taskId": "1", "addBlocks": "2"}), "addBlocks"),
        (json!({"taskId": "1", "addComment": "x"}), "unexpected parameter `addComment`"),
    ];
    for (input, expected) in cases {
        let (text, is_error, _) = call(&ctx, input.clone()).await;
        assert!(is_error, "{input} should be refused: {text}");
        assert!(text.contains(expected), "{input}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_updates_of_one_task_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = seed(dir.path(), 9);
    let ctx = ctx(dir.path());
    let calls: Vec<_> = (2..=9)
        .map(|n| {
            let ctx = ctx.clone();
            tokio::spawn(async move {
                call(&ctx, json!({"taskId": "1", "addBlocks": [n.to_string()], "metadata": {format!("k{n}"): n}})).await
            })
        })
        .collect();
    for handle in calls {
        assert_eq!(handle.await.unwrap().0, "Updated task #1 metadata, blocks");
    }
    let one = store.get("1").unwrap().unwrap();
    assert_eq!(one.blocks.len(), 8);
    assert_eq!(one.metadata.unwrap().len(), 8);
}

#[tokio::test]
async fn the_schema_and_flags_are_claude_codes() {
    let tool = tool();
    let schema = tool.input_schema().clone();
    assert_eq!(schema["required"], json!(["taskId"]));
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["taskId", "subject", "description", "activeForm", "status", "addBlocks", "addBlockedBy", "owner", "metadata"]
    );
    assert_eq!(schema["properties"]["status"]["enum"], json!(["pending", "in_progress", "completed", "deleted"]));
    assert_eq!(schema["properties"]["addBlocks"]["items"]["type"], "string");
    assert!(tool.should_defer() && !tool.flags().read_only && tool.flags().concurrency_safe);
    // Deleting is destructive (MCP's destructiveHint); other updates are not.
    assert!(tool.flags().destructive);
    assert!(tool.is_destructive(&tool.parse(json!({"taskId": "1", "status": "deleted"})).unwrap()));
    assert!(!tool.is_destructive(&tool.parse(json!({"taskId": "1", "status": "completed"})).unwrap()));
}
