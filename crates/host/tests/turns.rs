//! The executor's turn: concurrency batches (proven with barriers, not sleeps), ordering, context
//! changes, a failed Bash call's siblings left running, interrupts, asking, and size control.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_tools_core::ToolUseBlock;
use agent_tools_core::{BoxFuture, InterruptBehavior};
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use agent_tools_core::{PermissionResult, ToolPermissionContext};
use agent_tools_host::executor::{CANCEL_MESSAGE, INTERRUPTED_MESSAGE};
use agent_tools_host::{Executor, PermissionAnswer, PermissionPrompter, PermissionRequest};
use serde_json::{Value, json};
use tokio::sync::Barrier;

/// What a probe call does, chosen by its input.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProbeInput {
    /// A label recorded in the log.
    label: String,
    /// Wait at the shared barrier (only returns if enough calls run at once).
    #[serde(default)]
    barrier: bool,
    /// Fail with this text.
    #[serde(default)]
    fail: Option<String>,
    /// Wait until cancelled.
    #[serde(default)]
    hold: bool,
    /// Produce this many characters of output.
    #[serde(default)]
    big: Option<usize>,
    /// Change the working directory to this.
    #[serde(default)]
    cd: Option<String>,
    /// A command, as Bash's input has one.
    #[serde(default)]
    #[allow(dead_code)]
    command: Option<String>,
}

#[derive(Default)]
struct Shared {
    log: Mutex<Vec<String>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

struct Probe {
    name: &'static str,
    safe: bool,
    ask: bool,
    interrupt: InterruptBehavior,
    barrier: Arc<Barrier>,
    shared: Arc<Shared>,
}

impl ToolDef for Probe {
    type Input = ProbeInput;
    type Output = String;

    const NAME: &'static str = "Probe";

    fn name(&self) -> &str {
        self.name
    }
    fn summary(&self, input: &ProbeInput) -> String {
        format!("probe {}", input.label)
    }
    fn description(&self, _: &PromptOptions<'_>) -> String {
        "A probe.".into()
    }
    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(1_000)
    }
    fn is_concurrency_safe(&self, _: &ProbeInput) -> bool {
        self.safe
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.interrupt
    }
    async fn check_permissions(&self, _: &ProbeInput, _: &ToolUseContext) -> PermissionResult {
        if self.ask { PermissionResult::passthrough("the probe needs approval") } else { PermissionResult::allow() }
    }
    async fn call(&self, input: ProbeInput, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let now = self.shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.shared.log.lock().unwrap().push(format!("start {}", input.label));
        let outcome = async {
            if input.barrier {
                // A barrier that serial execution could never pass: a bounded wait, so a wrong
                // executor fails the test instead of hanging it.
                tokio::time::timeout(Duration::from_secs(5), self.barrier.wait())
                    .await
                    .map_err(|_| ToolError::failed("barrier never reached: calls did not run together"))?;
            }
            if input.hold {
                ctx.cancel.cancelled().await;
                return Err(ToolError::Cancelled);
            }
            if let Some(text) = input.fail {
                return Err(ToolError::failed(text));
            }
            let text = match input.big {
                Some(size) => "x".repeat(size),
                None => format!("{} in {}", input.label, ctx.cwd.display()),
            };
            let result = ToolResult::new(text);
            Ok(match input.cd {
                Some(dir) => result.with_context_modifier(move |mut ctx| {
                    ctx.cwd = PathBuf::from(dir);
                    ctx
                }),
                None => result,
            })
        }
        .await;
        self.shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.shared.log.lock().unwrap().push(format!("end {}", input.label));
        outcome
    }
    fn map_tool_result(&self, output: &String, id: &str) -> ToolResultBlock {
        ToolResultBlock::text(id, output.clone())
    }
}

struct Setup {
    shared: Arc<Shared>,
    executor: Executor,
}

fn setup(barrier_size: usize) -> Setup {
    let shared = Arc::new(Shared::default());
    let barrier = Arc::new(Barrier::new(barrier_size));
    let probe = |name, safe, ask, interrupt| -> Arc<dyn Tool> {
        build_tool(Probe { name, safe, ask, interrupt, barrier: barrier.clone(), shared: shared.clone() })
    };
    let pool = vec![
        probe("Safe", true, false, InterruptBehavior::Block),
        probe("Serial", false, false, InterruptBehavior::Block),
        probe("Bash", true, false, InterruptBehavior::Block),
        probe("Asker", false, true, InterruptBehavior::Block),
        probe("Stoppable", true, false, InterruptBehavior::Cancel),
    ];
    Setup { shared, executor: Executor::new(pool) }
}

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.into(), name: name.into(), input }
}

fn texts(done: &[agent_tools_core::Invocation]) -> Vec<(String, String, bool)> {
    done.iter().map(|d| (d.block.tool_use_id.clone(), d.block.content.text(), d.block.is_error)).collect()
}

#[tokio::test]
async fn consecutive_safe_calls_run_together_and_results_keep_block_order() {
    let s = setup(3);
    let mut ctx = ToolUseContext::new("/w");
    let calls = [
        block("t1", "Safe", json!({"label": "a", "barrier": true})),
        block("t2", "Safe", json!({"label": "b", "barrier": true})),
        block("t3", "Safe", json!({"label": "c", "barrier": true})),
    ];
    let done = s.executor.run_turn(&calls, &mut ctx).await;
    assert_eq!(
        texts(&done),
        [
            ("t1".into(), "a in /w".into(), false),
            ("t2".into(), "b in /w".into(), false),
            ("t3".into(), "c in /w".into(), false)
        ]
    );
    assert_eq!(s.shared.max_in_flight.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_serial_call_splits_batches_and_runs_alone() {
    let s = setup(2);
    let mut ctx = ToolUseContext::new("/w");
    let calls = [
        block("t1", "Safe", json!({"label": "a", "barrier": true})),
        block("t2", "Safe", json!({"label": "b", "barrier": true})),
        block("t3", "Serial", json!({"label": "w", "cd": "/elsewhere"})),
        block("t4", "Safe", json!({"label": "c"})),
        block("t5", "Safe", json!({"label": "d"})),
    ];
    let done = s.executor.run_turn(&calls, &mut ctx).await;
    let log = s.shared.log.lock().unwrap().clone();
    let position = |entry: &str| log.iter().position(|e| e == entry).unwrap();
    // The serial call starts after both batch members ended, and ends before the next batch.
    assert!(position("start w") > position("end a") && position("start w") > position("end b"), "{log:?}");
    assert!(position("end w") < position("start c") && position("end w") < position("start d"), "{log:?}");
    // Its cd applies before the next block.
    assert_eq!(done[3].block.content.text(), "c in /elsewhere");
    assert_eq!(ctx.cwd, PathBuf::from("/elsewhere"));
}

#[tokio::test]
async fn the_concurrency_cap_holds() {
    let s = setup(1);
    let executor = s.executor.clone().with_max_concurrency(2);
    let mut ctx = ToolUseContext::new("/w");
    let calls: Vec<ToolUseBlock> =
        (0..6).map(|i| block(&format!("t{i}"), "Safe", json!({"label": format!("{i}")}))).collect();
    let done = executor.run_turn(&calls, &mut ctx).await;
    assert_eq!(done.len(), 6);
    assert!(s.shared.max_in_flight.load(Ordering::SeqCst) <= 2);
}

/// Claude Code 2.1's `par-bash-error-siblings`: a Bash call that fails in a batch leaves its
/// siblings running to the end.
#[tokio::test]
async fn a_failing_bash_call_leaves_its_siblings_running() {
    // Both calls meet at a barrier: they run at once, and the sibling finishes after the failure.
    let s = setup(2);
    let mut ctx = ToolUseContext::new("/w");
    let calls = [
        block("t1", "Safe", json!({"label": "slow", "barrier": true})),
        block(
            "t2",
            "Bash",
            json!({"label": "b", "command": "ls /nonexistent", "fail": "Exit code 2", "barrier": true}),
        ),
        block("t3", "Serial", json!({"label": "after"})),
    ];
    let done = s.executor.run_turn(&calls, &mut ctx).await;
    assert_eq!(
        texts(&done),
        [
            ("t1".into(), "slow in /w".into(), false),
            ("t2".into(), "Exit code 2".into(), true),
            ("t3".into(), "after in /w".into(), false),
        ]
    );
}

#[tokio::test]
async fn an_interrupt_stops_only_calls_that_cancel_on_interrupt() {
    let s = setup(1);
    let ctx = ToolUseContext::new("/w");
    let interrupt = ctx.interrupt.clone();
    let executor = s.executor.clone();
    let stoppable = tokio::spawn({
        let ctx = ctx.clone();
        let executor = executor.clone();
        async move { executor.run_tool_use(&block("t1", "Stoppable", json!({"label": "s", "hold": true})), &ctx).await }
    });
    let blocking = tokio::spawn({
        let ctx = ctx.clone();
        async move { executor.run_tool_use(&block("t2", "Safe", json!({"label": "b"})), &ctx).await }
    });
    // The blocking call finishes on its own; the stoppable one waits for the interrupt.
    assert_eq!(blocking.await.unwrap().block.content.text(), "b in /w");
    interrupt.cancel();
    let stopped = stoppable.await.unwrap();
    assert_eq!((stopped.block.content.text().as_str(), stopped.block.is_error), (INTERRUPTED_MESSAGE, true));
    // A cancelled turn runs nothing more.
    ctx.cancel.cancel();
    let skipped = s.executor.run_tool_use(&block("t3", "Safe", json!({"label": "x"})), &ctx).await;
    assert_eq!(skipped.block.content.text(), CANCEL_MESSAGE);
}

struct Answers {
    answers: Mutex<Vec<PermissionAnswer>>,
    asked: Mutex<Vec<PermissionRequest>>,
}

impl PermissionPrompter for Answers {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        self.asked.lock().unwrap().push(request.clone());
        let answer = self.answers.lock().unwrap().remove(0);
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn asks_go_to_the_prompter_and_allow_always_sticks_for_the_session() {
    let s = setup(1);
    let answers = Arc::new(Answers {
        answers: Mutex::new(vec![
            PermissionAnswer::Deny { feedback: Some("not now".into()) },
            PermissionAnswer::AllowOnce,
            PermissionAnswer::AllowAlways,
        ]),
        asked: Mutex::new(Vec::new()),
    });
    let executor = s.executor.clone().with_prompter(answers.clone());
    let mut ctx = ToolUseContext::new("/w");
    let calls = [
        block("t1", "Asker", json!({"label": "one"})),
        block("t2", "Asker", json!({"label": "two"})),
        block("t3", "Asker", json!({"label": "three"})),
        block("t4", "Asker", json!({"label": "four"})),
    ];
    let done = executor.run_turn(&calls, &mut ctx).await;
    assert_eq!(
        done[0].block.content.text(),
        "The user declined this tool use, so it did not run (a file edit, for example, was not written). Stop and wait for the user to say how to go on. The user said: not now"
    );
    assert!(done[0].block.is_error);
    assert_eq!(done[1].block.content.text(), "two in /w");
    assert_eq!(done[2].block.content.text(), "three in /w");
    // Allowed always: the fourth call is not asked.
    assert_eq!(done[3].block.content.text(), "four in /w");
    let asked = answers.asked.lock().unwrap();
    assert_eq!(asked.len(), 3);
    assert_eq!(asked[0].summary, "probe one");
    assert_eq!(asked[0].message, "the probe needs approval");
    assert_eq!(ctx.permission_context.always_allow_rules.values().flatten().collect::<Vec<_>>(), ["Asker"]);
}

#[tokio::test]
async fn dont_ask_mode_and_nobody_to_ask_refuse() {
    let s = setup(1);
    let mut ctx = ToolUseContext::new("/w");
    let done = s.executor.run_tool_use(&block("t1", "Asker", json!({"label": "x"})), &ctx).await;
    assert!(done.block.content.text().starts_with(
        "Permission to use Asker has been denied: this call needs approval and no one is available to give it."
    ));
    ctx.permission_context =
        Arc::new(ToolPermissionContext { mode: agent_tools_core::PermissionMode::DontAsk, ..Default::default() });
    let prompter =
        Arc::new(Answers { answers: Mutex::new(vec![PermissionAnswer::AllowOnce]), asked: Mutex::new(Vec::new()) });
    let done = s
        .executor
        .clone()
        .with_prompter(prompter.clone())
        .run_tool_use(&block("t2", "Asker", json!({"label": "x"})), &ctx)
        .await;
    assert!(
        done.block
            .content
            .text()
            .starts_with("Permission to use Asker has been denied because the session runs in don't-ask mode.")
    );
    assert!(prompter.asked.lock().unwrap().is_empty(), "dontAsk never asks");
}

#[tokio::test]
async fn a_prompter_that_cannot_ask_refuses_without_blaming_the_user() {
    let s = setup(1);
    let ctx = ToolUseContext::new("/w");
    let prompter = Arc::new(Answers {
        answers: Mutex::new(vec![PermissionAnswer::Unavailable { why: "the client has no dialogs".into() }]),
        asked: Mutex::new(Vec::new()),
    });
    let done = s
        .executor
        .clone()
        .with_prompter(prompter)
        .run_tool_use(&block("t1", "Asker", json!({"label": "x"})), &ctx)
        .await;
    assert!(done.block.is_error);
    assert_eq!(
        done.block.content.text(),
        "Permission to use Asker has been denied: this call needs approval and no one could be asked (the client has no dialogs). the probe needs approval"
    );
}

#[tokio::test]
async fn oversized_results_are_saved_in_the_session_folder() {
    let s = setup(1);
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolUseContext::new("/w");
    ctx.options.session_dir = Some(dir.path().to_path_buf());
    let done = s.executor.run_tool_use(&block("toolu_big", "Safe", json!({"label": "x", "big": 5000})), &ctx).await;
    let saved = dir.path().join("tool-results/toolu_big.txt");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "x".repeat(5000));
    let text = done.block.content.text();
    assert!(
        text.starts_with(&format!(
            "<persisted-output>\nOutput too large (4.9KB). Full output saved to: {}\n",
            saved.display()
        )),
        "{text}"
    );
    assert!(text.ends_with(&format!("{}\n...\n</persisted-output>", "x".repeat(2000))));
}
