//! Where and how to reach the Messages API: [`ApiConfig`] and its [`Credential`].

use std::fmt;
use std::time::Duration;

use agent_tools_core::secret::Redacted;

/// The Messages API's address when no other is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The model asked when no other is configured: a small, fast one (Claude Code asks Haiku for
/// WebFetch's answer; it also runs WebSearch's server tool).
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";

/// The secret a request is authorised with. Its `Debug` form is [`Redacted`].
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credential {
    /// An API key, sent as `x-api-key` (Claude Code's `ANTHROPIC_API_KEY`).
    ApiKey(String),
    /// An OAuth or gateway token, sent as `Authorization: Bearer …` (Claude Code's
    /// `ANTHROPIC_AUTH_TOKEN`).
    AuthToken(String),
}

impl Credential {
    /// The secret itself, to put in a header.
    pub fn secret(&self) -> &str {
        match self {
            Self::ApiKey(secret) | Self::AuthToken(secret) => secret,
        }
    }

    /// Whether the secret is empty (no key configured: the tools that need one are disabled).
    pub fn is_empty(&self) -> bool {
        self.secret().is_empty()
    }
}

impl Default for Credential {
    /// An empty API key.
    fn default() -> Self {
        Self::ApiKey(String::new())
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            Self::ApiKey(_) => "ApiKey",
            Self::AuthToken(_) => "AuthToken",
        };
        f.debug_tuple(kind).field(&Redacted(self.secret())).finish()
    }
}

/// How to reach the Messages API. `Debug` never prints the secret.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApiConfig {
    /// The key or token.
    pub credential: Credential,
    /// The base address, without `/v1/messages` (default [`DEFAULT_BASE_URL`]). The caller
    /// applies `ANTHROPIC_BASE_URL`.
    pub base_url: String,
    /// The model asked (default [`DEFAULT_MODEL`]).
    pub model: String,
    /// Longest one call may take in all; `None` (the default): the caller's own limit
    /// ([`crate::ClientOptions::timeout`]).
    pub timeout: Option<Duration>,
}

impl ApiConfig {
    /// The defaults ([`DEFAULT_BASE_URL`], [`DEFAULT_MODEL`]) with this API key.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self {
            credential: Credential::ApiKey(api_key.into()),
            base_url: DEFAULT_BASE_URL.to_owned(),
            model: DEFAULT_MODEL.to_owned(),
            timeout: None,
        }
    }

    /// `{base_url}/v1/messages` (a trailing `/` of the base is dropped).
    pub fn messages_endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}
