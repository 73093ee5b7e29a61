//! TeamDelete on real folders, a real task registry and (where tmux is installed) a real tmux
//! server on a private socket.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::{ToolUseContext, call_tool};
use agent_tools_team::{ActiveTeam, Backend, Member, Team, TmuxConfig, state, tmux};
use serde_json::{Value, json};

async fn delete(ctx: &ToolUseContext) -> Value {
    let done = call_tool(agent_tool_team_delete::tool().as_ref(), "toolu_td", json!({}), ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    serde_json::from_str(&done.block.content.text()).unwrap()
}

fn member(team: &Team, name: &str, backend: Backend, task_id: Option<String>) -> Member {
    Member {
        agent_id: team.agent_id(name),
        name: name.into(),
        agent_type: "general-purpose".into(),
        backend,
        task_id,
        tmux_pane: None,
        cwd: "/".into(),
    }
}

/// What TeamCreate does for an in-process teammate, with a teammate that works until stopped.
fn running_teammate(ctx: &ToolUseContext, team: &Team, name: &str) -> String {
    let registry = TaskRegistry::for_context(ctx);
    let task = registry.register_agent(AgentTaskSpec { name: Some(name.into()), ..AgentTaskSpec::default() }).unwrap();
    team.add_member(member(team, name, Backend::InProcess, Some(task.id.clone()))).unwrap();
    let (cancel, id) = (task.cancel.clone(), task.id.clone());
    tokio::spawn(async move {
        cancel.cancelled().await;
        let end = AgentEnd { status: TaskStatus::Failed, result: "stopped".into(), notification: Some("n".into()) };
        registry.finish_agent(&id, end);
    });
    task.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_in_process_teammates_are_stopped_and_the_files_removed() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (team, _) = Team::create(dir.path(), "crew", None, None).unwrap();
    state::begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: None, watch: None }).unwrap();
    let alice = running_teammate(&ctx, &team, "alice");
    let bob = running_teammate(&ctx, &team, "bob");
    let registry = TaskRegistry::existing(&ctx).unwrap();
    // Bob had finished already: only alice is stopped.
    registry.finish_agent(&bob, AgentEnd { status: TaskStatus::Completed, result: "ok".into(), notification: None });

    let output = delete(&ctx).await;
    assert_eq!(output["success"], true);
    assert_eq!(output["team_name"], "crew");
    assert_eq!(
        output["message"].as_str().unwrap(),
        format!("Team \"crew\" deleted; stopped alice; removed {}.", team.dir().display())
    );
    assert_eq!(registry.get(&alice).unwrap().status, TaskStatus::Killed);
    assert_eq!(registry.get(&bob).unwrap().status, TaskStatus::Completed);
    assert!(ctx.notifications().is_empty(), "a stopped teammate does not notify");
    assert!(!team.dir().exists());
    assert!(state::current_team(&ctx).is_none());
    assert_eq!(delete(&ctx).await, json!({"success": false, "message": "No team to delete"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_lead_deletes_the_team() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (team, _) = Team::create(dir.path(), "crew", None, None).unwrap();
    state::begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: None, watch: None }).unwrap();
    let mut sub = ctx.clone();
    sub.agent_id = Some("a12345678".into());
    let output = delete(&sub).await;
    assert_eq!(output["success"], false);
    assert_eq!(output["message"], "Only the team's lead (the main conversation) can delete the team.");
    assert!(team.dir().exists());

    let process = ToolUseContext::new(dir.path());
    state::install_teammate(&process, agent_tools_team::Teammate { team: team.clone(), name: "alice".into() });
    let output = delete(&process).await;
    assert_eq!(output["message"], "A teammate cannot delete its team; only the lead can.");
    assert!(team.dir().exists());
    state::end_team(&ctx);
}

fn tmux_program() -> Option<PathBuf> {
    tmux::find_program("tmux", std::env::var_os("PATH").as_deref())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tmux_teammates_are_asked_to_stop_then_their_session_is_killed() {
    let Some(program) = tmux_program() else {
        // The CI installs tmux and sets AGENT_TOOLS_REQUIRE_TMUX=1: there a missing tmux fails.
        assert!(
            std::env::var_os("AGENT_TOOLS_REQUIRE_TMUX").is_none_or(|v| v != "1"),
            "tmux is required here (AGENT_TOOLS_REQUIRE_TMUX=1) but not on PATH"
        );
        eprintln!("SKIP: tmux not found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (team, _) = Team::create(dir.path(), "panes", None, None).unwrap();
    let config = TmuxConfig {
        socket: format!("agent-tools-test-delete-{}", std::process::id()),
        shutdown_grace: Duration::from_millis(300),
        ..TmuxConfig::new(program)
    };
    // A teammate that ignores its shutdown request.
    let sleeper = tmux::spawn(&config, "panes", "sleepy", dir.path(), "/bin/sleep".as_ref(), &["60".into()]).unwrap();
    assert!(sleeper.starts_with('%'), "{sleeper}");
    team.add_member(member(&team, "sleepy", Backend::Tmux, None)).unwrap();
    let session = tmux::session_name("panes");
    assert!(tmux::has_session(&config, &session));
    state::begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: Some(config.clone()), watch: None }).unwrap();

    let started = Instant::now();
    let output = delete(&ctx).await;
    assert_eq!(output["success"], true, "{output}");
    assert!(output["message"].as_str().unwrap().contains("stopped sleepy"), "{output}");
    assert!(started.elapsed() >= Duration::from_millis(300), "the grace was given");
    let has = Command::new(&config.program)
        .args(["-L", &config.socket, "has-session", "-t", &session])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!has.success(), "the tmux session is gone");
    assert!(!team.dir().exists());
    let _ = Command::new(&config.program)
        .args(["-L", &config.socket, "kill-server"])
        .stderr(std::process::Stdio::null())
        .status();
}
