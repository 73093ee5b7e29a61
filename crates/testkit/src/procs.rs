//! Finding the processes a test started, and waiting for a condition: what the tests of
//! background tasks, TaskStop, the CLI and the MCP server all check ("no process left").

use std::time::{Duration, Instant};

/// How often [`eventually`] and [`eventually_blocking`] check.
const POLL: Duration = Duration::from_millis(20);

/// True while the process exists and is not a zombie (or dead).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Whether the process has ended: gone, or a zombie that is not this process's child (so it is
/// not ours to reap: its parent, or init, does). Stricter than `!alive(pid)`: a child of this
/// process not yet reaped has not ended.
pub fn ended(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return true };
    let Some((_, rest)) = stat.rsplit_once(") ") else { return true };
    let mut fields = rest.split(' ');
    let state = fields.next().unwrap_or("");
    let parent: u32 = fields.next().and_then(|field| field.parse().ok()).unwrap_or(0);
    (state == "Z" || state == "X") && parent != std::process::id()
}

/// Live processes with a command-line argument for which `matches` holds.
pub fn live_processes_with_arg(matches: impl Fn(&str) -> bool) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if cmdline.split(|b| *b == 0).any(|arg| matches(&String::from_utf8_lossy(arg))) && alive(pid) {
            found.push(pid);
        }
    }
    found
}

/// Live processes with a command-line argument containing `.<token>` (tests start
/// `sleep 3001.<token>` and the like, so their processes can be found and none is missed).
pub fn carrying(token: &str) -> Vec<i32> {
    let needle = format!(".{token}");
    live_processes_with_arg(|arg| arg.contains(&needle))
}

/// Polls `check` every 20 ms until it holds or `limit` passes; returns whether it held.
pub async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !check() {
        if Instant::now() >= deadline {
            return false;
        }
        // tidy:allow-sleep the poll interval of the deadline poll tests use instead of sleeping.
        tokio::time::sleep(POLL).await;
    }
    true
}

/// [`eventually`] for tests without an async runtime (the thread sleeps between checks).
pub fn eventually_blocking(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !check() {
        if Instant::now() >= deadline {
            return false;
        }
        // tidy:allow-sleep the poll interval of the deadline poll tests use instead of sleeping.
        std::thread::sleep(POLL);
    }
    true
}

/// A token no other process on the machine carries: this process's id and a counter
/// (`<pid><nnn>`), unique per call. Tests put it in their commands' arguments
/// (`sleep 3001.<token>`) so [`carrying`] finds exactly their processes.
pub fn unique_token() -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    format!("{}{:03}", std::process::id(), NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// On drop, SIGKILLs every live process carrying the token: what a failed test left behind
/// never outlives it.
#[derive(Debug)]
pub struct Reaper(pub String);

impl Drop for Reaper {
    fn drop(&mut self) {
        for pid in carrying(&self.0) {
            let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    }
}

/// A command that runs test `role` of this very test binary as a process of its own: an
/// `#[ignore]`d test doing one process's part of a multi-process test (several writers of one
/// file, say), run alone with its output shown. Its stdin is piped, for [`release`], and its
/// stdout discarded (set another before spawning to read it); the role reads its inputs from
/// environment variables the caller sets.
///
/// # Panics
/// When the test binary's own path cannot be found.
pub fn test_role(role: &str) -> std::process::Command {
    let mut command = std::process::Command::new(std::env::current_exe().expect("the test binary's path"));
    command
        .args([role, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    command
}

/// Lets every child started with [`test_role`] go at once (each waits in [`await_release`]):
/// writes `go` to each one's stdin and closes it. A child whose stdin is gone is skipped.
pub fn release(children: &mut [std::process::Child]) {
    use std::io::Write as _;
    for child in children {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(b"go\n");
        }
    }
}

/// In a [`test_role`]: waits until the parent [`release`]s this process (or goes away).
pub fn await_release() {
    let mut go = String::new();
    let _ = std::io::stdin().read_line(&mut go);
}

/// `program` run in `cwd` as a user with nothing of the caller's: its home, state and config
/// folders inside `cwd`, no `CLAUDE_CONFIG_DIR`, no Anthropic token or model and no
/// OpenAI-compatible server from the caller's environment, and standard input closed. The
/// agent-tools program of the CLI tests and of the add-a-tool test runs this way.
pub fn isolated_command(program: impl AsRef<std::ffi::OsStr>, cwd: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command
        .current_dir(cwd)
        .env("HOME", cwd.join(".home"))
        .env("XDG_STATE_HOME", cwd.join(".state"))
        .env("XDG_CONFIG_HOME", cwd.join(".home/.config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("ANTHROPIC_MODEL")
        .env_remove("AGENT_TOOLS_OPENAI_BASE_URL")
        .stdin(std::process::Stdio::null());
    command
}
