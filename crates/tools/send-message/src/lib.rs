//! # agent-tool-send-message: the SendMessage tool
//!
//! Claude Code's `SendMessage`: a message to another agent of the session, by the `agentId` or
//! the `name` its Agent call gave it (`*` for every running agent):
//!
//! - a **running** agent finds it queued in its inbox and reads it with its next tool results
//!   (as a `<agent-message from="…">` block);
//! - a **stopped** agent (finished, failed or stopped with TaskStop) is continued with the
//!   message as its next prompt, in the background, through the context's sub-agent runner; its
//!   task runs again under the same id and sends a `<task-notification>` when it ends.
//!
//! Checks, as Claude Code's (error code 9): `to` must not be empty nor contain `@`; a text
//! message needs a `summary`; a structured message cannot go to `*`; a `shutdown_response` goes
//! to `team-lead`; refusing a shutdown needs a `reason`. The result is the output object as JSON
//! text: `{"success", "message", "routing"}`.
//!
//! Read-only for a text message (it changes no file), not concurrency-safe, deferred, as in
//! Claude Code. Teams' mailbox files (`~/.claude/teams/…/inboxes`) are not written here: a name
//! that is no agent of this session is an error the model can act on.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_background::{AgentTaskSpec, TaskRegistry};
//! use agent_tools_core::{invoke::call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! // What the Agent tool does for a background agent named "scout".
//! let spec = AgentTaskSpec { name: Some("scout".into()), ..AgentTaskSpec::default() };
//! let task = TaskRegistry::for_context(&ctx).register_agent(spec).unwrap();
//! let input = serde_json::json!({"to": "scout", "summary": "also check tests", "message": "Look at tests/ too."});
//! let done = call_tool(agent_tool_send_message::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert!(!done.block.is_error, "{}", done.block.content.text());
//! let queued = task.inbox.drain();
//! assert_eq!(queued[0].text, "<agent-message from=\"team-lead\" summary=\"also check tests\">\nLook at tests/ too.\n</agent-message>");
//! # });
//! ```

mod input;

use std::sync::Arc;

use agent_tools_background::{AgentEnd, TaskRegistry, TaskStatus, TaskType};
use agent_tools_core::subagent::task_notification;
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use serde::Serialize;

pub use crate::input::{MessageBody, SendMessageInput, Structured};

/// The tool's API name.
pub const NAME: &str = "SendMessage";

/// The name the main conversation goes by (Claude Code's team lead).
pub const LEAD: &str = "team-lead";

/// Where a message went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Routing {
    /// Who sent it (`team-lead` for the main conversation, else the agent's id).
    pub sender: String,
    /// Who got it: an agent id, or `*`.
    pub target: String,
    /// `queued` (a running agent reads it next), `resumed` (a stopped agent continues with it).
    pub delivery: &'static str,
    /// The summary given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// SendMessage's output (serialised as JSON text for the model).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SendMessageOutput {
    /// Whether it was delivered.
    pub success: bool,
    /// What happened, in words.
    pub message: String,
    /// Where it went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<Routing>,
}

/// The SendMessage tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct SendMessageTool;

/// The tool.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(SendMessageTool)
}

fn sender(ctx: &ToolUseContext) -> String {
    ctx.agent_id.clone().unwrap_or_else(|| LEAD.to_owned())
}

/// `&`, `<`, `>` and `"` as entities, for an attribute or text inside a tag.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The text the recipient reads.
fn letter(from: &str, summary: Option<&str>, message: &MessageBody) -> String {
    let summary = summary.map(|summary| format!(" summary=\"{}\"", escape(summary))).unwrap_or_default();
    let body = match message {
        MessageBody::Text(text) => text.clone(),
        MessageBody::Structured(structured) => structured_text(structured),
    };
    format!("<agent-message from=\"{}\"{summary}>\n{body}\n</agent-message>", escape(from))
}

fn structured_text(message: &Structured) -> String {
    match message {
        Structured::ShutdownRequest { reason } => {
            format!("Please finish what you are doing and stop.{}", reason_text(reason.as_deref()))
        }
        Structured::ShutdownResponse { request_id, approve, reason } => format!(
            "Shutdown request {request_id}: {}.{}",
            if *approve { "approved" } else { "refused" },
            reason_text(reason.as_deref())
        ),
        Structured::PlanApprovalResponse { request_id, approve, feedback } => format!(
            "Plan {request_id}: {}.{}",
            if *approve { "approved" } else { "not approved" },
            feedback.as_deref().map(|text| format!(" Feedback: {text}")).unwrap_or_default()
        ),
    }
}

fn reason_text(reason: Option<&str>) -> String {
    reason.map(|reason| format!(" Reason: {reason}")).unwrap_or_default()
}

fn no_agent(to: &str) -> String {
    format!(
        "No agent '{to}' in this session. Address an agent by the agentId or the name its Agent call gave it; \
         ListAgents shows them."
    )
}

impl ToolDef for SendMessageTool {
    type Input = SendMessageInput;
    type Output = SendMessageOutput;

    const NAME: &'static str = NAME;

    fn search_hint(&self) -> Option<&str> {
        Some("send a message to a running or stopped sub-agent")
    }

    fn summary(&self, input: &SendMessageInput) -> String {
        format!("Message to {}", input.to)
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        include_str!("prompt.md").to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(100_000)
    }

    fn flags(&self) -> ToolFlags {
        ToolFlags::NOTHING
    }

    fn is_read_only(&self, input: &SendMessageInput) -> bool {
        matches!(input.message, MessageBody::Text(_))
    }

    fn should_defer(&self) -> bool {
        true
    }

    async fn validate_input(&self, input: &SendMessageInput, _ctx: &ToolUseContext) -> ValidationResult {
        let to = input.to.trim();
        if to.is_empty() {
            return ValidationResult::error("to must name the recipient: an agent's id or name, or \"*\"", 9);
        }
        if to.contains('@') {
            return ValidationResult::error("to must be an agent's id or name, without '@'", 9);
        }
        match &input.message {
            MessageBody::Text(_) if input.summary.as_deref().is_none_or(|summary| summary.trim().is_empty()) => {
                ValidationResult::error("summary is required when message is a string", 9)
            }
            MessageBody::Structured(_) if to == "*" => {
                ValidationResult::error("structured messages cannot be broadcast (to: \"*\")", 9)
            }
            MessageBody::Structured(Structured::ShutdownResponse { .. }) if to != LEAD => {
                ValidationResult::error(format!("shutdown_response must be sent to \"{LEAD}\""), 9)
            }
            MessageBody::Structured(Structured::ShutdownResponse { approve: false, reason, .. })
                if reason.as_deref().is_none_or(|reason| reason.trim().is_empty()) =>
            {
                ValidationResult::error("reason is required when refusing a shutdown request", 9)
            }
            _ => ValidationResult::Ok,
        }
    }

    async fn call(
        &self,
        input: SendMessageInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<SendMessageOutput>, ToolError> {
        let from = sender(ctx);
        let to = input.to.trim().to_owned();
        let text = letter(&from, input.summary.as_deref(), &input.message);
        let registry = TaskRegistry::existing(ctx).ok_or_else(|| ToolError::failed(no_agent(&to)))?;
        let routing = |target: &str, delivery| Routing {
            sender: from.clone(),
            target: target.to_owned(),
            delivery,
            summary: input.summary.clone(),
        };
        if to == "*" {
            let running: Vec<String> = registry
                .list()
                .into_iter()
                .filter(|task| task.task_type == TaskType::LocalAgent && task.status == TaskStatus::Running)
                .filter(|task| ctx.agent_id.as_deref() != Some(task.id.as_str()))
                .map(|task| task.id)
                .collect();
            if running.is_empty() {
                return Err(ToolError::failed("No other agent is running to receive the message."));
            }
            for id in &running {
                if let Some(inbox) = registry.agent_inbox(id) {
                    inbox.push(format!("message:{from}"), text.clone());
                }
            }
            let message = format!("Message queued for {} running agents: {}", running.len(), running.join(", "));
            return Ok(ToolResult::new(SendMessageOutput {
                success: true,
                message,
                routing: Some(routing("*", "queued")),
            }));
        }
        let task = registry.find_agent(&to).ok_or_else(|| ToolError::failed(no_agent(&to)))?;
        if ctx.agent_id.as_deref() == Some(task.id.as_str()) {
            return Err(ToolError::failed("An agent cannot send a message to itself."));
        }
        let label = task.name.clone().map_or_else(|| task.id.clone(), |name| format!("{name} ({})", task.id));
        if task.status == TaskStatus::Running {
            let inbox = registry.agent_inbox(&task.id).ok_or_else(|| ToolError::failed(no_agent(&to)))?;
            inbox.push(format!("message:{from}"), text);
            return Ok(ToolResult::new(SendMessageOutput {
                success: true,
                message: format!("Message queued for {label}: the agent reads it with its next tool results."),
                routing: Some(routing(&task.id, "queued")),
            }));
        }
        // A stopped agent goes on with the message as its next prompt, in the background.
        let runner = ctx.subagents.clone().ok_or_else(|| {
            ToolError::failed(format!("Agent {label} has stopped, and this host cannot continue agents."))
        })?;
        let restarted = registry
            .restart_agent(&task.id)
            .map_err(|error| ToolError::failed(format!("Agent {label} cannot be continued: {error}")))?;
        let mut own = ctx.clone();
        own.cancel = restarted.cancel;
        own.tool_use_id.clone_from(&task.tool_use_id);
        let (id, output_file, description) =
            (task.id.clone(), task.output_path.display().to_string(), task.description.clone());
        let background = registry;
        tokio::spawn(async move {
            let ended = runner.resume(&id, text, &own).await.map_err(|error| error.to_string());
            let notification = task_notification(&id, own.tool_use_id.as_deref(), &output_file, &description, &ended);
            let end = match &ended {
                Ok(outcome) => AgentEnd {
                    status: TaskStatus::Completed,
                    result: outcome.report(),
                    notification: Some(notification),
                },
                Err(error) => {
                    AgentEnd { status: TaskStatus::Failed, result: error.clone(), notification: Some(notification) }
                }
            };
            background.finish_agent(&id, end);
        });
        Ok(ToolResult::new(SendMessageOutput {
            success: true,
            message: format!(
                "Agent {label} had stopped; it now continues in the background with your message, and you will \
                 be notified when it finishes. Its transcript: {}",
                task.output_path.display()
            ),
            routing: Some(routing(&task.id, "resumed")),
        }))
    }

    fn map_tool_result(&self, output: &SendMessageOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = serde_json::to_string(output).unwrap_or_else(|_| output.message.clone());
        ToolResultBlock::text(tool_use_id, text)
    }
}
