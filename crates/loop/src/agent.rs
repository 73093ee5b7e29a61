//! The agent loop itself: [`Agent`] and [`Agent::query`].

use std::future::Future as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_api::{ApiError, AssistantMessage, Backend, Delta, MessageBuilder, StreamEvent, Usage, cost_usd};
use agent_tools_core::Invocation;
use agent_tools_core::ToolResultBlock;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::{CancellationToken, ProgressEvent};
use agent_tools_host::executor::TOOL_LOADED;
use agent_tools_host::hooks::{EventOutcome, run_event};
use agent_tools_host::tool_search::{api_tools, available_deferred_tools_message};
use agent_tools_host::{CallOptions, Session};
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::conversation::{self, Block, Content, Message};
use crate::events::{AgentEvent, QueryResult, ResultSubtype};
use crate::memory;
use crate::options::{AgentOptions, MAX_STRUCTURED_OUTPUT_RETRIES, MAX_TOKENS_CONTINUATIONS};
use crate::prompt::{EnvironmentFacts, IDENTITY, PromptStyle, base_prompt, git_status};
use crate::results::{tool_result_json, unparsed_input, unparsed_input_error};
use crate::spend::Spend;
use crate::transcript::Transcript;

mod calls;
mod compaction;
mod hook_events;
mod live;
mod stream;
use calls::{Call, CallState, join_error, poll_finished};
pub use hook_events::{PromptExpansion, stop_failure_kind};
use live::Live;
use stream::Streamed;

/// The `anthropic-beta` features the loop's requests use: tool search (`defer_loading`,
/// `tool_reference`), system messages inside the conversation, and interleaved thinking.
pub const BETAS: &str = "claude-code-20250219,interleaved-thinking-2025-05-14,advanced-tool-use-2025-11-20,\
per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01";

/// Anthropic's code execution tool, which programmatic tool calling runs the model's code in.
pub const CODE_EXECUTION_TOOL: &str = "code_execution_20250825";

/// The `anthropic-beta` feature of that tool (added to [`BETAS`] when it is on).
pub const CODE_EXECUTION_BETA: &str = "code-execution-2025-08-25";

/// The tools scripts in the container may not call: ToolSearch and StructuredOutput change the
/// conversation itself, not the world.
const NOT_CALLABLE_FROM_CODE: &[&str] = &["ToolSearch", STRUCTURED_OUTPUT];

/// At most this many `pause_turn` answers in a row are continued.
const MAX_PAUSE_CONTINUATIONS: u32 = 20;

/// Programmatic tool calling: every tool the model sees in full (not deferred) may also be
/// called from the code execution tool, which is added last.
fn programmatic(tools: &mut Vec<Value>) {
    for tool in tools.iter_mut() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        if NOT_CALLABLE_FROM_CODE.contains(&name) || tool.get("defer_loading").is_some() {
            continue;
        }
        if let Some(entry) = tool.as_object_mut() {
            entry.insert("allowed_callers".into(), json!(["direct", CODE_EXECUTION_TOOL]));
        }
    }
    tools.push(json!({"type": CODE_EXECUTION_TOOL, "name": "code_execution"}));
}

/// What the model reads when its answer was cut off at `max_tokens` and the loop asks it to go on.
pub const CONTINUE_AFTER_MAX_TOKENS: &str = "Your answer was cut off at the output token limit. Continue \
exactly where it stopped, without repeating yourself or apologising, and split what is left into smaller steps.";

/// What the model reads in place of the calls a user interrupt stopped before they ran.
pub const INTERRUPTED_BY_USER: &str = "[Request interrupted by user]";

/// The user message that follows the results of a round a user interrupt stopped (Claude Code's
/// `INTERRUPT_MESSAGE_FOR_TOOL_USE`): the next request shows the model that the user cut the
/// turn short, not that the calls failed by themselves.
pub const INTERRUPTED_FOR_TOOL_USE: &str = "[Request interrupted by user for tool use]";

/// The notice when a Stop hook would block the end of the turn once more than
/// [`AgentOptions::stop_hook_block_cap`] allows: its `cap` blocks in a row were followed, this one
/// is not, and the turn ends.
pub fn stop_hook_cap_notice(event: &str, cap: u32) -> String {
    format!(
        "The {event} hook blocked the end of the turn {cap} times in a row while the model ran no tool; \
         its next block is overridden and the turn ends here. CLAUDE_CODE_STOP_HOOK_BLOCK_CAP sets the cap \
         (0 for none)."
    )
}

/// The Monitor tool's name: the watches its calls start end with an interrupted query.
const MONITOR: &str = "Monitor";

/// The tool a structured answer is given through (Claude Code's SyntheticOutputTool).
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";

/// What the model reads when it ended its answer without the `StructuredOutput` call an output
/// schema requires.
pub const STRUCTURED_OUTPUT_REMINDER: &str = "Your answer is not finished: this conversation requires its \
result as a call to the StructuredOutput tool, with input that matches the tool's schema. Call it now.";

/// Why an agent could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The transcript could not be opened.
    #[error(transparent)]
    Transcript(#[from] crate::transcript::TranscriptError),
}

/// Receives the loop's events as they happen.
pub type Sink<'a> = &'a mut (dyn FnMut(AgentEvent) + Send);

/// A conversation with a model over a [`Session`]'s tools (see the crate docs).
pub struct Agent {
    session: Arc<Session>,
    backend: Backend,
    options: AgentOptions,
    state: Mutex<State>,
    interrupt: std::sync::Mutex<CancellationToken>,
    transcript: Option<Transcript>,
    /// Progress of running calls, relayed as [`AgentEvent::Progress`] while the loop waits.
    progress_tx: tokio::sync::mpsc::UnboundedSender<ProgressEvent>,
    progress_rx: Mutex<tokio::sync::mpsc::UnboundedReceiver<ProgressEvent>>,
    /// The totals it adds to: its own, or its caller's when it is a sub-agent.
    spend: Arc<Spend>,
    /// The last request's measured context (input and output tokens), readable while a
    /// query holds the state.
    measured: std::sync::atomic::AtomicU64,
    /// The model and extended thinking the next request uses (the SDK's `set_model` and
    /// `set_max_thinking_tokens` change them between requests).
    live: std::sync::Mutex<Live>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("session", &self.session.id()).field("model", &self.options.model).finish()
    }
}

/// The conversation and its counters.
#[derive(Default)]
struct State {
    messages: Vec<Message>,
    /// The first prompt has been sent (the initial context is in `messages`).
    started: bool,
    /// The working directory the model was last told about.
    reported_cwd: PathBuf,
    /// Input tokens of the last request (the conversation's size, as the model saw it).
    context_tokens: u64,
    /// Tools discovered before a compaction, sent in full from then on.
    carried_tools: Vec<String>,
    session_started: bool,
    /// `/clear` emptied the conversation: the next SessionStart's source is `clear`.
    cleared: bool,
    /// The sub-agent runner is in the session.
    runner_installed: bool,
    /// The code execution container the last answer ran in (programmatic tool calling).
    container: Option<String>,
    /// The last call's tool, input and result, as JSON text ([`AgentOptions::repeated_call_note`]).
    last_call: Option<String>,
}

/// One call of the assistant message: waiting for the end of the message, started early while
/// the answer streamed, or already finished.
/// One request's body, borrowing the conversation (serialized straight to the wire).
#[derive(serde::Serialize)]
struct Request<'a> {
    model: &'a str,
    max_tokens: u32,
    system: &'a [Value],
    messages: Breakpointed<'a>,
    metadata: Metadata,
    stream: bool,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<&'a Value>,
    /// The code execution container of programmatic tool calling, once the API made one.
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<&'a str>,
}

#[derive(serde::Serialize)]
struct Metadata {
    user_id: String,
}

/// The messages, the last one's last block marked as a prompt-cache breakpoint.
struct Breakpointed<'a>(&'a [Message]);

impl serde::Serialize for Breakpointed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        if let Some((last, earlier)) = self.0.split_last() {
            for message in earlier {
                seq.serialize_element(message)?;
            }
            let mut last = last.clone();
            if let Content::Blocks(blocks) = &mut last.content
                && let Some(block) = blocks.last_mut()
            {
                block.as_object_mut().insert("cache_control".into(), json!({"type": "ephemeral"}));
            }
            seq.serialize_element(&last)?;
        }
        seq.end()
    }
}

impl Agent {
    /// An agent over `session`, asking `backend`, with `options`. A resumed conversation
    /// (`options.resume`) continues where it stopped, made valid first
    /// ([`transcript::repair`](crate::transcript::repair): a call a kill left without its result
    /// is answered as interrupted).
    ///
    /// # Errors
    /// [`AgentError::Transcript`] when the transcript's folder cannot be made or its file read.
    pub fn new(session: Arc<Session>, backend: Backend, options: AgentOptions) -> Result<Self, AgentError> {
        let transcript = crate::transcript::for_agent(&session, &options)?;
        let state = State {
            started: !options.resume.is_empty(),
            // A conversation a kill cut short (a call without its result) is made valid first.
            messages: crate::transcript::repair(&options.resume)
                .messages
                .into_iter()
                .filter_map(Message::from_value)
                .collect(),
            reported_cwd: session.project_dir().to_path_buf(),
            ..State::default()
        };
        // Every hook's `transcript_path` names the main conversation's transcript.
        if !session.is_fork()
            && let Some(transcript) = &transcript
        {
            session.hooks().set_transcript_path(&transcript.path().display().to_string());
        }
        let (progress_tx, progress_rx) = tokio::sync::mpsc::unbounded_channel();
        let spend = options.spend.clone().unwrap_or_default();
        let live = std::sync::Mutex::new(Live { model: options.model.clone(), thinking: options.thinking.clone() });
        Ok(Self {
            live,
            measured: std::sync::atomic::AtomicU64::new(0),
            spend,
            session,
            backend,
            options,
            state: Mutex::new(state),
            interrupt: std::sync::Mutex::new(CancellationToken::new()),
            transcript,
            progress_tx,
            progress_rx: Mutex::new(progress_rx),
        })
    }

    /// The session the tools run in.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// The options the agent was built with.
    pub fn options(&self) -> &AgentOptions {
        &self.options
    }

    /// The transcript file, when the conversation is saved.
    pub fn transcript_path(&self) -> Option<&std::path::Path> {
        self.transcript.as_ref().map(Transcript::path)
    }

    /// The conversation so far (the Messages API's `messages`).
    pub async fn messages(&self) -> Vec<Value> {
        self.state.lock().await.messages.iter().map(Message::to_value).collect()
    }

    /// Interrupts the running query (Ctrl-C, the SDK's `interrupt`): the stream stops, calls
    /// whose tool stops on interrupt are cancelled, the others finish, and the query ends with
    /// subtype `error_during_execution`. Without a running query it does nothing.
    pub fn interrupt(&self) {
        if let Ok(token) = self.interrupt.lock() {
            token.cancel();
        }
    }

    /// The `system/init` event: `{"type":"system","subtype":"init","cwd","session_id","tools",
    /// "mcp_servers","model","permissionMode",…}`, as `claude -p --output-format stream-json`
    /// prints it first.
    pub async fn init_event(&self) -> Value {
        let pool = self.session.pool();
        let tools: Vec<&str> = pool.iter().map(|tool| tool.name()).collect();
        let mut servers: Vec<Value> = self
            .session
            .mcp()
            .connections()
            .iter()
            .map(|server| json!({"name": server.name, "status": "connected"}))
            .collect();
        servers.extend(self.session.mcp().failures().iter().map(|f| json!({"name": f.name, "status": "failed"})));
        let mode = self.session.permission_context().await.mode.as_str();
        json!({
            "type": "system", "subtype": "init",
            "cwd": self.session.project_dir(),
            "session_id": self.session.id(),
            "tools": tools,
            "mcp_servers": servers,
            "model": self.model(),
            "permissionMode": mode,
            "slash_commands": crate::commands::listing(self).iter().map(|command| command["name"].clone()).collect::<Vec<_>>(),
            "apiKeySource": self.options.api_key_source,
            "output_style": "default",
            "agents": [],
            "skills": [],
            "plugins": [],
            "uuid": uuid(),
        })
    }

    /// Runs the `SessionEnd` hooks (`reason`: `clear`, `logout`, `prompt_input_exit`, `other`;
    /// the matcher selects on it).
    pub async fn end(&self, reason: &str) {
        let mut payload = Map::new();
        payload.insert("reason".into(), json!(reason));
        self.run_hooks("SessionEnd", reason, payload).await;
    }

    /// Runs the `Notification` hooks with `message` and `notification_type` (the matcher
    /// selects on it): Claude Code fires them when it needs the user — `permission_prompt` for
    /// a permission question, `idle_prompt` when it waits for a prompt.
    pub async fn notify(&self, message: &str, notification_type: &str) {
        let mut payload = Map::new();
        payload.insert("message".into(), json!(message));
        payload.insert("notification_type".into(), json!(notification_type));
        self.run_hooks("Notification", notification_type, payload).await;
    }

    /// A sub-agent's type (empty for the main conversation).
    fn agent_type(&self) -> String {
        self.session.context_without_waiting().agent_type.unwrap_or_default()
    }

    /// What SubagentStart and SubagentStop hooks get besides the common fields: `agent_id`,
    /// `agent_type`, `agent_transcript_path`.
    fn agent_payload(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("agent_id".into(), json!(self.session.agent_id().unwrap_or_default()));
        payload.insert("agent_type".into(), json!(self.agent_type()));
        let transcript = self.transcript_path().map(|path| path.display().to_string()).unwrap_or_default();
        payload.insert("agent_transcript_path".into(), json!(transcript));
        payload
    }

    async fn run_hooks(&self, event: &str, target: &str, payload: Map<String, Value>) -> EventOutcome {
        if self.session.hooks().event(event).is_empty() {
            return EventOutcome::default();
        }
        // A Notification hook runs while the call that asks holds the session's context.
        let ctx = self.session.context_without_waiting();
        run_event(self.session.hooks(), event, target, payload, &ctx).await
    }

    /// Sends `prompt` (text) and runs the loop until the model ends its turn, a limit is reached
    /// or the query is interrupted; events go to `sink` as they happen. Queries of one agent run
    /// one after another (a second waits for the first).
    pub async fn query(&self, prompt: &str, sink: Sink<'_>) -> QueryResult {
        self.query_blocks(vec![json!({"type": "text", "text": prompt})], sink).await
    }

    /// [`Agent::query`] with the prompt as content blocks (text, images).
    pub async fn query_blocks(&self, prompt: Vec<Value>, sink: Sink<'_>) -> QueryResult {
        let run = Run::new(Instant::now());
        let mut st = self.state.lock().await;
        let interrupt = self.begin_query(&mut st).await;
        let prompt_text: String =
            prompt.iter().filter_map(|block| block.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n");
        if let Some(classifier) = &self.options.classifier {
            classifier.record_prompt(&prompt_text);
        }
        let extra_context = match self.prompt_hooks(&mut st, &prompt_text, sink).await {
            Ok(context) => context,
            Err(reason) => {
                let text = format!("UserPromptSubmit operation blocked by hook: {reason}");
                return self.finish(&run, ResultSubtype::Success, true, text, "hook_blocked");
            }
        };
        self.open_turn(&mut st, prompt, extra_context, sink).await;
        self.turns(&mut st, run, &interrupt, sink).await
    }

    /// What every query starts with: a fresh interrupt token (the one [`Agent::interrupt`]
    /// fires), the session's scheduled jobs firing into its queue (once per session; a sub-agent
    /// shares its caller's), and the sub-agent runner installed (once).
    async fn begin_query(&self, st: &mut State) -> CancellationToken {
        let interrupt = CancellationToken::new();
        if let Ok(mut slot) = self.interrupt.lock() {
            *slot = interrupt.clone();
        }
        if !self.session.is_fork() {
            let _ = self.session.start_cron_into_queue();
        }
        if !st.runner_installed && self.options.subagents {
            st.runner_installed = true;
            // Its sub-agents spend from the same totals (and budget).
            let mut base = self.options.clone();
            base.spend = Some(Arc::clone(&self.spend));
            // Its sub-agents' transcripts go beside this one.
            base.transcript_file = self.transcript_path().map(std::path::Path::to_path_buf);
            let runner = crate::subagents::LoopRunner::new(&self.session, self.backend.clone(), base);
            self.session.install_subagent_runner(Arc::new(runner)).await;
        }
        interrupt
    }

    /// The hooks a prompt goes through: SubagentStart (once) for a sub-agent; SessionStart (once)
    /// and UserPromptSubmit otherwise. The context they add, or the reason a hook blocked the
    /// prompt.
    async fn prompt_hooks(&self, st: &mut State, prompt_text: &str, sink: Sink<'_>) -> Result<Vec<String>, String> {
        let mut extra_context = Vec::new();
        if self.session.is_fork() {
            if !st.session_started {
                st.session_started = true;
                let target = self.agent_type();
                let outcome = self.run_hooks("SubagentStart", &target, self.agent_payload()).await;
                extra_context.extend(outcome.context);
            }
            return Ok(extra_context);
        }
        if !st.session_started {
            st.session_started = true;
            if !st.started {
                extra_context.extend(self.setup_hooks().await);
            }
            let source = if std::mem::take(&mut st.cleared) {
                "clear"
            } else if st.started {
                "resume"
            } else {
                "startup"
            };
            let mut payload = Map::new();
            payload.insert("source".into(), json!(source));
            payload.insert("model".into(), json!(self.model()));
            let outcome = self.run_hooks("SessionStart", source, payload).await;
            extra_context.extend(outcome.context);
        }
        let mut payload = Map::new();
        payload.insert("prompt".into(), json!(prompt_text));
        let outcome = self.run_hooks("UserPromptSubmit", "", payload).await;
        for line in &outcome.user_messages {
            sink(AgentEvent::Notice(line.clone()));
        }
        if let Some(reason) = outcome.blocked.or(outcome.stop) {
            return Err(reason);
        }
        extra_context.extend(outcome.context);
        Ok(extra_context)
    }

    /// Puts the prompt in the conversation: the memory files (first prompt only) and the hooks'
    /// context as reminders, what reached the conversation while it was idle (a background
    /// agent's report, a message), then the prompt; after the first prompt, the environment.
    async fn open_turn(&self, st: &mut State, prompt: Vec<Value>, extra_context: Vec<String>, sink: Sink<'_>) {
        let mut content = Vec::new();
        let first = !st.started;
        if first && let Some(memory_text) = self.memory_text(sink).await {
            content.push(Block::text(format!("<system-reminder>\n{memory_text}</system-reminder>\n")));
        }
        for context in extra_context {
            content.push(Block::text(format!("<system-reminder>\n{context}\n</system-reminder>\n")));
        }
        for pending in self.session.drain_notifications().await {
            content.extend(Block::from_value(crate::results::pending_block(&pending)));
        }
        content.extend(conversation::blocks(prompt));
        self.push(st, Message::user(content));
        if first {
            st.started = true;
            let context = self.initial_context().await;
            self.push(st, Message::system_text(context));
        }
    }

    /// The memory files (`CLAUDE.md` and their imports) as one text, when memory is on and there
    /// is any; a skipped import is said through `sink`.
    async fn memory_text(&self, sink: Sink<'_>) -> Option<String> {
        if !self.options.memory {
            return None;
        }
        let config_dir = self.session.environment().claude_config_dir();
        let home = self.session.environment().home();
        let ctx = self.session.context().await;
        let policy = memory::ImportPolicy {
            ctx: &ctx,
            trusted: self.session.is_trusted(),
            project: self.session.project_dir(),
            config_dir: config_dir.as_deref(),
        };
        let loaded = memory::load(
            self.session.project_dir(),
            config_dir.as_deref(),
            home.as_deref(),
            self.options.memory_sources,
            &|path, kind, load| policy.check(path, kind, load),
        );
        if let Some(notice) = loaded.skipped_notice() {
            sink(AgentEvent::Notice(notice));
        }
        self.instructions_loaded_hooks(&loaded.files).await;
        Some(memory::render(&loaded.files)).filter(|text| !text.is_empty())
    }

    /// The query's turns: ask the model, run its calls, and again, until an answer without calls
    /// ends it ([`Agent::end_or_continue`]) or a limit, an interrupt or an API error does.
    async fn turns(&self, st: &mut State, mut run: Run, interrupt: &CancellationToken, sink: Sink<'_>) -> QueryResult {
        let tools = self.tools(st).await;
        let system = self.system_blocks();
        let mut counts = Continuations::default();
        loop {
            if let Some(end) = self.limit_reached(st, &run, interrupt, sink).await {
                return end;
            }
            let live = self.live();
            let body = self.request(st, &tools, &system, &live);
            run.turns += 1;
            let asked = Instant::now();
            let streamed = self.stream_with_retries(&body, sink, interrupt).await;
            run.api += asked.elapsed();
            let (message, calls) = match streamed {
                Ok(Streamed::Done(message, calls)) => (message, calls),
                Ok(Streamed::Interrupted(calls)) => {
                    self.stop_calls(calls).await;
                    self.stop_monitors(&run).await;
                    self.interrupt_hooks().await;
                    return self.finish(&run, ResultSubtype::ErrorDuringExecution, true, String::new(), "interrupted");
                }
                Err(error) => {
                    let text = api_error_text(&error);
                    sink(AgentEvent::Notice(text.clone()));
                    self.stop_failure_hooks(&error, &text, &run.last_text).await;
                    return self.finish(&run, ResultSubtype::ErrorDuringExecution, true, text, "api_error");
                }
            };
            self.record_answer(st, &mut run, &message, &calls);
            if calls.is_empty() {
                match self.end_or_continue(st, &mut run, &message, &mut counts, sink).await {
                    Some(end) => return end,
                    None => continue,
                }
            }
            counts.after_tools();
            let finished = self.run_calls(calls, interrupt, sink).await;
            self.deliver(st, finished, &mut run).await;
            if let Some(reason) = run.stop.take() {
                // A hook stopped the query (Claude Code's preventContinuation): the round's
                // results stay in the conversation, the model is not asked again.
                let shown = if reason.is_empty() { "A hook stopped the query".to_owned() } else { reason };
                sink(AgentEvent::Notice(shown.clone()));
                return self.finish(&run, ResultSubtype::Success, false, shown, "hook_stopped");
            }
            if interrupt.is_cancelled() {
                // The round's results (the stopped calls' included) stay in the conversation,
                // then the user's interruption, as Claude Code records it; the turn ends.
                let interruption = json!({"type": "text", "text": INTERRUPTED_FOR_TOOL_USE});
                sink(AgentEvent::Message(self.user_event(&interruption, None)));
                self.push(st, Message::user(conversation::blocks(vec![interruption])));
                self.stop_monitors(&run).await;
                self.interrupt_hooks().await;
                return self.finish(&run, ResultSubtype::ErrorDuringExecution, true, String::new(), "interrupted");
            }
        }
    }

    /// Before each request: the end of the query when it was interrupted or a limit (turns,
    /// budget) is reached; otherwise the conversation is compacted if it needs to be.
    async fn limit_reached(
        &self,
        st: &mut State,
        run: &Run,
        interrupt: &CancellationToken,
        sink: Sink<'_>,
    ) -> Option<QueryResult> {
        if interrupt.is_cancelled() {
            self.stop_monitors(run).await;
            self.interrupt_hooks().await;
            return Some(self.finish(run, ResultSubtype::ErrorDuringExecution, true, String::new(), "interrupted"));
        }
        if let Some(max) = self.options.max_turns
            && run.turns >= max
        {
            let mut end = self.finish(run, ResultSubtype::ErrorMaxTurns, true, String::new(), "max_turns");
            end.errors.push(format!("Reached maximum number of turns ({max})"));
            return Some(end);
        }
        if let Some(budget) = self.options.max_budget_usd
            && self.spend.cost_usd() >= budget
        {
            let mut end = self.finish(run, ResultSubtype::ErrorMaxBudgetUsd, true, String::new(), "budget_exhausted");
            end.errors.push(format!("Reached maximum budget (${budget})"));
            return Some(end);
        }
        if self.needs_compaction(st) {
            self.compact(st, "auto", "", sink).await;
        }
        None
    }

    /// Takes an answer into the conversation and the run's figures (usage, its last text, the
    /// tools it called).
    fn record_answer(&self, st: &mut State, run: &mut Run, message: &AssistantMessage, calls: &[Call]) {
        self.count(st, message);
        if message.container.is_some() {
            st.container.clone_from(&message.container);
        }
        run.last_usage = message.usage;
        run.messages += message.content.len() as u32;
        if let Some(text) = last_text(&message.content) {
            run.last_text = text;
            run.last_content = text_blocks(&message.content);
        }
        for call in calls {
            run.tool_uses += 1;
            let name = self.tool_name(&call.block);
            if !run.tools_used.contains(&name) {
                run.tools_used.push(name);
            }
        }
        if let Some(transcript) = &self.transcript
            && let Err(error) = transcript.answer(message)
        {
            tracing::warn!(%error, "the transcript could not be written");
        }
        conversation::push(&mut st.messages, Message::assistant(conversation::blocks(message.content.clone())));
    }

    /// An answer without calls: the query goes on (a paused turn, an answer cut at
    /// `max_tokens`, a missing structured answer, a Stop hook's block, each within its bound)
    /// or ends (`Some`, the result).
    async fn end_or_continue(
        &self,
        st: &mut State,
        run: &mut Run,
        message: &AssistantMessage,
        counts: &mut Continuations,
        sink: Sink<'_>,
    ) -> Option<QueryResult> {
        // A server tool (code execution, web search) paused a long turn: ask again to let it go
        // on, the paused answer as it is in the conversation.
        if message.stop_reason.as_deref() == Some("pause_turn") && counts.pauses < MAX_PAUSE_CONTINUATIONS {
            counts.pauses += 1;
            return None;
        }
        if message.stop_reason.as_deref() == Some("max_tokens") && counts.max_tokens < MAX_TOKENS_CONTINUATIONS {
            counts.max_tokens += 1;
            self.push(st, Message::user(vec![Block::text(CONTINUE_AFTER_MAX_TOKENS)]));
            return None;
        }
        if self.options.output_schema.is_some() && run.structured.is_none() {
            if counts.structured_reminders >= MAX_STRUCTURED_OUTPUT_RETRIES {
                let answers = counts.structured_reminders + 1;
                let text =
                    format!("The model ended {answers} answers in a row without a valid {STRUCTURED_OUTPUT} call");
                let subtype = ResultSubtype::ErrorMaxStructuredOutputRetries;
                return Some(self.finish(run, subtype, true, text, "structured_output"));
            }
            counts.structured_reminders += 1;
            self.push(st, Message::user(vec![Block::text(STRUCTURED_OUTPUT_REMINDER)]));
            return None;
        }
        if self.stop_hook_blocks(st, counts, &run.last_text, sink).await {
            return None;
        }
        let reason = message.stop_reason.clone().unwrap_or_else(|| "end_turn".to_owned());
        let text = std::mem::take(&mut run.last_text);
        let mut result = self.finish(run, ResultSubtype::Success, false, text, "completed");
        result.stop_reason = Some(reason);
        Some(result)
    }

    /// Runs the Stop hooks (SubagentStop, matched on the agent's type, for a sub-agent) with
    /// the last answer's text, and says whether one blocked the end: its feedback goes to the
    /// model, at most `stop_hook_block_cap` times in a row without a tool run (a hook that
    /// blocks every end would keep the model going forever).
    async fn stop_hook_blocks(&self, st: &mut State, counts: &mut Continuations, last: &str, sink: Sink<'_>) -> bool {
        let (event, target, mut payload) = if self.session.is_fork() {
            ("SubagentStop", self.agent_type(), self.agent_payload())
        } else {
            ("Stop", String::new(), Map::new())
        };
        payload.insert("stop_hook_active".into(), json!(counts.stop_hook_active));
        // The text of the answer that would end the turn (the SDKs' `last_assistant_message`).
        if !last.is_empty() {
            payload.insert("last_assistant_message".into(), json!(last));
        }
        let outcome = self.run_hooks(event, &target, payload).await;
        let Some(reason) = outcome.blocked.filter(|_| outcome.stop.is_none()) else { return false };
        let cap = self.options.stop_hook_block_cap;
        if cap > 0 && counts.stop_hook_blocks >= cap {
            sink(AgentEvent::Notice(stop_hook_cap_notice(event, counts.stop_hook_blocks)));
            return false;
        }
        counts.stop_hook_blocks += 1;
        counts.stop_hook_active = true;
        let text = format!("{event} hook feedback:\n{reason}");
        self.push(st, Message::user(vec![Block::text(text)]));
        true
    }

    /// The system prompt's blocks: who the agent is (for the Messages API only: a local model is
    /// not Claude Code), then the prompt (the default, naming the pool's tools, or
    /// `--system-prompt`) with `--append-system-prompt`; the last block is a cache breakpoint.
    fn system_blocks(&self) -> Vec<Value> {
        let mut prompt = self.options.system_prompt.clone().unwrap_or_else(|| {
            let pool = self.session.pool();
            let names: Vec<&str> = pool.iter().map(|tool| tool.name()).collect();
            let style = match self.backend {
                Backend::Anthropic(_) => PromptStyle::Full,
                Backend::OpenAi(_) => PromptStyle::Compact,
            };
            base_prompt(&names, agent_tools_host::tool_search::is_tool_search_active(&pool), style)
        });
        if let Some(extra) = &self.options.append_system_prompt {
            prompt.push_str("\n\n");
            prompt.push_str(extra);
        }
        let prompt = json!({"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}});
        match self.backend {
            Backend::OpenAi(_) => vec![prompt],
            Backend::Anthropic(_) => vec![json!({"type": "text", "text": IDENTITY}), prompt],
        }
    }

    /// The system message after the first prompt: the environment, the git snapshot, the deferred
    /// tools' names.
    async fn initial_context(&self) -> String {
        let cwd = self.session.project_dir().to_path_buf();
        let model = self.model();
        let dirs = self.options.additional_dirs.clone();
        let pool = self.session.pool();
        // Only a trusted folder's git configuration may run programs (its fsmonitor, filters).
        let git_runner =
            agent_tools_worktree::Git { trust_repository: self.session.is_trusted(), ..Default::default() };
        let facts = tokio::task::spawn_blocking(move || {
            let facts = EnvironmentFacts::gather(&cwd, &model, &dirs).render();
            let git = if facts.contains("Is a git repository: true") { git_status(&cwd, &git_runner) } else { None };
            (facts, git)
        })
        .await;
        let (mut text, git) = facts.unwrap_or_default();
        if let Some(git) = git {
            text.push_str("\n\n");
            text.push_str(&git);
        }
        if let Some(deferred) = available_deferred_tools_message(&pool) {
            text.push_str("\n\n");
            text.push_str(&deferred);
        }
        text
    }

    /// The `tools` array: the pool's (deferred ones marked), tools discovered before a compaction
    /// sent in full; the last built-in tool is a cache breakpoint.
    async fn tools(&self, st: &State) -> Vec<Value> {
        let session = &self.session;
        let mut tools = session.with_prompt_options(|options| api_tools(&session.pool(), options)).await;
        if !st.carried_tools.is_empty() {
            for tool in &mut tools {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                if st.carried_tools.iter().any(|carried| carried == name)
                    && let Some(entry) = tool.as_object_mut()
                {
                    entry.remove("defer_loading");
                }
            }
        }
        let last_builtin = tools.iter().rposition(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            !name.starts_with("mcp__") && tool.get("defer_loading").is_none()
        });
        if let Some(entry) = last_builtin.and_then(|at| tools[at].as_object_mut()) {
            entry.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
        if self.options.programmatic_tool_calling {
            programmatic(&mut tools);
        }
        tools
    }

    /// The request: the conversation with a cache breakpoint on the last block of the last
    /// message, streamed. It borrows the conversation: only the last message is copied.
    fn request<'a>(&'a self, st: &'a State, tools: &'a [Value], system: &'a [Value], live: &'a Live) -> Request<'a> {
        Request {
            model: &live.model,
            max_tokens: self.options.max_tokens,
            system,
            messages: Breakpointed(&st.messages),
            metadata: Metadata { user_id: format!("session_{}", self.session.id()) },
            stream: true,
            tools,
            thinking: live.thinking.as_ref(),
            container: st.container.as_deref(),
        }
    }

    fn headers(&self) -> Vec<(String, String)> {
        let betas = if self.options.programmatic_tool_calling {
            format!("{BETAS},{CODE_EXECUTION_BETA}")
        } else {
            BETAS.to_owned()
        };
        vec![("anthropic-beta".to_owned(), betas), ("x-app".to_owned(), "cli".to_owned())]
    }

    fn push(&self, st: &mut State, message: Message) {
        if let Some(transcript) = &self.transcript
            && let Err(error) = transcript.message(&message.to_value())
        {
            tracing::warn!(%error, "the transcript could not be written");
        }
        conversation::push(&mut st.messages, message);
    }

    fn count(&self, st: &mut State, message: &AssistantMessage) {
        let usage = message.usage;
        let model = message.model.clone().unwrap_or_else(|| self.model());
        // Claude's prices mean nothing for another provider's model.
        let cost = match &self.backend {
            Backend::Anthropic(_) => cost_usd(&model, &usage),
            _ => 0.0,
        };
        self.spend.add(&model, usage, cost);
        st.context_tokens = usage.input_tokens
            + usage.cache_read_input_tokens
            + usage.cache_creation_input_tokens
            + usage.output_tokens;
        self.measured.store(st.context_tokens, std::sync::atomic::Ordering::Relaxed);
    }

    /// The `assistant` event of block `index` of answer `id` (uuid: its transcript entry's).
    fn assistant_event(&self, id: Option<&str>, index: usize, block: &Value, usage: Usage) -> Value {
        json!({
            "type": "assistant",
            "message": {
                "id": id, "type": "message", "role": "assistant", "model": self.model(),
                "content": [block], "stop_reason": null, "stop_sequence": null, "usage": usage,
            },
            "parent_tool_use_id": self.options.parent_tool_use_id,
            "session_id": self.session.id(),
            "uuid": crate::transcript::event_uuid(self.transcript.as_ref(), id, index),
        })
    }

    /// The `user` event of a result (uuid: its transcript entry's) or of an interruption.
    fn user_event(&self, result: &Value, data: Option<Value>) -> Value {
        let mut event = json!({
            "type": "user",
            "message": {"role": "user", "content": [result]},
            "parent_tool_use_id": self.options.parent_tool_use_id,
            "session_id": self.session.id(),
            "uuid": crate::transcript::result_event_uuid(self.transcript.as_ref(), result),
        });
        if let Some(data) = data {
            event["tool_use_result"] = data;
        }
        event
    }

    fn finish(&self, run: &Run, subtype: ResultSubtype, is_error: bool, text: String, terminal: &str) -> QueryResult {
        // An error's text is its error (the limits add theirs).
        let errors = if is_error && !text.is_empty() { vec![text.clone()] } else { Vec::new() };
        QueryResult {
            subtype,
            is_error,
            result: text,
            num_turns: run.messages,
            requests: run.turns,
            duration_ms: run.started.elapsed().as_millis() as u64,
            duration_api_ms: run.api.as_millis() as u64,
            session_id: self.session.id().to_owned(),
            total_cost_usd: self.spend.cost_usd(),
            usage: self.spend.usage(),
            model_usage: self.spend.per_model(),
            permission_denials: run.denials.clone(),
            stop_reason: None,
            terminal_reason: terminal.to_owned(),
            tool_uses: run.tool_uses,
            tools_used: run.tools_used.clone(),
            last_content: run.last_content.clone(),
            last_usage: run.last_usage,
            structured_output: run.structured.clone(),
            errors,
        }
    }
}

/// Counters of one query.
struct Run {
    started: Instant,
    api: Duration,
    turns: u32,
    /// Assistant messages as Claude Code counts them: one per content block.
    messages: u32,
    denials: Vec<Value>,
    last_text: String,
    /// The text blocks of the last answer that had text.
    last_content: Vec<String>,
    last_usage: Usage,
    tool_uses: u32,
    tools_used: Vec<String>,
    /// The input of the last successful `StructuredOutput` call.
    structured: Option<Value>,
    /// The background tasks of the Monitor calls this query started: an interrupt stops them.
    monitors: Vec<String>,
    /// A hook after a call said `"continue": false`: the query ends after this round, with its
    /// reason.
    stop: Option<String>,
}

/// The bounded ways a query goes on after an answer without calls, counted.
#[derive(Debug, Default)]
struct Continuations {
    /// Answers cut at `max_tokens` continued in a row.
    max_tokens: u32,
    /// `pause_turn` answers continued.
    pauses: u32,
    /// Reminders to give the structured answer.
    structured_reminders: u32,
    /// A Stop hook has blocked an end in this query (the hooks' `stop_hook_active`).
    stop_hook_active: bool,
    /// Stop-hook blocks since the model last ran a tool.
    stop_hook_blocks: u32,
}

impl Continuations {
    /// A round of tool calls ran: the in-a-row counts start again.
    fn after_tools(&mut self) {
        self.max_tokens = 0;
        self.stop_hook_blocks = 0;
    }
}

impl Run {
    fn new(started: Instant) -> Self {
        Self {
            started,
            api: Duration::ZERO,
            turns: 0,
            messages: 0,
            denials: Vec::new(),
            last_text: String::new(),
            last_content: Vec::new(),
            last_usage: Usage::default(),
            tool_uses: 0,
            tools_used: Vec::new(),
            structured: None,
            monitors: Vec::new(),
            stop: None,
        }
    }
}

/// The text of each text block of an answer.
fn text_blocks(content: &[Value]) -> Vec<String> {
    content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn last_text(content: &[Value]) -> Option<String> {
    content.iter().rev().find_map(|block| {
        (block.get("type").and_then(Value::as_str) == Some("text"))
            .then(|| block.get("text").and_then(Value::as_str).unwrap_or_default().to_owned())
    })
}

/// What a user reads about a failed request.
pub fn api_error_text(error: &ApiError) -> String {
    match error.api_message() {
        Some(message) => format!("API Error: {message}"),
        None => format!("API Error: {error}"),
    }
}

/// A fresh event id.
pub(crate) fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}
