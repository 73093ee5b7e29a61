//! The Chat Completions request for an Anthropic Messages request: [`chat_request`] (the table
//! is in the [parent module's docs](super)).
//!
//! What local chat-template models need shapes it: one `system` message, first (the
//! conversation's own system messages are folded into it, or become reminders in a user message
//! once the model has answered); user messages never two in a row; an assistant message with
//! tool calls has `content: ""`, never `null` (llama-cpp-python's server fails on `null`);
//! deferred tools are sent only once ToolSearch loaded them, since these servers cannot defer.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::stream::UNPARSED_TOOL_INPUT;

/// The text of a `system` value or a message's `content`: a string as it is, text blocks'
/// `text` joined by `separator`, anything else empty.
pub(super) fn text_of(content: &Value, separator: &str) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| kind(block) == "text")
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(separator),
        _ => String::new(),
    }
}

pub(super) fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// An Anthropic `image` block as an `image_url` part.
fn image_part(block: &Value) -> Option<Value> {
    let source = block.get("source")?;
    let url = match source.get("type").and_then(Value::as_str)? {
        "base64" => {
            let media = source.get("media_type").and_then(Value::as_str).unwrap_or("image/png");
            format!("data:{media};base64,{}", source.get("data").and_then(Value::as_str)?)
        }
        "url" => source.get("url").and_then(Value::as_str)?.to_owned(),
        _ => return None,
    };
    Some(json!({"type": "image_url", "image_url": {"url": url}}))
}

/// A user message of these parts: a string when all are text (joined by `\n`), else the parts.
fn user_message(parts: Vec<Value>) -> Value {
    if parts.iter().all(|part| kind(part) == "text") {
        let text: Vec<&str> = parts.iter().filter_map(|part| part.get("text").and_then(Value::as_str)).collect();
        json!({"role": "user", "content": text.join("\n")})
    } else {
        json!({"role": "user", "content": parts})
    }
}

/// Whether a tool's `input_schema` is empty: missing, `null`, `{}`, or an object schema
/// without properties.
fn schema_is_empty(schema: Option<&Value>) -> bool {
    match schema {
        None | Some(Value::Null) => true,
        Some(Value::Object(fields)) => {
            fields.keys().all(|key| key == "type" || key == "properties")
                && fields.get("properties").is_none_or(|props| props.as_object().is_none_or(Map::is_empty))
        }
        Some(_) => false,
    }
}

/// The Chat Completions request for an Anthropic Messages request `body` (see the table in
/// the [module docs](super)), asking `model` (an empty `model`: the body's). Never fails: what
/// does not translate is left out.
pub fn chat_request(body: &Value, model: &str) -> Value {
    let conversation = body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut system = body.get("system").map(|system| text_of(system, "\n\n")).unwrap_or_default();
    let mut messages: Vec<Value> = Vec::new();
    let mut answered = false;
    for message in conversation {
        let content = message.get("content").unwrap_or(&Value::Null);
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "system" => {
                let text = text_of(content, "\n\n");
                if text.is_empty() {
                    continue;
                }
                if answered {
                    push_user(&mut messages, json!({"role": "user", "content": reminder(&text)}));
                } else {
                    if !system.is_empty() {
                        system.push_str("\n\n");
                    }
                    system.push_str(&text);
                }
            }
            "assistant" => {
                if let Some(reply) = assistant_message(content) {
                    answered = true;
                    messages.push(reply);
                }
            }
            _ => {
                for user in user_messages(content) {
                    push_user(&mut messages, user);
                }
            }
        }
    }
    if !system.is_empty() {
        messages.insert(0, json!({"role": "system", "content": system}));
    }
    let model = if model.is_empty() { body.get("model").and_then(Value::as_str).unwrap_or("") } else { model };
    let mut request = Map::new();
    request.insert("model".into(), json!(model));
    request.insert("messages".into(), Value::Array(messages));
    let loaded = loaded_tools(conversation);
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|tool| tool.get("type").and_then(Value::as_str).is_none_or(|kind| kind == "custom"))
        .filter_map(|tool| {
            let name = tool.get("name").and_then(Value::as_str)?;
            let deferred = tool.get("defer_loading").and_then(Value::as_bool) == Some(true);
            if deferred && (!loaded.contains(name) || schema_is_empty(tool.get("input_schema"))) {
                return None;
            }
            let mut function = Map::new();
            function.insert("name".into(), json!(name));
            if let Some(description) = tool.get("description").and_then(Value::as_str) {
                function.insert("description".into(), json!(description));
            }
            let parameters = tool.get("input_schema").filter(|schema| schema.is_object()).cloned();
            function
                .insert("parameters".into(), parameters.unwrap_or_else(|| json!({"type": "object", "properties": {}})));
            Some(json!({"type": "function", "function": function}))
        })
        .collect();
    if !tools.is_empty() {
        request.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = body.get("tool_choice").and_then(tool_choice) {
            request.insert("tool_choice".into(), choice);
        }
    }
    for (from, to) in
        [("max_tokens", "max_tokens"), ("temperature", "temperature"), ("top_p", "top_p"), ("stop_sequences", "stop")]
    {
        if let Some(value) = body.get(from).filter(|value| !value.is_null()) {
            request.insert(to.into(), value.clone());
        }
    }
    request.insert("stream".into(), json!(true));
    request.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(request)
}

/// A system message that came after the model's first answer, as user text.
fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// Adds a user message, joined to the one before when that is a user message too (chat
/// templates want user and assistant turns to alternate).
fn push_user(messages: &mut Vec<Value>, user: Value) {
    let Some(last) = messages.last_mut().filter(|last| last.get("role").and_then(Value::as_str) == Some("user")) else {
        messages.push(user);
        return;
    };
    let joined = match (&last["content"], &user["content"]) {
        (Value::String(before), Value::String(after)) => json!(format!("{before}\n\n{after}")),
        (before, after) => {
            let parts = |content: &Value| match content {
                Value::String(text) => vec![json!({"type": "text", "text": text})],
                Value::Array(parts) => parts.clone(),
                _ => Vec::new(),
            };
            Value::Array([parts(before), parts(after)].concat())
        }
    };
    last["content"] = joined;
}

/// The deferred tools the conversation has loaded: those a `tool_reference` in a tool result
/// names (ToolSearch's answer), and those the model has called.
fn loaded_tools(conversation: &[Value]) -> HashSet<&str> {
    let mut loaded = HashSet::new();
    for block in conversation.iter().filter_map(|message| message.get("content")?.as_array()).flatten() {
        match kind(block) {
            "tool_use" => loaded.extend(block.get("name").and_then(Value::as_str)),
            "tool_result" => {
                for part in block.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                    if kind(part) == "tool_reference" {
                        loaded.extend(part.get("tool_name").and_then(Value::as_str));
                    }
                }
            }
            _ => {}
        }
    }
    loaded
}

/// An Anthropic `tool_choice` as Chat Completions'.
fn tool_choice(choice: &Value) -> Option<Value> {
    Some(match choice.get("type").and_then(Value::as_str)? {
        "auto" => json!("auto"),
        "any" => json!("required"),
        "none" => json!("none"),
        "tool" => json!({"type": "function", "function": {"name": choice.get("name")?}}),
        _ => return None,
    })
}

/// An assistant message: its text as `content`, its tool_use blocks as `tool_calls`; `None`
/// when it has neither (only thinking or server blocks). Arguments the model wrote that were
/// not JSON go back as it wrote them.
fn assistant_message(content: &Value) -> Option<Value> {
    let blocks = match content {
        Value::String(text) => return Some(json!({"role": "assistant", "content": text})),
        Value::Array(blocks) => blocks,
        _ => return None,
    };
    let text = text_of(content, "");
    let calls: Vec<Value> = blocks
        .iter()
        .filter(|block| kind(block) == "tool_use")
        .map(|block| {
            let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
            let arguments = match input.pointer(&format!("/{UNPARSED_TOOL_INPUT}/raw")).and_then(Value::as_str) {
                Some(raw) => raw.to_owned(),
                None => input.to_string(),
            };
            json!({"id": block.get("id").cloned().unwrap_or(Value::Null), "type": "function",
                   "function": {"name": block.get("name").cloned().unwrap_or(Value::Null), "arguments": arguments}})
        })
        .collect();
    match (text.is_empty(), calls.is_empty()) {
        (true, true) => None,
        (_, true) => Some(json!({"role": "assistant", "content": text})),
        (_, false) => Some(json!({"role": "assistant", "content": text, "tool_calls": calls})),
    }
}

/// The text of a tool result the model reads: the result's text blocks, a `tool_reference`
/// said in words (the tool is in the next request's `tools`), and an error said once as
/// `Error: …` (the `<tool_use_error>` tags the Messages API's models know are taken off).
fn tool_result_text(block: &Value) -> String {
    let result = block.get("content").unwrap_or(&Value::Null);
    let text = match result {
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match kind(item) {
                "text" => item.get("text").and_then(Value::as_str).map(str::to_owned),
                "tool_reference" => item
                    .get("tool_name")
                    .and_then(Value::as_str)
                    .map(|name| format!("The tool {name} is loaded: call it directly.")),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => text_of(other, "\n"),
    };
    if block.get("is_error").and_then(Value::as_bool) != Some(true) {
        return text;
    }
    let trimmed = text.trim();
    let bare = trimmed
        .strip_prefix("<tool_use_error>")
        .and_then(|inner| inner.strip_suffix("</tool_use_error>"))
        .map_or(trimmed, str::trim);
    if bare.starts_with("Error") { bare.to_owned() } else { format!("Error: {bare}") }
}

/// A user message: its tool results as `tool` messages first, then its other blocks as one
/// user message (images in tool results join it, since tool messages carry text only).
fn user_messages(content: &Value) -> Vec<Value> {
    let blocks = match content {
        Value::String(text) => return vec![json!({"role": "user", "content": text})],
        Value::Array(blocks) => blocks,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut parts = Vec::new();
    for block in blocks {
        match kind(block) {
            "tool_result" => {
                if let Some(items) = block.get("content").and_then(Value::as_array) {
                    parts.extend(items.iter().filter(|item| kind(item) == "image").filter_map(image_part));
                }
                let id = block.get("tool_use_id").cloned().unwrap_or(Value::Null);
                out.push(json!({"role": "tool", "tool_call_id": id, "content": tool_result_text(block)}));
            }
            "text" => {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    parts.push(json!({"type": "text", "text": text}));
                }
            }
            "image" => parts.extend(image_part(block)),
            "document" => {
                let source = block.get("source").unwrap_or(&Value::Null);
                if let (Some("text"), Some(data)) =
                    (source.get("type").and_then(Value::as_str), source.get("data").and_then(Value::as_str))
                {
                    parts.push(json!({"type": "text", "text": data}));
                }
            }
            _ => {}
        }
    }
    if !parts.is_empty() {
        out.push(user_message(parts));
    }
    out
}

/// Most characters of a tool's description in short form.
const SHORT_DESCRIPTION: usize = 300;
/// Most characters of a parameter's description in short form.
const SHORT_PARAMETER: usize = 120;

/// Cuts the descriptions of a Chat Completions request's tools to their gist, for small local
/// models with short contexts and slow prefill ([`super::OpenAiConfig::short_tool_descriptions`]):
/// a tool's description to its first paragraph, a parameter's (at any depth) to its first
/// sentence, each within a bound (300 and 120 characters, cut at a word). The schemas
/// themselves (types, required fields, enums) are kept whole.
pub fn shorten_tool_descriptions(request: &mut Value) {
    let Some(tools) = request.get_mut("tools").and_then(Value::as_array_mut) else { return };
    for function in tools.iter_mut().filter_map(|tool| tool.get_mut("function")) {
        if let Some(Value::String(description)) = function.get_mut("description") {
            let first = description.split("\n\n").next().unwrap_or_default().trim().replace('\n', " ");
            *description = gist(&first, SHORT_DESCRIPTION);
        }
        if let Some(parameters) = function.get_mut("parameters") {
            shorten_parameters(parameters);
        }
    }
}

/// Cuts every `description` inside a JSON Schema to its first sentence.
fn shorten_parameters(schema: &mut Value) {
    match schema {
        Value::Object(fields) => {
            for (key, value) in fields.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        let sentence = text.split(". ").next().unwrap_or_default().trim_end_matches('.');
                        *text = gist(&format!("{}.", sentence.replace('\n', " ")), SHORT_PARAMETER);
                    }
                    other => shorten_parameters(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_parameters),
        _ => {}
    }
}

/// `text` within `limit` characters, cut at a word with `…` when longer.
fn gist(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let cut: String = text.chars().take(limit).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}
