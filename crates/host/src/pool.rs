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

use agent_tools_core::{PermissionBehavior, ToolPermissionContext};
use agent_tools_core::{Tool, ToolOptions};

pub use crate::tool_search::ToolSearchMode;

/// Runtime switches for the pool (what Claude Code reads from its environment; the CLI fills this
/// in, library code never reads the environment).
#[derive(Debug, Clone, Default)]
pub struct HostConfig {
    /// Simple mode (`--bare`, Claude Code's `CLAUDE_CODE_SIMPLE`): only Bash, Read and Edit.
    pub simple: bool,
    /// No background tasks (Claude Code's `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS`): Bash and
    /// PowerShell have no `run_in_background` field. TaskOutput and TaskStop stay (they find no
    /// task to act on).
    pub disable_background_tasks: bool,
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
    /// Offer the Agent tool: sub-agents need the agent loop, which sets this (an MCP server or
    /// `call` has no model to run them on, so they leave it off).
    pub subagents: bool,
    /// The JSON Schema of a structured final answer (`--json-schema`): the pool gets the
    /// `StructuredOutput` tool built with it.
    pub structured_output: Option<serde_json::Value>,
    /// Coordinator mode (`CLAUDE_CODE_COORDINATOR_MODE`, with [`HostConfig::subagents`]): the
    /// conversation only dispatches — its pool is Claude Code's coordinator set (`Agent`,
    /// `TaskStop`, `SendMessage`, `StructuredOutput`) — and every agent it starts works in the
    /// background.
    pub coordinator: bool,
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
    /// No scheduled prompts (Claude Code's `CLAUDE_CODE_DISABLE_CRON`): CronCreate, CronDelete
    /// and CronList leave the pool.
    pub disable_cron: bool,
    /// Brief mode (Claude Code's `--brief`, `CLAUDE_CODE_BRIEF`): SendUserMessage (alias
    /// `Brief`) is in the pool, never deferred, and the user reads what it sends.
    pub brief: bool,
    /// Each tool crate's own options, by type (Glob's `GlobConfig`, Skill's `SkillConfig`,
    /// TeamCreate's `TeamConfig`, Config's `ConfigToolConfig`, RemoteTrigger's
    /// `RemoteTriggerConfig`, PowerShell's `PowerShellConfig`, the Agent tool's
    /// `AgentFolders` …): a tool whose options are not here builds with its defaults, and one
    /// that needs them to work (PowerShell without a `pwsh`, Config without settings files,
    /// RemoteTrigger without an endpoint) is left out. The table's `with options` lines read
    /// them.
    pub tools: ToolOptions,
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

/// The `pwsh` program in `search_path` (a `PATH`-style list), for PowerShell's options; `None`
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

/// A config under which [`get_all_base_tools`] builds every tool compiled into this build (with
/// TodoWrite, not the Task* tools: set [`HostConfig::todo_v2`] for those), for listing tools and
/// checking names. Its `pwsh` program, API key, settings file and triggers endpoint are
/// placeholders: never run, read or called.
#[allow(unused_mut)] // With none of these tools compiled in, no option is set.
pub fn every_tool_config() -> HostConfig {
    let mut tools = ToolOptions::new();
    #[cfg(feature = "powershell")]
    tools.insert(agent_tool_powershell::PowerShellConfig {
        shell: Some(PathBuf::from("pwsh")),
        ..agent_tool_powershell::PowerShellConfig::default()
    });
    #[cfg(feature = "config")]
    tools.insert(agent_tool_config::ConfigToolConfig {
        user_settings: Some(PathBuf::from("/nonexistent/settings.json")),
        ..agent_tool_config::ConfigToolConfig::default()
    });
    #[cfg(feature = "remote-trigger")]
    tools.insert(agent_tool_remote_trigger::RemoteTriggerConfig::new("https://triggers.example", "t"));
    HostConfig {
        small_model: Some(SmallModelConfig { api_key: "key".into(), ..SmallModelConfig::default() }),
        subagents: true,
        lsp: true,
        repl: true,
        brief: true,
        tools,
        ..HostConfig::default()
    }
}

/// Tools that are added to a session elsewhere, never through [`get_tools`] (Claude Code's
/// "special" tools).
pub const SPECIAL_TOOLS: &[&str] = &["ListMcpResourcesTool", "ReadMcpResourceTool", "StructuredOutput"];

/// A built-in tool of this build: its API name and the host feature that compiles it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltIn {
    /// The API name (`Read`).
    pub name: &'static str,
    /// The host's Cargo feature for it, the tool crate's short name (`file-read` for
    /// `agent-tool-file-read`).
    pub feature: &'static str,
}

/// The one table of built-in tools, a line per tool in one of three forms:
///
/// - `"grep" => agent_tool_grep;`: the crate's `tool()`, always;
/// - `"glob" => agent_tool_glob with options;`: the crate's `tool_with(options)`, its options
///   read from [`HostConfig::tools`] by type (the crate's defaults when none were set);
/// - `"bash" => agent_tool_bash => |c| expr;`: `expr`, the `Option<Arc<dyn Tool>>` this session
///   gets from its [`HostConfig`] `c` (`None` leaves the tool out), for tools that follow a
///   session-wide switch.
///
/// From it come [`BUILT_IN_TOOLS`], [`BUILT_IN_TOOL_NAMES`] (checked distinct at compile time,
/// as zed checks its tool names) and [`get_all_base_tools`]'s order. Adding a tool is its crate,
/// one line here and one feature in this crate's `Cargo.toml`.
macro_rules! tool_table {
    ($($feature:literal => $krate:ident $(with $options:ident)? $(=> |$config:ident| $build:expr)?;)*) => {
        /// Every built-in tool compiled into this build, in [`get_all_base_tools`]'s order
        /// (whether a session gets it depends on its [`HostConfig`]).
        pub const BUILT_IN_TOOLS: &[BuiltIn] = &[$(
            #[cfg(feature = $feature)]
            BuiltIn { name: $krate::NAME, feature: $feature },
        )*];

        /// The API names of [`BUILT_IN_TOOLS`], in order.
        pub const BUILT_IN_TOOL_NAMES: &[&str] = &[$(
            #[cfg(feature = $feature)]
            $krate::NAME,
        )*];

        /// Every tool compiled into this build that `config` switches on, in Claude Code's
        /// `getAllBaseTools` order.
        ///
        /// A tool whose Cargo feature is off is absent. The order (not the names) is what keeps
        /// prompt caches stable, so new tools are added where Claude Code lists them: Agent (only
        /// with [`HostConfig::subagents`]), TaskOutput, Bash, Glob, Grep, ExitPlanMode, Read,
        /// Edit, MultiEdit (where Claude Code 1.x had it; deferred, as 2.1.332 has none), Write,
        /// NotebookEdit, WebFetch, TodoWrite, WebSearch (only when [`HostConfig::small_model`]
        /// has an API key), TaskStop, AskUserQuestion, Skill, EnterPlanMode, Config (only with
        /// settings files), then the conditional tools: TaskCreate, TaskGet, TaskUpdate,
        /// TaskList (only with [`HostConfig::todo_v2`], which also removes TodoWrite), LSP (only
        /// with [`HostConfig::lsp`]), EnterWorktree and ExitWorktree, the agents' messaging and
        /// team tools, REPL, the late block, PowerShell (only when its options name a `pwsh`),
        /// and last ToolSearch (unless [`HostConfig::tool_search`] is off).
        // With no tool feature on, nothing is pushed and `config` is unused.
        #[allow(unused_mut, unused_variables)]
        pub fn get_all_base_tools(config: &HostConfig) -> Vec<Arc<dyn Tool>> {
            let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
            $(
                #[cfg(feature = $feature)]
                tools.extend(tool_table!(@build config, $krate $(with $options)? $(=> |$config| $build)?));
            )*
            tools
        }
    };
    (@build $c:ident, $krate:ident) => { Some($krate::tool()) };
    (@build $c:ident, $krate:ident with options) => { Some($krate::tool_with($c.tools.get_or_default())) };
    (@build $c:ident, $krate:ident => |$config:ident| $build:expr) => {{
        let $config = $c;
        let tool: Option<Arc<dyn Tool>> = $build;
        tool
    }};
}

// Claude Code's `getAllBaseTools` order. `c` is the session's `HostConfig`.
tool_table! {
    "agent" => agent_tool_agent => |c| c.subagents.then(|| {
        agent_tool_agent::tool_from_folders(&c.tools.get_or_default(), c.coordinator)
    });
    "task-output" => agent_tool_task_output;
    "bash" => agent_tool_bash => |c| Some(agent_tool_bash::tool_with(agent_tool_bash::BashConfig {
        background_tasks: !c.disable_background_tasks,
        ..agent_tool_bash::BashConfig::default()
    }));
    "glob" => agent_tool_glob with options;
    "grep" => agent_tool_grep;
    "exit-plan-mode" => agent_tool_exit_plan_mode;
    "file-read" => agent_tool_file_read;
    "file-edit" => agent_tool_file_edit;
    // Claude Code's old MultiEdit sat after Edit; 2.1.332 has none, so ours is deferred.
    "multi-edit" => agent_tool_multi_edit;
    "file-write" => agent_tool_file_write;
    "notebook-edit" => agent_tool_notebook_edit;
    "web-fetch" => agent_tool_web_fetch => |c| Some(web_fetch(c));
    "todo-write" => agent_tool_todo_write => |c| (!c.todo_v2).then(agent_tool_todo_write::tool);
    // Claude Code's WebSearch sits here; it needs an API key, so it is left out without one.
    "web-search" => agent_tool_web_search => |c| web_search(c);
    "task-stop" => agent_tool_task_stop;
    "ask-user-question" => agent_tool_ask_user_question;
    "skill" => agent_tool_skill with options;
    "enter-plan-mode" => agent_tool_enter_plan_mode;
    // Where Claude Code lists Config (its internal builds have it; ours always, deferred).
    "config" => agent_tool_config => |c| config_tool(c);
    // Claude Code's `isTodoV2Enabled()` block, in its order.
    "task-create" => agent_tool_task_create => |c| c.todo_v2.then(agent_tool_task_create::tool);
    "task-get" => agent_tool_task_get => |c| c.todo_v2.then(agent_tool_task_get::tool);
    "task-update" => agent_tool_task_update => |c| c.todo_v2.then(agent_tool_task_update::tool);
    "task-list" => agent_tool_task_list => |c| c.todo_v2.then(agent_tool_task_list::tool);
    // Claude Code's LSP sits after the task tools, when its switch is on.
    "lsp" => agent_tool_lsp => |c| c.lsp.then(agent_tool_lsp::tool);
    // Claude Code lists these in its conditional part (worktree mode, always on), after
    // EnterPlanMode and LSP, before SendMessage and PowerShell.
    "enter-worktree" => agent_tool_enter_worktree;
    "exit-worktree" => agent_tool_exit_worktree;
    // The agents' messaging tools, where Claude Code lists SendMessage: only with sub-agents.
    "send-message" => agent_tool_send_message => |c| c.subagents.then(agent_tool_send_message::tool);
    "list-agents" => agent_tool_list_agents => |c| c.subagents.then(agent_tool_list_agents::tool);
    // Teams (Claude Code's agent swarms): only where sub-agents run.
    "team-create" => agent_tool_team_create => |c| c.subagents.then(|| {
        agent_tool_team_create::tool_with(c.tools.get_or_default())
    });
    "team-delete" => agent_tool_team_delete => |c| c.subagents.then(agent_tool_team_delete::tool);
    // Where Claude Code lists REPL: after the team tools, before the late ones.
    "repl" => agent_tool_repl => |c| c.repl.then(|| {
        if c.repl_mode { agent_tool_repl::tool() } else { agent_tool_repl::deferred_tool() }
    });
    // Claude Code's late block, in its order: Sleep, the cron tools, RemoteTrigger, Monitor,
    // SendUserMessage.
    "sleep" => agent_tool_sleep;
    "cron-create" => agent_tool_cron_create => |c| (!c.disable_cron).then(agent_tool_cron_create::tool);
    "cron-delete" => agent_tool_cron_delete => |c| (!c.disable_cron).then(agent_tool_cron_delete::tool);
    "cron-list" => agent_tool_cron_list => |c| (!c.disable_cron).then(agent_tool_cron_list::tool);
    "remote-trigger" => agent_tool_remote_trigger => |c| remote_trigger_tool(c);
    // A monitor is a background task: none when background tasks are off.
    "monitor" => agent_tool_monitor => |c| (!c.disable_background_tasks).then(agent_tool_monitor::tool);
    "send-user-message" => agent_tool_send_user_message => |c| c.brief.then(agent_tool_send_user_message::tool);
    // Only where PowerShell 7 is: its options name the `pwsh` program.
    "powershell" => agent_tool_powershell => |c| powershell_tool(c);
    // Claude Code appends ToolSearch after every other tool, when tool search may be on.
    "tool-search" => agent_tool_tool_search => |c| c.tool_search.is_on().then(agent_tool_tool_search::tool);
}

const _: () =
    assert!(agent_tools_core::names_are_distinct(BUILT_IN_TOOL_NAMES), "two built-in tools share an API name");

/// The tools simple mode keeps.
pub const SIMPLE_MODE_TOOLS: &[&str] = &["Bash", "Read", "Edit"];

/// Config with the session's settings files (its `ConfigToolConfig`), when it has one it may
/// write.
#[cfg(feature = "config")]
fn config_tool(config: &HostConfig) -> Option<Arc<dyn Tool>> {
    let files = config.tools.get::<agent_tool_config::ConfigToolConfig>()?;
    let tool = agent_tool_config::tool_with(files.clone());
    tool.is_enabled().then_some(tool)
}

/// PowerShell with its options, when they name a `pwsh` program (PowerShell 7), with no
/// background tasks when the session has none.
#[cfg(feature = "powershell")]
fn powershell_tool(config: &HostConfig) -> Option<Arc<dyn Tool>> {
    use agent_tool_powershell::PowerShellConfig;
    let options = config.tools.get::<PowerShellConfig>().filter(|options| options.shell.is_some())?;
    let background_tasks = options.background_tasks && !config.disable_background_tasks;
    Some(agent_tool_powershell::tool_with(PowerShellConfig { background_tasks, ..options.clone() }))
}

/// RemoteTrigger for the session's triggers endpoint (its `RemoteTriggerConfig`), when it has a
/// usable one.
#[cfg(feature = "remote-trigger")]
fn remote_trigger_tool(config: &HostConfig) -> Option<Arc<dyn Tool>> {
    let endpoint = config.tools.get::<agent_tool_remote_trigger::RemoteTriggerConfig>()?;
    let tool = agent_tool_remote_trigger::tool_with(endpoint.clone());
    if !tool.is_enabled() {
        // The URL is not logged: it could hold a user name and password.
        tracing::warn!(
            "RemoteTrigger is left out: AGENT_TOOLS_TRIGGERS_URL must be https:// (http:// only to a loopback host), \
             with no user name, password, query or fragment"
        );
        return None;
    }
    Some(tool)
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
        // Claude Code's coordinator set: the tools that dispatch work.
        base.into_iter().filter(|tool| tool.capabilities().dispatch).collect()
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
