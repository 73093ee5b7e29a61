//! # agent-tool-web-fetch: the WebFetch tool
//!
//! Fetches a URL and answers a prompt about it, as Claude Code's `WebFetch` does: input `url`
//! and `prompt` (a strict object), read-only and concurrency-safe, results up to 100,000
//! characters, output fields `bytes`, `code`, `codeText`, `result`, `durationMs`, `url`, and the
//! `tool_result` text is `result`.
//!
//! What a call does, in order:
//! 1. **URL checks** ([`target::check_url`]): an absolute http(s) URL of at most 2,000
//!    characters, without user name or password, whose host has a dot; `http:` is upgraded to
//!    `https:`. Loopback hosts (`localhost`, `127.0.0.0/8`, `[::1]`) are the exception: allowed
//!    and fetched as given, so local development servers can be read.
//! 2. **Permissions** ([`rules::check_web_fetch_permission`]):
//!    `WebFetch(domain:<host>)` deny, ask and allow rules, and a list of pre-approved
//!    documentation hosts ([`preapproved::PREAPPROVED`]); anything else asks.
//! 3. **Cache** ([`cache::PageCache`]): pages by the URL string given, for 15 minutes, 50 MB in
//!    all, least recently used out first.
//! 4. **Fetch** ([`fetch::fetch`]): `Accept: text/markdown, text/html, */*`, a User-Agent naming
//!    agent-tools; redirects followed by hand only to the same host (a leading `www.` aside),
//!    scheme and port, at most 10 of them; a redirect elsewhere comes back as a
//!    `REDIRECT DETECTED:` result naming the new URL (not an error). Timeouts: 10 s to connect,
//!    30 s without a byte, 60 s in all (each a clear error; cancellation is honoured at any
//!    point). The body is streamed and read to 10 MB at most.
//! 5. **Content** ([`content`]): HTML (style, script and noscript contents dropped) becomes
//!    Markdown with htmd; text types (plain, Markdown, JSON, XML, JavaScript …) are kept verbatim,
//!    decoded by their charset; binary bodies are saved under the session's `tool-results` folder
//!    and never shown. Content over 100,000 characters is cut with
//!    `[Content truncated due to length...]`.
//! 6. **Secondary model** ([`model::Summarizer`]): the content and the prompt go to a small, fast
//!    model whose first text block is the result ([`model::AnthropicSummarizer`] asks the
//!    Anthropic Messages API). Without a summarizer, or for short Markdown from a pre-approved
//!    host (as in Claude Code), the content itself is the result.
//!
//! ## Deliberate differences from Claude Code
//! - Claude Code first asks `api.anthropic.com/api/web/domain_info` whether a domain may be
//!   fetched, and refuses when that check cannot be made (offline, behind a firewall). This tool
//!   makes no such call: the permission rules decide.
//! - Loopback hosts are allowed over plain http (Claude Code refuses a host without a dot).
//! - 303 is followed like the other redirects; hops are limited to 10.
//! - JSON, XML and other text bodies are kept verbatim; binary bodies are never put in the
//!   result (Claude Code decodes them as text and appends the saved path).
//! - A body past the 10 MB cap is cut and marked instead of failing the call; the idle timeout
//!   ends a fetch from a server that accepts and never answers.
//! - When the secondary model fails, the content is returned with a note instead of an error.
//! - After same-host redirects the result starts with a line naming the final URL.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::io::{Read, Write};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! // A local server with one page (loopback hosts are fetched over plain http).
//! let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
//! let url = format!("http://{}/page", server.local_addr().unwrap());
//! std::thread::spawn(move || {
//!     let (mut stream, _) = server.accept().unwrap();
//!     let _ = stream.read(&mut [0; 4096]).unwrap();
//!     let body = "<html><body><h1>Title</h1><p>Hello <b>there</b>.</p></body></html>";
//!     let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close";
//!     write!(stream, "{head}\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
//! });
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! let fetch = agent_tool_web_fetch::tool(); // no summarizer model: the page itself is the result
//! let input = serde_json::json!({"url": url, "prompt": "What is the title?"});
//! let done = call_tool(fetch.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "# Title\n\nHello **there**.");
//! let refused = serde_json::json!({"url": "https://user:pw@example.com/", "prompt": "?"});
//! let done = call_tool(fetch.as_ref(), "toolu_2", refused, &ctx).await;
//! assert!(done.block.is_error && done.block.content.text().contains("user name or password"));
//! # });
//! ```

pub mod cache;
pub mod content;
pub mod fetch;
mod input;
pub mod model;
pub mod preapproved;
mod render;
pub mod rules;
pub mod target;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use agent_tools_core::PermissionResult;
use agent_tools_core::{
    MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};

pub use crate::input::WebFetchInput;
pub use crate::model::{AnthropicSummarizer, MessagesApiConfig, Summarizer, SummaryError, SummaryRequest};
pub use crate::render::{TRUNCATED_MARKER, WebFetchOutput};
pub use crate::rules::{PreapprovedHosts, check_web_fetch_permission, domain_rule_key};

use crate::cache::PageCache;
use crate::fetch::{FetchError, Fetched, Page, SaveTo};

/// The API name.
pub const NAME: &str = "WebFetch";

/// Most characters of content passed on (Claude Code's `MAX_MARKDOWN_LENGTH`), and the tool's
/// result-size limit.
pub const MAX_CONTENT_CHARS: usize = 100_000;

/// The User-Agent sent.
pub const USER_AGENT: &str =
    concat!("agent-tools/", env!("CARGO_PKG_VERSION"), " WebFetch (+https://github.com/agent-tools/agent-tools)");

/// WebFetch's settings. [`Default`] gives Claude Code's limits and no secondary model.
#[derive(Debug, Clone)]
pub struct WebFetchConfig {
    /// Longest wait for a connection (default 10 s).
    pub connect_timeout: Duration,
    /// Longest wait for the next byte of an answer, headers or body (default 30 s).
    pub idle_timeout: Duration,
    /// Longest a whole fetch may take, redirects included (default 60 s).
    pub overall_timeout: Duration,
    /// Most bytes of body read; the rest is not downloaded (default 10 MiB).
    pub max_body_bytes: usize,
    /// Most same-host redirects followed (default 10).
    pub max_redirects: usize,
    /// Most characters of content passed on (default [`MAX_CONTENT_CHARS`]).
    pub max_content_chars: usize,
    /// How long a fetched page is reused (default 15 minutes).
    pub cache_ttl: Duration,
    /// Most bytes of page text cached (default 50 MiB; 0 turns the cache off).
    pub cache_max_bytes: usize,
    /// The `User-Agent` header (default [`USER_AGENT`]).
    pub user_agent: String,
    /// Hosts fetched without asking (default [`preapproved::preapproved_hosts`]).
    pub preapproved: PreapprovedHosts,
    /// The secondary model; `None` returns the content itself.
    pub summarizer: Option<Arc<dyn Summarizer>>,
}

impl Default for WebFetchConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            overall_timeout: Duration::from_secs(60),
            max_body_bytes: 10 * 1024 * 1024,
            max_redirects: 10,
            max_content_chars: MAX_CONTENT_CHARS,
            cache_ttl: Duration::from_secs(15 * 60),
            cache_max_bytes: 50 * 1024 * 1024,
            user_agent: USER_AGENT.to_owned(),
            preapproved: preapproved::preapproved_hosts(),
            summarizer: None,
        }
    }
}

fn client_builder(connect: Option<Duration>, user_agent: &str) -> reqwest::ClientBuilder {
    // reqwest is built without a crypto provider of its own; ring is ours. Installing it a
    // second time (another client, another tool) is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).user_agent(user_agent);
    match connect {
        Some(connect) => builder.connect_timeout(connect),
        None => builder,
    }
}

/// The WebFetch tool definition: its settings, its page cache and its HTTP clients.
#[derive(Debug)]
pub struct WebFetchTool {
    config: WebFetchConfig,
    cache: PageCache,
    /// For public hosts (proxy settings from the environment apply).
    client: OnceLock<Result<reqwest::Client, String>>,
    /// For loopback hosts (never through a proxy).
    local_client: OnceLock<Result<reqwest::Client, String>>,
}

impl WebFetchTool {
    /// A tool with these settings and an empty cache.
    pub fn new(config: WebFetchConfig) -> Self {
        let cache = PageCache::new(config.cache_ttl, config.cache_max_bytes);
        Self { config, cache, client: OnceLock::new(), local_client: OnceLock::new() }
    }

    /// The settings.
    pub fn config(&self) -> &WebFetchConfig {
        &self.config
    }

    fn client(&self, loopback: bool) -> Result<&reqwest::Client, ToolError> {
        let slot = if loopback { &self.local_client } else { &self.client };
        let client = slot.get_or_init(|| {
            let builder = client_builder(Some(self.config.connect_timeout), &self.config.user_agent);
            let builder = if loopback { builder.no_proxy() } else { builder };
            builder.build().map_err(|err| format!("The HTTP client could not be set up: {err}"))
        });
        client.as_ref().map_err(|err| ToolError::failed(err.clone()))
    }

    /// The page for `url` (from the cache, else fetched), or a cross-host redirect report.
    async fn page(&self, input: &WebFetchInput, url: url::Url, ctx: &ToolUseContext) -> Result<Fetched, ToolError> {
        if let Some(page) = self.cache.get(&input.url) {
            return Ok(Fetched::Page(page));
        }
        let client = self.client(target::url_is_loopback(&url))?;
        let upgraded =
            url.scheme() == "https" && input.url.get(..7).is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
        let save = SaveTo { session_dir: ctx.options.session_dir.clone(), name: file_name(ctx) };
        let work = tokio::time::timeout(self.config.overall_timeout, fetch::fetch(client, url, &self.config, &save));
        let fetched = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            done = work => match done {
                Err(_) => Err(FetchError::Overall { url: input.url.clone(), timeout: self.config.overall_timeout }),
                Ok(result) => result,
            },
        }
        .map_err(|err| {
            let message = match err {
                FetchError::Connect { .. } | FetchError::Transport { .. } if upgraded => {
                    format!("{err} (the http:// URL was fetched over https://, as every public address is)")
                }
                _ => err.to_string(),
            };
            ToolError::failed(message)
        })?;
        if let Fetched::Page(page) = &fetched {
            self.cache.put(&input.url, page.clone());
        }
        Ok(fetched)
    }

    /// The result text for a page: the content, or the secondary model's answer about it, after
    /// the notes on redirects and the byte cap.
    async fn answer(
        &self,
        input: &WebFetchInput,
        page: &Page,
        preapproved: bool,
        ctx: &ToolUseContext,
    ) -> Result<String, ToolError> {
        let max_chars = self.config.max_content_chars;
        let (content, truncated) = render::truncate_content(&page.text, max_chars);
        let raw_markdown =
            preapproved && page.content_type.to_ascii_lowercase().contains("text/markdown") && !truncated;
        let mut notes = Vec::new();
        if page.redirected {
            notes.push(render::redirected_note(&page.final_url));
        }
        if page.capped {
            notes.push(render::capped_note(self.config.max_body_bytes));
        }
        let body = match (&self.config.summarizer, raw_markdown) {
            (Some(summarizer), false) => {
                let request =
                    model::SummaryRequest { url: &input.url, prompt: &input.prompt, content: &content, preapproved };
                let answer = tokio::select! {
                    biased;
                    () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
                    answer = summarizer.summarize(request) => answer,
                };
                match answer {
                    Ok(text) => text,
                    Err(error) => {
                        tracing::warn!(%error, "WebFetch's secondary model failed; returning the content");
                        notes.push(render::model_failed_note(&error.to_string()));
                        content
                    }
                }
            }
            _ => content,
        };
        notes.push(body);
        Ok(notes.join("\n\n"))
    }
}

impl Default for WebFetchTool {
    fn default() -> Self {
        Self::new(WebFetchConfig::default())
    }
}

/// A file name for a saved body: the `tool_use` id, else a unique stamp.
fn file_name(ctx: &ToolUseContext) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    ctx.tool_use_id.clone().unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        format!("{nanos:x}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
    })
}

/// WebFetch with the default settings (no secondary model: results are the content itself).
pub fn tool() -> Arc<dyn Tool> {
    build_tool(WebFetchTool::default())
}

/// WebFetch with these settings.
pub fn tool_with(config: WebFetchConfig) -> Arc<dyn Tool> {
    build_tool(WebFetchTool::new(config))
}

fn host_of(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|url| url.host_str().map(str::to_owned)).unwrap_or_else(|| url.to_owned())
}

impl ToolDef for WebFetchTool {
    type Input = WebFetchInput;
    type Output = WebFetchOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Reads the network only: read-only, concurrency-safe, never destructive, open-world.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Fetch)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: true })
        .deferred()
        .search_hint("fetch and extract content from a URL");

    fn summary(&self, input: &WebFetchInput) -> String {
        format!("Fetch content from {}", host_of(&input.url))
    }

    /// What the auto mode's classifier judges: The address and what is asked of it.
    fn to_auto_classifier_input(&self, input: &WebFetchInput) -> serde_json::Value {
        serde_json::Value::String(format!("{}: {}", input.url, input.prompt))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_CONTENT_CHARS)
    }

    fn user_facing_name(&self, _input: Option<&WebFetchInput>) -> String {
        "Fetch".to_owned()
    }

    fn activity_description(&self, input: &WebFetchInput) -> Option<String> {
        Some(format!("Fetching {}", input.url))
    }

    /// Claude Code's URL checks (code 1), loopback hosts allowed (see [`target::check_url`]).
    async fn validate_input(&self, input: &WebFetchInput, _ctx: &ToolUseContext) -> ValidationResult {
        match target::check_url(&input.url) {
            Ok(_) => ValidationResult::Ok,
            Err(error) => ValidationResult::error(error.to_string(), 1),
        }
    }

    /// `WebFetch(domain:<host>)` rules and the pre-approved hosts (see
    /// [`rules`]).
    async fn check_permissions(&self, input: &WebFetchInput, ctx: &ToolUseContext) -> PermissionResult {
        check_web_fetch_permission(NAME, &input.url, &self.config.preapproved, ctx)
    }

    async fn call(&self, input: WebFetchInput, ctx: &ToolUseContext) -> Result<ToolResult<WebFetchOutput>, ToolError> {
        let started = Instant::now();
        let url = target::check_url(&input.url).map_err(|err| ToolError::failed(err.to_string()))?;
        let preapproved = self.config.preapproved.covers(&url);
        let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let output = match self.page(&input, url, ctx).await? {
            Fetched::Redirect(redirect) => {
                let result = render::redirect_detected(&redirect, &input.prompt);
                WebFetchOutput {
                    bytes: result.len() as u64,
                    code: redirect.code,
                    code_text: redirect.code_text,
                    result,
                    duration_ms: elapsed(),
                    url: input.url,
                }
            }
            Fetched::Page(page) => {
                let result = self.answer(&input, &page, preapproved, ctx).await?;
                WebFetchOutput {
                    bytes: page.bytes,
                    code: page.code,
                    code_text: page.code_text,
                    result,
                    duration_ms: elapsed(),
                    url: input.url,
                }
            }
        };
        Ok(ToolResult::new(output))
    }

    fn map_tool_result(&self, output: &WebFetchOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
