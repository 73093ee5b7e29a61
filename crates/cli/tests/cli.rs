//! The `agent-tools` binary, run as a child process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use agent_tools_testkit::procs::Reaper;
use agent_tools_testkit::{carrying, eventually_blocking};
use serde_json::Value;

/// The program with a clean environment: no user settings, no state outside the test folder.
fn command(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command.env("HOME", cwd.join(".home")).env("XDG_STATE_HOME", cwd.join(".state")).arg("--cwd").arg(cwd);
    // Trust is recorded under the test's home only.
    command.env("XDG_CONFIG_HOME", cwd.join(".home/.config")).env_remove("CLAUDE_CONFIG_DIR");
    command.env_remove("ENABLE_TOOL_SEARCH").env_remove("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS");
    // No real Messages API: WebFetch's model and WebSearch only come with a key a test sets.
    command.env_remove("ANTHROPIC_API_KEY").env_remove("ANTHROPIC_BASE_URL");
    command
}

fn agent_tools(cwd: &Path, args: &[&str]) -> Output {
    command(cwd).args(args).output().unwrap()
}

/// Trusts the test folder with `agent-tools trust`, as a user would before using a project's own
/// configuration.
fn trust(cwd: &Path) {
    // No folder named: `--cwd` (which every test passes) is the one trusted.
    let output = agent_tools(cwd, &["trust"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let real = cwd.canonicalize().unwrap();
    assert!(stdout(&output).starts_with(&format!("Trusted: {} (", real.display())), "{}", stdout(&output));
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "first\nsecond needle\nthird\n").unwrap();
    dir
}

#[test]
fn list_prints_one_line_per_tool_with_its_flags() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["list"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let names: Vec<&str> = text.lines().map(|line| line.split_whitespace().next().unwrap()).collect();
    // Sorted by name, the way the pool is assembled; every tool once.
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted);
    for expected in ["Glob", "Grep", "Read"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let json: Value = serde_json::from_str(&stdout(&agent_tools(dir.path(), &["list", "--json"]))).unwrap();
    assert_eq!(json.as_array().unwrap().len(), names.len());
    let read = text.lines().find(|line| line.starts_with("Read ")).unwrap();
    let columns: Vec<&str> = read.split_whitespace().take(6).collect();
    assert_eq!(columns, ["Read", "read", "read-only", "concurrent", "all", "agents"], "{read}");
    let ask = text.lines().find(|line| line.starts_with("AskUserQuestion ")).unwrap();
    let columns: Vec<&str> = ask.split_whitespace().take(5).collect();
    assert_eq!(columns, ["AskUserQuestion", "think", "read-only", "concurrent", "main"], "{ask}");
}

#[test]
fn list_json_is_the_messages_api_tools_array() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["list", "--json"]);
    assert!(output.status.success());
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let tools = tools.as_array().unwrap();
    assert!(tools.len() >= 3);
    for tool in tools {
        let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
        if tool.get("defer_loading").is_some() {
            assert_eq!(keys, ["name", "description", "input_schema", "defer_loading"]);
        } else {
            assert_eq!(keys, ["name", "description", "input_schema"]);
        }
        assert_eq!(tool["input_schema"]["type"], "object");
        assert_eq!(tool["input_schema"]["additionalProperties"], false);
        assert!(tool["description"].as_str().unwrap().len() > 100);
    }
}

fn defer_loading(tools: &Value, name: &str) -> Option<Value> {
    let tool = tools.as_array().unwrap().iter().find(|tool| tool["name"] == name);
    tool.unwrap_or_else(|| panic!("{name} is not listed")).get("defer_loading").cloned()
}

#[test]
fn list_json_marks_deferred_tools_unless_tool_search_is_off() {
    let dir = fixture();
    let tools: Value = serde_json::from_str(&stdout(&agent_tools(dir.path(), &["list", "--json"]))).unwrap();
    assert_eq!(defer_loading(&tools, "ToolSearch"), None);
    assert_eq!(defer_loading(&tools, "NotebookEdit"), Some(Value::Bool(true)));
    assert_eq!(defer_loading(&tools, "TodoWrite"), Some(Value::Bool(true)));
    assert_eq!(defer_loading(&tools, "Read"), None);
    for value in ["false", "auto:100"] {
        let off = command(dir.path()).env("ENABLE_TOOL_SEARCH", value).args(["list", "--json"]).output().unwrap();
        let off: Value = serde_json::from_str(&stdout(&off)).unwrap();
        let off = off.as_array().unwrap();
        assert_eq!(off.len(), tools.as_array().unwrap().len() - 1, "{value}");
        assert!(off.iter().all(|tool| tool["name"] != "ToolSearch" && tool.get("defer_loading").is_none()));
    }
    let listed = command(dir.path()).env("ENABLE_TOOL_SEARCH", "false").arg("list").output().unwrap();
    assert!(!stdout(&listed).contains("ToolSearch"));
    // `auto` modes count as on.
    let auto = command(dir.path()).env("ENABLE_TOOL_SEARCH", "auto:10").args(["list", "--json"]).output().unwrap();
    assert_eq!(serde_json::from_str::<Value>(&stdout(&auto)).unwrap(), tools);
}

#[test]
fn tool_search_results_are_definitions_as_text_and_references_in_run() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["call", "ToolSearch", r#"{"query": "select:NotebookEdit"}"#]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.starts_with("<function>{\"description\":"), "{text}");
    assert!(text.contains(r#""name":"NotebookEdit","parameters":{"#), "{text}");
    assert!(text.contains("notebook_path"), "{text}");

    let output = agent_tools(dir.path(), &["call", "ToolSearch", r#"{"query": "zebra quokka"}"#]);
    assert_eq!(stdout(&output), "No matching deferred tools found\n");

    // A deferred tool called with bad input before it was loaded: the hint; after: none.
    let turn = r#"[
        {"type": "tool_use", "id": "toolu_1", "name": "NotebookEdit", "input": {"path": "a.ipynb"}},
        {"type": "tool_use", "id": "toolu_2", "name": "ToolSearch", "input": {"query": "select:NotebookEdit"}},
        {"type": "tool_use", "id": "toolu_3", "name": "NotebookEdit", "input": {"path": "a.ipynb"}}
    ]"#;
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let output = agent_tools(dir.path(), &["run", file.to_str().unwrap()]);
    let message: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let content = &message["content"];
    let before = content[0]["content"].as_str().unwrap();
    assert!(
        before
            .contains("Load the tool first: call ToolSearch with query \"select:NotebookEdit\", then retry this call."),
        "{before}"
    );
    assert_eq!(
        content[1],
        serde_json::json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "tool_reference", "tool_name": "NotebookEdit"}]})
    );
    let after = content[2]["content"].as_str().unwrap();
    assert!(after.starts_with("<tool_use_error>InputValidationError: ") && !after.contains("ToolSearch"), "{after}");
    // As in Claude Code, the message ends with a text block for the ToolSearch that loaded a tool.
    assert_eq!(content.as_array().unwrap().len(), 4);
    assert_eq!(content[3], serde_json::json!({"type": "text", "text": "Tool loaded."}));
}

#[test]
fn call_prints_the_result_and_exits_1_on_an_error_result() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["call", "Read", r#"{"file_path": "notes.txt", "limit": 2}"#]);
    assert!(output.status.success());
    assert_eq!(stdout(&output), "1\tfirst\n2\tsecond needle\n");

    let output = agent_tools(dir.path(), &["call", "Grep", r#"{"pattern": "needle", "output_mode": "content"}"#]);
    assert_eq!(stdout(&output), "notes.txt:2:second needle\n");

    let output = agent_tools(dir.path(), &["call", "Read", r#"{"file_path": "missing.txt"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        format!(
            "File does not exist. Note: your current working directory is {}.\n",
            dir.path().canonicalize().unwrap().display()
        )
    );

    let output = agent_tools(dir.path(), &["call", "Read", "{not json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid JSON"));
}

#[test]
fn run_answers_a_turn_from_a_file_or_stdin() {
    let dir = fixture();
    let turn = r#"{"role": "assistant", "content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}},
        {"type": "tool_use", "id": "toolu_b", "name": "Nope", "input": {}}
    ]}"#;
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let expected: Value = serde_json::json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "notes.txt"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "<tool_use_error>Error: No such tool available: Nope</tool_use_error>", "is_error": true}
    ]});
    let output = agent_tools(dir.path(), &["run", file.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(serde_json::from_str::<Value>(&stdout(&output)).unwrap(), expected);

    let mut child =
        command(dir.path()).args(["run", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    // A bare array of tool_use blocks works too.
    let bare = r#"[{"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}},
                   {"type": "tool_use", "id": "toolu_b", "name": "Nope", "input": {}}]"#;
    child.stdin.take().unwrap().write_all(bare.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(serde_json::from_str::<Value>(&stdout(&output)).unwrap(), expected);
}

#[test]
fn a_bad_cwd_is_a_usage_error() {
    let dir = fixture();
    let output = agent_tools(&dir.path().join("nope"), &["list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--cwd"));
}

#[test]
fn a_disallowed_tool_is_gone_and_says_why() {
    let dir = fixture();
    let listed = stdout(&agent_tools(dir.path(), &["--disallowed-tools", "Bash", "list"]));
    assert!(!listed.lines().any(|line| line.starts_with("Bash ")), "{listed}");
    let output = agent_tools(dir.path(), &["--disallowed-tools", "Bash", "call", "Bash", r#"{"command": "echo hi"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session by a permission rule.</tool_use_error>\n"
    );
}

#[test]
fn project_settings_hooks_run_around_calls() {
    let dir = fixture();
    fs::create_dir_all(dir.path().join(".claude")).unwrap();
    fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"model": "whatever", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    trust(dir.path());
    let output = agent_tools(
        dir.path(),
        &["--permission-mode", "bypassPermissions", "call", "Bash", r#"{"command": "echo hi"}"#],
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "PreToolUse:Bash hook error: [echo 'no shell today' >&2; exit 2]: no shell today\n\n");
    // --no-settings leaves the project's file out.
    let output = agent_tools(
        dir.path(),
        &["--no-settings", "--permission-mode", "bypassPermissions", "call", "Bash", r#"{"command": "echo hi"}"#],
    );
    assert_eq!(stdout(&output), "hi\n");
}

#[test]
fn without_a_terminal_a_call_that_needs_approval_says_how_to_allow_it() {
    if fs::OpenOptions::new().read(true).write(true).open("/dev/tty").is_ok() {
        return; // this test run has a terminal the program would ask on (terminal.rs covers that)
    }
    let dir = fixture();
    let input = format!(r#"{{"file_path": "{}", "content": "x"}}"#, dir.path().join("new.txt").display());
    let output = agent_tools(dir.path(), &["--no-settings", "call", "Write", &input]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with(
            "Permission to use Write has been denied: this call needs approval and no one could be asked \
             (there is no terminal to ask on; allow such calls with --allowed-tools 'Write', a rule in \
             .claude/settings.json, or --permission-mode)."
        ),
        "{text}"
    );
    assert!(!dir.path().join("new.txt").exists());
    // A command: the rule its own suggestion names.
    let output = agent_tools(dir.path(), &["--no-settings", "call", "Bash", r#"{"command": "npm test"}"#]);
    assert!(
        stdout(&output).contains("allow such calls with --allowed-tools 'Bash(npm test:*)'"),
        "{}",
        stdout(&output)
    );
    // A tool that always asks a person: no rule can help, and the refusal says so.
    let output = agent_tools(dir.path(), &["--no-settings", "--permission-mode", "plan", "call", "ExitPlanMode", "{}"]);
    assert!(stdout(&output).contains("only a person can answer this (no rule or mode can)"), "{}", stdout(&output));
    // A question asked whatever the rules say (a deny rule may stand behind it): no rule is
    // offered, since none would help — not even bypass mode.
    fs::create_dir_all(dir.path().join("secret")).unwrap();
    let deny = r#"{"permissions": {"deny": ["Read(./secret/**)"]}}"#;
    for mode in ["default", "bypassPermissions"] {
        let args = [
            "--no-settings",
            "--settings",
            deny,
            "--permission-mode",
            mode,
            "call",
            "Bash",
            r#"{"command": "grep -r x ."}"#,
        ];
        let output = agent_tools(dir.path(), &args);
        assert_eq!(output.status.code(), Some(1));
        let text = stdout(&output);
        assert!(text.contains("so no --allowed-tools rule or mode can let it run"), "{text}");
        assert!(!text.contains("allow such calls with"), "{text}");
    }
}

#[test]
fn broken_settings_and_unknown_modes_are_usage_errors() {
    let dir = fixture();
    let output = agent_tools(dir.path(), &["--permission-mode", "yolo", "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown mode \"yolo\""));
    let output = agent_tools(dir.path(), &["--settings", "{not json", "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--settings is not valid settings JSON"));
    let missing = dir.path().join("missing.json");
    let output = agent_tools(dir.path(), &["--settings", missing.to_str().unwrap(), "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        format!("agent-tools: cannot use the settings: cannot read {}: no such file", missing.display())
    );
}

#[test]
fn run_stream_prints_json_lines() {
    let dir = fixture();
    let turn = r#"[{"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}}]"#;
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let output = agent_tools(dir.path(), &["run", "--stream", file.to_str().unwrap()]);
    assert!(output.status.success());
    let lines: Vec<Value> = stdout(&output).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "tool_result");
    assert_eq!(lines[0]["block"]["content"], "notes.txt");
    assert_eq!(lines[1]["type"], "message");
    assert_eq!(lines[1]["message"]["content"][0]["tool_use_id"], "toolu_a");
}

// ----- background tasks end with the program -----

#[test]
fn call_and_run_stop_their_background_tasks_on_exit() {
    let dir = fixture();
    let token = format!("{}1", std::process::id());
    let _reaper = Reaper(token.clone());
    let input = format!(
        r#"{{"command": "(trap '' TERM HUP; exec sleep 3201.{token}) & sleep 3202.{token}", "run_in_background": true}}"#
    );
    let output = agent_tools(dir.path(), &["--dangerously-skip-permissions", "call", "Bash", &input]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout(&output).starts_with("Command running in background with ID: b"), "{}", stdout(&output));
    assert_eq!(carrying(&token), Vec::<i32>::new(), "call left its background task running");
    // The user is told what was stopped, and where its output is.
    let id = &stdout(&output)["Command running in background with ID: ".len()..][..9];
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(stderr.contains("agent-tools: 1 background task was still running and stopped on exit:"), "{stderr}");
    assert!(stderr.contains(&format!("  {id} (")), "{stderr}");
    assert!(stderr.contains(&format!("{id}.output")), "{stderr}");

    let turn = format!(
        r#"[{{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {{"command": "sleep 3203.{token}", "run_in_background": true}}}}]"#
    );
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let output = agent_tools(dir.path(), &["--dangerously-skip-permissions", "run", file.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout(&output).contains("Command running in background with ID: b"));
    assert_eq!(carrying(&token), Vec::<i32>::new(), "run left its background task running");
}

#[test]
fn a_signal_stops_the_program_and_its_tasks() {
    let dir = fixture();
    let token = format!("{}2", std::process::id());
    let _reaper = Reaper(token.clone());
    let turn = format!(
        r#"[{{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {{"command": "sleep 3204.{token}", "run_in_background": true}}}},
            {{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {{"command": "sleep 3205.{token}", "timeout": 600000}}}}]"#
    );
    let file = dir.path().join("turn.json");
    fs::write(&file, turn).unwrap();
    let mut child = command(dir.path())
        .args(["--dangerously-skip-permissions", "run", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Both sleeps run (each with its shell): the background one and the foreground one.
    assert!(
        eventually_blocking(std::time::Duration::from_secs(30), || carrying(&token).len() >= 3),
        "{:?}",
        carrying(&token)
    );
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert!(
        eventually_blocking(std::time::Duration::from_secs(10), || carrying(&token).is_empty()),
        "{:?}",
        carrying(&token)
    );
}

#[test]
fn background_tasks_can_be_turned_off() {
    let dir = fixture();
    let mut cmd = command(dir.path());
    cmd.env("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1");
    let output = cmd
        .args(["--dangerously-skip-permissions", "call", "Bash", r#"{"command": "true", "run_in_background": true}"#])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("An unexpected parameter `run_in_background` was provided"),
        "{}",
        stdout(&output)
    );
    let mut cmd = command(dir.path());
    let listed = cmd.env("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "true").args(["list", "--json"]).output().unwrap();
    let tools: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let bash = tools.as_array().unwrap().iter().find(|tool| tool["name"] == "Bash").unwrap();
    assert!(bash["input_schema"]["properties"].get("run_in_background").is_none());
    let names: Vec<&str> = tools.as_array().unwrap().iter().filter_map(|tool| tool["name"].as_str()).collect();
    assert!(names.contains(&"TaskOutput") && names.contains(&"TaskStop"), "{names:?}");
}

/// A git repository for the worktree tools, with git kept away from any user or system
/// configuration (the program's `HOME` is already inside the test folder).
fn git_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(args)
            .env("HOME", dir.path().join(".home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.name", "Test"]);
    git(&["config", "user.email", "test@example.com"]);
    fs::write(dir.path().join("README.md"), "# repo\n").unwrap();
    fs::write(dir.path().join(".gitignore"), ".home/\n.state/\n.claude/\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "first"]);
    dir
}

#[test]
fn run_carries_enter_worktrees_directory_to_the_next_call_and_exit_brings_it_back() {
    let dir = git_repo();
    let root = dir.path().canonicalize().unwrap();
    let worktree = root.join(".claude/worktrees/cli-run");
    let turn = r#"[
        {"type": "tool_use", "id": "toolu_1", "name": "EnterWorktree", "input": {"name": "cli-run"}},
        {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "pwd"}},
        {"type": "tool_use", "id": "toolu_3", "name": "ExitWorktree", "input": {"action": "remove"}},
        {"type": "tool_use", "id": "toolu_4", "name": "Bash", "input": {"command": "pwd"}}
    ]"#;
    // Entering and removing a worktree are writes: allowed in acceptEdits (asked by default).
    let mut child = command(&root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["--permission-mode", "acceptEdits", "run", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(turn.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let message: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let results = message["content"].as_array().unwrap();
    let text = |index: usize| results[index]["content"].as_str().unwrap().to_owned();
    assert!(text(0).starts_with(&format!("Created a worktree at {} on branch worktree-cli-run.", worktree.display())));
    assert_eq!(text(1), worktree.display().to_string(), "Bash starts in the worktree");
    assert!(text(2).starts_with(&format!("Left and removed the worktree at {}", worktree.display())), "{}", text(2));
    assert_eq!(text(3), root.display().to_string(), "and is back after ExitWorktree");
    assert!(results.iter().all(|result| result.get("is_error").is_none()), "{message}");
    assert!(!worktree.exists());
    // In the default mode with nobody to ask, entering is refused and nothing is made.
    let refused = agent_tools(&root, &["call", "EnterWorktree", r#"{"name": "cli-run"}"#]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stdout(&refused).contains("permissions to write to"), "{}", stdout(&refused));
    assert!(!worktree.exists());
}

#[test]
fn web_search_is_listed_only_with_an_api_key() {
    let dir = fixture();
    let names = |output: &Output| -> Vec<String> {
        stdout(output).lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect()
    };
    let without = names(&agent_tools(dir.path(), &["list"]));
    assert!(!without.contains(&"WebSearch".to_owned()), "{without:?}");
    let with = names(
        &command(dir.path())
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .arg("list")
            .output()
            .unwrap(),
    );
    assert!(with.contains(&"WebSearch".to_owned()), "{with:?}");
}

#[test]
fn the_task_list_tools_replace_todo_write_when_enabled_and_share_a_list_by_id() {
    let dir = fixture();
    let names = |output: &Output| -> Vec<String> {
        stdout(output).lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect()
    };
    let off = names(&agent_tools(dir.path(), &["list"]));
    assert!(off.contains(&"TodoWrite".to_owned()));
    assert!(!off.contains(&"TaskCreate".to_owned()));

    let tasks = |args: &[&str]| {
        command(dir.path())
            .env("CLAUDE_CODE_ENABLE_TASKS", "1")
            .env("CLAUDE_CODE_TASK_LIST_ID", "cli-list")
            .env_remove("CLAUDE_CONFIG_DIR")
            .args(args)
            .output()
            .unwrap()
    };
    let on = names(&tasks(&["list"]));
    for name in ["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"] {
        assert!(on.contains(&name.to_owned()), "{name} missing from {on:?}");
    }
    assert!(!on.contains(&"TodoWrite".to_owned()));

    // Each `call` is a new session; the list id makes them share one list under ~/.claude/tasks.
    let created = tasks(&["call", "TaskCreate", r#"{"subject": "Write docs", "description": "README"}"#]);
    assert!(created.status.success());
    assert_eq!(stdout(&created), "Task #1 created successfully: Write docs\n");
    tasks(&["call", "TaskCreate", r#"{"subject": "Review", "description": "read it"}"#]);
    let updated = tasks(&["call", "TaskUpdate", r#"{"taskId": "2", "addBlockedBy": ["1"], "status": "in_progress"}"#]);
    assert_eq!(stdout(&updated), "Updated task #2 status, blockedBy\n");
    let listed = tasks(&["call", "TaskList", "{}"]);
    assert_eq!(stdout(&listed), "#1 [pending] Write docs\n#2 [in_progress] Review [blocked by #1]\n");
    let file = dir.path().join(".home/.claude/tasks/cli-list/2.json");
    let task: Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(task["blockedBy"], serde_json::json!(["1"]));
    // A failed update is a plain result (exit status 0), as in Claude Code.
    let missing = tasks(&["call", "TaskUpdate", r#"{"taskId": "9", "status": "completed"}"#]);
    assert!(missing.status.success());
    assert_eq!(stdout(&missing), "Task not found\n");
}

#[test]
fn run_enters_plan_mode_for_the_rest_of_the_turn_and_names_a_plan_file_under_home() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let listed = stdout(&agent_tools(&root, &["list"]));
    assert!(listed.contains("EnterPlanMode") && listed.contains("ExitPlanMode"), "{listed}");
    let turn = format!(
        r#"[
        {{"type": "tool_use", "id": "toolu_1", "name": "EnterPlanMode", "input": {{}}}},
        {{"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {{"file_path": "{0}/new.txt", "content": "x"}}}},
        {{"type": "tool_use", "id": "toolu_3", "name": "Read", "input": {{"file_path": "{0}/notes.txt"}}}},
        {{"type": "tool_use", "id": "toolu_4", "name": "ExitPlanMode", "input": {{}}}}
    ]"#,
        root.display()
    );
    let file = root.join("turn.json");
    fs::write(&file, turn).unwrap();
    let output = command(&root)
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["--permission-mode", "acceptEdits", "run"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let message: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let results = message["content"].as_array().unwrap();
    let text = |index: usize| results[index]["content"].as_str().unwrap().to_owned();
    let plans = root.join(".home/.claude/plans");
    assert!(text(0).starts_with("Entered plan mode."), "{}", text(0));
    assert!(text(0).contains(&format!("plan file, {}/", plans.display())), "{}", text(0));
    assert!(plans.is_dir());
    // The Write after it runs in plan mode (acceptEdits would have allowed it).
    assert_eq!(text(1), format!("Cannot write to {}/new.txt while in plan mode.", root.display()));
    assert_eq!(results[1]["is_error"], true);
    assert!(!root.join("new.txt").exists());
    assert_eq!(text(2), "1\tfirst\n2\tsecond needle\n3\tthird\n4\t", "reading goes on");
    // Leaving needs the user's approval, and `run` without a terminal has no one to ask.
    assert!(
        text(3).starts_with("Permission to use ExitPlanMode has been denied: this call needs approval"),
        "{}",
        text(3)
    );
}

#[test]
fn the_plans_directory_setting_puts_plan_files_in_the_project() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir_all(root.join(".claude")).unwrap();
    fs::write(root.join(".claude/settings.json"), r#"{"plansDirectory": "docs/plans"}"#).unwrap();
    let output = agent_tools(&root, &["--trust-workspace", "call", "EnterPlanMode", "{}"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout(&output).contains(&format!("plan file, {}/docs/plans/", root.display())), "{}", stdout(&output));
    assert!(root.join("docs/plans").is_dir());
    // Outside plan mode, ExitPlanMode is an input error (code 1 in Claude Code's terms).
    let output = agent_tools(&root, &["call", "ExitPlanMode", "{}"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).starts_with("<tool_use_error>You are not in plan mode."), "{}", stdout(&output));
}

#[test]
fn ask_user_question_without_a_terminal_says_only_a_person_can_answer() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let questions = r#"{"questions": [{"question": "Which?", "header": "Pick", "options": [
        {"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}]}"#;
    // Even bypass mode cannot answer for the user.
    let output = agent_tools(&root, &["--permission-mode", "bypassPermissions", "call", "AskUserQuestion", questions]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.starts_with("Permission to use AskUserQuestion has been denied"), "{text}");
    assert!(
        text.contains("there is no terminal to show the questions on, and only a person can answer them"),
        "{text}"
    );
}

fn write_skill(dir: &Path, name: &str, text: &str) {
    fs::create_dir_all(dir.join(name)).unwrap();
    fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
}

#[test]
fn skills_come_from_home_and_project_and_their_allowed_tools_apply_within_the_turn() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let personal = root.join(".home/.claude/skills");
    let project = root.join(".claude/skills");
    write_skill(&personal, "greet", "---\ndescription: Personal greeting\n---\nSay hi to $ARGUMENTS.\n");
    write_skill(&project, "greet", "---\ndescription: Project greeting\n---\nHidden by the personal one.\n");
    write_skill(&project, "jot", "---\ndescription: Jot a note\nallowed-tools: [Write]\n---\nJot $0 down.\n");
    fs::create_dir_all(root.join(".claude/commands")).unwrap();
    fs::write(root.join(".claude/commands/ship.md"), "# Ship the release\n").unwrap();
    trust(&root);

    // The prompt lists each name once, the personal description winning, legacy commands last.
    let output = agent_tools(&root, &["list", "--json"]);
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let skill = tools.as_array().unwrap().iter().find(|tool| tool["name"] == "Skill").expect("Skill listed");
    let description = skill["description"].as_str().unwrap();
    assert!(
        description
            .ends_with("Available skills:\n- greet: Personal greeting\n- jot: Jot a note\n- ship: Ship the release"),
        "{description}"
    );

    // `call` prints the result, then the skill's text.
    let output = agent_tools(&root, &["call", "Skill", r#"{"skill": "/greet", "args": "Ada"}"#]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        stdout(&output),
        format!(
            "Launching skill: greet\n\nBase directory for this skill: {}\n\nSay hi to Ada.\n",
            personal.join("greet").display()
        )
    );

    // In one `run` turn, the skill's allowed-tools let the Write after it through.
    let note = root.join("note.txt");
    let turn = serde_json::json!([
        {"type": "tool_use", "id": "toolu_s", "name": "Skill", "input": {"skill": "jot", "args": "milk"}},
        {"type": "tool_use", "id": "toolu_w", "name": "Write", "input": {"file_path": note, "content": "milk\n"}}
    ]);
    let file = root.join("turn.json");
    fs::write(&file, turn.to_string()).unwrap();
    let output = agent_tools(
        &root,
        &["--permission-mode", "default", "--allowed-tools", "Skill(jot)", "run", file.to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let values: Vec<Value> =
        serde_json::Deserializer::from_str(&stdout(&output)).into_iter::<Value>().map(Result::unwrap).collect();
    assert_eq!(values.len(), 2, "{values:?}");
    assert_eq!(values[0]["content"][0]["content"], "Launching skill: jot");
    assert_eq!(values[0]["content"][1].get("is_error"), None, "{}", values[0]);
    assert_eq!(
        values[1],
        serde_json::json!({"role": "user", "content": [{"type": "text", "text": format!(
            "Base directory for this skill: {}\n\nJot milk down.", project.join("jot").display()
        )}]})
    );
    assert_eq!(fs::read_to_string(&note).unwrap(), "milk\n");
}

/// A cloned repository's own configuration (issue 11's hostile repository): an `.mcp.json`
/// server and a PreToolUse hook that would each leave a marker file, and an allow rule for
/// `Bash(*)`. Until the folder is trusted none of it runs or applies, and stderr says what was
/// left out and how to trust the folder; after `agent-tools trust` it all works.
fn hostile_repository() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let markers = root.join(".markers");
    fs::create_dir_all(&markers).unwrap();
    let server = serde_json::json!({"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch \"$0\"", markers.join("mcp")]}}});
    fs::write(root.join(".mcp.json"), server.to_string()).unwrap();
    fs::create_dir_all(root.join(".claude")).unwrap();
    let hook = format!("touch {}", markers.join("hook").display());
    let settings = serde_json::json!({
        "permissions": {"allow": ["Bash(*)"], "deny": ["Read(./private/**)"]},
        "hooks": {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": hook}]}]}
    });
    fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    fs::create_dir_all(root.join("private")).unwrap();
    fs::write(root.join("private/key"), "k").unwrap();
    (dir, root, markers)
}

#[test]
fn a_hostile_repositorys_configuration_waits_until_the_folder_is_trusted() {
    let (_dir, root, markers) = hostile_repository();
    let call = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["call", "Bash", r#"{"command": "touch ran"}"#]);
        agent_tools(&root, &all)
    };
    let output = call(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stdout(&output).starts_with("Permission to use Bash has been denied"), "{}", stdout(&output));
    assert_eq!(
        stderr.trim(),
        format!(
            "agent-tools: {root} is not a trusted folder, so its own configuration is not used: 1 MCP server in .mcp.json (evil); \
             1 allow rule and hooks in .claude/settings.json. Its deny and ask rules still apply. \
             To use it, run `agent-tools trust {root}` (or pass --trust-workspace for one run).",
            root = root.display()
        )
    );
    assert!(!markers.join("mcp").exists(), "the project's MCP server ran");
    assert!(!markers.join("hook").exists(), "the project's hook ran");
    assert!(!root.join("ran").exists(), "the project's allow rule applied");
    // Its deny rules apply all the same, even in bypass mode.
    let output =
        agent_tools(&root, &["--dangerously-skip-permissions", "call", "Read", r#"{"file_path": "private/key"}"#]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("denied by your permission settings"), "{}", stdout(&output));
    // `list` and `serve` start nothing of it either.
    agent_tools(&root, &["list"]);
    // (With no client on its stdin, serve stops at once; the servers would have started first.)
    let serve = command(&root).arg("serve").stdin(Stdio::null()).output().unwrap();
    assert!(String::from_utf8_lossy(&serve.stderr).contains("is not a trusted folder"));
    assert!(!markers.join("mcp").exists() && !markers.join("hook").exists());

    // Trusted: everything applies.
    trust(&root);
    let output = call(&[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(root.join("ran").exists(), "the allow rule applied");
    assert!(markers.join("hook").exists(), "the hook ran");
    assert!(markers.join("mcp").exists(), "the MCP server was started");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("not a trusted folder"), "{stderr}");

    // The record can be listed and taken back.
    let listed = agent_tools(&root, &["trust", "--list"]);
    assert_eq!(stdout(&listed), format!("{}\n", root.display()));
    let removed = agent_tools(&root, &["trust", "--remove", root.to_str().unwrap()]);
    assert_eq!(stdout(&removed), format!("Removed agent-tools' trust record for {}\n", root.display()));
    fs::remove_file(root.join("ran")).unwrap();
    assert_eq!(call(&[]).status.code(), Some(1));
    assert!(!root.join("ran").exists());
}

#[test]
fn claude_codes_trust_record_and_the_trust_workspace_flag_count_and_server_choices_apply() {
    let (_dir, root, markers) = hostile_repository();
    let call = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["call", "Bash", r#"{"command": "touch ran"}"#]);
        agent_tools(&root, &all)
    };
    // For one run only.
    let output = call(&["--trust-workspace"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(root.join("ran").exists() && markers.join("hook").exists() && markers.join("mcp").exists());
    for marker in [root.join("ran"), markers.join("hook"), markers.join("mcp")] {
        fs::remove_file(marker).unwrap();
    }
    assert_eq!(call(&[]).status.code(), Some(1), "the flag is not remembered");

    // Claude Code's own record for a folder above this one, with the server refused there.
    let parent = root.parent().unwrap().to_str().unwrap().to_owned();
    let claude = serde_json::json!({"projects": {
        parent: {"hasTrustDialogAccepted": true},
        root.to_str().unwrap(): {"disabledMcpjsonServers": ["evil"]}
    }});
    fs::create_dir_all(root.join(".home")).unwrap();
    fs::write(root.join(".home/.claude.json"), claude.to_string()).unwrap();
    let output = call(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(root.join("ran").exists() && markers.join("hook").exists());
    assert!(!markers.join("mcp").exists(), "Claude Code's answer refused the server");
    assert_eq!(stderr.trim(), "agent-tools: MCP server \"evil\" of .mcp.json skipped: disabledMcpjsonServers names it");

    // Taking back a record this program never made leaves Claude Code's in force, and says so.
    let removed = agent_tools(&root, &["trust", "--remove"]);
    assert_eq!(
        stdout(&removed),
        format!(
            "agent-tools has no trust record for {}\nIt is still trusted: Claude Code's record in {} trusts {}.\n",
            root.display(),
            root.join(".home/.claude.json").display(),
            root.parent().unwrap().display()
        )
    );
    let listed = agent_tools(&root, &["trust", "--list"]);
    assert_eq!(stdout(&listed), "");
    assert!(String::from_utf8_lossy(&listed.stderr).contains("no folder is trusted in"));

    // The home folder and `/` cannot be trusted wholesale.
    let output = agent_tools(&root, &["trust", "/"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("holds every project below it"));
}
