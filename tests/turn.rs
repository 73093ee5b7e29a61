//! An assistant turn (`fixtures/turn.json`, the example from the design) run through the host
//! with every tool compiled in, against a small repository-like folder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use agent_tools_core::Message;
use agent_tools_core::{ToolPermissionContext, ToolUseContext};
use agent_tools_host::{HostConfig, assemble_tool_pool, run_tool_uses, tool_result_message};
use serde_json::{Value, json};

fn write(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

#[tokio::test]
async fn the_example_turn_gives_results_in_order_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "Cargo.toml", "[workspace]\nresolver = \"3\"\nmembers = [\"crates/*\"]\n\n[workspace.package]\n");
    write(root, "crates/core/Cargo.toml", "[package]\nname = \"core\"\n");
    write(root, "crates/core/src/lib.rs", "/// Builds.\npub fn build_tool() {}\n");
    write(root, "crates/host/Cargo.toml", "[package]\nname = \"host\"\n");

    let turn: Message = serde_json::from_str(include_str!("fixtures/turn.json")).unwrap();
    let calls: Vec<_> = turn.tool_uses().into_iter().cloned().collect();
    assert_eq!(calls.len(), 6);

    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(root);
    let done = run_tool_uses(&pool, &calls, &mut ctx).await;
    let message = serde_json::to_value(tool_result_message(&done)).unwrap();
    let blocks = message["content"].as_array().unwrap();
    let ids: Vec<&str> = blocks.iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["toolu_01", "toolu_02", "toolu_03", "toolu_04", "toolu_05", "toolu_06"]);

    let text = |i: usize| blocks[i]["content"].as_str().unwrap().to_owned();
    let is_error = |i: usize| blocks[i].get("is_error") == Some(&Value::Bool(true));

    // The first four run as one batch; the failing Bash call leaves its siblings running to the
    // end (Claude Code 2.1's rule).
    let mut globbed: Vec<String> = text(0).lines().map(str::to_owned).collect();
    globbed.sort_unstable();
    assert_eq!(globbed, ["crates/core/Cargo.toml", "crates/host/Cargo.toml"]);
    assert!(!is_error(0));
    assert_eq!(text(1), "crates/core/src/lib.rs:2:pub fn build_tool() {}");
    assert!(!is_error(1));
    assert_eq!(
        text(2),
        "1\t[workspace]\n2\tresolver = \"3\"\n3\tmembers = [\"crates/*\"]\n4\t\n5\t[workspace.package]"
    );
    assert!(!is_error(2));

    // Not a git checkout: git's own error, with its exit code.
    assert!(is_error(3));
    assert!(text(3).starts_with("Exit code 128\nfatal: not a git repository"), "{}", text(3));
    assert!(is_error(4));
    assert_eq!(text(4), "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>");
    assert!(is_error(5));
    assert_eq!(
        text(5),
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>"
    );
    assert_eq!(message["role"], json!("user"));
}

/// A read-only `cd` runs in order, and the directory it ends in carries over to the next call
/// of the same turn.
#[tokio::test]
async fn a_cd_in_a_turn_moves_the_calls_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    let executor = agent_tools_host::Executor::new(agent_tools_host::get_all_base_tools(&Default::default()));
    let mut ctx = agent_tools_core::ToolUseContext::new(&root);
    ctx.permission_context = std::sync::Arc::new(ToolPermissionContext {
        mode: agent_tools_core::PermissionMode::BypassPermissions,
        is_bypass_permissions_mode_available: true,
        ..Default::default()
    });
    let uses: Vec<agent_tools_core::ToolUseBlock> = serde_json::from_value(serde_json::json!([
        {"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "pwd"}},
        {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "cd sub && echo moved"}},
        {"type": "tool_use", "id": "c", "name": "Bash", "input": {"command": "pwd"}},
        {"type": "tool_use", "id": "d", "name": "Bash", "input": {"command": format!("cd {}", root.display())}},
        {"type": "tool_use", "id": "e", "name": "Bash", "input": {"command": "pwd"}}
    ]))
    .unwrap();
    let turn = executor.run_turn(&uses, &mut ctx).await;
    let texts: Vec<String> = turn.iter().map(|done| done.block.content.text()).collect();
    let sub = root.join("sub").display().to_string();
    let top = root.display().to_string();
    assert_eq!(texts, [top.as_str(), "moved", sub.as_str(), "(Bash completed with no output)", top.as_str()]);
    assert_eq!(ctx.cwd, root);
}
