//! `agent-tools` as an MCP *client*: the program started with `--mcp-config` (or a project
//! `.mcp.json`) naming another `agent-tools serve` as a stdio server. Covers the pool (`list`),
//! permissions on the proxied tools, failing servers, `serve` re-exporting them, and that no
//! server process outlives the command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_agent-tools-under-test");

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    dir
}

/// A config naming `agent-tools serve` (in `cwd`) as the server `name`; the server writes its
/// process id to `<cwd>/<name>.pid` first, so tests can check that it is gone afterwards.
fn config(name: &str, cwd: &Path) -> String {
    let pid_file = cwd.join(format!("{}.pid", name.replace(' ', "_")));
    let script = format!("echo $$ > '{}'; exec '{BIN}' --cwd '{}' serve", pid_file.display(), cwd.display());
    json!({"mcpServers": {name: {"command": "sh", "args": ["-c", script]}}}).to_string()
}

fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .env("HOME", cwd.join(".home"))
        .env("XDG_STATE_HOME", cwd.join(".state"))
        .env("XDG_CONFIG_HOME", cwd.join(".home/.config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("MCP_TIMEOUT")
        .env_remove("MCP_TOOL_TIMEOUT")
        .env_remove("MAX_MCP_OUTPUT_TOKENS")
        .env_remove("AGENT_TOOLS_MCP_DEPTH")
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn names(listing: &str) -> Vec<String> {
    listing.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect()
}

#[cfg(target_os = "linux")]
fn assert_server_gone(cwd: &Path, name: &str) {
    let pid = std::fs::read_to_string(cwd.join(format!("{name}.pid"))).unwrap();
    assert!(!Path::new("/proc").join(pid.trim()).exists(), "server {name} (pid {}) outlived the command", pid.trim());
}

#[cfg(not(target_os = "linux"))]
fn assert_server_gone(_cwd: &Path, _name: &str) {}

#[test]
fn the_servers_tools_join_the_pool_with_normalised_names_and_verbatim_schemas() {
    let dir = fixture();
    let cfg = config("my server", dir.path());
    let listed = run(dir.path(), &["--mcp-config", &cfg, "list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let names = names(&stdout(&listed));
    assert!(names.contains(&"Read".to_owned()));
    assert!(names.contains(&"mcp__my_server__Read".to_owned()), "{names:?}");
    assert!(names.contains(&"mcp__my_server__Bash".to_owned()));
    // Built-ins first, then MCP tools, each sorted by name.
    let first_mcp = names.iter().position(|name| name.starts_with("mcp__")).unwrap();
    assert!(names[first_mcp..].iter().all(|name| name.starts_with("mcp__")));
    assert!(names[first_mcp..].windows(2).all(|pair| pair[0] <= pair[1]));
    let read_line = stdout(&listed).lines().find(|line| line.starts_with("mcp__my_server__Read ")).unwrap().to_owned();
    assert!(read_line.contains("read-only") && read_line.contains("concurrent"), "{read_line}");
    assert_server_gone(dir.path(), "my_server");

    let api = run(dir.path(), &["--mcp-config", &cfg, "list", "--json"]);
    let tools: Vec<Value> = serde_json::from_str(&stdout(&api)).unwrap();
    let schema = |name: &str| tools.iter().find(|tool| tool["name"] == name).unwrap()["input_schema"].clone();
    assert_eq!(schema("mcp__my_server__Grep"), schema("Grep"), "the server's schema is passed on verbatim");
}

#[test]
fn permissions_ask_by_default_and_server_rules_allow_or_remove() {
    let dir = fixture();
    let cfg = config("srv", dir.path());
    let input = json!({"file_path": dir.path().join("notes.txt")}).to_string();

    let asked = run(dir.path(), &["--mcp-config", &cfg, "call", "mcp__srv__Read", &input]);
    assert_eq!(asked.status.code(), Some(1));
    assert!(stdout(&asked).contains("mcp__srv__Read needs approval"), "{}", stdout(&asked));

    for rule in ["mcp__srv", "mcp__srv__*", "mcp__srv__Read"] {
        let allowed =
            run(dir.path(), &["--mcp-config", &cfg, "--allowed-tools", rule, "call", "mcp__srv__Read", &input]);
        assert_eq!(allowed.status.code(), Some(0), "{rule}: {}", stdout(&allowed));
        // structuredContent wins over the text content, as in Claude Code.
        let result: Value = serde_json::from_str(stdout(&allowed).trim()).unwrap();
        assert_eq!(result["file"]["content"], "alpha\nbeta\n", "{rule}");
    }
    let other =
        run(dir.path(), &["--mcp-config", &cfg, "--allowed-tools", "mcp__srv__Grep", "call", "mcp__srv__Read", &input]);
    assert_eq!(other.status.code(), Some(1));

    let denied = run(dir.path(), &["--mcp-config", &cfg, "--disallowed-tools", "mcp__srv", "list"]);
    assert!(names(&stdout(&denied)).iter().all(|name| !name.starts_with("mcp__")));
    let one = run(dir.path(), &["--mcp-config", &cfg, "--disallowed-tools", "mcp__srv__Bash", "list"]);
    let names = names(&stdout(&one));
    assert!(!names.contains(&"mcp__srv__Bash".to_owned()) && names.contains(&"mcp__srv__Read".to_owned()));
    assert_server_gone(dir.path(), "srv");
}

#[test]
fn a_server_error_result_is_an_error_for_the_client_too() {
    let dir = fixture();
    let cfg = config("srv", dir.path());
    let input = json!({"file_path": dir.path().join("missing.txt")}).to_string();
    let done =
        run(dir.path(), &["--mcp-config", &cfg, "--allowed-tools", "mcp__srv", "call", "mcp__srv__Read", &input]);
    assert_eq!(done.status.code(), Some(1));
    assert!(stdout(&done).contains("File does not exist"), "{}", stdout(&done));
}

#[test]
fn failing_and_unsupported_servers_are_reported_and_skipped() {
    let dir = fixture();
    let cfg = json!({"mcpServers": {
        "gone": {"command": "/nonexistent/mcp-server"},
        "quits": {"command": "sh", "args": ["-c", "exit 3"]},
        "web": {"type": "ws", "url": "wss://example.com/ws"}
    }})
    .to_string();
    let listed = run(dir.path(), &["--mcp-config", &cfg, "--mcp-config", &config("ok", dir.path()), "list"]);
    assert!(listed.status.success());
    let err = stderr(&listed);
    assert!(err.contains("MCP server \"gone\" skipped: cannot start `/nonexistent/mcp-server`"), "{err}");
    assert!(err.contains("MCP server \"quits\" skipped: the server did not initialise"), "{err}");
    assert!(err.contains("MCP server \"web\" skipped: transport type \"ws\" is not supported"), "{err}");
    assert!(names(&stdout(&listed)).contains(&"mcp__ok__Read".to_owned()));

    let broken = run(dir.path(), &["--mcp-config", "{not json", "list"]);
    assert_eq!(broken.status.code(), Some(2));
    assert!(stderr(&broken).contains("MCP config --mcp-config is not valid JSON"), "{}", stderr(&broken));
}

#[test]
fn the_project_mcp_json_is_read_in_a_trusted_folder_unless_settings_or_it_are_turned_off() {
    let dir = fixture();
    std::fs::write(dir.path().join(".mcp.json"), config("proj", dir.path())).unwrap();
    let has_proj = |args: &[&str]| names(&stdout(&run(dir.path(), args))).contains(&"mcp__proj__Read".to_owned());
    assert!(!has_proj(&["list"]), "a folder nobody trusted yet starts none of its servers");
    assert!(!dir.path().join("proj.pid").exists());
    assert!(has_proj(&["--trust-workspace", "list"]));
    assert!(!has_proj(&["--trust-workspace", "--no-settings", "list"]));
    assert!(!has_proj(&["--trust-workspace", "--strict-mcp-config", "list"]));
    // A program started as a server by agent-tools does not read `.mcp.json` (or the project
    // above, whose server is agent-tools in the same folder, would start itself without end).
    let nested = Command::new(BIN)
        .env("HOME", dir.path().join(".home"))
        .env("AGENT_TOOLS_MCP_DEPTH", "1")
        .arg("--cwd")
        .arg(dir.path())
        .arg("--trust-workspace")
        .arg("list")
        .output()
        .unwrap();
    assert!(!names(&stdout(&nested)).contains(&"mcp__proj__Read".to_owned()));
    std::fs::write(dir.path().join(".mcp.json"), "{oops").unwrap();
    let broken = run(dir.path(), &["list"]);
    assert!(broken.status.success());
    assert!(stderr(&broken).contains(".mcp.json is not valid JSON"), "{}", stderr(&broken));
}

#[tokio::test]
async fn serve_re_exports_the_servers_tools() {
    let dir = fixture();
    let mut command = tokio::process::Command::new(BIN);
    command.env("HOME", dir.path().join(".home")).env("XDG_STATE_HOME", dir.path().join(".state"));
    command.arg("--cwd").arg(dir.path()).arg("--mcp-config").arg(config("inner", dir.path())).arg("serve");
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let read = tools.iter().find(|tool| tool.name == "mcp__inner__Read").expect("the proxied Read is listed");
    assert_eq!(read.annotations.as_ref().unwrap().read_only_hint, Some(true));
    let args = json!({"file_path": dir.path().join("notes.txt")});
    let Value::Object(args) = args else { unreachable!() };
    let result = client.call_tool(CallToolRequestParams::new("mcp__inner__Read").with_arguments(args)).await.unwrap();
    assert_ne!(result.is_error, Some(true));
    assert_eq!(result.structured_content.as_ref().unwrap()["file"]["content"], "alpha\nbeta\n");
    let text: String = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect();
    assert!(text.contains("alpha"), "{text}");
    client.cancel().await.unwrap();
    // The outer server ends its own server when its client goes away.
    let pid = std::fs::read_to_string(dir.path().join("inner.pid")).unwrap();
    let proc_dir = Path::new("/proc").join(pid.trim());
    agent_tools_testkit::eventually(std::time::Duration::from_secs(5), || !proc_dir.exists()).await;
    assert_server_gone(dir.path(), "inner");
}
