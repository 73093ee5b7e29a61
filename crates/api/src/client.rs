//! The HTTP side: [`Client`] and its calls, [`Client::messages`] (one JSON reply) and
//! [`Client::stream`] (server-sent events).

use std::time::Duration;

use serde_json::Value;

use crate::config::{ApiConfig, Credential};
use crate::error::{ApiError, retry_after};
use crate::messages::{MessagesRequest, MessagesResponse};
use crate::retry::RetryPolicy;
use crate::stream::{Dialect, EventStream, StreamEvent};

/// The `anthropic-version` header sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// How the HTTP client behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Longest one non-streaming call may take in all (connect, send, wait, read), unless the
    /// config sets its own ([`ApiConfig::timeout`]). Streams do not use it.
    pub timeout: Duration,
    /// Longest a stream's connection may take to open (TCP and TLS); default
    /// [`DEFAULT_CONNECT_TIMEOUT`] (30 s).
    pub connect_timeout: Duration,
    /// Longest a stream may stay silent: from the request sent to the reply's head, and
    /// between two chunks of its body; default [`DEFAULT_STREAM_IDLE_TIMEOUT`] (5 min). A long
    /// answer may stream for many minutes: only silence ends it.
    pub stream_idle_timeout: Duration,
}

/// [`ClientOptions::connect_timeout`]'s default: 30 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// [`ClientOptions::stream_idle_timeout`]'s default: 5 minutes.
pub const DEFAULT_STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

impl ClientOptions {
    /// Options with this `User-Agent` and total timeout, and the default connect and stream
    /// idle timeouts.
    pub fn new(user_agent: impl Into<String>, timeout: Duration) -> Self {
        Self {
            user_agent: user_agent.into(),
            timeout,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            stream_idle_timeout: DEFAULT_STREAM_IDLE_TIMEOUT,
        }
    }

    /// These options with another [`ClientOptions::stream_idle_timeout`].
    pub fn with_stream_idle_timeout(mut self, idle: Duration) -> Self {
        self.stream_idle_timeout = idle;
        self
    }

    /// These options with another [`ClientOptions::connect_timeout`].
    pub fn with_connect_timeout(mut self, connect: Duration) -> Self {
        self.connect_timeout = connect;
        self
    }
}

/// A Messages API client for one [`ApiConfig`]: rustls with the ring provider, no redirects,
/// the config's timeout (else the options') for [`Client::messages`], a connect timeout and
/// an idle timeout for [`Client::stream`], and no proxy when the base URL is loopback
/// (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`: test servers and local gateways). Cheap
/// to clone (the connection pools are shared).
#[derive(Debug, Clone)]
pub struct Client {
    config: ApiConfig,
    http: reqwest::Client,
    stream_http: reqwest::Client,
    idle: Duration,
}

impl Client {
    /// A client for `config`.
    ///
    /// # Errors
    /// [`ApiError::Setup`] when the HTTP client cannot be built.
    pub fn new(config: ApiConfig, options: &ClientOptions) -> Result<Self, ApiError> {
        // reqwest is built without a crypto provider of its own; ring is ours. Another crate
        // may have installed it already: a second install is refused harmlessly.
        let http = http_client(&config.base_url, options, Some(config.timeout.unwrap_or(options.timeout)))?;
        let stream_http = http_client(&config.base_url, options, None)?;
        Ok(Self { config, http, stream_http, idle: options.stream_idle_timeout })
    }

    /// The config this client calls with.
    pub fn config(&self) -> &ApiConfig {
        &self.config
    }

    /// One non-streaming call: `POST {base_url}/v1/messages` with the credential,
    /// `anthropic-version` and a JSON body; the reply read leniently
    /// ([`MessagesResponse::from_json`]).
    ///
    /// # Errors
    /// [`ApiError::Send`] or [`ApiError::Body`] when the API cannot be reached or read (or time
    /// runs out), [`ApiError::Status`] for an error status, [`ApiError::NotJson`] for a reply
    /// that is not JSON.
    pub async fn messages(&self, request: &MessagesRequest) -> Result<MessagesResponse, ApiError> {
        let endpoint = self.config.messages_endpoint();
        let body = serde_json::to_string(request).map_err(ApiError::NotJson)?;
        let builder = self
            .http
            .post(&endpoint)
            .header("anthropic-version", ANTHROPIC_VERSION)
            .header("content-type", "application/json");
        let builder = match &self.config.credential {
            Credential::ApiKey(key) => builder.header("x-api-key", key),
            Credential::AuthToken(token) => builder.bearer_auth(token),
        };
        let response =
            builder.body(body).send().await.map_err(|source| ApiError::Send { endpoint: endpoint.clone(), source })?;
        let status = response.status();
        let wait = retry_after(response.headers());
        let text = response.text().await.map_err(|source| ApiError::Body { endpoint: endpoint.clone(), source })?;
        if !status.is_success() {
            return Err(ApiError::Status { endpoint, status, body: text, retry_after: wait });
        }
        let reply: Value = serde_json::from_str(&text).map_err(ApiError::NotJson)?;
        Ok(MessagesResponse::from_json(&reply))
    }

    /// Opens a streamed call: `POST {base_url}/v1/messages` with `body` exactly as given (the
    /// caller sets `"stream": true`, model, max_tokens, messages, system, tools …), the
    /// credential, `anthropic-version`, `content-type: application/json`,
    /// `accept: text/event-stream` and `extra_headers` (such as `anthropic-beta`), in that
    /// order. Returns once the reply's head is in; the events follow from
    /// [`EventStream::next`]. A `200` reply of `application/json` instead of events (a proxy
    /// that ignores `stream`) is turned into the events it stands for
    /// ([`StreamEvent::from_message`]).
    ///
    /// No total timeout applies: the connection must open within
    /// [`ClientOptions::connect_timeout`], and the reply's head and each chunk of its body
    /// must come within [`ClientOptions::stream_idle_timeout`]. Needs a tokio runtime with
    /// its timer enabled.
    ///
    /// # Errors
    /// [`ApiError::Send`] when the request cannot be sent (refused, reset, a header that is
    /// not valid), [`ApiError::Timeout`] when the head does not come in time,
    /// [`ApiError::Status`] for an error status (with the reply's `retry-after`),
    /// [`ApiError::Body`] / [`ApiError::NotJson`] for a JSON reply that cannot be read.
    pub async fn stream(&self, body: &Value, extra_headers: &[(String, String)]) -> Result<EventStream, ApiError> {
        self.stream_json(body, extra_headers).await
    }

    /// [`Client::stream`] with any serializable body: the agent loop sends its request without
    /// building (or copying) a `Value` of the whole conversation first.
    ///
    /// # Errors
    /// Those of [`Client::stream`].
    pub async fn stream_json<B: serde::Serialize + ?Sized>(
        &self,
        body: &B,
        extra_headers: &[(String, String)],
    ) -> Result<EventStream, ApiError> {
        let endpoint = self.config.messages_endpoint();
        let payload = serde_json::to_vec(body).map_err(ApiError::NotJson)?;
        let builder = self
            .stream_http
            .post(&endpoint)
            .header("anthropic-version", ANTHROPIC_VERSION)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream");
        let builder = match &self.config.credential {
            Credential::ApiKey(key) => builder.header("x-api-key", key),
            Credential::AuthToken(token) => builder.bearer_auth(token),
        };
        let builder = extra_headers.iter().fold(builder, |builder, (name, value)| builder.header(name, value));
        let response = send_within(builder.body(payload), self.idle, &endpoint).await?;
        open_event_stream(response, Dialect::Anthropic, self.idle, endpoint).await
    }

    /// [`Client::stream`], retried while opening fails with a retryable error
    /// ([`ApiError::is_retryable`]: 429, 5xx, 529, a refused connection …) and `policy`
    /// allows: before retry `n` (1-based) `on_retry(n, &error, wait)` is called, then the task
    /// sleeps `wait` ([`RetryPolicy::delay`]). Failures after the stream opened are the
    /// caller's to retry (the events already seen may have been shown).
    ///
    /// # Errors
    /// The last error: a non-retryable one at once, a retryable one after
    /// [`RetryPolicy::max_retries`] retries.
    pub async fn stream_with_retries(
        &self,
        body: &Value,
        extra_headers: &[(String, String)],
        policy: &RetryPolicy,
        on_retry: impl FnMut(u32, &ApiError, Duration),
    ) -> Result<EventStream, ApiError> {
        policy.run(on_retry, || self.stream(body, extra_headers)).await
    }
}

/// A reqwest client: rustls (ring), no redirects, the user agent, the connect timeout,
/// `total` if any, no proxy for a loopback base URL.
pub(crate) fn http_client(
    base_url: &str,
    options: &ClientOptions,
    total: Option<Duration>,
) -> Result<reqwest::Client, ApiError> {
    // reqwest is built without a crypto provider of its own; ring is ours. Another crate
    // may have installed it already: a second install is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(options.connect_timeout)
        .user_agent(options.user_agent.as_str());
    let builder = match total {
        Some(total) => builder.timeout(total),
        None => builder,
    };
    let builder = if is_loopback(base_url) { builder.no_proxy() } else { builder };
    builder.build().map_err(ApiError::Setup)
}

/// Sends `request`; the reply's head must come within `idle`.
pub(crate) async fn send_within(
    request: reqwest::RequestBuilder,
    idle: Duration,
    endpoint: &str,
) -> Result<reqwest::Response, ApiError> {
    match tokio::time::timeout(idle, request.send()).await {
        Err(_) => Err(ApiError::Timeout { endpoint: endpoint.to_owned(), after: idle }),
        Ok(Err(source)) => Err(ApiError::Send { endpoint: endpoint.to_owned(), source }),
        Ok(Ok(response)) => Ok(response),
    }
}

/// The stream of a reply whose head is in: an error status read whole into
/// [`ApiError::Status`], a JSON reply turned into its events, else the SSE body.
pub(crate) async fn open_event_stream(
    response: reqwest::Response,
    dialect: Dialect,
    idle: Duration,
    endpoint: String,
) -> Result<EventStream, ApiError> {
    let status = response.status();
    let is_json = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().to_ascii_lowercase().starts_with("application/json"));
    if status.is_success() && !is_json {
        return Ok(EventStream::from_response(response, dialect, idle, endpoint));
    }
    let wait = retry_after(response.headers());
    let text = match tokio::time::timeout(idle, response.text()).await {
        Err(_) => return Err(ApiError::Timeout { endpoint, after: idle }),
        Ok(Err(source)) => return Err(ApiError::Body { endpoint, source }),
        Ok(Ok(text)) => text,
    };
    if !status.is_success() {
        return Err(ApiError::Status { endpoint, status, body: text, retry_after: wait });
    }
    let reply: Value = serde_json::from_str(&text).map_err(ApiError::NotJson)?;
    let events = match dialect {
        Dialect::Anthropic => StreamEvent::from_message(&reply),
        Dialect::OpenAi(translator) => translator.completion(&reply),
    };
    Ok(EventStream::from_events(events))
}

/// Whether `base_url`'s host is a loopback name or address.
fn is_loopback(base_url: &str) -> bool {
    let Ok(url) = url::Url::parse(base_url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_base_urls_skip_the_proxy() {
        for url in ["http://localhost:8080", "http://api.localhost/", "http://127.0.0.1:9", "http://[::1]:1"] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["https://api.anthropic.com", "not a url", "http://10.0.0.1"] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
