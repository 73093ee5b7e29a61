//! TaskOutput on real background tasks: blocking, non-blocking, timeouts, cancellation, unknown
//! ids, long output, the notification it withdraws, and agent tasks. Waits poll with deadlines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_tools_background::{AgentEnd, AgentTaskSpec, ShellTaskSpec, TaskRegistry, TaskSnapshot, TaskStatus};
use agent_tools_core::call_tool;
use agent_tools_core::{MaxResultSize, ToolFlags, ToolUseContext};
use agent_tools_testkit::{eventually, run};
use serde_json::json;

fn start(ctx: &ToolUseContext, command: &str) -> TaskSnapshot {
    let spec = ShellTaskSpec::new("/bin/bash", command, &ctx.cwd);
    TaskRegistry::for_context(ctx).spawn_shell(spec).unwrap()
}

fn contents(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[tokio::test]
async fn blocking_waits_for_the_end_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "echo hi; sleep 0.3; echo bye");
    let tool = agent_tool_task_output::tool();
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": task.id, "timeout": 30_000})).await;
    assert!(!is_error);
    assert_eq!(
        text,
        format!(
            "<retrieval_status>success</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nhi\nbye\n</output>",
            task.id
        )
    );
    // The model has read the result: no notification follows.
    assert!(ctx.notifications().is_empty());
}

#[tokio::test]
async fn failed_tasks_show_their_exit_code_and_block_defaults_to_true() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "echo partial; exit 3");
    let (text, _) = run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert!(
        text.contains("<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<output>\npartial\n</output>"),
        "{text}"
    );
}

#[tokio::test]
async fn non_blocking_answers_at_once_with_the_output_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "echo first; sleep 300");
    assert!(eventually(Duration::from_secs(20), || contents(&task.output_path) == "first\n").await);
    let tool = agent_tool_task_output::tool();
    for block in [json!(false), json!("false")] {
        let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": task.id, "block": block})).await;
        assert!(!is_error);
        assert_eq!(
            text,
            format!(
                "<retrieval_status>not_ready</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>running</status>\n\n<output>\nfirst\n</output>",
                task.id
            )
        );
    }
    // A finished task: success, and its queued notification is withdrawn.
    let done = start(&ctx, "true");
    let registry = TaskRegistry::existing(&ctx).unwrap();
    assert!(eventually(Duration::from_secs(20), || ctx.notifications().len() == 1).await);
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": done.id, "block": false})).await;
    assert!(text.starts_with("<retrieval_status>success</retrieval_status>"), "{text}");
    assert!(text.ends_with("<status>completed</status>\n\n<exit_code>0</exit_code>"), "{text}");
    assert!(ctx.notifications().is_empty());
    registry.stop(&task.id).await.unwrap();
}

#[tokio::test]
async fn a_wait_that_runs_out_says_timeout_and_shows_the_running_task() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "sleep 300");
    let (text, is_error) =
        run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": task.id, "timeout": 100})).await;
    assert!(!is_error);
    assert_eq!(
        text,
        format!(
            "<retrieval_status>timeout</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>running</status>",
            task.id
        )
    );
    let (text, _) = run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": task.id, "timeout": 0})).await;
    assert!(text.starts_with("<retrieval_status>timeout</retrieval_status>"), "{text}");
    TaskRegistry::existing(&ctx).unwrap().stop(&task.id).await.unwrap();
    let (text, _) = run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    assert!(text.contains("<status>killed</status>\n\n<exit_code>"), "{text}");
}

#[tokio::test]
async fn a_cancelled_wait_ends_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "sleep 300");
    let cancel = ctx.cancel.clone();
    let waiting = {
        let ctx = ctx.clone();
        let id = task.id.clone();
        tokio::spawn(async move {
            run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": id, "timeout": 600_000})).await
        })
    };
    cancel.cancel();
    let (text, is_error) = waiting.await.unwrap();
    assert!(is_error);
    assert_eq!(text, "[Request interrupted by user for tool use]");
    assert_eq!(TaskRegistry::existing(&ctx).unwrap().get(&task.id).unwrap().status, TaskStatus::Running);
    agent_tools_background::shutdown(&ctx);
}

#[tokio::test]
async fn unknown_and_empty_ids_are_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_task_output::tool();
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": "bnope0000"})).await;
    assert!(is_error);
    assert_eq!(text, "<tool_use_error>No task found with ID: bnope0000</tool_use_error>");
    // Looking never creates a registry.
    assert!(TaskRegistry::existing(&ctx).is_none());
    start(&ctx, "true");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "bnope0000"})).await;
    assert_eq!(text, "<tool_use_error>No task found with ID: bnope0000</tool_use_error>");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": ""})).await;
    assert_eq!(text, "<tool_use_error>Task ID is required</tool_use_error>");
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": "b1", "timeout": 600_001})).await;
    assert!(is_error);
    assert!(text.contains("The parameter `timeout` must be at most 600000, but it is 600001"), "{text}");
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "b1", "timeout": -1})).await;
    assert!(text.contains("must be at least 0"), "{text}");
    let (text, _) = run(tool.as_ref(), &ctx, json!({})).await;
    assert!(text.contains("The required parameter `task_id` is missing"), "{text}");
}

#[tokio::test]
async fn long_output_shows_its_end_behind_the_truncation_header() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let task = start(&ctx, "seq 1 20000");
    let (text, _) = run(agent_tool_task_output::tool().as_ref(), &ctx, json!({"task_id": task.id})).await;
    let output = text.split_once("<output>\n").unwrap().1.strip_suffix("\n</output>").unwrap();
    let header = format!("[Truncated. Full output: {}]\n\n", task.output_path.display());
    assert!(output.starts_with(&header), "{}", &output[..200]);
    assert!(output.ends_with("\n19999\n20000"));
    assert!(output.chars().count() <= agent_tool_task_output::MAX_OUTPUT_CHARS);
    let full: String = (1..=20_000).map(|i| format!("{i}\n")).collect();
    assert!(full.trim_end().ends_with(&output[header.len()..]));
}

#[tokio::test]
async fn contract_members() {
    let tool = agent_tool_task_output::tool();
    assert_eq!(tool.name(), "TaskOutput");
    assert_eq!(tool.aliases(), ["AgentOutputTool", "BashOutputTool"]);
    assert!(agent_tools_core::find_tool_by_name(std::slice::from_ref(&tool), "BashOutputTool").is_some());
    assert_eq!(tool.flags(), ToolFlags::LOCAL_READ_ONLY);
    assert_eq!(tool.max_result_size_chars(), MaxResultSize::Chars(100_000));
    assert!(tool.should_defer());
    let parsed = tool.parse(json!({"task_id": "b1"})).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.user_facing_name(None), "Task Output");
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["task_id"]));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["task_id", "block", "timeout"]);
    assert_eq!(properties["block"]["type"], "boolean");
    assert_eq!(
        (properties["timeout"]["minimum"].clone(), properties["timeout"]["maximum"].clone()),
        (json!(0), json!(600_000))
    );
    assert!(tool.description(&Default::default()).contains("Read"));
}

#[tokio::test]
async fn an_agent_task_reports_its_result_once_it_has_finished() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let registry = TaskRegistry::for_context(&ctx);
    let spec = AgentTaskSpec {
        description: "Check the docs".into(),
        prompt: "Are the docs up to date?".into(),
        agent_type: "general-purpose".into(),
        name: Some("checker".into()),
        ..AgentTaskSpec::default()
    };
    let agent = registry.register_agent(spec).unwrap();
    let tool = agent_tool_task_output::tool();
    let running = format!(
        "<retrieval_status>not_ready</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>local_agent</task_type>\n\n<status>running</status>",
        agent.id
    );
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": agent.id, "block": false})).await;
    assert!(!is_error);
    assert_eq!(text, running);
    // By name too; a short blocking wait runs out while it works.
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "checker", "block": false})).await;
    assert_eq!(text, running);
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": "checker", "timeout": 50})).await;
    assert_eq!(text, running.replace("not_ready", "timeout"));

    // A blocking call wakes when the runner reports: it is waiting once it said so.
    let said_waiting = Arc::new(AtomicBool::new(false));
    let waiting = {
        let mut ctx = ctx.clone();
        let flag = Arc::clone(&said_waiting);
        ctx.progress = Some(Arc::new(move |event| {
            if event.data["type"] == "waiting_for_task" && event.data["taskType"] == "local_agent" {
                flag.store(true, Ordering::SeqCst);
            }
        }));
        tokio::spawn(async move {
            call_tool(agent_tool_task_output::tool().as_ref(), "toolu_w", json!({"task_id": "checker"}), &ctx).await
        })
    };
    assert!(eventually(Duration::from_secs(20), || said_waiting.load(Ordering::SeqCst)).await);
    let end = AgentEnd {
        status: TaskStatus::Completed,
        result: "RESULT".into(),
        notification: Some("<task-notification>done</task-notification>".into()),
    };
    registry.finish_agent(&agent.id, end);
    let done = waiting.await.unwrap();
    let finished = format!(
        "<retrieval_status>success</retrieval_status>\n\n<task_id>{}</task_id>\n\n<task_type>local_agent</task_type>\n\n<status>completed</status>\n\n<output>\nRESULT\n</output>",
        agent.id
    );
    assert_eq!(done.block.content.text(), finished);
    let data = done.data.unwrap().to_json();
    assert_eq!(data["task"]["prompt"], "Are the docs up to date?");
    assert_eq!(data["task"]["result"], "RESULT");
    assert_eq!(data["task"]["description"], "Check the docs");
    assert!(data["task"].get("exitCode").is_none());
    // Reported: the notification is withdrawn.
    assert!(ctx.notifications().is_empty());
    let (text, _) = run(tool.as_ref(), &ctx, json!({"task_id": agent.id, "block": false})).await;
    assert_eq!(text, finished);
    let (text, is_error) = run(tool.as_ref(), &ctx, json!({"task_id": "no-such-agent"})).await;
    assert!(is_error);
    assert_eq!(text, "<tool_use_error>No task found with ID: no-such-agent</tool_use_error>");
}
