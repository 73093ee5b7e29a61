//! Running one command: a program (a shell and its script, say) in its own process group, stdin
//! from `/dev/null`, stdout and stderr appended to one temporary file, and a second temporary
//! file for the shell to write its final working directory to. The call ends when the program
//! exits (background children that still hold the output file do not matter: they keep
//! running), at the timeout, or at cancellation; the last two end every process the command
//! started — its group, and on Linux also whatever left the group (`setsid`, a double fork),
//! found by parent links, by the call's marker in their environment
//! ([`agent_tools_background::procs::CALL_MARKER_VAR`]) and by the output file they hold (see
//! [`agent_tools_background::procs`]).
//!
//! While it runs, the command is registered with the process's watchdog
//! ([`agent_tools_background::lifeline`]), so it also ends when the process that started it ends,
//! however that ends (SIGKILL included). Starting, watching and ending the group is
//! [`agent_tools_background::group`], which the hooks share; this module adds the output file,
//! the cwd file and progress reports.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use agent_tools_background::group;
use agent_tools_background::procs::FileId;
use agent_tools_core::CancellationToken;
use tokio::process::Command;

/// Environment added to the inherited one so that nothing waits for a terminal: pagers print,
/// editors return at once, git never prompts for credentials.
pub const SHELL_ENV: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("GIT_EDITOR", "true"),
    ("GIT_SEQUENCE_EDITOR", "true"),
    ("EDITOR", "true"),
    ("VISUAL", "true"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("CLAUDECODE", "1"),
    ("AGENT_TOOLS", "1"),
];

/// A program, its arguments and the environment it gets on top of the inherited one (and of
/// [`SHELL_ENV`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Argv {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// Its arguments, passed as they are (no shell reads them).
    pub args: Vec<OsString>,
    /// Variables added to its environment.
    pub env: Vec<(OsString, OsString)>,
}

impl Argv {
    /// `program` with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self { program: program.into(), args: Vec::new(), env: Vec::new() }
    }

    /// Adds an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// This command run under `prefix` — a program and the arguments that come before the
    /// command's own program (the sandbox's `bwrap … --`) — or unchanged without one.
    #[must_use]
    pub fn under(self, prefix: Option<(PathBuf, Vec<OsString>)>) -> Self {
        let Some((program, mut args)) = prefix else { return self };
        args.push(self.program.into_os_string());
        args.extend(self.args);
        Self { program, args, env: self.env }
    }
}

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The program, arguments and added environment.
    pub argv: &'a Argv,
    /// Where it runs.
    pub cwd: &'a Path,
    /// When it is stopped.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when stopping it.
    pub kill_grace: Duration,
    /// When the first progress report is due.
    pub progress_after: Duration,
    /// Time between progress reports.
    pub progress_every: Duration,
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The program exited with this code (128 + N when killed by signal N).
    Exited(i32),
    /// The timeout ran out and every process of the command was killed.
    TimedOut,
    /// The cancellation token fired and every process of the command was killed.
    Cancelled,
}

/// A snapshot for a progress report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Time since the command started.
    pub elapsed: Duration,
    /// Bytes of output so far.
    pub total_bytes: u64,
    /// The last few lines of output.
    pub tail: String,
}

/// A finished command: how it ended, and its files (deleted when this is dropped).
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// The temporary folder holding the output and cwd files.
    pub files: CallFiles,
}

/// The per-call temporary folder: `output` (stdout + stderr) and `cwd` (where the shell writes
/// its final directory). Removed when dropped.
#[derive(Debug)]
pub struct CallFiles {
    dir: tempfile::TempDir,
}

impl CallFiles {
    /// A new folder named `<prefix><random>` in `temp_dir` (`None`: the system's temporary
    /// folder).
    ///
    /// # Errors
    /// When the folder cannot be made.
    pub fn create(temp_dir: Option<&Path>, prefix: &str) -> io::Result<Self> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        let dir = match temp_dir {
            Some(parent) => builder.tempdir_in(parent)?,
            None => builder.tempdir()?,
        };
        Ok(Self { dir })
    }

    /// The merged output file.
    pub fn output_path(&self) -> PathBuf {
        self.dir.path().join("output")
    }

    /// The file the shell writes its final directory to (an absolute path; a trailing newline is
    /// ignored).
    pub fn cwd_path(&self) -> PathBuf {
        self.dir.path().join("cwd")
    }

    /// The directory the shell ended in, when it recorded an absolute one that still exists.
    pub fn final_cwd(&self) -> Option<PathBuf> {
        let bytes = std::fs::read(self.cwd_path()).ok()?;
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        if bytes.is_empty() {
            return None;
        }
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
        (path.is_absolute() && path.is_dir()).then_some(path)
    }
}

/// Runs the command with its output going to `files`. `progress`, when given, is called about
/// every `progress_every` once `progress_after` has passed. At the timeout every process of the
/// command gets SIGTERM, up to [`Request::kill_grace`] to exit, then SIGKILL; at cancellation
/// every process is killed at once (see the module docs). The program itself is reaped before
/// this returns.
///
/// # Errors
/// When the output file cannot be made or the program cannot be started.
pub async fn run(
    request: &Request<'_>,
    files: CallFiles,
    cancel: &CancellationToken,
    progress: Option<&(dyn Fn(Snapshot) + Send + Sync)>,
) -> io::Result<Finished> {
    let output = OpenOptions::new().create_new(true).append(true).open(files.output_path())?;
    let output_id = FileId::of(&files.output_path()).ok();
    let errors = output.try_clone()?;
    let argv = request.argv;
    let mut command = Command::new(&argv.program);
    command
        .args(&argv.args)
        .current_dir(request.cwd)
        .envs(SHELL_ENV.iter().copied())
        .envs(argv.env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(Stdio::from(output))
        .stderr(Stdio::from(errors));
    // Its own process group, its call marker, registered with the watchdog before it starts;
    // dropping `command` closes our copies of the output file's descriptors.
    let mut group = group::spawn_in_group(command, output_id)?;
    let started = Instant::now();
    let deadline = tokio::time::sleep(request.timeout);
    tokio::pin!(deadline);
    let first_report = tokio::time::Instant::from_std(started) + request.progress_after;
    let mut ticker = tokio::time::interval_at(first_report, request.progress_every.max(Duration::from_millis(10)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let ending = loop {
        tokio::select! {
            status = group.child().wait() => break Ending::Exited(exit_code(status?)),
            () = &mut deadline => break Ending::TimedOut,
            () = cancel.cancelled() => break Ending::Cancelled,
            _ = ticker.tick(), if progress.is_some() => {
                if let Some(report) = progress {
                    let path = files.output_path();
                    if let Ok(Ok((total_bytes, tail))) = tokio::task::spawn_blocking(move || output_tail(&path)).await {
                        report(Snapshot { elapsed: started.elapsed(), total_bytes, tail });
                    }
                }
            }
        }
    };
    match ending {
        // What the program left running when it exited by itself is not ours to end.
        Ending::Exited(_) => group.release(),
        // A timeout gives the program a chance to clean up.
        Ending::TimedOut => group.terminate_tree(request.kill_grace).await,
        // A user who stops a command wants it stopped now: nothing it would do in a grace
        // period (a `trap`, the rest of a script) may happen.
        Ending::Cancelled => group.kill_tree().await,
    }
    Ok(Finished { ending, files })
}

/// The exit code of a status: its code, or 128 + the signal that killed it.
fn exit_code(status: ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|signal| 128 + signal)).unwrap_or(1)
}

/// Most bytes read from the end of the output for a progress report.
const PROGRESS_TAIL_BYTES: u64 = 4096;
/// Most lines shown in a progress report.
const PROGRESS_TAIL_LINES: usize = 5;

/// The output's size and its last few lines.
fn output_tail(path: &Path) -> io::Result<(u64, String)> {
    let mut file = File::open(path)?;
    let total = file.metadata()?.len();
    let start = total.saturating_sub(PROGRESS_TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(PROGRESS_TAIL_BYTES).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_end();
    let lines: Vec<&str> = text.lines().collect();
    let keep = lines.len().saturating_sub(PROGRESS_TAIL_LINES);
    Ok((total, lines[keep..].join("\n")))
}
