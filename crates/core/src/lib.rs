//! # agent-tools-core: the Tool contract
//!
//! The contract every agent-tools tool is written against, re-creating the tool system of
//! Claude Code (`src/Tool.ts`) in Rust:
//!
//! - [`ToolDef`]: the typed definition a tool crate implements (its `const NAME`, input and
//!   output types, `call`, result mapping, and optional members with neutral defaults);
//! - [`build_tool`]: turns a definition into the type-erased `Arc<dyn Tool>` the host uses, with
//!   the fail-closed defaults (from [`ToolFlags`] and [`tool::defaults`]), strict input parsing
//!   (unknown fields rejected, every problem listed) and the JSON Schema built once and cached;
//! - [`questions`]: what a tool asks the user beyond yes or no ([`questions::Interaction`]);
//! - [`ToolUseContext`]: what a call receives — options, cancellation, the file-read state,
//!   app state, the working directory, permissions and limits;
//! - [`ToolResult`], [`ToolResultBlock`], [`ValidationResult`], [`PermissionResult`],
//!   [`ToolPermissionContext`] with Claude Code's rule grammar;
//! - [`find_tool_by_name`] / [`tool_matches_name`], and [`invoke::call_tool`] to run one call.
//!
//! ## A tool in full
//!
//! ```
//! use agent_tools_core::{build_tool, invoke, MaxResultSize, PromptOptions, ToolDef, ToolError,
//!     ToolResult, ToolResultBlock, ToolUseContext};
//!
//! struct Echo;
//!
//! /// Echo's input.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct EchoInput {
//!     /// The text to send back.
//!     text: String,
//! }
//!
//! impl ToolDef for Echo {
//!     type Input = EchoInput;
//!     type Output = String;
//!     const NAME: &'static str = "Echo";
//!     fn summary(&self, _: &EchoInput) -> String { "Echo text".into() }
//!     fn description(&self, _: &PromptOptions<'_>) -> String { "Sends the text back.".into() }
//!     fn max_result_size_chars(&self) -> MaxResultSize { MaxResultSize::Chars(1000) }
//!     async fn call(&self, input: EchoInput, _: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
//!         Ok(ToolResult::new(input.text))
//!     }
//!     fn map_tool_result(&self, output: &String, id: &str) -> ToolResultBlock {
//!         ToolResultBlock::text(id, output.clone())
//!     }
//! }
//!
//! let tool = build_tool(Echo);
//! // Fail-closed defaults: a tool that says nothing is not read-only and not concurrency-safe.
//! let parsed = tool.parse(serde_json::json!({"text": "hi"})).unwrap();
//! assert!(!tool.is_read_only(&parsed) && !tool.is_concurrency_safe(&parsed));
//! let ctx = ToolUseContext::new("/tmp");
//! let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let done = rt.block_on(invoke::call_tool(tool.as_ref(), "toolu_1", serde_json::json!({"text": "hi"}), &ctx));
//! assert_eq!(done.block.content.text(), "hi");
//! let refused = rt.block_on(invoke::call_tool(tool.as_ref(), "toolu_2", serde_json::json!({"txt": "hi"}), &ctx));
//! assert!(refused.block.is_error);
//! ```

pub mod caller;
mod capabilities;
pub mod context;
pub mod error;
pub mod frontmatter;
pub mod input;
pub mod invoke;
pub mod names;
mod options;
pub mod path;
pub mod permissions;
pub mod persist;
pub mod questions;
pub mod quote;
pub mod result;
pub mod schema;
pub mod secret;
pub mod subagent;
pub mod text;
pub mod tool;
pub mod user;
pub mod validation;

pub use capabilities::{AgentScope, Capabilities, ToolKind};
pub use context::{
    FileReadState, FileStamp, Limits, NotificationQueue, PendingNotification, QueueWatch, SandboxSettings,
    ToolUseContext, ToolUseOptions, content_hash,
};
pub use error::ToolError;
pub use input::{InputError, InputIssue, ParsedInput};
pub use names::{find_tool_by_name, tool_matches_name};
pub use options::ToolOptions;
pub use permissions::{PermissionMode, PermissionResult, ToolPermissionContext};
pub use result::{ContentPart, Message, ToolResult, ToolResultBlock, ToolResultContent};
pub use tool::{
    BuiltTool, DEFAULT_MAX_RESULT_SIZE_CHARS, InterruptBehavior, MaxResultSize, PromptOptions, TOOL_SEARCH_NAME, Tool,
    ToolDef, ToolFlags, build_tool, is_deferred, names_are_distinct,
};
pub use validation::ValidationResult;

/// Re-exported so tool crates derive schemas with the same schemars version as the core.
pub use schemars;
