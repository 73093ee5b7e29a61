//! A project's `.claude/scheduled_tasks.json` changed by several sessions at once: copies of
//! this test binary each add jobs (a read-modify-write of the one file, under the lock on the
//! `.claude` folder). Every job of every process is kept, and a reader that takes no lock never
//! meets a half-written file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::path::Path;
use std::process::Child;

use agent_tools_cron::{CronJob, DurableStore};

const CHILD_PROJECT: &str = "AGENT_TOOLS_CRON_TEST_PROJECT";
const CHILD_NAME: &str = "AGENT_TOOLS_CRON_TEST_NAME";
const PROCESSES: usize = 4;
const ROUNDS: usize = 10;

fn job(id: &str) -> CronJob {
    CronJob {
        id: id.to_owned(),
        cron: "0 9 * * *".to_owned(),
        prompt: format!("job {id}"),
        created_at: 1_796_346_000_000,
        last_fired_at: None,
        recurring: true,
        max_age_ms: None,
        agent_id: None,
        durable: true,
        extra: serde_json::Map::new(),
    }
}

/// One session: waits for `go` on stdin, then adds `ROUNDS` jobs one change at a time.
#[test]
#[ignore = "a child of sessions_adding_jobs_at_once_lose_none"]
fn job_writer_child() {
    let (Ok(project), Ok(name)) = (std::env::var(CHILD_PROJECT), std::env::var(CHILD_NAME)) else { return };
    agent_tools_testkit::procs::await_release();
    let store = DurableStore::new(Path::new(&project));
    for round in 0..ROUNDS {
        store
            .update(|jobs| {
                jobs.push(job(&format!("{name}-{round}")));
                (true, ())
            })
            .unwrap();
    }
}

fn spawn_writer(project: &Path, name: &str) -> Child {
    agent_tools_testkit::procs::test_role("job_writer_child")
        .env(CHILD_PROJECT, project)
        .env(CHILD_NAME, name)
        .spawn()
        .unwrap()
}

#[test]
fn sessions_adding_jobs_at_once_lose_none() {
    // No `.claude` folder yet: the first writers also race to make it.
    let project = tempfile::tempdir().unwrap();
    let store = DurableStore::new(project.path());
    let mut children: Vec<Child> =
        (0..PROCESSES).map(|index| spawn_writer(project.path(), &format!("w{index}"))).collect();
    agent_tools_testkit::procs::release(&mut children);
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        // No lock here: the file is whole or absent.
        let jobs = store.load().unwrap();
        assert!(jobs.len() <= PROCESSES * ROUNDS);
    }
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer failed");
    }
    let ids: Vec<String> = store.load().unwrap().into_iter().map(|job| job.id).collect();
    assert_eq!(ids.len(), PROCESSES * ROUNDS, "{ids:?}");
    let expected: HashSet<String> =
        (0..PROCESSES).flat_map(|writer| (0..ROUNDS).map(move |round| format!("w{writer}-{round}"))).collect();
    assert_eq!(ids.into_iter().collect::<HashSet<_>>(), expected, "every session's every job");
    // The lock is on the folder: nothing but the file is left in the project.
    let names: Vec<String> = std::fs::read_dir(project.path().join(".claude"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["scheduled_tasks.json"]);
}
