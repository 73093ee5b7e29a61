//! # agent-tools-api: one client of the Anthropic Messages API
//!
//! What WebFetch (its secondary model) and WebSearch (the `web_search` server tool) need of the
//! Messages API, in one place, so there is one config, one key redaction and one error mapping:
//!
//! - [`ApiConfig`]: the [`Credential`] (an API key sent as `x-api-key`, or an auth token sent as
//!   `Authorization: Bearer`), the base URL (the caller applies `ANTHROPIC_BASE_URL`; library
//!   code never reads the environment) and the model. Its `Debug` form never shows the secret.
//! - [`Client`]: an HTTP client for one config (rustls with ring, no redirects, a total
//!   timeout, no proxy for a loopback base URL) and its non-streaming [`Client::messages`] call:
//!   `POST {base_url}/v1/messages` with `anthropic-version: 2023-06-01`.
//! - [`MessagesRequest`] / [`MessagesResponse`]: the request fields these tools send (model,
//!   `max_tokens`, messages, system, tools including server tools) and the reply's content
//!   blocks, `text` typed and every other kind kept as JSON.
//! - [`ApiError`]: why a call failed, with what each tool needs to word its own message (the
//!   endpoint, whether it timed out, the HTTP status and the API's own error message).
//!
//! Built to grow (streaming, retries, a second backend for the agent loop): the request, reply,
//! block and error types are `#[non_exhaustive]`. [`ApiConfig`] is not, so callers can write
//! `ApiConfig { model, ..ApiConfig::new(key) }`.
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

mod client;
mod config;
mod error;
mod messages;

pub use crate::client::{ANTHROPIC_VERSION, Client, ClientOptions};
pub use crate::config::{ApiConfig, Credential, DEFAULT_BASE_URL, DEFAULT_MODEL};
pub use crate::error::ApiError;
pub use crate::messages::{
    ContentBlock, Message, MessageContent, MessagesRequest, MessagesResponse, Role, ServerTool, ToolSpec,
};
