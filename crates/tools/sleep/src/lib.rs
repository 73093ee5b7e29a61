//! # agent-tool-sleep: the Sleep tool
//!
//! Waits, as Claude Code's `Sleep` does (its prompt: wait for a given time, interruptible by the
//! user, preferred over `Bash(sleep …)`, usable concurrently, woken early by queued messages):
//!
//! - the input `{duration_ms}`: the longest wait, 0 to [`MAX_DURATION_MS`] (one hour);
//! - it ends early when anything is pushed on the conversation's notification queue
//!   ([`agent_tools_core::NotificationQueue::watch`]): a background task finishing, a message of
//!   another agent, a scheduled prompt, a monitor event. Something already waiting in the queue
//!   ends it at once;
//! - a user interrupt stops it (its interrupt behaviour is `cancel`), as does the call's
//!   cancellation;
//! - the result says how long it slept and why it woke:
//!
//! ```text
//! Slept for 5.0 s.
//! Woke after 1.2 s of 5.0 s: a notification arrived.
//! Woke at once: a notification was already waiting.
//! Interrupted after 0.4 s of 5.0 s.
//! ```
//!
//! with the output `{requested_ms, slept_ms, woke_by}` (`woke_by`: `timeout`, `notification`,
//! `interrupt`). Read-only, concurrency-safe, deferred.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let ctx = ToolUseContext::new("/tmp");
//! let tool = agent_tool_sleep::tool();
//! // (Tokio's paused clock: no real waiting.)
//! let done = call_tool(tool.as_ref(), "toolu_1", serde_json::json!({"duration_ms": 5000}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Slept for 5.0 s.");
//! ctx.notifications().push("b1", "<task-notification>…</task-notification>");
//! let done = call_tool(tool.as_ref(), "toolu_2", serde_json::json!({"duration_ms": 5000}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Woke at once: a notification was already waiting.");
//! # });
//! ```

use agent_tools_core::{Capabilities, ToolKind};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::InterruptBehavior;
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// The API name.
pub const NAME: &str = "Sleep";

/// The longest sleep, in ms: one hour.
pub const MAX_DURATION_MS: u64 = 3_600_000;

/// Sleep's input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepInput {
    /// How long to wait at most, in milliseconds (0 to 3600000). Anything that reaches the
    /// conversation meanwhile ends the wait early.
    #[schemars(range(min = 0, max = 3_600_000))]
    pub duration_ms: u64,
}

/// Why the sleep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WokeBy {
    /// The whole duration passed.
    Timeout,
    /// Something was pushed on the conversation's notification queue (or was waiting already).
    Notification,
    /// The user interrupted, or the call was cancelled.
    Interrupt,
}

/// What Sleep produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SleepOutput {
    /// The duration asked for, ms.
    pub requested_ms: u64,
    /// How long it slept, ms.
    pub slept_ms: u64,
    /// Why it woke.
    pub woke_by: WokeBy,
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// The result text (see the crate docs).
pub fn render(output: &SleepOutput) -> String {
    let (slept, requested) = (seconds(output.slept_ms), seconds(output.requested_ms));
    match output.woke_by {
        WokeBy::Timeout => format!("Slept for {slept}."),
        WokeBy::Notification if output.slept_ms == 0 => "Woke at once: a notification was already waiting.".to_owned(),
        WokeBy::Notification => format!("Woke after {slept} of {requested}: a notification arrived."),
        WokeBy::Interrupt => format!("Interrupted after {slept} of {requested}."),
    }
}

/// The Sleep tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct SleepTool;

/// Sleep, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(SleepTool)
}

impl ToolDef for SleepTool {
    type Input = SleepInput;
    type Output = SleepOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("wait or pause until a notification arrives");

    fn summary(&self, input: &SleepInput) -> String {
        format!("Sleep for {}", seconds(input.duration_ms))
    }

    /// A new message from the user ends a sleep (Claude Code's `interruptBehavior: 'cancel'`).
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn to_auto_classifier_input(&self, input: &SleepInput) -> serde_json::Value {
        serde_json::Value::String(format!("sleep {} ms", input.duration_ms))
    }

    async fn validate_input(&self, input: &SleepInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.duration_ms > MAX_DURATION_MS {
            return ValidationResult::error(
                format!("duration_ms must be at most {MAX_DURATION_MS} (one hour); got {}", input.duration_ms),
                1,
            );
        }
        ValidationResult::Ok
    }

    async fn call(&self, input: SleepInput, ctx: &ToolUseContext) -> Result<ToolResult<SleepOutput>, ToolError> {
        let requested_ms = input.duration_ms.min(MAX_DURATION_MS);
        let queue = ctx.notifications();
        // Taken before looking at the queue, so a push in between still wakes it.
        let mut watch = queue.watch();
        let started = Instant::now();
        let woke_by = if !queue.is_empty() {
            WokeBy::Notification
        } else {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(requested_ms)) => WokeBy::Timeout,
                () = watch.pushed() => WokeBy::Notification,
                () = ctx.cancel.cancelled() => WokeBy::Interrupt,
                () = ctx.interrupt.cancelled() => WokeBy::Interrupt,
            }
        };
        let slept_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX).min(requested_ms);
        let slept_ms = if woke_by == WokeBy::Timeout { requested_ms } else { slept_ms };
        Ok(ToolResult::new(SleepOutput { requested_ms, slept_ms, woke_by }))
    }

    fn map_tool_result(&self, output: &SleepOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render(output))
    }
}
