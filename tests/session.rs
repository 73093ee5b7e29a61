//! An embedder's `Session` with a real MCP server: `agent-tools serve` (this workspace's binary)
//! named in an MCP config joins the pool as `mcp__<server>__<tool>`, its tools answer calls
//! through the session, and `shutdown` ends the server process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_core::PermissionMode;
use agent_tools_core::ToolUseBlock;
use agent_tools_host::{CallOptions, Environment, Session};
use agent_tools_testkit::procs::{ended, eventually};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_agent-tools-under-test");

#[tokio::test]
async fn an_mcp_server_of_the_session_serves_calls_and_ends_with_shutdown() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let pid_file = project.path().join("inner.pid");
    let script = format!("echo $$ > '{}'; exec '{BIN}' --cwd '{}' serve", pid_file.display(), project.path().display());
    let config = json!({"mcpServers": {"inner": {"command": "sh", "args": ["-c", script]}}}).to_string();
    let session = Session::builder(project.path())
        .environment(Environment::empty().with("HOME", home.path()).with("PATH", "/usr/bin:/bin"))
        .permission_mode(Some(PermissionMode::BypassPermissions))
        .mcp_config(config)
        .build()
        .await
        .unwrap();
    assert!(session.mcp().failures().is_empty(), "{:?}", session.mcp().failures());
    let pool = session.pool();
    let names: Vec<&str> = pool.iter().map(|tool| tool.name()).collect();
    assert!(names.contains(&"mcp__inner__Read") && names.contains(&"Read"), "{names:?}");

    let notes = project.path().join("notes.txt");
    let call =
        ToolUseBlock { id: "toolu_mcp".into(), name: "mcp__inner__Read".into(), input: json!({"file_path": notes}) };
    let done = session.call(&call, CallOptions::default()).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    // The server's `structuredContent` is what an MCP tool's result shows (as Claude Code shows it).
    let shown: serde_json::Value = serde_json::from_str(&done.block.content.text()).unwrap();
    assert_eq!(shown["file"]["content"], "alpha\nbeta\n");

    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    session.shutdown().await;
    assert!(eventually(Duration::from_secs(10), || ended(pid)).await, "the MCP server {pid} outlived the session");
}

/// A settings file decides the sandbox and the permission mode: even in bypass mode, Config may
/// not change one without the user (here nobody can be asked, so it is refused and the file is
/// untouched), as a Write to the file would not.
#[tokio::test]
async fn config_changes_are_asked_even_in_bypass_mode() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, r#"{"sandbox": {"enabled": true}}"#).unwrap();
    let session = Session::builder(project.path())
        .environment(Environment::empty().with("HOME", home.path()).with("PATH", "/usr/bin:/bin"))
        .permission_mode(Some(PermissionMode::BypassPermissions))
        .workspace_trust(agent_tools_host::WorkspaceTrust::Trusted)
        .build()
        .await
        .unwrap();
    let local = project.path().join(".claude/settings.local.json");
    for (setting, value) in [("sandbox.enabled", json!(false)), ("permissions.defaultMode", json!("acceptEdits"))] {
        let call = ToolUseBlock {
            id: "toolu_cfg".into(),
            name: "Config".into(),
            input: json!({"setting": setting, "value": value}),
        };
        let done = session.call(&call, CallOptions::default()).await;
        assert!(done.block.is_error, "{setting}: {}", done.block.content.text());
        assert!(done.permission_denied, "{setting}");
    }
    assert_eq!(std::fs::read_to_string(&user).unwrap(), r#"{"sandbox": {"enabled": true}}"#);
    assert!(!local.exists());
    // Reading needs no one.
    let get =
        ToolUseBlock { id: "toolu_get".into(), name: "Config".into(), input: json!({"setting": "sandbox.enabled"}) };
    let done = session.call(&get, CallOptions::default()).await;
    assert_eq!(done.block.content.text(), "sandbox.enabled = true");
    session.shutdown().await;
}
