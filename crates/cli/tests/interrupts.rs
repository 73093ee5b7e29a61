//! Issue 31: an interrupt stops a running command, whichever way the user gives it — SIGINT to
//! `agent -p`, the Agent SDKs' `interrupt` control request over stream-json, Ctrl-C in the chat.
//! Each test runs the binary against the scripted fake Messages API with a Bash call whose
//! command would touch `late.txt` after a long sleep; the interrupt must kill the command's whole
//! tree (found by a token in its arguments) so `late.txt` never appears, and end the run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use agent_tools_testkit::fake_api::{FakeApi, Reply};
use agent_tools_testkit::procs::{Reaper, carrying, eventually_blocking, unique_token};
use serde_json::{Value, json};

/// A project with a fake model whose first answer is the Bash call, and whose later answers say
/// `Stopped.`; the token the command's processes carry, and the files it touches.
struct Scene {
    dir: tempfile::TempDir,
    api: FakeApi,
    token: String,
    _reaper: Reaper,
    started: PathBuf,
    late: PathBuf,
}

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let token = unique_token();
        let (started, late) = (root.join("started"), root.join("late.txt"));
        // A background child that ignores SIGTERM too: only killing the tree stops it.
        let command = format!(
            "touch {s}; (trap '' TERM; sleep 3002.{token}; touch {l}) & sleep 3001.{token}; touch {l}",
            s = started.display(),
            l = late.display()
        );
        let api = FakeApi::start(move |request| match request.assistant_turns() {
            0 => Reply::tool_use("toolu_1", "Bash", json!({"command": command, "description": "wait"})),
            _ => Reply::text("Stopped."),
        });
        Self { dir, api, _reaper: Reaper(token.clone()), token, started, late }
    }

    fn command(&self) -> Command {
        let mut command = common::agent_command(self.dir.path(), &self.api.base_url());
        command.args(["agent", "--trust-workspace", "--dangerously-skip-permissions"]);
        command
    }

    /// Waits until the command runs: its marker file exists and both sleeps carry the token.
    fn wait_until_running(&self) {
        assert!(
            eventually_blocking(Duration::from_secs(30), || self.started.exists() && carrying(&self.token).len() >= 2),
            "the command never ran"
        );
    }

    /// The command's whole tree is gone (nothing carries the token) and `late.txt` was never
    /// made — and cannot be, since whatever would make it is dead.
    fn assert_stopped(&self) {
        assert_eq!(carrying(&self.token), Vec::<i32>::new(), "a process of the command outlived the interrupt");
        assert!(!self.late.exists(), "the interrupted command went on");
        assert_eq!(self.api.requests().len(), 1, "the interrupted round was not sent to the model");
    }
}

fn result_line(stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    let line = text.lines().rev().find(|line| line.contains("\"type\":\"result\"")).unwrap_or_else(|| panic!("{text}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn sigint_to_agent_print_kills_the_running_command_and_ends_the_run() {
    let scene = Scene::new();
    let child = scene
        .command()
        .args(["-p", "wait a while", "--output-format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    scene.wait_until_running();
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    scene.assert_stopped();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let result = result_line(&output.stdout);
    assert_eq!(
        (result["subtype"].as_str(), result["terminal_reason"].as_str()),
        (Some("error_during_execution"), Some("interrupted"))
    );
}

#[test]
fn the_sdk_interrupt_request_kills_the_running_command() {
    let scene = Scene::new();
    let mut child = scene
        .command()
        .args(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut send = |value: Value| {
        writeln!(stdin, "{value}").unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"type": "control_request", "request_id": "req_1", "request": {"subtype": "initialize"}}));
    send(json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                "message": {"role": "user", "content": "wait a while"}}));
    let mut lines = stdout.lines();
    let mut interrupted = false;
    let mut answers = Vec::new();
    let mut results = Vec::new();
    let result = loop {
        let line: Value =
            serde_json::from_str(&lines.next().expect("the run ended without a result").unwrap()).unwrap();
        if !interrupted && line["type"] == "assistant" && line.to_string().contains("tool_use") {
            scene.wait_until_running();
            send(json!({"type": "control_request", "request_id": "req_2", "request": {"subtype": "interrupt"}}));
            interrupted = true;
        }
        if line["type"] == "control_response" {
            answers.push(line["response"].clone());
        }
        if line["type"] == "user" {
            results.extend(line["message"]["content"].as_array().cloned().unwrap_or_default());
        }
        if line["type"] == "result" {
            break line;
        }
    };
    scene.assert_stopped();
    assert_eq!(result["terminal_reason"], "interrupted", "{result}");
    assert!(answers.iter().any(|a| a["request_id"] == "req_2" && a["subtype"] == "success"), "{answers:?}");
    // The stopped call's result went out to the SDK as a user message.
    assert!(results.iter().any(|r| r["tool_use_id"] == "toolu_1" && r["is_error"] == true), "{results:?}");
    // Then the interruption itself, as Claude Code streams it.
    assert!(results.iter().any(|r| r["text"] == "[Request interrupted by user for tool use]"), "{results:?}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn ctrl_c_in_the_chat_kills_the_running_command() {
    let scene = Scene::new();
    let mut command = common::program(scene.dir.path());
    command.env("ANTHROPIC_BASE_URL", scene.api.base_url());
    command.env("ANTHROPIC_API_KEY", "dummy");
    for name in ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "AGENT_TOOLS_OPENAI_BASE_URL"] {
        command.env_remove(name);
    }
    command.args(["agent", "--no-settings", "--trust-workspace", "--dangerously-skip-permissions"]);
    let mut chat = common::Terminal::start(command);
    chat.expect("> ");
    chat.keys("wait a while\r");
    scene.wait_until_running();
    chat.keys("\x03");
    chat.expect("[Request interrupted by user]");
    chat.expect("> ");
    scene.assert_stopped();
    // The conversation goes on: the next prompt is answered, and the model sees the stopped
    // call's result and the interruption.
    chat.keys("what now\r");
    chat.expect("Stopped.");
    // Ctrl-D only once the prompt is back (typed earlier, the terminal is not yet raw).
    chat.expect("> ");
    chat.keys("\x04");
    let (code, screen) = chat.finish();
    assert_eq!(code, 0, "{screen}");
    let body = scene.api.requests().last().unwrap().body["messages"].to_string();
    assert!(body.contains("[Request interrupted by user for tool use]"), "{body}");
    assert!(!scene.late.exists());
}
