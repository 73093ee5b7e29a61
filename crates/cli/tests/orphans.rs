//! `agent-tools serve` and `agent-tools run` killed with SIGKILL while Bash commands run: the
//! commands end anyway, with what they started in sessions of their own (the process's watchdog
//! ends them), and the watchdog goes too. Every wait is a poll with a deadline.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agent_tools_testkit::procs::Reaper;
use agent_tools_testkit::{alive, carrying, eventually_blocking};
use serde_json::{Value, json};

/// The program with a clean environment: no user settings, no state outside the test folder.
fn command(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command.env("HOME", cwd.join(".home")).env("XDG_STATE_HOME", cwd.join(".state")).arg("--cwd").arg(cwd);
    command.env("XDG_CONFIG_HOME", cwd.join(".home/.config")).env_remove("CLAUDE_CONFIG_DIR");
    command.env_remove("ANTHROPIC_API_KEY").env_remove("ANTHROPIC_BASE_URL");
    command.stdout(Stdio::null()).stderr(Stdio::null());
    command
}

/// A Bash command that starts a `setsid` child (`a.pid`) and a `setsid -f` orphan (`b.pid`), writes
/// the shell's own pid (`root.pid`) and sleeps. Its processes carry `.<token>` in an argument.
fn bash_input(token: &str, background: bool) -> Value {
    let command = format!(
        "setsid sh -c 'echo $$ > a.pid; exec sleep 3301.{token}' & \
         (setsid -f sh -c 'echo $$ > b.pid; exec sleep 3302.{token}'); \
         echo $$ > root.pid; sleep 3303.{token}"
    );
    let mut input = json!({"command": command, "timeout": 600_000});
    if background {
        input["run_in_background"] = json!(true);
    }
    input
}

/// The pids in `a.pid`, `b.pid` and `root.pid`, once all are written.
fn written(dir: &Path) -> Vec<i32> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(format!("{name}.pid"))).ok().and_then(|text| text.trim().parse::<i32>().ok())
    };
    let names = ["a", "b", "root"];
    assert!(eventually_blocking(Duration::from_secs(30), || names.iter().all(|name| read(name).is_some())));
    names.iter().filter_map(|name| read(name)).collect()
}

/// The watchdog the program started (its child named `agent-tools-watchdog`).
fn watchdog_of(program: u32) -> Option<i32> {
    let entries = std::fs::read_dir("/proc").ok()?;
    entries.flatten().find_map(|entry| {
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        let parent: u32 = stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()?;
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let named = cmdline.split(|byte| *byte == 0).any(|arg| arg == b"agent-tools-watchdog");
        (parent == program && named).then_some(pid)
    })
}

/// SIGKILLs the program once its command runs, then checks that nothing is left: the command's
/// processes (by pid and by token) and the watchdog.
fn kill_and_check(mut program: Child, dir: &Path, token: &str) {
    let pids = written(dir);
    // The shell, its sleep and the two that left its session (the shell's arguments carry the token).
    assert!(eventually_blocking(Duration::from_secs(30), || carrying(token).len() >= 4), "{:?}", carrying(token));
    let watchdog = watchdog_of(program.id());
    assert!(watchdog.is_some(), "the program runs a watchdog");
    program.kill().unwrap();
    program.wait().unwrap();
    let gone = eventually_blocking(Duration::from_secs(30), || {
        carrying(token).is_empty() && pids.iter().all(|pid| !alive(*pid))
    });
    assert!(gone, "left running: {:?} of {pids:?}", carrying(token));
    assert!(
        eventually_blocking(Duration::from_secs(30), || watchdog.is_none_or(|pid| !alive(pid))),
        "the watchdog {watchdog:?} stayed"
    );
}

#[test]
fn a_killed_server_leaves_no_command_running_foreground_or_background() {
    for (n, background) in [(1, false), (2, true)] {
        let dir = tempfile::tempdir().unwrap();
        let token = format!("{}{n}", std::process::id());
        let _reaper = Reaper(token.clone());
        let mut server = command(dir.path()).arg("serve").stdin(Stdio::piped()).spawn().unwrap();
        let mut stdin = server.stdin.take().unwrap();
        let messages = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "orphans", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "Bash", "arguments": bash_input(&token, background)}}),
        ];
        for message in messages {
            writeln!(stdin, "{message}").unwrap();
        }
        stdin.flush().unwrap();
        // stdin stays open: the server is killed, it does not see its input end.
        kill_and_check(server, dir.path(), &token);
        drop(stdin);
    }
}

#[test]
fn a_killed_run_leaves_no_command_running() {
    let dir = tempfile::tempdir().unwrap();
    let token = format!("{}3", std::process::id());
    let _reaper = Reaper(token.clone());
    let turn = json!([{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": bash_input(&token, false)}]);
    let file = dir.path().join("turn.json");
    std::fs::write(&file, turn.to_string()).unwrap();
    let run = command(dir.path()).arg("--dangerously-skip-permissions").arg("run").arg(&file).spawn().unwrap();
    kill_and_check(run, dir.path(), &token);
}
