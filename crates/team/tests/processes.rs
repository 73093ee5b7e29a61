//! A team's files changed by several processes at once (the lead and its tmux teammates): copies
//! of this test binary each join the team (a read-modify-write of `config.json`), change their
//! own entry, and post messages to the lead's mailbox (a read-modify-write of one JSON array),
//! each under its file's lock. Nothing is lost, and a reader that takes no lock never meets a
//! half-written file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Child;

use agent_tools_team::{Backend, Member, Message, Team};

const CHILD_TEAMS: &str = "AGENT_TOOLS_TEAM_TEST_TEAMS";
const CHILD_NAME: &str = "AGENT_TOOLS_TEAM_TEST_NAME";
const TEAM: &str = "crowd";
const PROCESSES: usize = 4;
const ROUNDS: usize = 10;

fn member(team: &Team, name: &str) -> Member {
    Member {
        agent_id: team.agent_id(name),
        name: name.to_owned(),
        agent_type: "general-purpose".into(),
        backend: Backend::Tmux,
        task_id: None,
        tmux_pane: None,
        cwd: "/work".into(),
    }
}

/// One teammate: waits for `go` on stdin, joins, posts `ROUNDS` messages to the lead and
/// records its pane half way through.
#[test]
#[ignore = "a child of teammates_writing_at_once_lose_nothing"]
fn teammate_child() {
    let (Ok(teams), Ok(name)) = (std::env::var(CHILD_TEAMS), std::env::var(CHILD_NAME)) else { return };
    agent_tools_testkit::procs::await_release();
    let team = Team::open(Path::new(&teams), TEAM).unwrap();
    team.add_member(member(&team, &name)).unwrap();
    for round in 0..ROUNDS {
        team.append_message("lead", Message::new(name.as_str(), round.to_string(), None)).unwrap();
        if round == ROUNDS / 2 {
            let pane = format!("%{name}");
            assert!(team.update_member(&name, |entry| entry.tmux_pane = Some(pane)).unwrap().is_some());
        }
    }
}

#[test]
fn teammates_writing_at_once_lose_nothing() {
    let teams = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(teams.path(), TEAM, None, None).unwrap();
    let mut children: Vec<Child> = (0..PROCESSES)
        .map(|index| {
            agent_tools_testkit::procs::test_role("teammate_child")
                .env(CHILD_TEAMS, teams.path())
                .env(CHILD_NAME, format!("w{index}"))
                .spawn()
                .unwrap()
        })
        .collect();
    agent_tools_testkit::procs::release(&mut children);
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        // No lock here: the config and the mailbox are whole (a broken one is an error).
        assert!(team.load().unwrap().members.len() <= PROCESSES);
        assert!(team.messages("lead").unwrap().len() <= PROCESSES * ROUNDS);
    }
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a teammate failed");
    }

    let config = team.load().unwrap();
    let mut members: Vec<(String, Option<String>)> =
        config.members.iter().map(|entry| (entry.name.clone(), entry.tmux_pane.clone())).collect();
    members.sort();
    let expected: Vec<(String, Option<String>)> =
        (0..PROCESSES).map(|index| (format!("w{index}"), Some(format!("%w{index}")))).collect();
    assert_eq!(members, expected, "every join and every change of the config kept");
    let messages = team.messages("lead").unwrap();
    assert_eq!(messages.len(), PROCESSES * ROUNDS);
    for index in 0..PROCESSES {
        let from = format!("w{index}");
        let texts: Vec<&str> = messages.iter().filter(|m| m.from == from).map(|m| m.text.as_str()).collect();
        let expected: Vec<String> = (0..ROUNDS).map(|round| round.to_string()).collect();
        assert_eq!(texts, expected, "{from}'s messages, in order");
    }
}
