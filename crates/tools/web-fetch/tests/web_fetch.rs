//! WebFetch against real HTTP servers on 127.0.0.1, started by each test: the redirect cases
//! (040: same-host 301/308/relative followed, cross-host reported, loops stopped), the giant,
//! stalled, endless and non-HTML responses (042), URL checks, permission decisions, the cache, and
//! the secondary model through a fake Messages API.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tool_web_fetch::{AnthropicSummarizer, MessagesApiConfig, WebFetchConfig, tool, tool_with};
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
use agent_tools_core::{Tool, ToolUseContext};
use common::{Reply, Request, Server, serve};
use serde_json::{Value, json};

const PROMPT: &str = "Return the page text verbatim";

/// A server of pages and redirects.
async fn redirect_server() -> Server {
    serve(|request: &Request, port: u16| match request.path.as_str() {
        "/docs/balance/" => {
            Reply::ok("text/html; charset=utf-8", "<html><body><h1>Balance</h1><p>Balance docs body</p></body></html>")
        }
        "/new" => Reply::ok("text/html; charset=utf-8", "<html><body><p>New page body</p></body></html>"),
        "/target/" => Reply::ok("text/html; charset=utf-8", "<html><body><p>Relative target body</p></body></html>"),
        "/other" => Reply::ok("text/html; charset=utf-8", "<html><body><p>Other host body</p></body></html>"),
        "/docs/balance" => Reply::redirect(301, "/docs/balance/"),
        "/old" => Reply::redirect(308, "/new"),
        "/rel/start" => Reply::redirect(302, "../target/"),
        "/see-other" => Reply::redirect(303, "/new"),
        "/temporary" => Reply::redirect(307, "/new"),
        "/away" => Reply::redirect(302, &format!("http://127.0.0.1:{port}/other")),
        "/loop" => Reply::redirect(302, "/loop"),
        "/no-location" => Reply::Full { status: 302, reason: "Found", headers: Vec::new(), body: Vec::new() },
        _ => Reply::not_found(),
    })
    .await
}

/// A huge page: 1 MB of inline CSS, 150 KB of script, then the text.
fn huge_page() -> String {
    let mut css = String::new();
    for i in 0..40_000u32 {
        css.push_str(&format!(".c{i}{{color:#{:06x};margin:{}px}}\n", i % 0xff_ffff, i % 50));
    }
    css.truncate(1_000_000);
    let numbers: Vec<String> = (0..30_000).map(|i: u32| i.to_string()).collect();
    let js = format!("var a=[{}];\n", numbers.join(","));
    format!(
        "<html><head><style>{css}</style><script>{js}</script></head><body>\
         <h1>Events</h1><p>NEEDLE-TEXT: events are recorded per session.</p><p>END-OF-PAGE marker</p></body></html>"
    )
}

const JSON_BODY: &str = r#"{"name": "café", "items": [1, 2, 3], "html": "<b>not markup</b>"}"#;
const PLAIN_BODY: &str = "plain text body\n  indented line\n<not a tag>\n";

fn binary_body() -> Vec<u8> {
    (0..=255u8).cycle().take(256 * 64).collect()
}

/// The content server.
async fn content_server() -> Server {
    serve(|request: &Request, _| match request.path.split('?').next().unwrap_or_default() {
        "/huge" => Reply::ok("text/html; charset=utf-8", huge_page()),
        "/slow" => Reply::Stall,
        "/endless" => Reply::Endless {
            content_type: "text/html",
            chunk: format!("<p>{}</p>\n", "spam ".repeat(2000)).into_bytes(),
        },
        "/json" => Reply::ok("application/json", JSON_BODY),
        "/plain" => Reply::ok("text/plain; charset=utf-8", PLAIN_BODY),
        "/latin1" => Reply::ok("text/plain; charset=iso-8859-1", b"caf\xe9 cr\xe8me".to_vec()),
        "/bin" => Reply::ok("application/octet-stream", binary_body()),
        "/markdown" => Reply::ok("text/markdown", "# Title\n\n*kept* as written\n"),
        "/untyped" => Reply::Full { status: 200, reason: "OK", headers: Vec::new(), body: b"no type here".to_vec() },
        _ => Reply::not_found(),
    })
    .await
}

/// Short timeouts for the tests.
fn test_config() -> WebFetchConfig {
    WebFetchConfig {
        connect_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(800),
        overall_timeout: Duration::from_secs(20),
        ..WebFetchConfig::default()
    }
}

struct Fetcher {
    tool: Arc<dyn Tool>,
    ctx: ToolUseContext,
    _dir: tempfile::TempDir,
}

impl Fetcher {
    fn new(config: WebFetchConfig) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ToolUseContext::new(dir.path());
        ctx.options.session_dir = Some(dir.path().join("session"));
        Self { tool: tool_with(config), ctx, _dir: dir }
    }

    /// One call: the result text, whether it is an error, and the output data (on success).
    async fn call(&self, url: &str) -> (String, bool, Value) {
        self.call_with(json!({"url": url, "prompt": PROMPT})).await
    }

    async fn call_with(&self, input: Value) -> (String, bool, Value) {
        let done = call_tool(self.tool.as_ref(), "toolu_wf1", input, &self.ctx).await;
        let data = done.data.as_ref().map_or(Value::Null, |data| data.to_json());
        (done.block.content.text(), done.block.is_error, data)
    }

    async fn ok(&self, url: &str) -> (String, Value) {
        let (text, is_error, data) = self.call(url).await;
        assert!(!is_error, "{url} failed: {text}");
        (text, data)
    }

    async fn err(&self, url: &str) -> String {
        let (text, is_error, _) = self.call(url).await;
        assert!(is_error, "{url} should fail: {text}");
        text
    }
}

// ----- redirects -----

#[tokio::test]
async fn a_same_host_301_to_the_trailing_slash_is_followed_and_the_final_url_named() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    let (text, data) = fetch.ok(&format!("http://localhost:{}/docs/balance", server.port)).await;
    assert_eq!(
        text,
        format!(
            "(Redirected to http://localhost:{}/docs/balance/; the content below is from there.)\n\n# Balance\n\nBalance docs body",
            server.port
        )
    );
    assert_eq!(data["code"], 200);
    assert_eq!(data["codeText"], "OK");
    assert_eq!(data["url"], format!("http://localhost:{}/docs/balance", server.port));
    assert_eq!(data["bytes"], 66);
    assert!(data["durationMs"].is_u64());
    assert_eq!(server.count("/docs/balance"), 1);
    assert_eq!(server.count("/docs/balance/"), 1);
}

#[tokio::test]
async fn permanent_temporary_and_see_other_redirects_are_followed() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    for path in ["/old", "/temporary", "/see-other"] {
        let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}{path}", server.port)).await;
        assert!(text.ends_with("\n\nNew page body"), "{path}: {text}");
    }
}

#[tokio::test]
async fn a_relative_location_is_resolved_against_the_current_url() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    let (text, _) = fetch.ok(&format!("http://localhost:{}/rel/start", server.port)).await;
    assert!(text.contains(&format!("http://localhost:{}/target/", server.port)), "{text}");
    assert!(text.ends_with("Relative target body"), "{text}");
}

#[tokio::test]
async fn a_redirect_to_another_host_is_reported_with_its_target_not_followed() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    let url = format!("http://localhost:{}/away", server.port);
    let (text, data) = fetch.ok(&url).await;
    let target = format!("http://127.0.0.1:{}/other", server.port);
    assert_eq!(
        text,
        format!(
            "REDIRECT DETECTED: The URL redirects to a different host, which is not followed automatically.\n\n\
             Original URL: {url}\nRedirect URL: {target}\nStatus: 302 Found\n\n\
             To get the content, call WebFetch again with the redirect URL and the same prompt:\n\
             - url: \"{target}\"\n- prompt: \"{PROMPT}\""
        )
    );
    assert_eq!(data["code"], 302);
    assert_eq!(data["codeText"], "Found");
    assert_eq!(server.count("/other"), 0, "not followed");
    // Following it is a new call, to the other host.
    let (text, _) = fetch.ok(&target).await;
    assert_eq!(text, "Other host body");
}

#[tokio::test]
async fn a_redirect_loop_stops_after_ten_hops() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    let started = Instant::now();
    let text = fetch.err(&format!("http://localhost:{}/loop", server.port)).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        text,
        format!(
            "Too many redirects: http://localhost:{}/loop was still redirecting after 10 redirects (a redirect loop?).",
            server.port
        )
    );
    assert_eq!(server.count("/loop"), 11, "the first request and ten redirects");
}

#[tokio::test]
async fn a_redirect_without_location_and_an_error_status_are_errors() {
    let server = redirect_server().await;
    let fetch = Fetcher::new(test_config());
    let text = fetch.err(&format!("http://127.0.0.1:{}/no-location", server.port)).await;
    assert_eq!(
        text,
        format!(
            "http://127.0.0.1:{}/no-location answered 302 Found without a usable Location header (none was sent).",
            server.port
        )
    );
    let text = fetch.err(&format!("http://127.0.0.1:{}/missing", server.port)).await;
    assert_eq!(
        text,
        format!("Request failed with status code 404 (Not Found) for http://127.0.0.1:{}/missing", server.port)
    );
}

// ----- giant, stalled, endless and non-HTML responses -----

#[tokio::test]
async fn a_huge_page_with_inline_css_returns_its_text_without_styles_or_scripts() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    let started = Instant::now();
    let (text, data) = fetch.ok(&format!("http://127.0.0.1:{}/huge", server.port)).await;
    assert!(started.elapsed() < Duration::from_secs(15), "took {:?}", started.elapsed());
    assert_eq!(text, "# Events\n\nNEEDLE-TEXT: events are recorded per session.\n\nEND-OF-PAGE marker");
    assert_eq!(data["bytes"], huge_page().len());
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_and_the_next_call_works() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    let started = Instant::now();
    let text = fetch.err(&format!("http://127.0.0.1:{}/slow", server.port)).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(
        text,
        format!(
            "Request timed out: http://127.0.0.1:{}/slow sent nothing for 800 ms (the server accepted the connection but did not answer). Try again later or use another URL.",
            server.port
        )
    );
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/plain", server.port)).await;
    assert_eq!(text, PLAIN_BODY);
}

#[tokio::test]
async fn the_overall_timeout_ends_a_slow_fetch() {
    let server = content_server().await;
    let fetch = Fetcher::new(WebFetchConfig {
        idle_timeout: Duration::from_secs(30),
        overall_timeout: Duration::from_millis(500),
        ..test_config()
    });
    let text = fetch.err(&format!("http://127.0.0.1:{}/slow", server.port)).await;
    assert_eq!(
        text,
        format!("Request timed out: fetching http://127.0.0.1:{}/slow took longer than 500 ms.", server.port)
    );
}

#[tokio::test]
async fn an_endless_body_stops_at_the_byte_cap_and_says_so() {
    let server = content_server().await;
    let fetch = Fetcher::new(WebFetchConfig { max_body_bytes: 64 * 1024, ..test_config() });
    let started = Instant::now();
    let (text, data) = fetch.ok(&format!("http://127.0.0.1:{}/endless", server.port)).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(data["bytes"], 64 * 1024);
    assert!(
        text.starts_with("(The response is larger than the 64KB size limit: only its first 65536 bytes were read, so the content below is truncated.)\n\nspam spam"),
        "{}",
        &text[..200]
    );
}

#[tokio::test]
async fn long_content_is_cut_at_the_character_limit() {
    let server = content_server().await;
    let fetch = Fetcher::new(WebFetchConfig { max_body_bytes: 400 * 1024, ..test_config() });
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/endless", server.port)).await;
    assert!(text.ends_with("\n\n[Content truncated due to length...]"), "{}", &text[text.len() - 100..]);
    let content = text.split_once("\n\n").unwrap().1;
    assert_eq!(content.chars().count(), 100_000 + "\n\n[Content truncated due to length...]".len());
}

#[tokio::test]
async fn json_and_plain_text_are_kept_verbatim() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/json", server.port)).await;
    assert_eq!(text, JSON_BODY);
    assert!(text.contains(r#""html": "<b>not markup</b>""#) && text.contains(r#""name": "café""#));
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/plain", server.port)).await;
    assert_eq!(text, PLAIN_BODY);
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/latin1", server.port)).await;
    assert_eq!(text, "café crème");
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/markdown", server.port)).await;
    assert_eq!(text, "# Title\n\n*kept* as written\n");
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/untyped", server.port)).await;
    assert_eq!(text, "no type here");
}

#[tokio::test]
async fn binary_content_is_saved_not_shown() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    let (text, data) = fetch.ok(&format!("http://127.0.0.1:{}/bin", server.port)).await;
    let saved = fetch.ctx.options.session_dir.as_ref().unwrap().join("tool-results/webfetch-toolu_wf1.bin");
    assert_eq!(
        text,
        format!("Binary content (application/octet-stream, 16384 bytes) is not shown; saved to {}", saved.display())
    );
    assert_eq!(std::fs::read(&saved).unwrap(), binary_body());
    assert_eq!(data["bytes"], 16384);
}

#[tokio::test]
async fn binary_content_without_a_session_folder_is_described_only() {
    let server = content_server().await;
    let tool = tool_with(test_config());
    let ctx = ToolUseContext::new(std::env::temp_dir());
    let done = call_tool(
        tool.as_ref(),
        "t",
        json!({"url": format!("http://127.0.0.1:{}/bin", server.port), "prompt": "x"}),
        &ctx,
    )
    .await;
    assert_eq!(
        done.block.content.text(),
        "Binary content (application/octet-stream, 16384 bytes) is not shown (this session has no folder to save it in)."
    );
}

// ----- the cache -----

#[tokio::test]
async fn a_second_fetch_of_the_same_url_comes_from_the_cache() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    let url = format!("http://127.0.0.1:{}/plain", server.port);
    let first = fetch.ok(&url).await.0;
    let second = fetch.ok(&url).await.0;
    assert_eq!(first, second);
    assert_eq!(server.count("/plain"), 1);
    // The key is the URL string given: another spelling is another entry.
    fetch.ok(&format!("{url}?v=2")).await;
    assert_eq!(server.count("/plain?v=2"), 1);
    // A tool without a cache fetches every time.
    let uncached = Fetcher::new(WebFetchConfig { cache_max_bytes: 0, ..test_config() });
    uncached.ok(&url).await;
    uncached.ok(&url).await;
    assert_eq!(server.count("/plain"), 3);
}

#[tokio::test]
async fn requests_ask_for_markdown_first_and_name_agent_tools() {
    let server = content_server().await;
    let fetch = Fetcher::new(test_config());
    fetch.ok(&format!("http://127.0.0.1:{}/plain", server.port)).await;
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.header("accept"), Some("text/markdown, text/html, */*"));
    assert!(request.header("user-agent").unwrap().starts_with("agent-tools/"), "{:?}", request.header("user-agent"));
}

// ----- URL checks -----

#[tokio::test]
async fn invalid_urls_are_refused_with_a_reason() {
    let fetch = Fetcher::new(test_config());
    let cases = [
        (
            "not a url",
            "<tool_use_error>Invalid URL \"not a url\": it could not be parsed (relative URL without a base). Give a full URL with its scheme, such as https://example.com/page.</tool_use_error>",
        ),
        (
            "ftp://example.com/file",
            "<tool_use_error>Invalid URL \"ftp://example.com/file\": only http:// and https:// URLs can be fetched, not ftp:.</tool_use_error>",
        ),
        (
            "https://user:pw@example.com/",
            "<tool_use_error>Invalid URL \"https://***@example.com/\": URLs with a user name or password are not fetched. Remove the credentials.</tool_use_error>",
        ),
        (
            "http://intranet/wiki",
            "<tool_use_error>Invalid URL \"http://intranet/wiki\": the host name \"intranet\" has no dot. Use the full public host name (such as example.com); of the local hosts only localhost, 127.0.0.1 and [::1] can be fetched.</tool_use_error>",
        ),
    ];
    for (url, expected) in cases {
        assert_eq!(fetch.err(url).await, expected, "{url}");
    }
    let long = format!("https://example.com/{}", "a".repeat(2_000));
    assert_eq!(
        fetch.err(&long).await,
        "<tool_use_error>Invalid URL: it is 2020 characters long; at most 2000 are accepted.</tool_use_error>"
    );
    let (text, is_error, _) = fetch.call_with(json!({"url": "https://example.com/", "prompt": "x", "extra": 1})).await;
    assert!(is_error && text.starts_with("<tool_use_error>InputValidationError"), "{text}");
}

#[tokio::test]
async fn a_refused_connection_is_a_clear_error() {
    // Bind and drop a listener so the port is (almost certainly) closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let fetch = Fetcher::new(test_config());
    let text = fetch.err(&format!("http://127.0.0.1:{port}/")).await;
    // The cause itself, not reqwest's layers repeating the URL.
    assert_eq!(text, format!("Could not connect to http://127.0.0.1:{port}/: Connection refused (os error 111)"));
    // A public http:// URL is fetched over https, and a failure says so.
    let text = fetch.err("http://no-such-host.invalid/page").await;
    assert!(text.starts_with("Could not connect to https://no-such-host.invalid/page: "), "{text}");
    assert!(text.ends_with(" (the http:// URL was fetched over https://, as every public address is)"), "{text}");
}

// ----- permissions -----

async fn decide(rules: &[(PermissionBehavior, &str)], url: &str) -> String {
    let mut permissions = ToolPermissionContext::default();
    for (behavior, rule) in rules {
        permissions = permissions.with_rule(*behavior, PermissionRuleSource::LocalSettings, *rule);
    }
    let mut ctx = ToolUseContext::new("/proj");
    ctx.permission_context = Arc::new(permissions);
    let tool = tool();
    let input = tool.parse(json!({"url": url, "prompt": "x"})).unwrap();
    tool.check_permissions(&input, &ctx).await.behavior().to_owned()
}

#[tokio::test]
async fn domain_rules_and_preapproved_hosts_decide() {
    assert_eq!(
        decide(&[(PermissionBehavior::Allow, "WebFetch(domain:example.com)")], "https://example.com/a").await,
        "allow"
    );
    assert_eq!(
        decide(&[(PermissionBehavior::Deny, "WebFetch(domain:example.com)")], "https://example.com/a").await,
        "deny"
    );
    assert_eq!(
        decide(&[(PermissionBehavior::Ask, "WebFetch(domain:example.com)")], "https://example.com/a").await,
        "ask"
    );
    assert_eq!(
        decide(&[(PermissionBehavior::Allow, "WebFetch(domain:example.com)")], "https://docs.example.com/").await,
        "ask"
    );
    assert_eq!(decide(&[], "https://example.com/").await, "ask");
    assert_eq!(decide(&[], "https://doc.rust-lang.org/std/").await, "allow", "pre-approved documentation");
    assert_eq!(decide(&[(PermissionBehavior::Deny, "WebFetch(domain:docs.rs)")], "https://docs.rs/url").await, "deny");
}

#[test]
fn the_contract_members() {
    let tool = tool();
    assert_eq!(tool.name(), "WebFetch");
    let flags = tool.flags();
    assert!(flags.read_only && flags.concurrency_safe && !flags.destructive && flags.open_world);
    let input = tool.parse(json!({"url": "https://example.com/x", "prompt": "p"})).unwrap();
    assert!(tool.is_read_only(&input) && tool.is_concurrency_safe(&input));
    assert!(tool.should_defer());
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(100_000));
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["url"]["format"], "uri");
    assert_eq!(schema["required"], json!(["url", "prompt"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(tool.summary(&input), "Fetch content from example.com");
}

// ----- the secondary model -----

/// A fake Messages API answering every request with `reply`.
async fn fake_api(reply: Value, status: u16) -> Server {
    serve(move |_, _| Reply::Full {
        status,
        reason: if status == 200 { "OK" } else { "Internal Server Error" },
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: reply.to_string().into_bytes(),
    })
    .await
}

fn with_model(api: &Server) -> WebFetchConfig {
    let summarizer = AnthropicSummarizer::new(MessagesApiConfig {
        base_url: format!("http://127.0.0.1:{}", api.port),
        model: "claude-haiku-test".into(),
        ..MessagesApiConfig::new("sk-test-key")
    });
    WebFetchConfig { summarizer: Some(Arc::new(summarizer)), ..test_config() }
}

#[tokio::test]
async fn the_secondary_model_answers_the_prompt_about_the_page() {
    let pages = content_server().await;
    let api = fake_api(json!({"content": [{"type": "text", "text": "The page says: plain text body."}, {"type": "text", "text": "ignored"}]}), 200).await;
    let fetch = Fetcher::new(with_model(&api));
    let url = format!("http://127.0.0.1:{}/plain", pages.port);
    let (text, is_error, _) = fetch.call_with(json!({"url": url, "prompt": "What does the page say?"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "The page says: plain text body.");
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(request.header("x-api-key"), Some("sk-test-key"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["model"], "claude-haiku-test");
    let message = body["messages"][0]["content"].as_str().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    assert!(message.contains(PLAIN_BODY), "{message}");
    assert!(message.contains("What does the page say?"), "{message}");
    assert!(message.contains(&url), "{message}");
}

#[tokio::test]
async fn a_reply_without_text_is_no_response_and_a_failing_model_gives_the_content() {
    let pages = content_server().await;
    let empty = fake_api(json!({"content": []}), 200).await;
    let fetch = Fetcher::new(with_model(&empty));
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/json", pages.port)).await;
    assert_eq!(text, "No response from model");

    let broken = fake_api(json!({"error": {"type": "overloaded_error"}}), 500).await;
    let fetch = Fetcher::new(with_model(&broken));
    let (text, _) = fetch.ok(&format!("http://127.0.0.1:{}/json", pages.port)).await;
    assert!(
        text.starts_with(
            "(The page could not be passed to the summarizing model: the model API answered 500 Internal Server Error: "
        ),
        "{text}"
    );
    assert!(text.ends_with(&format!(". Its content follows as fetched.)\n\n{JSON_BODY}")), "{text}");
}

#[tokio::test]
async fn cancelling_the_call_ends_a_stalled_fetch_at_once() {
    let server = content_server().await;
    let fetch = Fetcher::new(WebFetchConfig { idle_timeout: Duration::from_secs(30), ..test_config() });
    // The cancel comes once the request has reached the (stalling) server.
    let cancelling = async {
        let arrived = agent_tools_testkit::eventually(Duration::from_secs(10), || server.count("/slow") > 0).await;
        assert!(arrived, "the fetch never reached the server");
        fetch.ctx.cancel.cancel();
    };
    let started = Instant::now();
    let url = format!("http://127.0.0.1:{}/slow", server.port);
    let (text, ()) = tokio::join!(fetch.err(&url), cancelling);
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(text, "[Request interrupted by user for tool use]");
}
