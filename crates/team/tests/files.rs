//! The team's files on real folders: layout, atomic writes, the mailbox lock, the sanitiser at
//! every door, unread messages, members, and the mailbox watcher.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use agent_tools_core::NotificationQueue;
use agent_tools_team::{Backend, MailboxWatch, Member, Message, Team, TeamError, notification_key};
use agent_tools_testkit::procs::eventually_blocking as wait_until;
use serde_json::{Value, json};

fn member(team: &Team, name: &str) -> Member {
    Member {
        agent_id: team.agent_id(name),
        name: name.to_owned(),
        agent_type: "general-purpose".into(),
        backend: Backend::InProcess,
        task_id: Some(format!("a{name}")),
        tmux_pane: None,
        cwd: "/work".into(),
    }
}

#[test]
fn a_team_is_made_in_claude_codes_layout() {
    let dir = tempfile::tempdir().unwrap();
    let teams = dir.path().join("teams");
    let (team, _) = Team::create(&teams, "Alpha Squad", Some(" parser work "), Some("lead-type")).unwrap();
    assert_eq!(team.dir(), teams.join("alpha-squad"));
    assert!(teams.join("alpha-squad/inboxes").is_dir());
    let config: Value = serde_json::from_str(&std::fs::read_to_string(team.config_path()).unwrap()).unwrap();
    assert_eq!(config["name"], "alpha-squad");
    assert_eq!(config["description"], "parser work");
    assert_eq!(config["lead_agent_id"], "team-lead@alpha-squad");
    assert_eq!(config["lead_agent_type"], "lead-type");
    assert_eq!(config["members"], json!([]));
    assert!(config["created_at_ms"].as_u64().unwrap() > 1_600_000_000_000);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(team.dir()).unwrap().permissions().mode() & 0o777, 0o700);
    }

    let file = team.add_member(member(&team, "alice")).unwrap();
    assert_eq!(file.members.len(), 1);
    let config: Value = serde_json::from_str(&std::fs::read_to_string(team.config_path()).unwrap()).unwrap();
    assert_eq!(
        config["members"][0],
        json!({"agent_id": "alice@alpha-squad", "name": "alice", "agent_type": "general-purpose",
               "backend": "in-process", "task_id": "aalice", "cwd": "/work"})
    );
    // Only the temporary file's rename wrote it: no leftovers.
    let names: Vec<String> = std::fs::read_dir(team.dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|name| name.starts_with(".tmp-")), "{names:?}");
}

#[test]
fn a_taken_name_fails_create_and_gets_a_slug_from_create_unique() {
    let dir = tempfile::tempdir().unwrap();
    Team::create(dir.path(), "alpha", None, None).unwrap();
    assert!(matches!(Team::create(dir.path(), "Alpha", None, None), Err(TeamError::Exists(name)) if name == "alpha"));
    let (other, file) = Team::create_unique(dir.path(), "alpha", None, None).unwrap();
    assert_ne!(other.name(), "alpha");
    assert_eq!(file.name, other.name());
    assert_eq!(other.name().split('-').count(), 3, "{}", other.name());
    assert_eq!(Team::open(dir.path(), other.name()).unwrap(), other);
}

#[test]
fn names_that_would_leave_the_teams_folder_are_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let teams = dir.path().join("teams");
    for bad in ["../x", "..", "a/b", "/etc", "x\\..\\y", ""] {
        assert!(matches!(Team::create(&teams, bad, None, None), Err(TeamError::InvalidName { .. })), "{bad:?}");
        assert!(matches!(Team::open(&teams, bad), Err(TeamError::InvalidName { .. })), "{bad:?}");
    }
    assert!(!dir.path().join("x").exists() && !teams.exists(), "nothing was made");
    let (team, _) = Team::create(&teams, "t", None, None).unwrap();
    for bad in ["../../x", "a/b", "Alice", "team lead"] {
        assert!(team.inbox_path(bad).is_err(), "{bad:?}");
        assert!(team.append_message(bad, Message::new("x", "hi", None)).is_err(), "{bad:?}");
        assert!(team.take_unread(bad).is_err(), "{bad:?}");
    }
    let mut lead = member(&team, "team-lead");
    lead.agent_id = "team-lead@t".into();
    assert!(matches!(team.add_member(lead), Err(TeamError::InvalidName { .. })));
    assert!(matches!(team.add_member(member(&team, "Bob")), Err(TeamError::InvalidName { .. })));
    assert!(matches!(Team::open(&teams, "nope"), Err(TeamError::NotFound(_))));
}

#[test]
fn take_unread_returns_each_message_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    assert!(team.take_unread("alice").unwrap().is_empty(), "no mailbox yet");
    team.append_message("alice", Message::new("team-lead", "one", Some("first".into()))).unwrap();
    team.append_message("alice", Message::new("bob", "two", None)).unwrap();
    let first = team.take_unread("alice").unwrap();
    assert_eq!(
        first.iter().map(|m| (m.from.as_str(), m.text.as_str())).collect::<Vec<_>>(),
        [("team-lead", "one"), ("bob", "two")]
    );
    assert!(first.iter().all(|message| !message.read), "returned as they were");
    team.append_message("alice", Message::new("bob", "three", None)).unwrap();
    let second = team.take_unread("alice").unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].text, "three");
    let all = team.messages("alice").unwrap();
    assert_eq!(all.len(), 3);
    assert!(all.iter().all(|message| message.read));
    let raw: Value =
        serde_json::from_str(&std::fs::read_to_string(team.inbox_path("alice").unwrap()).unwrap()).unwrap();
    assert_eq!(raw[0]["from"], "team-lead");
    assert_eq!(raw[0]["summary"], "first");
    assert_eq!(raw[0]["read"], true);
    assert!(raw[1].get("summary").is_none());
}

#[test]
fn concurrent_appends_lose_nothing_and_readers_never_see_half_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    let path = team.inbox_path("lead").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(Ordering::SeqCst) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    let parsed: Result<Vec<Message>, _> = serde_json::from_str(&text);
                    assert!(parsed.is_ok(), "a reader saw a partial mailbox: {text:?}");
                    reads += 1;
                }
            }
            reads
        })
    };
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let team = team.clone();
            std::thread::spawn(move || {
                for n in 0..25 {
                    team.append_message("lead", Message::new(format!("w{writer}"), format!("{n}"), None)).unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    assert!(reader.join().unwrap() > 0);
    let messages = team.messages("lead").unwrap();
    assert_eq!(messages.len(), 100);
    for writer in 0..4 {
        let from = format!("w{writer}");
        let texts: Vec<&str> = messages.iter().filter(|m| m.from == from).map(|m| m.text.as_str()).collect();
        let expected: Vec<String> = (0..25).map(|n| n.to_string()).collect();
        assert_eq!(texts, expected, "{from}'s messages in order");
    }
}

#[test]
fn an_append_waits_for_the_mailbox_lock() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    let lock_path = dir.path().join("t/inboxes/alice.json.lock");
    let holder = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).unwrap();
    holder.lock().unwrap();
    let started = Instant::now();
    let appender = {
        let team = team.clone();
        std::thread::spawn(move || team.append_message("alice", Message::new("bob", "hi", None)))
    };
    // tidy:allow-sleep the lock is held this long on purpose; the append must wait it out.
    std::thread::sleep(Duration::from_millis(300));
    assert!(team.messages("alice").unwrap().is_empty(), "nothing written while the lock is held");
    holder.unlock().unwrap();
    appender.join().unwrap().unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(team.messages("alice").unwrap().len(), 1);
}

#[test]
fn a_broken_mailbox_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    std::fs::write(team.inbox_path("alice").unwrap(), "{not json").unwrap();
    let error = team.take_unread("alice").unwrap_err().to_string();
    assert!(error.contains("alice.json is not a valid team file"), "{error}");
    assert!(team.append_message("alice", Message::new("x", "y", None)).is_err());
}

#[test]
fn members_are_added_updated_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    team.add_member(member(&team, "alice")).unwrap();
    team.add_member(member(&team, "bob")).unwrap();
    assert!(matches!(team.add_member(member(&team, "bob")), Err(TeamError::MemberExists(name)) if name == "bob"));
    let updated = team.update_member("bob", |bob| bob.tmux_pane = Some("%3".into())).unwrap().unwrap();
    assert_eq!(updated.member("bob").unwrap().tmux_pane.as_deref(), Some("%3"));
    assert!(team.update_member("carol", |_| {}).unwrap().is_none());
    assert_eq!(team.remove_member("alice").unwrap().unwrap().name, "alice");
    assert!(team.remove_member("alice").unwrap().is_none());
    assert_eq!(team.load().unwrap().members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["bob"]);
    team.delete().unwrap();
    assert!(!team.dir().exists());
    assert!(matches!(team.load(), Err(TeamError::NotFound(_))));
    assert!(matches!(team.append_message("bob", Message::new("x", "y", None)), Err(TeamError::NotFound(_))));
    team.delete().unwrap();
}

#[test]
fn structured_messages_are_recognised() {
    let shutdown = Message::new("team-lead", r#"{"type":"shutdown_request","reason":"done"}"#, None);
    assert!(shutdown.is_shutdown_request());
    assert_eq!(shutdown.structured_type().as_deref(), Some("shutdown_request"));
    assert!(!Message::new("team-lead", "shutdown_request", None).is_shutdown_request());
    let tricky = Message::new("a\"b<", "x", Some("s\"<".into()));
    assert_eq!(
        tricky.render(),
        "<teammate-message teammate_id=\"a&quot;b&lt;\" summary=\"s&quot;&lt;\">\nx\n</teammate-message>"
    );
}

#[test]
fn a_watcher_queues_messages_notes_shutdowns_and_stops_when_the_team_goes() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    let queue = NotificationQueue::default();
    let watch = MailboxWatch::start(team.clone(), "team-lead", queue.clone(), Duration::from_millis(50)).unwrap();
    team.append_message("team-lead", Message::new("alice", "report", Some("done".into()))).unwrap();
    assert!(wait_until(Duration::from_secs(5), || !queue.is_empty()));
    let queued = queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].key, notification_key("t"));
    assert_eq!(
        queued[0].text,
        "<teammate-message teammate_id=\"alice\" summary=\"done\">\nreport\n</teammate-message>"
    );
    assert!(team.messages("team-lead").unwrap()[0].read);

    team.append_message("team-lead", Message::new("bob", r#"{"type":"shutdown_request"}"#, None)).unwrap();
    assert!(wait_until(Duration::from_secs(5), || watch.shutdown_requested()));
    assert!(queue.is_empty(), "a shutdown request is a flag, not a notification");

    team.delete().unwrap();
    assert!(wait_until(Duration::from_secs(5), || watch.team_gone() && watch.is_stopped()));
}

#[test]
fn dropping_a_watcher_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let (team, _) = Team::create(dir.path(), "t", None, None).unwrap();
    let queue = NotificationQueue::default();
    let watch = MailboxWatch::start(team.clone(), "team-lead", queue.clone(), Duration::from_millis(50)).unwrap();
    watch.stop();
    assert!(wait_until(Duration::from_secs(5), || watch.is_stopped()));
    drop(watch);
    team.append_message("team-lead", Message::new("alice", "late", None)).unwrap();
    // tidy:allow-sleep six watcher intervals in which nothing may take the message.
    std::thread::sleep(Duration::from_millis(300));
    assert!(queue.is_empty());
    assert!(!team.messages("team-lead").unwrap()[0].read, "nobody took it");
}
