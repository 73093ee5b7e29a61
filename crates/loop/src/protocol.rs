//! The stream-json protocol of `claude -p --input-format stream-json --output-format
//! stream-json`, as serde types: the lines the Claude Agent SDKs write to the agent's standard
//! input ([`InputLine`]), the control requests each side sends the other ([`SdkRequest`] from
//! the SDK, [`AgentRequest`] from us) with their answers, and the lines we write
//! ([`OutputLine`]). Field names and values are the SDKs' (`request_id`, `subtype`,
//! `can_use_tool`, `hookCallbackIds` …), so an SDK drives us unchanged.
//!
//! ```
//! use agent_tools_loop::protocol::{InputLine, SdkRequest, UserContent};
//!
//! let line = r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}"#;
//! let InputLine::ControlRequest(request) = serde_json::from_str(line).unwrap() else { panic!() };
//! assert_eq!(request.request_id, "req_1");
//! let SdkRequest::Initialize(init) = request.request else { panic!() };
//! assert_eq!(init.hooks, None);
//!
//! let line = r#"{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":""}"#;
//! let InputLine::User(user) = serde_json::from_str(line).unwrap() else { panic!() };
//! assert_eq!(user.message.content, Some(UserContent::Text("hi".into())));
//! assert_eq!(user.blocks(), Some(vec![serde_json::json!({"type": "text", "text": "hi"})]));
//!
//! // A subtype this version does not know is kept by name, to be refused by name.
//! let request: SdkRequest = serde_json::from_str(r#"{"subtype":"claim_session"}"#).unwrap();
//! assert_eq!(request, SdkRequest::Unsupported { subtype: "claim_session".into() });
//! // Fields are read leniently: a missing one makes the request unsupported, not a parse error.
//! let request: SdkRequest = serde_json::from_str(r#"{"subtype":"stop_task"}"#).unwrap();
//! assert_eq!(request, SdkRequest::Unsupported { subtype: "stop_task".into() });
//! let request: SdkRequest = serde_json::from_str(r#"{"subtype":"set_model","model":"default"}"#).unwrap();
//! assert_eq!(request, SdkRequest::SetModel { model: None });
//! ```

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

/// A line an SDK writes to the agent's standard input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum InputLine {
    /// A user message: the prompt of one query.
    User(UserLine),
    /// A request of the SDK: `initialize`, `interrupt`, `set_permission_mode` …
    ControlRequest(ControlRequest),
    /// The SDK's answer to one of our requests ([`AgentRequest`]).
    ControlResponse {
        /// The answer.
        response: ControlResponse,
    },
    /// The SDK gave up on one of its requests (`{"type":"control_cancel_request","request_id"}`).
    ControlCancelRequest {
        /// The request it no longer waits for.
        request_id: String,
    },
    /// A line of a type the agent does not act on (`keep_alive` …).
    #[serde(other)]
    Other,
}

/// A `user` line: `{"type":"user","message":{"role":"user","content":…},
/// "parent_tool_use_id":null,"session_id":…}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserLine {
    /// The message.
    pub message: UserMessage,
    /// The `tool_use` this message answers inside a sub-agent (`null` for a prompt).
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session the SDK thinks it talks to.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Sent as written (`verbatimPrompts`): a leading `/` is text, not a command.
    #[serde(default)]
    pub client_composed: bool,
}

impl UserLine {
    /// The message's content blocks (a string is one text block); `None` when it has none.
    pub fn blocks(&self) -> Option<Vec<Value>> {
        match self.message.content.as_ref()? {
            UserContent::Text(text) => Some(vec![json!({"type": "text", "text": text})]),
            UserContent::Blocks(blocks) => Some(blocks.clone()),
        }
    }
}

/// The `message` of a [`UserLine`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UserMessage {
    /// `user`.
    #[serde(default)]
    pub role: Option<String>,
    /// What the user says; absent or of another shape, the line is skipped.
    #[serde(default, deserialize_with = "lenient_content")]
    pub content: Option<UserContent>,
}

/// A user message's content: text, or content blocks (kept as the API's JSON: the conversation
/// history is JSON).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<Value>),
}

fn lenient_content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<UserContent>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A `control_request` line of the SDK.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ControlRequest {
    /// The id our answer names.
    pub request_id: String,
    /// What is asked.
    pub request: SdkRequest,
}

/// What the SDK asks of the agent (the `request` of a [`ControlRequest`], by `subtype`). The
/// subtypes and fields are those of `SDKControlRequestInner` in the TypeScript SDK's `sdk.d.ts`
/// (the Python SDK sends a subset); a field of the wrong type reads as absent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SdkRequest {
    /// `initialize`: the first line, with what the SDK sets up the session with.
    Initialize(Box<Initialize>),
    /// `interrupt`: stop the running query.
    Interrupt,
    /// `mcp_status`: the MCP servers and their state.
    McpStatus,
    /// `set_permission_mode`: switch the session's mode (`None` when the field is missing or
    /// not a string).
    SetPermissionMode {
        /// `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk` or `auto`.
        mode: Option<String>,
    },
    /// `set_model`: the model of the next requests (`None` or `"default"`: the session's own).
    SetModel {
        /// A model id or alias.
        model: Option<String>,
    },
    /// `set_max_thinking_tokens`: extended thinking's budget (`None` or 0: off).
    SetMaxThinkingTokens {
        /// Tokens.
        max_thinking_tokens: Option<u32>,
    },
    /// `get_context_usage`: what fills the context window, by category.
    GetContextUsage,
    /// `stop_task`: stop a background task (a shell command or an agent).
    StopTask {
        /// The task's id (`task_started`'s `task_id`).
        task_id: String,
    },
    /// `get_task_output`: a background task's output so far.
    GetTaskOutput {
        /// The task's id.
        task_id: String,
    },
    /// `mcp_reconnect`: connect an MCP server again.
    McpReconnect {
        /// The server (`serverName`).
        server_name: String,
    },
    /// `mcp_toggle`: switch an MCP server off (its tools leave) or on again.
    McpToggle {
        /// The server (`serverName`).
        server_name: String,
        /// On or off.
        enabled: bool,
    },
    /// `mcp_message` from the SDK: a message its in-process server sent on its own (a
    /// notification such as `notifications/tools/list_changed`).
    McpMessage {
        /// The server.
        server_name: String,
        /// The JSON-RPC message.
        message: Value,
    },
    /// `mcp_read_resource`: a resource of an MCP server.
    McpReadResource {
        /// The server (`serverName`).
        server_name: String,
        /// The resource's URI.
        uri: String,
    },
    /// `mcp_set_servers`: the MCP servers the SDK adds to the configured ones, in full (those
    /// of the last such request that are missing now are removed).
    McpSetServers {
        /// Name to server entry, in the `mcpServers` format.
        servers: Map<String, Value>,
    },
    /// `rewind_files`: undo the file changes made since a user message.
    RewindFiles {
        /// The user message (`user_message_id`).
        user_message_id: String,
        /// Only say what would change.
        dry_run: bool,
    },
    /// `get_settings`: the settings in effect.
    GetSettings,
    /// `apply_flag_settings`: settings to lay over the session's, as `--settings` would.
    ApplyFlagSettings {
        /// The settings object.
        settings: Map<String, Value>,
    },
    /// `update_settings`: keys written into the user's or the project's local settings file.
    UpdateSettings {
        /// `localSettings` (`.claude/settings.local.json`) or `userSettings`
        /// (`~/.claude/settings.json`).
        source: String,
        /// The keys to write.
        settings: Map<String, Value>,
    },
    /// `get_usage` (and `get_session_cost`): the session's cost and token use.
    GetUsage,
    /// `list_models`: the models one may switch to.
    ListModels,
    /// `get_binary_version`: this program's version.
    GetBinaryVersion,
    /// `list_permission_rules`: the permission rules in effect.
    ListPermissionRules,
    /// `background_tasks`: move the running foreground work to the background.
    BackgroundTasks,
    /// `end_session`: end the session (as the end of input does).
    EndSession,
    /// `reload_skills`: the skills, listed again.
    ReloadSkills,
    /// `reload_output_styles`: the output styles, listed again.
    ReloadOutputStyles,
    /// `set_has_subscribers`, `set_color`, `seed_read_state`, `prompt_draft_activity`,
    /// `set_prompt_suggestions_paused`: hints for an interactive front end, acknowledged and
    /// not acted on here.
    Hint {
        /// The `subtype` as sent.
        subtype: String,
    },
    /// A subtype this version does not implement (or whose fields do not parse), by name.
    Unsupported {
        /// The `subtype` as sent.
        subtype: String,
    },
}

impl<'de> Deserialize<'de> for SdkRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or_default();
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let unsupported = || Self::Unsupported { subtype: subtype.to_owned() };
        Ok(match subtype {
            "initialize" => Self::Initialize(Box::new(Initialize::read(&value))),
            "interrupt" => Self::Interrupt,
            "mcp_status" => Self::McpStatus,
            "set_permission_mode" => Self::SetPermissionMode { mode: text("mode") },
            "set_model" => Self::SetModel { model: text("model").filter(|model| model != "default") },
            "set_max_thinking_tokens" => Self::SetMaxThinkingTokens {
                max_thinking_tokens: value
                    .get("max_thinking_tokens")
                    .and_then(Value::as_u64)
                    .map(|tokens| u32::try_from(tokens).unwrap_or(u32::MAX)),
            },
            "get_context_usage" => Self::GetContextUsage,
            "stop_task" => text("task_id").map_or_else(unsupported, |task_id| Self::StopTask { task_id }),
            "get_task_output" => text("task_id").map_or_else(unsupported, |task_id| Self::GetTaskOutput { task_id }),
            "mcp_reconnect" => {
                text("serverName").map_or_else(unsupported, |server_name| Self::McpReconnect { server_name })
            }
            "mcp_toggle" => match (text("serverName"), value.get("enabled").and_then(Value::as_bool)) {
                (Some(server_name), Some(enabled)) => Self::McpToggle { server_name, enabled },
                _ => unsupported(),
            },
            "mcp_message" => match (text("server_name"), value.get("message")) {
                (Some(server_name), Some(message)) => Self::McpMessage { server_name, message: message.clone() },
                _ => unsupported(),
            },
            "mcp_read_resource" => match (text("serverName"), text("uri")) {
                (Some(server_name), Some(uri)) => Self::McpReadResource { server_name, uri },
                _ => unsupported(),
            },
            "mcp_set_servers" => match value.get("servers").and_then(Value::as_object) {
                Some(servers) => Self::McpSetServers { servers: servers.clone() },
                None => unsupported(),
            },
            "rewind_files" => match text("user_message_id") {
                Some(user_message_id) => Self::RewindFiles {
                    user_message_id,
                    dry_run: value.get("dry_run").and_then(Value::as_bool).unwrap_or(false),
                },
                None => unsupported(),
            },
            "get_settings" => Self::GetSettings,
            "apply_flag_settings" => match value.get("settings").and_then(Value::as_object) {
                Some(settings) => Self::ApplyFlagSettings { settings: settings.clone() },
                None => unsupported(),
            },
            "update_settings" => match (text("source"), value.get("settings").and_then(Value::as_object)) {
                (Some(source), Some(settings)) => Self::UpdateSettings { source, settings: settings.clone() },
                _ => unsupported(),
            },
            "get_usage" | "get_session_cost" => Self::GetUsage,
            "list_models" => Self::ListModels,
            "get_binary_version" => Self::GetBinaryVersion,
            "list_permission_rules" => Self::ListPermissionRules,
            "background_tasks" => Self::BackgroundTasks,
            "end_session" => Self::EndSession,
            "reload_skills" => Self::ReloadSkills,
            "reload_output_styles" => Self::ReloadOutputStyles,
            "set_has_subscribers"
            | "set_color"
            | "seed_read_state"
            | "prompt_draft_activity"
            | "set_prompt_suggestions_paused" => Self::Hint { subtype: subtype.to_owned() },
            _ => unsupported(),
        })
    }
}

/// The `initialize` request's fields this agent acts on (`SDKControlInitializeRequest` of the
/// TypeScript SDK's `sdk.d.ts`; the Python SDK sends `hooks` and `agents` only). A field of
/// the wrong type is left out rather than failing the request.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Initialize {
    /// The SDK's hook callbacks, by event: `{"PreToolUse": [{"matcher", "hookCallbackIds":
    /// […], "timeout"}]}`.
    pub hooks: Option<Map<String, Value>>,
    /// Programmatic sub-agents: type name to `{"description", "prompt", "tools", "model" …}`.
    pub agents: Option<Value>,
    /// The system prompt's parts (the TypeScript SDK sends the prompt here, not as a flag).
    pub system_prompt: Option<Vec<String>>,
    /// Text added after the default system prompt.
    pub append_system_prompt: Option<String>,
    /// The JSON Schema of a structured final answer.
    pub json_schema: Option<Value>,
    /// The names of the SDK's in-process MCP servers (reached through `mcp_message`).
    pub sdk_mcp_servers: Vec<String>,
    /// More MCP servers, in the `mcpServers` format.
    pub mcp_servers: Option<Map<String, Value>>,
    /// Settings, as `--settings` would give them.
    pub settings: Option<Map<String, Value>>,
    /// Settings an organisation imposes (`managedSettings`).
    pub managed_settings: Option<Map<String, Value>>,
    /// Tools to deny, as `--disallowedTools` would.
    pub disallowed_tools: Option<Vec<String>>,
    /// More working directories, as `--add-dir` would.
    pub additional_directories: Option<Vec<String>>,
}

impl Initialize {
    /// Reads the request object (its `subtype` aside).
    pub fn read(value: &Value) -> Self {
        let field = |key: &str| value.get(key).filter(|value| !value.is_null());
        let text = |key: &str| field(key).and_then(Value::as_str).map(str::to_owned);
        let strings = |key: &str| {
            field(key)
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        };
        let system_prompt = match field("systemPrompt") {
            Some(Value::String(text)) => Some(vec![text.clone()]),
            Some(Value::Array(parts)) => Some(parts.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
            _ => None,
        };
        Self {
            hooks: field("hooks").and_then(Value::as_object).cloned(),
            agents: field("agents").filter(|agents| agents.is_object()).cloned(),
            system_prompt,
            append_system_prompt: text("appendSystemPrompt"),
            json_schema: field("jsonSchema").filter(|schema| schema.is_object()).cloned(),
            sdk_mcp_servers: field("sdkMcpServers")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            mcp_servers: field("mcpServers").and_then(Value::as_object).cloned(),
            settings: field("settings").and_then(Value::as_object).cloned(),
            managed_settings: field("managedSettings").and_then(Value::as_object).cloned(),
            disallowed_tools: strings("disallowedTools"),
            additional_directories: strings("additionalDirectories"),
        }
    }
}

/// An answer to a control request, either way: `{"subtype":"success","request_id",
/// "response"}` or `{"subtype":"error","request_id","error"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    /// Done; `response` is the request's result object.
    Success {
        /// The request answered.
        request_id: String,
        /// The result (`{}` when there is nothing to say).
        #[serde(default = "empty_object")]
        response: Value,
    },
    /// Refused or failed.
    Error {
        /// The request answered.
        request_id: String,
        /// Why, for a person.
        #[serde(default)]
        error: String,
    },
}

fn empty_object() -> Value {
    json!({})
}

impl ControlResponse {
    /// The answer to `request_id`: its result, or the error.
    pub fn to(request_id: &str, result: Result<Value, String>) -> Self {
        let request_id = request_id.to_owned();
        match result {
            Ok(response) => Self::Success { request_id, response },
            Err(error) => Self::Error { request_id, error },
        }
    }

    /// The request this answers.
    pub fn request_id(&self) -> &str {
        match self {
            Self::Success { request_id, .. } | Self::Error { request_id, .. } => request_id,
        }
    }

    /// The result, or the error text.
    pub fn into_result(self) -> Result<Value, String> {
        match self {
            Self::Success { response, .. } => Ok(response),
            Self::Error { error, .. } if error.is_empty() => Err("the SDK answered with an error".to_owned()),
            Self::Error { error, .. } => Err(error),
        }
    }
}

/// What the agent asks of the SDK (the `request` of our `control_request` lines).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentRequest {
    /// `can_use_tool`: the SDK's permission callback decides a call that needs approval.
    CanUseTool {
        /// The tool's name.
        tool_name: String,
        /// The call's input.
        input: Value,
        /// Rules that would allow such calls from now on.
        permission_suggestions: Value,
        /// The path that made the call ask, when one did (always `null` here).
        blocked_path: Option<String>,
        /// Why the call needs approval.
        decision_reason: String,
        /// The tool's name for people.
        display_name: String,
        /// What the call does, in a few words.
        description: String,
        /// The `tool_use` id.
        tool_use_id: String,
    },
    /// `hook_callback`: one of the SDK's hooks, by the id `initialize` gave it.
    HookCallback {
        /// The hook's id (`hook_0` …).
        callback_id: String,
        /// The hook's input (Claude Code's hook input object).
        input: Value,
        /// The call the hook is about, if any.
        tool_use_id: Value,
    },
    /// `mcp_message`: a JSON-RPC message for one of the SDK's in-process MCP servers (`"type":
    /// "sdk"`); the SDK answers `{"mcp_response": <the server's JSON-RPC reply>}`.
    McpMessage {
        /// The server's name (its key under `mcpServers`).
        server_name: String,
        /// The JSON-RPC request or notification.
        message: Value,
    },
}

/// A line the agent writes for the SDK (besides the conversation's messages and results).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputLine {
    /// Our request; the SDK answers with a `control_response` naming `request_id`.
    ControlRequest {
        /// Our id (`req_<n>_<hex>`).
        request_id: String,
        /// What we ask.
        request: Box<AgentRequest>,
    },
    /// Our answer to a request of the SDK.
    ControlResponse {
        /// The answer.
        response: ControlResponse,
    },
    /// A `system` line: `session_state_changed` (`CLAUDE_CODE_SDK_READS_SESSION_STATE`).
    System(SystemLine),
}

/// A `system` line of ours.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SystemLine {
    /// The session started (`running`) or finished (`idle`) a query.
    SessionStateChanged {
        /// `running` or `idle`.
        state: String,
        /// Always true: a line for the SDK host, not the conversation.
        sdk_host_only: bool,
        /// The session.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
    /// A background task started (a shell command or an agent).
    TaskStarted {
        /// The task's id.
        task_id: String,
        /// The call that started it.
        tool_use_id: Option<String>,
        /// What it does.
        description: String,
        /// `local_bash` or `local_agent` (the Python SDK waits for `local_agent` tasks before it
        /// closes its input).
        task_type: String,
        /// The session.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
    /// An agent task finished a call (`usage`: `{"tool_uses", "duration_ms"}`).
    TaskProgress {
        /// The task's id.
        task_id: String,
        /// The call that started it.
        tool_use_id: Option<String>,
        /// What it does.
        description: String,
        /// Its work so far.
        usage: Value,
        /// The tool of its last call.
        last_tool_name: String,
        /// The session.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
    /// A background task's status changed (`patch`: `{"status", "end_time"}`).
    TaskUpdated {
        /// The task's id.
        task_id: String,
        /// What changed.
        patch: TaskPatch,
        /// The session.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
    /// A background task ended: what the model is told too.
    TaskNotification {
        /// The task's id.
        task_id: String,
        /// The call that started it.
        tool_use_id: Option<String>,
        /// `completed`, `failed` or `stopped`.
        status: String,
        /// The file its output (an agent's transcript) went to.
        output_file: String,
        /// What happened, in a line.
        summary: String,
        /// The session.
        session_id: String,
        /// This line's id.
        uuid: String,
    },
}

/// The change a [`SystemLine::TaskUpdated`] reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskPatch {
    /// `running`, `completed`, `failed` or `killed`.
    pub status: String,
    /// When it ended, in ms since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<u64>,
}

/// The SDK's answer to `can_use_tool`: `{"behavior":"allow","updatedInput",
/// "updatedPermissions"}` or `{"behavior":"deny","message","interrupt"}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "behavior", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Run the call, with `updated_input` in place of the input when given.
    Allow {
        /// The input to run instead.
        #[serde(default, rename = "updatedInput")]
        updated_input: Option<Value>,
        /// Rules to add (non-empty: allow such calls from now on).
        #[serde(default, rename = "updatedPermissions")]
        updated_permissions: Option<Vec<Value>>,
    },
    /// Refuse the call; `interrupt` also stops the query.
    Deny {
        /// Why, for the model.
        #[serde(default)]
        message: Option<String>,
        /// Stop the query too.
        #[serde(default)]
        interrupt: Option<bool>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_the_sdks_parse_and_ours_serialise_as_they_expect() {
        let response: InputLine = serde_json::from_value(json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": "req_1_ab", "response": {"behavior": "allow"}}
        }))
        .unwrap();
        let InputLine::ControlResponse { response } = response else { panic!("{response:?}") };
        assert_eq!(response.request_id(), "req_1_ab");
        assert_eq!(response.into_result(), Ok(json!({"behavior": "allow"})));
        let error = ControlResponse::Error { request_id: "r".into(), error: String::new() };
        assert_eq!(error.into_result(), Err("the SDK answered with an error".to_owned()));

        assert_eq!(serde_json::from_value::<InputLine>(json!({"type": "keep_alive"})).unwrap(), InputLine::Other);
        let mode: InputLine = serde_json::from_value(json!({
            "type": "control_request", "request_id": "7", "request": {"subtype": "set_permission_mode", "mode": 3}
        }))
        .unwrap();
        let InputLine::ControlRequest(ControlRequest { request, .. }) = mode else { panic!() };
        assert_eq!(request, SdkRequest::SetPermissionMode { mode: None });
        // A user line without usable content parses; it has no blocks.
        let InputLine::User(user) =
            serde_json::from_value(json!({"type": "user", "message": {"role": "user", "content": 5}})).unwrap()
        else {
            panic!()
        };
        assert_eq!(user.blocks(), None);

        let ours = OutputLine::ControlResponse { response: ControlResponse::to("req_9", Err("no".into())) };
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": "req_9", "error": "no"}})
        );
        let hook = OutputLine::ControlRequest {
            request_id: "req_2".into(),
            request: Box::new(AgentRequest::HookCallback {
                callback_id: "hook_0".into(),
                input: json!({}),
                tool_use_id: Value::Null,
            }),
        };
        assert_eq!(
            serde_json::to_string(&hook).unwrap(),
            r#"{"type":"control_request","request_id":"req_2","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{},"tool_use_id":null}}"#
        );
        let state = OutputLine::System(SystemLine::SessionStateChanged {
            state: "idle".into(),
            sdk_host_only: true,
            session_id: "s".into(),
            uuid: "u".into(),
        });
        assert_eq!(
            serde_json::to_string(&state).unwrap(),
            r#"{"type":"system","subtype":"session_state_changed","state":"idle","sdk_host_only":true,"session_id":"s","uuid":"u"}"#
        );
    }

    #[test]
    fn permission_decisions_read_both_behaviours() {
        let allow: PermissionDecision =
            serde_json::from_value(json!({"behavior": "allow", "updatedInput": {"a": 1}, "updatedPermissions": []}))
                .unwrap();
        assert_eq!(
            allow,
            PermissionDecision::Allow { updated_input: Some(json!({"a": 1})), updated_permissions: Some(vec![]) }
        );
        let deny: PermissionDecision = serde_json::from_value(json!({"behavior": "deny", "message": "no"})).unwrap();
        assert_eq!(deny, PermissionDecision::Deny { message: Some("no".into()), interrupt: None });
        assert!(serde_json::from_value::<PermissionDecision>(json!({"behavior": "maybe"})).is_err());
    }
}
