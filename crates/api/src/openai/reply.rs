//! The reply: Chat Completions chunks (or a whole `chat.completion`) turned into Messages API
//! events by [`ChunkTranslator`] (the mapping is in the [parent module's docs](super)).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::text_calls;
use crate::error::ApiError;
use crate::stream::{Delta, SseEvent, StreamEvent, Usage};

/// Whether the "usage estimated" warning was given (once a process).
static USAGE_WARNED: AtomicBool = AtomicBool::new(false);

/// What a translator knows of the request it answers.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplyOptions {
    /// Read tool calls written as text ([`super::OpenAiConfig::text_tool_calls`]).
    pub(crate) text_tool_calls: bool,
    /// The names of the tools the request carried (text tool calls must name one of them).
    pub(crate) tool_names: Vec<String>,
    /// The request's size in bytes, for the estimate of input tokens when the server sends
    /// no usage.
    pub(crate) request_bytes: usize,
}

/// A call id no other call of the session has (`call_` and 24 hex digits): servers that send
/// none, and tool calls read from text, get one.
pub(crate) fn new_call_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("call_{}", &id[..24])
}

/// The block being filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    Text(usize),
    Thinking(usize),
    Tool { call: u64, index: usize },
}

/// Turns Chat Completions chunks into Messages API events (see the [module docs](self)).
#[derive(Debug)]
pub(crate) struct ChunkTranslator {
    model: String,
    started: bool,
    finished: bool,
    open: Open,
    next_index: usize,
    /// OpenAI tool call index → our block index.
    calls: BTreeMap<u64, usize>,
    finish_reason: Option<String>,
    /// The server's usage, once a usage object came.
    usage: Option<Usage>,
    options: ReplyOptions,
    /// Text held back until the answer ends, when tool calls may be written in it.
    held: String,
    /// Bytes of text, thinking and arguments the model wrote (for the usage estimate).
    written: usize,
}

impl ChunkTranslator {
    pub(crate) fn new(model: String, options: ReplyOptions) -> Self {
        Self {
            model,
            started: false,
            finished: false,
            open: Open::None,
            next_index: 0,
            calls: BTreeMap::new(),
            finish_reason: None,
            usage: None,
            options,
            held: String::new(),
            written: 0,
        }
    }

    /// The events of one SSE event (a `data:` chunk or `[DONE]`).
    pub(crate) fn chunk(&mut self, sse: &SseEvent) -> Result<Vec<StreamEvent>, ApiError> {
        let data = sse.data.trim();
        let mut events = Vec::new();
        if self.finished || data.is_empty() {
            return Ok(events);
        }
        if data == "[DONE]" {
            self.done(&mut events);
            return Ok(events);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|error| ApiError::Stream(format!("a chat completion chunk is not JSON ({error})")))?;
        self.value(&chunk, &mut events)?;
        Ok(events)
    }

    /// The events of one chunk object.
    fn value(&mut self, chunk: &Value, events: &mut Vec<StreamEvent>) -> Result<(), ApiError> {
        if let Some(error) = chunk.get("error") {
            let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
            let message = text("message").unwrap_or_else(|| error.to_string());
            events.push(StreamEvent::Error { kind: text("type").unwrap_or_else(|| "api_error".into()), message });
            self.finished = true;
            return Ok(());
        }
        if !self.started {
            let id = chunk.get("id").and_then(Value::as_str).unwrap_or("chatcmpl");
            let model = chunk.get("model").and_then(Value::as_str).map(str::to_owned);
            self.start(events, id, model);
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            let cached = usage.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage {
                input_tokens: count("prompt_tokens").saturating_sub(cached),
                output_tokens: count("completion_tokens"),
                cache_read_input_tokens: cached,
                cache_creation_input_tokens: 0,
            });
        }
        let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|choices| choices.first()) else {
            return Ok(());
        };
        let delta = choice.get("delta").or_else(|| choice.get("message")).unwrap_or(&Value::Null);
        let reasoning =
            ["reasoning_content", "reasoning"].iter().find_map(|key| delta.get(*key).and_then(Value::as_str));
        if let Some(piece) = reasoning.filter(|piece| !piece.is_empty()) {
            self.written += piece.len();
            let index = match self.open {
                Open::Thinking(index) => index,
                _ => self.begin(events, json!({"type": "thinking", "thinking": "", "signature": ""}), Open::Thinking),
            };
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::Thinking(piece.to_owned()) });
        }
        if let Some(piece) = delta.get("content").and_then(Value::as_str).filter(|piece| !piece.is_empty()) {
            self.written += piece.len();
            if self.options.text_tool_calls {
                self.held.push_str(piece);
            } else {
                let index = self.text_block(events);
                events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::Text(piece.to_owned()) });
            }
        }
        self.after_content(choice, delta, events)
    }

    /// The tool calls and finish reason of a chunk's choice.
    fn after_content(&mut self, choice: &Value, delta: &Value, events: &mut Vec<StreamEvent>) -> Result<(), ApiError> {
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.tool_call(position, call, events)?;
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
            self.release_text(events);
            self.close(events);
        }
        Ok(())
    }

    /// The held text as blocks: the tool calls written in it (Qwen's `<tool_call>` tags, a bare
    /// JSON call) as tool_use blocks, the rest as a text block before them.
    fn release_text(&mut self, events: &mut Vec<StreamEvent>) {
        if self.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let (text, calls) = text_calls::extract(&held, &self.options.tool_names);
        if !text.trim().is_empty() || calls.is_empty() {
            let index = self.text_block(events);
            let text = if calls.is_empty() { held } else { text.trim().to_owned() };
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::Text(text) });
        }
        for call in calls {
            // Keys past any the server used, so a real call after these cannot collide.
            let key = u64::MAX - self.calls.len() as u64;
            let block = json!({"type": "tool_use", "id": new_call_id(), "name": call.name, "input": {}});
            let index = self.begin(events, block, |index| Open::Tool { call: key, index });
            self.calls.insert(key, index);
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::InputJson(call.arguments) });
        }
    }

    /// One entry of `delta.tool_calls`.
    fn tool_call(&mut self, position: usize, call: &Value, events: &mut Vec<StreamEvent>) -> Result<(), ApiError> {
        let key = call.get("index").and_then(Value::as_u64).unwrap_or(position as u64);
        let function = call.get("function").unwrap_or(&Value::Null);
        let arguments = match function.get("arguments") {
            Some(Value::String(piece)) => piece.clone(),
            Some(Value::Null) | None => String::new(),
            Some(object) => object.to_string(), // Ollama sends the arguments as an object
        };
        self.written += arguments.len();
        if !self.calls.contains_key(&key) {
            self.release_text(events);
        }
        let index = match (self.calls.get(&key).copied(), self.open) {
            (None, _) => {
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty())
                    .map_or_else(new_call_id, str::to_owned);
                let name = function.get("name").and_then(Value::as_str).unwrap_or("");
                let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
                let index = self.begin(events, block, |index| Open::Tool { call: key, index });
                self.calls.insert(key, index);
                index
            }
            (Some(index), Open::Tool { call, .. }) if call == key => index,
            (Some(_), _) => {
                return Err(ApiError::Stream(format!(
                    "tool call {key}'s arguments continued after another block began"
                )));
            }
        };
        if !arguments.is_empty() {
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::InputJson(arguments) });
        }
        Ok(())
    }

    /// The message_start event (once): `id`, and `model` or else the one asked.
    fn start(&mut self, events: &mut Vec<StreamEvent>, id: &str, model: Option<String>) {
        self.started = true;
        let model = model.unwrap_or_else(|| self.model.clone());
        events.push(StreamEvent::MessageStart {
            message: json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": null, "stop_sequence": null, "usage": Usage::default().to_json()}),
        });
    }

    /// The index of the open text block, started if another (or none) is open.
    fn text_block(&mut self, events: &mut Vec<StreamEvent>) -> usize {
        match self.open {
            Open::Text(index) => index,
            _ => self.begin(events, json!({"type": "text", "text": ""}), Open::Text),
        }
    }

    /// Stops the open block, starts `block` as the next index and makes it the open one.
    fn begin(&mut self, events: &mut Vec<StreamEvent>, block: Value, open: impl Fn(usize) -> Open) -> usize {
        self.close(events);
        let index = self.next_index;
        self.next_index += 1;
        events.push(StreamEvent::ContentBlockStart { index, content_block: block });
        self.open = open(index);
        index
    }

    fn close(&mut self, events: &mut Vec<StreamEvent>) {
        let index = match self.open {
            Open::None => return,
            Open::Text(index) | Open::Thinking(index) | Open::Tool { index, .. } => index,
        };
        events.push(StreamEvent::ContentBlockStop { index });
        self.open = Open::None;
    }

    /// `[DONE]`: the open block stopped, message_delta, message_stop.
    fn done(&mut self, events: &mut Vec<StreamEvent>) {
        if !self.started {
            self.start(events, "chatcmpl", None);
        }
        self.release_text(events);
        self.close(events);
        let usage = self.usage.unwrap_or_else(|| {
            if !USAGE_WARNED.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "the server sent no token usage (it ignores stream_options.include_usage): \
                     token counts and cost are estimated at 4 bytes a token"
                );
            }
            Usage {
                input_tokens: (self.options.request_bytes / 4) as u64,
                output_tokens: self.written.div_ceil(4) as u64,
                ..Usage::default()
            }
        });
        let stop_reason = if !self.calls.is_empty() {
            "tool_use"
        } else {
            match self.finish_reason.as_deref() {
                Some("length") => "max_tokens",
                Some("tool_calls" | "function_call") => "tool_use",
                Some("content_filter") => "refusal",
                _ => "end_turn",
            }
        };
        events.push(StreamEvent::MessageDelta { stop_reason: Some(stop_reason.to_owned()), usage, container: None });
        events.push(StreamEvent::MessageStop);
        self.finished = true;
    }

    /// The body ended: a stream that gave its finish reason but no `[DONE]` ends normally;
    /// one that gave neither owes nothing (the stream reports it ended early).
    pub(crate) fn end(&mut self) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if !self.finished && self.finish_reason.is_some() {
            self.done(&mut events);
        }
        events
    }

    /// The events of a whole `chat.completion` reply (or an error body) this translator was
    /// made for.
    pub(crate) fn completion(mut self, reply: &Value) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        let mut chunk = reply.clone();
        if let Some(calls) = chunk.pointer_mut("/choices/0/message/tool_calls").and_then(Value::as_array_mut) {
            for (index, call) in calls.iter_mut().enumerate() {
                if let Some(fields) = call.as_object_mut() {
                    fields.entry("index").or_insert(json!(index));
                }
            }
        }
        if self.value(&chunk, &mut events).is_err() {
            return vec![StreamEvent::Error {
                kind: "api_error".into(),
                message: "an unreadable chat completion".into(),
            }];
        }
        if !self.finished {
            self.done(&mut events);
        }
        events
    }

    /// Whether nothing at all came (no chunk, no `[DONE]`).
    pub(crate) fn got_nothing(&self) -> bool {
        !self.started && !self.finished
    }
}
