//! # agent-tool-send-user-message: the SendUserMessage tool (alias `Brief`)
//!
//! Sends the user a message, as Claude Code's `SendUserMessage` does (its brief mode, where the
//! user reads these messages rather than the model's text): the input
//! `{message, attachments?, status}` (`status`: `normal` or `proactive`), attachments checked to
//! exist (absolute, or relative to the working directory; files, not folders), and the result
//! `Message delivered to user.` — with ` (N attachment(s) included)` when files were sent.
//!
//! The message goes to the session's [`agent_tools_core::user::UserChannel`] (the CLI prints it;
//! `serve` sends it to its client as a notification); without one it is only in the result's
//! output. The output is `{message, attachments?: [{path, size, isImage}], sentAt}`.
//!
//! Read-only, concurrency-safe, never deferred (the model must always see it in this mode).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("build.log"), "ok\n").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let tool = agent_tool_send_user_message::tool();
//! let input = serde_json::json!({"message": "The build passed.", "attachments": ["build.log"], "status": "normal"});
//! let done = call_tool(tool.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "Message delivered to user. (1 attachment included)");
//! let missing = serde_json::json!({"message": "x", "attachments": ["nope.png"], "status": "normal"});
//! let done = call_tool(tool.as_ref(), "toolu_2", missing, &ctx).await;
//! assert!(done.block.is_error);
//! # });
//! ```

use agent_tools_core::{Capabilities, ToolKind};
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::PermissionResult;
use agent_tools_core::user::{UserAttachment, UserMessage, user_channel};
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The API name.
pub const NAME: &str = "SendUserMessage";

/// Its other name (Claude Code's `Brief`).
pub const ALIASES: &[&str] = &["Brief"];

/// What the model reads for a message with no text and no files.
pub const EMPTY_MESSAGE: &str = "The message is empty: write what the user should read.";

/// The result text (Claude Code's).
pub const DELIVERED: &str = "Message delivered to user.";

/// Why the message is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// An answer to what the user asked.
    Normal,
    /// Something raised unprompted.
    Proactive,
}

impl Status {
    /// `normal` or `proactive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Proactive => "proactive",
        }
    }
}

/// SendUserMessage's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendUserMessageInput {
    /// The message for the user. Supports markdown formatting.
    pub message: String,
    /// Optional file paths (absolute or relative to the working directory) to attach: images,
    /// logs, diffs.
    #[serde(default)]
    pub attachments: Option<Vec<String>>,
    /// `normal` when replying to what the user just asked; `proactive` when raising something
    /// they did not ask about (a background result, a blocker found while working).
    pub status: Status,
}

/// What SendUserMessage produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SendUserMessageOutput {
    /// The message.
    pub message: String,
    /// The files sent with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<UserAttachment>>,
    /// When it was sent, RFC 3339 (UTC).
    #[serde(rename = "sentAt")]
    pub sent_at: String,
}

/// The result text: [`DELIVERED`], plus ` (N attachment(s) included)` with files.
pub fn render(output: &SendUserMessageOutput) -> String {
    match output.attachments.as_ref().map_or(0, Vec::len) {
        0 => DELIVERED.to_owned(),
        1 => format!("{DELIVERED} (1 attachment included)"),
        n => format!("{DELIVERED} ({n} attachments included)"),
    }
}

const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp"];

/// The attachments, resolved and checked: each must be an existing file.
fn attachments(input: &SendUserMessageInput, ctx: &ToolUseContext) -> Result<Vec<UserAttachment>, String> {
    let mut found = Vec::new();
    for given in input.attachments.iter().flatten() {
        let path: PathBuf = ctx.resolve_path(given);
        let meta = std::fs::metadata(&path).map_err(|_| format!("Attachment not found: {given}"))?;
        if !meta.is_file() {
            return Err(format!("Attachment is not a file: {given}"));
        }
        let is_image = path
            .extension()
            .and_then(|ext| ext.to_str())
            .is_some_and(|ext| IMAGE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()));
        found.push(UserAttachment { path, size: meta.len(), is_image });
    }
    Ok(found)
}

/// The SendUserMessage tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct SendUserMessageTool;

/// SendUserMessage, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(SendUserMessageTool)
}

impl ToolDef for SendUserMessageTool {
    type Input = SendUserMessageInput;
    type Output = SendUserMessageOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .search_hint("send a message to the user");

    fn aliases(&self) -> &[&str] {
        ALIASES
    }

    fn summary(&self, input: &SendUserMessageInput) -> String {
        format!("Message the user: {}", input.message.chars().take(60).collect::<String>())
    }

    fn always_load(&self) -> bool {
        true
    }

    fn user_facing_name(&self, _input: Option<&SendUserMessageInput>) -> String {
        "Message".to_owned()
    }

    fn to_auto_classifier_input(&self, input: &SendUserMessageInput) -> serde_json::Value {
        serde_json::Value::String(input.message.clone())
    }

    /// The message must say something (code 2); an attachment under a `Read(…)` deny rule is
    /// refused before anything about it is looked at (Read's own check and text); every other
    /// attachment must be an existing file (code 1).
    async fn validate_input(&self, input: &SendUserMessageInput, ctx: &ToolUseContext) -> ValidationResult {
        if input.message.trim().is_empty() && input.attachments.as_ref().is_none_or(Vec::is_empty) {
            return ValidationResult::error(EMPTY_MESSAGE, 2);
        }
        for given in input.attachments.iter().flatten() {
            if let Some(message) = agent_tools_permissions::read_denied_message(&ctx.resolve_path(given), ctx) {
                return ValidationResult::denied_by_rule(message);
            }
        }
        match attachments(input, ctx) {
            Ok(_) => ValidationResult::Ok,
            Err(message) => ValidationResult::error(message, 1),
        }
    }

    /// Sending a file shows it to the user: each attachment needs the permission to read it
    /// (Read's check: its rules, the working directories); the first that is not allowed decides.
    async fn check_permissions(&self, input: &SendUserMessageInput, ctx: &ToolUseContext) -> PermissionResult {
        for given in input.attachments.iter().flatten() {
            let decision = agent_tools_permissions::check_read_permission(&ctx.resolve_path(given), ctx);
            if !matches!(decision, PermissionResult::Allow { .. }) {
                return decision;
            }
        }
        PermissionResult::allow()
    }

    async fn call(
        &self,
        input: SendUserMessageInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<SendUserMessageOutput>, ToolError> {
        let files = attachments(&input, ctx).map_err(ToolError::failed)?;
        let sent_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let message = UserMessage {
            message: input.message.clone(),
            attachments: files.clone(),
            status: input.status.as_str().to_owned(),
            sent_at: sent_at.clone(),
        };
        if let Some(channel) = user_channel(ctx) {
            channel.send(&message);
        }
        let attachments = (!files.is_empty()).then_some(files);
        Ok(ToolResult::new(SendUserMessageOutput { message: input.message, attachments, sent_at }))
    }

    fn map_tool_result(&self, output: &SendUserMessageOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render(output))
    }
}
