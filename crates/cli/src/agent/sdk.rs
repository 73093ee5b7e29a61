//! `--input-format stream-json`: the Claude Agent SDK's protocol, so the SDKs drive
//! `agent-tools agent` unchanged through their CLI-path option.
//!
//! Standard input carries JSON lines: user messages (`{"type":"user","message":{"role":"user",
//! "content":…},"parent_tool_use_id":null,"session_id":…}`), each run as one query in turn, and
//! control requests (`{"type":"control_request","request_id","request":{"subtype":…}}`):
//! `initialize` (its `hooks` — `{"PreToolUse": [{"matcher", "hookCallbackIds": […]}]}` — become
//! command hooks that call back through [`super::relay`]; its agents, system prompt, JSON Schema
//! and MCP servers stand in for the flags), `interrupt`, `end_session`, and the rest answered by
//! [`super::control`]. Standard output carries the `system/init` line, every message, a
//! `result` line per query, our answers (`{"type":"control_response","response":{"subtype":
//! "success"|"error","request_id",…}}`) and our own requests: `can_use_tool` when a call needs
//! approval (with `--permission-prompt-tool stdio`, as the SDKs pass it when they have a
//! permission callback) and `hook_callback` for the SDK's hooks. The end of standard input ends
//! the session once the running query is done.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use agent_tools_core::BoxFuture;
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest, Session, WorkspaceTrust};
use agent_tools_loop::Agent;
use agent_tools_loop::protocol::{
    AgentRequest, ControlRequest, ControlResponse, Initialize, InputLine, OutputLine, PermissionDecision, SdkRequest,
    SystemLine, UserLine,
};
use serde::Deserialize as _;
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::{mpsc, oneshot};

use super::headless::Headless;
use super::setup::{self, Frontend, Started};
use super::{AgentArgs, Outcome, interruptible, output};
use crate::GlobalOptions;

/// Requests we sent to the SDK, waiting for their `control_response`.
type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<ControlResponse>>>>;

/// Our side of the control protocol: sends requests to the SDK and waits for the answers the
/// stdin reader hands over.
pub(crate) struct Control {
    pending: Pending,
    counter: AtomicU64,
    /// Standard input ended: no answer can come any more.
    closed: std::sync::atomic::AtomicBool,
    /// The agent, once built (a `can_use_tool` denial may ask to interrupt it).
    agent: OnceLock<Weak<Agent>>,
}

impl Control {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            pending: Pending::default(),
            counter: AtomicU64::new(0),
            closed: std::sync::atomic::AtomicBool::new(false),
            agent: OnceLock::new(),
        })
    }

    /// Sends `request` and waits for the SDK's answer: its `response` object on success, its
    /// `error` text otherwise (or when the SDK closed its input, before or after: then nothing is
    /// sent, since nothing could answer — a `SessionEnd` callback at the end of input, say).
    pub(crate) async fn request(&self, request: AgentRequest) -> Result<Value, String> {
        const CLOSED: &str = "the SDK closed its input before it answered";
        let number = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let request_id = format!("req_{number}_{}", &output::uuid()[..8]);
        let (send, receive) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if self.closed.load(Ordering::SeqCst) {
                return Err(CLOSED.to_owned());
            }
            pending.insert(request_id.clone(), send);
        }
        output::line(&OutputLine::ControlRequest { request_id, request: Box::new(request) });
        match receive.await {
            Ok(response) => response.into_result(),
            Err(_) => Err(CLOSED.to_owned()),
        }
    }

    /// Hands a `control_response` to the request waiting for it (an unknown id is dropped).
    fn answer(&self, response: ControlResponse) {
        if let Some(waiting) = lock(&self.pending).remove(response.request_id()) {
            let _ = waiting.send(response);
        }
    }

    /// Fails every request still waiting, and every later one (standard input ended).
    fn close(&self) {
        let mut pending = lock(&self.pending);
        self.closed.store(true, Ordering::SeqCst);
        pending.clear();
    }

    fn interrupt_agent(&self) {
        if let Some(agent) = self.agent.get().and_then(Weak::upgrade) {
            agent.interrupt();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The SDK's in-process MCP servers are reached through `mcp_message` requests; the answer's
/// `mcp_response` is the server's reply.
impl agent_tools_mcp::SdkServers for Control {
    fn message<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            let asked = AgentRequest::McpMessage { server_name: server.to_owned(), message };
            let mut answer = self.request(asked).await?;
            match answer.get_mut("mcp_response") {
                Some(reply) => Ok(reply.take()),
                None => Err(format!("the SDK answered mcp_message without an mcp_response: {answer}")),
            }
        })
    }
}

/// Asks the SDK's `can_use_tool` callback.
pub(crate) struct SdkPrompter {
    control: Arc<Control>,
}

impl PermissionPrompter for SdkPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        Box::pin(async move {
            let asked = AgentRequest::CanUseTool {
                tool_name: request.tool_name.clone(),
                input: request.input.clone(),
                permission_suggestions: serde_json::to_value(&request.suggestions).unwrap_or_default(),
                blocked_path: None,
                decision_reason: request.message.clone(),
                display_name: request.display_name.clone(),
                description: request.summary.clone(),
                tool_use_id: request.tool_use_id.clone(),
            };
            match self.control.request(asked).await {
                Ok(answer) => permission_answer(&answer, &request.input, || self.control.interrupt_agent()),
                Err(why) => {
                    PermissionAnswer::Unavailable { why: format!("the SDK's permission callback failed: {why}") }
                }
            }
        })
    }
}

/// Reads the SDK's `{"behavior": "allow", "updatedInput", "updatedPermissions"}` or
/// `{"behavior": "deny", "message", "interrupt"}`.
fn permission_answer(answer: &Value, input: &Value, interrupt: impl FnOnce()) -> PermissionAnswer {
    match PermissionDecision::deserialize(answer) {
        Ok(PermissionDecision::Allow { updated_input, updated_permissions }) => {
            let always = updated_permissions.is_some_and(|list| !list.is_empty());
            match updated_input.filter(|updated| updated.is_object() && updated != input) {
                Some(input) => PermissionAnswer::AllowWithInput { input },
                None if always => PermissionAnswer::AllowAlways,
                None => PermissionAnswer::AllowOnce,
            }
        }
        Ok(PermissionDecision::Deny { message, interrupt: stop }) => {
            if stop == Some(true) {
                interrupt();
            }
            PermissionAnswer::Deny { feedback: message.filter(|text| !text.trim().is_empty()) }
        }
        _ => PermissionAnswer::Unavailable { why: format!("the SDK's permission callback answered {answer}") },
    }
}

/// Reads standard input: answers go to the requests waiting for them, everything else to
/// `forward`; at the end every waiting request fails and `forward` closes.
async fn read_stdin(control: Arc<Control>, forward: mpsc::UnboundedSender<InputLine>) {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                crate::report(format_args!("agent-tools: cannot read stdin: {error}"));
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<InputLine>(&line) {
            Ok(InputLine::ControlResponse { response }) => control.answer(response),
            Ok(message) => {
                if forward.send(message).is_err() {
                    break;
                }
            }
            Err(error) => {
                crate::report(format_args!(
                    "agent-tools: a stdin line is not a message of the protocol ({error}); skipped"
                ));
            }
        }
    }
    control.close();
}

/// Our answer to the SDK's request `id`.
fn respond(id: &str, result: Result<Value, String>) {
    output::line(&OutputLine::ControlResponse { response: ControlResponse::to(id, result) });
}

/// What `initialize` answers (`SDKControlInitializeResponse`): `mcp_servers_applied` when it
/// named MCP servers (the TypeScript SDK ends a session whose CLI leaves it out), the Claude
/// Code version whose protocol this is, and ours.
pub(crate) fn initialize_response(agent: &Agent, hooks: bool, init: &Initialize) -> Value {
    let mut response = json!({
        "commands": agent_tools_loop::commands::listing(agent),
        "agents": super::setup::agent_infos(agent.session()),
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": super::control::models(),
        "account": {},
        "pid": std::process::id(),
        "hooks_applied": hooks,
        "hook_on_failure_supported": true,
        "claude_code_version": super::control::CLAUDE_CODE_VERSION,
        "agent_tools_version": env!("CARGO_PKG_VERSION"),
    });
    // What initialize carried in place of flags was applied (the TypeScript SDK checks).
    for (sent, key) in [
        (init.mcp_servers.is_some(), "mcp_servers_applied"),
        (init.settings.is_some(), "settings_applied"),
        (init.managed_settings.is_some(), "managed_settings_applied"),
        (init.disallowed_tools.is_some(), "disallowed_tools_applied"),
        (init.additional_directories.is_some(), "additional_directories_applied"),
    ] {
        if sent {
            response[key] = json!(true);
        }
    }
    response
}

/// The `session_state_changed` line the SDK asks for (`CLAUDE_CODE_SDK_READS_SESSION_STATE`):
/// `running` while a query runs, `idle` after its result.
fn state_line(state: &str, session_id: &str) -> OutputLine {
    OutputLine::System(SystemLine::SessionStateChanged {
        state: state.to_owned(),
        sdk_host_only: true,
        session_id: session_id.to_owned(),
        uuid: output::uuid(),
    })
}

/// Runs the stream-json session; the exit status is 1 when the last result was an error.
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs) -> ExitCode {
    let control = Control::new();
    let (forward, mut incoming) = mpsc::unbounded_channel::<InputLine>();
    tokio::spawn(read_stdin(Arc::clone(&control), forward));

    // The SDK's first line is `initialize`, with the hooks it registers, its agents, system
    // prompt and in-process MCP servers: they shape the session, so it is built after it.
    let (init_id, init, first) = match incoming.recv().await {
        Some(InputLine::ControlRequest(ControlRequest { request_id, request: SdkRequest::Initialize(init) })) => {
            (Some(request_id), *init, None)
        }
        other => (None, Initialize::default(), other),
    };
    let (options, args) = &match with_initialize(options, args, &init) {
        Ok(changed) => changed,
        Err(error) => {
            let text = format!("initialize: {error:#}");
            if let Some(id) = &init_id {
                respond(id, Err(text.clone()));
            }
            output::print_start_error(super::OutputFormat::StreamJson, &text);
            return ExitCode::from(1);
        }
    };
    let hooks = init.hooks.clone();
    let relay = hooks.as_ref().filter(|hooks| !hooks.is_empty()).and_then(|hooks| {
        super::relay::Relay::start(Arc::clone(&control), hooks)
            .inspect_err(|error| {
                crate::report(format_args!("agent-tools: the SDK's hooks cannot be registered: {error}"));
            })
            .ok()
    });
    let frontend = Frontend {
        prompter: Some(prompter(args, &control)),
        // As for -p: only a folder trusted before (or --trust-workspace); the SDK's own hooks
        // come through the flag settings and always apply.
        trust: WorkspaceTrust::Recorded,
        hooks: relay.as_ref().map(super::relay::Relay::settings_hooks),
        notify: true,
        sdk_servers: Some(Arc::clone(&control) as Arc<dyn agent_tools_mcp::SdkServers>),
    };
    let Started { agent, session } = match setup::start(options, args, frontend).await {
        Ok(started) => started,
        Err(error) => {
            let text = error.text();
            if let Some(id) = &init_id {
                respond(id, Err(text.clone()));
            }
            output::print_start_error(super::OutputFormat::StreamJson, &text);
            return ExitCode::from(1);
        }
    };
    let _ = control.agent.set(Arc::downgrade(&agent));
    if let Some(id) = &init_id {
        respond(id, Ok(initialize_response(&agent, relay.is_some(), &init)));
    }
    let registry = agent_tools_background::TaskRegistry::for_context(&session.context_without_waiting());
    let tasks = tokio::spawn(super::task_events::forward(registry, session.id().to_owned()));

    // Control requests are answered as they come, while queries run one after another.
    let (queue, prompts) = mpsc::unbounded_channel::<UserLine>();
    let dispatcher = tokio::spawn(dispatch(first, incoming, queue, Arc::clone(&agent), Arc::clone(&session)));
    let queries = Queries {
        agent: &agent,
        session: &session,
        states: std::env::var_os("CLAUDE_CODE_SDK_READS_SESSION_STATE").is_some_and(|value| value != "0"),
        partial: args.include_partial_messages,
        running: std::sync::atomic::AtomicBool::new(false),
    };
    let code = match interruptible(&agent, queries.run(prompts)).await {
        Outcome::Done(false) => ExitCode::SUCCESS,
        Outcome::Done(true) => ExitCode::from(1),
        Outcome::Stopped(code) => ExitCode::from(code),
    };
    dispatcher.abort();
    agent.end("other").await;
    tasks.abort();
    crate::report_stopped_tasks(&session.shutdown().await);
    drop(relay);
    code
}

/// The flags with what `initialize` sets in their place (the TypeScript SDK sends the system
/// prompt, the JSON Schema and the in-process MCP servers there rather than as flags): its
/// system prompt replaces `--system-prompt`, its agents are added to `--agents` (replacing
/// those of the same name), its MCP servers to `--mcp-config`.
///
/// # Errors
/// Its settings cannot be laid over `--settings` (a file that does not read, not an object).
fn with_initialize(
    options: &GlobalOptions,
    args: &AgentArgs,
    init: &Initialize,
) -> anyhow::Result<(GlobalOptions, AgentArgs)> {
    let (mut options, mut args) = (options.clone(), args.clone());
    if let Some(parts) = &init.system_prompt {
        let prompt = parts.join("\n\n");
        if !prompt.trim().is_empty() {
            args.system_prompt = Some(prompt);
            args.system_prompt_file = None;
        }
    }
    if let Some(append) = &init.append_system_prompt {
        args.append_system_prompt = Some(append.clone());
        args.append_system_prompt_file = None;
    }
    if let Some(schema) = &init.json_schema {
        args.json_schema = Some(schema.to_string());
    }
    if let Some(Value::Object(agents)) = &init.agents {
        // A flag that is not a JSON object is reported when the session starts; these stand.
        let mut all = args
            .agents
            .as_deref()
            .and_then(|text| serde_json::from_str::<Map<String, Value>>(text).ok())
            .unwrap_or_default();
        all.extend(agents.iter().map(|(name, agent)| (name.clone(), agent.clone())));
        args.agents = Some(Value::Object(all).to_string());
    }
    if !init.sdk_mcp_servers.is_empty() {
        let servers: Map<String, Value> =
            init.sdk_mcp_servers.iter().map(|name| (name.clone(), json!({"type": "sdk", "name": name}))).collect();
        options.mcp_config.push(json!({"mcpServers": servers}).to_string());
    }
    if let Some(servers) = &init.mcp_servers {
        options.mcp_config.push(json!({"mcpServers": servers}).to_string());
    }
    if let Some(tools) = &init.disallowed_tools {
        options.disallowed_tools.extend(tools.iter().cloned());
    }
    if let Some(dirs) = &init.additional_directories {
        args.add_dir.extend(dirs.iter().map(std::path::PathBuf::from));
    }
    if let Some(settings) = &init.settings {
        options.settings =
            Some(super::setup::layer_settings(options.settings.as_deref(), &Value::Object(settings.clone()))?);
    }
    if let Some(managed) = &init.managed_settings {
        let base = args.managed_settings.as_deref().unwrap_or("{}");
        args.managed_settings = Some(super::setup::layer_settings(Some(base), &Value::Object(managed.clone()))?);
    }
    Ok((options, args))
}

/// Who decides a call that needs approval: the SDK's `can_use_tool` callback with
/// `--permission-prompt-tool stdio` (as the SDKs pass it when they have one), else nobody (the
/// call is refused).
fn prompter(args: &AgentArgs, control: &Arc<Control>) -> Arc<dyn PermissionPrompter> {
    match args.permission_prompt_tool.as_deref() {
        Some("stdio") => Arc::new(SdkPrompter { control: Arc::clone(control) }),
        Some(other) => {
            crate::report(format_args!(
                "agent-tools: --permission-prompt-tool {other} is not supported (only stdio); calls that need approval are refused"
            ));
            Arc::new(Headless)
        }
        None => Arc::new(Headless),
    }
}

/// Hands the SDK's lines on as they come: user messages queue for [`Queries::run`]; control
/// requests are answered at once, each in a task of its own (so a slow one — a reconnection, a
/// mode switch that waits for a running call — holds up nothing), which a
/// `control_cancel_request` aborts; `interrupt` stops the running query and `end_session`
/// ends the input. Other lines are not acted on.
async fn dispatch(
    mut next: Option<InputLine>,
    mut incoming: mpsc::UnboundedReceiver<InputLine>,
    queue: mpsc::UnboundedSender<UserLine>,
    agent: Arc<Agent>,
    session: Arc<Session>,
) {
    let running: Running = Arc::default();
    // Requests that change the session are answered one after another, in a task of their own.
    let (ordered, mut jobs) = mpsc::unbounded_channel::<Job>();
    let _worker = {
        let (agent, session, running) = (Arc::clone(&agent), Arc::clone(&session), Arc::clone(&running));
        AbortOnDrop(tokio::spawn(async move {
            while let Some(job) = jobs.recv().await {
                job.run(&agent, &session, &running).await;
            }
        }))
    };
    loop {
        let message = match next.take() {
            Some(message) => message,
            None => match incoming.recv().await {
                Some(message) => message,
                None => break,
            },
        };
        match message {
            InputLine::ControlRequest(ControlRequest { request_id, request }) => match request {
                SdkRequest::Interrupt => {
                    agent.interrupt();
                    respond(&request_id, Ok(json!({"still_queued": []})));
                }
                SdkRequest::EndSession => {
                    respond(&request_id, Ok(json!({})));
                    break;
                }
                request => {
                    let cancel = tokio_util::sync::CancellationToken::new();
                    lock(&running).insert(request_id.clone(), cancel.clone());
                    let job = Job { request_id, request, cancel };
                    if super::control::changes_the_session(&job.request) {
                        // Changes apply in the order they were asked for.
                        let _ = ordered.send(job);
                    } else {
                        let (agent, session, running) =
                            (Arc::clone(&agent), Arc::clone(&session), Arc::clone(&running));
                        tokio::spawn(async move { job.run(&agent, &session, &running).await });
                    }
                }
            },
            InputLine::ControlCancelRequest { request_id } => {
                // Cancelled before its answer: no answer comes (the SDK no longer waits for one).
                if let Some(cancel) = lock(&running).remove(&request_id) {
                    cancel.cancel();
                }
            }
            // Not a guard: the message moves into the queue.
            #[allow(clippy::collapsible_match)]
            InputLine::User(user) => {
                let Ok(()) = queue.send(user) else { break };
            }
            _ => {}
        }
    }
}

/// The control requests being answered, by id, with the token a `control_cancel_request` fires.
type Running = Arc<Mutex<HashMap<String, tokio_util::sync::CancellationToken>>>;

/// One control request to answer.
struct Job {
    request_id: String,
    request: SdkRequest,
    cancel: tokio_util::sync::CancellationToken,
}

impl Job {
    /// Answers the request, unless it is cancelled first (then no answer goes out).
    async fn run(self, agent: &Arc<Agent>, session: &Arc<Session>, running: &Running) {
        let Job { request_id, request, cancel } = self;
        let result = tokio::select! {
            result = super::control::answer(request, agent, session) => result,
            () = cancel.cancelled() => return,
        };
        if lock(running).remove(&request_id).is_some() {
            respond(&request_id, result);
        }
    }
}

/// Aborts the task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The queries of a stream-json session, one after another.
struct Queries<'a> {
    agent: &'a Agent,
    session: &'a Session,
    /// Print `session_state_changed` lines.
    states: bool,
    /// Print the raw stream events (`--include-partial-messages`).
    partial: bool,
    /// The last state printed was `running`.
    running: std::sync::atomic::AtomicBool,
}

impl Queries<'_> {
    /// Runs each prompt as a query (the `system/init` line before the first); between prompts,
    /// a background agent's report, a scheduled job that fired or a monitor's event is a turn
    /// of its own (as claude's SDK sessions have it), and a prompt that comes first goes first.
    /// At the end of input the reports of agents still running are answered. Returns whether
    /// the last result was an error.
    async fn run(&self, mut prompts: mpsc::UnboundedReceiver<UserLine>) -> bool {
        let mut last_error = false;
        let mut initialised = false;
        loop {
            let message = if initialised {
                tokio::select! {
                    message = prompts.recv() => message,
                    () = self.agent.pending_arrives() => {
                        self.state(true);
                        let result = self.agent.query_pending(&mut self.sink()).await;
                        output::line(&result.to_json());
                        last_error = result.is_error;
                        self.idle_unless_pending();
                        continue;
                    }
                }
            } else {
                prompts.recv().await
            };
            let Some(message) = message else { break };
            let Some(blocks) = message.blocks() else {
                crate::report(format_args!("agent-tools: a user message without content was skipped"));
                continue;
            };
            if !initialised {
                initialised = true;
                let mut init = self.agent.init_event().await;
                init["claude_code_version"] = json!(super::control::CLAUDE_CODE_VERSION);
                init["agent_tools_version"] = json!(env!("CARGO_PKG_VERSION"));
                let agents = super::setup::agent_infos(self.session);
                init["agents"] = agents.iter().map(|agent| agent["name"].clone()).collect();
                output::line(&init);
            }
            last_error = self.query(blocks, message.client_composed).await;
        }
        while let Some(result) = self.agent.continue_with_pending(&mut self.sink()).await {
            output::line(&result.to_json());
            last_error = result.is_error;
        }
        self.state(false);
        last_error
    }

    /// One prompt's query, after a `running` state line — a slash command unless the SDK
    /// composed the message verbatim; whether its result is an error.
    async fn query(&self, blocks: Vec<Value>, verbatim: bool) -> bool {
        self.state(true);
        let result = if verbatim {
            self.agent.query_blocks(blocks, &mut self.sink()).await
        } else {
            self.agent.prompt(blocks, &mut self.sink()).await
        };
        output::line(&result.to_json());
        self.idle_unless_pending();
        result.is_error
    }

    /// Prints the session's state when it changes (with `CLAUDE_CODE_SDK_READS_SESSION_STATE`).
    fn state(&self, running: bool) {
        if self.states && self.running.swap(running, std::sync::atomic::Ordering::SeqCst) != running {
            output::line(&state_line(if running { "running" } else { "idle" }, self.session.id()));
        }
    }

    /// After a result: `idle`, unless a background agent still works for the conversation or
    /// its report waits for a turn (the SDK keeps its input open until then).
    fn idle_unless_pending(&self) {
        if !self.agent.work_pending() {
            self.state(false);
        }
    }

    fn sink(&self) -> impl FnMut(agent_tools_loop::AgentEvent) + Send + use<> {
        output::json_lines_sink(self.session.id().to_owned(), self.partial)
    }
}

/// The hooks an `initialize` registers, as settings hooks whose commands run `hook-relay`
/// (see [`super::relay`]): `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
/// "command": "… hook-relay SOCKET hook_0", "timeout": …}]}]}`.
pub(crate) fn hooks_as_settings(
    hooks: &Map<String, Value>,
    command: impl Fn(&str, Option<f64>, bool) -> (String, f64),
) -> Map<String, Value> {
    let mut settings = Map::new();
    for (event, matchers) in hooks {
        let Some(matchers) = matchers.as_array() else { continue };
        let mut list = Vec::new();
        for matcher in matchers {
            let timeout = matcher.get("timeout").and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0);
            let block = matcher.get("onFailure").and_then(Value::as_str).is_some_and(|value| value != "continue");
            let ids = matcher.get("hookCallbackIds").and_then(Value::as_array).cloned().unwrap_or_default();
            let hooks: Vec<Value> = ids
                .iter()
                .filter_map(Value::as_str)
                .map(|id| {
                    let (command, timeout) = command(id, timeout, block);
                    json!({"type": "command", "command": command, "timeout": timeout})
                })
                .collect();
            let name = matcher.get("matcher").and_then(Value::as_str).unwrap_or_default();
            list.push(json!({"matcher": name, "hooks": hooks}));
        }
        settings.insert(event.clone(), Value::Array(list));
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_answers_are_read_like_claude_code() {
        let input = json!({"file_path": "/a", "content": "x"});
        let mut interrupted = false;
        let allow = json!({"behavior": "allow", "updatedInput": input});
        assert_eq!(permission_answer(&allow, &input, || {}), PermissionAnswer::AllowOnce);
        let changed = json!({"behavior": "allow", "updatedInput": {"file_path": "/b", "content": "x"}});
        assert_eq!(
            permission_answer(&changed, &input, || {}),
            PermissionAnswer::AllowWithInput { input: json!({"file_path": "/b", "content": "x"}) }
        );
        let always = json!({"behavior": "allow", "updatedInput": input, "updatedPermissions": [{"type": "addRules"}]});
        assert_eq!(permission_answer(&always, &input, || {}), PermissionAnswer::AllowAlways);
        let deny = json!({"behavior": "deny", "message": "not there", "interrupt": true});
        assert_eq!(
            permission_answer(&deny, &input, || interrupted = true),
            PermissionAnswer::Deny { feedback: Some("not there".into()) }
        );
        assert!(interrupted);
        assert!(matches!(permission_answer(&json!({}), &input, || {}), PermissionAnswer::Unavailable { .. }));
    }

    #[test]
    fn initialize_stands_in_for_the_flags() {
        let init = Initialize::read(&json!({
            "subtype": "initialize",
            "systemPrompt": ["You are terse.", "Answer in French."],
            "appendSystemPrompt": "Sign with Q.",
            "jsonSchema": {"type": "object"},
            "agents": {"b": {"description": "B", "prompt": "be b"}},
            "sdkMcpServers": ["calc"],
            "mcpServers": {"echo": {"command": "echo"}},
            "disallowedTools": ["WebFetch"],
            "settings": {"permissions": {"deny": ["Bash"]}},
        }));
        let options = GlobalOptions {
            settings: Some(r#"{"permissions": {"deny": ["Write"]}}"#.into()),
            ..GlobalOptions::default()
        };
        let args = AgentArgs {
            agents: Some(r#"{"a": {"description": "A", "prompt": "be a"}}"#.into()),
            ..AgentArgs::default()
        };
        let (options, args) = with_initialize(&options, &args, &init).unwrap_or_default();
        assert_eq!(args.system_prompt.as_deref(), Some("You are terse.\n\nAnswer in French."));
        assert_eq!(args.append_system_prompt.as_deref(), Some("Sign with Q."));
        assert_eq!(args.json_schema.as_deref(), Some(r#"{"type":"object"}"#));
        let agents: Value = serde_json::from_str(args.agents.as_deref().unwrap_or_default()).unwrap_or_default();
        assert_eq!(agents.as_object().map(|agents| agents.len()), Some(2));
        assert_eq!(
            options.mcp_config,
            [
                r#"{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}"#,
                r#"{"mcpServers":{"echo":{"command":"echo"}}}"#
            ]
        );
        assert_eq!(options.disallowed_tools, ["WebFetch"]);
        let settings: Value = serde_json::from_str(options.settings.as_deref().unwrap_or_default()).unwrap_or_default();
        assert_eq!(settings["permissions"]["deny"], json!(["Write", "Bash"]));
        // The TypeScript SDK's "no system prompt" is `[""]`: the default prompt stays.
        let empty = Initialize::read(&json!({"systemPrompt": [""]}));
        let (_, args) = with_initialize(&GlobalOptions::default(), &AgentArgs::default(), &empty).unwrap_or_default();
        assert_eq!(args.system_prompt, None);
    }

    #[test]
    fn sdk_hooks_become_command_hooks() {
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 5}],
                           "Stop": [{"matcher": null, "hookCallbackIds": ["hook_2"], "onFailure": "block"}]});
        let settings = hooks_as_settings(hooks.as_object().unwrap_or(&Map::new()), |id, timeout, block| {
            (format!("relay {id} {block}"), timeout.unwrap_or(60.0) + 5.0)
        });
        assert_eq!(
            Value::Object(settings),
            json!({
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "relay hook_0 false", "timeout": 10.0},
                    {"type": "command", "command": "relay hook_1 false", "timeout": 10.0}]}],
                "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "relay hook_2 true", "timeout": 65.0}]}],
            })
        );
    }
}
