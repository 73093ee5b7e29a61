//! # agent-tool-repl: the REPL tool (programmatic tool calling)
//!
//! A JavaScript context, kept for the conversation, in which every tool of the pool is an async
//! function: `await Read({file_path: "src/main.rs"})`, `await tools.Grep({pattern: "TODO"})`,
//! MCP tools by their full name (`mcp__server__tool`). A loop over fifty files is one call of this
//! tool instead of fifty turns. Claude Code 2.1.332 has the same tool (name `REPL`, alias `Eval`,
//! input `{code, description?, timeout?}`) for its internal users; its source is not public, so
//! the result format here is ours.
//!
//! - **The same calls**: each inner call goes through the host's executor
//!   ([`agent_tools_core::ToolCaller`]): strict parsing, validation, hooks, permission
//!   rules and questions, size control; a denied path is refused exactly as a direct call is.
//!   Calls the model could not make, the script cannot either.
//! - **Results**: a tool function resolves to the tool's output object (its `structuredContent`:
//!   `Glob`'s `filenames`, `Bash`'s `stdout` …) whose non-enumerable `text` (and `toString()`)
//!   is the result text the model would read; an error result rejects with an `Error` whose
//!   message is that text.
//! - **Batching**: calls started together (`Promise.all`) run at once when they are
//!   concurrency-safe, one at a time otherwise, at most [`MAX_PARALLEL_CALLS`] at once, in the
//!   order they were made — the executor's rule for a turn's calls
//!   ([`runs_concurrently`](agent_tools_core::runs_concurrently)).
//! - **The result**: what `console.log` printed, then the value of the script's last expression
//!   (strings as they are, other values as JSON). An uncaught error is an error result with its
//!   `repl:LINE:COLUMN`.
//! - **Limits**: `timeout` (ms, default [`DEFAULT_TIMEOUT_MS`], at most [`MAX_TIMEOUT_MS`]) counts
//!   the tool calls too and stops a busy loop through QuickJS's interrupt handler; the heap is
//!   capped at [`MEMORY_LIMIT`] bytes. Either ends the script with an error and keeps the context.
//!   There is no module loader, file system, network or process access but through the tools.
//! - **State**: `let`, `const`, functions and globals persist between calls of one conversation
//!   (a sub-agent has its own context).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! let repl = agent_tool_repl::tool();
//! let done = call_tool(repl.as_ref(), "toolu_1", json!({"code": "let n = [1, 2, 3].map(x => x * 2); n"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "[\n  2,\n  4,\n  6\n]");
//! // The context is kept: `n` is still there.
//! let done = call_tool(repl.as_ref(), "toolu_2", json!({"code": "console.log('sum', n.reduce((a, b) => a + b))"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "sum 12");
//! # });
//! ```

mod engine;

use agent_tools_core::{Capabilities, ToolKind};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::PermissionDecisionReason;
use agent_tools_core::{InnerResult, ToolCaller};
use agent_tools_core::{
    MaxResultSize, PermissionResult, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::engine::SCRIPT_NAME;
use crate::engine::{Engine, Event, Job, Limits, Outcome, Reply};

/// The API name.
pub const NAME: &str = "REPL";

/// The alias Claude Code gives it.
pub const ALIAS: &str = "Eval";

/// Default time a script may take, tool calls included, in milliseconds (2 minutes).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// The longest `timeout` accepted, in milliseconds (10 minutes, Bash's limit).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Bytes the script's heap may use (256 MiB).
pub const MEMORY_LIMIT: usize = 256 << 20;

/// Bytes of native stack for the script (deep recursion past it is a `RangeError`).
pub const STACK_LIMIT: usize = 4 << 20;

/// The largest result kept inline, in characters (a longer one is saved to a file and
/// previewed, as for every tool).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// Inner calls run at once at most (the executor's default for a turn).
pub const MAX_PARALLEL_CALLS: usize = 10;

/// The longest script accepted, in characters.
pub const MAX_CODE_CHARS: usize = 200_000;

/// The REPL's input (Claude Code's field names).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplInput {
    /// The JavaScript to run: global code with top-level `await`; its last expression's value
    /// is returned.
    pub code: String,
    /// What the script does, in a few words (shown to the user).
    #[serde(default)]
    pub description: Option<String>,
    /// How long the script may take in all, tool calls included, in milliseconds (default
    /// 120000, at most 600000).
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// What a REPL call returns (the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplOutput {
    /// What `console.log` and friends printed.
    pub console: String,
    /// The last expression's value as text; absent for `undefined`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How many tool calls the script made.
    pub tool_calls: u32,
}

/// The REPL tool definition. `deferred`: whether its schema waits for ToolSearch (outside REPL
/// mode, where it is one tool among many); in REPL mode it is the model's main tool and is not.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplTool {
    /// See the type's docs.
    pub deferred: bool,
}

/// The REPL tool, not deferred (REPL mode, or a host that wants it up front).
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ReplTool { deferred: false })
}

/// The REPL tool, deferred until ToolSearch loads it (outside REPL mode).
pub fn deferred_tool() -> Arc<dyn Tool> {
    build_tool(ReplTool { deferred: true })
}

/// The conversation's engine, kept in its app state.
struct Installed(Arc<Engine>);

impl ToolDef for ReplTool {
    type Input = ReplInput;
    type Output = ReplOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Execute)
        .search_hint("run JavaScript that calls many tools in one step (loops, batches)");

    fn aliases(&self) -> &[&str] {
        &[ALIAS]
    }

    fn summary(&self, input: &ReplInput) -> String {
        input.description.clone().unwrap_or_else(|| first_line(&input.code))
    }

    fn to_auto_classifier_input(&self, input: &ReplInput) -> Value {
        Value::String(input.code.clone())
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_CHARS)
    }

    fn should_defer(&self) -> bool {
        self.deferred
    }

    fn activity_description(&self, input: &ReplInput) -> Option<String> {
        Some(input.description.clone().unwrap_or_else(|| "Running a script".to_owned()))
    }

    async fn validate_input(&self, input: &ReplInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.code.trim().is_empty() {
            return ValidationResult::error("The script is empty: give `code` some JavaScript to run.", 1);
        }
        if input.code.chars().count() > MAX_CODE_CHARS {
            return ValidationResult::error(
                format!("The script is longer than {MAX_CODE_CHARS} characters; split it into smaller calls."),
                2,
            );
        }
        match input.timeout {
            Some(0) => ValidationResult::error("`timeout` must be at least 1 millisecond.", 3),
            Some(ms) if ms > MAX_TIMEOUT_MS => {
                ValidationResult::error(format!("`timeout` is at most {MAX_TIMEOUT_MS} milliseconds, not {ms}."), 3)
            }
            _ => ValidationResult::Ok,
        }
    }

    /// The script itself needs no permission: every tool call it makes is checked as the same
    /// direct call would be (deny rules naming `REPL` still remove or refuse it). The reason says
    /// so, which is what lets the host's plan-mode hold (for tools that execute) pass it.
    async fn check_permissions(&self, _input: &ReplInput, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Other {
                reason: "each tool call the script makes is checked on its own".into(),
            }),
        }
    }

    async fn call(&self, input: ReplInput, ctx: &ToolUseContext) -> Result<ToolResult<ReplOutput>, ToolError> {
        let engine = engine_for(ctx)?;
        let caller = ctx.tool_caller.clone();
        let tools: Vec<String> = caller
            .as_ref()
            .map(|caller| {
                caller.tools().iter().map(|tool| tool.name().to_owned()).filter(|name| name != NAME).collect()
            })
            .unwrap_or_default();
        let timeout = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_TIMEOUT_MS));
        let (events, mut inbox) = tokio::sync::mpsc::unbounded_channel();
        let (replies, outbox) = std::sync::mpsc::channel();
        engine
            .submit(Job { code: input.code, timeout, tools: tools.clone(), events, replies: outbox })
            .map_err(ToolError::failed)?;
        let mut calls = Calls {
            caller: caller.as_deref(),
            tools: &tools,
            ctx,
            prefix: ctx.tool_use_id.clone().unwrap_or_else(|| "toolu_repl".to_owned()),
            queued: VecDeque::new(),
            running: FuturesUnordered::new(),
            unsafe_running: 0,
        };
        let outcome = loop {
            calls.start_what_can_run();
            tokio::select! {
                event = inbox.recv() => match event {
                    Some(Event::Call { id, name, input }) => calls.queued.push_back((id, name, input)),
                    Some(Event::Done(outcome)) => break outcome,
                    None => return Err(ToolError::failed("the JavaScript context stopped unexpectedly")),
                },
                Some((id, safe, result)) = calls.running.next(), if !calls.running.is_empty() => {
                    if !safe {
                        calls.unsafe_running -= 1;
                    }
                    let data = result.data.map(|data| data.to_string());
                    let _ = replies.send(Reply::Settle { id, ok: !result.is_error, text: result.text, data });
                }
                () = ctx.cancel.cancelled() => {
                    engine.interrupt();
                    let _ = replies.send(Reply::Stop);
                    // The thread answers with its outcome once the script has stopped.
                    while let Some(event) = inbox.recv().await {
                        if let Event::Done(_) = event {
                            break;
                        }
                    }
                    return Err(ToolError::failed("The script was stopped: the call was interrupted."));
                }
            }
        };
        finish(outcome)
    }

    fn map_tool_result(&self, output: &ReplOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render(output))
    }
}

/// The result text: the console lines, then the value; `(no output)` when there is neither.
pub fn render(output: &ReplOutput) -> String {
    let mut text = output.console.trim_end_matches('\n').to_owned();
    if let Some(value) = &output.value {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(value);
    }
    if text.is_empty() { "(no output)".to_owned() } else { text }
}

fn finish(outcome: Outcome) -> Result<ToolResult<ReplOutput>, ToolError> {
    if let Some(error) = outcome.error {
        let console = outcome.console.trim_end_matches('\n');
        let text = if console.is_empty() { error } else { format!("{console}\n{error}") };
        return Err(ToolError::failed(text));
    }
    Ok(ToolResult::new(ReplOutput { console: outcome.console, value: outcome.value, tool_calls: outcome.calls }))
}

/// The conversation's engine, started on first use.
fn engine_for(ctx: &ToolUseContext) -> Result<Arc<Engine>, ToolError> {
    if let Some(engine) = ctx.app_state.with(|state| state.get::<Installed>().map(|installed| Arc::clone(&installed.0)))
    {
        return Ok(engine);
    }
    let engine =
        Arc::new(Engine::start(Limits { memory: MEMORY_LIMIT, stack: STACK_LIMIT }).map_err(ToolError::failed)?);
    // Two first calls at once: the first one stored wins, the other engine is dropped.
    Ok(ctx.app_state.with(|state| {
        if let Some(installed) = state.get::<Installed>() {
            return Arc::clone(&installed.0);
        }
        state.set(Installed(Arc::clone(&engine)));
        engine
    }))
}

type Running<'a> = FuturesUnordered<futures_util::future::BoxFuture<'a, (u32, bool, InnerResult)>>;

/// The script's tool calls: queued in the order made, started by the executor's batching rule.
struct Calls<'a> {
    caller: Option<&'a dyn ToolCaller>,
    tools: &'a [String],
    ctx: &'a ToolUseContext,
    prefix: String,
    queued: VecDeque<(u32, String, String)>,
    running: Running<'a>,
    unsafe_running: usize,
}

impl<'a> Calls<'a> {
    /// Starts queued calls while the next one may run: a concurrency-safe call beside other
    /// safe ones, any other call alone; [`MAX_PARALLEL_CALLS`] at most.
    fn start_what_can_run(&mut self) {
        while let Some((id, name, input)) = self.queued.front().cloned() {
            if self.running.len() >= MAX_PARALLEL_CALLS || self.unsafe_running > 0 {
                return;
            }
            let parsed: Result<Value, String> =
                serde_json::from_str(&input).map_err(|error| format!("the input is not JSON: {error}"));
            let safe = match (&parsed, self.tool(&name)) {
                (Ok(input), Some(tool)) => agent_tools_core::runs_concurrently(Some(tool.as_ref()), input),
                // Answered at once, without the executor.
                _ => true,
            };
            if !safe && !self.running.is_empty() {
                return;
            }
            self.queued.pop_front();
            if !safe {
                self.unsafe_running += 1;
            }
            let future = self.start(id, name, parsed);
            self.running.push(Box::pin(async move { (id, safe, future.await) }));
        }
    }

    fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let caller = self.caller?;
        caller.tools().iter().find(|tool| tool.name() == name).cloned()
    }

    fn start(
        &self,
        id: u32,
        name: String,
        input: Result<Value, String>,
    ) -> futures_util::future::BoxFuture<'a, InnerResult> {
        let refused = |text: String| -> futures_util::future::BoxFuture<'a, InnerResult> {
            Box::pin(std::future::ready(InnerResult { text, is_error: true, data: None }))
        };
        let Some(caller) = self.caller else {
            return refused("No tools can be called here: this REPL runs outside a tool executor.".to_owned());
        };
        if !self.tools.contains(&name) {
            return refused(format!("No such tool available to scripts: {name}"));
        }
        let input = match input {
            Ok(input) => input,
            Err(why) => return refused(why),
        };
        let ctx = self.ctx;
        let call_id = format!("{}_{id}", self.prefix);
        Box::pin(async move { caller.call(call_id, name, input, ctx).await })
    }
}

fn first_line(code: &str) -> String {
    let line = code.lines().find(|line| !line.trim().is_empty()).unwrap_or_default().trim();
    let mut short: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_the_console_then_the_value() {
        let output = |console: &str, value: Option<&str>| ReplOutput {
            console: console.into(),
            value: value.map(str::to_owned),
            tool_calls: 0,
        };
        assert_eq!(render(&output("a\nb\n", Some("42"))), "a\nb\n42");
        assert_eq!(render(&output("", Some("42"))), "42");
        assert_eq!(render(&output("x\n", None)), "x");
        assert_eq!(render(&output("", None)), "(no output)");
    }

    #[test]
    fn the_summary_is_the_description_or_the_first_line() {
        assert_eq!(first_line("\n  const x = 1;\nx"), "const x = 1;");
        assert_eq!(first_line(&"y".repeat(100)).chars().count(), 81);
    }
}
