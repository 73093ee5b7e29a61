//! The watchdog on real processes: when the program's end of its socket closes (as when the
//! program is killed), it ends every registered command — the root's tree, and whatever carries
//! the marker after leaving it — and leaves everything else alone. Waits poll with deadlines.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agent_tools_background::lifeline::Watchdog;
use agent_tools_background::procs::ProcessId;
use agent_tools_testkit::{alive, eventually_blocking};

/// A command in its own process group with `marker` in its environment: a setsid child (`a`),
/// a setsid -f orphan (`b`), a child with a cleared environment (`c`, found as the root's child
/// only); the shell then becomes `sleep`. Each writes its pid to `<prefix><name>.pid`.
fn tree(dir: &Path, prefix: &str, marker: (&str, &str)) -> Child {
    let script = format!(
        r#"setsid sh -c 'echo $$ > {prefix}a.pid; exec sleep 300' &
(setsid -f sh -c 'echo $$ > {prefix}b.pid; exec sleep 300')
env -i /bin/sh -c 'echo $$ > {prefix}c.pid; exec sleep 300' &
exec sleep 300"#
    );
    Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .env(marker.0, marker.1)
        .current_dir(dir)
        .stdin(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap()
}

fn pid_file(dir: &Path, name: &str) -> i32 {
    let path = dir.join(format!("{name}.pid"));
    let read = || std::fs::read_to_string(&path).ok().and_then(|text| text.trim().parse::<i32>().ok());
    assert!(eventually_blocking(Duration::from_secs(20), || read().is_some()), "no {name}.pid");
    read().unwrap()
}

/// Kills by pid what a failed test left running.
struct Leftovers(Vec<i32>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for pid in &self.0 {
            if alive(*pid) {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(*pid), nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}

#[test]
fn a_closed_watchdog_ends_what_it_watches_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let mut watchdog = Watchdog::start().unwrap();
    let watchdog_pid = i32::try_from(watchdog.id()).unwrap();

    // Watched, with its root.
    let marker = ("AGENT_TOOLS_TEST_MARKER", format!("w{}", std::process::id()));
    let mut watched = tree(dir.path(), "w", (marker.0, &marker.1));
    // Watched, then forgotten; and never watched at all.
    let forgotten_marker = ("AGENT_TOOLS_TEST_MARKER", format!("f{}", std::process::id()));
    let mut forgotten = tree(dir.path(), "f", (forgotten_marker.0, &forgotten_marker.1));
    let mut unwatched = tree(dir.path(), "u", ("AGENT_TOOLS_TEST_MARKER", "other"));

    let mut pids = Vec::new();
    for prefix in ["w", "f", "u"] {
        for name in ["a", "b", "c"] {
            pids.push(pid_file(dir.path(), &format!("{prefix}{name}")));
        }
    }
    let roots = [watched.id(), forgotten.id(), unwatched.id()].map(|pid| i32::try_from(pid).unwrap());
    let _leftovers = Leftovers(pids.iter().chain(&roots).copied().collect());

    let entry = |(key, value): (&str, &String)| format!("{key}={value}");
    watchdog.watch(&entry((marker.0, &marker.1))).unwrap();
    watchdog.set_root(&entry((marker.0, &marker.1)), ProcessId::of(roots[0]).unwrap()).unwrap();
    let forgotten_entry = entry((forgotten_marker.0, &forgotten_marker.1));
    watchdog.set_root(&forgotten_entry, ProcessId::of(roots[1]).unwrap()).unwrap();
    watchdog.forget(&forgotten_entry).unwrap();
    assert!(watchdog.watch("no marker").is_err(), "white space is refused");

    // As if this process were killed: the watchdog reads end of file, and the drop waits for it.
    drop(watchdog);
    assert!(!alive(watchdog_pid), "the watchdog exited");
    let _ = watched.wait();
    let ended = |pid: &i32| !alive(*pid);
    assert!(ended(&roots[0]), "the watched root");
    assert!(pids[..3].iter().all(ended), "the watched tree: {:?}", &pids[..3]);
    assert!(alive(roots[1]) && alive(roots[2]), "the other roots");
    assert!(pids[3..].iter().all(|pid| alive(*pid)), "the other trees: {:?}", &pids[3..]);
    let _ = forgotten.kill();
    let _ = unwatched.kill();
    let _ = forgotten.wait();
    let _ = unwatched.wait();
}

#[test]
fn a_root_that_is_no_longer_the_same_process_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut watchdog = Watchdog::start().unwrap();
    let mut child = Command::new("/bin/sh")
        .args(["-c", "exec sleep 300"])
        .current_dir(dir.path())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = i32::try_from(child.id()).unwrap();
    let _leftovers = Leftovers(vec![pid]);
    let real = ProcessId::of(pid).unwrap();
    // The same pid with another start time: a reused pid, not the command's root.
    watchdog.set_root("AGENT_TOOLS_TEST_MARKER=none", ProcessId { pid, start: real.start + 1 }).unwrap();
    drop(watchdog);
    assert!(alive(pid));
    let _ = child.kill();
    let _ = child.wait();
}
