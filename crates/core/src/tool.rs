//! The Tool contract: the typed [`ToolDef`] a tool crate implements, the type-erased [`Tool`] the
//! host uses, and [`build_tool`] that turns one into the other with the fail-closed defaults.
//!
//! # Claude Code name → Rust counterpart
//!
//! | Claude Code (`src/Tool.ts`) | [`ToolDef`] (typed) | [`Tool`] (erased) |
//! |---|---|---|
//! | `name` | [`ToolDef::name`] | [`Tool::name`] |
//! | `aliases` | [`ToolDef::aliases`] | [`Tool::aliases`] |
//! | (none: whole-tool flags for listings and MCP annotations) | [`ToolDef::flags`] | [`Tool::flags`] |
//! | `searchHint` | [`ToolDef::search_hint`] | [`Tool::search_hint`] |
//! | `inputSchema` (zod) | `ToolDef::Input: JsonSchema` | [`Tool::input_schema`] (cached) |
//! | `inputJSONSchema` | [`ToolDef::input_json_schema`] | [`Tool::input_schema`] |
//! | `outputSchema` | [`ToolDef::output_schema`] | [`Tool::output_schema`] |
//! | `maxResultSizeChars` | [`ToolDef::max_result_size_chars`] | [`Tool::max_result_size_chars`] |
//! | `shouldDefer` / `alwaysLoad` / `strict` | [`ToolDef::should_defer`] / [`ToolDef::always_load`] / [`ToolDef::strict`] | same |
//! | `isMcp` / `isLsp` / `mcpInfo` | [`ToolDef::is_mcp`] / [`ToolDef::is_lsp`] / [`ToolDef::mcp_info`] | same |
//! | `description(input)` | [`ToolDef::description`] | [`Tool::description`] |
//! | `prompt(opts)` | [`ToolDef::prompt`] | [`Tool::prompt`] |
//! | zod `safeParse` | `build_tool`'s strict parse | [`Tool::parse`] |
//! | `validateInput` | [`ToolDef::validate_input`] | [`Tool::validate_input`] |
//! | `checkPermissions` † | [`ToolDef::check_permissions`] | [`Tool::check_permissions`] |
//! | `call` | [`ToolDef::call`] | [`Tool::call`] |
//! | `mapToolResultToToolResultBlockParam` | [`ToolDef::map_tool_result`] | (inside [`Tool::call`]) |
//! | `isEnabled` † | [`ToolDef::is_enabled`] | [`Tool::is_enabled`] |
//! | `isConcurrencySafe` † | [`ToolDef::is_concurrency_safe`] | [`Tool::is_concurrency_safe`] |
//! | `isReadOnly` † | [`ToolDef::is_read_only`] | [`Tool::is_read_only`] |
//! | `isDestructive` † | [`ToolDef::is_destructive`] | [`Tool::is_destructive`] |
//! | `toAutoClassifierInput` † | [`ToolDef::to_auto_classifier_input`] | [`Tool::to_auto_classifier_input`] |
//! | `userFacingName` † | [`ToolDef::user_facing_name`] | [`Tool::user_facing_name`] |
//! | `isOpenWorld` | [`ToolDef::is_open_world`] | [`Tool::is_open_world`] |
//! | `requiresUserInteraction` | [`ToolDef::requires_user_interaction`] | same |
//! | `interruptBehavior` | [`ToolDef::interrupt_behavior`] | same |
//! | `isSearchOrReadCommand` | [`ToolDef::is_search_or_read_command`] | same |
//! | `getPath` | [`ToolDef::get_path`] | [`Tool::get_path`] |
//! | `preparePermissionMatcher` | [`ToolDef::prepare_permission_matcher`] | same |
//! | `backfillObservableInput` | [`ToolDef::backfill_observable_input`] | same |
//! | `inputsEquivalent` | [`ToolDef::inputs_equivalent`] | same |
//! | `getActivityDescription` | [`ToolDef::activity_description`] | same |
//! | `getToolUseSummary` | [`ToolDef::tool_use_summary`] | same |
//! | `renderToolUseMessage` | [`ToolDef::render_tool_use`] | same |
//! | `renderToolResultMessage` | [`ToolDef::render_result`] | same |
//! | `renderToolUseProgressMessage` | [`ToolDef::render_progress`] | same |
//! | `renderToolUseRejectedMessage` | [`ToolDef::render_rejected`] | same |
//! | `renderToolUseErrorMessage` | [`ToolDef::render_error`] | same |
//! | `renderGroupedToolUse` | [`ToolDef::render_grouped`] | same |
//!
//! † the seven "defaultable" members. Their defaults live in one place, [`defaults`], and are
//! fail-closed: enabled, **not** concurrency-safe, **not** read-only, not destructive, permissions
//! deferred to the general system (allow), empty classifier input (never auto-approved), and the
//! tool's name as its user-facing name.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ToolUseContext;
use crate::error::ToolError;
use crate::input::{InputError, ParsedInput, normalize_input, parse_strict};
use crate::permissions::{PermissionResult, ToolPermissionContext};
use crate::result::{ToolResult, ToolResultBlock};
use crate::schema::input_schema_for;
use crate::validation::ValidationResult;

/// A boxed, sendable future (what the erased [`Tool`]'s async methods return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The fail-closed defaults of the seven defaultable members, in one place.
///
/// Mirrors Claude Code's `TOOL_DEFAULTS` in `src/Tool.ts`: a tool that says nothing is assumed to
/// write (not read-only), to be unsafe to run beside other calls (not concurrency-safe), and is
/// never auto-approved by a classifier (empty classifier input). Its permission check defers to the
/// general rules (allow), and its user-facing name is its name.
pub mod defaults {
    use crate::permissions::PermissionResult;

    /// `isEnabled` → true.
    pub const IS_ENABLED: bool = true;
    /// `isConcurrencySafe` → false (assume unsafe).
    pub const IS_CONCURRENCY_SAFE: bool = false;
    /// `isReadOnly` → false (assume it writes).
    pub const IS_READ_ONLY: bool = false;
    /// `isDestructive` → false.
    pub const IS_DESTRUCTIVE: bool = false;
    /// `toAutoClassifierInput` → `""` (skip the classifier: never auto-approved).
    pub const AUTO_CLASSIFIER_INPUT: &str = "";

    /// `checkPermissions` → allow with the input unchanged; the general permission system
    /// (rules and modes) still decides.
    pub fn check_permissions() -> PermissionResult {
        PermissionResult::allow()
    }

    /// `userFacingName` → the tool's name.
    pub fn user_facing_name(name: &str) -> String {
        name.to_owned()
    }
}

/// How big a tool's result may get before the executor saves it to a file and shows a preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxResultSize {
    /// At most this many characters (the executor caps it at 50,000, as Claude Code does).
    Chars(usize),
    /// Never persisted (Read: it limits itself).
    Unlimited,
}

/// What happens to a running call when the user sends a new message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterruptBehavior {
    /// Stop the call.
    Cancel,
    /// Let it finish (the default).
    #[default]
    Block,
}

/// How the CLI transcript may collapse a call (Claude Code's `isSearchOrReadCommand`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchOrRead {
    /// A search (grep, find …).
    pub is_search: bool,
    /// A read (cat, head …).
    pub is_read: bool,
    /// A listing (ls, tree …).
    pub is_list: bool,
}

/// The raw server and tool names of an MCP tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpInfo {
    /// The server's name as configured.
    pub server_name: String,
    /// The tool's name on that server.
    pub tool_name: String,
}

/// What a tool promises for **every** input: used where there is no input to look at (the
/// `list` command, MCP tool annotations). The input-driven methods (`is_read_only(input)` …)
/// still decide each call.
///
/// The default promises nothing: not read-only, not concurrency-safe, possibly destructive,
/// possibly reaching outside the machine — the conservative reading MCP clients expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolFlags {
    /// Read-only for every input (MCP `readOnlyHint`).
    pub read_only: bool,
    /// Concurrency-safe for every input.
    pub concurrency_safe: bool,
    /// Destructive for some input (MCP `destructiveHint`).
    pub destructive: bool,
    /// Reaches the network or external processes for some input (MCP `openWorldHint`).
    pub open_world: bool,
}

impl ToolFlags {
    /// A tool that only reads local files: read-only, concurrency-safe, never destructive, local.
    pub const LOCAL_READ_ONLY: Self =
        Self { read_only: true, concurrency_safe: true, destructive: false, open_world: false };
}

impl Default for ToolFlags {
    fn default() -> Self {
        Self { read_only: false, concurrency_safe: false, destructive: true, open_world: true }
    }
}

/// A function telling whether a permission-rule or hook pattern matches a call (e.g. whether
/// `git *` from `Bash(git *)` covers this command).
pub type PermissionMatcher = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// What a tool's `prompt` may look at.
#[derive(Clone, Copy, Default)]
pub struct PromptOptions<'a> {
    /// The tool pool the model will see.
    pub tools: &'a [Arc<dyn Tool>],
    /// The session's permission context, if known.
    pub permission_context: Option<&'a ToolPermissionContext>,
}

impl fmt::Debug for PromptOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptOptions").field("tools", &self.tools.len()).finish_non_exhaustive()
    }
}

/// The typed definition of a tool: what a tool crate implements.
///
/// Required items have no default, so the compiler enforces them: the name, the short
/// description, the model-facing prompt, the input type (whose JSON Schema is derived), the
/// result-size limit, `call`, and the mapping of output to a `tool_result` block. Everything else
/// has a neutral default; the seven defaultable members have the fail-closed [`defaults`].
///
/// Pass a definition to [`build_tool`] to get the `Arc<dyn Tool>` the host uses.
pub trait ToolDef: Send + Sync + Sized + 'static {
    /// The input. Derive `Deserialize` and `JsonSchema`; doc comments become field descriptions.
    /// Unknown fields are rejected by [`build_tool`] whatever the serde attributes say.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The output data (`structuredContent` over MCP).
    type Output: Serialize + Send + Sync + 'static;
    /// Progress data reported through [`ToolUseContext::report_progress`] (`()` if none).
    type Progress: Serialize + Send + 'static;

    /// The API name the model calls (`Read`, `Grep` …).
    fn name(&self) -> &str;

    /// One short line for permission dialogs and logs (not the API description).
    fn description(&self, input: &Self::Input) -> String;

    /// The model-facing description sent as the API tool's `description`.
    fn prompt(&self, options: &PromptOptions<'_>) -> String;

    /// The result size past which the executor persists the result to a file.
    fn max_result_size_chars(&self) -> MaxResultSize;

    /// Runs the tool. A [`ToolError::Failed`] is shown to the model as an error result.
    fn call(
        &self,
        input: Self::Input,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = Result<ToolResult<Self::Output>, ToolError>> + Send;

    /// Serialises the output into the `tool_result` block the model sees.
    fn map_tool_result(&self, output: &Self::Output, tool_use_id: &str) -> ToolResultBlock;

    // ----- the seven defaultable members (fail-closed defaults) -----

    /// Whether the tool is available at all (default [`defaults::IS_ENABLED`]).
    fn is_enabled(&self) -> bool {
        defaults::IS_ENABLED
    }

    /// Whether this call may run in parallel with other concurrency-safe calls
    /// (default [`defaults::IS_CONCURRENCY_SAFE`]).
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        defaults::IS_CONCURRENCY_SAFE
    }

    /// Whether this call only reads (default [`defaults::IS_READ_ONLY`]).
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        defaults::IS_READ_ONLY
    }

    /// Whether this call does something irreversible: delete, overwrite, send
    /// (default [`defaults::IS_DESTRUCTIVE`]).
    fn is_destructive(&self, _input: &Self::Input) -> bool {
        defaults::IS_DESTRUCTIVE
    }

    /// The tool's own permission logic, run after `validate_input`
    /// (default [`defaults::check_permissions`]).
    fn check_permissions(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> impl Future<Output = PermissionResult> + Send {
        std::future::ready(defaults::check_permissions())
    }

    /// A compact form of the call for an automatic safety classifier; empty means "skip the
    /// classifier" (default [`defaults::AUTO_CLASSIFIER_INPUT`]).
    fn to_auto_classifier_input(&self, _input: &Self::Input) -> String {
        defaults::AUTO_CLASSIFIER_INPUT.to_owned()
    }

    /// The name shown to the user (default [`defaults::user_facing_name`]).
    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        defaults::user_facing_name(self.name())
    }

    // ----- optional members (neutral defaults) -----

    /// Legacy names that still resolve to this tool.
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// What the tool promises for every input (default: nothing; see [`ToolFlags`]).
    fn flags(&self) -> ToolFlags {
        ToolFlags::default()
    }

    /// A 3–10 word capability phrase for ToolSearch.
    fn search_hint(&self) -> Option<&str> {
        None
    }

    /// A raw JSON Schema to use instead of the derived one (MCP tools).
    fn input_json_schema(&self) -> Option<Value> {
        None
    }

    /// A JSON Schema of the output, for documentation.
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Checks the parsed input before permissions; a failure is shown wrapped in
    /// `<tool_use_error>`.
    fn validate_input(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> impl Future<Output = ValidationResult> + Send {
        std::future::ready(ValidationResult::Ok)
    }

    /// Whether the tool's schema is held back until ToolSearch loads it.
    fn should_defer(&self) -> bool {
        false
    }

    /// Never deferred, even when tool search is on.
    fn always_load(&self) -> bool {
        false
    }

    /// Ask the API for strict tool-input mode.
    fn strict(&self) -> bool {
        false
    }

    /// What happens when the user interrupts.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }

    /// Always ask the user, even in bypass mode.
    fn requires_user_interaction(&self) -> bool {
        false
    }

    /// Whether the call reaches outside the machine (network, external services).
    fn is_open_world(&self, _input: &Self::Input) -> bool {
        false
    }

    /// How the transcript may collapse this call.
    fn is_search_or_read_command(&self, _input: &Self::Input) -> SearchOrRead {
        SearchOrRead::default()
    }

    /// The file path the call acts on, for filesystem permission checks.
    fn get_path(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// A matcher for hook and rule patterns on this call.
    fn prepare_permission_matcher(&self, _input: &Self::Input) -> Option<PermissionMatcher> {
        None
    }

    /// Adjusts a copy of the input that hooks and permission code see (e.g. absolute paths).
    fn backfill_observable_input(&self, _input: &mut Value) {}

    /// Whether two inputs mean the same call.
    fn inputs_equivalent(&self, _a: &Self::Input, _b: &Self::Input) -> bool {
        false
    }

    /// Whether this is an MCP tool.
    fn is_mcp(&self) -> bool {
        false
    }

    /// Whether this is an LSP tool.
    fn is_lsp(&self) -> bool {
        false
    }

    /// The MCP server and tool names, for MCP tools.
    fn mcp_info(&self) -> Option<McpInfo> {
        None
    }

    // ----- text renderers for the CLI transcript (never seen by the model) -----

    /// Spinner text while the call runs ("Reading src/main.rs").
    fn activity_description(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// A one-line summary of the call.
    fn tool_use_summary(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// How the call is shown; `None` shows the input JSON.
    fn render_tool_use(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// How the result is shown; `None` shows the `tool_result` text.
    fn render_result(&self, _output: &Self::Output) -> Option<String> {
        None
    }

    /// How a progress event is shown.
    fn render_progress(&self, _progress: &Value) -> Option<String> {
        None
    }

    /// How a refused call is shown.
    fn render_rejected(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// How a failed call is shown.
    fn render_error(&self, _message: &str) -> Option<String> {
        None
    }

    /// How several calls of this tool are shown together.
    fn render_grouped(&self, _inputs: &[&Self::Input]) -> Option<String> {
        None
    }
}

/// The output of an erased call: the `tool_result` block the model sees, and the tool's output
/// data for those who want it structured.
pub struct CallOutput {
    /// The mapped `tool_result` block.
    pub block: ToolResultBlock,
    /// The tool's output data.
    pub data: Box<dyn StructuredData>,
}

impl fmt::Debug for CallOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOutput").field("block", &self.block).finish_non_exhaustive()
    }
}

/// A tool's output data, type-erased: JSON on demand, or downcast to the concrete type.
pub trait StructuredData: Send + Sync {
    /// The data as JSON (the MCP `structuredContent`).
    fn to_json(&self) -> Value;
    /// The data as `Any`, to downcast to the tool's `Output` type.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Send + Sync + 'static> StructuredData for T {
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The type-erased tool the host, executor and MCP server use. It speaks JSON.
///
/// Get one from [`build_tool`]. Input-driven methods take the [`ParsedInput`] that
/// [`Tool::parse`] produced; given a `ParsedInput` that came from another tool they answer
/// fail-closed (not safe, not read-only, an internal error for `call`).
pub trait Tool: Send + Sync {
    /// The API name.
    fn name(&self) -> &str;
    /// Legacy names that also resolve to this tool.
    fn aliases(&self) -> &[&str];
    /// See [`ToolDef::flags`].
    fn flags(&self) -> ToolFlags;
    /// A capability phrase for ToolSearch.
    fn search_hint(&self) -> Option<&str>;
    /// The input's JSON Schema, built once and cached.
    fn input_schema(&self) -> &Value;
    /// The output's JSON Schema, if documented.
    fn output_schema(&self) -> Option<Value>;
    /// The model-facing description (the API `description`).
    fn prompt(&self, options: &PromptOptions<'_>) -> String;
    /// The short human-facing line for this call.
    fn description(&self, input: &ParsedInput) -> String;
    /// The result size limit.
    fn max_result_size_chars(&self) -> MaxResultSize;

    /// Parses model input strictly (unknown fields rejected) into a [`ParsedInput`].
    fn parse(&self, input: Value) -> Result<ParsedInput, InputError>;

    /// See [`ToolDef::is_enabled`].
    fn is_enabled(&self) -> bool;
    /// See [`ToolDef::is_concurrency_safe`].
    fn is_concurrency_safe(&self, input: &ParsedInput) -> bool;
    /// See [`ToolDef::is_read_only`].
    fn is_read_only(&self, input: &ParsedInput) -> bool;
    /// See [`ToolDef::is_destructive`].
    fn is_destructive(&self, input: &ParsedInput) -> bool;
    /// See [`ToolDef::validate_input`].
    fn validate_input<'a>(&'a self, input: &'a ParsedInput, ctx: &'a ToolUseContext)
    -> BoxFuture<'a, ValidationResult>;
    /// See [`ToolDef::check_permissions`].
    fn check_permissions<'a>(
        &'a self,
        input: &'a ParsedInput,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, PermissionResult>;
    /// Runs the tool and maps its output to a `tool_result` block (using `ctx.tool_use_id`).
    fn call<'a>(
        &'a self,
        input: ParsedInput,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<ToolResult<CallOutput>, ToolError>>;
    /// See [`ToolDef::to_auto_classifier_input`].
    fn to_auto_classifier_input(&self, input: &ParsedInput) -> String;
    /// See [`ToolDef::user_facing_name`].
    fn user_facing_name(&self, input: Option<&ParsedInput>) -> String;

    /// See [`ToolDef::should_defer`].
    fn should_defer(&self) -> bool;
    /// See [`ToolDef::always_load`].
    fn always_load(&self) -> bool;
    /// See [`ToolDef::strict`].
    fn strict(&self) -> bool;
    /// See [`ToolDef::interrupt_behavior`].
    fn interrupt_behavior(&self) -> InterruptBehavior;
    /// See [`ToolDef::requires_user_interaction`].
    fn requires_user_interaction(&self) -> bool;
    /// See [`ToolDef::is_open_world`].
    fn is_open_world(&self, input: &ParsedInput) -> bool;
    /// See [`ToolDef::is_search_or_read_command`].
    fn is_search_or_read_command(&self, input: &ParsedInput) -> SearchOrRead;
    /// See [`ToolDef::get_path`].
    fn get_path(&self, input: &ParsedInput) -> Option<String>;
    /// See [`ToolDef::prepare_permission_matcher`].
    fn prepare_permission_matcher(&self, input: &ParsedInput) -> Option<PermissionMatcher>;
    /// See [`ToolDef::backfill_observable_input`].
    fn backfill_observable_input(&self, input: &mut Value);
    /// See [`ToolDef::inputs_equivalent`].
    fn inputs_equivalent(&self, a: &ParsedInput, b: &ParsedInput) -> bool;
    /// See [`ToolDef::is_mcp`].
    fn is_mcp(&self) -> bool;
    /// See [`ToolDef::is_lsp`].
    fn is_lsp(&self) -> bool;
    /// See [`ToolDef::mcp_info`].
    fn mcp_info(&self) -> Option<McpInfo>;

    /// See [`ToolDef::activity_description`].
    fn activity_description(&self, input: &ParsedInput) -> Option<String>;
    /// See [`ToolDef::tool_use_summary`].
    fn tool_use_summary(&self, input: &ParsedInput) -> Option<String>;
    /// How the call is shown in the transcript (the tool's renderer, else the input JSON).
    fn render_tool_use(&self, input: &ParsedInput) -> String;
    /// How a result is shown (the tool's renderer, else the `tool_result` text).
    fn render_result(&self, output: &CallOutput) -> String;
    /// See [`ToolDef::render_progress`].
    fn render_progress(&self, progress: &Value) -> Option<String>;
    /// See [`ToolDef::render_rejected`].
    fn render_rejected(&self, input: &ParsedInput) -> Option<String>;
    /// See [`ToolDef::render_error`].
    fn render_error(&self, message: &str) -> Option<String>;
    /// See [`ToolDef::render_grouped`].
    fn render_grouped(&self, inputs: &[&ParsedInput]) -> Option<String>;
}

impl fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool").field("name", &self.name()).finish_non_exhaustive()
    }
}

impl dyn Tool {
    /// Whether raw JSON input is concurrency-safe: input that does not parse is not.
    ///
    /// Mirrors Claude Code's `partitionToolCalls`: a block is safe only if its input parses and the
    /// tool says so.
    pub fn is_concurrency_safe_json(&self, input: &Value) -> bool {
        self.parse(input.clone()).is_ok_and(|parsed| self.is_concurrency_safe(&parsed))
    }

    /// Whether raw JSON input is read-only: input that does not parse is not.
    pub fn is_read_only_json(&self, input: &Value) -> bool {
        self.parse(input.clone()).is_ok_and(|parsed| self.is_read_only(&parsed))
    }
}

/// The API name of the ToolSearch tool (`agent-tool-tool-search`); named here so [`is_deferred`]
/// and the host can recognise it without depending on that crate.
pub const TOOL_SEARCH_NAME: &str = "ToolSearch";

/// Whether a tool's schema is held back until ToolSearch loads it, when tool search is on.
///
/// Mirrors Claude Code's `isDeferredTool` (`utils/toolSearch.ts`): `always_load` ⇒ never
/// deferred; an MCP tool ⇒ deferred; ToolSearch itself ⇒ never; otherwise the tool's
/// `should_defer`. (Claude Code's experiment-specific exceptions — Agent under the fork-subagent
/// experiment, Brief/SendUserFile — have no counterpart here.)
pub fn is_deferred(tool: &dyn Tool) -> bool {
    if tool.always_load() {
        return false;
    }
    if tool.is_mcp() {
        return true;
    }
    if tool.name() == TOOL_SEARCH_NAME {
        return false;
    }
    tool.should_defer()
}

/// A [`ToolDef`] with the contract's machinery around it: strict parsing, the cached schema, and
/// the erasure to [`Tool`]. Made by [`build_tool`].
pub struct BuiltTool<D: ToolDef> {
    def: D,
    schema: OnceLock<Value>,
}

impl<D: ToolDef> BuiltTool<D> {
    /// The definition inside.
    pub fn def(&self) -> &D {
        &self.def
    }

    fn typed<'a>(&self, input: &'a ParsedInput) -> Option<&'a D::Input> {
        let typed = input.downcast_ref::<D::Input>();
        if typed.is_none() {
            tracing::error!(tool = self.def.name(), "input parsed by another tool was passed to this tool");
        }
        typed
    }
}

/// Turns a tool definition into the type-erased `Arc<dyn Tool>` the host uses.
///
/// Mirrors Claude Code's `buildTool`: the definition's members win, the fail-closed [`defaults`]
/// fill the rest. This is also where raw model input is parsed strictly and where the input's JSON
/// Schema is built once and cached.
pub fn build_tool<D: ToolDef>(def: D) -> Arc<dyn Tool> {
    Arc::new(BuiltTool { def, schema: OnceLock::new() })
}

impl<D: ToolDef> Tool for BuiltTool<D> {
    fn name(&self) -> &str {
        self.def.name()
    }

    fn aliases(&self) -> &[&str] {
        self.def.aliases()
    }

    fn flags(&self) -> ToolFlags {
        self.def.flags()
    }

    fn search_hint(&self) -> Option<&str> {
        self.def.search_hint()
    }

    fn input_schema(&self) -> &Value {
        self.schema.get_or_init(|| self.def.input_json_schema().unwrap_or_else(input_schema_for::<D::Input>))
    }

    fn output_schema(&self) -> Option<Value> {
        self.def.output_schema()
    }

    fn prompt(&self, options: &PromptOptions<'_>) -> String {
        self.def.prompt(options)
    }

    fn description(&self, input: &ParsedInput) -> String {
        self.typed(input).map_or_else(|| self.def.name().to_owned(), |typed| self.def.description(typed))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        self.def.max_result_size_chars()
    }

    fn parse(&self, input: Value) -> Result<ParsedInput, InputError> {
        let json = normalize_input(self.def.name(), input)?;
        let typed: D::Input = parse_strict(self.def.name(), self.input_schema(), &json)?;
        Ok(ParsedInput::new(typed, json))
    }

    fn is_enabled(&self) -> bool {
        self.def.is_enabled()
    }

    fn is_concurrency_safe(&self, input: &ParsedInput) -> bool {
        self.typed(input).is_some_and(|typed| self.def.is_concurrency_safe(typed))
    }

    fn is_read_only(&self, input: &ParsedInput) -> bool {
        self.typed(input).is_some_and(|typed| self.def.is_read_only(typed))
    }

    fn is_destructive(&self, input: &ParsedInput) -> bool {
        // Fail closed: input we cannot read may do anything.
        self.typed(input).is_none_or(|typed| self.def.is_destructive(typed))
    }

    fn validate_input<'a>(
        &'a self,
        input: &'a ParsedInput,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, ValidationResult> {
        Box::pin(async move {
            match self.typed(input) {
                Some(typed) => self.def.validate_input(typed, ctx).await,
                None => ValidationResult::error("The input was not parsed by this tool.", -1),
            }
        })
    }

    fn check_permissions<'a>(
        &'a self,
        input: &'a ParsedInput,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, PermissionResult> {
        Box::pin(async move {
            match self.typed(input) {
                Some(typed) => self.def.check_permissions(typed, ctx).await,
                None => PermissionResult::passthrough(format!("{} needs approval.", self.def.name())),
            }
        })
    }

    fn call<'a>(
        &'a self,
        input: ParsedInput,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<ToolResult<CallOutput>, ToolError>> {
        Box::pin(async move {
            let Some(typed) = input.into_typed::<D::Input>() else {
                return Err(ToolError::internal(format!("{}: input parsed by another tool", self.def.name())));
            };
            let result = self.def.call(typed, ctx).await?;
            let tool_use_id = ctx.tool_use_id.as_deref().unwrap_or_default();
            Ok(result
                .map(|data| CallOutput { block: self.def.map_tool_result(&data, tool_use_id), data: Box::new(data) }))
        })
    }

    fn to_auto_classifier_input(&self, input: &ParsedInput) -> String {
        self.typed(input).map(|typed| self.def.to_auto_classifier_input(typed)).unwrap_or_default()
    }

    fn user_facing_name(&self, input: Option<&ParsedInput>) -> String {
        self.def.user_facing_name(input.and_then(|input| self.typed(input)))
    }

    fn should_defer(&self) -> bool {
        self.def.should_defer()
    }

    fn always_load(&self) -> bool {
        self.def.always_load()
    }

    fn strict(&self) -> bool {
        self.def.strict()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.def.interrupt_behavior()
    }

    fn requires_user_interaction(&self) -> bool {
        self.def.requires_user_interaction()
    }

    fn is_open_world(&self, input: &ParsedInput) -> bool {
        self.typed(input).is_none_or(|typed| self.def.is_open_world(typed))
    }

    fn is_search_or_read_command(&self, input: &ParsedInput) -> SearchOrRead {
        self.typed(input).map(|typed| self.def.is_search_or_read_command(typed)).unwrap_or_default()
    }

    fn get_path(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.get_path(typed))
    }

    fn prepare_permission_matcher(&self, input: &ParsedInput) -> Option<PermissionMatcher> {
        self.typed(input).and_then(|typed| self.def.prepare_permission_matcher(typed))
    }

    fn backfill_observable_input(&self, input: &mut Value) {
        self.def.backfill_observable_input(input);
    }

    fn inputs_equivalent(&self, a: &ParsedInput, b: &ParsedInput) -> bool {
        match (self.typed(a), self.typed(b)) {
            (Some(a), Some(b)) => self.def.inputs_equivalent(a, b),
            _ => false,
        }
    }

    fn is_mcp(&self) -> bool {
        self.def.is_mcp()
    }

    fn is_lsp(&self) -> bool {
        self.def.is_lsp()
    }

    fn mcp_info(&self) -> Option<McpInfo> {
        self.def.mcp_info()
    }

    fn activity_description(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.activity_description(typed))
    }

    fn tool_use_summary(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.tool_use_summary(typed))
    }

    fn render_tool_use(&self, input: &ParsedInput) -> String {
        self.typed(input).and_then(|typed| self.def.render_tool_use(typed)).unwrap_or_else(|| input.json().to_string())
    }

    fn render_result(&self, output: &CallOutput) -> String {
        output
            .data
            .as_any()
            .downcast_ref::<D::Output>()
            .and_then(|data| self.def.render_result(data))
            .unwrap_or_else(|| output.block.content.text())
    }

    fn render_progress(&self, progress: &Value) -> Option<String> {
        self.def.render_progress(progress)
    }

    fn render_rejected(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.render_rejected(typed))
    }

    fn render_error(&self, message: &str) -> Option<String> {
        self.def.render_error(message)
    }

    fn render_grouped(&self, inputs: &[&ParsedInput]) -> Option<String> {
        let typed: Option<Vec<&D::Input>> = inputs.iter().map(|input| self.typed(input)).collect();
        typed.and_then(|typed| self.def.render_grouped(&typed))
    }
}
