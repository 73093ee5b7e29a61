//! A scripted fake of the Anthropic Messages API (and of an OpenAI-compatible Chat
//! Completions endpoint) on `127.0.0.1`, for the tests of the model client, the agent loop and
//! the CLI, and for benchmarks: [`FakeApi`].
//!
//! The server runs on its own threads (std only, no async runtime), so sync tests and tokio
//! tests alike can use it; it stops when the [`FakeApi`] is dropped. It speaks HTTP/1.1 with
//! keep-alive: several requests per connection, request bodies framed by `content-length` or
//! `transfer-encoding: chunked`. JSON replies carry a `content-length` and keep the connection;
//! streamed replies (`content-type: text/event-stream`) are sent with `connection: close` and
//! end when the server closes the connection.
//!
//! Routes: `POST …/v1/messages` (Messages API: SSE when the body has `"stream": true`, else the
//! JSON message) and `POST …/chat/completions` (Chat Completions: chunks when `"stream": true`,
//! else a `chat.completion`) both ask the `respond` function; anything else is a `404` with the
//! API's error body. Every request is recorded ([`FakeApi::requests`]).
//!
//! ```
//! use std::io::{Read, Write};
//! use agent_tools_testkit::fake_api::{FakeApi, Reply};
//! let api = FakeApi::start(|request| Reply::text(&format!("You said {}", request.body["messages"][0]["content"])));
//! let body = r#"{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}"#;
//! let mut socket = std::net::TcpStream::connect(api.base_url().trim_start_matches("http://")).unwrap();
//! write!(socket, "POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}", body.len()).unwrap();
//! let mut reply = String::new();
//! socket.read_to_string(&mut reply).unwrap();
//! assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"));
//! assert!(reply.ends_with(r#""content":[{"type":"text","text":"You said \"hi\""}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}"#));
//! assert_eq!(api.requests()[0].header("Content-Length"), Some("72"));
//! assert_eq!(api.requests()[0].body["max_tokens"], 5);
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

/// The model named in replies when the request names none.
pub const FAKE_MODEL: &str = "claude-sonnet-4-5-20250929";

/// Most bytes of a request head (request line and headers) the fake reads.
const MAX_HEAD: usize = 64 * 1024;

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET` …
    pub method: String,
    /// The path asked, without the query (`/v1/messages`).
    pub path: String,
    /// The headers in order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`null` when empty or not JSON).
    pub body: Value,
    /// When the whole request had arrived.
    pub received: Instant,
}

impl Recorded {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    /// How many `assistant` messages the request's `messages` hold: the number of the model
    /// turn being asked for (0 for the first).
    pub fn assistant_turns(&self) -> usize {
        self.body.get("messages").and_then(Value::as_array).map_or(0, |messages| {
            messages.iter().filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant")).count()
        })
    }

    /// The last message of the request's `messages` (`null` when there is none).
    pub fn last_message(&self) -> &Value {
        self.body.get("messages").and_then(Value::as_array).and_then(|messages| messages.last()).unwrap_or(&Value::Null)
    }

    /// The `tool_result` blocks of the last message (what the loop sent back for the previous
    /// turn's tool calls), in order.
    pub fn tool_results(&self) -> Vec<Value> {
        self.last_message()
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The text of a tool result's `content` (a string, or its text blocks joined by `\n`)
    /// for the `tool_use_id` given, in the last message.
    pub fn tool_result_text(&self, tool_use_id: &str) -> Option<String> {
        let result = self
            .tool_results()
            .into_iter()
            .find(|block| block.get("tool_use_id").and_then(Value::as_str) == Some(tool_use_id))?;
        Some(match result.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
    }

    /// Whether the body asks for a stream (`"stream": true`).
    pub fn wants_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// What the Messages API would refuse in the request's `messages` ([`message_problems`]);
    /// empty when it would take them.
    pub fn message_problems(&self) -> Vec<String> {
        message_problems(self.body.get("messages").unwrap_or(&Value::Null))
    }
}

/// What the Messages API would refuse (a 400) in a request's `messages`, one line per problem;
/// empty when it would take them. The rules checked: a non-empty list of objects, each with a
/// role (`user`, `assistant`, or the `system` messages Claude Code sends inside the list) and
/// content (a non-empty string, or a non-empty list of typed blocks, text blocks with text);
/// system messages aside, the first message is the user's, user and assistant alternate and the
/// last is the user's (a request asks for an answer); each assistant message with `tool_use`
/// blocks is followed at once (no system message between) by a user message that starts with
/// one `tool_result` per call, in `tool_use` order ("tool_use ids were found without
/// tool_result blocks immediately after"); no other `tool_result` anywhere.
pub fn message_problems(messages: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(messages) = messages.as_array().filter(|messages| !messages.is_empty()) else {
        return vec!["messages: not a non-empty list".to_owned()];
    };
    let role = |message: &Value| message.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
    let kind = |block: &Value| block.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    let blocks = |message: &Value| message.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    for (index, message) in messages.iter().enumerate() {
        if !["user", "assistant", "system"].contains(&role(message).as_str()) {
            problems.push(format!("messages.{index}: no user, assistant or system role"));
        }
        match message.get("content") {
            Some(Value::String(text)) if !text.is_empty() => {}
            Some(Value::Array(list)) if !list.is_empty() => {
                for (at, block) in list.iter().enumerate() {
                    if kind(block).is_empty() {
                        problems.push(format!("messages.{index}.content.{at}: a block without a type"));
                    }
                    if kind(block) == "text" && block.get("text").and_then(Value::as_str).is_none_or(str::is_empty) {
                        problems.push(format!("messages.{index}.content.{at}: a text block without text"));
                    }
                }
            }
            _ => problems.push(format!("messages.{index}: no content")),
        }
    }
    let turns: Vec<(usize, String)> = messages
        .iter()
        .enumerate()
        .map(|(index, message)| (index, role(message)))
        .filter(|(_, role)| role != "system")
        .collect();
    if turns.first().is_some_and(|(_, role)| role != "user") {
        problems.push("messages: the first (system aside) is not the user's".to_owned());
    }
    if turns.last().is_none_or(|(_, role)| role != "user") {
        problems.push("messages: the last (system aside) is not the user's".to_owned());
    }
    for pair in turns.windows(2) {
        if pair[0].1 == pair[1].1 {
            problems.push(format!("messages.{}: a second {} message in a row", pair[1].0, pair[1].1));
        }
    }
    for (index, message) in messages.iter().enumerate() {
        let calls: Vec<Value> = if role(message) == "assistant" {
            blocks(message)
                .into_iter()
                .filter(|block| kind(block) == "tool_use")
                .map(|block| block["id"].clone())
                .collect()
        } else {
            Vec::new()
        };
        let next = messages.get(index + 1);
        let answers: Vec<Value> = next
            .filter(|next| role(next) == "user")
            .map(|next| blocks(next).into_iter().take(calls.len()).collect())
            .unwrap_or_default();
        let answered: Vec<Value> = answers
            .iter()
            .filter(|block| kind(block) == "tool_result")
            .map(|block| block.get("tool_use_id").cloned().unwrap_or(Value::Null))
            .collect();
        if answered != calls {
            problems.push(format!(
                "messages.{index}: tool_use ids were found without tool_result blocks immediately after: calls {calls:?}, results {answered:?}"
            ));
        }
        if role(message) == "user" {
            let first_calls = index.checked_sub(1).and_then(|before| messages.get(before)).map_or(0, |before| {
                if role(before) == "assistant" {
                    blocks(before).iter().filter(|block| kind(block) == "tool_use").count()
                } else {
                    0
                }
            });
            for (at, block) in blocks(message).iter().enumerate().skip(first_calls) {
                if kind(block) == "tool_result" {
                    problems.push(format!(
                        "messages.{index}.content.{at}: a tool_result that answers no call right before it"
                    ));
                }
            }
        }
    }
    problems
}

/// What the fake answers one request with.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A message of these content blocks. Streamed as SSE when the request has
    /// `"stream": true`: message_start, ping, per block content_block_start / deltas /
    /// content_block_stop (text as up to three `text_delta` pieces; tool_use and
    /// server_tool_use input as up to three `input_json_delta` pieces of its JSON, or a block's
    /// `raw_json` string streamed as it is, valid JSON or not; thinking as `thinking_delta` +
    /// `signature_delta`; any other block whole in its start), message_delta, message_stop.
    /// Else the JSON message (a `raw_json` parsed, `{}` when it does not parse). `stop_reason`
    /// defaults to `tool_use` when a block is a tool_use, else `end_turn`; `usage` fields given
    /// replace the defaults (input_tokens 100, output_tokens 20, cache counts 0).
    Message {
        /// The content blocks.
        content: Vec<Value>,
        /// The stop reason, if not the default.
        stop_reason: Option<String>,
        /// Usage fields replacing the defaults.
        usage: Option<Value>,
    },
    /// As [`Reply::Message`], streamed with `gap` slept before each content block's start.
    Slow {
        /// The content blocks.
        content: Vec<Value>,
        /// The pause before each block.
        gap: Duration,
    },
    /// An error status with the API's error body
    /// (`{"type":"error","error":{"type":kind,"message":message}}`) and extra headers
    /// (`retry-after` …).
    Status {
        /// The HTTP status (429, 529, 500 …).
        status: u16,
        /// `error.type` (`rate_limit_error`, `overloaded_error` …).
        kind: String,
        /// `error.message`.
        message: String,
        /// Extra headers, sent as given.
        headers: Vec<(String, String)>,
    },
    /// The message's first `events` SSE events (as [`Reply::Message`] streams them), then the
    /// connection closes.
    DropAfter {
        /// The content blocks.
        content: Vec<Value>,
        /// How many events are sent before the close.
        events: usize,
    },
    /// This text as the SSE body, sent as it is (an `error` event mid-stream, malformed
    /// events …), then the connection closes.
    RawSse(String),
    /// The message's first `events` SSE events (as [`Reply::Message`] streams them), then
    /// silence: the connection stays open until the client closes it (or dies) or the fake
    /// stops. An answer that hangs mid-stream, for tests that stop the client there.
    Stall {
        /// The content blocks.
        content: Vec<Value>,
        /// How many events are sent before the silence.
        events: usize,
    },
}

impl Reply {
    /// A message of one text block.
    pub fn text(text: &str) -> Reply {
        Reply::Message { content: vec![json!({"type": "text", "text": text})], stop_reason: None, usage: None }
    }

    /// A message of one tool_use block (stop_reason `tool_use`).
    pub fn tool_use(id: &str, name: &str, input: Value) -> Reply {
        Reply::Message {
            content: vec![json!({"type": "tool_use", "id": id, "name": name, "input": input})],
            stop_reason: None,
            usage: None,
        }
    }

    /// An error status of the API's shape without extra headers.
    pub fn status(status: u16, kind: &str, message: &str) -> Reply {
        Reply::Status { status, kind: kind.into(), message: message.into(), headers: Vec::new() }
    }
}

type Respond = dyn Fn(&Recorded) -> Reply + Send + Sync;

/// What the server threads share.
struct Shared {
    respond: Box<Respond>,
    requests: Mutex<Vec<Recorded>>,
    connections: Mutex<Vec<TcpStream>>,
    stop: AtomicBool,
    served: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A fake Messages API server on `127.0.0.1` (a free port). Stops its server on drop (the
/// listening thread is joined, open connections are shut down).
pub struct FakeApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FakeApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeApi").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl FakeApi {
    /// Serves every request by calling `respond` (see the [module docs](self) for the routes).
    /// Panics when no port can be bound.
    pub fn start(respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            respond: Box::new(respond),
            requests: Mutex::new(Vec::new()),
            connections: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            served: AtomicU64::new(0),
        });
        let accepting = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name("fake-api".into())
            .spawn(move || {
                for socket in listener.incoming() {
                    if accepting.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(socket) = socket else { continue };
                    let _ = socket.set_nodelay(true);
                    if let Ok(clone) = socket.try_clone() {
                        lock(&accepting.connections).push(clone);
                    }
                    let serving = Arc::clone(&accepting);
                    let _ =
                        std::thread::Builder::new().name("fake-api-conn".into()).spawn(move || serve(&serving, socket));
                }
            })
            .expect("spawn the fake API's thread");
        FakeApi { addr, shared, accept: Some(accept) }
    }

    /// A script of model turns, played the way the recorded Claude Code loop scenarios were: the turn
    /// answered is the number of assistant messages already in the request's `messages`
    /// ([`Recorded::assistant_turns`]), so the server is stateless and a retried request gets
    /// the same answer; past the last turn, `final_text` with `end_turn`. Each turn is a list
    /// of content blocks ([`Reply::Message`]).
    pub fn scripted(turns: Vec<Vec<Value>>, final_text: &str) -> FakeApi {
        let final_text = final_text.to_owned();
        FakeApi::start(move |request| match turns.get(request.assistant_turns()) {
            Some(content) => Reply::Message { content: content.clone(), stop_reason: None, usage: None },
            None => Reply::text(&final_text),
        })
    }

    /// Answers requests with `replies` in arrival order (whatever they ask), then with `then`
    /// for every later request: for retries (`Reply::Status` 529, then a message) and other
    /// stateful scripts.
    pub fn sequence(replies: Vec<Reply>, then: Reply) -> FakeApi {
        let next = AtomicU64::new(0);
        FakeApi::start(move |_| {
            let turn = usize::try_from(next.fetch_add(1, Ordering::SeqCst)).unwrap_or(usize::MAX);
            replies.get(turn).cloned().unwrap_or_else(|| then.clone())
        })
    }

    /// Waits (polling every 5 ms) until at least `count` requests have arrived or `limit`
    /// passes; returns whether they did.
    pub fn wait_for_requests(&self, count: usize, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while self.request_count() < count {
            if Instant::now() >= deadline {
                return false;
            }
            // tidy:allow-sleep the poll interval of a deadline poll.
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// `http://127.0.0.1:PORT`: the base URL to configure (`ANTHROPIC_BASE_URL`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.requests).clone()
    }

    /// How many requests have arrived so far.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for socket in lock(&self.shared.connections).drain(..) {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// One parsed request, or why the connection ends.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut request_line = String::new();
    loop {
        request_line.clear();
        if reader.read_line(&mut request_line).ok()? == 0 {
            return None;
        }
        if !request_line.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?;
    let path = target.split('?').next().unwrap_or(target).to_owned();
    let mut headers = Vec::new();
    let mut head_bytes = request_line.len();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        head_bytes += line.len();
        if head_bytes > MAX_HEAD {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|value| value.to_ascii_lowercase().contains("chunked")) {
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line).ok()?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("").trim(), 16).ok()?;
            if size == 0 {
                // Trailers, up to the blank line.
                loop {
                    let mut trailer = String::new();
                    if reader.read_line(&mut trailer).ok()? == 0 || trailer.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).ok()?;
            let mut crlf = String::new();
            reader.read_line(&mut crlf).ok()?;
        }
    } else if let Some(length) = header("content-length").and_then(|value| value.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Recorded { method, path, headers, body, received: Instant::now() })
}

/// Serves one connection until the client closes it or a reply closes it.
fn serve(shared: &Shared, socket: TcpStream) {
    let Ok(reading) = socket.try_clone() else { return };
    let mut reader = BufReader::new(reading);
    let mut writer = socket;
    while !shared.stop.load(Ordering::SeqCst) {
        let Some(request) = read_request(&mut reader) else { break };
        let number = shared.served.fetch_add(1, Ordering::SeqCst) + 1;
        lock(&shared.requests).push(request.clone());
        let keep_alive = !request.header("connection").is_some_and(|value| value.eq_ignore_ascii_case("close"));
        let route = route(&request.path);
        let outcome = match (request.method.as_str(), route) {
            ("POST", Some(api)) => {
                let reply = (shared.respond)(&request);
                answer(&mut writer, &request, api, &reply, number)
            }
            _ => {
                let message = format!("fake: no route {} {}", request.method, request.path);
                let body = json!({"type": "error", "error": {"type": "not_found_error", "message": message}});
                write_json(&mut writer, 404, &[], &body).map(|()| true)
            }
        };
        match outcome {
            Ok(true) if keep_alive => {}
            _ => break,
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

/// Which API a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Messages,
    ChatCompletions,
}

fn route(path: &str) -> Option<Api> {
    let path = path.trim_end_matches('/');
    if path.ends_with("/v1/messages") {
        Some(Api::Messages)
    } else if path.ends_with("/chat/completions") {
        Some(Api::ChatCompletions)
    } else {
        None
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn write_json(writer: &mut TcpStream, status: u16, headers: &[(String, String)], body: &Value) -> std::io::Result<()> {
    let body = body.to_string();
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_fake\r\n",
        reason(status),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())?;
    writer.flush()
}

fn write_sse_head(writer: &mut TcpStream) -> std::io::Result<()> {
    writer.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\nconnection: close\r\nrequest-id: req_fake\r\n\r\n",
    )?;
    writer.flush()
}

/// Sends `reply`; `Ok(true)` when the connection may serve another request.
fn answer(writer: &mut TcpStream, request: &Recorded, api: Api, reply: &Reply, number: u64) -> std::io::Result<bool> {
    let model = request.body.get("model").and_then(Value::as_str).unwrap_or(FAKE_MODEL).to_owned();
    let message = |content: &[Value], stop_reason: Option<&str>, usage: Option<&Value>| FakeMessage {
        id: format!("msg_fake_{number:04}"),
        model: model.clone(),
        content: content.to_vec(),
        stop_reason: stop_reason.map(str::to_owned).unwrap_or_else(|| default_stop_reason(content)),
        usage: usage_of(usage),
    };
    let (message, gap, limit) = match reply {
        Reply::Status { status, kind, message, headers } => {
            let body = json!({"type": "error", "error": {"type": kind, "message": message}});
            write_json(writer, *status, headers, &body)?;
            return Ok(true);
        }
        Reply::RawSse(text) => {
            write_sse_head(writer)?;
            writer.write_all(text.as_bytes())?;
            writer.flush()?;
            return Ok(false);
        }
        Reply::Message { content, stop_reason, usage } => {
            (message(content, stop_reason.as_deref(), usage.as_ref()), None, None)
        }
        Reply::Slow { content, gap } => (message(content, None, None), Some(*gap), None),
        Reply::DropAfter { content, events } | Reply::Stall { content, events } => {
            (message(content, None, None), None, Some(*events))
        }
    };
    if !request.wants_stream() && limit.is_none() {
        let body = match api {
            Api::Messages => message.json(),
            Api::ChatCompletions => message.chat_completion(),
        };
        write_json(writer, 200, &[], &body)?;
        return Ok(true);
    }
    let events = match api {
        Api::Messages => message.sse_events(),
        Api::ChatCompletions => message.chat_chunks(),
    };
    write_sse_head(writer)?;
    for (sent, (starts_block, event)) in events.iter().enumerate() {
        if limit.is_some_and(|limit| sent >= limit) {
            break;
        }
        if let (Some(gap), true) = (gap, *starts_block) {
            // tidy:allow-sleep the scripted pause of a slow stream.
            std::thread::sleep(gap);
        }
        writer.write_all(event.as_bytes())?;
        writer.flush()?;
    }
    if matches!(reply, Reply::Stall { .. }) {
        // Silence until the client goes (its end of the connection closes) or the fake stops
        // (its drop shuts the connection down).
        let mut reader = writer.try_clone()?;
        let mut sink = [0u8; 1024];
        while reader.read(&mut sink).is_ok_and(|read| read > 0) {}
    }
    Ok(false)
}

fn default_stop_reason(content: &[Value]) -> String {
    let tool = content.iter().any(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"));
    if tool { "tool_use" } else { "end_turn" }.to_owned()
}

fn usage_of(given: Option<&Value>) -> Map<String, Value> {
    let mut usage = Map::new();
    usage.insert("input_tokens".into(), json!(100));
    usage.insert("output_tokens".into(), json!(20));
    usage.insert("cache_creation_input_tokens".into(), json!(0));
    usage.insert("cache_read_input_tokens".into(), json!(0));
    if let Some(Value::Object(given)) = given {
        for (key, value) in given {
            usage.insert(key.clone(), value.clone());
        }
    }
    usage
}

/// Up to three pieces of `text`, split on character boundaries (one empty piece for "").
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let size = chars.len().div_ceil(3);
    chars.chunks(size).map(|chunk| chunk.iter().collect()).collect()
}

/// A block's input as JSON text: its `raw_json` string if any, else its `input` serialised.
fn input_json(block: &Value) -> String {
    match block.get("raw_json").and_then(Value::as_str) {
        Some(raw) => raw.to_owned(),
        None => block.get("input").cloned().unwrap_or_else(|| json!({})).to_string(),
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// One message to send.
struct FakeMessage {
    id: String,
    model: String,
    content: Vec<Value>,
    stop_reason: String,
    usage: Map<String, Value>,
}

fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

impl FakeMessage {
    /// The blocks as the non-streaming API returns them (`raw_json` parsed, `{}` if invalid).
    fn json_content(&self) -> Vec<Value> {
        self.content
            .iter()
            .map(|block| match (block.get("raw_json").and_then(Value::as_str), block.as_object()) {
                (Some(raw), Some(fields)) => {
                    let mut fields = fields.clone();
                    fields.remove("raw_json");
                    fields.insert("input".into(), serde_json::from_str(raw).unwrap_or_else(|_| json!({})));
                    Value::Object(fields)
                }
                _ => block.clone(),
            })
            .collect()
    }

    fn json(&self) -> Value {
        json!({
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": self.json_content(), "stop_reason": self.stop_reason, "stop_sequence": null,
            "usage": self.usage,
        })
    }

    /// The SSE events, each with whether it starts a content block.
    fn sse_events(&self) -> Vec<(bool, String)> {
        let mut start_usage = self.usage.clone();
        start_usage.insert("output_tokens".into(), json!(1));
        let mut events = vec![
            (
                false,
                sse(
                    "message_start",
                    &json!({"type": "message_start", "message": {
                "id": self.id, "type": "message", "role": "assistant", "model": self.model, "content": [],
                "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
                ),
            ),
            (false, sse("ping", &json!({"type": "ping"}))),
        ];
        for (index, block) in self.content.iter().enumerate() {
            let delta = |delta: Value| {
                (
                    false,
                    sse("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": delta})),
                )
            };
            let (start, deltas): (Value, Vec<(bool, String)>) = match kind(block) {
                "text" => {
                    let mut start = block.clone();
                    start["text"] = json!("");
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    (
                        start,
                        pieces(text)
                            .into_iter()
                            .map(|piece| delta(json!({"type": "text_delta", "text": piece})))
                            .collect(),
                    )
                }
                "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                    let mut start = block.clone();
                    if let Some(fields) = start.as_object_mut() {
                        fields.remove("raw_json");
                        fields.insert("input".into(), json!({}));
                    }
                    let raw = input_json(block);
                    let parts = pieces(&raw).into_iter().filter(|piece| !piece.is_empty());
                    (
                        start,
                        parts.map(|piece| delta(json!({"type": "input_json_delta", "partial_json": piece}))).collect(),
                    )
                }
                "thinking" => {
                    let thinking = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                    let signature = block.get("signature").and_then(Value::as_str).unwrap_or("sig");
                    (
                        json!({"type": "thinking", "thinking": "", "signature": ""}),
                        vec![
                            delta(json!({"type": "thinking_delta", "thinking": thinking})),
                            delta(json!({"type": "signature_delta", "signature": signature})),
                        ],
                    )
                }
                _ => (block.clone(), Vec::new()),
            };
            events.push((
                true,
                sse(
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index, "content_block": start}),
                ),
            ));
            events.extend(deltas);
            events.push((false, sse("content_block_stop", &json!({"type": "content_block_stop", "index": index}))));
        }
        let output = self.usage.get("output_tokens").cloned().unwrap_or(json!(20));
        events.push((
            false,
            sse(
                "message_delta",
                &json!({"type": "message_delta",
                "delta": {"stop_reason": self.stop_reason, "stop_sequence": null}, "usage": {"output_tokens": output}}),
            ),
        ));
        events.push((false, sse("message_stop", &json!({"type": "message_stop"}))));
        events
    }

    /// The Chat Completions finish reason of the stop reason.
    fn finish_reason(&self) -> &'static str {
        match self.stop_reason.as_str() {
            "tool_use" => "tool_calls",
            "max_tokens" => "length",
            _ => "stop",
        }
    }

    fn chat_usage(&self) -> Value {
        let count = |key: &str| self.usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        let (prompt, completion) = (count("input_tokens"), count("output_tokens"));
        json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
    }

    fn chat_completion(&self) -> Value {
        let text: String = self
            .content
            .iter()
            .filter(|b| kind(b) == "text")
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        let calls: Vec<Value> = self
            .content
            .iter()
            .filter(|b| kind(b) == "tool_use")
            .map(|b| json!({"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": input_json(b)}}))
            .collect();
        let mut message =
            json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
        if !calls.is_empty() {
            message["tool_calls"] = json!(calls);
        }
        json!({
            "id": self.id.replace("msg_", "chatcmpl-"), "object": "chat.completion", "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason()}],
            "usage": self.chat_usage(),
        })
    }

    /// Chat Completions chunks: a role chunk, text pieces, each tool call as an id/name chunk
    /// and argument pieces, the finish reason, the usage chunk, `[DONE]`.
    fn chat_chunks(&self) -> Vec<(bool, String)> {
        let id = self.id.replace("msg_", "chatcmpl-");
        let chunk = |delta: Value, finish: Value| {
            let data = json!({"id": id, "object": "chat.completion.chunk", "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
            format!("data: {data}\n\n")
        };
        let mut events = vec![(false, chunk(json!({"role": "assistant", "content": ""}), Value::Null))];
        let mut call = 0;
        for block in &self.content {
            match kind(block) {
                "text" => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    for (n, piece) in pieces(text).into_iter().enumerate() {
                        events.push((n == 0, chunk(json!({"content": piece}), Value::Null)));
                    }
                }
                "tool_use" => {
                    let head = json!({"tool_calls": [{"index": call, "id": block["id"], "type": "function",
                        "function": {"name": block["name"], "arguments": ""}}]});
                    events.push((true, chunk(head, Value::Null)));
                    for piece in pieces(&input_json(block)).into_iter().filter(|piece| !piece.is_empty()) {
                        let part = json!({"tool_calls": [{"index": call, "function": {"arguments": piece}}]});
                        events.push((false, chunk(part, Value::Null)));
                    }
                    call += 1;
                }
                _ => {}
            }
        }
        events.push((false, chunk(json!({}), json!(self.finish_reason()))));
        let usage = json!({"id": id, "object": "chat.completion.chunk", "model": self.model, "choices": [], "usage": self.chat_usage()});
        events.push((false, format!("data: {usage}\n\n")));
        events.push((false, "data: [DONE]\n\n".to_owned()));
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends raw requests on one connection and reads `replies` answers framed by
    /// content-length (or to the end for a streamed one).
    fn exchange(api: &FakeApi, raw: &str) -> String {
        let mut socket = TcpStream::connect(api.addr()).unwrap();
        socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        socket.write_all(raw.as_bytes()).unwrap();
        socket.shutdown(Shutdown::Write).unwrap();
        let mut reply = String::new();
        socket.read_to_string(&mut reply).unwrap();
        reply
    }

    fn post(path: &str, body: &str, extra: &str) -> String {
        format!("POST {path} HTTP/1.1\r\nhost: x\r\n{extra}content-length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn one_connection_serves_several_requests_and_chunked_bodies() {
        let api = FakeApi::scripted(
            vec![vec![json!({"type": "tool_use", "id": "t1", "name": "Read", "input": {"a": 1}})]],
            "Done.",
        );
        let first = r#"{"messages":[{"role":"user","content":"go"}]}"#;
        let second = r#"{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]}]}"#;
        let chunked = format!(
            "POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
            second.len()
        );
        let raw =
            format!("{}{}{}", post("/v1/messages", first, ""), chunked, post("/nowhere", "", "connection: close\r\n"));
        let reply = exchange(&api, &raw);
        assert_eq!(reply.matches("HTTP/1.1 200 OK\r\n").count(), 2, "{reply}");
        assert!(
            reply.contains(
                r#""content":[{"type":"tool_use","id":"t1","name":"Read","input":{"a":1}}],"stop_reason":"tool_use""#
            ),
            "{reply}"
        );
        assert!(reply.contains(r#""content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn""#), "{reply}");
        assert!(reply.contains("HTTP/1.1 404 Not Found\r\n"), "{reply}");
        let requests = api.requests();
        assert_eq!(requests.len(), 3);
        assert_eq!((requests[0].assistant_turns(), requests[1].assistant_turns()), (0, 1));
        assert_eq!(requests[1].header("Transfer-Encoding"), Some("chunked"));
        assert_eq!(requests[2].path, "/nowhere");
        assert!(requests[0].received <= requests[1].received);
    }

    #[test]
    fn a_streamed_message_sends_every_event_in_order() {
        let content = vec![
            json!({"type": "thinking", "thinking": "hmm", "signature": "s1"}),
            json!({"type": "text", "text": "Hello there"}),
            json!({"type": "tool_use", "id": "t1", "name": "Bash", "raw_json": "{\"command\": \"ls"}),
        ];
        let api = FakeApi::start(move |_| Reply::Message {
            content: content.clone(),
            stop_reason: None,
            usage: Some(json!({"output_tokens": 7})),
        });
        let reply = exchange(&api, &post("/v1/messages", r#"{"stream":true,"model":"m"}"#, ""));
        let (head, body) = reply.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        let names: Vec<&str> = body.lines().filter_map(|line| line.strip_prefix("event: ")).collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.iter().filter(|name| **name == "content_block_start").count(), 3);
        assert_eq!(names.last(), Some(&"message_stop"));
        let data: Vec<Value> = body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect();
        let partial: String =
            data.iter().filter_map(|event| event.pointer("/delta/partial_json").and_then(Value::as_str)).collect();
        assert_eq!(partial, "{\"command\": \"ls");
        let text: String =
            data.iter().filter_map(|event| event.pointer("/delta/text").and_then(Value::as_str)).collect();
        assert_eq!(text, "Hello there");
        assert_eq!(data.iter().filter(|event| event.pointer("/delta/type") == Some(&json!("text_delta"))).count(), 3);
        let end = data.iter().find(|event| event["type"] == "message_delta").unwrap();
        assert_eq!(end["delta"]["stop_reason"], "tool_use");
        assert_eq!(end["usage"]["output_tokens"], 7);
        assert_eq!(data[0]["message"]["model"], "m");
    }

    #[test]
    fn errors_drops_and_raw_streams() {
        let api = FakeApi::start(|request| match request.assistant_turns() {
            0 => Reply::Status {
                status: 429,
                kind: "rate_limit_error".into(),
                message: "slow down".into(),
                headers: vec![("retry-after".into(), "2".into())],
            },
            1 => Reply::DropAfter { content: vec![json!({"type": "text", "text": "abc"})], events: 3 },
            _ => Reply::RawSse("event: error\ndata: {\"type\":\"error\"}\n\n".into()),
        });
        let status = exchange(&api, &post("/v1/messages", r#"{"stream":true}"#, "connection: close\r\n"));
        assert!(status.starts_with("HTTP/1.1 429 Too Many Requests\r\n"), "{status}");
        assert!(status.contains("\r\nretry-after: 2\r\n"), "{status}");
        assert!(
            status.ends_with(r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#),
            "{status}"
        );
        let dropped = exchange(&api, &post("/v1/messages", r#"{"stream":true,"messages":[{"role":"assistant"}]}"#, ""));
        assert_eq!(dropped.matches("\ndata: ").count(), 3, "{dropped}");
        assert!(!dropped.contains("message_stop"));
        let raw =
            exchange(&api, &post("/v1/messages", r#"{"messages":[{"role":"assistant"},{"role":"assistant"}]}"#, ""));
        assert!(raw.ends_with("\r\n\r\nevent: error\ndata: {\"type\":\"error\"}\n\n"), "{raw}");
    }

    #[test]
    fn chat_completions_stream_as_chunks() {
        let api = FakeApi::start(|_| Reply::tool_use("call_1", "Read", json!({"file_path": "/a"})));
        let reply = exchange(&api, &post("/v1/chat/completions", r#"{"stream":true}"#, ""));
        let data: Vec<&str> = reply.lines().filter_map(|line| line.strip_prefix("data: ")).collect();
        assert_eq!(data.last(), Some(&"[DONE]"));
        let chunks: Vec<Value> = data[..data.len() - 1].iter().map(|d| serde_json::from_str(d).unwrap()).collect();
        let arguments: String = chunks
            .iter()
            .filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0/function/arguments").and_then(Value::as_str))
            .collect();
        assert_eq!(arguments, r#"{"file_path":"/a"}"#);
        assert!(chunks.iter().any(|c| c.pointer("/choices/0/finish_reason") == Some(&json!("tool_calls"))));
        assert_eq!(chunks.last().unwrap()["usage"]["prompt_tokens"], 100);
    }

    #[test]
    fn a_sequence_answers_in_arrival_order_and_requests_expose_tool_results() {
        let api = FakeApi::sequence(vec![Reply::status(529, "overloaded_error", "Overloaded")], Reply::text("ok"));
        let body = json!({"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "is_error": true},
            {"type": "text", "text": "note"}
        ]}]})
        .to_string();
        let first = exchange(&api, &post("/v1/messages", &body, ""));
        assert!(first.starts_with("HTTP/1.1 529 Overloaded\r\n"), "{first}");
        for _ in 0..2 {
            let again = exchange(&api, &post("/v1/messages", &body, ""));
            assert!(again.starts_with("HTTP/1.1 200 OK\r\n"), "{again}");
        }
        assert!(api.wait_for_requests(3, Duration::from_secs(5)));
        assert!(!api.wait_for_requests(4, Duration::from_millis(20)));
        let request = &api.requests()[0];
        assert_eq!(request.tool_results().len(), 2);
        assert_eq!(request.tool_result_text("t1").as_deref(), Some("one"));
        assert_eq!(request.tool_result_text("t2").as_deref(), Some("a\nb"));
        assert_eq!(request.tool_result_text("t3"), None);
        assert_eq!(request.last_message()["role"], "user");
    }

    #[test]
    fn a_stalled_stream_sends_its_first_events_then_stays_open_and_silent() {
        let api =
            FakeApi::start(|_| Reply::Stall { content: vec![json!({"type": "text", "text": "abcdef"})], events: 4 });
        let mut socket = TcpStream::connect(api.addr()).unwrap();
        socket.write_all(post("/v1/messages", r#"{"stream":true}"#, "").as_bytes()).unwrap();
        socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut reader = BufReader::new(socket.try_clone().unwrap());
        let mut events = Vec::new();
        while events.len() < 4 {
            let mut line = String::new();
            assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended early");
            if let Some(data) = line.strip_prefix("data: ") {
                events.push(serde_json::from_str::<Value>(data).unwrap()["type"].as_str().unwrap().to_owned());
            }
        }
        assert_eq!(events, ["message_start", "ping", "content_block_start", "content_block_delta"]);
        let mut end = String::new();
        reader.read_line(&mut end).unwrap();
        assert_eq!(end, "\n", "the blank line that ends the last event");
        // Nothing more comes, and the connection is still open.
        socket.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let mut more = [0u8; 64];
        let error = reader.read(&mut more).unwrap_err();
        assert!(matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut), "{error}");
    }

    #[test]
    fn message_problems_name_what_the_api_would_refuse() {
        let call = json!({"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]});
        let results = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "a"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "b"},
            {"type": "text", "text": "and then?"}]});
        let prompt = json!({"role": "user", "content": "go"});
        let system = json!({"role": "system", "content": [{"type": "text", "text": "env"}]});
        assert!(message_problems(&json!([prompt, system, call, results, system])).is_empty());
        let unanswered = message_problems(&json!([prompt, call]));
        assert!(unanswered.iter().any(|p| p.contains("tool_use ids were found without tool_result")), "{unanswered:?}");
        assert!(unanswered.iter().any(|p| p.contains("the last (system aside) is not the user's")), "{unanswered:?}");
        let swapped = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "b"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "a"}]});
        assert_eq!(message_problems(&json!([prompt, call, swapped])).len(), 1);
        assert_eq!(
            message_problems(&json!([prompt, call, system, results])).len(),
            3,
            "results after a system message answer nothing"
        );
        let twice = message_problems(&json!([prompt, system, prompt]));
        assert_eq!(twice, ["messages.2: a second user message in a row"]);
        let orphan = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]});
        assert_eq!(message_problems(&json!([orphan])).len(), 1);
        assert_eq!(message_problems(&json!([{"role": "user", "content": ""}])), ["messages.0: no content"]);
        assert_eq!(message_problems(&json!([])), ["messages: not a non-empty list"]);
    }

    #[test]
    fn dropping_the_fake_stops_it() {
        let api = FakeApi::scripted(Vec::new(), "x");
        let addr = api.addr();
        let idle = TcpStream::connect(addr).unwrap();
        drop(api);
        let mut idle = idle;
        let mut rest = Vec::new();
        assert_eq!(idle.read_to_end(&mut rest).unwrap_or(0), 0);
        assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err());
    }
}
