//! `--input-format stream-json`: the Claude Agent SDK's protocol, so the SDKs drive
//! `agent-tools agent` unchanged through their CLI-path option.
//!
//! Standard input carries JSON lines: user messages (`{"type":"user","message":{"role":"user",
//! "content":…},"parent_tool_use_id":null,"session_id":…}`), each run as one query in turn, and
//! control requests (`{"type":"control_request","request_id","request":{"subtype":…}}`):
//! `initialize` (its `hooks` — `{"PreToolUse": [{"matcher", "hookCallbackIds": […]}]}` — become
//! command hooks that call back through [`super::relay`]), `interrupt`, `mcp_status`; others are
//! answered with an error. Standard output carries the `system/init` line, every message, a
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
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::{mpsc, oneshot};

use super::headless::Headless;
use super::setup::{self, Frontend, Started};
use super::{AgentArgs, Outcome, interruptible, output};
use crate::GlobalOptions;

/// Requests we sent to the SDK, waiting for their `control_response`.
type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

/// Our side of the control protocol: sends requests to the SDK and waits for the answers the
/// stdin reader hands over.
pub(crate) struct Control {
    pending: Pending,
    counter: AtomicU64,
    /// The agent, once built (a `can_use_tool` denial may ask to interrupt it).
    agent: OnceLock<Weak<Agent>>,
}

impl Control {
    fn new() -> Arc<Self> {
        Arc::new(Self { pending: Pending::default(), counter: AtomicU64::new(0), agent: OnceLock::new() })
    }

    /// Sends `request` (`{"subtype": …}`) and waits for the SDK's answer: its `response` object
    /// on success, its `error` text otherwise (or when the SDK closed its input first).
    pub(crate) async fn request(&self, request: Value) -> Result<Value, String> {
        let number = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let id = format!("req_{number}_{}", &output::uuid()[..8]);
        let (send, receive) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), send);
        output::line(&json!({"type": "control_request", "request_id": id, "request": request}));
        let Ok(response) = receive.await else {
            return Err("the SDK closed its input before it answered".to_owned());
        };
        match response.get("subtype").and_then(Value::as_str) {
            Some("success") => Ok(response.get("response").cloned().unwrap_or_else(|| json!({}))),
            _ => Err(response
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("the SDK answered with an error")
                .to_owned()),
        }
    }

    /// Hands a `control_response` to the request waiting for it (an unknown id is dropped).
    fn answer(&self, response: Value) {
        let Some(id) = response.get("request_id").and_then(Value::as_str) else { return };
        if let Some(waiting) = lock(&self.pending).remove(id) {
            let _ = waiting.send(response);
        }
    }

    /// Fails every request still waiting (standard input ended).
    fn close(&self) {
        lock(&self.pending).clear();
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

/// Asks the SDK's `can_use_tool` callback.
pub(crate) struct SdkPrompter {
    control: Arc<Control>,
}

impl PermissionPrompter for SdkPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        Box::pin(async move {
            let asked = json!({
                "subtype": "can_use_tool",
                "tool_name": request.tool_name,
                "input": request.input,
                "permission_suggestions": request.suggestions,
                "blocked_path": null,
                "decision_reason": request.message,
                "display_name": request.display_name,
                "description": request.summary,
                "tool_use_id": request.tool_use_id,
            });
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
    match answer.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            let updated = answer.get("updatedInput").filter(|updated| updated.is_object() && *updated != input);
            let always =
                answer.get("updatedPermissions").and_then(Value::as_array).is_some_and(|list| !list.is_empty());
            match updated {
                Some(updated) => PermissionAnswer::AllowWithInput { input: updated.clone() },
                None if always => PermissionAnswer::AllowAlways,
                None => PermissionAnswer::AllowOnce,
            }
        }
        Some("deny") => {
            if answer.get("interrupt").and_then(Value::as_bool) == Some(true) {
                interrupt();
            }
            let message = answer.get("message").and_then(Value::as_str).map(str::to_owned);
            PermissionAnswer::Deny { feedback: message.filter(|text| !text.trim().is_empty()) }
        }
        _ => PermissionAnswer::Unavailable { why: format!("the SDK's permission callback answered {answer}") },
    }
}

/// Reads standard input: answers go to the requests waiting for them, everything else to
/// `forward`; at the end every waiting request fails and `forward` closes.
async fn read_stdin(control: Arc<Control>, forward: mpsc::UnboundedSender<Value>) {
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
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                crate::report(format_args!("agent-tools: a stdin line is not JSON ({error}); skipped"));
                continue;
            }
        };
        match message.get("type").and_then(Value::as_str) {
            Some("control_response") => control.answer(message.get("response").cloned().unwrap_or_default()),
            _ => {
                if forward.send(message).is_err() {
                    break;
                }
            }
        }
    }
    control.close();
}

/// Our answer to the SDK's request `id`.
fn respond(id: &str, result: Result<Value, String>) {
    let response = match result {
        Ok(response) => json!({"subtype": "success", "request_id": id, "response": response}),
        Err(error) => json!({"subtype": "error", "request_id": id, "error": error}),
    };
    output::line(&json!({"type": "control_response", "response": response}));
}

fn request_id(message: &Value) -> String {
    message.get("request_id").and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn subtype(message: &Value) -> &str {
    message.pointer("/request/subtype").and_then(Value::as_str).unwrap_or_default()
}

/// What `initialize` answers.
fn initialize_response(hooks: bool) -> Value {
    json!({
        "commands": [],
        "agents": [],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [],
        "account": {},
        "pid": std::process::id(),
        "hooks_applied": hooks,
        "hook_on_failure_supported": true,
    })
}

/// Answers a control request that arrives while the session runs.
fn handle_control(message: &Value, agent: &Agent, session: &Arc<Session>) {
    let id = request_id(message);
    let kind = subtype(message);
    let result = match kind {
        "interrupt" => {
            agent.interrupt();
            Ok(json!({}))
        }
        "mcp_status" => {
            let mut servers: Vec<Value> = session
                .mcp()
                .connections()
                .iter()
                .map(|server| json!({"name": server.name, "status": "connected"}))
                .collect();
            servers.extend(
                session
                    .mcp()
                    .failures()
                    .iter()
                    .map(|f| json!({"name": f.name, "status": "failed", "error": f.message})),
            );
            Ok(json!({"mcpServers": servers}))
        }
        "set_permission_mode" => {
            let Some(mode) = message
                .pointer("/request/mode")
                .and_then(Value::as_str)
                .and_then(agent_tools_core::PermissionMode::parse)
            else {
                respond(&id, Err("set_permission_mode needs a mode: default, acceptEdits, plan, bypassPermissions, dontAsk or auto".to_owned()));
                return;
            };
            // Off the dispatcher: the switch waits for a running serial call, whose permission
            // answer may still have to come in.
            let session = Arc::clone(session);
            tokio::spawn(async move {
                let result = session.set_permission_mode(mode).await.map(|()| json!({}));
                respond(&id, result);
            });
            return;
        }
        "initialize" => Err("Already initialized".to_owned()),
        other => Err(format!("Unsupported control request subtype: {other} (agent-tools does not implement it)")),
    };
    respond(&id, result);
}

/// The content blocks of a user message (a string becomes one text block); `None` when it has
/// no content.
fn user_blocks(message: &Value) -> Option<Vec<Value>> {
    match message.pointer("/message/content")? {
        Value::String(text) => Some(vec![json!({"type": "text", "text": text})]),
        Value::Array(blocks) => Some(blocks.clone()),
        _ => None,
    }
}

/// The `session_state_changed` line the SDK asks for (`CLAUDE_CODE_SDK_READS_SESSION_STATE`):
/// `running` while a query runs, `idle` after its result.
fn state_line(state: &str, session_id: &str) -> Value {
    json!({
        "type": "system", "subtype": "session_state_changed", "state": state, "sdk_host_only": true,
        "session_id": session_id, "uuid": output::uuid(),
    })
}

/// Runs the stream-json session; the exit status is 1 when the last result was an error.
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs) -> ExitCode {
    let control = Control::new();
    let (forward, mut incoming) = mpsc::unbounded_channel::<Value>();
    tokio::spawn(read_stdin(Arc::clone(&control), forward));

    // The SDK's first line is `initialize`, with the hooks it registers: they go into the
    // session's settings, so the session is built after it.
    let first = incoming.recv().await;
    let (init_id, hooks, first) = match first {
        Some(message)
            if message.get("type").and_then(Value::as_str) == Some("control_request")
                && subtype(&message) == "initialize" =>
        {
            let hooks = message.pointer("/request/hooks").and_then(Value::as_object).cloned();
            (Some(request_id(&message)), hooks, None)
        }
        other => (None, None, other),
    };
    let relay = match hooks.as_ref().filter(|hooks| !hooks.is_empty()) {
        Some(hooks) => match super::relay::Relay::start(Arc::clone(&control), hooks) {
            Ok(relay) => Some(relay),
            Err(error) => {
                crate::report(format_args!("agent-tools: the SDK's hooks cannot be registered: {error}"));
                None
            }
        },
        None => None,
    };
    let prompter: Arc<dyn PermissionPrompter> = match args.permission_prompt_tool.as_deref() {
        Some("stdio") => Arc::new(SdkPrompter { control: Arc::clone(&control) }),
        Some(other) => {
            crate::report(format_args!(
                "agent-tools: --permission-prompt-tool {other} is not supported (only stdio); calls that need approval are refused"
            ));
            Arc::new(Headless)
        }
        None => Arc::new(Headless),
    };
    let frontend = Frontend {
        prompter: Some(prompter),
        // As for -p: only a folder trusted before (or --trust-workspace); the SDK's own hooks
        // come through the flag settings and always apply.
        trust: WorkspaceTrust::Recorded,
        hooks: relay.as_ref().map(super::relay::Relay::settings_hooks),
        notify: true,
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
        respond(id, Ok(initialize_response(relay.is_some())));
    }

    // Control requests are answered as they come, while queries run one after another.
    let (queue, mut prompts) = mpsc::unbounded_channel::<Value>();
    let dispatcher = {
        let agent = Arc::clone(&agent);
        let session = Arc::clone(&session);
        tokio::spawn(async move {
            let mut next = first;
            loop {
                let message = match next.take() {
                    Some(message) => message,
                    None => match incoming.recv().await {
                        Some(message) => message,
                        None => break,
                    },
                };
                let kind = message.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
                if kind == "control_request" {
                    handle_control(&message, &agent, &session);
                } else if kind == "user" && queue.send(message).is_err() {
                    break;
                }
            }
        })
    };
    let states = std::env::var_os("CLAUDE_CODE_SDK_READS_SESSION_STATE").is_some_and(|value| value != "0");
    let partial = args.include_partial_messages;
    let runner = async {
        let mut last_error = false;
        let mut initialised = false;
        loop {
            // Between prompts, a background agent's report, a scheduled job that fired or a
            // monitor's event is a turn of its own (as claude's SDK sessions have it); a prompt
            // that comes first goes first.
            let message = if initialised {
                tokio::select! {
                    message = prompts.recv() => message,
                    () = agent.pending_arrives() => {
                        let mut sink = output::json_lines_sink(session.id().to_owned(), partial);
                        let result = agent.query_pending(&mut sink).await;
                        output::line(&result.to_json());
                        last_error = result.is_error;
                        continue;
                    }
                }
            } else {
                prompts.recv().await
            };
            let Some(message) = message else { break };
            let Some(blocks) = user_blocks(&message) else {
                crate::report(format_args!("agent-tools: a user message without content was skipped"));
                continue;
            };
            if !initialised {
                initialised = true;
                let mut init = agent.init_event().await;
                init["claude_code_version"] = json!(env!("CARGO_PKG_VERSION"));
                output::line(&init);
            }
            if states {
                output::line(&state_line("running", session.id()));
            }
            let mut sink = output::json_lines_sink(session.id().to_owned(), partial);
            let result = agent.query_blocks(blocks, &mut sink).await;
            output::line(&result.to_json());
            last_error = result.is_error;
            if states {
                output::line(&state_line("idle", session.id()));
            }
        }
        // The end of stdin: the reports of agents still running are answered before the end.
        let mut sink = output::json_lines_sink(session.id().to_owned(), partial);
        while let Some(result) = agent.continue_with_pending(&mut sink).await {
            output::line(&result.to_json());
            last_error = result.is_error;
        }
        last_error
    };
    let code = match interruptible(&agent, runner).await {
        Outcome::Done(false) => ExitCode::SUCCESS,
        Outcome::Done(true) => ExitCode::from(1),
        Outcome::Stopped(code) => ExitCode::from(code),
    };
    dispatcher.abort();
    agent.end("other").await;
    crate::report_stopped_tasks(&session.shutdown().await);
    drop(relay);
    code
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

    #[test]
    fn user_messages_become_blocks() {
        assert_eq!(
            user_blocks(&json!({"message": {"content": "hi"}})),
            Some(vec![json!({"type": "text", "text": "hi"})])
        );
        let blocks = json!([{"type": "text", "text": "a"}, {"type": "image", "source": {}}]);
        assert_eq!(user_blocks(&json!({"message": {"content": blocks}})), blocks.as_array().cloned());
        assert_eq!(user_blocks(&json!({"message": {}})), None);
    }
}
