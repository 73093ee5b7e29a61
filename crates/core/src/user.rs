//! Messages a tool sends straight to the user, past the model's own text (SendUserMessage).
//!
//! The front end installs a [`UserChannel`] in the session's root app state
//! ([`install_user_channel`]); the tool finds it with [`user_channel`]. The CLI prints each
//! message, the MCP server sends it to its client as a notification. Without a channel the
//! message is only in the tool's result (what the model and the transcript see).

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::ToolUseContext;

/// One file sent with a [`UserMessage`] (checked to exist when it was sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserAttachment {
    /// The file, absolute.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// True for a picture (png, jpeg, gif, webp), by its extension.
    #[serde(rename = "isImage")]
    pub is_image: bool,
}

/// A message for the user: `message` is markdown; `status` is `normal` (an answer to what the
/// user asked) or `proactive` (something the agent raises by itself), as in Claude Code's
/// SendUserMessage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserMessage {
    /// The text, markdown.
    pub message: String,
    /// Files sent with it.
    pub attachments: Vec<UserAttachment>,
    /// `normal` or `proactive`.
    pub status: String,
    /// When it was sent, RFC 3339 (UTC).
    #[serde(rename = "sentAt")]
    pub sent_at: String,
}

/// Where [`UserMessage`]s go: the front end's (a terminal, an MCP client).
pub trait UserChannel: Send + Sync {
    /// Shows `message` to the user. Must not block for long: it runs inside the tool call.
    fn send(&self, message: &UserMessage);
}

/// The slot in the root app state.
#[derive(Default)]
struct Slot(Option<Arc<dyn UserChannel>>);

/// Makes `channel` the session's way to the user (every depth of sub-agents shares it).
pub fn install_user_channel(ctx: &ToolUseContext, channel: Arc<dyn UserChannel>) {
    ctx.root_app_state.with(|state| state.set(Slot(Some(channel))));
}

/// The session's way to the user, if the front end installed one.
pub fn user_channel(ctx: &ToolUseContext) -> Option<Arc<dyn UserChannel>> {
    ctx.root_app_state.with(|state| state.get::<Slot>().and_then(|slot| slot.0.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recorder(Mutex<Vec<String>>);

    impl UserChannel for Recorder {
        fn send(&self, message: &UserMessage) {
            self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message.message.clone());
        }
    }

    #[test]
    fn an_installed_channel_is_found_from_a_clone_of_the_context() {
        let ctx = ToolUseContext::new("/tmp");
        assert!(user_channel(&ctx).is_none());
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        install_user_channel(&ctx, recorder.clone());
        let later = ToolUseContext { tool_use_id: Some("toolu_2".into()), ..ctx };
        let message = UserMessage {
            message: "done".into(),
            attachments: Vec::new(),
            status: "normal".into(),
            sent_at: "2026-01-01T00:00:00Z".into(),
        };
        let Some(channel) = user_channel(&later) else { panic!("the channel is in the shared root state") };
        channel.send(&message);
        assert_eq!(*recorder.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner), ["done"]);
    }
}
