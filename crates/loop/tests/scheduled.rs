//! The loop with the tools that wait for time and events, against the scripted fake Messages
//! API: a scheduled job fires (on a fake clock) and its prompt starts a turn; Sleep is woken by a
//! background task's end; a monitor's events reach the conversation; SendUserMessage reaches the
//! user's channel in brief mode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::user::{UserChannel, UserMessage, install_user_channel};
use agent_tools_cron::{Clock as _, CronConfig, CronScheduler, FakeClock, Zone};
use agent_tools_host::{Environment, Session};
use agent_tools_loop::{Agent, AgentOptions, ResultSubtype};
use agent_tools_testkit::fake_api::FakeApi;
use serde_json::json;

mod common;
use common::{backend, tool_use};

/// 2026-12-04 01:00:00 UTC.
const T0: i64 = 1_796_346_000_000;

async fn session(project: &std::path::Path, state: &std::path::Path, extra: &[(&str, &str)]) -> Arc<Session> {
    let mut env = Environment::empty()
        .with("PATH", std::env::var_os("PATH").unwrap_or_default())
        .with("HOME", state)
        .with("XDG_STATE_HOME", state.join("state"));
    for (name, value) in extra {
        env = env.with(name, *value);
    }
    let session = Session::builder(project)
        .environment(env)
        .settings_json("{}")
        .workspace_trust(agent_tools_host::WorkspaceTrust::Trusted)
        .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
        .build()
        .await
        .unwrap();
    Arc::new(session)
}

/// Every text of every message of the last request, in order.
fn texts(api: &FakeApi) -> Vec<String> {
    let last = api.requests().last().unwrap().body.clone();
    let mut found = Vec::new();
    for message in last["messages"].as_array().unwrap() {
        for block in message["content"].as_array().into_iter().flatten() {
            if let Some(text) = block["text"].as_str().or(block["content"].as_str()) {
                found.push(text.to_owned());
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_one_shot_job_fires_on_the_clock_and_its_prompt_starts_a_turn() {
    let (project, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let session = session(project.path(), state.path(), &[]).await;
    // The session's scheduler, on a clock the test moves.
    let clock = Arc::new(FakeClock::new(T0));
    let scheduler = CronScheduler::new(CronConfig { zone: Zone::utc(), ..CronConfig::new(None, clock.clone()) });
    scheduler.install(&session.context_without_waiting());
    let turn = vec![tool_use(
        "toolu_01",
        "CronCreate",
        json!({"cron": "30 1 4 12 *", "prompt": "Check whether the nightly build passed.", "recurring": false}),
    )];
    let api = FakeApi::scripted(vec![turn], "Done.");
    let agent = Agent::new(Arc::clone(&session), backend(&api), AgentOptions::new("claude-sonnet-4-5")).unwrap();
    let result = agent.query("remind me at 1:30 to check the build", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let created = texts(&api).into_iter().find(|text| text.starts_with("Scheduled one-shot task")).unwrap();
    assert!(created.contains("(on Dec 4 at 01:30). Next run: 2026-12-04 01:30 +00:00."), "{created}");
    assert_eq!(api.requests().len(), 2);
    // A headless run waits for the pending one-shot job; the clock reaches it.
    let waiting = tokio::spawn({
        let agent = Arc::new(agent);
        async move {
            let next = agent.continue_with_pending(&mut |_| {}).await;
            (agent, next)
        }
    });
    clock.advance(30 * 60_000);
    let (agent, next) = tokio::time::timeout(Duration::from_secs(30), waiting).await.unwrap().unwrap();
    let next = next.expect("the fired job is one more turn");
    assert_eq!(next.subtype, ResultSubtype::Success);
    let last = api.requests().last().unwrap().body.clone();
    let prompt = last["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        prompt,
        json!({"role": "user", "content": [{"type": "text", "text": "Check whether the nightly build passed.", "cache_control": {"type": "ephemeral"}}]})
    );
    assert!(scheduler.list(None).unwrap().is_empty(), "a one-shot job ends when it fires");
    // Nothing else is pending: the run may end.
    assert!(agent.continue_with_pending(&mut |_| {}).await.is_none());
    assert!(clock.now_ms() > T0);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleep_is_woken_by_a_background_task_ending_and_a_monitor_event_reaches_the_model() {
    let (project, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let session = session(project.path(), state.path(), &[]).await;
    let turns = vec![
        vec![tool_use(
            "toolu_01",
            "Bash",
            json!({"command": "sleep 0.3; echo built", "description": "build", "run_in_background": true}),
        )],
        vec![tool_use("toolu_02", "Sleep", json!({"duration_ms": 600_000}))],
        vec![tool_use(
            "toolu_03",
            "Monitor",
            json!({"command": "echo watch-one; sleep 0.2; echo watch-two", "description": "watch", "timeout_ms": 60_000}),
        )],
        vec![tool_use("toolu_04", "Sleep", json!({"duration_ms": 600_000}))],
    ];
    let api = FakeApi::scripted(turns, "Done.");
    let agent = Agent::new(Arc::clone(&session), backend(&api), AgentOptions::new("claude-sonnet-4-5")).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(60), agent.query("build, then watch", &mut |_| {}))
        .await
        .expect("Sleep was woken long before its ten minutes");
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let all = texts(&api);
    let woke: Vec<&String> = all.iter().filter(|text| text.starts_with("Woke after ")).collect();
    assert_eq!(woke.len(), 2, "{all:#?}");
    assert!(woke.iter().all(|text| text.ends_with(" of 600.0 s: a notification arrived.")), "{woke:?}");
    let started = all.iter().find(|text| text.starts_with("Monitor started (task ")).unwrap();
    assert!(started.contains("timeout 60000ms). You will be notified on each event."), "{started}");
    let event =
        all.iter().find(|text| text.contains("<kind>monitor</kind>")).expect("a monitor event in the conversation");
    assert!(event.contains("watch-one"), "{event}");
    let done =
        all.iter().position(|text| text.contains("Background command \"build\" completed (exit code 0)")).unwrap();
    let first_wake = all.iter().position(|text| text.starts_with("Woke after ")).unwrap();
    assert_eq!(done, first_wake + 1, "the notification that woke Sleep follows its result: {all:#?}");
    session.shutdown().await;
}

#[derive(Default)]
struct Inbox(Mutex<Vec<UserMessage>>);

impl UserChannel for Inbox {
    fn send(&self, message: &UserMessage) {
        self.0.lock().unwrap().push(message.clone());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_brief_mode_send_user_message_is_always_sent_and_reaches_the_user() {
    let (project, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(project.path().join("report.md"), "# Report\n").unwrap();
    let session = session(project.path(), state.path(), &[("CLAUDE_CODE_BRIEF", "1")]).await;
    let inbox = Arc::new(Inbox::default());
    install_user_channel(&session.context_without_waiting(), inbox.clone());
    let turn = vec![tool_use(
        "toolu_01",
        "SendUserMessage",
        json!({"message": "The report is ready.", "attachments": ["report.md"], "status": "normal"}),
    )];
    let api = FakeApi::scripted(vec![turn], "");
    let agent = Agent::new(Arc::clone(&session), backend(&api), AgentOptions::new("claude-sonnet-4-5")).unwrap();
    let result = agent.query("write the report", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let first = api.requests()[0].body.clone();
    let tool =
        first["tools"].as_array().unwrap().iter().find(|tool| tool["name"] == "SendUserMessage").unwrap().clone();
    assert!(tool.get("defer_loading").is_none(), "never deferred: {tool}");
    assert!(texts(&api).iter().any(|text| text == "Message delivered to user. (1 attachment included)"));
    let got = inbox.0.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].message.as_str(), got[0].attachments[0].size), ("The report is ready.", 9));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_now_says_whether_a_turn_is_waiting_without_waiting() {
    let (project, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let session = session(project.path(), state.path(), &[]).await;
    let api = FakeApi::scripted(Vec::new(), "Seen.");
    let agent = Agent::new(Arc::clone(&session), backend(&api), AgentOptions::new("claude-sonnet-4-5")).unwrap();
    let queue = session.context_without_waiting().notifications();
    assert!(!agent.pending_now());
    // A shell task's end is not worth a turn of the main conversation; a monitor's event and a
    // fired job are.
    queue.push("b1234abcd", "<task-notification>…</task-notification>");
    assert!(!agent.pending_now());
    queue.push("monitor:b5678", "<task-notification><event>ERROR</event></task-notification>");
    assert!(agent.pending_now());
    let result = agent.query_pending(&mut |_| {}).await;
    assert_eq!(result.result, "Seen.");
    assert!(!agent.pending_now());
    queue.push("cron:1a2b3c4d", "Check the build.");
    assert!(agent.pending_now());
    session.shutdown().await;
}
