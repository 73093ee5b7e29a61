//! The HTTP side: [`Client`] and its one call, [`Client::messages`].

use std::time::Duration;

use serde_json::Value;

use crate::config::{ApiConfig, Credential};
use crate::error::ApiError;
use crate::messages::{MessagesRequest, MessagesResponse};

/// The `anthropic-version` header sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// How the HTTP client behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Longest one call may take in all (connect, send, wait, read), unless the config sets its
    /// own ([`ApiConfig::timeout`]).
    pub timeout: Duration,
}

impl ClientOptions {
    /// Options with this `User-Agent` and total timeout.
    pub fn new(user_agent: impl Into<String>, timeout: Duration) -> Self {
        Self { user_agent: user_agent.into(), timeout }
    }
}

/// A Messages API client for one [`ApiConfig`]: rustls with the ring provider, no redirects,
/// the config's timeout (else the options'), and no proxy when the base URL is loopback (`localhost`,
/// `*.localhost`, `127.0.0.0/8`, `::1`: test servers and local gateways). Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    config: ApiConfig,
    http: reqwest::Client,
}

impl Client {
    /// A client for `config`.
    ///
    /// # Errors
    /// [`ApiError::Setup`] when the HTTP client cannot be built.
    pub fn new(config: ApiConfig, options: &ClientOptions) -> Result<Self, ApiError> {
        // reqwest is built without a crypto provider of its own; ring is ours. Another crate
        // may have installed it already: a second install is refused harmlessly.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout.unwrap_or(options.timeout))
            .user_agent(options.user_agent.as_str());
        let builder = if is_loopback(&config.base_url) { builder.no_proxy() } else { builder };
        let http = builder.build().map_err(ApiError::Setup)?;
        Ok(Self { config, http })
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
        let text = response.text().await.map_err(|source| ApiError::Body { endpoint: endpoint.clone(), source })?;
        if !status.is_success() {
            return Err(ApiError::Status { endpoint, status, body: text });
        }
        let reply: Value = serde_json::from_str(&text).map_err(ApiError::NotJson)?;
        Ok(MessagesResponse::from_json(&reply))
    }
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
