//! CronDelete through the contract: Claude Code's codes and texts, durable jobs removed from
//! the project's file, and a sub-agent limited to its own jobs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_cron::{CronConfig, CronScheduler, NewJob, SigningKey};
use serde_json::json;

async fn delete(ctx: &ToolUseContext, id: &str) -> (bool, String) {
    let done = call_tool(agent_tool_cron_delete::tool().as_ref(), "toolu_1", json!({"id": id}), ctx).await;
    (done.block.is_error, done.block.content.text())
}

#[tokio::test]
async fn a_durable_job_is_removed_from_the_file() {
    let project = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(project.path());
    let key = SigningKey::from_bytes(&[3; 32]);
    let scheduler = CronScheduler::new(CronConfig::system(None).durable(project.path().into(), key));
    scheduler.install(&ctx);
    let job = scheduler.create(NewJob { durable: true, ..NewJob::new("0 9 * * *", "standup") }).unwrap();
    assert!(job.durable);
    assert_eq!(delete(&ctx, &job.id).await, (false, format!("Cancelled job {}.", job.id)));
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(project.path().join(".claude/scheduled_tasks.json")).unwrap())
            .unwrap();
    assert_eq!(file, json!({"tasks": []}));
    let (error, text) = delete(&ctx, &job.id).await;
    assert!(error && text.contains(&format!("No scheduled job with id '{}'", job.id)), "{text}");
}

#[tokio::test]
async fn a_sub_agent_cannot_cancel_another_agents_job() {
    let project = tempfile::tempdir().unwrap();
    let main = ToolUseContext::new(project.path());
    let scheduler = CronScheduler::new(CronConfig::system(None));
    scheduler.install(&main);
    let theirs = scheduler.create(NewJob::new("0 9 * * *", "main's job")).unwrap();
    let mut agent = main.clone();
    agent.agent_id = Some("a1".into());
    let (error, text) = delete(&agent, &theirs.id).await;
    assert!(error && text.contains("it belongs to another agent"), "{text}");
    assert_eq!(scheduler.list(None).unwrap().len(), 1);
    let mine = scheduler.create(NewJob { agent_id: Some("a1".into()), ..NewJob::new("0 9 * * *", "mine") }).unwrap();
    assert_eq!(delete(&agent, &mine.id).await, (false, format!("Cancelled job {}.", mine.id)));
}
