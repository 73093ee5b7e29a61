//! SendMessage inside a team: mailboxes for teammates that are no agent task here, the lead's
//! mailbox for teammates, `<name>@<team>`, senders, and the registry first.
#![allow(clippy::unwrap_used)]

use agent_tools_background::{AgentTaskSpec, TaskRegistry};
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use agent_tools_team::{ActiveTeam, Backend, Member, Team, Teammate, state};
use serde_json::{Value, json};

struct Crew {
    dir: tempfile::TempDir,
    team: Team,
    lead: ToolUseContext,
}

fn member(team: &Team, name: &str, backend: Backend, task_id: Option<&str>) -> Member {
    Member {
        agent_id: team.agent_id(name),
        name: name.into(),
        agent_type: "general-purpose".into(),
        backend,
        task_id: task_id.map(str::to_owned),
        tmux_pane: None,
        cwd: "/".into(),
    }
}

/// A team `crew` led by a fresh context, with tmux teammate `bob`.
fn crew() -> Crew {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "crew", None, None).unwrap();
    team.add_member(member(&team, "bob", Backend::Tmux, None)).unwrap();
    let lead = ToolUseContext::new(dir.path());
    state::begin_team(&lead, ActiveTeam { team: team.clone(), tmux: None, watch: None }).unwrap();
    Crew { dir, team, lead }
}

async fn send(ctx: &ToolUseContext, input: Value) -> (bool, String) {
    let done = call_tool(agent_tool_send_message::tool().as_ref(), "toolu_sm", input, ctx).await;
    (done.block.is_error, done.block.content.text())
}

#[tokio::test]
async fn the_lead_writes_to_a_tmux_teammates_mailbox() {
    let crew = crew();
    let (is_error, text) =
        send(&crew.lead, json!({"to": "bob", "summary": "more work", "message": "Check tests/."})).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(output["message"], "Message sent to bob's inbox");
    assert_eq!(
        output["routing"],
        json!({"sender": "team-lead", "target": "bob@crew", "delivery": "mailbox", "summary": "more work"})
    );
    let inbox = crew.team.messages("bob").unwrap();
    assert_eq!((inbox[0].from.as_str(), inbox[0].text.as_str()), ("team-lead", "Check tests/."));
    assert_eq!(inbox[0].summary.as_deref(), Some("more work"));
    assert!(!inbox[0].read);

    // By agent id, in any case; a structured message goes as its JSON.
    let (is_error, text) =
        send(&crew.lead, json!({"to": "Bob@crew", "message": {"type": "shutdown_request", "reason": "done"}})).await;
    assert!(!is_error, "{text}");
    let inbox = crew.team.messages("bob").unwrap();
    assert_eq!(inbox[1].text, r#"{"type":"shutdown_request","reason":"done"}"#);
    assert!(inbox[1].is_shutdown_request());

    // Another team's address, the lead itself and strangers are refused.
    let (is_error, text) = send(&crew.lead, json!({"to": "bob@other", "summary": "s", "message": "m"})).await;
    assert!(is_error && text.contains("without '@'"), "{text}");
    let (is_error, text) = send(&crew.lead, json!({"to": "team-lead", "summary": "s", "message": "m"})).await;
    assert!(is_error && text.contains("cannot send a message to itself"), "{text}");
    let (is_error, text) = send(&crew.lead, json!({"to": "carol", "summary": "s", "message": "m"})).await;
    assert!(
        is_error
            && text.contains("No agent 'carol' in this session")
            && text.contains("Team 'crew' has: team-lead, bob."),
        "{text}"
    );
    drop(crew.dir);
}

#[tokio::test]
async fn teammates_write_to_the_leads_mailbox_under_their_names() {
    let crew = crew();
    // An in-process teammate: a sub-agent whose id is a member's task.
    crew.team.add_member(member(&crew.team, "alice", Backend::InProcess, Some("aalice000"))).unwrap();
    let mut alice = crew.lead.clone();
    alice.agent_id = Some("aalice000".into());
    let (is_error, text) =
        send(&alice, json!({"to": "team-lead", "summary": "lexer done", "message": "The lexer is done."})).await;
    assert!(!is_error, "{text}");
    // A tmux teammate in its own process (no task registry at all).
    let process = ToolUseContext::new(crew.dir.path());
    state::install_teammate(&process, Teammate { team: crew.team.clone(), name: "bob".into() });
    let (is_error, text) =
        send(&process, json!({"to": "team-lead", "summary": "parser", "message": "Parser too."})).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(output["routing"]["sender"], "bob");
    let lead = crew.team.messages("team-lead").unwrap();
    let got: Vec<(&str, &str)> = lead.iter().map(|m| (m.from.as_str(), m.text.as_str())).collect();
    assert_eq!(got, [("alice", "The lexer is done."), ("bob", "Parser too.")]);
    // A teammate to another teammate's mailbox.
    let (is_error, _) = send(&process, json!({"to": "alice", "summary": "hi", "message": "hello"})).await;
    assert!(!is_error);
    assert_eq!(crew.team.messages("alice").unwrap()[0].from, "bob");
    let (is_error, text) = send(&process, json!({"to": "bob", "summary": "s", "message": "me"})).await;
    assert!(is_error && text.contains("itself"), "{text}");
}

#[tokio::test]
async fn agent_tasks_come_first_and_broadcasts_reach_mailboxes_too() {
    let crew = crew();
    let registry = TaskRegistry::for_context(&crew.lead);
    let alice =
        registry.register_agent(AgentTaskSpec { name: Some("alice".into()), ..AgentTaskSpec::default() }).unwrap();
    crew.team.add_member(member(&crew.team, "alice", Backend::InProcess, Some(&alice.id))).unwrap();
    let (is_error, text) = send(&crew.lead, json!({"to": "alice", "summary": "s", "message": "queued"})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("\"delivery\":\"queued\""), "{text}");
    assert_eq!(
        alice.inbox.drain()[0].text,
        "<agent-message from=\"team-lead\" summary=\"s\">\nqueued\n</agent-message>"
    );
    assert!(crew.team.messages("alice").unwrap().is_empty(), "not in the mailbox");

    let (is_error, text) = send(&crew.lead, json!({"to": "*", "summary": "all", "message": "wrap up"})).await;
    assert!(!is_error, "{text}");
    let output: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        output["message"],
        format!("Message queued for 1 running agents: {}; sent to the inboxes of bob", alice.id)
    );
    assert_eq!(alice.inbox.len(), 1);
    assert_eq!(crew.team.messages("bob").unwrap()[0].text, "wrap up");
    registry.shutdown();
}
