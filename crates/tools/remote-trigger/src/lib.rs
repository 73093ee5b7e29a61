//! # agent-tool-remote-trigger: the RemoteTrigger tool
//!
//! Lists, reads, creates, changes and runs the user's remote triggers (scheduled cloud agents)
//! through the triggers API, as Claude Code's `RemoteTrigger` tool does.
//!
//! - **Input** `{action: "list" | "get" | "create" | "update" | "run", trigger_id?, body?}`
//!   (strict). `trigger_id` (letters, digits, `_`, `-`: Claude Code's `^[\w-]+$`) is required
//!   for get, update and run; `body` (a JSON object) for create and update, optional for run.
//!   `validate_input` refuses what is missing or malformed (codes 1, 2 and 3, see
//!   [`api::plan`]) before any request is made.
//! - **Requests** (below [`RemoteTriggerConfig::base_url`]): list ⇒ `GET /v1/code/triggers`;
//!   get ⇒ `GET /v1/code/triggers/{id}`; create ⇒ `POST /v1/code/triggers`; update ⇒
//!   `POST /v1/code/triggers/{id}`; run ⇒ `POST /v1/code/triggers/{id}/run` with the body or
//!   `{}`. Headers `Authorization: Bearer <token>` (marked sensitive), `anthropic-beta:
//!   ccr-triggers-2026-01-30` ([`BETA`]), `anthropic-version: 2023-06-01`, `content-type:
//!   application/json`. Redirects are not followed (the answer is the redirect's status).
//! - **Output** `{status, json}` ([`RemoteTriggerOutput`]); the result text is `HTTP <status>`,
//!   a newline, and the body exactly as the server sent it ([`result_text`]). Any status is a
//!   normal result: the model reads a 404 or a 400 and acts on it.
//! - **Failures** (error results): no answer within [`RemoteTriggerConfig::timeout`] (default
//!   20 s, the whole request and its body), no connection or a broken response, a tool that is
//!   not configured. Cancelling the call (`ctx.cancel`) drops the request at once.
//! - **Flags** as Claude Code's: deferred, concurrency-safe, read-only for list and get;
//!   open-world. **Permission** stricter than Claude Code's default allow: list and get are
//!   allowed, create, update and run (they change what runs on the user's cloud account) ask
//!   `Run trigger t1 (RemoteTrigger)` unless a rule allows them.
//!
//! The base URL must be `https://`; `http://` is accepted only for loopback hosts (local
//! servers, tests). The tool is enabled only with a token and a usable base URL; the token
//! never appears in `Debug` output or messages.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::io::{Read, Write};
//! use agent_tool_remote_trigger::{RemoteTriggerConfig, tool_with};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! // A local triggers API with one answer.
//! let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
//! let base_url = format!("http://{}", server.local_addr().unwrap());
//! let seen = std::thread::spawn(move || {
//!     let (mut stream, _) = server.accept().unwrap();
//!     let mut request = [0; 4096];
//!     let n = stream.read(&mut request).unwrap();
//!     let body = r#"{"data":[{"id":"trg_1","name":"nightly"}]}"#;
//!     let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close";
//!     write!(stream, "{head}\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
//!     String::from_utf8_lossy(&request[..n]).into_owned()
//! });
//! let config = RemoteTriggerConfig::new(base_url, "sk-secret");
//! assert!(!format!("{config:?}").contains("sk-secret"));
//! let triggers = tool_with(config);
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! let done = call_tool(triggers.as_ref(), "toolu_1", serde_json::json!({"action": "list"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "HTTP 200\n{\"data\":[{\"id\":\"trg_1\",\"name\":\"nightly\"}]}");
//! let request = seen.join().unwrap();
//! assert!(request.starts_with("GET /v1/code/triggers HTTP/1.1\r\n"));
//! assert!(request.contains("authorization: Bearer sk-secret\r\n"));
//! assert!(request.contains("anthropic-beta: ccr-triggers-2026-01-30\r\n"));
//! # });
//! ```

pub mod api;
mod input;
mod render;

use agent_tools_core::{Capabilities, ToolKind};
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use agent_tools_core::PermissionResult;
use agent_tools_core::secret::Redacted;
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use serde_json::Value;
use url::Url;

pub use crate::api::BETA;
pub use crate::input::{Action, RemoteTriggerInput};
pub use crate::render::{NOT_CONFIGURED, RemoteTriggerOutput, result_text};

/// The API name.
pub const NAME: &str = "RemoteTrigger";

/// The triggers API's usual base URL (the Anthropic API).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The default limit on one request, answer included: 20 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// The User-Agent sent.
pub const USER_AGENT: &str = concat!("agent-tools/", env!("CARGO_PKG_VERSION"), " RemoteTrigger");

/// Where the triggers API is and how to authenticate. The host fills it in (library code reads
/// no environment); `Debug` shows the token as `<redacted>`.
#[derive(Clone)]
pub struct RemoteTriggerConfig {
    /// The API's base URL, e.g. [`DEFAULT_BASE_URL`]; a path prefix is kept. `https://`, or
    /// `http://` for a loopback host only.
    pub base_url: String,
    /// The OAuth access token sent as `Authorization: Bearer <token>`. Empty: the tool is
    /// disabled.
    pub token: String,
    /// The longest one request may take, connection, answer and body together (default
    /// [`DEFAULT_TIMEOUT`]).
    pub timeout: Duration,
}

impl RemoteTriggerConfig {
    /// A config for `base_url` and `token` with the default timeout.
    pub fn new(base_url: impl Into<String>, token: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), token: token.into(), timeout: DEFAULT_TIMEOUT }
    }

    /// Checks the config as the tool will use it: a usable base URL ([`api::check_base_url`])
    /// and a token.
    ///
    /// # Errors
    /// The message a call would fail with (it starts with [`NOT_CONFIGURED`]; never the
    /// token).
    pub fn check(&self) -> Result<Url, String> {
        let url = api::check_base_url(&self.base_url)?;
        if self.token.is_empty() {
            return Err(render::no_token());
        }
        Ok(url)
    }
}

impl Default for RemoteTriggerConfig {
    /// [`DEFAULT_BASE_URL`], no token (so disabled), [`DEFAULT_TIMEOUT`].
    fn default() -> Self {
        Self::new(DEFAULT_BASE_URL, "")
    }
}

impl fmt::Debug for RemoteTriggerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteTriggerConfig")
            .field("base_url", &self.base_url)
            .field("token", &Redacted(&self.token))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The RemoteTrigger tool definition: its config and its HTTP client (made on first use).
#[derive(Debug)]
pub struct RemoteTriggerTool {
    config: RemoteTriggerConfig,
    base: Result<Url, String>,
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl RemoteTriggerTool {
    /// A tool with this config (checked once here; a bad one disables the tool).
    pub fn new(config: RemoteTriggerConfig) -> Self {
        let base = config.check();
        Self { config, base, client: OnceLock::new() }
    }

    /// The config.
    pub fn config(&self) -> &RemoteTriggerConfig {
        &self.config
    }

    fn client(&self, base: &Url) -> Result<&reqwest::Client, ToolError> {
        let client = self.client.get_or_init(|| {
            // reqwest is built without a crypto provider of its own; ring is ours. A second
            // install (another tool did it) is refused harmlessly.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).user_agent(USER_AGENT);
            // A local server is never reached through a proxy.
            let builder = if api::is_loopback(base) { builder.no_proxy() } else { builder };
            builder.build().map_err(|error| format!("The HTTP client could not be set up: {error}"))
        });
        client.as_ref().map_err(|error| ToolError::failed(error.clone()))
    }
}

/// RemoteTrigger with this config, ready for the host.
pub fn tool_with(config: RemoteTriggerConfig) -> Arc<dyn Tool> {
    build_tool(RemoteTriggerTool::new(config))
}

/// A short phrase for the call (`List triggers`, `Run trigger trg_1`).
fn describe(input: &RemoteTriggerInput) -> String {
    let id = input.trigger_id.as_deref().unwrap_or("?");
    match input.action {
        Action::List => "List triggers".to_owned(),
        Action::Get => format!("Get trigger {id}"),
        Action::Create => "Create a trigger".to_owned(),
        Action::Update => format!("Update trigger {id}"),
        Action::Run => format!("Run trigger {id}"),
    }
}

impl ToolDef for RemoteTriggerTool {
    type Input = RemoteTriggerInput;
    type Output = RemoteTriggerOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Reaches the network; changes remote state for create, update and run (so not read-only
    // as a whole); nothing is deleted; concurrency-safe as in Claude Code.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Fetch)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: false, open_world: true })
        .deferred()
        .search_hint("list, create, update or run scheduled remote agent triggers");

    fn summary(&self, input: &RemoteTriggerInput) -> String {
        describe(input)
    }

    /// List and get only read.
    fn is_read_only(&self, input: &RemoteTriggerInput) -> bool {
        input.action.is_read()
    }

    /// Only with a token and a usable base URL.
    fn is_enabled(&self) -> bool {
        self.base.is_ok()
    }

    fn activity_description(&self, input: &RemoteTriggerInput) -> Option<String> {
        Some(describe(input))
    }

    /// What the call does, for the auto mode's classifier: the action and the trigger.
    fn to_auto_classifier_input(&self, input: &RemoteTriggerInput) -> Value {
        Value::String(describe(input))
    }

    /// Reads (`list`, `get`) are allowed; `create`, `update` and `run` change what runs in the
    /// cloud on the user's account, so they ask (`Run trigger t1 (RemoteTrigger)`) unless a rule
    /// allows them — stricter than Claude Code, which leaves them to its default allow.
    async fn check_permissions(&self, input: &RemoteTriggerInput, _ctx: &ToolUseContext) -> PermissionResult {
        if input.action.is_read() {
            return PermissionResult::allow();
        }
        PermissionResult::ask(render::approval(&describe(input)))
    }

    /// A missing `trigger_id` (code 1), a malformed one (code 2), a missing `body` (code 3).
    async fn validate_input(&self, input: &RemoteTriggerInput, _ctx: &ToolUseContext) -> ValidationResult {
        match api::plan(input) {
            Ok(_) => ValidationResult::Ok,
            Err(refusal) => ValidationResult::error(refusal.message, refusal.code),
        }
    }

    async fn call(
        &self,
        input: RemoteTriggerInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<RemoteTriggerOutput>, ToolError> {
        let planned = api::plan(&input).map_err(|refusal| ToolError::failed(refusal.message))?;
        let base = self.base.as_ref().map_err(|error| ToolError::failed(error.clone()))?;
        let client = self.client(base)?;
        let url = api::join(base, &planned.path).map_err(ToolError::failed)?;
        let shown = url.to_string();
        let method = planned.method.as_str();
        let work = tokio::time::timeout(self.config.timeout, api::send(client, url, &self.config.token, &planned));
        let answer = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            done = work => done,
        };
        let answer = match answer {
            Err(_elapsed) => return Err(ToolError::failed(render::timed_out(method, &shown, self.config.timeout))),
            Ok(Err(error)) => return Err(ToolError::failed(render::request_failed(method, &shown, &error.detail()))),
            Ok(Ok(answer)) => answer,
        };
        Ok(ToolResult::new(RemoteTriggerOutput { status: answer.status, json: answer.body }))
    }

    fn map_tool_result(&self, output: &RemoteTriggerOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, result_text(output))
    }
}
