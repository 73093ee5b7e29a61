//! Turning the environment and flags into a tool pool, a context and an executor (library code
//! never reads the environment; this is where it happens).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::{PermissionMode, Tool, ToolUseContext};
use agent_tools_host::{Executor, Hooks, HostConfig, SmallModelConfig, ToolSearchMode, assemble_tool_pool};
use agent_tools_mcp::McpSession;
use agent_tools_mcp::config::{self as mcp_config, NamedServer};
use agent_tools_settings::{LoadedSettings, SettingsSources, parse_tool_list};
use anyhow::Context as _;

use crate::GlobalOptions;

/// Which kind of program runs: a one-shot command, or the MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `list`, `call`, `run`.
    Command,
    /// `serve`.
    Server,
}

/// The pool, the context and the executor a command runs with.
pub(crate) struct Session {
    pub(crate) pool: Vec<Arc<dyn Tool>>,
    pub(crate) ctx: ToolUseContext,
    pub(crate) executor: Executor,
    /// The MCP servers this session connected to (ended when the program ends).
    pub(crate) mcp: Arc<McpSession>,
}

fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .is_ok_and(|value| matches!(value.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

/// A non-empty environment variable.
fn env_text(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// WebFetch's secondary model and WebSearch's API, when `ANTHROPIC_API_KEY` is set: `ANTHROPIC_BASE_URL` and
/// `ANTHROPIC_SMALL_FAST_MODEL` override the address and the model.
fn small_model() -> Option<SmallModelConfig> {
    Some(SmallModelConfig {
        api_key: env_text("ANTHROPIC_API_KEY")?,
        base_url: env_text("ANTHROPIC_BASE_URL"),
        model: env_text("ANTHROPIC_SMALL_FAST_MODEL"),
    })
}

/// A fresh session id: time and process, enough to keep sessions' folders apart.
fn session_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{:x}", std::process::id())
}

/// Where this session's files go: `$XDG_STATE_HOME/agent-tools/sessions/<id>`, else
/// `~/.local/state/agent-tools/sessions/<id>`, else the temp folder.
fn session_dir(id: &str, home: Option<&PathBuf>) -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home.map(|home| home.join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("agent-tools").join("sessions").join(id)
}

/// Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR` when absolute, else `~/.claude`;
/// `None` without a home. The task tools keep their lists in `<it>/tasks`, where Claude Code does.
fn claude_config_dir(home: Option<&PathBuf>) -> Option<PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home.map(|home| home.join(".claude")))
}

/// Skill's folders of one kind (`skills` or `commands`), highest priority first:
/// `<config dir>/<kind>` (`~/.claude/<kind>`), then — in a trusted folder — `<project>/.claude/<kind>`
/// (a skill's `allowed-tools` become allow rules, so an untrusted project's skills are left out).
fn claude_folders(config_dir: Option<&Path>, project: &Path, kind: &str, trusted: bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = config_dir.map(|dir| dir.join(kind)).into_iter().collect();
    if trusted {
        dirs.push(project.join(".claude").join(kind));
    }
    dirs
}

/// Where plan files go (Claude Code's `getPlansDirectory`): the `plansDirectory` setting resolved
/// against the project root when it stays inside the project, else `<config dir>/plans`
/// (`~/.claude/plans`). A setting that leaves the project is ignored with a warning.
fn plans_dir(setting: Option<&str>, project: &Path, config_dir: Option<&PathBuf>) -> Option<PathBuf> {
    if let Some(setting) = setting {
        let resolved = agent_tools_core::path::normalize(&project.join(setting));
        if resolved.starts_with(project) {
            return Some(resolved);
        }
        tracing::warn!("plansDirectory {setting:?} is outside the project; using the default plans folder");
    }
    config_dir.map(|dir| dir.join("plans"))
}

/// Claude Code's `ENABLE_TOOL_SEARCH` (unset or `true`: on; `false`: off; `auto[:N]` taken as
/// on), forced off by `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` as Claude Code does.
fn tool_search_mode() -> ToolSearchMode {
    if env_flag("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS") {
        return ToolSearchMode::Off;
    }
    ToolSearchMode::from_env_value(std::env::var("ENABLE_TOOL_SEARCH").ok().as_deref())
}

/// A whole number from the environment (e.g. `MCP_TIMEOUT=5000`).
fn env_number(name: &str) -> Option<u64> {
    env_text(name).and_then(|value| value.trim().parse().ok())
}

/// The variable telling a program started as an MCP server by agent-tools how deep it is nested.
const MCP_DEPTH_VAR: &str = "AGENT_TOOLS_MCP_DEPTH";

/// Deepest nesting at which MCP servers are still started (a guard against chains that never
/// end).
const MAX_MCP_DEPTH: u64 = 8;

/// How deep in a chain of agent-tools programs started as MCP servers this one is (0: started
/// by the user).
fn mcp_depth() -> u64 {
    env_number(MCP_DEPTH_VAR).unwrap_or(0)
}

/// The servers of the project's `.mcp.json`, unless `--no-settings` or `--strict-mcp-config`
/// or this program was itself started as an MCP server by agent-tools (a project whose
/// `.mcp.json` names `agent-tools serve` would otherwise start itself without end). A broken
/// `.mcp.json` is reported and skipped. Whether they may start is the caller's to decide
/// (workspace trust, the `…McpjsonServers` settings).
fn project_mcp_servers(options: &GlobalOptions, cwd: &Path) -> Vec<NamedServer> {
    let project = cwd.join(".mcp.json");
    if mcp_depth() > 0 || options.no_settings || options.strict_mcp_config || !project.is_file() {
        return Vec::new();
    }
    match mcp_config::load_config_file(&project) {
        Ok(servers) => servers,
        Err(error) => {
            crate::report(format_args!("agent-tools: {error} (its servers are skipped)"));
            Vec::new()
        }
    }
}

/// The MCP servers to start: the project's approved ones, then each `--mcp-config`, later
/// names replacing earlier ones. A broken `--mcp-config` is an error.
///
/// Each server is started with `AGENT_TOOLS_MCP_DEPTH` one more than ours. Past
/// [`MAX_MCP_DEPTH`] no server is started at all.
fn mcp_servers(options: &GlobalOptions, cwd: &Path, project: Vec<NamedServer>) -> anyhow::Result<Vec<NamedServer>> {
    let depth = mcp_depth();
    if depth >= MAX_MCP_DEPTH {
        if !options.mcp_config.is_empty() {
            crate::report(format_args!(
                "agent-tools: MCP servers are not started {depth} levels deep ({MCP_DEPTH_VAR}); skipping them"
            ));
        }
        return Ok(Vec::new());
    }
    let mut sources = vec![project];
    for arg in &options.mcp_config {
        sources.push(mcp_config::load_config_arg(arg, cwd)?);
    }
    let mut servers = mcp_config::merge(sources);
    for server in &mut servers {
        if let mcp_config::ServerConfig::Stdio { env, .. } = &mut server.config {
            env.insert(MCP_DEPTH_VAR.to_owned(), (depth + 1).to_string());
        }
    }
    Ok(servers)
}

/// Settles workspace trust for the project folder `cwd` (see [`crate::trust`]) and leaves out of
/// `settings` and `project_servers` what an untrusted folder does not get. Returns whether the
/// folder is trusted.
///
/// Trusted: a record for the folder or one above it (ours or Claude Code's), `--trust-workspace`,
/// or — in a terminal, for `list`, `call` and `run` — a yes to the question asked when the
/// folder's configuration would otherwise be left out. Otherwise what was left out is said
/// once on stderr, with how to trust the folder.
fn settle_trust(
    options: &GlobalOptions,
    kind: Kind,
    cwd: &Path,
    home: Option<&Path>,
    settings: &mut LoadedSettings,
    project_servers: &mut Vec<NamedServer>,
) -> bool {
    if options.no_settings || options.trust_workspace {
        return true;
    }
    let sources = crate::trust::sources(home);
    if agent_tools_settings::trust::trusted_by(cwd, &sources).is_some() {
        return true;
    }
    let mut restricted = settings.clone();
    let gated = crate::trust::Gated {
        withheld: restricted.restrict_untrusted(),
        servers: project_servers.iter().map(|server| server.name.clone()).collect(),
        skills: crate::trust::has_project_skills(cwd),
    };
    if gated.is_empty() {
        return false;
    }
    if kind == Kind::Command && crate::prompt::terminal_available() && crate::trust::ask(cwd, &gated) {
        crate::trust::remember(cwd, &sources);
        return true;
    }
    crate::trust::report_untrusted(cwd, &gated);
    *settings = restricted;
    project_servers.clear();
    false
}

/// Leaves out the project servers its settings (and Claude Code's answers in `~/.claude.json`)
/// do not approve, saying which on stderr.
fn approved_servers(
    servers: Vec<NamedServer>,
    settings: &LoadedSettings,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<NamedServer> {
    if servers.is_empty() {
        return servers;
    }
    let mut approval = settings.mcpjson_approval();
    if let Some(claude_json) = crate::trust::sources(home).claude_json {
        let (enabled, disabled) = agent_tools_settings::trust::claude_code_mcpjson_choices(&claude_json, cwd);
        approval.enabled.extend(enabled);
        approval.disabled.extend(disabled);
    }
    servers
        .into_iter()
        .filter(|server| match approval.check(&server.name) {
            Ok(()) => true,
            Err(why) => {
                crate::report(format_args!("agent-tools: MCP server \"{}\" of .mcp.json skipped: {why}", server.name));
                false
            }
        })
        .collect()
}

/// Connects to the configured MCP servers; with none configured, no MCP work happens at all.
/// Servers that cannot be used are reported on stderr and left out.
async fn connect_mcp(servers: &[NamedServer], cwd: &Path) -> McpSession {
    if servers.is_empty() {
        return McpSession::empty();
    }
    let defaults = agent_tools_mcp::McpOptions::default();
    let options = agent_tools_mcp::McpOptions {
        connect_timeout: env_number("MCP_TIMEOUT")
            .filter(|ms| *ms > 0)
            .map_or(defaults.connect_timeout, std::time::Duration::from_millis),
        tool_timeout: env_number("MCP_TOOL_TIMEOUT").filter(|ms| *ms > 0).map(std::time::Duration::from_millis),
        max_output_tokens: env_number("MAX_MCP_OUTPUT_TOKENS")
            .filter(|tokens| *tokens > 0)
            .and_then(|tokens| usize::try_from(tokens).ok())
            .unwrap_or(defaults.max_output_tokens),
        cwd: Some(cwd.to_path_buf()),
    };
    let session = agent_tools_mcp::connect_all(servers, &options).await;
    for failure in session.failures() {
        crate::report(format_args!("agent-tools: MCP server \"{}\" skipped: {}", failure.name, failure.message));
    }
    session
}

impl Session {
    /// Builds the session: the working directory from `--cwd` (or the current one), home from
    /// `HOME`, settings files and rules, the mode, hooks, Claude Code's environment switches, and
    /// `pwsh` looked up on `PATH` (the PowerShell tool is in the pool only when it is there).
    /// MCP servers from `.mcp.json` and `--mcp-config` are connected here, before the pool is
    /// assembled.
    pub(crate) async fn from_env(options: &GlobalOptions, kind: Kind) -> anyhow::Result<Self> {
        let cwd = match &options.cwd {
            Some(dir) => dir.canonicalize().with_context(|| format!("--cwd {}", dir.display()))?,
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        anyhow::ensure!(cwd.is_dir(), "--cwd {} is not a directory", cwd.display());
        let home: Option<PathBuf> = std::env::var_os("HOME").map(Into::into);
        let sources = SettingsSources {
            home: if options.no_settings { None } else { home.clone() },
            project: if options.no_settings { None } else { Some(cwd.clone()) },
            flag: options.settings.clone(),
        };
        let mut settings = LoadedSettings::load(&sources).context("cannot use the settings")?;
        let mut project_servers = project_mcp_servers(options, &cwd);
        let trusted = settle_trust(options, kind, &cwd, home.as_deref(), &mut settings, &mut project_servers);
        let project_servers = approved_servers(project_servers, &settings, &cwd, home.as_deref());
        let mode = if options.dangerously_skip_permissions {
            Some(PermissionMode::BypassPermissions)
        } else {
            options.permission_mode
        };
        let mode = match (mode, kind) {
            (Some(mode), _) => Some(mode),
            (None, Kind::Server) => Some(PermissionMode::BypassPermissions),
            (None, Kind::Command) => None,
        };
        let allow: Vec<String> = options.allowed_tools.iter().flat_map(|text| parse_tool_list(text)).collect();
        let deny: Vec<String> = options.disallowed_tools.iter().flat_map(|text| parse_tool_list(text)).collect();
        let mut permissions =
            settings.permission_context(mode, &allow, &deny, &sources).context("cannot use the settings")?;
        // Rules are anchored where the session starts, for good: a `cd` never moves them.
        permissions.project_dir = Some(cwd.clone());
        permissions.launch_dir = Some(cwd.clone());
        let config = HostConfig {
            simple: env_flag("CLAUDE_CODE_SIMPLE"),
            glob_no_ignore: std::env::var("CLAUDE_CODE_GLOB_NO_IGNORE").is_ok_and(|v| v.trim() == "true"),
            disable_background_tasks: env_flag("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS"),
            // PowerShell is offered where pwsh is installed (on the PATH the commands run with).
            pwsh: agent_tools_host::find_pwsh(std::env::var_os("PATH").as_deref()),
            small_model: small_model(),
            // Claude Code's `isTodoV2Enabled()` is also true in its interactive chat; none of
            // `list`, `call`, `run` and `serve` is one, so only the environment switches it on.
            todo_v2: env_flag("CLAUDE_CODE_ENABLE_TASKS"),
            tool_search: tool_search_mode(),
            // Personal skills first: Claude Code's documentation ranks them above the project's.
            skill_dirs: claude_folders(claude_config_dir(home.as_ref()).as_deref(), &cwd, "skills", trusted),
            command_dirs: claude_folders(claude_config_dir(home.as_ref()).as_deref(), &cwd, "commands", trusted),
        };
        let servers = mcp_servers(options, &cwd, project_servers)?;
        let mcp = Arc::new(connect_mcp(&servers, &cwd).await);
        let pool = assemble_tool_pool(&permissions, mcp.tools(), &config);
        let id = session_id();
        let mut ctx = ToolUseContext::new(cwd);
        ctx.home_dir = home.clone();
        ctx.permission_context = Arc::new(permissions);
        ctx.options.tools = pool.clone().into();
        ctx.options.is_non_interactive_session = kind == Kind::Server || !crate::prompt::terminal_available();
        let folder = session_dir(&id, home.as_ref());
        // Old sessions' files go, in the background: never in the way of this one.
        if let Some(sessions) = folder.parent().map(Path::to_path_buf) {
            let period = settings.cleanup_period_days().unwrap_or(crate::cleanup::DEFAULT_PERIOD_DAYS);
            let keep = folder.clone();
            std::thread::spawn(move || {
                let removed =
                    crate::cleanup::remove_old_sessions(&sessions, &keep, period, std::time::SystemTime::now());
                if removed > 0 {
                    tracing::debug!(removed, period_days = period, "removed old session folders");
                }
            });
        }
        ctx.options.session_dir = Some(folder);
        let config_dir = claude_config_dir(home.as_ref());
        ctx.options.tasks_dir = config_dir.as_ref().map(|dir| dir.join("tasks"));
        ctx.options.plans_dir = plans_dir(settings.plans_directory(), &ctx.original_cwd, config_dir.as_ref());
        ctx.options.task_list_id = std::env::var("CLAUDE_CODE_TASK_LIST_ID").ok().filter(|id| !id.trim().is_empty());
        ctx.options.sandbox = settings.sandbox();
        ctx.options.session_id = id;
        let hooks = Hooks { pre_tool_use: settings.hooks("PreToolUse"), post_tool_use: settings.hooks("PostToolUse") };
        let mut executor = Executor::new(pool.clone()).with_hooks(hooks);
        if kind == Kind::Command {
            executor = if crate::prompt::terminal_available() {
                executor.with_prompter(Arc::new(crate::prompt::TerminalPrompter))
            } else {
                // Nobody to ask: refuse, and say how such calls can be allowed.
                executor.with_prompter(Arc::new(crate::prompt::NoTerminal))
            };
        }
        Ok(Self { pool, ctx, executor, mcp })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plans_folder_is_the_setting_inside_the_project_else_the_config_folder() {
        let project = Path::new("/work/proj");
        let config = PathBuf::from("/home/me/.claude");
        assert_eq!(plans_dir(None, project, Some(&config)), Some(PathBuf::from("/home/me/.claude/plans")));
        assert_eq!(plans_dir(Some("docs/plans"), project, Some(&config)), Some(PathBuf::from("/work/proj/docs/plans")));
        assert_eq!(plans_dir(Some("./plans/../notes"), project, None), Some(PathBuf::from("/work/proj/notes")));
        assert_eq!(plans_dir(Some("/work/proj/p"), project, None), Some(PathBuf::from("/work/proj/p")));
        for outside in ["../elsewhere", "/tmp/plans", "a/../../x"] {
            assert_eq!(plans_dir(Some(outside), project, Some(&config)), Some(PathBuf::from("/home/me/.claude/plans")));
        }
        assert_eq!(plans_dir(None, project, None), None);
    }
}
