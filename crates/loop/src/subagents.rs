//! The loop's [`SubagentRunner`]: how the Agent tool's sub-agents run (Claude Code's
//! `runAgent`).
//!
//! [`LoopRunner::run`] forks the caller's session ([`Session::fork`]: the tools the request
//! keeps, a copy of the file-read state, its own app state whose notification queue is the
//! request's inbox, the session's background tasks), builds an [`Agent`] over it with the
//! definition's system prompt, model and limits, and runs the prompt to the end. Then, as long
//! as something is waiting for it — background agents it started (their notifications), messages
//! SendMessage queued while it finished — it goes on with another query, so it stops only when it
//! has nothing left to hear. The sub-agent's events reach the caller's progress sink as
//! `agent_progress` events.
//!
//! Cancellation: the agent's token is a child of the caller's (`parent.cancel`), and every call
//! the agent makes runs under a child of it. When it fires (the caller was interrupted, TaskStop
//! on a background agent), the agent's stream stops, its running calls are cancelled (a Bash
//! command's process group is killed), the background tasks it started are stopped, and `run`
//! returns [`SubagentError::Cancelled`] — nothing the agent started is left running.
//!
//! A finished agent is kept (the last [`KEPT_AGENTS`]) so [`LoopRunner::resume`] can continue it
//! with a message, as Claude Code's SendMessage does with an agent that stopped. Before it goes
//! on, its permissions are narrowed to the new caller's ([`Session::narrow_permissions_to`]:
//! the mode rule sub-agents start under, and the caller's tool restrictions added), so a
//! restricted or plan-mode caller cannot use a stopped agent to do more than it may.
//!
//! Permissions: [`Session::fork`] gives the agent the caller's permission context with the
//! request's mode applied only where it narrows the caller's
//! ([`subagent_permission_mode`](agent_tools_core::subagent_permission_mode)) and
//! the request's tool restrictions added to the caller's.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use agent_tools_api::{Backend, Usage};
use agent_tools_background::{TaskRegistry, TaskStatus, TaskType};
use agent_tools_core::BoxFuture;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{CancellationToken, ProgressEvent};
use agent_tools_core::{SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner};
use agent_tools_host::{CRON_KEY_PREFIX, ForkOptions, Session};
use serde_json::{Value, json};

use crate::agent::Agent;
use crate::events::{AgentEvent, QueryResult};
use crate::options::{AgentOptions, resolve_model};

/// How many finished sub-agents are kept for [`LoopRunner::resume`].
pub const KEPT_AGENTS: usize = 32;

/// The longest a sub-agent waits for the background agents it started.
const BACKGROUND_WAIT: Duration = Duration::from_secs(24 * 3600);

/// The key prefix of a team's messages to its lead (TeamCreate's mailbox watcher queues them as
/// `team:<team>`, only while the session leads the team).
const TEAM_KEY_PREFIX: &str = "team:";

/// How often a wait for background agents looks again at what is queued (a teammate's message
/// arrives without any agent ending).
const PENDING_POLL: Duration = Duration::from_millis(500);

/// The key prefix of a monitor's events (the Monitor tool queues them as `monitor:<task id>`).
pub const MONITOR_KEY_PREFIX: &str = "monitor:";

/// Runs sub-agents for one session (see the module docs). The agent loop installs one in the
/// session it runs on before its first query ([`AgentOptions::subagents`]).
pub struct LoopRunner {
    session: Weak<Session>,
    backend: Backend,
    base: AgentOptions,
    kept: Mutex<Vec<(String, Arc<Agent>)>>,
}

impl std::fmt::Debug for LoopRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopRunner").field("model", &self.base.model).finish_non_exhaustive()
    }
}

impl LoopRunner {
    /// A runner for the tools of `session` (held weakly: the runner lives in the session's
    /// context), asking `backend`; sub-agents start from `base` (the caller's options: model,
    /// retries, output limits).
    pub fn new(session: &Arc<Session>, backend: Backend, base: AgentOptions) -> Self {
        Self { session: Arc::downgrade(session), backend, base, kept: Mutex::new(Vec::new()) }
    }

    fn keep(&self, id: &str, agent: Arc<Agent>) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|(kept_id, _)| kept_id != id);
        kept.push((id.to_owned(), agent));
        if kept.len() > KEPT_AGENTS {
            kept.remove(0);
        }
    }

    fn kept(&self, id: &str) -> Option<Arc<Agent>> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter().find(|(kept_id, _)| kept_id == id).map(|(_, agent)| Arc::clone(agent))
    }

    async fn start(&self, request: SubagentRequest, parent: &ToolUseContext) -> Result<SubagentOutcome, SubagentError> {
        let session = self.session.upgrade().ok_or_else(|| SubagentError::Failed("the session has ended".into()))?;
        let extra_tools =
            match &request.output_schema {
                Some(schema) => vec![agent_tools_host::structured_output_tool(schema.clone()).map_err(|error| {
                    SubagentError::Failed(format!("The agent's output schema is not valid: {error}"))
                })?],
                None => Vec::new(),
            };
        let cancel = parent.cancel.child_token();
        let child = Arc::new(session.fork(
            parent,
            ForkOptions {
                agent_id: request.agent_id.clone(),
                agent_type: request.agent_type.clone(),
                tools: request.tools.clone(),
                extra_tools,
                permission_mode: request.permission_mode,
                tool_restrictions: request.tool_restrictions.clone(),
                cwd: request.cwd.clone(),
                background: request.background,
                inbox: request.inbox.clone(),
                cancel: cancel.clone(),
                allow_rules: request.allow_rules.clone(),
            },
        ));
        let mut options = self.base.clone();
        options.model = request.model.clone().unwrap_or_else(|| self.base.model.clone());
        options.system_prompt = Some(request.system_prompt.clone());
        options.append_system_prompt = None;
        options.max_turns = request.max_turns;
        // The budget is the session's: its spending is shared (`AgentOptions::spend`).
        options.resume = Vec::new();
        options.parent_tool_use_id.clone_from(&parent.tool_use_id);
        options.memory = self.base.memory && !request.omit_claude_md;
        options.persist = request.transcript.is_some();
        // Beside the caller's transcript (its task's output file a link to it), else in that file.
        options.transcript_file = request.transcript.as_deref().map(|output| {
            let meta = json!({
                "agentType": request.agent_type,
                "description": request.description,
                "toolUseId": parent.tool_use_id,
                "parentAgentId": parent.agent_id,
            });
            crate::transcript::subagent_file(self.base.transcript_file.as_deref(), &request.agent_id, output, &meta)
        });
        options.transcript_parent = None;
        options.output_schema = request.output_schema.clone();
        let agent = Arc::new(
            Agent::new(child, self.backend.clone(), options)
                .map_err(|error| SubagentError::Failed(error.to_string()))?,
        );
        let prompt = vec![json!({"type": "text", "text": request.prompt})];
        let outcome = drive_in_own_task(&agent, prompt, parent, &cancel).await;
        self.keep(&request.agent_id, agent);
        outcome
    }

    async fn continue_agent(
        &self,
        agent_id: &str,
        message: String,
        parent: &ToolUseContext,
    ) -> Result<SubagentOutcome, SubagentError> {
        let agent = self.kept(agent_id).ok_or_else(|| SubagentError::Unknown(agent_id.to_owned()))?;
        // It goes on for this caller, which may have less than the one that started it.
        agent.session().narrow_permissions_to(&parent.permission_context).await;
        let cancel = parent.cancel.child_token();
        agent.session().replace_cancel_token(cancel.clone());
        let prompt = vec![json!({"type": "text", "text": message})];
        drive_in_own_task(&agent, prompt, parent, &cancel).await
    }
}

impl SubagentRunner for LoopRunner {
    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        Box::pin(self.start(request, parent))
    }

    fn resume<'a>(
        &'a self,
        agent_id: &'a str,
        message: String,
        parent: &'a ToolUseContext,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentError>> {
        Box::pin(self.continue_agent(agent_id, message, parent))
    }

    fn resolve_model(&self, alias: &str, parent_model: &str) -> String {
        resolve_subagent_model(alias, parent_model)
    }
}

/// The model a sub-agent's `model` alias names: an alias of the caller's own family keeps the
/// caller's exact model (Claude Code: "a bare opus/sonnet/haiku alias that matches the parent's
/// family resolves to the parent's exact model"), `inherit` is the caller's, anything else as
/// `--model` resolves it.
pub fn resolve_subagent_model(alias: &str, parent_model: &str) -> String {
    let alias = alias.trim();
    if alias.is_empty() || alias == "inherit" {
        return parent_model.to_owned();
    }
    if matches!(alias, "sonnet" | "opus" | "haiku") && parent_model.contains(alias) {
        return parent_model.to_owned();
    }
    resolve_model(alias)
}

/// Stops `task` when dropped unless disarmed: whatever ends the sub-agent's run — its end, an
/// error, the caller dropping the future — the link to the caller's cancellation goes with it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Fires the token when dropped: the future waiting for a sub-agent went away (its caller was
/// dropped), so the agent and its calls stop rather than run on unwatched.
struct CancelOnDrop(Option<CancellationToken>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// [`drive`] as a task of its own: each sub-agent's loop starts on a fresh stack, however deep
/// it is nested (a sub-agent's loop polled inside its caller's call would add a whole loop's
/// frames to the caller's stack at every level).
async fn drive_in_own_task(
    agent: &Arc<Agent>,
    prompt: Vec<Value>,
    parent: &ToolUseContext,
    cancel: &CancellationToken,
) -> Result<SubagentOutcome, SubagentError> {
    let mut guard = CancelOnDrop(Some(cancel.clone()));
    let (agent, parent, cancel) = (Arc::clone(agent), parent.clone(), cancel.clone());
    let ran = tokio::spawn(async move { drive(&agent, prompt, &parent, &cancel).await }).await;
    guard.0 = None;
    ran.unwrap_or_else(|error| Err(SubagentError::Failed(format!("the agent's task failed: {error}"))))
}

/// Runs `agent` on `prompt` and on whatever reaches it afterwards, until it has nothing left to
/// hear or `cancel` fires.
async fn drive(
    agent: &Arc<Agent>,
    prompt: Vec<Value>,
    parent: &ToolUseContext,
    cancel: &CancellationToken,
) -> Result<SubagentOutcome, SubagentError> {
    let started = Instant::now();
    let link = {
        let agent = Arc::clone(agent);
        let cancel = cancel.clone();
        AbortOnDrop(tokio::spawn(async move {
            cancel.cancelled().await;
            agent.interrupt();
        }))
    };
    let progress = parent.progress.clone();
    let tool_use_id = parent.tool_use_id.clone().unwrap_or_default();
    // Its task in the session's registry hears of each finished call (`task_progress`).
    let registry = TaskRegistry::existing(&agent.session().context_without_waiting());
    let task_id = agent.session().agent_id().map(str::to_owned);
    let measured = Arc::clone(agent);
    let mut sink = move |event: AgentEvent| {
        if let (AgentEvent::CallFinished { tool_name, .. }, Some(registry), Some(id)) = (&event, &registry, &task_id) {
            registry.report_progress(id, tool_name, measured.context_tokens());
        }
        if let (AgentEvent::Message(message), Some(progress)) = (event, &progress) {
            progress(ProgressEvent {
                tool_use_id: tool_use_id.clone(),
                tool_name: "Agent".to_owned(),
                data: json!({"type": "agent_progress", "message": message}),
            });
        }
    };
    let mut total = Totals::default();
    let mut result = agent.query_blocks(prompt, &mut sink).await;
    total.add(&result);
    while !cancel.is_cancelled() {
        let Some(next) = agent.continue_with_pending(&mut sink).await else { break };
        total.add(&next);
        result = next;
    }
    drop(link);
    let session = agent.session();
    // What it started in the background ends with it (Claude Code kills an agent's shell tasks).
    if let (Some(id), Some(registry)) = (session.agent_id(), TaskRegistry::existing(&session.context_without_waiting()))
    {
        let (registry, id) = (registry.clone(), id.to_owned());
        let _ = tokio::task::spawn_blocking(move || registry.stop_owned_by(&id)).await;
    }
    if cancel.is_cancelled() {
        return Err(SubagentError::Cancelled);
    }
    Ok(SubagentOutcome {
        content: result.last_content.clone(),
        model: agent.options().model.clone(),
        usage: serde_json::to_value(result.last_usage).unwrap_or(Value::Null),
        total_tokens: context_tokens(&result.last_usage),
        total_tool_use_count: total.tool_uses,
        tools_used: total.tools_used,
        total_duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        structured_output: result.structured_output.clone(),
        stopped: (result.terminal_reason != "completed").then(|| result.terminal_reason.clone()),
    })
}

/// Tokens in the context after a request: its input (cache reads and writes too) and output.
fn context_tokens(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens
}

/// Tool use over every query of one run.
#[derive(Default)]
struct Totals {
    tool_uses: u32,
    tools_used: Vec<String>,
}

impl Totals {
    fn add(&mut self, result: &QueryResult) {
        self.tool_uses += result.tool_uses;
        for name in &result.tools_used {
            if !self.tools_used.contains(name) {
                self.tools_used.push(name.clone());
            }
        }
    }
}

impl Agent {
    /// Waits until something has reached the agent after its answer that it should hear — a
    /// report of a background agent it started, a message of its team (a `team:` key), a
    /// scheduled job that fired (a `cron:` key), a monitor's event (a `monitor:` key), and
    /// inside a sub-agent anything queued for it (SendMessage, its own background commands) —
    /// and returns `true`; returns `false` at once when nothing is waiting and nothing will come
    /// (no background agent of its own runs and no one-shot scheduled job is pending), or when
    /// the session's token fires. It wakes on every push to the queue and looks again every
    /// 500 ms. Waits at most a day. Dropping the future is harmless.
    pub async fn pending_ready(&self) -> bool {
        self.wait_pending(false).await
    }

    /// Waits, however long, until something worth a turn has reached the agent (see
    /// [`Agent::pending_ready`]): what a session that stays open between prompts (stream-json
    /// input) waits on beside the next prompt, so a scheduled job or a monitor's event starts a
    /// turn of its own. Never returns once the session's token has fired.
    pub async fn pending_arrives(&self) {
        if !self.wait_pending(true).await {
            std::future::pending::<()>().await;
        }
    }

    /// Whether something worth a turn (see [`Agent::pending_ready`]) is waiting right now,
    /// without waiting for anything: what an interactive chat checks after each answer.
    pub fn pending_now(&self) -> bool {
        let ctx = self.session().context_without_waiting();
        self.worth_a_turn(&ctx.notifications().keys(), TaskRegistry::existing(&ctx).as_ref())
    }

    /// Whether the queued `keys` are worth a turn: inside a sub-agent anything queued for it;
    /// in the main conversation a background agent's report, a teammate's message, a scheduled
    /// prompt or a monitor's event (a shell task that ends after the last answer is not worth a
    /// turn, as in `claude -p`).
    fn worth_a_turn(&self, keys: &[String], registry: Option<&TaskRegistry>) -> bool {
        let is_agent = |id: &str| {
            registry.and_then(|registry| registry.get(id)).is_some_and(|task| task.task_type == TaskType::LocalAgent)
        };
        !keys.is_empty()
            && (self.session().is_fork()
                || keys.iter().any(|key| {
                    is_agent(key)
                        || [TEAM_KEY_PREFIX, CRON_KEY_PREFIX, MONITOR_KEY_PREFIX].iter().any(|p| key.starts_with(p))
                }))
    }

    async fn wait_pending(&self, forever: bool) -> bool {
        let session = self.session();
        let ctx = session.context_without_waiting();
        let queue = ctx.notifications();
        let registry = TaskRegistry::existing(&ctx);
        loop {
            // Taken before the queue is read, so a push in between still wakes the wait.
            let mut watch = queue.watch();
            // The running agents are read before the queue: an agent that finishes in between
            // has its report queued already (it is pushed as the task finishes), so it is never
            // missed — read the other way round, it could be neither running nor queued yet.
            let me = session.agent_id();
            let running: Vec<String> = registry
                .iter()
                .flat_map(|registry| registry.list())
                .filter(|task| {
                    task.task_type == TaskType::LocalAgent
                        && task.status == TaskStatus::Running
                        && task.owner.as_deref() == me
                })
                .map(|task| task.id)
                .collect();
            if self.worth_a_turn(&queue.keys(), registry.as_ref()) {
                return true;
            }
            let one_shot = !session.is_fork() && session.has_pending_one_shot();
            if !forever && running.is_empty() && !one_shot {
                return false;
            }
            let cancel = session.cancel_token();
            let agents = async {
                match registry.as_ref() {
                    Some(registry) if !running.is_empty() => {
                        let waits = running.iter().map(|id| Box::pin(registry.wait(id, BACKGROUND_WAIT, &cancel)));
                        let _ = futures_util::future::select_all(waits).await;
                    }
                    _ => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = watch.pushed() => {}
                () = agents => {}
                () = tokio::time::sleep(PENDING_POLL) => {}
                () = cancel.cancelled() => return false,
            }
        }
    }

    /// Goes on with what reached the agent after its answer: waits for it ([`Agent::pending_ready`])
    /// and then runs a query on the notifications waiting — one `<system-reminder>` text block
    /// each. Returns `None` when nothing will come, so the caller can stop.
    ///
    /// `claude -p` does the same before it exits: a background agent's report becomes one more
    /// turn of the main conversation.
    pub async fn continue_with_pending(&self, sink: crate::Sink<'_>) -> Option<QueryResult> {
        if !self.pending_ready().await {
            return None;
        }
        Some(self.query_pending(sink).await)
    }

    /// Runs a query on the notifications waiting now (see [`Agent::continue_with_pending`]);
    /// with none (nobody waited with [`Agent::pending_ready`]), a reminder saying so.
    pub async fn query_pending(&self, sink: crate::Sink<'_>) -> QueryResult {
        let mut blocks: Vec<Value> =
            self.session().drain_notifications().await.iter().map(crate::results::pending_block).collect();
        if blocks.is_empty() {
            blocks.push(
                json!({"type": "text", "text": "<system-reminder>\nNothing new has arrived.\n</system-reminder>"}),
            );
        }
        self.query_blocks(blocks, sink).await
    }
}
