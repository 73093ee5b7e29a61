//! # agent-tools-core: the Tool contract
//!
//! The contract every agent-tools tool is written against, re-creating the tool system of
//! Claude Code (`src/Tool.ts`) in Rust:
//!
//! - [`ToolDef`]: the typed definition a tool crate implements (its `const NAME`, input and
//!   output types, `call`, result mapping, and optional members with neutral defaults);
//! - [`build_tool`]: turns a definition into the type-erased `Arc<dyn Tool>` the host uses, with
//!   the fail-closed defaults (from [`ToolFlags`] and [`defaults`]), strict input parsing
//!   (unknown fields rejected, every problem listed) and the JSON Schema built once and cached;
//! - [`Interaction`]: what a tool asks the user beyond yes or no (questions with options);
//! - [`ToolUseContext`]: what a call receives — options, cancellation, the file-read state,
//!   app state, the working directory, permissions and limits, and the session's hooks
//!   ([`HookEvents`]: a tool fires its hook events through [`ToolUseContext::fire_hook`]);
//! - [`ToolResult`], [`ToolResultBlock`], [`ValidationResult`], [`PermissionResult`],
//!   [`ToolPermissionContext`] with Claude Code's rule grammar;
//! - [`find_tool_by_name`] / [`tool_matches_name`], and [`call_tool`] to run one call.
//!
//! The contract lives at the crate root; its modules are private. The public modules are the
//! helpers tool crates share: [`frontmatter`], [`path`], [`persist`], [`quote`], [`schema`],
//! [`secret`], [`text`] and [`user`].
//!
//! ## A tool in full
//!
//! ```
//! use agent_tools_core::{build_tool, call_tool, MaxResultSize, PromptOptions, ToolDef, ToolError,
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
//! let done = rt.block_on(call_tool(tool.as_ref(), "toolu_1", serde_json::json!({"text": "hi"}), &ctx));
//! assert_eq!(done.block.content.text(), "hi");
//! let refused = rt.block_on(call_tool(tool.as_ref(), "toolu_2", serde_json::json!({"txt": "hi"}), &ctx));
//! assert!(refused.block.is_error);
//! ```

mod caller;
mod capabilities;
mod context;
mod error;
pub mod frontmatter;
mod hooks;
mod input;
mod invoke;
mod names;
mod options;
pub mod path;
mod permissions;
pub mod persist;
mod questions;
pub mod quote;
mod result;
pub mod schema;
pub mod secret;
mod subagent;
pub mod text;
mod tool;
pub mod user;
mod validation;

pub use caller::{InnerResult, ToolCaller};
pub use capabilities::{AgentScope, Capabilities, ToolKind};
pub use context::{
    AppState, AppStateHandle, CancellationToken, ContentHasher, FILE_STATE_MAX_BYTES, FILE_STATE_MAX_ENTRIES,
    FileReadState, FileReadingLimits, FileStamp, GlobLimits, Limits, NotificationQueue, PendingNotification,
    ProgressEvent, ProgressSink, QueueWatch, SandboxSettings, ToolUseContext, ToolUseOptions, content_hash,
    file_state_key, mtime_ms,
};
pub use error::ToolError;
pub use hooks::{HookEvents, HookOutcome};
pub use input::{InputError, InputIssue, ParsedInput, join_path, parse_strict, semantic, type_name, type_phrase};
pub use invoke::{
    Invocation, MAX_ERROR_CHARS, call_tool, input_error_result, parse_and_validate, runs_concurrently, truncate_middle,
    unknown_tool_result, validation_error_result, wrap_tool_use_error,
};
pub use names::{find_tool_by_name, tool_matches_name};
pub use options::ToolOptions;
pub use permissions::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionResult, PermissionRule,
    PermissionRuleSource, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination, RulesBySource,
    ToolPermissionContext, ToolRestriction, normalize_legacy_tool_name, parse_rule_list, subagent_permission_mode,
    tool_restrictions,
};
pub use questions::{
    Answers, DUPLICATE_LABELS, Interaction, MAX_OPTIONS, MIN_OPTIONS, Question, QuestionOption, join_choices,
    repeated_label, with_answers,
};
pub use result::{
    ContentBlock, ContentPart, ContextModifier, ImageSource, KnownBlock, McpMeta, Message, MessageContent, Role,
    ToolResult, ToolResultBlock, ToolResultContent, ToolUseBlock,
};
pub use subagent::{NO_OUTPUT, SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner, task_notification};
pub use tool::defaults;
pub use tool::{
    BoxFuture, BuiltTool, CallOutput, DEFAULT_MAX_RESULT_SIZE_CHARS, InterruptBehavior, MaxResultSize, McpInfo,
    PermissionMatcher, PromptOptions, RestrictionMatcher, StructuredData, TOOL_SEARCH_NAME, Tool, ToolDef, ToolFlags,
    build_tool, is_deferred, names_are_distinct,
};
pub use validation::{DENIED_BY_RULE, ValidationResult};

/// Re-exported so tool crates derive schemas with the same schemars version as the core.
pub use schemars;
