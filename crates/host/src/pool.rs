//! The tool pool: which tools exist, which the session may use, and the order the model sees.
//!
//! Mirrors Claude Code's `src/tools.ts`: [`get_all_base_tools`] lists every compiled-in tool in a
//! fixed order, [`get_tools`] applies simple mode, whole-tool deny rules and `is_enabled`, and
//! [`assemble_tool_pool`] sorts built-ins by name, then MCP tools by name, built-ins first (so the
//! prompt-cache prefix stays stable), keeping the first tool of any duplicate name.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::Tool;
use agent_tools_core::permissions::{PermissionBehavior, ToolPermissionContext};

pub use crate::tool_search::ToolSearchMode;

/// Runtime switches for the pool (what Claude Code reads from its environment; the CLI fills this
/// in, library code never reads the environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostConfig {
    /// Simple mode (`--bare`, Claude Code's `CLAUDE_CODE_SIMPLE`): only Bash, Read and Edit.
    pub simple: bool,
    /// Glob skips files excluded by ignore files (default). Set to `true` for Claude Code's own
    /// behaviour (it passes `--no-ignore` to its Glob).
    pub glob_no_ignore: bool,
    /// No background tasks (Claude Code's `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`): Bash and
    /// PowerShell have no `run_in_background` field. TaskOutput and TaskStop stay (they find no
    /// task to act on).
    pub disable_background_tasks: bool,
    /// The `pwsh` program, when PowerShell 7 is installed ([`find_pwsh`] looks it up on a search
    /// path): the PowerShell tool is in the pool only then.
    pub pwsh: Option<PathBuf>,
    /// Task list V2 (Claude Code's `isTodoV2Enabled()`: env `CLAUDE_CODE_ENABLE_TASKS` truthy,
    /// or an interactive session): TaskCreate, TaskGet, TaskUpdate and TaskList are in the pool
    /// and TodoWrite is not. Off (the default): TodoWrite and no Task* tools, as in Claude Code's
    /// non-interactive sessions. The Task* tools find their folder and list id in the context
    /// (`ToolUseOptions::tasks_dir`, `ToolUseOptions::task_list_id`).
    pub todo_v2: bool,
    /// The small, fast model WebFetch asks about a fetched page (Claude Code asks Haiku);
    /// `None`: WebFetch returns the page content itself. WebSearch runs its searches through
    /// the same Messages API and model, and is in the pool only when this has an API key.
    pub small_model: Option<SmallModelConfig>,
    /// Tool search (Claude Code's `ENABLE_TOOL_SEARCH`): on by default, which puts ToolSearch in
    /// the pool; [`ToolSearchMode::Off`] leaves it out (and then nothing is deferred).
    pub tool_search: ToolSearchMode,
    /// The folders Skill finds skills in (each holding `<name>/SKILL.md`), highest priority
    /// first: the CLI passes `~/.claude/skills`, then `<project>/.claude/skills`. Empty: Skill
    /// is in the pool but knows no skill.
    pub skill_dirs: Vec<PathBuf>,
    /// Legacy command folders (`<name>.md` files) Skill also offers, after every skills folder:
    /// the CLI passes `~/.claude/commands`, then `<project>/.claude/commands`.
    pub command_dirs: Vec<PathBuf>,
    /// Offer the Agent tool: sub-agents need the agent loop, which sets this (an MCP server or
    /// `call` has no model to run them on, so they leave it off).
    pub subagents: bool,
    /// The folders custom agents (`<name>.md` with frontmatter) are read from, lowest priority
    /// first: the CLI passes `~/.claude/agents`, then `<project>/.claude/agents` (a trusted
    /// project's only). A later folder's agent replaces an earlier one of the same name, and any
    /// replaces a built-in one.
    pub agent_dirs: Vec<PathBuf>,
    /// The JSON Schema of a structured final answer (`--json-schema`): the pool gets the
    /// `StructuredOutput` tool built with it.
    pub structured_output: Option<serde_json::Value>,
    /// Coordinator mode (`CLAUDE_CODE_COORDINATOR_MODE`, with [`HostConfig::subagents`]): the
    /// conversation only dispatches — its pool is Claude Code's coordinator set (`Agent`,
    /// `TaskStop`, `SendMessage`, `StructuredOutput`) — and every agent it starts works in the
    /// background.
    pub coordinator: bool,
    /// Where TeamCreate keeps teams: the session passes `<config dir>/teams` (Claude Code's
    /// `~/.claude/teams`). `None`: TeamCreate is disabled.
    pub teams_dir: Option<PathBuf>,
    /// How TeamCreate starts teammates (Claude Code's `teammateMode`; the CLI reads
    /// `CLAUDE_CODE_TEAMMATE_MODE`): `tmux` for tmux panes (when [`HostConfig::tmux`] and
    /// [`HostConfig::teammate_program`] are known), anything else in-process.
    pub teammate_mode: Option<String>,
    /// The `agent-tools` program a tmux teammate runs (`<it> agent --teammate TEAM/NAME`): the
    /// CLI passes its own executable.
    pub teammate_program: Option<PathBuf>,
    /// The LSP tool (Claude Code's `ENABLE_LSP_TOOL`, or the `lsp.enabled` setting): in the
    /// pool when this is set and the session has a language server for some file type (the
    /// session clears it otherwise, and in a folder it does not trust).
    pub lsp: bool,
    /// The REPL tool (scripts that call the pool's tools): in the pool when set, deferred
    /// unless [`Self::repl_mode`]. [`Environment::host_config`](crate::Environment::host_config)
    /// sets it unless `CLAUDE_CODE_REPL` is falsy (`0`, `false`, `no`, `off`).
    pub repl: bool,
    /// REPL mode (Claude Code's `CLAUDE_REPL_MODE`): the REPL is the model's main tool and the
    /// primitives it wraps ([`REPL_ONLY_TOOLS`]: Read, Write, Edit, MultiEdit, Glob, Grep,
    /// Bash, NotebookEdit, Agent) leave the model's list; scripts still call them
    /// ([`repl_hidden_tools`]). Needs [`Self::repl`].
    pub repl_mode: bool,
    /// The `tmux` program, when it is installed ([`Environment::host_config`](crate::Environment::host_config)
    /// looks it up on `PATH`).
    pub tmux: Option<PathBuf>,
    /// No scheduled prompts (Claude Code's `CLAUDE_CODE_DISABLE_CRON`): CronCreate, CronDelete
    /// and CronList leave the pool.
    pub disable_cron: bool,
    /// Brief mode (Claude Code's `--brief`, `CLAUDE_CODE_BRIEF`): SendUserMessage (alias
    /// `Brief`) is in the pool, never deferred, and the user reads what it sends.
    pub brief: bool,
    /// The settings files the Config tool reads and writes; the session fills them in from its
    /// settings sources. `None` (or no user and local file): Config is not in the pool.
    pub config_files: Option<ConfigFiles>,
    /// The triggers API RemoteTrigger calls; `None`: RemoteTrigger is not in the pool.
    pub remote_trigger: Option<RemoteTriggerEndpoint>,
}

/// The settings files of a session, for the Config tool (Claude Code's user, project and local
/// settings, and `--settings`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigFiles {
    /// `~/.claude/settings.json` (written for user settings such as `model`).
    pub user: Option<PathBuf>,
    /// `<project>/.claude/settings.json` (read only: it is shared with the team).
    pub project: Option<PathBuf>,
    /// `<project>/.claude/settings.local.json` (written for project settings such as `sandbox.enabled`).
    pub local: Option<PathBuf>,
    /// `--settings` (a file or JSON text): read only, wins over the others.
    pub flag: Option<String>,
}

/// Where RemoteTrigger sends its requests: an `https://` base URL (`http://` for loopback
/// hosts only) and the bearer token. `Debug` never prints the token.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RemoteTriggerEndpoint {
    /// The API's base URL (`{base}/v1/code/triggers…`).
    pub base_url: String,
    /// The bearer token.
    pub token: String,
}

impl std::fmt::Debug for RemoteTriggerEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTriggerEndpoint")
            .field("base_url", &self.base_url)
            .field("token", &agent_tools_core::secret::Redacted(&self.token))
            .finish()
    }
}

/// Where WebFetch's secondary model is reached: the Anthropic Messages API with this key (the CLI
/// fills it from `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` and `ANTHROPIC_SMALL_FAST_MODEL`).
/// `Debug` never prints the key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SmallModelConfig {
    /// The API key, sent as `x-api-key`.
    pub api_key: String,
    /// The API's base address (default `https://api.anthropic.com`).
    pub base_url: Option<String>,
    /// The model (default `claude-haiku-4-5`).
    pub model: Option<String>,
}

impl std::fmt::Debug for SmallModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmallModelConfig")
            .field("api_key", &agent_tools_core::secret::Redacted(&self.api_key))
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish()
    }
}

/// The `pwsh` program in `search_path` (a `PATH`-style list), for [`HostConfig::pwsh`]; `None`
/// when there is none or the `powershell` feature is off. The caller passes the search path (the
/// CLI passes its `PATH`): library code never reads the environment.
pub fn find_pwsh(search_path: Option<&OsStr>) -> Option<PathBuf> {
    #[cfg(feature = "powershell")]
    return agent_tool_powershell::find_pwsh(search_path);
    #[cfg(not(feature = "powershell"))]
    {
        let _ = search_path;
        None
    }
}

/// Tools that are added to a session elsewhere, never through [`get_tools`] (Claude Code's
/// "special" tools).
pub const SPECIAL_TOOLS: &[&str] = &["ListMcpResourcesTool", "ReadMcpResourceTool", "StructuredOutput"];

/// The API names of the built-in tools compiled into this build, in [`get_all_base_tools`]'s
/// order. That no two are the same is checked when this crate compiles (as zed checks its tool
/// names), so a new tool crate cannot shadow another's name.
pub const BUILT_IN_TOOL_NAMES: &[&str] = &[
    #[cfg(feature = "agent")]
    agent_tool_agent::NAME,
    #[cfg(feature = "task-output")]
    agent_tool_task_output::NAME,
    #[cfg(feature = "bash")]
    agent_tool_bash::NAME,
    #[cfg(feature = "glob")]
    agent_tool_glob::NAME,
    #[cfg(feature = "grep")]
    agent_tool_grep::NAME,
    #[cfg(feature = "exit-plan-mode")]
    agent_tool_exit_plan_mode::NAME,
    #[cfg(feature = "file-read")]
    agent_tool_file_read::NAME,
    #[cfg(feature = "file-edit")]
    agent_tool_file_edit::NAME,
    #[cfg(feature = "multi-edit")]
    agent_tool_multi_edit::NAME,
    #[cfg(feature = "file-write")]
    agent_tool_file_write::NAME,
    #[cfg(feature = "notebook-edit")]
    agent_tool_notebook_edit::NAME,
    #[cfg(feature = "web-fetch")]
    agent_tool_web_fetch::NAME,
    #[cfg(feature = "todo-write")]
    agent_tool_todo_write::NAME,
    #[cfg(feature = "web-search")]
    agent_tool_web_search::NAME,
    #[cfg(feature = "task-stop")]
    agent_tool_task_stop::NAME,
    #[cfg(feature = "ask-user-question")]
    agent_tool_ask_user_question::NAME,
    #[cfg(feature = "skill")]
    agent_tool_skill::NAME,
    #[cfg(feature = "enter-plan-mode")]
    agent_tool_enter_plan_mode::NAME,
    #[cfg(feature = "config")]
    agent_tool_config::NAME,
    #[cfg(feature = "task-create")]
    agent_tool_task_create::NAME,
    #[cfg(feature = "task-get")]
    agent_tool_task_get::NAME,
    #[cfg(feature = "task-update")]
    agent_tool_task_update::NAME,
    #[cfg(feature = "task-list")]
    agent_tool_task_list::NAME,
    #[cfg(feature = "lsp")]
    agent_tool_lsp::NAME,
    #[cfg(feature = "enter-worktree")]
    agent_tool_enter_worktree::NAME,
    #[cfg(feature = "exit-worktree")]
    agent_tool_exit_worktree::NAME,
    #[cfg(feature = "send-message")]
    agent_tool_send_message::NAME,
    #[cfg(feature = "list-agents")]
    agent_tool_list_agents::NAME,
    #[cfg(feature = "team-create")]
    agent_tool_team_create::NAME,
    #[cfg(feature = "team-delete")]
    agent_tool_team_delete::NAME,
    #[cfg(feature = "repl")]
    agent_tool_repl::NAME,
    #[cfg(feature = "sleep")]
    agent_tool_sleep::NAME,
    #[cfg(feature = "cron-create")]
    agent_tool_cron_create::NAME,
    #[cfg(feature = "cron-delete")]
    agent_tool_cron_delete::NAME,
    #[cfg(feature = "cron-list")]
    agent_tool_cron_list::NAME,
    #[cfg(feature = "remote-trigger")]
    agent_tool_remote_trigger::NAME,
    #[cfg(feature = "monitor")]
    agent_tool_monitor::NAME,
    #[cfg(feature = "send-user-message")]
    agent_tool_send_user_message::NAME,
    #[cfg(feature = "powershell")]
    agent_tool_powershell::NAME,
    #[cfg(feature = "tool-search")]
    agent_tool_tool_search::NAME,
];

const _: () =
    assert!(agent_tools_core::names_are_distinct(BUILT_IN_TOOL_NAMES), "two built-in tools share an API name");

/// The tools simple mode keeps.
pub const SIMPLE_MODE_TOOLS: &[&str] = &["Bash", "Read", "Edit"];

/// Every tool compiled into this build, in Claude Code's `getAllBaseTools` order.
///
/// A tool whose Cargo feature is off is absent. The order (not the names) is what keeps prompt
/// caches stable, so new tools are added where Claude Code lists them: Agent, TaskOutput, Bash,
/// Glob, Grep, ExitPlanMode, Read, Edit, MultiEdit (where Claude Code 1.x had it; deferred, as
/// 2.1.332 has none), Write, NotebookEdit, WebFetch, TodoWrite, WebSearch
/// (only when [`HostConfig::small_model`] has an API key), TaskStop, AskUserQuestion, Skill, EnterPlanMode, then the conditional tools: TaskCreate,
/// TaskGet, TaskUpdate, TaskList (only with [`HostConfig::todo_v2`], which also removes
/// TodoWrite), LSP (only with [`HostConfig::lsp`]), EnterWorktree and ExitWorktree, late PowerShell (only when
/// [`HostConfig::pwsh`] names a program), and last ToolSearch (unless
/// [`HostConfig::tool_search`] is off).
// One `push` per feature-gated tool reads better than a `vec!` full of `cfg`s.
// With no tool feature on, nothing is pushed and `config` is unused.
#[allow(clippy::vec_init_then_push, unused_mut, unused_variables)]
pub fn get_all_base_tools(config: &HostConfig) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    // Claude Code's list starts with AgentTool.
    #[cfg(feature = "agent")]
    if config.subagents {
        tools.push(agent_tool(config));
    }
    #[cfg(feature = "task-output")]
    tools.push(agent_tool_task_output::tool());
    #[cfg(feature = "bash")]
    tools.push(agent_tool_bash::tool_with(agent_tool_bash::BashConfig {
        background_tasks: !config.disable_background_tasks,
        ..agent_tool_bash::BashConfig::default()
    }));
    #[cfg(feature = "glob")]
    tools.push(agent_tool_glob::tool_with(agent_tool_glob::GlobConfig {
        walk: agent_tool_glob::WalkConfig { respect_ignore_files: !config.glob_no_ignore, ..Default::default() },
    }));
    #[cfg(feature = "grep")]
    tools.push(agent_tool_grep::tool());
    #[cfg(feature = "exit-plan-mode")]
    tools.push(agent_tool_exit_plan_mode::tool());
    #[cfg(feature = "file-read")]
    tools.push(agent_tool_file_read::tool());
    #[cfg(feature = "file-edit")]
    tools.push(agent_tool_file_edit::tool());
    // Claude Code's old MultiEdit sat after Edit; 2.1.332 has none, so ours is deferred.
    #[cfg(feature = "multi-edit")]
    tools.push(agent_tool_multi_edit::tool());
    #[cfg(feature = "file-write")]
    tools.push(agent_tool_file_write::tool());
    #[cfg(feature = "notebook-edit")]
    tools.push(agent_tool_notebook_edit::tool());
    #[cfg(feature = "web-fetch")]
    tools.push(web_fetch(config));
    #[cfg(feature = "todo-write")]
    if !config.todo_v2 {
        tools.push(agent_tool_todo_write::tool());
    }
    // Claude Code's WebSearch sits here; it needs an API key, so it is left out without one.
    #[cfg(feature = "web-search")]
    if let Some(search) = web_search(config) {
        tools.push(search);
    }
    #[cfg(feature = "task-stop")]
    tools.push(agent_tool_task_stop::tool());
    #[cfg(feature = "ask-user-question")]
    tools.push(agent_tool_ask_user_question::tool());
    #[cfg(feature = "skill")]
    tools.push(agent_tool_skill::tool_with(agent_tool_skill::SkillConfig {
        command_dirs: config.command_dirs.clone(),
        ..agent_tool_skill::SkillConfig::new(config.skill_dirs.clone())
    }));
    #[cfg(feature = "enter-plan-mode")]
    tools.push(agent_tool_enter_plan_mode::tool());
    // Where Claude Code lists Config (its internal builds have it; ours always, deferred).
    #[cfg(feature = "config")]
    if let Some(files) = &config.config_files {
        let tool = agent_tool_config::tool_with(agent_tool_config::ConfigToolConfig {
            user_settings: files.user.clone(),
            project_settings: files.project.clone(),
            local_settings: files.local.clone(),
            flag_settings: files.flag.clone(),
        });
        if tool.is_enabled() {
            tools.push(tool);
        }
    }
    // Claude Code's `isTodoV2Enabled()` block, in its order.
    #[cfg(feature = "task-create")]
    if config.todo_v2 {
        tools.push(agent_tool_task_create::tool());
    }
    #[cfg(feature = "task-get")]
    if config.todo_v2 {
        tools.push(agent_tool_task_get::tool());
    }
    #[cfg(feature = "task-update")]
    if config.todo_v2 {
        tools.push(agent_tool_task_update::tool());
    }
    #[cfg(feature = "task-list")]
    if config.todo_v2 {
        tools.push(agent_tool_task_list::tool());
    }
    // Claude Code's LSP sits after the task tools, when its switch is on.
    #[cfg(feature = "lsp")]
    if config.lsp {
        tools.push(agent_tool_lsp::tool());
    }
    // Claude Code lists these in its conditional part (worktree mode, always on), after
    // EnterPlanMode and LSP, before SendMessage and PowerShell.
    #[cfg(feature = "enter-worktree")]
    tools.push(agent_tool_enter_worktree::tool());
    #[cfg(feature = "exit-worktree")]
    tools.push(agent_tool_exit_worktree::tool());
    // The agents' messaging tools, where Claude Code lists SendMessage: only with sub-agents.
    #[cfg(feature = "send-message")]
    if config.subagents {
        tools.push(agent_tool_send_message::tool());
    }
    #[cfg(feature = "list-agents")]
    if config.subagents {
        tools.push(agent_tool_list_agents::tool());
    }
    // Teams (Claude Code's agent swarms): only where sub-agents run.
    #[cfg(feature = "team-create")]
    if config.subagents {
        tools.push(team_create_tool(config));
    }
    #[cfg(feature = "team-delete")]
    if config.subagents {
        tools.push(agent_tool_team_delete::tool());
    }
    // Where Claude Code lists REPL: after the team tools, before the late ones.
    #[cfg(feature = "repl")]
    if config.repl {
        tools.push(if config.repl_mode { agent_tool_repl::tool() } else { agent_tool_repl::deferred_tool() });
    }
    // Claude Code's late block, in its order: Sleep, the cron tools, RemoteTrigger, Monitor,
    // SendUserMessage.
    #[cfg(feature = "sleep")]
    tools.push(agent_tool_sleep::tool());
    #[cfg(feature = "cron-create")]
    if !config.disable_cron {
        tools.push(agent_tool_cron_create::tool());
    }
    #[cfg(feature = "cron-delete")]
    if !config.disable_cron {
        tools.push(agent_tool_cron_delete::tool());
    }
    #[cfg(feature = "cron-list")]
    if !config.disable_cron {
        tools.push(agent_tool_cron_list::tool());
    }
    #[cfg(feature = "remote-trigger")]
    if let Some(endpoint) = &config.remote_trigger {
        let tool = agent_tool_remote_trigger::tool_with(agent_tool_remote_trigger::RemoteTriggerConfig::new(
            endpoint.base_url.clone(),
            endpoint.token.clone(),
        ));
        if tool.is_enabled() {
            tools.push(tool);
        } else {
            // The URL is not logged: it could hold a user name and password.
            tracing::warn!(
                "RemoteTrigger is left out: AGENT_TOOLS_TRIGGERS_URL must be https:// (http:// only to a loopback \
                 host), with no user name, password, query or fragment"
            );
        }
    }
    // A monitor is a background task: none when background tasks are off.
    #[cfg(feature = "monitor")]
    if !config.disable_background_tasks {
        tools.push(agent_tool_monitor::tool());
    }
    #[cfg(feature = "send-user-message")]
    if config.brief {
        tools.push(agent_tool_send_user_message::tool());
    }
    #[cfg(feature = "powershell")]
    if let Some(pwsh) = &config.pwsh {
        tools.push(agent_tool_powershell::tool_with(agent_tool_powershell::PowerShellConfig {
            shell: Some(pwsh.clone()),
            background_tasks: !config.disable_background_tasks,
            ..agent_tool_powershell::PowerShellConfig::default()
        }));
    }
    // Claude Code appends ToolSearch after every other tool, when tool search may be on.
    #[cfg(feature = "tool-search")]
    if config.tool_search.is_on() {
        tools.push(agent_tool_tool_search::tool());
    }
    let _ = config;
    tools
}

/// TeamCreate with the session's teams folder, teammate mode, program and tmux (a private tmux
/// server for this process: `agent-tools-<pid>`).
#[cfg(feature = "team-create")]
fn team_create_tool(config: &HostConfig) -> Arc<dyn Tool> {
    use agent_tool_team_create::{TeamConfig, TeammateMode, TmuxConfig};
    agent_tool_team_create::tool_with(TeamConfig {
        teams_dir: config.teams_dir.clone(),
        teammate_mode: TeammateMode::parse(config.teammate_mode.as_deref()),
        agent_program: config.teammate_program.clone(),
        tmux: config.tmux.clone().map(TmuxConfig::new),
        teammate_idle_timeout: None,
    })
}

/// The Agent tool with the built-in agents and the custom ones of [`HostConfig::agent_dirs`]
/// (a broken agent file is skipped with a warning).
#[cfg(feature = "agent")]
fn agent_tool(config: &HostConfig) -> Arc<dyn Tool> {
    use agent_tool_agent::definitions::{self, SourceKind};
    let mut layers = vec![definitions::built_in()];
    let last = config.agent_dirs.len().saturating_sub(1);
    for (index, dir) in config.agent_dirs.iter().enumerate() {
        // The last folder is the project's when there are two (see `agent_dirs`).
        let kind = if index == last && config.agent_dirs.len() > 1 { SourceKind::Project } else { SourceKind::User };
        let (found, warnings) = definitions::load_dir(dir, kind);
        for warning in warnings {
            tracing::warn!(%warning, "an agent definition was skipped");
        }
        layers.push(found);
    }
    agent_tool_agent::tool_with(agent_tool_agent::AgentConfig {
        definitions: definitions::merge(layers),
        coordinator: config.coordinator,
        ..agent_tool_agent::AgentConfig::default()
    })
}

/// The `StructuredOutput` tool for a structured final answer's JSON Schema.
///
/// # Errors
/// A message when the schema is not one (not an object schema, or not valid JSON Schema), or
/// when the tool was not built in (feature `structured-output`).
pub fn structured_output_tool(schema: serde_json::Value) -> Result<Arc<dyn Tool>, String> {
    #[cfg(feature = "structured-output")]
    return agent_tool_structured_output::tool(schema).map_err(|error| error.to_string());
    #[cfg(not(feature = "structured-output"))]
    {
        let _ = schema;
        Err("this build has no StructuredOutput tool (feature structured-output)".to_owned())
    }
}

/// The one Messages API config WebFetch's secondary model and WebSearch share: the key, and
/// the base URL and model when [`HostConfig::small_model`] overrides them.
#[cfg(any(feature = "web-fetch", feature = "web-search"))]
fn api_config(model: &SmallModelConfig) -> agent_tools_api::ApiConfig {
    let mut api = agent_tools_api::ApiConfig::new(model.api_key.clone());
    if let Some(base_url) = &model.base_url {
        api.base_url.clone_from(base_url);
    }
    if let Some(name) = &model.model {
        api.model.clone_from(name);
    }
    api
}

/// WebFetch, with the secondary model of [`HostConfig::small_model`] when there is one.
#[cfg(feature = "web-fetch")]
fn web_fetch(config: &HostConfig) -> Arc<dyn Tool> {
    use agent_tool_web_fetch::{AnthropicSummarizer, Summarizer, WebFetchConfig};
    let summarizer = config
        .small_model
        .as_ref()
        .map(|model| Arc::new(AnthropicSummarizer::new(api_config(model))) as Arc<dyn Summarizer>);
    agent_tool_web_fetch::tool_with(WebFetchConfig { summarizer, ..WebFetchConfig::default() })
}

/// WebSearch through the Messages API of [`HostConfig::small_model`]; `None` without a key.
#[cfg(feature = "web-search")]
fn web_search(config: &HostConfig) -> Option<Arc<dyn Tool>> {
    use agent_tool_web_search::WebSearchConfig;
    let model = config.small_model.as_ref().filter(|model| !model.api_key.is_empty())?;
    Some(agent_tool_web_search::tool_with(WebSearchConfig { api: Some(api_config(model)) }))
}

/// Whether a whole-tool deny rule removes this tool (content rules such as `Bash(rm:*)` never do).
pub fn is_denied_as_a_whole(tool: &dyn Tool, permission_context: &ToolPermissionContext) -> bool {
    permission_context.tool_wide_rule(tool, PermissionBehavior::Deny).is_some()
}

/// Removes the tools that a whole-tool deny rule names (Claude Code's `filterToolsByDenyRules`),
/// including every tool of an MCP server denied by `mcp__server` or `mcp__server__*`.
pub fn filter_tools_by_deny_rules(
    tools: Vec<Arc<dyn Tool>>,
    permission_context: &ToolPermissionContext,
) -> Vec<Arc<dyn Tool>> {
    tools.into_iter().filter(|tool| !is_denied_as_a_whole(tool.as_ref(), permission_context)).collect()
}

/// The built-in tools this session may use: simple mode, minus the special tools, minus tools a
/// whole-tool deny rule names, minus disabled tools (Claude Code's `getTools`).
pub fn get_tools(permission_context: &ToolPermissionContext, config: &HostConfig) -> Vec<Arc<dyn Tool>> {
    let base = get_all_base_tools(config);
    let repl_mode = repl_mode_on(config);
    let tools: Vec<Arc<dyn Tool>> = if config.simple && repl_mode {
        base.into_iter().filter(|tool| tool.name() == REPL_NAME).collect()
    } else if config.simple {
        base.into_iter().filter(|tool| SIMPLE_MODE_TOOLS.contains(&tool.name())).collect()
    } else if config.coordinator && config.subagents {
        let set = agent_tools_core::subagent::COORDINATOR_MODE_ALLOWED_TOOLS;
        base.into_iter().filter(|tool| set.contains(&tool.name())).collect()
    } else {
        base.into_iter()
            .filter(|tool| !SPECIAL_TOOLS.contains(&tool.name()))
            .filter(|tool| !repl_mode || !REPL_ONLY_TOOLS.contains(&tool.name()))
            .collect()
    };
    filter_tools_by_deny_rules(tools, permission_context).into_iter().filter(|tool| tool.is_enabled()).collect()
}

/// The REPL's name (`REPL`).
const REPL_NAME: &str = "REPL";

/// The primitives REPL mode hides from the model: Claude Code's `REPL_ONLY_TOOLS`, and our MultiEdit
/// (an edit primitive Claude Code 2.1.332 does not have).
pub const REPL_ONLY_TOOLS: &[&str] =
    &["Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "Bash", "NotebookEdit", "Agent"];

/// Whether REPL mode applies: asked for, and the REPL is compiled in and in the pool.
fn repl_mode_on(config: &HostConfig) -> bool {
    cfg!(feature = "repl") && config.repl && config.repl_mode
}

/// In REPL mode, the tools [`get_tools`] hid that scripts may still call: the primitives of
/// [`REPL_ONLY_TOOLS`] (in simple mode: Bash, Read and Edit) that deny rules leave and that are
/// enabled. Empty outside REPL mode. The host gives them to the executor as hidden tools
/// ([`Executor::with_hidden_tools`](crate::Executor::with_hidden_tools)).
pub fn repl_hidden_tools(permission_context: &ToolPermissionContext, config: &HostConfig) -> Vec<Arc<dyn Tool>> {
    if !repl_mode_on(config) {
        return Vec::new();
    }
    let wrapped = if config.simple { SIMPLE_MODE_TOOLS } else { REPL_ONLY_TOOLS };
    let hidden = get_all_base_tools(config).into_iter().filter(|tool| wrapped.contains(&tool.name())).collect();
    filter_tools_by_deny_rules(hidden, permission_context).into_iter().filter(|tool| tool.is_enabled()).collect()
}

/// The pool the model sees: built-ins sorted by name, then the allowed MCP tools sorted by name;
/// the first tool of any duplicate name wins, so a built-in beats an MCP tool of the same name
/// (Claude Code's `assembleToolPool`).
pub fn assemble_tool_pool(
    permission_context: &ToolPermissionContext,
    mcp_tools: Vec<Arc<dyn Tool>>,
    config: &HostConfig,
) -> Vec<Arc<dyn Tool>> {
    let mut built_ins = get_tools(permission_context, config);
    // A special tool: only there when a structured answer is asked for (an invalid schema was
    // refused when the session was built, see `SessionBuilder::build`).
    if let Some(schema) = &config.structured_output
        && let Ok(tool) = structured_output_tool(schema.clone())
    {
        built_ins.push(tool);
    }
    built_ins.sort_by(|a, b| a.name().cmp(b.name()));
    let mut mcp = filter_tools_by_deny_rules(mcp_tools, permission_context);
    mcp.sort_by(|a, b| a.name().cmp(b.name()));
    let mut seen = HashSet::new();
    built_ins.into_iter().chain(mcp).filter(|tool| seen.insert(tool.name().to_owned())).collect()
}
