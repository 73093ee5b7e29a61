//! Sleep on Tokio's paused clock: the full wait, a notification pushed while it sleeps (from
//! another task, as a background task's end is), an interrupt, the bound.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::json;

async fn call_sleep(ctx: &ToolUseContext, ms: u64) -> (bool, String, serde_json::Value) {
    let done = call_tool(agent_tool_sleep::tool().as_ref(), "toolu_1", json!({"duration_ms": ms}), ctx).await;
    let data = done.data.map(|data| data.to_json()).unwrap_or_default();
    (done.block.is_error, done.block.content.text(), data)
}

#[tokio::test(start_paused = true)]
async fn a_notification_wakes_it_early_and_says_after_how_long() {
    let ctx = ToolUseContext::new("/tmp");
    let queue = ctx.notifications();
    let pusher = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1_200)).await; // tidy:allow-sleep the paused clock's event time
        queue.push("b1", "<task-notification>done</task-notification>");
    });
    let (error, text, data) = call_sleep(&ctx, 5_000).await;
    pusher.await.unwrap();
    assert!(!error);
    assert_eq!(text, "Woke after 1.2 s of 5.0 s: a notification arrived.");
    assert_eq!(data, json!({"requested_ms": 5000, "slept_ms": 1200, "woke_by": "notification"}));
    // The notification stays queued for the model to read.
    assert_eq!(ctx.notifications().keys(), ["b1"]);
}

#[tokio::test(start_paused = true)]
async fn without_news_it_sleeps_the_whole_time() {
    let ctx = ToolUseContext::new("/tmp");
    let started = tokio::time::Instant::now();
    let (_, text, data) = call_sleep(&ctx, 90_000).await;
    assert_eq!(started.elapsed(), Duration::from_secs(90));
    assert_eq!(text, "Slept for 90.0 s.");
    assert_eq!(data["woke_by"], "timeout");
}

#[tokio::test(start_paused = true)]
async fn an_interrupt_ends_it() {
    let ctx = ToolUseContext::new("/tmp");
    let interrupt = ctx.interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await; // tidy:allow-sleep the paused clock's event time
        interrupt.cancel();
    });
    let (_, text, data) = call_sleep(&ctx, 5_000).await;
    assert_eq!(text, "Interrupted after 0.4 s of 5.0 s.");
    assert_eq!(data["woke_by"], "interrupt");
}

#[tokio::test]
async fn more_than_an_hour_is_refused() {
    let ctx = ToolUseContext::new("/tmp");
    let (error, text, _) = call_sleep(&ctx, 3_600_001).await;
    assert!(error);
    assert!(text.contains("The parameter `duration_ms` must be at most 3600000, but it is 3600001"), "{text}");
    let tool = agent_tool_sleep::tool();
    assert!(tool.is_read_only(&tool.parse(json!({"duration_ms": 1})).unwrap()));
}
