//! Hook `if` conditions: a hook runs only for the calls its rule pattern matches, matched by the
//! tool's own rule matching (Bash per sub-command, file tools by path), as Claude Code's hook
//! `if` conditions are; a condition for another tool never runs the hook.

#![cfg(all(feature = "bash", feature = "file-read"))]

use agent_tools_core::ToolUseBlock;
use agent_tools_core::{PermissionMode, ToolPermissionContext, ToolUseContext};
use agent_tools_host::hooks::{CommandHook, HookMatcher};
use agent_tools_host::{Executor, Hooks, HostConfig, assemble_tool_pool};
use serde_json::{Value, json};

fn guarded(condition: &str) -> Hooks {
    let hook = CommandHook {
        kind: "command".into(),
        command: "echo 'stopped by the guard' >&2; exit 2".into(),
        timeout: None,
        condition: Some(condition.into()),
        ..CommandHook::default()
    };
    Hooks {
        pre_tool_use: vec![HookMatcher { matcher: String::new(), hooks: vec![hook] }],
        post_tool_use: Vec::new(),
        ..Hooks::default()
    }
}

async fn run(hooks: Hooks, name: &str, input: Value, dir: &std::path::Path) -> (String, bool) {
    let permissions = ToolPermissionContext { mode: PermissionMode::BypassPermissions, ..Default::default() };
    let pool = assemble_tool_pool(&permissions, Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(dir);
    ctx.permission_context = std::sync::Arc::new(permissions);
    ctx.options.tools = pool.clone().into();
    let block = ToolUseBlock { id: "toolu_if".into(), name: name.into(), input };
    let done = Executor::new(pool).with_hooks(hooks).run_tool_use(&block, &ctx).await;
    (done.block.content.text(), done.block.is_error)
}

#[tokio::test]
async fn a_bash_condition_matches_each_sub_command() {
    let dir = tempfile::tempdir().unwrap();
    let (text, blocked) =
        run(guarded("Bash(git *)"), "Bash", json!({"command": "echo one && git status"}), dir.path()).await;
    assert!(blocked && text.contains("stopped by the guard"), "{text}");
    let (text, blocked) = run(guarded("Bash(git *)"), "Bash", json!({"command": "echo gitless"}), dir.path()).await;
    assert!(!blocked, "{text}");
    assert_eq!(text, "gitless");
}

#[tokio::test]
async fn a_file_condition_matches_the_path_and_another_tools_condition_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("secret")).unwrap();
    std::fs::write(dir.path().join("secret/key.txt"), "k\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "n\n").unwrap();
    let key = dir.path().join("secret/key.txt");
    let (text, blocked) = run(guarded("Read(secret/**)"), "Read", json!({"file_path": key}), dir.path()).await;
    assert!(blocked && text.contains("stopped by the guard"), "{text}");
    let notes = dir.path().join("notes.txt");
    let (text, blocked) = run(guarded("Read(secret/**)"), "Read", json!({"file_path": notes}), dir.path()).await;
    assert!(!blocked, "{text}");
    // A condition naming another tool: the hook does not run for Read at all.
    let (text, blocked) = run(guarded("Edit"), "Read", json!({"file_path": key}), dir.path()).await;
    assert!(!blocked, "{text}");
    // A bare tool name runs the hook for every call of that tool.
    let (_, blocked) = run(guarded("Read"), "Read", json!({"file_path": notes}), dir.path()).await;
    assert!(blocked);
}
