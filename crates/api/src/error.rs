//! Why a call to the model's API (the Messages API, or a Chat Completions server) failed:
//! [`ApiError`].

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

/// Why a call failed. Each variant carries what a caller needs to word its own message; the
/// `Display` form is a plain English sentence.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The HTTP client could not be built (TLS setup).
    #[error("the HTTP client could not be set up: {0}")]
    Setup(#[source] reqwest::Error),
    /// The request could not be sent or got no answer ([`ApiError::is_timeout`] tells a
    /// timeout).
    #[error("the model API at {endpoint} could not be reached: {source}")]
    Send {
        /// The URL asked.
        endpoint: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The answer's body could not be read (mid-stream too: a reset connection).
    #[error("the model API's answer from {endpoint} could not be read: {source}")]
    Body {
        /// The URL asked.
        endpoint: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The API answered with an HTTP error status.
    #[error("the model API at {endpoint} answered {status}")]
    Status {
        /// The URL asked.
        endpoint: String,
        /// The status.
        status: StatusCode,
        /// The answer's body, as sent.
        body: String,
        /// How long the API asked to wait before trying again: its `retry-after-ms` header
        /// (milliseconds) or else its `retry-after` header (seconds; an HTTP date is not read).
        retry_after: Option<Duration>,
    },
    /// The answer is not JSON.
    #[error("the model API's answer is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// A streamed answer sent an event that cannot be read or does not fit the events before
    /// it (a delta for a block never started, an `index` that is not a number …).
    #[error("the model API's stream is malformed: {0}")]
    Stream(String),
    /// A streamed answer's body ended (the connection closed) before its `message_stop`.
    #[error("the model API's stream ended before the message was complete")]
    StreamEnded,
    /// A streamed answer reported an error mid-stream (an `error` event), e.g.
    /// `overloaded_error`. [`crate::EventStream`] yields these as
    /// [`crate::StreamEvent::Error`]; the caller turns them into this variant when it gives up
    /// on the stream ([`ApiError::from_stream_error`]).
    #[error("the model API reported {kind} mid-stream: {message}")]
    StreamError {
        /// `error.type`: `overloaded_error`, `api_error`, `invalid_request_error` …
        kind: String,
        /// `error.message`.
        message: String,
    },
    /// Nothing arrived for `after`: no reply head after the request was sent, or no chunk of
    /// a streamed body ([`crate::ClientOptions::stream_idle_timeout`]).
    #[error("the model API at {endpoint} sent nothing for {} s", after.as_secs_f64())]
    Timeout {
        /// The URL asked.
        endpoint: String,
        /// How long it stayed silent.
        after: Duration,
    },
    /// A Chat Completions server answered 200 with an empty body: it failed on this request
    /// (llama-cpp-python does so when its chat template raises), so it is not sent again.
    #[error("the server at {endpoint} answered 200 with an empty body: it failed on this request (its log says why)")]
    EmptyReply {
        /// The URL asked.
        endpoint: String,
    },
}

/// Error types (`error.type` of an error body) that say the request itself is wrong: sending it
/// again gets the same answer, whatever the status (the Messages API's and OpenAI's names).
pub const DETERMINISTIC_ERROR_TYPES: &[&str] = &[
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "request_too_large",
    "invalid_api_key",
];

impl ApiError {
    /// The [`ApiError::StreamError`] for an `error` event's `error.type` and `error.message`.
    pub fn from_stream_error(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self::StreamError { kind: kind.into(), message: message.into() }
    }

    /// Whether the call ran out of time (sending, waiting or reading).
    pub fn is_timeout(&self) -> bool {
        match self {
            Self::Send { source, .. } | Self::Body { source, .. } => source.is_timeout(),
            Self::Timeout { .. } => true,
            _ => false,
        }
    }

    /// The HTTP status of an [`ApiError::Status`].
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// How long the API asked to wait before a retry (an [`ApiError::Status`] whose reply had
    /// `retry-after-ms` or `retry-after`).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether trying again may succeed: statuses 408 (timeout), 409 (lock conflict), 429 (rate
    /// limit), a 5xx (529 overloaded included) unless its body says the request itself is at
    /// fault ([`DETERMINISTIC_ERROR_TYPES`]: a proxy that answers 500 for a malformed request
    /// would answer the same every time), any status whose body is an `overloaded_error`; a
    /// mid-stream `overloaded_error` or `api_error`; a connection refused or reset, a body cut
    /// off, a stream that ended early, a timeout. Not retryable: other 4xx (400, 401, 403, 404,
    /// 413 …), a malformed stream or reply, a request that could not be built (a bad header),
    /// the client's setup. Claude Code retries every 5xx; the request-fault exception is ours.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Status { status, .. } => {
                let code = status.as_u16();
                let kind = self.api_error_type();
                let request_at_fault = kind.as_deref().is_some_and(|kind| DETERMINISTIC_ERROR_TYPES.contains(&kind));
                matches!(code, 408 | 409 | 429)
                    || (code >= 500 && !request_at_fault)
                    || kind.as_deref() == Some("overloaded_error")
            }
            Self::Send { source, .. } => !source.is_builder() && !source.is_redirect(),
            Self::Body { .. } | Self::StreamEnded | Self::Timeout { .. } => true,
            Self::StreamError { kind, .. } => kind == "overloaded_error" || kind == "api_error",
            Self::Setup(_) | Self::NotJson(_) | Self::Stream(_) | Self::EmptyReply { .. } => false,
        }
    }

    /// The API's own explanation of an error status: `error.message` of a JSON body such as
    /// `{"type":"error","error":{"type":"invalid_request_error","message":"…"}}`; for an
    /// [`ApiError::StreamError`], its message.
    pub fn api_message(&self) -> Option<String> {
        match self {
            Self::Status { body, .. } => {
                let reply: Value = serde_json::from_str(body).ok()?;
                reply.pointer("/error/message").and_then(Value::as_str).map(str::to_owned)
            }
            Self::StreamError { message, .. } => Some(message.clone()),
            _ => None,
        }
    }

    /// The API's error type: `error.type` of an error status's JSON body
    /// (`rate_limit_error`, `overloaded_error` …), or an [`ApiError::StreamError`]'s kind.
    pub fn api_error_type(&self) -> Option<String> {
        match self {
            Self::Status { body, .. } => {
                let reply: Value = serde_json::from_str(body).ok()?;
                reply.pointer("/error/type").and_then(Value::as_str).map(str::to_owned)
            }
            Self::StreamError { kind, .. } => Some(kind.clone()),
            _ => None,
        }
    }
}

/// The wait a reply's headers ask for: `retry-after-ms` (milliseconds, may be fractional),
/// else `retry-after` (seconds, may be fractional). An HTTP-date `retry-after`, a negative or
/// unreadable value: `None`.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let value: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(1e9)));
    }
    number("retry-after").map(|secs| Duration::from_secs_f64(secs.min(1e9)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    #[test]
    fn retry_after_headers_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
        headers.insert("retry-after-ms", HeaderValue::from_static("-1"));
        headers.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("0.25"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
    }

    #[test]
    fn retryable_errors_are_those_claude_code_retries() {
        let status = |code: u16, body: &str| ApiError::Status {
            endpoint: "e".into(),
            status: StatusCode::from_u16(code).unwrap(),
            body: body.into(),
            retry_after: None,
        };
        for code in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(status(code, "").is_retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 413] {
            assert!(!status(code, "").is_retryable(), "{code}");
        }
        // A 5xx that says the request is malformed (a proxy's way) would fail the same again.
        let invalid = r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: tool_use ids without tool_result"}}"#;
        assert!(!status(500, invalid).is_retryable());
        assert!(!status(502, r#"{"error":{"type":"authentication_error","message":"bad key"}}"#).is_retryable());
        assert!(status(500, r#"{"type":"error","error":{"type":"api_error","message":"Internal"}}"#).is_retryable());
        assert!(status(503, "<html>upstream down</html>").is_retryable());
        let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert!(status(400, overloaded).is_retryable());
        assert_eq!(status(400, overloaded).api_error_type().as_deref(), Some("overloaded_error"));
        assert!(ApiError::from_stream_error("overloaded_error", "Overloaded").is_retryable());
        assert!(ApiError::from_stream_error("api_error", "Internal").is_retryable());
        assert!(!ApiError::from_stream_error("invalid_request_error", "bad").is_retryable());
        assert!(ApiError::StreamEnded.is_retryable());
        assert!(ApiError::Timeout { endpoint: "e".into(), after: Duration::from_secs(1) }.is_retryable());
        assert!(!ApiError::Stream("bad".into()).is_retryable());
    }
}
