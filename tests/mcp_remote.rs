//! `agent-tools serve` as the MCP client of a remote server that needs OAuth — the real local
//! fixture from `agent-tools-mcp-oauth` (an authorization server and a protected Streamable
//! HTTP MCP server on 127.0.0.1). Its client (this test) sees `mcp__docs__authenticate` in place
//! of the server's tools; the call gives the sign-in URL; after the user's browser visit the
//! client is told `notifications/tools/list_changed`, and the server's tool is listed and works.
//! The tokens land in the Claude config folder, readable by the owner only.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt as _;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::Notify;

const BIN: &str = env!("CARGO_BIN_EXE_agent-tools-under-test");

/// A client that counts `notifications/tools/list_changed`, and (when `user` is set) shows
/// forms: it answers `{"name": "Ada"}` and keeps each form's message.
#[derive(Clone, Default)]
struct Watcher {
    changed: Arc<Notify>,
    user: Option<Arc<std::sync::Mutex<Vec<String>>>>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline));
        };
        if let Some(user) = &self.user {
            user.lock().unwrap().push(message);
        }
        let mut answer = rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept);
        answer.content = Some(json!({"name": "Ada"}));
        Ok(answer)
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        if self.user.is_some() {
            capabilities = rmcp::model::ClientCapabilities::builder().enable_elicitation().build();
        }
        rmcp::model::ClientConfig::new(capabilities, rmcp::model::Implementation::new("watcher", "1"))
    }
}

async fn names(client: &RunningService<RoleClient, Watcher>) -> Vec<String> {
    client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.into_owned()).collect()
}

async fn call(client: &RunningService<RoleClient, Watcher>, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    client.peer().call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|block| block.as_text().map(|text| text.text.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_that_needs_oauth_is_signed_in_through_serve_and_its_tools_arrive() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config_dir = dir.path().join(".claude");
    let servers = json!({"mcpServers": {"docs": {"type": "http", "url": fixture.mcp_url()}}}).to_string();
    let mut command = tokio::process::Command::new(BIN);
    command
        .env("HOME", dir.path().join(".home"))
        .env("XDG_STATE_HOME", dir.path().join(".state"))
        .env("CLAUDE_CONFIG_DIR", &config_dir)
        .env_remove("MCP_TIMEOUT")
        .arg("--cwd")
        .arg(dir.path())
        .args(["--mcp-config", &servers, "serve"]);
    let watcher = Watcher::default();
    let client = watcher.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();

    let before = names(&client).await;
    assert!(before.contains(&"mcp__docs__authenticate".to_owned()), "{before:?}");
    assert!(!before.contains(&"mcp__docs__echo".to_owned()), "{before:?}");

    let started = call(&client, "mcp__docs__authenticate", json!({})).await;
    assert_eq!(started.is_error, Some(false), "{}", text(&started));
    let output = started.structured_content.clone().unwrap();
    assert_eq!(output["status"], "auth_url", "{output}");
    let url = output["authUrl"].as_str().unwrap().to_owned();
    assert!(text(&started).contains(&url));

    assert_eq!(browse(&url).await.unwrap().status, 200);
    tokio::time::timeout(Duration::from_secs(10), watcher.changed.notified()).await.expect("tools/list_changed");
    let after = names(&client).await;
    assert!(after.contains(&"mcp__docs__echo".to_owned()), "{after:?}");
    assert!(!after.contains(&"mcp__docs__authenticate".to_owned()), "{after:?}");
    let echoed = call(&client, "mcp__docs__echo", json!({"text": "over oauth"})).await;
    assert_eq!(text(&echoed), "echo: over oauth");

    // The token file, and beside it the lock refreshes take across processes; both private.
    let entries: Vec<_> =
        std::fs::read_dir(config_dir.join("mcp-oauth")).unwrap().map(|entry| entry.unwrap()).collect();
    let (locks, tokens): (Vec<_>, Vec<_>) =
        entries.iter().partition(|entry| entry.file_name().to_string_lossy().ends_with(".lock"));
    assert_eq!((tokens.len(), locks.len()), (1, 1), "{entries:?}");
    for entry in &entries {
        assert_eq!(entry.metadata().unwrap().permissions().mode() & 0o777, 0o600, "{entry:?}");
    }
    assert_eq!(std::fs::metadata(config_dir.join("mcp-oauth")).unwrap().permissions().mode() & 0o777, 0o700);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_servers_question_goes_on_to_the_user_of_serves_client() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/cli/tests/fixtures/sampling_server.py");
    let servers = json!({"mcpServers": {"s": {"command": "python3", "args": [script]}}}).to_string();
    let start = |watcher: Watcher| {
        let mut command = tokio::process::Command::new(BIN);
        command
            .env("HOME", dir.path().join(".home"))
            .env("XDG_STATE_HOME", dir.path().join(".state"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .arg("--cwd")
            .arg(dir.path())
            .args(["--mcp-config", &servers, "serve"]);
        watcher.serve(TokioChildProcess::new(command).unwrap())
    };

    // A client that shows forms: the server's question reaches its user, named, and the answer
    // goes back to the server.
    let user = Arc::new(std::sync::Mutex::new(Vec::new()));
    let client = start(Watcher { user: Some(Arc::clone(&user)), ..Watcher::default() }).await.unwrap();
    let asked = call(&client, "mcp__s__elicit", json!({})).await;
    assert_eq!(text(&asked), r#"user said: {"action": "accept", "content": {"name": "Ada"}}"#);
    assert_eq!(user.lock().unwrap().as_slice(), [r#"The MCP server "s" asks: Your name?"#]);
    client.cancel().await.unwrap();

    // A client that cannot show forms: the server is declined.
    let client = start(Watcher::default()).await.unwrap();
    let asked = call(&client, "mcp__s__elicit", json!({})).await;
    assert_eq!(text(&asked), r#"user said: {"action": "decline", "content": null}"#);
    client.cancel().await.unwrap();
}
