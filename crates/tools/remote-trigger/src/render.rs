//! RemoteTrigger's output → `tool_result` text, and every message it shows. The exact strings
//! live here.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::input::Action;

/// What RemoteTrigger produced (Claude Code's output: `{status, json}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteTriggerOutput {
    /// The HTTP status code (any: a 404 is an answer the model reads, not a failure).
    pub status: u16,
    /// The response body as the server sent it (usually JSON), decoded as UTF-8; a body over
    /// 10 MiB is cut and marked.
    pub json: String,
}

/// The result text: `HTTP STATUS`, a newline, then the body exactly as the server sent it (not
/// re-formatted, so what the model reads is what the API said; an empty body leaves the second
/// line empty).
pub fn result_text(output: &RemoteTriggerOutput) -> String {
    format!("HTTP {}\n{}", output.status, output.json)
}

/// `get`, `update` or `run` without a `trigger_id`.
pub fn missing_trigger_id(action: Action) -> String {
    format!("trigger_id is required for the \"{action}\" action")
}

/// A `trigger_id` that is not made of word characters and dashes.
pub fn invalid_trigger_id(id: &str) -> String {
    format!("Invalid trigger_id {}: use only letters, digits, \"_\" and \"-\"", Value::from(id))
}

/// `create` or `update` without a `body`.
pub fn missing_body(action: Action) -> String {
    format!("body is required for the \"{action}\" action")
}

/// The start of every configuration error.
pub const NOT_CONFIGURED: &str = "RemoteTrigger is not configured";

/// No access token was configured.
pub fn no_token() -> String {
    format!("{NOT_CONFIGURED}: there is no access token for the triggers API")
}

/// The token cannot be sent in an HTTP header (it is never shown).
pub const BAD_TOKEN: &str = "the access token holds characters that cannot be sent in an HTTP header";

/// A base URL that does not parse or has parts it must not have.
pub fn bad_base_url(base: &str, reason: &str) -> String {
    format!("{NOT_CONFIGURED}: the base URL {} is not usable: {reason}", Value::from(base))
}

/// A base URL that is neither `https://` nor `http://` to this machine.
pub fn insecure_base_url(base: &str) -> String {
    format!(
        "{NOT_CONFIGURED}: the base URL {} must start with https:// (http:// is allowed only for localhost and \
         loopback addresses)",
        Value::from(base)
    )
}

/// The request got no answer in time.
pub fn timed_out(method: &str, url: &str, timeout: Duration) -> String {
    format!("RemoteTrigger request timed out after {}: {method} {url}", human(timeout))
}

/// The request failed without an answer (no connection, a broken response).
pub fn request_failed(method: &str, url: &str, detail: &str) -> String {
    format!("RemoteTrigger request failed: {method} {url}: {detail}")
}

/// The marker after a body cut at `max` bytes.
pub fn body_cut(max: usize) -> String {
    format!("\n[response body cut at {max} bytes]")
}

/// A duration for a message: `300 ms`, `1 second`, `20 seconds`, `2.5 seconds`.
pub use agent_tools_core::text::human_duration as human;

/// The permission question of a call that changes something: `Run trigger t1 (RemoteTrigger)`.
pub fn approval(what: &str) -> String {
    format!("{what} (RemoteTrigger)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        let output = RemoteTriggerOutput { status: 404, json: r#"{"error":"nope"}"#.into() };
        assert_eq!(result_text(&output), "HTTP 404\n{\"error\":\"nope\"}");
        assert_eq!(missing_trigger_id(Action::Run), "trigger_id is required for the \"run\" action");
        assert_eq!(invalid_trigger_id("a/b"), r#"Invalid trigger_id "a/b": use only letters, digits, "_" and "-""#);
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
        assert_eq!(human(Duration::from_secs(20)), "20 seconds");
        assert_eq!(human(Duration::from_millis(2500)), "2.5 seconds");
        assert_eq!(
            timed_out("GET", "https://x/v1/code/triggers", Duration::from_secs(1)),
            "RemoteTrigger request timed out after 1 second: GET https://x/v1/code/triggers"
        );
    }
}
