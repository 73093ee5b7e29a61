//! The shared runner and shell tool on real processes, driven by a shell that is not bash
//! (`/bin/sh` with a script of our own), as a second shell tool drives them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_tools_background::{ShellTaskSpec, TaskRegistry, WaitOutcome};
use agent_tools_core::PermissionMatcher;
use agent_tools_core::PermissionResult;
use agent_tools_core::{Tool, ToolError, ToolUseContext};
use agent_tools_shell::{
    Argv, Background, Foreground, Interpretation, Shell, ShellConfig, ShellInput, ShellTool, find_program,
    run_foreground, start_background, to_block,
};
use serde_json::json;

/// `/bin/sh` as a shell: the command and the cwd file reach a fixed script through the
/// environment; exit code 1 of a command ending in `false` is an answer, not an error; `true`
/// only reads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Sh {}

impl Shell for Sh {
    const NAME: &'static str = "Sh";
    const SEARCH_HINT: &'static str = "run POSIX shell commands";
    const PROMPT: &'static str = "Runs sh.";
    const BACKGROUND_PROMPT: &'static str = "In the background too.";
    const COMMAND_DESCRIPTION: Option<&'static str> = Some("An sh command.");
    const AUTO_ALLOW_SANDBOXED: bool = false;
    type Program = PathBuf;

    fn default_program() -> PathBuf {
        PathBuf::from("/bin/sh")
    }

    fn program(program: &PathBuf) -> Result<&Path, &'static str> {
        if program.as_os_str().is_empty() { Err("no sh") } else { Ok(program) }
    }

    fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv {
        sh(program, cwd_file, command)
    }

    fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec {
        ShellTaskSpec::new(program, command, dir)
    }

    fn interpret(command: &str, exit_code: i32) -> Interpretation {
        if command.ends_with("false") && exit_code == 1 {
            Interpretation { is_error: false, message: Some("False") }
        } else {
            Interpretation::plain(exit_code)
        }
    }

    fn is_read_only(command: &str) -> bool {
        command == "true"
    }

    fn is_concurrency_safe(command: &str) -> bool {
        command == "true"
    }

    fn is_destructive(command: &str) -> bool {
        command != "true"
    }

    fn check_permissions(command: &str, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::passthrough(format!("`{command}` needs approval"))
    }

    fn permission_matcher(command: &str) -> PermissionMatcher {
        let command = command.to_owned();
        Box::new(move |pattern| pattern == command)
    }

    fn is_excluded(_command: &str, _excluded: &[String]) -> bool {
        false
    }
}

type RunSettings = ShellConfig<Sh>;

fn input(command: &str, timeout: Option<f64>) -> ShellInput {
    ShellInput {
        command: command.into(),
        timeout,
        description: None,
        run_in_background: None,
        dangerously_disable_sandbox: None,
    }
}

/// `sh` running `$AGENT_TOOLS_TEST_COMMAND`, writing its final directory to the cwd file.
fn sh(program: &Path, cwd_file: &Path, command: &str) -> Argv {
    Argv::new(program)
        .arg("-c")
        .arg(r#"trap 'pwd -P > "$1"' EXIT; eval "$AGENT_TOOLS_TEST_COMMAND""#)
        .arg("sh")
        .arg(cwd_file)
        .env("AGENT_TOOLS_TEST_COMMAND", command)
}

async fn run(
    settings: &RunSettings,
    command: &str,
    timeout: Option<f64>,
    ctx: &ToolUseContext,
) -> Result<agent_tools_core::ToolResult<agent_tools_shell::ShellOutput>, ToolError> {
    let input = input(command, timeout);
    let argv = |cwd_file: &Path| sh(Path::new("/bin/sh"), cwd_file, command);
    let call = Foreground {
        tool_name: "Shell",
        input: &input,
        settings,
        sandboxed: false,
        argv: &argv,
        interpret: |_, code| Interpretation::plain(code),
    };
    run_foreground(call, ctx).await
}

fn real(path: &Path) -> PathBuf {
    path.canonicalize().unwrap()
}

#[tokio::test]
async fn output_exit_codes_and_the_directory_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let w = real(dir.path());
    std::fs::create_dir(w.join("sub")).unwrap();
    let ctx = ToolUseContext::new(&w);
    let settings = RunSettings::default();

    let done = run(&settings, "echo out; echo err >&2", None, &ctx).await.unwrap();
    assert_eq!(done.data.stdout, "out\nerr");
    assert!(!done.data.is_error());
    assert!(done.context_modifier.is_none(), "the directory did not change");

    let done = run(&settings, "cd sub && echo partial && exit 3", None, &ctx).await.unwrap();
    assert_eq!((done.data.exit_code, done.data.failed), (3, true));
    assert_eq!(to_block(&done.data, "toolu_1").content.text(), "Exit code 3\npartial");
    assert_eq!(done.data.cwd, w.join("sub").display().to_string());
    let moved = (done.context_modifier.unwrap())(ctx.clone());
    assert_eq!(moved.cwd, w.join("sub"));
}

#[tokio::test]
async fn a_timeout_kills_the_group_and_temporary_files_go() {
    let dir = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let w = real(dir.path());
    let ctx = ToolUseContext::new(&w);
    let settings = RunSettings {
        temp_dir: Some(temp.path().to_path_buf()),
        kill_grace: Duration::from_millis(100),
        ..RunSettings::default()
    };
    // Every process of the command carries the token: the foreground sleep, and the background
    // shell (named by its `$0`) with its own sleep, which would touch `late` if it outlived the kill.
    let token = format!("{}{}", std::process::id(), line!());
    let command =
        format!("echo before; sh -c 'touch started; sleep 30.{token}; touch late' late.{token} & sleep 30.{token}");
    let done = run(&settings, &command, Some(300.0), &ctx).await.unwrap();
    assert_eq!(to_block(&done.data, "t").content.text(), "Exit code 143\nbefore\nCommand timed out after 0.3s");
    assert!(w.join("started").exists(), "the background shell never started");
    let gone =
        agent_tools_testkit::eventually(Duration::from_secs(10), || agent_tools_testkit::carrying(&token).is_empty());
    assert!(gone.await, "still running: {:?}", agent_tools_testkit::carrying(&token));
    assert!(!w.join("late").exists());
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);

    let cancelled = ToolUseContext::new(&w);
    cancelled.cancel.cancel();
    assert!(matches!(run(&settings, "sleep 30", None, &cancelled).await, Err(ToolError::Cancelled)));
}

#[tokio::test]
async fn a_program_that_cannot_start_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let input = input("true", None);
    let missing = dir.path().join("no-such-program");
    let argv = |_: &Path| Argv::new(&missing);
    let settings = RunSettings::default();
    let call = Foreground {
        tool_name: "Shell",
        input: &input,
        settings: &settings,
        sandboxed: false,
        argv: &argv,
        interpret: |_, code| Interpretation::plain(code),
    };
    let Err(ToolError::Failed(message)) = run_foreground(call, &ctx).await else { panic!("it ran") };
    assert!(message.starts_with(&format!("Could not run {}: ", missing.display())), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_task_gets_the_shell_environment_and_the_description() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let mut input = input("echo $GIT_PAGER $MINE", None);
    input.description = Some("Show the pager".into());
    let settings = RunSettings::default();
    let spec = |cwd: &Path| {
        let mut spec =
            ShellTaskSpec::with_args("/bin/sh", vec!["-c".into(), "echo $GIT_PAGER $MINE".into()], "echo", cwd);
        spec.env = vec![("MINE".into(), "mine".into())];
        spec
    };
    let call = Background { input: &input, settings: &settings, sandboxed: false, spec: &spec };
    let started = start_background(call, &ctx).unwrap();
    let id = started.background_task_id.clone().unwrap();
    let tasks = TaskRegistry::for_context(&ctx);
    let WaitOutcome::Finished(task) = tasks.wait(&id, Duration::from_secs(20), &ctx.cancel).await else {
        panic!("the task did not finish")
    };
    assert_eq!(task.description, "Show the pager");
    assert_eq!(std::fs::read_to_string(task.output_path).unwrap(), "cat mine\n");
    tasks.shutdown();
}

#[test]
fn programs_are_found_on_the_given_search_path_only() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "not executable").unwrap();
    let tool = dir.path().join("tool");
    std::fs::write(&tool, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).unwrap();
    assert_eq!(find_program("tool", Some(&path)), Some(tool));
    assert_eq!(find_program("plain", Some(&path)), None, "not executable");
    assert_eq!(find_program("tool", None), None);
}

#[test]
fn a_prefix_goes_before_the_program() {
    let argv = Argv::new("/bin/sh").arg("-c").arg("true").env("A", "1");
    assert_eq!(argv.clone().under(None), argv);
    let wrapped = argv.under(Some((PathBuf::from("/usr/bin/bwrap"), vec!["--x".into(), "--".into()])));
    assert_eq!(wrapped.program, Path::new("/usr/bin/bwrap"));
    assert_eq!(wrapped.args, ["--x", "--", "/bin/sh", "-c", "true"]);
    assert_eq!(wrapped.env, [("A".into(), "1".into())]);
}

#[tokio::test]
async fn a_shell_tool_is_the_shared_contract_over_its_shell() {
    let dir = tempfile::tempdir().unwrap();
    let tool = agent_tools_core::build_tool(ShellTool::<Sh>::default());
    assert_eq!(tool.name(), "Sh");
    assert!(tool.is_enabled());
    assert_eq!(tool.input_schema()["properties"]["command"]["description"], "An sh command.");
    assert_eq!(
        tool.description(&Default::default()),
        format!("Runs sh.\nIn the background too.{}", agent_tools_shell::sandbox::PROMPT)
    );
    let ctx = ToolUseContext::new(dir.path());
    let (text, is_error) = run_call(tool.as_ref(), &ctx, json!({"command": "echo hi; false"})).await;
    assert_eq!((text.as_str(), is_error), ("hi", false), "the shell's own exit-code meaning");
    let (text, is_error) = run_call(tool.as_ref(), &ctx, json!({"command": "exit 2"})).await;
    assert_eq!((text.as_str(), is_error), ("Exit code 2", true));
    let (text, _) = run_call(tool.as_ref(), &ctx, json!({"command": "true"})).await;
    assert_eq!(text, "(Sh completed with no output)");
    let read = tool.parse(json!({"command": "true"})).unwrap();
    assert!(tool.is_read_only(&read) && tool.is_concurrency_safe(&read) && !tool.is_destructive(&read));
    assert_eq!(tool.check_permissions(&read, &ctx).await.behavior(), "passthrough");

    let disabled = agent_tools_core::build_tool(ShellTool::<Sh>::new(ShellConfig {
        shell: PathBuf::new(),
        ..ShellConfig::default()
    }));
    assert!(!disabled.is_enabled());
    let (text, is_error) = run_call(disabled.as_ref(), &ctx, json!({"command": "true"})).await;
    assert_eq!((text.as_str(), is_error), ("no sh", true));
}

/// One call through the contract: the result text and whether it is an error.
async fn run_call(tool: &dyn Tool, ctx: &ToolUseContext, input: serde_json::Value) -> (String, bool) {
    let done = agent_tools_core::call_tool(tool, "toolu_1", input, ctx).await;
    (done.block.content.text(), done.block.is_error)
}

// ----- a stopped command leaves nothing behind, whatever left its group -----

/// A foreground command whose processes leave its process group every way a command can: a
/// `setsid` child (`a`), a `setsid -f` orphan (`b`), a double fork into a new session (`c`), and an
/// orphan that also cleared its environment (`d`, still holding the output). Each writes its pid
/// to `<name>.pid` and becomes `sleep 300`; the shell writes its own to `root.pid` once all four
/// are written, then sleeps.
#[cfg(target_os = "linux")]
const ESCAPES: &str = r#"setsid sh -c 'echo $$ > a.pid; exec sleep 300' &
(setsid -f sh -c 'echo $$ > b.pid; exec sleep 300')
(sh -c 'setsid sh -c "echo \$\$ > c.pid; exec sleep 300" &')
(env -i setsid -f /bin/sh -c 'echo $$ > d.pid; exec sleep 300')
until [ -s a.pid ] && [ -s b.pid ] && [ -s c.pid ] && [ -s d.pid ]; do sleep 0.01; done
echo $$ > root.pid
sleep 100"#;

/// The pids the command wrote (`root` last), waiting for each file for a while.
#[cfg(target_os = "linux")]
async fn written_pids(dir: &Path, names: &[&str]) -> Vec<i32> {
    let mut pids = Vec::new();
    for name in names {
        let path = dir.join(format!("{name}.pid"));
        let read = || std::fs::read_to_string(&path).ok().and_then(|text| text.trim().parse::<i32>().ok());
        assert!(agent_tools_testkit::eventually(Duration::from_secs(20), || read().is_some()).await, "no {name}.pid");
        pids.extend(read());
    }
    pids
}

/// Kills by pid whatever a failed test left running (the pid files name them).
#[cfg(target_os = "linux")]
struct Leftovers(PathBuf);

#[cfg(target_os = "linux")]
impl Drop for Leftovers {
    fn drop(&mut self) {
        for name in ["a", "b", "c", "d", "root"] {
            if let Ok(pid) = std::fs::read_to_string(self.0.join(format!("{name}.pid"))) {
                let pid = pid.trim().to_owned();
                if !pid.is_empty() && agent_tools_testkit::alive(pid.parse().unwrap_or(0)) {
                    let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_ends_every_descendant_even_those_that_left_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let w = real(dir.path());
    let _leftovers = Leftovers(w.clone());
    let ctx = ToolUseContext::new(&w);
    let settings = RunSettings { kill_grace: Duration::from_millis(200), ..RunSettings::default() };
    let done = run(&settings, ESCAPES, Some(2000.0), &ctx).await.unwrap();
    assert!(done.data.timed_out);
    let pids = written_pids(&w, &["a", "b", "c", "d", "root"]).await;
    // Everything ended before the result came back: no waiting here.
    let running: Vec<i32> = pids.iter().copied().filter(|pid| !agent_tools_testkit::ended(*pid)).collect();
    assert_eq!(running, Vec::<i32>::new(), "of {pids:?}");
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_or_abandoned_call_ends_every_descendant() {
    let dir = tempfile::tempdir().unwrap();
    let w = real(dir.path());
    let _leftovers = Leftovers(w.clone());
    let ctx = ToolUseContext::new(&w);
    let settings = RunSettings { kill_grace: Duration::from_millis(200), ..RunSettings::default() };
    let cancel = ctx.cancel.clone();
    let call = {
        let (settings, ctx) = (settings.clone(), ctx.clone());
        tokio::spawn(async move { run(&settings, ESCAPES, Some(600_000.0), &ctx).await.map(|_| ()) })
    };
    let pids = written_pids(&w, &["a", "b", "c", "d", "root"]).await;
    cancel.cancel();
    assert!(matches!(call.await.unwrap(), Err(ToolError::Cancelled)));
    let running: Vec<i32> = pids.iter().copied().filter(|pid| !agent_tools_testkit::ended(*pid)).collect();
    assert_eq!(running, Vec::<i32>::new(), "of {pids:?}");

    // A call whose future is dropped (the caller gave up on it) ends them too.
    for name in ["a", "b", "c", "d", "root"] {
        std::fs::remove_file(w.join(format!("{name}.pid"))).unwrap();
    }
    let ctx = ToolUseContext::new(&w);
    let call = tokio::spawn(async move { run(&settings, ESCAPES, Some(600_000.0), &ctx).await.map(|_| ()) });
    let pids = written_pids(&w, &["a", "b", "c", "d", "root"]).await;
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    let all_ended = agent_tools_testkit::eventually(Duration::from_secs(20), || {
        pids.iter().all(|pid| agent_tools_testkit::ended(*pid))
    });
    assert!(
        all_ended.await,
        "of {pids:?}: {:?} still run",
        pids.iter().filter(|pid| !agent_tools_testkit::ended(**pid)).collect::<Vec<_>>()
    );
}
