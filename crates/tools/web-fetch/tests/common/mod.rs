//! A small HTTP/1.1 server on 127.0.0.1 for the tests: handwritten responses (so redirects,
//! stalls and endless bodies are exactly what the cases describe), one request per connection,
//! every request recorded.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST` …
    pub method: String,
    /// The request target (`/docs/balance`).
    pub path: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body (by `Content-Length`).
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// What the server answers.
pub enum Reply {
    /// A whole response with `Content-Length`.
    Full { status: u16, reason: &'static str, headers: Vec<(String, String)>, body: Vec<u8> },
    /// Accept the request and never answer (the socket stays open).
    Stall,
    /// `200`, chunked, with chunks of `chunk` forever (until the client hangs up).
    Endless { content_type: &'static str, chunk: Vec<u8> },
}

impl Reply {
    /// `200 OK` with this content type and body.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Full {
            status: 200,
            reason: "OK",
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        let reason = match status {
            301 => "Moved Permanently",
            302 => "Found",
            303 => "See Other",
            307 => "Temporary Redirect",
            _ => "Permanent Redirect",
        };
        Self::Full { status, reason, headers: vec![("Location".into(), location.into())], body: Vec::new() }
    }

    /// `404 Not Found`.
    pub fn not_found() -> Self {
        Self::Full {
            status: 404,
            reason: "Not Found",
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: b"not found".to_vec(),
        }
    }
}

/// A running server.
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// How many requests asked for `path`.
    pub fn count(&self, path: &str) -> usize {
        self.requests.lock().unwrap().iter().filter(|request| request.path == path).count()
    }
}

/// Starts a server answering with `handler(request, port)`.
pub async fn serve<F>(handler: F) -> Server
where
    F: Fn(&Request, u16) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let handler = Arc::new(handler);
    let seen = requests.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let handler = handler.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                let _ = answer(stream, port, handler.as_ref(), &seen).await;
            });
        }
    });
    Server { port, requests }
}

async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(pos) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Ok(Some(Request { method, path, headers, body }))
}

async fn answer(
    mut stream: TcpStream,
    port: u16,
    handler: &(dyn Fn(&Request, u16) -> Reply + Send + Sync),
    seen: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else { return Ok(()) };
    seen.lock().unwrap().push(request.clone());
    match handler(&request, port) {
        Reply::Full { status, reason, headers, body } => {
            let mut head =
                format!("HTTP/1.1 {status} {reason}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(&body).await?;
            stream.shutdown().await
        }
        Reply::Stall => {
            // tidy:allow-sleep a stalling server is what Reply::Stall is for.
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(())
        }
        Reply::Endless { content_type, chunk } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n");
            stream.write_all(head.as_bytes()).await?;
            let framed = [format!("{:x}\r\n", chunk.len()).into_bytes(), chunk, b"\r\n".to_vec()].concat();
            loop {
                stream.write_all(&framed).await?;
            }
        }
    }
}
