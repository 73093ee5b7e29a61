//! What the session tells the client by itself: scheduled jobs that fire (CronCreate) and the
//! messages SendUserMessage sends, as `notifications/message` log messages the client can act
//! on (MCP has no "prompt from the server" message; a client that wants the prompt to run feeds
//! `data.prompt` to its model).
//!
//! Both are sent at `notice` level, with `logger` `agent-tools`, and `data`:
//!
//! ```text
//! {"type":"scheduled_prompt","id":"1a2b3c4d","cron":"*/5 * * * *","prompt":"…","recurring":true,"durable":false,"scheduledFor":1796346300000,"last":false}
//! {"type":"user_message","message":"…","attachments":[{"path":"/abs/file","size":12,"isImage":false}],"status":"normal","sentAt":"2026-12-04T01:05:00.000Z"}
//! ```
//!
//! A fired job's prompt also rides along with the next call's result, as the sentence
//! [`agent_tools_host::scheduled_prompt_text`] makes (and wakes a Sleep that waits).
//!
//! They go out unless the client asked (`logging/setLevel`) for a level above `notice`: a
//! client that set no level still gets them, since nothing else would carry them.

use std::sync::Arc;

use agent_tools_core::user::{UserChannel, UserMessage, install_user_channel};
use agent_tools_host::{CRON_KEY_PREFIX, Session, scheduled_prompt_text};
use rmcp::RoleServer;
use rmcp::service::Peer;
use serde_json::{Value, json};

use crate::logging::Log;

/// Passes SendUserMessage's messages to the client.
struct ClientMessages {
    events: tokio::sync::mpsc::UnboundedSender<Value>,
}

impl UserChannel for ClientMessages {
    fn send(&self, message: &UserMessage) {
        let mut data = serde_json::to_value(message).unwrap_or(Value::Null);
        if let Some(object) = data.as_object_mut() {
            object.insert("type".into(), json!("user_message"));
        }
        let _ = self.events.send(data);
    }
}

/// Starts telling `peer` about fired jobs and user messages of `session` (once per client).
pub(crate) fn attach(session: &Arc<Session>, peer: Peer<RoleServer>, log: Arc<Log>) {
    let (events, mut next) = tokio::sync::mpsc::unbounded_channel::<Value>();
    install_user_channel(&session.context_without_waiting(), Arc::new(ClientMessages { events: events.clone() }));
    // The model hears of it too, with the next call's result (a Sleep waiting for it wakes).
    let queue = session.context_without_waiting().notifications();
    let _ = session.start_cron_json(move |mut fired| {
        let id = fired["id"].as_str().unwrap_or_default().to_owned();
        let prompt = fired["prompt"].as_str().unwrap_or_default().to_owned();
        queue.push(format!("{CRON_KEY_PREFIX}{id}"), scheduled_prompt_text(&id, &prompt));
        if let Some(object) = fired.as_object_mut() {
            object.insert("type".into(), json!("scheduled_prompt"));
        }
        let _ = events.send(fired);
    });
    tokio::spawn(async move {
        while let Some(data) = next.recv().await {
            if !log.send_event(&peer, data).await {
                return;
            }
        }
    });
}
