//! `agent-tools agent` killed (SIGKILL, or SIGTERM) at each point of a turn — while the model's
//! answer streams, while a tool call runs, between a call's result and the next request — then
//! resumed with `--resume <session id>` or `--continue` against a fake Messages API that refuses,
//! as the real one does with a 400, any request whose messages it would not take (a `tool_use`
//! without its `tool_result` right after, roles out of turn, torn data). The resumed run must
//! succeed. Every wait is on an event: a line on the program's stdout, a FIFO the tool's shell
//! writes to, a request reaching the fake.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead as _, BufReader, Read as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};
use agent_tools_testkit::procs::{Reaper, unique_token};
use serde_json::{Value, json};

/// The longest any one event is waited for (a failing test says what it waited for).
const WITHIN: Duration = Duration::from_secs(30);

/// The prompt of the run that is killed, and of the run that resumes it.
const FIRST: &str = "Look around the project.";
const RESUMED: &str = "Carry on where you stopped.";

/// What the fake answers the resumed run.
const RESUMED_ANSWER: &str = "Picked up where we were.";

/// What the loop answers a call the session stopped during.
const INTERRUPTED: &str = "[Request interrupted by user]";

/// How the running program is stopped.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Kill,
    Terminate,
}

impl Stop {
    fn send(self, child: &mut Child) {
        match self {
            Stop::Kill => child.kill().unwrap(),
            Stop::Terminate => {
                let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
                assert!(status.success());
            }
        }
    }

    /// The stopped program's exit: killed by SIGKILL, or exit 143 after SIGTERM.
    fn check_exit(self, status: std::process::ExitStatus) {
        match self {
            Stop::Kill => assert_eq!(status.signal(), Some(9), "{status:?}"),
            Stop::Terminate => assert_eq!(status.code(), Some(143), "{status:?}"),
        }
    }
}

/// How the stopped conversation is picked up.
#[derive(Debug, Clone, Copy)]
enum Pick {
    Resume,
    Continue,
}

/// The program with a clean environment (no user settings, state in the test folder), the fake
/// API as its model, and nobody to ask (every call allowed).
fn command(cwd: &Path, api: &FakeApi) -> Command {
    let mut command = common::agent_command(cwd, &api.base_url());
    command.args(["agent", "--dangerously-skip-permissions"]);
    command
}

/// A fake Messages API: a request of the resumed run (it carries [`RESUMED`]) that the real API
/// would refuse gets the API's 400 (and is kept in `refused`), else [`RESUMED_ANSWER`]; the
/// killed run's requests are answered by `first` (its argument: the request number, from 1),
/// and each arrival is sent on `arrived`.
struct Fake {
    api: FakeApi,
    refused: Arc<Mutex<Vec<String>>>,
    arrived: mpsc::Receiver<usize>,
}

impl Fake {
    fn start(first: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Fake {
        let refused = Arc::new(Mutex::new(Vec::new()));
        let (send, arrived) = mpsc::channel();
        let send = Mutex::new(send);
        let count = Mutex::new(0);
        let noted = Arc::clone(&refused);
        let api = FakeApi::start(move |request: &Recorded| {
            let problems = request.message_problems();
            if !problems.is_empty() {
                let text = problems.join("; ");
                noted.lock().unwrap().push(text.clone());
                return Reply::status(400, "invalid_request_error", &text);
            }
            if request.body["messages"].to_string().contains(RESUMED) {
                return Reply::text(RESUMED_ANSWER);
            }
            let number = {
                let mut count = count.lock().unwrap();
                *count += 1;
                *count
            };
            let _ = send.lock().unwrap().send(number);
            first(number)
        });
        Fake { api, refused, arrived }
    }

    /// Waits for the killed run's request `number`.
    fn wait_for_request(&self, number: usize) {
        loop {
            match self.arrived.recv_timeout(WITHIN) {
                Ok(arrived) if arrived >= number => return,
                Ok(_) => {}
                Err(error) => panic!("request {number} never came: {error}"),
            }
        }
    }

    /// The one request the resumed run sent (it succeeded at once).
    fn resumed_request(&self) -> Recorded {
        let resumed: Vec<Recorded> = self
            .api
            .requests()
            .into_iter()
            .filter(|request| request.body["messages"].to_string().contains(RESUMED))
            .collect();
        assert_eq!(resumed.len(), 1, "the resumed run asked once");
        resumed.into_iter().next().unwrap()
    }
}

/// The killed run's stdout, a line at a time, read on a thread of its own.
struct Lines(mpsc::Receiver<String>);

impl Lines {
    fn of(child: &mut Child) -> Lines {
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Lines(lines)
    }

    /// Reads lines until one (parsed) passes `wanted`; returns it.
    fn until(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = self.0.recv_timeout(WITHIN).unwrap_or_else(|error| panic!("never saw {what}: {error}"));
            let value: Value = serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line}"));
            if wanted(&value) {
                return value;
            }
        }
    }

    /// The session id of the `system/init` line.
    fn session_id(&self) -> String {
        let init = self.until("the init line", |line| line["type"] == "system" && line["subtype"] == "init");
        init["session_id"].as_str().unwrap().to_owned()
    }
}

/// Starts the run that will be killed: [`FIRST`] in stream-json, with the raw stream events.
fn start_first(dir: &Path, fake: &Fake) -> (Child, Lines) {
    let mut child = command(dir, &fake.api)
        .args(["-p", FIRST, "--output-format", "stream-json", "--verbose", "--include-partial-messages"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = Lines::of(&mut child);
    (child, lines)
}

/// Stops the run, waits for it and checks how it ended.
fn stop(mut child: Child, how: Stop) {
    how.send(&mut child);
    let status = child.wait().unwrap();
    how.check_exit(status);
}

/// Resumes the session with [`RESUMED`] and checks that the run succeeded against the fake that
/// refuses what the API would; returns the run's output.
fn resume(dir: &Path, fake: &Fake, session: &str, pick: Pick) -> Output {
    let mut command = command(dir, &fake.api);
    match pick {
        Pick::Resume => command.args(["--resume", session]),
        Pick::Continue => command.arg("--continue"),
    };
    let output = command.args(["-p", RESUMED, "--output-format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let refused = fake.refused.lock().unwrap().clone();
    assert!(refused.is_empty(), "the API would refuse the resumed request: {refused:?}\nstderr: {stderr}");
    assert!(output.status.success(), "the resumed run failed: {stderr}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["result"], RESUMED_ANSWER);
    assert_eq!(result["session_id"], session, "it goes on in the same session");
    output
}

/// The message of `request` holding `text`, and its index.
fn message_with<'a>(request: &'a Recorded, text: &str) -> (usize, &'a Value) {
    let messages = request.body["messages"].as_array().unwrap();
    let at = messages
        .iter()
        .position(|message| message["content"].to_string().contains(text))
        .unwrap_or_else(|| panic!("no message holds {text:?}: {messages:#?}"));
    (at, &messages[at])
}

/// The session's transcript, in Claude Code's layout under the test's home.
fn transcript(dir: &Path, session: &str) -> PathBuf {
    let projects = dir.join(".home/.claude/projects");
    agent_tools_loop::transcript::session_file(&projects, &dir.canonicalize().unwrap(), session)
}

/// A FIFO in `dir`, and a thread that reads what its writer sends (the read ends when the
/// writer closes it).
fn fifo(dir: &Path, name: &str) -> (PathBuf, mpsc::Receiver<String>) {
    let path = dir.join(name);
    assert!(Command::new("mkfifo").arg(&path).status().unwrap().success());
    let (send, said) = mpsc::channel();
    let reading = path.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(&reading) {
            let _ = file.read_to_string(&mut text);
        }
        let _ = send.send(text);
    });
    (path, said)
}

#[test]
fn killed_while_the_answer_streams_the_session_resumes() {
    for (how, pick) in [(Stop::Kill, Pick::Continue), (Stop::Terminate, Pick::Resume)] {
        let dir = tempfile::tempdir().unwrap();
        // The answer starts (a text block and the first piece of its text), then hangs.
        let fake = Fake::start(|_| Reply::Stall {
            content: vec![
                json!({"type": "text", "text": "I will list the files first."}),
                json!({"type": "tool_use", "id": "toolu_never", "name": "Bash", "input": {"command": "ls"}}),
            ],
            events: 4,
        });
        let (child, lines) = start_first(dir.path(), &fake);
        let session = lines.session_id();
        lines.until("the answer's first text", |line| {
            line["type"] == "stream_event" && line["event"]["type"] == "content_block_delta"
        });
        stop(child, how);

        resume(dir.path(), &fake, &session, pick);
        let request = fake.resumed_request();
        // No answer was saved: the first prompt and the new one go in one user message.
        let (first, message) = message_with(&request, FIRST);
        let (resumed, _) = message_with(&request, RESUMED);
        assert_eq!((first, resumed), (0, 0), "{how:?} {pick:?}: {message:#?}");
        assert!(!request.body["messages"].to_string().contains("toolu_never"), "a torn answer is not sent");
    }
}

#[test]
fn killed_during_a_tool_call_the_call_is_answered_as_interrupted() {
    for (how, pick) in [(Stop::Kill, Pick::Resume), (Stop::Terminate, Pick::Continue)] {
        let dir = tempfile::tempdir().unwrap();
        let token = unique_token();
        let _reaper = Reaper(token.clone());
        let (started, said) = fifo(dir.path(), "started.fifo");
        // The shell says it started, then sleeps until the program is stopped.
        let command = format!("echo started > {}; sleep 3300.{token}", started.display());
        let fake = Fake::start(move |number| match number {
            1 => Reply::Message {
                content: vec![
                    json!({"type": "text", "text": "Let me look."}),
                    json!({"type": "tool_use", "id": "toolu_sleep", "name": "Bash", "input": {"command": command}}),
                    json!({"type": "tool_use", "id": "toolu_never", "name": "Bash", "input": {"command": "true"}}),
                ],
                stop_reason: None,
                usage: None,
            },
            _ => Reply::text("The first run never gets this far."),
        });
        let (child, lines) = start_first(dir.path(), &fake);
        let session = lines.session_id();
        assert_eq!(said.recv_timeout(WITHIN).unwrap(), "started\n", "the Bash call runs");
        stop(child, how);

        let output = resume(dir.path(), &fake, &session, pick);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("The session stopped during 2 tool calls (Bash, Bash) before their results were saved"),
            "{stderr}"
        );
        let request = fake.resumed_request();
        let (call, _) = message_with(&request, "toolu_sleep");
        let messages = request.body["messages"].as_array().unwrap();
        let answer = &messages[call + 1];
        assert_eq!(answer["role"], "user");
        let content = answer["content"].as_array().unwrap();
        for (block, id) in content.iter().zip(["toolu_sleep", "toolu_never"]) {
            assert_eq!(block["type"], "tool_result");
            assert_eq!(block["tool_use_id"], id);
            assert_eq!(block["is_error"], true);
            assert_eq!(block["content"], INTERRUPTED);
        }
        // The new prompt goes in the same user message, after the results.
        assert_eq!(content.len(), 3, "{how:?} {pick:?}: {content:#?}");
        assert_eq!(content[2]["text"], RESUMED);
        assert_eq!(call + 2, messages.len(), "the results and the prompt are last");
    }
}

#[test]
fn killed_between_a_result_and_the_next_request_the_result_is_kept() {
    for (how, pick) in [(Stop::Kill, Pick::Resume), (Stop::Terminate, Pick::Continue)] {
        let dir = tempfile::tempdir().unwrap();
        let fake = Fake::start(|number| match number {
            1 => Reply::tool_use("toolu_echo", "Bash", json!({"command": "echo the-result"})),
            // The request with the result came: the program is stopped while it waits.
            _ => Reply::Stall { content: vec![json!({"type": "text", "text": "Never finished."})], events: 0 },
        });
        let (child, lines) = start_first(dir.path(), &fake);
        let session = lines.session_id();
        fake.wait_for_request(2);
        stop(child, how);

        let output = resume(dir.path(), &fake, &session, pick);
        assert!(!String::from_utf8_lossy(&output.stderr).contains("The session stopped during"));
        let request = fake.resumed_request();
        let (call, _) = message_with(&request, "toolu_echo");
        let messages = request.body["messages"].as_array().unwrap();
        let results = request.message_problems();
        assert!(results.is_empty(), "{results:?}");
        let answer = messages[call + 1]["content"].as_array().unwrap();
        assert_eq!(answer[0]["tool_use_id"], "toolu_echo");
        assert_eq!(answer[0]["content"], "the-result", "{how:?} {pick:?}: the saved result is sent, not replaced");
        assert_eq!(answer.last().unwrap()["text"], RESUMED, "the prompt joins the results' message");
    }
}

#[test]
fn torn_lines_in_a_transcript_are_skipped_and_the_session_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let fake = Fake::start(|number| match number {
        1 => Reply::tool_use("toolu_echo", "Bash", json!({"command": "echo kept"})),
        _ => Reply::text("All done."),
    });
    let first = command(dir.path(), &fake.api).args(["-p", FIRST, "--output-format", "json"]).output().unwrap();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let session = serde_json::from_slice::<Value>(&first.stdout).unwrap()["session_id"].as_str().unwrap().to_owned();

    // A line torn in the middle (its end lost) and a torn last line cut inside a UTF-8
    // character, as kills mid-write leave them.
    let file = transcript(dir.path(), &session);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let torn = json!({"type": "message", "message": {"role": "user", "content": "TORN-MIDDLE"}}).to_string();
    lines.insert(2, torn[..torn.len() - 12].to_owned());
    let mut bytes = (lines.join("\n") + "\n").into_bytes();
    let tail = json!({"type": "message", "message": {"role": "user", "content": "TORN-TAIL é"}}).to_string();
    bytes.extend_from_slice(&tail.as_bytes()[..tail.find('é').unwrap() + 1]);
    std::fs::write(&file, bytes).unwrap();

    let output = resume(dir.path(), &fake, &session, Pick::Continue);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(": line 3 is not whole (a write cut short) and was skipped."), "{stderr}");
    let request = fake.resumed_request();
    let sent = request.body["messages"].to_string();
    assert!(!sent.contains("TORN"), "{sent}");
    assert!(sent.contains("kept") && sent.contains("All done."), "the whole lines are all sent: {sent}");

    // What the resumed run saved is whole: a run after it gets its prompt and answer back.
    let again = command(dir.path(), &fake.api)
        .args(["--continue", "-p", "And once more.", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let last = fake.api.requests().pop().unwrap();
    assert!(last.message_problems().is_empty(), "{:?}", last.message_problems());
    let sent = last.body["messages"].to_string();
    assert!(sent.contains(RESUMED) && sent.contains(RESUMED_ANSWER), "{sent}");
}
