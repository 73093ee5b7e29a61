//! The tmux backend (Claude Code's `spawnMultiAgent` tmux panes): one tmux session per team,
//! `agent-tools-<team>`, on the private server of [`TmuxConfig`], one window per teammate.
//!
//! Nothing a model wrote goes on a tmux command line: the program, fixed words, sanitised team
//! and member names, and paths the host chose. The teammate's task reaches it through its
//! mailbox. tmux runs a command given as several arguments directly (no `sh -c`), and does not
//! expand formats in it; an argument ending in `;` would end the tmux command, so such
//! arguments (and any with control characters) are refused.

use std::ffi::OsString;
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{TeamError, TmuxConfig};

/// The most a tmux command may take before it is killed.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The tmux session of team `team`: `agent-tools-<team>`.
pub fn session_name(team: &str) -> String {
    format!("agent-tools-{team}")
}

/// Checks that every argument can go on a tmux command line as it is (see the module docs).
///
/// # Errors
/// [`TeamError::Tmux`] naming the first argument that cannot.
pub fn check_args(args: &[OsString]) -> Result<(), TeamError> {
    for arg in args {
        let Some(text) = arg.to_str() else {
            return Err(TeamError::Tmux(format!("{} is not UTF-8 text", arg.to_string_lossy())));
        };
        if text.ends_with(';') || text.chars().any(char::is_control) {
            return Err(TeamError::Tmux(format!(
                "{text:?} cannot be passed to tmux (it ends with ';' or holds a control character)"
            )));
        }
    }
    Ok(())
}

fn command(config: &TmuxConfig) -> Command {
    let mut command = Command::new(&config.program);
    command.arg("-L").arg(&config.socket).arg("-f").arg("/dev/null");
    command.envs(config.env.iter().map(|(name, value)| (name, value)));
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Runs a tmux command; its stdout, or an error with its stderr.
fn run(mut command: Command) -> Result<String, TeamError> {
    let mut child = command.spawn().map_err(|error| TeamError::Tmux(format!("cannot run tmux: {error}")))?;
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(TeamError::Tmux("tmux did not answer within 10 s".into()));
            }
            Err(error) => return Err(TeamError::Tmux(format!("cannot wait for tmux: {error}"))),
        }
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    if status.success() {
        Ok(stdout)
    } else {
        Err(TeamError::Tmux(format!("tmux failed ({status}): {}", stderr.trim())))
    }
}

/// Whether the server has the session `name`.
pub fn has_session(config: &TmuxConfig, name: &str) -> bool {
    let mut command = command(config);
    command.arg("has-session").arg("-t").arg(format!("={name}"));
    run(command).is_ok()
}

/// Starts `program args…` in the team's tmux session (made if missing, else a new window in
/// it) named `window`, in `cwd`, detached; returns the new pane's id (`%N`).
///
/// # Errors
/// [`TeamError::Tmux`] when an argument cannot go to tmux ([`check_args`]), or tmux fails.
pub fn spawn(
    config: &TmuxConfig,
    team: &str,
    window: &str,
    cwd: &Path,
    program: &Path,
    args: &[OsString],
) -> Result<String, TeamError> {
    let mut argv: Vec<OsString> = vec![program.as_os_str().to_owned()];
    argv.extend(args.iter().cloned());
    check_args(&argv)?;
    let session = session_name(team);
    let mut command = command(config);
    command.current_dir(cwd);
    if has_session(config, &session) {
        command.args(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t"]).arg(format!("={session}:"));
    } else {
        command.args(["new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "200", "-y", "50", "-s"]).arg(&session);
    }
    command.arg("-n").arg(window);
    command.args(argv.iter().map(OsString::as_os_str));
    let pane = run(command)?.trim().to_owned();
    if pane.is_empty() {
        return Err(TeamError::Tmux("tmux started the teammate but named no pane".into()));
    }
    Ok(pane)
}

/// Ends the session `name` and everything in it (its processes get `SIGHUP`); a session that
/// is already gone is no error.
///
/// # Errors
/// [`TeamError::Tmux`] when the session is still there afterwards.
pub fn kill_session(config: &TmuxConfig, name: &str) -> Result<(), TeamError> {
    let mut command = command(config);
    command.arg("kill-session").arg("-t").arg(format!("={name}"));
    match run(command) {
        Ok(_) => Ok(()),
        Err(_) if !has_session(config, name) => Ok(()),
        Err(error) => Err(error),
    }
}

/// The program `name` in a `PATH`-style `search_path` (core's lookup), for a host that looks
/// tmux up; library code never reads `PATH` itself.
pub use agent_tools_core::path::find_program;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_would_break_the_tmux_command_are_refused() {
        let ok: Vec<OsString> = ["/bin/agent-tools", "agent", "--teammate", "a/b", "/tmp/x y#z"].map(Into::into).into();
        assert!(check_args(&ok).is_ok());
        for bad in ["x;", "a\nb", "\u{1b}[0m"] {
            let args = vec![OsString::from(bad)];
            assert!(check_args(&args).is_err(), "{bad:?} was accepted");
        }
        assert_eq!(session_name("alpha"), "agent-tools-alpha");
    }
}
