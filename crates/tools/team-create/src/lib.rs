//! # agent-tool-team-create: the TeamCreate tool
//!
//! Claude Code's `TeamCreate` (agent swarms): the session becomes the lead of a named team and
//! its teammates start working.
//!
//! - The team's files are written in Claude Code's layout ([`agent_tools_team::files`]):
//!   `<teams dir>/<team>/config.json` with the lead `team-lead@<team>` and one entry per
//!   teammate, and a mailbox per member under `inboxes/`. `team_name` is sanitised (lowercase,
//!   `[a-z0-9-]`); if that team exists on disk a random word slug is used instead, as Claude
//!   Code does.
//! - **`members` is our addition** to Claude Code's three fields (`team_name`, `description`,
//!   `agent_type`): Claude Code starts teammates with further Agent calls naming the team; here
//!   TeamCreate starts them, each with a `name` and a `prompt` (its first message).
//! - Teammates run **in-process** by default: background sub-agents through the context's
//!   runner (as the Agent tool's background path), registered as agent tasks named after the
//!   teammate, with the caller's tools cut to Claude Code's background and teammate sets (the
//!   tools whose [`AgentScope`] reaches teammates, MCP tools
//!   too, never StructuredOutput) and a teammate system prompt
//!   ([`agent_tools_team::teammate_system_prompt`]). Each one's end is a `<task-notification>`
//!   to the lead. The member's `agent_type` is a label (hooks, listings): custom agent
//!   definitions are the Agent tool's, and a tool crate does not reach them.
//! - With `teammate_mode` tmux ([`TeammateMode::Tmux`]) and tmux known, each teammate is an
//!   `agent-tools agent --teammate TEAM/NAME` process in the tmux session `agent-tools-<team>`
//!   of a private tmux server; its task waits in its mailbox (never on a command line), it runs
//!   in the folder the session was launched in, in the lead's permission mode, with the lead's
//!   deny and ask rules. Without tmux (or the program), teammates run in-process and the result
//!   says so.
//! - The lead hears its mailbox (`inboxes/team-lead.json`): a watcher thread moves each message
//!   into the lead's notifications (key `team:<team>`) every 500 ms, until TeamDelete or the
//!   session's end.
//!
//! Checks (error code 9): a `team_name`; valid, distinct member names (`team-lead` is the
//! lead's) with a prompt; at most [`MAX_MEMBERS`]; only the main conversation leads a team,
//! one at a time ("Already leading team …"). Teammates are refused where sub-agents are: a
//! deny rule on `Agent` (or `Agent(<type>)` for that type) keeps them from starting. The
//! result is the output object as JSON text (Claude Code serialises TeamCreate's output so).
//! Not read-only, not concurrency-safe, deferred, as in Claude Code.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tool_team_create::{TeamConfig, tool_with};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let teams = dir.path().join("teams");
//! let tool = tool_with(TeamConfig { teams_dir: Some(teams.clone()), ..TeamConfig::default() });
//! let ctx = ToolUseContext::new(dir.path());
//! let input = serde_json::json!({"team_name": "Parser Crew", "description": "rewrite the parser"});
//! let done = call_tool(tool.as_ref(), "toolu_1", input, &ctx).await;
//! let output: serde_json::Value = serde_json::from_str(&done.block.content.text()).unwrap();
//! assert_eq!(output["team_name"], "parser-crew");
//! assert_eq!(output["lead_agent_id"], "team-lead@parser-crew");
//! assert_eq!(output["team_file_path"], teams.join("parser-crew/config.json").display().to_string());
//! assert_eq!(agent_tools_team::state::current_team(&ctx).unwrap().name(), "parser-crew");
//! // One team at a time.
//! let again = call_tool(tool.as_ref(), "toolu_2", serde_json::json!({"team_name": "other"}), &ctx).await;
//! assert!(again.block.is_error);
//! assert!(again.block.content.text().contains("Already leading team \"parser-crew\""));
//! # agent_tools_team::state::end_team(&ctx);
//! # });
//! ```

mod input;
mod start;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::PermissionBehavior;
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_team::state::{self, ActiveTeam};
use agent_tools_team::{Backend, DEFAULT_AGENT_TYPE, LEAD_NAME, MailboxWatch, Team, sanitize_name};
pub use agent_tools_team::{TeamConfig, TeammateMode, TmuxConfig};
use serde::Serialize;

pub use crate::input::{MemberSpec, TeamCreateInput};
use crate::start::{Plan, TmuxLaunch};

/// The tool's API name.
pub const NAME: &str = "TeamCreate";

/// The most teammates one TeamCreate starts.
pub const MAX_MEMBERS: usize = 16;

/// One teammate as started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StartedMember {
    /// Its name (what SendMessage's `to` takes).
    pub name: String,
    /// `<name>@<team>`.
    pub agent_id: String,
    /// `in-process` or `tmux`.
    pub backend: &'static str,
    /// Its background task (in-process): TaskOutput and TaskStop take it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Its tmux pane (tmux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmux_pane: Option<String>,
}

/// TeamCreate's output (Claude Code's three fields, plus the members started and notes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamCreateOutput {
    /// The team's name (sanitised; a word slug when the name asked for was taken).
    pub team_name: String,
    /// Its `config.json`.
    pub team_file_path: String,
    /// `team-lead@<team>`.
    pub lead_agent_id: String,
    /// The teammates started, in the input's order.
    pub members: Vec<StartedMember>,
    /// What the model should know: a renamed team, tmux not available, a teammate that could
    /// not start, how to watch tmux teammates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The TeamCreate tool.
#[derive(Debug, Clone, Default)]
pub struct TeamCreateTool {
    config: Arc<TeamConfig>,
}

/// The tool without a teams folder: disabled ([`TeamConfig::teams_dir`]).
pub fn tool() -> Arc<dyn Tool> {
    tool_with(TeamConfig::default())
}

/// The tool with this configuration.
pub fn tool_with(config: TeamConfig) -> Arc<dyn Tool> {
    build_tool(TeamCreateTool { config: Arc::new(config) })
}

/// The members to start, resolved (names sanitised), or why they cannot be.
fn plans(input: &TeamCreateInput) -> Result<Vec<Plan>, String> {
    if input.members.len() > MAX_MEMBERS {
        return Err(format!("A team starts with at most {MAX_MEMBERS} teammates; {} were given", input.members.len()));
    }
    let mut seen = HashSet::new();
    let mut plans = Vec::new();
    for spec in &input.members {
        let name = sanitize_name(&spec.name).map_err(|error| format!("Member name: {error}"))?;
        if name == LEAD_NAME {
            return Err(format!("'{LEAD_NAME}' is the lead's name; give the teammate another"));
        }
        if !seen.insert(name.clone()) {
            return Err(format!("Two members are named '{name}'; member names must be distinct"));
        }
        if spec.prompt.trim().is_empty() {
            return Err(format!("Member '{name}' needs a prompt: the task it works on"));
        }
        let agent_type = spec.agent_type.as_deref().map(str::trim).filter(|t| !t.is_empty());
        plans.push(Plan {
            name,
            prompt: spec.prompt.clone(),
            agent_type: agent_type.unwrap_or(DEFAULT_AGENT_TYPE).to_owned(),
        });
    }
    Ok(plans)
}

/// Why the caller may not lead a (new) team, if it may not.
fn cannot_lead(ctx: &ToolUseContext) -> Option<String> {
    if state::teammate(ctx).is_some() {
        return Some("A teammate cannot create a team; only its lead can.".into());
    }
    if ctx.agent_id.is_some() {
        return Some("Only the main conversation can create and lead a team.".into());
    }
    state::current_team(ctx).map(|team| {
        format!(
            "Already leading team \"{}\". A lead manages one team at a time: end it with TeamDelete before \
             creating another.",
            team.name()
        )
    })
}

/// The deny rule that keeps sub-agents of `agent_type` from starting, in words, if any: a
/// whole-tool `Agent` (or `Task`) rule, or `Agent(<agent_type>)`.
fn denied(ctx: &ToolUseContext, agent_type: &str) -> Option<String> {
    ctx.permission_context.rules(PermissionBehavior::Deny).find_map(|rule| {
        let value = &rule.rule_value;
        if value.tool_name != "Agent" {
            return None;
        }
        match value.rule_content.as_deref().map(str::trim) {
            None => Some("sub-agents are denied by the permission rule 'Agent'".to_owned()),
            Some(content) if content == agent_type => {
                Some(format!("agent type '{agent_type}' is denied by the permission rule 'Agent({content})'"))
            }
            Some(_) => None,
        }
    })
}

fn started(member: &agent_tools_team::Member) -> StartedMember {
    StartedMember {
        name: member.name.clone(),
        agent_id: member.agent_id.clone(),
        backend: member.backend.as_str(),
        task_id: member.task_id.clone(),
        tmux_pane: member.tmux_pane.clone(),
    }
}

impl TeamCreateTool {
    /// The tmux launch, when the configuration asks for tmux teammates and has what they need;
    /// else the note saying why teammates run in-process.
    fn tmux_launch<'a>(&'a self, teams_dir: &'a std::path::Path) -> Result<Option<TmuxLaunch<'a>>, String> {
        if self.config.teammate_mode != TeammateMode::Tmux {
            return Ok(None);
        }
        let Some(tmux) = self.config.tmux.as_ref() else {
            return Err("teammate_mode is tmux, but tmux is not installed: teammates run in-process".into());
        };
        let Some(program) = self.config.agent_program.as_deref() else {
            return Err("teammate_mode is tmux, but this host cannot start agent-tools processes: teammates run \
                        in-process"
                .into());
        };
        Ok(Some(TmuxLaunch { tmux, program, teams_dir, config: &self.config }))
    }
}

impl ToolDef for TeamCreateTool {
    type Input = TeamCreateInput;
    type Output = TeamCreateOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::MainConversation)
        .deferred()
        .search_hint("create a team of agents that work in parallel and message each other");

    fn summary(&self, input: &TeamCreateInput) -> String {
        match input.members.len() {
            0 => format!("Create team {}", input.team_name),
            n => format!("Create team {} with {n} teammate{}", input.team_name, if n == 1 { "" } else { "s" }),
        }
    }

    fn is_enabled(&self) -> bool {
        self.config.teams_dir.is_some()
    }

    async fn validate_input(&self, input: &TeamCreateInput, ctx: &ToolUseContext) -> ValidationResult {
        if input.team_name.trim().is_empty() {
            return ValidationResult::error("team_name is required for TeamCreate", 9);
        }
        if let Err(error) = sanitize_name(&input.team_name) {
            return ValidationResult::error(format!("team_name: {error}"), 9);
        }
        if let Err(message) = plans(input) {
            return ValidationResult::error(message, 9);
        }
        if let Some(message) = cannot_lead(ctx) {
            return ValidationResult::error(message, 9);
        }
        ValidationResult::Ok
    }

    async fn call(
        &self,
        input: TeamCreateInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TeamCreateOutput>, ToolError> {
        let teams_dir: PathBuf =
            self.config.teams_dir.clone().ok_or_else(|| {
                ToolError::failed("Teams are not available: this host has no folder to keep them in.")
            })?;
        if let Some(message) = cannot_lead(ctx) {
            return Err(ToolError::failed(message));
        }
        let plans = plans(&input).map_err(ToolError::failed)?;
        for plan in &plans {
            if let Some(why) = denied(ctx, &plan.agent_type) {
                return Err(ToolError::failed(format!("Teammate '{}' cannot start: {why}.", plan.name)));
            }
        }
        let mut notes = Vec::new();
        let launch = match self.tmux_launch(&teams_dir) {
            Ok(launch) => launch,
            Err(note) => {
                notes.push(note);
                None
            }
        };
        let runner = ctx.subagents.clone();
        if runner.is_none() && launch.is_none() && !plans.is_empty() {
            return Err(ToolError::failed(
                "Teammates cannot run here: in-process teammates need the agent loop (agent-tools agent), which \
                 this host does not run.",
            ));
        }
        let (team, file) = {
            let dir = teams_dir.clone();
            let (name, description, lead_type) =
                (input.team_name.clone(), input.description.clone(), input.agent_type.clone());
            tokio::task::spawn_blocking(move || {
                Team::create_unique(&dir, &name, description.as_deref(), lead_type.as_deref())
            })
            .await
            .map_err(|error| ToolError::internal(format!("the team could not be made: {error}")))?
            .map_err(|error| ToolError::failed(format!("Cannot create the team: {error}")))?
        };
        let wanted = sanitize_name(&input.team_name).unwrap_or_default();
        if team.name() != wanted {
            notes.push(format!("A team named '{wanted}' already exists, so this one is called '{}'.", team.name()));
        }
        let active =
            ActiveTeam { team: team.clone(), tmux: launch.as_ref().map(|launch| launch.tmux.clone()), watch: None };
        if let Err(existing) = state::begin_team(ctx, active) {
            let _ = team.delete();
            return Err(ToolError::failed(format!("Already leading team \"{existing}\".")));
        }
        match MailboxWatch::start(team.clone(), LEAD_NAME, ctx.notifications(), agent_tools_team::DEFAULT_INTERVAL) {
            Ok(watch) => {
                let _ = state::set_watch(ctx, watch);
            }
            Err(error) => notes.push(format!("Messages to the lead's mailbox will not be delivered: {error}")),
        }
        let mut members = Vec::new();
        for plan in &plans {
            if let Some(launch) = &launch {
                let (ctx_copy, team_copy, plan_copy) = (ctx.clone(), team.clone(), plan.clone());
                let launch_copy = OwnedLaunch::from(launch);
                let spawned = tokio::task::spawn_blocking(move || {
                    let launch = launch_copy.borrow();
                    start::start_tmux(&ctx_copy, &launch, &team_copy, &plan_copy)
                })
                .await
                .unwrap_or_else(|error| Err(format!("cannot start {}: {error}", plan.name)));
                match spawned {
                    Ok(member) => {
                        members.push(started(&member));
                        continue;
                    }
                    Err(error) if runner.is_some() => notes.push(format!("{error}; it runs in-process instead.")),
                    Err(error) => {
                        notes.push(error);
                        continue;
                    }
                }
            }
            let Some(runner) = runner.as_ref() else { continue };
            match start::start_in_process(ctx, runner, &team, plan) {
                Ok(member) => members.push(started(&member)),
                Err(error) => notes.push(error),
            }
        }
        if members.iter().any(|member| member.backend == Backend::Tmux.as_str())
            && let Some(launch) = &launch
        {
            notes.push(format!(
                "Tmux teammates run in the tmux session '{}' (watch them with: tmux -L {} attach -t {}).",
                agent_tools_team::tmux::session_name(team.name()),
                launch.tmux.socket,
                agent_tools_team::tmux::session_name(team.name())
            ));
        }
        Ok(ToolResult::new(TeamCreateOutput {
            team_name: file.name.clone(),
            team_file_path: team.config_path().display().to_string(),
            lead_agent_id: file.lead_agent_id,
            members,
            notes,
        }))
    }

    fn map_tool_result(&self, output: &TeamCreateOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = serde_json::to_string(output).unwrap_or_else(|_| format!("Team {} created", output.team_name));
        ToolResultBlock::text(tool_use_id, text)
    }
}

/// A [`TmuxLaunch`] that can move to the blocking pool.
struct OwnedLaunch {
    tmux: TmuxConfig,
    program: PathBuf,
    teams_dir: PathBuf,
    config: TeamConfig,
}

impl OwnedLaunch {
    fn from(launch: &TmuxLaunch<'_>) -> Self {
        Self {
            tmux: launch.tmux.clone(),
            program: launch.program.to_path_buf(),
            teams_dir: launch.teams_dir.to_path_buf(),
            config: launch.config.clone(),
        }
    }

    fn borrow(&self) -> TmuxLaunch<'_> {
        TmuxLaunch { tmux: &self.tmux, program: &self.program, teams_dir: &self.teams_dir, config: &self.config }
    }
}
