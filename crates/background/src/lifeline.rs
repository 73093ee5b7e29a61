//! Commands that end with the process that started them, however it ends — SIGKILL included.
//!
//! A process cannot act once it is killed, so something else has to: a *watchdog*, a small
//! `/bin/sh` script (`watchdog.sh`, only shell built-ins, `grep` and `sleep`) started once per
//! process, on first use, in a process group of its own and ignoring terminal signals. Its stdin
//! is one end of a socket pair whose other end only this process holds (close-on-exec, so no
//! command inherits it). Through it this process registers each command's marker (the
//! environment entry every process of the command inherits, see [`crate::procs`]) before the
//! command starts, and the command's root process once it has; a finished command is forgotten.
//! When this process ends, the kernel closes its end and the watchdog reads end of file: it stops
//! the registered roots, then freezes and kills every live process that descends from one or
//! carries a marker, until none is left, and exits.
//!
//! Why not `PR_SET_PDEATHSIG`: it fires when the *thread* that forked the child exits (Tokio's
//! blocking threads come and go, which would kill commands at random), and it reaches one process,
//! not the processes that process started or the ones that left its session. Why not a
//! subreaper: `PR_SET_CHILD_SUBREAPER` on this process would make every orphan of every command
//! (and of every other child: MCP servers, hooks) a child of it, to be reaped here without
//! stealing the exit status Tokio waits for, without saying which command an orphan came from,
//! and it does nothing once this process is dead. (Making each command's *root* a subreaper
//! would say it, but needs code run in the child before `exec`, which is `unsafe`; the
//! workspace forbids that.)
//!
//! A command registered before it starts cannot slip through: a child between `fork` and `exec`
//! still holds (a copy of) this process's end, so the watchdog reads end of file only once the
//! command runs, carrying its marker. A watchdog that died (someone killed it) is replaced on the
//! next registration, and the live registrations are sent to the new one. Writes never block and
//! never raise SIGPIPE: this process keeps the watchdog's end open too (so a write never finds no
//! reader), and its own end does not block (a full socket means a stuck watchdog, which is
//! replaced).
//!
//! Linux only (the watchdog reads `/proc`); elsewhere registering does nothing.

use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};

use crate::procs::ProcessId;

/// The watchdog's script.
const SCRIPT: &str = include_str!("watchdog.sh");

/// The name the watchdog runs under (its `$0`, shown by `ps`).
const NAME: &str = "agent-tools-watchdog";

/// One registration: a marker and, once started, the command's root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    marker: String,
    root: Option<ProcessId>,
}

/// A running watchdog and what it was told (see the module docs). Dropping it closes this end,
/// as this process's exit would: the watchdog ends every registered command, and the drop waits
/// for it to finish.
#[derive(Debug)]
pub struct Watchdog {
    child: Child,
    socket: UnixStream,
    /// The watchdog's end, kept so that a write never finds no reader (no SIGPIPE).
    _peer: UnixStream,
    entries: Vec<Entry>,
}

impl Watchdog {
    /// Starts a watchdog for this process.
    ///
    /// # Errors
    /// [`io::ErrorKind::Unsupported`] off Linux; otherwise when the socket pair cannot be made or
    /// `/bin/sh` cannot be started.
    pub fn start() -> io::Result<Self> {
        if !cfg!(target_os = "linux") {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "the watchdog needs /proc"));
        }
        let (socket, peer) = UnixStream::pair()?;
        socket.set_nonblocking(true)?;
        let stdin = OwnedFd::from(peer.try_clone()?);
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(SCRIPT)
            .arg(NAME)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .current_dir("/")
            .process_group(0)
            .spawn()?;
        Ok(Self { child, socket, _peer: peer, entries: Vec::new() })
    }

    /// The watchdog's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether the watchdog still runs (a dead one is reaped here).
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Registers a command's marker (`KEY=value`, no white space): when this process ends, every
    /// live process whose environment holds it is ended.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidInput`] for a marker with white space or without `=`; otherwise
    /// when the watchdog cannot be told (it died, or does not read).
    pub fn watch(&mut self, marker: &str) -> io::Result<()> {
        if marker.is_empty() || !marker.contains('=') || marker.chars().any(|c| c.is_whitespace() || c == ',') {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("not a marker: {marker:?}")));
        }
        self.send(&format!("w {marker}\n"))?;
        self.entries.push(Entry { marker: marker.to_owned(), root: None });
        Ok(())
    }

    /// Registers the root process of a marker's command (watching the marker too if it is not
    /// yet): when this process ends, the root (if it is still that process, by its start time)
    /// and everything that descends from it are ended.
    ///
    /// # Errors
    /// As [`Self::watch`].
    pub fn set_root(&mut self, marker: &str, root: ProcessId) -> io::Result<()> {
        if !self.entries.iter().any(|entry| entry.marker == marker) {
            self.watch(marker)?;
        }
        self.send(&format!("r {marker} {} {}\n", root.pid, root.start))?;
        for entry in self.entries.iter_mut().filter(|entry| entry.marker == marker) {
            entry.root = Some(root);
        }
        Ok(())
    }

    /// Forgets a marker and its root: its processes are left alone when this process ends.
    ///
    /// # Errors
    /// When the watchdog cannot be told.
    pub fn forget(&mut self, marker: &str) -> io::Result<()> {
        self.entries.retain(|entry| entry.marker != marker);
        self.send(&format!("u {marker}\n"))
    }

    /// Writes one line, whole or not at all as far as the watchdog can tell.
    fn send(&mut self, line: &str) -> io::Result<()> {
        if !self.is_running() {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the watchdog is not running"));
        }
        match (&self.socket).write(line.as_bytes()) {
            Ok(written) if written == line.len() => Ok(()),
            Ok(_) => Err(io::Error::new(io::ErrorKind::WriteZero, "the watchdog's socket is full")),
            Err(error) => Err(error),
        }
    }

    /// A new watchdog told everything this one was told; this one is killed without acting.
    fn replace(mut self) -> io::Result<Self> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let entries = std::mem::take(&mut self.entries);
        // Dropping `self` now closes a socket nobody reads.
        drop(self);
        let mut fresh = Self::start()?;
        for entry in entries {
            fresh.watch(&entry.marker)?;
            if let Some(root) = entry.root {
                fresh.set_root(&entry.marker, root)?;
            }
        }
        Ok(fresh)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
        // The watchdog acts (or, if it was killed, is already gone): reap it.
        let _ = self.child.wait();
    }
}

/// The process's watchdog, started on first use (see the module docs).
static WATCHDOG: Mutex<Option<Watchdog>> = Mutex::new(None);

/// Runs `change` on the process's watchdog, starting it if there is none and replacing it (with
/// every registration) if it died or stopped reading. Failures are logged: a command still runs
/// without a watchdog, it just does not end with this process.
fn with_watchdog(change: impl Fn(&mut Watchdog) -> io::Result<()>) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let mut slot = WATCHDOG.lock().unwrap_or_else(PoisonError::into_inner);
    let outcome = match slot.take() {
        Some(mut watchdog) => match change(&mut watchdog) {
            Ok(()) => Ok(watchdog),
            Err(error) if error.kind() == io::ErrorKind::InvalidInput => {
                *slot = Some(watchdog);
                tracing::debug!(%error, "not registered with the watchdog");
                return;
            }
            Err(_) => watchdog.replace().and_then(|mut fresh| change(&mut fresh).map(|()| fresh)),
        },
        None => Watchdog::start().and_then(|mut fresh| change(&mut fresh).map(|()| fresh)),
    };
    match outcome {
        Ok(watchdog) => *slot = Some(watchdog),
        Err(error) => tracing::warn!(%error, "no watchdog: commands will not end with this process"),
    }
}

/// A command registered with the process's watchdog: while it is held, the command's processes
/// (those carrying `marker`, and once [`Watch::set_root`] is called everything under the root)
/// are ended if this process ends. Dropping it forgets the command. Does nothing off Linux.
#[derive(Debug)]
pub struct Watch {
    marker: String,
}

/// Registers a command's marker (`KEY=value`) with the process's watchdog, starting the watchdog
/// if need be. Call it before the command starts.
pub fn watch(marker: &str) -> Watch {
    with_watchdog(|watchdog| watchdog.watch(marker));
    Watch { marker: marker.to_owned() }
}

impl Watch {
    /// Registers the command's root process, once it has started.
    pub fn set_root(&self, root: ProcessId) {
        with_watchdog(|watchdog| watchdog.set_root(&self.marker, root));
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut slot = WATCHDOG.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(watchdog) = slot.as_mut() {
            // A watchdog that cannot be told is replaced at the next registration.
            let _ = watchdog.forget(&self.marker);
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn current() -> Option<(u32, Vec<Entry>)> {
        let slot = WATCHDOG.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().map(|watchdog| (watchdog.id(), watchdog.entries.clone()))
    }

    #[test]
    fn a_dead_watchdog_is_replaced_and_told_every_registration() {
        let first = watch("AGENT_TOOLS_TEST_MARKER=first");
        let root =
            ProcessId::of(i32::try_from(std::process::id()).unwrap_or(0)).unwrap_or(ProcessId { pid: 0, start: 0 });
        first.set_root(root);
        let (killed, entries) = current().unwrap();
        assert_eq!(entries, [Entry { marker: "AGENT_TOOLS_TEST_MARKER=first".into(), root: Some(root) }]);
        let pid = nix::unistd::Pid::from_raw(i32::try_from(killed).unwrap_or(0));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
        let dead = agent_tools_testkit::eventually_blocking(std::time::Duration::from_secs(20), || {
            !agent_tools_testkit::alive(pid.as_raw())
        });
        assert!(dead);
        let second = watch("AGENT_TOOLS_TEST_MARKER=second");
        let (replacement, entries) = current().unwrap();
        assert_ne!(replacement, killed);
        assert_eq!(
            entries.iter().map(|entry| entry.marker.as_str()).collect::<Vec<_>>(),
            ["AGENT_TOOLS_TEST_MARKER=first", "AGENT_TOOLS_TEST_MARKER=second"]
        );
        assert_eq!(entries[0].root, Some(root));
        drop(first);
        drop(second);
        assert_eq!(current().unwrap(), (replacement, Vec::new()));
    }
}
