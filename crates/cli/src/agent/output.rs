//! Printing what the loop reports: JSON lines (each written whole and flushed, so a reader sees
//! a line as soon as it is known), the raw stream events of `--include-partial-messages`, and
//! the result in each `--output-format`.

use std::io::Write as _;

use agent_tools_api::{Delta, StreamEvent};
use agent_tools_loop::{AgentEvent, QueryResult, ResultSubtype};
use serde_json::{Value, json};

use super::OutputFormat;

/// Writes one value as a JSON line on stdout and flushes it. Several tasks print: the stdout
/// lock keeps each line whole. A closed stdout is ignored (the reader went away).
pub(crate) fn line(value: &impl serde::Serialize) {
    let Ok(text) = serde_json::to_string(value) else { return };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Writes text to stdout and flushes it (the chat's streamed answer).
pub(crate) fn text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{text}");
    let _ = out.flush();
}

/// A stream event as the Messages API sent it (`{"type":"content_block_delta","index":0,
/// "delta":{"type":"text_delta","text":"Hi"}}`); `None` for pings and kinds this version does
/// not know.
/// Prints what SendUserMessage sends (text output): the message, then one line per attached
/// file with its size.
pub(crate) struct TerminalMessages;

impl agent_tools_core::user::UserChannel for TerminalMessages {
    fn send(&self, message: &agent_tools_core::user::UserMessage) {
        let mut block = message.message.trim_end().to_owned();
        for file in &message.attachments {
            block.push_str(&format!("\n  [attached: {} ({} bytes)]", file.path.display(), file.size));
        }
        text(&format!("{block}\n"));
    }
}

pub(crate) fn stream_event_json(event: &StreamEvent) -> Option<Value> {
    Some(match event {
        StreamEvent::MessageStart { message } => json!({"type": "message_start", "message": message}),
        StreamEvent::ContentBlockStart { index, content_block } => {
            json!({"type": "content_block_start", "index": index, "content_block": content_block})
        }
        StreamEvent::ContentBlockDelta { index, delta } => {
            json!({"type": "content_block_delta", "index": index, "delta": delta_json(delta)?})
        }
        StreamEvent::ContentBlockStop { index } => json!({"type": "content_block_stop", "index": index}),
        StreamEvent::MessageDelta { stop_reason, usage, container } => {
            let mut delta = json!({"stop_reason": stop_reason, "stop_sequence": null});
            if let Some(id) = container {
                delta["container"] = json!({"id": id});
            }
            json!({"type": "message_delta", "delta": delta, "usage": usage})
        }
        StreamEvent::MessageStop => json!({"type": "message_stop"}),
        StreamEvent::Error { kind, message } => json!({"type": "error", "error": {"type": kind, "message": message}}),
        _ => return None,
    })
}

fn delta_json(delta: &Delta) -> Option<Value> {
    Some(match delta {
        Delta::Text(text) => json!({"type": "text_delta", "text": text}),
        Delta::InputJson(partial) => json!({"type": "input_json_delta", "partial_json": partial}),
        Delta::Thinking(thinking) => json!({"type": "thinking_delta", "thinking": thinking}),
        Delta::Signature(signature) => json!({"type": "signature_delta", "signature": signature}),
        Delta::Citation(citation) => json!({"type": "citations_delta", "citation": citation}),
        Delta::Other(value) => value.clone(),
        _ => return None,
    })
}

/// The `stream_event` line of `--include-partial-messages`.
pub(crate) fn stream_event_line(event: &StreamEvent, session_id: &str) -> Option<Value> {
    let event = stream_event_json(event)?;
    Some(json!({
        "type": "stream_event",
        "event": event,
        "session_id": session_id,
        "parent_tool_use_id": null,
        "uuid": uuid(),
    }))
}

/// A fresh id for a line.
pub(crate) fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// What a JSON-lines front end prints of the loop's events: the messages, the stream events
/// when asked for, notices on stderr.
pub(crate) fn json_lines_sink(session_id: String, partial: bool) -> impl FnMut(AgentEvent) + Send {
    move |event| match event {
        AgentEvent::Message(message) => line(&message),
        AgentEvent::Stream(event) if partial => {
            if let Some(value) = stream_event_line(&event, &session_id) {
                line(&value);
            }
        }
        AgentEvent::Notice(notice) => crate::report(format_args!("{notice}")),
        // A sub-agent's own messages, as claude prints them: with `parent_tool_use_id` set to
        // the Agent call that started it.
        AgentEvent::Progress(progress) if progress.data["type"] == "agent_progress" => {
            line(&progress.data["message"]);
        }
        _ => {}
    }
}

/// The text `--output-format text` prints for a result: its text, or for an error without
/// one what stopped it (`Error: Reached max turns (3)`, as `claude -p` says).
pub(crate) fn result_text(result: &QueryResult, max_turns: Option<u32>, budget: Option<f64>) -> String {
    match result.subtype {
        ResultSubtype::ErrorMaxTurns => format!("Error: Reached max turns ({})", max_turns.unwrap_or(result.num_turns)),
        ResultSubtype::ErrorMaxBudgetUsd => format!("Error: Exceeded USD budget ({})", budget.unwrap_or_default()),
        _ if result.is_error && result.result.is_empty() && result.terminal_reason == "interrupted" => {
            agent_tools_loop::agent::INTERRUPTED_BY_USER.to_owned()
        }
        _ if result.is_error && result.result.is_empty() => format!("Error: {}", result.terminal_reason),
        _ => result.result.clone(),
    }
}

/// Prints a result in `format` (`stream-json`: the result line; `json`: the result object;
/// `text`: [`result_text`]).
pub(crate) fn print_result(format: OutputFormat, result: &QueryResult, max_turns: Option<u32>, budget: Option<f64>) {
    match format {
        OutputFormat::Json | OutputFormat::StreamJson => line(&result.to_json()),
        OutputFormat::Text => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", result_text(result, max_turns, budget));
            let _ = out.flush();
        }
    }
}

/// The `result` object of a run that could not start (no API key, no conversation to resume),
/// shaped like a query's so SDKs and scripts read it the same way.
pub(crate) fn start_error_json(text: &str, session_id: &str) -> Value {
    json!({
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": true,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "result": text,
        "stop_reason": null,
        "session_id": session_id,
        "total_cost_usd": 0.0,
        "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        "modelUsage": {},
        "permission_denials": [],
        "errors": [text],
        "uuid": uuid(),
    })
}

/// Reports a start error in `format`: on stderr always, and as a result object for the JSON
/// formats.
pub(crate) fn print_start_error(format: OutputFormat, text: &str) {
    crate::report(format_args!("{text}"));
    if format != OutputFormat::Text {
        line(&start_error_json(text, ""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_events_are_printed_as_the_api_sent_them() {
        let delta = StreamEvent::ContentBlockDelta { index: 1, delta: Delta::InputJson("{\"a\"".into()) };
        assert_eq!(
            stream_event_json(&delta),
            Some(
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\""}})
            )
        );
        assert_eq!(stream_event_json(&StreamEvent::Ping), None);
        let line = stream_event_line(&StreamEvent::MessageStop, "s1").unwrap_or_default();
        assert_eq!(line["type"], "stream_event");
        assert_eq!(line["event"], json!({"type": "message_stop"}));
        assert_eq!(line["session_id"], "s1");
        assert_eq!(line["parent_tool_use_id"], Value::Null);
    }
}
