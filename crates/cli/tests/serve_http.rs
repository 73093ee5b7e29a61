//! `agent-tools serve --http` as a child process, spoken to over plain HTTP/1.1: the bearer
//! token, the Host check, the resource metadata, a session per MCP session (a Read in one never
//! satisfies read-before-write in another), and DELETE ending a session.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

struct Server {
    child: Child,
    port: u16,
    token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path, args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .current_dir(dir)
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["serve", "--http", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let serving = lines.next().unwrap().unwrap();
    let port = serving.rsplit(':').next().unwrap().trim_end_matches("/mcp").parse().unwrap();
    let token = lines.next().unwrap().unwrap().rsplit(' ').next().unwrap().to_owned();
    assert!(serving.starts_with("agent-tools: serving MCP at http://127.0.0.1:"), "{serving}");
    // Keep reading its stderr, so its later log lines never meet a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, port, token }
}

/// One HTTP/1.1 exchange: the status, the headers (names lowercased) and the body.
fn exchange(port: u16, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut request = format!("{method} /mcp HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut head = head.lines();
    let status = head.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = head
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

/// The JSON-RPC message with `id` in a body (plain JSON or SSE, chunked or not).
fn message_with_id(body: &str, id: u64) -> Value {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:").map(str::trim).or(Some(line.trim())))
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .find(|message| message["id"] == id)
        .unwrap_or_else(|| panic!("no message {id} in {body}"))
}

struct Client<'a> {
    server: &'a Server,
    session: String,
    next: u64,
}

impl<'a> Client<'a> {
    fn connect(server: &'a Server) -> Self {
        let auth = format!("Bearer {}", server.token);
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        let (status, headers, body) = exchange(
            server.port,
            "POST",
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ],
            &init.to_string(),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(message_with_id(&body, 1)["result"]["serverInfo"]["name"], "agent-tools");
        let session = header(&headers, "mcp-session-id").unwrap().to_owned();
        let client = Self { server, session, next: 2 };
        let (status, _, _) = client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(status, 202);
        client
    }

    fn send(&self, message: &Value) -> (u16, Vec<(String, String)>, String) {
        let auth = format!("Bearer {}", self.server.token);
        exchange(
            self.server.port,
            "POST",
            &[
                ("Authorization", &auth),
                ("Mcp-Session-Id", &self.session),
                ("Mcp-Protocol-Version", "2025-11-25"),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ],
            &message.to_string(),
        )
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let (status, _, body) = self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        assert_eq!(status, 200, "{body}");
        message_with_id(&body, id)
    }

    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        (result["isError"] == true, result["content"][0]["text"].as_str().unwrap_or_default().to_owned())
    }
}

#[test]
fn serve_http_needs_the_token_checks_the_host_and_keeps_sessions_apart() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    std::fs::write(project.join("a.txt"), "hello\n").unwrap();
    let server = start(&project, &["--permission-mode", "acceptEdits"]);

    // No token: 401, with where to learn how to authenticate.
    let (status, headers, _) = exchange(server.port, "POST", &[("Content-Type", "application/json")], "{}");
    assert_eq!(status, 401);
    let challenge = header(&headers, "www-authenticate").unwrap();
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"http://127.0.0.1:{}/.well-known/oauth-protected-resource\"", server.port)
    );
    let wrong = exchange(server.port, "POST", &[("Authorization", "Bearer not-the-token")], "{}");
    assert_eq!(wrong.0, 401);
    // A Host a rebinding page would send is refused even with the token.
    let auth = format!("Bearer {}", server.token);
    let rebinding = exchange(
        server.port,
        "POST",
        &[("Host", "evil.example"), ("Authorization", &auth), ("Content-Type", "application/json")],
        "{}",
    );
    assert_eq!(rebinding.0, 403);

    let mut first = Client::connect(&server);
    let mut second = Client::connect(&server);
    assert_ne!(first.session, second.session);
    let tools = first.request("tools/list", json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"Read") && names.contains(&"Write"), "{names:?}");
    assert!(!names.contains(&"Agent"), "no agent loop behind serve: {names:?}");

    let path = project.join("a.txt").display().to_string();
    let (error, text) = first.call("Read", json!({"file_path": path}));
    assert!(!error && text.contains("hello"), "{text}");
    // The second session never read the file: its write is refused.
    let (error, text) = second.call("Write", json!({"file_path": path, "content": "from the second\n"}));
    assert!(error && text.contains("has not been read yet"), "{text}");
    let (error, text) = first.call("Write", json!({"file_path": path, "content": "from the first\n"}));
    assert!(!error, "{text}");
    assert_eq!(std::fs::read_to_string(project.join("a.txt")).unwrap(), "from the first\n");

    // DELETE ends a session; its id is then unknown.
    let (status, _, _) =
        exchange(server.port, "DELETE", &[("Authorization", &auth), ("Mcp-Session-Id", &second.session)], "");
    assert_eq!(status, 204);
    let (status, _, _) = second.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}));
    assert_eq!(status, 404);
}

#[test]
fn over_http_the_default_mode_asks_so_a_client_without_elicitation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let server = start(&project, &[]);
    let mut client = Client::connect(&server);
    let path = project.join("new.txt").display().to_string();
    let (error, text) = client.call("Write", json!({"file_path": path, "content": "x\n"}));
    assert!(error && text.contains("no one could be asked"), "{text}");
    assert!(!project.join("new.txt").exists());
}

#[test]
fn no_auth_is_refused_off_loopback_and_needs_no_token_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .current_dir(dir.path())
        .env("HOME", dir.path().join(".home"))
        .args(["serve", "--http", "0.0.0.0:0", "--no-auth"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--no-auth is only allowed on a loopback address"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .current_dir(dir.path())
        .env("HOME", dir.path().join(".home"))
        .args(["serve", "--http", "0", "--no-auth"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let serving = lines.next().unwrap().unwrap();
    let port: u16 = serving.rsplit(':').next().unwrap().trim_end_matches("/mcp").parse().unwrap();
    std::thread::spawn(move || lines.for_each(drop));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _, body) = exchange(
        port,
        "POST",
        &[("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")],
        &initialize.to_string(),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("agent-tools"), "{body}");
}

#[test]
fn behind_a_proxy_its_name_and_origin_are_allowed_and_the_metadata_says_https() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &["--allow-host", "tools.example.com"]);
    let (port, token) = (server.port, server.token.clone());
    let auth = format!("Bearer {token}");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let through_proxy = [
        ("Host", "tools.example.com"),
        ("Origin", "https://tools.example.com"),
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let (status, _, body) = exchange(port, "POST", &through_proxy, &initialize);
    assert_eq!(status, 200, "{body}");
    // Another origin is still refused, and so is another Host, even before the token is checked.
    let mut foreign = through_proxy;
    foreign[1] = ("Origin", "https://evil.example");
    assert_eq!(exchange(port, "POST", &foreign, &initialize).0, 403);
    let (status, headers, _) = exchange(port, "POST", &[("Host", "evil.example")], "{}");
    assert_eq!(status, 403);
    assert!(header(&headers, "www-authenticate").is_none(), "nothing is built from a foreign Host");
    // The metadata names the public https URL when the proxy says TLS.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: tools.example.com\r\nX-Forwarded-Proto: https\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    assert!(raw.contains(r#""resource":"https://tools.example.com/mcp""#), "{raw}");
}
