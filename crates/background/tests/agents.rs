//! Agent tasks (background sub-agents): registering, finishing, notifications on the right
//! queue, stopping while the runner winds down, restarting, lookup by name, stopping what an
//! agent started (real shell processes), and one registry at every depth of sub-agents. Waits
//! poll with deadlines; no test asserts how fast anything is.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_tools_background::{
    AgentEnd, AgentTask, AgentTaskSpec, ShellTaskSpec, StopError, TaskRegistry, TaskStatus, TaskType, TasksConfig,
    WaitOutcome,
};
use agent_tools_core::{AppStateHandle, CancellationToken};
use agent_tools_core::{NotificationQueue, ToolUseContext};
use agent_tools_testkit::procs::{Reaper, unique_token};
use agent_tools_testkit::{alive, carrying, eventually};

fn registry(dir: &Path) -> (TaskRegistry, NotificationQueue) {
    let notifications = NotificationQueue::default();
    let config = TasksConfig {
        output_dir: Some(dir.join("tasks")),
        notifications: notifications.clone(),
        ..TasksConfig::default()
    };
    (TaskRegistry::new(config), notifications)
}

fn agent_spec(description: &str, name: Option<&str>) -> AgentTaskSpec {
    AgentTaskSpec {
        description: description.into(),
        prompt: format!("Please {description}"),
        agent_type: "general-purpose".into(),
        name: name.map(str::to_owned),
        tool_use_id: Some("toolu_agent".into()),
        ..AgentTaskSpec::default()
    }
}

fn end(status: TaskStatus, result: &str, notification: Option<&str>) -> AgentEnd {
    AgentEnd { status, result: result.into(), notification: notification.map(str::to_owned) }
}

/// A runner that, once the task's token fires, waits 100 ms (its tools stopping) and then
/// reports; `reported` is set just before it calls `finish_agent`.
fn runner_stopping_on_cancel(
    tasks: &TaskRegistry,
    agent: &AgentTask,
    result: &'static str,
) -> (tokio::task::JoinHandle<()>, Arc<AtomicBool>) {
    let reported = Arc::new(AtomicBool::new(false));
    let (tasks, id, cancel, flag) = (tasks.clone(), agent.id.clone(), agent.cancel.clone(), Arc::clone(&reported));
    let handle = tokio::spawn(async move {
        cancel.cancelled().await;
        // tidy:allow-sleep the runner's wind-down (its tools stopping), which a stop must wait out.
        tokio::time::sleep(Duration::from_millis(100)).await;
        flag.store(true, Ordering::SeqCst);
        tasks.finish_agent(&id, end(TaskStatus::Failed, result, Some("<task-notification>late</task-notification>")));
    });
    (handle, reported)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_agent_runs_at_once_with_an_empty_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let mut spec = agent_spec("Survey the parser", Some("surveyor"));
    spec.owner = Some("a0000parent".into());
    let agent = tasks.register_agent(spec).unwrap();
    assert!(agent.id.starts_with('a') && agent.id.len() == 9, "{}", agent.id);
    assert!(agent.id[1..].chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()), "{}", agent.id);
    assert_eq!(agent.output_path, dir.path().join("tasks").join(format!("{}.output", agent.id)));
    assert_eq!(std::fs::read(&agent.output_path).unwrap(), Vec::<u8>::new());
    assert!(!agent.cancel.is_cancelled());
    assert!(agent.inbox.is_empty());

    let task = tasks.get(&agent.id).unwrap();
    assert_eq!((task.task_type, task.status), (TaskType::LocalAgent, TaskStatus::Running));
    assert_eq!(task.task_type.as_str(), "local_agent");
    assert_eq!(task.description, "Survey the parser");
    assert_eq!(task.command, "Survey the parser");
    assert_eq!((task.pid, task.exit_code, task.ended_at_ms), (None, None, None));
    assert_eq!(task.name.as_deref(), Some("surveyor"));
    assert_eq!(task.agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(task.prompt.as_deref(), Some("Please Survey the parser"));
    assert_eq!(task.owner.as_deref(), Some("a0000parent"));
    assert_eq!(task.tool_use_id.as_deref(), Some("toolu_agent"));
    assert_eq!(task.result, None);
    // A running agent is waited for until it ends.
    match tasks.wait(&agent.id, Duration::from_millis(50), &CancellationToken::new()).await {
        WaitOutcome::TimedOut(snapshot) => assert_eq!(snapshot.status, TaskStatus::Running),
        other => panic!("{other:?}"),
    }
    assert!(notifications.is_empty());
    // A shutdown cancels it, without waiting for a runner (there is none here).
    let stopped = tasks.shutdown();
    assert_eq!(
        stopped.iter().map(|task| (task.id.as_str(), task.status)).collect::<Vec<_>>(),
        [(agent.id.as_str(), TaskStatus::Killed)]
    );
    assert!(agent.cancel.is_cancelled());
    assert!(matches!(
        tasks.register_agent(agent_spec("Too late", None)),
        Err(agent_tools_background::SpawnError::ShutDown)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_agent_notifies_on_its_own_queue_or_the_registrys() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, registry_queue) = registry(dir.path());
    let own_queue = NotificationQueue::default();
    let mut spec = agent_spec("Write the summary", None);
    spec.notifications = Some(own_queue.clone());
    let with_queue = tasks.register_agent(spec).unwrap();
    let plain = tasks.register_agent(agent_spec("Count the files", None)).unwrap();

    // A waiter wakes when the runner reports.
    let waiter = {
        let (tasks, id) = (tasks.clone(), with_queue.id.clone());
        tokio::spawn(async move { tasks.wait(&id, Duration::from_secs(600), &CancellationToken::new()).await })
    };
    let done = tasks
        .finish_agent(
            &with_queue.id,
            end(TaskStatus::Completed, "The summary.", Some("<task-notification>one</task-notification>")),
        )
        .unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result.as_deref(), Some("The summary."));
    assert!(done.ended_at_ms.unwrap() >= done.started_at_ms);
    match waiter.await.unwrap() {
        WaitOutcome::Finished(snapshot) => assert_eq!(snapshot.status, TaskStatus::Completed),
        other => panic!("{other:?}"),
    }
    let queued = own_queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].key.as_str(), queued[0].text.as_str()),
        (with_queue.id.as_str(), "<task-notification>one</task-notification>")
    );
    assert!(registry_queue.is_empty());

    let failed = tasks
        .finish_agent(
            &plain.id,
            end(TaskStatus::Failed, "API error: overloaded", Some("<task-notification>two</task-notification>")),
        )
        .unwrap();
    assert_eq!((failed.status, failed.result.as_deref()), (TaskStatus::Failed, Some("API error: overloaded")));
    let queued = registry_queue.drain();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].key.as_str(), queued[0].text.as_str()),
        (plain.id.as_str(), "<task-notification>two</task-notification>")
    );
    assert!(own_queue.is_empty());

    // A task the model already read does not notify; unknown ids and shell tasks are not agents.
    let read = tasks.register_agent(agent_spec("Read it first", None)).unwrap();
    tasks.mark_notified(&read.id);
    tasks.finish_agent(&read.id, end(TaskStatus::Completed, "x", Some("<task-notification>three</task-notification>")));
    assert!(registry_queue.is_empty());
    assert_eq!(tasks.finish_agent("anope0000", end(TaskStatus::Completed, "x", None)), None);
    let shell = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "true", dir.path())).unwrap();
    assert_eq!(tasks.finish_agent(&shell.id, end(TaskStatus::Completed, "x", None)), None);
    // Finished agents cannot be stopped.
    assert_eq!(
        tasks.stop(&plain.id).await,
        Err(StopError::NotRunning { id: plain.id.clone(), status: TaskStatus::Failed })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_an_agent_cancels_it_and_waits_for_its_runner() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let agent = tasks.register_agent(agent_spec("Long research", Some("researcher"))).unwrap();
    let (runner, reported) = runner_stopping_on_cancel(&tasks, &agent, "stopped while reading");
    let stopped = tasks.stop(&agent.id).await.unwrap();
    // `stop` returned only after the runner reported (it waited 100 ms after the token fired).
    assert!(reported.load(Ordering::SeqCst));
    assert!(agent.cancel.is_cancelled());
    assert_eq!(stopped.status, TaskStatus::Killed);
    assert_eq!(stopped.result.as_deref(), Some("stopped while reading"));
    assert!(stopped.ended_at_ms.is_some());
    runner.await.unwrap();
    // The report did not turn it into `failed`, and a stopped task does not notify.
    assert_eq!(tasks.get(&agent.id).unwrap().status, TaskStatus::Killed);
    assert!(notifications.is_empty());
    assert_eq!(
        tasks.stop(&agent.id).await,
        Err(StopError::NotRunning { id: agent.id.clone(), status: TaskStatus::Killed })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_agent_restarts_with_a_fresh_token_and_the_same_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let first = tasks.register_agent(agent_spec("Fix the bug", Some("fixer"))).unwrap();
    assert_eq!(tasks.restart_agent(&first.id).unwrap_err(), StopError::StillRunning(first.id.clone()));
    tasks.finish_agent(
        &first.id,
        end(TaskStatus::Completed, "Fixed.", Some("<task-notification>1</task-notification>")),
    );
    assert_eq!(notifications.drain().len(), 1);

    let again = tasks.restart_agent(&first.id).unwrap();
    assert_eq!((again.id.as_str(), again.output_path.as_path()), (first.id.as_str(), first.output_path.as_path()));
    assert!(!again.cancel.is_cancelled());
    // The inbox is the same queue: what SendMessage put in the old handle is in the new one.
    first.inbox.push("message", "also fix the test");
    assert_eq!(again.inbox.drain()[0].text, "also fix the test");
    assert_eq!(tasks.agent_inbox(&first.id).unwrap().len(), 0);
    let running = tasks.get(&first.id).unwrap();
    assert_eq!((running.status, running.result.clone(), running.ended_at_ms), (TaskStatus::Running, None, None));

    // A fresh token: stopping fires the new one; the old one stays as it was.
    let (runner, _) = runner_stopping_on_cancel(&tasks, &again, "interrupted");
    tasks.stop(&first.id).await.unwrap();
    runner.await.unwrap();
    assert!(again.cancel.is_cancelled());
    assert!(!first.cancel.is_cancelled());
    // A killed agent restarts too, and notifies again when it finishes.
    let third = tasks.restart_agent(&first.id).unwrap();
    tasks.finish_agent(
        &third.id,
        end(TaskStatus::Completed, "Done now.", Some("<task-notification>3</task-notification>")),
    );
    assert_eq!(notifications.drain()[0].text, "<task-notification>3</task-notification>");
    assert_eq!(tasks.get(&first.id).unwrap().result.as_deref(), Some("Done now."));

    // Stopped while its runner still winds down: no restart until the runner has reported.
    let slow = tasks.register_agent(agent_spec("Slow to stop", None)).unwrap();
    let (cancelled_tx, cancelled_rx) = tokio::sync::oneshot::channel();
    let (release_tx, release_rx) = tokio::sync::oneshot::channel::<()>();
    let runner = {
        let (tasks, id, cancel) = (tasks.clone(), slow.id.clone(), slow.cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            cancelled_tx.send(()).unwrap();
            release_rx.await.unwrap();
            tasks.finish_agent(&id, end(TaskStatus::Failed, "wound down", None));
        })
    };
    let stopping = {
        let (tasks, id) = (tasks.clone(), slow.id.clone());
        tokio::spawn(async move { tasks.stop(&id).await })
    };
    cancelled_rx.await.unwrap();
    assert_eq!(tasks.get(&slow.id).unwrap().status, TaskStatus::Killed);
    assert_eq!(tasks.restart_agent(&slow.id).unwrap_err(), StopError::StillRunning(slow.id.clone()));
    release_tx.send(()).unwrap();
    runner.await.unwrap();
    assert_eq!(stopping.await.unwrap().unwrap().result.as_deref(), Some("wound down"));
    assert!(!tasks.restart_agent(&slow.id).unwrap().cancel.is_cancelled());

    assert_eq!(tasks.restart_agent("anope0000").unwrap_err(), StopError::NotFound("anope0000".into()));
    let shell = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "true", dir.path())).unwrap();
    assert_eq!(tasks.restart_agent(&shell.id).unwrap_err(), StopError::NotFound(shell.id.clone()));
    assert!(tasks.agent_inbox(&shell.id).is_none());
    tasks.shutdown();
    assert_eq!(tasks.restart_agent(&first.id).unwrap_err(), StopError::ShutDown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_found_by_id_or_their_latest_name() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, _) = registry(dir.path());
    let older = tasks.register_agent(agent_spec("First scout", Some("scout"))).unwrap();
    let other = tasks.register_agent(agent_spec("Reviewer", Some("reviewer"))).unwrap();
    let newer = tasks.register_agent(agent_spec("Second scout", Some("scout"))).unwrap();
    let unnamed = tasks.register_agent(agent_spec("", None)).unwrap();
    assert_eq!(tasks.find_agent("scout").unwrap().id, newer.id);
    assert_eq!(tasks.find_agent("reviewer").unwrap().id, other.id);
    assert_eq!(tasks.find_agent(&older.id).unwrap().description, "First scout");
    // No description: known by its type.
    assert_eq!(tasks.find_agent(&unnamed.id).unwrap().description, "general-purpose");
    assert!(tasks.find_agent("nobody").is_none());
    let shell = tasks.spawn_shell(ShellTaskSpec::new("/bin/bash", "true", dir.path())).unwrap();
    assert!(tasks.find_agent(&shell.id).is_none());
    // Inboxes are the tasks' own.
    tasks.agent_inbox(&older.id).unwrap().push("m", "for the older scout");
    assert_eq!(older.inbox.len(), 1);
    assert!(newer.inbox.is_empty());
    let stopped = tasks.shutdown();
    let agents: Vec<_> = stopped.iter().filter(|task| task.task_type == TaskType::LocalAgent).collect();
    assert_eq!(agents.len(), 4);
    assert!(agents.iter().all(|task| task.status == TaskStatus::Killed));
    assert!([&older, &other, &newer, &unnamed].iter().all(|agent| agent.cancel.is_cancelled()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_an_owner_stops_its_shell_and_agent_tasks_only() {
    let dir = tempfile::tempdir().unwrap();
    let (tasks, notifications) = registry(dir.path());
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let shell = |owner: Option<&str>, n: u32| {
        let mut spec = ShellTaskSpec::new("/bin/bash", format!("sleep 300{n}.{token}"), dir.path());
        spec.owner = owner.map(str::to_owned);
        tasks.spawn_shell(spec).unwrap()
    };
    let mine = shell(Some("a12345678"), 1);
    let theirs = shell(Some("a87654321"), 2);
    let main = shell(None, 3);
    // An agent the owner started, and a command that agent started in turn.
    let mut spec = agent_spec("Helper", None);
    spec.owner = Some("a12345678".into());
    let helper = tasks.register_agent(spec).unwrap();
    let (runner, reported) = runner_stopping_on_cancel(&tasks, &helper, "cancelled");
    let nested = shell(Some(&helper.id), 4);
    assert_eq!(mine.owner.as_deref(), Some("a12345678"));
    // Each task is a shell and its sleep.
    assert!(eventually(Duration::from_secs(30), || carrying(&token).len() == 8).await, "{:?}", carrying(&token));
    let pids = |id: &str| tasks.get(id).unwrap().pid.unwrap() as i32;
    let (mine_pid, nested_pid) = (pids(&mine.id), pids(&nested.id));

    let stopped = tasks.stop_owned_by_async("a12345678").await;
    let mut ids: Vec<&str> = stopped.iter().map(|task| task.id.as_str()).collect();
    ids.sort_unstable();
    let mut expected = vec![mine.id.as_str(), helper.id.as_str(), nested.id.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    assert!(stopped.iter().all(|task| task.status == TaskStatus::Killed));
    assert!(reported.load(Ordering::SeqCst), "the helper's runner reported before the stop returned");
    assert!(helper.cancel.is_cancelled());
    runner.await.unwrap();
    assert!(!alive(mine_pid) && !alive(nested_pid));
    for id in [&theirs.id, &main.id] {
        assert_eq!(tasks.get(id).unwrap().status, TaskStatus::Running);
        assert!(alive(pids(id)));
    }
    assert_eq!(carrying(&token).len(), 4, "{:?}", carrying(&token));
    // Nothing was left for the owner; the stopped tasks do not notify.
    assert!(tasks.stop_owned_by("a12345678").is_empty());
    assert!(notifications.is_empty());
    tasks.shutdown();
    assert_eq!(carrying(&token), Vec::<i32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_context_reaches_the_sessions_registry_and_queue() {
    let dir = tempfile::tempdir().unwrap();
    let parent = ToolUseContext::new(dir.path());
    // What a sub-agent's context looks like: its own app state, the session's root state.
    let mut child = parent.clone();
    child.app_state = AppStateHandle::default();
    child.agent_id = Some("a1".into());
    child.query_depth = 1;
    let mut grandchild = child.clone();
    grandchild.app_state = AppStateHandle::default();
    grandchild.query_depth = 2;
    assert!(TaskRegistry::existing(&parent).is_none());

    let from_child = TaskRegistry::for_context(&grandchild);
    let agent = from_child.register_agent(agent_spec("Nested", None)).unwrap();
    // One registry at every depth.
    for ctx in [&parent, &child, &grandchild] {
        assert_eq!(TaskRegistry::existing(ctx).unwrap().get(&agent.id).unwrap().id, agent.id);
    }
    assert!(child.app_state.with(|state| state.get::<TaskRegistry>().is_none()));
    // Its default queue is the session's (the main conversation's), not the sub-agent's.
    TaskRegistry::for_context(&child).finish_agent(
        &agent.id,
        end(TaskStatus::Completed, "ok", Some("<task-notification>nested</task-notification>")),
    );
    assert!(child.notifications().is_empty() && grandchild.notifications().is_empty());
    assert_eq!(parent.notifications().drain()[0].text, "<task-notification>nested</task-notification>");
    // A shutdown from the sub-agent's context is the session's.
    let running = TaskRegistry::for_context(&parent).register_agent(agent_spec("Still going", None)).unwrap();
    let stopped = agent_tools_background::shutdown(&grandchild);
    assert_eq!(stopped.iter().map(|task| task.id.as_str()).collect::<Vec<_>>(), [running.id.as_str()]);
    assert!(running.cancel.is_cancelled());
}
