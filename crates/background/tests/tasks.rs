//! Background tasks on real processes: the pseudo-terminal, statuses and exit codes, output
//! files, notifications, and stopping whole process trees — 50 tasks at once, and by dropping
//! the registry. Every wait is a poll with a deadline; no test asserts how fast anything is.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_tools_background::{
    LineListener, OnLine, ShellTaskSpec, StopError, TaskRegistry, TaskSnapshot, TaskStatus, TasksConfig, WaitOutcome,
};
use agent_tools_core::CancellationToken;
use agent_tools_core::{NotificationQueue, ToolUseContext};
use agent_tools_testkit::procs::{Reaper, unique_token};
use agent_tools_testkit::{alive, carrying, eventually};

const BASH: &str = "/bin/bash";

fn registry(dir: &Path) -> (TaskRegistry, NotificationQueue) {
    let notifications = NotificationQueue::default();
    let config = TasksConfig {
        output_dir: Some(dir.join("tasks")),
        notifications: notifications.clone(),
        ..TasksConfig::default()
    };
    (TaskRegistry::new(config), notifications)
}

fn spec(command: &str, cwd: &Path) -> ShellTaskSpec {
    ShellTaskSpec::new(BASH, command, cwd)
}

/// A task that must not outlive a stop: a main `sleep`, a child that ignores SIGTERM (and the
/// terminal's SIGHUP, so only SIGKILL ends it), and a grandchild started with `&` inside another
/// shell. Five processes, each carrying the token.
fn stubborn_tree(token: &str) -> String {
    format!(
        "(trap '' TERM HUP; exec sleep 3001.{token}) & sh -c 'sleep 3002.{token} & wait' & sleep 3003.{token}; wait"
    )
}

async fn finished(tasks: &TaskRegistry, id: &str) -> TaskSnapshot {
    match tasks.wait(id, Duration::from_secs(20), &CancellationToken::new()).await {
        WaitOutcome::Finished(snapshot) => snapshot,
        other => panic!("task {id} did not finish: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_stopped_trees_leave_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let mut ids = Vec::new();
    for i in 0..50 {
        let mut spec = spec(&stubborn_tree(&token), dir.path());
        spec.description = format!("tree {i}");
        let task = tasks.spawn_shell(spec).unwrap();
        assert_eq!(task.status, TaskStatus::Running);
        ids.push(task.id);
    }
    // Every tree is fully up: 50 × (bash, sleep, sh, sleep, sleep).
    assert!(eventually(Duration::from_secs(60), || carrying(&token).len() >= 250).await, "{}", carrying(&token).len());
    let before = carrying(&token);
    assert_eq!(before.len(), 250);

    let mut stops = tokio::task::JoinSet::new();
    for id in &ids {
        let tasks = tasks.clone();
        let id = id.clone();
        stops.spawn(async move { tasks.stop(&id).await });
    }
    while let Some(stopped) = stops.join_next().await {
        let snapshot = stopped.unwrap().unwrap();
        assert_eq!(snapshot.status, TaskStatus::Killed);
        assert!(snapshot.ended_at_ms.is_some());
    }
    // `stop` returns once the tree is gone: nothing is left, not even the SIGTERM-ignoring child.
    assert_eq!(carrying(&token), Vec::<i32>::new());
    assert!(before.iter().all(|pid| !alive(*pid)));
    for id in &ids {
        assert_eq!(tasks.get(id).unwrap().status, TaskStatus::Killed);
        assert_eq!(tasks.stop(id).await, Err(StopError::NotRunning { id: id.clone(), status: TaskStatus::Killed }));
    }
    // Stopped tasks do not notify: the model stopped them.
    assert!(eventually(Duration::from_secs(5), || tasks.list().iter().all(|t| t.exit_code.is_some())).await);
    assert!(notifications.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_registry_stops_every_task() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _notifications) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    for _ in 0..5 {
        tasks.spawn_shell(spec(&stubborn_tree(&token), dir.path())).unwrap();
    }
    // A finished task's leftover: a process that detached itself (double fork into a new session)
    // is not waited for and outlives its shell; only its marker finds it. The shell ends only once
    // the process is in its own session (a barrier, not a guess at timing).
    let leftover =
        format!("(setsid sh -c 'touch ready; exec sleep 3004.{token}' &); while [ ! -e ready ]; do sleep 0.01; done");
    let leftover = tasks.spawn_shell(spec(&leftover, dir.path())).unwrap();
    let copy = tasks.clone();
    assert_eq!(finished(&copy, &leftover.id).await.status, TaskStatus::Completed);
    assert!(eventually(Duration::from_secs(30), || carrying(&token).len() == 26).await, "{}", carrying(&token).len());
    let weak = tasks.downgrade();
    assert!(weak.upgrade().is_some());
    drop(copy);
    drop(tasks);
    assert_eq!(carrying(&token), Vec::<i32>::new());
    assert!(weak.upgrade().is_none(), "a weak handle does not keep the registry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_registry_is_shut_down_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let ctx = ToolUseContext::new(dir.path());
    let tasks = TaskRegistry::for_context(&ctx);
    let task = tasks.spawn_shell(spec(&stubborn_tree(&token), dir.path())).unwrap();
    assert_eq!(TaskRegistry::existing(&ctx).unwrap().get(&task.id).unwrap().id, task.id);
    // No session folder: output goes to a private temporary folder, removed with the registry.
    let folder = tasks.output_dir().to_path_buf();
    assert!(task.output_path.starts_with(&folder));
    let finished = tasks.spawn_shell(spec("true", dir.path())).unwrap();
    assert!(eventually(Duration::from_secs(30), || carrying(&token).len() >= 5).await);
    assert!(eventually(Duration::from_secs(30), || tasks.get(&finished.id).unwrap().status.is_finished()).await);
    let stopped = agent_tools_background::shutdown(&ctx);
    // Only the task that was still running is reported, now killed.
    assert_eq!(
        stopped.iter().map(|t| (t.id.as_str(), t.status)).collect::<Vec<_>>(),
        [(task.id.as_str(), TaskStatus::Killed)]
    );
    assert!(agent_tools_background::shutdown(&ctx).is_empty(), "a second shutdown stops nothing");
    assert_eq!(carrying(&token), Vec::<i32>::new());
    assert_eq!(tasks.get(&task.id).unwrap().status, TaskStatus::Killed);
    // After a shutdown nothing new starts.
    assert!(matches!(tasks.spawn_shell(spec("true", dir.path())), Err(agent_tools_background::SpawnError::ShutDown)));
    drop(tasks);
    drop(ctx);
    assert!(!folder.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_leaves_the_session_is_still_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let task = tasks.spawn_shell(spec(&format!("setsid sleep 3005.{token} & sleep 3006.{token}"), dir.path())).unwrap();
    assert!(eventually(Duration::from_secs(30), || carrying(&token).len() >= 3).await);
    tasks.stop(&task.id).await.unwrap();
    assert_eq!(carrying(&token), Vec::<i32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn children_started_with_an_ampersand_keep_the_task_running() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    // The command's own status (`false`: 1) is the task's, once its `&` child has finished too.
    let command = "(while [ ! -e go ]; do sleep 0.01; done; echo child-done) & echo started; false";
    let task = tasks.spawn_shell(spec(command, dir.path())).unwrap();
    let path = task.output_path.clone();
    let started =
        eventually(Duration::from_secs(20), || std::fs::read_to_string(&path).is_ok_and(|t| t == "started\n"));
    assert!(started.await);
    assert_eq!(tasks.get(&task.id).unwrap().status, TaskStatus::Running, "the child still runs");
    std::fs::write(dir.path().join("go"), "").unwrap();
    let done = finished(&tasks, &task.id).await;
    assert_eq!((done.status, done.exit_code), (TaskStatus::Failed, Some(1)));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "started\nchild-done\n");
    assert_eq!(notifications.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_see_a_terminal_and_their_output_streams_before_they_end() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    // Python buffers stdout when it is not a terminal; on a terminal each line is written at once.
    let command = format!(
        "if [ -t 1 ]; then echo stdout:tty; else echo stdout:notty; fi; \
         if [ -t 0 ]; then echo stdin:tty; else echo stdin:notty; fi; \
         python3 -c 'import time; print(\"streamed before the end\"); time.sleep(300)' 3007.{token}"
    );
    let task = tasks.spawn_shell(spec(&command, dir.path())).unwrap();
    let path = task.output_path.clone();
    let streamed = eventually(Duration::from_secs(30), || {
        std::fs::read_to_string(&path).is_ok_and(|text| text.contains("streamed before the end"))
    })
    .await;
    assert!(streamed, "output so far: {:?}", std::fs::read_to_string(&path));
    assert_eq!(tasks.get(&task.id).unwrap().status, TaskStatus::Running);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "stdout:tty\nstdin:notty\nstreamed before the end\n",
        "plain text with \\n line ends"
    );
    tasks.stop(&task.id).await.unwrap();
    assert_eq!(carrying(&token), Vec::<i32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_sequences_are_stripped_from_the_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let command =
        r"printf '\033[1;31mred\033[0m plain\r\n\033]0;title\00710%%\r100%%\n'; tput bold 2>/dev/null; echo end";
    let task = tasks.spawn_shell(spec(command, dir.path())).unwrap();
    let done = finished(&tasks, &task.id).await;
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(std::fs::read_to_string(&task.output_path).unwrap(), "red plain\n10%\n100%\nend\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_tasks_have_statuses_exit_codes_and_notifications() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let mut ok = spec("echo hello; echo to-err >&2", dir.path());
    ok.description = "say hello".into();
    ok.tool_use_id = Some("toolu_07".into());
    let ok = tasks.spawn_shell(ok).unwrap();
    assert!(ok.id.starts_with('b') && ok.id.len() == 9, "{}", ok.id);
    assert_eq!(ok.output_path, dir.path().join("tasks").join(format!("{}.output", ok.id)));
    let bad = tasks.spawn_shell(spec("echo partial; exit 3", dir.path())).unwrap();
    let signalled = tasks.spawn_shell(spec("kill -9 $$", dir.path())).unwrap();

    let done = finished(&tasks, &ok.id).await;
    assert_eq!((done.status, done.exit_code), (TaskStatus::Completed, Some(0)));
    assert!(done.ended_at_ms.unwrap() >= done.started_at_ms);
    assert_eq!(std::fs::read_to_string(&ok.output_path).unwrap(), "hello\nto-err\n");
    let failed = finished(&tasks, &bad.id).await;
    assert_eq!((failed.status, failed.exit_code), (TaskStatus::Failed, Some(3)));
    assert_eq!(finished(&tasks, &signalled.id).await.exit_code, Some(137));

    let queued = notifications.drain();
    let text = |id: &str| queued.iter().find(|n| n.key == id).map(|n| n.text.clone()).unwrap();
    assert_eq!(
        text(&ok.id),
        format!(
            "<task-notification>\n<task-id>{id}</task-id>\n<tool-use-id>toolu_07</tool-use-id>\n<output-file>{path}</output-file>\n<status>completed</status>\n<summary>Background command \"say hello\" completed (exit code 0)</summary>\n</task-notification>",
            id = ok.id,
            path = ok.output_path.display()
        )
    );
    assert!(text(&bad.id).contains(
        "<status>failed</status>\n<summary>Background command \"echo partial; exit 3\" failed with exit code 3</summary>"
    ));
    assert_eq!(queued.len(), 3);
    assert_eq!(
        tasks.stop(&ok.id).await,
        Err(StopError::NotRunning { id: ok.id.clone(), status: TaskStatus::Completed })
    );
    assert_eq!(tasks.stop("bnope0000").await, Err(StopError::NotFound("bnope0000".into())));
    assert_eq!(tasks.list().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_the_model_already_read_does_not_notify() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let task = tasks.spawn_shell(spec("true", dir.path())).unwrap();
    finished(&tasks, &task.id).await;
    assert!(eventually(Duration::from_secs(5), || notifications.len() == 1).await);
    tasks.mark_notified(&task.id);
    assert!(notifications.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_end_at_their_timeout_or_cancellation() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let task = tasks.spawn_shell(spec(&format!("sleep 3008.{token}"), dir.path())).unwrap();
    match tasks.wait(&task.id, Duration::from_millis(50), &CancellationToken::new()).await {
        WaitOutcome::TimedOut(snapshot) => assert_eq!(snapshot.status, TaskStatus::Running),
        other => panic!("{other:?}"),
    }
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(tasks.wait(&task.id, Duration::from_secs(60), &cancel).await, WaitOutcome::Cancelled);
    assert_eq!(tasks.wait("bnope0000", Duration::from_secs(1), &cancel).await, WaitOutcome::NotFound);
    // A stop wakes a waiter at once.
    let waiter = {
        let tasks = tasks.clone();
        let id = task.id.clone();
        tokio::spawn(async move { tasks.wait(&id, Duration::from_secs(600), &CancellationToken::new()).await })
    };
    tasks.stop(&task.id).await.unwrap();
    match waiter.await.unwrap() {
        WaitOutcome::Finished(snapshot) => assert_eq!(snapshot.status, TaskStatus::Killed),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_shell_or_folder_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let error = tasks.spawn_shell(ShellTaskSpec::new(dir.path().join("no-shell"), "true", dir.path())).unwrap_err();
    assert!(error.to_string().starts_with("cannot start "), "{error}");
    let error = tasks.spawn_shell(spec("true", &dir.path().join("missing"))).unwrap_err();
    assert!(error.to_string().contains("cannot start"), "{error}");
    assert!(tasks.list().is_empty());
    // No output file is left behind for a task that never started.
    let files: Vec<PathBuf> =
        std::fs::read_dir(dir.path().join("tasks")).unwrap().flatten().map(|entry| entry.path()).collect();
    assert!(files.is_empty(), "{files:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_with_its_own_arguments_runs_on_the_terminal_with_empty_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    // The arguments arrive untouched: no word splitting, no expansion.
    let args =
        vec!["-c".into(), "printf '%s|' \"$@\"; echo; cat; exit 4".into(), "prog".into(), "a b".into(), "$HOME".into()];
    let mut spec = ShellTaskSpec::with_args("/bin/sh", args, "the whole command", dir.path());
    spec.env = vec![("AGENT_TOOLS_TEST_VAR".into(), "set".into())];
    let task = tasks.spawn_shell(spec).unwrap();
    assert_eq!(task.command, "the whole command");
    let done = finished(&tasks, &task.id).await;
    assert_eq!((done.status, done.exit_code), (TaskStatus::Failed, Some(4)), "cat read an empty stdin");
    assert_eq!(std::fs::read_to_string(&task.output_path).unwrap(), "a b|$HOME|\n");
    assert!(eventually(Duration::from_secs(5), || notifications.len() == 1).await);
    assert!(notifications.drain()[0].text.contains("Background command \"the whole command\" failed with exit code 4"));

    let env = ShellTaskSpec {
        env: vec![("AGENT_TOOLS_TEST_VAR".into(), "set".into())],
        ..ShellTaskSpec::with_args("/usr/bin/env", Vec::new(), "env", dir.path())
    };
    let task = tasks.spawn_shell(env).unwrap();
    finished(&tasks, &task.id).await;
    let printed = std::fs::read_to_string(&task.output_path).unwrap();
    assert!(printed.lines().any(|line| line == "AGENT_TOOLS_TEST_VAR=set"), "{printed}");

    let missing = ShellTaskSpec::with_args(dir.path().join("no-program"), Vec::new(), "x", dir.path());
    let error = tasks.spawn_shell(missing).unwrap_err();
    assert!(error.to_string().starts_with("cannot start ") && error.to_string().ends_with("no such file"), "{error}");
}

/// Records the lines it is given, and queues them all (joined by `|`) when the output ends.
struct Joiner {
    lines: std::sync::Mutex<Vec<String>>,
    queue: NotificationQueue,
}

impl LineListener for Joiner {
    fn line(&self, line: &str) {
        self.lines.lock().unwrap().push(line.to_owned());
    }

    fn end(&self) {
        self.queue.push("lines", self.lines.lock().unwrap().join("|"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_read_clean_lines_and_end_before_the_task_notifies_in_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let joiner = Joiner { lines: std::sync::Mutex::default(), queue: notifications.clone() };
    let mut first = spec(r"printf 'one\r\n\033[31mtwo\033[0m\n\nthree'; exit 3", dir.path());
    first.on_line = Some(OnLine::new(joiner));
    first.completion_text = Some(|task| Some(format!("{} ended: {} {:?}", task.id, task.status, task.exit_code)));
    let task = tasks.spawn_shell(first).unwrap();
    assert_eq!(finished(&tasks, &task.id).await.exit_code, Some(3));
    assert!(eventually(Duration::from_secs(10), || notifications.len() == 2).await);
    let queued = notifications.drain();
    assert_eq!((queued[0].key.as_str(), queued[0].text.as_str()), ("lines", "one|two||three"));
    assert_eq!(
        (queued[1].key.as_str(), queued[1].text.clone()),
        (task.id.as_str(), format!("{} ended: failed Some(3)", task.id))
    );
    assert_eq!(std::fs::read_to_string(&task.output_path).unwrap(), "one\ntwo\n\nthree", "the file is written as ever");

    // A closure is a listener too; a task whose text is `None` queues nothing.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let mut second = spec("for i in 1 2 3; do echo line$i; done", dir.path());
    second.on_line = Some(OnLine::new(move |line: &str| sink.lock().unwrap().push(line.to_owned())));
    second.completion_text = Some(|_| None);
    let task = tasks.spawn_shell(second).unwrap();
    assert_eq!(finished(&tasks, &task.id).await.status, TaskStatus::Completed);
    assert!(eventually(Duration::from_secs(10), || seen.lock().unwrap().len() == 3).await);
    assert_eq!(*seen.lock().unwrap(), ["line1", "line2", "line3"]);
    assert!(notifications.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_tell_each_start_and_status() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _notifications) = registry(dir.path());
    let mut events = tasks.events();
    let ok = tasks.spawn_shell(spec("true", dir.path())).unwrap();
    let failing = tasks.spawn_shell(spec("exit 3", dir.path())).unwrap();
    finished(&tasks, &ok.id).await;
    finished(&tasks, &failing.id).await;
    // A task's end is published just after its status is set: read until both ends came.
    let mut seen = Vec::new();
    let ended = |seen: &[(String, TaskStatus)], id: &str| {
        seen.iter().any(|(task, status)| task == id && *status != TaskStatus::Running)
    };
    while !(ended(&seen, &ok.id) && ended(&seen, &failing.id)) {
        match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
            Ok(Ok(event)) => seen.push((event.id, event.status)),
            _ => break,
        }
    }
    // Each task's start comes first, then its end; repeats of a status may come (publish is
    // called at each step), never a status out of order.
    for (id, end) in [(&ok.id, TaskStatus::Completed), (&failing.id, TaskStatus::Failed)] {
        let mine: Vec<TaskStatus> = seen.iter().filter(|(task, _)| task == id).map(|(_, status)| *status).collect();
        assert_eq!(mine.first(), Some(&TaskStatus::Running), "{mine:?}");
        assert_eq!(mine.last(), Some(&end), "{mine:?}");
    }
}
