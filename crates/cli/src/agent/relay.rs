//! The Agent SDK's hook callbacks as ordinary command hooks, so the host runs and reads them
//! exactly as it runs and reads a settings file's hooks.
//!
//! Each callback an `initialize` registers becomes a command hook
//! `'<this program>' hook-relay '<socket>' '<callback id>'`. When the host runs it (with the
//! event's JSON on stdin, as for any hook), the relay process sends `{"callback_id", "input"}`
//! to the agent's Unix socket; the agent asks the SDK (`hook_callback`), and answers
//! `{"ok": true, "output": …}` (the SDK callback's hook output, which the relay prints and the
//! host reads as a hook's JSON: `hookSpecificOutput.permissionDecision`, `decision: "block"`,
//! `additionalContext` …) or `{"ok": false, "error": …}` (the relay fails: the call goes on, or
//! for a matcher with `onFailure: "block"` the relay exits 2 and the call is refused).
//!
//! Every hook event reaches the callbacks this way, those fired inside sub-agents included —
//! but one fired once the SDK has closed standard input (`SessionEnd`, at the end of a session)
//! cannot be answered any more: its callback fails at once (a settings hook still runs).
//!
//! The socket lives in a fresh folder only its user may enter, removed when the session ends.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::sdk::{Control, hooks_as_settings};

/// Seconds a hook callback may take when its matcher sets no `timeout` (Claude Code's 60).
const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

/// Seconds the host waits beyond the relay's own limit, so the relay reports a timeout itself.
const HOST_GRACE_SECS: f64 = 5.0;

/// Quotes a word for `sh -c`.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The relay's socket server for one session.
pub(crate) struct Relay {
    dir: PathBuf,
    socket: PathBuf,
    program: PathBuf,
    hooks: Map<String, Value>,
    #[cfg(unix)]
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Listens on a fresh socket and serves callbacks through `control`; `hooks` is the
    /// `initialize` request's `hooks` object.
    #[cfg(unix)]
    pub(crate) fn start(control: Arc<Control>, hooks: &Map<String, Value>) -> std::io::Result<Relay> {
        use std::os::unix::fs::DirBuilderExt as _;
        let program = std::env::current_exe()?;
        let dir = std::env::temp_dir().join(format!("agent-tools-hooks-{}", super::output::uuid()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let socket = dir.join("socket");
        let listener = match tokio::net::UnixListener::bind(&socket) {
            Ok(listener) => listener,
            Err(error) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(error);
            }
        };
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let control = Arc::clone(&control);
                tokio::spawn(serve(stream, control));
            }
        });
        Ok(Relay { dir, socket, program, hooks: hooks.clone(), task })
    }

    /// SDK hooks need a Unix socket.
    #[cfg(not(unix))]
    pub(crate) fn start(_control: Arc<Control>, _hooks: &Map<String, Value>) -> std::io::Result<Relay> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "SDK hooks need a Unix system"))
    }

    /// The hooks as settings (`"hooks"` of a settings file), each callback a relay command.
    pub(crate) fn settings_hooks(&self) -> Map<String, Value> {
        let program = shell_quote(&self.program.to_string_lossy());
        let socket = shell_quote(&self.socket.to_string_lossy());
        hooks_as_settings(&self.hooks, |id, timeout, block| {
            let seconds = timeout.unwrap_or(DEFAULT_TIMEOUT_SECS);
            let block = if block { " --block-on-failure" } else { "" };
            let command = format!("{program} hook-relay {socket} {} --timeout {seconds}{block}", shell_quote(id));
            (command, seconds + HOST_GRACE_SECS)
        })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        #[cfg(unix)]
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Answers one relay connection: its request, the SDK's answer.
#[cfg(unix)]
async fn serve(mut stream: tokio::net::UnixStream, control: Arc<Control>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut request = Vec::new();
    if stream.read_to_end(&mut request).await.is_err() {
        return;
    }
    let request: Value = serde_json::from_slice(&request).unwrap_or_default();
    let id = request.get("callback_id").and_then(Value::as_str).unwrap_or_default();
    let input = request.get("input").cloned().unwrap_or_default();
    let asked = agent_tools_loop::protocol::AgentRequest::HookCallback {
        callback_id: id.to_owned(),
        tool_use_id: input.get("tool_use_id").cloned().unwrap_or(Value::Null),
        input,
    };
    let answer = match control.request(asked).await {
        Ok(output) => json!({"ok": true, "output": output}),
        Err(error) => json!({"ok": false, "error": error}),
    };
    let _ = stream.write_all(answer.to_string().as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// How the relay process was asked to run (`hook-relay SOCKET ID [--timeout S]
/// [--block-on-failure]`: the last two come in the id's place when clap reads them, see
/// [`relay_main`]).
struct RelayArgs {
    timeout: Duration,
    block: bool,
}

fn relay_args(rest: &[String]) -> RelayArgs {
    let mut args = RelayArgs { timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS), block: false };
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--timeout" => {
                if let Some(seconds) =
                    words.next().and_then(|s| s.parse::<f64>().ok()).filter(|s| s.is_finite() && *s > 0.0)
                {
                    args.timeout = Duration::from_secs_f64(seconds.min(86_400.0));
                }
            }
            "--block-on-failure" => args.block = true,
            _ => {}
        }
    }
    args
}

/// `agent-tools hook-relay SOCKET ID`: the hook process. Reads the event from stdin, asks the
/// agent at `socket`, prints the SDK's hook output (exit 0); on failure prints why on stderr and
/// exits 1 (2 with `--block-on-failure`: the host then refuses the call).
pub(crate) fn relay_main(socket: &Path, id: &str, rest: &[String]) -> ExitCode {
    let args = relay_args(rest);
    let fail = |why: String| {
        crate::report(format_args!("SDK hook callback {id} failed: {why}"));
        ExitCode::from(if args.block { 2 } else { 1 })
    };
    let mut input = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut input) {
        return fail(format!("cannot read the hook input: {error}"));
    }
    let input: Value = serde_json::from_str(&input).unwrap_or(Value::Null);
    match ask(socket, id, input, args.timeout) {
        Ok(answer) if answer.get("ok").and_then(Value::as_bool) == Some(true) => {
            let output = answer.get("output").cloned().unwrap_or_else(|| json!({}));
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{output}");
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Ok(answer) => fail(answer.get("error").and_then(Value::as_str).unwrap_or("no answer").to_owned()),
        Err(error) => fail(error.to_string()),
    }
}

#[cfg(unix)]
fn ask(socket: &Path, id: &str, input: Value, timeout: Duration) -> std::io::Result<Value> {
    let mut stream = std::os::unix::net::UnixStream::connect(socket)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.write_all(json!({"callback_id": id, "input": input}).to_string().as_bytes())?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(|error| {
        if matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) {
            std::io::Error::new(std::io::ErrorKind::TimedOut, format!("no answer within {} s", timeout.as_secs_f64()))
        } else {
            error
        }
    })?;
    serde_json::from_slice(&answer).map_err(std::io::Error::other)
}

#[cfg(not(unix))]
fn ask(_socket: &Path, _id: &str, _input: Value, _timeout: Duration) -> std::io::Result<Value> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "SDK hooks need a Unix system"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_sh_and_relay_flags_read() {
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
        let args = relay_args(&["--timeout".into(), "2.5".into(), "--block-on-failure".into()]);
        assert_eq!((args.timeout, args.block), (Duration::from_millis(2500), true));
        let args = relay_args(&["--timeout".into(), "soon".into()]);
        assert_eq!((args.timeout, args.block), (Duration::from_secs(60), false));
    }
}
