//! `agent-tools agent` without `-p` on a pseudo-terminal: the chat, against the scripted fake
//! Messages API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_tools_testkit::fake_api::FakeApi;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::json;

/// The chat on a terminal: what it printed so far, and its keyboard.
struct Chat {
    screen: mpsc::Receiver<Vec<u8>>,
    seen: String,
    /// Where the next [`Chat::expect`] starts looking.
    from: usize,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Chat {
    fn start(cwd: &Path, api: &FakeApi) -> Self {
        let pair =
            native_pty_system().openpty(PtySize { rows: 40, cols: 200, pixel_width: 0, pixel_height: 0 }).unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_agent-tools"));
        command.env("HOME", cwd.join(".home"));
        command.env("XDG_STATE_HOME", cwd.join(".state"));
        command.env("XDG_CONFIG_HOME", cwd.join(".home/.config"));
        command.env("ANTHROPIC_BASE_URL", api.base_url());
        command.env("ANTHROPIC_API_KEY", "dummy");
        for name in ["CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "AGENT_TOOLS_OPENAI_BASE_URL"] {
            command.env_remove(name);
        }
        command.args(["agent", "--no-settings", "--trust-workspace"]);
        command.cwd(cwd);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let keys = pair.master.take_writer().unwrap();
        let (send, screen) = mpsc::channel();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || send.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self { screen, seen: String::new(), from: 0, keys, child }
    }

    /// Waits until the output after the last match shows `text` (panics with the screen after
    /// 30 s), and moves past it.
    fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(at) = self.seen[self.from..].find(text) {
                self.from += at + text.len();
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("never saw {text:?}; the terminal shows:\n{}", self.seen),
            }
        }
    }

    fn keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    fn finish(mut self) -> (u32, String) {
        let status = self.child.wait().unwrap();
        while let Ok(bytes) = self.screen.recv_timeout(Duration::from_millis(300)) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        (status.exit_code(), self.seen)
    }
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
    let mut chat = Chat::start(&root, &api);
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
