//! `agent-tools agent`, run as a child process against the scripted fake Messages API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use agent_tools_testkit::fake_api::FakeApi;
use serde_json::{Value, json};

/// The program with a clean environment (no user settings, state in the test folder) and the
/// fake API as its model.
fn command(cwd: &Path, api: &FakeApi) -> Command {
    common::agent_command(cwd, &api.base_url())
}

fn run(cwd: &Path, api: &FakeApi, args: &[&str]) -> Output {
    command(cwd, api).arg("agent").args(args).output().unwrap()
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    dir
}

fn read_turn(dir: &Path) -> Vec<Vec<Value>> {
    let path = dir.canonicalize().unwrap().join("notes.txt");
    vec![vec![json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": path}})]]
}

#[test]
fn stream_json_prints_init_the_tool_call_its_result_and_the_result_line() {
    let dir = project();
    let api = FakeApi::scripted(read_turn(dir.path()), "The file has two lines.");
    let output = run(dir.path(), &api, &["-p", "Read notes.txt", "--output-format", "stream-json", "--verbose"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = lines(&output);
    let kinds: Vec<(&str, &str)> =
        lines.iter().map(|line| (line["type"].as_str().unwrap(), line["subtype"].as_str().unwrap_or(""))).collect();
    assert_eq!(kinds, [("system", "init"), ("assistant", ""), ("user", ""), ("assistant", ""), ("result", "success")]);
    let init = &lines[0];
    let session_id = init["session_id"].as_str().unwrap();
    assert!(init["tools"].as_array().unwrap().contains(&json!("Read")), "{init}");
    assert_eq!(init["cwd"], json!(dir.path().canonicalize().unwrap()));
    let tool_use = &lines[1]["message"]["content"][0];
    assert_eq!((tool_use["type"].as_str(), tool_use["name"].as_str()), (Some("tool_use"), Some("Read")));
    let result = &lines[2]["message"]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_1");
    let content = result["content"].as_str().map(str::to_owned).unwrap_or_else(|| result["content"].to_string());
    assert!(content.contains("alpha") && content.contains("beta"), "{result}");
    assert_eq!(lines[3]["message"]["content"][0]["text"], "The file has two lines.");
    let end = &lines[4];
    assert_eq!(end["is_error"], false);
    assert_eq!(end["num_turns"], 2);
    assert_eq!(end["result"], "The file has two lines.");
    assert_eq!(end["session_id"], session_id);
    // Both requests went to the fake, the second with the file's content in its tool_result.
    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("x-api-key"), Some("dummy"));
    assert!(requests[1].body["messages"].to_string().contains("alpha"));
}

#[test]
fn json_and_text_output_and_partial_messages() {
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "Hello there.");
    let output = run(dir.path(), &api, &["-p", "hi", "--output-format", "json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json = lines(&output);
    assert_eq!(json.len(), 1);
    assert_eq!(json[0]["type"], "result");
    assert_eq!(json[0]["subtype"], "success");
    assert_eq!(json[0]["result"], "Hello there.");
    assert_eq!(json[0]["num_turns"], 1);

    let text = run(dir.path(), &api, &["-p", "hi"]);
    assert!(text.status.success());
    assert_eq!(String::from_utf8_lossy(&text.stdout), "Hello there.\n");

    // The prompt from stdin; the raw stream events with --include-partial-messages.
    let mut child = command(dir.path(), &api)
        .args(["agent", "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"from stdin").unwrap();
    let streamed = child.wait_with_output().unwrap();
    assert!(streamed.status.success());
    let lines = lines(&streamed);
    let events: Vec<&str> = lines
        .iter()
        .filter(|line| line["type"] == "stream_event")
        .map(|line| line["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(events.first(), Some(&"message_start"));
    assert_eq!(events.last(), Some(&"message_stop"));
    let text: String =
        lines.iter().filter_map(|line| line.pointer("/event/delta/text").and_then(Value::as_str)).collect();
    assert_eq!(text, "Hello there.");
    let last_request = api.requests().pop().unwrap();
    assert!(last_request.body["messages"].to_string().contains("from stdin"));
}

#[test]
fn max_turns_ends_with_error_max_turns_and_exit_1() {
    let dir = project();
    let api = FakeApi::scripted(read_turn(dir.path()), "never reached");
    let output = run(dir.path(), &api, &["-p", "go", "--output-format", "json", "--max-turns", "1"]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let result = &lines(&output)[0];
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["num_turns"], 1);
    let text = run(dir.path(), &api, &["-p", "go", "--max-turns", "1"]);
    assert_eq!(text.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&text.stdout), "Error: Reached max turns (1)\n");
}

#[test]
fn continue_and_resume_send_the_earlier_conversation() {
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "Noted.");
    let first = run(dir.path(), &api, &["-p", "remember the word PELICAN", "--output-format", "json"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first_id = lines(&first)[0]["session_id"].as_str().unwrap().to_owned();

    let second = run(dir.path(), &api, &["-c", "-p", "what was the word?", "--output-format", "json"]);
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    assert_eq!(lines(&second)[0]["session_id"], first_id.as_str(), "--continue goes on in the same session");
    let request = api.requests().pop().unwrap();
    let messages = request.body["messages"].as_array().unwrap();
    let said: Vec<String> = messages.iter().map(|message| message["content"].to_string()).collect();
    let first_prompt = said.iter().position(|text| text.contains("PELICAN")).expect("the first prompt is sent again");
    let answer = said.iter().position(|text| text.contains("Noted.")).expect("the first answer is sent again");
    let second_prompt = said.iter().position(|text| text.contains("what was the word?")).unwrap();
    assert!(first_prompt < answer && answer < second_prompt, "{said:?}");

    // --resume ID does the same; an unknown id is an error.
    let third = run(dir.path(), &api, &["--resume", &first_id, "-p", "and again?", "--output-format", "json"]);
    assert!(third.status.success());
    assert!(api.requests().pop().unwrap().body["messages"].to_string().contains("what was the word?"));
    let missing = run(dir.path(), &api, &["--resume", "no-such-session", "-p", "x"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("No conversation found with session ID: no-such-session")
    );
}

#[test]
fn tools_restricts_the_pool_and_version_and_missing_key() {
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "ok");
    let output = run(dir.path(), &api, &["-p", "hi", "--output-format", "stream-json", "--tools", "Bash,Read"]);
    assert!(output.status.success());
    let tools = lines(&output)[0]["tools"].clone();
    assert_eq!(tools, json!(["Bash", "Read"]));
    let sent: Vec<String> = api.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sent, ["Bash", "Read"]);

    let version = run(dir.path(), &api, &["--version"]);
    assert!(version.status.success());
    assert_eq!(String::from_utf8_lossy(&version.stdout), format!("{} (agent-tools)\n", env!("CARGO_PKG_VERSION")));

    let no_key =
        command(dir.path(), &api).env_remove("ANTHROPIC_API_KEY").args(["agent", "-p", "hi"]).output().unwrap();
    assert_eq!(no_key.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&no_key.stderr).contains("Invalid API key"),
        "{}",
        String::from_utf8_lossy(&no_key.stderr)
    );
    assert_eq!(api.requests().len(), 1, "nothing was sent without a key");
}

/// Writes one JSON line to the child's stdin.
/// The agent speaking the SDK's protocol (stream-json both ways, permission questions on
/// stdout), with `extra` flags: the child, its stdin, and its stdout by lines.
fn sdk_protocol(
    dir: &Path,
    api: &FakeApi,
    extra: &[&str],
) -> (std::process::Child, std::process::ChildStdin, std::io::BufReader<std::process::ChildStdout>) {
    let mut child = command(dir, api)
        .args(["--output-format", "stream-json", "--verbose", "--permission-prompt-tool", "stdio"])
        .args(extra)
        .args(["--input-format", "stream-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

fn send(stdin: &mut std::process::ChildStdin, value: &Value) {
    use std::io::Write as _;
    writeln!(stdin, "{value}").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn set_permission_mode_switches_the_mode_for_later_calls() {
    use std::io::BufRead as _;
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let api = FakeApi::scripted(
        vec![vec![json!({"type": "tool_use", "id": "toolu_1", "name": "Write",
                         "input": {"file_path": root.join("new.txt"), "content": "x"}})]],
        "Done.",
    );
    let (mut child, mut stdin, stdout) = sdk_protocol(dir.path(), &api, &[]);
    send(&mut stdin, &json!({"type": "control_request", "request_id": "req_1", "request": {"subtype": "initialize"}}));
    send(
        &mut stdin,
        &json!({"type": "control_request", "request_id": "req_2",
                             "request": {"subtype": "set_permission_mode", "mode": "sometimes"}}),
    );
    send(
        &mut stdin,
        &json!({"type": "control_request", "request_id": "req_3",
                             "request": {"subtype": "set_permission_mode", "mode": "acceptEdits"}}),
    );
    let mut stdin = Some(stdin);
    let mut answers = Vec::new();
    let mut asked = 0;
    for line in stdout.lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        match line["type"].as_str() {
            Some("control_response") => {
                answers.push(line["response"].clone());
                if line["response"]["request_id"] == "req_3" {
                    let prompt = json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                                        "message": {"role": "user", "content": "write new.txt"}});
                    send(stdin.as_mut().unwrap(), &prompt);
                }
            }
            Some("control_request") => asked += 1,
            Some("result") => stdin = None,
            _ => {}
        }
    }
    assert!(child.wait().unwrap().success());
    // Requests are answered as they finish, not in the order they came.
    let answer = |id: &str| answers.iter().find(|answer| answer["request_id"] == id).cloned().unwrap_or_default();
    assert_eq!(answer("req_2")["subtype"], "error", "{answers:?}");
    assert_eq!(answer("req_3")["subtype"], "success", "{answers:?}");
    assert_eq!(asked, 0, "acceptEdits let the Write run without a can_use_tool question");
    assert_eq!(fs::read_to_string(root.join("new.txt")).unwrap(), "x");
}

#[test]
fn stream_json_input_speaks_the_sdk_control_protocol() {
    use std::io::BufRead as _;
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let api = FakeApi::scripted(
        vec![
            vec![json!({"type": "tool_use", "id": "toolu_1", "name": "Write",
                        "input": {"file_path": root.join("new.txt"), "content": "written\n"}})],
            vec![json!({"type": "tool_use", "id": "toolu_2", "name": "Bash",
                        "input": {"command": "touch bashed.txt", "description": "make a file"}})],
        ],
        "Done.",
    );
    let notification =
        r#"{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "cat >> notified.jsonl"}]}]}}"#;
    let (mut child, mut stdin, stdout) =
        sdk_protocol(dir.path(), &api, &["--system-prompt", "", "--settings", notification]);
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]});
    send(
        &mut stdin,
        &json!({"type": "control_request", "request_id": "req_1",
                             "request": {"subtype": "initialize", "hooks": hooks}}),
    );
    send(
        &mut stdin,
        &json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                             "message": {"role": "user", "content": "write new.txt, then run a command"}}),
    );
    let mut stdin = Some(stdin);
    let mut seen = Vec::new();
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if line["type"] == "control_request" {
            let request = &line["request"];
            let answer = match request["subtype"].as_str().unwrap() {
                "can_use_tool" => json!({"behavior": "allow", "updatedInput": request["input"]}),
                "hook_callback" => json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": "no shell today"}}),
                other => panic!("unexpected request {other}"),
            };
            asked.push(request.clone());
            let response = json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": line["request_id"], "response": answer}});
            send(stdin.as_mut().unwrap(), &response);
        } else if line["type"] == "result" {
            // The end of stdin ends the session.
            stdin = None;
        }
        seen.push(line);
    }
    assert!(stdin.is_none(), "a result line came");
    assert!(child.wait().unwrap().success());
    // The can_use_tool question fired the Notification hooks first (Claude Code's format).
    let notified = fs::read_to_string(root.join("notified.jsonl")).unwrap();
    let notified: Value = serde_json::from_str(notified.lines().next().unwrap()).unwrap();
    assert_eq!(notified["hook_event_name"], "Notification");
    assert_eq!(notified["message"], "The agent needs your permission to use Write");
    let init_answer = &seen[0];
    assert_eq!(init_answer["type"], "control_response");
    assert_eq!(init_answer["response"]["subtype"], "success");
    assert_eq!(init_answer["response"]["request_id"], "req_1");
    assert_eq!(seen[1]["subtype"], "init");
    // The SDK was asked about the Write, then the hook about the Bash call.
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0]["subtype"], "can_use_tool");
    assert_eq!(asked[0]["tool_name"], "Write");
    assert_eq!(asked[0]["tool_use_id"], "toolu_1");
    assert_eq!(asked[1]["subtype"], "hook_callback");
    assert_eq!(asked[1]["callback_id"], "hook_0");
    assert_eq!(asked[1]["tool_use_id"], "toolu_2");
    assert_eq!(asked[1]["input"]["tool_name"], "Bash");
    assert_eq!(asked[1]["input"]["tool_input"]["command"], "touch bashed.txt");
    assert_eq!(fs::read_to_string(root.join("new.txt")).unwrap(), "written\n");
    assert!(!root.join("bashed.txt").exists());
    let results: Vec<&Value> =
        seen.iter().filter(|line| line["type"] == "user").map(|line| &line["message"]["content"][0]).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["is_error"], Value::Null, "{}", results[0]);
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[1]["content"], "PreToolUse:Bash hook error: no shell today");
    let result = seen.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["result"], "Done.");
    assert_eq!(result["num_turns"], 3);
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    // An empty --system-prompt keeps the default prompt (no empty system block is sent).
    let system = &api.requests()[0].body["system"];
    assert!(system.as_array().unwrap().iter().all(|block| !block["text"].as_str().unwrap().is_empty()), "{system}");
}

#[test]
fn claude_list_flags_take_several_values_after_agent_only() {
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "ok");
    // `--allowedTools Write 'Bash(touch:*)'` at the end of the line: two rules, not a prompt.
    let output = run(
        dir.path(),
        &api,
        &[
            "-p",
            "hi",
            "--output-format",
            "json",
            "--disallowedTools",
            "Write",
            "Bash(touch:*)",
            "--tools",
            "Write,Read,Bash",
        ],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let sent: Vec<String> =
        api.requests()[0].body["tools"].as_array().unwrap().iter().map(|tool| tool["name"].to_string()).collect();
    assert_eq!(sent, ["\"Bash\"", "\"Read\""], "Write is denied as a whole; Bash only for touch");
    assert!(api.requests()[0].body["messages"].to_string().contains("hi"));
    // Other commands keep one value per flag: `call` is the subcommand, not a rule.
    let call = command(dir.path(), &api)
        .args([
            "--disallowed-tools",
            "Bash",
            "call",
            "Read",
            &format!(r#"{{"file_path": "{}"}}"#, dir.path().join("notes.txt").display()),
        ])
        .output()
        .unwrap();
    assert!(call.status.success(), "{}", String::from_utf8_lossy(&call.stderr));
    assert!(String::from_utf8_lossy(&call.stdout).contains("alpha"));
}

#[test]
fn without_anyone_to_ask_the_model_reads_the_asks_own_reason() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let write = json!({"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": root.join("new.txt"), "content": "x\n"}});
    let api = FakeApi::scripted(vec![vec![write]], "Could not write.");
    let output = run(dir.path(), &api, &["-p", "write new.txt", "--output-format", "stream-json", "--verbose"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = lines(&output);
    let result = lines.iter().find(|line| line["type"] == "user").unwrap();
    let block = &result["message"]["content"][0];
    assert_eq!(block["is_error"], true);
    assert_eq!(
        block["content"],
        format!(
            "Claude requested permissions to write to {}, but you haven't granted it yet.",
            root.join("new.txt").display()
        )
    );
    assert!(!root.join("new.txt").exists());
    assert_eq!(lines.last().unwrap()["permission_denials"][0]["tool_name"], "Write");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Write was refused: it needs approval; allow such calls with --allowedTools 'Write'"),
        "{stderr}"
    );
}

#[test]
fn an_openai_compatible_server_is_used_when_its_base_url_is_set() {
    let dir = project();
    let api = FakeApi::scripted(read_turn(dir.path()), "Two lines.");
    let output = command(dir.path(), &api)
        .env_remove("ANTHROPIC_API_KEY")
        .env("AGENT_TOOLS_OPENAI_BASE_URL", format!("{}/v1", api.base_url()))
        .env("OPENAI_API_KEY", "sk-openai-test")
        .args(["agent", "-p", "read notes.txt", "--model", "qwen2.5-coder:7b", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let result = &lines(&output)[0];
    assert_eq!(result["result"], "Two lines.");
    assert_eq!(result["num_turns"], 2);
    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-openai-test"));
    assert_eq!(requests[0].body["model"], "qwen2.5-coder:7b");
    assert!(requests[1].body["messages"].to_string().contains("alpha"), "the Read's result went back");
}

/// What a small local model behind llama-cpp-python's server needs (issue: local models): one
/// system message first, only the tools the request carries named in it, `max_tokens` from the
/// settings' `env`, tool calls the model wrote as text read, and a repeated call said to be one.
#[test]
fn a_local_model_gets_one_system_message_its_tools_and_the_settings_max_tokens() {
    use agent_tools_testkit::fake_api::Reply;
    let dir = project();
    let notes = dir.path().canonicalize().unwrap().join("notes.txt");
    // Qwen2.5-Coder writes its calls in tags, as text (one as a bare JSON line); it makes the
    // same Bash call twice.
    let read = format!(
        "<tool_call>\n{{\"name\": \"Read\", \"arguments\": {{\"file_path\": {:?}}}}}\n</tool_call>",
        notes.display().to_string()
    );
    let echo = r#"{"name": "Bash", "arguments": {"command": "echo same"}}"#;
    let api = FakeApi::start(move |request| {
        match request.body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count() {
            0 => Reply::text(&read),
            1 | 2 => Reply::text(echo),
            _ => Reply::text("Two lines."),
        }
    });
    let settings = r#"{"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "2048"}}"#;
    let output = command(dir.path(), &api)
        .env_remove("ANTHROPIC_API_KEY")
        .env("AGENT_TOOLS_OPENAI_BASE_URL", format!("{}/v1", api.base_url()))
        .env("AGENT_TOOLS_OPENAI_TEXT_TOOL_CALLS", "1")
        .env("AGENT_TOOLS_OPENAI_TEMPERATURE", "0")
        .env("AGENT_TOOLS_OPENAI_TOOL_DESCRIPTIONS", "short")
        .args(["agent", "-p", "read notes.txt", "--model", "qwen", "--tools", "Read,Edit,Bash"])
        .args(["--settings", settings, "--allowedTools", "Bash(echo:*)", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(lines(&output)[0]["result"], "Two lines.");
    let requests = api.requests();
    assert_eq!(requests.len(), 4);
    let first = &requests[0].body;
    let roles: Vec<&str> = first["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user"], "the environment is in the one system message");
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("# Environment") && system.contains("Call one tool at a time"), "{system}");
    for absent in ["Glob", "Grep", "Write", "ToolSearch", "Claude Code"] {
        assert!(!system.contains(absent), "{absent} in {system}");
    }
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["Bash", "Edit", "Read"]);
    assert!(
        first["tools"].as_array().unwrap().iter().all(|t| t["function"]["description"]
            .as_str()
            .unwrap()
            .chars()
            .count()
            <= 301)
    );
    assert_eq!((first["max_tokens"].as_u64(), first["temperature"].as_f64()), (Some(2048), Some(0.0)));
    let second = requests[1].body["messages"].as_array().unwrap();
    let answer = second.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(answer["content"], "", "the text was all call: never null");
    assert_eq!(answer["tool_calls"][0]["function"]["name"], "Read");
    assert!(second.last().unwrap()["content"].as_str().unwrap().contains("alpha"));
    let last = requests[3].body["messages"].as_array().unwrap();
    let ids: Vec<&str> =
        last.iter().filter(|m| m["role"] == "tool").map(|m| m["tool_call_id"].as_str().unwrap()).collect();
    assert!(ids.len() == 3 && ids[1] != ids[2] && ids[2].starts_with("call_"), "made-up ids are new: {ids:?}");
    let note = last.last().unwrap()["content"].as_str().unwrap();
    assert!(note.contains("This Bash call is the same as your previous one"), "{note}");
    let earlier = requests[2].body["messages"].as_array().unwrap();
    assert!(!earlier.last().unwrap()["content"].as_str().unwrap().contains("same as your previous"), "once only");
}

#[test]
fn ctrl_c_interrupts_the_query_and_the_result_says_so() {
    use agent_tools_testkit::fake_api::Reply;
    let dir = project();
    let api = FakeApi::start(|_| Reply::Slow {
        content: vec![json!({"type": "text", "text": "too late"})],
        gap: std::time::Duration::from_secs(30),
    });
    let started = std::time::Instant::now();
    let child = command(dir.path(), &api)
        .args(["agent", "-p", "take your time", "--output-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(api.wait_for_requests(1, std::time::Duration::from_secs(30)));
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the slow answer was not waited for");
    let result = &lines(&output)[0];
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "interrupted");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("Interrupted: stopping what runs. Press Ctrl-C again to exit at once.")
    );
}

#[test]
fn a_session_id_that_cannot_name_a_folder_and_unknown_tools_are_said() {
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "ok");
    let output = run(dir.path(), &api, &["-p", "hi", "--session-id", "../../escaped"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--session-id \"../../escaped\" cannot name a session"), "{stderr}");
    assert!(api.requests().is_empty());

    let output = run(
        dir.path(),
        &api,
        &["-p", "hi", "--output-format", "json", "--tools", "Read,bash", "--session-id", "my-run_1"],
    );
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--tools names \"bash\", which is not a built-in tool"), "{stderr}");
    assert_eq!(lines(&output)[0]["session_id"], "my-run_1");
    let tools: Vec<String> = api.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(tools.contains(&"Read".to_owned()) && !tools.contains(&"Bash".to_owned()), "{tools:?}");
}

#[test]
fn json_schema_makes_the_run_finish_through_structured_output() {
    let dir = project();
    let api = FakeApi::scripted(
        vec![
            vec![json!({"type": "tool_use", "id": "toolu_1", "name": "StructuredOutput", "input": {"lines": "two"}})],
            vec![json!({"type": "tool_use", "id": "toolu_2", "name": "StructuredOutput", "input": {"lines": 2}})],
        ],
        "Done.",
    );
    let schema = r#"{"type":"object","properties":{"lines":{"type":"integer"}},"required":["lines"]}"#;
    let output = run(dir.path(), &api, &["-p", "Count the lines", "--json-schema", schema, "--output-format", "json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let result = &lines(&output)[0];
    assert_eq!(result["structured_output"], json!({"lines": 2}));
    let requests = api.requests();
    let tools: Vec<&str> =
        requests[0].body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"StructuredOutput"), "{tools:?}");
    let refused = requests[1].tool_results()[0].clone();
    assert_eq!(refused["is_error"], true, "{refused}");
    // A schema that is not one stops the run before anything is asked.
    let bad = run(dir.path(), &api, &["-p", "x", "--json-schema", r#"{"type":"string"}"#]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("JSON Schema"), "{}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn print_mode_waits_for_a_background_agent_and_answers_its_report() {
    let dir = project();
    let path = dir.path().canonicalize().unwrap().join("notes.txt");
    let api = FakeApi::start(move |request| {
        let first = request.body["messages"][0]["content"].to_string();
        let turns = request.assistant_turns();
        if first.contains("SUB-P") {
            return match turns {
                0 => agent_tools_testkit::fake_api::Reply::tool_use("toolu_s1", "Read", json!({"file_path": path})),
                _ => agent_tools_testkit::fake_api::Reply::text("notes.txt holds alpha and beta."),
            };
        }
        match turns {
            0 => agent_tools_testkit::fake_api::Reply::tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Read notes", "prompt": "SUB-P: read notes.txt"}),
            ),
            1 => agent_tools_testkit::fake_api::Reply::text("Started an agent."),
            _ => agent_tools_testkit::fake_api::Reply::text("The agent says: alpha and beta."),
        }
    });
    let output = run(dir.path(), &api, &["-p", "Delegate", "--output-format", "stream-json", "--verbose"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let all = lines(&output);
    let results: Vec<&Value> = all.iter().filter(|line| line["type"] == "result").collect();
    let texts: Vec<&str> = results.iter().map(|result| result["result"].as_str().unwrap()).collect();
    assert_eq!(texts, ["Started an agent.", "The agent says: alpha and beta."]);
    // The sub-agent's own messages are printed too, under the Agent call that started it.
    let sub: Vec<&Value> = all.iter().filter(|line| line["parent_tool_use_id"] == "toolu_1").collect();
    assert!(
        sub.iter().any(|line| line["type"] == "assistant" && line["message"]["content"][0]["name"] == "Read"),
        "{sub:?}"
    );
    assert!(sub.iter().any(|line| line["type"] == "user"), "{sub:?}");
    let last = api
        .requests()
        .into_iter()
        .rev()
        .find(|r| !r.body["messages"][0]["content"].to_string().contains("SUB-P"))
        .unwrap();
    let heard = last.last_message().to_string();
    assert!(heard.contains("<result>notes.txt holds alpha and beta.</result>"), "{heard}");
}

#[test]
fn an_sdk_session_answers_a_background_agents_report_between_prompts() {
    use std::io::BufRead as _;
    let dir = project();
    let api = FakeApi::start(move |request| {
        let first = request.body["messages"][0]["content"].to_string();
        if first.contains("SUB-SDK") {
            return agent_tools_testkit::fake_api::Reply::text("The notes hold alpha and beta.");
        }
        match request.assistant_turns() {
            0 => agent_tools_testkit::fake_api::Reply::tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "Read notes", "prompt": "SUB-SDK: read notes.txt"}),
            ),
            1 => agent_tools_testkit::fake_api::Reply::text("Started."),
            _ => agent_tools_testkit::fake_api::Reply::text("Heard the report."),
        }
    });
    let (mut child, mut stdin, stdout) = sdk_protocol(dir.path(), &api, &[]);
    send(
        &mut stdin,
        &json!({"type": "user", "message": {"role": "user", "content": "Delegate"}, "parent_tool_use_id": null, "session_id": ""}),
    );
    // Both results come while stdin is still open: the report is a turn of its own.
    let mut results = Vec::new();
    for line in stdout.lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if line["type"] == "result" {
            results.push(line["result"].as_str().unwrap().to_owned());
            if results.len() == 2 {
                break;
            }
        }
    }
    assert_eq!(results, ["Started.", "Heard the report."]);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn an_mcp_servers_sampling_request_is_answered_by_the_loops_model() {
    let dir = project();
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sampling_server.py");
    let config = json!({"mcpServers": {"s": {"command": "python3", "args": [server]}}}).to_string();
    let api = FakeApi::start(|request| {
        if request.body["system"] == "Be brief." {
            return agent_tools_testkit::fake_api::Reply::text("sampled words");
        }
        match request.assistant_turns() {
            0 => agent_tools_testkit::fake_api::Reply::Message {
                content: vec![json!({"type": "tool_use", "id": "toolu_1", "name": "mcp__s__ask", "input": {}})],
                stop_reason: None,
                usage: None,
            },
            _ => agent_tools_testkit::fake_api::Reply::text("done"),
        }
    });
    let output = run(
        dir.path(),
        &api,
        &["-p", "ask it", "--mcp-config", &config, "--allowed-tools", "mcp__s", "--output-format", "json"],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let requests = api.requests();
    let sampling = requests.iter().find(|request| request.body["system"] == "Be brief.").expect("a sampling request");
    assert_eq!(
        sampling.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "Say something"}]}])
    );
    assert_eq!(sampling.body["max_tokens"], 50);
    assert!(sampling.body.get("tools").is_none(), "sampling offers no tools");
    let last = &requests.last().unwrap().body["messages"];
    let result = last.as_array().unwrap().iter().rev().find_map(|message| {
        message["content"].as_array()?.iter().find(|block| block["type"] == "tool_result").cloned()
    });
    let result = result.expect("the tool's result went back to the model").to_string();
    assert!(result.contains("model said: sampled words"), "{result}");
}

/// `control_cancel_request`: a request the SDK gave up on is stopped and gets no answer (the
/// SDK no longer waits for one), and the session goes on answering the others. The reconnection
/// of a server that never starts (`sleep`) is what the SDK cancels here.
#[test]
fn a_cancelled_control_request_gets_no_answer() {
    use std::io::BufRead as _;
    let dir = project();
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let mcp = json!({"mcpServers": {"slow": {"command": "sleep", "args": ["30"]}}}).to_string();
    let mut child = command(dir.path(), &api)
        .env("MCP_TIMEOUT", "3000")
        .args(["agent", "--output-format", "stream-json", "--verbose", "--mcp-config", &mcp])
        .args(["--input-format", "stream-json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = Some(child.stdin.take().unwrap());
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let request = |id: &str, request: Value| json!({"type": "control_request", "request_id": id, "request": request});
    let to = stdin.as_mut().unwrap();
    send(to, &request("req_1", json!({"subtype": "initialize"})));
    send(to, &request("req_2", json!({"subtype": "mcp_reconnect", "serverName": "slow"})));
    send(to, &json!({"type": "control_cancel_request", "request_id": "req_2"}));
    send(to, &request("req_3", json!({"subtype": "mcp_status"})));
    let mut answered = Vec::new();
    for line in stdout.lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if line["type"] == "control_response" {
            answered.push(line["response"]["request_id"].as_str().unwrap_or_default().to_owned());
            if line["response"]["request_id"] == "req_3" {
                assert_eq!(line["response"]["response"]["mcpServers"][0]["name"], "slow", "{line}");
                stdin = None;
            }
        }
    }
    let _ = stdin;
    assert!(child.wait().unwrap().success());
    assert_eq!(answered, ["req_1", "req_3"]);
}
