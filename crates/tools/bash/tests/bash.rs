//! Bash on real processes: Claude Code's recorded results, the failure modes users hit (stdin,
//! background children, the working directory, huge output), timeouts, cancellation and the
//! process group.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_tool_bash::{BashConfig, BashOutput};
use agent_tools_core::ProgressEvent;
use agent_tools_core::{Invocation, call_tool};
use agent_tools_core::{MaxResultSize, Tool, ToolFlags, ToolUseContext};
use agent_tools_testkit::{alive, ended, eventually, live_processes_with_arg};
use serde_json::{Value, json};

/// A session: one context, with each call's context modifier applied before the next call.
struct Session {
    tool: Arc<dyn Tool>,
    ctx: ToolUseContext,
}

impl Session {
    fn new(cwd: &Path) -> Self {
        Self::with_tool(agent_tool_bash::tool(), cwd)
    }

    fn with_tool(tool: Arc<dyn Tool>, cwd: &Path) -> Self {
        Self { tool, ctx: ToolUseContext::new(cwd) }
    }

    async fn invoke(&mut self, input: Value) -> Invocation {
        let mut done = call_tool(self.tool.as_ref(), "toolu_test", input, &self.ctx).await;
        if let Some(modifier) = done.context_modifier.take() {
            self.ctx = modifier(self.ctx.clone());
        }
        done
    }

    /// Runs one call; returns the text, whether it is an error, and how long it took.
    async fn run(&mut self, input: Value) -> (String, bool, Duration) {
        let started = Instant::now();
        let done = self.invoke(input).await;
        (done.block.content.text(), done.block.is_error, started.elapsed())
    }

    async fn ok(&mut self, command: &str) -> String {
        let (text, is_error, _) = self.run(json!({"command": command})).await;
        assert!(!is_error, "unexpected error for {command:?}: {text}");
        text
    }

    async fn err(&mut self, command: &str) -> String {
        let (text, is_error, _) = self.run(json!({"command": command})).await;
        assert!(is_error, "expected an error for {command:?}, got: {text}");
        text
    }
}

/// The shell's own name in its messages: its path, as Claude Code shows it (`/bin/bash: line 1: …`).
fn shell() -> &'static str {
    if std::path::Path::new("/bin/bash").is_file() { "/bin/bash" } else { "bash" }
}

/// A temporary folder, by its resolved path (what `pwd -P` prints).
fn workdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = fs::canonicalize(dir.path()).unwrap();
    (dir, path)
}

fn text_of(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Waits up to five seconds for a process to have ended.
async fn gone(pid: i32) -> bool {
    eventually(Duration::from_secs(5), || ended(pid)).await
}

/// Waits up to five seconds for a file holding a pid.
async fn read_pid(path: &Path) -> i32 {
    let read = || fs::read_to_string(path).ok().and_then(|text| text.trim().parse().ok());
    assert!(eventually(Duration::from_secs(5), || read().is_some()).await, "no pid in {}", path.display());
    read().unwrap()
}

/// Kills what a test left running, when dropped (also after a failed assertion): the `pids`,
/// and every live process with a command-line argument for which `matching` holds.
struct Cleanup {
    pids: Vec<i32>,
    matching: fn(&str) -> bool,
}

impl Cleanup {
    fn pids(pids: Vec<i32>) -> Self {
        Self { pids, matching: |_| false }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for pid in self.pids.iter().copied().chain(live_processes_with_arg(self.matching)) {
            let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).stderr(Stdio::null()).status();
        }
    }
}

/// Checks a head + marker + tail result against the full text: the head is its start, the tail
/// its end, and the marker counts exactly the lines and characters between them.
fn assert_cut(shown: &str, full: &str) {
    let (head, rest) = shown.split_once("\n\n... [").expect("a truncation marker");
    let (marker, tail) = rest.split_once("] ...\n\n").expect("the marker's end");
    assert!(full.starts_with(head), "head is not the start of the output");
    assert!(full.ends_with(tail), "tail is not the end of the output");
    let omitted = &full[head.len()..full.len() - tail.len()];
    let (lines, chars) = marker.strip_suffix(" characters) truncated").unwrap().split_once(" (").unwrap();
    let lines: u64 = lines.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(chars.parse::<usize>().unwrap(), omitted.chars().count(), "characters left out");
    let on_boundary = u64::from(omitted.starts_with('\n')) + u64::from(omitted.ends_with('\n'));
    let newlines = omitted.matches('\n').count() as u64;
    assert_eq!(lines, newlines + 1 - on_boundary, "lines left out");
}

// ----- Claude Code's recorded results -----

#[tokio::test]
async fn oracle_echo() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let (text, is_error, _) =
        session.run(json!({"command": "echo hello world", "description": "Print a greeting"})).await;
    assert_eq!((text.as_str(), is_error), ("hello world", false));
}

#[tokio::test]
async fn oracle_exit_code() {
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).err("echo partial; exit 3").await, "Exit code 3\npartial");
    assert_eq!(Session::new(&w).err("exit 4").await, "Exit code 4");
}

#[tokio::test]
async fn oracle_stderr_is_merged_in_order() {
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).ok("echo to-out; echo to-err >&2").await, "to-out\nto-err");
    assert_eq!(Session::new(&w).ok("echo a; echo b >&2; echo c; echo d >&2").await, "a\nb\nc\nd");
}

#[tokio::test]
async fn oracle_no_output() {
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).ok("true").await, "(Bash completed with no output)");
    assert_eq!(Session::new(&w).ok("printf '\\n\\n  \\n'").await, "(Bash completed with no output)");
}

#[tokio::test]
async fn oracle_cd_persists_and_comes_back() {
    let (_dir, fix) = workdir();
    let fix_text = text_of(&fix);
    let mut session = Session::new(&fix);
    assert_eq!(session.ok("mkdir -p work/deeper && cd work/deeper && pwd").await, format!("{fix_text}/work/deeper"));
    assert_eq!(session.ctx.cwd, fix.join("work/deeper"));
    assert_eq!(session.ok("pwd").await, format!("{fix_text}/work/deeper"));
    assert_eq!(session.ok(&format!("cd {fix_text} && pwd")).await, fix_text);
    assert_eq!(session.ctx.cwd, fix);
}

#[tokio::test]
async fn oracle_environment_does_not_persist() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    assert_eq!(session.ok("export PEER_VAR=kept").await, "(Bash completed with no output)");
    assert_eq!(session.ok("echo \"PEER_VAR=${PEER_VAR:-unset}\"").await, "PEER_VAR=unset");
    assert_eq!(session.ok("f() { echo hi; }; f").await, "hi");
    assert_eq!(session.err("f").await, format!("Exit code 127\n{}: line 1: f: command not found", shell()));
}

#[tokio::test]
async fn multi_line_commands_and_error_line_numbers() {
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).ok("echo one\necho 'two\nthree'").await, "one\ntwo\nthree");
    assert_eq!(
        Session::new(&w).err("true\nno-such-command-x").await,
        format!("Exit code 127\n{}: line 2: no-such-command-x: command not found", shell())
    );
    let syntax = Session::new(&w).err("echo (").await;
    assert!(syntax.starts_with(&format!("Exit code 2\n{}: eval: line 1: ", shell())), "{syntax}");
    assert!(syntax.contains("syntax error"), "{syntax}");
}

#[tokio::test]
async fn oracle_large_output_keeps_head_and_tail() {
    let (_dir, w) = workdir();
    let text = Session::new(&w).ok("seq 1 12000").await;
    let full: String = (1..=12_000).map(|i| i.to_string()).collect::<Vec<_>>().join("\n");
    assert!(text.chars().count() <= 30_000, "{} characters", text.chars().count());
    assert!(text.starts_with("1\n2\n3\n"));
    assert!(text.ends_with("\n11999\n12000"));
    assert_cut(&text, &full);
}

#[tokio::test]
async fn oracle_timeout_kills() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let (text, is_error, took) =
        session.run(json!({"command": "echo before; sleep 3; echo after", "timeout": 1000})).await;
    assert_eq!(text, "Exit code 143\nbefore\nCommand timed out after 1s");
    assert!(is_error);
    assert!(took < Duration::from_millis(2500), "took {took:?}");
}

// ----- timeouts, cancellation, process groups -----

#[tokio::test]
async fn timeout_without_output_and_as_a_string() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let (text, is_error, took) = session.run(json!({"command": "sleep 5", "timeout": "300"})).await;
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.3s");
    assert!(is_error);
    assert!(took < Duration::from_millis(2000), "took {took:?}");
    let (text, is_error, _) = session.run(json!({"command": "echo fast", "timeout": "1500"})).await;
    assert_eq!((text.as_str(), is_error), ("fast", false));
}

#[tokio::test]
async fn timeouts_above_the_maximum_are_clamped() {
    let (_dir, w) = workdir();
    // The default tool accepts any size of timeout.
    let mut session = Session::new(&w);
    let (text, is_error, _) = session.run(json!({"command": "echo ok", "timeout": 10_000_000})).await;
    assert_eq!((text.as_str(), is_error), ("ok", false));
    // With a small maximum the clamp is visible.
    let config = BashConfig { default_timeout_ms: 200, max_timeout_ms: 400, ..BashConfig::default() };
    let mut session = Session::with_tool(agent_tool_bash::tool_with(config.clone()), &w);
    let (text, _, took) = session.run(json!({"command": "sleep 5", "timeout": 700_000})).await;
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.4s");
    assert!(took < Duration::from_millis(2000), "took {took:?}");
    // 0 and absent mean the default.
    let mut session = Session::with_tool(agent_tool_bash::tool_with(config), &w);
    let (text, _, _) = session.run(json!({"command": "sleep 5", "timeout": 0})).await;
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.2s");
    let (text, _, _) = session.run(json!({"command": "sleep 5"})).await;
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.2s");
}

#[tokio::test]
async fn timeout_kills_the_whole_group_even_children_ignoring_sigterm() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let command = "sleep 38.1 & echo $! > bg.pid; (trap '' TERM; exec sleep 38.2) & echo $! > stubborn.pid; wait";
    let (text, is_error, took) = session.run(json!({"command": command, "timeout": 500})).await;
    let bg = read_pid(&w.join("bg.pid")).await;
    let stubborn = read_pid(&w.join("stubborn.pid")).await;
    let _cleanup = Cleanup::pids(vec![bg, stubborn]);
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.5s");
    assert!(is_error);
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    assert!(gone(bg).await, "background sleep {bg} survived the timeout");
    assert!(gone(stubborn).await, "SIGTERM-ignoring sleep {stubborn} survived the timeout");
}

#[tokio::test]
async fn cancellation_kills_the_group() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let cancel = ctx.cancel.clone();
    let tool = agent_tool_bash::tool();
    let call = tokio::spawn(async move {
        let started = Instant::now();
        let done =
            call_tool(tool.as_ref(), "toolu_test", json!({"command": "sleep 38.4 & echo $! > bg.pid; wait"}), &ctx)
                .await;
        (done.block.content.text(), done.block.is_error, started.elapsed())
    });
    let bg = read_pid(&w.join("bg.pid")).await;
    let _cleanup = Cleanup::pids(vec![bg]);
    assert!(alive(bg));
    let cancelled_at = Instant::now();
    cancel.cancel();
    let (text, is_error, _) = call.await.unwrap();
    assert!(cancelled_at.elapsed() < Duration::from_millis(1500));
    assert_eq!(text, "[Request interrupted by user for tool use]");
    assert!(is_error);
    assert!(gone(bg).await, "background sleep {bg} survived the cancel");
}

#[tokio::test]
async fn nothing_runs_once_cancelled() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    ctx.cancel.cancel();
    let done = call_tool(agent_tool_bash::tool().as_ref(), "toolu_test", json!({"command": "touch ran"}), &ctx).await;
    assert_eq!(done.block.content.text(), "[Request interrupted by user for tool use]");
    assert!(!w.join("ran").exists());
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let (_dir, w) = workdir();
    let ctx = ToolUseContext::new(&w);
    let tool = agent_tool_bash::tool();
    let pid_file = w.join("bg.pid");
    let call = call_tool(tool.as_ref(), "toolu_test", json!({"command": "sleep 38.5 & echo $! > bg.pid; wait"}), &ctx);
    let watch = async {
        read_pid(&pid_file).await;
    };
    tokio::select! {
        _ = call => panic!("the call should still be running"),
        () = watch => {}
    }
    let bg = read_pid(&pid_file).await;
    let _cleanup = Cleanup::pids(vec![bg]);
    assert!(gone(bg).await, "background sleep {bg} survived the dropped call");
}

#[tokio::test]
async fn the_command_leads_its_own_process_group() {
    let (_dir, w) = workdir();
    let text = Session::new(&w).ok("echo $$ $(cut -d' ' -f5 /proc/$$/stat)").await;
    let (pid, group) = text.split_once(' ').unwrap();
    assert_eq!(pid, group);
    assert_ne!(group, std::process::id().to_string());
}

#[tokio::test]
async fn broken_pipes_end_producers_quietly() {
    // SIGPIPE has its default action in the command, as in a terminal.
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).ok("yes | head -n 2").await, "y\ny");
}

#[tokio::test]
async fn a_shell_killed_by_a_signal_reports_128_plus_the_signal() {
    let (_dir, w) = workdir();
    assert_eq!(Session::new(&w).err("echo going; kill -9 $$").await, "Exit code 137\ngoing");
}

// ----- stdin is /dev/null, never an open pipe -----

#[tokio::test]
async fn case_032_stdin_is_at_end_of_file() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let steps = [
        ("cat", "(Bash completed with no output)"),
        ("read -r line; echo \"rc=$? line=[$line]\"", "rc=1 line=[]"),
        ("python3 -c \"import sys; print(len(sys.stdin.read()))\"", "0"),
        ("test -t 0 && echo tty || echo notty", "notty"),
        ("printf 'y\\n' | (read -r a; echo got:$a)", "got:y"),
    ];
    for (command, expected) in steps {
        let (text, is_error, took) = session.run(json!({"command": command, "timeout": 20000})).await;
        assert_eq!((text.as_str(), is_error), (expected, false), "{command}");
        assert!(took < Duration::from_secs(2), "{command} took {took:?}");
    }
}

// ----- background children holding the output do not hold the call -----

#[tokio::test]
async fn case_034_background_children_do_not_hold_the_call() {
    let (_dir, w) = workdir();
    let mut cleanup = Cleanup {
        pids: vec![],
        matching: |arg| {
            ["41.1", "42.2", "43.3"].contains(&arg) || arg.contains("while true; do echo tick; sleep 1; done")
        },
    };
    let mut session = Session::new(&w);
    let mut step = async |command: &str| {
        let (text, is_error, took) = session.run(json!({"command": command, "timeout": 60000})).await;
        assert!(!is_error, "{command}: {text}");
        assert!(took < Duration::from_secs(4), "{command} took {took:?}");
        text
    };
    assert_eq!(step("sleep 41.1 & echo done").await, "done");
    let ticks = step("(while true; do echo tick; sleep 1; done) & sleep 1.5; echo fg-done").await;
    assert!(ticks.ends_with("fg-done"), "{ticks}");
    assert!(ticks.lines().take_while(|line| *line == "tick").count() >= 1, "{ticks}");
    assert_eq!(step("nohup sleep 42.2 >/dev/null 2>&1 & echo started").await, "started");
    let pid = step("sh -c 'sleep 43.3' 2>&1 & echo pid=$!").await;
    let number = pid.strip_prefix("pid=").unwrap();
    cleanup.pids.push(number.parse().unwrap());
}

// ----- the working directory persists (even after failure), the environment not -----

#[tokio::test]
async fn case_036_working_directory_persists_environment_does_not() {
    let (_dir, w) = workdir();
    fs::create_dir_all(w.join("sub")).unwrap();
    fs::create_dir_all(w.join("sub2")).unwrap();
    let w_text = text_of(&w);
    let mut s = Session::new(&w);
    assert_eq!(s.ok("cd sub && pwd").await, format!("{w_text}/sub"));
    assert_eq!(s.ok("pwd").await, format!("{w_text}/sub"));
    assert_eq!(s.err(&format!("cd {w_text}/sub2 && false")).await, "Exit code 1");
    assert_eq!(s.ok("pwd").await, format!("{w_text}/sub2"));
    let missing = s.err("cd /nonexistent-dir-7f3a").await;
    assert_eq!(
        missing,
        format!("Exit code 1\n{}: line 1: cd: /nonexistent-dir-7f3a: No such file or directory", shell())
    );
    assert_eq!(s.ok("pwd").await, format!("{w_text}/sub2"));
    assert_eq!(s.ok("export CASE_VAR=42; echo $CASE_VAR").await, "42");
    assert_eq!(s.ok("echo \"${CASE_VAR-unset}\"").await, "unset");
    assert_eq!(s.ok(&format!("cd {w_text}/sub2")).await, "(Bash completed with no output)");
    assert_eq!(s.ok(&format!("rmdir {w_text}/sub2")).await, "(Bash completed with no output)");
    let (text, is_error, took) = s.run(json!({"command": "pwd"})).await;
    assert_eq!((text.as_str(), is_error), (format!("{w_text}\nShell cwd was reset to {w_text}").as_str(), false));
    assert!(took < Duration::from_secs(2));
    assert_eq!(s.ctx.cwd, w);
    assert_eq!(s.ok("echo still-alive").await, "still-alive");
}

/// Claude Code's `bash-cwd` record: a `cd` out of the working directories is undone and said.
#[tokio::test]
async fn a_cd_out_of_the_working_directories_is_reset() {
    let (_dir, w) = workdir();
    let w_text = text_of(&w);
    fs::create_dir_all(w.join("sub")).unwrap();
    let mut s = Session::new(&w);
    s.ok("cd sub").await;
    assert_eq!(s.ctx.cwd, w.join("sub"));
    assert_eq!(s.ok("cd / && pwd").await, format!("/\nShell cwd was reset to {w_text}"));
    assert_eq!(s.ctx.cwd, w, "back in the project, not in sub");
    assert_eq!(s.ok("pwd").await, w_text);
    // Inside the working directories a cd stays.
    assert_eq!(s.ok("cd sub && pwd").await, format!("{w_text}/sub"));
}

#[tokio::test]
async fn exit_keeps_the_directory_it_left_from() {
    let (_dir, w) = workdir();
    fs::create_dir_all(w.join("a")).unwrap();
    let mut s = Session::new(&w);
    assert_eq!(s.err("cd a; exit 5").await, "Exit code 5");
    assert_eq!(s.ctx.cwd, w.join("a"));
}

#[tokio::test]
async fn a_timed_out_command_keeps_the_directory_it_reached() {
    let (_dir, w) = workdir();
    fs::create_dir_all(w.join("a")).unwrap();
    let mut s = Session::new(&w);
    let (text, _, _) = s.run(json!({"command": "cd a && sleep 5", "timeout": 300})).await;
    assert_eq!(text, "Exit code 143\nCommand timed out after 0.3s");
    assert_eq!(s.ctx.cwd, w.join("a"));
}

#[tokio::test]
async fn a_call_runs_in_the_context_working_directory() {
    let (_dir, w) = workdir();
    fs::create_dir_all(w.join("inner dir")).unwrap();
    let mut session = Session::new(&w.join("inner dir"));
    assert_eq!(session.ok("pwd").await, format!("{}/inner dir", text_of(&w)));
    assert_eq!(session.ok("touch here.txt && ls").await, "here.txt");
    assert!(w.join("inner dir/here.txt").is_file());
}

#[tokio::test]
async fn no_context_change_when_the_directory_stays() {
    let (_dir, w) = workdir();
    let mut session = Session::new(&w);
    let done = session.invoke(json!({"command": "cd . && cd \"$PWD\""})).await;
    assert!(done.context_modifier.is_none());
}

// ----- huge output is bounded, keeps head and tail, and runs to completion -----

#[tokio::test]
async fn case_037_huge_output() {
    let (_dir, w) = workdir();
    let mut s = Session::new(&w);
    let (text, is_error, took) = s.run(json!({"command": "seq 1 200000"})).await;
    assert!(!is_error);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(text.chars().count() <= 30_000, "{} characters", text.chars().count());
    assert!(text.starts_with("1\n2\n3"));
    assert!(text.ends_with("199999\n200000"));
    let full: String = (1..=200_000).map(|i| i.to_string()).collect::<Vec<_>>().join("\n");
    assert_cut(&text, &full);

    let (text, is_error, took) =
        s.run(json!({"command": "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END"})).await;
    assert!(!is_error);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(text.chars().count() <= 30_000, "{} characters", text.chars().count());
    assert!(text.starts_with("aaaa"));
    assert!(text.ends_with("aaa\nEND"));
    assert_cut(&text, &format!("{}\nEND", "a".repeat(3_000_000)));
    assert!(text.contains("\n\n... [1 line ("), "{}", &text[14_000..15_500]);

    assert_eq!(s.ok("seq 1 200000 > /dev/null; echo ok").await, "ok");
}

#[tokio::test]
async fn failed_commands_are_cut_to_the_error_limit() {
    let (_dir, w) = workdir();
    let text = Session::new(&w).err("seq 1 100000; exit 2").await;
    assert!(text.chars().count() <= 10_000, "{} characters", text.chars().count());
    let body = text.strip_prefix("Exit code 2\n").unwrap();
    assert!(body.starts_with("1\n2\n3\n"));
    assert!(body.ends_with("99999\n100000"));
    let full: String = (1..=100_000).map(|i| i.to_string()).collect::<Vec<_>>().join("\n");
    assert_cut(body, &full);
}

// ----- nothing waits for a terminal -----

#[tokio::test]
async fn pagers_and_editors_never_block() {
    let (_dir, w) = workdir();
    let mut s = Session::new(&w);
    s.ok("git init -q repo && cd repo && git config user.name Tester && git config user.email t@example.com \
          && git config core.pager less && git commit -q --allow-empty -m first-commit")
        .await;
    let (log, is_error, took) = s.run(json!({"command": "git -p log --format=%s", "timeout": 10000})).await;
    assert_eq!((log.as_str(), is_error), ("first-commit", false));
    assert!(took < Duration::from_secs(5));
    let (text, is_error, took) =
        s.run(json!({"command": "echo x > f && git add f && git commit", "timeout": 10000})).await;
    assert!(is_error, "{text}");
    assert!(text.starts_with("Exit code 1\n"), "{text}");
    assert!(text.contains("Aborting commit due to empty commit message"), "{text}");
    assert!(took < Duration::from_secs(5));
}

#[tokio::test]
async fn the_environment_turns_off_terminals() {
    let (_dir, w) = workdir();
    let text = Session::new(&w)
        .ok("echo $PAGER $GIT_PAGER $MANPAGER $GIT_EDITOR $EDITOR $VISUAL $GIT_TERMINAL_PROMPT $CLAUDECODE $AGENT_TOOLS")
        .await;
    assert_eq!(text, "cat cat cat true true true 0 1 1");
    // Positional parameters are empty, as in a fresh `bash -c`.
    assert_eq!(Session::new(&w).ok("echo \"[$#][$1]\"").await, "[0][]");
}

// ----- the contract -----

#[tokio::test]
async fn contract_members() {
    let tool = agent_tool_bash::tool();
    assert_eq!(tool.name(), "Bash");
    assert_eq!(tool.max_result_size_chars(), MaxResultSize::Chars(30_000));
    assert_eq!(
        tool.flags(),
        ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: true }
    );
    let parsed = tool.parse(json!({"command": "ls", "description": "List files"})).unwrap();
    // Input-driven: a listing only reads and may run beside other reads; a write does not.
    assert!(tool.is_read_only(&parsed));
    assert!(tool.is_concurrency_safe(&parsed));
    let writes = tool.parse(json!({"command": "touch x"})).unwrap();
    assert!(!tool.is_read_only(&writes) && !tool.is_concurrency_safe(&writes));
    // A `cd` only reads, but the directory it ends in must carry over in order: it runs alone.
    let moves = tool.parse(json!({"command": "cd src && ls"})).unwrap();
    assert!(tool.is_read_only(&moves) && !tool.is_concurrency_safe(&moves));
    assert_eq!(tool.summary(&parsed), "List files");
    assert_eq!(tool.get_path(&parsed), None);
    assert_eq!(tool.activity_description(&parsed).as_deref(), Some("Running List files"));
    let bare = tool.parse(json!({"command": "ls -la"})).unwrap();
    assert_eq!(tool.summary(&bare), "ls -la");
    assert!(tool.description(&Default::default()).contains("120000"));
}

#[tokio::test]
async fn schema_has_claude_codes_five_fields_and_rejects_others() {
    let tool = agent_tool_bash::tool();
    let schema = tool.input_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["command"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"]
    );
    assert_eq!(properties["dangerouslyDisableSandbox"]["type"], "boolean");
    assert_eq!(properties["command"]["type"], "string");
    assert_eq!(properties["timeout"]["type"], "number");
    assert_eq!(properties["description"]["type"], "string");
    assert_eq!(properties["run_in_background"]["type"], "boolean");
    let (_dir, w) = workdir();
    let (text, is_error, _) = Session::new(&w).run(json!({"command": "echo", "bogus": true})).await;
    assert!(is_error);
    assert!(text.starts_with("<tool_use_error>InputValidationError:"), "{text}");
    let (text, is_error, _) = Session::new(&w).run(json!({"command": "echo", "timeout": "soon"})).await;
    assert!(is_error);
    assert!(text.starts_with("<tool_use_error>InputValidationError:"), "{text}");
    // `false`, and the string forms, run in the foreground as usual.
    for flag in [json!(false), json!("false")] {
        let (text, is_error, _) = Session::new(&w).run(json!({"command": "echo fg", "run_in_background": flag})).await;
        assert_eq!((text.as_str(), is_error), ("fg", false));
    }
}

#[tokio::test]
async fn without_background_tasks_the_field_is_gone() {
    let config = BashConfig { background_tasks: false, ..BashConfig::default() };
    let tool = agent_tool_bash::tool_with(config);
    let properties = tool.input_schema()["properties"].as_object().unwrap().clone();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["command", "timeout", "description", "dangerouslyDisableSandbox"]
    );
    assert!(!tool.description(&Default::default()).contains("run_in_background"));
    assert!(agent_tool_bash::tool().description(&Default::default()).contains("run_in_background"));
    let (_dir, w) = workdir();
    let (text, is_error, _) =
        Session::with_tool(tool, &w).run(json!({"command": "echo", "run_in_background": true})).await;
    assert!(is_error);
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: Bash failed due to the following issue:\nAn unexpected parameter `run_in_background` was provided</tool_use_error>"
    );
}

#[tokio::test]
async fn structured_output() {
    let (_dir, w) = workdir();
    let done = Session::new(&w).invoke(json!({"command": "echo hi; exit 2"})).await;
    let data = done.data.unwrap();
    let json = data.to_json();
    assert_eq!(json["stdout"], "hi");
    assert_eq!(json["stderr"], "");
    assert_eq!(json["interrupted"], false);
    assert_eq!(json["exitCode"], 2);
    assert_eq!(json["cwd"], text_of(&w));
    let output = data.as_any().downcast_ref::<BashOutput>().unwrap();
    assert!(output.is_error());
    assert_eq!(output.output_bytes, 3);
}

#[tokio::test]
async fn progress_reports_while_running() {
    let (_dir, w) = workdir();
    let config = BashConfig {
        progress_after: Duration::from_millis(50),
        progress_every: Duration::from_millis(50),
        ..BashConfig::default()
    };
    let tool = agent_tool_bash::tool_with(config);
    let events: Arc<Mutex<Vec<ProgressEvent>>> = Arc::default();
    let sink = events.clone();
    let mut ctx = ToolUseContext::new(&w);
    ctx.progress = Some(Arc::new(move |event| sink.lock().unwrap().push(event)));
    let done = call_tool(tool.as_ref(), "toolu_p", json!({"command": "echo one; echo two; sleep 0.4"}), &ctx).await;
    assert_eq!(done.block.content.text(), "one\ntwo");
    let events = events.lock().unwrap();
    assert!(!events.is_empty());
    let last = events.last().unwrap();
    assert_eq!((last.tool_name.as_str(), last.tool_use_id.as_str()), ("Bash", "toolu_p"));
    assert_eq!(last.data["output"], "one\ntwo");
    assert_eq!(last.data["totalBytes"], 8);
    assert_eq!(last.data["timeoutMs"], 120_000);
}

#[tokio::test]
async fn a_missing_shell_is_a_plain_error() {
    let (_dir, w) = workdir();
    let config = BashConfig { shell: w.join("no-such-shell"), ..BashConfig::default() };
    let mut session = Session::with_tool(agent_tool_bash::tool_with(config), &w);
    let (text, is_error, _) = session.run(json!({"command": "echo hi"})).await;
    assert!(is_error);
    assert!(text.starts_with(&format!("Could not run {}/no-such-shell: ", text_of(&w))), "{text}");
}

#[tokio::test]
async fn temporary_files_are_removed() {
    let (_dir, w) = workdir();
    let (_tmp, tmp) = workdir();
    let config = BashConfig { temp_dir: Some(tmp.clone()), ..BashConfig::default() };
    let mut session = Session::with_tool(agent_tool_bash::tool_with(config), &w);
    assert_eq!(session.ok("echo hi").await, "hi");
    session.err("exit 1").await;
    let (text, _, _) = session.run(json!({"command": "sleep 5", "timeout": 200})).await;
    assert!(text.starts_with("Exit code 143"));
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[tokio::test]
async fn permissions_follow_bash_rules_and_read_only_commands() {
    use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.permission_context = std::sync::Arc::new(
        ToolPermissionContext::default()
            .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Bash(rm:*)")
            .with_rule(PermissionBehavior::Allow, PermissionRuleSource::Session, "Bash(make test:*)"),
    );
    // A trusted folder: there a read-only git runs unasked (in an untrusted one it asks).
    ctx.options.workspace_trusted = true;
    let tool = agent_tool_bash::tool();
    let decide = |command: &str| {
        let parsed = tool.parse(json!({"command": command})).unwrap();
        let ctx = ctx.clone();
        let tool = tool.clone();
        async move { tool.check_permissions(&parsed, &ctx).await.behavior() }
    };
    assert_eq!(decide("FOO=1 rm -rf x").await, "deny");
    assert_eq!(decide("ls -la && git status").await, "allow");
    assert_eq!(decide("make test -j2").await, "allow");
    assert_eq!(decide("make test; touch x").await, "passthrough");
    assert_eq!(decide("echo $(id)").await, "passthrough");
}

// ----- exit codes that are answers, not failures (Claude Code's command semantics) -----

#[tokio::test]
async fn exit_code_one_of_grep_find_diff_and_test_is_not_an_error() {
    let (_dir, w) = workdir();
    fs::write(w.join("a.txt"), "one\ntwo\n").unwrap();
    fs::write(w.join("b.txt"), "one\nthree\n").unwrap();
    let mut s = Session::new(&w);
    assert_eq!(s.ok("grep nothing-here a.txt").await, "(Bash completed with no output)");
    assert_eq!(s.ok("cat a.txt | grep nothing-here").await, "(Bash completed with no output)");
    assert_eq!(s.ok("LC_ALL=C rg nothing-here a.txt 2>/dev/null || grep -c nothing-here a.txt").await, "0");
    assert_eq!(s.ok("diff a.txt b.txt").await, "2c2\n< two\n---\n> three");
    assert_eq!(s.ok("test -f missing.txt").await, "(Bash completed with no output)");
    assert_eq!(s.ok("[ -d missing ]").await, "(Bash completed with no output)");
    let find = s.ok("find . missing-path -name a.txt").await;
    assert!(
        find.starts_with("./a.txt\nfind: ") && find.ends_with("missing-path’: No such file or directory")
            || find.ends_with("missing-path': No such file or directory"),
        "{find}"
    );
    // 2 and more are errors for them too; and exit code 1 of anything else is.
    assert_eq!(s.err("grep x missing.txt").await, "Exit code 2\ngrep: missing.txt: No such file or directory");
    assert_eq!(s.err("diff a.txt missing.txt").await, "Exit code 2\ndiff: missing.txt: No such file or directory");
    assert_eq!(s.err("grep nothing-here a.txt | wc -l; false").await, "Exit code 1\n0");
    assert_eq!(
        s.err("grep -q one a.txt && ls missing").await,
        "Exit code 2\nls: cannot access 'missing': No such file or directory"
    );
    // The structured output says what the code meant.
    let done = s.invoke(json!({"command": "grep nothing-here a.txt"})).await;
    let json = done.data.unwrap().to_json();
    assert_eq!((json["exitCode"].clone(), json["failed"].clone()), (json!(1), json!(false)));
    assert_eq!(json["returnCodeInterpretation"], "No matches found");
}

// ----- pagers and editors never wait for a terminal -----

#[tokio::test]
async fn git_log_rebase_and_commit_never_wait_for_a_pager_or_editor() {
    let (_dir, w) = workdir();
    let mut s = Session::new(&w);
    let (setup, is_error, _) = s
        .run(json!({"command": "git init -q -b main repo && cd repo && git config user.name Tester \
            && git config user.email t@example.com && git config core.pager less && git config core.editor vi \
            && for i in $(seq 1 150); do echo $i > f; git add f; git commit -q -m \"commit $i\"; done && git log --oneline | wc -l",
            "timeout": 120_000}))
        .await;
    assert_eq!((setup.as_str(), is_error), ("150", false));
    let (log, is_error, _) = s.run(json!({"command": "git -p log --format=%s", "timeout": 20_000})).await;
    assert!(!is_error, "{log}");
    assert_eq!(log.lines().count(), 150);
    assert_eq!(log.lines().next(), Some("commit 150"));
    // An interactive rebase takes the todo list as it is (GIT_SEQUENCE_EDITOR=true) and finishes.
    let (rebase, is_error, _) = s.run(json!({"command": "git rebase -i HEAD~3 2>&1", "timeout": 20_000})).await;
    assert!(!is_error, "{rebase}");
    assert!(rebase.contains("Successfully rebased"), "{rebase}");
    // A commit without -m gets an empty message from the editor and stops, at once.
    let (commit, is_error, _) =
        s.run(json!({"command": "echo x > g && git add g && git commit", "timeout": 20_000})).await;
    assert!(is_error);
    assert!(commit.contains("Aborting commit due to empty commit message"), "{commit}");
}

// ----- output too long to show is saved whole -----

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_is_saved_whole_under_the_session() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let mut s = Session::new(&w);
    s.ctx.options.session_dir = Some(state.clone());
    let done = s.invoke(json!({"command": "seq 1 200000"})).await;
    let text = done.block.content.text();
    assert!(!done.block.is_error);
    assert!(text.chars().count() <= 30_000, "{} characters", text.chars().count());
    assert!(text.starts_with("1\n2\n3\n"));
    assert!(text.ends_with("\n199999\n200000"));
    let saved = state.join("tool-results/toolu_test.txt");
    let full: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(fs::read_to_string(&saved).unwrap(), full);
    let block = format!(
        "] ...\n<persisted-output>\nOutput too large (1.2MB). Full output saved to: {}\n</persisted-output>\n\n",
        saved.display()
    );
    let at = text.find("] ...").unwrap();
    assert!(text.contains(&block), "{}", &text[at - 100..at + 300]);
    // Head and tail are still exact: the block sits inside the marker.
    assert_cut(&text.replacen(&block, "] ...\n\n", 1), full.trim_end());
    let json = done.data.unwrap().to_json();
    assert_eq!(json["persistedOutputPath"], text_of(&saved));
    assert_eq!(json["persistedOutputSize"], full.len());
    // Output that fits is not saved.
    let small = s.invoke(json!({"command": "seq 1 10"})).await;
    assert!(small.data.unwrap().to_json().get("persistedOutputPath").is_none());
    assert_eq!(fs::read_dir(state.join("tool-results")).unwrap().count(), 1);
}
