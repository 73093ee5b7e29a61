//! The stdio transport of `agent-tools serve`: one JSON-RPC message per line, each line checked
//! before rmcp sees it, so that every line gets an answer or a log line and none is dropped
//! silently.
//!
//! rmcp's own line transport ignores a line that is not JSON (nesting deeper than serde_json's
//! limit of 128, a lone surrogate such as `"\ud800"`, a number such as `1e999`) without a word,
//! answers a JSON value that is not a message with an error that has no `id` (which the Python
//! SDK, reading JSON-RPC 2.0 strictly, cannot parse), and stops the server on a notification sent
//! before `initialize`. Here, [`screen`] decides for each line:
//!
//! - Not JSON (or not UTF-8, or trailing text after the value): `-32700` "Parse error: …" with
//!   `"id": null`.
//! - JSON that is not a message (an array — batches are not part of MCP —, a bare value, an object
//!   whose `jsonrpc` is not `"2.0"`, whose `method` is not a string, whose `id` is neither a string
//!   nor an integer, or that is neither a request, a notification nor a response): `-32600`
//!   "Invalid Request: …", with the message's `id` when it has a usable one, else `null`.
//! - A request for a method of the protocol whose params do not fit it (e.g. `tools/call` whose
//!   `arguments` is not an object, or without `name`): `-32602` "Invalid params: …" with its `id`.
//!   Unknown methods go on to rmcp, which answers `-32601`.
//! - A line longer than [`MAX_LINE_BYTES`]: `-32600` with `"id": null`; the line is skipped.
//! - A notification rmcp cannot read, or one sent before the session opened (JSON-RPC forbids
//!   answering a notification): logged and skipped.
//! - A response from the client rmcp cannot read: passed on as an error response to the same
//!   `id`, so the server's request it answers (an elicitation) fails instead of waiting forever;
//!   without a usable `id` (or before the session opened) it is logged and skipped.
//!
//! Each answer and each log line (stderr, level `warn`) says what was wrong. Blank lines are
//! skipped. Replies and rmcp's messages go through one writer, a whole line at a time, so they
//! never interleave. A last line the client sends without its `\n` before closing its end is
//! still a line, and is answered like any other; the replies written here are all out before
//! the end of input is passed on to rmcp (which then finishes answering the requests it has).

use std::future::Future;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, GetMeta as _, JsonRpcError, JsonRpcMessage,
    ProtocolVersion, RequestId, ServerJsonRpcMessage,
};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

/// The longest line read, in bytes (16 MiB, rmcp's own limit): a longer one is answered with
/// `-32600` and skipped without being buffered.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC's "Parse error".
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's "Invalid Request".
const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC's "Invalid params".
const INVALID_PARAMS: i32 = -32602;

/// What to do with one line read from the client.
#[derive(Debug)]
pub(crate) enum Screened {
    /// A message for rmcp.
    Forward(Box<ClientJsonRpcMessage>),
    /// An error response for the client (a whole JSON-RPC message, `"id"` always present).
    Reply(Value),
    /// Nothing to send: a blank line, or a message that must not be answered (already logged).
    Skip,
}

/// A JSON-RPC error response with `id` (`null` when the request's id is unknown, as JSON-RPC 2.0
/// requires: the Python SDK rejects an error response without `id`).
fn error_reply(id: Option<&RequestId>, code: i32, message: String) -> Value {
    let id = id.map_or(Value::Null, |id| id.clone().into_json_value());
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The start of a line for a log message: at most 200 characters, invalid UTF-8 replaced.
fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(800)]);
    let mut short: String = text.chars().take(200).collect();
    if short.len() < text.len() || line.len() > 800 {
        short.push('…');
    }
    short
}

/// The id of a message, when it is one JSON-RPC allows (a string, or an integer rmcp can hold).
fn usable_id(message: &Map<String, Value>) -> Option<RequestId> {
    message.get("id").and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
}

/// serde's complaint about `request` read as the request type `T`.
fn typed_error<T: serde::de::DeserializeOwned>(request: &Value) -> String {
    match serde_json::from_value::<T>(request.clone()) {
        Err(err) => err.to_string(),
        Ok(_) => "they do not fit the method".to_owned(),
    }
}

/// Why `params` do not fit `method`, when `method` is one of the protocol's client-to-server
/// requests (`None` for any other method: rmcp answers those as unknown).
// `resources/subscribe`, `resources/unsubscribe` and `logging/setLevel` are deprecated by
// 2026-07-28 but still requests of the 2025 protocol.
#[expect(deprecated, reason = "requests of the 2025 protocol, deprecated by 2026-07-28")]
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    use rmcp::model::{
        CallToolRequest, CancelTaskRequest, CompleteRequest, DiscoverRequest, GetPromptRequest, GetSkillRequest,
        GetTaskRequest, InitializeRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
        ListSkillsRequest, ListToolsRequest, PingRequest, ReadResourceDirectoryRequest, ReadResourceRequest,
        SetLevelRequest, SubscribeRequest, SubscriptionsListenRequest, UnsubscribeRequest, UpdateTaskRequest,
    };
    if method == "tools/call"
        && let Some(problem) = tools_call_problem(params)
    {
        return Some(problem);
    }
    if !is_protocol_request(method) {
        return None;
    }
    if let Some(other) = params.filter(|params| !params.is_object() && !params.is_null()) {
        return Some(format!(
            "Invalid params for {method}: params must be an object, got {}",
            agent_tools_core::type_phrase(other)
        ));
    }
    let mut request = Map::new();
    request.insert("method".to_owned(), Value::String(method.to_owned()));
    if let Some(params) = params {
        request.insert("params".to_owned(), params.clone());
    }
    let request = Value::Object(request);
    let detail = match method {
        "initialize" => typed_error::<InitializeRequest>(&request),
        "ping" => typed_error::<PingRequest>(&request),
        "server/discover" => typed_error::<DiscoverRequest>(&request),
        "tools/list" => typed_error::<ListToolsRequest>(&request),
        "tools/call" => typed_error::<CallToolRequest>(&request),
        "prompts/list" => typed_error::<ListPromptsRequest>(&request),
        "prompts/get" => typed_error::<GetPromptRequest>(&request),
        "resources/list" => typed_error::<ListResourcesRequest>(&request),
        "resources/templates/list" => typed_error::<ListResourceTemplatesRequest>(&request),
        "resources/read" => typed_error::<ReadResourceRequest>(&request),
        "resources/subscribe" => typed_error::<SubscribeRequest>(&request),
        "resources/unsubscribe" => typed_error::<UnsubscribeRequest>(&request),
        "resources/directory/read" => typed_error::<ReadResourceDirectoryRequest>(&request),
        "subscriptions/listen" => typed_error::<SubscriptionsListenRequest>(&request),
        "completion/complete" => typed_error::<CompleteRequest>(&request),
        "logging/setLevel" => typed_error::<SetLevelRequest>(&request),
        "tasks/get" => typed_error::<GetTaskRequest>(&request),
        "tasks/update" => typed_error::<UpdateTaskRequest>(&request),
        "tasks/cancel" => typed_error::<CancelTaskRequest>(&request),
        "skills/list" => typed_error::<ListSkillsRequest>(&request),
        "skills/get" => typed_error::<GetSkillRequest>(&request),
        _ => "they do not fit the method".to_owned(),
    };
    Some(format!("Invalid params for {method}: {detail}"))
}

/// What is wrong with a `tools/call`'s params, said the way a caller fixes it; `None` when the
/// shape is right as far as `name` and `arguments` go. `arguments` may be absent or `null` (both
/// mean no arguments, `{}`).
fn tools_call_problem(params: Option<&Value>) -> Option<String> {
    let params = match params {
        Some(Value::Object(params)) => params,
        None => return Some("Invalid params: tools/call needs params with \"name\", the tool to call".to_owned()),
        Some(other) => {
            return Some(format!(
                "Invalid params: tools/call's params must be an object with \"name\" and \"arguments\", got {}",
                agent_tools_core::type_phrase(other)
            ));
        }
    };
    match params.get("name") {
        None => return Some("Invalid params: tools/call needs \"name\", the tool to call".to_owned()),
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "Invalid params: \"name\" must be a string (the tool to call), got {}",
                agent_tools_core::type_phrase(other)
            ));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(other) => Some(format!(
            "Invalid params: \"arguments\" must be an object (the tool's input), got {}",
            agent_tools_core::type_phrase(other)
        )),
    }
}

/// Decides what to do with one line (without its `\n`; see the module docs). `opened` says
/// whether the session has opened (an `initialize`, or a request carrying 2026-07-28's
/// per-request metadata, went to rmcp): before, notifications and responses are not passed on,
/// since rmcp stops the server on them.
pub(crate) fn screen(line: &[u8], opened: bool) -> Screened {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Screened::Skip;
    }
    let err = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return check_message(Box::new(message), line, opened),
        Err(err) => err,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(syntax) => {
            tracing::warn!("answered a line that is not JSON with a parse error ({syntax}): {}", preview(line));
            return Screened::Reply(error_reply(None, PARSE_ERROR, format!("Parse error: {syntax}")));
        }
    };
    let reply = explain(&value, &err, opened, line);
    if let Screened::Reply(reply) = &reply {
        tracing::warn!("answered a message the server cannot read with {}: {}", reply["error"], preview(line));
    }
    reply
}

/// A message rmcp can read: passed on, unless it is a protocol request whose params rmcp read as
/// an unknown method's (it would answer `-32601`), or a notification or response before the
/// session opened.
fn check_message(message: Box<ClientJsonRpcMessage>, line: &[u8], opened: bool) -> Screened {
    match message.as_ref() {
        JsonRpcMessage::Request(request) => {
            if let ClientRequest::CustomRequest(custom) = &request.request
                && let Some(problem) = params_problem(&custom.method, custom.params.as_ref())
            {
                tracing::warn!("answered a request whose params do not fit with -32602 ({problem}): {}", preview(line));
                return Screened::Reply(error_reply(Some(&request.id), INVALID_PARAMS, problem));
            }
        }
        JsonRpcMessage::Notification(notification) => {
            if !opened {
                tracing::warn!("ignored a notification sent before initialize: {}", preview(line));
                return Screened::Skip;
            }
            if let ClientNotification::CustomNotification(custom) = &notification.notification
                && is_protocol_notification(&custom.method)
            {
                tracing::warn!("ignored a notification whose params do not fit {}: {}", custom.method, preview(line));
                return Screened::Skip;
            }
        }
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {
            if !opened {
                tracing::warn!("ignored a response sent before initialize: {}", preview(line));
                return Screened::Skip;
            }
        }
    }
    Screened::Forward(message)
}

/// The client-to-server requests of the protocol (2025-11-25 and 2026-07-28, with the tasks and
/// skills extensions).
fn is_protocol_request(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "tools/list"
            | "tools/call"
            | "prompts/list"
            | "prompts/get"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/directory/read"
            | "subscriptions/listen"
            | "completion/complete"
            | "logging/setLevel"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
            | "skills/list"
            | "skills/get"
    )
}

/// The client-to-server notifications of the protocol.
fn is_protocol_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/progress"
            | "notifications/initialized"
            | "notifications/roots/list_changed"
            | "notifications/elicitation/complete"
    )
}

/// Why a JSON value rmcp cannot read is not a message it can handle, as the answer (or, for a
/// notification or a response, what is logged instead).
fn explain(value: &Value, err: &serde_json::Error, opened: bool, line: &[u8]) -> Screened {
    let invalid = |id: Option<&RequestId>, why: &str| {
        Screened::Reply(error_reply(id, INVALID_REQUEST, format!("Invalid Request: {why}")))
    };
    let message = match value {
        Value::Object(message) => message,
        Value::Array(_) => {
            return invalid(None, "batches (arrays of messages) are not supported; send one message per line");
        }
        other => {
            return invalid(
                None,
                &format!("a message must be a JSON object, got {}", agent_tools_core::type_phrase(other)),
            );
        }
    };
    let id = usable_id(message);
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id.as_ref(), "\"jsonrpc\" must be \"2.0\"");
    }
    match message.get("method") {
        Some(Value::String(method)) => {
            if !message.contains_key("id") {
                // A notification: JSON-RPC forbids answering one.
                tracing::warn!("ignored a notification the server cannot read ({err}): {}", preview(line));
                return Screened::Skip;
            }
            let Some(id) = id else {
                return invalid(None, "\"id\" must be a string or an integer");
            };
            let params = message.get("params");
            let problem = match params_problem(method, params) {
                Some(problem) => problem,
                None if params.is_some_and(|params| !params.is_object() && !params.is_array()) => {
                    let got = params.map_or("nothing", agent_tools_core::type_phrase);
                    return invalid(Some(&id), &format!("\"params\" must be an object or an array, got {got}"));
                }
                None => format!("Invalid params for {method}: {err}"),
            };
            Screened::Reply(error_reply(Some(&id), INVALID_PARAMS, problem))
        }
        Some(other) => {
            invalid(id.as_ref(), &format!("\"method\" must be a string, got {}", agent_tools_core::type_phrase(other)))
        }
        None if message.contains_key("result") || message.contains_key("error") => match id {
            // A response to one of the server's requests: fail that request rather than leave it
            // waiting.
            Some(id) if opened => {
                tracing::warn!("a response the server cannot read ({err}) fails its request: {}", preview(line));
                Screened::Forward(Box::new(JsonRpcMessage::Error(JsonRpcError::new(
                    Some(id),
                    ErrorData::internal_error(format!("the client's response could not be read: {err}"), None),
                ))))
            }
            _ => {
                tracing::warn!("ignored a response the server cannot read ({err}): {}", preview(line));
                Screened::Skip
            }
        },
        None => invalid(
            id.as_ref(),
            "a message needs \"method\" (a request or a notification) or \"result\" or \"error\" (a response)",
        ),
    }
}

/// Whether passing `message` on to rmcp opens the session: an `initialize`, or a request other
/// than `ping` and `server/discover` with 2026-07-28's per-request metadata.
fn opens_session(message: &ClientJsonRpcMessage) -> bool {
    let JsonRpcMessage::Request(request) = message else {
        return false;
    };
    match &request.request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => other.get_meta().missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty(),
    }
}

/// Writes one whole line under the lock, so lines never interleave.
async fn write_line<W: AsyncWrite + Unpin>(write: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut write = write.lock().await;
    write.write_all(line).await?;
    write.flush().await
}

/// How one bounded line read ended.
enum LineRead {
    /// A whole line is in the buffer.
    Line,
    /// The line was longer than [`MAX_LINE_BYTES`]; it is being (or has been) skipped.
    Oversized,
    /// The client closed its end.
    Eof,
    /// Reading failed.
    Io(std::io::Error),
}

/// The stdio transport (see the module docs), over any reader and writer.
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far: kept across a cancelled `receive` (rmcp polls it in a `select!`).
    line: Vec<u8>,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    max_line: usize,
    write: Arc<Mutex<W>>,
    opened: bool,
    /// Error replies still being written (see [`LineTransport::reply`]).
    replies: Vec<tokio::task::JoinHandle<()>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads messages from `read` and writes them to `write`, one per line.
    pub(crate) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max_line: MAX_LINE_BYTES,
            write: Arc::new(Mutex::new(write)),
            opened: false,
            replies: Vec::new(),
        }
    }

    /// Reads one line into `self.line` without letting it grow past `max_line`. Cancel-safe: a
    /// partial line stays in the buffer for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (consumed, done) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(err) => return LineRead::Io(err),
                };
                if available.is_empty() {
                    // The client closed its end: a last line without its `\n` is a line all the
                    // same (the next call finds the buffer empty and reports the end).
                    return if self.line.is_empty() { LineRead::Eof } else { LineRead::Line };
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                if self.discarding {
                    if newline.is_some() {
                        self.discarding = false;
                    }
                    (take, None)
                } else if self.line.len().saturating_add(take) > self.max_line {
                    self.line.clear();
                    self.discarding = newline.is_none();
                    (take, Some(LineRead::Oversized))
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, newline.map(|_| LineRead::Line))
                }
            };
            self.read.consume(consumed);
            if let Some(done) = done {
                return done;
            }
        }
    }

    /// Sends an error reply on its own task, so a cancelled `receive` cannot cut it short.
    fn reply(&mut self, reply: &Value) {
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        let write = Arc::clone(&self.write);
        self.replies.retain(|task| !task.is_finished());
        self.replies.push(tokio::spawn(async move {
            if let Err(err) = write_line(&write, &line).await {
                tracing::warn!("could not write an error reply: {err}");
            }
        }));
    }

    /// Waits until the error replies sent so far are written (or have failed), so none is lost
    /// when the server stops at the end of input. Cancel-safe: a reply not yet waited for stays
    /// in the list.
    async fn written_replies(&mut self) {
        while let Some(task) = self.replies.last_mut() {
            if let Err(err) = task.await {
                tracing::warn!("an error reply was not written: {err}");
            }
            self.replies.pop();
        }
    }
}

impl<R, W> rmcp::transport::Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Oversized => {
                    tracing::warn!("answered a line longer than {} bytes with -32600 and skipped it", self.max_line);
                    self.reply(&error_reply(
                        None,
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: a message may be at most {} bytes long; this one was skipped",
                            self.max_line
                        ),
                    ));
                    continue;
                }
                LineRead::Eof => {
                    self.written_replies().await;
                    return None;
                }
                LineRead::Io(err) => {
                    tracing::error!("reading from the client failed: {err}");
                    self.written_replies().await;
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let screened = screen(line.strip_suffix(b"\n").unwrap_or(&line), self.opened);
            // Keep the buffer's capacity for the next line.
            self.line = line;
            self.line.clear();
            match screened {
                Screened::Forward(message) => {
                    self.opened |= opens_session(&message);
                    return Some(*message);
                }
                Screened::Reply(reply) => self.reply(&reply),
                Screened::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.written_replies().await;
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match screen(line.as_bytes(), true) {
            Screened::Reply(reply) => reply,
            other => panic!("{line}: expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_a_parse_error_with_a_null_id() {
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert_eq!(
            reply(&deep),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: recursion limit exceeded at line 1 column 128"}})
        );
        assert_eq!(
            reply(r#""\ud800""#)["error"]["message"],
            "Parse error: unexpected end of hex escape at line 1 column 8"
        );
        assert_eq!(reply("1e999")["error"]["message"], "Parse error: number out of range at line 1 column 5");
        assert_eq!(reply("{\"a\":1} x")["error"]["message"], "Parse error: trailing characters at line 1 column 9");
        let Screened::Reply(not_utf8) = screen(b"\"\xFF\"", true) else { panic!("invalid UTF-8 is answered") };
        assert_eq!(
            not_utf8,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: invalid unicode code point at line 1 column 2"}})
        );
        assert!(matches!(screen(b"  \r", true), Screened::Skip));
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request_with_the_id_when_there_is_one() {
        let error = |line: &str| {
            let reply = reply(line);
            (
                reply["id"].clone(),
                reply["error"]["code"].as_i64().unwrap(),
                reply["error"]["message"].as_str().unwrap().to_owned(),
            )
        };
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":5,"method":42}"#),
            (json!(5), -32600, "Invalid Request: \"method\" must be a string, got a number".to_owned())
        );
        assert_eq!(
            error(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            (
                Value::Null,
                -32600,
                "Invalid Request: batches (arrays of messages) are not supported; send one message per line".to_owned()
            )
        );
        assert_eq!(
            error("3"),
            (Value::Null, -32600, "Invalid Request: a message must be a JSON object, got a number".to_owned())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#),
            (json!("a"), -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\"".to_owned())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#),
            (Value::Null, -32600, "Invalid Request: \"id\" must be a string or an integer".to_owned())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":7}"#),
            (
                json!(7),
                -32600,
                "Invalid Request: a message needs \"method\" (a request or a notification) or \"result\" or \"error\" (a response)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_tools_call_whose_params_do_not_fit_is_invalid_params() {
        let call = |params: &str| {
            let line = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{params}}}"#);
            let reply = reply(&line);
            assert_eq!(reply["id"], 9, "{line}");
            assert_eq!(reply["error"]["code"], -32602, "{line}");
            reply["error"]["message"].as_str().unwrap().to_owned()
        };
        let arguments = "Invalid params: \"arguments\" must be an object (the tool's input), got";
        assert_eq!(call(r#"{"name":"Read","arguments":"x"}"#), format!("{arguments} a string"));
        assert_eq!(call(r#"{"name":"Read","arguments":3}"#), format!("{arguments} a number"));
        assert_eq!(call(r#"{"name":"Read","arguments":[1]}"#), format!("{arguments} an array"));
        assert_eq!(call(r#"{"arguments":{}}"#), "Invalid params: tools/call needs \"name\", the tool to call");
        assert_eq!(call(r#"{"name":5}"#), "Invalid params: \"name\" must be a string (the tool to call), got a number");
        assert_eq!(
            call(r#""Read""#),
            "Invalid params: tools/call's params must be an object with \"name\" and \"arguments\", got a string"
        );
        // `null` and absent arguments are no arguments: the call goes on.
        for params in [r#"{"name":"Read","arguments":null}"#, r#"{"name":"Read"}"#] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{params}}}"#);
            assert!(matches!(screen(line.as_bytes(), true), Screened::Forward(_)), "{line}");
        }
        let reply = reply(r#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":[]}"#);
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["error"]["message"], "Invalid params for tools/list: params must be an object, got an array");
        // An unknown method is rmcp's to answer (-32601).
        assert!(matches!(
            screen(br#"{"jsonrpc":"2.0","id":11,"method":"x/y","params":{"a":1}}"#, true),
            Screened::Forward(_)
        ));
    }

    #[test]
    fn notifications_are_never_answered_and_responses_rmcp_cannot_read_fail_their_request() {
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
        ] {
            assert!(matches!(screen(line.as_bytes(), true), Screened::Skip), "{line}");
        }
        // Before the session opens, rmcp would stop on any notification or response.
        assert!(matches!(screen(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, false), Screened::Skip));
        assert!(matches!(screen(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, false), Screened::Skip));
        assert!(matches!(
            screen(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, true),
            Screened::Forward(_)
        ));
        let Screened::Forward(message) = screen(br#"{"jsonrpc":"2.0","id":3,"error":"boom"}"#, true) else {
            panic!("the response is passed on");
        };
        match *message {
            JsonRpcMessage::Error(error) => {
                assert_eq!(error.id, Some(RequestId::Number(3)));
                assert_eq!(error.error.code.0, -32603);
                assert!(
                    error.error.message.starts_with("the client's response could not be read: "),
                    "{}",
                    error.error.message
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// Everything the served tool server answers to `input`, all the client sends before
    /// closing its end, as JSON values, one per line.
    async fn served(input: &[u8]) -> Vec<Value> {
        use rmcp::ServiceExt as _;
        use tokio::io::AsyncReadExt as _;
        let project = tempfile::tempdir().unwrap();
        let session = Arc::new(
            agent_tools_host::Session::builder(project.path())
                .environment(agent_tools_host::Environment::empty())
                .build()
                .await
                .unwrap(),
        );
        let server = crate::ToolServer::new(Arc::clone(&session)).await;
        let (written, mut output) = tokio::io::duplex(1 << 20);
        let transport = LineTransport::new(std::io::Cursor::new(input.to_vec()), written);
        // A ping alone is answered, then the handshake fails for want of `initialize`.
        if let Ok(running) = server.serve(transport).await {
            running.waiting().await.unwrap();
        }
        session.shutdown().await;
        let mut text = String::new();
        output.read_to_string(&mut text).await.unwrap();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    }

    const INITIALIZE: &str = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
        r#""capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
    );

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_last_line_without_its_newline_is_answered_before_the_server_stops() {
        // The ping alone, as `printf '…' | agent-tools serve` sends it.
        let answers = served(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).await;
        assert_eq!(answers, [json!({"jsonrpc": "2.0", "id": 1, "result": {}})]);
        // After the handshake.
        let input = format!(r#"{INITIALIZE}{{"jsonrpc":"2.0","id":2,"method":"ping"}}"#);
        let answers = served(input.as_bytes()).await;
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(answers[0]["id"], 1);
        assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        // A last line that is not JSON gets its parse error; a last request whose params do
        // not fit, its invalid params; with `\r\n` cut to `\r`, the same.
        for (last, code) in [
            ("not json", -32700),
            (r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#, -32602),
            ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r", 0),
        ] {
            let answers = served(format!("{INITIALIZE}{last}").as_bytes()).await;
            assert_eq!(answers.len(), 2, "{last}: {answers:?}");
            if code == 0 {
                assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 3, "result": {}}), "{last}");
            } else {
                assert_eq!(answers[1]["error"]["code"], code, "{last}: {answers:?}");
            }
        }
        // Nothing after the last newline: nothing more to answer.
        let answers =
            served(format!("{INITIALIZE}{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}}\n").as_bytes()).await;
        assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
    }
}
