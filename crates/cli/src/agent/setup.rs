//! What every front end of `agent-tools agent` starts with: the conversation to resume, the
//! session (with `--tools`, `--add-dir`, `--setting-sources` and the SDK's hooks folded in), the
//! model, the backend and the loop's options.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_api::{ApiConfig, Backend, Client, ClientOptions, OpenAiClient, OpenAiConfig};
use agent_tools_host::{Environment, PermissionPrompter, Session, WorkspaceTrust};
use agent_tools_loop::classifier::DEFAULT_CLASSIFIER_MODEL;
use agent_tools_loop::{Agent, AgentOptions, DEFAULT_MODEL, ModelClassifier, resolve_model, transcript};
use anyhow::Context as _;
use serde_json::{Map, Value, json};

use super::{AgentArgs, OutputFormat};
use crate::GlobalOptions;
use crate::session::{self, Extras, Kind};

/// What the user reads when no credential is configured (Claude Code says `Invalid API key ·
/// Please run /login`).
pub(crate) const NO_API_KEY: &str = "Invalid API key · set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or AGENT_TOOLS_OPENAI_BASE_URL for an \
     OpenAI-compatible server";

/// Why the agent could not start, and how that is shown.
#[derive(Debug)]
pub(crate) enum StartError {
    /// A failure the result line reports (no API key, no conversation to resume): exit 1.
    Run(String),
    /// A setup error (a broken settings file, a bad flag value): exit 1 too, shown as it is.
    Setup(anyhow::Error),
}

impl From<anyhow::Error> for StartError {
    fn from(error: anyhow::Error) -> Self {
        Self::Setup(error)
    }
}

impl StartError {
    /// The text shown.
    pub(crate) fn text(&self) -> String {
        match self {
            Self::Run(text) => text.clone(),
            Self::Setup(error) => format!("{error:#}"),
        }
    }
}

/// How the front end wants the session.
pub(crate) struct Frontend {
    /// Who answers permission questions.
    pub(crate) prompter: Option<Arc<dyn PermissionPrompter>>,
    /// How workspace trust is settled.
    pub(crate) trust: WorkspaceTrust,
    /// Hooks to add to the settings (the SDK's, as command hooks), by event.
    pub(crate) hooks: Option<Map<String, Value>>,
    /// Someone answers the prompter's questions: each question first fires the `Notification`
    /// hooks, as Claude Code does when it waits for the user.
    pub(crate) notify: bool,
    /// Carries the messages of the Agent SDK's in-process MCP servers (`"type": "sdk"`).
    pub(crate) sdk_servers: Option<Arc<dyn agent_tools_mcp::SdkServers>>,
}

/// A prompter that fires the agent's `Notification` hooks before each question.
struct Notifying {
    inner: Arc<dyn PermissionPrompter>,
    /// The agent, once it exists (weak: the agent holds the session, which holds this).
    agent: Arc<std::sync::OnceLock<std::sync::Weak<Agent>>>,
}

impl PermissionPrompter for Notifying {
    fn ask<'a>(
        &'a self,
        request: &'a agent_tools_host::PermissionRequest,
    ) -> agent_tools_core::BoxFuture<'a, agent_tools_host::PermissionAnswer> {
        Box::pin(async move {
            if let Some(agent) = self.agent.get().and_then(std::sync::Weak::upgrade) {
                let message = format!("The agent needs your permission to use {}", request.display_name);
                agent.notify(&message, "permission_prompt").await;
            }
            self.inner.ask(request).await
        })
    }
}

/// A started agent and what it runs on.
pub(crate) struct Started {
    /// The agent.
    pub(crate) agent: Arc<Agent>,
    /// Its session (end it with [`Session::shutdown`]).
    pub(crate) session: Arc<Session>,
}

/// The backend the environment names: an OpenAI-compatible server when
/// `AGENT_TOOLS_OPENAI_BASE_URL` is set (with `OPENAI_API_KEY` if any), else the Messages API
/// (`ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`).
///
/// `CLAUDE_STREAM_IDLE_TIMEOUT_MS` (Claude Code's variable) sets how long a reply may stay
/// silent, the wait for its head included (a local server's long prefill); default 300 s.
/// `AGENT_TOOLS_OPENAI_TEXT_TOOL_CALLS=1` reads tool calls the model wrote as text
/// ([`OpenAiConfig::text_tool_calls`]); `AGENT_TOOLS_OPENAI_TEMPERATURE` is the sampling
/// temperature ([`OpenAiConfig::temperature`]); `AGENT_TOOLS_OPENAI_TOOL_DESCRIPTIONS=short` sends
/// tool descriptions cut to their gist ([`OpenAiConfig::short_tool_descriptions`]).
pub(crate) fn backend(env: &Environment, model: &str) -> Result<Backend, StartError> {
    let mut options =
        ClientOptions::new(format!("agent-tools/{}", env!("CARGO_PKG_VERSION")), Duration::from_secs(600));
    if let Some(ms) = env.number("CLAUDE_STREAM_IDLE_TIMEOUT_MS").filter(|ms| *ms > 0) {
        options.stream_idle_timeout = Duration::from_millis(ms);
    }
    if let Some(base_url) = env.text("AGENT_TOOLS_OPENAI_BASE_URL") {
        let config = OpenAiConfig {
            api_key: env.text("OPENAI_API_KEY"),
            text_tool_calls: env.flag("AGENT_TOOLS_OPENAI_TEXT_TOOL_CALLS"),
            temperature: env.text("AGENT_TOOLS_OPENAI_TEMPERATURE").and_then(|t| t.trim().parse::<f64>().ok()),
            short_tool_descriptions: env
                .text("AGENT_TOOLS_OPENAI_TOOL_DESCRIPTIONS")
                .is_some_and(|value| value.trim().eq_ignore_ascii_case("short")),
            ..OpenAiConfig::new(base_url.trim(), model)
        };
        let client = OpenAiClient::new(config, &options).map_err(|error| StartError::Setup(error.into()))?;
        return Ok(Backend::OpenAi(client));
    }
    let mut config = ApiConfig::from_env(|name| env.text(name));
    if config.credential.is_empty() {
        return Err(StartError::Run(NO_API_KEY.to_owned()));
    }
    config.model = model.to_owned();
    let client = Client::new(config, &options).map_err(|error| StartError::Setup(error.into()))?;
    Ok(Backend::Anthropic(client))
}

/// The model asked: `--model`, else `ANTHROPIC_MODEL`, else the settings' `model`, else the
/// loop's default; aliases resolved.
pub(crate) fn model(args: &AgentArgs, env: &Environment, session: &Session) -> String {
    let named = args
        .model
        .clone()
        .filter(|model| !model.trim().is_empty())
        .or_else(|| env.text("ANTHROPIC_MODEL"))
        .or_else(|| session.settings_model().map(str::to_owned))
        .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
    resolve_model(&named)
}

/// The conversation `--continue` / `--resume` pick up, and where the session goes on.
struct Resumed {
    /// The id the session runs under: the resumed one's, or a fork's new one.
    id: String,
    /// The conversation, repaired for the next request when a kill cut the session short.
    messages: Vec<Value>,
    /// The transcript the session appends to (`None` without persistence).
    file: Option<PathBuf>,
    /// The entry new entries continue from (`--resume-session-at`).
    parent: Option<String>,
}

/// The conversation `--continue` / `--resume` name, as Claude Code resumes it: found in the
/// projects folder (a session Claude Code wrote included) or in agent-tools' first layout;
/// `--resume-session-at` cuts it after that entry (the session goes on in a branch of the same
/// file); `--fork-session` copies it into a new session (`--session-id`, else a fresh UUID); a
/// first-format session goes on in a transcript in Claude Code's layout, its old file left as it
/// was. With `--no-session-persistence` nothing is written.
fn resumed(args: &AgentArgs, env: &Environment, cwd: &Path) -> Result<Option<Resumed>, StartError> {
    let run_error = |error: transcript::TranscriptError| StartError::Run(error.to_string());
    let found = match &args.resume {
        Some(Some(id)) => transcript::find(env, cwd, id).map_err(run_error)?,
        Some(None) => transcript::latest(env, cwd).map_err(run_error)?,
        None if args.continue_conversation => transcript::latest(env, cwd).map_err(run_error)?,
        None => return Ok(None),
    };
    let at = args.resume_session_at.as_deref().filter(|at| !at.trim().is_empty());
    let persist = !args.no_session_persistence;
    let projects = transcript::projects_dir(env).filter(|_| persist);
    let id = if args.fork_session {
        args.session_id.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
    } else {
        found.id.clone()
    };
    // A fork, or a first-format session, goes on in a new transcript seeded with the history.
    let seed = if args.fork_session || found.legacy { projects.as_ref() } else { None };
    let (loaded, file, parent) = match seed {
        Some(projects) => {
            let dest = transcript::session_file(projects, cwd, &id);
            let header = transcript::Header::new(env, &id, cwd);
            let loaded = transcript::copy_into(&found.path, &dest, &header, at).map_err(run_error)?;
            (loaded, Some(dest), None)
        }
        None => {
            let loaded = transcript::load_at(&found.path, at).map_err(run_error)?;
            let parent = at.and(loaded.leaf.clone());
            let file = (persist && !found.legacy && !args.fork_session).then(|| found.path.clone());
            (loaded, file, parent)
        }
    };
    // What was skipped or answered is said on stderr.
    for notice in &loaded.notices {
        crate::report(format_args!("{notice}"));
    }
    Ok(Some(Resumed { id, messages: loaded.messages, file, parent }))
}

/// The built-in tools `--tools` leaves out, as deny rules (`default` keeps all).
fn tools_denied(list: Option<&str>, env: &Environment) -> Vec<String> {
    let Some(list) = list else { return Vec::new() };
    if list.trim() == "default" {
        return Vec::new();
    }
    let wanted = agent_tools_settings::parse_tool_list(list);
    // Every tool this build has (the session may add some later: Config with its settings
    // files, SendUserMessage with --brief), with the task list this environment asks for.
    let config =
        agent_tools_host::HostConfig { todo_v2: env.host_config().todo_v2, ..agent_tools_host::every_tool_config() };
    let all = agent_tools_host::pool::get_all_base_tools(&config);
    for name in &wanted {
        if !all.iter().any(|tool| agent_tools_core::tool_matches_name(tool.as_ref(), name)) {
            crate::report(format_args!(
                "agent-tools: --tools names {name:?}, which is not a built-in tool (names are case-sensitive); it is ignored"
            ));
        }
    }
    all.iter()
        .filter(|tool| !wanted.iter().any(|name| agent_tools_core::tool_matches_name(tool.as_ref(), name)))
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// The session's agent definitions (built-in, the agents folders', `--agents`'), as
/// `initialize` and `system/init` list them: `{"name", "description", "model"}`.
pub(crate) fn agent_infos(session: &Session) -> Vec<Value> {
    let folders = session.tool_options().and_then(|tools| tools.get::<agent_tool_agent::AgentFolders>()).cloned();
    agent_tool_agent::all_definitions(&folders.unwrap_or_default())
        .into_iter()
        .map(|def| json!({"name": def.agent_type, "description": def.when_to_use, "model": def.model}))
        .collect()
}

/// `--agent NAME`: the definition the main conversation runs as, with its tool list and
/// disallowed tools made deny rules of the session, and its permission mode set unless a flag
/// chose one.
async fn main_agent(
    options: &GlobalOptions,
    args: &AgentArgs,
    session: &Session,
) -> Result<Option<agent_tool_agent::definitions::AgentDefinition>, StartError> {
    let Some(name) = args.agent.as_deref().filter(|name| !name.trim().is_empty()) else { return Ok(None) };
    let folders = session.tool_options().and_then(|tools| tools.get::<agent_tool_agent::AgentFolders>()).cloned();
    let all = agent_tool_agent::all_definitions(&folders.unwrap_or_default());
    let Some(def) = all.iter().find(|def| def.agent_type == name).cloned() else {
        let known: Vec<&str> = all.iter().map(|def| def.agent_type.as_str()).collect();
        return Err(StartError::Run(format!("--agent {name}: there is no such agent (known: {})", known.join(", "))));
    };
    let mut denied: Vec<agent_tools_core::PermissionRuleValue> =
        def.disallowed_tools.iter().map(|rule| agent_tools_core::PermissionRuleValue::parse(rule)).collect();
    if let Some(allowed) = &def.tools {
        let allowed: Vec<agent_tools_core::PermissionRuleValue> =
            allowed.iter().map(|rule| agent_tools_core::PermissionRuleValue::parse(rule)).collect();
        for tool in session.pool().iter() {
            if !allowed.iter().any(|rule| agent_tools_core::tool_matches_name(tool.as_ref(), &rule.tool_name)) {
                denied.push(agent_tools_core::PermissionRuleValue::tool(tool.name()));
            }
        }
    }
    if !denied.is_empty() {
        session
            .update_permissions(&[agent_tools_core::PermissionUpdate::AddRules {
                destination: agent_tools_core::PermissionUpdateDestination::CliArg,
                rules: denied,
                behavior: agent_tools_core::PermissionBehavior::Deny,
            }])
            .await;
    }
    let flag_mode = options.permission_mode.filter(|mode| *mode != agent_tools_core::PermissionMode::Default);
    if let Some(mode) = def.permission_mode
        && flag_mode.is_none()
        && !options.dangerously_skip_permissions
    {
        session.set_permission_mode(mode).await.map_err(StartError::Run)?;
    }
    Ok(Some(def))
}

/// Reads a text flag's file (`--system-prompt-file`).
fn read_text(path: &Path, flag: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("{flag} {}", path.display()))
}

/// The `--settings` value with `--add-dir` folders (as `permissions.additionalDirectories`) and
/// extra hooks merged in; the flag's own value when there is nothing to add.
fn merged_settings(
    settings: Option<&str>,
    add_dirs: &[PathBuf],
    hooks: Option<&Map<String, Value>>,
) -> anyhow::Result<Option<String>> {
    let hooks = hooks.filter(|hooks| !hooks.is_empty());
    if add_dirs.is_empty() && hooks.is_none() {
        return Ok(settings.map(str::to_owned));
    }
    let mut value = settings_value(settings)?;
    let Some(object) = value.as_object_mut() else { anyhow::bail!("--settings must be a JSON object") };
    if !add_dirs.is_empty() {
        let mut dirs = Vec::new();
        for dir in add_dirs {
            let real = dir.canonicalize().with_context(|| format!("--add-dir {}", dir.display()))?;
            anyhow::ensure!(real.is_dir(), "--add-dir {} is not a directory", dir.display());
            dirs.push(json!(real));
        }
        let permissions = object.entry("permissions").or_insert_with(|| json!({}));
        let Some(permissions) = permissions.as_object_mut() else {
            anyhow::bail!("--settings: permissions is not an object")
        };
        let list = permissions.entry("additionalDirectories").or_insert_with(|| json!([]));
        match list.as_array_mut() {
            Some(list) => list.extend(dirs),
            None => anyhow::bail!("--settings: permissions.additionalDirectories is not a list"),
        }
    }
    if let Some(hooks) = hooks {
        let all = object.entry("hooks").or_insert_with(|| json!({}));
        let Some(all) = all.as_object_mut() else { anyhow::bail!("--settings: hooks is not an object") };
        for (event, matchers) in hooks {
            let list = all.entry(event.clone()).or_insert_with(|| json!([]));
            match (list.as_array_mut(), matchers.as_array()) {
                (Some(list), Some(matchers)) => list.extend(matchers.iter().cloned()),
                _ => anyhow::bail!("--settings: hooks.{event} is not a list"),
            }
        }
    }
    Ok(Some(value.to_string()))
}

/// `--settings` with `--managed-settings` laid over it (a managed rule list adds to the flag's).
fn managed(options: &GlobalOptions, args: &AgentArgs) -> anyhow::Result<Option<String>> {
    let Some(managed) = &args.managed_settings else { return Ok(options.settings.clone()) };
    let over: Value = serde_json::from_str(managed).context("--managed-settings is not valid JSON")?;
    layer_settings(options.settings.as_deref(), &over).map(Some)
}

/// The `--settings` value as JSON: inline JSON text, else the file it names; `{}` for none.
fn settings_value(settings: Option<&str>) -> anyhow::Result<Value> {
    Ok(match settings {
        None => json!({}),
        Some(text) if text.trim_start().starts_with('{') => {
            serde_json::from_str(text).context("--settings is not valid JSON")?
        }
        Some(path) => {
            let text = read_text(Path::new(path), "--settings")?;
            serde_json::from_str(&text).with_context(|| format!("--settings {path} is not valid JSON"))?
        }
    })
}

/// `over` laid on the `--settings` value `base`, as JSON text (see [`layer_json`]).
pub(crate) fn layer_settings(base: Option<&str>, over: &Value) -> anyhow::Result<String> {
    anyhow::ensure!(over.is_object(), "settings to add must be a JSON object");
    let mut value = settings_value(base)?;
    anyhow::ensure!(value.is_object(), "--settings must be a JSON object");
    layer_json(&mut value, over);
    Ok(value.to_string())
}

/// Lays `over` on `base`: objects merge key by key, lists are joined (so rules and hooks of
/// both hold), any other value of `over` wins.
pub(crate) fn layer_json(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                layer_json(base.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (Value::Array(base), Value::Array(over)) => {
            for item in over {
                if !base.contains(item) {
                    base.push(item.clone());
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// The `--json-schema` value as JSON: inline JSON text, else the file it names.
fn output_schema(flag: Option<&str>) -> anyhow::Result<Option<Value>> {
    let Some(flag) = flag.filter(|flag| !flag.trim().is_empty()) else { return Ok(None) };
    let text =
        if flag.trim_start().starts_with('{') { flag.to_owned() } else { read_text(Path::new(flag), "--json-schema")? };
    let schema: Value = serde_json::from_str(&text).context("--json-schema is not valid JSON")?;
    anyhow::ensure!(schema.is_object(), "--json-schema must be a JSON object (a JSON Schema)");
    Ok(Some(schema))
}

/// The agents `--agents` defines (a JSON object of names to `{"description", "prompt",
/// "tools", "model" …}`, as Claude Code takes it; the Agent SDKs pass their `agents` option so).
fn session_agents(flag: Option<&str>) -> anyhow::Result<Vec<agent_tool_agent::definitions::AgentDefinition>> {
    let Some(text) = flag.filter(|text| !text.trim().is_empty()) else { return Ok(Vec::new()) };
    let value: Value = serde_json::from_str(text).context("--agents is not valid JSON")?;
    agent_tool_agent::definitions::parse_agents_json(&value).map_err(|error| anyhow::anyhow!("--agents: {error}"))
}

/// Which `.claude` folders `--setting-sources` reads skills, commands and agents from: the
/// user's with `user`, the project's with `project` (`None`: the flag is absent, both).
fn claude_folders(sources: Option<&str>) -> Option<(bool, bool)> {
    let sources: Vec<&str> = sources?.split([',', ' ']).map(str::trim).collect();
    Some((sources.contains(&"user"), sources.contains(&"project")))
}

/// Whether `--setting-sources` lets any settings file be read (`None`: the flags decide).
fn settings_files(sources: Option<&str>) -> Option<bool> {
    let sources = sources?;
    Some(sources.split([',', ' ']).map(str::trim).any(|source| matches!(source, "user" | "project" | "local")))
}

/// Builds the session and the agent the flags describe.
pub(crate) async fn start(
    options: &GlobalOptions,
    args: &AgentArgs,
    frontend: Frontend,
) -> Result<Started, StartError> {
    let env = Environment::from_process();
    let cwd = session::working_dir(options)?;
    // The credential may come from the settings' `env`: it is checked once they are read
    // ([`backend`]), before any request.
    if let Some(id) = &args.session_id
        && !agent_tools_host::session::is_plain_id(id)
    {
        return Err(StartError::Run(format!(
            "--session-id {id:?} cannot name a session: use 1 to 64 letters, digits, '-' or '_' (a UUID, say)"
        )));
    }
    let resumed = resumed(args, &env, &cwd)?;
    // A new session may not take the id of a saved one (Claude Code refuses it too).
    if resumed.is_none()
        && let Some(id) = &args.session_id
        && transcript::find(&env, &cwd, id).is_ok()
    {
        return Err(StartError::Run(transcript::TranscriptError::InUse(id.clone()).to_string()));
    }
    let waiting_agent = Arc::new(std::sync::OnceLock::new());
    let prompter = match frontend.prompter {
        Some(inner) if frontend.notify => {
            Some(Arc::new(Notifying { inner, agent: Arc::clone(&waiting_agent) }) as Arc<dyn PermissionPrompter>)
        }
        other => other,
    };
    // Judges calls only in auto mode; bound to the backend once the model is known.
    let classifier = Arc::new(ModelClassifier::new());
    // MCP servers' sampling requests go to the loop's model; bound with it below.
    let sampler = Arc::new(agent_tools_loop::ModelSampler::new());
    let session_id = match &resumed {
        Some(resumed) => Some(resumed.id.clone()),
        None => args.session_id.clone(),
    };
    let extras = Extras {
        session_id,
        deny: tools_denied(args.tools.as_deref(), &env),
        settings: merged_settings(managed(options, args)?.as_deref(), &args.add_dir, frontend.hooks.as_ref())?,
        settings_files: settings_files(args.setting_sources.as_deref()),
        claude_folders: claude_folders(args.setting_sources.as_deref()),
        trust: Some(frontend.trust),
        prompter,
        classifier: Some(classifier.clone()),
        output_schema: output_schema(args.json_schema.as_deref())?,
        sampler: Some(sampler.clone()),
        elicitor: None,
        brief: args.brief,
        agents: session_agents(args.agents.as_deref())?,
        sdk_servers: frontend.sdk_servers,
    };
    let session = Arc::new(session::open_with(options, Kind::Agent, extras).await?);
    // The settings' `env` is read as if the process had it (Claude Code sets it on its own).
    let env = session.settings_env().iter().fold(env, |env, (name, value)| env.with(name, value));
    if args.output_format == OutputFormat::StreamJson {
        print_hook_notices(&session, args.include_hook_events);
    }
    // What SendUserMessage sends is printed for the user, except where stdout is JSON (the
    // stream-json events already carry the call).
    if args.output_format == OutputFormat::Text {
        let ctx = session.context_without_waiting();
        agent_tools_core::user::install_user_channel(&ctx, Arc::new(crate::agent::output::TerminalMessages));
    }
    let main_agent = match main_agent(options, args, &session).await {
        Ok(agent) => agent,
        Err(error) => {
            session.shutdown().await;
            return Err(error);
        }
    };
    let model = match main_agent.as_ref().and_then(|agent| agent.model.as_deref()) {
        Some(agent_model) if args.model.is_none() => resolve_model(agent_model),
        _ => model(args, &env, &session),
    };
    let backend = match backend(&env, &model) {
        Ok(backend) => backend,
        Err(error) => {
            session.shutdown().await;
            return Err(error);
        }
    };
    let classifier_model = match &backend {
        Backend::OpenAi(_) => model.clone(),
        _ => env.text("ANTHROPIC_SMALL_FAST_MODEL").unwrap_or_else(|| DEFAULT_CLASSIFIER_MODEL.to_owned()),
    };
    classifier.bind(backend.clone(), classifier_model);
    sampler.bind(backend.clone(), model.clone());
    let mut agent_options = AgentOptions::new(model);
    agent_options.api_key_source = match &backend {
        Backend::OpenAi(_) => "none",
        _ if env.text("ANTHROPIC_API_KEY").is_some() => "ANTHROPIC_API_KEY",
        _ => "ANTHROPIC_AUTH_TOKEN",
    }
    .to_owned();
    agent_options.classifier = Some(classifier);
    agent_options.output_schema = output_schema(args.json_schema.as_deref())?;
    // As in Claude Code, each kind of CLAUDE.md loads only with its setting source: the Agent
    // SDKs' default `--setting-sources ""` loads none.
    if let Some(sources) = &args.setting_sources {
        agent_options.memory_sources = agent_tools_loop::memory::MemorySources::from_setting_sources(sources);
    }
    // Claude Code's CLAUDE_CODE_MAX_OUTPUT_TOKENS: the most tokens of one answer.
    if let Some(max) = env.number("CLAUDE_CODE_MAX_OUTPUT_TOKENS").filter(|max| *max > 0) {
        agent_options.max_tokens = u32::try_from(max).unwrap_or(u32::MAX);
    }
    agent_options.max_turns = args.max_turns;
    agent_options.max_budget_usd = args.max_budget_usd;
    // Claude Code's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: the share of the context window (1 to 100
    // per cent) at which the conversation is compacted; only ever earlier than the default.
    if let Some(percent) = env.text("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        && let Ok(percent) = percent.trim().parse::<f64>()
        && percent > 0.0
        && percent <= 100.0
    {
        agent_options.compact_at = agent_options.compact_at.min(percent / 100.0);
    }
    // Claude Code's override of its Stop-hook block cap; 0 (or a negative number) means no cap.
    if let Some(cap) = env.text("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP") {
        agent_options.stop_hook_block_cap = match cap.trim().parse::<i64>() {
            Ok(cap) => u32::try_from(cap.max(0)).unwrap_or(u32::MAX),
            Err(_) => agent_tools_loop::DEFAULT_STOP_HOOK_BLOCK_CAP,
        };
    }
    // An empty prompt (the SDKs pass `--system-prompt ""` when none is set) keeps the default:
    // the Messages API refuses an empty system text block.
    agent_options.system_prompt = match &args.system_prompt_file {
        Some(path) => Some(read_text(path, "--system-prompt-file")?),
        None => args.system_prompt.clone(),
    }
    .filter(|prompt| !prompt.trim().is_empty())
    .or_else(|| main_agent.as_ref().map(|agent| agent.system_prompt.clone()));
    agent_options.append_system_prompt = match &args.append_system_prompt_file {
        Some(path) => Some(read_text(path, "--append-system-prompt-file")?),
        None => args.append_system_prompt.clone(),
    };
    agent_options.additional_dirs =
        args.add_dir.iter().map(|dir| dir.canonicalize().unwrap_or_else(|_| dir.clone())).collect();
    agent_options.thinking = match (args.max_thinking_tokens, args.thinking.as_deref()) {
        (_, Some("disabled")) | (Some(0), _) | (None, _) => None,
        (Some(budget), _) => Some(json!({"type": "enabled", "budget_tokens": budget})),
    };
    agent_options.programmatic_tool_calling = env.flag("AGENT_TOOLS_PROGRAMMATIC_TOOL_CALLING");
    // A small local model repeats a call until max_turns unless told it changed nothing.
    agent_options.repeated_call_note = matches!(backend, Backend::OpenAi(_));
    agent_options.persist = !args.no_session_persistence;
    if let Some(resumed) = resumed {
        agent_options.resume = resumed.messages;
        agent_options.transcript_file = resumed.file;
        agent_options.transcript_parent = resumed.parent;
    }
    let agent = match Agent::new(Arc::clone(&session), backend, agent_options) {
        Ok(agent) => {
            let agent = Arc::new(agent);
            let _ = waiting_agent.set(Arc::downgrade(&agent));
            agent
        }
        Err(error) => {
            session.shutdown().await;
            return Err(StartError::Setup(error.into()));
        }
    };
    agent.directories_added(&agent.options().additional_dirs, "add_dir_flag").await;
    Ok(Started { agent, session })
}

/// Prints each hook run as stream-json lines (`system/hook_started`, `system/hook_response`):
/// every hook's with `--include-hook-events`, else those of `SessionStart` and `Setup` only, as
/// Claude Code does.
fn print_hook_notices(session: &Session, all: bool) {
    let session_id = session.id().to_owned();
    let listener = move |notice: &agent_tools_host::hooks::HookNotice| {
        if all || matches!(notice.event(), "SessionStart" | "Setup") {
            super::output::line(&notice.to_json(&session_id));
        }
    };
    session.hooks().set_listener(Some(Arc::new(listener)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_dirs_and_hooks_are_merged_into_the_settings_flag() {
        let dir = std::env::temp_dir().canonicalize().unwrap_or_else(|_| std::env::temp_dir());
        let mut hooks = Map::new();
        hooks.insert("PreToolUse".into(), json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]));
        let merged = merged_settings(
            Some(
                r#"{"permissions": {"allow": ["Read"]}, "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": []}]}}"#,
            ),
            std::slice::from_ref(&dir),
            Some(&hooks),
        );
        let merged: Value = serde_json::from_str(&merged.ok().flatten().unwrap_or_default()).unwrap_or_default();
        assert_eq!(merged["permissions"]["allow"], json!(["Read"]));
        assert_eq!(merged["permissions"]["additionalDirectories"], json!([dir]));
        assert_eq!(merged["hooks"]["PreToolUse"][0]["matcher"], "Write");
        assert_eq!(merged["hooks"]["PreToolUse"][1]["matcher"], "Bash");
        assert_eq!(merged_settings(Some("file.json"), &[], None).ok().flatten().as_deref(), Some("file.json"));
        assert!(merged_settings(Some("[1]"), std::slice::from_ref(&dir), None).is_err());
    }

    #[test]
    fn layered_settings_join_lists_and_replace_values() {
        let base = r#"{"model": "sonnet", "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}}"#;
        let over = json!({"model": "opus", "permissions": {"deny": ["WebFetch", "Bash(rm:*)"]}, "env": {"A": "1"}});
        let layered: Value =
            serde_json::from_str(&layer_settings(Some(base), &over).unwrap_or_default()).unwrap_or_default();
        assert_eq!(
            layered,
            json!({"model": "opus", "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)", "WebFetch"]}, "env": {"A": "1"}})
        );
        assert!(layer_settings(None, &json!([1])).is_err());
        assert!(layer_settings(Some("[1]"), &json!({})).is_err());
    }

    #[test]
    fn setting_sources_and_tools() {
        assert_eq!(settings_files(None), None);
        assert_eq!(settings_files(Some("")), Some(false));
        assert_eq!(settings_files(Some("user,project")), Some(true));
        assert_eq!(claude_folders(None), None);
        assert_eq!(claude_folders(Some("")), Some((false, false)));
        assert_eq!(claude_folders(Some("user")), Some((true, false)));
        assert_eq!(claude_folders(Some("project,local")), Some((false, true)));
        let env = Environment::empty();
        assert!(tools_denied(None, &env).is_empty());
        assert!(tools_denied(Some("default"), &env).is_empty());
        let denied = tools_denied(Some("Bash,Read"), &env);
        assert!(!denied.iter().any(|name| name == "Bash" || name == "Read"), "{denied:?}");
        assert!(denied.iter().any(|name| name == "Grep"), "{denied:?}");
        let none = tools_denied(Some(""), &env);
        assert!(none.iter().any(|name| name == "Bash") && none.iter().any(|name| name == "Read"), "{none:?}");
    }
}
