//! Streamed replies: the server-sent events of a `"stream": true` Messages API call
//! ([`StreamEvent`], read by [`SseParser`] and [`StreamEvent::from_sse`]), the [`EventStream`]
//! a call returns, and the [`MessageBuilder`] that turns the events back into the message the
//! API would have sent without streaming ([`AssistantMessage`]).
//!
//! The event sequence of one reply (the Messages API's, and what the OpenAI-compatible
//! backend produces too):
//!
//! ```text
//! message_start            {message: {id, model, usage: {input_tokens, …}, content: []}}
//! ping                     (any number, anywhere)
//! content_block_start      {index: 0, content_block: {type: "text", text: ""}}
//! content_block_delta      {index: 0, delta: {type: "text_delta", text: "Hel"}}   (any number)
//! content_block_stop       {index: 0}
//! …                        (one start / deltas / stop per block, index 1, 2 …)
//! message_delta            {delta: {stop_reason: "end_turn"}, usage: {output_tokens: 20}}
//! message_stop
//! ```
//!
//! An `error` event (`{"type":"error","error":{"type":"overloaded_error","message":…}}`) may
//! come instead of the rest; the stream then ends.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::ops::{Add, AddAssign};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use crate::error::ApiError;

/// One server-sent event of a streamed Messages API reply.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// `message_start`: the `message` object (id, model, role, usage with the input counts,
    /// an empty content).
    MessageStart {
        /// The `message` object as sent.
        message: Value,
    },
    /// `content_block_start`: block `index` begins; `content_block` is its start state
    /// (`{"type":"text","text":""}`, `{"type":"tool_use","id":…,"name":…,"input":{}}` …).
    ContentBlockStart {
        /// The block's position in the message's content (0-based).
        index: usize,
        /// The block as it starts.
        content_block: Value,
    },
    /// `content_block_delta`: a piece of block `index`.
    ContentBlockDelta {
        /// The block's position.
        index: usize,
        /// The piece.
        delta: Delta,
    },
    /// `content_block_stop`: block `index` is complete.
    ContentBlockStop {
        /// The block's position.
        index: usize,
    },
    /// `message_delta`: the message's end state.
    MessageDelta {
        /// `delta.stop_reason`: `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`,
        /// `pause_turn`, `refusal` … (`None` when null or missing).
        stop_reason: Option<String>,
        /// The cumulative counts the event carries (`output_tokens`; newer replies repeat the
        /// input counts too). A count the event leaves out is 0.
        usage: Usage,
        /// `delta.container.id`: the code execution container the answer ran in (programmatic
        /// tool calling), which the next request must name; `None` when there is none.
        container: Option<String>,
    },
    /// `message_stop`: the reply is complete.
    MessageStop,
    /// `ping`: a keep-alive.
    Ping,
    /// `error`: the API gave up mid-stream (`error.type`, `error.message`), e.g.
    /// `overloaded_error`. Turn it into an [`ApiError`] with [`ApiError::from_stream_error`].
    Error {
        /// `error.type`.
        kind: String,
        /// `error.message`.
        message: String,
    },
}

/// A `content_block_delta`'s piece, by its `type`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Delta {
    /// `text_delta`: `text`, appended to a text block's `text`.
    Text(String),
    /// `input_json_delta`: `partial_json`, a piece of a tool_use block's input as JSON text.
    InputJson(String),
    /// `thinking_delta`: `thinking`, appended to a thinking block's `thinking`.
    Thinking(String),
    /// `signature_delta`: `signature`, a thinking block's signature.
    Signature(String),
    /// `citations_delta`: `citation`, one citation added to a text block's `citations`.
    Citation(Value),
    /// Any other delta, as sent (ignored by [`MessageBuilder`]).
    Other(Value),
}

/// Token counts: the Messages API's `usage` object. Serialised with the API's field names; a
/// count that is missing or `null` reads as 0. `+` adds field by field (saturating).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of input not read from or written to the prompt cache.
    #[serde(default, deserialize_with = "count")]
    pub input_tokens: u64,
    /// Tokens of output.
    #[serde(default, deserialize_with = "count")]
    pub output_tokens: u64,
    /// Tokens of input written to the prompt cache (priced 1.25× input).
    #[serde(default, deserialize_with = "count")]
    pub cache_creation_input_tokens: u64,
    /// Tokens of input read from the prompt cache (priced 0.1× input).
    #[serde(default, deserialize_with = "count")]
    pub cache_read_input_tokens: u64,
}

/// A count that may be `null`.
fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(deserializer)?.unwrap_or(0))
}

impl Usage {
    /// The counts of a JSON `usage` object, read leniently: a count that is missing, `null`,
    /// negative or not an integer is 0; anything but an object is all zeros.
    pub fn from_json(usage: &Value) -> Self {
        let get = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        Self {
            input_tokens: get("input_tokens"),
            output_tokens: get("output_tokens"),
            cache_creation_input_tokens: get("cache_creation_input_tokens"),
            cache_read_input_tokens: get("cache_read_input_tokens"),
        }
    }

    /// The counts as the API's JSON object (all four fields).
    pub fn to_json(&self) -> Value {
        json!({
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "output_tokens": self.output_tokens,
        })
    }

    /// Every input token, cached or not.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.cache_creation_input_tokens).saturating_add(self.cache_read_input_tokens)
    }

    /// These counts updated by a later event's (a `message_delta`'s cumulative counts): each
    /// count the later event carries (non-zero) replaces this one, as Claude Code's
    /// `updateUsage` does.
    pub fn updated_by(self, later: &Usage) -> Usage {
        let pick = |now: u64, new: u64| if new > 0 { new } else { now };
        Usage {
            input_tokens: pick(self.input_tokens, later.input_tokens),
            output_tokens: pick(self.output_tokens, later.output_tokens),
            cache_creation_input_tokens: pick(self.cache_creation_input_tokens, later.cache_creation_input_tokens),
            cache_read_input_tokens: pick(self.cache_read_input_tokens, later.cache_read_input_tokens),
        }
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .saturating_add(other.cache_creation_input_tokens),
            cache_read_input_tokens: self.cache_read_input_tokens.saturating_add(other.cache_read_input_tokens),
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// One raw server-sent event: its `event:` name (if any) and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when the event had one.
    pub event: Option<String>,
    /// The `data:` fields, joined by `\n`.
    pub data: String,
}

/// An incremental parser of a `text/event-stream` body (the WHATWG rules): lines end with
/// `\n`, `\r\n` or `\r` (also when split between two reads), `:` starts a comment, a field's
/// value loses one leading space, several `data:` lines join with `\n`, a blank line ends an
/// event, an event without `data` is dropped, `id` / `retry` / unknown fields are ignored.
/// Invalid UTF-8 is replaced (U+FFFD), never an error.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    skip_lf: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a body.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next piece of the body (any split); returns the events it completed.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while !bytes.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                None => {
                    self.line.extend_from_slice(bytes);
                    break;
                }
                Some(end) => {
                    self.line.extend_from_slice(&bytes[..end]);
                    self.skip_lf = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    if let Some(event) = self.end_line() {
                        events.push(event);
                    }
                }
            }
        }
        events
    }

    /// The body ended: the event still open, if it has data (a body whose last event lacks
    /// its blank line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        let last = if self.line.is_empty() { None } else { self.end_line() };
        last.or_else(|| self.end_line())
    }

    fn end_line(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let line = String::from_utf8_lossy(&line);
        if line.is_empty() {
            let event = self.event.take();
            if !std::mem::take(&mut self.has_data) {
                return None;
            }
            return Some(SseEvent { event, data: std::mem::take(&mut self.data) });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field.trim_start_matches('\u{feff}') {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }
}

impl StreamEvent {
    /// The event of one server-sent event, by its data's `type` (else its `event:` name).
    /// `Ok(None)` for a type this crate does not know (skipped, as the API asks of clients).
    ///
    /// # Errors
    /// [`ApiError::Stream`] when the data is not a JSON object or a known event lacks a field
    /// it needs (`index`, `message`, `content_block`, `delta`).
    pub fn from_sse(event: Option<&str>, data: &str) -> Result<Option<StreamEvent>, ApiError> {
        let value: Value = serde_json::from_str(data)
            .map_err(|error| ApiError::Stream(format!("an event's data is not JSON ({error}): {}", clip(data))))?;
        if !value.is_object() {
            return Err(ApiError::Stream(format!("an event's data is not a JSON object: {}", clip(data))));
        }
        let kind = value.get("type").and_then(Value::as_str).or(event).unwrap_or("");
        Self::from_json(kind, &value)
    }

    /// The event of a JSON object whose type is `kind`; see [`StreamEvent::from_sse`].
    ///
    /// # Errors
    /// As [`StreamEvent::from_sse`].
    pub fn from_json(kind: &str, value: &Value) -> Result<Option<StreamEvent>, ApiError> {
        let index = || -> Result<usize, ApiError> {
            value
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|index| usize::try_from(index).ok())
                .ok_or_else(|| ApiError::Stream(format!("a {kind} event without a valid index")))
        };
        let field = |name: &str| -> Result<Value, ApiError> {
            value
                .get(name)
                .filter(|v| v.is_object())
                .cloned()
                .ok_or_else(|| ApiError::Stream(format!("a {kind} event without {name}")))
        };
        let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        Ok(Some(match kind {
            "message_start" => StreamEvent::MessageStart { message: field("message")? },
            "content_block_start" => {
                StreamEvent::ContentBlockStart { index: index()?, content_block: field("content_block")? }
            }
            "content_block_delta" => {
                let index = index()?;
                let delta = field("delta")?;
                let piece = |key: &str| {
                    text(&delta, key).ok_or_else(|| ApiError::Stream(format!("a delta of block {index} without {key}")))
                };
                let delta = match delta.get("type").and_then(Value::as_str).unwrap_or("") {
                    "text_delta" => Delta::Text(piece("text")?),
                    "input_json_delta" => Delta::InputJson(piece("partial_json")?),
                    "thinking_delta" => Delta::Thinking(piece("thinking")?),
                    "signature_delta" => Delta::Signature(piece("signature")?),
                    "citations_delta" => Delta::Citation(delta.get("citation").cloned().unwrap_or(Value::Null)),
                    _ => Delta::Other(delta),
                };
                StreamEvent::ContentBlockDelta { index, delta }
            }
            "content_block_stop" => StreamEvent::ContentBlockStop { index: index()? },
            "message_delta" => StreamEvent::MessageDelta {
                stop_reason: value.get("delta").and_then(|delta| text(delta, "stop_reason")),
                usage: Usage::from_json(value.get("usage").unwrap_or(&Value::Null)),
                container: value.pointer("/delta/container/id").and_then(Value::as_str).map(str::to_owned),
            },
            "message_stop" => StreamEvent::MessageStop,
            "ping" => StreamEvent::Ping,
            "error" => {
                let error = value.get("error").unwrap_or(&Value::Null);
                StreamEvent::Error {
                    kind: text(error, "type").unwrap_or_else(|| "api_error".to_owned()),
                    message: text(error, "message").unwrap_or_default(),
                }
            }
            _ => return Ok(None),
        }))
    }

    /// The events a streamed reply would have sent for a complete non-streaming `message`
    /// (what a proxy that ignores `"stream": true` answers): message_start (content empty),
    /// per block a start, its deltas (text as one `text_delta`, a tool's input as one
    /// `input_json_delta`, thinking as `thinking_delta` + `signature_delta`; other blocks start
    /// whole) and a stop, message_delta (stop_reason, usage), message_stop. An error body
    /// (`{"type":"error",…}`) is one [`StreamEvent::Error`].
    pub fn from_message(message: &Value) -> Vec<StreamEvent> {
        if message.get("type").and_then(Value::as_str) == Some("error") {
            let error = message.get("error").unwrap_or(&Value::Null);
            let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
            return vec![StreamEvent::Error {
                kind: text("type").unwrap_or_else(|| "api_error".to_owned()),
                message: text("message").unwrap_or_default(),
            }];
        }
        let usage = Usage::from_json(message.get("usage").unwrap_or(&Value::Null));
        let mut start = message.as_object().cloned().unwrap_or_default();
        start.insert("content".into(), json!([]));
        start.insert("stop_reason".into(), Value::Null);
        start.insert("stop_sequence".into(), Value::Null);
        let mut events = vec![StreamEvent::MessageStart { message: Value::Object(start) }];
        let blocks = message.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for (index, block) in blocks.iter().enumerate() {
            let mut head = block.clone();
            let mut deltas = Vec::new();
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            match (kind, head.as_object_mut()) {
                ("text", Some(fields)) => {
                    if let Some(Value::String(text)) = fields.insert("text".into(), json!("")) {
                        deltas.push(Delta::Text(text));
                    }
                }
                ("tool_use" | "server_tool_use" | "mcp_tool_use", Some(fields)) => {
                    if let Some(input) = fields.insert("input".into(), json!({})) {
                        deltas.push(Delta::InputJson(input.to_string()));
                    }
                }
                ("thinking", Some(fields)) => {
                    if let Some(Value::String(thinking)) = fields.insert("thinking".into(), json!("")) {
                        deltas.push(Delta::Thinking(thinking));
                    }
                    if let Some(Value::String(signature)) = fields.insert("signature".into(), json!("")) {
                        deltas.push(Delta::Signature(signature));
                    }
                }
                _ => {}
            }
            events.push(StreamEvent::ContentBlockStart { index, content_block: head });
            events.extend(deltas.into_iter().map(|delta| StreamEvent::ContentBlockDelta { index, delta }));
            events.push(StreamEvent::ContentBlockStop { index });
        }
        let stop_reason = message.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
        let container = message.pointer("/container/id").and_then(Value::as_str).map(str::to_owned);
        events.push(StreamEvent::MessageDelta { stop_reason, usage, container });
        events.push(StreamEvent::MessageStop);
        events
    }
}

/// At most 200 characters of `text`, for error messages.
fn clip(text: &str) -> String {
    let mut clipped: String = text.chars().take(200).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}

/// The final assistant message of a stream ([`MessageBuilder::finish`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AssistantMessage {
    /// The message id (`msg_…`), from message_start.
    pub id: Option<String>,
    /// The model that answered, from message_start.
    pub model: Option<String>,
    /// The blocks, in index order, as the API sends them non-streaming
    /// ([`MessageBuilder::block`]).
    pub content: Vec<Value>,
    /// Why the answer ended, from message_delta.
    pub stop_reason: Option<String>,
    /// The final counts.
    pub usage: Usage,
    /// The code execution container the answer ran in (`container.id` of message_start or
    /// message_delta): with programmatic tool calling the next request must name it.
    pub container: Option<String>,
}

impl AssistantMessage {
    /// The whole message as the non-streaming API returns it:
    /// `{"id","type":"message","role":"assistant","model","content","stop_reason","stop_sequence","usage"}`
    /// (`stop_sequence` is always `null`: the events carry no stop sequence this crate keeps).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.content,
            "stop_reason": self.stop_reason,
            "stop_sequence": null,
            "usage": self.usage.to_json(),
        })
    }

    /// The message as a conversation entry to send back: `{"role":"assistant","content":[…]}`.
    pub fn to_param(&self) -> Value {
        json!({"role": "assistant", "content": self.content})
    }

    /// The text of every `text` block, joined (no separator).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect()
    }

    /// The `tool_use` blocks, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &Value> {
        self.content.iter().filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
    }
}

/// The marker key Claude Code puts in a tool_use block's `input` when the streamed JSON does
/// not parse: `{"__unparsedToolInput": {"raw": RAW, "len": BYTES}}`.
pub const UNPARSED_TOOL_INPUT: &str = "__unparsedToolInput";

/// One block under construction.
#[derive(Debug)]
struct BlockState {
    /// The start block with the deltas applied so far (an object).
    value: Map<String, Value>,
    /// The input_json pieces so far, and whether any came.
    json: Option<String>,
    /// The finished block, once stopped.
    done: Option<Value>,
}

impl BlockState {
    fn kind(&self) -> &str {
        self.value.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The block as the API would send it: the start block with deltas applied, the input
    /// JSON parsed (or marked unparsed), a null `citations` dropped from a text block.
    fn finished(&self) -> Value {
        let mut block = self.value.clone();
        match &self.json {
            Some(raw) => {
                let input = if raw.trim().is_empty() {
                    json!({})
                } else {
                    serde_json::from_str::<Value>(raw)
                        .unwrap_or_else(|_| json!({UNPARSED_TOOL_INPUT: {"raw": raw, "len": raw.len()}}))
                };
                block.insert("input".into(), input);
            }
            None if self.kind() == "tool_use" && !block.contains_key("input") => {
                block.insert("input".into(), json!({}));
            }
            None => {}
        }
        if self.kind() == "text" && block.get("citations").is_some_and(Value::is_null) {
            block.remove("citations");
        }
        Value::Object(block)
    }
}

/// Builds the final assistant message from a stream's events, block by block, as Claude
/// Code's stream handler does.
#[derive(Debug, Default)]
pub struct MessageBuilder {
    message: Option<Value>,
    blocks: BTreeMap<usize, BlockState>,
    usage: Usage,
    stop_reason: Option<String>,
    container: Option<String>,
}

impl MessageBuilder {
    /// A builder that has seen no event.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event. Returns `Some(index)` when this event completed block `index` (a
    /// `content_block_stop`), else `None`. Pings, errors and message_stop change nothing.
    ///
    /// # Errors
    /// [`ApiError::Stream`] for an event that does not fit the ones before: a start of a block
    /// already started, a delta or stop for a block never started or already stopped, a
    /// delta of the wrong kind (text for a tool_use block, thinking for a text block …), a
    /// start block that is not a JSON object. The builder is unchanged by a refused event.
    pub fn apply(&mut self, event: &StreamEvent) -> Result<Option<usize>, ApiError> {
        match event {
            StreamEvent::MessageStart { message } => {
                self.usage = Usage::from_json(message.get("usage").unwrap_or(&Value::Null));
                self.message = Some(message.clone());
            }
            StreamEvent::ContentBlockStart { index, content_block } => {
                if self.blocks.contains_key(index) {
                    return Err(ApiError::Stream(format!("block {index} started twice")));
                }
                let Value::Object(value) = content_block else {
                    return Err(ApiError::Stream(format!(
                        "block {index} starts as a non-object: {}",
                        clip(&content_block.to_string())
                    )));
                };
                self.blocks.insert(*index, BlockState { value: value.clone(), json: None, done: None });
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let block = self.open_block(*index, "a delta")?;
                apply_delta(*index, block, delta)?;
            }
            StreamEvent::ContentBlockStop { index } => {
                let block = self.open_block(*index, "a stop")?;
                block.done = Some(block.finished());
                return Ok(Some(*index));
            }
            StreamEvent::MessageDelta { stop_reason, usage, container } => {
                self.usage = self.usage.updated_by(usage);
                if container.is_some() {
                    self.container.clone_from(container);
                }
                if stop_reason.is_some() {
                    self.stop_reason.clone_from(stop_reason);
                }
            }
            StreamEvent::MessageStop | StreamEvent::Ping | StreamEvent::Error { .. } => {}
        }
        Ok(None)
    }

    fn open_block(&mut self, index: usize, what: &str) -> Result<&mut BlockState, ApiError> {
        match self.blocks.get_mut(&index) {
            None => Err(ApiError::Stream(format!("{what} for block {index}, which never started"))),
            Some(block) if block.done.is_some() => {
                Err(ApiError::Stream(format!("{what} for block {index}, which had stopped")))
            }
            Some(block) => Ok(block),
        }
    }

    /// Completed block `index` as the API would have sent it non-streaming: text
    /// `{type,text[,citations]}`, tool_use `{type,id,name,input}` (input = the parsed
    /// concatenated input_json deltas; `{}` when none; JSON that does not parse becomes
    /// `{"__unparsedToolInput": {"raw": RAW, "len": BYTES}}`), thinking
    /// `{type,thinking,signature}`, and any other block (redacted_thinking, server_tool_use,
    /// web_search_tool_result …) the start block with its deltas applied, every other field
    /// (such as `caller`) unchanged. `None` while the block is not complete.
    pub fn block(&self, index: usize) -> Option<&Value> {
        self.blocks.get(&index).and_then(|block| block.done.as_ref())
    }

    /// The text of block `index` so far (complete or not): a text block's `text`, a thinking
    /// block's `thinking`, a tool's input JSON pieces; `None` for a block never started.
    pub fn partial(&self, index: usize) -> Option<String> {
        let block = self.blocks.get(&index)?;
        if let Some(json) = &block.json {
            return Some(json.clone());
        }
        let key = if block.kind() == "thinking" { "thinking" } else { "text" };
        Some(block.value.get(key).and_then(Value::as_str).unwrap_or("").to_owned())
    }

    /// Usage so far: message_start's counts, updated by message_delta's.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The stop reason, once a message_delta gave one.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// The message id, once message_start gave one.
    pub fn id(&self) -> Option<&str> {
        self.message.as_ref()?.get("id")?.as_str()
    }

    /// The whole message: the blocks in index order (a block that never stopped is finished
    /// as it stands), id and model from message_start, stop_reason and usage. See
    /// [`AssistantMessage::to_json`] for the API's JSON form.
    pub fn finish(self) -> AssistantMessage {
        let text =
            |key: &str| self.message.as_ref().and_then(|m| m.get(key)).and_then(Value::as_str).map(str::to_owned);
        AssistantMessage {
            id: text("id"),
            model: text("model"),
            content: self.blocks.values().map(|block| block.done.clone().unwrap_or_else(|| block.finished())).collect(),
            stop_reason: self.stop_reason,
            usage: self.usage,
            container: self.container.or_else(|| {
                self.message
                    .as_ref()
                    .and_then(|m| m.pointer("/container/id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
        }
    }
}

/// Applies one delta to an open block.
fn apply_delta(index: usize, block: &mut BlockState, delta: &Delta) -> Result<(), ApiError> {
    let kind = block.kind().to_owned();
    let misfit = |what: &str| ApiError::Stream(format!("a {what} delta for block {index}, a {kind} block"));
    let append = |fields: &mut Map<String, Value>, key: &str, piece: &str| -> bool {
        match fields.entry(key).or_insert_with(|| json!("")) {
            Value::String(text) => {
                text.push_str(piece);
                true
            }
            _ => false,
        }
    };
    match delta {
        Delta::Text(piece) => {
            if kind != "text" || !append(&mut block.value, "text", piece) {
                return Err(misfit("text"));
            }
        }
        Delta::Thinking(piece) => {
            if kind != "thinking" || !append(&mut block.value, "thinking", piece) {
                return Err(misfit("thinking"));
            }
        }
        Delta::Signature(signature) => {
            if kind != "thinking" {
                return Err(misfit("signature"));
            }
            block.value.insert("signature".into(), json!(signature));
        }
        Delta::InputJson(piece) => {
            if kind == "text" || kind == "thinking" || kind == "redacted_thinking" {
                return Err(misfit("input_json"));
            }
            block.json.get_or_insert_with(String::new).push_str(piece);
        }
        Delta::Citation(citation) => {
            if kind != "text" {
                return Err(misfit("citations"));
            }
            match block.value.entry("citations").or_insert_with(|| json!([])) {
                Value::Array(citations) => citations.push(citation.clone()),
                other => *other = json!([citation]),
            }
        }
        Delta::Other(_) => {}
    }
    Ok(())
}

/// Where an [`EventStream`]'s events come from.
enum Source {
    /// A streamed HTTP body, read chunk by chunk.
    Body(reqwest::Response),
    /// Nothing more to read (the events were known up front, or the body is done).
    Done,
}

/// How the body's server-sent events become [`StreamEvent`]s.
pub(crate) enum Dialect {
    /// The Messages API's own events.
    Anthropic,
    /// Chat Completions chunks, translated.
    OpenAi(Box<crate::openai::ChunkTranslator>),
}

/// The state of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Events may still come.
    Open,
    /// message_stop (or an error event) came: `next` returns `None`.
    Ended,
}

/// An open stream of events. [`EventStream::next`] returns `None` after `message_stop` or an
/// `error` event; a body that ends before either is `Err(ApiError::StreamEnded)` (a dropped
/// connection is an error, never a silent end). Waiting for a chunk longer than the idle
/// timeout is [`ApiError::Timeout`]. After the first error, `next` returns `None`.
pub struct EventStream {
    source: Source,
    dialect: Dialect,
    parser: SseParser,
    pending: VecDeque<StreamEvent>,
    idle: Duration,
    endpoint: String,
    state: State,
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("endpoint", &self.endpoint)
            .field("pending", &self.pending.len())
            .field("idle", &self.idle)
            .field("open", &(self.state == State::Open))
            .finish_non_exhaustive()
    }
}

impl EventStream {
    /// A stream reading `response`'s SSE body.
    pub(crate) fn from_response(
        response: reqwest::Response,
        dialect: Dialect,
        idle: Duration,
        endpoint: String,
    ) -> Self {
        Self {
            source: Source::Body(response),
            dialect,
            parser: SseParser::new(),
            pending: VecDeque::new(),
            idle,
            endpoint,
            state: State::Open,
        }
    }

    /// A stream of events known up front (for tests of code that consumes streams, and for a
    /// reply that came as one JSON message). Like a body, it is `Err(StreamEnded)` at its end
    /// unless the events include a `MessageStop` or `Error`.
    pub fn from_events(events: impl IntoIterator<Item = StreamEvent>) -> Self {
        Self {
            source: Source::Done,
            dialect: Dialect::Anthropic,
            parser: SseParser::new(),
            pending: events.into_iter().collect(),
            idle: Duration::ZERO,
            endpoint: String::new(),
            state: State::Open,
        }
    }

    /// The URL the stream came from (empty for [`EventStream::from_events`]).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The next event; `None` once the stream is over. Cancel-safe: dropping the future
    /// before it completes (a `tokio::select!` on an interrupt) loses no event, and the stream
    /// can be polled again.
    ///
    /// # Errors
    /// [`ApiError::StreamEnded`] when the body ends early, [`ApiError::Body`] when reading
    /// fails (a reset connection), [`ApiError::Timeout`] when no chunk came for the idle
    /// timeout, [`ApiError::Stream`] for an event that cannot be read.
    pub async fn next(&mut self) -> Option<Result<StreamEvent, ApiError>> {
        loop {
            if self.state == State::Ended {
                return None;
            }
            if let Some(event) = self.pending.pop_front() {
                if matches!(event, StreamEvent::MessageStop | StreamEvent::Error { .. }) {
                    self.end();
                }
                return Some(Ok(event));
            }
            let result = match &mut self.source {
                Source::Done => {
                    self.end();
                    return Some(Err(ApiError::StreamEnded));
                }
                Source::Body(response) => tokio::time::timeout(self.idle, response.chunk()).await,
            };
            let step = match result {
                Err(_) => Err(ApiError::Timeout { endpoint: self.endpoint.clone(), after: self.idle }),
                Ok(Err(source)) => Err(ApiError::Body { endpoint: self.endpoint.clone(), source }),
                Ok(Ok(Some(bytes))) => {
                    let raw = self.parser.feed(&bytes);
                    self.translate(raw)
                }
                Ok(Ok(None)) => {
                    self.source = Source::Done;
                    let raw: Vec<SseEvent> = self.parser.finish().into_iter().collect();
                    self.translate(raw).and_then(|()| self.finish_dialect())
                }
            };
            if let Err(error) = step {
                self.end();
                return Some(Err(error));
            }
        }
    }

    /// Reads the stream to its end into one message (events applied to a
    /// [`MessageBuilder`]).
    ///
    /// # Errors
    /// Any error of [`EventStream::next`] or [`MessageBuilder::apply`]; an `error` event is
    /// [`ApiError::StreamError`].
    pub async fn collect_message(mut self) -> Result<AssistantMessage, ApiError> {
        let mut builder = MessageBuilder::new();
        while let Some(event) = self.next().await {
            let event = event?;
            if let StreamEvent::Error { kind, message } = &event {
                return Err(ApiError::from_stream_error(kind.clone(), message.clone()));
            }
            builder.apply(&event)?;
        }
        Ok(builder.finish())
    }

    fn end(&mut self) {
        self.state = State::Ended;
        self.source = Source::Done;
        self.pending.clear();
    }

    /// Turns raw events into pending stream events.
    fn translate(&mut self, raw: Vec<SseEvent>) -> Result<(), ApiError> {
        for sse in raw {
            match &mut self.dialect {
                Dialect::Anthropic => {
                    if let Some(event) = StreamEvent::from_sse(sse.event.as_deref(), &sse.data)? {
                        self.pending.push_back(event);
                    }
                }
                Dialect::OpenAi(translator) => self.pending.extend(translator.chunk(&sse)?),
            }
        }
        Ok(())
    }

    /// The body ended: what the dialect still owes (an OpenAI stream without `[DONE]` that
    /// did finish); an OpenAI body with nothing in it is [`ApiError::EmptyReply`].
    fn finish_dialect(&mut self) -> Result<(), ApiError> {
        if let Dialect::OpenAi(translator) = &mut self.dialect {
            if translator.got_nothing() {
                return Err(ApiError::EmptyReply { endpoint: self.endpoint.clone() });
            }
            self.pending.extend(translator.end());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_lines_split_anywhere_give_the_same_events() {
        let body = ": comment\r\nevent: message_start\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent:ping\rdata:x\r\rdata: y\n\nid: 3\nretry: 10\n\n";
        let expected = vec![
            SseEvent { event: Some("message_start".into()), data: "{\"a\":\n1}".into() },
            SseEvent { event: Some("ping".into()), data: "x".into() },
            SseEvent { event: None, data: "y".into() },
        ];
        let mut whole = SseParser::new();
        assert_eq!(whole.feed(body.as_bytes()), expected);
        for split in 0..=body.len() {
            let mut parser = SseParser::new();
            let mut events = parser.feed(&body.as_bytes()[..split]);
            events.extend(parser.feed(&body.as_bytes()[split..]));
            events.extend(parser.finish());
            assert_eq!(events, expected, "split at {split}");
        }
        let mut bytewise = SseParser::new();
        let events: Vec<SseEvent> = body.as_bytes().iter().flat_map(|b| bytewise.feed(&[*b])).collect();
        assert_eq!(events, expected);
    }

    #[test]
    fn an_unterminated_last_event_is_kept_at_the_end() {
        let mut parser = SseParser::new();
        assert_eq!(parser.feed(b"data: last"), vec![]);
        assert_eq!(parser.finish(), Some(SseEvent { event: None, data: "last".into() }));
        assert_eq!(parser.finish(), None);
    }

    #[test]
    fn usage_reads_nulls_and_missing_counts_as_zero() {
        let usage: Usage = serde_json::from_str(r#"{"input_tokens":5,"cache_read_input_tokens":null}"#).unwrap();
        assert_eq!(usage, Usage { input_tokens: 5, ..Usage::default() });
        let sum = usage + Usage { output_tokens: 2, input_tokens: 1, ..Usage::default() };
        assert_eq!((sum.input_tokens, sum.output_tokens), (6, 2));
        assert_eq!(Usage::from_json(&json!({"input_tokens": -1, "output_tokens": 3})).output_tokens, 3);
        assert_eq!(serde_json::to_value(sum).unwrap()["cache_creation_input_tokens"], 0);
    }

    #[test]
    fn unknown_events_are_skipped_and_bad_ones_refused() {
        assert_eq!(StreamEvent::from_sse(Some("future_event"), r#"{"type":"future_event"}"#).unwrap(), None);
        assert!(matches!(StreamEvent::from_sse(None, "not json"), Err(ApiError::Stream(_))));
        assert!(matches!(StreamEvent::from_sse(None, r#"{"type":"content_block_stop"}"#), Err(ApiError::Stream(_))));
        assert!(matches!(
            StreamEvent::from_sse(None, r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}"#),
            Err(ApiError::Stream(_))
        ));
        assert_eq!(
            StreamEvent::from_sse(Some("ping"), "{}").unwrap(),
            Some(StreamEvent::Ping),
            "the event name serves when the data has no type"
        );
    }

    fn start(index: usize, block: Value) -> StreamEvent {
        StreamEvent::ContentBlockStart { index, content_block: block }
    }

    fn delta(index: usize, delta: Delta) -> StreamEvent {
        StreamEvent::ContentBlockDelta { index, delta }
    }

    #[test]
    fn the_builder_applies_deltas_and_refuses_events_that_do_not_fit() {
        let mut builder = MessageBuilder::new();
        let message = json!({"id": "msg_1", "model": "m", "usage": {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 1}});
        builder.apply(&StreamEvent::MessageStart { message }).unwrap();
        builder.apply(&start(0, json!({"type": "text", "text": "", "citations": null}))).unwrap();
        builder.apply(&delta(0, Delta::Text("A".into()))).unwrap();
        builder.apply(&delta(0, Delta::Text("B".into()))).unwrap();
        assert_eq!(builder.partial(0).as_deref(), Some("AB"));
        assert_eq!(builder.block(0), None, "not complete yet");
        assert!(matches!(builder.apply(&delta(0, Delta::Thinking("x".into()))), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&delta(0, Delta::InputJson("{".into()))), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&delta(3, Delta::Text("x".into()))), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&StreamEvent::ContentBlockStop { index: 3 }), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&start(0, json!({"type": "text"}))), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&start(5, json!("text"))), Err(ApiError::Stream(_))));
        assert_eq!(builder.apply(&StreamEvent::ContentBlockStop { index: 0 }).unwrap(), Some(0));
        assert_eq!(builder.block(0), Some(&json!({"type": "text", "text": "AB"})));
        assert!(matches!(builder.apply(&delta(0, Delta::Text("late".into()))), Err(ApiError::Stream(_))));
        assert!(matches!(builder.apply(&StreamEvent::ContentBlockStop { index: 0 }), Err(ApiError::Stream(_))));

        builder.apply(&start(1, json!({"type": "text", "text": ""}))).unwrap();
        builder.apply(&delta(1, Delta::Text("See".into()))).unwrap();
        let citation = json!({"type": "char_location", "cited_text": "x", "document_index": 0});
        builder.apply(&delta(1, Delta::Citation(citation.clone()))).unwrap();
        builder.apply(&delta(1, Delta::Other(json!({"type": "future_delta"})))).unwrap();
        builder.apply(&StreamEvent::ContentBlockStop { index: 1 }).unwrap();
        assert_eq!(builder.block(1), Some(&json!({"type": "text", "text": "See", "citations": [citation]})));

        builder.apply(&start(2, json!({"type": "redacted_thinking", "data": "opaque"}))).unwrap();
        builder.apply(&start(3, json!({"type": "tool_use", "id": "t", "name": "Bash", "input": {}}))).unwrap();
        builder.apply(&delta(3, Delta::InputJson("{\"command\":".into()))).unwrap();
        builder.apply(&delta(3, Delta::InputJson(" \"ls\"}".into()))).unwrap();
        builder.apply(&StreamEvent::Ping).unwrap();
        let usage = Usage { output_tokens: 42, ..Usage::default() };
        builder
            .apply(&StreamEvent::MessageDelta { stop_reason: Some("tool_use".into()), usage, container: None })
            .unwrap();
        assert_eq!(
            builder.usage(),
            Usage { input_tokens: 10, output_tokens: 42, cache_read_input_tokens: 4, ..Usage::default() }
        );
        assert_eq!(builder.stop_reason(), Some("tool_use"));
        assert_eq!(builder.id(), Some("msg_1"));
        builder.apply(&StreamEvent::MessageStop).unwrap();
        // Blocks 2 and 3 never stopped: finish completes them as they stand.
        let message = builder.finish();
        assert_eq!(message.content.len(), 4);
        assert_eq!(message.content[2], json!({"type": "redacted_thinking", "data": "opaque"}));
        assert_eq!(
            message.content[3],
            json!({"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}})
        );
        let whole = message.to_json();
        assert_eq!(whole["type"], "message");
        assert_eq!(whole["role"], "assistant");
        assert_eq!(whole["stop_sequence"], Value::Null);
        assert_eq!(whole["usage"]["output_tokens"], 42);
        assert_eq!(message.to_param(), json!({"role": "assistant", "content": message.content}));
        assert_eq!(message.text(), "ABSee");
    }

    #[test]
    fn a_message_becomes_the_events_a_stream_would_send() {
        let message = json!({"id": "msg_9", "model": "m", "stop_reason": "end_turn", "usage": {"input_tokens": 7, "output_tokens": 3},
            "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "hi"},
                        {"type": "web_search_tool_result", "tool_use_id": "x", "content": []}]});
        let events = StreamEvent::from_message(&message);
        assert_eq!(events.len(), 12);
        let mut builder = MessageBuilder::new();
        for event in &events {
            builder.apply(event).unwrap();
        }
        let rebuilt = builder.finish();
        assert_eq!(Value::Array(rebuilt.content.clone()), message["content"]);
        assert_eq!(rebuilt.usage, Usage { input_tokens: 7, output_tokens: 3, ..Usage::default() });
        let error = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert_eq!(
            StreamEvent::from_message(&error),
            vec![StreamEvent::Error { kind: "overloaded_error".into(), message: "Overloaded".into() }]
        );
    }

    #[tokio::test]
    async fn a_stream_of_known_events_ends_at_message_stop_or_errors() {
        let mut stream = EventStream::from_events([StreamEvent::Ping, StreamEvent::MessageStop, StreamEvent::Ping]);
        assert_eq!(stream.next().await.unwrap().unwrap(), StreamEvent::Ping);
        assert_eq!(stream.next().await.unwrap().unwrap(), StreamEvent::MessageStop);
        assert!(stream.next().await.is_none());
        let mut short = EventStream::from_events([StreamEvent::Ping]);
        short.next().await.unwrap().unwrap();
        assert!(matches!(short.next().await, Some(Err(ApiError::StreamEnded))));
        assert!(short.next().await.is_none());
    }
}
