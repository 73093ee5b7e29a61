//! The whole tool on real processes, with a stand-in for `pwsh` (PowerShell is not installed on
//! the machines these tests run on): a small `/bin/sh` script that takes exactly the arguments
//! the tool passes, records them, and does what the real script does with a POSIX shell — runs
//! the command from the environment and writes the directory it ended in to the cwd file. So
//! the runner's wiring is proven end to end: output, exit codes, the timeout, the working
//! directory, long output, background tasks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tool_powershell::PowerShellConfig;
use agent_tool_powershell::invocation::SCRIPT;
use agent_tools_background::{TaskRegistry, TaskStatus, WaitOutcome};
use agent_tools_core::call_tool;
use agent_tools_core::{Tool, ToolUseContext};
use serde_json::{Value, json};

/// The stand-in: refuses any other arguments (exit 64), records them NUL-separated next to
/// itself, then runs `$AGENT_TOOLS_PWSH_COMMAND` and writes `pwd -P` to
/// `$AGENT_TOOLS_PWSH_CWD_FILE` on exit, both variables removed first.
const FAKE_PWSH: &str = r#"#!/bin/sh
printf '%s\0' "$@" > "${0%/*}/args"
if [ "$#" -ne 5 ] || [ "$1" != -NoLogo ] || [ "$2" != -NoProfile ] || [ "$3" != -NonInteractive ] || [ "$4" != -Command ]; then
    echo "fake pwsh: unexpected arguments: $*" >&2
    exit 64
fi
command=$AGENT_TOOLS_PWSH_COMMAND
cwd_file=$AGENT_TOOLS_PWSH_CWD_FILE
unset AGENT_TOOLS_PWSH_COMMAND AGENT_TOOLS_PWSH_CWD_FILE
if [ -n "$cwd_file" ]; then
    trap 'pwd -P > "$cwd_file"' EXIT
fi
eval "$command"
"#;

/// A project folder, a folder holding the fake `pwsh`, and a session folder.
struct Setup {
    _dirs: [tempfile::TempDir; 3],
    project: PathBuf,
    bin: PathBuf,
    session: PathBuf,
}

impl Setup {
    fn new() -> Self {
        use std::os::unix::fs::PermissionsExt as _;
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let [project, bin, session] = [0, 1, 2].map(|i| dirs[i].path().canonicalize().unwrap());
        let pwsh = bin.join("pwsh");
        std::fs::write(&pwsh, FAKE_PWSH).unwrap();
        std::fs::set_permissions(&pwsh, std::fs::Permissions::from_mode(0o755)).unwrap();
        Self { _dirs: dirs, project, bin, session }
    }

    fn config(&self) -> PowerShellConfig {
        let search = self.bin.as_os_str();
        PowerShellConfig { shell: agent_tool_powershell::find_pwsh(Some(search)), ..PowerShellConfig::default() }
    }

    fn session(&self, config: PowerShellConfig) -> Session {
        let mut ctx = ToolUseContext::new(&self.project);
        ctx.options.session_dir = Some(self.session.clone());
        Session { tool: agent_tool_powershell::tool_with(config), ctx }
    }

    /// The arguments the fake `pwsh` got last.
    fn args(&self) -> Vec<String> {
        let bytes = std::fs::read(self.bin.join("args")).unwrap();
        bytes.split(|b| *b == 0).filter(|arg| !arg.is_empty()).map(|arg| String::from_utf8_lossy(arg).into()).collect()
    }
}

/// One context across calls, each call's context modifier applied before the next.
struct Session {
    tool: Arc<dyn Tool>,
    ctx: ToolUseContext,
}

impl Session {
    async fn run(&mut self, input: Value) -> (String, bool, Value) {
        let ctx = ToolUseContext { tool_use_id: Some("toolu_ps".into()), ..self.ctx.clone() };
        let mut done = call_tool(self.tool.as_ref(), "toolu_ps", input, &ctx).await;
        if let Some(modifier) = done.context_modifier.take() {
            self.ctx = modifier(self.ctx.clone());
        }
        let data = done.data.as_ref().map_or(Value::Null, |data| data.to_json());
        (done.block.content.text(), done.block.is_error, data)
    }

    async fn text(&mut self, command: &str) -> (String, bool) {
        let (text, is_error, _) = self.run(json!({"command": command})).await;
        (text, is_error)
    }
}

#[tokio::test]
async fn output_and_exit_codes_read_as_bashs() {
    let setup = Setup::new();
    let mut session = setup.session(setup.config());
    assert_eq!(session.text("echo hello; echo oops >&2").await, ("hello\noops".into(), false));
    assert_eq!(
        setup.args(),
        ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command", SCRIPT],
        "pwsh got exactly these arguments"
    );
    assert_eq!(session.text("echo partial; exit 3").await, ("Exit code 3\npartial".into(), true));
    assert_eq!(session.text("exit 1").await, ("Exit code 1".into(), true));
    assert_eq!(session.text("true").await, ("(PowerShell completed with no output)".into(), false));
    // The command arrives as it was written: quotes, dollars and newlines are the shell's own.
    let (text, _) = session.text("printf '%s|' 'a  b' \"$((1+1))\"\necho; echo [$AGENT_TOOLS_PWSH_COMMAND]").await;
    assert_eq!(text, "a  b|2|\n[]");
}

#[tokio::test]
async fn the_working_directory_carries_over() {
    let setup = Setup::new();
    std::fs::create_dir(setup.project.join("sub")).unwrap();
    let mut session = setup.session(setup.config());
    assert_eq!(session.text("cd sub").await, ("(PowerShell completed with no output)".into(), false));
    assert_eq!(session.ctx.cwd, setup.project.join("sub"));
    let (text, _) = session.text("pwd").await;
    assert_eq!(text, setup.project.join("sub").display().to_string());
    // A failing command that moved still moves the session, as for Bash.
    let (text, is_error) = session.text("cd .. && exit 2").await;
    assert_eq!((text.as_str(), is_error), ("Exit code 2", true));
    assert_eq!(session.ctx.cwd, setup.project);
}

#[tokio::test]
async fn a_timeout_stops_the_command_and_everything_it_started() {
    let setup = Setup::new();
    let config = PowerShellConfig { kill_grace: Duration::from_millis(100), ..setup.config() };
    let mut session = setup.session(config);
    // Every process carries the token: the sleeps, and the background shell (its `$0`), which
    // would touch `late` if it outlived the kill.
    let token = format!("{}{}", std::process::id(), line!());
    let command = format!("echo started; sh -c 'sleep 30.{token}; touch late' late.{token} & sleep 30.{token}");
    let (text, is_error, data) = session.run(json!({"command": command, "timeout": "300"})).await;
    assert_eq!(text, "Exit code 143\nstarted\nCommand timed out after 0.3s");
    assert!(is_error);
    assert_eq!(data["timedOut"], true);
    assert_eq!(data["interrupted"], true);
    let gone =
        agent_tools_testkit::eventually(Duration::from_secs(10), || agent_tools_testkit::carrying(&token).is_empty());
    assert!(gone.await, "still running: {:?}", agent_tools_testkit::carrying(&token));
    assert!(!setup.project.join("late").exists());
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_is_saved_whole() {
    let setup = Setup::new();
    let mut session = setup.session(setup.config());
    let (text, is_error, data) = session.run(json!({"command": "seq 1 100000"})).await;
    assert!(!is_error);
    assert!(text.chars().count() <= 30_000, "{}", text.chars().count());
    assert!(text.starts_with("1\n2\n3\n"));
    assert!(text.ends_with("\n99999\n100000"));
    assert!(text.contains("lines (") && text.contains("characters) truncated] ...\n<persisted-output>"), "{text}");
    let saved = setup.session.join("tool-results").join("toolu_ps.txt");
    assert_eq!(data["persistedOutputPath"], saved.display().to_string());
    let whole = std::fs::read_to_string(saved).unwrap();
    assert_eq!(whole.lines().count(), 100_000);
}

#[tokio::test]
async fn a_pwsh_that_cannot_start_is_named() {
    let setup = Setup::new();
    let missing = setup.bin.join("gone").join("pwsh");
    let config = PowerShellConfig { shell: Some(missing.clone()), ..PowerShellConfig::default() };
    let (text, is_error) = setup.session(config).text("echo hi").await;
    assert!(is_error);
    assert!(text.starts_with(&format!("Could not run {}: ", missing.display())), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_command_becomes_a_task() {
    let setup = Setup::new();
    let mut session = setup.session(setup.config());
    let input = json!({"command": "echo from the task; exit 4", "run_in_background": true, "description": "Say it"});
    let (text, is_error, data) = session.run(input).await;
    assert!(!is_error, "{text}");
    let id = data["backgroundTaskId"].as_str().unwrap().to_owned();
    let output = setup.session.join("tasks").join(format!("{id}.output"));
    assert_eq!(
        text,
        format!(
            "Command running in background with ID: {id}. Output is being written to: {}. You will be notified when it completes. To check interim output, use Read on that file path.",
            output.display()
        )
    );
    let tasks = TaskRegistry::for_context(&session.ctx);
    let WaitOutcome::Finished(task) = tasks.wait(&id, Duration::from_secs(20), &session.ctx.cancel).await else {
        panic!("the task did not finish")
    };
    assert_eq!((task.status, task.exit_code), (TaskStatus::Failed, Some(4)));
    assert_eq!(task.description, "Say it");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "from the task\n");
    assert_eq!(setup.args(), ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command", SCRIPT]);
    tasks.shutdown();
}

#[tokio::test]
async fn progress_is_reported_under_the_tools_name() {
    let setup = Setup::new();
    let config = PowerShellConfig {
        progress_after: Duration::from_millis(50),
        progress_every: Duration::from_millis(50),
        ..setup.config()
    };
    let tool = agent_tool_powershell::tool_with(config);
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = events.clone();
    let mut ctx = ToolUseContext::new(&setup.project);
    ctx.progress = Some(Arc::new(move |event| sink.lock().unwrap().push(event)));
    let done = call_tool(tool.as_ref(), "toolu_p", json!({"command": "echo one; sleep 0.4"}), &ctx).await;
    assert_eq!(done.block.content.text(), "one");
    let events = events.lock().unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.tool_name, "PowerShell");
    assert_eq!(last.data["output"], "one");
}

#[test]
fn the_stand_in_refuses_other_arguments() {
    let setup = Setup::new();
    let status = std::process::Command::new(setup.bin.join("pwsh")).arg("-Command").arg("x").status().unwrap();
    assert_eq!(status.code(), Some(64));
    assert!(Path::new(&setup.bin.join("args")).exists());
}
