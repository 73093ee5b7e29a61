//! Bash's `run_in_background`: Claude Code's result text, the task in the session's registry,
//! its output file, its notification, and what it inherits. Waits poll with deadlines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_tools_background::{TaskRegistry, TaskSnapshot, TaskStatus, WaitOutcome};
use agent_tools_core::CancellationToken;
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::{Value, json};

fn workdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = std::fs::canonicalize(dir.path()).unwrap();
    (dir, path)
}

/// A session context with its own folder (where task output files go).
fn session(cwd: &Path, state: &Path) -> ToolUseContext {
    let mut ctx = ToolUseContext::new(cwd);
    ctx.options.session_dir = Some(state.to_path_buf());
    ctx
}

/// Starts a background command; returns the result text and the task's id.
async fn start(ctx: &ToolUseContext, input: Value) -> (String, String) {
    let done = call_tool(agent_tool_bash::tool().as_ref(), "toolu_bg", input, ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    assert!(done.context_modifier.is_none(), "a background command never moves the session");
    let data = done.data.unwrap().to_json();
    (done.block.content.text(), data["backgroundTaskId"].as_str().unwrap().to_owned())
}

async fn finished(ctx: &ToolUseContext, id: &str) -> TaskSnapshot {
    let tasks = TaskRegistry::existing(ctx).unwrap();
    match tasks.wait(id, Duration::from_secs(30), &CancellationToken::new()).await {
        WaitOutcome::Finished(task) => task,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_background_command_returns_at_once_with_claude_codes_text() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let (text, id) = start(&ctx, json!({"command": "echo started; sleep 0.2; echo bg-done", "description": "background job", "run_in_background": true})).await;
    assert!(id.starts_with('b') && id.len() == 9, "{id}");
    let file = state.join("tasks").join(format!("{id}.output"));
    assert_eq!(
        text,
        format!(
            "Command running in background with ID: {id}. Output is being written to: {}. You will be notified when it completes. To check interim output, use Read on that file path.",
            file.display()
        )
    );
    let task = finished(&ctx, &id).await;
    assert_eq!((task.status, task.exit_code), (TaskStatus::Completed, Some(0)));
    assert_eq!(task.description, "background job");
    assert_eq!(task.tool_use_id.as_deref(), Some("toolu_bg"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "started\nbg-done\n");
    // Its notification waits on the session's queue for the next user message.
    let queued = ctx.notifications().drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        queued[0].text,
        format!(
            "<task-notification>\n<task-id>{id}</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<output-file>{}</output-file>\n<status>completed</status>\n<summary>Background command \"background job\" completed (exit code 0)</summary>\n</task-notification>",
            file.display()
        )
    );
    agent_tools_background::shutdown(&ctx);
}

#[tokio::test]
async fn the_flag_may_be_a_string_and_the_command_describes_itself() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let (_, id) = start(&ctx, json!({"command": "exit 4", "run_in_background": "true"})).await;
    let task = finished(&ctx, &id).await;
    assert_eq!((task.status, task.exit_code), (TaskStatus::Failed, Some(4)));
    let queued = ctx.notifications().drain();
    assert!(
        queued[0].text.contains(
            "<status>failed</status>\n<summary>Background command \"exit 4\" failed with exit code 4</summary>"
        ),
        "{}",
        queued[0].text
    );
}

#[tokio::test]
async fn background_commands_run_where_the_session_is_with_the_quiet_environment_on_a_terminal() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    std::fs::create_dir(w.join("sub")).unwrap();
    let mut ctx = session(&w, &state);
    ctx.cwd = w.join("sub");
    let command = "pwd; echo $PAGER $GIT_PAGER $GIT_EDITOR $GIT_SEQUENCE_EDITOR $GIT_TERMINAL_PROMPT; \
                   [ -t 1 ] && echo stdout-is-a-terminal; [ -t 0 ] || echo stdin-is-empty; cat; cd /";
    let (_, id) = start(&ctx, json!({"command": command, "run_in_background": true})).await;
    let task = finished(&ctx, &id).await;
    assert_eq!(task.status, TaskStatus::Completed);
    assert_eq!(
        std::fs::read_to_string(&task.output_path).unwrap(),
        format!("{}/sub\ncat cat true true 0\nstdout-is-a-terminal\nstdin-is-empty\n", w.display())
    );
}

#[tokio::test]
async fn git_log_on_a_terminal_does_not_wait_for_a_pager() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let setup = call_tool(
        agent_tool_bash::tool().as_ref(),
        "toolu_setup",
        json!({"command": "git init -q -b main . && git config user.name T && git config user.email t@example.com \
                && git config core.pager less && for i in $(seq 1 120); do git commit -q --allow-empty -m \"c $i\"; done",
               "timeout": 120_000}),
        &ctx,
    )
    .await;
    assert!(!setup.block.is_error, "{}", setup.block.content.text());
    // On a terminal git would start its pager; GIT_PAGER=cat prints straight through.
    let (_, id) = start(&ctx, json!({"command": "git log --format=%s", "run_in_background": true})).await;
    let task = finished(&ctx, &id).await;
    assert_eq!(task.status, TaskStatus::Completed);
    let log = std::fs::read_to_string(&task.output_path).unwrap();
    assert_eq!(log.lines().count(), 120);
    assert_eq!(log.lines().next(), Some("c 120"));
}

#[tokio::test]
async fn a_failure_to_start_is_an_error_the_model_can_read() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let ctx = session(&w, &state);
    let config = agent_tool_bash::BashConfig { shell: w.join("no-such-shell"), ..Default::default() };
    let done = call_tool(
        agent_tool_bash::tool_with(config).as_ref(),
        "toolu_bg",
        json!({"command": "true", "run_in_background": true}),
        &ctx,
    )
    .await;
    assert!(done.block.is_error);
    let text = done.block.content.text();
    assert!(text.starts_with("Could not start the command in the background: cannot start "), "{text}");
}

#[tokio::test]
async fn a_sub_agents_background_command_is_its_own_and_notifies_it() {
    let (_dir, w) = workdir();
    let (_state, state) = workdir();
    let session_ctx = session(&w, &state);
    // A sub-agent's context: its own app state (and notification queue), the session's root.
    let mut agent_ctx = session_ctx.clone();
    agent_ctx.app_state = agent_tools_core::AppStateHandle::default();
    agent_ctx.agent_id = Some("a1".into());
    agent_ctx.query_depth = 1;
    let (_, done_id) = start(&agent_ctx, json!({"command": "echo from-the-agent", "run_in_background": true})).await;
    let (_, sleeper_id) = start(&agent_ctx, json!({"command": "sleep 300", "run_in_background": true})).await;
    // The session's registry holds them, owned by the agent.
    let registry = TaskRegistry::existing(&session_ctx).unwrap();
    assert_eq!(registry.get(&done_id).unwrap().owner.as_deref(), Some("a1"));
    let task = finished(&session_ctx, &done_id).await;
    assert_eq!(std::fs::read_to_string(&task.output_path).unwrap(), "from-the-agent\n");
    // Its notification reached the agent's queue, not the session's.
    let queued = agent_ctx.notifications().drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].key, done_id);
    assert!(
        queued[0]
            .text
            .contains("<summary>Background command \"echo from-the-agent\" completed (exit code 0)</summary>")
    );
    assert!(session_ctx.notifications().is_empty());
    // Cancelling the agent stops what it left running.
    let stopped = registry.stop_owned_by_async("a1").await;
    assert_eq!(
        stopped.iter().map(|task| (task.id.as_str(), task.status)).collect::<Vec<_>>(),
        [(sleeper_id.as_str(), TaskStatus::Killed)]
    );
    assert!(agent_ctx.notifications().is_empty() && session_ctx.notifications().is_empty());
    // The main conversation's commands have no owner.
    let (_, main_id) = start(&session_ctx, json!({"command": "true", "run_in_background": true})).await;
    assert_eq!(registry.get(&main_id).unwrap().owner, None);
    agent_tools_background::shutdown(&session_ctx);
}
