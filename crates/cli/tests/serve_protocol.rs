//! `agent-tools serve` spoken to line by line over stdio, as a raw JSON-RPC peer: lines it
//! cannot parse, JSON that is not a message, `tools/call` params that do not fit, and questions
//! to the client's user under both protocol eras (2025-11-25 with `initialize`, 2026-07-28 with
//! per-request capabilities and multi round-trip results).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// How long a reply may take (a Bash call on a loaded machine included).
const REPLY_WITHIN: Duration = Duration::from_secs(60);

/// The server as a child process: what is written to its stdin, each line of its stdout as JSON,
/// and its stderr once it has exited.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    /// Starts `agent-tools --cwd <cwd> <args…> serve` in a clean environment.
    fn start(cwd: &Path, args: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
        command.env("HOME", cwd.join(".home")).env("XDG_STATE_HOME", cwd.join(".state"));
        command.env("XDG_CONFIG_HOME", cwd.join(".home/.config")).env_remove("CLAUDE_CONFIG_DIR");
        command.env_remove("AGENT_TOOLS_LOG").env_remove("ANTHROPIC_API_KEY").env_remove("ANTHROPIC_BASE_URL");
        command.arg("--cwd").arg(cwd).args(args).arg("serve");
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take();
        Self { child, stdin, lines, stderr: Some(stderr) }
    }

    /// Writes `bytes` and a newline.
    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    fn send_json(&mut self, message: &Value) {
        self.send(&message.to_string());
    }

    /// The next line the server writes, which must be JSON.
    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(REPLY_WITHIN).expect("the server answers");
        serde_json::from_str(&line)
            .unwrap_or_else(|err| panic!("the server wrote a line that is not JSON ({err}): {line}"))
    }

    /// Sends a request and returns the server's answer to it.
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.next();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// A 2025-11-25 handshake, with or without the elicitation capability.
    fn initialize(&mut self, elicitation: bool) {
        let capabilities = if elicitation { json!({"elicitation": {"form": {}}}) } else { json!({}) };
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                            "clientInfo": {"name": "raw-peer", "version": "1"}});
        let reply = self.request(0, "initialize", params);
        assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes stdin, waits for the server to exit, and returns what it logged.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the server exits cleanly when its client leaves: {status}");
        self.stderr.take().unwrap().join().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `_meta` of a 2026-07-28 request: its protocol version, the client, and its capabilities.
fn meta_2026(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw-peer", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A `tools/call` request's params under 2026-07-28.
fn call_2026(tool: &str, arguments: Value, capabilities: Value) -> Value {
    json!({"name": tool, "arguments": arguments, "_meta": meta_2026(capabilities)})
}

/// The text parts of a `tools/call` result, joined.
fn text(reply: &Value) -> String {
    let content = reply["result"]["content"].as_array().unwrap_or_else(|| panic!("a tool result: {reply}"));
    content.iter().filter_map(|part| part["text"].as_str()).collect::<Vec<_>>().join("\n")
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

const PING: &str = r#"{"jsonrpc":"2.0","id":"alive","method":"ping"}"#;

/// The server is still there and answering, in order.
fn assert_alive(server: &mut Server) {
    server.send(PING);
    assert_eq!(server.next(), json!({"jsonrpc": "2.0", "id": "alive", "result": {}}));
}

#[test]
fn lines_that_are_not_json_get_a_parse_error_with_a_null_id_and_a_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(false);

    // Nesting 129 deep: serde_json stops at the 128th level.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(127),
        "]".repeat(127)
    );
    server.send(&deep);
    assert_eq!(server.next(), error(Value::Null, -32700, "Parse error: recursion limit exceeded at line 1 column 180"));
    // 127 levels are read.
    let deep_enough = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(125),
        "]".repeat(125)
    );
    server.send(&deep_enough);
    assert_eq!(server.next(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));

    let cases: [(&[u8], &str); 5] = [
        (
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"s":"\ud800"}}"#,
            "Parse error: unexpected end of hex escape at line 1 column 62",
        ),
        (
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"n":1e999}}"#,
            "Parse error: number out of range at line 1 column 59",
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"s\":\"\xFF\"}}",
            "Parse error: invalid unicode code point at line 1 column 56",
        ),
        (br#"{"jsonrpc":"2.0","id":6,"method":"ping"} {"#, "Parse error: trailing characters at line 1 column 42"),
        (br#"{"jsonrpc":"2.0","id":7,"#, "Parse error: EOF while parsing a value at line 1 column 24"),
    ];
    for (line, message) in cases {
        server.send_bytes(line);
        assert_eq!(server.next(), error(Value::Null, -32700, message), "{}", String::from_utf8_lossy(line));
    }
    assert_alive(&mut server);

    let log = server.finish();
    for logged in [
        "answered a line that is not JSON with a parse error (recursion limit exceeded at line 1 column 180): ",
        "answered a line that is not JSON with a parse error (unexpected end of hex escape at line 1 column 62): ",
        "answered a line that is not JSON with a parse error (number out of range at line 1 column 59): ",
        "answered a line that is not JSON with a parse error (invalid unicode code point at line 1 column 56): ",
    ] {
        assert!(log.contains(logged), "{logged:?} in {log}");
    }
    assert_eq!(log.lines().filter(|line| line.contains(" WARN ")).count(), 6, "one log line per bad line: {log}");
}

#[test]
fn json_that_is_not_a_message_gets_invalid_request_with_its_id_when_it_has_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(false);
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":5,"method":42}"#,
            json!(5),
            -32600,
            "Invalid Request: \"method\" must be a string, got a number",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":null}"#,
            json!("x"),
            -32600,
            "Invalid Request: \"method\" must be a string, got null",
        ),
        (
            r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#,
            json!(6),
            -32600,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ),
        (r#"{"id":7,"method":"ping"}"#, json!(7), -32600, "Invalid Request: \"jsonrpc\" must be \"2.0\""),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
            -32600,
            "Invalid Request: \"id\" must be a string or an integer",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            Value::Null,
            -32600,
            "Invalid Request: \"id\" must be a string or an integer",
        ),
        (
            r#"{"jsonrpc":"2.0","id":8}"#,
            json!(8),
            -32600,
            "Invalid Request: a message needs \"method\" (a request or a notification) or \"result\" or \"error\" (a response)",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":9,"method":"ping"}]"#,
            Value::Null,
            -32600,
            "Invalid Request: batches (arrays of messages) are not supported; send one message per line",
        ),
        (r#""ping""#, Value::Null, -32600, "Invalid Request: a message must be a JSON object, got a string"),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"x/custom","params":"p"}"#,
            json!(10),
            -32600,
            "Invalid Request: \"params\" must be an object or an array, got a string",
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[]}"#,
            json!(11),
            -32602,
            "Invalid params for tools/list: params must be an object, got an array",
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{}}"#,
            json!(12),
            -32602,
            "Invalid params for resources/read: missing field `uri`",
        ),
    ];
    for (line, id, code, message) in cases {
        server.send(line);
        assert_eq!(server.next(), error(id, code, message), "{line}");
    }
    // An unknown method is still "method not found", and the connection stays open.
    let unknown = server.request(13, "x/custom", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    // A line over 16 MiB is answered without being read, and the next line is read whole.
    let mut huge = br#"{"jsonrpc":"2.0","id":14,"method":"ping","params":{"pad":""#.to_vec();
    huge.resize(16 * 1024 * 1024 + 10, b'a');
    huge.extend_from_slice(br#""}}"#);
    server.send_bytes(&huge);
    assert_eq!(
        server.next(),
        error(
            Value::Null,
            -32600,
            "Invalid Request: a message may be at most 16777216 bytes long; this one was skipped"
        )
    );
    assert_alive(&mut server);
    let log = server.finish();
    assert!(
        log.contains(r#"answered a message the server cannot read with {"code":-32600,"message":"Invalid Request: \"method\" must be a string, got a number"}: {"jsonrpc":"2.0","id":5,"method":42}"#),
        "{log}"
    );
    assert!(log.contains("answered a line longer than 16777216 bytes with -32600 and skipped it"), "{log}");
}

#[test]
fn tools_call_params_that_do_not_fit_are_invalid_params_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    let arguments = "Invalid params: \"arguments\" must be an object (the tool's input), got";
    let cases = [
        (json!({"name": "Read", "arguments": "notes.txt"}), format!("{arguments} a string")),
        (json!({"name": "Read", "arguments": 42}), format!("{arguments} a number")),
        (json!({"name": "Read", "arguments": ["notes.txt"]}), format!("{arguments} an array")),
        (json!({"name": "Read", "arguments": true}), format!("{arguments} a boolean")),
        (
            json!({"arguments": {"file_path": "notes.txt"}}),
            "Invalid params: tools/call needs \"name\", the tool to call".to_owned(),
        ),
        (
            json!({"name": 7, "arguments": {}}),
            "Invalid params: \"name\" must be a string (the tool to call), got a number".to_owned(),
        ),
        (
            json!("Read"),
            "Invalid params: tools/call's params must be an object with \"name\" and \"arguments\", got a string"
                .to_owned(),
        ),
    ];
    let missing_file_path = "<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>";

    // 2025-11-25, after initialize.
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(false);
    for (index, (params, message)) in cases.iter().enumerate() {
        let id = i64::try_from(index).unwrap() + 1;
        assert_eq!(server.request(id, "tools/call", params.clone()), error(json!(id), -32602, message), "{params}");
    }
    let no_params = server.request(20, "tools/call", Value::Null);
    assert_eq!(
        no_params,
        error(json!(20), -32602, "Invalid params: tools/call needs params with \"name\", the tool to call")
    );
    // `null` and absent arguments are no arguments: the tool itself says what is missing.
    for (id, params) in [(21, json!({"name": "Read", "arguments": null})), (22, json!({"name": "Read"}))] {
        let reply = server.request(id, "tools/call", params);
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert_eq!(text(&reply), missing_file_path);
    }
    let read = server.request(23, "tools/call", json!({"name": "Read", "arguments": {"file_path": "notes.txt"}}));
    assert_eq!(text(&read), "1\talpha\n2\t");
    server.finish();

    // 2026-07-28: no initialize, the same answers.
    let mut server = Server::start(dir.path(), &[]);
    for (index, (params, message)) in cases.iter().enumerate() {
        let id = i64::try_from(index).unwrap() + 1;
        let mut params = params.clone();
        if let Some(params) = params.as_object_mut() {
            params.insert("_meta".to_owned(), meta_2026(json!({})));
        }
        assert_eq!(server.request(id, "tools/call", params.clone()), error(json!(id), -32602, message), "{params}");
    }
    let reply = server.request(21, "tools/call", call_2026("Read", Value::Null, json!({})));
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(text(&reply), missing_file_path);
    server.finish();
}

#[test]
fn notifications_and_responses_before_initialize_are_logged_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#);
    server.initialize(false);
    assert_alive(&mut server);
    // After it, a notification rmcp cannot read is not answered (JSON-RPC forbids it) but logged.
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"half"}}"#);
    assert_alive(&mut server);
    let log = server.finish();
    for logged in [
        r#"ignored a notification sent before initialize: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"ignored a response sent before initialize: {"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"ignored a notification the server cannot read (unrecognized JSON-RPC message): {"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
        r#"ignored a notification whose params do not fit notifications/progress: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"half"}}"#,
    ] {
        assert!(log.contains(logged), "{logged:?} in {log}");
    }
}

fn questions() -> Value {
    json!({"questions": [{"question": "Which database?", "header": "Database", "options": [
        {"label": "Postgres", "description": "The server we run"},
        {"label": "SQLite", "description": "A file, no server"}]}]})
}

const ANSWERED: &str = "User has answered your questions: \"Which database?\"=\"SQLite\". \
                        You can now continue with the user's answers in mind.";

const DENIED_WITH_REASON: &str = "The user declined this tool use, so it did not run (a file edit, for example, was not \
     written). Stop and wait for the user to say how to go on. The user said: use docs/ instead";

const NO_FORMS: &str = "Permission to use Bash has been denied: this call needs approval and no one could be asked \
     (this MCP client cannot show permission questions; the server's --permission-mode or --allowed-tools rules must \
     allow such calls).";

/// What the refusal of `touch <file>` in `dir` says after the reason nobody could be asked.
fn needs_approval(dir: &Path, file: &str) -> String {
    format!(" The command `touch {file}` would write to {}/{file}, which needs approval before it runs.", dir.display())
}

/// Checks that `params` is the permission form for `touch <file>`.
fn assert_bash_question(params: &Value, file: &str) {
    assert_eq!(params["mode"], "form", "{params}");
    let message = params["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("Bash wants to run: touch {file}\nInput: ")), "{message}");
    assert!(message.contains(&format!(r#""command":"touch {file}""#)), "{message}");
    assert_eq!(params["requestedSchema"]["required"], json!(["decision"]), "{params}");
}

#[test]
fn under_2025_11_25_questions_are_elicitation_requests_when_initialize_declared_elicitation() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--permission-mode", "default"]);
    server.initialize(true);

    // Allowed once: the question comes as a request of the server's, its answer runs the call.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "Bash", "arguments": {"command": "touch x"}}}));
    let ask = server.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_bash_question(&ask["params"], "x");
    assert!(!dir.path().join("x").exists(), "nothing runs before the answer");
    server.send_json(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"decision": "allow_once"}}}));
    let done = server.next();
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(text(&done), "(Bash completed with no output)");
    assert!(dir.path().join("x").exists());

    // Denied with a reason: nothing runs and the model reads the reason.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "Bash", "arguments": {"command": "touch y"}}}));
    let ask = server.next();
    assert_bash_question(&ask["params"], "y");
    server.send_json(&json!({"jsonrpc": "2.0", "id": ask["id"],
                             "result": {"action": "accept", "content": {"decision": "deny", "reason": "use docs/ instead"}}}));
    let denied = server.next();
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    assert_eq!(text(&denied), DENIED_WITH_REASON);
    assert!(!dir.path().join("y").exists());

    // AskUserQuestion: one form, the answers reach the model.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                             "params": {"name": "AskUserQuestion", "arguments": questions()}}));
    let ask = server.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(ask["params"]["message"].as_str().unwrap().contains("1. [Database] Which database?"), "{ask}");
    server.send_json(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"q1": "SQLite"}}}),
    );
    let answered = server.next();
    assert_eq!(text(&answered), ANSWERED);
    assert_eq!(answered["result"]["structuredContent"]["answers"], json!({"Which database?": "SQLite"}));

    // An answer the server cannot read fails the question instead of leaving the call waiting.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                             "params": {"name": "Bash", "arguments": {"command": "touch z"}}}));
    let ask = server.next();
    server.send_json(&json!({"jsonrpc": "2.0", "id": ask["id"], "error": "no"}));
    let failed = server.next();
    assert_eq!(failed["id"], 4, "{failed}");
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    assert!(
        text(&failed).starts_with(
            "Permission to use Bash has been denied: this call needs approval and no one could be asked (the MCP \
             client did not show the permission question: Mcp error: -32603: the client's response could not be read: "
        ),
        "{}",
        text(&failed)
    );
    assert!(!dir.path().join("z").exists());
    server.finish();

    // A client that declared no elicitation is not asked.
    let mut server = Server::start(dir.path(), &["--permission-mode", "default"]);
    server.initialize(false);
    let refused = server.request(1, "tools/call", json!({"name": "Bash", "arguments": {"command": "touch w"}}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(text(&refused), format!("{NO_FORMS}{}", needs_approval(dir.path(), "w")));
    assert!(!dir.path().join("w").exists());
    server.finish();
}

#[test]
fn under_2026_07_28_questions_are_input_required_results_when_the_request_declares_elicitation() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--permission-mode", "default"]);
    let forms = json!({"elicitation": {"form": {}, "url": {}}});

    // The question ends the request; the call waits for the retry that brings the answer.
    let asked = server.request(1, "tools/call", call_2026("Bash", json!({"command": "touch x"}), forms.clone()));
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let first = result["requestState"].as_str().unwrap().to_owned();
    // Numbered, and unguessable: a state names one question, and only its holder can answer it.
    assert!(first.starts_with("agent-tools-question-1-") && first.len() >= 40, "{asked}");
    assert_eq!(result["inputRequests"].as_object().unwrap().len(), 1, "{asked}");
    assert_eq!(result["inputRequests"]["answer"]["method"], "elicitation/create", "{asked}");
    assert_bash_question(&result["inputRequests"]["answer"]["params"], "x");
    assert!(!dir.path().join("x").exists(), "nothing runs before the answer");

    let mut retry = call_2026("Bash", json!({"command": "touch x"}), forms.clone());
    retry["requestState"] = json!(first);
    retry["inputResponses"] = json!({"answer": {"action": "accept", "content": {"decision": "allow_once"}}});
    let done = server.request(2, "tools/call", retry.clone());
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(text(&done), "(Bash completed with no output)");
    assert!(dir.path().join("x").exists());

    // The same requestState again: that question is answered already.
    assert_eq!(
        server.request(3, "tools/call", retry),
        error(
            json!(3),
            -32602,
            &format!(
                "Invalid params: requestState {first:?} names no question this server is waiting on \
                 (answered already, never asked, or given up on)"
            )
        )
    );

    // Denied with a reason, after a retry for another tool was refused.
    let asked = server.request(4, "tools/call", call_2026("Bash", json!({"command": "touch y"}), forms.clone()));
    let second = asked["result"]["requestState"].as_str().unwrap().to_owned();
    assert!(second.starts_with("agent-tools-question-2-"), "{asked}");
    let mut wrong = call_2026("Read", json!({"file_path": "x"}), forms.clone());
    wrong["requestState"] = json!(second);
    wrong["inputResponses"] = json!({"answer": {"action": "accept", "content": {"decision": "allow_once"}}});
    assert_eq!(
        server.request(5, "tools/call", wrong),
        error(
            json!(5),
            -32602,
            &format!("Invalid params: requestState {second:?} belongs to a call of Bash, not of Read")
        )
    );
    let mut retry = call_2026("Bash", json!({"command": "touch y"}), forms.clone());
    retry["requestState"] = json!(second);
    retry["inputResponses"] =
        json!({"answer": {"action": "accept", "content": {"decision": "deny", "reason": "use docs/ instead"}}});
    let denied = server.request(6, "tools/call", retry);
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    assert_eq!(text(&denied), DENIED_WITH_REASON);
    assert!(!dir.path().join("y").exists());

    // A retry without the answer: the question counts as not shown.
    let asked = server.request(7, "tools/call", call_2026("Bash", json!({"command": "touch z"}), forms.clone()));
    let mut retry = call_2026("Bash", json!({"command": "touch z"}), forms.clone());
    retry["requestState"] = asked["result"]["requestState"].clone();
    let unanswered = server.request(8, "tools/call", retry);
    assert_eq!(
        text(&unanswered),
        format!(
            "Permission to use Bash has been denied: this call needs approval and no one could be asked (the MCP client \
             did not show the permission question: it sent no inputResponses[\"answer\"]).{}",
            needs_approval(dir.path(), "z")
        )
    );

    // AskUserQuestion: one form, the answers reach the model.
    let asked = server.request(9, "tools/call", call_2026("AskUserQuestion", questions(), forms.clone()));
    let form = &asked["result"]["inputRequests"]["answer"]["params"];
    assert!(form["message"].as_str().unwrap().contains("1. [Database] Which database?"), "{asked}");
    assert_eq!(form["requestedSchema"]["properties"]["q1"]["oneOf"][1]["const"], "SQLite", "{asked}");
    let mut retry = call_2026("AskUserQuestion", questions(), forms);
    retry["requestState"] = asked["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"answer": {"action": "accept", "content": {"q1": "SQLite"}}});
    let answered = server.request(10, "tools/call", retry);
    assert_eq!(text(&answered), ANSWERED);
    assert_eq!(answered["result"]["structuredContent"]["answers"], json!({"Which database?": "SQLite"}));

    // A request that declares no elicitation is not asked, whatever earlier requests declared.
    let refused = server.request(11, "tools/call", call_2026("Bash", json!({"command": "touch w"}), json!({})));
    assert_eq!(refused["result"]["resultType"], "complete", "{refused}");
    assert_eq!(text(&refused), format!("{NO_FORMS}{}", needs_approval(dir.path(), "w")));
    // Nor is one that can only open URLs.
    let refused = server.request(
        12,
        "tools/call",
        call_2026("Bash", json!({"command": "touch w"}), json!({"elicitation": {"url": {}}})),
    );
    assert_eq!(text(&refused), format!("{NO_FORMS}{}", needs_approval(dir.path(), "w")));
    assert!(!dir.path().join("w").exists());
    server.finish();
}

#[test]
fn exit_plan_mode_asks_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let forms = json!({"elicitation": {"form": {}}});
    let approved = |reply: &Value| {
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        assert_eq!(text(reply), "The user approved leaving plan mode. You can go ahead now.");
    };

    // 2026-07-28 (the server's default mode, bypassPermissions: the plan is still the user's to approve).
    let mut server = Server::start(dir.path(), &[]);
    let entered = server.request(1, "tools/call", call_2026("EnterPlanMode", json!({}), forms.clone()));
    assert_eq!(entered["result"]["isError"], false, "{entered}");
    let asked = server.request(2, "tools/call", call_2026("ExitPlanMode", json!({}), forms.clone()));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let message = asked["result"]["inputRequests"]["answer"]["params"]["message"].as_str().unwrap().to_owned();
    assert!(message.starts_with("ExitPlanMode wants to run:"), "{message}");
    let mut retry = call_2026("ExitPlanMode", json!({}), forms);
    retry["requestState"] = asked["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"answer": {"action": "accept", "content": {"decision": "allow_once"}}});
    approved(&server.request(3, "tools/call", retry));
    server.finish();

    // 2025-11-25.
    let mut server = Server::start(dir.path(), &[]);
    server.initialize(true);
    let entered = server.request(1, "tools/call", json!({"name": "EnterPlanMode", "arguments": {}}));
    assert_eq!(entered["result"]["isError"], false, "{entered}");
    server.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ExitPlanMode", "arguments": {}}}));
    let ask = server.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(ask["params"]["message"].as_str().unwrap().starts_with("ExitPlanMode wants to run:"), "{ask}");
    server.send_json(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"decision": "allow_once"}}}));
    let done = server.next();
    assert_eq!(done["id"], 2, "{done}");
    approved(&done);
    server.finish();
}

#[test]
fn under_2026_07_28_cancelling_the_request_stops_the_call_it_drives() {
    let dir = tempfile::tempdir().unwrap();
    let forms = json!({"elicitation": {"form": {}}});
    // bypassPermissions (the server's default): the call runs without a question.
    let mut server = Server::start(dir.path(), &[]);
    server.send_json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": call_2026("Bash", json!({"command": "touch started && sleep 60 && touch late"}), forms.clone())}));
    // The cancel comes once the command runs.
    let started = dir.path().join("started");
    assert!(
        agent_tools_testkit::eventually_blocking(Duration::from_secs(20), || started.exists()),
        "the call never ran"
    );
    server.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 1, "reason": "the user pressed Esc"}}));
    // The next call takes the session at once: the sleep was stopped.
    let started = std::time::Instant::now();
    let next =
        server.request(2, "tools/call", call_2026("Bash", json!({"command": "touch after && echo after"}), forms));
    assert_eq!(text(&next), "after");
    assert!(!dir.path().join("late").exists());
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the cancelled call held the session: {:?}",
        started.elapsed()
    );
    server.finish();
}
