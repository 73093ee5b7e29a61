//! The Agent SDKs' control requests to a running session, answered: each [`SdkRequest`] but
//! `initialize`, `interrupt` and `end_session` (which steer the session itself; see
//! [`super::sdk`]). Answers have the shapes the SDKs read (`sdk.d.ts` of the TypeScript SDK);
//! a request this program cannot honour is answered with an error that names it.

use std::sync::Arc;

use agent_tools_background::TaskRegistry;
use agent_tools_core::{
    PermissionBehavior, PermissionMode, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination,
};
use agent_tools_host::Session;
use agent_tools_loop::Agent;
use agent_tools_loop::protocol::SdkRequest;
use serde_json::{Map, Value, json};

/// The Claude Code version whose stream-json protocol this program speaks: what the SDKs read
/// as `claude_code_version` (the Python SDK warns below 2.0.0 and gates some options on it).
pub(crate) const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// Most bytes of a task's output `get_task_output` returns (its end).
const TASK_OUTPUT_LIMIT: u64 = 256 * 1024;

/// The models `list_models` offers (aliases; `set_model` takes any id too).
const MODELS: &[(&str, &str, &str)] = &[
    ("default", "Default", "The session's own model"),
    ("sonnet", "Sonnet", "Claude Sonnet: for everyday coding"),
    ("opus", "Opus", "Claude Opus: for the hardest tasks"),
    ("haiku", "Haiku", "Claude Haiku: fastest"),
];

/// Whether `request` changes the session (its mode, model, rules, MCP servers, settings):
/// such requests are answered in the order they came, so the last one asked is the one that
/// holds.
pub(crate) fn changes_the_session(request: &SdkRequest) -> bool {
    matches!(
        request,
        SdkRequest::SetPermissionMode { .. }
            | SdkRequest::SetModel { .. }
            | SdkRequest::SetMaxThinkingTokens { .. }
            | SdkRequest::McpReconnect { .. }
            | SdkRequest::McpToggle { .. }
            | SdkRequest::McpSetServers { .. }
            | SdkRequest::ApplyFlagSettings { .. }
            | SdkRequest::UpdateSettings { .. }
            | SdkRequest::StopTask { .. }
    )
}

/// Answers `request` (see the module docs).
pub(crate) async fn answer(request: SdkRequest, agent: &Arc<Agent>, session: &Arc<Session>) -> Result<Value, String> {
    match request {
        SdkRequest::McpStatus => Ok(mcp_status(session)),
        SdkRequest::SetPermissionMode { mode } => {
            let name = mode.unwrap_or_default();
            let Some(mode) = PermissionMode::parse(&name) else {
                return Err(format!(
                    "set_permission_mode needs a mode: default, acceptEdits, plan, bypassPermissions, dontAsk or auto (not {name:?})"
                ));
            };
            session.set_permission_mode(mode).await?;
            Ok(json!({"mode": mode.as_str()}))
        }
        SdkRequest::SetModel { model } => {
            agent.switch_model(model.as_deref(), "sdk").await?;
            Ok(json!({}))
        }
        SdkRequest::SetMaxThinkingTokens { max_thinking_tokens } => {
            agent.set_max_thinking_tokens(max_thinking_tokens);
            Ok(json!({}))
        }
        SdkRequest::GetContextUsage => serde_json::to_value(agent.context_usage().await).map_err(|e| e.to_string()),
        SdkRequest::StopTask { task_id } => {
            let registry = TaskRegistry::existing(&session.context_without_waiting())
                .ok_or_else(|| format!("No task found with ID: {task_id}"))?;
            registry.stop(&task_id).await.map(|_| json!({})).map_err(|error| error.to_string())
        }
        SdkRequest::GetTaskOutput { task_id } => task_output(session, &task_id),
        SdkRequest::McpReconnect { server_name } => {
            session.mcp().reconnect_server(&server_name).await.map_err(|failure| failure.message)?;
            session.refresh_pool();
            Ok(json!({}))
        }
        SdkRequest::McpToggle { server_name, enabled } => {
            if enabled {
                session.mcp().reconnect_server(&server_name).await.map_err(|failure| failure.message)?;
            } else {
                session.mcp().disable_server(&server_name).await?;
            }
            session.refresh_pool();
            Ok(json!({}))
        }
        SdkRequest::McpReadResource { server_name, uri } => session.mcp().read_resource(&server_name, &uri).await,
        SdkRequest::McpSetServers { servers } => set_servers(session, servers).await,
        // A message the SDK's own server sent unasked (a notification): acknowledged.
        SdkRequest::McpMessage { .. } | SdkRequest::Hint { .. } => Ok(json!({})),
        SdkRequest::RewindFiles { .. } => Err("rewind_files: this version of agent-tools keeps no file checkpoints, \
                                               so it cannot undo file changes"
            .to_owned()),
        SdkRequest::GetSettings => Ok(settings(agent, session).await),
        SdkRequest::ApplyFlagSettings { settings } => apply_flag_settings(agent, session, &settings).await,
        SdkRequest::UpdateSettings { source, settings } => update_settings(agent, session, &source, settings).await,
        SdkRequest::GetUsage => Ok(usage(agent)),
        SdkRequest::ListModels => Ok(json!({"models": models()})),
        SdkRequest::GetBinaryVersion => {
            Ok(json!({"version": CLAUDE_CODE_VERSION, "agent_tools_version": env!("CARGO_PKG_VERSION")}))
        }
        SdkRequest::ListPermissionRules => Ok(permission_rules(session).await),
        SdkRequest::BackgroundTasks => Ok(json!({"backgrounded": false})),
        SdkRequest::ReloadSkills => Ok(json!({"skills": []})),
        SdkRequest::ReloadOutputStyles => Ok(json!({"available_output_styles": ["default"]})),
        // Sent again (the TypeScript SDK's `reinitialize()`): what the first one was answered,
        // without new hooks (they are registered once, at the start).
        SdkRequest::Initialize(init) => Ok(super::sdk::initialize_response(agent, false, &init)),
        SdkRequest::Unsupported { subtype } => {
            Err(format!("Unsupported control request subtype: {subtype} (agent-tools does not implement it)"))
        }
        other => Err(format!("Unsupported control request: {other:?} (agent-tools does not implement it)")),
    }
}

/// `mcp_status`'s answer: each configured MCP server with its state, and a connected one's
/// tools (`McpServerStatus` of `sdk.d.ts`).
pub(crate) fn mcp_status(session: &Session) -> Value {
    let mcp = session.mcp();
    let tools = session.pool();
    let mut servers: Vec<Value> = mcp
        .connections()
        .iter()
        .map(|server| {
            let own: Vec<Value> = tools
                .iter()
                .filter(|tool| tool.mcp_info().is_some_and(|info| info.server_name == server.name))
                .map(|tool| json!({"name": tool.name()}))
                .collect();
            json!({"name": server.name, "status": "connected", "tools": own})
        })
        .collect();
    servers.extend(mcp.failures().iter().map(|failure| {
        let status = if matches!(failure.kind, agent_tools_mcp::FailureKind::NeedsAuth { .. }) {
            "needs-auth"
        } else {
            "failed"
        };
        json!({"name": failure.name, "status": status, "error": failure.message})
    }));
    servers.extend(mcp.disabled().iter().map(|name| json!({"name": name, "status": "disabled"})));
    json!({"mcpServers": servers})
}

/// `mcp_set_servers`: the SDK's own servers, replaced (`{"added", "removed", "errors"}`).
async fn set_servers(session: &Session, servers: Map<String, Value>) -> Result<Value, String> {
    let text = json!({"mcpServers": servers}).to_string();
    let servers = agent_tools_mcp::config::parse_config(&text, "mcp_set_servers").map_err(|error| error.to_string())?;
    let outcome = session.mcp().set_dynamic_servers(&servers).await;
    session.refresh_pool();
    let errors: Map<String, Value> = outcome.errors.into_iter().map(|(name, why)| (name, json!(why))).collect();
    Ok(json!({"added": outcome.added, "removed": outcome.removed, "errors": errors}))
}

/// `get_task_output`: the end of a background task's output file.
fn task_output(session: &Session, task_id: &str) -> Result<Value, String> {
    use std::io::{Read as _, Seek as _};
    let registry = TaskRegistry::existing(&session.context_without_waiting());
    let task = registry
        .and_then(|registry| registry.get(task_id))
        .ok_or_else(|| format!("No task found with ID: {task_id}"))?;
    let mut file =
        std::fs::File::open(&task.output_path).map_err(|error| format!("cannot read its output: {error}"))?;
    let total = file.metadata().map(|meta| meta.len()).unwrap_or(0);
    let start = total.saturating_sub(TASK_OUTPUT_LIMIT);
    file.seek(std::io::SeekFrom::Start(start)).map_err(|error| format!("cannot read its output: {error}"))?;
    let mut bytes = Vec::new();
    file.take(TASK_OUTPUT_LIMIT).read_to_end(&mut bytes).map_err(|error| format!("cannot read its output: {error}"))?;
    Ok(json!({"output": String::from_utf8_lossy(&bytes), "total_bytes": total, "truncated": start > 0}))
}

/// `get_settings`: what the session runs with now.
async fn settings(agent: &Agent, session: &Session) -> Value {
    let permissions = session.permission_context().await;
    json!({
        "applied": {
            "model": agent.model(),
            "permissionMode": permissions.mode.as_str(),
        },
        "effective": {
            "model": session.settings_model(),
            "permissions": rules_of(&permissions),
        },
    })
}

/// The allow, deny and ask rules in effect, by behaviour (`Bash(git diff:*)` …).
fn rules_of(permissions: &agent_tools_core::ToolPermissionContext) -> Value {
    let all = |rules: &agent_tools_core::RulesBySource| -> Vec<String> { rules.values().flatten().cloned().collect() };
    json!({
        "allow": all(&permissions.always_allow_rules),
        "deny": all(&permissions.always_deny_rules),
        "ask": all(&permissions.always_ask_rules),
    })
}

/// `update_settings`: `settings` laid into the user's (`userSettings`) or the project's local
/// (`localSettings`) settings file — objects merged, rule lists joined — written atomically
/// under the file's lock, so a concurrent writer keeps its keys; the model and permission keys
/// also take effect now, the others at the next start.
async fn update_settings(
    agent: &Agent,
    session: &Session,
    source: &str,
    settings: Map<String, Value>,
) -> Result<Value, String> {
    let path = match source {
        "localSettings" => session.project_dir().join(".claude/settings.local.json"),
        "userSettings" => session
            .environment()
            .claude_config_dir()
            .map(|dir| dir.join("settings.json"))
            .ok_or("update_settings: there is no user config folder (set HOME or CLAUDE_CONFIG_DIR)")?,
        other => return Err(format!("update_settings: source must be localSettings or userSettings, not {other:?}")),
    };
    let fail = |error: &dyn std::fmt::Display| format!("update_settings: {}: {error}", path.display());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|error| fail(&error))?;
    }
    {
        let _lock = agent_tools_files::FileLock::acquire(&agent_tools_files::lock_path_beside(&path))
            .map_err(|error| fail(&error))?;
        let mut current = match std::fs::read_to_string(&path) {
            Ok(text) if !text.trim().is_empty() => serde_json::from_str(&text).map_err(|error| fail(&error))?,
            Ok(_) => json!({}),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => json!({}),
            Err(error) => return Err(fail(&error)),
        };
        if !current.is_object() {
            return Err(fail(&"the file does not hold a JSON object"));
        }
        super::setup::layer_json(&mut current, &Value::Object(settings.clone()));
        let pretty = serde_json::to_string_pretty(&current).map_err(|error| fail(&error))?;
        agent_tools_files::write_atomic(&path, format!("{pretty}\n").as_bytes()).map_err(|error| fail(&error))?;
    }
    let live: Map<String, Value> =
        settings.into_iter().filter(|(key, _)| matches!(key.as_str(), "model" | "permissions")).collect();
    apply_flag_settings(agent, session, &live).await
}

/// `apply_flag_settings`: `model` and `permissions` (`allow`, `deny`, `ask`, `defaultMode`,
/// `additionalDirectories`) take effect for the rest of the session; any other key is refused
/// by name, and nothing is applied then.
async fn apply_flag_settings(agent: &Agent, session: &Session, settings: &Map<String, Value>) -> Result<Value, String> {
    let unknown: Vec<&str> =
        settings.keys().map(String::as_str).filter(|key| !matches!(*key, "model" | "permissions")).collect();
    if !unknown.is_empty() {
        return Err(format!(
            "apply_flag_settings: agent-tools applies only model and permissions while a session runs, not {}",
            unknown.join(", ")
        ));
    }
    let mut updates = Vec::new();
    let mut added = Vec::new();
    let mut mode = None;
    if let Some(permissions) = settings.get("permissions") {
        let Some(permissions) = permissions.as_object() else {
            return Err("apply_flag_settings: permissions must be an object".to_owned());
        };
        for (key, behavior) in
            [("allow", PermissionBehavior::Allow), ("deny", PermissionBehavior::Deny), ("ask", PermissionBehavior::Ask)]
        {
            let Some(list) = permissions.get(key) else { continue };
            let rules = list
                .as_array()
                .and_then(|items| items.iter().map(|item| item.as_str().map(PermissionRuleValue::parse)).collect())
                .ok_or_else(|| format!("apply_flag_settings: permissions.{key} must be a list of rules"))?;
            updates.push(PermissionUpdate::AddRules {
                destination: PermissionUpdateDestination::Session,
                rules,
                behavior,
            });
        }
        if let Some(dirs) = permissions.get("additionalDirectories") {
            let directories: Vec<std::path::PathBuf> = dirs
                .as_array()
                .and_then(|items| {
                    items.iter().map(|item| item.as_str().map(|dir| session.project_dir().join(dir))).collect()
                })
                .ok_or("apply_flag_settings: permissions.additionalDirectories must be a list of paths")?;
            added.clone_from(&directories);
            updates.push(PermissionUpdate::AddDirectories {
                destination: PermissionUpdateDestination::Session,
                directories,
            });
        }
        if let Some(name) = permissions.get("defaultMode") {
            let parsed = name.as_str().and_then(PermissionMode::parse);
            mode = Some(parsed.ok_or_else(|| format!("apply_flag_settings: {name} is not a permission mode"))?);
        }
    }
    let model = match settings.get("model") {
        None => None,
        Some(Value::String(model)) => Some(model.clone()),
        Some(_) => return Err("apply_flag_settings: model must be a string".to_owned()),
    };
    if let Some(mode) = mode {
        session.set_permission_mode(mode).await?;
    }
    session.update_permissions(&updates).await;
    agent.directories_added(&added, "apply_flag_settings").await;
    if let Some(model) = model {
        agent.switch_model(Some(&model), "sdk").await?;
    }
    Ok(json!({}))
}

/// `get_usage`: the session's cost and tokens, per model.
fn usage(agent: &Agent) -> Value {
    let spend = agent.spend();
    let per_model: Map<String, Value> = spend
        .per_model()
        .into_iter()
        .map(|(model, (usage, cost))| {
            let entry = json!({
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "cacheReadInputTokens": usage.cache_read_input_tokens,
                "cacheCreationInputTokens": usage.cache_creation_input_tokens,
                "costUSD": cost,
            });
            (model, entry)
        })
        .collect();
    json!({
        "session": {
            "total_cost_usd": spend.cost_usd(),
            "model_usage": per_model,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "subscription_type": null,
        "rate_limits_available": false,
        "rate_limits": {},
    })
}

/// `list_models` (and `initialize`'s `models`): `ModelInfo` entries.
pub(crate) fn models() -> Vec<Value> {
    MODELS
        .iter()
        .map(|(value, name, description)| {
            let resolved = (*value != "default").then(|| agent_tools_loop::resolve_model(value));
            json!({"value": value, "displayName": name, "description": description, "resolvedModel": resolved})
        })
        .collect()
}

/// `list_permission_rules`: every rule with its source (`SDKControlPermissionRulesState`).
async fn permission_rules(session: &Session) -> Value {
    let permissions = session.permission_context().await;
    let mut rules = Vec::new();
    for (behavior, by_source) in [
        ("allow", &permissions.always_allow_rules),
        ("deny", &permissions.always_deny_rules),
        ("ask", &permissions.always_ask_rules),
    ] {
        for (source, list) in by_source {
            let source = serde_json::to_value(source).unwrap_or(Value::Null);
            for rule in list {
                rules.push(json!({"behavior": behavior, "source": source, "rule": rule, "editability": "session"}));
            }
        }
    }
    let dirs: Vec<Value> = permissions
        .additional_working_directories
        .iter()
        .map(|(path, source)| json!({"path": path, "source": source}))
        .collect();
    json!({"state": {
        "rules": rules,
        "workspaceDirectories": dirs,
        "originalCwd": session.project_dir(),
        "managedOnly": false,
    }})
}
