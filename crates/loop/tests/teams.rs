//! Agent teams end to end against the scripted fake Messages API: a real Session and Agent,
//! TeamCreate starting two in-process teammates, their reports and a teammate's mailbox message
//! reaching the lead as notifications, SendMessage continuing a teammate, and TeamDelete
//! stopping the team and removing its folder. Each conversation is routed by the marker in its
//! first user message, as the loop harness routes sub-agents.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_background::{TaskRegistry, TaskStatus};
use agent_tools_host::{Environment, HostConfig, Session, WorkspaceTrust};
use agent_tools_loop::{Agent, AgentOptions, ResultSubtype};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};

mod common;
use common::backend;
use serde_json::{Value, json};

fn texts(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| match block["type"].as_str() {
                Some("tool_result") => texts(block),
                _ => block["text"].as_str().unwrap_or_default().to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn user_messages(request: &Recorded) -> Vec<Value> {
    let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
    messages.into_iter().filter(|message| message["role"] == "user").collect()
}

fn first_user_text(request: &Recorded) -> String {
    user_messages(request).first().map(texts).unwrap_or_default()
}

fn last_user(request: &Recorded) -> Value {
    user_messages(request).pop().unwrap_or(Value::Null)
}

fn has_tool_result(message: &Value) -> bool {
    message["content"].as_array().is_some_and(|blocks| blocks.iter().any(|block| block["type"] == "tool_result"))
}

/// The lead acts on its prompt's marker; alice reports (and answers a follow-up); bob writes to
/// the lead's mailbox first, then reports.
fn route(request: &Recorded) -> Reply {
    let first = first_user_text(request);
    let last = last_user(request);
    let last_text = texts(&last);
    if first.contains("ALICE-TASK") {
        return Reply::text(if last_text.contains("ALICE-FOLLOWUP") {
            "alice: followup done"
        } else {
            "alice: lexer report"
        });
    }
    if first.contains("BOB-TASK") {
        if has_tool_result(&last) {
            return Reply::text("bob: parser report");
        }
        let note = json!({"to": "team-lead", "summary": "a bug", "message": "BOB-NOTE: the parser has a bug"});
        return Reply::tool_use("toolu_b1", "SendMessage", note);
    }
    if has_tool_result(&last) {
        return Reply::text("noted");
    }
    if last_text.contains("DO-CREATE") {
        let members = json!([
            {"name": "alice", "prompt": "ALICE-TASK: survey the lexer"},
            {"name": "Bob", "prompt": "BOB-TASK: survey the parser"}
        ]);
        return Reply::tool_use("toolu_m1", "TeamCreate", json!({"team_name": "Alpha Squad", "members": members}));
    }
    if last_text.contains("DO-SEND") {
        let input = json!({"to": "alice", "summary": "follow-up", "message": "ALICE-FOLLOWUP: check the tokens"});
        return Reply::tool_use("toolu_m2", "SendMessage", input);
    }
    if last_text.contains("DO-DELETE") {
        return Reply::tool_use("toolu_m3", "TeamDelete", json!({}));
    }
    Reply::text("heard")
}

struct Fixture {
    project: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self { project: tempfile::tempdir().unwrap(), state: tempfile::tempdir().unwrap() }
    }

    fn teams(&self) -> PathBuf {
        self.state.path().join(".claude/teams")
    }

    async fn session(&self) -> Arc<Session> {
        let env = Environment::empty()
            .with("PATH", std::env::var_os("PATH").unwrap_or_default())
            .with("HOME", self.state.path())
            .with("XDG_STATE_HOME", self.state.path().join("state"));
        let session = Session::builder(self.project.path())
            .environment(env)
            .settings_json("{}")
            .workspace_trust(WorkspaceTrust::Trusted)
            .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
            .host_config(HostConfig { subagents: true, ..HostConfig::default() })
            .build()
            .await
            .unwrap();
        Arc::new(session)
    }
}

/// Everything the lead's conversation was sent, as text.
fn lead_heard(api: &FakeApi) -> String {
    api.requests()
        .iter()
        .filter(|request| !first_user_text(request).contains("-TASK"))
        .map(|request| user_messages(request).iter().map(texts).collect::<Vec<_>>().join("\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lets the lead go on with what reaches it until it has heard every one of `wanted`.
async fn hear(agent: &Agent, api: &FakeApi, wanted: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !wanted.iter().all(|text| lead_heard(api).contains(text)) {
        assert!(Instant::now() < deadline, "the lead never heard {wanted:?}; it heard:\n{}", lead_heard(api));
        match tokio::time::timeout(Duration::from_secs(30), agent.continue_with_pending(&mut |_| {})).await {
            Ok(Some(result)) => assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}"),
            // Nothing queued yet (a mailbox message is on its way): wait until something is.
            Ok(None) => {
                let queue = agent.session().context_without_waiting().notifications();
                agent_tools_testkit::procs::eventually(Duration::from_secs(5), || !queue.is_empty()).await;
            }
            Err(_) => panic!("continue_with_pending hung"),
        }
    }
}

/// The text of the lead's `tool_result` for `id`.
fn lead_result(api: &FakeApi, id: &str) -> String {
    api.requests()
        .iter()
        .rev()
        .find_map(|request| request.tool_result_text(id))
        .unwrap_or_else(|| panic!("no tool_result {id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_of_two_in_process_teammates_reports_hears_and_is_deleted() {
    let fx = Fixture::new();
    let api = FakeApi::start(route);
    let session = fx.session().await;
    let agent = Agent::new(Arc::clone(&session), backend(&api), AgentOptions::new("claude-sonnet-4-5")).unwrap();

    // TeamCreate: the team's files and two teammates.
    let result = agent.query("DO-CREATE", &mut |_| {}).await;
    assert_eq!((result.subtype, result.result.as_str()), (ResultSubtype::Success, "noted"), "{result:?}");
    let created: Value = serde_json::from_str(&lead_result(&api, "toolu_m1")).unwrap();
    assert_eq!(created["team_name"], "alpha-squad");
    assert_eq!(created["lead_agent_id"], "team-lead@alpha-squad");
    let names: Vec<&str> = created["members"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert!(created["members"].as_array().unwrap().iter().all(|m| m["backend"] == "in-process"));
    let team_dir = fx.teams().join("alpha-squad");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(team_dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["members"][1]["agent_id"], "bob@alpha-squad");
    assert_eq!(config["members"][1]["task_id"], created["members"][1]["task_id"]);

    // Both run; their reports and bob's mailbox message reach the lead.
    hear(&agent, &api, &["alice: lexer report", "bob: parser report", "BOB-NOTE: the parser has a bug"]).await;
    let heard = lead_heard(&api);
    assert!(
        heard.contains("<teammate-message teammate_id=\"bob\" summary=\"a bug\">\nBOB-NOTE: the parser has a bug\n</teammate-message>"),
        "{heard}"
    );
    assert!(heard.contains("<summary>Agent \"alice (team alpha-squad)\" finished</summary>"), "{heard}");
    let lead_box: Value =
        serde_json::from_str(&std::fs::read_to_string(team_dir.join("inboxes/team-lead.json")).unwrap()).unwrap();
    assert_eq!((lead_box[0]["from"].as_str(), lead_box[0]["read"].as_bool()), (Some("bob"), Some(true)));
    assert_eq!(
        bob_send_result(&api),
        json!({"success": true, "message": "Message sent to team-lead's inbox",
               "routing": {"sender": "bob", "target": "team-lead@alpha-squad", "delivery": "mailbox", "summary": "a bug"}})
    );
    let bob_first = api.requests().into_iter().find(|r| first_user_text(r).contains("BOB-TASK")).unwrap();
    let tools: Vec<String> =
        bob_first.body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    for kept in ["Bash", "Read", "SendMessage"] {
        assert!(tools.iter().any(|name| name == kept), "{kept} missing: {tools:?}");
    }
    for dropped in ["TeamCreate", "TeamDelete", "TaskStop", "AskUserQuestion", "ListAgents"] {
        assert!(!tools.iter().any(|name| name == dropped), "{dropped} must not reach a teammate: {tools:?}");
    }
    assert!(bob_first.body["system"].to_string().contains("You are `bob`, a teammate in the agent team `alpha-squad`"));

    // SendMessage from the lead reaches alice, who continues and reports again.
    let result = agent.query("DO-SEND", &mut |_| {}).await;
    assert_eq!(result.result, "noted");
    let sent: Value = serde_json::from_str(&lead_result(&api, "toolu_m2")).unwrap();
    assert_eq!(sent["routing"]["delivery"], "resumed", "{sent}");
    hear(&agent, &api, &["alice: followup done"]).await;
    let followed = api
        .requests()
        .into_iter()
        .any(|r| first_user_text(&r).contains("ALICE-TASK") && texts(&last_user(&r)).contains("ALICE-FOLLOWUP"));
    assert!(followed, "alice was sent the follow-up");

    // TeamDelete: nothing left running, the folder gone.
    let result = agent.query("DO-DELETE", &mut |_| {}).await;
    assert_eq!(result.result, "noted");
    let deleted: Value = serde_json::from_str(&lead_result(&api, "toolu_m3")).unwrap();
    assert_eq!((deleted["success"].as_bool(), deleted["team_name"].as_str()), (Some(true), Some("alpha-squad")));
    assert!(!team_dir.exists(), "the team's folder is removed");
    let registry = TaskRegistry::existing(&session.context().await).unwrap();
    for member in created["members"].as_array().unwrap() {
        let task = registry.get(member["task_id"].as_str().unwrap()).unwrap();
        assert_ne!(task.status, TaskStatus::Running, "{} still runs", member["name"]);
    }
    // A second TeamDelete finds no team.
    assert!(leads_no_team(&session).await);
    session.shutdown().await;
}

/// bob's SendMessage result, as bob's conversation got it.
fn bob_send_result(api: &FakeApi) -> Value {
    let text = api
        .requests()
        .iter()
        .filter(|request| first_user_text(request).contains("BOB-TASK"))
        .find_map(|request| request.tool_result_text("toolu_b1"))
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Whether the session leads no team any more (TeamDelete says "No team to delete").
async fn leads_no_team(session: &Session) -> bool {
    let block = agent_tools_core::ToolUseBlock { id: "toolu_x".into(), name: "TeamDelete".into(), input: json!({}) };
    let done = session.call(&block, agent_tools_host::CallOptions::default()).await;
    done.block.content.text() == r#"{"success":false,"message":"No team to delete"}"#
}
