//! The hook events the agent loop fires, each run by a real command hook from the settings (a
//! small `sh` script appending its stdin to a log), against the scripted fake Messages API: each
//! fires once where it happens, with its documented input fields.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_host::{Environment, HostConfig, Session, WorkspaceTrust};
use agent_tools_loop::agent::PromptExpansion;
use agent_tools_loop::{Agent, AgentEvent, ResultSubtype};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};

mod common;
use common::{backend, options, tool_use};
use serde_json::{Map, Value, json};

struct Fixture {
    project: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("a.txt"), "hello\n").unwrap();
        std::fs::create_dir(project.path().join("sub")).unwrap();
        Self { project, state: tempfile::tempdir().unwrap() }
    }

    fn root(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn log(&self) -> PathBuf {
        self.state.path().join("hooks.log")
    }

    /// Settings with a recorder hook on each of `events` (matcher: every target).
    fn recording(&self, events: &[&str]) -> String {
        // One write per input: hooks of concurrent calls may log at once.
        let command = format!("input=$(cat); printf '%s\\n' \"$input\" >> '{0}'", self.log().display());
        let hooks: Map<String, Value> = events
            .iter()
            .map(|event| {
                ((*event).to_owned(), json!([{"matcher": "", "hooks": [{"type": "command", "command": command}]}]))
            })
            .collect();
        json!({"hooks": hooks}).to_string()
    }

    async fn session(&self, settings: &str, config: HostConfig) -> Arc<Session> {
        let session = Session::builder(self.project.path())
            .environment(
                Environment::empty()
                    .with("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .with("HOME", self.state.path())
                    .with("XDG_STATE_HOME", self.state.path().join("state")),
            )
            .settings_json(settings)
            .workspace_trust(WorkspaceTrust::Trusted)
            .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
            .host_config(config)
            .build()
            .await
            .unwrap();
        Arc::new(session)
    }
}

/// The inputs of `event` the recorder logged.
fn fired(log: &Path, event: &str) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|input| input["hook_event_name"] == event)
        .collect()
}

/// The single input of `event`, with the common fields checked.
fn once(log: &Path, event: &str, agent: &Agent) -> Value {
    let inputs = fired(log, event);
    assert_eq!(inputs.len(), 1, "{event} fired {} times: {inputs:?}", inputs.len());
    let input = inputs.into_iter().next().unwrap();
    assert_eq!(input["session_id"], agent.session().id(), "{input}");
    assert!(input["cwd"].is_string() && input["permission_mode"] == "bypassPermissions", "{input}");
    let transcript = agent.transcript_path().map(|path| path.display().to_string()).unwrap_or_default();
    assert_eq!(input["transcript_path"], transcript, "{input}");
    input
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_fires_its_events_once_each_with_their_fields() {
    let fx = Fixture::new();
    std::fs::write(fx.project.path().join("CLAUDE.md"), "Be brief.\n@notes.md\n").unwrap();
    std::fs::write(fx.project.path().join("notes.md"), "Notes.\n").unwrap();
    let events = [
        "Setup",
        "SessionStart",
        "UserPromptSubmit",
        "InstructionsLoaded",
        "PostToolBatch",
        "CwdChanged",
        "Stop",
        "PreModelSwitch",
        "PostModelSwitch",
        "UserPromptExpansion",
        "Notification",
        "DirectoryAdded",
        "TeammateIdle",
        "SessionEnd",
    ];
    let settings = fx.recording(&events);
    let a = fx.root().join("a.txt");
    let turn = vec![
        tool_use("toolu_cd", "Bash", json!({"command": "cd sub", "description": "move"})),
        tool_use("toolu_read", "Read", json!({"file_path": a})),
    ];
    let api = FakeApi::scripted(vec![turn], "Done.");
    let agent = Agent::new(fx.session(&settings, HostConfig::default()).await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!((result.subtype, result.result.as_str()), (ResultSubtype::Success, "Done."));
    let log = fx.log();

    let setup = once(&log, "Setup", &agent);
    assert_eq!(setup["trigger"], "init");
    let start = once(&log, "SessionStart", &agent);
    assert_eq!((start["source"].as_str(), start["model"].as_str()), (Some("startup"), Some("claude-sonnet-4-5")));
    assert!(start.get("agent_id").is_none(), "the main conversation has no agent id");
    assert_eq!(once(&log, "UserPromptSubmit", &agent)["prompt"], "go");
    let loaded = fired(&log, "InstructionsLoaded");
    assert_eq!(loaded.len(), 2, "CLAUDE.md and its import: {loaded:?}");
    assert_eq!(loaded[0]["file_path"], fx.root().join("CLAUDE.md").display().to_string());
    assert_eq!(
        (loaded[0]["memory_type"].as_str(), loaded[0]["load_reason"].as_str()),
        (Some("Project"), Some("session_start"))
    );
    assert_eq!(loaded[1]["load_reason"], "include");
    assert_eq!(loaded[1]["parent_file_path"], fx.root().join("CLAUDE.md").display().to_string());
    let batch = once(&log, "PostToolBatch", &agent);
    let calls = batch["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0]["tool_name"].as_str(), calls[0]["tool_use_id"].as_str()), (Some("Bash"), Some("toolu_cd")));
    assert_eq!(calls[1]["tool_input"], json!({"file_path": a}));
    assert!(calls[1].get("tool_response").is_some(), "{batch}");
    let moved = once(&log, "CwdChanged", &agent);
    assert_eq!(moved["old_cwd"], fx.root().display().to_string());
    assert_eq!(moved["new_cwd"], fx.root().join("sub").display().to_string());
    let stop = once(&log, "Stop", &agent);
    assert_eq!(
        (stop["stop_hook_active"].as_bool(), stop["last_assistant_message"].as_str()),
        (Some(false), Some("Done."))
    );

    // A second query starts no session again.
    agent.query("again", &mut |_| {}).await;
    assert_eq!(fired(&log, "Setup").len(), 1);
    assert_eq!(fired(&log, "SessionStart").len(), 1);
    assert_eq!(fired(&log, "UserPromptSubmit").len(), 2);

    // The front ends' events.
    assert_eq!(agent.switch_model(Some("opus"), "sdk").await, Ok("claude-opus-4-5".to_owned()));
    assert_eq!(agent.model(), "claude-opus-4-5");
    let pre = once(&log, "PreModelSwitch", &agent);
    assert_eq!(
        (pre["from_model"].as_str(), pre["to_model"].as_str()),
        (Some("claude-sonnet-4-5"), Some("claude-opus-4-5"))
    );
    assert_eq!((pre["requested_model"].as_str(), pre["source"].as_str()), (Some("opus"), Some("sdk")));
    assert!(pre["context_tokens"].as_u64().unwrap() > 0 && pre["prompt_cache_warm"] == true, "{pre}");
    assert_eq!(pre["cache_ttl"], "5m");
    assert!(pre["estimated_cache_write_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(once(&log, "PostModelSwitch", &agent)["to_model"], "claude-opus-4-5");
    let expansion = PromptExpansion {
        expansion_type: "slash_command",
        command_name: "review",
        command_args: "src/",
        command_source: Some("project"),
        prompt: "Review src/ carefully.",
    };
    assert_eq!(agent.expand_prompt(&expansion).await, Ok(Vec::new()));
    let expanded = once(&log, "UserPromptExpansion", &agent);
    assert_eq!(
        (
            &expanded["expansion_type"],
            &expanded["command_name"],
            &expanded["command_args"],
            &expanded["command_source"]
        ),
        (&json!("slash_command"), &json!("review"), &json!("src/"), &json!("project"))
    );
    assert_eq!(expanded["prompt"], "Review src/ carefully.");
    agent.notify("The agent needs your permission to use Bash", "permission_prompt").await;
    let note = once(&log, "Notification", &agent);
    assert_eq!(
        (note["message"].as_str(), note["notification_type"].as_str()),
        (Some("The agent needs your permission to use Bash"), Some("permission_prompt"))
    );
    agent.directories_added(&[fx.root().join("sub")], "add_dir_flag").await;
    let added = once(&log, "DirectoryAdded", &agent);
    assert_eq!(
        (added["directory"].as_str(), added["source"].as_str()),
        (Some(fx.root().join("sub").display().to_string().as_str()), Some("add_dir_flag"))
    );
    assert_eq!(agent.teammate_idle("alice", "alpha").await, None);
    let idle = once(&log, "TeammateIdle", &agent);
    assert_eq!((idle["teammate_name"].as_str(), idle["team_name"].as_str()), (Some("alice"), Some("alpha")));
    agent.end("prompt_input_exit").await;
    assert_eq!(once(&log, "SessionEnd", &agent)["reason"], "prompt_input_exit");
    agent.session().shutdown().await;
}

#[tokio::test]
async fn hooks_that_refuse_keep_the_model_and_the_expansion() {
    let fx = Fixture::new();
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreModelSwitch", "permissionDecision": "deny",
        "permissionDecisionReason": "opus is for weekends"}});
    let settings = json!({"hooks": {
        "PreModelSwitch": [{"matcher": "claude-opus-4-5", "hooks": [{"type": "command", "command": format!("printf '%s' '{deny}'")}]}],
        "UserPromptExpansion": [{"matcher": "deploy", "hooks": [{"type": "command", "command": "echo 'not from here' >&2; exit 2"}]}],
        "TeammateIdle": [{"hooks": [{"type": "command", "command": "echo 'review the diff first' >&2; exit 2"}]}],
    }});
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let agent =
        Agent::new(fx.session(&settings.to_string(), HostConfig::default()).await, backend(&api), options()).unwrap();
    let kept = agent.switch_model(Some("opus"), "sdk").await;
    assert_eq!(kept, Err("A PreModelSwitch hook kept the model claude-sonnet-4-5: opus is for weekends".to_owned()));
    assert_eq!(agent.model(), "claude-sonnet-4-5");
    assert_eq!(
        agent.switch_model(Some("haiku"), "sdk").await,
        Ok("claude-haiku-4-5".to_owned()),
        "the matcher selects on to_model"
    );
    let expansion = PromptExpansion {
        expansion_type: "slash_command",
        command_name: "deploy",
        command_args: "",
        command_source: None,
        prompt: "Deploy.",
    };
    assert_eq!(agent.expand_prompt(&expansion).await, Err("not from here".to_owned()));
    assert_eq!(agent.teammate_idle("alice", "alpha").await, Some("review the diff first".to_owned()));
}

#[tokio::test]
async fn an_api_error_fires_stop_failure() {
    let fx = Fixture::new();
    let settings = fx.recording(&["StopFailure", "Stop"]);
    let api = FakeApi::start(|_| Reply::status(400, "invalid_request_error", "messages: too many images"));
    let agent = Agent::new(fx.session(&settings, HostConfig::default()).await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.terminal_reason, "api_error");
    let failure = once(&fx.log(), "StopFailure", &agent);
    assert_eq!(failure["error"], "invalid_request");
    assert_eq!(failure["error_details"], "API Error: messages: too many images");
    assert!(fired(&fx.log(), "Stop").is_empty(), "no Stop when the turn failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_interrupt_fires_interrupt_once() {
    let fx = Fixture::new();
    let settings = fx.recording(&["Interrupt", "Stop"]);
    let content = vec![json!({"type": "text", "text": "Thinking about it."})];
    let api = FakeApi::start(move |_| Reply::Slow { content: content.clone(), gap: Duration::from_secs(2) });
    let agent = Agent::new(fx.session(&settings, HostConfig::default()).await, backend(&api), options()).unwrap();
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::TextDelta(_) = event {
                agent.interrupt();
            }
        })
        .await;
    assert_eq!(result.terminal_reason, "interrupted");
    let interrupt = once(&fx.log(), "Interrupt", &agent);
    assert_eq!((interrupt["source"].as_str(), interrupt["reason"].as_str()), (Some("user"), Some("stop")));
    assert!(fired(&fx.log(), "Stop").is_empty());
}

#[tokio::test]
async fn a_compaction_fires_pre_and_post_compact_then_session_start() {
    let fx = Fixture::new();
    let settings = fx.recording(&["PreCompact", "PostCompact", "SessionStart"]);
    let file = fx.root().join("a.txt");
    let api = FakeApi::start(move |request: &Recorded| {
        let text = request.body["messages"].to_string();
        if text.contains("about to be replaced by a summary") {
            Reply::text("SUMMARY: the user wants a.txt read")
        } else if !text.contains("SUMMARY:") {
            Reply::Message {
                content: vec![tool_use("toolu_1", "Read", json!({"file_path": file}))],
                stop_reason: None,
                usage: Some(json!({"input_tokens": 950})),
            }
        } else {
            Reply::text("Done.")
        }
    });
    let mut small = options();
    small.context_window = 1_000;
    let agent = Agent::new(fx.session(&settings, HostConfig::default()).await, backend(&api), small).unwrap();
    assert_eq!(agent.query("go", &mut |_| {}).await.result, "Done.");
    let pre = once(&fx.log(), "PreCompact", &agent);
    assert_eq!(pre["trigger"], "auto");
    let post = once(&fx.log(), "PostCompact", &agent);
    assert_eq!(
        (post["trigger"].as_str(), post["compact_summary"].as_str()),
        (Some("auto"), Some("SUMMARY: the user wants a.txt read"))
    );
    let starts: Vec<String> =
        fired(&fx.log(), "SessionStart").iter().map(|input| input["source"].as_str().unwrap().to_owned()).collect();
    assert_eq!(starts, ["startup", "compact"]);
}

/// The texts of a request's first user message.
fn first_user_text(request: &Recorded) -> String {
    request.body["messages"][0]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|block| block["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_fire_inside_sub_agents_with_their_id_and_type() {
    let fx = Fixture::new();
    let settings = fx.recording(&["SubagentStart", "SubagentStop", "PreToolUse", "PostToolUse", "Stop"]);
    let a = fx.root().join("a.txt");
    let api = FakeApi::start(move |request| {
        let sub = first_user_text(request).contains("SUB-HOOKS");
        match (sub, request.assistant_turns()) {
            (false, 0) => Reply::tool_use(
                "toolu_agent",
                "Agent",
                json!({"description": "Read it", "prompt": "SUB-HOOKS: read a.txt", "subagent_type": "general-purpose",
                       "run_in_background": false}),
            ),
            (true, 0) => Reply::tool_use("toolu_sub_read", "Read", json!({"file_path": a})),
            (true, _) => Reply::text("It says hello."),
            (false, _) => Reply::text("Done."),
        }
    });
    let config = HostConfig { subagents: true, ..HostConfig::default() };
    let agent = Agent::new(fx.session(&settings, config).await, backend(&api), options()).unwrap();
    assert_eq!(agent.query("MAIN-HOOKS", &mut |_| {}).await.result, "Done.");
    let log = fx.log();
    let start = once(&log, "SubagentStart", &agent);
    let id = start["agent_id"].as_str().unwrap().to_owned();
    assert!(id.starts_with('a'), "{start}");
    assert_eq!(start["agent_type"], "general-purpose");
    let stop = once(&log, "SubagentStop", &agent);
    assert_eq!((stop["agent_id"].as_str(), stop["agent_type"].as_str()), (Some(id.as_str()), Some("general-purpose")));
    assert_eq!(stop["stop_hook_active"], false);
    assert!(stop["agent_transcript_path"].is_string());
    // The sub-agent's own call: its hooks see whose it is; the main conversation's do not.
    let pre = fired(&log, "PreToolUse");
    assert_eq!(pre.len(), 2, "the Agent call and the sub-agent's Read");
    let (main_call, sub_call) = (&pre[0], &pre[1]);
    assert_eq!(main_call["tool_name"], "Agent");
    assert!(main_call.get("agent_id").is_none(), "{main_call}");
    assert_eq!(sub_call["tool_name"], "Read");
    assert_eq!(
        (sub_call["agent_id"].as_str(), sub_call["agent_type"].as_str()),
        (Some(id.as_str()), Some("general-purpose"))
    );
    assert_eq!(sub_call["transcript_path"], main_call["transcript_path"], "the main conversation's transcript");
    assert_eq!(fired(&log, "PostToolUse").iter().filter(|input| input["agent_id"] == id.as_str()).count(), 1);
    assert_eq!(fired(&log, "Stop").len(), 1, "the sub-agent fires SubagentStop, not Stop");
    agent.session().shutdown().await;
}

/// A PostToolUse hook answering `"continue": false` ends the query after that round: the call's
/// result stays in the conversation, the model is not asked again, and the result says why
/// (the Python SDK's hooks example, ContinueControl).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_tool_use_stop_ends_the_query_without_another_request() {
    let fx = Fixture::new();
    let stop = json!({"continue": false, "stopReason": "Halted: the output said CRITICAL"});
    let settings = json!({"hooks": {"PostToolUse": [{"matcher": "Read",
        "hooks": [{"type": "command", "command": format!("printf '%s' '{stop}'")}]}]}});
    let api = FakeApi::scripted(
        vec![vec![tool_use("toolu_1", "Read", json!({"file_path": fx.root().join("a.txt")}))]],
        "This answer must not be asked for.",
    );
    let agent =
        Agent::new(fx.session(&settings.to_string(), HostConfig::default()).await, backend(&api), options()).unwrap();
    let result = agent.query("read a.txt", &mut |_| {}).await;
    assert_eq!(api.requests().len(), 1, "no request after the hook's stop");
    assert_eq!((result.subtype, result.is_error), (ResultSubtype::Success, false));
    assert_eq!(result.terminal_reason, "hook_stopped");
    assert_eq!(result.result, "Halted: the output said CRITICAL");
    let history = agent.messages().await;
    assert!(serde_json::to_string(&history).unwrap().contains("hello"), "the Read result stays: {history:?}");
}
