//! RemoteTrigger against a real HTTP server on 127.0.0.1 started by each test: the request
//! each action makes (method, path, bearer token, beta header, body), the result texts, API
//! refusals as normal results, input refusals before any request, a server that never answers,
//! cancellation, a refused connection, and the config's checks and redaction.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tool_remote_trigger::{RemoteTriggerConfig, tool_with};
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionResult, Tool, ToolUseContext};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use agent_tools_testkit::http::{Request, read_request};

const TOKEN: &str = "sk-ant-oat01-test-token";

/// The body of a request, as JSON.
fn json_body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

/// What the server answers.
enum Reply {
    /// This status and body (`application/json`).
    Json(u16, String),
    /// Take the request and never answer, the connection held open.
    Stall,
}

/// A server on 127.0.0.1: every request is recorded and also sent down `arrived`.
struct Server {
    base_url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    arrived: mpsc::UnboundedReceiver<Request>,
}

impl Server {
    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

/// Starts a server answering with `handler`, as the triggers API would: a request without
/// the bearer token or the beta header gets a 401 before the handler sees it.
async fn serve(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let (sender, arrived) = mpsc::unbounded_channel();
    let handler = Arc::new(handler);
    let seen = requests.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (handler, seen, sender) = (handler.clone(), seen.clone(), sender.clone());
            tokio::spawn(async move {
                let _ = answer(stream, handler.as_ref(), &seen, &sender).await;
            });
        }
    });
    Server { base_url, requests, arrived }
}

async fn answer(
    mut stream: TcpStream,
    handler: &(dyn Fn(&Request) -> Reply + Send + Sync),
    seen: &Mutex<Vec<Request>>,
    arrived: &mpsc::UnboundedSender<Request>,
) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else { return Ok(()) };
    seen.lock().unwrap().push(request.clone());
    let _ = arrived.send(request.clone());
    let authorized = request.header("authorization") == Some(&format!("Bearer {TOKEN}"))
        && request.header("anthropic-beta") == Some("ccr-triggers-2026-01-30");
    let reply = if authorized {
        handler(&request)
    } else {
        Reply::Json(401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid token"}}"#.into())
    };
    match reply {
        Reply::Json(status, body) => {
            let head = format!(
                "HTTP/1.1 {status} Whatever\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.shutdown().await
        }
        Reply::Stall => {
            std::future::pending::<()>().await;
            Ok(())
        }
    }
}

/// The triggers API for the tests: one trigger, `trg_1`.
fn api(request: &Request) -> Reply {
    let trigger = r#"{"id":"trg_1","name":"nightly","cron_expression":"0 3 * * *"}"#;
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/v1/code/triggers") => Reply::Json(200, format!(r#"{{"data":[{trigger}],"has_more":false}}"#)),
        ("GET", "/v1/code/triggers/trg_1") => Reply::Json(200, trigger.into()),
        ("POST", "/v1/code/triggers") => {
            let mut created: Value = json_body(request);
            created["id"] = json!("trg_2");
            Reply::Json(201, created.to_string())
        }
        ("POST", "/v1/code/triggers/trg_1") => Reply::Json(200, request.text()),
        ("POST", "/v1/code/triggers/trg_1/run") => {
            Reply::Json(200, format!(r#"{{"run_id":"run_9","received":{}}}"#, request.text()))
        }
        _ => Reply::Json(
            404,
            r#"{"type":"error","error":{"type":"not_found_error","message":"Trigger not found"}}"#.into(),
        ),
    }
}

fn tool_for(base_url: &str) -> Arc<dyn Tool> {
    tool_with(RemoteTriggerConfig::new(base_url, TOKEN))
}

fn ctx() -> ToolUseContext {
    ToolUseContext::new(std::env::temp_dir())
}

async fn call(tool: &dyn Tool, input: Value) -> (String, bool) {
    let done = call_tool(tool, "toolu_1", input, &ctx()).await;
    (done.block.content.text(), done.block.is_error)
}

#[tokio::test]
async fn each_action_sends_its_request_and_shows_the_answer() {
    let server = serve(api).await;
    let tool = tool_for(&server.base_url);

    let (text, is_error) = call(tool.as_ref(), json!({"action": "list"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "HTTP 200\n{\"data\":[{\"id\":\"trg_1\",\"name\":\"nightly\",\"cron_expression\":\"0 3 * * *\"}],\"has_more\":false}"
    );
    let (text, _) = call(tool.as_ref(), json!({"action": "get", "trigger_id": "trg_1"})).await;
    assert_eq!(text, "HTTP 200\n{\"id\":\"trg_1\",\"name\":\"nightly\",\"cron_expression\":\"0 3 * * *\"}");
    let body = json!({"name": "weekly", "cron_expression": "0 9 * * 1", "job_config": {"prompt": "Triage issues"}});
    let (text, _) = call(tool.as_ref(), json!({"action": "create", "body": body})).await;
    assert_eq!(
        text,
        "HTTP 201\n{\"name\":\"weekly\",\"cron_expression\":\"0 9 * * 1\",\"job_config\":{\"prompt\":\"Triage issues\"},\"id\":\"trg_2\"}"
    );
    let (text, _) =
        call(tool.as_ref(), json!({"action": "update", "trigger_id": "trg_1", "body": {"enabled": false}})).await;
    assert_eq!(text, "HTTP 200\n{\"enabled\":false}");
    let (text, _) = call(tool.as_ref(), json!({"action": "run", "trigger_id": "trg_1"})).await;
    assert_eq!(text, "HTTP 200\n{\"run_id\":\"run_9\",\"received\":{}}");
    let (text, _) = call(tool.as_ref(), json!({"action": "run", "trigger_id": "trg_1", "body": {"note": "now"}})).await;
    assert_eq!(text, "HTTP 200\n{\"run_id\":\"run_9\",\"received\":{\"note\":\"now\"}}");

    let requests = server.requests();
    let shapes: Vec<(&str, &str)> = requests.iter().map(|r| (r.method.as_str(), r.path.as_str())).collect();
    assert_eq!(
        shapes,
        [
            ("GET", "/v1/code/triggers"),
            ("GET", "/v1/code/triggers/trg_1"),
            ("POST", "/v1/code/triggers"),
            ("POST", "/v1/code/triggers/trg_1"),
            ("POST", "/v1/code/triggers/trg_1/run"),
            ("POST", "/v1/code/triggers/trg_1/run"),
        ]
    );
    for request in &requests {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {TOKEN}").as_str()));
        assert_eq!(request.header("anthropic-beta"), Some("ccr-triggers-2026-01-30"));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert!(request.header("user-agent").unwrap().starts_with("agent-tools/"));
    }
    assert_eq!(requests[0].text(), "");
    assert_eq!(requests[1].text(), "");
    assert_eq!(json_body(&requests[2]), body);
    assert_eq!(json_body(&requests[3]), json!({"enabled": false}));
    assert_eq!(requests[4].text(), "{}");
    assert_eq!(json_body(&requests[5]), json!({"note": "now"}));
}

#[tokio::test]
async fn an_api_refusal_is_a_normal_result_with_its_status() {
    let server = serve(api).await;
    let tool = tool_for(&server.base_url);
    let done = call_tool(tool.as_ref(), "toolu_1", json!({"action": "get", "trigger_id": "trg_missing"}), &ctx()).await;
    assert!(!done.block.is_error);
    let body = r#"{"type":"error","error":{"type":"not_found_error","message":"Trigger not found"}}"#;
    assert_eq!(done.block.content.text(), format!("HTTP 404\n{body}"));
    assert_eq!(done.data.unwrap().to_json(), json!({"status": 404, "json": body}));
    // A wrong token: the API's 401, as it came.
    let wrong = tool_with(RemoteTriggerConfig::new(&server.base_url, "sk-wrong"));
    let (text, is_error) = call(wrong.as_ref(), json!({"action": "list"})).await;
    assert!(!is_error);
    assert_eq!(
        text,
        "HTTP 401\n{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid token\"}}"
    );
}

#[tokio::test]
async fn the_body_is_shown_as_the_server_sent_it() {
    let server = serve(|_| Reply::Json(200, "{\n  \"data\": [],\n  \"has_more\": false\n}\n".into())).await;
    let (text, _) = call(tool_for(&server.base_url).as_ref(), json!({"action": "list"})).await;
    assert_eq!(text, "HTTP 200\n{\n  \"data\": [],\n  \"has_more\": false\n}\n");
    let server = serve(|_| Reply::Json(204, String::new())).await;
    let (text, is_error) = call(tool_for(&server.base_url).as_ref(), json!({"action": "run", "trigger_id": "t"})).await;
    assert_eq!((text.as_str(), is_error), ("HTTP 204\n", false));
}

#[tokio::test]
async fn a_base_url_with_a_path_keeps_it() {
    let server = serve(|request| Reply::Json(200, format!("{{\"path\":\"{}\"}}", request.path))).await;
    let tool = tool_for(&format!("{}/api/", server.base_url));
    let (text, _) = call(tool.as_ref(), json!({"action": "get", "trigger_id": "abc"})).await;
    assert_eq!(text, "HTTP 200\n{\"path\":\"/api/v1/code/triggers/abc\"}");
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let server = serve(api).await;
    let tool = tool_for(&server.base_url);
    let cases = [
        (json!({"action": "get"}), r#"trigger_id is required for the "get" action"#),
        (json!({"action": "update", "body": {"a": 1}}), r#"trigger_id is required for the "update" action"#),
        (json!({"action": "run", "trigger_id": ""}), r#"trigger_id is required for the "run" action"#),
        (
            json!({"action": "get", "trigger_id": "../../v1/files"}),
            r#"Invalid trigger_id "../../v1/files": use only letters, digits, "_" and "-""#,
        ),
        (
            json!({"action": "run", "trigger_id": "trg_1?force=1"}),
            r#"Invalid trigger_id "trg_1?force=1": use only letters, digits, "_" and "-""#,
        ),
        (json!({"action": "create"}), r#"body is required for the "create" action"#),
        (json!({"action": "update", "trigger_id": "trg_1"}), r#"body is required for the "update" action"#),
    ];
    for (input, message) in cases {
        let (text, is_error) = call(tool.as_ref(), input.clone()).await;
        assert!(is_error, "{input}");
        assert_eq!(text, format!("<tool_use_error>{message}</tool_use_error>"), "{input}");
    }
    let (text, _) = call(tool.as_ref(), json!({"action": "delete", "trigger_id": "trg_1"})).await;
    assert!(text.starts_with("<tool_use_error>InputValidationError: "), "{text}");
    let (text, _) = call(tool.as_ref(), json!({"action": "create", "body": "[1]"})).await;
    assert!(text.starts_with("<tool_use_error>InputValidationError: "), "{text}");
    let (text, _) = call(tool.as_ref(), json!({"action": "list", "force": true})).await;
    assert!(text.contains("An unexpected parameter `force` was provided"), "{text}");
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let mut server = serve(|_| Reply::Stall).await;
    let mut config = RemoteTriggerConfig::new(&server.base_url, TOKEN);
    config.timeout = Duration::from_millis(300);
    let tool = tool_with(config);
    let (text, is_error) = call(tool.as_ref(), json!({"action": "run", "trigger_id": "trg_1"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!("RemoteTrigger request timed out after 300 ms: POST {}/v1/code/triggers/trg_1/run", server.base_url)
    );
    // It was sent, and got no answer.
    assert_eq!(server.arrived.recv().await.unwrap().path, "/v1/code/triggers/trg_1/run");
}

#[tokio::test]
async fn cancelling_the_call_ends_the_request_at_once() {
    let mut server = serve(|_| Reply::Stall).await;
    let tool = tool_for(&server.base_url); // the 20-second default: only the cancel ends it
    let ctx = ctx();
    let calling = call_tool(tool.as_ref(), "toolu_1", json!({"action": "list"}), &ctx);
    let cancelling = async {
        let request = server.arrived.recv().await.unwrap();
        ctx.cancel.cancel();
        request
    };
    let started = std::time::Instant::now();
    let (done, request) = tokio::join!(calling, cancelling);
    assert!(started.elapsed() < Duration::from_secs(10), "ended by the cancel, not the timeout");
    assert_eq!(request.path, "/v1/code/triggers");
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "[Request interrupted by user for tool use]");
}

#[tokio::test]
async fn a_refused_connection_is_an_error_result() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let tool = tool_for(&format!("http://127.0.0.1:{port}"));
    let (text, is_error) = call(tool.as_ref(), json!({"action": "list"})).await;
    assert!(is_error);
    let prefix =
        format!("RemoteTrigger request failed: GET http://127.0.0.1:{port}/v1/code/triggers: could not connect: ");
    assert!(text.starts_with(&prefix), "{text}");
    assert!(!text.contains(TOKEN));
}

#[tokio::test]
async fn the_config_is_checked_and_its_token_never_shown() {
    let config = RemoteTriggerConfig::new("https://api.anthropic.com", TOKEN);
    let shown = format!("{config:?}");
    assert_eq!(
        shown,
        "RemoteTriggerConfig { base_url: \"https://api.anthropic.com\", token: <redacted>, timeout: 20s }"
    );
    assert!(!format!("{config:#?}").contains(TOKEN));
    assert!(tool_with(config.clone()).is_enabled());
    assert!(!format!("{:?}", tool_with(config)).contains(TOKEN));
    assert!(format!("{:?}", RemoteTriggerConfig::default()).contains("token: <none>"));

    // Plain http only to this machine; no token, no tool.
    let insecure = tool_with(RemoteTriggerConfig::new("http://api.example.com", TOKEN));
    assert!(!insecure.is_enabled());
    let (text, is_error) = call(insecure.as_ref(), json!({"action": "list"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        "RemoteTrigger is not configured: the base URL \"http://api.example.com\" must start with https:// \
         (http:// is allowed only for localhost and loopback addresses)"
    );
    let tokenless = tool_with(RemoteTriggerConfig::new("https://api.anthropic.com", ""));
    assert!(!tokenless.is_enabled());
    let (text, _) = call(tokenless.as_ref(), json!({"action": "list"})).await;
    assert_eq!(text, "RemoteTrigger is not configured: there is no access token for the triggers API");
    // A token that cannot go into a header is refused without being shown.
    let server = serve(api).await;
    let broken = tool_with(RemoteTriggerConfig::new(&server.base_url, "sk-line\nbreak"));
    let (text, is_error) = call(broken.as_ref(), json!({"action": "list"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "RemoteTrigger request failed: GET {}/v1/code/triggers: the access token holds characters that cannot be sent in an HTTP header",
            server.base_url
        )
    );
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn contract_members_match_claude_code() {
    let tool = tool_for("https://api.anthropic.com");
    assert_eq!(tool.name(), "RemoteTrigger");
    assert_eq!(agent_tool_remote_trigger::NAME, "RemoteTrigger");
    assert!(tool.should_defer());
    let flags = tool.flags();
    assert!(!flags.read_only && flags.concurrency_safe && !flags.destructive && flags.open_world);
    for (input, read_only) in [
        (json!({"action": "list"}), true),
        (json!({"action": "get", "trigger_id": "t"}), true),
        (json!({"action": "create", "body": {}}), false),
        (json!({"action": "update", "trigger_id": "t", "body": {}}), false),
        (json!({"action": "run", "trigger_id": "t"}), false),
    ] {
        let parsed = tool.parse(input.clone()).unwrap();
        assert_eq!(tool.is_read_only(&parsed), read_only, "{input}");
        assert!(tool.is_concurrency_safe(&parsed));
        // Reads are allowed; a change on the user's cloud account asks (Claude Code allows it).
        let decision = tool.check_permissions(&parsed, &ctx()).await;
        if read_only {
            assert_eq!(decision, PermissionResult::allow(), "{input}");
        } else {
            assert!(matches!(decision, PermissionResult::Ask { .. }), "{input}: {decision:?}");
        }
    }
    let run = tool.parse(json!({"action": "run", "trigger_id": "t1"})).unwrap();
    assert_eq!(tool.check_permissions(&run, &ctx()).await.message(), Some("Run trigger t1 (RemoteTrigger)"));
    let schema = tool.input_schema();
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["action"]));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["action", "trigger_id", "body"]);
    assert_eq!(properties["action"]["enum"], json!(["list", "get", "create", "update", "run"]));
    assert_eq!(properties["trigger_id"]["type"], json!("string"));
    assert_eq!(properties["body"]["type"], json!("object"));
    let parsed = tool.parse(json!({"action": "run", "trigger_id": "trg_1"})).unwrap();
    assert_eq!(tool.summary(&parsed), "Run trigger trg_1");
}
