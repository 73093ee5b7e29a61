//! The permission question on a real terminal: `agent-tools call` runs on a pseudo-terminal (so
//! it can open `/dev/tty`) and a test types the answers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// A running `agent-tools` on a terminal: what it printed so far, and its keyboard.
struct Session {
    screen: mpsc::Receiver<Vec<u8>>,
    seen: String,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    fn start(cwd: &Path, args: &[&str]) -> Self {
        let pair =
            native_pty_system().openpty(PtySize { rows: 40, cols: 200, pixel_width: 0, pixel_height: 0 }).unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_agent-tools"));
        command.env("HOME", cwd.join(".home"));
        command.env("XDG_STATE_HOME", cwd.join(".state"));
        command.env("XDG_CONFIG_HOME", cwd.join(".home/.config"));
        command.env_remove("CLAUDE_CONFIG_DIR");
        command.arg("--cwd");
        command.arg(cwd);
        command.args(args);
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
        Self { screen, seen: String::new(), keys, child }
    }

    /// Waits until the output so far contains `text` (panics with the screen after 30 s).
    fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.seen.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("never saw {text:?}; the terminal shows:\n{}", self.seen),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        self.keys.write_all(format!("{line}\r").as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Waits for the program to end and returns its exit code and everything it printed.
    fn finish(mut self) -> (u32, String) {
        let status = self.child.wait().unwrap();
        while let Ok(bytes) = self.screen.recv_timeout(Duration::from_millis(500)) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        (status.exit_code(), self.seen)
    }
}

fn write_call(dir: &Path) -> String {
    format!(r#"{{"file_path": "{}", "content": "hello\n"}}"#, dir.join("new.txt").display())
}

#[test]
fn no_then_a_reason_on_the_next_line_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect("Write wants to run");
    session.expect("Allow? [y] once, [a] always this session, [n] no");
    session.type_line("n");
    session.expect("Reason for the model (optional, Enter to skip): ");
    session.type_line("write it under docs/ instead");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "a refused call is an error result:\n{screen}");
    assert!(screen.contains("The user said: write it under docs/ instead"), "{screen}");
    assert!(!dir.path().join("new.txt").exists());
}

#[test]
fn a_reason_on_the_same_line_and_an_unclear_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect("Allow? [y]");
    session.type_line("maybe");
    session.expect("Please answer y, a or n.");
    session.type_line("no not now");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("The user said: not now"), "{screen}");
    assert!(!screen.contains("Reason for the model"), "a reason was already given:\n{screen}");
}

#[test]
fn yes_runs_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &["--no-settings", "call", "Write", &write_call(dir.path())]);
    session.expect("Allow? [y]");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("File created successfully"), "{screen}");
    assert_eq!(std::fs::read_to_string(dir.path().join("new.txt")).unwrap(), "hello\n");
}

/// A folder with an allow rule of its own for Write: the first use in a terminal asks whether to
/// trust it.
fn untrusted_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(dir.path().join(".claude/settings.json"), r#"{"permissions": {"allow": ["Write"]}}"#).unwrap();
    dir
}

#[test]
fn trusting_a_folder_on_first_use_applies_its_rules_and_is_remembered() {
    let dir = untrusted_project();
    let root = dir.path().canonicalize().unwrap();
    let mut session = Session::start(&root, &["call", "Write", &write_call(&root)]);
    session.expect(&format!("{} is a folder you have not trusted yet.", root.display()));
    session
        .expect("Its own configuration can run programs or allow tool calls: 1 allow rule in .claude/settings.json.");
    session.expect("Trust this folder? [y] yes, remember it; [n] no, run without its configuration: ");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "the project's rule allowed the write:\n{screen}");
    assert!(!screen.contains("Allow? [y]"), "no permission question:\n{screen}");
    assert!(root.join("new.txt").exists());
    let record = std::fs::read_to_string(root.join(".home/.config/agent-tools/trusted-folders.json")).unwrap();
    assert!(record.contains(root.to_str().unwrap()), "{record}");
    // Remembered: no question the next time.
    std::fs::remove_file(root.join("new.txt")).unwrap();
    let session = Session::start(&root, &["call", "Write", &write_call(&root)]);
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("not trusted yet"), "{screen}");
}

#[test]
fn declining_trust_runs_without_the_folders_rules() {
    let dir = untrusted_project();
    let root = dir.path().canonicalize().unwrap();
    let mut session = Session::start(&root, &["call", "Write", &write_call(&root)]);
    session.expect("Trust this folder? [y]");
    session.type_line("n");
    // The project's allow rule is left out, so the write itself is asked about.
    session.expect("is not a trusted folder, so its own configuration is not used");
    session.expect("Allow? [y] once");
    session.type_line("n");
    session.expect("Reason for the model");
    session.type_line("");
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "{screen}");
    assert!(!root.join("new.txt").exists());
    assert!(!root.join(".home/.config/agent-tools/trusted-folders.json").exists(), "nothing remembered");
}

#[test]
fn exit_plan_mode_shows_the_plan_and_yes_restores_the_earlier_mode() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let turn = format!(
        r#"[
        {{"type": "tool_use", "id": "toolu_1", "name": "EnterPlanMode", "input": {{}}}},
        {{"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {{"file_path": "{0}/a.txt", "content": "a\n"}}}},
        {{"type": "tool_use", "id": "toolu_3", "name": "ExitPlanMode", "input": {{"plan": "PLAN-LINE-ONE\nPLAN-LINE-TWO\n"}}}},
        {{"type": "tool_use", "id": "toolu_4", "name": "Write", "input": {{"file_path": "{0}/b.txt", "content": "b\n"}}}}
    ]"#,
        root.display()
    );
    std::fs::write(root.join("turn.json"), turn).unwrap();
    let mut session = Session::start(&root, &["--no-settings", "--permission-mode", "acceptEdits", "run", "turn.json"]);
    session.expect("ExitPlanMode wants to run");
    session.expect("Exit plan mode?");
    session.expect("PLAN-LINE-ONE");
    session.expect("PLAN-LINE-TWO");
    session.expect("Allow? [y]");
    session.type_line("y");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("while in plan mode"), "the first Write was refused:\n{screen}");
    assert!(screen.contains("## Approved Plan:"), "{screen}");
    assert!(!root.join("a.txt").exists());
    // Back in acceptEdits: the last Write ran without another question.
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "b\n");
    assert_eq!(screen.matches("wants to run").count(), 1, "{screen}");
}

fn questions_call() -> &'static str {
    r#"{"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "Postgres", "description": "The server we run"},
            {"label": "SQLite", "description": "A file, no server"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "Log-in"}, {"label": "Search", "description": "Full text"},
            {"label": "Export", "description": "CSV files"}]}
    ]}"#
}

#[test]
fn ask_user_question_is_answered_by_number_and_in_free_text() {
    let dir = tempfile::tempdir().unwrap();
    // Bypass mode: the questions are still put to the user.
    let args = ["--no-settings", "--permission-mode", "bypassPermissions", "call", "AskUserQuestion", questions_call()];
    let mut session = Session::start(dir.path(), &args);
    session.expect("[Database] Which database?");
    session.expect("2. SQLite — A file, no server");
    session.expect("3. Other (type your own answer)");
    session.expect("Your answer (a number, or your own words): ");
    session.type_line("5");
    session.expect("Please answer with one number from 1 to 3, or type your own answer.");
    session.type_line("2");
    session.expect("[Features] Which features?");
    session.expect("Your answer (numbers separated by commas, e.g. 1,3, or your own words): ");
    session.type_line("auth and an audit log");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains(
            "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which features?\"=\"auth and an audit log\". \
             You can now continue with the user's answers in mind."
        ),
        "{screen}"
    );
}

#[test]
fn ask_user_question_takes_several_numbers_and_other_and_ctrl_d_declines() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::start(dir.path(), &["--no-settings", "call", "AskUserQuestion", questions_call()]);
    session.expect("Your answer (a number");
    session.type_line("3");
    session.expect("Your own answer: ");
    session.type_line("DuckDB");
    session.expect("Your answer (numbers separated by commas");
    session.type_line("3, 1");
    let (code, screen) = session.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("\"Which database?\"=\"DuckDB\", \"Which features?\"=\"Export, Auth\""), "{screen}");

    let mut session = Session::start(dir.path(), &["--no-settings", "call", "AskUserQuestion", questions_call()]);
    session.expect("Your answer (a number");
    session.keys.write_all(b"\x04").unwrap();
    session.keys.flush().unwrap();
    let (code, screen) = session.finish();
    assert_eq!(code, 1, "a declined question set is an error result:\n{screen}");
    assert!(screen.contains("The user declined this tool use"), "{screen}");
}
