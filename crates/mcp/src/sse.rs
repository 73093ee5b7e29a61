//! The legacy HTTP+SSE transport of MCP protocol 2024-11-05, as an rmcp [`Transport`]: a GET of
//! the server's URL (`Accept: text/event-stream`) opens a stream whose first `endpoint` event
//! names the URL each of our messages is POSTed to; the server's messages come as `message`
//! events of that stream, one JSON-RPC message each.
//!
//! Security rule (the spec's and the TypeScript SDK's): an endpoint on another origin (scheme,
//! host, port) than the stream's URL is refused, so a server cannot make us POST our messages,
//! and the configured headers, somewhere else.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

/// Messages buffered between the stream reader and rmcp's service loop.
const CHANNEL_CAPACITY: usize = 64;

/// Longest SSE event accepted (bytes); a longer one ends the stream as broken.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    /// The server answered 401: it needs authentication (OAuth).
    #[error("needs authentication (HTTP 401)")]
    Unauthorized {
        /// The `WWW-Authenticate` challenge, if any.
        challenge: Option<String>,
    },
    /// Another HTTP status.
    #[error("HTTP {status} from {what}")]
    Status {
        /// The status code.
        status: u16,
        /// `the SSE stream` or `a POST`.
        what: &'static str,
    },
    /// The request could not be made.
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    /// The stream did not go as the protocol says.
    #[error("{0}")]
    Protocol(String),
}

/// A connected SSE transport (see the module docs).
pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: url::Url,
    headers: HeaderMap,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl SseTransport {
    /// Opens the stream at `url` with `headers` and waits (within `timeout`) for the `endpoint`
    /// event.
    ///
    /// # Errors
    /// [`SseError::Unauthorized`] for a 401, [`SseError::Status`] for another non-2xx answer,
    /// [`SseError::Protocol`] when the stream ends or times out before an `endpoint` event, or
    /// names an endpoint on another origin.
    pub(crate) async fn connect(
        client: reqwest::Client,
        url: url::Url,
        headers: HeaderMap,
        timeout: Duration,
    ) -> Result<Self, SseError> {
        let request = client.get(url.clone()).headers(headers.clone()).header(ACCEPT, "text/event-stream");
        let mut response = tokio::time::timeout(timeout, request.send())
            .await
            .map_err(|_| SseError::Protocol(format!("no answer within {} ms", timeout.as_millis())))??;
        check_status(&response, "the SSE stream")?;
        let mut parser = EventParser::default();
        let found = tokio::time::timeout(timeout, async {
            loop {
                if let Some(event) = parser.next_event() {
                    if event.name == "endpoint" {
                        return Ok(event.data);
                    }
                    continue;
                }
                match response.chunk().await? {
                    Some(chunk) => parser.feed(&chunk)?,
                    None => {
                        return Err(SseError::Protocol("the SSE stream ended before its endpoint event".to_owned()));
                    }
                }
            }
        })
        .await
        .map_err(|_| SseError::Protocol(format!("no endpoint event within {} ms", timeout.as_millis())))??;
        let endpoint = url
            .join(found.trim())
            .map_err(|error| SseError::Protocol(format!("the endpoint {:?} is not a URL: {error}", found.trim())))?;
        if endpoint.origin() != url.origin() {
            return Err(SseError::Protocol(format!(
                "the endpoint {endpoint} is on another origin than {url}; refused"
            )));
        }
        let (sender, incoming) = mpsc::channel(CHANNEL_CAPACITY);
        let reader = tokio::spawn(read_messages(response, parser, sender));
        Ok(Self { client, endpoint, headers, incoming, reader })
    }
}

fn check_status(response: &reqwest::Response, what: &'static str) -> Result<(), SseError> {
    let status = response.status();
    if status == reqwest::StatusCode::UNAUTHORIZED {
        let challenge = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        return Err(SseError::Unauthorized { challenge });
    }
    if !status.is_success() {
        return Err(SseError::Status { status: status.as_u16(), what });
    }
    Ok(())
}

/// Reads `message` events until the stream ends; each is passed on when it is a JSON-RPC
/// message, and skipped (with a debug line) when it is not.
async fn read_messages(
    mut response: reqwest::Response,
    mut parser: EventParser,
    sender: mpsc::Sender<ServerJsonRpcMessage>,
) {
    loop {
        while let Some(event) = parser.next_event() {
            if event.name != "message" {
                continue;
            }
            match serde_json::from_str::<ServerJsonRpcMessage>(&event.data) {
                Ok(message) => {
                    if sender.send(message).await.is_err() {
                        return;
                    }
                }
                Err(error) => tracing::debug!(%error, "an SSE message event that is not JSON-RPC was skipped"),
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if let Err(error) = parser.feed(&chunk) {
                    tracing::debug!(%error, "the SSE stream broke");
                    return;
                }
            }
            Ok(None) => return,
            Err(error) => {
                tracing::debug!(%error, "the SSE stream ended");
                return;
            }
        }
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> std::borrow::Cow<'static, str> {
        "sse".into()
    }

    fn send(&mut self, item: ClientJsonRpcMessage) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        async move {
            let body = serde_json::to_vec(&item).map_err(|error| SseError::Protocol(error.to_string()))?;
            let response = request.body(body).send().await?;
            check_status(&response, "a POST")
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

/// One server-sent event: its `event:` name (`message` when none) and its `data:` lines joined
/// with `\n`.
#[derive(Debug, PartialEq, Eq)]
struct Event {
    name: String,
    data: String,
}

/// An incremental `text/event-stream` parser (the WHATWG rules this protocol needs: `event`,
/// `data`, comments, CR/LF/CRLF line ends; `id` and `retry` are ignored).
#[derive(Debug, Default)]
struct EventParser {
    buffer: Vec<u8>,
    name: Option<String>,
    data: Option<String>,
    ready: std::collections::VecDeque<Event>,
}

impl EventParser {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n' || b == b'\r') {
            // A CR at the very end may be the first half of a CRLF: wait for more.
            if self.buffer[end] == b'\r' && end + 1 == self.buffer.len() {
                break;
            }
            let skip = if self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
            let line: Vec<u8> = self.buffer.drain(..end + skip).take(end).collect();
            self.line(&String::from_utf8_lossy(&line));
        }
        let pending = self.buffer.len() + self.data.as_ref().map_or(0, String::len);
        if pending > MAX_EVENT_BYTES {
            return Err(SseError::Protocol(format!("an SSE event is over {MAX_EVENT_BYTES} bytes")));
        }
        Ok(())
    }

    fn line(&mut self, line: &str) {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                let name = self.name.take().filter(|name| !name.is_empty()).unwrap_or_else(|| "message".to_owned());
                self.ready.push_back(Event { name, data });
            }
            self.name = None;
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.name = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
    }

    fn next_event(&mut self) -> Option<Event> {
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&str]) -> Vec<Event> {
        let mut parser = EventParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk.as_bytes()).unwrap();
            while let Some(event) = parser.next_event() {
                out.push(event);
            }
        }
        out
    }

    #[test]
    fn events_are_parsed_across_chunks_and_line_ends() {
        let got = events(&[
            "event: endpoint\r",
            "\ndata: /message?sessionId=1\r\n\r\n",
            ": ping\n\ndata: {\"a\":",
            "1}\n",
            "data: 2\n\n",
        ]);
        assert_eq!(
            got,
            [
                Event { name: "endpoint".into(), data: "/message?sessionId=1".into() },
                Event { name: "message".into(), data: "{\"a\":1}\n2".into() },
            ]
        );
        assert_eq!(events(&["event: x\n\n", "data\n\n"]), [Event { name: "message".into(), data: String::new() }]);
    }

    #[test]
    fn an_endless_event_is_refused() {
        let mut parser = EventParser::default();
        let big = "a".repeat(MAX_EVENT_BYTES + 1);
        assert!(parser.feed(big.as_bytes()).is_err());
    }
}
