//! JSON-RPC 2.0 over a language server's stdin and stdout, framed with `Content-Length`
//! headers as the Language Server Protocol's base protocol says.
//!
//! [`Connection`] owns the child process. A writer task sends what [`Connection::request`] and
//! [`Connection::notify`] queue; a reader task routes responses to their waiting requests, hands
//! notifications to the [`Inbound`] handler and answers the server's own requests with what
//! the handler returns. When the server's output ends, every waiting request fails with
//! [`RpcError::Exited`] and [`Connection::is_alive`] turns false.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_tools_core::CancellationToken;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, watch};

/// The largest message accepted from a server (64 MiB): a longer `Content-Length` ends the
/// connection instead of allocating it.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    /// The server answered with a JSON-RPC error.
    #[error("{message} (code {code})")]
    Server {
        /// The error code (`-32601` method not found, `-32800` request cancelled, ...).
        code: i64,
        /// The server's message.
        message: String,
    },
    /// The server's process ended (or its output closed) before it answered.
    #[error("the language server exited")]
    Exited,
    /// No answer within the time allowed.
    #[error("the language server did not answer within {0} ms")]
    Timeout(u128),
    /// The caller cancelled the request (`$/cancelRequest` was sent).
    #[error("cancelled")]
    Cancelled,
}

/// What the reader does with what the server sends besides responses.
pub trait Inbound: Send + Sync + 'static {
    /// A notification (`textDocument/publishDiagnostics`, `window/logMessage`, ...).
    fn notification(&self, method: &str, params: Value);
    /// A request from the server (`workspace/configuration`, `client/registerCapability`, ...):
    /// `Ok(result)` or `Err((code, message))`.
    fn request(&self, method: &str, params: Value) -> Result<Value, (i64, String)>;
}

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Result<Value, RpcError>>>>>;

/// A running language server and the JSON-RPC connection to it.
pub struct Connection {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    pending: Pending,
    next_id: AtomicI64,
    alive: Arc<AtomicBool>,
    exited: watch::Receiver<bool>,
    child: Mutex<Option<Child>>,
    pid: Option<u32>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("pid", &self.pid).field("alive", &self.is_alive()).finish()
    }
}

impl Connection {
    /// Starts `command` with its stdin and stdout piped (stderr goes to `tracing` at debug) and
    /// begins reading. The child is killed when the connection is dropped.
    ///
    /// # Errors
    /// The process could not be started (program not found, not executable).
    pub fn spawn(mut command: Command, inbound: Arc<dyn Inbound>, name: &str) -> std::io::Result<Self> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin pipe"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout pipe"))?;
        if let Some(stderr) = child.stderr.take() {
            let name = name.to_owned();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(server = %name, "stderr: {line}");
                }
            });
        }
        let pid = child.id();
        Ok(Self::start(stdout, stdin, inbound, Some(child), pid))
    }

    /// A connection over any reader and writer (the tests use in-memory pipes).
    pub fn over<R, W>(reader: R, writer: W, inbound: Arc<dyn Inbound>) -> Self
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::start(reader, writer, inbound, None, None)
    }

    fn start<R, W>(reader: R, writer: W, inbound: Arc<dyn Inbound>, child: Option<Child>, pid: Option<u32>) -> Self
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outgoing, queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let pending: Pending = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let (exited_tx, exited) = watch::channel(false);
        tokio::spawn(write_loop(writer, queue));
        tokio::spawn(read_loop(
            BufReader::new(reader),
            Arc::clone(&pending),
            outgoing.clone(),
            inbound,
            Arc::clone(&alive),
            exited_tx,
        ));
        Self { outgoing, pending, next_id: AtomicI64::new(1), alive, exited, child: Mutex::new(child), pid }
    }

    /// Whether the server is still there (its output has not ended).
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// The process id, when this connection started a process.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Sends a request and waits for its result, at most `timeout`; when `cancel` fires first,
    /// sends `$/cancelRequest` and returns [`RpcError::Cancelled`].
    ///
    /// # Errors
    /// See [`RpcError`].
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Value, RpcError> {
        if !self.is_alive() {
            return Err(RpcError::Exited);
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (answer, waiting) = oneshot::channel();
        self.pending.lock().unwrap_or_else(PoisonError::into_inner).insert(id, answer);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if self.outgoing.send(frame(&message)).is_err() {
            self.forget(id);
            return Err(RpcError::Exited);
        }
        tokio::select! {
            answer = waiting => answer.unwrap_or(Err(RpcError::Exited)),
            () = tokio::time::sleep(timeout) => {
                self.forget(id);
                self.notify("$/cancelRequest", json!({"id": id}));
                Err(RpcError::Timeout(timeout.as_millis()))
            }
            () = cancel.cancelled() => {
                self.forget(id);
                self.notify("$/cancelRequest", json!({"id": id}));
                Err(RpcError::Cancelled)
            }
        }
    }

    fn forget(&self, id: i64) {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }

    /// Sends a notification (nothing comes back). A server that is gone drops it.
    pub fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.outgoing.send(frame(&message));
    }

    /// Waits until the server's output ends, at most `timeout`; whether it ended.
    pub async fn wait_exit(&self, timeout: Duration) -> bool {
        let mut exited = self.exited.clone();
        tokio::time::timeout(timeout, exited.wait_for(|ended| *ended)).await.is_ok_and(|ended| ended.is_ok())
    }

    /// Kills the process (if this connection started one) and waits for it.
    pub async fn kill(&self) {
        let child = self.child.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(mut child) = child {
            let _ = child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
        }
    }
}

/// One message as bytes on the wire: the header, then the JSON body.
fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

async fn write_loop<W: AsyncWrite + Unpin>(mut writer: W, mut queue: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(bytes) = queue.recv().await {
        if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
            break;
        }
    }
}

async fn read_loop<R: AsyncBufRead + Unpin>(
    mut reader: R,
    pending: Pending,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    inbound: Arc<dyn Inbound>,
    alive: Arc<AtomicBool>,
    exited: watch::Sender<bool>,
) {
    loop {
        let message = match read_message(&mut reader).await {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(error) => {
                tracing::debug!("language server sent a malformed message: {error}");
                break;
            }
        };
        let Ok(message) = serde_json::from_slice::<Value>(&message) else {
            tracing::debug!("language server sent a body that is not JSON");
            continue;
        };
        route(message, &pending, &outgoing, inbound.as_ref());
    }
    alive.store(false, Ordering::SeqCst);
    let waiting: Vec<_> = pending.lock().unwrap_or_else(PoisonError::into_inner).drain().collect();
    for (_, answer) in waiting {
        let _ = answer.send(Err(RpcError::Exited));
    }
    let _ = exited.send(true);
}

fn route(message: Value, pending: &Pending, outgoing: &mpsc::UnboundedSender<Vec<u8>>, inbound: &dyn Inbound) {
    let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = message.get("id").cloned().filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let reply = match inbound.request(&method, params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, text)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}}),
            };
            let _ = outgoing.send(frame(&reply));
        }
        (Some(method), None) => inbound.notification(&method, message.get("params").cloned().unwrap_or(Value::Null)),
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else { return };
            let Some(answer) = pending.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) else { return };
            let outcome = match message.get("error") {
                Some(error) => Err(RpcError::Server {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
                }),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = answer.send(outcome);
        }
        (None, None) => {}
    }
}

/// Reads one framed message body; `Ok(None)` at a clean end of input.
///
/// # Errors
/// A header without `Content-Length`, a length over [`MAX_MESSAGE_BYTES`], or input that ends
/// inside a message.
pub async fn read_message<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Option<Vec<u8>>> {
    let mut length = None;
    let mut line = String::new();
    let mut started = false;
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return if started { Err(std::io::ErrorKind::UnexpectedEof.into()) } else { Ok(None) };
        }
        started = true;
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let length = length.ok_or_else(|| std::io::Error::other("a message without Content-Length"))?;
    if length > MAX_MESSAGE_BYTES {
        return Err(std::io::Error::other(format!("a message of {length} bytes is over the limit")));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Quiet;
    impl Inbound for Quiet {
        fn notification(&self, _method: &str, _params: Value) {}
        fn request(&self, method: &str, _params: Value) -> Result<Value, (i64, String)> {
            Err((-32601, format!("no {method}")))
        }
    }

    #[tokio::test]
    async fn framing_reads_back_what_it_writes_and_rejects_bad_headers() {
        let mut bytes = frame(&json!({"a": "é"}));
        bytes.extend(frame(&json!([1, 2])));
        let mut reader = BufReader::new(&bytes[..]);
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap(), "{\"a\":\"é\"}".as_bytes().to_vec());
        assert_eq!(read_message(&mut reader).await.unwrap().unwrap(), b"[1,2]".to_vec());
        assert!(read_message(&mut reader).await.unwrap().is_none());
        let mut no_length = BufReader::new(&b"X-Other: 1\r\n\r\n{}"[..]);
        assert!(read_message(&mut no_length).await.is_err());
        let mut cut = BufReader::new(&b"Content-Length: 10\r\n\r\n{}"[..]);
        assert!(read_message(&mut cut).await.is_err());
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        assert!(read_message(&mut BufReader::new(huge.as_bytes())).await.is_err());
    }

    #[tokio::test]
    async fn a_request_gets_its_answer_and_fails_when_the_peer_goes_away() {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (our_read, our_write) = tokio::io::split(ours);
        let connection = Connection::over(our_read, our_write, Arc::new(Quiet));
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let peer = tokio::spawn(async move {
            let mut reader = BufReader::new(their_read);
            let request: Value = serde_json::from_slice(&read_message(&mut reader).await.unwrap().unwrap()).unwrap();
            assert_eq!(request["method"], "echo");
            // A server request first, then the answer.
            their_write.write_all(&frame(&json!({"jsonrpc": "2.0", "id": "s1", "method": "odd"}))).await.unwrap();
            let reply: Value = serde_json::from_slice(&read_message(&mut reader).await.unwrap().unwrap()).unwrap();
            assert_eq!(reply["error"]["code"], -32601);
            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": request["params"]});
            their_write.write_all(&frame(&answer)).await.unwrap();
            let second: Value = serde_json::from_slice(&read_message(&mut reader).await.unwrap().unwrap()).unwrap();
            assert_eq!(second["method"], "never");
        });
        let cancel = CancellationToken::new();
        let got = connection.request("echo", json!({"x": 1}), Duration::from_secs(5), &cancel).await;
        assert_eq!(got, Ok(json!({"x": 1})));
        let never = connection.request("never", json!({}), Duration::from_secs(5), &cancel).await;
        assert_eq!(never, Err(RpcError::Exited));
        peer.await.unwrap();
        assert!(connection.wait_exit(Duration::from_secs(1)).await);
        assert!(!connection.is_alive());
        assert_eq!(connection.request("late", json!({}), Duration::from_secs(1), &cancel).await, Err(RpcError::Exited));
    }
}
