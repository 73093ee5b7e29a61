//! TeamCreate's tmux backend end to end: a real `agent-tools agent --teammate` in a real tmux
//! session (a private server, `tmux -L <unique socket>`), answering through the fake Messages
//! API; its answers land in the lead's mailbox and reach the lead's notifications; a second
//! prompt goes by SendMessage; TeamDelete ends the tmux session and removes the team's folder.
//! Runs where `tmux` is on PATH (the CI installs the `tmux` package), else prints a SKIP line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr, clippy::panic)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use agent_tool_team_create::{TeamConfig, TeammateMode, TmuxConfig};
use agent_tools_core::{ToolUseContext, call_tool};
use agent_tools_team::{Team, state, tmux};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};
use agent_tools_testkit::procs::eventually as wait_for;
use serde_json::{Value, json};

/// The texts of a message's content (a string, or its blocks' text).
fn texts(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|block| block["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The texts of the last user message of a request.
fn last_user_text(request: &Recorded) -> String {
    let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
    messages.iter().rev().find(|message| message["role"] == "user").map(texts).unwrap_or_default()
}

/// Kills the private tmux server when the test ends, however it ends.
struct Server {
    program: PathBuf,
    socket: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new(&self.program)
            .args(["-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .status();
    }
}

fn has_session(server: &Server, name: &str) -> bool {
    Command::new(&server.program)
        .args(["-L", &server.socket, "has-session", "-t", name])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_tmux_teammate_answers_hears_a_second_prompt_and_is_deleted() {
    let Some(program) = tmux::find_program("tmux", std::env::var_os("PATH").as_deref()) else {
        // The CI installs tmux and sets AGENT_TOOLS_REQUIRE_TMUX=1: there a missing tmux fails.
        assert!(
            std::env::var_os("AGENT_TOOLS_REQUIRE_TMUX").is_none_or(|v| v != "1"),
            "tmux is required here (AGENT_TOOLS_REQUIRE_TMUX=1) but not on PATH"
        );
        eprintln!("SKIP: tmux not found");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(scenario(program));
}

async fn scenario(program: PathBuf) {
    let project = tempfile::tempdir().unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    let teams = state_dir.path().join("teams");
    let api = FakeApi::start(|request: &Recorded| {
        let last = last_user_text(request);
        if last.contains("SECOND-PROMPT") {
            Reply::text("second answer from tmux")
        } else if last.contains("FIRST-TASK") {
            Reply::text("first answer from tmux")
        } else {
            Reply::text("unrouted")
        }
    });
    let server = Server { program: program.clone(), socket: format!("agent-tools-test-{}", std::process::id()) };
    let home = state_dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // What the tmux server (started by the first teammate) and so the teammate get; the
    // variables a developer's shell may set to point elsewhere are blanked.
    let env: Vec<(OsString, OsString)> = [
        ("HOME", home.display().to_string()),
        ("XDG_STATE_HOME", state_dir.path().join("xdg-state").display().to_string()),
        ("XDG_CONFIG_HOME", home.join(".config").display().to_string()),
        ("ANTHROPIC_BASE_URL", api.base_url()),
        ("ANTHROPIC_API_KEY", "sk-test".to_owned()),
        ("ANTHROPIC_AUTH_TOKEN", String::new()),
        ("ANTHROPIC_MODEL", String::new()),
        ("AGENT_TOOLS_OPENAI_BASE_URL", String::new()),
        ("CLAUDE_CONFIG_DIR", String::new()),
    ]
    .into_iter()
    .map(|(name, value)| (name.into(), value.into()))
    .collect();
    let config = TeamConfig {
        teams_dir: Some(teams.clone()),
        teammate_mode: TeammateMode::Tmux,
        agent_program: Some(PathBuf::from(env!("CARGO_BIN_EXE_agent-tools"))),
        tmux: Some(TmuxConfig {
            program: program.clone(),
            socket: server.socket.clone(),
            env,
            shutdown_grace: Duration::from_secs(5),
        }),
        teammate_idle_timeout: Some(Duration::from_secs(120)),
    };
    let mut ctx = ToolUseContext::new(project.path().canonicalize().unwrap());
    ctx.options.main_loop_model = "claude-sonnet-4-5".into();

    // TeamCreate starts the teammate in tmux; its task waits in its mailbox.
    let create = agent_tool_team_create::tool_with(config);
    let input = json!({"team_name": "tmux crew", "members": [{"name": "scout", "prompt": "FIRST-TASK: look around"}]});
    let done = call_tool(create.as_ref(), "toolu_1", input, &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let output: Value = serde_json::from_str(&done.block.content.text()).unwrap();
    assert_eq!(output["team_name"], "tmux-crew");
    assert_eq!(output["members"][0]["backend"], "tmux", "{output}");
    assert!(output["members"][0]["tmux_pane"].as_str().unwrap().starts_with('%'), "{output}");
    assert!(output["notes"][0].as_str().unwrap().contains(&format!("tmux -L {} attach", server.socket)));
    let session = tmux::session_name("tmux-crew");
    assert!(has_session(&server, &session));
    let team = Team::open(&teams, "tmux-crew").unwrap();
    let member = team.load().unwrap().members.remove(0);
    assert_eq!((member.name.as_str(), member.tmux_pane.is_some()), ("scout", true));

    // Its answer lands in the lead's mailbox, and the lead's watcher makes it a notification.
    let queue = ctx.notifications();
    let mut heard: Vec<String> = Vec::new();
    let first = wait_for(Duration::from_secs(60), || {
        heard.extend(queue.drain().into_iter().map(|pending| pending.text));
        heard.iter().any(|text| text.contains("first answer from tmux"))
    })
    .await;
    assert!(
        first,
        "no first answer; heard {heard:?}; requests {:?}",
        api.requests().iter().map(|r| r.body["messages"].to_string()).collect::<Vec<_>>()
    );
    assert_eq!(
        heard[0],
        "<teammate-message teammate_id=\"scout\" summary=\"scout finished\">\nfirst answer from tmux\n</teammate-message>"
    );
    let lead_box = team.messages("team-lead").unwrap();
    assert_eq!((lead_box[0].from.as_str(), lead_box[0].read), ("scout", true));
    let first_request =
        api.requests().into_iter().find(|request| last_user_text(request).contains("FIRST-TASK")).unwrap();
    let system = first_request.body["system"].to_string();
    assert!(system.contains("You are `scout`, a teammate in the agent team `tmux-crew`"), "{system}");
    let tools = first_request.body["tools"].to_string();
    assert!(
        !tools.contains("\"TeamCreate\"") && !tools.contains("\"TeamDelete\""),
        "a teammate cannot manage the team"
    );

    // SendMessage: a second prompt, through its mailbox.
    let send = agent_tool_send_message::tool();
    let input = json!({"to": "scout", "summary": "one more", "message": "SECOND-PROMPT: and now this"});
    let sent = call_tool(send.as_ref(), "toolu_2", input, &ctx).await;
    assert!(!sent.block.is_error, "{}", sent.block.content.text());
    assert!(sent.block.content.text().contains("Message sent to scout's inbox"));
    heard.clear();
    let second = wait_for(Duration::from_secs(60), || {
        heard.extend(queue.drain().into_iter().map(|pending| pending.text));
        heard.iter().any(|text| text.contains("second answer from tmux"))
    })
    .await;
    assert!(second, "no second answer; heard {heard:?}");
    assert_eq!(team.messages("team-lead").unwrap().len(), 2);

    // TeamDelete: the teammate is asked to stop, its tmux session ends, the folder goes.
    let delete = agent_tool_team_delete::tool();
    let deleted = call_tool(delete.as_ref(), "toolu_3", json!({}), &ctx).await;
    let output: Value = serde_json::from_str(&deleted.block.content.text()).unwrap();
    assert_eq!(output["success"], true, "{output}");
    assert!(output["message"].as_str().unwrap().contains("stopped scout"), "{output}");
    assert!(!has_session(&server, &session), "tmux has-session must fail after TeamDelete");
    assert!(!teams.join("tmux-crew").exists());
    assert!(state::current_team(&ctx).is_none());
    drop(server);
}
