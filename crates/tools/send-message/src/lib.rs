//! # agent-tool-send-message: the SendMessage tool
//!
//! Claude Code's `SendMessage`: a message to another agent of the session, by the `agentId` or
//! the `name` its Agent call gave it, or to a teammate (`*` for every running agent and tmux
//! teammate):
//!
//! - a **running** agent finds it queued in its inbox and reads it with its next tool results
//!   (as a `<agent-message from="…">` block);
//! - a **stopped** agent (finished, failed or stopped with TaskStop) is continued with the
//!   message as its next prompt, in the background, through the context's sub-agent runner; its
//!   task runs again under the same id and sends a `<task-notification>` when it ends;
//! - a **teammate** of the caller's team (TeamCreate) that is no agent task here — a tmux
//!   teammate in its own process — or the team's lead (`to: "team-lead"`, from a teammate), by
//!   name or as `<name>@<team>`, finds it in its mailbox file (`<team>/inboxes/<name>.json`,
//!   Claude Code's `Message sent to <name>'s inbox`); a structured message goes there as its
//!   JSON. `*` reaches the running agents and the tmux teammates' mailboxes.
//!
//! The sender is `team-lead` for the main conversation, a teammate's name for a teammate
//! (in-process or tmux), else the sending sub-agent's id.
//!
//! Checks, as Claude Code's (error code 9): `to` must not be empty nor contain `@` (except
//! `<name>@<team>` for the caller's own team); a text message needs a `summary`; a structured
//! message cannot go to `*`; a `shutdown_response` goes to `team-lead`; refusing a shutdown
//! needs a `reason`. The result is the output object as JSON text: `{"success", "message",
//! "routing"}`.
//!
//! Read-only for a text message (it changes no file of the project), not concurrency-safe,
//! deferred, as in Claude Code. A name that is neither an agent of this session nor a member of
//! its team is an error the model can act on.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_background::{AgentTaskSpec, TaskRegistry};
//! use agent_tools_core::{call_tool, ToolUseContext};
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

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_background::{AgentEnd, TaskRegistry, TaskStatus, TaskType};
use agent_tools_core::task_notification;
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_team::{Backend, Message, Team};
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

/// Who sends: the caller's name in its team (`team-lead` for the lead, a teammate's name),
/// else its agent id, else `team-lead` (the main conversation).
fn sender(ctx: &ToolUseContext, team: Option<&(Team, String)>) -> String {
    match team {
        Some((_, name)) => name.clone(),
        None => ctx.agent_id.clone().unwrap_or_else(|| LEAD.to_owned()),
    }
}

/// `to` as `<name>@<team>` for the caller's own team: the name.
fn team_address<'a>(to: &'a str, team: Option<&(Team, String)>) -> Option<&'a str> {
    let (name, team_name) = to.split_once('@')?;
    let (team, _) = team?;
    (!name.is_empty() && team_name == team.name()).then_some(name)
}

/// The mailbox `to` names in `team`: `team-lead`, or a member (by its name, in any case).
fn team_recipient(team: &Team, to: &str) -> Option<String> {
    if to == LEAD {
        return Some(LEAD.to_owned());
    }
    let name = agent_tools_team::sanitize_name(to).ok()?;
    team.load().ok()?.member(&name).map(|member| member.name.clone())
}

/// The text a mailbox holds: the text, or the structured message as JSON.
fn mailbox_text(message: &MessageBody) -> String {
    match message {
        MessageBody::Text(text) => text.clone(),
        MessageBody::Structured(structured) => {
            serde_json::to_string(structured).unwrap_or_else(|_| structured_text(structured))
        }
    }
}

/// Appends to a mailbox off the async threads (the mailbox's lock may be held for a moment).
async fn post(team: &Team, to: &str, message: Message) -> Result<(), ToolError> {
    let (team, to) = (team.clone(), to.to_owned());
    tokio::task::spawn_blocking(move || team.append_message(&to, message))
        .await
        .map_err(|error| ToolError::internal(format!("the mailbox write failed: {error}")))?
        .map_err(|error| ToolError::failed(format!("The message could not be delivered: {error}")))
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

fn no_recipient(to: &str, team: Option<&(Team, String)>) -> String {
    let Some((team, _)) = team else { return no_agent(to) };
    let members: Vec<String> =
        team.load().map(|file| file.members.into_iter().map(|member| member.name).collect()).unwrap_or_default();
    format!(
        "{} Team '{}' has: {LEAD}{}{}.",
        no_agent(to),
        team.name(),
        if members.is_empty() { "" } else { ", " },
        members.join(", ")
    )
}

impl ToolDef for SendMessageTool {
    type Input = SendMessageInput;
    type Output = SendMessageOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::Team)
        .dispatch()
        .deferred()
        .search_hint("send a message to a running or stopped sub-agent");

    fn summary(&self, input: &SendMessageInput) -> String {
        format!("Message to {}", input.to)
    }

    fn is_read_only(&self, input: &SendMessageInput) -> bool {
        matches!(input.message, MessageBody::Text(_))
    }

    async fn validate_input(&self, input: &SendMessageInput, ctx: &ToolUseContext) -> ValidationResult {
        let to = input.to.trim();
        if to.is_empty() {
            return ValidationResult::error("to must name the recipient: an agent's id or name, or \"*\"", 9);
        }
        // `<name>@<team>` only for the caller's own team.
        if to.contains('@') && team_address(to, agent_tools_team::team_of(ctx).as_ref()).is_none() {
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
        let team = agent_tools_team::team_of(ctx);
        let from = sender(ctx, team.as_ref());
        let trimmed = input.to.trim();
        let to = team_address(trimmed, team.as_ref()).unwrap_or(trimmed).to_owned();
        let text = letter(&from, input.summary.as_deref(), &input.message);
        let registry = TaskRegistry::existing(ctx);
        let routing = |target: &str, delivery| Routing {
            sender: from.clone(),
            target: target.to_owned(),
            delivery,
            summary: input.summary.clone(),
        };
        if to == "*" {
            let running: Vec<String> = registry
                .iter()
                .flat_map(TaskRegistry::list)
                .filter(|task| task.task_type == TaskType::LocalAgent && task.status == TaskStatus::Running)
                .filter(|task| ctx.agent_id.as_deref() != Some(task.id.as_str()))
                .map(|task| task.id)
                .collect();
            // Teammates in their own processes (tmux) read their mailboxes.
            let mailboxes: Vec<String> = team
                .as_ref()
                .and_then(|(team, _)| team.load().ok())
                .map(|file| file.members)
                .unwrap_or_default()
                .into_iter()
                .filter(|member| member.backend == Backend::Tmux && member.name != from)
                .map(|member| member.name)
                .collect();
            if running.is_empty() && mailboxes.is_empty() {
                return Err(ToolError::failed("No other agent is running to receive the message."));
            }
            if let Some(registry) = &registry {
                for id in &running {
                    if let Some(inbox) = registry.agent_inbox(id) {
                        inbox.push(format!("message:{from}"), text.clone());
                    }
                }
            }
            if let Some((team, _)) = &team {
                for name in &mailboxes {
                    post(team, name, Message::new(&from, mailbox_text(&input.message), input.summary.clone())).await?;
                }
            }
            let mut message = format!("Message queued for {} running agents: {}", running.len(), running.join(", "));
            if !mailboxes.is_empty() {
                message.push_str(&format!("; sent to the inboxes of {}", mailboxes.join(", ")));
            }
            return Ok(ToolResult::new(SendMessageOutput {
                success: true,
                message,
                routing: Some(routing("*", "queued")),
            }));
        }
        let found =
            registry.as_ref().and_then(|registry| registry.find_agent(&to).map(|task| (registry.clone(), task)));
        let Some((registry, task)) = found else {
            // Not an agent of this session: a member of the caller's team (or its lead) reads
            // it from its mailbox.
            let recipient = team.as_ref().and_then(|(team, _)| team_recipient(team, &to).map(|name| (team, name)));
            let Some((team_handle, recipient)) = recipient else {
                return Err(ToolError::failed(no_recipient(&to, team.as_ref())));
            };
            if recipient == from {
                return Err(ToolError::failed("An agent cannot send a message to itself."));
            }
            let message = Message::new(&from, mailbox_text(&input.message), input.summary.clone());
            post(team_handle, &recipient, message).await?;
            return Ok(ToolResult::new(SendMessageOutput {
                success: true,
                message: format!("Message sent to {recipient}'s inbox"),
                routing: Some(routing(&team_handle.agent_id(&recipient), "mailbox")),
            }));
        };
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
            background.finish_agent(&id, AgentEnd::of_run(&ended, Some(notification)));
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
