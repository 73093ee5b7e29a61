//! Compaction: when the conversation nears the context window, the model summarises it and the
//! summary replaces the history (Claude Code's automatic compaction).

use crate::conversation::{Block, Message};
use serde_json::{Value, json};

/// The request that asks for the summary.
pub const SUMMARY_REQUEST: &str = "The conversation so far is about to be replaced by a summary, because it is \
close to the context window. Write that summary now, for yourself, so the work can go on without the \
history. Cover: what the user asked for (in their words where it matters); what has been done, with the \
files read or changed and the commands run; decisions made and why; errors met and how they were fixed; \
what is still to do, and the very next step. Be concrete: names, paths, values. Do not call any tool.";

/// The opening of the message that carries the summary into the new history.
pub const SUMMARY_PREFACE: &str = "This session continues an earlier conversation that was compacted to fit the \
context window. Its summary follows; carry on from where it stopped, without asking the user again.\n\n";

/// The summary request's body: the history, then [`SUMMARY_REQUEST`] (with what to focus on,
/// `/compact`'s argument, when `focus` is not blank), with the same tools (the history names
/// them) and `tool_choice: none`.
pub fn summary_request(model: &str, messages: &[Message], tools: &[Value], system: &[Value], focus: &str) -> Value {
    let mut messages = messages.to_vec();
    let request = match focus.trim() {
        "" => SUMMARY_REQUEST.to_owned(),
        focus => format!(
            "{SUMMARY_REQUEST}

The user asks the summary to focus on: {focus}"
        ),
    };
    messages.push(Message::user(vec![Block::text(request)]));
    let mut body = json!({
        "model": model, "max_tokens": 8_192, "system": system, "messages": messages, "stream": true,
    });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.to_vec());
        body["tool_choice"] = json!({"type": "none"});
    }
    body
}

/// The user message that starts the compacted history.
pub fn summary_message(summary: &str) -> Message {
    Message::user(vec![Block::text(format!("{SUMMARY_PREFACE}{summary}"))])
}
