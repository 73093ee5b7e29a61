//! SendMessage over a real task registry: its checks, and where a message goes.
#![allow(clippy::unwrap_used)]

use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::{Value, json};

fn named(name: &str) -> AgentTaskSpec {
    AgentTaskSpec { name: Some(name.into()), description: format!("{name}'s work"), ..AgentTaskSpec::default() }
}

#[tokio::test]
async fn bad_messages_are_refused_with_code_9() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_send_message::tool();
    for (input, expected) in [
        (json!({"to": " ", "summary": "s", "message": "m"}), "to must name the recipient"),
        (json!({"to": "scout@team", "summary": "s", "message": "m"}), "without '@'"),
        (json!({"to": "scout", "message": "m"}), "summary is required when message is a string"),
        (json!({"to": "*", "message": {"type": "shutdown_request"}}), "cannot be broadcast"),
        (
            json!({"to": "scout", "message": {"type": "shutdown_response", "request_id": "r", "approve": true}}),
            "must be sent to \"team-lead\"",
        ),
        (
            json!({"to": "team-lead", "message": {"type": "shutdown_response", "request_id": "r", "approve": false}}),
            "reason is required",
        ),
    ] {
        let done = call_tool(tool.as_ref(), "t", input.clone(), &ctx).await;
        assert!(done.block.is_error, "{input}");
        assert!(done.block.content.text().contains(expected), "{input}: {}", done.block.content.text());
    }
}

#[tokio::test]
async fn a_message_is_queued_for_running_agents_and_an_unknown_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_send_message::tool();
    let unknown = call_tool(tool.as_ref(), "t0", json!({"to": "nobody", "summary": "s", "message": "m"}), &ctx).await;
    assert!(unknown.block.is_error);
    assert!(unknown.block.content.text().contains("No agent 'nobody' in this session"));

    let registry = TaskRegistry::for_context(&ctx);
    let scout = registry.register_agent(named("scout")).unwrap();
    let other = registry.register_agent(named("other")).unwrap();
    let by_id =
        call_tool(tool.as_ref(), "t1", json!({"to": scout.id, "summary": "by id", "message": "hello"}), &ctx).await;
    let output: Value = serde_json::from_str(&by_id.block.content.text()).unwrap();
    assert_eq!(output["success"], true);
    assert_eq!(
        output["routing"],
        json!({"sender": "team-lead", "target": scout.id, "delivery": "queued", "summary": "by id"})
    );
    assert_eq!(
        scout.inbox.drain()[0].text,
        "<agent-message from=\"team-lead\" summary=\"by id\">\nhello\n</agent-message>"
    );

    let all = call_tool(tool.as_ref(), "t2", json!({"to": "*", "summary": "all", "message": "stop soon"}), &ctx).await;
    assert!(!all.block.is_error, "{}", all.block.content.text());
    assert_eq!((scout.inbox.len(), other.inbox.len()), (1, 1));

    // A stopped agent needs a runner to continue: without one (no agent loop) it is an error.
    registry
        .finish_agent(&other.id, AgentEnd { status: TaskStatus::Completed, result: "done".into(), notification: None });
    let stopped = call_tool(tool.as_ref(), "t3", json!({"to": "other", "summary": "s", "message": "more"}), &ctx).await;
    assert!(stopped.block.is_error);
    assert!(stopped.block.content.text().contains("has stopped, and this host cannot continue agents"));

    // An agent cannot write to itself.
    let mut inside = ctx.clone();
    inside.agent_id = Some(scout.id.clone());
    let own = call_tool(tool.as_ref(), "t4", json!({"to": "scout", "summary": "s", "message": "me"}), &inside).await;
    assert!(own.block.is_error);
    registry.shutdown();
}
