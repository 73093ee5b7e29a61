//! The task list on real folders: ids, the high-water mark, concurrent creators, links,
//! deletion, corrupt files, and finding the list from a context.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Threads are all spawned (collected) before any is joined; a cloned context is what is tested.
#![allow(clippy::needless_collect, clippy::redundant_clone)]

use std::collections::HashSet;
use std::fs;
use std::sync::Arc;

use agent_tools_core::ToolUseContext;
use agent_tools_tasklist::{
    HIGH_WATER_MARK_FILE, NewTask, TaskListError, TaskStatus, TaskStore, list_id, store_for, tasks_root,
};

fn new(subject: &str) -> NewTask {
    NewTask { subject: subject.into(), description: format!("{subject} in detail"), ..NewTask::default() }
}

fn ids(store: &TaskStore) -> Vec<String> {
    store.list().unwrap().tasks.into_iter().map(|task| task.id).collect()
}

#[test]
fn tasks_are_json_files_with_claude_codes_record() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "list-a");
    let task = store.create(NewTask { active_form: Some("Planning".into()), ..new("Plan") }).unwrap();
    assert_eq!((task.id.as_str(), task.status), ("1", TaskStatus::Pending));
    let text = fs::read_to_string(root.path().join("list-a/1.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"id": "1", "subject": "Plan", "description": "Plan in detail", "activeForm": "Planning",
                           "status": "pending", "blocks": [], "blockedBy": []})
    );
    assert_eq!(store.get("1").unwrap(), Some(task));
    assert_eq!(store.get("2").unwrap(), None);
    assert_eq!(store.get("../list-a/1").unwrap(), None, "an id is never turned into another path");
    assert_eq!(fs::read_to_string(root.path().join("list-a").join(HIGH_WATER_MARK_FILE)).unwrap(), "1");
}

#[test]
fn ids_increase_and_are_never_reused_after_a_delete() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    for subject in ["a", "b", "c"] {
        store.create(new(subject)).unwrap();
    }
    assert_eq!(ids(&store), ["1", "2", "3"]);
    assert!(store.transaction(|tx| tx.delete("3")).unwrap());
    assert!(!store.transaction(|tx| tx.delete("3")).unwrap(), "a second delete finds nothing");
    assert_eq!(store.create(new("d")).unwrap().id, "4");
    // Even a task file removed behind the store's back leaves its id used.
    fs::remove_file(store.dir().join("4.json")).unwrap();
    assert_eq!(store.create(new("e")).unwrap().id, "5");
    assert_eq!(ids(&store), ["1", "2", "5"]);
}

#[test]
fn eight_threads_creating_at_once_get_distinct_ids() {
    let root = tempfile::tempdir().unwrap();
    let store = Arc::new(TaskStore::new(root.path(), "busy"));
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                (0..12).map(|n| store.create(new(&format!("t{thread}-{n}"))).unwrap().id).collect::<Vec<_>>()
            })
        })
        .collect();
    let all: Vec<String> = threads.into_iter().flat_map(|handle| handle.join().unwrap()).collect();
    let distinct: HashSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), 96, "every create got its own id");
    let mut numbers: Vec<u64> = all.iter().map(|id| id.parse().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=96).collect::<Vec<_>>());
    assert_eq!(store.list().unwrap().tasks.len(), 96);
}

#[test]
fn two_stores_on_one_folder_share_the_lock() {
    // Separate `TaskStore`s (as separate processes would have) open the lock file separately.
    let root = tempfile::tempdir().unwrap();
    let path = root.path().to_path_buf();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = TaskStore::new(path, "shared");
                (0..10).map(|_| store.create(new("x")).unwrap().id).collect::<Vec<_>>()
            })
        })
        .collect();
    let all: HashSet<String> = threads.into_iter().flat_map(|handle| handle.join().unwrap()).collect();
    assert_eq!(all.len(), 40);
}

#[test]
fn links_are_recorded_on_both_sides_and_removed_with_a_deleted_task() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    for subject in ["build", "test", "ship"] {
        store.create(new(subject)).unwrap();
    }
    store
        .transaction(|tx| {
            tx.link("1", "2")?;
            tx.link("1", "2")?; // not repeated
            tx.link("2", "3")
        })
        .unwrap();
    let two = store.get("2").unwrap().unwrap();
    assert_eq!((two.blocks, two.blocked_by), (vec!["3".to_owned()], vec!["1".to_owned()]));
    assert_eq!(store.get("1").unwrap().unwrap().blocks, ["2"]);

    let missing = store.transaction(|tx| tx.link("1", "9")).unwrap_err();
    assert!(matches!(missing, TaskListError::NotFound { ref id } if id == "9"));
    assert_eq!(missing.to_string(), "Task #9 not found");
    assert_eq!(store.get("1").unwrap().unwrap().blocks, ["2"], "a failed link changes nothing");

    store.transaction(|tx| tx.delete("2")).unwrap();
    assert!(store.get("1").unwrap().unwrap().blocks.is_empty());
    assert!(store.get("3").unwrap().unwrap().blocked_by.is_empty());
}

#[test]
fn a_corrupt_file_is_reported_never_a_panic() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    store.create(new("good")).unwrap();
    fs::write(store.dir().join("2.json"), "{\"id\": \"2\", \"subject\": ").unwrap();
    fs::write(store.dir().join("3.json"), r#"{"id":"3","subject":"s","description":"d","status":"done"}"#).unwrap();
    fs::write(store.dir().join("4.json"), [0xff, 0xfe, 0x00]).unwrap();
    fs::write(store.dir().join("notes.txt"), "not a task").unwrap();
    fs::create_dir(store.dir().join("5.json")).unwrap();

    let error = store.get("2").unwrap_err();
    assert!(matches!(error, TaskListError::Corrupt { .. }));
    assert!(error.to_string().contains("2.json is not a valid task: EOF while parsing"), "{error}");
    assert!(store.get("3").unwrap_err().to_string().contains("unknown variant `done`"));

    let listing = store.list().unwrap();
    assert_eq!(listing.tasks.len(), 1);
    assert_eq!(listing.skipped.len(), 4, "{:?}", listing.skipped);
    // Corrupt files still hold their ids.
    assert_eq!(store.create(new("next")).unwrap().id, "6");
}

#[test]
fn hand_written_files_read_leniently_and_the_file_name_is_the_id() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    fs::create_dir_all(store.dir()).unwrap();
    fs::write(
        store.dir().join("7.json"),
        r#"{"id":"99","subject":"s","description":"d","status":"completed","extra":1}"#,
    )
    .unwrap();
    let task = store.get("7").unwrap().unwrap();
    assert_eq!((task.id.as_str(), task.blocks.len()), ("7", 0));
    assert_eq!(store.create(new("next")).unwrap().id, "8");
}

#[test]
fn the_context_names_the_folder_and_the_list() {
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.options.session_id = "sess/../1".into();
    assert_eq!(list_id(&ctx), "sess/../1");

    // No folder at all: a private temporary folder, the same for every clone of the context.
    let temp = tasks_root(&ctx).unwrap();
    assert!(temp.is_dir());
    assert_eq!(tasks_root(&ctx.clone()).unwrap(), temp);
    assert_eq!(store_for(&ctx).unwrap().dir(), temp.join("sess----1"));

    let session = tempfile::tempdir().unwrap();
    ctx.options.session_dir = Some(session.path().to_path_buf());
    assert_eq!(store_for(&ctx).unwrap().dir(), session.path().join("task-lists/sess----1"));

    let tasks = tempfile::tempdir().unwrap();
    ctx.options.tasks_dir = Some(tasks.path().to_path_buf());
    ctx.options.task_list_id = Some("team-list".into());
    assert_eq!(store_for(&ctx).unwrap().dir(), tasks.path().join("team-list"));
    ctx.options.task_list_id = Some("  ".into());
    assert_eq!(list_id(&ctx), "sess/../1", "a blank list id falls back to the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_work_runs_off_the_runtime() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    let created = agent_tools_tasklist::run_blocking(move || store.create(new("a"))).await.unwrap();
    assert_eq!(created.id, "1");
}

#[test]
fn blocking_work_runs_in_place_without_a_runtime() {
    let root = tempfile::tempdir().unwrap();
    let store = TaskStore::new(root.path(), "s");
    let work = agent_tools_tasklist::run_blocking(move || store.create(new("a")));
    // A minimal executor: the future completes on its first poll when there is no runtime.
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    let mut work = std::pin::pin!(work);
    match work.as_mut().poll(&mut context) {
        std::task::Poll::Ready(created) => assert_eq!(created.unwrap().id, "1"),
        std::task::Poll::Pending => panic!("should finish at once"),
    }
}
