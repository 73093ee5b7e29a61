//! Starting a shell task on a pseudo-terminal, and the two threads that follow it: one copies
//! the terminal's output to the output file (cleaned by the [`AnsiStripper`]) and hands it, line
//! by line, to the task's [`LineListener`] if it has one; one waits for the shell to exit and
//! records how it ended.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
use nix::unistd::Pid;
use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::ansi::AnsiStripper;
use crate::lifeline::{self, Watch};
use crate::procs::{FileId, MARKER_VAR, ProcessId};
use crate::{LineListener, MAX_LINE_BYTES, OnLine, SpawnError, Task, TaskKind, TaskStatus, Terminal, now_ms};

/// The script the shell runs. The terminal stops turning `\n` into `\r\n` and echoing, stdin
/// becomes `/dev/null` (a command that asks a question reads end-of-file at once instead of
/// waiting forever), and the command — `$1`, never spliced into the script — runs through `eval`.
/// stdout and stderr stay on the terminal, so programs that buffer when writing to a file or pipe
/// write line by line. The shell then waits for the children the command left running with `&`
/// (when the shell, the terminal's controlling process, ends, the kernel hangs up the terminal
/// and they would get SIGHUP), and exits with the command's own status.
const SCRIPT: &str = r#"stty -onlcr -echo 2>/dev/null; exec </dev/null; __agent_tools_command=$1; shift; eval "$__agent_tools_command"; __agent_tools_status=$?; wait; exit $__agent_tools_status"#;

/// The script `/bin/sh` runs before a program given with its own arguments: the same terminal
/// set-up and empty stdin as [`SCRIPT`], then the program takes the shell's place (`"$@"`, never
/// spliced into the script).
const EXEC_SCRIPT: &str = r#"stty -onlcr -echo 2>/dev/null; exec </dev/null; exec "$@""#;

/// What [`spawn`] needs.
pub(crate) struct Launch {
    pub(crate) shell: PathBuf,
    pub(crate) command: String,
    pub(crate) args: Option<Vec<OsString>>,
    pub(crate) cwd: PathBuf,
    pub(crate) env: Vec<(OsString, OsString)>,
    pub(crate) prefix: Option<(PathBuf, Vec<OsString>)>,
    pub(crate) task_id: String,
    pub(crate) output: File,
    pub(crate) columns: u16,
    pub(crate) rows: u16,
}

/// A started shell: its pid (and start time), its registration with the process's watchdog, its
/// terminal by identity, and the terminal's master side with a reader of it.
pub(crate) struct Started {
    pub(crate) pid: i32,
    pub(crate) root: Option<ProcessId>,
    pub(crate) watch: Watch,
    pub(crate) terminal: Option<Terminal>,
    pub(crate) io: Io,
}

/// What the output-copying thread takes: the terminal's master side, a reader of it, the file.
pub(crate) struct Io {
    master: Box<dyn MasterPty + Send>,
    reader: Box<dyn Read + Send>,
    output: File,
}

/// Starts the shell on a new pseudo-terminal, in a session and process group of its own (as the
/// terminal's controlling process), with the task's marker in its environment, registered with
/// the process's watchdog (before it starts, so it ends with this process even if this process
/// is killed at once; see [`lifeline`]).
pub(crate) fn spawn(launch: Launch) -> Result<Started, SpawnError> {
    let shell_text = launch.shell.display().to_string();
    let failed = |message: String| SpawnError::Spawn { shell: shell_text.clone(), message };
    // The pty crate would quietly start elsewhere: never run a command in the wrong folder.
    if !launch.cwd.is_dir() {
        return Err(failed(format!("the working directory {} does not exist", launch.cwd.display())));
    }
    let pair = native_pty_system()
        .openpty(PtySize { rows: launch.rows, cols: launch.columns, pixel_width: 0, pixel_height: 0 })
        .map_err(|error| failed(format!("no pseudo-terminal: {error}")))?;
    // `/bin/sh` would start and then fail to find a program named by its path: say so here.
    if launch.args.is_some() && launch.shell.components().count() > 1 && !launch.shell.is_file() {
        return Err(failed("no such file".to_owned()));
    }
    // `$0` names the shell in its own messages (`/bin/bash: line 1: …`, as Claude Code's do).
    let (runner, script, name) = match &launch.args {
        None => (launch.shell.clone(), SCRIPT, shell_text.clone()),
        Some(_) => (PathBuf::from("/bin/sh"), EXEC_SCRIPT, "sh".to_owned()),
    };
    let mut command = match &launch.prefix {
        Some((program, args)) => {
            let mut command = CommandBuilder::new(program);
            command.args(args);
            command.arg(&runner);
            command
        }
        None => CommandBuilder::new(&runner),
    };
    command.arg("-c");
    command.arg(script);
    command.arg(name);
    match &launch.args {
        None => command.arg(&launch.command),
        Some(args) => {
            command.arg(&launch.shell);
            command.args(args);
        }
    }
    command.cwd(&launch.cwd);
    // Few escape sequences to strip; colour and cursor control stay off where programs ask TERM.
    command.env("TERM", "dumb");
    for (key, value) in &launch.env {
        command.env(key, value);
    }
    command.env(MARKER_VAR, &launch.task_id);
    let watch = lifeline::watch(&format!("{MARKER_VAR}={}", launch.task_id));
    let child = pair.slave.spawn_command(command).map_err(|error| failed(error.to_string()))?;
    // Our copy of the terminal's slave side must close, or the output would never end.
    drop(pair.slave);
    let pid = child.process_id().and_then(|pid| i32::try_from(pid).ok());
    // The child is waited for by pid (`waitid`/`waitpid`), not through this handle.
    drop(child);
    let Some(pid) = pid else { return Err(failed("the shell has no process id".to_owned())) };
    let root = ProcessId::of(pid);
    if let Some(root) = root {
        watch.set_root(root);
    }
    let reader = match pair.master.try_clone_reader() {
        Ok(reader) => reader,
        Err(error) => {
            abandon(pid);
            return Err(failed(format!("cannot read the terminal: {error}")));
        }
    };
    // A second handle on the master side keeps the terminal ours while a stop looks for the
    // processes that hold it (see `Terminal`).
    let terminal =
        match (pair.master.tty_name().and_then(|path| FileId::of(&path).ok()), pair.master.try_clone_reader()) {
            (Some(id), Ok(hold)) => Some(Terminal { id, _hold: std::sync::Mutex::new(hold) }),
            _ => None,
        };
    Ok(Started { pid, root, watch, terminal, io: Io { master: pair.master, reader, output: launch.output } })
}

/// Kills and reaps a shell that could not be followed.
pub(crate) fn abandon(pid: i32) {
    let _ = nix::sys::signal::killpg(Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
    let _ = waitpid(Pid::from_raw(pid), None);
}

/// Most bytes written to an output file; past it the rest is read and dropped (Claude Code caps
/// task output files at 5 GB).
pub(crate) const MAX_OUTPUT_BYTES: u64 = 5 * 1024 * 1024 * 1024;

/// The output-copying thread: terminal → stripper → file (and the listener, line by line),
/// until every process has closed the terminal. Then ends the listener, marks the output
/// complete and lets the terminal go.
pub(crate) fn copy_output(
    task: &Task,
    master: Box<dyn MasterPty + Send>,
    mut reader: Box<dyn Read + Send>,
    mut output: File,
    on_line: Option<OnLine>,
    max_bytes: u64,
) {
    let mut stripper = AnsiStripper::new();
    let mut buffer = vec![0_u8; 16 * 1024];
    let mut clean = Vec::with_capacity(buffer.len());
    let mut written = 0_u64;
    let mut capped = false;
    let mut lines = on_line.as_ref().map(|on_line| Lines::new(on_line.listener()));
    loop {
        // Linux reports EIO once the last process closed the terminal: that is the end.
        let read = match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        clean.clear();
        stripper.push(&buffer[..read], &mut clean);
        write_capped(&mut output, &clean, &mut written, &mut capped, max_bytes);
        if let Some(lines) = &mut lines {
            lines.push(&clean);
        }
    }
    clean.clear();
    stripper.finish(&mut clean);
    write_capped(&mut output, &clean, &mut written, &mut capped, max_bytes);
    let _ = output.flush();
    if let Some(mut lines) = lines {
        lines.push(&clean);
        lines.finish();
    }
    // Nothing holds the terminal any more: it is not the task's to be found by.
    task.release_terminal();
    drop(master);
    task.update(|state| state.output_done = true);
}

/// Cuts clean output into lines for a [`LineListener`] (see its docs): complete lines as they
/// come, a line longer than [`MAX_LINE_BYTES`] in pieces, the unfinished last one at the end.
pub(crate) struct Lines<'a> {
    listener: &'a dyn LineListener,
    /// The line so far (no `\n` in it).
    partial: Vec<u8>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(listener: &'a dyn LineListener) -> Self {
        Self { listener, partial: Vec::new() }
    }

    /// Delivers every line `clean` completes, keeps the rest.
    pub(crate) fn push(&mut self, clean: &[u8]) {
        let mut rest = clean;
        while let Some(end) = rest.iter().position(|byte| *byte == b'\n') {
            self.partial.extend_from_slice(&rest[..end]);
            self.deliver_all();
            rest = &rest[end + 1..];
        }
        self.partial.extend_from_slice(rest);
        while self.partial.len() > MAX_LINE_BYTES {
            let cut = char_boundary(&self.partial, MAX_LINE_BYTES);
            let piece: Vec<u8> = self.partial.drain(..cut).collect();
            self.listener.line(&String::from_utf8_lossy(&piece));
        }
    }

    /// Delivers the unfinished last line, if any, then ends the listener.
    pub(crate) fn finish(mut self) {
        if !self.partial.is_empty() {
            self.deliver_all();
        }
        self.listener.end();
    }

    /// Delivers what `partial` holds as one line (in pieces if it is too long) and empties it.
    fn deliver_all(&mut self) {
        let mut line = self.partial.as_slice();
        while line.len() > MAX_LINE_BYTES {
            let cut = char_boundary(line, MAX_LINE_BYTES);
            self.listener.line(&String::from_utf8_lossy(&line[..cut]));
            line = &line[cut..];
        }
        self.listener.line(&String::from_utf8_lossy(line));
        self.partial.clear();
    }
}

/// The largest cut at or below `at` (and above 0) that does not fall inside a UTF-8 character
/// of `bytes` (`at` itself when the bytes there are not UTF-8).
fn char_boundary(bytes: &[u8], at: usize) -> usize {
    let at = at.min(bytes.len());
    let inside = bytes[..at].iter().rev().take(3).take_while(|byte| **byte & 0xC0 == 0x80).count();
    let lead = at.checked_sub(inside + 1).and_then(|index| bytes.get(index));
    let needed = match lead {
        Some(byte) if byte & 0xE0 == 0xC0 => 1,
        Some(byte) if byte & 0xF0 == 0xE0 => 2,
        Some(byte) if byte & 0xF8 == 0xF0 => 3,
        _ => return at,
    };
    // A character that starts before `at` and is not complete by then is left for the next piece.
    if inside < needed && at > inside + 1 { at - inside - 1 } else { at }
}

fn write_capped(output: &mut File, bytes: &[u8], written: &mut u64, capped: &mut bool, max_bytes: u64) {
    if *capped || bytes.is_empty() {
        return;
    }
    let room = usize::try_from(max_bytes.saturating_sub(*written)).unwrap_or(usize::MAX);
    let take = bytes.len().min(room);
    if output.write_all(&bytes[..take]).is_err() {
        // A full disk or a removed folder: stop writing, keep draining the terminal.
        *capped = true;
        return;
    }
    *written += take as u64;
    if take < bytes.len() {
        *capped = true;
        let _ = output.write_all(b"\n[output truncated: the output file reached its size limit]\n");
    }
}

/// The exit code of a wait status: the code, or 128 + N for a shell killed by signal N.
fn exit_code(status: WaitStatus) -> Option<i32> {
    match status {
        WaitStatus::Exited(_, code) => Some(code),
        WaitStatus::Signaled(_, signal, _) => Some(128 + signal as i32),
        _ => None,
    }
}

/// The waiting thread: waits for the shell to exit (without reaping it, so its pid — the task's
/// group and session id — stays reserved while stoppers may signal it), reaps it under the
/// task's lock, gives the output a moment to arrive, then records the ending and queues the
/// notification (on the task's queue) unless the task was stopped or its result was already
/// delivered.
pub(crate) fn wait_for_exit(task: &Task, pid: i32, drain: Duration) {
    let pid = Pid::from_raw(pid);
    while let Err(nix::errno::Errno::EINTR) = waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {}
    let code = task.update(|state| {
        let code = loop {
            match waitpid(pid, None) {
                Err(nix::errno::Errno::EINTR) => {}
                Ok(status) => break exit_code(status),
                Err(_) => break None,
            }
        };
        state.reaped = true;
        code
    });
    // Output written just before the exit may still be in the terminal: wait for the copier to
    // finish, but not for children that keep the terminal open after the shell is gone.
    let deadline = Instant::now() + drain;
    task.wait_until(deadline, |state| state.output_done);
    let finished = task.update(|state| {
        state.exit_code = state.exit_code.or(code);
        if state.status == TaskStatus::Running || state.status == TaskStatus::Pending {
            state.status = if code == Some(0) { TaskStatus::Completed } else { TaskStatus::Failed };
            state.ended_at_ms = Some(now_ms());
        }
        let notify = !state.notified;
        state.notified = true;
        notify
    });
    let snapshot = task.snapshot();
    let completion_text = match &task.kind {
        TaskKind::Shell(shell) => shell.completion_text,
        TaskKind::Agent(_) => crate::text::notification,
    };
    if finished && let Some(text) = completion_text(&snapshot) {
        task.notifications.push(task.id.clone(), text);
    }
    task.publish();
}

/// Starts the two threads that follow a task whose shell is `pid`.
pub(crate) fn follow(
    task: &Arc<Task>,
    pid: i32,
    io: Io,
    on_line: Option<OnLine>,
    drain: Duration,
) -> std::io::Result<()> {
    let Io { master, reader, output } = io;
    let copier = Arc::clone(task);
    std::thread::Builder::new()
        .name(format!("task-{}-output", task.id))
        .stack_size(128 * 1024)
        .spawn(move || copy_output(&copier, master, reader, output, on_line, MAX_OUTPUT_BYTES))?;
    let waiter = Arc::clone(task);
    std::thread::Builder::new()
        .name(format!("task-{}-wait", task.id))
        .stack_size(128 * 1024)
        .spawn(move || wait_for_exit(&waiter, pid, drain))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Recorder {
        lines: Mutex<Vec<String>>,
        ends: Mutex<usize>,
    }

    impl LineListener for Recorder {
        fn line(&self, line: &str) {
            self.lines.lock().unwrap().push(line.to_owned());
        }

        fn end(&self) {
            *self.ends.lock().unwrap() += 1;
        }
    }

    fn cut(chunks: &[&[u8]]) -> (Vec<String>, usize) {
        let recorder = Recorder::default();
        let mut lines = Lines::new(&recorder);
        for chunk in chunks {
            lines.push(chunk);
        }
        lines.finish();
        let ends = *recorder.ends.lock().unwrap();
        (recorder.lines.into_inner().unwrap(), ends)
    }

    #[test]
    fn lines_are_cut_at_newlines_across_chunks_and_the_last_comes_at_the_end() {
        assert_eq!(cut(&[b"a\nb", b"c\n", b"", b"\nd"]), (vec!["a".into(), "bc".into(), String::new(), "d".into()], 1));
        assert_eq!(cut(&[b"x\n"]), (vec!["x".into()], 1), "no empty line after a final newline");
        assert_eq!(cut(&[]), (Vec::new(), 1), "no output: only the end");
        // A character split across two reads stays whole; invalid bytes are replaced.
        assert_eq!(cut(&[b"caf\xc3", b"\xa9\n\xff\n"]).0, ["café", "\u{fffd}"]);
    }

    #[test]
    fn long_lines_come_in_pieces_cut_between_characters() {
        let long = format!("a{}", "é".repeat(40_000));
        let (lines, _) = cut(&[long.as_bytes(), b"\n"]);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES - 1, "the cut moves back before the split `é`");
        assert_eq!(lines.concat(), long);
        let (lines, _) = cut(&[&vec![b'z'; MAX_LINE_BYTES * 2 + 5]]);
        assert_eq!(lines.iter().map(String::len).collect::<Vec<_>>(), [MAX_LINE_BYTES, MAX_LINE_BYTES, 5]);
    }

    #[test]
    fn boundaries_never_split_a_character() {
        assert_eq!(char_boundary(b"abc", 2), 2);
        assert_eq!(char_boundary("aé".as_bytes(), 2), 1);
        assert_eq!(char_boundary("aé".as_bytes(), 3), 3);
        assert_eq!(char_boundary("a€".as_bytes(), 3), 1);
        assert_eq!(char_boundary("a😀".as_bytes(), 4), 1);
        assert_eq!(char_boundary("a😀".as_bytes(), 5), 5);
        assert_eq!(char_boundary(b"a\xff\xff", 2), 2, "not UTF-8: cut where asked");
    }
}
