//! EnterWorktree on real git repositories in temporary folders: what it creates, how it moves
//! the session, and what it refuses.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_enter_worktree::tool_with;
use agent_tools_core::call_tool;
use agent_tools_core::{Tool, ToolUseContext};
use agent_tools_testkit::GitRepo;
use agent_tools_worktree::Git;
use serde_json::{Value, json};

fn enter_tool(repo: &GitRepo) -> std::sync::Arc<dyn Tool> {
    tool_with(Git { env: repo.env(), ..Git::default() })
}

/// One call; returns the text, the error flag, the output data and the context after the call
/// (its modifier applied, as the executor does for a serial tool).
async fn enter(repo: &GitRepo, ctx: &ToolUseContext, input: Value) -> (String, bool, Value, ToolUseContext) {
    let mut done = call_tool(enter_tool(repo).as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.as_ref().map(|data| data.to_json()).unwrap_or(Value::Null);
    let after = match done.context_modifier.take() {
        Some(modifier) => modifier(ctx.clone()),
        None => ctx.clone(),
    };
    (done.block.content.text(), done.block.is_error, data, after)
}

#[tokio::test]
async fn enter_creates_the_worktree_and_moves_the_session_into_it() {
    let repo = GitRepo::new();
    let ctx = ToolUseContext::new(&repo.root);
    let (text, is_error, data, after) = enter(&repo, &ctx, json!({"name": "feature/login"})).await;
    assert!(!is_error, "{text}");
    let path = repo.root.join(".claude/worktrees/feature/login");
    assert_eq!(
        text,
        format!(
            "Created a worktree at {} on branch worktree-feature-login. The session now works in it: relative paths and commands start there. Call ExitWorktree to leave it, keeping or removing it.",
            path.display()
        )
    );
    assert_eq!(
        data,
        json!({"worktreePath": path.to_str().unwrap(), "worktreeBranch": "worktree-feature-login", "message": text})
    );
    assert!(path.join("README.md").is_file(), "the checkout is there");
    assert!(repo.has_branch("worktree-feature-login"));
    assert_eq!(repo.git_in(&path, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "worktree-feature-login");

    // Later calls work inside the worktree: both directories moved.
    assert_eq!(after.cwd, path);
    assert_eq!(after.original_cwd, path);
    assert_eq!(after.resolve_path("README.md"), path.join("README.md"));

    let session = agent_tools_worktree::active(&after).unwrap();
    assert_eq!(session.name, "feature/login");
    assert_eq!(session.original_cwd, repo.root);
    assert_eq!(session.base_commit.unwrap(), repo.git(&["rev-parse", "HEAD"]).trim());
}

#[tokio::test]
async fn a_subfolder_session_gets_a_worktree_at_the_repository_root_and_remembers_where_it_was() {
    let repo = GitRepo::new();
    let sub = repo.root.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let mut ctx = ToolUseContext::new(&sub);
    ctx.original_cwd = repo.root.clone();
    let (text, is_error, data, after) = enter(&repo, &ctx, json!({})).await;
    assert!(!is_error, "{text}");
    let path = std::path::PathBuf::from(data["worktreePath"].as_str().unwrap());
    assert_eq!(path.parent().unwrap(), repo.root.join(".claude/worktrees"));
    let name = path.file_name().unwrap().to_str().unwrap();
    assert_eq!(name.split('-').count(), 3, "a generated adjective-noun-hex name: {name}");
    assert_eq!(data["worktreeBranch"], format!("worktree-{name}"));
    assert_eq!(after.cwd, path);
    let session = agent_tools_worktree::active(&after).unwrap();
    assert_eq!((session.original_cwd, session.original_project_dir), (sub, repo.root.clone()));
}

#[tokio::test]
async fn entering_twice_is_refused() {
    let repo = GitRepo::new();
    let ctx = ToolUseContext::new(&repo.root);
    let (_, is_error, _, after) = enter(&repo, &ctx, json!({"name": "one"})).await;
    assert!(!is_error);
    let (text, is_error, _, again) = enter(&repo, &after, json!({"name": "two"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "Already in a worktree session (at {}). Call ExitWorktree before entering another worktree.",
            repo.root.join(".claude/worktrees/one").display()
        )
    );
    assert_eq!(again.cwd, after.cwd, "the session did not move");
    assert!(!repo.root.join(".claude/worktrees/two").exists());
    assert!(!repo.has_branch("worktree-two"));
}

#[tokio::test]
async fn bad_names_are_input_validation_errors() {
    let repo = GitRepo::new();
    let ctx = ToolUseContext::new(&repo.root);
    let long = "a".repeat(65);
    let cases = [
        (json!({"name": long}), "The parameter `name` is invalid: must be at most 64 characters long (it has 65)"),
        (json!({"name": "../escape"}), "The parameter `name` is invalid: must not contain a `..` segment"),
        (json!({"name": "a/./b"}), "The parameter `name` is invalid: must not contain a `.` segment"),
        (json!({"name": "/abs"}), "must not start or end with `/`"),
        (json!({"name": "a//b"}), "contain `//`"),
        (
            json!({"name": "has space"}),
            "has the segment \"has space\"; each `/`-separated segment may contain only ASCII letters, digits, `.`, `_` and `-`",
        ),
        (json!({"name": "x;rm -rf ~"}), "has the segment \"x;rm -rf ~\""),
        (json!({"name": ""}), "must not be empty"),
        (json!({"name": "a..b"}), "would give the branch `worktree-a..b`"),
        (json!({"name": 7}), "`name` type is expected as `string`"),
        (json!({"name": "ok", "path": "/tmp"}), "An unexpected parameter `path` was provided"),
    ];
    for (input, expected) in cases {
        let (text, is_error, _, after) = enter(&repo, &ctx, input.clone()).await;
        assert!(is_error, "{input} should be refused");
        assert!(text.starts_with("<tool_use_error>InputValidationError: EnterWorktree failed"), "{input}: {text}");
        assert!(text.contains(expected), "{input}: {text}");
        assert_eq!(after.cwd, repo.root);
    }
    assert!(!repo.root.join(".claude").exists(), "nothing was created");
    assert!(agent_tools_worktree::active(&ctx).is_none());
}

#[tokio::test]
async fn outside_a_repository_it_fails_clearly() {
    let repo = GitRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().canonicalize().unwrap();
    let ctx = ToolUseContext::new(&dir);
    let (text, is_error, _, after) = enter(&repo, &ctx, json!({"name": "x"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "Cannot create a worktree: {} is not inside a git repository. EnterWorktree works with git repositories only (worktree hooks for other version control systems are not supported).",
            dir.display()
        )
    );
    assert_eq!(after.cwd, dir);
    assert!(agent_tools_worktree::active(&ctx).is_none());
}

#[tokio::test]
async fn a_branch_that_exists_is_reported_and_leaves_no_session() {
    let repo = GitRepo::new();
    repo.git(&["branch", "worktree-taken"]);
    let ctx = ToolUseContext::new(&repo.root);
    let (text, is_error, _, _) = enter(&repo, &ctx, json!({"name": "taken"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        "Cannot create a worktree: the branch worktree-taken already exists (a worktree name that maps to the same branch, or one made by hand); choose another name."
    );
    assert!(agent_tools_worktree::active(&ctx).is_none());
}

#[tokio::test]
async fn the_schema_and_flags_are_claude_codes() {
    let tool = agent_tool_enter_worktree::tool();
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["name"]["type"], "string");
    assert!(schema.get("required").is_none_or(|required| required == &json!([])));
    assert_eq!(schema["additionalProperties"], false);
    assert!(tool.should_defer());
    let parsed = tool.parse(json!({})).unwrap();
    assert!(!tool.is_read_only(&parsed));
    assert!(!tool.is_concurrency_safe(&parsed));
    assert!(!tool.is_destructive(&parsed));
}

/// What the permission check says of entering `name` in `mode`.
async fn permission(repo: &GitRepo, mode: agent_tools_core::PermissionMode, name: Option<&str>) -> &'static str {
    let mut ctx = ToolUseContext::new(&repo.root);
    std::sync::Arc::make_mut(&mut ctx.permission_context).mode = mode;
    let tool = enter_tool(repo);
    let parsed = tool.parse(json!({"name": name})).unwrap_or_else(|_| tool.parse(json!({})).unwrap());
    tool.check_permissions(&parsed, &ctx).await.behavior()
}

#[tokio::test]
async fn entering_is_a_write_asked_in_the_default_mode_refused_in_plan_mode() {
    use agent_tools_core::PermissionMode;
    let repo = GitRepo::new();
    assert_eq!(permission(&repo, PermissionMode::Default, Some("spike")).await, "passthrough", "asks");
    assert_eq!(permission(&repo, PermissionMode::Default, None).await, "passthrough");
    assert_eq!(permission(&repo, PermissionMode::AcceptEdits, Some("spike")).await, "allow");
    assert_eq!(permission(&repo, PermissionMode::Plan, Some("spike")).await, "deny");
    // A deny rule on the folder refuses it whatever the mode.
    let mut ctx = ToolUseContext::new(&repo.root);
    ctx.permission_context = std::sync::Arc::new(
        agent_tools_core::ToolPermissionContext { mode: PermissionMode::BypassPermissions, ..Default::default() }
            .with_rule(
                agent_tools_core::PermissionBehavior::Deny,
                agent_tools_core::PermissionRuleSource::Session,
                "Edit(./.claude/worktrees/**)",
            ),
    );
    let tool = enter_tool(&repo);
    let parsed = tool.parse(json!({"name": "spike"})).unwrap();
    assert_eq!(tool.check_permissions(&parsed, &ctx).await.behavior(), "deny");
    assert!(!repo.root.join(".claude/worktrees/spike").exists(), "checking permission creates nothing");
}
