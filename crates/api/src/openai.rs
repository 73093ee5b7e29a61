//! An OpenAI-compatible backend: [`OpenAiClient`] sends an *Anthropic* Messages request body
//! to a Chat Completions server (`POST {base_url}/chat/completions`: Ollama, vLLM, llama.cpp,
//! LM Studio, OpenRouter, OpenAI …) and hands back the same
//! [`StreamEvent`](crate::StreamEvent) sequence an Anthropic stream gives, so the agent loop
//! needs no second code path; [`Backend`] holds either client.
//!
//! The request ([`chat_request`]):
//!
//! | Anthropic                                   | Chat Completions                                   |
//! |---------------------------------------------|----------------------------------------------------|
//! | `system` (a string or text blocks)          | the one `system` message, first (blocks joined by `\n\n`) |
//! | a message of role `system`                  | before the first assistant message: added to the `system` message; after it: a `<system-reminder>` in a user message |
//! | two user messages in a row                  | one (texts joined by a blank line)                 |
//! | `text` blocks                               | `content` (a string; parts when there are images)  |
//! | `image` blocks (base64 or URL)              | `image_url` parts (`data:` URLs for base64)        |
//! | assistant `tool_use` blocks                 | `tool_calls` `{id, type:"function", function:{name, arguments: JSON text}}` (arguments that were not JSON: as the model wrote them), with `content: ""` when there is no text |
//! | user `tool_result` blocks                   | `role:"tool"` messages (`tool_call_id`, text blocks joined by `\n`; `tool_reference`: "The tool X is loaded …"; `is_error`: `Error: …` once, without `<tool_use_error>` tags), before the user's other blocks |
//! | thinking, redacted_thinking, server blocks  | dropped                                            |
//! | `tools` (custom)                            | `{"type":"function","function":{name, description, parameters: input_schema}}` |
//! | server tools (a `type` other than `custom`); deferred tools (`defer_loading`) until a `tool_reference` loaded them or the model called them | left out |
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
//! the usage (without a usage chunk: estimated at 4 bytes a token, with a warning once);
//! `data: [DONE]` the message_delta and message_stop. Blocks are started, filled and stopped
//! one after the other, as the Messages API does. A call without an `id` gets a fresh
//! `call_…` id. With [`OpenAiConfig::text_tool_calls`], tool calls the model wrote as text
//! (Qwen's `<tool_call>` tags, a bare JSON `{"name", "arguments"}`) become tool_use blocks: the
//! text is then held until the answer ends. A 200 answer with an empty body is
//! [`ApiError::EmptyReply`] (not retried: the server failed on this request).

use std::fmt;
use std::time::Duration;

use agent_tools_core::secret::Redacted;
use serde_json::Value;

use crate::client::{Client, ClientOptions, http_client, open_event_stream, send_within};
use crate::error::ApiError;
use crate::retry::RetryPolicy;
use crate::stream::{Dialect, EventStream};

/// Where and how to reach a Chat Completions server. `Debug` never prints the key.
#[derive(Clone, PartialEq)]
pub struct OpenAiConfig {
    /// The base URL, up to and including the version (`http://localhost:11434/v1`,
    /// `https://api.openai.com/v1`); requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The key, sent as `Authorization: Bearer …`; `None` for servers without one (Ollama).
    pub api_key: Option<String>,
    /// The model asked (`llama3.2`, `qwen2.5-coder:7b`, `gpt-4o` …); it replaces the request
    /// body's `model` (an empty one keeps the body's).
    pub model: String,
    /// Read tool calls the model wrote as text (Qwen's `<tool_call>` tags, a bare JSON
    /// `{"name", "arguments"}` block) when the server passes them through unparsed; the
    /// answer's text is then held until it ends. Off by default.
    pub text_tool_calls: bool,
    /// The sampling temperature sent when the request sets none (the agent loop never does);
    /// `None` leaves it to the server. `0.0` makes a local model's runs repeatable.
    pub temperature: Option<f64>,
    /// Send each tool's description cut to its gist ([`shorten_tool_descriptions`]): a small
    /// local model reads a quarter of the text, and its prefill takes a quarter of the time.
    /// Off by default (a large model uses the whole of it).
    pub short_tool_descriptions: bool,
}

impl OpenAiConfig {
    /// A config for `base_url` with `model`, no key, text tool calls off, the server's
    /// temperature, whole tool descriptions.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            text_tool_calls: false,
            temperature: None,
            short_tool_descriptions: false,
        }
    }
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_deref().map(Redacted))
            .field("model", &self.model)
            .field("text_tool_calls", &self.text_tool_calls)
            .field("temperature", &self.temperature)
            .field("short_tool_descriptions", &self.short_tool_descriptions)
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
        let mut request = chat_request(body, &self.config.model);
        if let (Some(temperature), Some(fields)) = (self.config.temperature, request.as_object_mut()) {
            fields.entry("temperature").or_insert(temperature.into());
        }
        if self.config.short_tool_descriptions {
            shorten_tool_descriptions(&mut request);
        }
        let payload = serde_json::to_vec(&request).map_err(ApiError::NotJson)?;
        let request_bytes = payload.len();
        let builder =
            self.http.post(&endpoint).header("content-type", "application/json").header("accept", "text/event-stream");
        let builder = match self.config.api_key.as_deref().filter(|key| !key.is_empty()) {
            Some(key) => builder.bearer_auth(key),
            None => builder,
        };
        let builder = extra_headers.iter().fold(builder, |builder, (name, value)| builder.header(name, value));
        let response = send_within(builder.body(payload), self.idle, &endpoint).await?;
        let model = request.get("model").and_then(Value::as_str).unwrap_or("").to_owned();
        let options = ReplyOptions {
            text_tool_calls: self.config.text_tool_calls,
            tool_names: if self.config.text_tool_calls { tool_names(&request) } else { Vec::new() },
            request_bytes,
        };
        let dialect = Dialect::OpenAi(Box::new(ChunkTranslator::new(model, options)));
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

mod reply;
mod request;
mod text_calls;

pub(crate) use reply::{ChunkTranslator, ReplyOptions};
pub use request::{chat_request, shorten_tool_descriptions};

/// The names of the tools a Chat Completions request carries.
fn tool_names(request: &Value) -> Vec<String> {
    request
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|tool| tool.pointer("/function/name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{SseEvent, StreamEvent, Usage};
    use serde_json::json;

    fn translate(chunks: &[Value]) -> Vec<StreamEvent> {
        let mut translator = ChunkTranslator::new("m".into(), ReplyOptions::default());
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
        let mut message = builder.finish();
        let id = message.content[2]["id"].take();
        assert!(id.as_str().is_some_and(|id| id.starts_with("call_")), "a made-up id: {id}");
        message.content[2]["id"] = json!("call_0");
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
        let mut translator = ChunkTranslator::new("m".into(), ReplyOptions::default());
        let chunk = |value: Value| SseEvent { event: None, data: value.to_string() };
        let call = |index: u64, args: &str| json!({"choices": [{"delta": {"tool_calls": [{"index": index, "id": format!("c{index}"), "function": {"name": "X", "arguments": args}}]}}]});
        translator.chunk(&chunk(call(0, "{"))).unwrap();
        translator.chunk(&chunk(call(1, "{"))).unwrap();
        assert!(matches!(translator.chunk(&chunk(call(0, "}"))), Err(ApiError::Stream(_))));
        let mut translator = ChunkTranslator::new("m".into(), ReplyOptions::default());
        let events = translator
            .chunk(&chunk(json!({"error": {"message": "model not loaded", "type": "server_error"}})))
            .unwrap();
        assert_eq!(
            events,
            vec![StreamEvent::Error { kind: "server_error".into(), message: "model not loaded".into() }]
        );
        let mut cut = ChunkTranslator::new("m".into(), ReplyOptions::default());
        cut.chunk(&chunk(json!({"choices": [{"delta": {"content": "x"}}]}))).unwrap();
        assert_eq!(cut.end(), vec![], "no finish reason: the stream ended early");
    }

    #[test]
    fn a_whole_completion_becomes_events() {
        let reply = json!({"id": "c", "model": "m", "choices": [{"message": {"role": "assistant", "content": "ok",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "A", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 2}}});
        let events = ChunkTranslator::new(String::new(), ReplyOptions::default()).completion(&reply);
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
