//! A tool's progress events as MCP `notifications/progress`.
//!
//! When a `tools/call` carries `_meta.progressToken`, each progress event of the call (Bash's
//! output tail, an MCP proxy's progress, a sub-agent's steps) becomes one notification with that
//! token: `progress` counts the events (1, 2, 3 …, strictly increasing as the spec requires),
//! there is no `total` (a tool rarely knows it), and `message` is a one-line summary of the event
//! ([`summary`]). Over Streamable HTTP rmcp routes them onto the call's own response stream by
//! the token.

use agent_tools_core::{ProgressEvent, ProgressSink};
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// At most this many characters of an event go into a notification's `message`.
pub const MAX_MESSAGE_CHARS: usize = 200;

/// How long a finished call waits for its last progress notifications to be sent.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Sends one call's progress events, in order, as notifications with `token`.
pub struct Forwarder {
    events: Option<mpsc::UnboundedSender<ProgressEvent>>,
    task: tokio::task::JoinHandle<()>,
}

/// Starts forwarding progress events to `peer` as notifications carrying `token`.
pub fn forward(peer: Peer<RoleServer>, token: ProgressToken) -> Forwarder {
    let (events, mut received) = mpsc::unbounded_channel::<ProgressEvent>();
    let task = tokio::spawn(async move {
        let mut count = 0u32;
        while let Some(event) = received.recv().await {
            count += 1;
            let mut param = ProgressNotificationParam::new(token.clone(), f64::from(count));
            param.message = summary(&event.data);
            if let Err(error) = peer.notify_progress(param).await {
                tracing::debug!(%error, "a progress notification could not be sent");
                return;
            }
        }
    });
    Forwarder { events: Some(events), task }
}

impl Forwarder {
    /// The sink to hand the call ([`agent_tools_host::CallOptions::progress`]).
    pub fn sink(&self) -> Option<ProgressSink> {
        let events = self.events.clone()?;
        Some(Arc::new(move |event: ProgressEvent| {
            let _ = events.send(event);
        }))
    }

    /// Waits (briefly) until the events sent so far are on their way, so none arrives after the
    /// call's result. The sinks handed out must have been dropped (the call is over).
    pub async fn finish(mut self) {
        self.events = None;
        if tokio::time::timeout(FLUSH_TIMEOUT, &mut self.task).await.is_err() {
            self.task.abort();
        }
    }
}

/// A one-line summary of a progress event's data: the last non-empty line of its `output` (a
/// shell's tail), else its `message` or `status` text, else the compact JSON; at most
/// [`MAX_MESSAGE_CHARS`] characters. `None` for empty data.
pub fn summary(data: &Value) -> Option<String> {
    let text_of = |key: &str| data.get(key).and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty());
    let text = if let Some(output) = text_of("output") {
        output.lines().rev().map(str::trim).find(|line| !line.is_empty()).unwrap_or(output).to_owned()
    } else if let Some(text) = text_of("message").or_else(|| text_of("status")) {
        text.lines().next().unwrap_or(text).to_owned()
    } else if data.is_null() || data.as_object().is_some_and(serde_json::Map::is_empty) {
        return None;
    } else {
        data.to_string()
    };
    Some(match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_take_the_shell_tail_then_a_message_then_the_json() {
        assert_eq!(
            summary(&json!({"type": "bash_progress", "output": "a\nlast line\n\n"})).as_deref(),
            Some("last line")
        );
        assert_eq!(summary(&json!({"message": "Searching\nmore"})).as_deref(), Some("Searching"));
        assert_eq!(summary(&json!({"status": "running"})).as_deref(), Some("running"));
        assert_eq!(summary(&json!({"step": 2})).as_deref(), Some(r#"{"step":2}"#));
        assert_eq!(summary(&json!({})), None);
        assert_eq!(summary(&Value::Null), None);
        let long = summary(&json!({"output": "é".repeat(300)})).unwrap();
        assert_eq!(long.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
