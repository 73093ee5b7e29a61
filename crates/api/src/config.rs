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

    /// The config Claude Code's environment variables describe, read through `get` (the
    /// library never reads the process environment itself: pass `|name| std::env::var(name).ok()`):
    ///
    /// - `ANTHROPIC_BASE_URL`: the base URL (default [`DEFAULT_BASE_URL`]);
    /// - `ANTHROPIC_API_KEY`: an API key, [`Credential::ApiKey`] (sent as `x-api-key`); when
    ///   it is not set (or empty), `ANTHROPIC_AUTH_TOKEN`: [`Credential::AuthToken`] (sent as
    ///   `Authorization: Bearer`). With both set the key wins, as with `claude -p` and a key;
    ///   with neither the credential is an empty key;
    /// - `ANTHROPIC_MODEL`: the model (default [`DEFAULT_MODEL`]);
    /// - `API_TIMEOUT_MS`: [`ApiConfig::timeout`] in milliseconds (a value that is not a
    ///   whole number is ignored).
    ///
    /// Empty values count as unset.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> ApiConfig {
        let get = |name: &str| get(name).filter(|value| !value.trim().is_empty());
        let credential = match (get("ANTHROPIC_API_KEY"), get("ANTHROPIC_AUTH_TOKEN")) {
            (Some(key), _) => Credential::ApiKey(key),
            (None, Some(token)) => Credential::AuthToken(token),
            (None, None) => Credential::default(),
        };
        ApiConfig {
            credential,
            base_url: get("ANTHROPIC_BASE_URL")
                .map_or_else(|| DEFAULT_BASE_URL.to_owned(), |url| url.trim().to_owned()),
            model: get("ANTHROPIC_MODEL").map_or_else(|| DEFAULT_MODEL.to_owned(), |model| model.trim().to_owned()),
            timeout: get("API_TIMEOUT_MS").and_then(|ms| ms.trim().parse::<u64>().ok()).map(Duration::from_millis),
        }
    }

    /// `{base_url}/v1/messages` (a trailing `/` of the base is dropped).
    pub fn messages_endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone())
    }

    #[test]
    fn the_environment_gives_url_credential_model_and_timeout() {
        let config = ApiConfig::from_env(env(&[
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("ANTHROPIC_AUTH_TOKEN", "tok"),
            ("ANTHROPIC_MODEL", "claude-opus-4-5"),
            ("API_TIMEOUT_MS", "1500"),
        ]));
        assert_eq!(config.credential, Credential::AuthToken("tok".into()));
        assert_eq!(config.messages_endpoint(), "http://127.0.0.1:9/v1/messages");
        assert_eq!(config.model, "claude-opus-4-5");
        assert_eq!(config.timeout, Some(Duration::from_millis(1500)));
        let both = ApiConfig::from_env(env(&[("ANTHROPIC_API_KEY", "sk"), ("ANTHROPIC_AUTH_TOKEN", "tok")]));
        assert_eq!(both.credential, Credential::ApiKey("sk".into()));
        let none = ApiConfig::from_env(env(&[("ANTHROPIC_API_KEY", ""), ("API_TIMEOUT_MS", "soon")]));
        assert_eq!(none, ApiConfig::new(""));
    }
}
