//! CronCreate through the contract: Claude Code's validation codes and result texts, a durable
//! job in a real project folder, one-shot jobs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_cron::{CronConfig, CronScheduler, FakeClock, SigningKey, Zone};
use serde_json::json;

/// 2026-12-04 01:00:00 UTC.
const T0: i64 = 1_796_346_000_000;

fn session(project: &std::path::Path) -> (ToolUseContext, CronScheduler) {
    let ctx = ToolUseContext::new(project);
    let clock = Arc::new(FakeClock::new(T0));
    let scheduler = CronScheduler::new(CronConfig {
        zone: Zone::utc(),
        ..CronConfig::new(None, clock).durable(project.into(), SigningKey::from_bytes(&[2; 32]))
    });
    scheduler.install(&ctx);
    (ctx, scheduler)
}

async fn create(ctx: &ToolUseContext, input: serde_json::Value) -> (bool, String) {
    let done = call_tool(agent_tool_cron_create::tool().as_ref(), "toolu_1", input, ctx).await;
    (done.block.is_error, done.block.content.text())
}

#[tokio::test]
async fn a_durable_one_shot_job_is_saved_and_described() {
    let project = tempfile::tempdir().unwrap();
    let (ctx, scheduler) = session(project.path());
    let input = json!({"cron": "30 17 4 12 *", "prompt": "check the deploy", "recurring": false, "durable": true});
    let (error, text) = create(&ctx, input).await;
    assert!(!error, "{text}");
    let id = &scheduler.list(None).unwrap()[0].id;
    assert_eq!(
        text,
        format!(
            "Scheduled one-shot task {id} (on Dec 4 at 17:30). Next run: 2026-12-04 17:30 +00:00. Persisted to \
             .claude/scheduled_tasks.json. It will fire once then auto-delete."
        )
    );
    let file = std::fs::read_to_string(project.path().join(".claude/scheduled_tasks.json")).unwrap();
    assert!(file.contains("\"prompt\": \"check the deploy\""), "{file}");
    assert!(!file.contains("recurring"), "{file}");
}

#[tokio::test]
async fn bad_expressions_and_too_many_jobs_are_refused_with_the_reason() {
    let project = tempfile::tempdir().unwrap();
    let (ctx, _scheduler) = session(project.path());
    let (error, text) = create(&ctx, json!({"cron": "0 9 * *", "prompt": "x"})).await;
    assert!(error);
    assert!(text.contains("Invalid cron expression '0 9 * *'. Expected 5 fields: M H DoM Mon DoW."), "{text}");
    let (error, text) = create(&ctx, json!({"cron": "0 9 * * *", "prompt": "  \n"})).await;
    assert!(error && text.contains(agent_tool_cron_create::EMPTY_PROMPT), "{text}");
    let (error, text) = create(&ctx, json!({"cron": "0 0 30 2 *", "prompt": "x"})).await;
    assert!(error);
    assert!(text.contains("does not match any calendar date in the next year."), "{text}");
    for n in 0..50 {
        let (error, text) = create(&ctx, json!({"cron": "0 9 * * *", "prompt": format!("job {n}")})).await;
        assert!(!error, "{text}");
    }
    let (error, text) = create(&ctx, json!({"cron": "0 9 * * *", "prompt": "one too many"})).await;
    assert!(error);
    assert!(text.contains("Too many scheduled jobs (max 50). Cancel one first."), "{text}");
}

#[tokio::test]
async fn a_sub_agent_may_not_make_durable_jobs_and_without_a_scheduler_nothing_is_made() {
    let project = tempfile::tempdir().unwrap();
    let (mut ctx, scheduler) = session(project.path());
    ctx.agent_id = Some("a1b2c3d4e".into());
    let (error, text) = create(&ctx, json!({"cron": "0 9 * * *", "prompt": "x", "durable": true})).await;
    assert!(error && text.contains("durable jobs are not available to sub-agents"), "{text}");
    let (error, _) = create(&ctx, json!({"cron": "0 9 * * *", "prompt": "mine"})).await;
    assert!(!error);
    assert_eq!(scheduler.list(Some("a1b2c3d4e")).unwrap()[0].prompt, "mine");
    let bare = ToolUseContext::new(project.path());
    let (error, text) = create(&bare, json!({"cron": "0 9 * * *", "prompt": "x"})).await;
    assert!(error && text.contains(agent_tool_cron_create::NO_SCHEDULER), "{text}");
}

#[tokio::test]
async fn a_durable_job_is_asked_for_as_a_write_of_the_jobs_file_and_a_session_job_is_not() {
    // Issue: a durable job wrote a prompt that fires in the user's later sessions, unasked.
    use agent_tools_core::PermissionMode;
    use agent_tools_core::PermissionResult;
    let dir = tempfile::tempdir().unwrap();
    let (mut ctx, _scheduler) = session(dir.path());
    let tool = agent_tool_cron_create::tool();
    let durable = tool.parse(json!({"cron": "0 9 * * *", "prompt": "go", "durable": true})).unwrap();
    let session_only = tool.parse(json!({"cron": "0 9 * * *", "prompt": "go"})).unwrap();
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::BypassPermissions] {
        Arc::make_mut(&mut ctx.permission_context).mode = mode;
        let asked = tool.check_permissions(&durable, &ctx).await;
        let PermissionResult::Ask { blocked_path, .. } = &asked else { panic!("{mode:?}: {asked:?}") };
        assert_eq!(blocked_path.as_deref(), Some(dir.path().join(".claude/scheduled_tasks.json").to_str().unwrap()));
        assert_eq!(tool.check_permissions(&session_only, &ctx).await.behavior(), "allow");
    }
    Arc::make_mut(&mut ctx.permission_context).mode = PermissionMode::Plan;
    assert_eq!(tool.check_permissions(&durable, &ctx).await.behavior(), "deny");
    assert!(!dir.path().join(".claude/scheduled_tasks.json").exists());
}
