//! An OpenAI-compatible backend: [`OpenAiClient`] sends an *Anthropic* Messages request body
//! to a Chat Completions server (`POST {base_url}/chat/completions`: Ollama, vLLM, llama.cpp,
//! LM Studio, OpenRouter, OpenAI …) and hands back the same [`StreamEvent`] sequence an
//! Anthropic stream gives, so the agent loop needs no second code path; [`Backend`] holds
//! either client.
//!
//! The request ([`chat_request`]):
//!
//! | Anthropic                                   | Chat Completions                                   |
//! |---------------------------------------------|----------------------------------------------------|
//! | `system` (a string or text blocks)          | a first `system` message (blocks joined by `\n\n`) |
//! | a message of role `system`                  | a `system` message                                 |
//! | `text` blocks                               | `content` (a string; parts when there are images)  |
//! | `image` blocks (base64 or URL)              | `image_url` parts (`data:` URLs for base64)        |
//! | assistant `tool_use` blocks                 | `tool_calls` `{id, type:"function", function:{name, arguments: JSON text}}` |
//! | user `tool_result` blocks                   | `role:"tool"` messages (`tool_call_id`, text blocks joined by `\n`; `is_error`: `"Error: "` first), before the user's other blocks |
//! | thinking, redacted_thinking, server blocks  | dropped                                            |
//! | `tools` (custom)                            | `{"type":"function","function":{name, description, parameters: input_schema}}` |
//! | server tools (a `type` other than `custom`), deferred tools without a schema | left out  |
//! | `tool_choice` auto / any / tool / none      | `"auto"` / `"required"` / `{"type":"function",…}` / `"none"` |
//! | `max_tokens`, `temperature`, `top_p`, `stop_sequences` | `max_tokens`, `temperature`, `top_p`, `stop` |
//! | (always)                                    | `stream: true`, `stream_options: {include_usage: true}` |
//!
//! The reply: `choices[0].delta.content` pieces become one text block, `delta.tool_calls[i]`
//! (by `index`: `id` and `function.name` start a tool_use block, `function.arguments` pieces
//! are its `input_json_delta`s), `delta.reasoning_content` / `delta.reasoning` a thinking
//! block (empty signature); `finish_reason` `stop` / `length` / `tool_calls` /
//! `content_filter` becomes stop_reason `end_turn` / `max_tokens` / `tool_use` / `refusal`
//! (`tool_use` whenever a tool was called); the usage chunk's `prompt_tokens` (less
//! `prompt_tokens_details.cached_tokens`, which become cache reads) and `completion_tokens`
//! the usage; `data: [DONE]` the message_delta and message_stop. Blocks are started, filled and
//! stopped one after the other, as the Messages API does.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use agent_tools_core::secret::Redacted;
use serde_json::{Map, Value, json};

use crate::client::{Client, ClientOptions, http_client, open_event_stream, send_within};
use crate::error::ApiError;
use crate::retry::RetryPolicy;
use crate::stream::{Delta, Dialect, EventStream, SseEvent, StreamEvent, Usage};

/// Where and how to reach a Chat Completions server. `Debug` never prints the key.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// The base URL, up to and including the version (`http://localhost:11434/v1`,
    /// `https://api.openai.com/v1`); requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The key, sent as `Authorization: Bearer …`; `None` for servers without one (Ollama).
    pub api_key: Option<String>,
    /// The model asked (`llama3.2`, `qwen2.5-coder:7b`, `gpt-4o` …); it replaces the request
    /// body's `model` (an empty one keeps the body's).
    pub model: String,
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_deref().map(Redacted))
            .field("model", &self.model)
            .finish()
    }
}

impl OpenAiConfig {
    /// `{base_url}/chat/completions` (a trailing `/` of the base is dropped).
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// A client of one Chat Completions server that speaks Messages API events. Cheap to clone.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    http: reqwest::Client,
    idle: Duration,
}

impl OpenAiClient {
    /// A client for `config`: the options' user agent, connect timeout and stream idle timeout
    /// (no total timeout), no proxy for a loopback base URL.
    ///
    /// # Errors
    /// [`ApiError::Setup`] when the HTTP client cannot be built.
    pub fn new(config: OpenAiConfig, options: &ClientOptions) -> Result<Self, ApiError> {
        let http = http_client(&config.base_url, options, None)?;
        Ok(Self { config, http, idle: options.stream_idle_timeout })
    }

    /// The config this client calls with.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The model asked.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Sends the Anthropic request `body` translated ([`chat_request`]) to
    /// `{base_url}/chat/completions` with the key (if any), `content-type: application/json`,
    /// `accept: text/event-stream` and `extra_headers`, and returns the reply as Messages API
    /// events (see the [module docs](self)). A JSON `chat.completion` reply instead of chunks
    /// is turned into the same events. Timeouts as [`Client::stream`].
    ///
    /// # Errors
    /// As [`Client::stream`]; a tool call whose arguments continue after another call began
    /// is [`ApiError::Stream`].
    pub async fn stream(&self, body: &Value, extra_headers: &[(String, String)]) -> Result<EventStream, ApiError> {
        let endpoint = self.config.endpoint();
        let request = chat_request(body, &self.config.model);
        let payload = serde_json::to_vec(&request).map_err(ApiError::NotJson)?;
        let builder =
            self.http.post(&endpoint).header("content-type", "application/json").header("accept", "text/event-stream");
        let builder = match self.config.api_key.as_deref().filter(|key| !key.is_empty()) {
            Some(key) => builder.bearer_auth(key),
            None => builder,
        };
        let builder = extra_headers.iter().fold(builder, |builder, (name, value)| builder.header(name, value));
        let response = send_within(builder.body(payload), self.idle, &endpoint).await?;
        let model = request.get("model").and_then(Value::as_str).unwrap_or("").to_owned();
        let dialect = Dialect::OpenAi(Box::new(ChunkTranslator::new(model)));
        open_event_stream(response, dialect, self.idle, endpoint).await
    }
}

/// The model backend the agent loop talks to: the Messages API itself or a Chat Completions
/// server, behind the same [`EventStream`].
#[derive(Debug, Clone)]
pub enum Backend {
    /// The Anthropic Messages API.
    Anthropic(Client),
    /// An OpenAI-compatible Chat Completions server.
    OpenAi(OpenAiClient),
}

impl Backend {
    /// Opens a stream of `body` (an Anthropic Messages request with `"stream": true`):
    /// [`Client::stream`] or [`OpenAiClient::stream`].
    ///
    /// # Errors
    /// Those of the client's `stream`.
    pub async fn stream(&self, body: &Value, extra_headers: &[(String, String)]) -> Result<EventStream, ApiError> {
        match self {
            Self::Anthropic(client) => client.stream(body, extra_headers).await,
            Self::OpenAi(client) => client.stream(body, extra_headers).await,
        }
    }

    /// [`Backend::stream`] with any serializable body (an Anthropic Messages request): sent as
    /// it serializes to the Messages API; turned into a `Value` first for a Chat Completions
    /// server, whose request is a translation.
    ///
    /// # Errors
    /// Those of the client's `stream`; [`ApiError::NotJson`] when the body does not serialize.
    pub async fn stream_json<B: serde::Serialize + ?Sized>(
        &self,
        body: &B,
        extra_headers: &[(String, String)],
    ) -> Result<EventStream, ApiError> {
        match self {
            Self::Anthropic(client) => client.stream_json(body, extra_headers).await,
            Self::OpenAi(client) => {
                let body = serde_json::to_value(body).map_err(ApiError::NotJson)?;
                client.stream(&body, extra_headers).await
            }
        }
    }

    /// [`Backend::stream`] with the opening retried ([`Client::stream_with_retries`]).
    ///
    /// # Errors
    /// The last error.
    pub async fn stream_with_retries(
        &self,
        body: &Value,
        extra_headers: &[(String, String)],
        policy: &RetryPolicy,
        on_retry: impl FnMut(u32, &ApiError, Duration),
    ) -> Result<EventStream, ApiError> {
        policy.run(on_retry, || self.stream(body, extra_headers)).await
    }

    /// The configured model ([`crate::ApiConfig::model`] or [`OpenAiConfig::model`]).
    pub fn model(&self) -> &str {
        match self {
            Self::Anthropic(client) => &client.config().model,
            Self::OpenAi(client) => client.model(),
        }
    }
}

/// The text of a `system` value or a message's `content`: a string as it is, text blocks'
/// `text` joined by `separator`, anything else empty.
fn text_of(content: &Value, separator: &str) -> String {
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

fn kind(block: &Value) -> &str {
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
/// the [module docs](self)), asking `model` (an empty `model`: the body's). Never fails: what
/// does not translate is left out.
pub fn chat_request(body: &Value, model: &str) -> Value {
    let mut messages = Vec::new();
    let system = body.get("system").map(|system| text_of(system, "\n\n")).unwrap_or_default();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
        let content = message.get("content").unwrap_or(&Value::Null);
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "system" => messages.push(json!({"role": "system", "content": text_of(content, "\n\n")})),
            "assistant" => messages.extend(assistant_message(content)),
            _ => messages.extend(user_messages(content)),
        }
    }
    let model = if model.is_empty() { body.get("model").and_then(Value::as_str).unwrap_or("") } else { model };
    let mut request = Map::new();
    request.insert("model".into(), json!(model));
    request.insert("messages".into(), Value::Array(messages));
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|tool| tool.get("type").and_then(Value::as_str).is_none_or(|kind| kind == "custom"))
        .filter(|tool| {
            !(tool.get("defer_loading").and_then(Value::as_bool) == Some(true)
                && schema_is_empty(tool.get("input_schema")))
        })
        .filter_map(|tool| {
            let name = tool.get("name").and_then(Value::as_str)?;
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
/// when it has neither (only thinking or server blocks).
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
            json!({"id": block.get("id").cloned().unwrap_or(Value::Null), "type": "function",
                   "function": {"name": block.get("name").cloned().unwrap_or(Value::Null), "arguments": input.to_string()}})
        })
        .collect();
    match (text.is_empty(), calls.is_empty()) {
        (true, true) => None,
        (_, true) => Some(json!({"role": "assistant", "content": text})),
        (true, false) => Some(json!({"role": "assistant", "content": null, "tool_calls": calls})),
        (false, false) => Some(json!({"role": "assistant", "content": text, "tool_calls": calls})),
    }
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
                let result = block.get("content").unwrap_or(&Value::Null);
                let mut text = text_of(result, "\n");
                if let Value::Array(items) = result {
                    parts.extend(items.iter().filter(|item| kind(item) == "image").filter_map(image_part));
                }
                if block.get("is_error").and_then(Value::as_bool) == Some(true) {
                    text = format!("Error: {text}");
                }
                let id = block.get("tool_use_id").cloned().unwrap_or(Value::Null);
                out.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
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
    usage: Usage,
}

impl ChunkTranslator {
    pub(crate) fn new(model: String) -> Self {
        Self {
            model,
            started: false,
            finished: false,
            open: Open::None,
            next_index: 0,
            calls: BTreeMap::new(),
            finish_reason: None,
            usage: Usage::default(),
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
            self.started = true;
            let id = chunk.get("id").and_then(Value::as_str).unwrap_or("chatcmpl");
            let model = chunk.get("model").and_then(Value::as_str).unwrap_or(&self.model).to_owned();
            events.push(StreamEvent::MessageStart {
                message: json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": [],
                    "stop_reason": null, "stop_sequence": null, "usage": Usage::default().to_json()}),
            });
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            let cached = usage.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).unwrap_or(0);
            self.usage = Usage {
                input_tokens: count("prompt_tokens").saturating_sub(cached),
                output_tokens: count("completion_tokens"),
                cache_read_input_tokens: cached,
                cache_creation_input_tokens: 0,
            };
        }
        let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|choices| choices.first()) else {
            return Ok(());
        };
        let delta = choice.get("delta").or_else(|| choice.get("message")).unwrap_or(&Value::Null);
        let reasoning =
            ["reasoning_content", "reasoning"].iter().find_map(|key| delta.get(*key).and_then(Value::as_str));
        if let Some(piece) = reasoning.filter(|piece| !piece.is_empty()) {
            let index = match self.open {
                Open::Thinking(index) => index,
                _ => self.begin(events, json!({"type": "thinking", "thinking": "", "signature": ""}), Open::Thinking),
            };
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::Thinking(piece.to_owned()) });
        }
        if let Some(piece) = delta.get("content").and_then(Value::as_str).filter(|piece| !piece.is_empty()) {
            let index = match self.open {
                Open::Text(index) => index,
                _ => self.begin(events, json!({"type": "text", "text": ""}), Open::Text),
            };
            events.push(StreamEvent::ContentBlockDelta { index, delta: Delta::Text(piece.to_owned()) });
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.tool_call(position, call, events)?;
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
            self.close(events);
        }
        Ok(())
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
        let index = match (self.calls.get(&key).copied(), self.open) {
            (None, _) => {
                let id = call.get("id").and_then(Value::as_str).map_or_else(|| format!("call_{key}"), str::to_owned);
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
            self.started = true;
            events.push(StreamEvent::MessageStart {
                message: json!({"id": "chatcmpl", "type": "message", "role": "assistant", "model": self.model,
                    "content": [], "stop_reason": null, "stop_sequence": null, "usage": Usage::default().to_json()}),
            });
        }
        self.close(events);
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
        events.push(StreamEvent::MessageDelta {
            stop_reason: Some(stop_reason.to_owned()),
            usage: self.usage,
            container: None,
        });
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
}

/// The events of a whole (non-streamed) `chat.completion` reply, or of an error body.
pub(crate) fn events_of_completion(reply: &Value) -> Vec<StreamEvent> {
    let mut translator = ChunkTranslator::new(String::new());
    let mut events = Vec::new();
    let mut chunk = reply.clone();
    if let Some(calls) = chunk.pointer_mut("/choices/0/message/tool_calls").and_then(Value::as_array_mut) {
        for (index, call) in calls.iter_mut().enumerate() {
            if let Some(fields) = call.as_object_mut() {
                fields.entry("index").or_insert(json!(index));
            }
        }
    }
    if translator.value(&chunk, &mut events).is_err() {
        return vec![StreamEvent::Error { kind: "api_error".into(), message: "an unreadable chat completion".into() }];
    }
    if !translator.finished {
        translator.done(&mut events);
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translate(chunks: &[Value]) -> Vec<StreamEvent> {
        let mut translator = ChunkTranslator::new("m".into());
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(translator.chunk(&SseEvent { event: None, data: chunk.to_string() }).unwrap());
        }
        events.extend(translator.chunk(&SseEvent { event: None, data: "[DONE]".into() }).unwrap());
        events
    }

    #[test]
    fn reasoning_text_and_a_whole_tool_call_in_one_chunk() {
        let events = translate(&[
            json!({"id": "c1", "model": "qwen", "choices": [{"index": 0, "delta": {"reasoning_content": "hmm"}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"function": {"name": "Read", "arguments": {"file_path": "/a"}}}]}, "finish_reason": "stop"}]}),
        ]);
        let mut builder = crate::MessageBuilder::new();
        for event in &events {
            builder.apply(event).unwrap();
        }
        let message = builder.finish();
        assert_eq!(message.model.as_deref(), Some("qwen"));
        assert_eq!(message.stop_reason.as_deref(), Some("tool_use"), "a tool was called though finish_reason is stop");
        assert_eq!(
            message.content,
            vec![
                json!({"type": "thinking", "thinking": "hmm", "signature": ""}),
                json!({"type": "text", "text": "Hi"}),
                json!({"type": "tool_use", "id": "call_0", "name": "Read", "input": {"file_path": "/a"}}),
            ]
        );
    }

    #[test]
    fn interleaved_tool_arguments_are_refused_and_errors_reported() {
        let mut translator = ChunkTranslator::new("m".into());
        let chunk = |value: Value| SseEvent { event: None, data: value.to_string() };
        let call = |index: u64, args: &str| json!({"choices": [{"delta": {"tool_calls": [{"index": index, "id": format!("c{index}"), "function": {"name": "X", "arguments": args}}]}}]});
        translator.chunk(&chunk(call(0, "{"))).unwrap();
        translator.chunk(&chunk(call(1, "{"))).unwrap();
        assert!(matches!(translator.chunk(&chunk(call(0, "}"))), Err(ApiError::Stream(_))));
        let mut translator = ChunkTranslator::new("m".into());
        let events = translator
            .chunk(&chunk(json!({"error": {"message": "model not loaded", "type": "server_error"}})))
            .unwrap();
        assert_eq!(
            events,
            vec![StreamEvent::Error { kind: "server_error".into(), message: "model not loaded".into() }]
        );
        let mut cut = ChunkTranslator::new("m".into());
        cut.chunk(&chunk(json!({"choices": [{"delta": {"content": "x"}}]}))).unwrap();
        assert_eq!(cut.end(), vec![], "no finish reason: the stream ended early");
    }

    #[test]
    fn a_whole_completion_becomes_events() {
        let reply = json!({"id": "c", "model": "m", "choices": [{"message": {"role": "assistant", "content": "ok",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "A", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 2}}});
        let events = events_of_completion(&reply);
        let mut builder = crate::MessageBuilder::new();
        for event in &events {
            builder.apply(event).unwrap();
        }
        assert_eq!(
            builder.usage(),
            Usage { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 2, ..Usage::default() }
        );
        let message = builder.finish();
        assert_eq!(message.content[1], json!({"type": "tool_use", "id": "a", "name": "A", "input": {}}));
        assert_eq!(events.last(), Some(&StreamEvent::MessageStop));
    }
}
