//! # agent-tools-api: the model client of agent-tools
//!
//! One client of the Anthropic Messages API (and of OpenAI-compatible Chat Completions
//! servers), so there is one config, one key redaction and one error mapping for WebFetch's
//! secondary model, WebSearch's server tool and the agent loop:
//!
//! - [`ApiConfig`]: the [`Credential`] (an API key sent as `x-api-key`, or an auth token sent as
//!   `Authorization: Bearer`), the base URL, the model and an optional timeout;
//!   [`ApiConfig::from_env`] reads Claude Code's variables (`ANTHROPIC_BASE_URL`,
//!   `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_MODEL`, `API_TIMEOUT_MS`) through a
//!   lookup function the caller passes: library code never reads the environment. Its `Debug`
//!   form never shows the secret.
//! - [`Client`]: an HTTP client for one config (rustls with ring, no redirects, no proxy for a
//!   loopback base URL) with a non-streaming [`Client::messages`] call (a total timeout) and a
//!   streamed [`Client::stream`] (a connect timeout and an idle timeout between chunks, no total
//!   limit), both `POST {base_url}/v1/messages` with `anthropic-version: 2023-06-01`.
//! - [`stream`]: the [`StreamEvent`]s of a streamed reply (an SSE parser that takes any split),
//!   the [`EventStream`] that yields them (a body cut off is [`ApiError::StreamEnded`], never a
//!   silent end) and the [`MessageBuilder`] that turns them back into the blocks the API would
//!   have sent without streaming ([`AssistantMessage`], [`Usage`]).
//! - [`retry`]: [`RetryPolicy`] with Claude Code's numbers (10 retries, 500 ms doubling to 32 s
//!   with up to 25 % jitter, `retry-after` honoured up to 60 s), [`ApiError::is_retryable`], and
//!   [`Client::stream_with_retries`] for opening a stream.
//! - [`cost`]: [`cost_usd`] of a call's [`Usage`] from a per-model price table.
//! - [`openai`]: [`openai::OpenAiClient`], which sends an Anthropic request body to a Chat
//!   Completions server (Ollama, vLLM, llama.cpp, OpenAI …) and hands back the same
//!   [`StreamEvent`]s; [`openai::Backend`] holds either client.
//! - [`MessagesRequest`] / [`MessagesResponse`]: the typed request and reply of the
//!   non-streaming call (model, `max_tokens`, messages, system, tools including server tools;
//!   reply blocks, `text` typed and every other kind kept as JSON).
//! - [`ApiError`]: why a call failed, with what each caller needs to word its own message (the
//!   endpoint, whether it timed out, the HTTP status, `retry-after`, the API's own error type and
//!   message, whether a retry may help).
//!
//! The request, reply, block, event and error types are `#[non_exhaustive]`. [`ApiConfig`] is
//! not, so callers can write `ApiConfig { model, ..ApiConfig::new(key) }`.
//!
//! A non-streaming call, against a local stand-in that hands back the request it read:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::io::{Read, Write};
//! use agent_tools_api::{ApiConfig, Client, ClientOptions, Message, MessagesRequest};
//! // A local stand-in for the API, with one canned reply; it hands back the request it read.
//! let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
//! let base_url = format!("http://{}", server.local_addr().unwrap());
//! let config = ApiConfig { base_url, ..ApiConfig::new("sk-ant-test") };
//! assert!(!format!("{config:?}").contains("sk-ant-test")); // Debug never shows the key
//! let request = std::thread::spawn(move || {
//!     let (mut stream, _) = server.accept().unwrap();
//!     let mut seen = [0; 8192];
//!     let read = stream.read(&mut seen).unwrap();
//!     let body = r#"{"id":"msg_1","content":[{"type":"text","text":"Hello!"}]}"#;
//!     let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json";
//!     write!(stream, "{head}\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
//!     String::from_utf8_lossy(&seen[..read]).into_owned()
//! });
//! let options = ClientOptions::new("my-agent/1.0", std::time::Duration::from_secs(30));
//! let client = Client::new(config, &options).unwrap();
//! let ask = MessagesRequest::new(client.config().model.clone(), 1024, vec![Message::user("Hi")]);
//! let reply = client.messages(&ask).await.unwrap();
//! assert_eq!(reply.first_text(), Some("Hello!"));
//! let request = request.join().unwrap();
//! assert!(request.starts_with("POST /v1/messages HTTP/1.1\r\n"));
//! assert!(request.contains("\r\nx-api-key: sk-ant-test\r\n"));
//! assert!(request.contains("\r\nanthropic-version: 2023-06-01\r\n"));
//! # });
//! ```
//!
//! A streamed call, against the testkit's fake Messages API: events as they come, then the
//! message they build.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_api::{ApiConfig, Client, ClientOptions, Delta, MessageBuilder, StreamEvent, cost_usd};
//! use agent_tools_testkit::fake_api::{FakeApi, Reply};
//! use serde_json::json;
//! let api = FakeApi::start(|_| Reply::tool_use("toolu_1", "Read", json!({"file_path": "/etc/hosts"})));
//! let config = ApiConfig { base_url: api.base_url(), ..ApiConfig::new("sk-ant-test") };
//! let client = Client::new(config, &ClientOptions::new("my-agent/1.0", std::time::Duration::from_secs(30))).unwrap();
//! let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
//!                   "messages": [{"role": "user", "content": "Read /etc/hosts"}]});
//! let beta = [("anthropic-beta".to_owned(), "fine-grained-tool-streaming-2025-05-14".to_owned())];
//! let mut stream = client.stream(&body, &beta).await.unwrap();
//! let (mut builder, mut json_pieces) = (MessageBuilder::new(), String::new());
//! while let Some(event) = stream.next().await {
//!     let event = event.unwrap(); // StreamEnded, Timeout … are errors here
//!     if let StreamEvent::ContentBlockDelta { delta: Delta::InputJson(piece), .. } = &event {
//!         json_pieces.push_str(piece);
//!     }
//!     if let Some(index) = builder.apply(&event).unwrap() {
//!         assert_eq!(builder.block(index).unwrap()["input"], json!({"file_path": "/etc/hosts"}));
//!     }
//! }
//! assert_eq!(json_pieces, r#"{"file_path":"/etc/hosts"}"#);
//! let message = builder.finish();
//! assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
//! assert_eq!((message.usage.input_tokens, message.usage.output_tokens), (100, 20));
//! assert!((cost_usd("claude-sonnet-4-5", &message.usage) - 0.0006).abs() < 1e-12); // $3 / $15 per Mtok
//! assert_eq!(api.requests()[0].header("anthropic-beta"), Some("fine-grained-tool-streaming-2025-05-14"));
//! # });
//! ```

mod client;
mod config;
pub mod cost;
mod error;
mod messages;
pub mod openai;
pub mod retry;
pub mod stream;

pub use crate::client::{
    ANTHROPIC_VERSION, Client, ClientOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_STREAM_IDLE_TIMEOUT,
};
pub use crate::config::{ApiConfig, Credential, DEFAULT_BASE_URL, DEFAULT_MODEL};
pub use crate::cost::cost_usd;
pub use crate::error::{ApiError, DETERMINISTIC_ERROR_TYPES};
pub use crate::messages::{
    ContentBlock, Message, MessageContent, MessagesRequest, MessagesResponse, Role, ServerTool, ToolSpec,
};
pub use crate::openai::{Backend, OpenAiClient, OpenAiConfig};
pub use crate::retry::RetryPolicy;
pub use crate::stream::{AssistantMessage, Delta, EventStream, MessageBuilder, StreamEvent, Usage};
