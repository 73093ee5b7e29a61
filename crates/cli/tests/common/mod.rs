//! What the CLI's tests share: the `agent-tools` binary with a clean environment against a fake
//! model ([`agent_command`]), and on a pseudo-terminal, with a keyboard and a screen
//! ([`Terminal`]).

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// How long [`Terminal::expect`] waits for a text.
const EXPECT_WITHIN: Duration = Duration::from_secs(30);

/// How long [`Terminal::finish`] keeps reading after the program ended, for its last output.
const LAST_OUTPUT: Duration = Duration::from_millis(500);

/// The `agent-tools` binary run in `cwd` with a clean environment (home, state and config
/// folders inside `cwd`, none of the caller's Claude or model settings) and the fake Messages API
/// at `base_url` as its model; stdin is `/dev/null` unless the test pipes it.
pub fn agent_command(cwd: &Path, base_url: &str) -> std::process::Command {
    let mut command = agent_tools_testkit::procs::isolated_command(env!("CARGO_BIN_EXE_agent-tools"), cwd);
    command.env("ANTHROPIC_BASE_URL", base_url).env("ANTHROPIC_API_KEY", "dummy");
    command
}

/// The `agent-tools` binary run in `cwd`, with its home, state and config folders inside `cwd`
/// and no `CLAUDE_CONFIG_DIR` of the caller's.
pub fn program(cwd: &Path) -> CommandBuilder {
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_agent-tools"));
    command.env("HOME", cwd.join(".home"));
    command.env("XDG_STATE_HOME", cwd.join(".state"));
    command.env("XDG_CONFIG_HOME", cwd.join(".home/.config"));
    command.env_remove("CLAUDE_CONFIG_DIR");
    command.cwd(cwd);
    command
}

/// A running program on a 40 × 200 terminal: what it printed so far, and its keyboard.
pub struct Terminal {
    screen: mpsc::Receiver<Vec<u8>>,
    /// Everything printed so far.
    pub seen: String,
    /// Where the next [`Terminal::expect`] starts looking.
    from: usize,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Terminal {
    /// Starts `command` on a new pseudo-terminal.
    pub fn start(command: CommandBuilder) -> Self {
        let pair =
            native_pty_system().openpty(PtySize { rows: 40, cols: 200, pixel_width: 0, pixel_height: 0 }).unwrap();
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

    /// Waits until the output from `start` on shows `text` (panics with the screen after 30 s);
    /// returns where the match ends.
    fn wait_for(&mut self, text: &str, start: usize) -> usize {
        let deadline = Instant::now() + EXPECT_WITHIN;
        loop {
            if let Some(at) = self.seen[start..].find(text) {
                return start + at + text.len();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("never saw {text:?}; the terminal shows:\n{}", self.seen),
            }
        }
    }

    /// Waits until the output after the last [`Terminal::expect`] match shows `text`, and moves
    /// past it.
    pub fn expect(&mut self, text: &str) {
        self.from = self.wait_for(text, self.from);
    }

    /// Waits until the output so far, from the start, shows `text`.
    pub fn expect_shown(&mut self, text: &str) {
        self.wait_for(text, 0);
    }

    /// Types `keys` as they are.
    pub fn keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Types `line` and Enter.
    pub fn type_line(&mut self, line: &str) {
        self.keys(&format!("{line}\r"));
    }

    /// Waits for the program to end and returns its exit code and everything it printed.
    pub fn finish(mut self) -> (u32, String) {
        let status = self.child.wait().unwrap();
        while let Ok(bytes) = self.screen.recv_timeout(LAST_OUTPUT) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        (status.exit_code(), self.seen)
    }
}
