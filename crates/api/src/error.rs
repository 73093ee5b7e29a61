//! Why a Messages API call failed: [`ApiError`].

use reqwest::StatusCode;
use serde_json::Value;

/// Why a call failed. Each variant carries what a tool needs to word its own message; the
/// `Display` form is a plain English sentence.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The HTTP client could not be built (TLS setup).
    #[error("the HTTP client could not be set up: {0}")]
    Setup(#[source] reqwest::Error),
    /// The request could not be sent or got no answer ([`ApiError::is_timeout`] tells a
    /// timeout).
    #[error("the Messages API at {endpoint} could not be reached: {source}")]
    Send {
        /// The URL asked.
        endpoint: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The answer's body could not be read.
    #[error("the Messages API's answer from {endpoint} could not be read: {source}")]
    Body {
        /// The URL asked.
        endpoint: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The API answered with an HTTP error status.
    #[error("the Messages API at {endpoint} answered {status}")]
    Status {
        /// The URL asked.
        endpoint: String,
        /// The status.
        status: StatusCode,
        /// The answer's body, as sent.
        body: String,
    },
    /// The answer is not JSON.
    #[error("the Messages API's answer is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
}

impl ApiError {
    /// Whether the call ran out of time (sending, waiting or reading).
    pub fn is_timeout(&self) -> bool {
        match self {
            Self::Send { source, .. } | Self::Body { source, .. } => source.is_timeout(),
            _ => false,
        }
    }

    /// The API's own explanation of an error status: `error.message` of a JSON body such as
    /// `{"type":"error","error":{"type":"invalid_request_error","message":"…"}}`.
    pub fn api_message(&self) -> Option<String> {
        let Self::Status { body, .. } = self else {
            return None;
        };
        let reply: Value = serde_json::from_str(body).ok()?;
        reply.pointer("/error/message").and_then(Value::as_str).map(str::to_owned)
    }
}
