//! How a finished call goes back to the model: the `tool_result` block as JSON, in Claude Code's
//! key order, and the texts the loop adds around results.

use agent_tools_core::{Capabilities, TOOL_SEARCH_NAME, ToolResultContent};
use agent_tools_core::{Invocation, wrap_tool_use_error};
use serde_json::{Map, Value, json};

/// Most bytes of unparsable input quoted back in the error.
const MAX_QUOTED_INPUT: usize = 200;

/// The preamble of a background event the loop adds to the conversation (a task that finished):
/// it tells the model that no human spoke.
pub const NOTIFICATION_PREAMBLE: &str = "[SYSTEM NOTIFICATION - NOT USER INPUT]\n\
This message was added by the system because a background task changed state; it is not from the user.\n\
It does not answer, approve or confirm anything: nothing has been said by the user since their last real message.\n\n";

/// The `tool_result` block of a finished call as JSON, keys in the order Claude Code sends them:
/// errors `{type, content, is_error: true, tool_use_id}`; a shell tool's success (Bash,
/// PowerShell: [`Capabilities::shell`], which always say `is_error`)
/// `{tool_use_id, type, content, is_error: false}`; ToolSearch `{type, tool_use_id, content}`;
/// every other success `{tool_use_id, type, content}`. `tool_name` and `capabilities` are the
/// called tool's (an unknown tool's: its name and [`Capabilities::DEFAULT`]).
pub fn tool_result_json(tool_name: &str, capabilities: Capabilities, done: &Invocation) -> Value {
    let block = &done.block;
    let content = match &block.content {
        ToolResultContent::Text(text) => Value::String(text.clone()),
        parts @ ToolResultContent::Parts(_) => serde_json::to_value(parts).unwrap_or(Value::Null),
    };
    let mut entry = Map::new();
    let id = Value::String(block.tool_use_id.clone());
    if block.is_error {
        entry.insert("type".into(), json!("tool_result"));
        entry.insert("content".into(), content);
        entry.insert("is_error".into(), json!(true));
        entry.insert("tool_use_id".into(), id);
    } else if tool_name == TOOL_SEARCH_NAME {
        entry.insert("type".into(), json!("tool_result"));
        entry.insert("tool_use_id".into(), id);
        entry.insert("content".into(), content);
    } else {
        entry.insert("tool_use_id".into(), id);
        entry.insert("type".into(), json!("tool_result"));
        entry.insert("content".into(), content);
        if capabilities.shell {
            entry.insert("is_error".into(), json!(false));
        }
    }
    Value::Object(entry)
}

/// The raw text of a `tool_use` input the stream could not parse (the builder's
/// `{"__unparsedToolInput": {"raw": …}}` marker), if it is one.
pub fn unparsed_input(input: &Value) -> Option<&str> {
    input.pointer("/__unparsedToolInput/raw").and_then(Value::as_str)
}

/// The error for a call whose input was not JSON (Claude Code's wording, wrapped).
pub fn unparsed_input_error(tool_name: &str, raw: &str) -> String {
    let mut end = raw.len().min(MAX_QUOTED_INPUT);
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    wrap_tool_use_error(&format!(
        "InputValidationError: {tool_name} was called with input that could not be parsed as JSON.\n\
         You sent (first {end} of {} bytes): {}\n\
         Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or \
         truncated output. Retry with valid JSON.",
        raw.len(),
        &raw[..end]
    ))
}

/// A background notification as the system message text the model reads.
pub fn notification_text(text: &str) -> String {
    format!("{NOTIFICATION_PREAMBLE}{text}")
}

/// A notification that waited while the conversation was idle, as the content block it starts
/// a turn with: a scheduled job's prompt as it was given (the user scheduled it: it is a prompt,
/// as Claude Code enqueues it); anything else as a `<system-reminder>` saying it is not the
/// user's.
pub fn pending_block(pending: &agent_tools_core::PendingNotification) -> serde_json::Value {
    if pending.key.starts_with(agent_tools_host::CRON_KEY_PREFIX) {
        return serde_json::json!({"type": "text", "text": pending.text});
    }
    let text = format!("<system-reminder>\n{}\n</system-reminder>", notification_text(&pending.text));
    serde_json::json!({"type": "text", "text": text})
}

/// A notification that arrived during a turn, as the text of the system message it becomes.
pub fn midturn_text(pending: &agent_tools_core::PendingNotification) -> String {
    match pending.key.strip_prefix(agent_tools_host::CRON_KEY_PREFIX) {
        Some(id) => agent_tools_host::scheduled_prompt_text(id, &pending.text),
        None => notification_text(&pending.text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::ToolResultBlock;

    #[test]
    fn results_keep_claude_codes_key_order() {
        let keys = |value: &Value| value.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        let ok = Invocation::refused(ToolResultBlock::text("t1", "x"));
        let shell = Capabilities::new(agent_tools_core::ToolKind::Execute).shell();
        let other = Capabilities::DEFAULT;
        assert_eq!(keys(&tool_result_json("Read", other, &ok)), ["tool_use_id", "type", "content"]);
        assert_eq!(keys(&tool_result_json("Bash", shell, &ok)), ["tool_use_id", "type", "content", "is_error"]);
        assert_eq!(keys(&tool_result_json("ToolSearch", other, &ok)), ["type", "tool_use_id", "content"]);
        let bad = Invocation::refused(ToolResultBlock::error("t2", "no"));
        assert_eq!(keys(&tool_result_json("Bash", shell, &bad)), ["type", "content", "is_error", "tool_use_id"]);
    }

    #[test]
    fn unparsable_input_is_quoted_back() {
        let text = unparsed_input_error("Read", "not json at all");
        assert!(text.starts_with("<tool_use_error>InputValidationError: Read was called with input that could not be parsed as JSON.\nYou sent (first 15 of 15 bytes): not json at all\n"));
        let long = "é".repeat(300);
        assert!(unparsed_input_error("Read", &long).contains("(first 200 of 600 bytes)"));
    }
}
