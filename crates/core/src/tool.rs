//! The Tool contract: the typed [`ToolDef`] a tool crate implements, the type-erased [`Tool`] the
//! host uses, and [`build_tool`] that turns one into the other with the fail-closed defaults.
//!
//! Every member has a caller outside tests (named below); members of Claude Code's `Tool` that
//! only its terminal UI or its auto-mode classifier uses (the `render*` methods,
//! `getToolUseSummary`, `isSearchOrReadCommand`, `inputsEquivalent`, `toAutoClassifierInput`,
//! `isLsp`) have no counterpart until something here uses them.
//!
//! # Seed name → Rust counterpart, and who calls it
//!
//! | Claude Code (`src/Tool.ts`) | [`ToolDef`] / [`Tool`] | called by |
//! |---|---|---|
//! | `name` | [`ToolDef::NAME`] (`const`; [`ToolDef::name`] for MCP tools) / [`Tool::name`] | everything |
//! | `aliases` | `aliases` | [`find_tool_by_name`](crate::find_tool_by_name) |
//! | (whole-tool flags) | `flags` | `list`, MCP annotations, the per-input defaults below |
//! | (ours; zed's `ToolKind`) | `CAPABILITIES` → [`Tool::capabilities`] | sub-agent tool sets, plan mode, LSP, result shape |
//! | `searchHint` | `search_hint` | ToolSearch |
//! | `inputSchema` / `inputJSONSchema` | `Input: JsonSchema` / `input_json_schema` → [`Tool::input_schema`] | the API `tools` array, strict parsing |
//! | `outputSchema` | `output_schema` | MCP `outputSchema` |
//! | `prompt(opts)` | `description(options)` (the Messages API's `description`) | the API `tools` array, MCP `tools/list` |
//! | `description(input)` | `summary(input)` | permission questions |
//! | `maxResultSizeChars` | `max_result_size_chars` | the executor's size control |
//! | zod `safeParse` | [`Tool::parse`] | the executor |
//! | `validateInput` | `validate_input` | the executor |
//! | `checkPermissions` † | `check_permissions` | the permission decision |
//! | `call` + `mapToolResultToToolResultBlockParam` | `call` + `map_tool_result` | the executor |
//! | `isEnabled` † | `is_enabled` | `get_tools` |
//! | `isConcurrencySafe` † | `is_concurrency_safe` | turn batching, the MCP server's locking |
//! | `isReadOnly` † | `is_read_only` | plan mode, the permission decision |
//! | `isDestructive` † | `is_destructive` | permission questions |
//! | `isOpenWorld` | `flags().open_world` → [`Tool::is_open_world`] | permission questions |
//! | `userFacingName` † | `user_facing_name` | permission questions |
//! | `shouldDefer` / `alwaysLoad` | `should_defer` / `always_load` | [`is_deferred`] |
//! | `interruptBehavior` | `interrupt_behavior` | the executor (user interrupts) |
//! | `requiresUserInteraction` | `requires_user_interaction` | the permission decision (bypass still asks) |
//! | (the dialog a tool opens) | `interaction` | prompters: AskUserQuestion's questions, ExitPlanMode's plan |
//! | `ruleContentField` | `rule_content_field` | "allow always" session rules |
//! | `getPath` | `get_path` | hook `if` conditions for file tools |
//! | `preparePermissionMatcher` | `prepare_permission_matcher` | hook `if` conditions |
//! | (ours) | `prepare_restriction_matcher` | tool restrictions of sub-agents (the permission decision) |
//! | `mcpInfo` (and `isMcp`) | `mcp_info` | [`is_deferred`] |
//! | `getActivityDescription` | `activity_description` | the CLI's spinner |
//!
//! † the "defaultable" members, fail-closed. `is_read_only`, `is_concurrency_safe` and
//! `is_destructive` default to what [`ToolDef::flags`] promises for every input (open-world is
//! the flags' alone), and [`ToolFlags::default`] promises nothing: not read-only, not concurrency-safe, possibly
//! destructive, possibly open-world; [`build_tool`] holds the two to each other, so a per-input
//! answer can never contradict the flags. The rest are in [`defaults`]: enabled, permissions
//! deferred to the general system (allow), the tool's name as its user-facing name.
//!
//! Names are `const`s: the host checks at compile time that no two built-in tools share one.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::capabilities::Capabilities;
use crate::context::ToolUseContext;
use crate::error::ToolError;
use crate::input::{InputError, ParsedInput, normalize_input, parse_strict};
use crate::permissions::{PermissionResult, ToolPermissionContext};
use crate::questions::Interaction;
use crate::result::{ToolResult, ToolResultBlock};
use crate::schema::input_schema_for;
use crate::validation::ValidationResult;

/// A boxed, sendable future (what the erased [`Tool`]'s async methods return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The fail-closed defaults of the defaultable members that [`ToolFlags`] does not cover.
///
/// Mirrors Claude Code's `TOOL_DEFAULTS` in `src/Tool.ts`. A tool that says nothing is enabled,
/// its permission check defers to the general rules (allow), and its user-facing name is its
/// name; read-only, concurrency-safe, destructive and open-world come from
/// [`ToolFlags::default`] (not read-only, not concurrency-safe, possibly destructive, possibly
/// open-world).
pub mod defaults {
    use crate::permissions::PermissionResult;

    /// `isEnabled` → true.
    pub const IS_ENABLED: bool = true;

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

/// The result size most of Claude Code's tools set (`maxResultSizeChars: 100_000`), the default
/// of [`ToolDef::max_result_size_chars`]; the executor caps every tool at 50,000 anyway.
pub const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 100_000;

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

/// The raw server and tool names of an MCP tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpInfo {
    /// The server's name as configured.
    pub server_name: String,
    /// The tool's name on that server.
    pub tool_name: String,
}

/// What a tool promises for **every** input: used where there is no input to look at (the
/// `list` command, MCP tool annotations), and the defaults of the input-driven answers
/// (`is_read_only(input)` …), which may only narrow them (see [`build_tool`]).
///
/// The default promises nothing: not read-only, not concurrency-safe, possibly destructive,
/// possibly reaching outside the machine — the conservative reading MCP clients expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// Promises nothing (see the type's docs).
    pub const NOTHING: Self = Self { read_only: false, concurrency_safe: false, destructive: true, open_world: true };

    /// A tool that only reads local files: read-only, concurrency-safe, never destructive, local.
    pub const LOCAL_READ_ONLY: Self =
        Self { read_only: true, concurrency_safe: true, destructive: false, open_world: false };
}

impl Default for ToolFlags {
    fn default() -> Self {
        Self::NOTHING
    }
}

/// A function telling whether a permission-rule or hook pattern matches a call (e.g. whether
/// `git *` from `Bash(git *)` covers this command).
pub type PermissionMatcher = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// A function telling whether a set of rule contents, together, covers *every* part of a call:
/// each part matched by at least one of them (`["git diff:*", "git log:*"]` covers
/// `git diff && git log -1`, not `git diff; touch x`). What a sub-agent's tool restriction
/// ([`ToolRestriction`](crate::permissions::ToolRestriction)) holds a call to.
pub type RestrictionMatcher = Box<dyn Fn(&[String]) -> bool + Send + Sync>;

/// What a tool's `description` may look at.
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
/// Required items have no default, so the compiler enforces them: the name, the model-facing
/// description, the one-line summary of a call, the input type (whose JSON Schema is derived),
/// `call`, and the mapping of output to a `tool_result` block. Everything else has a neutral or
/// fail-closed default (see the module docs): the flags promise nothing, the capabilities are
/// [`Capabilities::DEFAULT`], results over [`DEFAULT_MAX_RESULT_SIZE_CHARS`] are persisted.
///
/// Pass a definition to [`build_tool`] to get the `Arc<dyn Tool>` the host uses.
pub trait ToolDef: Send + Sync + Sized + 'static {
    /// The API name the model calls (`Read`, `Grep` …). MCP tools, whose names come from their
    /// server, give a family name here and the real one from [`ToolDef::name`].
    const NAME: &'static str;

    /// What the tool is (its kind, which agents may use it, whether it is a shell): what
    /// generic code asks instead of its name. Default [`Capabilities::DEFAULT`] (fail-closed:
    /// kind other, main conversation and foreground sub-agents only).
    const CAPABILITIES: Capabilities = Capabilities::DEFAULT;

    /// The input. Derive `Deserialize` and `JsonSchema`; doc comments become field descriptions.
    /// Unknown fields are rejected by [`build_tool`] whatever the serde attributes say.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The output data (`structuredContent` over MCP).
    type Output: Serialize + Send + Sync + 'static;

    /// The model-facing text, fixed: a tool crate keeps it in `src/prompt.md` and writes
    /// a `PROMPT` of `include_str!` of its `prompt.md`. [`Self::description`] returns
    /// it unless the tool writes its own (a text that depends on the session).
    const PROMPT: &'static str = "";

    /// The model-facing description: the Messages API tool's `description` (Claude Code's
    /// `prompt`). Default: [`Self::PROMPT`].
    fn description(&self, _options: &PromptOptions<'_>) -> String {
        Self::PROMPT.to_owned()
    }

    /// One short line about this call for permission questions and logs (Claude Code's
    /// `description(input)`).
    fn summary(&self, input: &Self::Input) -> String;

    /// The result size past which the executor persists the result to a file (default
    /// [`DEFAULT_MAX_RESULT_SIZE_CHARS`], what most of Claude Code's tools set).
    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(DEFAULT_MAX_RESULT_SIZE_CHARS)
    }

    /// Runs the tool. A [`ToolError::Failed`] is shown to the model as an error result.
    fn call(
        &self,
        input: Self::Input,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = Result<ToolResult<Self::Output>, ToolError>> + Send;

    /// Serialises the output into the `tool_result` block the model sees.
    fn map_tool_result(&self, output: &Self::Output, tool_use_id: &str) -> ToolResultBlock;

    /// The API name of this instance (default [`ToolDef::NAME`]).
    fn name(&self) -> &str {
        Self::NAME
    }

    // ----- the defaultable members (fail-closed defaults) -----

    /// Whether the tool is available at all (default [`defaults::IS_ENABLED`]).
    fn is_enabled(&self) -> bool {
        defaults::IS_ENABLED
    }

    /// Whether this call may run in parallel with other concurrency-safe calls (default: the
    /// flags' `concurrency_safe`).
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        self.flags().concurrency_safe
    }

    /// Whether this call only reads (default: the flags' `read_only`).
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        self.flags().read_only
    }

    /// Whether this call does something irreversible: delete, overwrite, send (default: the
    /// flags' `destructive`).
    fn is_destructive(&self, _input: &Self::Input) -> bool {
        self.flags().destructive
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

    /// The name shown to the user (default [`defaults::user_facing_name`]).
    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        defaults::user_facing_name(self.name())
    }

    // ----- optional members (neutral defaults) -----

    /// Legacy names that still resolve to this tool.
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// What the tool promises for every input (default: [`Capabilities::flags`] of
    /// [`Self::CAPABILITIES`], itself [`ToolFlags::NOTHING`] unless set). Override it only when
    /// the answer depends on the tool's configuration.
    fn flags(&self) -> ToolFlags {
        Self::CAPABILITIES.flags
    }

    /// A 3–10 word capability phrase for ToolSearch (default: [`Capabilities::search_hint`]).
    fn search_hint(&self) -> Option<&str> {
        Self::CAPABILITIES.search_hint
    }

    /// A raw JSON Schema to use instead of the derived one (MCP tools).
    fn input_json_schema(&self) -> Option<Value> {
        None
    }

    /// A JSON Schema of the output (MCP `outputSchema`: a client may check `structuredContent`
    /// against it).
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Parses the normalised JSON input (default: strictly, against `schema`, with
    /// [`parse_strict`]). MCP tools check their server's schema with a validator of their own.
    ///
    /// # Errors
    /// [`InputError`] listing what does not fit.
    fn parse_input(&self, json: &Value, schema: &Value) -> Result<Self::Input, InputError> {
        parse_strict(self.name(), schema, json)
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

    /// Whether the tool's schema is held back until ToolSearch loads it (default:
    /// [`Capabilities::deferred`]).
    fn should_defer(&self) -> bool {
        Self::CAPABILITIES.deferred
    }

    /// Never deferred, even when tool search is on.
    fn always_load(&self) -> bool {
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

    /// What the tool asks the user beyond yes or no when this call's permission question is put
    /// (AskUserQuestion's questions, ExitPlanMode's plan).
    fn interaction(&self, _input: &Self::Input, _ctx: &ToolUseContext) -> Option<Interaction> {
        None
    }

    /// The input field a permission rule's content is matched against (Claude Code's
    /// `ruleContentField`: `command` for Bash), used for the rule "allow always" adds.
    fn rule_content_field(&self) -> Option<&'static str> {
        None
    }

    /// The file path the call acts on (matched by hook `if` conditions as a path rule is).
    fn get_path(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// What the auto mode's safety classifier sees of a call (Claude Code's
    /// `toAutoClassifierInput`): a compact text or JSON value, such as Bash's command. The
    /// default, an empty string, keeps the tool out of the classifier: its calls are never
    /// approved automatically and fall back to asking (fail closed). A tool that should be
    /// judged must say what matters about the call.
    fn to_auto_classifier_input(&self, _input: &Self::Input) -> Value {
        Value::String(String::new())
    }

    /// A matcher for hook `if` patterns on this call (`git *` from `Bash(git *)`).
    fn prepare_permission_matcher(&self, _input: &Self::Input) -> Option<PermissionMatcher> {
        None
    }

    /// A matcher for a sub-agent's tool restriction on this call (`Bash(git diff:*)` in its
    /// definition's `tools`): unlike [`Self::prepare_permission_matcher`], which answers whether
    /// a pattern covers *any* part (a hook runs when one part matches), it answers whether the
    /// rule contents cover *every* part. `None` (the default): a restricted call of a tool
    /// without one is matched by its [`Self::get_path`], and refused when it has none either —
    /// a tool with a permission matcher but no restriction matcher is refused outright, since
    /// its parts cannot be checked one by one.
    fn prepare_restriction_matcher(&self, _input: &Self::Input) -> Option<RestrictionMatcher> {
        None
    }

    /// The MCP server and tool names, for MCP tools (which are always deferred).
    fn mcp_info(&self) -> Option<McpInfo> {
        None
    }

    /// Spinner text while the call runs ("Reading src/main.rs").
    fn activity_description(&self, _input: &Self::Input) -> Option<String> {
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
/// Get one from [`build_tool`]: the trait is sealed, so every tool has the contract's strict
/// parsing and fail-closed defaults (a crate implements [`ToolDef`], never this). Input-driven
/// methods take the [`ParsedInput`] that [`Tool::parse`] produced; given a `ParsedInput` that came
/// from another tool they answer fail-closed (not safe, not read-only, destructive, an internal
/// error for `call`).
pub trait Tool: Send + Sync + sealed::Sealed {
    /// The API name.
    fn name(&self) -> &str;
    /// Legacy names that also resolve to this tool.
    fn aliases(&self) -> &[&str];
    /// See [`ToolDef::flags`].
    fn flags(&self) -> ToolFlags;
    /// [`ToolDef::CAPABILITIES`].
    fn capabilities(&self) -> Capabilities;
    /// A capability phrase for ToolSearch.
    fn search_hint(&self) -> Option<&str>;
    /// The input's JSON Schema, built once and cached.
    fn input_schema(&self) -> &Value;
    /// The output's JSON Schema, if documented.
    fn output_schema(&self) -> Option<Value>;
    /// The model-facing description (the API `description`).
    fn description(&self, options: &PromptOptions<'_>) -> String;
    /// The short human-facing line for this call.
    fn summary(&self, input: &ParsedInput) -> String;
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
    /// Whether this call reaches outside the machine: [`ToolFlags::open_world`] (and true for
    /// input this tool did not parse).
    fn is_open_world(&self, input: &ParsedInput) -> bool;
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
    /// See [`ToolDef::user_facing_name`].
    fn user_facing_name(&self, input: Option<&ParsedInput>) -> String;

    /// See [`ToolDef::should_defer`].
    fn should_defer(&self) -> bool;
    /// See [`ToolDef::always_load`].
    fn always_load(&self) -> bool;
    /// See [`ToolDef::interrupt_behavior`].
    fn interrupt_behavior(&self) -> InterruptBehavior;
    /// See [`ToolDef::requires_user_interaction`].
    fn requires_user_interaction(&self) -> bool;
    /// See [`ToolDef::interaction`].
    fn interaction(&self, input: &ParsedInput, ctx: &ToolUseContext) -> Option<Interaction>;
    /// See [`ToolDef::rule_content_field`].
    fn rule_content_field(&self) -> Option<&'static str>;
    /// See [`ToolDef::get_path`].
    fn get_path(&self, input: &ParsedInput) -> Option<String>;
    /// See [`ToolDef::to_auto_classifier_input`]; an empty string for input of another tool.
    fn to_auto_classifier_input(&self, input: &ParsedInput) -> Value;
    /// See [`ToolDef::prepare_permission_matcher`].
    fn prepare_permission_matcher(&self, input: &ParsedInput) -> Option<PermissionMatcher>;
    /// See [`ToolDef::prepare_restriction_matcher`].
    fn prepare_restriction_matcher(&self, input: &ParsedInput) -> Option<RestrictionMatcher>;
    /// See [`ToolDef::mcp_info`].
    fn mcp_info(&self) -> Option<McpInfo>;
    /// See [`ToolDef::activity_description`].
    fn activity_description(&self, input: &ParsedInput) -> Option<String>;
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
    if tool.mcp_info().is_some() {
        return true;
    }
    if tool.name() == TOOL_SEARCH_NAME {
        return false;
    }
    tool.should_defer()
}

/// Whether `names` holds no name twice; `const`, so a pool's names can be checked at compile
/// time (`const _: () = assert!(names_are_distinct(&[A::NAME, B::NAME]));`).
pub const fn names_are_distinct(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if str_eq(names[i], names[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
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

    /// A per-input answer held to the flags: `promised` (true for every input) wins; a tool whose
    /// own answer contradicts it is a bug, caught in debug builds.
    fn at_least(&self, promised: bool, answer: bool, what: &str) -> bool {
        debug_assert!(!promised || answer, "{} says {what} for every input but not for this one", self.def.name());
        promised || answer
    }
}

/// Keeps [`Tool`] to [`BuiltTool`].
mod sealed {
    /// Only [`BuiltTool`](super::BuiltTool) has it.
    pub trait Sealed {}

    impl<D: super::ToolDef> Sealed for super::BuiltTool<D> {}
}

/// Turns a tool definition into the type-erased `Arc<dyn Tool>` the host uses.
///
/// Mirrors Claude Code's `buildTool`: the definition's members win, the fail-closed defaults fill
/// the rest. This is also where raw model input is parsed strictly, where the input's JSON
/// Schema is built once and cached, and where the per-input answers are held to
/// [`ToolDef::flags`]: read-only or concurrency-safe for every input stays so for each; never
/// destructive or never open-world stays so for each.
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

    fn capabilities(&self) -> Capabilities {
        D::CAPABILITIES
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

    fn description(&self, options: &PromptOptions<'_>) -> String {
        self.def.description(options)
    }

    fn summary(&self, input: &ParsedInput) -> String {
        self.typed(input).map_or_else(|| self.def.name().to_owned(), |typed| self.def.summary(typed))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        self.def.max_result_size_chars()
    }

    fn parse(&self, input: Value) -> Result<ParsedInput, InputError> {
        let json = normalize_input(self.def.name(), input)?;
        let typed: D::Input = self.def.parse_input(&json, self.input_schema())?;
        Ok(ParsedInput::new(typed, json))
    }

    fn is_enabled(&self) -> bool {
        self.def.is_enabled()
    }

    fn is_concurrency_safe(&self, input: &ParsedInput) -> bool {
        self.typed(input).is_some_and(|typed| {
            self.at_least(self.def.flags().concurrency_safe, self.def.is_concurrency_safe(typed), "concurrency-safe")
        })
    }

    fn is_read_only(&self, input: &ParsedInput) -> bool {
        self.typed(input)
            .is_some_and(|typed| self.at_least(self.def.flags().read_only, self.def.is_read_only(typed), "read-only"))
    }

    fn is_destructive(&self, input: &ParsedInput) -> bool {
        // Fail closed: input we cannot read may do anything.
        self.typed(input).is_none_or(|typed| {
            !self.at_least(!self.def.flags().destructive, !self.def.is_destructive(typed), "never destructive")
        })
    }

    fn is_open_world(&self, input: &ParsedInput) -> bool {
        // Fail closed: input we cannot read may reach anywhere.
        self.typed(input).is_none() || self.def.flags().open_world
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

    fn user_facing_name(&self, input: Option<&ParsedInput>) -> String {
        self.def.user_facing_name(input.and_then(|input| self.typed(input)))
    }

    fn should_defer(&self) -> bool {
        self.def.should_defer()
    }

    fn always_load(&self) -> bool {
        self.def.always_load()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.def.interrupt_behavior()
    }

    fn requires_user_interaction(&self) -> bool {
        self.def.requires_user_interaction()
    }

    fn interaction(&self, input: &ParsedInput, ctx: &ToolUseContext) -> Option<Interaction> {
        self.typed(input).and_then(|typed| self.def.interaction(typed, ctx))
    }

    fn rule_content_field(&self) -> Option<&'static str> {
        self.def.rule_content_field()
    }

    fn get_path(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.get_path(typed))
    }

    fn to_auto_classifier_input(&self, input: &ParsedInput) -> Value {
        self.typed(input).map_or_else(|| Value::String(String::new()), |typed| self.def.to_auto_classifier_input(typed))
    }

    fn prepare_permission_matcher(&self, input: &ParsedInput) -> Option<PermissionMatcher> {
        self.typed(input).and_then(|typed| self.def.prepare_permission_matcher(typed))
    }

    fn prepare_restriction_matcher(&self, input: &ParsedInput) -> Option<RestrictionMatcher> {
        self.typed(input).and_then(|typed| self.def.prepare_restriction_matcher(typed))
    }

    fn mcp_info(&self) -> Option<McpInfo> {
        self.def.mcp_info()
    }

    fn activity_description(&self, input: &ParsedInput) -> Option<String> {
        self.typed(input).and_then(|typed| self.def.activity_description(typed))
    }
}
