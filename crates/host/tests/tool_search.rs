//! ToolSearch in a composed pool (real tools plus fake MCP tools), the API `tools` array, the
//! `<available-deferred-tools>` message, `tool_reference` rendering, and the executor's
//! "load it with select:NAME first" hint.

#![cfg(feature = "tool-search")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use agent_tools_core::ToolUseBlock;
use agent_tools_core::{ContentPart, PromptOptions, Tool, ToolPermissionContext, ToolResultContent, ToolUseContext};
use agent_tools_host::{
    Executor, HostConfig, ToolSearchMode, api_tools, assemble_tool_pool, available_deferred_tools_message,
    render_tool_references,
};
use serde_json::{Value, json};

fn pool_with(mode: ToolSearchMode) -> Vec<Arc<dyn Tool>> {
    let mcp = vec![
        common::mcp_tool("slack", "mcp__slack__send_message"),
        common::mcp_tool("slack", "mcp__slack__read_channel"),
        common::mcp_tool("github", "mcp__github__create_issue"),
    ];
    let config = HostConfig { tool_search: mode, ..HostConfig::default() };
    assemble_tool_pool(&ToolPermissionContext::default(), mcp, &config)
}

fn pool() -> Vec<Arc<dyn Tool>> {
    pool_with(ToolSearchMode::On)
}

fn context(pool: &[Arc<dyn Tool>]) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.tools = pool.to_vec().into();
    ctx
}

async fn run(executor: &Executor, ctx: &ToolUseContext, name: &str, input: Value) -> agent_tools_core::Invocation {
    let block = ToolUseBlock { id: "toolu_1".into(), name: name.into(), input };
    executor.run_tool_use(&block, ctx).await
}

async fn search(query: &str) -> Vec<String> {
    let pool = pool();
    let done = run(&Executor::new(pool.clone()), &context(&pool), "ToolSearch", json!({"query": query})).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    done.block.content.tool_references().into_iter().map(str::to_owned).collect()
}

#[cfg(feature = "task-stop")]
#[tokio::test]
async fn select_finds_task_stop_by_its_kill_shell_alias() {
    assert_eq!(search("select:KillShell").await, ["TaskStop"]);
    assert_eq!(search("select:KillShell,TaskStop,NoSuchTool").await, ["TaskStop"]);
}

#[cfg(feature = "notebook-edit")]
#[tokio::test]
async fn a_keyword_search_ranks_the_tool_named_by_it_first() {
    let found = search("notebook cell").await;
    assert_eq!(found.first().map(String::as_str), Some("NotebookEdit"), "{found:?}");
    // Only deferred tools are searched: never Read (whose prompt talks of notebooks) nor ToolSearch.
    assert!(found.iter().all(|name| name != "Read" && name != "ToolSearch"), "{found:?}");
}

#[tokio::test]
async fn mcp_tools_are_found_by_server_prefix_and_required_terms() {
    // The pool sorts MCP tools by name, and a prefix search keeps pool order.
    assert_eq!(search("mcp__slack").await, ["mcp__slack__read_channel", "mcp__slack__send_message"]);
    // Required terms filter; the others only score: read_channel stays, behind send_message.
    assert_eq!(search("+slack send").await, ["mcp__slack__send_message", "mcp__slack__read_channel"]);
    assert_eq!(search("+send +slack").await, ["mcp__slack__send_message"]);
    // An MCP server's name part (12) outweighs a description word (2: WebFetch's prompt names
    // GitHub).
    let found = search("github").await;
    assert_eq!(found.first().map(String::as_str), Some("mcp__github__create_issue"), "{found:?}");
    assert_eq!(found.contains(&"WebFetch".to_owned()), cfg!(feature = "web-fetch"), "{found:?}");
    assert_eq!(search("zebra").await, Vec::<String>::new());
}

#[tokio::test]
async fn the_api_tools_array_marks_deferred_tools_when_tool_search_is_on() {
    let pool = pool();
    let options = PromptOptions { tools: &pool, permission_context: None };
    let tools = api_tools(&pool, &options);
    assert_eq!(tools.len(), pool.len());
    let entry = |name: &str| tools.iter().find(|tool| tool["name"] == name).cloned();
    let search = entry("ToolSearch").expect("ToolSearch is sent");
    assert_eq!(search.get("defer_loading"), None);
    assert_eq!(entry("mcp__slack__send_message").unwrap()["defer_loading"], json!(true));
    if cfg!(feature = "todo-write") {
        assert_eq!(entry("TodoWrite").unwrap()["defer_loading"], json!(true));
    }
    if cfg!(feature = "file-read") {
        assert_eq!(entry("Read").unwrap().get("defer_loading"), None);
    }
    let keys: Vec<&String> = search.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "input_schema"]);

    let off = pool_with(ToolSearchMode::Off);
    let options = PromptOptions { tools: &off, permission_context: None };
    let tools = api_tools(&off, &options);
    assert_eq!(tools.len(), off.len());
    assert!(tools.iter().all(|tool| tool["name"] != "ToolSearch" && tool.get("defer_loading").is_none()));
}

#[tokio::test]
async fn tool_search_is_left_out_when_nothing_is_deferred() {
    let pool: Vec<Arc<dyn Tool>> = vec![common::tool("Echo"), agent_tool_tool_search_in_pool()];
    let options = PromptOptions { tools: &pool, permission_context: None };
    assert_eq!(
        api_tools(&pool, &options),
        [json!({"name": "Echo", "description": "The Echo test tool.", "input_schema": pool[0].input_schema()})]
    );
    assert_eq!(available_deferred_tools_message(&pool), None);
}

/// ToolSearch as the host builds it (the default pool's last base tool).
fn agent_tool_tool_search_in_pool() -> Arc<dyn Tool> {
    let base = agent_tools_host::get_all_base_tools(&HostConfig::default());
    base.last().filter(|tool| tool.name() == "ToolSearch").cloned().expect("ToolSearch is the last base tool")
}

#[tokio::test]
async fn the_available_deferred_tools_message_names_them_sorted() {
    let pool = pool();
    let message = available_deferred_tools_message(&pool).unwrap();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.first(), Some(&"<available-deferred-tools>"));
    assert_eq!(lines.last(), Some(&"</available-deferred-tools>"));
    let names = &lines[1..lines.len() - 1];
    let mut sorted = names.to_vec();
    sorted.sort_unstable();
    assert_eq!(names, sorted.as_slice());
    assert!(names.contains(&"mcp__github__create_issue"));
    assert_eq!(names.contains(&"TaskStop"), cfg!(feature = "task-stop"));
    assert!(!names.contains(&"ToolSearch") && !names.contains(&"Read"));
    assert_eq!(available_deferred_tools_message(&pool_with(ToolSearchMode::Off)), None);
}

#[tokio::test]
async fn tool_references_render_as_definitions_for_text_clients() {
    let pool = pool();
    let options = PromptOptions { tools: &pool, permission_context: None };
    let content = ToolResultContent::Parts(vec![
        ContentPart::tool_reference("mcp__github__create_issue"),
        ContentPart::tool_reference("Gone"),
    ]);
    let rendered = render_tool_references(&content, &pool, &options);
    let schema = pool.iter().find(|tool| tool.name() == "mcp__github__create_issue").unwrap().input_schema();
    assert_eq!(
        rendered,
        ToolResultContent::Parts(vec![
            ContentPart::text(format!(
                "<function>{}</function>",
                json!({"description": "The mcp__github__create_issue test tool.", "name": "mcp__github__create_issue", "parameters": schema})
            )),
            ContentPart::text("Tool Gone is not available."),
        ])
    );
    let text = ToolResultContent::Text("plain".into());
    assert_eq!(render_tool_references(&text, &pool, &options), text);
}

const HINT_START: &str = "\n\nThis tool's schema was not sent to the API — it was not in the discovered-tool set derived from message history. Without the schema in your prompt, typed parameters (arrays, numbers, booleans) get emitted as strings and the client-side parser rejects them. Load the tool first: call ToolSearch with query \"select:mcp__github__create_issue\", then retry this call. For reference, this tool's input schema is: ";

#[tokio::test]
async fn a_deferred_tools_input_error_says_to_load_it_until_it_is_loaded() {
    let pool = pool();
    let executor = Executor::new(pool.clone());
    let ctx = context(&pool);
    let bad = json!({"txt": "x"});
    let done = run(&executor, &ctx, "mcp__github__create_issue", bad.clone()).await;
    let text = done.block.content.text();
    let schema = pool.iter().find(|tool| tool.name() == "mcp__github__create_issue").unwrap().input_schema();
    assert!(text.starts_with("<tool_use_error>InputValidationError: "), "{text}");
    assert!(text.ends_with(&format!("{HINT_START}{schema}</tool_use_error>")), "{text}");

    // Loading it through ToolSearch in the same session ends the hint.
    let loaded = run(&executor, &ctx, "ToolSearch", json!({"query": "select:mcp__github__create_issue"})).await;
    assert_eq!(loaded.block.content.tool_references(), ["mcp__github__create_issue"]);
    let done = run(&executor, &ctx, "mcp__github__create_issue", bad.clone()).await;
    assert!(!done.block.content.text().contains("schema was not sent"));

    // Valid input runs without loading.
    let fresh = context(&pool);
    let done = run(&executor, &fresh, "mcp__slack__read_channel", json!({"text": "hi"})).await;
    assert!(!done.block.is_error, "{:?}", done.block);

    // No hint when every schema was sent (MCP serve), nor without ToolSearch in the pool.
    let sent = Executor::new(pool.clone()).with_all_schemas_sent(true);
    let done = run(&sent, &fresh, "mcp__github__create_issue", bad.clone()).await;
    assert!(done.block.is_error && !done.block.content.text().contains("schema was not sent"));
    let off = pool_with(ToolSearchMode::Off);
    let done = run(&Executor::new(off.clone()), &context(&off), "mcp__github__create_issue", bad).await;
    assert!(done.block.is_error && !done.block.content.text().contains("schema was not sent"));
}

#[tokio::test]
async fn a_turn_that_loaded_tools_says_so_after_its_results() {
    let pool = pool();
    let mut ctx = context(&pool);
    let uses = [
        ToolUseBlock {
            id: "toolu_1".into(),
            name: "ToolSearch".into(),
            input: json!({"query": "select:mcp__slack__read_channel"}),
        },
        ToolUseBlock { id: "toolu_2".into(), name: "ToolSearch".into(), input: json!({"query": "zebra"}) },
        ToolUseBlock { id: "toolu_3".into(), name: "ToolSearch".into(), input: json!({"query": "mcp__slack"}) },
    ];
    let turn = Executor::new(pool.clone()).run_turn(&uses, &mut ctx).await;
    let message = serde_json::to_value(turn.message()).unwrap();
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "tool_reference", "tool_name": "mcp__slack__read_channel"}]},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "No matching deferred tools found"},
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": [
                {"type": "tool_reference", "tool_name": "mcp__slack__read_channel"},
                {"type": "tool_reference", "tool_name": "mcp__slack__send_message"}
            ]},
            {"type": "text", "text": "Tool loaded."},
            {"type": "text", "text": "Tool loaded."}
        ]})
    );
}

#[cfg(feature = "file-read")]
#[tokio::test]
async fn a_loaded_tools_input_error_has_no_hint() {
    let pool = pool();
    let done = run(&Executor::new(pool.clone()), &context(&pool), "Read", json!({"path": "x"})).await;
    assert!(done.block.is_error);
    assert!(!done.block.content.text().contains("schema was not sent"));
}
