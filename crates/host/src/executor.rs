//! The executor: runs an assistant turn's `tool_use` blocks and returns their `tool_result`s.
//!
//! Each block goes through Claude Code's `runToolUse` stages: find the tool (aliases too) →
//! strict parse → `validate_input` → PreToolUse hooks → the permission decision (and, if it comes
//! to that, the PermissionRequest hooks, then the [`PermissionPrompter`]) → `call`, with progress
//! and cancellation → PostToolUse hooks (PostToolUseFailure hooks when the call failed) → map the
//! output to a `tool_result` → the empty-result text → size control (an oversized result is
//! saved to a file and replaced by a preview).
//!
//! The executor fires the hook events of a call (see [`crate::hooks`]): PreToolUse,
//! PermissionRequest, PostToolUse or PostToolUseFailure (with `error` and `is_interrupt`),
//! PermissionDenied once for a call refused by a rule, the mode, the user or a hook (its
//! `reason` is the refusal the model reads; `retry: true` tells the model it may try again), and
//! FileChanged after a call of an edit tool (`ToolKind::Edit`: Write, Edit, MultiEdit,
//! NotebookEdit) succeeded on the file its `get_path` names (`event`: `add` when the file did not
//! exist before the call, else `change`; the matcher selects on the file's name). A tool's own
//! events (TaskCreated, WorktreeCreate …) go through the same hooks: the call's context carries
//! them ([`ToolUseContext::hooks`]).
//!
//! A deferred tool's `InputValidationError` ends with Claude Code's hint to load the tool with
//! ToolSearch (`select:NAME`) first, and its input schema, while ToolSearch is in the pool and no
//! earlier result of the session referenced the tool ([`Executor::with_all_schemas_sent`] turns
//! this off for clients that were given every schema).
//!
//! Envelopes: unknown tools, parse and validation failures come back wrapped in
//! `<tool_use_error>…</tool_use_error>`; permission denials, hook refusals and failed calls come
//! back as plain error text.
//!
//! A turn ([`Executor::run_turn`]): consecutive concurrency-safe calls run together as one batch
//! (at most [`Executor::max_concurrency`] at once), any other call runs alone, and results come
//! back in the order of the blocks. A serial call's context change (a `cd`, an "allow always")
//! applies before the next block; a batch's changes apply after the batch, in block order. A
//! failing call leaves its siblings running (Claude Code 2.1 no longer cancels them). A user
//! interrupt (the
//! context's `interrupt` token) stops only the calls whose tool's `interrupt_behavior` is
//! `Cancel`.
//!
//! What the turn returns ([`Turn`]) also carries the notifications queued on the session's
//! [`NotificationQueue`](agent_tools_core::NotificationQueue) by the end of the turn (a background
//! task that finished: `<task-notification>…`); [`Turn::message`] puts them after the
//! `tool_result` blocks as text blocks, so the model reads them with the results.

use std::sync::Arc;

use agent_tools_core::InterruptBehavior;
use agent_tools_core::{ContentBlock, ContextModifier, Message, ToolUseBlock};
use agent_tools_core::{InnerResult, ToolCaller};
use agent_tools_core::{
    Invocation, input_error_result, runs_concurrently, unknown_tool_result, validation_error_result,
    wrap_tool_use_error,
};
use agent_tools_core::{
    ParsedInput, TOOL_SEARCH_NAME, Tool, ToolError, ToolResultBlock, ToolResultContent, ToolUseContext,
    ValidationResult, find_tool_by_name, is_deferred,
};
use futures_util::StreamExt as _;
use serde_json::Value;

use crate::hooks::{self, HookDecision, Hooks};
use crate::permissions::{
    AutoClassifier, CallMatch, Deciders, PermissionDecision, PermissionPrompter, has_permissions_to_use_tool,
    resolve_ask, restriction_denial,
};
use crate::size;
use crate::tool_search::{deferred_schema_hint, is_discovered, record_discovered};

/// What the model reads when a call is skipped because the turn was cancelled.
pub const CANCEL_MESSAGE: &str = "The user does not want this action to run now. Stop and wait for their instructions.";

/// What the model reads when the user interrupted a call that stops on interrupt.
pub const INTERRUPTED_MESSAGE: &str =
    "The user interrupted this tool call, so it was stopped before it finished. Wait for the user's instructions.";

/// The text block Claude Code adds after a turn's results for each result that loaded tools
/// (`tool_reference` blocks), verbatim.
pub const TOOL_LOADED: &str = "Tool loaded.";

/// Default number of concurrency-safe calls run at once (Claude Code's 10).
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// Work that follows a successful call, hung on the executor rather than written into it: the
/// LSP layer's diagnostics after an edit today. The session adds what it has
/// ([`Executor::with_observer`]); an executor made with [`Executor::new`] (and the free
/// [`run_tool_use`] / [`run_tool_uses`]) has none.
pub trait CallObserver: Send + Sync {
    /// After `tool` ran successfully, with `path` the file its `get_path` named (resolved against
    /// the call's working directory), if any: text returned is appended to the result the model
    /// sees, before size control and the PostToolUse hooks.
    fn after_call<'a>(
        &'a self,
        tool: &'a dyn Tool,
        path: Option<&'a std::path::Path>,
        ctx: &'a ToolUseContext,
    ) -> agent_tools_core::BoxFuture<'a, Option<String>>;
}

/// Runs tool calls for a pool: hooks, permissions (and whoever answers questions), batching.
#[derive(Clone)]
pub struct Executor {
    pool: Arc<[Arc<dyn Tool>]>,
    hooks: Arc<Hooks>,
    prompter: Option<Arc<dyn PermissionPrompter>>,
    classifier: Option<Arc<dyn AutoClassifier>>,
    max_concurrency: usize,
    all_schemas_sent: bool,
    /// Tools only inner calls may name (REPL mode's primitives, hidden from the model).
    hidden: Arc<[Arc<dyn Tool>]>,
    /// What runs after each successful call, in order.
    observers: Arc<[Arc<dyn CallObserver>]>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("tools", &self.pool.iter().map(|tool| tool.name()).collect::<Vec<_>>())
            .field("hooks", &self.hooks)
            .field("prompter", &self.prompter.is_some())
            .field("classifier", &self.classifier.is_some())
            .field("max_concurrency", &self.max_concurrency)
            .field("all_schemas_sent", &self.all_schemas_sent)
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl Executor {
    /// An executor for `pool`, with no hooks, nobody to ask (asks are refused), and
    /// [`DEFAULT_MAX_CONCURRENCY`].
    pub fn new(pool: impl Into<Arc<[Arc<dyn Tool>]>>) -> Self {
        Self {
            pool: pool.into(),
            hooks: Arc::default(),
            prompter: None,
            classifier: None,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            all_schemas_sent: false,
            hidden: Arc::new([]),
            observers: Arc::new([]),
        }
    }

    /// Adds work to run after every successful call (see [`CallObserver`]), after the ones
    /// already added.
    pub fn with_observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.observers = self.observers.iter().cloned().chain(std::iter::once(observer)).collect();
        self
    }

    /// Adds tools that only inner calls ([`ToolCaller`], the REPL's scripts) may name: a
    /// `tool_use` of the model naming one is answered as an unknown tool (REPL mode's hidden
    /// primitives, Claude Code's `REPL_ONLY_TOOLS`).
    pub fn with_hidden_tools(mut self, hidden: impl Into<Arc<[Arc<dyn Tool>]>>) -> Self {
        self.hidden = hidden.into();
        self
    }

    /// The executor inner calls go through: the same one over the pool and the hidden tools.
    fn inner(&self) -> Self {
        if self.hidden.is_empty() {
            return self.clone();
        }
        let pool: Vec<Arc<dyn Tool>> = self.pool.iter().chain(self.hidden.iter()).cloned().collect();
        Self { pool: pool.into(), hidden: Arc::new([]), ..self.clone() }
    }

    /// Says whether the client was given every tool's full schema (an MCP client's `tools/list`
    /// does). When it was, an `InputValidationError` of a deferred tool never carries the "load
    /// it with ToolSearch first" hint; by default (`false`) it does, as in Claude Code, while the
    /// tool is undiscovered and ToolSearch is in the pool.
    pub fn with_all_schemas_sent(mut self, sent: bool) -> Self {
        self.all_schemas_sent = sent;
        self
    }

    /// Runs these hooks around every call.
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = Arc::new(hooks);
        self
    }

    /// The hooks run around every call (and the loop-level ones, [`Hooks::events`]).
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    fn deciders(&self) -> Deciders<'_> {
        Deciders {
            prompter: self.prompter.as_deref(),
            classifier: self.classifier.as_deref(),
            hooks: Some(self.hooks.as_ref()).filter(|hooks| !hooks.is_empty()),
        }
    }

    /// Lets `classifier` judge the calls that would ask, in auto mode.
    pub fn with_classifier(mut self, classifier: Arc<dyn AutoClassifier>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// Asks `prompter` when a call needs approval.
    pub fn with_prompter(mut self, prompter: Arc<dyn PermissionPrompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    /// At most `max` concurrency-safe calls at once (at least 1).
    pub fn with_max_concurrency(mut self, max: usize) -> Self {
        self.max_concurrency = max.max(1);
        self
    }

    /// The same executor (hooks, prompter, classifier, cap) over another pool: a sub-agent's.
    pub fn for_pool(&self, pool: impl Into<Arc<[Arc<dyn Tool>]>>) -> Self {
        Self { pool: pool.into(), ..self.clone() }
    }

    /// The pool.
    pub fn pool(&self) -> &[Arc<dyn Tool>] {
        &self.pool
    }

    /// The cap on concurrent calls.
    pub fn max_concurrency(&self) -> usize {
        self.max_concurrency
    }

    /// Runs one `tool_use` block and returns its finished result. `ctx` is the session's context;
    /// the call sees a copy with `tool_use_id` set.
    ///
    /// Every block gets a result: a panic anywhere in the call (a tool's parse, checks, call or
    /// rendering, a hook, a library a tool uses) is caught here, logged with its message, and
    /// answered with the internal-error result ([`ToolError::Internal`]'s text), so no request
    /// goes unanswered and the session carries on.
    pub async fn run_tool_use(&self, tool_use: &ToolUseBlock, ctx: &ToolUseContext) -> Invocation {
        use futures_util::FutureExt as _;
        match std::panic::AssertUnwindSafe(self.run_and_report(tool_use, ctx)).catch_unwind().await {
            Ok(done) => done,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                let message = agent_tools_core::quote::quote(&message).into_owned();
                let name = agent_tools_core::quote::quote(&tool_use.name).into_owned();
                Invocation::from_call(&tool_use.id, &name, Err(ToolError::internal(format!("panic: {message}"))))
            }
        }
    }

    /// Runs the block, then the PermissionDenied hooks when the call was refused.
    async fn run_and_report(&self, tool_use: &ToolUseBlock, ctx: &ToolUseContext) -> Invocation {
        let mut done = self.run_unguarded(tool_use, ctx).await;
        if done.permission_denied && !self.hooks.event("PermissionDenied").is_empty() {
            Box::pin(self.permission_denied_hooks(tool_use, &mut done, ctx)).await;
        }
        done
    }

    /// The PermissionDenied hooks of a refused call: `tool_name`, `tool_input`, `tool_use_id`
    /// and `reason` (the refusal). A hook's `retry: true` adds a note that the model may try the
    /// call again.
    async fn permission_denied_hooks(&self, tool_use: &ToolUseBlock, done: &mut Invocation, ctx: &ToolUseContext) {
        let Some(tool) = find_tool_by_name(&self.pool, &tool_use.name) else { return };
        let tool = tool.as_ref();
        let mut call_ctx = self.call_context(ctx);
        call_ctx.tool_use_id = Some(tool_use.id.clone());
        let parsed = tool.parse(tool_use.input.clone()).ok();
        let matched = parsed
            .as_ref()
            .filter(|_| hooks::any_condition(self.hooks.event("PermissionDenied"), tool.name()))
            .map(|parsed| CallMatch::for_hooks(tool, parsed, &call_ctx));
        let condition = |pattern: &str| matched.as_ref().is_none_or(|matched| matched.holds(pattern));
        let mut payload = serde_json::Map::new();
        payload.insert("tool_name".into(), Value::from(tool.name()));
        payload.insert("tool_input".into(), tool_use.input.clone());
        payload.insert("tool_use_id".into(), Value::from(tool_use.id.as_str()));
        payload.insert("reason".into(), Value::from(done.block.content.text()));
        let outcome =
            hooks::run_tool_event(&self.hooks, "PermissionDenied", tool.name(), &condition, payload, &call_ctx).await;
        if outcome.specific.get("retry").and_then(Value::as_bool) == Some(true) {
            done.new_messages.push(agent_tools_core::Message::system_text(format!(
                "PermissionDenied:{} hook: this call may be retried.",
                tool.name()
            )));
        }
    }

    /// The context a call runs in: the session's, with the executor's hooks when it carries
    /// none (so a tool fires its events through the hooks that run around it).
    fn call_context(&self, ctx: &ToolUseContext) -> ToolUseContext {
        let mut call_ctx = ctx.clone();
        if call_ctx.hooks.is_none() && !self.hooks.is_empty() {
            call_ctx.hooks = Some(Arc::clone(&self.hooks) as Arc<dyn agent_tools_core::HookEvents>);
        }
        call_ctx
    }

    async fn run_unguarded(&self, tool_use: &ToolUseBlock, ctx: &ToolUseContext) -> Invocation {
        let id = tool_use.id.as_str();
        let Some(tool) = find_tool_by_name(&self.pool, &tool_use.name) else {
            return unknown_tool(&self.pool, id, &tool_use.name, ctx);
        };
        let tool = tool.as_ref();
        if ctx.cancel.is_cancelled() {
            return Invocation::refused(ToolResultBlock::error(id, CANCEL_MESSAGE));
        }
        let (mut parsed, call_ctx) = match self.parse_and_validate(tool, id, tool_use.input.clone(), ctx).await {
            Ok(prepared) => prepared,
            Err(refused) => return refused,
        };
        let mut messages = Vec::new();
        let mut hook_decision = None;
        let mut hook_updated_input = false;
        if !self.hooks.pre_tool_use.is_empty() {
            let matched = hooks::any_condition(&self.hooks.pre_tool_use, tool.name())
                .then(|| CallMatch::for_hooks(tool, &parsed, &call_ctx));
            let condition = |pattern: &str| matched.as_ref().is_none_or(|matched| matched.holds(pattern));
            let pre =
                Box::pin(hooks::run_pre_tool_use(&self.hooks, tool.name(), parsed.json(), &condition, &call_ctx)).await;
            messages.extend(pre.messages);
            if let Some(blocked) = pre.blocked {
                return Invocation {
                    new_messages: messages,
                    permission_denied: true,
                    ..Invocation::refused(ToolResultBlock::error(id, blocked))
                };
            }
            if let Some(updated) = pre.updated_input {
                hook_updated_input = true;
                parsed = match tool.parse(updated) {
                    Ok(reparsed) => reparsed,
                    Err(error) => return Invocation::refused(input_error_result(id, &error)),
                };
            }
            hook_decision = pre.decision;
        }
        let mut decision = has_permissions_to_use_tool(tool, &parsed, &call_ctx).await;
        // A hook's "allow" skips the question, never a deny — nor the question of a tool that
        // requires the user (ExitPlanMode), unless the hook supplied the input itself (Claude
        // Code's rule); its "ask" asks even what rules allow.
        match (&hook_decision, &decision) {
            (Some(HookDecision::Allow), PermissionDecision::Ask { .. })
                if !tool.requires_user_interaction() || hook_updated_input =>
            {
                decision = PermissionDecision::Allow { updated_input: None };
            }
            (Some(HookDecision::Ask(reason)), PermissionDecision::Allow { .. }) => {
                decision = PermissionDecision::Ask { message: reason.clone(), suggestions: Vec::new(), forced: true };
            }
            _ => {}
        }
        let mut permission_modifier = None;
        if let PermissionDecision::Ask { message, suggestions, forced } = decision {
            let resolved = resolve_ask(tool, &parsed, message, suggestions, forced, &call_ctx, self.deciders()).await;
            permission_modifier = resolved.modifier;
            decision = resolved.decision;
        }
        let parsed = match decision {
            PermissionDecision::Deny { message, .. } | PermissionDecision::Ask { message, .. } => {
                return Invocation {
                    new_messages: messages,
                    permission_denied: true,
                    ..Invocation::refused(ToolResultBlock::error(id, message))
                };
            }
            PermissionDecision::Allow { updated_input: None } => parsed,
            PermissionDecision::Allow { updated_input: Some(updated) } => match tool.parse(updated) {
                // An input that replaced the checked one (the tool's own, a prompter's) is held
                // to the agent's tool restrictions too.
                Ok(reparsed) => match restriction_denial(tool, &reparsed, &call_ctx) {
                    Some(PermissionDecision::Deny { message, .. }) => {
                        return Invocation {
                            new_messages: messages,
                            permission_denied: true,
                            ..Invocation::refused(ToolResultBlock::error(id, message))
                        };
                    }
                    _ => reparsed,
                },
                Err(error) => return Invocation::refused(input_error_result(id, &error)),
            },
        };
        let input_json = parsed.json().clone();
        // The input the post hooks' `if` conditions see is the one the tool runs with.
        let post_match = hooks::any_condition(&self.hooks.post_tool_use, tool.name())
            .then(|| CallMatch::for_hooks(tool, &parsed, &call_ctx));
        // The file the call names, for the observers (looked up only when there is one).
        let touched = if self.observers.is_empty() {
            None
        } else {
            tool.get_path(&parsed).map(|path| call_ctx.resolve_path(&path))
        };
        // FileChanged: whether the file an edit tool names existed before the call.
        let changed_file = (tool.capabilities().kind == agent_tools_core::ToolKind::Edit
            && !self.hooks.event("FileChanged").is_empty())
        .then(|| tool.get_path(&parsed).map(|path| call_ctx.resolve_path(&path)))
        .flatten()
        .map(|path| {
            let existed = path.exists();
            (path, existed)
        });
        tracing::debug!(tool = tool.name(), id, "calling tool");
        let started = std::time::Instant::now();
        let outcome = self.call(tool, parsed, &call_ctx).await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut done = Invocation::from_call(id, tool.name(), outcome);
        // What follows a success (the new errors an edit introduced: Claude Code's diagnostics).
        if !done.block.is_error {
            for observer in self.observers.iter() {
                if let Some(text) = observer.after_call(tool, touched.as_deref(), &call_ctx).await {
                    done.block.content.push_text(text);
                }
            }
        }
        if !done.block.is_error {
            let references = done.block.content.tool_references();
            if !references.is_empty() {
                record_discovered(ctx, references);
            }
        }
        done.block = size::control(done.block, tool.max_result_size_chars(), ctx.options.session_dir.as_deref());
        if !self.hooks.is_empty() {
            let after = AfterCall { tool, input: &input_json, duration_ms, changed_file, post_match };
            // Boxed: the hooks' futures stay off the stack of deeply nested calls (a REPL script's).
            let (after_messages, stop) = Box::pin(self.after_call_hooks(after, &done, &call_ctx)).await;
            messages.extend(after_messages);
            done.stop = stop;
        }
        messages.append(&mut done.new_messages);
        done.new_messages = messages;
        done.context_modifier = chain(permission_modifier, done.context_modifier.take());
        done
    }

    /// The hooks that follow a call: PostToolUse after a success, PostToolUseFailure after a
    /// failure (with `error`, `is_interrupt`, `duration_ms`), FileChanged after an edit tool's
    /// success. The system messages they add, and a PostToolUse hook's stop (`"continue":
    /// false`, its `stopReason`).
    async fn after_call_hooks(
        &self,
        after: AfterCall<'_>,
        done: &Invocation,
        call_ctx: &ToolUseContext,
    ) -> (Vec<Message>, Option<String>) {
        let AfterCall { tool, input, duration_ms, changed_file, post_match } = after;
        let mut messages = Vec::new();
        let condition = |pattern: &str| post_match.as_ref().is_none_or(|matched| matched.holds(pattern));
        let mut stop = None;
        if !self.hooks.post_tool_use.is_empty() && !done.block.is_error {
            let response = done.data.as_ref().map_or(Value::Null, |data| data.to_json());
            let (post, stopped) =
                hooks::run_post_tool_use(&self.hooks, tool.name(), input, &response, duration_ms, &condition, call_ctx)
                    .await;
            messages.extend(post);
            stop = stopped;
        }
        if done.block.is_error && !self.hooks.event("PostToolUseFailure").is_empty() {
            let mut payload = serde_json::Map::new();
            payload.insert("tool_name".into(), Value::from(tool.name()));
            payload.insert("tool_input".into(), input.clone());
            payload.insert("tool_use_id".into(), Value::from(done.block.tool_use_id.as_str()));
            payload.insert("error".into(), Value::from(done.block.content.text()));
            payload.insert("is_interrupt".into(), Value::from(call_ctx.interrupt.is_cancelled()));
            payload.insert("duration_ms".into(), Value::from(duration_ms));
            let outcome =
                hooks::run_tool_event(&self.hooks, "PostToolUseFailure", tool.name(), &condition, payload, call_ctx)
                    .await;
            for context in outcome.context {
                messages.push(Message::system_text(format!(
                    "PostToolUseFailure:{} hook additional context: {context}",
                    tool.name()
                )));
            }
        }
        if let Some((path, existed)) = changed_file.filter(|_| !done.block.is_error) {
            let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
            let mut payload = serde_json::Map::new();
            payload.insert("file_path".into(), Value::from(path.to_string_lossy().into_owned()));
            payload.insert("event".into(), Value::from(if existed { "change" } else { "add" }));
            let _ = hooks::run_event(&self.hooks, "FileChanged", &name, payload, call_ctx).await;
        }
        (messages, stop)
    }

    /// Strict parse, then `validate_input` with a context whose `tool_use_id` is set (the core's
    /// `parse_and_validate`), adding Claude Code's "load it with `select:NAME` first" hint to the
    /// `InputValidationError` of a deferred tool the model has not loaded.
    async fn parse_and_validate(
        &self,
        tool: &dyn Tool,
        id: &str,
        input: Value,
        ctx: &ToolUseContext,
    ) -> Result<(ParsedInput, ToolUseContext), Invocation> {
        let parsed = match tool.parse(input) {
            Ok(parsed) => parsed,
            Err(error) => {
                let mut block = input_error_result(id, &error);
                if self.needs_schema_hint(tool, ctx) {
                    let hint = deferred_schema_hint(tool);
                    block.content =
                        ToolResultContent::Text(wrap_tool_use_error(&format!("InputValidationError: {error}{hint}")));
                }
                return Err(Invocation::refused(block));
            }
        };
        let mut call_ctx = self.call_context(ctx);
        call_ctx.tool_use_id = Some(id.to_owned());
        if let ValidationResult::Error { message, error_code } = tool.validate_input(&parsed, &call_ctx).await {
            let mut refused = Invocation::refused(validation_error_result(id, &message));
            refused.permission_denied = error_code == agent_tools_core::DENIED_BY_RULE;
            return Err(refused);
        }
        Ok((parsed, call_ctx))
    }

    /// Whether the model may not have the tool's schema: the tool is deferred, ToolSearch is in
    /// the pool, the client was not sent every schema, and no earlier result referenced the tool.
    fn needs_schema_hint(&self, tool: &dyn Tool, ctx: &ToolUseContext) -> bool {
        !self.all_schemas_sent
            && is_deferred(tool)
            && self.pool.iter().any(|pooled| pooled.name() == TOOL_SEARCH_NAME)
            && !is_discovered(ctx, tool.name())
    }

    /// Calls the tool; a user interrupt stops it only when its tool says `Cancel`.
    async fn call(
        &self,
        tool: &dyn Tool,
        parsed: agent_tools_core::ParsedInput,
        ctx: &ToolUseContext,
    ) -> Result<agent_tools_core::ToolResult<agent_tools_core::CallOutput>, ToolError> {
        if tool.interrupt_behavior() == InterruptBehavior::Block {
            let mut call_ctx = ctx.clone();
            call_ctx.tool_caller = Some(Arc::new(self.inner()));
            return tool.call(parsed, &call_ctx).await;
        }
        let mut call_ctx = ctx.clone();
        call_ctx.tool_caller = Some(Arc::new(self.inner()));
        call_ctx.cancel = ctx.cancel.child_token();
        let stop = call_ctx.cancel.clone();
        let interrupt = ctx.interrupt.clone();
        let mut running = std::pin::pin!(tool.call(parsed, &call_ctx));
        tokio::select! {
            outcome = &mut running => outcome,
            () = interrupt.cancelled() => {
                stop.cancel();
                // Let the tool clean up, then report the interrupt whatever it returned.
                let _ = running.await;
                Err(ToolError::failed(INTERRUPTED_MESSAGE))
            }
        }
    }

    /// Runs a turn's blocks (see the module docs) and returns their results in block order, with
    /// the notifications queued by the end of the turn. Context changes are applied to `ctx` as
    /// they take effect.
    pub async fn run_turn(&self, tool_uses: &[ToolUseBlock], ctx: &mut ToolUseContext) -> Turn {
        let invocations = self.run_blocks(tool_uses, ctx).await;
        let notifications = ctx.notifications().drain().into_iter().map(|pending| pending.text).collect();
        Turn { invocations, notifications }
    }

    async fn run_blocks(&self, tool_uses: &[ToolUseBlock], ctx: &mut ToolUseContext) -> Vec<Invocation> {
        let mut done = Vec::with_capacity(tool_uses.len());
        let mut index = 0;
        while index < tool_uses.len() {
            let safe = |block: &ToolUseBlock| {
                runs_concurrently(find_tool_by_name(&self.pool, &block.name).map(AsRef::as_ref), &block.input)
            };
            let batch_end = if safe(&tool_uses[index]) {
                index + tool_uses[index..].iter().take_while(|b| safe(b)).count()
            } else {
                index + 1
            };
            let batch = &tool_uses[index..batch_end];
            if batch.len() == 1 && !safe(&batch[0]) {
                let mut invocation = self.run_tool_use(&batch[0], ctx).await;
                if let Some(modifier) = invocation.context_modifier.take() {
                    *ctx = modifier(ctx.clone());
                }
                done.push(invocation);
            } else {
                let mut results = self.run_batch(batch, ctx).await;
                for invocation in &mut results {
                    if let Some(modifier) = invocation.context_modifier.take() {
                        *ctx = modifier(ctx.clone());
                    }
                }
                done.extend(results);
            }
            index = batch_end;
        }
        done
    }

    /// Runs concurrency-safe calls together. A failing call leaves the others running, as Claude
    /// Code 2.1 does (its recorded `par-bash-error-siblings`: a slow sibling of a failed `ls`
    /// finishes).
    async fn run_batch(&self, batch: &[ToolUseBlock], ctx: &ToolUseContext) -> Vec<Invocation> {
        let runs = batch.iter().map(|block| self.run_tool_use(block, ctx));
        futures_util::stream::iter(runs).buffered(self.max_concurrency).collect().await
    }
}

/// What the hooks after a call need to know of it.
struct AfterCall<'a> {
    tool: &'a dyn Tool,
    /// The input the tool ran with.
    input: &'a Value,
    duration_ms: u64,
    /// The file an edit tool named, and whether it existed before the call (FileChanged).
    changed_file: Option<(std::path::PathBuf, bool)>,
    /// The call's rule matching, for the hooks' `if` conditions.
    post_match: Option<CallMatch<'a>>,
}

/// Runs `first` then `second`.
fn chain(first: Option<ContextModifier>, second: Option<ContextModifier>) -> Option<ContextModifier> {
    match (first, second) {
        (None, None) => None,
        (Some(only), None) | (None, Some(only)) => Some(only),
        (Some(first), Some(second)) => Some(Box::new(move |ctx| second(first(ctx)))),
    }
}

/// The unknown-tool result, saying so when a deny rule removed the tool, or hinting when the name
/// differs from a pooled tool only in case (`grep` for `Grep`).
fn unknown_tool(pool: &[Arc<dyn Tool>], id: &str, name: &str, ctx: &ToolUseContext) -> Invocation {
    let mut block = unknown_tool_result(id, name);
    let denied = ctx.permission_context.rules(agent_tools_core::PermissionBehavior::Deny).any(|rule| {
        rule.rule_value.rule_content.is_none()
            && agent_tools_core::normalize_legacy_tool_name(name) == rule.rule_value.tool_name
    });
    let note = if denied {
        Some(format!("{name} is disabled for this session by a permission rule."))
    } else {
        pool.iter()
            .find(|tool| tool.name().eq_ignore_ascii_case(name))
            .map(|near| format!("Tool names are case-sensitive: did you mean {}?", near.name()))
    };
    if let Some(note) = note {
        let name = agent_tools_core::quote::quote(name);
        block.content =
            ToolResultContent::Text(wrap_tool_use_error(&format!("Error: No such tool available: {name}. {note}")));
    }
    Invocation::refused(block)
}

/// Runs one block with a default [`Executor`] (no hooks, nobody to ask).
pub async fn run_tool_use(pool: &[Arc<dyn Tool>], tool_use: &ToolUseBlock, ctx: &ToolUseContext) -> Invocation {
    Executor::new(pool.to_vec()).run_tool_use(tool_use, ctx).await
}

/// Runs a turn with a default [`Executor`] (no hooks, nobody to ask).
pub async fn run_tool_uses(pool: &[Arc<dyn Tool>], tool_uses: &[ToolUseBlock], ctx: &mut ToolUseContext) -> Turn {
    Executor::new(pool.to_vec()).run_turn(tool_uses, ctx).await
}

/// What a turn produced: each call's result in block order, and the notifications that were
/// waiting for the model when the turn ended. Derefs to the results (`turn[0]`, `turn.len()`).
#[derive(Debug, Default)]
pub struct Turn {
    /// One finished call per `tool_use` block, in block order.
    pub invocations: Vec<Invocation>,
    /// Texts queued for the model (e.g. `<task-notification>` blocks), oldest first.
    pub notifications: Vec<String>,
}

impl Turn {
    /// The user message that answers the turn: one `tool_result` block per call, in block order,
    /// then a [`TOOL_LOADED`] text block for each result that referenced tools (a ToolSearch that
    /// found something, as Claude Code adds), then one text block per notification (Claude Code
    /// delivers a background task's completion with the next results).
    pub fn message(&self) -> Message {
        let results = self.invocations.iter().map(|done| ContentBlock::from(done.block.clone()));
        let loaded = self
            .invocations
            .iter()
            .filter(|done| !done.block.is_error && !done.block.content.tool_references().is_empty())
            .map(|_| ContentBlock::text(TOOL_LOADED));
        let notifications = self.notifications.iter().map(|text| ContentBlock::text(text.clone()));
        Message::user(results.chain(loaded).chain(notifications).collect())
    }
}

impl std::ops::Deref for Turn {
    type Target = [Invocation];

    fn deref(&self) -> &[Invocation] {
        &self.invocations
    }
}

impl IntoIterator for Turn {
    type Item = Invocation;
    type IntoIter = std::vec::IntoIter<Invocation>;

    fn into_iter(self) -> Self::IntoIter {
        self.invocations.into_iter()
    }
}

/// The user message with one `tool_result` block per call, in block order (no notifications: see
/// [`Turn::message`]). Extra messages a tool or hook adds stay in its [`Invocation::new_messages`].
pub fn tool_result_message(invocations: &[Invocation]) -> Message {
    Message::user(invocations.iter().map(|done| ContentBlock::from(done.block.clone())).collect())
}

impl ToolCaller for Executor {
    fn tools(&self) -> Arc<[Arc<dyn Tool>]> {
        Arc::clone(&self.pool)
    }

    fn call<'a>(
        &'a self,
        id: String,
        name: String,
        input: serde_json::Value,
        parent: &'a ToolUseContext,
    ) -> agent_tools_core::BoxFuture<'a, InnerResult> {
        Box::pin(async move {
            let block = ToolUseBlock { id, name, input };
            let mut ctx = parent.clone();
            ctx.options.tools = Arc::clone(&self.pool);
            let done = self.run_tool_use(&block, &ctx).await;
            InnerResult {
                text: done.block.content.text(),
                is_error: done.block.is_error,
                data: done.data.as_ref().map(|data| data.to_json()),
            }
        })
    }
}
