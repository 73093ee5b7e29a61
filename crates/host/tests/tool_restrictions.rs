//! Tool restrictions (a sub-agent's `tools: Bash(git diff:*)`): a call of a restricted tool runs
//! only when the restriction's rules cover it — every part of a Bash command — in every mode,
//! whatever a hook's "allow" says, for inner (REPL) calls too; several restrictions on one tool
//! must all hold; a call that offers nothing to match is refused.

#![cfg(all(feature = "bash", feature = "file-read", feature = "todo-write"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use agent_tools_core::ToolCaller;
use agent_tools_core::ToolRestriction;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::{PermissionMode, ToolPermissionContext, ToolUseContext};
use agent_tools_host::hooks::{CommandHook, HookMatcher};
use agent_tools_host::permissions::restricted_message;
use agent_tools_host::{Executor, Hooks, HostConfig, assemble_tool_pool};
use agent_tools_testkit::GitRepo;
use serde_json::{Value, json};

fn restriction(tool: &str, contents: &[&str]) -> ToolRestriction {
    ToolRestriction {
        tool_name: tool.into(),
        rule_contents: contents.iter().map(|content| (*content).to_owned()).collect(),
    }
}

const GIT_DIFF: &str = "This agent may use Bash only as its definition allows: Bash(git diff:*). This call is not \
                        covered by that, so it did not run; use Bash only in that way, or do without it.";

/// A repository with README.md changed since its commit, so `git diff` prints something.
fn repo() -> GitRepo {
    let repo = GitRepo::new();
    std::fs::write(repo.root.join("README.md"), "# test\nchanged by the test\n").unwrap();
    repo
}

fn context(dir: &Path, mode: PermissionMode, restrictions: Vec<ToolRestriction>) -> (Executor, ToolUseContext) {
    let permissions = ToolPermissionContext {
        mode,
        is_bypass_permissions_mode_available: mode == PermissionMode::BypassPermissions,
        ..ToolPermissionContext::default()
    }
    .with_restrictions(restrictions);
    let pool = assemble_tool_pool(&permissions, Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(dir);
    ctx.permission_context = Arc::new(permissions);
    ctx.options.tools = pool.clone().into();
    // A trusted folder: a read-only `git diff` runs unasked there (in an untrusted repository
    // it asks, restriction or not).
    ctx.options.workspace_trusted = true;
    (Executor::new(pool), ctx)
}

async fn run(executor: &Executor, ctx: &ToolUseContext, name: &str, input: Value) -> (String, bool) {
    let block = ToolUseBlock { id: "toolu_restricted".into(), name: name.into(), input };
    let done = executor.run_tool_use(&block, ctx).await;
    (done.block.content.text(), done.block.is_error)
}

async fn bash(executor: &Executor, ctx: &ToolUseContext, command: &str) -> (String, bool) {
    run(executor, ctx, "Bash", json!({"command": command})).await
}

#[tokio::test]
async fn a_restricted_bash_runs_only_what_its_rules_cover_in_default_and_bypass_modes() {
    for mode in [PermissionMode::Default, PermissionMode::BypassPermissions] {
        let repo = repo();
        let (executor, ctx) = context(&repo.root, mode, vec![restriction("Bash", &["git diff:*"])]);
        let (text, failed) = bash(&executor, &ctx, "git diff").await;
        assert!(!failed && text.contains("+changed by the test"), "{mode}: {text}");
        for command in ["touch pwned", "git diff && touch pwned", "git diff; touch pwned", "git diff > pwned"] {
            let (text, failed) = bash(&executor, &ctx, command).await;
            assert!(failed, "{mode}: {command}: {text}");
            assert_eq!(text, GIT_DIFF, "{mode}: {command}");
            assert!(!repo.root.join("pwned").exists(), "{mode}: {command}");
        }
        // Without the restriction, bypass mode runs it: the restriction is what refused it.
        if mode == PermissionMode::BypassPermissions {
            let (free, ctx) = context(&repo.root, mode, Vec::new());
            let (text, failed) = bash(&free, &ctx, "touch pwned").await;
            assert!(!failed, "{text}");
            assert!(repo.root.join("pwned").exists());
        }
    }
}

#[tokio::test]
async fn a_hooks_allow_or_rewrite_does_not_lift_a_restriction() {
    let repo = repo();
    let allow_all = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#;
    let rewrite = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "touch pwned"}}}'"#;
    for (command, hook) in [("touch pwned", allow_all), ("git diff", rewrite)] {
        let hooks = Hooks {
            pre_tool_use: vec![HookMatcher {
                matcher: "Bash".into(),
                hooks: vec![CommandHook {
                    kind: "command".into(),
                    command: hook.into(),
                    timeout: None,
                    condition: None,
                    ..CommandHook::default()
                }],
            }],
            ..Hooks::default()
        };
        for mode in [PermissionMode::Default, PermissionMode::BypassPermissions] {
            let (executor, ctx) = context(&repo.root, mode, vec![restriction("Bash", &["git diff:*"])]);
            let executor = executor.with_hooks(hooks.clone());
            let (text, failed) = bash(&executor, &ctx, command).await;
            assert!(failed, "{mode}: {command}: {text}");
            assert_eq!(text, GIT_DIFF, "{mode}: {command}");
            assert!(!repo.root.join("pwned").exists());
        }
    }
    // Without the restriction the same hook's "allow" runs it in default mode (no one to ask).
    let hooks = Hooks {
        pre_tool_use: vec![HookMatcher {
            matcher: "Bash".into(),
            hooks: vec![CommandHook {
                kind: "command".into(),
                command: allow_all.into(),
                timeout: None,
                condition: None,
                ..CommandHook::default()
            }],
        }],
        ..Hooks::default()
    };
    let (executor, ctx) = context(&repo.root, PermissionMode::Default, Vec::new());
    let (text, failed) = bash(&executor.with_hooks(hooks), &ctx, "touch pwned").await;
    assert!(!failed, "{text}");
    assert!(repo.root.join("pwned").exists());
}

#[tokio::test]
async fn inner_calls_are_held_to_the_restriction_too() {
    let repo = repo();
    let (executor, ctx) =
        context(&repo.root, PermissionMode::BypassPermissions, vec![restriction("Bash", &["git diff:*"])]);
    let denied = executor.call("toolu_inner_1".into(), "Bash".into(), json!({"command": "touch pwned"}), &ctx).await;
    assert!(denied.is_error);
    assert_eq!(denied.text, GIT_DIFF);
    assert!(!repo.root.join("pwned").exists());
    let allowed = executor.call("toolu_inner_2".into(), "Bash".into(), json!({"command": "git diff"}), &ctx).await;
    assert!(!allowed.is_error && allowed.text.contains("+changed by the test"), "{}", allowed.text);
}

#[tokio::test]
async fn restrictions_on_one_tool_must_all_hold() {
    // A caller limited to `git:*` started an agent limited to `git diff:*` and `git log:*`.
    let repo = repo();
    let restrictions = vec![restriction("Bash", &["git:*"]), restriction("Bash", &["git diff:*", "git log:*"])];
    let (executor, ctx) = context(&repo.root, PermissionMode::BypassPermissions, restrictions);
    let (text, failed) = bash(&executor, &ctx, "git diff && git log -1 --format=%s").await;
    assert!(!failed && text.contains("first"), "{text}");
    let (text, failed) = bash(&executor, &ctx, "git status").await;
    assert!(failed, "{text}");
    assert_eq!(
        text,
        restricted_message(&restriction("Bash", &["git diff:*", "git log:*"])),
        "the narrower restriction refuses it"
    );
    let (text, failed) = bash(&executor, &ctx, "ls").await;
    assert!(failed && text.contains("Bash(git:*)"), "the first restriction broken is named: {text}");
}

#[tokio::test]
async fn file_tools_are_matched_by_path_and_a_call_with_nothing_to_match_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.txt"), "inside\n").unwrap();
    std::fs::write(root.join("secret.txt"), "outside\n").unwrap();
    let restrictions = vec![restriction("Read", &["src/**"]), restriction("TodoWrite", &["anything"])];
    let (executor, ctx) = context(&root, PermissionMode::BypassPermissions, restrictions);
    let (text, failed) = run(&executor, &ctx, "Read", json!({"file_path": root.join("src/lib.txt")})).await;
    assert!(!failed && text.contains("inside"), "{text}");
    let (text, failed) = run(&executor, &ctx, "Read", json!({"file_path": root.join("secret.txt")})).await;
    assert!(failed, "{text}");
    assert!(text.starts_with("This agent may use Read only as its definition allows: Read(src/**)."), "{text}");
    // TodoWrite has neither a matcher nor a path: its restriction can never be met.
    let todos = json!({"todos": [{"content": "x", "status": "pending", "activeForm": "Doing x"}]});
    let (text, failed) = run(&executor, &ctx, "TodoWrite", todos).await;
    assert!(failed, "{text}");
    assert!(text.starts_with("This agent may use TodoWrite only as its definition allows: TodoWrite(anything)."));
    // Unrestricted tools are untouched.
    let (text, failed) = bash(&executor, &ctx, "echo free").await;
    assert!(!failed && text.contains("free"), "{text}");
}
