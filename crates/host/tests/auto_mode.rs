//! Auto mode (`--permission-mode auto`): the classifier judges what would ask, and fails closed.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};

use agent_tools_core::BoxFuture;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::{PermissionBehavior, PermissionMode, PermissionRuleSource, ToolPermissionContext};
use agent_tools_core::{ToolUseContext, build_tool};
use agent_tools_host::{AutoClassifier, ClassifierRequest, ClassifierVerdict, Executor};
use common::TestTool;
use serde_json::json;

/// Allows "ok …", blocks "rm …", cannot judge anything else; remembers what it saw.
#[derive(Default)]
struct Scripted {
    seen: Mutex<Vec<String>>,
}

impl AutoClassifier for Scripted {
    fn classify<'a>(&'a self, request: &'a ClassifierRequest) -> BoxFuture<'a, ClassifierVerdict> {
        let text = request.input.as_str().unwrap_or_default().to_owned();
        self.seen.lock().unwrap().push(format!("{}: {text}", request.tool_name));
        Box::pin(async move {
            if text.starts_with("ok") {
                ClassifierVerdict::Allow
            } else if text.starts_with("rm") {
                ClassifierVerdict::Block("it removes files the user did not mention".into())
            } else {
                ClassifierVerdict::Unavailable("no answer".into())
            }
        })
    }
}

fn ctx(mode: PermissionMode, rules: &[(PermissionBehavior, &str)]) -> ToolUseContext {
    let mut permissions = ToolPermissionContext { mode, ..Default::default() };
    for (behavior, rule) in rules {
        permissions = permissions.with_rule(*behavior, PermissionRuleSource::Session, *rule);
    }
    let mut ctx = ToolUseContext::new(std::env::temp_dir());
    ctx.permission_context = Arc::new(permissions);
    ctx
}

fn call(name: &str, text: &str) -> ToolUseBlock {
    ToolUseBlock { id: "toolu_1".into(), name: name.into(), input: json!({"text": text}) }
}

#[tokio::test]
async fn the_classifier_decides_what_would_ask_and_fails_closed() {
    let judged = build_tool(TestTool { judged: true, asks: true, ..TestTool::named("Judged") });
    let silent = build_tool(TestTool { asks: true, ..TestTool::named("Silent") });
    let classifier = Arc::new(Scripted::default());
    let executor = Executor::new(vec![judged, silent]).with_classifier(classifier.clone());
    let auto = ctx(PermissionMode::Auto, &[]);

    let done = executor.run_tool_use(&call("Judged", "ok build"), &auto).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());

    let done = executor.run_tool_use(&call("Judged", "rm -rf src"), &auto).await;
    assert!(done.block.is_error && done.permission_denied);
    assert_eq!(
        done.block.content.text(),
        "Permission to use Judged has been denied by the auto mode's safety check: it removes files the user did not mention"
    );

    // No verdict: asked as in the default mode, and nobody can answer here.
    let done = executor.run_tool_use(&call("Judged", "something else"), &auto).await;
    assert!(done.block.is_error && done.block.content.text().contains("(auto mode: no answer)"));

    // A tool that gives the classifier nothing is never approved by it, and never put to it.
    let done = executor.run_tool_use(&call("Silent", "ok build"), &auto).await;
    assert!(done.block.is_error, "{}", done.block.content.text());
    assert!(done.block.content.text().contains("Silent calls are not judged automatically"));

    // An ask rule insists on the user: the classifier is not asked.
    let asked = ctx(PermissionMode::Auto, &[(PermissionBehavior::Ask, "Judged")]);
    let done = executor.run_tool_use(&call("Judged", "ok but asked"), &asked).await;
    assert!(done.block.is_error);
    // Outside auto mode the classifier is never asked.
    let done = executor.run_tool_use(&call("Judged", "ok in default"), &ctx(PermissionMode::Default, &[])).await;
    assert!(done.block.is_error);

    assert_eq!(*classifier.seen.lock().unwrap(), ["Judged: ok build", "Judged: rm -rf src", "Judged: something else"]);
}
