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
//! ```no_run
//! # async fn demo() -> Result<(), agent_tools_api::ApiError> {
//! use agent_tools_api::{ApiConfig, Client, ClientOptions, Message, MessagesRequest};
//! let config = ApiConfig::new("sk-ant-…");
//! let client = Client::new(config, &ClientOptions::new("my-agent/1.0", std::time::Duration::from_secs(60)))?;
//! let reply = client.messages(&MessagesRequest::new(client.config().model.clone(), 1024, vec![Message::user("Hi")])).await?;
//! println!("{}", reply.first_text().unwrap_or_default());
//! # Ok(()) }
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
