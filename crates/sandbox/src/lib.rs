//! # agent-tools-sandbox: shell commands in a bubblewrap sandbox
//!
//! Claude Code can run Bash commands sandboxed (`sandbox.enabled` in its settings): the command
//! sees the file system read-only except the working directories and the temporary folder, and
//! has no network. On Linux this crate does that with [bubblewrap](https://github.com/containers/bubblewrap)
//! (`bwrap`, `apt-get install bubblewrap`):
//!
//! - the whole file system is bound read-only, then each writable folder is bound read-write
//!   over it, and the paths the command must not read at all are hidden: an empty read-only
//!   folder over a folder, the null device (which the sandbox's `/dev` rules make unreadable)
//!   over a file;
//! - fresh `/dev` and `/proc`; a new network namespace (only a loopback of its own) and a new
//!   PID namespace, so the command can neither reach the network nor signal processes outside;
//! - `--die-with-parent`, and killing `bwrap` ends the PID namespace, so stopping the command's
//!   process group still ends everything it started.
//!
//! Without a working `bwrap` there is no sandbox, and [`Bubblewrap::find`] says why: callers
//! refuse to run the command rather than run it unsandboxed.
//!
//! ```
//! use agent_tools_sandbox::{Bubblewrap, Policy, SandboxUnavailable};
//! let project = tempfile::tempdir().unwrap();
//! // A search path without bwrap: no sandbox, and the caller refuses to run the command.
//! assert_eq!(Bubblewrap::find(Some(project.path().as_os_str())).unwrap_err(), SandboxUnavailable::NotInstalled);
//! // Where bubblewrap works, the command writes its folder and nothing else, offline.
//! if let Ok(bwrap) = Bubblewrap::find(Some("/usr/bin:/bin".as_ref())) {
//!     let policy = Policy::new(project.path());
//!     let script = "echo hi > inside.txt; echo no > /etc/agent-tools-test || echo refused";
//!     let (program, args) = bwrap.wrap(&policy, "sh".as_ref(), &["-c".into(), script.into()]);
//!     let output = std::process::Command::new(program).args(args).output().unwrap();
//!     assert!(String::from_utf8_lossy(&output.stdout).ends_with("refused\n"));
//!     assert_eq!(std::fs::read_to_string(project.path().join("inside.txt")).unwrap(), "hi\n");
//! }
//! ```

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

/// Why commands cannot be sandboxed here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxUnavailable {
    /// No `bwrap` on the search path.
    #[error(
        "sandbox mode is on, but bubblewrap (`bwrap`) is not installed, so the command was not run. Install it (`apt-get install bubblewrap`), or turn `sandbox.enabled` off in the settings"
    )]
    NotInstalled,
    /// `bwrap` is there but cannot build a sandbox (user namespaces disabled, say).
    #[error(
        "sandbox mode is on, but bubblewrap ({path}) cannot create a sandbox on this machine, so the command was not run: {reason}"
    )]
    NotPermitted {
        /// The `bwrap` binary.
        path: PathBuf,
        /// What it said.
        reason: String,
    },
}

/// What a sandboxed command may do: the folders it may write (everything else is read-only),
/// paths inside those that stay read-only, and the folder it starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Where the command starts (also writable).
    pub cwd: PathBuf,
    /// Other folders (or files) the command may write.
    pub writable: Vec<PathBuf>,
    /// Paths inside the writable ones that stay read-only (`.git/hooks`, `.claude/` …: what
    /// could make a later, unsandboxed program run the sandboxed command's code). Only paths
    /// that exist can be protected this way.
    pub read_only: Vec<PathBuf>,
    /// Paths the command must not read (what `Read(…)` deny and ask rules cover): a folder is
    /// replaced by an empty read-only one, a file by one that cannot be opened. Only paths that
    /// exist can be hidden.
    pub hidden: Vec<PathBuf>,
}

impl Policy {
    /// A policy that lets the command write only `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { cwd: cwd.into(), writable: Vec::new(), read_only: Vec::new(), hidden: Vec::new() }
    }

    /// Adds paths the command must not read.
    #[must_use]
    pub fn hidden<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.hidden.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Adds paths that stay read-only inside the writable folders.
    #[must_use]
    pub fn read_only<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.read_only.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Adds writable folders.
    #[must_use]
    pub fn writable<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.writable.extend(paths.into_iter().map(Into::into));
        self
    }
}

/// A `bwrap` binary that was seen to build a sandbox on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bubblewrap {
    path: PathBuf,
}

/// Results of [`Bubblewrap::probe`], per binary (a probe starts a process; once is enough).
static PROBED: Mutex<Vec<(PathBuf, Result<(), String>)>> = Mutex::new(Vec::new());

impl Bubblewrap {
    /// Looks for `bwrap` in `search_path` (a `PATH`-style list) and checks, once per process,
    /// that it can build a sandbox.
    ///
    /// # Errors
    /// [`SandboxUnavailable`] when there is no `bwrap` or it cannot build a sandbox.
    pub fn find(search_path: Option<&OsStr>) -> Result<Self, SandboxUnavailable> {
        let path = search_path
            .into_iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join("bwrap"))
            .find(|candidate| is_executable(candidate))
            .ok_or(SandboxUnavailable::NotInstalled)?;
        Self::at(path)
    }

    /// Uses the `bwrap` at `path`, after checking (once per process) that it can build a
    /// sandbox.
    ///
    /// # Errors
    /// [`SandboxUnavailable`] when it is missing or cannot build a sandbox.
    pub fn at(path: impl Into<PathBuf>) -> Result<Self, SandboxUnavailable> {
        let path = path.into();
        if !is_executable(&path) {
            return Err(SandboxUnavailable::NotInstalled);
        }
        let outcome = {
            let mut probed = PROBED.lock().unwrap_or_else(PoisonError::into_inner);
            match probed.iter().find(|(seen, _)| *seen == path) {
                Some((_, outcome)) => outcome.clone(),
                None => {
                    let outcome = Self::probe(&path);
                    probed.push((path.clone(), outcome.clone()));
                    outcome
                }
            }
        };
        match outcome {
            Ok(()) => Ok(Self { path }),
            Err(reason) => Err(SandboxUnavailable::NotPermitted { path, reason }),
        }
    }

    /// Runs `true` in the sandbox this crate builds.
    fn probe(path: &Path) -> Result<(), String> {
        let me = Self { path: path.to_owned() };
        let (program, args) = me.wrap(&Policy::new("/"), Path::new("true"), &[]);
        let output = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|error| error.to_string())?;
        if output.status.success() {
            Ok(())
        } else {
            let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            Err(if said.is_empty() { format!("it exited with {}", output.status) } else { said })
        }
    }

    /// The `bwrap` binary.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The program and arguments that run `program args…` inside the sandbox `policy`
    /// describes. Writable paths that do not exist are left out (bubblewrap cannot bind them).
    pub fn wrap(&self, policy: &Policy, program: &Path, args: &[OsString]) -> (PathBuf, Vec<OsString>) {
        let (bwrap, mut argv) = self.prefix(policy);
        argv.push(program.as_os_str().to_owned());
        argv.extend(args.iter().cloned());
        (bwrap, argv)
    }

    /// The program and the arguments that come before the sandboxed command's own program and
    /// arguments (they end with `--`): for runners that build the command line themselves.
    pub fn prefix(&self, policy: &Policy) -> (PathBuf, Vec<OsString>) {
        let mut argv: Vec<OsString> = [
            "--die-with-parent",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let mut bound: Vec<PathBuf> = Vec::new();
        for path in std::iter::once(&policy.cwd).chain(&policy.writable) {
            // Bind the real path: bubblewrap follows a symlinked destination badly.
            let Ok(real) = path.canonicalize() else { continue };
            if real == Path::new("/") || bound.contains(&real) {
                continue;
            }
            argv.extend([OsString::from("--bind"), real.clone().into(), real.clone().into()]);
            bound.push(real);
        }
        let mut protected: Vec<PathBuf> = Vec::new();
        for path in &policy.read_only {
            let Ok(real) = path.canonicalize() else { continue };
            // Only what lies inside a writable bind needs binding again; the rest is read-only.
            if protected.contains(&real) || !bound.iter().any(|dir| real.starts_with(dir)) {
                continue;
            }
            argv.extend([OsString::from("--ro-bind"), real.clone().into(), real.clone().into()]);
            protected.push(real);
        }
        let mut hidden: Vec<PathBuf> = Vec::new();
        for path in &policy.hidden {
            let Ok(real) = path.canonicalize() else { continue };
            if hidden.iter().any(|done| real.starts_with(done)) || real == Path::new("/") {
                continue;
            }
            if real.is_dir() {
                argv.extend([
                    OsString::from("--tmpfs"),
                    real.clone().into(),
                    OsString::from("--remount-ro"),
                    real.clone().into(),
                ]);
            } else {
                argv.extend([OsString::from("--ro-bind"), OsString::from("/dev/null"), real.clone().into()]);
            }
            hidden.push(real);
        }
        argv.extend([OsString::from("--chdir"), policy.cwd.clone().into_os_string(), OsString::from("--")]);
        (self.path.clone(), argv)
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_binds_the_file_system_read_only_and_the_writable_folders_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let bwrap = Bubblewrap { path: PathBuf::from("/usr/bin/bwrap") };
        let policy = Policy::new(&real).writable([real.join("missing"), real.clone(), PathBuf::from("/")]);
        let (program, args) = bwrap.wrap(&policy, Path::new("bash"), &["-c".into(), "echo hi".into()]);
        assert_eq!(program, Path::new("/usr/bin/bwrap"));
        let args: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
        let at = |flag: &str| args.iter().position(|arg| arg == flag).unwrap();
        assert!(at("--ro-bind") < at("--bind"), "the writable binds go over the read-only root");
        assert_eq!(args.iter().filter(|arg| *arg == "--bind").count(), 1, "missing, repeated and / are left out");
        assert!(args.contains(&"--unshare-net".to_owned()));
        assert_eq!(args[args.len() - 4..], ["--", "bash", "-c", "echo hi"]);
        assert_eq!(args[at("--chdir") + 1], real.display().to_string());

        // Protected paths inside a writable folder are bound read-only after it; others are not.
        std::fs::create_dir_all(real.join(".git/hooks")).unwrap();
        let policy =
            Policy::new(&real).read_only([real.join(".git/hooks"), real.join(".claude"), PathBuf::from("/etc")]);
        let (_, args) = bwrap.prefix(&policy);
        let args: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
        let hooks = real.join(".git/hooks").display().to_string();
        let ro: Vec<&String> = args.windows(2).filter(|pair| pair[0] == "--ro-bind").map(|pair| &pair[1]).collect();
        assert_eq!(ro, ["/", &hooks]);
        assert_eq!(args.last().map(String::as_str), Some("--"));

        // Hidden paths: an empty read-only folder over a folder, the null device over a file;
        // a path inside one already hidden, and a missing one, add nothing.
        std::fs::create_dir_all(real.join("secret/deep")).unwrap();
        std::fs::write(real.join(".env"), "k").unwrap();
        let policy = Policy::new(&real).hidden([
            real.join("secret"),
            real.join("secret/deep"),
            real.join(".env"),
            real.join("missing"),
        ]);
        let (_, args) = bwrap.prefix(&policy);
        let args: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
        let secret = real.join("secret").display().to_string();
        let env = real.join(".env").display().to_string();
        let tail: Vec<&str> =
            args[args.iter().position(|a| a == "--tmpfs").unwrap()..].iter().map(String::as_str).collect();
        assert_eq!(
            tail,
            [
                "--tmpfs",
                &secret,
                "--remount-ro",
                &secret,
                "--ro-bind",
                "/dev/null",
                &env,
                "--chdir",
                &real.display().to_string(),
                "--"
            ]
        );
    }

    #[test]
    fn no_bwrap_on_the_path_is_a_clear_error() {
        let empty = tempfile::tempdir().unwrap();
        let error = Bubblewrap::find(Some(empty.path().as_os_str())).unwrap_err();
        assert_eq!(error, SandboxUnavailable::NotInstalled);
        assert!(error.to_string().contains("apt-get install bubblewrap"), "{error}");
        assert_eq!(Bubblewrap::find(None).unwrap_err(), SandboxUnavailable::NotInstalled);
    }

    #[test]
    fn a_bwrap_that_cannot_build_a_sandbox_is_reported_with_what_it_said() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("bwrap");
        std::fs::write(&fake, "#!/bin/sh\necho 'No permissions to creating new namespace' >&2\nexit 1\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = Bubblewrap::find(Some(dir.path().as_os_str())).unwrap_err();
        let SandboxUnavailable::NotPermitted { path, reason } = &error else { panic!("{error:?}") };
        assert_eq!(path, &fake);
        assert_eq!(reason, "No permissions to creating new namespace");
    }
}
