//! Failures users reported against MCP clients, against the crate's real stdio test server started
//! with `--case-tools` (tools that reproduce them):
//!
//! - tool names (anthropics/claude-code#955, microsoft/wassette#56): names the Messages API accepts,
//!   mapped back to the server's names; huge results cut, with the start kept inline;
//! - hung calls (anthropics/claude-code#53641): a hung call times out and the session goes on;
//! - wrong arguments (anthropics/claude-code#34974, #60052): inputs checked against the server's schema
//!   before the call, and every argument reaching the server.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_core::MaxResultSize;
use agent_tools_core::McpInfo;
use agent_tools_core::call_tool;
use agent_tools_mcp::McpOptions;
use agent_tools_mcp::transform::{saved_truncation_notice, truncation_notice};
use serde_json::json;

mod common;

use common::{connect, ctx, find};

fn api_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Every name matches `^[a-zA-Z0-9_-]{1,64}$`, names are unique, and each
/// one calls the server's own tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_053_names_fit_the_api_and_call_the_servers_tools() {
    let dir = tempfile::tempdir().unwrap();
    let session = connect("my.case server", &["--case-tools", "--no-resources"], McpOptions::default()).await;
    let names: Vec<String> = session.tools().iter().map(|tool| tool.name().to_owned()).collect();
    assert_eq!(
        names,
        [
            "mcp__my_case_server__echo",
            "mcp__my_case_server__structured",
            "mcp__my_case_server__fail",
            "mcp__my_case_server__image",
            "mcp__my_case_server__slow",
            "mcp__my_case_server__big",
            "mcp__my_case_server__embed",
            "mcp__my_case_server__delete_thing",
            "mcp__my_case_server__weird_name_v2",
            "mcp__my_case_server__get_data",
            // `get.data` normalises like `get data`, which came first.
            "mcp__my_case_server__get_data_008a9fde",
            // 77 and 79 characters once prefixed: cut to 64, told apart by the hash.
            "mcp__my_case_server__synchronize_all_customer_records_a_7515e5ef",
            "mcp__my_case_server__synchronize_all_customer_records_a_034a971e",
            "mcp__my_case_server__hang",
            "mcp__my_case_server__args",
            "mcp__my_case_server__bad-schema",
        ]
    );
    for name in &names {
        assert!(api_name_ok(name), "{name} ({} characters)", name.len());
    }
    let unique: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len());

    let ctx = ctx(dir.path());
    for (listed, raw) in [
        ("mcp__my_case_server__weird_name_v2", "weird/name.v2"),
        ("mcp__my_case_server__get_data", "get data"),
        ("mcp__my_case_server__get_data_008a9fde", "get.data"),
        (
            "mcp__my_case_server__synchronize_all_customer_records_a_7515e5ef",
            "synchronize_all_customer_records_across_every_region_now",
        ),
        (
            "mcp__my_case_server__synchronize_all_customer_records_a_034a971e",
            "synchronize_all_customer_records_across_every_region_later",
        ),
    ] {
        let tool = find(&session, listed);
        assert_eq!(tool.mcp_info(), Some(McpInfo { server_name: "my.case server".into(), tool_name: raw.into() }));
        let done = call_tool(tool.as_ref(), "toolu_1", json!({}), &ctx).await;
        assert!(!done.block.is_error, "{listed}");
        assert_eq!(done.block.content.text(), format!("called {raw}"));
    }
    // Small results are untouched.
    let echo = call_tool(find(&session, "mcp__my_case_server__echo").as_ref(), "e", json!({"text": "hi"}), &ctx).await;
    assert_eq!(echo.block.content.text(), "hi");
    session.shutdown().await;
}

/// A 400,000-character result keeps its first 100,000 characters
/// (25,000 tokens) inline with the note and the file holding the whole; with a cap of 1,000
/// tokens, 4,000 characters. Without a session folder the note says the rest was dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_053_huge_results_keep_their_start_and_point_at_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let session = connect("my.case server", &["--no-resources"], McpOptions::default()).await;
    let big = find(&session, "mcp__my_case_server__big");
    // The executor's 50,000-character limit must not replace the capped content by a preview.
    assert_eq!(big.max_result_size_chars(), MaxResultSize::Unlimited);
    let done = call_tool(big.as_ref(), "toolu_big", json!({"size": 400_000}), &ctx(dir.path())).await;
    assert!(!done.block.is_error);
    let saved = dir.path().join("session/tool-results/toolu_big.txt");
    let text = done.block.content.text();
    let notice = saved_truncation_notice(25_000, 400_000, &saved);
    assert!(text == format!("{}{notice}", "a".repeat(100_000)), "{}", &text[text.len().min(100_000)..]);
    assert!(notice.contains("[OUTPUT TRUNCATED - exceeded 25000 token limit]"));
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "a".repeat(400_000));
    session.shutdown().await;

    let small_cap = McpOptions { max_output_tokens: 1_000, ..McpOptions::default() };
    let session = connect("srv", &["--no-resources"], small_cap).await;
    let big = find(&session, "mcp__srv__big");
    let mut no_folder = ctx(dir.path());
    no_folder.options.session_dir = None;
    let done = call_tool(big.as_ref(), "toolu_2", json!({"size": 20_000}), &no_folder).await;
    let text = done.block.content.text();
    assert!(text == format!("{}{}", "a".repeat(4_000), truncation_notice(1_000)), "{}", &text[4_000..]);
    let under = call_tool(big.as_ref(), "toolu_3", json!({"size": 4_000}), &no_folder).await;
    assert_eq!(under.block.content.text(), "a".repeat(4_000));
    session.shutdown().await;
}

/// A call that never answers fails once the tool timeout passes, and the same
/// connection serves the next calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_054_a_hung_call_times_out_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let options = McpOptions { tool_timeout: Some(Duration::from_millis(500)), ..McpOptions::default() };
    let session = connect("ok", &["--case-tools", "--no-resources"], options).await;
    let ctx = ctx(dir.path());
    let hang = call_tool(find(&session, "mcp__ok__hang").as_ref(), "h", json!({}), &ctx).await;
    assert!(hang.block.is_error);
    assert_eq!(hang.block.content.text(), "MCP server \"ok\" tool \"hang\" timed out after 500 ms");
    let echo = call_tool(find(&session, "mcp__ok__echo").as_ref(), "e", json!({"text": "after-hang"}), &ctx).await;
    assert!(!echo.block.is_error);
    assert_eq!(echo.block.content.text(), "after-hang");
    let slow = call_tool(find(&session, "mcp__ok__slow").as_ref(), "s", json!({"ms": 50}), &ctx).await;
    assert_eq!(slow.block.content.text(), "done");
    session.shutdown().await;
}

/// A wrong field is refused before the call, with the field named; the
/// right arguments all reach the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_060_inputs_are_checked_against_the_servers_schema() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let log_arg = log.display().to_string();
    let session = connect("case", &["--case-tools", "--no-resources", "--log", &log_arg], McpOptions::default()).await;
    let ctx = ctx(dir.path());
    let args = find(&session, "mcp__case__args");
    assert_eq!(
        args.input_schema(),
        &json!({"type": "object",
                "properties": {"text": {"type": "string", "description": "text to echo"},
                               "count": {"type": "integer", "description": "times"}},
                "required": ["text"]})
    );

    let wrong = call_tool(args.as_ref(), "toolu_1", json!({"txt": "wrong field"}), &ctx).await;
    assert!(wrong.block.is_error);
    assert_eq!(
        wrong.block.content.text(),
        "<tool_use_error>InputValidationError: mcp__case__args failed due to the following issues:\n\
         The required parameter `text` is missing\nAn unexpected parameter `txt` was provided</tool_use_error>"
    );
    let typed = call_tool(args.as_ref(), "toolu_2", json!({"text": "hi", "count": "two"}), &ctx).await;
    assert_eq!(
        typed.block.content.text(),
        "<tool_use_error>InputValidationError: mcp__case__args failed due to the following issue:\n\
         The parameter `count` type is expected as `integer` but provided as `string`</tool_use_error>"
    );
    assert!(!log.exists(), "the server was called: {:?}", std::fs::read_to_string(&log));

    let right = call_tool(args.as_ref(), "toolu_3", json!({"text": "hi", "count": 2}), &ctx).await;
    assert!(!right.block.is_error);
    assert_eq!(right.block.content.text(), r#"echo: {"count":2,"text":"hi"}"#);
    // A JSON text of an object is taken as the object, as for every tool.
    let streamed = call_tool(args.as_ref(), "toolu_4", json!(r#"{"text": "as text"}"#), &ctx).await;
    assert_eq!(streamed.block.content.text(), r#"echo: {"text":"as text"}"#);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "args {\"count\":2,\"text\":\"hi\"}\nargs {\"text\":\"as text\"}\n"
    );

    // A schema that does not compile leaves the input to the server (a warning is logged).
    let bad = find(&session, "mcp__case__bad-schema");
    let unchecked = call_tool(bad.as_ref(), "toolu_5", json!({}), &ctx).await;
    assert!(!unchecked.block.is_error);
    assert_eq!(unchecked.block.content.text(), "echo: {}");
    session.shutdown().await;
}

/// Long values in a refused input are quoted short, so an error never floods the context.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_inputs_quote_at_most_200_characters_of_a_value() {
    let session = connect("case", &["--case-tools", "--no-resources"], McpOptions::default()).await;
    let args = find(&session, "mcp__case__args");
    let huge = "x".repeat(100_000);
    let error = args.parse(json!({"text": huge, "count": {"deep": huge}})).unwrap_err().to_string();
    assert_eq!(
        error,
        "mcp__case__args failed due to the following issue:\n\
         The parameter `count` type is expected as `integer` but provided as `object`"
    );
    let error = args.parse(json!({"text": "t", "count": 1.5})).unwrap_err().to_string();
    assert_eq!(
        error,
        "mcp__case__args failed due to the following issue:\n\
         The parameter `count` type is expected as `integer` but provided as `number`"
    );
    let key = "k".repeat(1_000);
    let error = args.parse(json!({key.clone(): 1})).unwrap_err().to_string();
    assert!(error.len() < 600, "{error}");
    assert!(
        error.ends_with(&format!("An unexpected parameter `{}… (1000 characters)` was provided", "k".repeat(200))),
        "{error}"
    );
    session.shutdown().await;
}
