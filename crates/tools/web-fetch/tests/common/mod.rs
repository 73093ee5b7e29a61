//! A small HTTP/1.1 server on 127.0.0.1 for the tests: handwritten responses (so redirects,
//! stalls and endless bodies are exactly what the cases describe), one request per connection,
//! every request recorded.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

pub use agent_tools_testkit::http::Request;
use agent_tools_testkit::http::read_request;

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
