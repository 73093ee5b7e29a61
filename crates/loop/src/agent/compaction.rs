//! Compaction and a fresh start: the conversation replaced by its summary when it nears the
//! context window (or on `/compact`), and emptied on `/clear`.

use std::time::Instant;

use agent_tools_api::{ApiError, MessageBuilder, StreamEvent};
use agent_tools_core::is_deferred;
use agent_tools_host::tool_search::is_discovered;
use serde_json::{Map, Value, json};

use super::{Agent, Run, Sink, State, api_error_text, last_text, uuid};
use crate::compact;
use crate::conversation::Message;
use crate::events::{AgentEvent, QueryResult, ResultSubtype};

impl Agent {
    pub(super) fn needs_compaction(&self, st: &State) -> bool {
        let limit = (self.options.context_window as f64 * self.options.compact_at) as u64;
        st.context_tokens > 0 && st.context_tokens >= limit && st.messages.len() > 2
    }

    /// Compacts the conversation: `PreCompact` hooks, a summary request, and the history replaced
    /// by the summary. Tools ToolSearch had loaded stay loaded.
    pub(super) async fn compact(&self, st: &mut State, trigger: &str, instructions: &str, sink: Sink<'_>) -> bool {
        let mut payload = Map::new();
        payload.insert("trigger".into(), json!(trigger));
        payload.insert("custom_instructions".into(), json!(instructions));
        let _ = self.run_hooks("PreCompact", trigger, payload).await;
        let ctx = self.session.context().await;
        let discovered: Vec<String> = self
            .session
            .pool()
            .iter()
            .filter(|tool| is_deferred(tool.as_ref()) && is_discovered(&ctx, tool.name()))
            .map(|tool| tool.name().to_owned())
            .collect();
        let tools = self.tools(st).await;
        let body = compact::summary_request(&self.model(), &st.messages, &tools, &self.system_blocks(), instructions);
        let summary = match self.stream_summary(&body).await {
            Ok(summary) => summary,
            Err(error) => {
                sink(AgentEvent::Notice(format!("Compaction failed: {}", api_error_text(&error))));
                return false;
            }
        };
        for name in discovered {
            if !st.carried_tools.contains(&name) {
                st.carried_tools.push(name);
            }
        }
        if let Some(transcript) = &self.transcript
            && let Err(error) = transcript.compacted(trigger, st.context_tokens)
        {
            tracing::warn!(%error, "the transcript could not be written");
        }
        st.messages.clear();
        st.context_tokens = 0;
        // The files read before are only in the summary now: reads start afresh.
        self.session.context().await.read_file_state.clear();
        self.push(st, compact::summary_message(&summary));
        let context = self.initial_context().await;
        self.push(st, Message::system_text(context));
        for context in self.post_compact_hooks(trigger, &summary).await {
            self.push(st, Message::system_text(context));
        }
        sink(AgentEvent::Message(json!({
            "type": "system", "subtype": "compact_boundary", "session_id": self.session.id(),
            "compact_metadata": {"trigger": trigger}, "uuid": uuid(),
        })));
        true
    }

    /// `/compact [focus]`: the conversation replaced by its summary now (the summary request
    /// asks to focus on `focus` when given), between `system/status` lines (`compacting`,
    /// then `null`), as Claude Code prints them. A model-less result.
    pub(crate) async fn compact_command(&self, focus: &str, sink: Sink<'_>) -> QueryResult {
        let mut st = self.state.lock().await;
        if st.messages.len() < 2 {
            drop(st);
            return self.local_output("There is nothing to compact yet.".to_owned(), sink);
        }
        let status = |status: Value| json!({"type": "system", "subtype": "status", "status": status, "session_id": self.session.id(), "uuid": uuid()});
        sink(AgentEvent::Message(status(json!("compacting"))));
        let done = self.compact(&mut st, "manual", focus, sink).await;
        sink(AgentEvent::Message(status(Value::Null)));
        let mut result = self.model_less_result(String::new());
        if !done {
            result.is_error = true;
            result.result = "Compaction failed: the summary request did not succeed".to_owned();
        }
        result
    }

    /// `/clear`: the conversation emptied (the next prompt starts it anew, with SessionStart
    /// hooks of source `clear`), after the SessionEnd hooks with reason `clear`.
    pub(crate) async fn clear_command(&self, sink: Sink<'_>) -> QueryResult {
        self.end("clear").await;
        let mut st = self.state.lock().await;
        st.messages.clear();
        st.started = false;
        st.context_tokens = 0;
        st.carried_tools.clear();
        st.session_started = false;
        st.cleared = true;
        self.measured.store(0, std::sync::atomic::Ordering::Relaxed);
        drop(st);
        self.session.context().await.read_file_state.clear();
        self.local_output(String::new(), sink)
    }

    /// A result no model turn made (a local command's): success, no turns.
    pub(crate) fn model_less_result(&self, text: String) -> QueryResult {
        self.finish(&Run::new(Instant::now()), ResultSubtype::Success, false, text, "completed")
    }

    pub(super) async fn stream_summary(&self, body: &Value) -> Result<String, ApiError> {
        let mut stream = self.backend.stream(body, &self.headers()).await?;
        let mut builder = MessageBuilder::new();
        while let Some(event) = stream.next().await {
            let event = event?;
            if let StreamEvent::Error { kind, message } = &event {
                return Err(ApiError::StreamError { kind: kind.clone(), message: message.clone() });
            }
            builder.apply(&event)?;
            if matches!(event, StreamEvent::MessageStop) {
                break;
            }
        }
        Ok(last_text(&builder.finish().content).unwrap_or_default())
    }
}
