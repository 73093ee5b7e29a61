//! `agent-tools mcp-login SERVER` against the real local OAuth fixture (an authorization server
//! and a protected MCP server on 127.0.0.1): it prints the URL, the "browser" visits it, the
//! command ends signed in, and a later `call` reaches the server's tool with the stored tokens.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use agent_tools_mcp_oauth::fixture::{Fixture, FixtureOptions, browse};
use serde_json::json;

fn command(dir: &Path, config: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .current_dir(dir)
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("CLAUDE_CONFIG_DIR", dir.join(".claude"))
        .args(["--mcp-config", config]);
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_login_signs_in_and_later_runs_use_the_stored_tokens() {
    let fixture = Fixture::start(FixtureOptions::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"docs": {"type": "http", "url": fixture.mcp_url()}}}).to_string();

    let mut login = command(dir.path(), &config)
        .args(["mcp-login", "docs"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(login.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("mcp-login printed no URL").unwrap();
        if line.starts_with("http://") {
            break line;
        }
    };
    assert!(url.starts_with(&format!("{}/authorize?", fixture.issuer())), "{url}");
    assert_eq!(browse(&url).await.unwrap().status, 200);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = login.wait().unwrap();
    assert!(status.success(), "{rest:?}");
    assert!(rest.iter().any(|line| line.contains("Signed in to MCP server \"docs\"")), "{rest:?}");

    let called = command(dir.path(), &config)
        .args(["--allowed-tools", "mcp__docs", "call", "mcp__docs__echo", r#"{"text": "stored"}"#])
        .output()
        .unwrap();
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));
    assert_eq!(String::from_utf8_lossy(&called.stdout).trim(), "echo: stored");
    assert_eq!(fixture.code_grants(), 1, "no second sign-in");

    // A server that needs no sign-in, and one that is not configured.
    let again = command(dir.path(), &config).args(["mcp-login", "docs"]).output().unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("needs no sign-in"));
    let unknown = command(dir.path(), &config).args(["mcp-login", "nope"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no server of that name is configured"));
}
