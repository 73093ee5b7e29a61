//! # agent-tools-mcp-auth: the McpAuth pseudo-tool
//!
//! Claude Code offers, for a configured MCP server that needs OAuth, a single tool
//! `mcp__<server>__authenticate` in place of the server's real tools. Its input is `{}`; a call
//! starts the sign-in without opening a browser and returns
//! `{status: "auth_url" | "unsupported" | "error", message, authUrl?}`, whose `message` is the
//! `tool_result` text: it asks the model to have the user open the URL. When the sign-in
//! completes, the server's real tools replace the pseudo-tool.
//!
//! This crate is that tool for one server, built from a [`McpAuthConfig`]: the final tool name
//! (normalised by the caller as MCP tool names are), the server, how to sign in
//! ([`AuthTarget`]: an HTTP server's URL, token store and options, or the reason it cannot be
//! done here), and `on_authorized`, run once the tokens are stored — where the MCP client
//! reconnects the server and swaps its real tools in. A second call while a sign-in is pending
//! returns the same URL; a call after a failed or finished one starts a new sign-in.
//!
//! Deferred like every MCP tool (it has [`McpInfo`]), not read-only, not concurrency-safe,
//! permission allow, results capped at 10,000 characters.
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{ToolUseContext, call_tool};
//! use agent_tools_mcp_auth::{AuthTarget, McpAuthConfig, OnAuthorized, tool};
//!
//! let on_authorized: OnAuthorized = Arc::new(|| Box::pin(async { Ok(()) }));
//! let config = McpAuthConfig {
//!     tool_name: "mcp__local-files__authenticate".to_owned(),
//!     server_name: "local-files".to_owned(),
//!     target: AuthTarget::Unsupported { reason: "it is a stdio server".to_owned() },
//!     on_authorized,
//! };
//! let auth = tool(config);
//! assert_eq!(auth.name(), "mcp__local-files__authenticate");
//! assert!(agent_tools_core::is_deferred(auth.as_ref()));
//!
//! let dir = tempfile::tempdir().unwrap();
//! let done = call_tool(auth.as_ref(), "toolu_1", serde_json::json!({}), &ToolUseContext::new(dir.path())).await;
//! let output = done.data.unwrap().to_json();
//! assert_eq!(output["status"], "unsupported");
//! assert_eq!(
//!     done.block.content.text(),
//!     "The MCP server \"local-files\" cannot be signed in to from here: it is a stdio server. Tell the user: \
//!      it has to be authenticated outside agent-tools, and then its tools can be tried again."
//! );
//! # });
//! ```

use std::sync::Arc;

use agent_tools_core::{BoxFuture, McpInfo};
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    build_tool,
};
use agent_tools_mcp_oauth::{AuthorizeOptions, OAuthStore, authorize};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

/// The tool name's last part: `mcp__<server>__authenticate` (Claude Code's McpAuth tool).
pub const TOOL_SUFFIX: &str = "authenticate";

/// Most characters of a result (Claude Code's `maxResultSizeChars` for McpAuth).
pub const MAX_RESULT_CHARS: usize = 10_000;

/// What runs once the sign-in stored its tokens: the MCP client reconnects the server and puts
/// its real tools in place of this one. An `Err` is the reason that failed, told to the model on
/// the next call.
pub type OnAuthorized = Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

/// How the server is signed in to.
#[derive(Debug, Clone)]
pub enum AuthTarget {
    /// A Streamable HTTP (or SSE) server reached at `url`, signed in to with OAuth
    /// ([`agent_tools_mcp_oauth::authorize`]); the tokens go to `store`.
    Http {
        /// The server's MCP endpoint.
        url: String,
        /// The token store of the user's config folder.
        store: OAuthStore,
        /// Client id, scopes, callback port, the flow's timeout, the 401's challenge.
        options: AuthorizeOptions,
    },
    /// A server this tool cannot sign in to (a stdio server, a connector managed elsewhere):
    /// calls answer `status: "unsupported"` with `reason`.
    Unsupported {
        /// Why, as the end of a sentence ("it is a stdio server").
        reason: String,
    },
}

/// The tool's settings (see the crate docs).
pub struct McpAuthConfig {
    /// The API name, `mcp__<server>__authenticate` with the server name normalised as the MCP
    /// client normalises it for the server's other tools.
    pub tool_name: String,
    /// The server's name as configured.
    pub server_name: String,
    /// How to sign in.
    pub target: AuthTarget,
    /// Run once the tokens are stored.
    pub on_authorized: OnAuthorized,
}

impl std::fmt::Debug for McpAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpAuthConfig")
            .field("tool_name", &self.tool_name)
            .field("server_name", &self.server_name)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// The input: `{}` (nothing else is accepted).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpAuthInput {}

/// How a call went (`status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpAuthStatus {
    /// A sign-in is waiting for the user at `authUrl`.
    AuthUrl,
    /// This server cannot be signed in to from here.
    Unsupported,
    /// The sign-in could not start.
    Error,
}

/// The output, Claude Code's shape: `{status, message, authUrl?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpAuthOutput {
    /// How the call went.
    pub status: McpAuthStatus,
    /// The text the model reads (the `tool_result`).
    pub message: String,
    /// The URL for the user, with `status: "auth_url"`.
    #[serde(rename = "authUrl", skip_serializing_if = "Option::is_none")]
    pub auth_url: Option<String>,
}

/// Where the sign-in is.
enum Flow {
    /// None running; `last_error` says why the previous one did not end well.
    Idle { last_error: Option<String> },
    /// Waiting for the user at `auth_url`.
    Pending { auth_url: String },
}

/// The McpAuth tool of one server (use [`tool`] for the `Arc<dyn Tool>`).
pub struct McpAuthTool {
    config: McpAuthConfig,
    flow: Arc<Mutex<Flow>>,
}

impl std::fmt::Debug for McpAuthTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpAuthTool").field("config", &self.config).finish_non_exhaustive()
    }
}

impl McpAuthTool {
    /// The tool for `config`.
    pub fn new(config: McpAuthConfig) -> Self {
        Self { config, flow: Arc::new(Mutex::new(Flow::Idle { last_error: None })) }
    }

    /// The URL of the sign-in waiting for the user, if one is.
    pub async fn pending_url(&self) -> Option<String> {
        match &*self.flow.lock().await {
            Flow::Pending { auth_url } => Some(auth_url.clone()),
            Flow::Idle { .. } => None,
        }
    }

    fn waiting_message(&self, auth_url: &str, minutes: u64, last_error: Option<&str>) -> String {
        let before =
            last_error.map(|error| format!("The previous sign-in did not complete ({error}). ")).unwrap_or_default();
        format!(
            "{before}The MCP server \"{server}\" needs the user to sign in before its tools can be used. Ask the user \
             to open this URL in their browser and approve access:\n\n{auth_url}\n\nOnce they have, the server's \
             tools take the place of this one. Calling this tool again before then returns the same URL; the \
             sign-in stops waiting after {minutes} minute{s}.",
            server = self.config.server_name,
            s = if minutes == 1 { "" } else { "s" },
        )
    }

    async fn start(&self) -> McpAuthOutput {
        let server = &self.config.server_name;
        let (url, store, options) = match &self.config.target {
            AuthTarget::Unsupported { reason } => {
                return McpAuthOutput {
                    status: McpAuthStatus::Unsupported,
                    message: format!(
                        "The MCP server \"{server}\" cannot be signed in to from here: {reason}. Tell the user: it \
                         has to be authenticated outside agent-tools, and then its tools can be tried again."
                    ),
                    auth_url: None,
                };
            }
            AuthTarget::Http { url, store, options } => (url, store, options),
        };
        let mut flow = self.flow.lock().await;
        let last_error = match &*flow {
            Flow::Pending { auth_url } => {
                let minutes = options.timeout.as_secs().div_ceil(60);
                return McpAuthOutput {
                    status: McpAuthStatus::AuthUrl,
                    message: self.waiting_message(auth_url, minutes, None),
                    auth_url: Some(auth_url.clone()),
                };
            }
            Flow::Idle { last_error } => last_error.clone(),
        };
        let pending = match authorize(server, url, store, options.clone()).await {
            Ok(pending) => pending,
            Err(error) => {
                tracing::debug!(server = %server, %error, "MCP sign-in could not start");
                return McpAuthOutput {
                    status: McpAuthStatus::Error,
                    message: format!(
                        "Signing in to the MCP server \"{server}\" could not start: {error}. Tell the user; the \
                         server's URL or OAuth settings may be wrong."
                    ),
                    auth_url: None,
                };
            }
        };
        let auth_url = pending.auth_url().to_owned();
        *flow = Flow::Pending { auth_url: auth_url.clone() };
        drop(flow);
        let state = Arc::clone(&self.flow);
        let on_authorized = Arc::clone(&self.config.on_authorized);
        let name = server.clone();
        tokio::spawn(async move {
            let last_error = match pending.wait().await {
                Ok(()) => match on_authorized().await {
                    Ok(()) => None,
                    Err(error) => {
                        tracing::warn!(server = %name, %error, "signed in, but the server could not be reconnected");
                        Some(format!("signed in, but reconnecting the server failed: {error}"))
                    }
                },
                Err(error) => {
                    tracing::debug!(server = %name, %error, "MCP sign-in failed");
                    Some(error.to_string())
                }
            };
            *state.lock().await = Flow::Idle { last_error };
        });
        let minutes = options.timeout.as_secs().div_ceil(60);
        McpAuthOutput {
            status: McpAuthStatus::AuthUrl,
            message: self.waiting_message(&auth_url, minutes, last_error.as_deref()),
            auth_url: Some(auth_url),
        }
    }
}

/// The McpAuth tool for `config`, ready for the pool.
pub fn tool(config: McpAuthConfig) -> Arc<dyn Tool> {
    build_tool(McpAuthTool::new(config))
}

impl ToolDef for McpAuthTool {
    /// The family name; each instance's name is `mcp__<server>__authenticate`.
    const NAME: &'static str = "McpAuth";

    // Not read-only (it stores tokens), not concurrency-safe, never destructive, reaches the
    // network.
    const CAPABILITIES: agent_tools_core::Capabilities = agent_tools_core::Capabilities::DEFAULT
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: true })
        .deferred()
        .search_hint("sign in to an MCP server that needs OAuth");
    type Input = McpAuthInput;
    type Output = McpAuthOutput;

    fn name(&self) -> &str {
        &self.config.tool_name
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        format!(
            "The MCP server \"{}\" is configured but needs the user to sign in (OAuth) before its tools can be used. \
             Call this tool, with no arguments, to start the sign-in: it returns a URL for the user to open in their \
             browser. Once the user has approved access, the server's own tools replace this one.",
            self.config.server_name
        )
    }

    fn summary(&self, _input: &McpAuthInput) -> String {
        format!("Sign in to the MCP server \"{}\"", self.config.server_name)
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_CHARS)
    }

    async fn call(&self, _input: McpAuthInput, ctx: &ToolUseContext) -> Result<ToolResult<McpAuthOutput>, ToolError> {
        let output = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            output = self.start() => output,
        };
        Ok(ToolResult::new(output))
    }

    fn map_tool_result(&self, output: &McpAuthOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.message.clone())
    }

    fn user_facing_name(&self, _input: Option<&McpAuthInput>) -> String {
        format!("{} - authenticate (MCP)", self.config.server_name)
    }

    fn mcp_info(&self) -> Option<McpInfo> {
        Some(McpInfo { server_name: self.config.server_name.clone(), tool_name: TOOL_SUFFIX.to_owned() })
    }

    fn activity_description(&self, _input: &McpAuthInput) -> Option<String> {
        Some(format!("Starting the sign-in to {}", self.config.server_name))
    }
}
