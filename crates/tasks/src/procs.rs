//! Finding and stopping every process a task started.
//!
//! A task's shell leads its own session and process group (it runs on its own pseudo-terminal),
//! and every process it starts carries the task's marker in its environment
//! ([`MARKER_VAR`]`=<task id>`). A task's processes are those in its group or session — while its
//! shell has not been reaped, so the group's id cannot have been reused — and those with its
//! marker, which also finds children that moved to a group or session of their own (`setsid`,
//! a shell with job control) and anything left after the shell was reaped.
//!
//! Stopping ([`terminate`]) sends SIGTERM to all of them, waits up to a grace period for them to
//! exit, then sends SIGKILL to whatever is left (a process that ignores SIGTERM included) until
//! none is. Linux only (it reads `/proc`); elsewhere only the process group is signalled.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The environment variable that marks a task's processes: `AGENT_TOOLS_TASK_ID=<task id>`.
pub const MARKER_VAR: &str = "AGENT_TOOLS_TASK_ID";

/// How often [`terminate`] looks whether the processes are gone.
const POLL: Duration = Duration::from_millis(10);

/// How long [`terminate`] keeps sending SIGKILL after the grace period, at most.
const KILL_WINDOW: Duration = Duration::from_secs(5);

/// One task's processes, as [`terminate`] finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The task's group and session id (its shell's pid), while the shell is not reaped.
    pub group: Option<i32>,
    /// The task's id, as its marker carries it.
    pub task_id: String,
}

/// A process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    state: char,
    group: i32,
    session: i32,
}

/// Parses the fields after the command name (which may hold spaces and parentheses).
fn parse_stat(text: &str) -> Option<Stat> {
    let (_, rest) = text.rsplit_once(") ")?;
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let _parent = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    Some(Stat { state, group, session })
}

/// Whether an environment block (`/proc/<pid>/environ`: `KEY=value` entries separated by NUL)
/// carries one of these task ids.
fn marked(environ: &[u8], task_ids: &HashSet<&str>) -> bool {
    let prefix = format!("{MARKER_VAR}=");
    environ.split(|byte| *byte == 0).any(|entry| {
        entry
            .strip_prefix(prefix.as_bytes())
            .and_then(|value| std::str::from_utf8(value).ok())
            .is_some_and(|value| task_ids.contains(value))
    })
}

/// The live processes (zombies excluded) that belong to the targets, never this process or init.
pub fn members(targets: &[Target]) -> Vec<i32> {
    if !cfg!(target_os = "linux") {
        return Vec::new();
    }
    let groups: HashSet<i32> = targets.iter().filter_map(|target| target.group).collect();
    let task_ids: HashSet<&str> = targets.iter().map(|target| target.task_id.as_str()).collect();
    let me = i32::try_from(std::process::id()).unwrap_or(0);
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        if pid <= 1 || pid == me {
            continue;
        }
        // Processes come and go while we look: anything unreadable is skipped.
        let Some(stat) = std::fs::read_to_string(entry.path().join("stat")).ok().as_deref().and_then(parse_stat) else {
            continue;
        };
        if stat.state == 'Z' || stat.state == 'X' {
            continue;
        }
        let belongs = groups.contains(&stat.group)
            || groups.contains(&stat.session)
            || std::fs::read(entry.path().join("environ")).is_ok_and(|environ| marked(&environ, &task_ids));
        if belongs {
            found.push(pid);
        }
    }
    found
}

/// Sends `signal` to the targets' groups and to every process [`members`] finds; returns how many
/// processes were found.
fn signal_all(targets: &[Target], signal: Signal) -> usize {
    for group in targets.iter().filter_map(|target| target.group) {
        let _ = killpg(Pid::from_raw(group), signal);
    }
    let found = members(targets);
    for pid in &found {
        let _ = kill(Pid::from_raw(*pid), signal);
    }
    found.len()
}

/// Stops every process of the targets: SIGTERM, up to `grace` for them to exit, then SIGKILL
/// until none is left (for at most a few seconds more). Returns the number of processes still
/// found at the end (0 unless something outlived SIGKILL, such as a process stuck in the kernel).
pub fn terminate(targets: &[Target], grace: Duration) -> usize {
    if targets.is_empty() {
        return 0;
    }
    if signal_all(targets, Signal::SIGTERM) == 0 && targets.iter().all(|target| target.group.is_none()) {
        return 0;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if members(targets).is_empty() {
            // The groups may still hold a member that /proc did not show yet; SIGKILL is harmless.
            break;
        }
        std::thread::sleep(POLL);
    }
    let deadline = Instant::now() + KILL_WINDOW;
    loop {
        let left = signal_all(targets, Signal::SIGKILL);
        if left == 0 || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let stat = parse_stat("4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 0 0").unwrap();
        assert_eq!(stat, Stat { state: 'S', group: 4242, session: 4242 });
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn markers_match_exact_task_ids() {
        let ids: HashSet<&str> = ["b12345678"].into_iter().collect();
        assert!(marked(b"PATH=/bin\0AGENT_TOOLS_TASK_ID=b12345678\0HOME=/root\0", &ids));
        assert!(!marked(b"AGENT_TOOLS_TASK_ID=b123456789\0", &ids));
        assert!(!marked(b"X_AGENT_TOOLS_TASK_ID=b12345678\0", &ids));
        assert!(!marked(b"", &ids));
    }

    #[test]
    fn this_process_is_never_a_member() {
        let me = i32::try_from(std::process::id()).unwrap();
        let target = Target { group: nix::unistd::getpgid(None).ok().map(Pid::as_raw), task_id: "bnone".into() };
        assert!(!members(&[target]).contains(&me));
    }
}
