//! Streamed calls against the testkit's fake Messages API: the request sent, the events and
//! the message built from them, a stream cut off, an error event, an idle stream, an error
//! status with retry-after and the retries that honour it, a JSON reply to a stream request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use agent_tools_api::stream::SseParser;
use agent_tools_api::{
    ApiConfig, ApiError, Client, ClientOptions, Delta, EventStream, MessageBuilder, RetryPolicy, StreamEvent, Usage,
};
use agent_tools_testkit::fake_api::{FakeApi, Reply};
use serde_json::{Value, json};

fn client(api: &FakeApi) -> Client {
    client_with(api, ClientOptions::new("agent-tools-test", Duration::from_secs(10)))
}

fn client_with(api: &FakeApi, options: ClientOptions) -> Client {
    let config = ApiConfig { base_url: api.base_url(), model: "claude-test".into(), ..ApiConfig::new("sk-test-key") };
    Client::new(config, &options).unwrap()
}

fn body(turns: usize) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for _ in 0..turns {
        messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": "…"}]}));
        messages.push(json!({"role": "user", "content": "more"}));
    }
    json!({"model": "claude-test", "max_tokens": 100, "stream": true, "messages": messages})
}

/// Every event of a stream, and the error that ended it, if any.
async fn drain(mut stream: EventStream) -> (Vec<StreamEvent>, Option<ApiError>) {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => events.push(event),
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing after an error");
                return (events, Some(error));
            }
        }
    }
    (events, None)
}

#[tokio::test]
async fn a_stream_sends_the_body_and_headers_and_builds_the_message() {
    let api = FakeApi::scripted(
        vec![vec![
            json!({"type": "text", "text": "Let me look."}),
            json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/tmp/a.txt", "limit": 5}}),
        ]],
        "Done.",
    );
    let client = client(&api);
    let beta = vec![("anthropic-beta".to_owned(), "interleaved-thinking-2025-05-14".to_owned())];
    let stream = client.stream(&body(0), &beta).await.unwrap();
    let (events, error) = drain(stream).await;
    assert!(error.is_none(), "{error:?}");
    let mut builder = MessageBuilder::new();
    let mut completed = Vec::new();
    for event in &events {
        completed.extend(builder.apply(event).unwrap());
    }
    assert_eq!(completed, vec![0, 1]);
    assert_eq!(builder.usage(), Usage { input_tokens: 100, output_tokens: 20, ..Usage::default() });
    let message = builder.finish();
    assert_eq!(message.id.as_deref(), Some("msg_fake_0001"));
    assert_eq!(message.model.as_deref(), Some("claude-test"));
    assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        message.content,
        vec![
            json!({"type": "text", "text": "Let me look."}),
            json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/tmp/a.txt", "limit": 5}}),
        ]
    );
    let texts: Vec<&Delta> = events
        .iter()
        .filter_map(|e| if let StreamEvent::ContentBlockDelta { index: 0, delta } = e { Some(delta) } else { None })
        .collect();
    assert_eq!(texts, vec![&Delta::Text("Let ".into()), &Delta::Text("me l".into()), &Delta::Text("ook.".into())]);
    assert_eq!(events[1], StreamEvent::Ping);
    assert_eq!(events.last(), Some(&StreamEvent::MessageStop));

    let request = &api.requests()[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(request.body, body(0));
    assert_eq!(request.header("x-api-key"), Some("sk-test-key"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("accept"), Some("text/event-stream"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("anthropic-beta"), Some("interleaved-thinking-2025-05-14"));
    assert_eq!(request.header("user-agent"), Some("agent-tools-test"));

    // The next turn, on the same client: the script's final text.
    let message = client.stream(&body(1), &[]).await.unwrap().collect_message().await.unwrap();
    assert_eq!(message.content, vec![json!({"type": "text", "text": "Done."})]);
    assert_eq!(message.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(message.text(), "Done.");
}

#[tokio::test]
async fn every_kind_of_block_is_rebuilt_as_the_api_sends_it() {
    let server_block = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
        "input": {"query": "rust"}, "caller": {"type": "direct"}});
    let result_block = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://x.test", "title": "X"}], "caller": {"type": "direct"}});
    let content = vec![
        json!({"type": "thinking", "thinking": "Think first.", "signature": "sig-1"}),
        json!({"type": "text", "text": "Héllo wörld, ünïcode ✓"}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls -la", "description": "List"}}),
        json!({"type": "tool_use", "id": "toolu_3", "name": "Edit", "raw_json": "{\"file_path\": \"/a\", \"old_str"}),
        json!({"type": "tool_use", "id": "toolu_4", "name": "Noop", "raw_json": ""}),
        server_block.clone(),
        result_block.clone(),
    ];
    let api = FakeApi::start(move |_| Reply::Message { content: content.clone(), stop_reason: None, usage: None });
    let message = client(&api).stream(&body(0), &[]).await.unwrap().collect_message().await.unwrap();
    let raw = "{\"file_path\": \"/a\", \"old_str";
    assert_eq!(
        message.content,
        vec![
            json!({"type": "thinking", "thinking": "Think first.", "signature": "sig-1"}),
            json!({"type": "text", "text": "Héllo wörld, ünïcode ✓"}),
            json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls -la", "description": "List"}}),
            json!({"type": "tool_use", "id": "toolu_3", "name": "Edit", "input": {"__unparsedToolInput": {"raw": raw, "len": raw.len()}}}),
            json!({"type": "tool_use", "id": "toolu_4", "name": "Noop", "input": {}}),
            server_block,
            result_block,
        ]
    );
    assert_eq!(message.tool_uses().count(), 3);
}

#[tokio::test]
async fn the_sse_body_split_at_every_byte_gives_the_same_message() {
    let api = FakeApi::start(|_| Reply::Message {
        content: vec![
            json!({"type": "text", "text": "ünï ✓\r\nline two"}),
            json!({"type": "tool_use", "id": "t", "name": "Grep", "input": {"pattern": "a\nb"}}),
        ],
        stop_reason: Some("max_tokens".into()),
        usage: Some(json!({"output_tokens": 9, "cache_read_input_tokens": 50})),
    });
    // The raw body, read without the client.
    let mut socket = std::net::TcpStream::connect(api.addr()).unwrap();
    let request = body(0).to_string();
    write!(socket, "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{request}", request.len())
        .unwrap();
    let mut raw = Vec::new();
    socket.read_to_end(&mut raw).unwrap();
    let start = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let sse = &raw[start..];
    let build = |pieces: &[&[u8]]| {
        let mut parser = SseParser::new();
        let mut builder = MessageBuilder::new();
        for piece in pieces {
            for event in parser.feed(piece) {
                if let Some(event) = StreamEvent::from_sse(event.event.as_deref(), &event.data).unwrap() {
                    builder.apply(&event).unwrap();
                }
            }
        }
        assert!(parser.finish().is_none());
        builder.finish()
    };
    let whole = build(&[sse]);
    assert_eq!(whole.content[0], json!({"type": "text", "text": "ünï ✓\r\nline two"}));
    assert_eq!(whole.content[1]["input"], json!({"pattern": "a\nb"}));
    assert_eq!(whole.stop_reason.as_deref(), Some("max_tokens"));
    assert_eq!(
        whole.usage,
        Usage { input_tokens: 100, output_tokens: 9, cache_read_input_tokens: 50, ..Usage::default() }
    );
    for split in 0..=sse.len() {
        assert_eq!(build(&[&sse[..split], &sse[split..]]), whole, "split at {split}");
    }
    let bytes: Vec<&[u8]> = sse.chunks(1).collect();
    assert_eq!(build(&bytes), whole);
}

#[tokio::test]
async fn a_stream_cut_off_is_an_error_not_an_end() {
    let api = FakeApi::start(|_| Reply::DropAfter {
        content: vec![json!({"type": "text", "text": "partial answer"})],
        events: 4,
    });
    let (events, error) = drain(client(&api).stream(&body(0), &[]).await.unwrap()).await;
    assert_eq!(events.len(), 4, "{events:?}");
    assert!(matches!(events[3], StreamEvent::ContentBlockDelta { index: 0, .. }), "{events:?}");
    let error = error.expect("an error");
    assert!(matches!(error, ApiError::StreamEnded), "{error:?}");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn an_error_event_ends_the_stream() {
    let sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":3}}}\n\n\
               event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let api = FakeApi::start(move |_| Reply::RawSse(sse.into()));
    let (events, error) = drain(client(&api).stream(&body(0), &[]).await.unwrap()).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(events[1], StreamEvent::Error { kind: "overloaded_error".into(), message: "Overloaded".into() });
    let error = client(&api).stream(&body(0), &[]).await.unwrap().collect_message().await.unwrap_err();
    assert!(matches!(&error, ApiError::StreamError { kind, .. } if kind == "overloaded_error"), "{error:?}");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_malformed_event_is_a_stream_error() {
    let api = FakeApi::start(|_| {
        Reply::RawSse("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":\"x\"}\n\n".into())
    });
    let (_, error) = drain(client(&api).stream(&body(0), &[]).await.unwrap()).await;
    assert!(matches!(error, Some(ApiError::Stream(_))), "{error:?}");
}

#[tokio::test]
async fn a_silent_stream_times_out_but_a_slow_one_does_not() {
    let blocks = vec![json!({"type": "text", "text": "a"}), json!({"type": "text", "text": "b"})];
    let slow = blocks.clone();
    let api = FakeApi::start(move |request| Reply::Slow {
        content: slow.clone(),
        gap: if request.assistant_turns() == 0 { Duration::from_millis(1500) } else { Duration::from_millis(200) },
    });
    let options =
        ClientOptions::new("t", Duration::from_millis(100)).with_stream_idle_timeout(Duration::from_millis(600));
    let client = client_with(&api, options);
    let started = Instant::now();
    let (events, error) = drain(client.stream(&body(0), &[]).await.unwrap()).await;
    assert!(matches!(events.last(), Some(StreamEvent::Ping)), "{events:?}");
    let error = error.expect("a timeout");
    assert!(matches!(error, ApiError::Timeout { after, .. } if after == Duration::from_millis(600)), "{error:?}");
    assert!(error.is_timeout() && error.is_retryable());
    assert!(started.elapsed() < Duration::from_millis(1400), "{:?}", started.elapsed());
    // 2 × 200 ms of gaps: longer than the client's 100 ms total timeout, which streams ignore.
    let message = client.stream(&body(1), &[]).await.unwrap().collect_message().await.unwrap();
    assert_eq!(message.content, blocks);
}

#[tokio::test]
async fn an_error_status_keeps_its_retry_after_and_retries_honour_it() {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = seen.clone();
    let api = FakeApi::start(move |_| match counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
        0 => Reply::Status {
            status: 429,
            kind: "rate_limit_error".into(),
            message: "Number of request tokens has exceeded your per-minute rate limit".into(),
            headers: vec![("retry-after".into(), "1".into())],
        },
        1 => Reply::Status {
            status: 529,
            kind: "overloaded_error".into(),
            message: "Overloaded".into(),
            headers: vec![("retry-after-ms".into(), "150".into())],
        },
        _ => Reply::text("after the wait"),
    });
    let client = client(&api);
    let error = client.stream(&body(0), &[]).await.unwrap_err();
    let ApiError::Status { status, retry_after, .. } = &error else { panic!("{error:?}") };
    assert_eq!((status.as_u16(), *retry_after), (429, Some(Duration::from_secs(1))));
    assert_eq!(error.api_error_type().as_deref(), Some("rate_limit_error"));
    assert!(error.is_retryable());

    seen.store(0, std::sync::atomic::Ordering::SeqCst);
    let mut retries = Vec::new();
    let started = Instant::now();
    let stream = client
        .stream_with_retries(&body(0), &[], &RetryPolicy::default(), |attempt, error, wait| {
            retries.push((attempt, error.status().map(|s| s.as_u16()), wait));
        })
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let message = stream.collect_message().await.unwrap();
    assert_eq!(message.text(), "after the wait");
    assert_eq!(retries, vec![(1, Some(429), Duration::from_secs(1)), (2, Some(529), Duration::from_millis(150))]);
    assert!(elapsed >= Duration::from_millis(1150), "{elapsed:?}");
    let times: Vec<Instant> = api.requests().iter().map(|r| r.received).collect();
    assert_eq!(times.len(), 4);
    assert!(times[2] - times[1] >= Duration::from_secs(1));
    assert!(times[3] - times[2] >= Duration::from_millis(150));
}

#[tokio::test]
async fn errors_that_retrying_cannot_fix_are_not_retried() {
    let api = FakeApi::start(|_| Reply::status(400, "invalid_request_error", "max_tokens: too large"));
    let mut retries = 0;
    let error = client(&api)
        .stream_with_retries(&body(0), &[], &RetryPolicy::default(), |_, _, _| retries += 1)
        .await
        .unwrap_err();
    assert_eq!(retries, 0);
    assert_eq!(error.api_message().as_deref(), Some("max_tokens: too large"));
    assert_eq!(api.request_count(), 1);
    let api = FakeApi::start(|_| Reply::status(503, "api_error", "down"));
    let policy =
        RetryPolicy { max_retries: 2, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(20) };
    let mut waits = Vec::new();
    let error =
        client(&api).stream_with_retries(&body(0), &[], &policy, |_, _, wait| waits.push(wait)).await.unwrap_err();
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(api.request_count(), 3);
    assert!(waits[0] >= Duration::from_millis(10) && waits[0] <= Duration::from_micros(12_500), "{waits:?}");
    assert!(waits[1] >= Duration::from_millis(20) && waits[1] <= Duration::from_millis(25), "{waits:?}");
}

#[tokio::test]
async fn a_refused_connection_is_retryable() {
    let config = ApiConfig { base_url: "http://127.0.0.1:9".into(), ..ApiConfig::new("k") };
    let client = Client::new(config, &ClientOptions::new("t", Duration::from_secs(5))).unwrap();
    let error = client.stream(&body(0), &[]).await.unwrap_err();
    assert!(matches!(error, ApiError::Send { .. }), "{error:?}");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_json_reply_to_a_stream_request_becomes_its_events() {
    // The fake answers JSON when the body does not ask for a stream: a proxy that drops `stream`.
    let api = FakeApi::start(|_| Reply::Message {
        content: vec![
            json!({"type": "text", "text": "Plain."}),
            json!({"type": "tool_use", "id": "t1", "name": "Glob", "input": {"pattern": "*.rs"}}),
        ],
        stop_reason: None,
        usage: None,
    });
    let mut request = body(0);
    request["stream"] = json!(false);
    let (events, error) = drain(client(&api).stream(&request, &[]).await.unwrap()).await;
    assert!(error.is_none(), "{error:?}");
    assert!(events.contains(&StreamEvent::ContentBlockDelta { index: 0, delta: Delta::Text("Plain.".into()) }));
    assert!(events.contains(&StreamEvent::ContentBlockDelta {
        index: 1,
        delta: Delta::InputJson(r#"{"pattern":"*.rs"}"#.into())
    }));
    let mut builder = MessageBuilder::new();
    for event in &events {
        builder.apply(event).unwrap();
    }
    let message = builder.finish();
    assert_eq!(message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        message.content[1],
        json!({"type": "tool_use", "id": "t1", "name": "Glob", "input": {"pattern": "*.rs"}})
    );
    assert_eq!(message.to_json()["usage"]["input_tokens"], 100);
}

#[test]
fn streams_and_their_futures_can_move_between_threads() {
    fn send<T: Send>(_: &T) {}
    let api = FakeApi::start(|_| Reply::text("x"));
    let client = client(&api);
    let body = body(0);
    let opening = client.stream(&body, &[]);
    send(&opening);
    let policy = RetryPolicy::default();
    let retrying = client.stream_with_retries(&body, &[], &policy, |_, _, _| {});
    send(&retrying);
    let mut stream = EventStream::from_events([StreamEvent::MessageStop]);
    send(&stream);
    let next = stream.next();
    send(&next);
    send(&ApiError::StreamEnded);
}
