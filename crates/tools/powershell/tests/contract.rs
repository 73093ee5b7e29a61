//! PowerShell's contract without running pwsh: enablement, the exact program, arguments and
//! script, the schema, input validation, flags and timeouts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_tool_powershell::invocation::{self, COMMAND_VAR, CWD_FILE_VAR, SCRIPT};
use agent_tool_powershell::{NAME, PowerShellConfig, PowerShellInput, find_pwsh};
use agent_tools_core::{MaxResultSize, Tool, ToolFlags, ToolUseContext};
use serde_json::{Value, json};

fn with_pwsh(background_tasks: bool) -> std::sync::Arc<dyn Tool> {
    agent_tool_powershell::tool_with(PowerShellConfig {
        shell: Some(PathBuf::from("/opt/microsoft/powershell/7/pwsh")),
        background_tasks,
        ..PowerShellConfig::default()
    })
}

fn keys(schema: &Value) -> Vec<String> {
    schema["properties"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn it_is_enabled_only_with_a_pwsh() {
    assert!(!agent_tool_powershell::tool().is_enabled(), "no pwsh by default");
    assert_eq!(PowerShellConfig::default().shell, None);
    assert!(with_pwsh(true).is_enabled());
    assert_eq!(with_pwsh(true).name(), NAME);
}

#[test]
fn pwsh_is_found_only_on_the_given_search_path() {
    use std::os::unix::fs::PermissionsExt as _;
    let empty = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let pwsh = bin.path().join("pwsh");
    std::fs::write(&pwsh, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&pwsh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let search = std::env::join_paths([empty.path(), bin.path()]).unwrap();
    assert_eq!(find_pwsh(Some(&search)), Some(pwsh.clone()));
    assert_eq!(find_pwsh(Some(empty.path().as_os_str())), None);
    assert_eq!(find_pwsh(None), None);
    std::fs::set_permissions(&pwsh, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(find_pwsh(Some(&search)), None, "a pwsh that cannot run is no pwsh");
}

#[test]
fn the_program_arguments_and_environment_are_exact() {
    let command = "Get-ChildItem 'it''s' | Where-Object { $_.Length -gt 0 }; exit $LASTEXITCODE";
    let argv = invocation::foreground(Path::new("/usr/bin/pwsh"), command, Path::new("/tmp/call/cwd"));
    assert_eq!(argv.program, Path::new("/usr/bin/pwsh"));
    let args: Vec<OsString> =
        ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command", SCRIPT].iter().map(OsString::from).collect();
    assert_eq!(argv.args, args);
    assert_eq!(
        argv.env,
        [(OsString::from(COMMAND_VAR), OsString::from(command)), (CWD_FILE_VAR.into(), "/tmp/call/cwd".into())]
    );
    assert_eq!(invocation::args(), args, "a background task gets the same arguments");
    assert_eq!(invocation::background_env(command), [(OsString::from(COMMAND_VAR), OsString::from(command))]);
}

#[test]
fn the_script_reads_the_command_from_the_environment_and_always_records_the_directory() {
    // The command is never part of the script: it is read from the variable and run with
    // Invoke-Expression, and the variables are removed before it runs.
    assert!(SCRIPT.starts_with("$__agent_tools_command = $env:AGENT_TOOLS_PWSH_COMMAND\n"));
    assert!(SCRIPT.contains("$__agent_tools_cwd_file = $env:AGENT_TOOLS_PWSH_CWD_FILE\n"));
    assert!(SCRIPT.contains(
        "Remove-Item -LiteralPath Env:AGENT_TOOLS_PWSH_COMMAND, Env:AGENT_TOOLS_PWSH_CWD_FILE -ErrorAction Ignore\n"
    ));
    let run = SCRIPT.find("Invoke-Expression -Command $__agent_tools_command").unwrap();
    assert!(SCRIPT[..run].contains("try {"));
    // Whatever happens, `finally` writes the provider path of the final location.
    let finally = SCRIPT.find("} finally {").unwrap();
    assert!(finally > run);
    assert!(
        SCRIPT[finally..]
            .contains("[System.IO.File]::WriteAllText($__agent_tools_cwd_file, (Get-Location).ProviderPath)")
    );
    // The exit status: 1 after a terminating error, else a native program's code, else $?.
    assert!(SCRIPT.contains("} catch {\n    $__agent_tools_failed = $true\n"));
    assert!(SCRIPT.ends_with(
        "if ($__agent_tools_failed) { exit 1 }\nif ($global:LASTEXITCODE) { exit $global:LASTEXITCODE }\nif (-not $__agent_tools_ok) { exit 1 }\nexit 0"
    ));
    assert_eq!(COMMAND_VAR, "AGENT_TOOLS_PWSH_COMMAND");
    assert_eq!(CWD_FILE_VAR, "AGENT_TOOLS_PWSH_CWD_FILE");
}

#[test]
fn the_schema_is_bashs_with_powershells_command() {
    let schema = with_pwsh(true).input_schema().clone();
    assert_eq!(keys(&schema), ["command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"]);
    assert_eq!(schema["required"], json!(["command"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let command = schema["properties"]["command"]["description"].as_str().unwrap();
    assert!(command.contains("PowerShell") && !command.contains("bash"), "{command}");
    assert_eq!(schema["properties"]["timeout"]["type"], "number");

    let without = with_pwsh(false).input_schema().clone();
    assert_eq!(keys(&without), ["command", "timeout", "description", "dangerouslyDisableSandbox"]);
    assert!(with_pwsh(true).description(&Default::default()).contains("run_in_background"));
    assert!(!with_pwsh(false).description(&Default::default()).contains("run_in_background"));
}

#[test]
fn input_is_parsed_strictly_with_claude_codes_leniencies() {
    let tool = with_pwsh(true);
    let parsed = tool
        .parse(json!({"command": "Get-Date", "timeout": "1500", "run_in_background": "false", "description": "Now"}))
        .unwrap();
    let input = parsed.downcast_ref::<PowerShellInput>().unwrap();
    assert_eq!(input.timeout, Some(1500.0), "a numeric string is a number");
    assert_eq!(input.run_in_background, Some(false), "\"false\" is false");
    assert_eq!(input.summary(), Some("Now"));
    let flagged = tool.parse(json!({"command": "x", "dangerouslyDisableSandbox": true})).unwrap();
    assert_eq!(flagged.downcast_ref::<PowerShellInput>().unwrap().dangerously_disable_sandbox, Some(true));

    for bad in [
        json!({}),
        json!({"command": 5}),
        json!({"command": "x", "timeout": "soon"}),
        json!({"command": "x", "shell": "bash"}),
        json!({"command": "x", "run_in_background": "maybe"}),
    ] {
        assert!(tool.parse(bad.clone()).is_err(), "{bad}");
    }
    // Without background tasks the field does not exist.
    assert!(with_pwsh(false).parse(json!({"command": "x", "run_in_background": true})).is_err());
    assert!(with_pwsh(false).parse(json!({"command": "x"})).is_ok());
}

#[test]
fn timeouts_default_and_clamp_like_claude_codes_powershell() {
    let config = PowerShellConfig::default();
    let timeout = |value: Option<f64>| {
        let input = PowerShellInput {
            command: "x".into(),
            timeout: value,
            description: None,
            run_in_background: None,
            dangerously_disable_sandbox: None,
        };
        config.timeout_for(&input)
    };
    assert_eq!(timeout(None), Duration::from_millis(120_000));
    assert_eq!(timeout(Some(0.0)), Duration::from_millis(120_000));
    assert_eq!(timeout(Some(2500.0)), Duration::from_millis(2500));
    assert_eq!(timeout(Some(900_000.0)), Duration::from_millis(600_000), "min(timeout, max)");
    let short = PowerShellConfig { default_timeout_ms: 1000, max_timeout_ms: 500, ..PowerShellConfig::default() };
    let input = PowerShellInput {
        command: "x".into(),
        timeout: Some(5000.0),
        description: None,
        run_in_background: None,
        dangerously_disable_sandbox: None,
    };
    assert_eq!(short.timeout_for(&input), Duration::from_millis(1000), "the max is never below the default");
}

#[test]
fn flags_and_limits_are_claude_codes() {
    let tool = with_pwsh(true);
    assert_eq!(tool.max_result_size_chars(), MaxResultSize::Chars(30_000));
    assert_eq!(
        tool.flags(),
        ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: true }
    );
    let read = tool.parse(json!({"command": "Get-ChildItem -Recurse src"})).unwrap();
    assert!(tool.is_read_only(&read) && tool.is_concurrency_safe(&read) && !tool.is_destructive(&read));
    let write = tool.parse(json!({"command": "Remove-Item -Recurse build"})).unwrap();
    assert!(!tool.is_read_only(&write) && !tool.is_concurrency_safe(&write) && tool.is_destructive(&write));
}

#[tokio::test]
async fn without_pwsh_a_call_is_a_plain_error() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (text, is_error) =
        agent_tools_testkit::run(agent_tool_powershell::tool().as_ref(), &ctx, json!({"command": "Get-Date"})).await;
    assert!(is_error);
    assert!(text.starts_with("PowerShell is not available: no pwsh program was found"), "{text}");
}
