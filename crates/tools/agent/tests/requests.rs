//! What the Agent tool asks its runner for: the mode a custom agent runs in (only ever narrowing
//! the caller's) and the limits its `tools` rules put on its tools; and how an `Agent(<types>)`
//! restriction reads a call.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use agent_tool_agent::definitions::{AgentSource, SourceKind, load_dir, merge};
use agent_tool_agent::{AgentConfig, tool_with};
use agent_tools_core::BoxFuture;
use agent_tools_core::{PermissionMode, ToolPermissionContext, ToolUseContext, call_tool};
use agent_tools_core::{SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner};
use agent_tools_core::{ToolRestriction, subagent_permission_mode};
use serde_json::json;

/// Answers every agent at once and keeps the requests.
#[derive(Default)]
struct Recorder(Mutex<Vec<SubagentRequest>>);

impl SubagentRunner for Recorder {
    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        _: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { Ok(SubagentOutcome { content: vec!["done".into()], ..SubagentOutcome::default() }) })
    }

    fn resume<'a>(
        &'a self,
        id: &'a str,
        _: String,
        _: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        Box::pin(async move { Err(SubagentError::Unknown(id.to_owned())) })
    }

    fn resolve_model(&self, alias: &str, _: &str) -> String {
        alias.to_owned()
    }
}

const MODES: [(&str, PermissionMode); 6] = [
    ("default", PermissionMode::Default),
    ("acceptEdits", PermissionMode::AcceptEdits),
    ("bypassPermissions", PermissionMode::BypassPermissions),
    ("dontAsk", PermissionMode::DontAsk),
    ("plan", PermissionMode::Plan),
    ("auto", PermissionMode::Auto),
];

#[tokio::test]
async fn a_custom_agents_mode_only_narrows_and_its_rules_limit_its_tools() {
    let dir = tempfile::tempdir().unwrap();
    for (name, _) in MODES {
        let text = format!(
            "---\nname: as-{name}\ndescription: Runs in {name}\npermissionMode: {name}\ntools: Read, Bash(git diff:*)\n---\nGo.\n"
        );
        std::fs::write(dir.path().join(format!("as-{name}.md")), text).unwrap();
    }
    let (custom, warnings) = load_dir(dir.path(), SourceKind::Project);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(custom.iter().all(|def| matches!(def.source, AgentSource::Project(_))));
    let tool = tool_with(AgentConfig { definitions: merge(vec![custom]), ..AgentConfig::default() });
    for (_, caller) in MODES {
        for (name, asked) in MODES {
            let recorder = Arc::new(Recorder::default());
            let mut ctx = ToolUseContext::new(dir.path());
            ctx.subagents = Some(recorder.clone());
            ctx.permission_context = Arc::new(ToolPermissionContext {
                mode: caller,
                // Plan mode entered from a bypass session: bypass is available, and still not given.
                is_bypass_permissions_mode_available: true,
                ..ToolPermissionContext::default()
            });
            let input = json!({"description": "Go", "prompt": "go", "subagent_type": format!("as-{name}"),
                               "run_in_background": false});
            let done = call_tool(tool.as_ref(), "toolu_1", input, &ctx).await;
            assert!(!done.block.is_error, "{}", done.block.content.text());
            let request = recorder.0.lock().unwrap().pop().unwrap();
            let mode = request.permission_mode.unwrap();
            assert_eq!(mode, subagent_permission_mode(caller, Some(asked)), "caller {caller}, file {name}");
            assert!(mode.is_at_most(caller), "caller {caller}, file {name}: {mode}");
            if caller == PermissionMode::Plan {
                assert_eq!(mode, PermissionMode::Plan, "file {name}");
            }
            assert_eq!(
                request.tool_restrictions,
                [ToolRestriction { tool_name: "Bash".into(), rule_contents: vec!["git diff:*".into()] }]
            );
        }
    }
}

#[test]
fn an_agent_restriction_reads_the_calls_agent_type() {
    let tool = agent_tool_agent::tool();
    let matches = |input: serde_json::Value, contents: &[&str]| {
        let parsed = tool.parse(input).unwrap();
        let matcher = tool.prepare_restriction_matcher(&parsed).expect("Agent checks its restrictions");
        matcher(&contents.iter().map(|content| (*content).to_owned()).collect::<Vec<_>>())
    };
    let explore = json!({"description": "Look", "prompt": "look", "subagent_type": "Explore"});
    assert!(matches(explore.clone(), &["Explore"]));
    assert!(matches(explore.clone(), &["worker, Explore"]));
    assert!(!matches(explore, &["Plan", "worker"]));
    // No type is the default type.
    assert!(matches(json!({"description": "Do", "prompt": "do"}), &["general-purpose"]));
    assert!(!matches(json!({"description": "Do", "prompt": "do"}), &["Explore"]));
}

#[tokio::test]
async fn an_agent_in_a_worktree_of_its_own_is_checked_as_a_write_of_the_worktrees_folder() {
    let repo = agent_tools_testkit::GitRepo::new();
    let tool = tool_with(AgentConfig::default());
    let isolated = tool
        .parse(json!({"description": "w", "prompt": "p", "isolation": "worktree", "run_in_background": false}))
        .unwrap();
    let shared = tool.parse(json!({"description": "w", "prompt": "p", "run_in_background": false})).unwrap();
    let mut seen = Vec::new();
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::Plan] {
        let mut ctx = ToolUseContext::new(&repo.root);
        ctx.permission_context = Arc::new(ToolPermissionContext { mode, ..ToolPermissionContext::default() });
        seen.push((
            tool.check_permissions(&isolated, &ctx).await.behavior(),
            tool.check_permissions(&shared, &ctx).await.behavior(),
        ));
    }
    assert_eq!(seen, [("passthrough", "allow"), ("allow", "allow"), ("deny", "allow")]);
    assert!(!repo.root.join(".claude/worktrees").exists(), "checking made nothing");
}
