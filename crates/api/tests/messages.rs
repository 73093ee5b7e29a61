//! The messages call against a real local HTTP server: the headers and body sent, a reply's
//! blocks, an error status with the API's message, an unreachable address, and the redacted
//! config.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_api::{ApiConfig, ApiError, Client, ClientOptions, ContentBlock, Credential, Message, MessagesRequest};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves one request with `status` and `reply`; returns the base URL and a handle yielding
/// the request's head (lowercased) and JSON body.
async fn serve_once(status: &'static str, reply: String) -> (String, tokio::task::JoinHandle<(String, Value)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let handle = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut raw = Vec::new();
        let mut buffer = [0u8; 4096];
        let (head, body) = loop {
            let read = socket.read(&mut buffer).await.unwrap();
            raw.extend_from_slice(&buffer[..read]);
            let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |n| n.trim().parse().unwrap());
            if raw.len() >= end + 4 + length {
                break (head, serde_json::from_slice(&raw[end + 4..end + 4 + length]).unwrap());
            }
        };
        let answer = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
            reply.len()
        );
        socket.write_all(answer.as_bytes()).await.unwrap();
        (head, body)
    });
    (base_url, handle)
}

fn client(base_url: String) -> Client {
    let config = ApiConfig { base_url, model: "claude-test".into(), ..ApiConfig::new("sk-test-key") };
    Client::new(config, &ClientOptions::new("agent-tools-test", Duration::from_secs(10))).unwrap()
}

#[tokio::test]
async fn a_call_sends_the_key_version_and_body_and_reads_the_blocks() {
    let reply = json!({"id": "msg_1", "stop_reason": "end_turn", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
        {"type": "text", "text": "Answer."}
    ]});
    let (base_url, served) = serve_once("200 OK", reply.to_string()).await;
    let client = client(base_url);
    let request = MessagesRequest::new("claude-test", 64, vec![Message::user("Hello")]);
    let answer = client.messages(&request).await.unwrap();
    assert_eq!(answer.first_text(), Some("Answer."));
    assert_eq!(answer.id.as_deref(), Some("msg_1"));
    assert!(matches!(&answer.content[0], ContentBlock::Other(block) if block["type"] == "server_tool_use"));
    let (head, body) = served.await.unwrap();
    assert!(head.starts_with("post /v1/messages http/1.1"), "{head}");
    assert!(head.contains("\r\nx-api-key: sk-test-key"), "{head}");
    assert!(head.contains("\r\nanthropic-version: 2023-06-01"), "{head}");
    assert!(head.contains("\r\nuser-agent: agent-tools-test"), "{head}");
    assert_eq!(
        body,
        json!({"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]})
    );
}

#[tokio::test]
async fn an_auth_token_goes_as_a_bearer() {
    let (base_url, served) = serve_once("200 OK", json!({"content": []}).to_string()).await;
    let config = ApiConfig { credential: Credential::AuthToken("tok-1".into()), base_url, ..ApiConfig::default() };
    let client = Client::new(config, &ClientOptions::new("t", Duration::from_secs(10))).unwrap();
    let answer = client.messages(&MessagesRequest::new("m", 1, vec![Message::user("x")])).await.unwrap();
    assert_eq!(answer.first_text(), None);
    let (head, _) = served.await.unwrap();
    assert!(head.contains("\r\nauthorization: bearer tok-1"), "{head}");
    assert!(!head.contains("x-api-key"), "{head}");
}

#[tokio::test]
async fn an_error_status_keeps_the_apis_message() {
    let reply = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "model not found"}});
    let (base_url, served) = serve_once("404 Not Found", reply.to_string()).await;
    let error = client(base_url.clone()).messages(&MessagesRequest::new("m", 1, vec![Message::user("x")])).await;
    let error = error.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("model not found"));
    let ApiError::Status { endpoint, status, body, .. } = &error else { panic!("{error:?}") };
    assert_eq!((endpoint.as_str(), status.as_u16()), (format!("{base_url}/v1/messages").as_str(), 404));
    assert_eq!(body, &reply.to_string());
    served.await.unwrap();
}

#[tokio::test]
async fn an_unreachable_api_is_a_send_error() {
    let error = client("http://127.0.0.1:9".into()).messages(&MessagesRequest::new("m", 1, vec![])).await.unwrap_err();
    assert!(matches!(error, ApiError::Send { .. }), "{error:?}");
    assert!(!error.is_timeout());
    assert!(error.to_string().starts_with("the model API at http://127.0.0.1:9/v1/messages could not be reached"));
}

#[test]
fn the_secret_is_never_printed() {
    let config = ApiConfig::new("sk-ant-secret");
    let printed = format!("{config:?}");
    assert!(!printed.contains("sk-ant-secret"), "{printed}");
    assert!(printed.contains("ApiKey(<redacted>)"), "{printed}");
    assert_eq!(format!("{:?}", Credential::AuthToken(String::new())), "AuthToken(<none>)");
}
