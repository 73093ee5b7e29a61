//! The one Messages API request WebSearch makes: a user message asking for the search and the
//! `web_search` server tool as the only tool.

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::WebSearchInput;

/// The API's address when no other is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model asked when no other is configured (it must support the web search server tool).
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";
/// The `anthropic-version` header sent.
pub const API_VERSION: &str = "2023-06-01";
/// The server tool's type.
pub const SERVER_TOOL_TYPE: &str = "web_search_20250305";
/// Most searches the server runs for one call (Claude Code's `max_uses`).
pub const MAX_USES: u32 = 8;

/// An API key whose `Debug` form never shows it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(pub String);

impl ApiKey {
    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "ApiKey(none)" } else { "ApiKey(<redacted>)" })
    }
}

/// How WebSearch reaches the Anthropic Messages API. `Debug` never prints the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchApiConfig {
    /// Base address, without `/v1/messages` (default [`DEFAULT_BASE_URL`]).
    pub base_url: String,
    /// Sent as `x-api-key`; the tool is disabled when it is empty.
    pub api_key: ApiKey,
    /// The model that runs the search (default [`DEFAULT_MODEL`]).
    pub model: String,
    /// `max_tokens` of the request (default 4,096).
    pub max_tokens: u32,
    /// Longest the whole request may take (default 180 s).
    pub timeout: Duration,
}

impl SearchApiConfig {
    /// The defaults with this key.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: ApiKey(api_key.into()),
            model: DEFAULT_MODEL.to_owned(),
            max_tokens: 4_096,
            timeout: Duration::from_secs(180),
        }
    }

    /// `{base_url}/v1/messages`.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}

/// The request body: the model, `max_tokens`, the user message and the server tool (with the
/// domain list given, if any).
pub fn request_body(config: &SearchApiConfig, input: &WebSearchInput) -> Value {
    let mut server_tool = json!({"type": SERVER_TOOL_TYPE, "name": "web_search"});
    if let Some(domains) = &input.allowed_domains {
        server_tool["allowed_domains"] = json!(domains);
    }
    if let Some(domains) = &input.blocked_domains {
        server_tool["blocked_domains"] = json!(domains);
    }
    server_tool["max_uses"] = json!(MAX_USES);
    json!({
        "model": config.model,
        "max_tokens": config.max_tokens,
        "messages": [{"role": "user", "content": format!("Perform a web search for the query: {}", input.query)}],
        "tools": [server_tool],
    })
}

/// The HTTP client: rustls with ring, no redirects, the config's timeout; loopback addresses
/// (test servers, local gateways) bypass any proxy.
pub fn http_client(config: &SearchApiConfig) -> Result<reqwest::Client, String> {
    // Another crate may have installed ring already; a second install is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(config.timeout)
        .user_agent(concat!("agent-tools/", env!("CARGO_PKG_VERSION"), " WebSearch"));
    let local = url::Url::parse(&config.base_url).ok().and_then(|url| {
        url.host().map(|host| match host {
            url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
            url::Host::Ipv4(ip) => ip.is_loopback(),
            url::Host::Ipv6(ip) => ip.is_loopback(),
        })
    });
    let builder = if local == Some(true) { builder.no_proxy() } else { builder };
    builder.build().map_err(|err| format!("WebSearch could not set up its HTTP client: {err}"))
}

/// Sends the request; the parsed reply, or a message saying what went wrong.
pub async fn send(client: &reqwest::Client, config: &SearchApiConfig, body: &Value) -> Result<Value, String> {
    let endpoint = config.endpoint();
    let response = client
        .post(&endpoint)
        .header("x-api-key", &config.api_key.0)
        .header("anthropic-version", API_VERSION)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|err| describe(&err, &endpoint))?;
    let status = response.status();
    let text = response.text().await.map_err(|err| describe(&err, &endpoint))?;
    if !status.is_success() {
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|reply| reply.pointer("/error/message").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| text.chars().take(300).collect());
        return Err(format!("Web search failed: the Messages API at {endpoint} answered {status}: {detail}"));
    }
    serde_json::from_str(&text).map_err(|err| format!("Web search failed: the Messages API's reply is not JSON: {err}"))
}

fn describe(err: &reqwest::Error, endpoint: &str) -> String {
    if err.is_timeout() {
        format!("Web search failed: the Messages API at {endpoint} did not answer in time")
    } else {
        format!("Web search failed: the Messages API at {endpoint} could not be reached: {err}")
    }
}
