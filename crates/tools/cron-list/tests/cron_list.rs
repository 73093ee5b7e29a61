//! CronList through the contract: durable and session-only jobs, the next run, long prompts cut.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_cron::{CronConfig, CronScheduler, FakeClock, NewJob, SigningKey, Zone};
use serde_json::json;

/// 2026-12-04 01:00:00 UTC.
const T0: i64 = 1_796_346_000_000;

#[tokio::test]
async fn durable_jobs_come_first_and_session_only_ones_are_marked() {
    let project = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(project.path());
    let clock = Arc::new(FakeClock::new(T0));
    let config = CronConfig {
        zone: Zone::utc(),
        ..CronConfig::new(None, clock).durable(project.path().into(), SigningKey::from_bytes(&[2; 32]))
    };
    let scheduler = CronScheduler::new(config);
    scheduler.install(&ctx);
    let long = "x".repeat(100);
    let session = scheduler.create(NewJob { recurring: false, ..NewJob::new("0 18 * * *", long) }).unwrap();
    let durable = scheduler.create(NewJob { durable: true, ..NewJob::new("0 9 * * 1-5", "standup") }).unwrap();
    let done = call_tool(agent_tool_cron_list::tool().as_ref(), "toolu_1", json!({}), &ctx).await;
    let expected = format!(
        "{} — weekdays at 09:00 (recurring), next run 2026-12-04 09:00 +00:00: standup\n{} — daily at 18:00 (one-shot) \
         [session-only], next run 2026-12-04 18:00 +00:00: {}…",
        durable.id,
        session.id,
        "x".repeat(79)
    );
    assert_eq!(done.block.content.text(), expected);
    let data = done.data.unwrap().to_json();
    assert_eq!(
        data["jobs"][0],
        json!({
            "id": durable.id, "cron": "0 9 * * 1-5", "humanSchedule": "weekdays at 09:00", "prompt": "standup",
            "recurring": true, "nextFireAt": T0 + 8 * 3_600_000,
        })
    );
    assert_eq!(data["jobs"][1]["durable"], false);
}
