//! The one Messages API request WebSearch makes: a user message asking for the search and the
//! `web_search` server tool as the only tool, sent through `agent-tools-api` (the Messages API
//! client WebFetch's secondary model uses too).

use std::time::Duration;

use agent_tools_api::{
    ApiError, Client, ClientOptions, Message, MessagesRequest, MessagesResponse, ServerTool, ToolSpec,
};
use serde_json::{Map, json};

use crate::WebSearchInput;

pub use agent_tools_api::{ANTHROPIC_VERSION as API_VERSION, DEFAULT_BASE_URL, DEFAULT_MODEL};

/// How WebSearch reaches the Anthropic Messages API: `agent_tools_api::ApiConfig` (key, base
/// URL, model; `Debug` never prints the key; the tool is disabled when the key is empty), under
/// the name this crate has always used.
pub use agent_tools_api::ApiConfig as SearchApiConfig;

/// The server tool's type.
pub const SERVER_TOOL_TYPE: &str = "web_search_20250305";
/// Most searches the server runs for one call (Claude Code's `max_uses`).
pub const MAX_USES: u32 = 8;
/// `max_tokens` of the request.
pub const MAX_TOKENS: u32 = 4_096;
/// Longest the whole request may take unless the config sets its own `timeout`.
pub const TIMEOUT: Duration = Duration::from_secs(180);

/// The request: the config's model, [`MAX_TOKENS`], the user message and the server tool (with
/// the domain list given, if any, and [`MAX_USES`]).
pub fn request(config: &SearchApiConfig, input: &WebSearchInput) -> MessagesRequest {
    let mut options = Map::new();
    if let Some(domains) = &input.allowed_domains {
        options.insert("allowed_domains".into(), json!(domains));
    }
    if let Some(domains) = &input.blocked_domains {
        options.insert("blocked_domains".into(), json!(domains));
    }
    options.insert("max_uses".into(), json!(MAX_USES));
    let server_tool = ServerTool { kind: SERVER_TOOL_TYPE.to_owned(), name: "web_search".to_owned(), options };
    let message = Message::user(format!("Perform a web search for the query: {}", input.query));
    let mut request = MessagesRequest::new(config.model.clone(), MAX_TOKENS, vec![message]);
    request.tools.push(ToolSpec::Server(server_tool));
    request
}

/// The API client for `config` ([`TIMEOUT`], WebSearch's `User-Agent`), or the message saying
/// why there is none.
pub fn client(config: &SearchApiConfig) -> Result<Client, String> {
    let options = ClientOptions::new(concat!("agent-tools/", env!("CARGO_PKG_VERSION"), " WebSearch"), TIMEOUT);
    Client::new(config.clone(), &options).map_err(|err| match err {
        ApiError::Setup(source) => format!("WebSearch could not set up its HTTP client: {source}"),
        other => format!("WebSearch could not set up its HTTP client: {other}"),
    })
}

/// Sends the request; the reply, or a message saying what went wrong.
pub async fn send(client: &Client, request: &MessagesRequest) -> Result<MessagesResponse, String> {
    client.messages(request).await.map_err(|err| describe(&err))
}

/// WebSearch's wording of a failed call.
fn describe(err: &ApiError) -> String {
    match err {
        ApiError::Send { endpoint, .. } | ApiError::Body { endpoint, .. } if err.is_timeout() => {
            format!("Web search failed: the Messages API at {endpoint} did not answer in time")
        }
        ApiError::Send { endpoint, source } | ApiError::Body { endpoint, source } => {
            format!("Web search failed: the Messages API at {endpoint} could not be reached: {source}")
        }
        ApiError::Status { endpoint, status, body, .. } => {
            let detail = err.api_message().unwrap_or_else(|| body.chars().take(300).collect());
            format!("Web search failed: the Messages API at {endpoint} answered {status}: {detail}")
        }
        ApiError::NotJson(source) => format!("Web search failed: the Messages API's reply is not JSON: {source}"),
        other => format!("Web search failed: {other}"),
    }
}
