//! Monitor in sandbox mode, as Bash's background commands: run under bubblewrap, refused (never
//! run unsandboxed) without it, and allowed without a question only when it will really run
//! sandboxed. The tests that need bubblewrap are skipped without it, unless
//! `AGENT_TOOLS_REQUIRE_BWRAP=1` (CI) makes its absence a failure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_tool_monitor::MonitorConfig;
use agent_tools_background::{TaskRegistry, WaitOutcome};
use agent_tools_core::CancellationToken;
use agent_tools_core::call_tool;
use agent_tools_core::{SandboxSettings, ToolUseContext};
use serde_json::json;

/// Whether bubblewrap is there; with `AGENT_TOOLS_REQUIRE_BWRAP=1` its absence fails.
fn has_bwrap() -> bool {
    let found = agent_tools_shell::sandbox::available(None);
    if !found {
        assert!(std::env::var_os("AGENT_TOOLS_REQUIRE_BWRAP").is_none_or(|v| v != "1"), "bubblewrap is required");
        eprintln!("skipped: no bubblewrap");
    }
    found
}

/// A project folder, a folder outside it with a file, and the sandbox's temporary folder.
fn project() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, outside, tmp) = (base.join("proj"), base.join("outside"), base.join("tmp"));
    for folder in [&root, &outside, &tmp] {
        std::fs::create_dir_all(folder).unwrap();
    }
    std::fs::write(outside.join("keep.txt"), "original").unwrap();
    (dir, root, outside, tmp)
}

fn sandboxed(root: &Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(root);
    ctx.options.sandbox = SandboxSettings { enabled: true, ..SandboxSettings::default() };
    ctx.options.session_dir = Some(root.join(".state"));
    ctx
}

#[tokio::test]
async fn without_bubblewrap_a_sandboxed_monitor_is_refused_not_run_unsandboxed() {
    let (_dir, root, _, tmp) = project();
    let ctx = sandboxed(&root);
    let config =
        MonitorConfig { bwrap: Some(root.join("no-such-bwrap")), temp_dir: Some(tmp), ..MonitorConfig::default() };
    let monitor = agent_tool_monitor::tool_with(config);
    let input = json!({"description": "d", "timeout_ms": 5000, "command": "touch ran.txt"});
    let done = call_tool(monitor.as_ref(), "toolu_sb", input.clone(), &ctx).await;
    assert!(done.block.is_error);
    let text = done.block.content.text();
    assert!(text.contains("bubblewrap") && text.contains("not run"), "{text}");
    assert!(TaskRegistry::existing(&ctx).is_none_or(|tasks| tasks.list().is_empty()), "nothing started");
    assert!(!root.join("ran.txt").exists());
    // Nothing is allowed on the sandbox's account either.
    let parsed = monitor.parse(input).unwrap();
    assert_eq!(monitor.check_permissions(&parsed, &ctx).await.behavior(), "passthrough");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_monitor_writes_the_project_only_and_needs_no_approval() {
    if !has_bwrap() {
        return;
    }
    let (_dir, root, outside, tmp) = project();
    let ctx = sandboxed(&root);
    let monitor = agent_tool_monitor::tool_with(MonitorConfig { temp_dir: Some(tmp), ..MonitorConfig::default() });
    let target = outside.join("keep.txt");
    let command = format!("echo inside > in.txt; echo changed > {}", target.display());
    let input = json!({"description": "d", "timeout_ms": 30000, "command": command});
    let parsed = monitor.parse(input.clone()).unwrap();
    assert_eq!(monitor.check_permissions(&parsed, &ctx).await.behavior(), "allow", "autoAllowBashIfSandboxed");
    let done = call_tool(monitor.as_ref(), "toolu_sb", input, &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let id = done.data.unwrap().to_json()["taskId"].as_str().unwrap().to_owned();
    let tasks = TaskRegistry::existing(&ctx).unwrap();
    let WaitOutcome::Finished(task) = tasks.wait(&id, Duration::from_secs(30), &CancellationToken::new()).await else {
        panic!("the task did not finish")
    };
    assert_eq!(task.exit_code, Some(1));
    assert_eq!(std::fs::read_to_string(root.join("in.txt")).unwrap(), "inside\n");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original");
    tasks.shutdown();
}
