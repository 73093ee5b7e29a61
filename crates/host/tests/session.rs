//! The host's `Session`: built from settings, rules, trust and an environment; calls that keep
//! their context changes; background tasks that end with `shutdown` or with the drop.

#![cfg(all(feature = "bash", feature = "file-read", feature = "grep"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::ToolUseBlock;
use agent_tools_host::{CallOptions, Environment, Session, WorkspaceTrust};
use agent_tools_testkit::procs::{carrying, ended, eventually, unique_token};
use serde_json::{Value, json};

fn block(name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: format!("toolu_{name}"), name: name.into(), input }
}

fn home_env(home: &Path) -> Environment {
    Environment::empty().with("HOME", home).with("XDG_STATE_HOME", home.join("state")).with("PATH", "/usr/bin:/bin")
}

async fn text(session: &Session, name: &str, input: Value) -> (String, bool) {
    let done = session.call(&block(name, input), CallOptions::default()).await;
    (done.block.content.text(), done.block.is_error)
}

#[tokio::test]
async fn settings_rules_and_a_cd_carry_over_from_call_to_call() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("sub")).unwrap();
    std::fs::write(project.path().join("sub/inner.txt"), "inner\n").unwrap();
    std::fs::write(project.path().join("secret.txt"), "hidden\n").unwrap();
    let session = Session::builder(project.path())
        .environment(home_env(home.path()))
        .settings_json(r#"{"permissions": {"deny": ["Read(./secret.txt)"], "allow": ["Bash(cd:*)"]}}"#)
        .deny_rules(["WebFetch".to_owned()])
        .build()
        .await
        .unwrap();
    assert!(session.find_tool("WebFetch").is_none(), "a deny rule naming a whole tool removes it");
    assert!(Arc::ptr_eq(&session.pool(), &session.context().await.options.tools), "one pool, held once");

    let (denied, is_error) = text(&session, "Read", json!({"file_path": "secret.txt"})).await;
    assert!(is_error && denied.contains("denied"), "{denied}");

    let (_, is_error) = text(&session, "Bash", json!({"command": "cd sub"})).await;
    assert!(!is_error);
    let (listing, _) = text(&session, "Bash", json!({"command": "cat inner.txt"})).await;
    assert_eq!(listing, "inner");
    assert_eq!(session.context().await.cwd, project.path().canonicalize().unwrap().join("sub"));
    session.shutdown().await;
}

#[tokio::test]
async fn an_untrusted_folder_gives_up_its_allow_rules_with_one_notice_and_a_yes_is_recorded() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    std::fs::write(project.path().join(".claude/settings.json"), r#"{"permissions": {"allow": ["Bash"]}}"#).unwrap();
    let notices = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&notices);
    let session = Session::builder(project.path())
        .environment(home_env(home.path()))
        .notices(move |notice| seen.lock().unwrap().push(notice.to_owned()))
        .build()
        .await
        .unwrap();
    assert!(!session.is_trusted());
    let notices = notices.lock().unwrap().clone();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("is not a trusted folder") && notices[0].contains("allow rule"), "{notices:?}");
    let (refused, is_error) = text(&session, "Bash", json!({"command": "touch made"})).await;
    assert!(is_error, "the project's allow rule does not apply: {refused}");
    assert!(!project.path().join("made").exists());
    drop(session);

    let asked = Arc::new(Mutex::new(0));
    let count = Arc::clone(&asked);
    let trust = WorkspaceTrust::Ask(Arc::new(move |_dir, gated| {
        *count.lock().unwrap() += 1;
        !gated.is_empty()
    }));
    let session = Session::builder(project.path())
        .environment(home_env(home.path()))
        .workspace_trust(trust)
        .build()
        .await
        .unwrap();
    assert!(session.is_trusted());
    let (_, is_error) = text(&session, "Bash", json!({"command": "touch made"})).await;
    assert!(!is_error);
    assert!(project.path().join("made").exists());
    // The yes was recorded: a third session is trusted without a question.
    let again = Session::builder(project.path()).environment(home_env(home.path())).build().await.unwrap();
    assert!(again.is_trusted());
    assert_eq!(*asked.lock().unwrap(), 1);
}

/// How long a test waits for processes to start or end (generous: CI machines are busy).
const PROCESS_WAIT: Duration = Duration::from_secs(30);

/// A session in bypass mode running one background `sleep` tagged with `token` (digits, so that
/// `sleep 3001.<token>` is a valid duration and the command really waits); the folders it lives
/// in, the session, and the processes of the task.
async fn session_with_a_sleeper(token: &str) -> ([tempfile::TempDir; 2], Session, Vec<i32>) {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let session = Session::builder(project.path())
        .environment(home_env(home.path()))
        .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
        .build()
        .await
        .unwrap();
    let command = format!("sleep 3001.{token} || sleep 3001.{token}");
    let (started, is_error) =
        text(&session, "Bash", json!({"command": command, "run_in_background": true, "description": "sleeper"})).await;
    assert!(!is_error, "{started}");
    assert!(eventually(PROCESS_WAIT, || !carrying(token).is_empty()).await);
    let pids = carrying(token);
    ([home, project], session, pids)
}

#[tokio::test]
async fn shutdown_stops_background_tasks_and_reports_them() {
    let (_dirs, session, pids) = session_with_a_sleeper(&unique_token()).await;
    let stopped = session.shutdown().await;
    assert_eq!(stopped.len(), 1);
    assert_eq!(stopped[0].description, "sleeper");
    assert!(eventually(PROCESS_WAIT, || pids.iter().all(|pid| ended(*pid))).await);
    assert!(session.shutdown().await.is_empty(), "a second shutdown stops nothing");
}

#[tokio::test]
async fn dropping_a_session_stops_its_background_tasks_too() {
    let (_dirs, session, pids) = session_with_a_sleeper(&unique_token()).await;
    drop(session);
    assert!(eventually(PROCESS_WAIT, || pids.iter().all(|pid| ended(*pid))).await);
}

#[tokio::test]
async fn a_working_directory_that_is_not_a_folder_is_an_error() {
    let error = Session::builder("/no/such/folder").build().await.unwrap_err();
    assert_eq!(error.to_string(), "/no/such/folder is not a directory");
    let project = tempfile::tempdir().unwrap();
    let error = Session::builder(project.path()).settings_json("{not json").build().await.unwrap_err().to_string();
    assert!(error.starts_with("cannot use the settings: "), "{error}");
}
