//! `"type": "sdk"` servers: every JSON-RPC message goes through the host's [`SdkServers`] bridge
//! (the `mcp_message` control request of the Agent SDKs). The bridge here answers as the Python
//! SDK's in-process server does (`claude_agent_sdk/_internal/query.py`, `_handle_sdk_mcp_request`):
//! JSON-RPC replies without the `jsonrpc` field checked, `{"jsonrpc": "2.0", "result": {}}` for
//! a notification.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use agent_tools_core::{BoxFuture, ToolResultContent, call_tool};
use agent_tools_mcp::{FailureKind, McpOptions, SdkServers, connect_all};
use serde_json::{Value, json};

mod common;

use common::{ctx, find, servers};

/// A calculator server living "in the SDK": answers by hand, and records every message.
#[derive(Default)]
struct Calculator {
    seen: Mutex<Vec<(String, String)>>,
}

impl SdkServers for Calculator {
    fn message<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            self.seen.lock().unwrap().push((server.to_owned(), method.clone()));
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            let result = match method.as_str() {
                "initialize" => json!({
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": server, "version": "1.0.0"}
                }),
                "tools/list" => json!({"tools": [{
                    "name": "add",
                    "description": "Adds two numbers.",
                    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                                    "required": ["a", "b"]}
                }]}),
                "tools/call" => {
                    let args = &message["params"]["arguments"];
                    if args["b"] == json!(0) {
                        return Err("the SDK went away".to_owned());
                    }
                    let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
                    json!({"content": [{"type": "text", "text": format!("{sum}")}]})
                }
                method if method.starts_with("notifications/") => return Ok(json!({"jsonrpc": "2.0", "result": {}})),
                other => {
                    return Ok(json!({"jsonrpc": "2.0", "id": id,
                                     "error": {"code": -32601, "message": format!("Method '{other}' not found")}}));
                }
            };
            // The SDK echoes the id; the transport relies on its own.
            Ok(json!({"jsonrpc": "2.0", "id": id, "result": result}))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sdk_server_is_listed_and_called_through_the_bridge() {
    let calculator = Arc::new(Calculator::default());
    let options = McpOptions { sdk: Some(calculator.clone()), ..McpOptions::default() };
    let session = connect_all(&servers(json!({"calc": {"type": "sdk", "name": "calc"}})), &options).await;
    assert_eq!(session.failures(), &[]);
    let names: Vec<String> = session.tools().iter().map(|tool| tool.name().to_owned()).collect();
    assert_eq!(names, ["mcp__calc__add"]);

    let dir = tempfile::tempdir().unwrap();
    let add = find(&session, "mcp__calc__add");
    let sum = call_tool(add.as_ref(), "toolu_1", json!({"a": 2, "b": 40}), &ctx(dir.path())).await;
    assert_eq!(sum.block.content, ToolResultContent::Text("42".into()));
    assert!(!sum.block.is_error);

    // A message the bridge cannot deliver fails that call, with the reason, and nothing else.
    let lost = call_tool(add.as_ref(), "toolu_2", json!({"a": 1, "b": 0}), &ctx(dir.path())).await;
    assert!(lost.block.is_error);
    assert!(lost.block.content.text().contains("the SDK went away"), "{:?}", lost.block.content);
    let again = call_tool(add.as_ref(), "toolu_3", json!({"a": 1, "b": 1}), &ctx(dir.path())).await;
    assert_eq!(again.block.content, ToolResultContent::Text("2".into()));

    let seen = calculator.seen.lock().unwrap().clone();
    let methods: Vec<&str> = seen.iter().map(|(_, method)| method.as_str()).collect();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call", "tools/call"]
    );
    assert!(seen.iter().all(|(server, _)| server == "calc"));

    // Switched off, its tools leave; connected again, they come back under the same name.
    session.disable_server("calc").await.unwrap();
    assert!(session.tools().is_empty());
    assert_eq!(session.disabled(), ["calc"]);
    assert_eq!(session.failures(), &[]);
    assert!(session.disable_server("nope").await.unwrap_err().contains("nope"));
    session.reconnect_server("calc").await.unwrap();
    assert!(session.disabled().is_empty());
    let names: Vec<String> = session.tools().iter().map(|tool| tool.name().to_owned()).collect();
    assert_eq!(names, ["mcp__calc__add"]);
    let initialised = calculator.seen.lock().unwrap().iter().filter(|(_, method)| method == "initialize").count();
    assert_eq!(initialised, 2);
    // A reconnection of a live server replaces its connection.
    session.reconnect_server("calc").await.unwrap();
    assert_eq!(session.connections().len(), 1);
    assert!(session.reconnect_server("nope").await.is_err());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sdk_server_without_a_bridge_is_a_failure_that_says_why() {
    let session = connect_all(&servers(json!({"calc": {"type": "sdk"}})), &McpOptions::default()).await;
    assert!(session.tools().is_empty());
    let failures = session.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].name, "calc");
    assert_eq!(failures[0].kind, FailureKind::Unsupported);
    assert!(failures[0].message.contains("Claude Agent SDK"), "{}", failures[0].message);
}
