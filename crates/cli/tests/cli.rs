//! The `agent-tools` binary, run as a child process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn agent_tools(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-tools")).arg("--cwd").arg(cwd).args(args).output().unwrap()
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

    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--cwd")
        .arg(dir.path())
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
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
