//! WebSearch against a fake Messages API on 127.0.0.1, started by each test: the request it
//! sends, the text it makes of a reply, search errors, input checks, API failures, cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tool_web_search::{
    CITE_REMINDER, SearchApiConfig, WebSearchConfig, WebSearchInput, WebSearchTool, tool, tool_with,
};
use agent_tools_core::call_tool;
use agent_tools_core::{ToolDef, ToolUseContext, ValidationResult};
use agent_tools_testkit::eventually;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the fake API received: header lines (lower-case names) and the JSON body.
#[derive(Debug, Clone, Default)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// A fake Messages API answering every request with `status` and `body` (or never, if `stall`).
struct FakeApi {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

async fn fake_api(status: u16, body: Value, stall: bool) -> FakeApi {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let log = Arc::clone(&log);
            let body = body.to_string();
            tokio::spawn(async move {
                let mut raw = Vec::new();
                let mut buf = [0_u8; 4096];
                let head_end = loop {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    raw.extend_from_slice(&buf[..n]);
                    if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                };
                let head = String::from_utf8_lossy(&raw[..head_end]).to_string();
                let mut lines = head.split("\r\n");
                let path = lines.next().unwrap_or_default().split(' ').nth(1).unwrap_or_default().to_owned();
                let headers: Vec<(String, String)> = lines
                    .filter_map(|line| line.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize =
                    headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
                while raw.len() < head_end + length {
                    let n = socket.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    raw.extend_from_slice(&buf[..n]);
                }
                let request_body = serde_json::from_slice(&raw[head_end..]).unwrap_or(Value::Null);
                log.lock().unwrap().push(Seen { path, headers, body: request_body });
                if stall {
                    // tidy:allow-sleep a stalling API is what these tests face.
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    FakeApi { base_url, seen }
}

fn config(api: &FakeApi) -> WebSearchConfig {
    WebSearchConfig {
        api: Some(SearchApiConfig {
            base_url: api.base_url.clone(),
            model: "claude-test-model".to_owned(),
            ..SearchApiConfig::new("sk-test-key")
        }),
    }
}

async fn run(config: WebSearchConfig, input: Value) -> (String, bool) {
    let ctx = ToolUseContext::new(std::env::temp_dir());
    let done = call_tool(tool_with(config).as_ref(), "toolu_1", input, &ctx).await;
    (done.block.content.text(), done.block.is_error)
}

fn reply() -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-model",
        "content": [
            {"type": "text", "text": "I'll search for that."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rust 2024 edition"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "Rust 2024", "url": "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0/", "encrypted_content": "abc", "page_age": "1 day"},
                {"type": "web_search_result", "title": "The \"Edition\" Guide", "url": "https://doc.rust-lang.org/edition-guide/"}
            ]},
            {"type": "text", "text": "Rust 2024 shipped with 1.85."}
        ],
        "stop_reason": "end_turn"
    })
}

#[tokio::test]
async fn the_request_carries_model_tool_message_and_headers() {
    let api = fake_api(200, reply(), false).await;
    let input = json!({"query": "rust 2024 edition", "allowed_domains": ["rust-lang.org"]});
    let (text, is_error) = run(config(&api), input).await;
    assert!(!is_error, "{text}");
    let seen = api.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-test-key"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.body["model"], json!("claude-test-model"));
    assert!(request.body["max_tokens"].as_u64().is_some_and(|n| n > 0));
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": "Perform a web search for the query: rust 2024 edition"}])
    );
    assert_eq!(
        request.body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["rust-lang.org"], "max_uses": 8}])
    );

    let (_, is_error) = run(config(&api), json!({"query": "xy", "blocked_domains": ["spam.example"]})).await;
    assert!(!is_error);
    let tool = &api.seen.lock().unwrap()[1].body["tools"][0];
    assert_eq!(tool["blocked_domains"], json!(["spam.example"]));
    assert!(tool.get("allowed_domains").is_none());
}

#[tokio::test]
async fn text_and_hits_are_serialised_exactly() {
    let api = fake_api(200, reply(), false).await;
    let (text, is_error) = run(config(&api), json!({"query": "rust 2024 edition"})).await;
    assert!(!is_error, "{text}");
    let expected = format!(
        "Web search results for query: \"rust 2024 edition\"\n\n\
         I'll search for that.\n\n\
         Links: [{{\"title\":\"Rust 2024\",\"url\":\"https://blog.rust-lang.org/2025/02/20/Rust-1.85.0/\"}},\
         {{\"title\":\"The \\\"Edition\\\" Guide\",\"url\":\"https://doc.rust-lang.org/edition-guide/\"}}]\n\n\
         Rust 2024 shipped with 1.85.\n\n\
         {CITE_REMINDER}"
    );
    assert_eq!(text, expected);
}

#[tokio::test]
async fn the_output_data_has_claude_codes_shape() {
    let api = fake_api(200, reply(), false).await;
    let ctx = ToolUseContext::new(std::env::temp_dir());
    let done = call_tool(tool_with(config(&api)).as_ref(), "toolu_1", json!({"query": "rust"}), &ctx).await;
    let data = done.data.as_ref().map_or(Value::Null, |data| data.to_json());
    assert_eq!(data["query"], json!("rust"));
    assert_eq!(data["results"][0], json!("I'll search for that."));
    assert_eq!(data["results"][1]["tool_use_id"], json!("srvtoolu_1"));
    assert_eq!(
        data["results"][1]["content"][0],
        json!({"title": "Rust 2024", "url": "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0/"})
    );
    assert!(data["durationSeconds"].as_f64().is_some());
}

#[tokio::test]
async fn a_search_error_block_becomes_a_line() {
    let body = json!({"content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "web_search_tool_result_error", "error_code": "too_many_requests"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2", "content": []}
    ]});
    let api = fake_api(200, body, false).await;
    let (text, is_error) = run(config(&api), json!({"query": "qq"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "Web search results for query: \"qq\"\n\nWeb search error: too_many_requests\n\nNo links found.\n\n{CITE_REMINDER}"
        )
    );
}

#[tokio::test]
async fn input_checks_have_claude_codes_codes() {
    let def = WebSearchTool::new(WebSearchConfig::default());
    let ctx = ToolUseContext::new(std::env::temp_dir());
    let check = |input: Value| {
        let input: WebSearchInput = serde_json::from_value(input).unwrap();
        let def = &def;
        let ctx = &ctx;
        async move { def.validate_input(&input, ctx).await }
    };
    assert!(matches!(check(json!({"query": "a"})).await, ValidationResult::Error { error_code: 1, .. }));
    assert!(matches!(check(json!({"query": ""})).await, ValidationResult::Error { error_code: 1, .. }));
    let both = json!({"query": "rust", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]});
    assert!(matches!(check(both).await, ValidationResult::Error { error_code: 2, .. }));
    assert!(matches!(check(json!({"query": "ok", "allowed_domains": []})).await, ValidationResult::Ok));

    // Through the whole pipeline: refused before any request, and unknown keys refused too.
    let api = fake_api(200, reply(), false).await;
    let (text, is_error) = run(config(&api), json!({"query": "a"})).await;
    assert!(is_error && text.contains("<tool_use_error>"), "{text}");
    let (_, is_error) = run(config(&api), json!({"query": "rust", "extra": 1})).await;
    assert!(is_error);
    assert!(api.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_api_failure_is_a_clear_error() {
    let api = fake_api(
        500,
        json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}),
        false,
    )
    .await;
    let (text, is_error) = run(config(&api), json!({"query": "rust"})).await;
    assert!(is_error);
    assert!(
        text.contains("Web search failed") && text.contains("500") && text.contains("Internal server error"),
        "{text}"
    );

    let unreachable = WebSearchConfig {
        api: Some(SearchApiConfig { base_url: "http://127.0.0.1:9".into(), ..SearchApiConfig::new("k") }),
    };
    let (text, is_error) = run(unreachable, json!({"query": "rust"})).await;
    assert!(is_error && text.contains("could not be reached"), "{text}");
}

#[tokio::test]
async fn timeouts_and_cancellation_end_the_call() {
    let api = fake_api(200, reply(), true).await;
    let mut slow = config(&api);
    if let Some(api) = slow.api.as_mut() {
        api.timeout = Some(Duration::from_millis(300));
    }
    let (text, is_error) = run(slow, json!({"query": "rust"})).await;
    assert!(is_error && text.contains("did not answer in time"), "{text}");

    let ctx = ToolUseContext::new(std::env::temp_dir());
    // The cancel comes once the request has reached the (stalling) API.
    let before = api.seen.lock().unwrap().len();
    let cancelling = async {
        let arrived = eventually(Duration::from_secs(10), || api.seen.lock().unwrap().len() > before).await;
        assert!(arrived, "the search never reached the API");
        ctx.cancel.cancel();
    };
    let search = tool_with(config(&api));
    let calling = tokio::time::timeout(
        Duration::from_secs(10),
        call_tool(search.as_ref(), "toolu_1", json!({"query": "rust"}), &ctx),
    );
    let (done, ()) = tokio::join!(calling, cancelling);
    let done = done.expect("cancellation ends the call");
    assert!(done.block.is_error, "{}", done.block.content.text());
}

#[test]
fn enabled_only_with_a_key_and_described_as_claude_code_does() {
    assert!(!tool().is_enabled());
    let keyless = WebSearchConfig { api: Some(SearchApiConfig::new("")) };
    assert!(!tool_with(keyless).is_enabled());
    let search = tool_with(WebSearchConfig { api: Some(SearchApiConfig::new("sk")) });
    assert!(search.is_enabled());
    assert_eq!(search.name(), "WebSearch");
    assert!(search.should_defer());
    assert!(search.flags().read_only && search.flags().concurrency_safe);
    assert!(!format!("{:?}", SearchApiConfig::new("sk-secret")).contains("sk-secret"));
}
