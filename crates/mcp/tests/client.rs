//! The client against a real stdio MCP server: the crate's test server binary, started as a child
//! process through the configs the CLI would read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use agent_tools_core::McpInfo;
use agent_tools_core::call_tool;
use agent_tools_core::{ContentPart, ToolResultContent};
use agent_tools_mcp::transform::saved_truncation_notice;
use agent_tools_mcp::{McpOptions, connect_all};
use agent_tools_testkit::eventually;
use serde_json::{Value, json};

mod common;

use common::{SERVER, connect, ctx, find, servers};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_named_described_and_flagged_from_the_listing() {
    let session = connect("test server", &[], McpOptions::default()).await;
    let names: Vec<String> = session.tools().iter().map(|tool| tool.name().to_owned()).collect();
    assert_eq!(
        names,
        [
            "mcp__test_server__echo",
            "mcp__test_server__structured",
            "mcp__test_server__fail",
            "mcp__test_server__image",
            "mcp__test_server__slow",
            "mcp__test_server__big",
            "mcp__test_server__embed",
            "mcp__test_server__delete_thing",
            "ListMcpResourcesTool",
            "ReadMcpResourceTool",
        ]
    );
    let echo = find(&session, "mcp__test_server__echo");
    assert_eq!(
        echo.input_schema(),
        &json!({"type": "object", "properties": {"text": {"type": "string", "description": "What to echo"}},
                "required": ["text"], "x-custom": {"kept": true}})
    );
    let flags = echo.flags();
    assert!(flags.read_only && flags.concurrency_safe && !flags.destructive && !flags.open_world);
    assert_eq!(echo.user_facing_name(None), "test server - Echo Text (MCP)");
    assert_eq!(echo.description(&Default::default()), "Echoes the text back.");
    assert!(echo.mcp_info().is_some() && echo.should_defer());
    assert_eq!(echo.mcp_info(), Some(McpInfo { server_name: "test server".into(), tool_name: "echo".into() }));
    let parsed = echo.parse(json!({"text": "hi"})).unwrap();
    // Permission questions show one short line, not the server's whole description.
    assert_eq!(echo.summary(&parsed), "test server - Echo Text (MCP)");
    assert!(echo.is_read_only(&parsed) && echo.is_concurrency_safe(&parsed));

    let delete = find(&session, "mcp__test_server__delete_thing");
    let flags = delete.flags();
    assert!(!flags.read_only && !flags.concurrency_safe && flags.destructive && flags.open_world);
    assert_eq!(delete.user_facing_name(None), "test server - delete.thing (MCP)");
    assert_eq!(delete.mcp_info().unwrap().tool_name, "delete.thing");
    // The input is checked against the server's schema before any call.
    assert_eq!(
        echo.parse(json!({"unknown": 1})).unwrap_err().to_string(),
        "mcp__test_server__echo failed due to the following issues:\nThe required parameter `text` is missing\n\
         An unexpected parameter `unknown` was provided"
    );
    assert!(echo.parse(json!({"text": "hi", "unknown": 1})).is_ok());
    assert!(echo.parse(json!([1, 2])).is_err());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_map_text_structured_content_errors_images_and_resources() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let session = connect("srv", &[], McpOptions { max_output_tokens: 2000, ..McpOptions::default() }).await;
    let call = |name: &str, input: Value| {
        let tool = find(&session, name);
        let ctx = ctx.clone();
        async move { call_tool(tool.as_ref(), "toolu_1", input, &ctx).await }
    };

    let echo = call("mcp__srv__echo", json!({"text": "hello"})).await;
    assert_eq!(echo.block.content, ToolResultContent::Text("hello".into()));
    assert!(!echo.block.is_error);

    let structured = call("mcp__srv__structured", json!({})).await;
    assert_eq!(structured.block.content, ToolResultContent::Text(r#"{"answer":42}"#.into()));
    assert_eq!(structured.data.unwrap().to_json(), json!({"answer": 42}));

    let failed = call("mcp__srv__fail", json!({})).await;
    assert!(failed.block.is_error);
    assert_eq!(failed.block.content.text(), "it broke");

    let image = call("mcp__srv__image", json!({})).await;
    assert_eq!(
        image.block.content,
        ToolResultContent::Parts(vec![
            ContentPart::text("an image:"),
            ContentPart::Image { source: agent_tools_core::ImageSource::base64("image/png", "iVBORw0KGgo=") },
        ])
    );

    let embed = call("mcp__srv__embed", json!({})).await;
    assert_eq!(embed.block.content.text(), "[Resource from srv at mem://greeting] hello resource");

    let big = call("mcp__srv__big", json!({"size": 9000})).await;
    let saved = dir.path().join("session/tool-results/toolu_1.txt");
    assert!(
        big.block.content.text() == format!("{}{}", "a".repeat(8000), saved_truncation_notice(2000, 9000, &saved)),
        "{}",
        &big.block.content.text()[8000..]
    );
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "a".repeat(9000));
    let small = call("mcp__srv__big", json!({"size": 8000})).await;
    assert_eq!(small.block.content.text(), "a".repeat(8000));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_ends_the_wait_and_a_tool_timeout_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let options = McpOptions { tool_timeout: Some(Duration::from_millis(300)), ..McpOptions::default() };
    let timed = connect("srv", &[], options).await;
    let started = Instant::now();
    let done = call_tool(find(&timed, "mcp__srv__slow").as_ref(), "t1", json!({"ms": 20000}), &ctx(dir.path())).await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "MCP server \"srv\" tool \"slow\" timed out after 300 ms");
    assert!(started.elapsed() < Duration::from_secs(5));
    timed.shutdown().await;

    // The server logs each call as it starts: the cancel comes once the call is in flight.
    let log = dir.path().join("calls.log");
    let session = connect("srv", &["--log", &log.display().to_string()], McpOptions::default()).await;
    let ctx = ctx(dir.path());
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        assert!(eventually(Duration::from_secs(10), || log.exists()).await, "the slow call never reached the server");
        cancel.cancel();
    });
    let started = Instant::now();
    let done = call_tool(find(&session, "mcp__srv__slow").as_ref(), "t2", json!({"ms": 20000}), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "[Request interrupted by user for tool use]");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The connection is still usable after a cancelled call.
    let fresh = self::ctx(dir.path());
    let echo = call_tool(find(&session, "mcp__srv__echo").as_ref(), "t3", json!({"text": "still here"}), &fresh).await;
    assert_eq!(echo.block.content.text(), "still here");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_fail_are_reported_and_skipped() {
    let configs = servers(json!({
        "missing": {"command": "/nonexistent/agent-tools-no-such-server"},
        "exits": {"command": SERVER, "args": ["--exit"]},
        "hangs": {"command": SERVER, "args": ["--hang"]},
        "remote": {"type": "ws", "url": "wss://example.com/mcp"},
        "good": {"command": SERVER, "args": ["--no-resources"]},
    }));
    let options = McpOptions { connect_timeout: Duration::from_secs(2), ..McpOptions::default() };
    let started = Instant::now();
    let session = connect_all(&configs, &options).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let failures = session.failures();
    let failures: Vec<(&str, &str)> =
        failures.iter().map(|failure| (failure.name.as_str(), failure.message.as_str())).collect();
    assert_eq!(failures.len(), 4, "{failures:?}");
    assert_eq!(failures[0].0, "missing");
    assert!(failures[0].1.starts_with("cannot start `/nonexistent/agent-tools-no-such-server`"), "{}", failures[0].1);
    assert_eq!(failures[1].0, "exits");
    assert!(failures[1].1.starts_with("the server did not initialise"), "{}", failures[1].1);
    assert_eq!(failures[2], ("hangs", "the server did not initialise within 2000 ms"));
    assert_eq!(
        failures[3],
        ("remote", "transport type \"ws\" is not supported (only stdio, http and sse servers are)")
    );
    assert_eq!(session.connections().len(), 1);
    // No server offers resources, so the resource tools are not added.
    assert!(session.tools().iter().all(|tool| tool.name().starts_with("mcp__good__")));
    assert_eq!(session.tools().len(), 8);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_listed_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let configs = servers(json!({
        "docs": {"command": SERVER},
        "plain": {"command": SERVER, "args": ["--no-resources"]},
    }));
    let session = connect_all(&configs, &McpOptions::default()).await;
    assert_eq!(session.failures(), &[]);
    let list = find(&session, "ListMcpResourcesTool");
    let read = find(&session, "ReadMcpResourceTool");
    assert!(list.flags().read_only && read.flags().read_only);

    let all = call_tool(list.as_ref(), "l1", json!({}), &ctx).await;
    assert_eq!(
        serde_json::from_str::<Value>(&all.block.content.text()).unwrap(),
        json!([
            {"uri": "mem://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting", "server": "docs"},
            {"uri": "mem://blob", "name": "blob", "mimeType": "application/pdf", "server": "docs"}
        ])
    );
    let none = call_tool(list.as_ref(), "l2", json!({"server": "plain"}), &ctx).await;
    assert_eq!(none.block.content.text(), agent_tools_mcp::resources::NO_RESOURCES);
    let unknown = call_tool(list.as_ref(), "l3", json!({"server": "nope"}), &ctx).await;
    assert!(unknown.block.is_error);
    assert_eq!(unknown.block.content.text(), "Server \"nope\" not found. Available servers: docs, plain");

    let text = call_tool(read.as_ref(), "r1", json!({"server": "docs", "uri": "mem://greeting"}), &ctx).await;
    assert_eq!(
        serde_json::from_str::<Value>(&text.block.content.text()).unwrap(),
        json!({"contents": [{"uri": "mem://greeting", "mimeType": "text/plain", "text": "hello resource"}]})
    );
    let blob = call_tool(read.as_ref(), "r2", json!({"server": "docs", "uri": "mem://blob"}), &ctx).await;
    let saved = dir.path().join("session/tool-results/r2-resource-0.pdf");
    assert_eq!(std::fs::read(&saved).unwrap(), b"%PDF-");
    let blob: Value = serde_json::from_str(&blob.block.content.text()).unwrap();
    assert_eq!(blob["contents"][0]["blobSavedTo"], json!(saved.display().to_string()));
    let missing = call_tool(read.as_ref(), "r3", json!({"server": "docs", "uri": "mem://none"}), &ctx).await;
    assert!(missing.block.is_error);
    assert!(missing.block.content.text().contains("mem://none"), "{}", missing.block.content.text());
    let plain = call_tool(read.as_ref(), "r4", json!({"server": "plain", "uri": "mem://greeting"}), &ctx).await;
    assert_eq!(plain.block.content.text(), "Server \"plain\" does not offer resources");
    session.shutdown().await;
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_server_processes() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let pid_arg = pid_file.display().to_string();
    let log = dir.path().join("calls.log");
    let session =
        connect("srv", &["--pid-file", &pid_arg, "--log", &log.display().to_string()], McpOptions::default()).await;
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let proc_dir = Path::new("/proc").join(pid.trim());
    assert!(proc_dir.exists());
    // A call in flight when the session ends does not keep the server alive.
    let slow = find(&session, "mcp__srv__slow");
    let ctx = ctx(dir.path());
    let pending = tokio::spawn(async move { call_tool(slow.as_ref(), "s", json!({"ms": 20000}), &ctx).await });
    assert!(eventually(Duration::from_secs(10), || log.exists()).await, "the slow call never reached the server");
    session.shutdown().await;
    assert!(!proc_dir.exists(), "the server process {pid} is still there");
    let done = tokio::time::timeout(Duration::from_secs(5), pending).await.unwrap().unwrap();
    assert!(done.block.is_error);
    // The tools of an ended session fail cleanly.
    let echo = find(&session, "mcp__srv__echo");
    let after = call_tool(echo.as_ref(), "e", json!({"text": "x"}), &self::ctx(dir.path())).await;
    assert!(after.block.is_error);
    session.shutdown().await;
}
