//! One task list changed by several processes at once (sessions and teammates sharing a list):
//! copies of this test binary each create tasks and link every one to task 1 (a
//! read-modify-write of task 1's file) under the list's lock. No id is given twice, no link is
//! lost, and a reader that takes no lock never meets a half-written file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::path::Path;
use std::process::Child;

use agent_tools_tasklist::{NewTask, TaskStore};

const CHILD_ROOT: &str = "AGENT_TOOLS_TASKLIST_TEST_ROOT";
const CHILD_NAME: &str = "AGENT_TOOLS_TASKLIST_TEST_NAME";
const LIST: &str = "shared";
const PROCESSES: usize = 4;
const ROUNDS: usize = 10;

fn new(subject: &str) -> NewTask {
    NewTask { subject: subject.to_owned(), description: String::new(), active_form: None, owner: None, metadata: None }
}

/// One writer: waits for `go` on stdin, then `ROUNDS` times creates a task and links it to
/// task 1 (it blocks task 1), in one transaction.
#[test]
#[ignore = "a child of processes_creating_and_linking_at_once_lose_nothing"]
fn task_writer_child() {
    let (Ok(root), Ok(name)) = (std::env::var(CHILD_ROOT), std::env::var(CHILD_NAME)) else { return };
    agent_tools_testkit::procs::await_release();
    let store = TaskStore::new(root, LIST);
    for round in 0..ROUNDS {
        store
            .transaction(|tx| {
                let task = tx.create(new(&format!("{name} {round}")))?;
                tx.link(&task.id, "1")
            })
            .unwrap();
    }
}

fn spawn_writer(root: &Path, name: &str) -> Child {
    agent_tools_testkit::procs::test_role("task_writer_child")
        .env(CHILD_ROOT, root)
        .env(CHILD_NAME, name)
        .spawn()
        .unwrap()
}

#[test]
fn processes_creating_and_linking_at_once_lose_nothing() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), LIST);
    assert_eq!(store.create(new("the one they all block")).unwrap().id, "1");
    let mut children: Vec<Child> =
        (0..PROCESSES).map(|index| spawn_writer(root.path(), &format!("w{index}"))).collect();
    // All wait for the word, so they start together.
    agent_tools_testkit::procs::release(&mut children);
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        // No lock here: a reader sees whole files only.
        let target = store.get("1").unwrap().expect("task 1 is always there");
        assert!(target.blocked_by.len() <= PROCESSES * ROUNDS);
        let listing = store.list().unwrap();
        assert!(listing.skipped.is_empty(), "a reader met a broken file: {:?}", listing.skipped);
    }
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer failed");
    }

    let listing = store.list().unwrap();
    assert!(listing.skipped.is_empty());
    let ids: Vec<String> = listing.tasks.iter().map(|task| task.id.clone()).collect();
    let expected: Vec<String> = (1..=1 + PROCESSES * ROUNDS).map(|id| id.to_string()).collect();
    assert_eq!(ids, expected, "every create got its own id");
    let subjects: HashSet<&str> = listing.tasks.iter().skip(1).map(|task| task.subject.as_str()).collect();
    let wanted: Vec<String> =
        (0..PROCESSES).flat_map(|writer| (0..ROUNDS).map(move |round| format!("w{writer} {round}"))).collect();
    assert_eq!(subjects, wanted.iter().map(String::as_str).collect(), "every writer's every task");
    // Task 1's file was rewritten by every link: none of them lost.
    let mut blocked_by: Vec<String> = store.get("1").unwrap().unwrap().blocked_by;
    blocked_by.sort_by_key(|id| id.parse::<u64>().unwrap());
    assert_eq!(blocked_by, expected[1..], "every link to task 1 kept");
    for task in &listing.tasks[1..] {
        assert_eq!(task.blocks, ["1"], "task {}", task.id);
    }
}
