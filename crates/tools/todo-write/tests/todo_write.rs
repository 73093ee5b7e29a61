//! TodoWrite through the contract: the recorded Claude Code result, the stored list per owner,
//! clearing a completed list, and the refusals a model can trigger.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_todo_write::{MODIFIED, TodoStatus, todos, tool};
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_testkit::run;
use serde_json::{Value, json};

fn ctx() -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.session_id = "session-1".into();
    ctx
}

/// One call; returns the result text, the error flag and the output data as JSON.
async fn call(ctx: &ToolUseContext, input: Value) -> (String, bool, Value) {
    let done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.map(|data| data.to_json()).unwrap_or(Value::Null);
    (done.block.content.text(), done.block.is_error, data)
}

fn item(content: &str, status: &str) -> Value {
    json!({"content": content, "status": status, "activeForm": format!("{content}ing")})
}

#[tokio::test]
async fn the_recorded_call_gives_claude_codes_text() {
    // Claude Code's recorded TodoWrite call.
    let input = json!({"todos": [
        {"content": "Write tests", "status": "in_progress", "activeForm": "Writing tests"},
        {"content": "Ship it", "status": "pending", "activeForm": "Shipping it"}
    ]});
    let ctx = ctx();
    let (text, is_error) = run(tool().as_ref(), &ctx, input).await;
    assert!(!is_error);
    assert_eq!(
        text,
        "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"
    );
    assert_eq!(text, MODIFIED);
    let stored = todos(&ctx);
    assert_eq!(stored.len(), 2);
    assert_eq!((stored[0].content.as_str(), stored[0].status), ("Write tests", TodoStatus::InProgress));
    assert_eq!(stored[1].active_form, "Shipping it");
}

#[tokio::test]
async fn each_call_replaces_the_list_and_reports_the_old_one() {
    let ctx = ctx();
    let (_, _, first) = call(&ctx, json!({"todos": [item("Plan", "in_progress"), item("Build", "pending")]})).await;
    assert_eq!(first["oldTodos"], json!([]));
    assert_eq!(first["newTodos"][1], item("Build", "pending"));

    let (_, is_error, second) =
        call(&ctx, json!({"todos": [item("Plan", "completed"), item("Build", "in_progress")]})).await;
    assert!(!is_error);
    assert_eq!(second["oldTodos"], json!([item("Plan", "in_progress"), item("Build", "pending")]));
    assert_eq!(
        todos(&ctx).iter().map(|t| t.status).collect::<Vec<_>>(),
        [TodoStatus::Completed, TodoStatus::InProgress]
    );
}

#[tokio::test]
async fn a_list_with_every_item_completed_is_cleared_but_reported() {
    let ctx = ctx();
    call(&ctx, json!({"todos": [item("Plan", "in_progress")]})).await;
    let (text, is_error, done) =
        call(&ctx, json!({"todos": [item("Plan", "completed"), item("Test", "completed")]})).await;
    assert!(!is_error);
    assert_eq!(text, MODIFIED);
    assert_eq!(done["newTodos"].as_array().unwrap().len(), 2, "the submitted list is reported");
    assert!(todos(&ctx).is_empty(), "the stored list is cleared");
    let (_, _, next) = call(&ctx, json!({"todos": [item("Next", "pending")]})).await;
    assert_eq!(next["oldTodos"], json!([]));
    // An empty list is a valid way to clear it, too.
    let (_, is_error, _) = call(&ctx, json!({"todos": []})).await;
    assert!(!is_error);
    assert!(todos(&ctx).is_empty());
}

#[tokio::test]
async fn a_sub_agents_list_is_its_own() {
    let parent = ctx();
    call(&parent, json!({"todos": [item("Parent work", "in_progress")]})).await;
    let mut child = parent.clone();
    child.agent_id = Some("agent-7".into());
    let (_, _, data) = call(&child, json!({"todos": [item("Child work", "pending")]})).await;
    assert_eq!(data["oldTodos"], json!([]), "the sub-agent starts with no list");
    assert_eq!(todos(&parent)[0].content, "Parent work");
    assert_eq!(todos(&child)[0].content, "Child work");
}

#[tokio::test]
async fn the_schema_is_claude_codes_and_unknown_keys_are_named() {
    let schema = tool().input_schema().clone();
    let item = &schema["properties"]["todos"]["items"];
    assert_eq!(item["additionalProperties"], false, "strict mode needs every object closed");
    assert_eq!(item["required"], json!(["content", "status", "activeForm"]));
    assert_eq!(item["properties"]["content"]["minLength"], 1);
    assert_eq!(item["properties"]["activeForm"]["minLength"], 1);
    assert_eq!(item["properties"]["status"]["enum"], json!(["pending", "in_progress", "completed"]));
    assert_eq!(schema["required"], json!(["todos"]));

    let ctx = ctx();
    let legacy = json!({"todos": [{"content": "A", "status": "pending", "activeForm": "Doing A", "priority": "high"}]});
    let (text, is_error, _) = call(&ctx, legacy).await;
    assert!(is_error);
    assert!(text.contains("unexpected parameter `todos[0].priority`"), "{text}");

    let (text, is_error, _) = call(&ctx, json!({"todos": [], "merge": true})).await;
    assert!(is_error);
    assert!(text.contains("unexpected parameter `merge`"), "{text}");
}

#[tokio::test]
async fn bad_items_are_refused_with_a_path_and_a_reason() {
    let ctx = ctx();
    let cases = [
        (json!({"todos": [{"content": "", "status": "pending", "activeForm": "x"}]}), "Content cannot be empty"),
        (json!({"todos": [{"content": "x", "status": "pending", "activeForm": ""}]}), "Active form cannot be empty"),
        (json!({"todos": [{"content": "x", "status": "pending"}]}), "`todos[0].activeForm` is missing"),
        (json!({"todos": [item("x", "pending"), item("y", "done")]}), "todos[1].status"),
        (json!({"todos": "not a list"}), "`todos` type is expected as `array`"),
        (json!({}), "`todos` is missing"),
    ];
    for (input, expected) in cases {
        let (text, is_error, _) = call(&ctx, input.clone()).await;
        assert!(is_error, "{input} should be refused");
        assert!(text.contains(expected), "{input}: {text}");
    }
    assert!(todos(&ctx).is_empty(), "nothing refused was stored");
}
