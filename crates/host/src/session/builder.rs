//! [`SessionBuilder`]: from the working directory, settings sources, rules, trust, MCP configs and
//! an [`Environment`] to a running [`Session`] (its pool, context, executor and MCP connections).

use super::*;

/// Builds a [`Session`]; see the module docs for what each source means.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use agent_tools_host::{Environment, Session};
/// let project = tempfile::tempdir()?;
/// std::fs::write(project.path().join("notes.txt"), "alpha\nbeta\n")?;
/// let session = Session::builder(project.path())
///     .environment(Environment::empty())
///     .settings_json(r#"{"permissions": {"deny": ["Bash(curl:*)"]}}"#)
///     .build()
///     .await?;
/// assert!(session.find_tool("Grep").is_some());
/// session.shutdown().await;
/// # Ok(()) }
/// ```
#[must_use]
pub struct SessionBuilder {
    cwd: PathBuf,
    env: Environment,
    settings_files: bool,
    /// Read the user's (`.0`) and the project's (`.1`) `.claude` folders of skills, commands and
    /// agents.
    claude_dirs: (bool, bool),
    flag_settings: Option<String>,
    mode: Option<PermissionMode>,
    allow: Vec<String>,
    deny: Vec<String>,
    mcp_configs: Vec<String>,
    project_mcp: bool,
    trust: WorkspaceTrust,
    prompter: Option<Arc<dyn PermissionPrompter>>,
    all_schemas_sent: bool,
    notices: Notices,
    config: Option<HostConfig>,
    session_id: Option<String>,
    classifier: Option<Arc<dyn crate::permissions::AutoClassifier>>,
    sampler: Option<Arc<dyn agent_tools_mcp::Sampler>>,
    elicitor: Option<Arc<dyn agent_tools_mcp::Elicitor>>,
    sdk_servers: Option<Arc<dyn agent_tools_mcp::SdkServers>>,
}

impl SessionBuilder {
    pub(super) fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            env: Environment::empty(),
            settings_files: true,
            claude_dirs: (true, true),
            flag_settings: None,
            mode: None,
            allow: Vec::new(),
            deny: Vec::new(),
            mcp_configs: Vec::new(),
            project_mcp: true,
            trust: WorkspaceTrust::default(),
            prompter: None,
            all_schemas_sent: false,
            notices: Arc::new(|notice: &str| tracing::warn!("{notice}")),
            config: None,
            session_id: None,
            classifier: None,
            sampler: None,
            elicitor: None,
            sdk_servers: None,
        }
    }

    /// Carries the messages of `"type": "sdk"` MCP servers to the Agent SDK program that runs
    /// them (the `mcp_message` control request); without it such servers fail to connect.
    pub fn mcp_sdk_servers(mut self, bridge: Arc<dyn agent_tools_mcp::SdkServers>) -> Self {
        self.sdk_servers = Some(bridge);
        self
    }

    /// Answers the MCP servers' `sampling/createMessage` (the agent loop's model); only with one
    /// do the servers see the `sampling` capability. Without one a request is refused.
    pub fn mcp_sampler(mut self, sampler: Arc<dyn agent_tools_mcp::Sampler>) -> Self {
        self.sampler = Some(sampler);
        self
    }

    /// Answers the MCP servers' `elicitation/create` (a front end's user: `serve` passes them on
    /// to its own client); only with one do the servers see the `elicitation` capability.
    pub fn mcp_elicitor(mut self, elicitor: Arc<dyn agent_tools_mcp::Elicitor>) -> Self {
        self.elicitor = Some(elicitor);
        self
    }

    /// The auto mode's safety classifier (`--permission-mode auto`). Without one, auto mode
    /// asks as the default mode does.
    pub fn auto_classifier(mut self, classifier: Arc<dyn crate::permissions::AutoClassifier>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// The session's id (default: a fresh UUID v4). The agent loop passes the id of the session
    /// it resumes, so the session folder (spilled results, task output files) is the same one. An id
    /// that is not a plain name (only ASCII letters, digits, `-` and `_`, at most 64) is replaced
    /// by a fresh one: it names a folder.
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// The environment Claude Code's variables are read from (default: empty — pass
    /// [`Environment::from_process`] in a program). `HOME` finds the user's settings.
    pub fn environment(mut self, env: Environment) -> Self {
        self.env = env;
        self
    }

    /// Which `.claude` folders the session's skills, commands and agents come from: the user's
    /// (`~/.claude/skills` …) and the project's (`.claude/skills` …, only in a trusted folder
    /// whatever this says). Default both; Claude Code reads those of the setting sources named
    /// (`--setting-sources user` reads the user's only, `""` neither).
    pub fn claude_folders(mut self, user: bool, project: bool) -> Self {
        self.claude_dirs = (user, project);
        self
    }

    /// Whether the settings files and the project's `.mcp.json` are read (default yes; `false`
    /// is `--no-settings` or `--setting-sources ""`: only the command-line rules apply). Trust
    /// is about the folder, not about which files were read: an untrusted folder's own skills,
    /// commands and agents stay out either way.
    pub fn settings_files(mut self, read: bool) -> Self {
        self.settings_files = read;
        self
    }

    /// Settings on top of the files, as a path or JSON text (`--settings`).
    pub fn settings_json(mut self, settings: impl Into<String>) -> Self {
        self.flag_settings = Some(settings.into());
        self
    }

    /// The permission mode (default: the settings' `defaultMode`, else `default`).
    pub fn permission_mode(mut self, mode: Option<PermissionMode>) -> Self {
        self.mode = mode;
        self
    }

    /// Allow rules from the command line (`Bash(git status:*)`, `Write`).
    pub fn allow_rules(mut self, rules: impl IntoIterator<Item = String>) -> Self {
        self.allow.extend(rules);
        self
    }

    /// Deny rules from the command line; a rule naming a whole tool removes it from the pool.
    pub fn deny_rules(mut self, rules: impl IntoIterator<Item = String>) -> Self {
        self.deny.extend(rules);
        self
    }

    /// An MCP configuration (`--mcp-config`): a file path, or JSON text, in Claude Code's
    /// `{"mcpServers": {...}}` format. Later servers replace earlier ones of the same name.
    pub fn mcp_config(mut self, config: impl Into<String>) -> Self {
        self.mcp_configs.push(config.into());
        self
    }

    /// Whether the project's `.mcp.json` is read (default yes; `false` is `--strict-mcp-config`).
    pub fn project_mcp_servers(mut self, read: bool) -> Self {
        self.project_mcp = read;
        self
    }

    /// How workspace trust is settled (default [`WorkspaceTrust::Recorded`]).
    pub fn workspace_trust(mut self, trust: WorkspaceTrust) -> Self {
        self.trust = trust;
        self
    }

    /// Who answers permission questions (default: nobody — asks are refused).
    pub fn prompter(mut self, prompter: Arc<dyn PermissionPrompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    /// Says that whoever makes the calls was given every tool's full schema (an MCP client's
    /// `tools/list`), so a deferred tool's input error carries no "load it with ToolSearch
    /// first" hint ([`Executor::with_all_schemas_sent`]). Off by default (the agent loop sends
    /// deferred tools without their schemas).
    pub fn all_schemas_sent(mut self, sent: bool) -> Self {
        self.all_schemas_sent = sent;
        self
    }

    /// Where notices go (default: `tracing` warnings).
    pub fn notices(mut self, notices: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.notices = Arc::new(notices);
        self
    }

    /// The pool's switches, instead of those the environment gives ([`Environment::host_config`]).
    /// The skill folders are still filled in by the session.
    pub fn host_config(mut self, config: HostConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// Builds the session: reads the settings, settles trust, connects the MCP servers (each
    /// that fails is a notice, never an error), assembles the pool, and starts removing old
    /// session folders in the background.
    ///
    /// # Errors
    /// [`SessionError`]: the working directory is not a folder, a settings file or `--mcp-config`
    /// cannot be used.
    pub async fn build(self) -> Result<Session, SessionError> {
        let cwd = self.cwd.canonicalize().map_err(|_| SessionError::NotADirectory(self.cwd.clone()))?;
        if !cwd.is_dir() {
            return Err(SessionError::NotADirectory(self.cwd));
        }
        let notice = |text: &str| (self.notices)(text);
        let home = self.env.home();
        let sources = SettingsSources {
            home: if self.settings_files { home.clone() } else { None },
            project: if self.settings_files { Some(cwd.clone()) } else { None },
            flag: self.flag_settings.clone(),
        };
        let mut settings = LoadedSettings::load(&sources)?;
        let mut project_servers = self.project_servers(&cwd, &notice);
        let trusted = self.settle_trust(&cwd, &mut settings, &mut project_servers, &notice);
        let project_servers = approved_servers(project_servers, &settings, &cwd, &self.env, &notice);
        let mut permissions = settings.permission_context(self.mode, &self.allow, &self.deny, &sources)?;
        // Rules are anchored where the session starts, for good: a `cd` never moves them.
        permissions.project_dir = Some(cwd.clone());
        permissions.launch_dir = Some(cwd.clone());

        let config_dir = self.env.claude_config_dir();
        let mut config = self.config.clone().unwrap_or_else(|| self.env.host_config());
        self.tool_folders(&mut config, config_dir.as_deref(), &cwd, trusted, &sources);
        if let Some(schema) = &config.structured_output {
            crate::pool::structured_output_tool(schema.clone()).map_err(SessionError::OutputSchema)?;
        }

        #[cfg(feature = "lsp")]
        let lsp = crate::lsp::session_servers(&mut config, &settings, trusted, &cwd, &self.env, &notice);
        let servers = self.mcp_servers(&cwd, project_servers, &notice)?;
        let hooks = Hooks::from_settings(&settings);
        // The session's context, for the elicitation hooks' common fields once it exists.
        let hook_ctx = Arc::new(std::sync::OnceLock::new());
        let mut mcp_options = self.env.mcp_options(&cwd);
        mcp_options.sampler.clone_from(&self.sampler);
        mcp_options.elicitor.clone_from(&self.elicitor);
        if !hooks.event("Elicitation").is_empty() || !hooks.event("ElicitationResult").is_empty() {
            mcp_options.elicitor = Some(Arc::new(crate::elicitation::HookedElicitor {
                inner: self.elicitor.clone(),
                hooks: hooks.clone(),
                ctx: Arc::clone(&hook_ctx),
                cwd: cwd.clone(),
            }));
        }
        mcp_options.sdk.clone_from(&self.sdk_servers);
        let mcp = Arc::new(connect_mcp(&servers, &mcp_options, &notice).await);
        // Watched from before the pool is assembled, so no change is missed in between.
        let mcp_changes = std::sync::Mutex::new(mcp.changes());
        let pool: Arc<[Arc<dyn Tool>]> = assemble_tool_pool(&permissions, mcp.tools(), &config).into();
        // A coordinator only dispatches: its workers take their tools from the whole pool.
        let worker_tools: Option<Arc<[Arc<dyn Tool>]>> = (config.coordinator && config.subagents).then(|| {
            let whole = HostConfig { coordinator: false, ..config.clone() };
            assemble_tool_pool(&permissions, mcp.tools(), &whole).into()
        });

        let id = self.session_id.clone().filter(|id| is_plain_id(id)).unwrap_or_else(new_session_id);
        let folder = self.env.sessions_dir().join(&id);
        remove_old_sessions_in_background(&folder, settings.cleanup_period_days());
        let mut ctx = ToolUseContext::new(cwd);
        ctx.home_dir = home;
        ctx.permission_context = Arc::new(permissions);
        ctx.options.tools = Arc::clone(&pool);
        ctx.options.worker_tools = worker_tools;
        ctx.options.session_dir = Some(folder);
        ctx.options.tasks_dir = config_dir.as_ref().map(|dir| dir.join("tasks"));
        ctx.options.plans_dir = plans_dir(settings.plans_directory(), &ctx.original_cwd, config_dir.as_ref());
        ctx.options.task_list_id = self.env.task_list_id();
        ctx.options.sandbox = settings.sandbox();
        ctx.options.session_id = id;
        ctx.options.workspace_trusted = trusted;
        #[cfg(feature = "lsp")]
        let diagnostics = lsp.is_some();
        #[cfg(feature = "lsp")]
        if let Some(manager) = lsp {
            agent_tools_lsp::install(&ctx, manager);
        }
        #[cfg(any(feature = "cron-create", feature = "cron-delete", feature = "cron-list"))]
        if pool.iter().any(|tool| tool.name().starts_with("Cron")) {
            crate::cron::install(&ctx, config_dir.as_deref());
        }
        if !hooks.is_empty() {
            ctx.hooks = Some(Arc::new(hooks.clone()));
        }
        let _ = hook_ctx.set(ctx.clone());
        let model = settings.model().map(str::to_owned);
        let settings_env = settings.env();
        // REPL mode: the primitives the model no longer sees, for the REPL's scripts.
        let hidden = crate::pool::repl_hidden_tools(&ctx.permission_context, &config);
        let mut executor = Executor::new(Arc::clone(&pool))
            .with_hooks(hooks)
            .with_hidden_tools(hidden)
            .with_all_schemas_sent(self.all_schemas_sent);
        if let Some(prompter) = self.prompter {
            executor = executor.with_prompter(prompter);
        }
        if let Some(classifier) = self.classifier {
            executor = executor.with_classifier(classifier);
        }
        #[cfg(feature = "lsp")]
        if diagnostics {
            executor = executor.with_observer(Arc::new(crate::lsp::Diagnostics));
        }
        let root = ctx.clone();
        let recipe = PoolRecipe { permissions: (*ctx.permission_context).clone(), config };
        Ok(Session {
            hooks: executor.hooks().clone(),
            live: std::sync::RwLock::new(LivePool { pool, executor }),
            recipe: Some(recipe),
            mcp_changes,
            ctx: RwLock::new(ctx),
            root,
            mcp,
            trusted,
            model,
            settings_env,
            env: self.env,
            shut_down: AtomicBool::new(false),
            forked: false,
            cancel: std::sync::Mutex::new(CancellationToken::new()),
        })
    }

    /// The servers of the project's `.mcp.json`, unless settings or project servers are off, or
    /// this program was itself started as an MCP server by agent-tools (a project whose
    /// `.mcp.json` names `agent-tools serve` would otherwise start itself without end). A broken
    /// `.mcp.json` is a notice and its servers are skipped.
    fn project_servers(&self, cwd: &Path, notice: &dyn Fn(&str)) -> Vec<NamedServer> {
        let file = cwd.join(".mcp.json");
        if self.env.mcp_depth() > 0 || !self.settings_files || !self.project_mcp || !file.is_file() {
            return Vec::new();
        }
        mcp_config::load_config_file(&file).unwrap_or_else(|error| {
            notice(&format!("{error} (its servers are skipped)"));
            Vec::new()
        })
    }

    /// The MCP servers to start: the project's approved ones, then each `--mcp-config`, later
    /// names replacing earlier ones; each started with [`MCP_DEPTH_VAR`] one more than ours.
    /// Past [`MAX_MCP_DEPTH`] none is started.
    fn mcp_servers(
        &self,
        cwd: &Path,
        project: Vec<NamedServer>,
        notice: &dyn Fn(&str),
    ) -> Result<Vec<NamedServer>, SessionError> {
        let depth = self.env.mcp_depth();
        if depth >= MAX_MCP_DEPTH {
            if !self.mcp_configs.is_empty() {
                notice(&format!("MCP servers are not started {depth} levels deep ({MCP_DEPTH_VAR}); skipping them"));
            }
            return Ok(Vec::new());
        }
        let mut sources = vec![project];
        for config in &self.mcp_configs {
            sources.push(mcp_config::load_config_arg(config, cwd)?);
        }
        let mut servers = mcp_config::merge(sources);
        // `${VAR}` and `${VAR:-default}` in commands, arguments, env, urls and headers, as
        // Claude Code expands them; an unset one without a default stays as written, and is said.
        for missing in mcp_config::expand_env(&mut servers, &|name| self.env.text(name)) {
            notice(&format!(
                "MCP server \"{}\": missing environment variables: {}",
                missing.server,
                missing.names.join(", ")
            ));
        }
        for server in &mut servers {
            if let ServerConfig::Stdio { env, .. } = &mut server.config {
                env.insert(MCP_DEPTH_VAR.to_owned(), (depth + 1).to_string());
            }
        }
        Ok(servers)
    }

    /// Settles workspace trust for `cwd` and leaves out of `settings` and `project_servers` what
    /// an untrusted folder does not get. Returns whether the folder is trusted.
    fn settle_trust(
        &self,
        cwd: &Path,
        settings: &mut LoadedSettings,
        project_servers: &mut Vec<NamedServer>,
        notice: &dyn Fn(&str),
    ) -> bool {
        // Not reading the settings files does not make the folder trusted: its `.claude/`
        // still holds agents, skills and commands, and its memory files imports.
        if matches!(self.trust, WorkspaceTrust::Trusted) {
            return true;
        }
        let sources = trust::trust_sources(&self.env);
        if agent_tools_settings::trust::trusted_by(cwd, &sources).is_some() {
            return true;
        }
        let mut restricted = settings.clone();
        let gated = Gated {
            withheld: restricted.restrict_untrusted(),
            servers: project_servers.iter().map(|server| server.name.clone()).collect(),
            skills: trust::has_project_skills(cwd),
            language_servers: cfg!(feature = "lsp")
                && (self.config.as_ref().map_or_else(|| self.env.flag("ENABLE_LSP_TOOL"), |config| config.lsp)
                    || restricted.lsp_enabled() == Some(true)),
            settings_unread: !self.settings_files,
        };
        if gated.is_empty() {
            return false;
        }
        if let WorkspaceTrust::Ask(ask) = &self.trust
            && ask(cwd, &gated)
        {
            if let Err(why) = trust::remember(cwd, &sources) {
                notice(&why);
            }
            return true;
        }
        notice(&gated.untrusted_message(cwd));
        *settings = restricted;
        project_servers.clear();
        false
    }

    /// The options of the tools that read the session's folders: Skill's skills and commands
    /// folders and the Agent tool's agents folders (an untrusted project's are left out: a
    /// skill's `allowed-tools` become allow rules, and a custom agent could widen its tools or
    /// mode), TeamCreate's teams folder (`<config dir>/teams`, Claude Code's, unless the caller
    /// chose one) and Config's settings files (the ones the settings came from; none with
    /// settings off, and the caller's when it set them).
    #[allow(unused_variables)] // With none of these tools compiled in, nothing is set.
    fn tool_folders(
        &self,
        config: &mut HostConfig,
        config_dir: Option<&Path>,
        cwd: &Path,
        trusted: bool,
        sources: &SettingsSources,
    ) {
        let tools = &mut config.tools;
        // The setting sources decide which folders count (the project's needs trust too).
        let (user, project) = self.claude_dirs;
        let folders_dir = config_dir.filter(|_| user);
        let trusted_project = trusted && project;
        #[cfg(feature = "skill")]
        tools.update::<agent_tool_skill::SkillConfig>(|skill| {
            // Personal skills first: Claude Code's documentation ranks them above the project's.
            skill.dirs = claude_folders(folders_dir, cwd, "skills", trusted_project);
            skill.command_dirs = claude_folders(folders_dir, cwd, "commands", trusted_project);
        });
        #[cfg(feature = "agent")]
        tools.update::<agent_tool_agent::AgentFolders>(|agents| {
            agents.folders = claude_folders(folders_dir, cwd, "agents", trusted_project);
        });
        #[cfg(feature = "team-create")]
        tools.update::<agent_tool_team_create::TeamConfig>(|team| {
            if team.teams_dir.is_none() {
                team.teams_dir = config_dir.map(|dir| dir.join("teams"));
            }
        });
        #[cfg(feature = "config")]
        if tools.get::<agent_tool_config::ConfigToolConfig>().is_none() && self.settings_files {
            tools.insert(agent_tool_config::ConfigToolConfig {
                user_settings: sources.home.as_ref().map(|home| home.join(".claude/settings.json")),
                project_settings: Some(cwd.join(".claude/settings.json")),
                local_settings: Some(cwd.join(".claude/settings.local.json")),
                flag_settings: self.flag_settings.clone(),
            });
        }
    }
}

/// Leaves out the project servers its settings (and Claude Code's answers in `~/.claude.json`)
/// do not approve, with a notice for each.
fn approved_servers(
    servers: Vec<NamedServer>,
    settings: &LoadedSettings,
    cwd: &Path,
    env: &Environment,
    notice: &dyn Fn(&str),
) -> Vec<NamedServer> {
    if servers.is_empty() {
        return servers;
    }
    let mut approval = settings.mcpjson_approval();
    if let Some(claude_json) = trust::trust_sources(env).claude_json {
        let (enabled, disabled) = agent_tools_settings::trust::claude_code_mcpjson_choices(&claude_json, cwd);
        approval.enabled.extend(enabled);
        approval.disabled.extend(disabled);
    }
    servers
        .into_iter()
        .filter(|server| match approval.check(&server.name) {
            Ok(()) => true,
            Err(why) => {
                notice(&format!("MCP server \"{}\" of .mcp.json skipped: {why}", server.name));
                false
            }
        })
        .collect()
}

/// Connects to the servers; with none, no MCP work happens at all. A server that cannot be used
/// is a notice and is left out.
async fn connect_mcp(
    servers: &[NamedServer],
    options: &agent_tools_mcp::McpOptions,
    notice: &dyn Fn(&str),
) -> McpSession {
    if servers.is_empty() {
        return McpSession::empty();
    }
    let session = agent_tools_mcp::connect_all(servers, options).await;
    let tools = session.tools();
    for failure in session.failures() {
        // A server that needs OAuth has its McpAuth tool instead of its tools.
        let sign_in = tools.iter().find(|tool| {
            tool.mcp_info().is_some_and(|info| info.server_name == failure.name && info.tool_name == "authenticate")
        });
        if let (true, Some(sign_in)) = (failure.needs_auth(), sign_in) {
            notice(&format!(
                "MCP server \"{}\" needs authentication: its {} tool signs in",
                failure.name,
                sign_in.name()
            ));
        } else {
            notice(&format!("MCP server \"{}\" skipped: {}", failure.name, failure.message));
        }
    }
    session
}

/// Claude folders of one kind (`skills`, `commands` or `agents`), the user's first:
/// `<config dir>/<kind>`, then — in a trusted folder — `<project>/.claude/<kind>`.
#[cfg(any(feature = "skill", feature = "agent"))]
fn claude_folders(config_dir: Option<&Path>, project: &Path, kind: &str, trusted: bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = config_dir.map(|dir| dir.join(kind)).into_iter().collect();
    if trusted {
        dirs.push(project.join(".claude").join(kind));
    }
    dirs
}

/// Where plan files go (Claude Code's `getPlansDirectory`): the `plansDirectory` setting resolved
/// against the project root when it stays inside the project, else `<config dir>/plans`. A
/// setting that leaves the project is ignored with a warning.
pub(super) fn plans_dir(setting: Option<&str>, project: &Path, config_dir: Option<&PathBuf>) -> Option<PathBuf> {
    if let Some(setting) = setting {
        let resolved = agent_tools_core::path::normalize(&project.join(setting));
        if resolved.starts_with(project) {
            return Some(resolved);
        }
        tracing::warn!("plansDirectory {setting:?} is outside the project; using the default plans folder");
    }
    config_dir.map(|dir| dir.join("plans"))
}

/// Removes old sessions' folders beside `folder` on a thread of its own: never in the way of
/// this session.
fn remove_old_sessions_in_background(folder: &Path, period_days: Option<u64>) {
    let Some(sessions) = folder.parent().map(Path::to_path_buf) else { return };
    let period = period_days.unwrap_or(DEFAULT_CLEANUP_PERIOD_DAYS);
    let keep = folder.to_path_buf();
    std::thread::spawn(move || {
        let removed = cleanup::remove_old_sessions(&sessions, &keep, period, std::time::SystemTime::now());
        if removed > 0 {
            tracing::debug!(removed, period_days = period, "removed old session folders");
        }
    });
}
