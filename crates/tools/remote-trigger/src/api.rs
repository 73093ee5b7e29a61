//! The triggers API: which request an input makes ([`plan`]), the base URL's checks
//! ([`check_base_url`]) and the request itself ([`send`]), free of the tool contract.

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use url::{Host, Url};

use crate::input::{Action, RemoteTriggerInput};
use crate::render;

/// The `anthropic-beta` value the triggers API asks for.
pub const BETA: &str = "ccr-triggers-2026-01-30";

/// The `anthropic-version` sent with every request (the Anthropic API's version header).
pub const API_VERSION: &str = "2023-06-01";

/// Most bytes of a response body kept; the rest is not read (10 MiB).
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;

/// The HTTP method of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET` (list, get).
    Get,
    /// `POST` (create, update, run).
    Post,
}

impl Method {
    /// `GET` or `POST`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
        }
    }
}

/// The request an input makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// Its method.
    pub method: Method,
    /// Its path below the base URL (`/v1/code/triggers/trg_1/run`).
    pub path: String,
    /// The JSON body sent with a `POST` (compact).
    pub body: Option<String>,
}

/// Why an input makes no request (a `validate_input` refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What the model reads.
    pub message: String,
    /// The error code: 1 a missing `trigger_id`, 2 a malformed one, 3 a missing `body`.
    pub code: i32,
}

/// Whether `id` may name a trigger: one or more ASCII letters, digits, `_` or `-` (Claude Code's
/// `^[\w-]+$`), so it can never leave its place in the URL path.
pub fn is_valid_trigger_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The request for `input`: `list` ⇒ `GET /v1/code/triggers`; `get` ⇒ `GET …/{id}`; `create` ⇒
/// `POST /v1/code/triggers` with the body; `update` ⇒ `POST …/{id}` with the body; `run` ⇒
/// `POST …/{id}/run` with the body or `{}`. A `trigger_id` given to `list` or `create`, and a
/// `body` given to `list` or `get`, are not used.
///
/// # Errors
/// A [`Refusal`] for a missing or malformed `trigger_id` where one is needed, or a missing
/// `body` for create and update.
pub fn plan(input: &RemoteTriggerInput) -> Result<Planned, Refusal> {
    let action = input.action;
    let mut id = "";
    if action.needs_trigger_id() {
        let Some(given) = input.trigger_id.as_deref().filter(|id| !id.is_empty()) else {
            return Err(Refusal { message: render::missing_trigger_id(action), code: 1 });
        };
        if !is_valid_trigger_id(given) {
            return Err(Refusal { message: render::invalid_trigger_id(given), code: 2 });
        }
        id = given;
    }
    let body = match (action, &input.body) {
        (Action::Create | Action::Update, None) => {
            return Err(Refusal { message: render::missing_body(action), code: 3 });
        }
        (Action::Create | Action::Update | Action::Run, Some(body)) => {
            Some(serde_json::Value::Object(body.clone()).to_string())
        }
        (Action::Run, None) => Some("{}".to_owned()),
        (Action::List | Action::Get, _) => None,
    };
    let base = "/v1/code/triggers";
    let (method, path) = match action {
        Action::List => (Method::Get, base.to_owned()),
        Action::Get => (Method::Get, format!("{base}/{id}")),
        Action::Create => (Method::Post, base.to_owned()),
        Action::Update => (Method::Post, format!("{base}/{id}")),
        Action::Run => (Method::Post, format!("{base}/{id}/run")),
    };
    Ok(Planned { method, path, body })
}

/// Whether `url`'s host is this machine: `localhost` (or a name under `.localhost`),
/// `127.0.0.0/8` or `[::1]`.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => {
            let name = name.to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Checks the configured base URL: absolute, `https://` (or `http://` to a loopback host, for
/// local servers and tests), without user name, password, query or fragment.
///
/// # Errors
/// What is wrong, in words (the message a call fails with).
pub fn check_base_url(base: &str) -> Result<Url, String> {
    let url = Url::parse(base.trim()).map_err(|error| render::bad_base_url(base, &error.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        _ => return Err(render::insecure_base_url(base)),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(render::bad_base_url(base, "it must not hold a user name or password"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(render::bad_base_url(base, "it must not have a query or fragment"));
    }
    if url.host().is_none() {
        return Err(render::bad_base_url(base, "it has no host"));
    }
    Ok(url)
}

/// The full URL of `path` below `base` (a path prefix in the base is kept).
pub fn join(base: &Url, path: &str) -> Result<Url, String> {
    let joined = format!("{}{path}", base.as_str().trim_end_matches('/'));
    Url::parse(&joined).map_err(|error| render::bad_base_url(base.as_str(), &error.to_string()))
}

/// A response: its status and its body, as sent (cut at [`MAX_BODY_BYTES`] with a marker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The body as text (UTF-8, invalid bytes replaced).
    pub body: String,
}

/// Sends `planned` to `url` with the bearer `token` and the API's headers, and reads the
/// answer. Any status is an answer; the caller bounds the time taken.
///
/// # Errors
/// The transport's error (no connection, a broken response, a bad header value).
pub async fn send(client: &reqwest::Client, url: Url, token: &str, planned: &Planned) -> Result<Answer, SendError> {
    let mut bearer = HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| SendError::BadToken)?;
    bearer.set_sensitive(true);
    let request = match planned.method {
        Method::Get => client.get(url),
        Method::Post => client.post(url),
    }
    .header(AUTHORIZATION, bearer)
    .header("anthropic-version", API_VERSION)
    .header("anthropic-beta", BETA)
    .header(CONTENT_TYPE, "application/json");
    let request = match &planned.body {
        Some(body) => request.body(body.clone()),
        None => request,
    };
    let mut response = request.send().await.map_err(SendError::Transport)?;
    let status = response.status().as_u16();
    let mut bytes = Vec::new();
    let mut cut = false;
    while let Some(chunk) = response.chunk().await.map_err(SendError::Transport)? {
        let room = MAX_BODY_BYTES - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            cut = true;
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    let mut body = String::from_utf8_lossy(&bytes).into_owned();
    if cut {
        body.push_str(&render::body_cut(MAX_BODY_BYTES));
    }
    Ok(Answer { status, body })
}

/// Why a request got no answer.
#[derive(Debug)]
pub enum SendError {
    /// The token cannot be sent in a header (a control character, a newline).
    BadToken,
    /// No connection, a broken or refused response.
    Transport(reqwest::Error),
}

/// The innermost cause of an error (`Connection refused (os error 111)`).
fn root_cause(error: &reqwest::Error) -> String {
    let mut innermost: &dyn std::error::Error = error;
    while let Some(cause) = innermost.source() {
        innermost = cause;
    }
    innermost.to_string()
}

/// An error with its causes, `a: b: c`, leaving out causes the text already holds.
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl SendError {
    /// The cause in words, for the error result (never the token).
    pub fn detail(&self) -> String {
        match self {
            Self::BadToken => render::BAD_TOKEN.to_owned(),
            Self::Transport(error) if error.is_connect() => format!("could not connect: {}", root_cause(error)),
            Self::Transport(error) => describe(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn planned(input: serde_json::Value) -> Result<Planned, Refusal> {
        plan(&serde_json::from_value(input).unwrap())
    }

    #[test]
    fn each_action_makes_its_request() {
        let get = |path: &str| Planned { method: Method::Get, path: path.into(), body: None };
        let post =
            |path: &str, body: &str| Planned { method: Method::Post, path: path.into(), body: Some(body.into()) };
        assert_eq!(planned(json!({"action": "list", "trigger_id": "x", "body": {}})), Ok(get("/v1/code/triggers")));
        assert_eq!(planned(json!({"action": "get", "trigger_id": "trg_1"})), Ok(get("/v1/code/triggers/trg_1")));
        assert_eq!(
            planned(json!({"action": "create", "body": {"name": "n"}})),
            Ok(post("/v1/code/triggers", r#"{"name":"n"}"#))
        );
        assert_eq!(
            planned(json!({"action": "update", "trigger_id": "a-B_9", "body": {"x": [1]}})),
            Ok(post("/v1/code/triggers/a-B_9", r#"{"x":[1]}"#))
        );
        assert_eq!(planned(json!({"action": "run", "trigger_id": "t"})), Ok(post("/v1/code/triggers/t/run", "{}")));
        assert_eq!(planned(json!({"action": "get"})).unwrap_err().code, 1);
        assert_eq!(planned(json!({"action": "run", "trigger_id": ""})).unwrap_err().code, 1);
        assert_eq!(planned(json!({"action": "get", "trigger_id": "../x"})).unwrap_err().code, 2);
        assert_eq!(planned(json!({"action": "update", "trigger_id": "t"})).unwrap_err().code, 3);
    }

    #[test]
    fn trigger_ids_are_word_characters_and_dashes() {
        assert!(is_valid_trigger_id("trig_01ABC-x"));
        for bad in ["", "a b", "a/b", "a?b", "é", "a.b", "a%2Fb"] {
            assert!(!is_valid_trigger_id(bad), "{bad}");
        }
    }

    #[test]
    fn base_urls_must_be_https_unless_local() {
        assert!(check_base_url("https://api.anthropic.com").is_ok());
        assert!(check_base_url("http://127.0.0.1:8080").is_ok());
        assert!(check_base_url("http://localhost:1/prefix/").is_ok());
        assert!(check_base_url("http://[::1]:9").is_ok());
        assert!(check_base_url("http://api.anthropic.com").is_err());
        assert!(check_base_url("ftp://127.0.0.1").is_err());
        assert!(check_base_url("https://u:p@api.anthropic.com").is_err());
        assert!(check_base_url("https://api.anthropic.com/?q=1").is_err());
        assert!(check_base_url("api.anthropic.com").is_err());
        let base = check_base_url("http://localhost:1/prefix/").unwrap();
        assert_eq!(join(&base, "/v1/code/triggers").unwrap().as_str(), "http://localhost:1/prefix/v1/code/triggers");
    }
}
