//! `group` on real process trees: a command that times out is ended with everything it started
//! (a grandchild holding its stdout, one that left the group with `setsid`); one that exits is
//! not waited for past the output grace, whatever it left holding its pipes; an abandoned group
//! is killed. Every process a test starts carries the test's token in its argv
//! (`sleep 3001.<token>`), so it can be found, and whatever a failed test leaves is killed.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use agent_tools_background::group::{self, OUTPUT_GRACE};
use agent_tools_testkit::procs::{Reaper, unique_token};
use agent_tools_testkit::{alive, carrying, ended, eventually};
use tokio::process::Command;

fn sh(script: &str) -> Command {
    let mut command = Command::new("/bin/sh");
    command.arg("-c").arg(script);
    command
}

/// Whether every process carrying `token` has ended (none is left, zombies of others' aside).
fn none_left(token: &str) -> bool {
    carrying(token).iter().all(|pid| ended(*pid))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tree_holding_stdout_is_killed_at_the_timeout() {
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    // A grandchild in the group holding stdout, one that left the group (and the hook's tree:
    // its parent exits at once) holding it too, and the command itself, which never exits.
    let script = format!("echo started; sleep 3001.{token} & (setsid sleep 3002.{token} &); exec sleep 3003.{token}");
    let timeout = Duration::from_secs(6);
    let started = Instant::now();
    let run = tokio::spawn(group::run_captured(sh(&script), None, timeout, 1 << 20));
    // All three run before the timeout (on a machine so loaded that they do not, the run ends
    // first and the check below still holds: nothing of the tree is left).
    let all_three = eventually(Duration::from_secs(20), || carrying(&token).len() == 3 || run.is_finished()).await;
    assert!(all_three, "{:?}", carrying(&token));
    let captured = run.await.unwrap().unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed >= timeout, "returned after {elapsed:?}, before the timeout");
    assert!(elapsed < Duration::from_secs(20), "returned after {elapsed:?}");
    assert!(captured.timed_out);
    assert_eq!(captured.status, None);
    assert_eq!(captured.stdout, b"started\n");
    assert!(eventually(Duration::from_secs(5), || none_left(&token)).await, "left: {:?}", carrying(&token));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_left_holding_stdout_does_not_keep_the_caller_waiting() {
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let script = format!("echo done; sleep 3004.{token} & exit 3");
    let started = Instant::now();
    let captured = group::run_captured(sh(&script), None, Duration::from_secs(60), 1 << 20).await.unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed >= OUTPUT_GRACE, "returned after {elapsed:?}, before the output grace");
    assert!(elapsed < Duration::from_secs(20), "returned after {elapsed:?}: it waited for the child");
    assert!(!captured.timed_out);
    assert_eq!(captured.status.and_then(|status| status.code()), Some(3));
    assert_eq!(captured.stdout, b"done\n");
    // What a command left running when it exited by itself is not ours to end.
    let left = carrying(&token);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(alive(left[0]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdin_goes_in_output_is_capped_and_the_call_is_marked() {
    let captured = group::run_captured(
        sh("cat; printf '%s' \"$AGENT_TOOLS_CALL_ID\" >&2"),
        Some(b"{\"a\": 1}\n"),
        Duration::from_secs(30),
        1 << 20,
    )
    .await
    .unwrap();
    assert_eq!(captured.stdout, b"{\"a\": 1}\n");
    assert_eq!(captured.status.and_then(|status| status.code()), Some(0));
    let marker = String::from_utf8(captured.stderr).unwrap();
    assert!(marker.len() == 9 && marker.starts_with('c'), "{marker:?}");
    // Past the cap the output is read and dropped (the command is not blocked by a full pipe).
    let captured =
        group::run_captured(sh("head -c 100000 /dev/zero; echo tail >&2"), None, Duration::from_secs(30), 1000)
            .await
            .unwrap();
    assert_eq!((captured.stdout.len(), captured.stderr.as_slice()), (1000, b"tail\n".as_slice()));
    // Without stdin the command reads end of file at once.
    let captured = group::run_captured(sh("cat; echo end"), None, Duration::from_secs(30), 1 << 20).await.unwrap();
    assert_eq!(captured.stdout, b"end\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_dropped_while_it_runs_is_killed_and_one_stopped_is_reaped() {
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let abandoned = group::spawn_in_group(sh(&format!("sleep 3005.{token} & exec sleep 3006.{token}")), None).unwrap();
    assert!(eventually(Duration::from_secs(20), || carrying(&token).len() == 2).await, "{:?}", carrying(&token));
    drop(abandoned);
    assert!(eventually(Duration::from_secs(5), || none_left(&token)).await, "left: {:?}", carrying(&token));

    // A group stopped with a grace period: its tree ends, and its own process is reaped.
    let script = format!("trap 'exit 0' TERM; sleep 3007.{token} & wait");
    let mut command = sh(&script);
    command.stdout(std::process::Stdio::null());
    let mut stopped = group::spawn_in_group(command, None).unwrap();
    let root = stopped.target().root.unwrap().pid;
    // Both are up: the shell (its script names the sleeper, so it carries the token too) and the
    // sleeper. (Waiting for one alone passed only when the poll ran before the fork.)
    assert!(eventually(Duration::from_secs(20), || carrying(&token).len() == 2).await, "{:?}", carrying(&token));
    stopped.terminate_tree(Duration::from_secs(5)).await;
    assert!(!std::path::Path::new(&format!("/proc/{root}")).exists(), "the root was not reaped");
    assert!(none_left(&token), "left: {:?}", carrying(&token));
    drop(stopped);
}
