//! TaskStop on real background tasks: stopping a process tree, the deprecated `shell_id`,
//! Claude Code's refusals (missing, unknown, not running), and background agents by name. Waits
//! poll with deadlines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_background::{AgentEnd, AgentTaskSpec, ShellTaskSpec, TaskRegistry, TaskSnapshot, TaskStatus};
use agent_tools_core::{MaxResultSize, ToolUseContext};
use agent_tools_testkit::{eventually, live_processes_with_arg, run};
use serde_json::json;

fn start(ctx: &ToolUseContext, command: &str) -> TaskSnapshot {
    let spec = ShellTaskSpec::new("/bin/bash", command, &ctx.cwd);
    TaskRegistry::for_context(ctx).spawn_shell(spec).unwrap()
}

/// Live processes with an argument ending in `.<token>` (each sleep here is named so).
fn carrying(token: &str) -> Vec<i32> {
    let needle = format!(".{token}");
    live_processes_with_arg(|arg| arg.ends_with(&needle))
}

#[tokio::test]
async fn stopping_ends_the_task_and_everything_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let token = format!("{}1", std::process::id());
    let command = format!("(trap '' TERM HUP; exec sleep 3101.{token}) & sleep 3102.{token} & sleep 3103.{token}");
    let task = start(&ctx, &command);
    assert!(eventually(Duration::from_secs(20), || carrying(&token).len() == 4).await, "the shell and three sleeps");
    let (text, is_error) = run(agent_tool_task_stop::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        serde_json::to_string(&json!({
            "message": format!("Successfully stopped task: {} ({command})", task.id),
            "task_id": task.id,
            "task_type": "local_bash",
            "command": command,
        }))
        .unwrap()
    );
    assert_eq!(carrying(&token), Vec::<i32>::new());
    let registry = TaskRegistry::existing(&ctx).unwrap();
    assert_eq!(registry.get(&task.id).unwrap().status, TaskStatus::Killed);
    // A stopped task sends no notification.
    assert!(ctx.notifications().is_empty());
    // Stopping it again: it is not running any more.
    let (text, is_error) = run(agent_tool_task_stop::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert!(is_error);
    assert_eq!(text, format!("<tool_use_error>Task {} is not running (status: killed)</tool_use_error>", task.id));
}

#[tokio::test]
async fn the_old_shell_id_and_names_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "sleep 300");
    let tool = agent_tool_task_stop::tool();
    assert!(agent_tools_core::find_tool_by_name(std::slice::from_ref(&tool), "KillShell").is_some());
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"shell_id": task.id})).await;
    assert!(!is_error, "{text}");
    assert!(
        text.starts_with(&format!("{{\"message\":\"Successfully stopped task: {} (sleep 300)\"", task.id)),
        "{text}"
    );
}

#[tokio::test]
async fn missing_unknown_and_finished_tasks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_task_stop::tool();
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({})).await;
    assert!(is_error);
    assert_eq!(text, "<tool_use_error>Missing required parameter: task_id</tool_use_error>");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": ""})).await;
    assert_eq!(text, "<tool_use_error>Missing required parameter: task_id</tool_use_error>");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "bnope0000"})).await;
    assert_eq!(text, "<tool_use_error>No task found with ID: bnope0000</tool_use_error>");
    let task = start(&ctx, "exit 2");
    let registry = TaskRegistry::existing(&ctx).unwrap();
    assert!(eventually(Duration::from_secs(20), || registry.get(&task.id).unwrap().status.is_finished()).await);
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert_eq!(text, format!("<tool_use_error>Task {} is not running (status: failed)</tool_use_error>", task.id));
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "b1", "bogus": 1})).await;
    assert!(text.contains("An unexpected parameter `bogus` was provided"), "{text}");
}

#[test]
fn contract_members() {
    let tool = agent_tool_task_stop::tool();
    assert_eq!(tool.name(), "TaskStop");
    assert_eq!(tool.aliases(), ["KillShell", "KillBash"]);
    assert!(!tool.flags().read_only && tool.flags().concurrency_safe);
    assert_eq!(tool.max_result_size_chars(), MaxResultSize::Chars(100_000));
    assert!(tool.should_defer());
    let parsed = tool.parse(json!({"shell_id": "b1"})).unwrap();
    assert!(!tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.user_facing_name(None), "Stop Task");
    let schema = tool.input_schema();
    assert!(schema.get("required").is_none_or(|required| required.as_array().is_some_and(Vec::is_empty)));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["task_id", "shell_id"]);
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_ends_what_left_the_tasks_session_too() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let token = format!("{}2", std::process::id());
    // A setsid child, a setsid -f orphan, a double fork into a new session and an orphan that
    // cleared its environment; each writes its pid, then sleeps.
    let command = format!(
        r#"setsid sh -c 'echo $$ > a.pid; exec sleep 3111.{token}' &
(setsid -f sh -c 'echo $$ > b.pid; exec sleep 3112.{token}')
(sh -c 'setsid sh -c "echo \$\$ > c.pid; exec sleep 3113.{token}" &')
(env -i setsid -f /bin/sh -c 'echo $$ > d.pid; exec sleep 3114.{token}')
sleep 3115.{token}"#
    );
    let task = start(&ctx, &command);
    let read = |name: &str| {
        std::fs::read_to_string(dir.path().join(format!("{name}.pid"))).ok().and_then(|text| text.trim().parse().ok())
    };
    let written = || ["a", "b", "c", "d"].iter().all(|name| read(name).is_some());
    assert!(eventually(Duration::from_secs(20), written).await, "the pid files");
    assert!(eventually(Duration::from_secs(20), || carrying(&token).len() == 6).await, "{:?}", carrying(&token));
    let pids: Vec<i32> = ["a", "b", "c", "d"].iter().filter_map(|name| read(name)).collect();
    let (text, is_error) = run(agent_tool_task_stop::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert!(!is_error, "{text}");
    // Gone by the time TaskStop answers.
    assert_eq!(carrying(&token), Vec::<i32>::new());
    assert_eq!(
        pids.iter().copied().filter(|pid| !agent_tools_testkit::ended(*pid)).collect::<Vec<_>>(),
        Vec::<i32>::new()
    );
}

#[tokio::test]
async fn a_background_agent_is_stopped_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let registry = TaskRegistry::for_context(&ctx);
    let spec = AgentTaskSpec {
        description: "Review the diff".into(),
        prompt: "Review the staged changes".into(),
        agent_type: "general-purpose".into(),
        name: Some("reviewer".into()),
        ..AgentTaskSpec::default()
    };
    let agent = registry.register_agent(spec).unwrap();
    // The runner: when the task is stopped it winds down and reports.
    let runner = {
        let (registry, id, cancel) = (registry.clone(), agent.id.clone(), agent.cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            let end = AgentEnd {
                status: TaskStatus::Failed,
                result: "interrupted".into(),
                notification: Some("<task-notification>x</task-notification>".into()),
            };
            registry.finish_agent(&id, end);
        })
    };
    let tool = agent_tool_task_stop::tool();
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": "reviewer"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!(
            r#"{{"message":"Successfully stopped task: {id} (Review the diff)","task_id":"{id}","task_type":"local_agent"}}"#,
            id = agent.id
        )
    );
    runner.await.unwrap();
    assert!(agent.cancel.is_cancelled());
    let task = registry.get(&agent.id).unwrap();
    assert_eq!((task.status, task.result.as_deref()), (TaskStatus::Killed, Some("interrupted")));
    assert!(ctx.notifications().is_empty());
    // Stopped: by name or id, it is not running any more.
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": "reviewer"})).await;
    assert!(is_error);
    assert_eq!(text, "<tool_use_error>Task reviewer is not running (status: killed)</tool_use_error>");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": agent.id})).await;
    assert_eq!(text, format!("<tool_use_error>Task {} is not running (status: killed)</tool_use_error>", agent.id));
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "someone-else"})).await;
    assert_eq!(text, "<tool_use_error>No task found with ID: someone-else</tool_use_error>");
}
