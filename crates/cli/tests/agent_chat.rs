//! `agent-tools agent` without `-p` on a pseudo-terminal: the chat, against the scripted fake
//! Messages API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::time::Duration;

use agent_tools_testkit::fake_api::FakeApi;
use common::Terminal;
use serde_json::json;

/// The chat in `cwd` on a terminal, asking `api`.
fn chat(cwd: &Path, api: &FakeApi) -> Terminal {
    let mut command = common::program(cwd);
    command.env("ANTHROPIC_BASE_URL", api.base_url());
    command.env("ANTHROPIC_API_KEY", "dummy");
    for name in ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "AGENT_TOOLS_OPENAI_BASE_URL"] {
        command.env_remove(name);
    }
    command.args(["agent", "--no-settings", "--trust-workspace"]);
    Terminal::start(command)
}

#[test]
fn the_chat_streams_answers_shows_calls_and_asks_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    // The first prompt gets a text answer; the second a Read, then a Write (asked), then text.
    let api = FakeApi::start({
        let root = root.clone();
        move |request| {
            use agent_tools_testkit::fake_api::Reply;
            let prompts = request.body["messages"].to_string();
            let last = request.body["messages"].as_array().and_then(|all| all.last()).map(ToString::to_string);
            if last.unwrap_or_default().contains("take your time") {
                return Reply::Slow {
                    content: vec![json!({"type": "text", "text": "slow"})],
                    gap: Duration::from_secs(20),
                };
            }
            if !prompts.contains("look at the notes") {
                return Reply::text("Hello from the fake model.");
            }
            match request.assistant_turns() {
                1 => Reply::tool_use("toolu_1", "Read", json!({"file_path": root.join("notes.txt")})),
                2 => Reply::tool_use("toolu_2", "Write", json!({"file_path": root.join("new.txt"), "content": "x\n"})),
                _ => Reply::text("Read and written."),
            }
        }
    });
    let mut chat = chat(&root, &api);
    chat.expect("> ");
    chat.keys("hi\r");
    chat.expect("Hello from the fake model.");
    chat.expect("> ");
    chat.keys("look at the notes\r");
    chat.expect("● Read(notes.txt)");
    chat.expect("  ⎿  ");
    chat.expect("alpha… (");
    chat.expect("● Write(new.txt)");
    chat.expect("Allow? [y]");
    chat.keys("y\r");
    chat.expect("  ⎿  File created successfully");
    chat.expect("Read and written.");
    chat.expect("> ");
    // Ctrl-C during a query interrupts it; at the prompt it clears the line; Ctrl-D leaves.
    chat.keys("take your time\r");
    chat.expect("take your time");
    assert!(api.wait_for_requests(5, Duration::from_secs(30)), "{}", chat.seen);
    chat.keys("\x03");
    chat.expect("[Request interrupted by user]");
    chat.expect("> ");
    chat.keys("half a line\x03");
    chat.expect("> ");
    chat.keys("\x04");
    let (code, screen) = chat.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(std::fs::read_to_string(root.join("new.txt")).unwrap(), "x\n");
    assert_eq!(api.requests().len(), 5, "{screen}");
    assert!(!api.requests().iter().any(|request| request.body["messages"].to_string().contains("half a line")));
}
