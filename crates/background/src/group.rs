//! Running one command in a process group of its own, and ending everything it started: what
//! the shell tools' foreground calls and the settings' command hooks share. (Background tasks
//! start on a pseudo-terminal and are followed by plain threads; they use [`crate::procs`] and
//! [`crate::lifeline`] directly, as this module does.)
//!
//! - [`spawn_in_group`] starts a Tokio [`Command`] as the leader of a new process group, with a
//!   fresh call marker ([`CALL_MARKER_VAR`]`=<call id>`) in its environment, registered with the
//!   process's watchdog before it starts and by its root process once it has
//!   ([`crate::lifeline`]): whatever it started ends with this process, however that ends.
//! - The [`Group`] it returns ends the whole tree — its process group and, on Linux, whatever
//!   left the group (`setsid`, a double fork), found by parent links, by the marker and by the
//!   output it holds ([`crate::procs`]): [`Group::terminate_tree`] (SIGTERM, a grace period,
//!   SIGKILL) or [`Group::kill_tree`] (SIGKILL at once). Both reap the command's own process.
//!   [`Group::release`] lets a command that exited by itself go: what it left running is not
//!   ours to end. A group dropped while it runs (its future was abandoned) kills the tree.
//! - [`run_captured`] runs a command to its end with bytes on stdin, stdout and stderr captured
//!   up to a cap, a timeout after which the tree is killed, and a short grace for output after
//!   the command exits, so a child it left holding the pipes does not keep the caller waiting
//!   (Claude Code's command hooks).

use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, Command};

use crate::lifeline::{self, Watch};
use crate::procs::{self, CALL_MARKER_VAR, FileId, ProcessId, Target};

/// How long the processes of a dropped [`Group`] are killed for, at most (the drop blocks
/// meanwhile).
pub const ABANDON_WINDOW: Duration = Duration::from_secs(1);

/// How long [`run_captured`] still reads a command's output after it exited, for what it printed
/// last (a child it left behind may hold the pipes open for ever): 200 ms.
pub const OUTPUT_GRACE: Duration = Duration::from_millis(200);

/// A command started by [`spawn_in_group`]: its process (the group's leader) and how to find
/// every process it started (see the module docs).
#[derive(Debug)]
pub struct Group {
    child: Child,
    target: Target,
    /// The watchdog registration, held while the command is ours to end.
    watch: Option<Watch>,
    /// Whether dropping the group kills its processes (until it is stopped or released).
    armed: bool,
}

/// Starts `command` as the leader of a new process group (`process_group(0)`, killed if its
/// [`Child`] is dropped), with [`CALL_MARKER_VAR`] set to a fresh call id
/// ([`procs::new_call_id`]) in its environment, and registered with the process's watchdog —
/// before it starts, so even if this process is killed during the spawn the watchdog finds it
/// by its marker. `stdio` names the file its output goes to, if it is one this caller holds
/// (a process holding it belongs to the command; see [`Target::stdio`]).
///
/// `command` is dropped once the process has started, which closes this process's copies of the
/// descriptors it was given (an output file's, say).
///
/// # Errors
/// When the program cannot be started.
pub fn spawn_in_group(mut command: Command, stdio: Option<FileId>) -> io::Result<Group> {
    let call_id = procs::new_call_id();
    let marker = format!("{CALL_MARKER_VAR}={call_id}");
    command.env(CALL_MARKER_VAR, &call_id).process_group(0).kill_on_drop(true);
    let watch = lifeline::watch(&marker);
    let child = command.spawn()?;
    drop(command);
    let root = child.id().and_then(|pid| i32::try_from(pid).ok()).and_then(ProcessId::of);
    if let Some(root) = root {
        watch.set_root(root);
    }
    Ok(Group { child, target: Target { root, marker: Some(marker), stdio }, watch: Some(watch), armed: true })
}

impl Group {
    /// The command's own process (to take its pipes, or wait for it).
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// How the command's processes are found ([`procs::members`], [`procs::terminate`]).
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Ends every process of the command ([`procs::terminate`]: SIGTERM, up to `grace` to exit,
    /// then SIGKILL until none is left), on Tokio's blocking pool since it polls, then reaps the
    /// command's own process. The process is not reaped until then, so its pid — the group's id —
    /// cannot be reused while the group is signalled.
    pub async fn terminate_tree(&mut self, grace: Duration) {
        let targets = [self.target.clone()];
        let left = match tokio::task::spawn_blocking(move || procs::terminate(&targets, grace)).await {
            Ok(left) => left,
            // No blocking pool (the runtime is shutting down): kill at once instead.
            Err(_) => procs::kill_now(std::slice::from_ref(&self.target), ABANDON_WINDOW),
        };
        if left > 0 {
            tracing::warn!(left, "processes of a stopped command outlived SIGKILL");
        }
        self.reap().await;
    }

    /// Kills every process of the command at once ([`procs::kill_now`]: frozen, then SIGKILL
    /// until none is left, for at most a few seconds; off Linux, SIGKILL to its process group), on
    /// Tokio's blocking pool, then reaps the command's own process.
    pub async fn kill_tree(&mut self) {
        let targets = [self.target.clone()];
        let left = match tokio::task::spawn_blocking(move || procs::kill_now(&targets, procs::KILL_WINDOW)).await {
            Ok(left) => left,
            Err(_) => procs::kill_now(std::slice::from_ref(&self.target), ABANDON_WINDOW),
        };
        if left > 0 {
            tracing::warn!(left, "processes of a killed command outlived SIGKILL");
        }
        self.reap().await;
    }

    /// Lets the command go once it has exited by itself: what it left running is not ours to end
    /// (it no longer ends with this process, nor when the group is dropped).
    pub fn release(mut self) {
        self.disarm();
    }

    async fn reap(&mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        self.disarm();
    }

    fn disarm(&mut self) {
        self.armed = false;
        self.watch = None;
    }
}

impl Drop for Group {
    /// Kills every process of a command that is dropped while it is still ours (see
    /// [`procs::kill_now`]), so nothing it started outlives an abandoned call.
    fn drop(&mut self) {
        if self.armed {
            let left = procs::kill_now(std::slice::from_ref(&self.target), ABANDON_WINDOW);
            if left > 0 {
                tracing::warn!(left, "processes of an abandoned command outlived SIGKILL");
            }
        }
    }
}

/// How a command run by [`run_captured`] ended, and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Its exit status; `None` when it timed out (or could not be waited for).
    pub status: Option<ExitStatus>,
    /// What it wrote to stdout, at most the cap's bytes (the rest was read and dropped).
    pub stdout: Vec<u8>,
    /// What it wrote to stderr, at most the cap's bytes.
    pub stderr: Vec<u8>,
    /// It did not exit within its timeout, and every process it started was killed.
    pub timed_out: bool,
}

/// Runs `command` ([`spawn_in_group`]) with `stdin` written to its standard input (then closed;
/// `None`: `/dev/null`) and its stdout and stderr read into memory, up to `cap` bytes each. The
/// call ends:
/// - when the command has exited and both pipes are closed, or [`OUTPUT_GRACE`] after it exited
///   (a child it left behind holding the pipes keeps running, but does not keep the caller
///   waiting);
/// - at `timeout` after the start (writing stdin counts: a command that does not read it cannot
///   block the call), with every process the command started killed at once
///   ([`Group::kill_tree`]) and `timed_out` set — what it printed until then is kept.
///
/// The command's stdio settings are replaced. This mirrors how Claude Code runs a command hook
/// (its JSON event on stdin, a timeout, the output it printed).
///
/// # Errors
/// When the program cannot be started.
pub async fn run_captured(
    mut command: Command,
    stdin: Option<&[u8]>,
    timeout: Duration,
    cap: usize,
) -> io::Result<Captured> {
    command
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut group = spawn_in_group(command, None)?;
    let mut stdout = group.child.stdout.take();
    let mut stderr = group.child.stderr.take();
    // A process holding the stdout pipe is the command's, even one that left the tree and cleared
    // its environment. The read end stays open until the end, so the pipe stays the command's.
    group.target.stdio = stdout.as_ref().and_then(|pipe| pipe_id(pipe.as_raw_fd()));
    let deadline = tokio::time::Instant::now() + timeout;
    if let (Some(mut pipe), Some(bytes)) = (group.child.stdin.take(), stdin) {
        // A command that does not read its stdin must not block us.
        let _ = tokio::time::timeout_at(deadline, pipe.write_all(bytes)).await;
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (mut out_buf, mut err_buf) = ([0u8; 8192], [0u8; 8192]);
    let (mut out_open, mut err_open) = (stdout.is_some(), stderr.is_some());
    let mut exited: Option<Option<ExitStatus>> = None;
    let mut grace: Option<tokio::time::Instant> = None;
    let mut timed_out = false;
    loop {
        if exited.is_some() && !out_open && !err_open {
            break;
        }
        let stop_at = grace.map_or(deadline, |grace| grace.min(deadline));
        tokio::select! {
            read = async { stdout.as_mut()?.read(&mut out_buf).await.ok() }, if out_open => match read {
                Some(n) if n > 0 => keep(&mut out, &out_buf[..n], cap),
                _ => out_open = false,
            },
            read = async { stderr.as_mut()?.read(&mut err_buf).await.ok() }, if err_open => match read {
                Some(n) if n > 0 => keep(&mut err, &err_buf[..n], cap),
                _ => err_open = false,
            },
            status = group.child.wait(), if exited.is_none() => {
                exited = Some(status.ok());
                grace = Some(tokio::time::Instant::now() + OUTPUT_GRACE);
            }
            () = tokio::time::sleep_until(stop_at) => {
                timed_out = exited.is_none();
                break;
            }
        }
    }
    if timed_out {
        group.kill_tree().await;
    } else {
        group.release();
    }
    drop((stdout, stderr));
    Ok(Captured { status: exited.flatten(), stdout: out, stderr: err, timed_out })
}

/// The identity of a pipe this process holds open as descriptor `fd` (Linux: through
/// `/proc/self/fd`; `None` elsewhere).
fn pipe_id(fd: i32) -> Option<FileId> {
    FileId::of(Path::new(&format!("/proc/self/fd/{fd}"))).ok()
}

/// Appends `bytes` to `buffer`, up to `cap` bytes in all.
fn keep(buffer: &mut Vec<u8>, bytes: &[u8], cap: usize) {
    let room = cap.saturating_sub(buffer.len());
    buffer.extend_from_slice(&bytes[..bytes.len().min(room)]);
}
