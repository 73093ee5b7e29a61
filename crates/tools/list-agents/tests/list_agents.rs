//! ListAgents over a real task registry.
#![allow(clippy::unwrap_used)]

use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::json;

fn spec(description: &str, agent_type: &str, name: Option<&str>) -> AgentTaskSpec {
    AgentTaskSpec {
        description: description.into(),
        agent_type: agent_type.into(),
        name: name.map(str::to_owned),
        ..AgentTaskSpec::default()
    }
}

#[tokio::test]
async fn agents_are_listed_newest_first_filtered_and_paged() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_list_agents::tool();
    let empty = call_tool(tool.as_ref(), "t0", json!({}), &ctx).await;
    assert_eq!(empty.block.content.text(), "No agents in this session.");

    let registry = TaskRegistry::for_context(&ctx);
    let first = registry.register_agent(spec("Find the parser", "Explore", None)).unwrap();
    let second = registry.register_agent(spec("Survey tests", "general-purpose", Some("scout"))).unwrap();
    registry.finish_agent(
        &first.id,
        AgentEnd { status: TaskStatus::Completed, result: "found".into(), notification: None },
    );
    let all = call_tool(tool.as_ref(), "t1", json!({}), &ctx).await;
    assert_eq!(
        all.block.content.text(),
        format!(
            "2 agents:\n- {} (scout) general-purpose, running: Survey tests\n- {} Explore, completed: Find the parser",
            second.id, first.id
        )
    );
    let by_text = call_tool(tool.as_ref(), "t2", json!({"q": "PARSER"}), &ctx).await;
    assert_eq!(by_text.block.content.text(), format!("1 agent:\n- {} Explore, completed: Find the parser", first.id));
    let by_type = call_tool(tool.as_ref(), "t3", json!({"channel": "general-purpose"}), &ctx).await;
    assert!(by_type.block.content.text().starts_with("1 agent:\n- ") && by_type.block.content.text().contains("scout"));

    for n in 0..agent_tool_list_agents::PAGE {
        registry.register_agent(spec(&format!("more {n}"), "general-purpose", None)).unwrap();
    }
    let page = call_tool(tool.as_ref(), "t4", json!({}), &ctx).await;
    let text = page.block.content.text();
    assert!(text.starts_with(&format!("{} agents:", agent_tool_list_agents::PAGE + 2)), "{text}");
    assert!(text.ends_with("More agents: call again with cursor \"50\"."), "{text}");
    let next = call_tool(tool.as_ref(), "t5", json!({"cursor": "50"}), &ctx).await;
    let text = next.block.content.text();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.ends_with("Explore, completed: Find the parser"), "{text}");
    let bad = call_tool(tool.as_ref(), "t6", json!({"cursor": "abc"}), &ctx).await;
    assert!(bad.block.is_error);
    let long = call_tool(tool.as_ref(), "t7", json!({"q": "x".repeat(257)}), &ctx).await;
    assert!(long.block.is_error, "q is at most 256 characters");
    registry.shutdown();
}
