//! ExitWorktree on real git repositories in temporary folders. The session is entered through
//! agent-tools-worktree (what EnterWorktree does), since a tool crate never depends on another.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use agent_tool_exit_worktree::{CANNOT_VERIFY_CODE, NO_SESSION, NO_SESSION_CODE, UNSAVED_WORK_CODE, tool_with};
use agent_tools_core::call_tool;
use agent_tools_core::{Tool, ToolUseContext, ValidationResult};
use agent_tools_testkit::{GitRepo, write};
use agent_tools_worktree::{Git, WorktreeSession};
use serde_json::{Value, json};

fn git(repo: &GitRepo) -> Git {
    Git { env: repo.env(), ..Git::default() }
}

fn exit_tool(repo: &GitRepo) -> std::sync::Arc<dyn Tool> {
    tool_with(git(repo))
}

/// A session that entered the worktree `name` from `from` (as EnterWorktree leaves it).
async fn entered(repo: &GitRepo, from: &std::path::Path, name: &str) -> (ToolUseContext, PathBuf) {
    let made = git(repo).create(from, name).await.unwrap();
    let mut ctx = ToolUseContext::new(from);
    ctx.original_cwd = repo.root.clone();
    let session = WorktreeSession {
        name: name.into(),
        worktree_path: made.path.clone(),
        worktree_branch: Some(made.branch),
        repo_root: made.repo_root,
        original_cwd: ctx.cwd.clone(),
        original_project_dir: ctx.original_cwd.clone(),
        base_commit: Some(made.base_commit),
    };
    agent_tools_worktree::begin(&ctx, session).unwrap();
    ctx.cwd = made.path.clone();
    ctx.original_cwd = made.path.clone();
    (ctx, made.path)
}

/// One call: text, error flag, output data, and the context after it (modifier applied).
async fn exit(repo: &GitRepo, ctx: &ToolUseContext, input: Value) -> (String, bool, Value, ToolUseContext) {
    let mut done = call_tool(exit_tool(repo).as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.as_ref().map(|data| data.to_json()).unwrap_or(Value::Null);
    let after = match done.context_modifier.take() {
        Some(modifier) => modifier(ctx.clone()),
        None => ctx.clone(),
    };
    (done.block.content.text(), done.block.is_error, data, after)
}

/// The input check alone, for its error code.
async fn validate(repo: &GitRepo, ctx: &ToolUseContext, input: Value) -> ValidationResult {
    let tool = exit_tool(repo);
    let parsed = tool.parse(input).unwrap();
    tool.validate_input(&parsed, ctx).await
}

fn code(result: &ValidationResult) -> i32 {
    match result {
        ValidationResult::Error { error_code, .. } => *error_code,
        ValidationResult::Ok => 0,
    }
}

#[tokio::test]
async fn without_a_session_nothing_happens_code_1() {
    let repo = GitRepo::new();
    let ctx = ToolUseContext::new(&repo.root);
    for input in [json!({"action": "keep"}), json!({"action": "remove", "discard_changes": true})] {
        assert_eq!(code(&validate(&repo, &ctx, input.clone()).await), NO_SESSION_CODE);
        let (text, is_error, _, after) = exit(&repo, &ctx, input).await;
        assert!(is_error);
        assert_eq!(text, format!("<tool_use_error>{NO_SESSION}</tool_use_error>"));
        assert_eq!(after.cwd, repo.root);
    }
}

#[tokio::test]
async fn keep_leaves_folder_and_branch_and_restores_both_directories() {
    let repo = GitRepo::new();
    let sub = repo.root.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    let (ctx, path) = entered(&repo, &sub, "kept").await;
    write(&path, "work.txt", "unsaved\n");
    let (text, is_error, data, after) = exit(&repo, &ctx, json!({"action": "keep"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "Left the worktree; it stays at {} on branch worktree-kept with its work. The session is back in {}.",
            path.display(),
            sub.display()
        )
    );
    assert_eq!(
        data,
        json!({"action": "keep", "originalCwd": sub.to_str().unwrap(), "worktreePath": path.to_str().unwrap(),
               "worktreeBranch": "worktree-kept", "message": text})
    );
    assert!(path.join("work.txt").is_file());
    assert!(repo.has_branch("worktree-kept"));
    assert_eq!(after.cwd, sub);
    assert_eq!(after.original_cwd, repo.root);
    assert!(agent_tools_worktree::active(&after).is_none());
    let (_, is_error, _, _) = exit(&repo, &after, json!({"action": "keep"})).await;
    assert!(is_error, "the session is over");
}

#[tokio::test]
async fn remove_of_a_clean_worktree_deletes_folder_and_branch() {
    let repo = GitRepo::new();
    let (ctx, path) = entered(&repo, &repo.root, "clean").await;
    assert_eq!(validate(&repo, &ctx, json!({"action": "remove"})).await, ValidationResult::Ok);
    let (text, is_error, data, after) = exit(&repo, &ctx, json!({"action": "remove"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "Left and removed the worktree at {} and deleted its branch worktree-clean. The session is back in {}.",
            path.display(),
            repo.root.display()
        )
    );
    assert_eq!((data["discardedFiles"].clone(), data["discardedCommits"].clone()), (json!(0), json!(0)));
    assert!(!path.exists());
    assert!(!repo.has_branch("worktree-clean"));
    assert_eq!(after.cwd, repo.root);
    assert!(agent_tools_worktree::active(&after).is_none());
}

#[tokio::test]
async fn uncommitted_files_block_removal_until_discard_changes() {
    let repo = GitRepo::new();
    let (ctx, path) = entered(&repo, &repo.root, "dirty").await;
    write(&path, "new.txt", "x\n");
    write(&path, "README.md", "changed\n");
    let refused = validate(&repo, &ctx, json!({"action": "remove"})).await;
    assert_eq!(code(&refused), UNSAVED_WORK_CODE);
    let (text, is_error, _, after) = exit(&repo, &ctx, json!({"action": "remove", "discard_changes": false})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "<tool_use_error>The worktree at {} has 2 uncommitted files; removing it would lose that work for good. Ask the user to confirm, then call ExitWorktree again with discard_changes: true, or use action \"keep\" to leave the worktree in place.</tool_use_error>",
            path.display()
        )
    );
    assert!(path.join("new.txt").is_file(), "nothing removed");
    assert!(repo.has_branch("worktree-dirty"));
    assert_eq!(after.cwd, path, "still in the worktree");
    assert!(agent_tools_worktree::active(&after).is_some());

    let (text, is_error, data, after) = exit(&repo, &after, json!({"action": "remove", "discard_changes": true})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains(" Discarded 2 uncommitted files. "), "{text}");
    assert_eq!(data["discardedFiles"], 2);
    assert!(!path.exists());
    assert!(!repo.has_branch("worktree-dirty"));
    assert_eq!(after.cwd, repo.root);
}

#[tokio::test]
async fn a_kept_worktree_entered_again_still_counts_its_commits() {
    let repo = GitRepo::new();
    let (ctx, path) = entered(&repo, &repo.root, "again").await;
    write(&path, "feature.txt", "done\n");
    repo.git_in(&path, &["add", "feature.txt"]);
    repo.git_in(&path, &["commit", "-qm", "feature"]);
    let (_, is_error, _, _) = exit(&repo, &ctx, json!({"action": "keep"})).await;
    assert!(!is_error);
    // A later session enters the same worktree: its HEAD is now the commit made before.
    let (ctx, _) = entered(&repo, &repo.root, "again").await;
    let refused = validate(&repo, &ctx, json!({"action": "remove"})).await;
    assert_eq!(code(&refused), UNSAVED_WORK_CODE, "{refused:?}");
    let ValidationResult::Error { message, .. } = refused else { unreachable!() };
    assert!(message.contains("1 commit"), "{message}");
    assert!(repo.has_branch("worktree-again"), "nothing removed");
}

#[tokio::test]
async fn commits_in_the_worktree_count_as_work() {
    let repo = GitRepo::new();
    let (ctx, path) = entered(&repo, &repo.root, "committed").await;
    write(&path, "feature.txt", "done\n");
    repo.git_in(&path, &["add", "feature.txt"]);
    repo.git_in(&path, &["commit", "-qm", "feature"]);
    write(&path, "scratch.txt", "x\n");
    let refused = validate(&repo, &ctx, json!({"action": "remove"})).await;
    assert_eq!(code(&refused), UNSAVED_WORK_CODE);
    let ValidationResult::Error { message, .. } = refused else { unreachable!() };
    assert!(
        message.starts_with(&format!(
            "The worktree at {} has 1 uncommitted file and 1 commit not on the commit it started from;",
            path.display()
        )),
        "{message}"
    );
    let (text, is_error, data, _) = exit(&repo, &ctx, json!({"action": "remove", "discard_changes": true})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains(" Discarded 1 uncommitted file and 1 commit. "), "{text}");
    assert_eq!((data["discardedFiles"].clone(), data["discardedCommits"].clone()), (json!(1), json!(1)));
    assert!(!repo.has_branch("worktree-committed"), "the branch and its commit are gone");
}

#[tokio::test]
async fn a_state_that_cannot_be_checked_blocks_removal_code_3() {
    let repo = GitRepo::new();
    let (ctx, path) = entered(&repo, &repo.root, "broken").await;
    // The folder disappears behind the session's back: git status cannot run there.
    std::fs::remove_dir_all(&path).unwrap();
    let refused = validate(&repo, &ctx, json!({"action": "remove"})).await;
    assert_eq!(code(&refused), CANNOT_VERIFY_CODE);
    let ValidationResult::Error { message, .. } = refused else { unreachable!() };
    assert!(
        message
            .starts_with(&format!("Could not check whether the worktree at {} holds unsaved work (", path.display())),
        "{message}"
    );
    assert!(message.ends_with(
        "call ExitWorktree again with discard_changes: true, or use action \"keep\" to leave the worktree in place."
    ));
    // Keeping is always possible.
    let (_, is_error, _, after) = exit(&repo, &ctx, json!({"action": "keep"})).await;
    assert!(!is_error);
    assert_eq!(after.cwd, repo.root);

    // Confirmed, the removal of a folder that is already gone still ends the session and
    // deletes the branch.
    let (ctx, path) = entered(&repo, &repo.root, "vanished").await;
    std::fs::remove_dir_all(&path).unwrap();
    let (text, is_error, data, after) = exit(&repo, &ctx, json!({"action": "remove", "discard_changes": true})).await;
    assert!(!is_error, "{text}");
    assert!(data.get("discardedFiles").is_none(), "nothing could be counted: {data}");
    assert!(!repo.has_branch("worktree-vanished"));
    assert_eq!(after.cwd, repo.root);

    // No base commit recorded: the commits cannot be counted either.
    let (ctx, _) = entered(&repo, &repo.root, "nobase").await;
    let mut session = agent_tools_worktree::end(&ctx).unwrap();
    session.base_commit = None;
    agent_tools_worktree::begin(&ctx, session).unwrap();
    let refused = validate(&repo, &ctx, json!({"action": "remove"})).await;
    assert_eq!(code(&refused), CANNOT_VERIFY_CODE);
    assert!(format!("{refused:?}").contains("the commit the worktree started from is unknown"));
}

#[tokio::test]
async fn remove_is_destructive_and_keep_is_not() {
    let tool = agent_tool_exit_worktree::tool();
    let remove = tool.parse(json!({"action": "remove"})).unwrap();
    let keep = tool.parse(json!({"action": "keep"})).unwrap();
    assert!(tool.is_destructive(&remove));
    assert!(!tool.is_destructive(&keep));
    assert!(!tool.is_read_only(&keep) && !tool.is_concurrency_safe(&keep));
    assert!(tool.should_defer());
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["action"]["enum"], json!(["keep", "remove"]));
    assert_eq!(schema["properties"]["discard_changes"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["action"]));
    let bad = tool.parse(json!({"action": "delete"})).unwrap_err().to_string();
    assert!(bad.contains("action"), "{bad}");
}

#[tokio::test]
async fn removing_is_a_write_of_the_worktree_and_keeping_is_allowed() {
    use agent_tools_core::PermissionMode;
    let repo = GitRepo::new();
    let (mut ctx, _path) = entered(&repo, &repo.root, "spike").await;
    let tool = exit_tool(&repo);
    let keep = tool.parse(json!({"action": "keep"})).unwrap();
    let remove = tool.parse(json!({"action": "remove", "discard_changes": true})).unwrap();
    let (mut seen, modes) = (Vec::new(), [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::Plan]);
    for mode in modes {
        std::sync::Arc::make_mut(&mut ctx.permission_context).mode = mode;
        let keeping = tool.check_permissions(&keep, &ctx).await.behavior();
        seen.push((keeping, tool.check_permissions(&remove, &ctx).await.behavior()));
    }
    // The default mode asks before removing; acceptEdits allows it; plan mode refuses it.
    assert_eq!(seen, [("allow", "passthrough"), ("allow", "allow"), ("allow", "deny")]);
}
