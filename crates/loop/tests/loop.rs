//! The agent loop against the scripted fake Messages API: real sessions, real tools, real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_tools_api::{Backend, ClientOptions, StreamEvent};
use agent_tools_host::{Environment, Session};
use agent_tools_loop::{Agent, AgentEvent, ResultSubtype, transcript};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};
use serde_json::{Value, json};

mod common;
use common::{backend, options, tool_use};

struct Fixture {
    project: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("a.txt"), "hello\n").unwrap();
        Self { project, state: tempfile::tempdir().unwrap() }
    }

    fn env(&self) -> Environment {
        Environment::empty()
            .with("PATH", std::env::var_os("PATH").unwrap_or_default())
            .with("HOME", self.state.path())
            .with("XDG_STATE_HOME", self.state.path().join("state"))
    }

    async fn session(&self, settings: &str) -> Arc<Session> {
        self.session_with(settings, None).await
    }

    async fn session_with(&self, settings: &str, id: Option<&str>) -> Arc<Session> {
        let mut builder = Session::builder(self.project.path())
            .environment(self.env())
            .settings_json(settings)
            .workspace_trust(agent_tools_host::WorkspaceTrust::Trusted)
            .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions));
        if let Some(id) = id {
            builder = builder.session_id(id);
        }
        Arc::new(builder.build().await.unwrap())
    }

    fn path(&self, name: &str) -> String {
        self.project.path().canonicalize().unwrap().join(name).display().to_string()
    }
}

/// The user message that answered assistant turn `turn` in the last request.
fn results_after(api: &FakeApi, turn: usize) -> Vec<Value> {
    let last = api.requests().last().unwrap().body.clone();
    let messages = last["messages"].as_array().unwrap().clone();
    let assistant = messages.iter().enumerate().filter(|(_, m)| m["role"] == "assistant").nth(turn).unwrap().0;
    messages[assistant + 1]["content"].as_array().unwrap().clone()
}

fn ids(blocks: &[Value]) -> Vec<&str> {
    blocks.iter().filter_map(|b| b.get("tool_use_id").and_then(Value::as_str)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_go_back_in_block_order_with_batches_and_a_serial_write() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.project.path().join("d")).unwrap();
    let turn = vec![
        tool_use("toolu_01", "Bash", json!({"command": "sleep 0.3; ls d", "description": "slow"})),
        tool_use("toolu_02", "Read", json!({"file_path": fx.path("a.txt")})),
        tool_use("toolu_03", "Bash", json!({"command": "touch d/w3", "description": "write"})),
        tool_use("toolu_04", "Bash", json!({"command": "ls d", "description": "after"})),
    ];
    let api = FakeApi::scripted(vec![turn], "Done.");
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let mut users = Vec::new();
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::Message(message) = event
                && message["type"] == "user"
            {
                users.push(message["message"]["content"][0]["tool_use_id"].as_str().unwrap().to_owned());
            }
        })
        .await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result, "Done.");
    let results = results_after(&api, 0);
    assert_eq!(ids(&results), ["toolu_01", "toolu_02", "toolu_03", "toolu_04"]);
    assert_eq!(results[0]["content"], "(Bash completed with no output)", "the first batch ran before the write");
    assert_eq!(results[1]["content"], "1\thello\n2\t");
    assert_eq!(results[3]["content"], "w3");
    // Claude Code's key order: Bash says is_error, Read does not.
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&results[0]), ["tool_use_id", "type", "content", "is_error"]);
    assert_eq!(keys(&results[1]), ["tool_use_id", "type", "content"]);
    // Reported as they finished: the fast Read before the slow Bash.
    assert_eq!(users, ["toolu_02", "toolu_01", "toolu_03", "toolu_04"]);
    agent.session().shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concurrency_safe_call_starts_while_the_answer_still_streams() {
    let fx = Fixture::new();
    let turn = vec![
        tool_use("toolu_1", "Read", json!({"file_path": fx.path("a.txt")})),
        tool_use("toolu_2", "Read", json!({"file_path": fx.path("a.txt")})),
        tool_use("toolu_3", "Read", json!({"file_path": fx.path("a.txt")})),
    ];
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    let api = FakeApi::start(move |request: &Recorded| {
        count.fetch_add(1, Ordering::SeqCst);
        if request.assistant_turns() == 0 {
            Reply::Slow { content: turn.clone(), gap: Duration::from_millis(400) }
        } else {
            Reply::text("Done.")
        }
    });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let mut order = Vec::new();
    agent
        .query("go", &mut |event| match event {
            AgentEvent::Message(message) if message["type"] == "user" => order.push("result".to_owned()),
            AgentEvent::Stream(StreamEvent::MessageStop) => order.push("message_stop".to_owned()),
            _ => {}
        })
        .await;
    let stop = order.iter().position(|e| e == "message_stop").unwrap();
    assert!(stop >= 1, "the first Read's result came before the answer's message_stop: {order:?}");
    assert_eq!(order.iter().filter(|e| *e == "result").count(), 3);
    assert_eq!(served.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn errors_refusals_and_unparsable_input_are_results() {
    let fx = Fixture::new();
    let turn = vec![
        json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "raw_json": "not json at all"}),
        tool_use("toolu_2", "NoSuchTool", json!({})),
        tool_use("toolu_3", "Bash", json!({"command": "rm a.txt", "description": "rm"})),
        tool_use("toolu_4", "Read", json!({"file_path": fx.path("a.txt")})),
    ];
    let api = FakeApi::scripted(vec![turn], "Done.");
    let session = fx.session(r#"{"permissions": {"deny": ["Bash(rm:*)", "Read(./a.txt)"]}}"#).await;
    let agent = Agent::new(session, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    let results = results_after(&api, 0);
    assert_eq!(
        results[0]["content"],
        "<tool_use_error>InputValidationError: Read was called with input that could not be parsed as JSON.\nYou sent (first 15 of 15 bytes): not json at all\nCommon causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid JSON.</tool_use_error>"
    );
    assert_eq!(results[1]["content"], "<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>");
    assert_eq!(results[2]["content"], "Permission to use Bash with command rm a.txt has been denied.");
    assert!(results.iter().all(|r| r["is_error"] == true));
    assert_eq!(
        results[3]["content"],
        "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"
    );
    assert!(fx.project.path().join("a.txt").exists());
    // Both refusals by a rule are permission denials (the Read's, met in validate_input, too),
    // as in Claude Code's perm-deny-rule-bypass record.
    let denied: Vec<&str> = result.permission_denials.iter().map(|d| d["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(denied, ["toolu_3", "toolu_4"]);
    assert_eq!(result.permission_denials[0]["tool_input"], json!({"command": "rm a.txt", "description": "rm"}));
}

#[tokio::test]
async fn the_first_request_carries_context_memory_and_cache_breakpoints() {
    let fx = Fixture::new();
    std::fs::write(fx.project.path().join("CLAUDE.md"), "Always answer in French.").unwrap();
    let api = FakeApi::scripted(Vec::new(), "Bonjour.");
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent.query("hi", &mut |_| {}).await;
    assert_eq!(result.result, "Bonjour.");
    let request = &api.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("sk-test"));
    assert!(request.header("anthropic-beta").unwrap().contains("advanced-tool-use-2025-11-20"));
    let body = &request.body;
    assert_eq!(body["stream"], true);
    let first = body["messages"][0]["content"].as_array().unwrap();
    assert!(first[0]["text"].as_str().unwrap().contains("Always answer in French."));
    assert_eq!(first.last().unwrap()["text"], "hi");
    let context = &body["messages"][1];
    assert_eq!(context["role"], "system");
    let text = context["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            " - Primary working directory: {}",
            fx.project.path().canonicalize().unwrap().display()
        ))
    );
    assert!(text.contains("<available-deferred-tools>"));
    // Breakpoints: the system prompt's last block, the last built-in tool, the last message's last block.
    assert!(body["system"].as_array().unwrap().last().unwrap().get("cache_control").is_some());
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.iter().filter(|t| t.get("cache_control").is_some()).count(), 1);
    assert!(body["messages"][1]["content"][0].get("cache_control").is_some());
}

#[tokio::test]
async fn overloaded_and_dropped_requests_are_retried() {
    let fx = Fixture::new();
    let calls = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&calls);
    let api = FakeApi::start(move |_| match count.fetch_add(1, Ordering::SeqCst) {
        0 => Reply::Status {
            status: 529,
            kind: "overloaded_error".into(),
            message: "Overloaded".into(),
            headers: Vec::new(),
        },
        1 => Reply::DropAfter { content: vec![json!({"type": "text", "text": "partial"})], events: 3 },
        _ => Reply::text("Finally."),
    });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let mut notices = Vec::new();
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::Notice(text) = event {
                notices.push(text);
            }
        })
        .await;
    assert_eq!(result.result, "Finally.", "{result:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(
        agent.messages().await.iter().filter(|m| m["role"] == "assistant").count(),
        1,
        "the dropped answer is not kept"
    );
}

#[tokio::test]
async fn a_client_error_is_not_retried_and_ends_the_query() {
    let fx = Fixture::new();
    let api = FakeApi::start(|_| Reply::Status {
        status: 400,
        kind: "invalid_request_error".into(),
        message: "bad tools".into(),
        headers: Vec::new(),
    });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::ErrorDuringExecution);
    assert!(result.is_error);
    assert!(result.result.contains("bad tools"), "{}", result.result);
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn max_turns_and_max_tokens() {
    let fx = Fixture::new();
    let turns = vec![vec![tool_use("toolu_1", "Read", json!({"file_path": fx.path("a.txt")}))]; 5];
    let api = FakeApi::scripted(turns, "Done.");
    let mut limited = options();
    limited.max_turns = Some(2);
    let agent = Agent::new(fx.session("{}").await, backend(&api), limited).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(api.requests().len(), 2);
    // The result line says why in `errors` (the TypeScript SDK reads an error's text there).
    assert_eq!(result.to_json()["errors"], json!(["Reached maximum number of turns (2)"]));

    // An answer cut off at max_tokens is continued.
    let cut = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&cut);
    let api = FakeApi::start(move |_| {
        if count.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::Message {
                content: vec![json!({"type": "text", "text": "Part one"})],
                stop_reason: Some("max_tokens".into()),
                usage: None,
            }
        } else {
            Reply::text("part two.")
        }
    });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.result, "part two.");
    let second = &api.requests()[1].body["messages"];
    let last = second.as_array().unwrap().last().unwrap();
    assert!(last["content"][0]["text"].as_str().unwrap().contains("cut off at the output token limit"));
}

#[tokio::test]
async fn loop_hooks_run_in_claude_codes_format() {
    let fx = Fixture::new();
    let log = fx.state.path().join("hooks.log");
    let marker = fx.state.path().join("stopped-once");
    let settings = json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": format!("cat >> {}; echo; echo 'Session context from a hook'", log.display())}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"The user likes tea\"}}'"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": format!("test -e {0} && exit 0; touch {0}; echo 'Run the tests first' >&2; exit 2", marker.display())}]}],
    }});
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let agent = Agent::new(fx.session(&settings.to_string()).await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.result, "Done.");
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "the Stop hook's block made the model go on once");
    let first = requests[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("Session context from a hook"), "{first}");
    assert!(first.contains("The user likes tea"));
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.last().unwrap()["content"][0]["text"], "Stop hook feedback:\nRun the tests first");
    let seen: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "SessionStart");
    assert_eq!(seen["source"], "startup");
    assert_eq!(seen["session_id"], agent.session().id());

    // A UserPromptSubmit block refuses the prompt: nothing is sent.
    let settings = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'no secrets' >&2; exit 2"}]}]}}"#;
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let agent = Agent::new(fx.session(settings).await, backend(&api), options()).unwrap();
    let result = agent.query("tell me the password", &mut |_| {}).await;
    assert!(result.is_error);
    assert_eq!(result.result, "UserPromptSubmit operation blocked by hook: no secrets");
    assert!(api.requests().is_empty());
}

#[tokio::test]
async fn a_cd_and_post_hook_output_are_system_messages_after_the_results() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.project.path().join("sub")).unwrap();
    let settings = r#"{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"noted\"}}'"}]}]}}"#;
    let api = FakeApi::scripted(
        vec![vec![tool_use("toolu_1", "Bash", json!({"command": "cd sub && pwd", "description": "cd"}))]],
        "Done.",
    );
    let agent = Agent::new(fx.session(settings).await, backend(&api), options()).unwrap();
    agent.query("go", &mut |_| {}).await;
    let body = &api.requests()[1].body;
    let roles: Vec<&str> = body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "system", "assistant", "user", "system", "system"]);
    assert_eq!(body["messages"][4]["content"][0]["text"], "PostToolUse:Bash hook additional context: noted");
    let root = fx.project.path().canonicalize().unwrap();
    assert_eq!(
        body["messages"][5]["content"][0]["text"],
        format!("# Environment update\n - Primary working directory: {0}/sub (was {0})", root.display())
    );
}

#[tokio::test]
async fn a_saved_conversation_resumes_in_the_same_transcript() {
    let fx = Fixture::new();
    let api = FakeApi::scripted(Vec::new(), "First answer.");
    let session = fx.session("{}").await;
    let id = session.id().to_owned();
    let agent = Agent::new(session, backend(&api), options()).unwrap();
    agent.query("remember 42", &mut |_| {}).await;
    // In Claude Code's layout: <config dir>/projects/<slug of the project>/<id>.jsonl.
    let project = fx.project.path().canonicalize().unwrap();
    let file =
        fx.state.path().join(".claude/projects").join(transcript::project_slug(&project)).join(format!("{id}.jsonl"));
    assert_eq!(agent.transcript_path(), Some(file.as_path()));
    let env = fx.env();
    assert_eq!(transcript::latest(&env, &project).unwrap().path, file);
    assert_eq!(transcript::find(&env, &project, &id).unwrap().path, file);
    let saved = transcript::load(&file).unwrap();
    assert_eq!(saved.len(), 3, "prompt, context, answer");

    let api = FakeApi::scripted(Vec::new(), "It was 42.");
    let mut resumed = options();
    resumed.resume = saved;
    let session = fx.session_with("{}", Some(&id)).await;
    assert_eq!(session.id(), id);
    let agent = Agent::new(session, backend(&api), resumed).unwrap();
    agent.query("what number?", &mut |_| {}).await;
    let messages = api.requests()[0].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["content"].as_array().unwrap().last().unwrap()["text"], "remember 42");
    assert_eq!(messages[2]["content"][0]["text"], "First answer.");
    assert_eq!(messages[3]["content"][0]["text"], "what number?");
    assert_eq!(transcript::load(&file).unwrap().len(), 5, "and the new prompt and answer");
    let lines: Vec<Value> =
        std::fs::read_to_string(&file).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"], "one chain across both runs");
    }
}

#[tokio::test]
async fn the_streamed_events_carry_the_uuids_of_their_transcript_entries() {
    let fx = Fixture::new();
    let api = FakeApi::scripted(
        vec![vec![tool_use("toolu_1", "Bash", json!({"command": "echo hi", "description": "echo"}))]],
        "Done.",
    );
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let mut events = Vec::new();
    agent
        .query("say hi", &mut |event| {
            if let AgentEvent::Message(message) = event {
                events.push(message);
            }
        })
        .await;
    let entries: Vec<Value> = std::fs::read_to_string(agent.transcript_path().unwrap())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let streamed: Vec<(&str, &str)> = events
        .iter()
        .filter(|event| matches!(event["type"].as_str(), Some("assistant" | "user")))
        .map(|event| (event["type"].as_str().unwrap(), event["uuid"].as_str().unwrap()))
        .collect();
    assert_eq!(streamed.len(), 3, "the call, its result, the answer: {events:?}");
    for (kind, uuid) in streamed {
        let entry = entries.iter().find(|entry| entry["uuid"] == uuid).unwrap_or_else(|| panic!("{kind} {uuid}"));
        assert_eq!(entry["type"], kind);
    }
    let result = entries.iter().find(|entry| entry["toolUseResult"].is_object()).unwrap();
    assert_eq!(result["message"]["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(result["toolUseResult"]["stdout"], "hi");
}

#[tokio::test]
async fn near_the_context_window_the_conversation_is_compacted() {
    let fx = Fixture::new();
    let log = fx.state.path().join("precompact.log");
    let settings = json!({"hooks": {"PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": format!("cat > {}", log.display())}]}]}});
    let file = fx.path("a.txt");
    let api = FakeApi::start(move |request: &Recorded| {
        let text = request.body["messages"].to_string();
        if text.contains("about to be replaced by a summary") {
            Reply::text("SUMMARY: the user wants a.txt read")
        } else if !text.contains("SUMMARY:") {
            Reply::Message {
                content: vec![
                    json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": file}}),
                ],
                stop_reason: None,
                usage: Some(json!({"input_tokens": 950})),
            }
        } else {
            Reply::text("Done.")
        }
    });
    let mut small = options();
    small.context_window = 1_000;
    let agent = Agent::new(fx.session(&settings.to_string()).await, backend(&api), small).unwrap();
    let mut boundaries = 0;
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::Message(m) = event
                && m["subtype"] == "compact_boundary"
            {
                boundaries += 1;
            }
        })
        .await;
    assert_eq!(result.result, "Done.");
    assert_eq!(boundaries, 1);
    let requests = api.requests();
    assert_eq!(requests.len(), 3, "answer, summary, answer after the compaction");
    assert_eq!(requests[1].body["tool_choice"], json!({"type": "none"}));
    let after = requests[2].body["messages"].as_array().unwrap();
    assert!(after[0]["content"][0]["text"].as_str().unwrap().ends_with("SUMMARY: the user wants a.txt read"));
    assert_eq!(after.len(), 2, "the summary and the environment");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(seen["trigger"], "auto");
    // The Read ran (its result went into the summary request) …
    assert_eq!(requests[1].body["messages"][3]["content"][0]["content"], "1\thello\n2\t");
    // … and what was read is forgotten with the history: the same Read would give the file again.
    assert!(agent.session().context().await.read_file_state.is_empty());
}

#[tokio::test]
async fn an_openai_compatible_server_drives_the_same_loop() {
    let fx = Fixture::new();
    let api = FakeApi::scripted(
        vec![vec![tool_use("call_1", "Read", json!({"file_path": fx.path("a.txt")}))]],
        "It says hello.",
    );
    let config = agent_tools_api::OpenAiConfig::new(format!("{}/v1", api.base_url()), "qwen2.5-coder");
    let client =
        agent_tools_api::OpenAiClient::new(config, &ClientOptions::new("loop-test", Duration::from_secs(30))).unwrap();
    let agent = Agent::new(fx.session("{}").await, Backend::OpenAi(client), options()).unwrap();
    let result = agent.query("what does a.txt say?", &mut |_| {}).await;
    assert_eq!(result.result, "It says hello.", "{result:?}");
    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r.path == "/v1/chat/completions"));
    // The tool result went back as a Chat Completions `tool` message.
    let messages = requests[1].body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    assert_eq!(tool["content"], "1\thello\n2\t");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_ends_the_query_without_running_the_rest() {
    let fx = Fixture::new();
    let content = vec![
        json!({"type": "text", "text": "Let me write it."}),
        tool_use("toolu_1", "Write", json!({"file_path": fx.path("new.txt"), "content": "x"})),
    ];
    let api = FakeApi::start(move |_| Reply::Slow { content: content.clone(), gap: Duration::from_secs(2) });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::TextDelta(_) = event {
                agent.interrupt();
            }
        })
        .await;
    assert_eq!(result.subtype, ResultSubtype::ErrorDuringExecution);
    assert_eq!(result.terminal_reason, "interrupted");
    assert!(!fx.project.path().join("new.txt").exists(), "the Write never ran");
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn auto_mode_asks_the_classifier_with_the_users_request() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.project.path().join("d")).unwrap();
    let turn = vec![
        tool_use("toolu_1", "Write", json!({"file_path": fx.path("new.txt"), "content": "made"})),
        tool_use("toolu_2", "Bash", json!({"command": "rm -rf d", "description": "remove"})),
    ];
    let api = FakeApi::start(move |request: &Recorded| {
        let system = request.body["system"].to_string();
        if system.contains("You review one tool call") {
            let asked = request.body["messages"][0]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            if asked.contains("rm -rf d") {
                Reply::text(r#"{"decision": "block", "reason": "the user did not ask to delete d"}"#)
            } else {
                Reply::text(r#"{"decision": "allow"}"#)
            }
        } else if request.assistant_turns() == 0 {
            Reply::Message { content: turn.clone(), stop_reason: None, usage: None }
        } else {
            Reply::text("Done.")
        }
    });
    let classifier = Arc::new(agent_tools_loop::ModelClassifier::new());
    classifier.bind(backend(&api), "claude-haiku-4-5");
    let session = Session::builder(fx.project.path())
        .environment(fx.env())
        .permission_mode(Some(agent_tools_core::PermissionMode::Auto))
        .auto_classifier(classifier.clone())
        .build()
        .await
        .unwrap();
    let mut auto = options();
    auto.classifier = Some(classifier);
    let agent = Agent::new(Arc::new(session), backend(&api), auto).unwrap();
    let result = agent.query("Create new.txt saying made", &mut |_| {}).await;
    assert_eq!(result.result, "Done.");
    let results = results_after(&api, 0);
    assert_eq!(
        results[0]["content"].as_str().unwrap().split(" (").next().unwrap(),
        format!("File created successfully at: {}", fx.path("new.txt"))
    );
    assert_eq!(
        results[1]["content"],
        "Permission to use Bash has been denied by the auto mode's safety check: the user did not ask to delete d"
    );
    assert!(fx.project.path().join("d").is_dir());
    assert_eq!(std::fs::read_to_string(fx.project.path().join("new.txt")).unwrap(), "made");
    let asked: Vec<String> = api
        .requests()
        .iter()
        .filter(|r| r.body["system"].to_string().contains("You review one tool call"))
        .map(|r| r.body["messages"][0]["content"][0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(asked.len(), 2);
    assert!(asked.iter().all(|text| text.contains("<user_requests>\nCreate new.txt saying made\n</user_requests>")));
    assert_eq!(result.permission_denials.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_commands_progress_is_relayed_before_its_result() {
    let fx = Fixture::new();
    let api = FakeApi::scripted(
        vec![vec![tool_use(
            "toolu_1",
            "Bash",
            json!({"command": "echo started; sleep 3.5; echo ended", "description": "slow"}),
        )]],
        "Done.",
    );
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let mut seen = Vec::new();
    agent
        .query("go", &mut |event| match event {
            AgentEvent::Progress(progress) => {
                assert_eq!((progress.tool_use_id.as_str(), progress.tool_name.as_str()), ("toolu_1", "Bash"));
                seen.push(format!("progress {}", progress.data["output"].as_str().unwrap_or_default().trim()));
            }
            AgentEvent::CallFinished { tool_use_id, denied, .. } => {
                seen.push(format!("finished {tool_use_id} {denied}"))
            }
            _ => {}
        })
        .await;
    let finished = seen.iter().position(|e| e == "finished toolu_1 false").unwrap();
    assert!(finished >= 1 && seen[..finished].iter().all(|e| e == "progress started"), "{seen:?}");
}

#[tokio::test]
async fn thinking_and_server_tool_blocks_stay_in_the_history_unchanged() {
    let fx = Fixture::new();
    let search = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rust"}, "caller": {"type": "direct"}});
    let found = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://www.rust-lang.org", "title": "Rust", "encrypted_content": "abc"}]});
    let turn = vec![
        json!({"type": "thinking", "thinking": "I should read a.txt.", "signature": "sig-123"}),
        search.clone(),
        found.clone(),
        tool_use("toolu_1", "Read", json!({"file_path": fx.path("a.txt")})),
    ];
    let api = FakeApi::scripted(vec![turn], "Done.");
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!(result.result, "Done.");
    let second = &api.requests()[1].body["messages"];
    let assistant = second.as_array().unwrap().iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(
        assistant["content"][0],
        json!({"type": "thinking", "thinking": "I should read a.txt.", "signature": "sig-123"})
    );
    assert_eq!(assistant["content"][1], search);
    assert_eq!(assistant["content"][2], found);
    assert_eq!(assistant["content"][3]["name"], "Read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_repl_mode_the_model_gets_the_repl_and_one_script_does_several_calls() {
    let fx = Fixture::new();
    std::fs::write(fx.project.path().join("b.txt"), "world\n").unwrap();
    let code = "const names = (await Glob({pattern: '*.txt'})).filenames.map((f) => f.split('/').pop()).sort();\n\
                const texts = await Promise.all(names.map((file_path) => Read({file_path})));\n\
                names.map((name, i) => `${name}: ${texts[i].file.content.trim()}`).join('; ')";
    let turn = vec![tool_use("toolu_1", "REPL", json!({"code": code, "description": "read every text file"}))];
    let api = FakeApi::scripted(vec![turn], "Both read.");
    let session = Session::builder(fx.project.path())
        .environment(fx.env().with("CLAUDE_REPL_MODE", "1"))
        .workspace_trust(agent_tools_host::WorkspaceTrust::Trusted)
        .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
        .build()
        .await
        .unwrap();
    let agent = Agent::new(Arc::new(session), backend(&api), options()).unwrap();
    let result = agent.query("read the text files", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result, "Both read.");
    let first = &api.requests()[0].body;
    let names: Vec<&str> = first["tools"].as_array().unwrap().iter().filter_map(|tool| tool["name"].as_str()).collect();
    assert!(names.contains(&"REPL"), "{names:?}");
    assert!(!names.contains(&"Read") && !names.contains(&"Bash") && !names.contains(&"Glob"), "{names:?}");
    let results = results_after(&api, 0);
    assert_eq!(results[0]["content"], "a.txt: hello; b.txt: world");
    assert!(results[0].get("is_error").is_none_or(|flag| flag == false), "{results:?}");
    agent.session().shutdown().await;
}

/// One SSE event of the Messages API stream.
fn sse(event: &str, data: Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programmatic_tool_calls_from_the_code_execution_container_run_through_the_executor() {
    let fx = Fixture::new();
    let read = json!({"file_path": fx.path("a.txt")});
    let usage = json!({"input_tokens": 10, "output_tokens": 0});
    let first = [
        sse("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": usage}})),
        sse("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}}})),
        sse("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"code\": \"r = await Read(file_path='a.txt')\"}"}})),
        sse("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        sse("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_p1", "name": "Read", "input": {}, "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}})),
        sse("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": read.to_string()}})),
        sse("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        sse("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "container": {"id": "container_abc", "expires_at": "2026-12-03T18:00:00Z"}}, "usage": {"output_tokens": 30}})),
        sse("message_stop", json!({"type": "message_stop"})),
    ]
    .concat();
    let second = Reply::Message {
        content: vec![
            json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "code_execution_result", "stdout": "hello\n", "stderr": "", "return_code": 0}}),
            json!({"type": "text", "text": "The file says hello."}),
        ],
        stop_reason: Some("end_turn".into()),
        usage: None,
    };
    let api = FakeApi::sequence(vec![Reply::RawSse(first)], second);
    let mut opts = options();
    opts.programmatic_tool_calling = true;
    let agent = Agent::new(fx.session("{}").await, backend(&api), opts).unwrap();
    let result = agent.query("what does a.txt say?", &mut |_| {}).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result, "The file says hello.");

    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    let tools = requests[0].body["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|tool| tool["name"] == name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(tool("code_execution")["type"], "code_execution_20250825");
    assert_eq!(tool("Read")["allowed_callers"], json!(["direct", "code_execution_20250825"]));
    assert!(tool("ToolSearch").get("allowed_callers").is_none());
    assert!(requests[0].header("anthropic-beta").unwrap().contains("code-execution-2025-08-25"));
    assert!(requests[0].body.get("container").is_none());
    // The second request names the container and carries the blocks as they came.
    let body = &requests[1].body;
    assert_eq!(body["container"], "container_abc");
    let messages = body["messages"].as_array().unwrap();
    let assistant = messages.iter().rev().find(|message| message["role"] == "assistant").unwrap();
    assert_eq!(assistant["content"][0]["type"], "server_tool_use");
    assert_eq!(assistant["content"][1]["caller"], json!({"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}));
    let results = results_after(&api, 0);
    assert_eq!(results.len(), 1, "only tool_result blocks answer programmatic calls: {results:?}");
    assert_eq!(results[0]["tool_use_id"], "toolu_p1");
    assert_eq!(results[0]["content"], "1\thello\n2\t");
    agent.session().shutdown().await;
}

/// Issue 31: an interrupt kills a running Bash command's whole process tree, so what the command
/// would still do never happens; the stopped call gets the interrupted result and the turn ends
/// with Claude Code's "[Request interrupted by user for tool use]" after the results.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_kills_a_running_command_and_what_it_would_still_do_never_happens() {
    use agent_tools_testkit::procs::{Reaper, carrying, eventually, unique_token};
    let fx = Fixture::new();
    let token = unique_token();
    let _reaper = Reaper(token.clone());
    let (started, late) = (fx.path("started"), fx.path("late.txt"));
    // A child of the shell that ignores SIGTERM too: only a kill of the whole tree stops it.
    let command =
        format!("touch {started}; (trap '' TERM; sleep 3002.{token}; touch {late}) & sleep 3001.{token}; touch {late}");
    let api = FakeApi::start(move |request| {
        match (request.assistant_turns(), request.body.to_string().contains("what now")) {
            (0, _) => Reply::tool_use("toolu_1", "Bash", json!({"command": command, "description": "wait"})),
            (_, true) => Reply::text("Waiting for you."),
            _ => Reply::text("should never be asked"),
        }
    });
    let agent = Arc::new(Agent::new(fx.session("{}").await, backend(&api), options()).unwrap());
    let running = tokio::spawn({
        let agent = Arc::clone(&agent);
        async move { agent.query("go", &mut |_| {}).await }
    });
    let marker = std::path::PathBuf::from(&started);
    assert!(eventually(Duration::from_secs(20), || marker.exists() && carrying(&token).len() >= 2).await);
    agent.interrupt();
    let result =
        tokio::time::timeout(Duration::from_secs(10), running).await.expect("the interrupt ended the query").unwrap();
    assert_eq!((result.subtype, result.terminal_reason.as_str()), (ResultSubtype::ErrorDuringExecution, "interrupted"));
    // The tree was killed before the result came: nothing carries the token, nothing can touch late.txt.
    assert_eq!(carrying(&token), Vec::<i32>::new());
    assert!(!std::path::Path::new(&late).exists());
    assert_eq!(api.requests().len(), 1, "the stopped round was not sent back");

    // The next prompt sees what happened, in Claude Code's shape.
    let next = agent.query("what now", &mut |_| {}).await;
    assert_eq!(next.result, "Waiting for you.");
    let results = results_after(&api, 0);
    assert_eq!(results[0]["tool_use_id"], "toolu_1");
    assert_eq!(results[0]["is_error"], true);
    assert_eq!(
        results[0]["content"][0]["text"].as_str().or(results[0]["content"].as_str()).unwrap(),
        agent_tools_host::executor::INTERRUPTED_MESSAGE
    );
    let body = api.requests().last().unwrap().body.to_string();
    assert!(body.contains(agent_tools_loop::agent::INTERRUPTED_FOR_TOOL_USE), "{body}");
    assert!(!std::path::Path::new(&late).exists());
}

/// Issue 31: a Stop hook that blocks every end does not keep the model going forever: after
/// Claude Code's cap (8 blocks in a row with no tool run) the turn ends with a notice; a round
/// that runs a tool starts the count again; `max_turns` counts the continuations; with no cap
/// `max_turns` still bounds it.
#[tokio::test]
async fn a_stop_hook_that_always_blocks_ends_at_the_cap() {
    let fx = Fixture::new();
    let settings =
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo 'keep going' >&2; exit 2"}]}]}}"#;
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let agent = Agent::new(fx.session(settings).await, backend(&api), options()).unwrap();
    let mut notices = Vec::new();
    let result = agent
        .query("go", &mut |event| {
            if let AgentEvent::Notice(text) = event {
                notices.push(text);
            }
        })
        .await;
    assert_eq!(
        (result.subtype, result.terminal_reason.as_str(), result.result.as_str()),
        (ResultSubtype::Success, "completed", "Done.")
    );
    assert_eq!(api.requests().len(), 9, "the first answer and 8 blocked ends");
    assert_eq!(notices, vec![agent_tools_loop::agent::stop_hook_cap_notice("Stop", 8)]);

    // max_turns counts the continuations.
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let mut limited = options();
    limited.max_turns = Some(3);
    let agent = Agent::new(fx.session(settings).await, backend(&api), limited).unwrap();
    assert_eq!(agent.query("go", &mut |_| {}).await.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(api.requests().len(), 3);

    // A round that runs a tool starts the count again: with a cap of 2, the model that reads a
    // file after each block goes on until max_turns.
    let read = fx.path("a.txt");
    let api = FakeApi::start(move |request| {
        if request.assistant_turns() % 2 == 0 {
            Reply::tool_use(&format!("toolu_{}", request.assistant_turns()), "Read", json!({"file_path": read}))
        } else {
            Reply::text("Done.")
        }
    });
    let mut capped = options();
    capped.stop_hook_block_cap = 2;
    capped.max_turns = Some(12);
    let agent = Agent::new(fx.session(settings).await, backend(&api), capped).unwrap();
    assert_eq!(agent.query("go", &mut |_| {}).await.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(api.requests().len(), 12);

    // No cap (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0): max_turns is the bound.
    let api = FakeApi::scripted(Vec::new(), "Done.");
    let mut uncapped = options();
    uncapped.stop_hook_block_cap = 0;
    uncapped.max_turns = Some(15);
    let agent = Agent::new(fx.session(settings).await, backend(&api), uncapped).unwrap();
    assert_eq!(agent.query("go", &mut |_| {}).await.subtype, ResultSubtype::ErrorMaxTurns);
    assert_eq!(api.requests().len(), 15);
}

/// Issue 31: a 5xx whose body says the request itself is invalid is not retried (it would fail
/// the same way ten times over minutes).
#[tokio::test]
async fn a_server_error_that_blames_the_request_is_not_retried() {
    let fx = Fixture::new();
    let api = FakeApi::start(|_| Reply::Status {
        status: 500,
        kind: "invalid_request_error".into(),
        message: "messages.1: tool_use ids were found without tool_result blocks".into(),
        headers: Vec::new(),
    });
    let agent = Agent::new(fx.session("{}").await, backend(&api), options()).unwrap();
    let result = agent.query("go", &mut |_| {}).await;
    assert_eq!((result.subtype, result.terminal_reason.as_str()), (ResultSubtype::ErrorDuringExecution, "api_error"));
    assert!(result.result.contains("without tool_result"), "{}", result.result);
    assert_eq!(api.requests().len(), 1);
}

/// Issue 31: the watches a query's Monitor calls started end with the interrupted query (their
/// events would otherwise wake the model after the user said stop); a command the model put in
/// the background on purpose goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_stops_the_monitors_the_query_started() {
    use agent_tools_testkit::procs::{Reaper, carrying, eventually, unique_token};
    let fx = Fixture::new();
    let (watched, kept, blocked) = (unique_token(), unique_token(), unique_token());
    let _reapers = [Reaper(watched.clone()), Reaper(kept.clone()), Reaper(blocked.clone())];
    let started = fx.path("started");
    let turns = vec![
        vec![tool_use("toolu_1", "ToolSearch", json!({"query": "select:Monitor"}))],
        vec![
            tool_use(
                "toolu_2",
                "Monitor",
                json!({"description": "watch", "timeout_ms": 600_000, "command": format!("sleep 3001.{watched}")}),
            ),
            tool_use(
                "toolu_3",
                "Bash",
                json!({"command": format!("sleep 3002.{kept}"), "description": "server", "run_in_background": true}),
            ),
        ],
        vec![tool_use(
            "toolu_4",
            "Bash",
            json!({"command": format!("touch {started}; sleep 3003.{blocked}"), "description": "wait"}),
        )],
    ];
    let api = FakeApi::scripted(turns, "unreachable");
    let agent = Arc::new(Agent::new(fx.session("{}").await, backend(&api), options()).unwrap());
    let running = tokio::spawn({
        let agent = Arc::clone(&agent);
        async move { agent.query("go", &mut |_| {}).await }
    });
    let marker = std::path::PathBuf::from(&started);
    assert!(eventually(Duration::from_secs(20), || marker.exists() && !carrying(&watched).is_empty()).await);
    agent.interrupt();
    let result = tokio::time::timeout(Duration::from_secs(10), running).await.unwrap().unwrap();
    assert_eq!(result.terminal_reason, "interrupted");
    let monitor = &results_after(&api, 1)[0];
    assert!(monitor["content"].as_str().unwrap().starts_with("Monitor started"), "{monitor}");
    assert!(eventually(Duration::from_secs(10), || carrying(&watched).is_empty()).await, "the watch was stopped");
    assert!(carrying(&blocked).is_empty());
    assert!(!carrying(&kept).is_empty(), "the background command goes on");
    agent.session().shutdown().await;
}

/// An interrupt while the API has not answered the request at all (no headers yet) ends the
/// query at once: the fake holds its answer until the test lets it go, after the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_before_the_api_answers_ends_the_query() {
    use agent_tools_testkit::procs::eventually;
    let fx = Fixture::new();
    let (release, held) = std::sync::mpsc::channel::<()>();
    let held = std::sync::Mutex::new(held);
    let api = FakeApi::start(move |_| {
        let _ = held.lock().map(|held| held.recv_timeout(Duration::from_secs(120)));
        Reply::text("too late")
    });
    let agent = Arc::new(Agent::new(fx.session("{}").await, backend(&api), options()).unwrap());
    let running = tokio::spawn({
        let agent = Arc::clone(&agent);
        async move { agent.query("go", &mut |_| {}).await }
    });
    assert!(eventually(Duration::from_secs(20), || api.requests().len() == 1).await);
    agent.interrupt();
    // The fake holds its answer for two minutes: a query that waited for it would not end in one.
    let result = tokio::time::timeout(Duration::from_secs(60), running)
        .await
        .expect("the interrupt ended the query before the answer came")
        .unwrap();
    assert_eq!((result.subtype, result.terminal_reason.as_str()), (ResultSubtype::ErrorDuringExecution, "interrupted"));
    assert!(result.result.is_empty(), "the held answer never arrived: {}", result.result);
    let _ = release.send(());
}
