//! The `agent-tools` binary, run as a child process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The program with a clean environment: no user settings, no state outside the test folder.
fn command(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command.env("HOME", cwd.join(".home")).env("XDG_STATE_HOME", cwd.join(".state")).arg("--cwd").arg(cwd);
    command
}

fn agent_tools(cwd: &Path, args: &[&str]) -> Output {
    command(cwd).args(args).output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "first\nsecond needle\nthird\n").unwrap();
    dir
}

#[test]
fn list_prints_one_line_per_tool_with_its_flags() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["list"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let names: Vec<&str> = text.lines().map(|line| line.split_whitespace().next().unwrap()).collect();
    // Sorted by name, the way the pool is assembled; every tool once.
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted);
    for expected in ["Glob", "Grep", "Read"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let json: Value = serde_json::from_str(&stdout(&agent_tools(dir.path(), &["list", "--json"]))).unwrap();
    assert_eq!(json.as_array().unwrap().len(), names.len());
    let read = text.lines().find(|line| line.starts_with("Read")).unwrap();
    assert!(read.contains("read-only") && read.contains("concurrent"), "{read}");
}

#[test]
fn list_json_is_the_messages_api_tools_array() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["list", "--json"]);
    assert!(output.status.success());
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let tools = tools.as_array().unwrap();
    assert!(tools.len() >= 3);
    for tool in tools {
        let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "description", "input_schema"]);
        assert_eq!(tool["input_schema"]["type"], "object");
        assert_eq!(tool["input_schema"]["additionalProperties"], false);
        assert!(tool["description"].as_str().unwrap().len() > 100);
    }
}

#[test]
fn call_prints_the_result_and_exits_1_on_an_error_result() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["call", "Read", r#"{"file_path": "notes.txt", "limit": 2}"#]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "1\tfirst\n2\tsecond needle\n");

    let output = agent_tools(dir.path(), &["call", "Grep", r#"{"pattern": "needle", "output_mode": "content"}"#]);
    assert_eq!(stdout(&output), "notes.txt:2:second needle\n");

    let output = agent_tools(dir.path(), &["call", "Read", r#"{"file_path": "missing.txt"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        format!(
            "File does not exist. Note: your current working directory is {}.\n",
            dir.path().canonicalize().unwrap().display()
        )
    );

    let output = agent_tools(dir.path(), &["call", "Read", "{not json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid JSON"));
}

#[test]
fn run_answers_a_turn_from_a_file_or_stdin() {
    let dir = fixture();
    let turn = r#"{"role": "assistant", "content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}},
        {"type": "tool_use", "id": "toolu_b", "name": "Nope", "input": {}}
    ]}"#;
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let expected: Value = serde_json::json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "notes.txt"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "<tool_use_error>Error: No such tool available: Nope</tool_use_error>", "is_error": true}
    ]});
    let output = agent_tools(dir.path(), &["run", file.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(serde_json::from_str::<Value>(&stdout(&output)).unwrap(), expected);

    let mut child =
        command(dir.path()).args(["run", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    // A bare array of tool_use blocks works too.
    let bare = r#"[{"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}},
                   {"type": "tool_use", "id": "toolu_b", "name": "Nope", "input": {}}]"#;
    child.stdin.take().unwrap().write_all(bare.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(serde_json::from_str::<Value>(&stdout(&output)).unwrap(), expected);
}

#[test]
fn a_bad_cwd_is_a_usage_error() {
    let dir = fixture();
    let output = agent_tools(&dir.path().join("nope"), &["list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--cwd"));
}

#[test]
fn a_disallowed_tool_is_gone_and_says_why() {
    let dir = fixture();
    let listed = stdout(&agent_tools(dir.path(), &["--disallowed-tools", "Bash", "list"]));
    assert!(!listed.lines().any(|line| line.starts_with("Bash ")), "{listed}");
    let output = agent_tools(dir.path(), &["--disallowed-tools", "Bash", "call", "Bash", r#"{"command": "echo hi"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session by a permission rule.</tool_use_error>\n"
    );
}

#[test]
fn project_settings_hooks_run_around_calls() {
    let dir = fixture();
    fs::create_dir_all(dir.path().join(".claude")).unwrap();
    fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"model": "whatever", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let output = agent_tools(
        dir.path(),
        &["--permission-mode", "bypassPermissions", "call", "Bash", r#"{"command": "echo hi"}"#],
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "PreToolUse:Bash hook error: [echo 'no shell today' >&2; exit 2]: no shell today\n\n");
    // --no-settings leaves the project's file out.
    let output = agent_tools(
        dir.path(),
        &["--no-settings", "--permission-mode", "bypassPermissions", "call", "Bash", r#"{"command": "echo hi"}"#],
    );
    assert_eq!(stdout(&output), "hi\n");
}

#[test]
fn broken_settings_and_unknown_modes_are_usage_errors() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["--permission-mode", "yolo", "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown mode \"yolo\""));
    let output = agent_tools(dir.path(), &["--settings", "{not json", "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--settings is not valid settings JSON"));
}

#[test]
fn run_stream_prints_json_lines() {
    let dir = fixture();
    let turn = r#"[{"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}}]"#;
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let output = agent_tools(dir.path(), &["run", "--stream", file.to_str().unwrap()]);
    assert!(output.status.success());
    let lines: Vec<Value> = stdout(&output).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "tool_result");
    assert_eq!(lines[0]["block"]["content"], "notes.txt");
    assert_eq!(lines[1]["type"], "message");
    assert_eq!(lines[1]["message"]["content"][0]["tool_use_id"], "toolu_a");
}
