//! The OpenAI-compatible backend against the testkit's fake Chat Completions endpoint: the
//! request translated field by field, two parallel tool calls streamed back as Messages API
//! events, a JSON completion, an error status, and [`Backend`] holding either client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use agent_tools_api::openai::chat_request;
use agent_tools_api::{
    ApiConfig, ApiError, Backend, Client, ClientOptions, Delta, MessageBuilder, OpenAiClient, OpenAiConfig,
    StreamEvent, Usage,
};
use agent_tools_testkit::fake_api::{FakeApi, Reply};
use serde_json::{Value, json};

fn options() -> ClientOptions {
    ClientOptions::new("agent-tools-test", Duration::from_secs(10))
}

fn openai(api: &FakeApi, key: Option<&str>) -> OpenAiClient {
    let config = OpenAiConfig {
        api_key: key.map(str::to_owned),
        ..OpenAiConfig::new(format!("{}/v1", api.base_url()), "llama3.2")
    };
    OpenAiClient::new(config, &options()).unwrap()
}

/// An Anthropic request with every kind of thing the translation handles.
fn anthropic_body() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "temperature": 0.2,
        "stop_sequences": ["END"],
        "stream": true,
        "metadata": {"user_id": "u"},
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "system": [{"type": "text", "text": "You are terse."}, {"type": "text", "text": "Use tools.", "cache_control": {"type": "ephemeral"}}],
        "tools": [
            {"name": "Read", "description": "Read a file", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}},
            {"name": "Later", "description": "Deferred", "defer_loading": true, "input_schema": {"type": "object"}},
            {"name": "Deferred", "description": "Deferred, schema loaded", "defer_loading": true, "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            {"type": "custom", "name": "Custom", "input_schema": {"type": "object", "properties": {}}}
        ],
        "messages": [
            {"role": "user", "content": "Read /a and /b"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "plan", "signature": "sig"},
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "toolu_b", "name": "Read", "input": {"file_path": "/b"}},
                {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {"query": "x"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "alpha"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true, "content": [{"type": "text", "text": "File does not exist."}, {"type": "text", "text": "Try /c."}]},
                {"type": "text", "text": "And this picture:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]},
            {"role": "system", "content": "Reminder: be brief."},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]},
            {"role": "user", "content": [{"type": "text", "text": "Go on"}, {"type": "text", "text": "please"}]}
        ]
    })
}

#[test]
fn a_messages_request_translates_field_by_field() {
    let chat = chat_request(&anthropic_body(), "llama3.2");
    assert_eq!(chat["model"], "llama3.2");
    assert_eq!(chat["max_tokens"], 2048);
    assert_eq!(chat["temperature"], 0.2);
    assert_eq!(chat["stop"], json!(["END"]));
    assert_eq!(chat["stream"], true);
    assert_eq!(chat["stream_options"], json!({"include_usage": true}));
    for dropped in ["metadata", "thinking", "system", "stop_sequences"] {
        assert!(chat.get(dropped).is_none(), "{dropped}");
    }
    assert_eq!(
        chat["tools"],
        json!([
            {"type": "function", "function": {"name": "Read", "description": "Read a file",
                "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}},
            {"type": "function", "function": {"name": "Custom", "parameters": {"type": "object", "properties": {}}}}
        ])
    );
    let messages = chat["messages"].as_array().unwrap();
    assert_eq!(messages[0], json!({"role": "system", "content": "You are terse.\n\nUse tools."}));
    assert_eq!(messages[1], json!({"role": "user", "content": "Read /a and /b"}));
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "Reading both.", "tool_calls": [
            {"id": "toolu_a", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/a\"}"}},
            {"id": "toolu_b", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/b\"}"}}
        ]})
    );
    assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "toolu_a", "content": "alpha"}));
    assert_eq!(
        messages[4],
        json!({"role": "tool", "tool_call_id": "toolu_b", "content": "Error: File does not exist.\nTry /c."})
    );
    // The system message after the model's answer is a reminder in the user's turn; the
    // assistant turn of only redacted thinking is dropped, so the user messages join.
    assert_eq!(
        messages[5],
        json!({"role": "user", "content": [
            {"type": "text", "text": "And this picture:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "text", "text": "<system-reminder>\nReminder: be brief.\n</system-reminder>"},
            {"type": "text", "text": "Go on\nplease"}
        ]})
    );
    assert_eq!(messages.len(), 6);
    // An empty model keeps the body's; a string system prompt; tool_choice.
    let chat = chat_request(
        &json!({"model": "m", "system": "S", "messages": [], "tools": [{"name": "T", "input_schema": {"type": "object"}}], "tool_choice": {"type": "tool", "name": "T"}}),
        "",
    );
    assert_eq!(chat["model"], "m");
    assert_eq!(chat["messages"], json!([{"role": "system", "content": "S"}]));
    assert_eq!(chat["tool_choice"], json!({"type": "function", "function": {"name": "T"}}));
    assert!(chat.get("max_tokens").is_none());
}

#[tokio::test]
async fn two_parallel_tool_calls_stream_as_messages_api_events() {
    let api = FakeApi::start(|_| Reply::Message {
        content: vec![
            json!({"type": "text", "text": "Reading both files."}),
            json!({"type": "tool_use", "id": "call_a", "name": "Read", "input": {"file_path": "/tmp/a.txt"}}),
            json!({"type": "tool_use", "id": "call_b", "name": "Grep", "input": {"pattern": "fn main", "path": "/src"}}),
        ],
        stop_reason: None,
        usage: Some(json!({"input_tokens": 321, "output_tokens": 45})),
    });
    let client = openai(&api, Some("sk-openai"));
    let mut stream = client.stream(&anthropic_body(), &[("x-extra".into(), "1".into())]).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    // The shape of an Anthropic stream: start, three blocks one after the other, delta, stop.
    let shape: Vec<String> = events
        .iter()
        .map(|event| match event {
            StreamEvent::MessageStart { .. } => "start".to_owned(),
            StreamEvent::ContentBlockStart { index, content_block } => {
                format!("+{index}:{}", content_block["type"].as_str().unwrap())
            }
            StreamEvent::ContentBlockDelta { index, delta: Delta::Text(_) } => format!("{index}:text"),
            StreamEvent::ContentBlockDelta { index, delta: Delta::InputJson(_) } => format!("{index}:json"),
            StreamEvent::ContentBlockStop { index } => format!("-{index}"),
            StreamEvent::MessageDelta { stop_reason, .. } => format!("delta:{}", stop_reason.as_deref().unwrap()),
            StreamEvent::MessageStop => "stop".to_owned(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        shape.join(" "),
        "start +0:text 0:text 0:text 0:text -0 +1:tool_use 1:json 1:json 1:json -1 +2:tool_use 2:json 2:json 2:json -2 delta:tool_use stop"
    );
    assert_eq!(
        events[6],
        StreamEvent::ContentBlockStart {
            index: 1,
            content_block: json!({"type": "tool_use", "id": "call_a", "name": "Read", "input": {}})
        }
    );
    let mut builder = MessageBuilder::new();
    for event in &events {
        builder.apply(event).unwrap();
    }
    let message = builder.finish();
    assert_eq!(message.model.as_deref(), Some("llama3.2"));
    assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(message.usage, Usage { input_tokens: 321, output_tokens: 45, ..Usage::default() });
    assert_eq!(
        message.content,
        vec![
            json!({"type": "text", "text": "Reading both files."}),
            json!({"type": "tool_use", "id": "call_a", "name": "Read", "input": {"file_path": "/tmp/a.txt"}}),
            json!({"type": "tool_use", "id": "call_b", "name": "Grep", "input": {"pattern": "fn main", "path": "/src"}}),
        ]
    );
    let request = &api.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-openai"));
    assert_eq!(request.header("accept"), Some("text/event-stream"));
    assert_eq!(request.header("x-extra"), Some("1"));
    assert_eq!(request.header("x-api-key"), None);
    assert_eq!(request.body, chat_request(&anthropic_body(), "llama3.2"));
}

#[tokio::test]
async fn text_answers_a_length_finish_and_an_error_status() {
    let api = FakeApi::start(|request| match request.body["messages"][0]["content"].as_str() {
        Some("long") => Reply::Message {
            content: vec![json!({"type": "text", "text": "cut"})],
            stop_reason: Some("max_tokens".into()),
            usage: None,
        },
        Some("fail") => Reply::status(503, "server_error", "model is loading"),
        _ => Reply::text("Hello from llama"),
    });
    let client = openai(&api, None);
    let body = |text: &str| json!({"model": "x", "max_tokens": 5, "stream": true, "messages": [{"role": "user", "content": text}]});
    let message = client.stream(&body("hi"), &[]).await.unwrap().collect_message().await.unwrap();
    assert_eq!(message.content, vec![json!({"type": "text", "text": "Hello from llama"})]);
    assert_eq!(message.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(api.requests()[0].header("authorization"), None);
    let message = client.stream(&body("long"), &[]).await.unwrap().collect_message().await.unwrap();
    assert_eq!(message.stop_reason.as_deref(), Some("max_tokens"));

    let error = client.stream(&body("fail"), &[]).await.unwrap_err();
    assert!(matches!(&error, ApiError::Status { status, .. } if status.as_u16() == 503), "{error:?}");
    assert!(error.is_retryable());
    assert_eq!(error.api_message().as_deref(), Some("model is loading"));
}

#[tokio::test]
async fn a_json_chat_completion_becomes_the_same_events() {
    // A server that ignores `stream`: answer JSON to a streamed request.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut seen = vec![0u8; 65536];
        let _ = socket.read(&mut seen).await.unwrap();
        let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "qwen", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "Done", "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "Glob", "arguments": "{\"pattern\":\"*\"}"}}]},
            "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 9, "completion_tokens": 4}})
        .to_string();
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(reply.as_bytes()).await.unwrap();
    });
    let client = OpenAiClient::new(OpenAiConfig::new(base_url, "qwen"), &options()).unwrap();
    let message = client.stream(&json!({"messages": []}), &[]).await.unwrap().collect_message().await.unwrap();
    assert_eq!(
        message.content,
        vec![
            json!({"type": "text", "text": "Done"}),
            json!({"type": "tool_use", "id": "c9", "name": "Glob", "input": {"pattern": "*"}})
        ]
    );
    assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(message.usage, Usage { input_tokens: 9, output_tokens: 4, ..Usage::default() });
}

#[tokio::test]
async fn a_backend_holds_either_client() {
    let api = FakeApi::start(|_| Reply::text("same answer"));
    let anthropic = Client::new(
        ApiConfig { base_url: api.base_url(), model: "claude-x".into(), ..ApiConfig::new("k") },
        &options(),
    )
    .unwrap();
    let body =
        json!({"model": "claude-x", "max_tokens": 5, "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    for backend in [Backend::Anthropic(anthropic), Backend::OpenAi(openai(&api, None))] {
        let message = backend.stream(&body, &[]).await.unwrap().collect_message().await.unwrap();
        assert_eq!(message.text(), "same answer", "{}", backend.model());
        let retried =
            backend.stream_with_retries(&body, &[], &Default::default(), |_, _, _| panic!("no retry")).await.unwrap();
        assert_eq!(retried.collect_message().await.unwrap().text(), "same answer");
    }
    let paths: Vec<String> = api.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/messages", "/v1/messages", "/v1/chat/completions", "/v1/chat/completions"]);
    assert_eq!(Backend::OpenAi(openai(&api, None)).model(), "llama3.2");
    assert!(!format!("{:?}", openai(&api, Some("sk-secret")).config()).contains("sk-secret"));
}

/// The request of an agent's second turn, as the loop builds it: the prompt, then the
/// environment as a system message, then a ToolSearch that loaded a deferred tool, a failed
/// call, and a call whose arguments were not JSON.
fn second_turn_body() -> Value {
    json!({
        "model": "m", "max_tokens": 2048, "stream": true,
        "system": [{"type": "text", "text": "You are an agent."}],
        "tools": [
            {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
            {"name": "ToolSearch", "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}},
            {"name": "WebFetch", "defer_loading": true, "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}}},
            {"name": "CronCreate", "defer_loading": true, "input_schema": {"type": "object", "properties": {"cron": {"type": "string"}}}}
        ],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Fix a.py"}]},
            {"role": "system", "content": "# Environment\n - Primary working directory: /p"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_1", "name": "ToolSearch", "input": {"query": "select:WebFetch"}},
                {"type": "tool_use", "id": "call_2", "name": "Bash", "input": {}},
                {"type": "tool_use", "id": "call_3", "name": "Bash", "input": {"__unparsedToolInput": {"raw": "{\"command\": \"ls", "len": 14}}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "tool_reference", "tool_name": "WebFetch"}]},
                {"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": "<tool_use_error>Error: command is missing</tool_use_error>"},
                {"type": "tool_result", "tool_use_id": "call_3", "is_error": true, "content": "The input is not JSON"}
            ]},
            {"role": "system", "content": "# Environment update\n - Primary working directory: /p/sub"},
            {"role": "user", "content": "Go on"}
        ]
    })
}

#[test]
fn a_chat_template_model_gets_one_system_message_and_only_the_tools_it_loaded() {
    let chat = chat_request(&second_turn_body(), "");
    let messages = chat["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().map(|message| message["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "tool", "tool", "user"]);
    assert_eq!(messages[0]["content"], "You are an agent.\n\n# Environment\n - Primary working directory: /p");
    assert_eq!(messages[1]["content"], "Fix a.py");
    assert_eq!(messages[2]["content"], "", "never null: llama-cpp-python's server fails on it");
    assert_eq!(messages[2]["tool_calls"][2]["function"]["arguments"], "{\"command\": \"ls", "as the model wrote it");
    assert_eq!(messages[3]["content"], "The tool WebFetch is loaded: call it directly.");
    assert_eq!(messages[4]["content"], "Error: command is missing");
    assert_eq!(messages[5]["content"], "Error: The input is not JSON");
    assert_eq!(
        messages[6]["content"],
        "<system-reminder>\n# Environment update\n - Primary working directory: /p/sub\n</system-reminder>\n\nGo on"
    );
    let tools: Vec<&str> =
        chat["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["Bash", "ToolSearch", "WebFetch"], "CronCreate was never loaded");
}

fn chunk(value: &Value) -> String {
    format!("data: {value}\n\n")
}

#[tokio::test]
async fn tool_calls_written_as_text_are_read_when_asked() {
    let text = "I will run it.\n<tool_call>\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"python3 a.py\"}}\n</tool_call>";
    let sse = [
        chunk(&json!({"id": "c", "choices": [{"delta": {"role": "assistant", "content": &text[..20]}}]})),
        chunk(&json!({"choices": [{"delta": {"content": &text[20..]}, "finish_reason": "stop"}]})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let api = FakeApi::start(move |_| Reply::RawSse(sse.clone()));
    let read = |text_tool_calls: bool| {
        let config = OpenAiConfig { text_tool_calls, ..OpenAiConfig::new(format!("{}/v1", api.base_url()), "qwen") };
        let client = OpenAiClient::new(config, &options()).unwrap();
        async move { client.stream(&second_turn_body(), &[]).await.unwrap().collect_message().await.unwrap() }
    };
    let message = read(true).await;
    assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(message.content[0], json!({"type": "text", "text": "I will run it."}));
    assert_eq!(message.content[1]["name"], "Bash");
    assert_eq!(message.content[1]["input"], json!({"command": "python3 a.py"}));
    let id = message.content[1]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("call_") && id.len() == 29, "{id}");
    assert_ne!(read(true).await.content[1]["id"], id, "every made-up id is new");
    // No usage chunk: estimated from the request's and the answer's sizes.
    assert!(message.usage.input_tokens > 100 && message.usage.output_tokens > 10, "{:?}", message.usage);
    let plain = read(false).await;
    assert_eq!(plain.content, vec![json!({"type": "text", "text": text})], "off: the text is the model's");
    assert_eq!(plain.stop_reason.as_deref(), Some("end_turn"));
}

#[tokio::test]
async fn an_empty_answer_is_an_error_that_is_not_sent_again() {
    let api = FakeApi::start(|_| Reply::RawSse(String::new()));
    let backend = Backend::OpenAi(openai(&api, None));
    let policy = agent_tools_api::RetryPolicy { max_retries: 3, ..agent_tools_api::RetryPolicy::default() };
    let mut retries = 0;
    let result = async {
        let mut stream = backend.stream_with_retries(&second_turn_body(), &[], &policy, |_, _, _| retries += 1).await?;
        stream.next().await.unwrap_or(Err(ApiError::StreamEnded))
    }
    .await;
    let error = result.unwrap_err();
    assert!(matches!(error, ApiError::EmptyReply { .. }), "{error:?}");
    assert!(!error.is_retryable());
    assert!(error.to_string().contains("answered 200 with an empty body"), "{error}");
    assert_eq!((retries, api.requests().len()), (0, 1));
}
