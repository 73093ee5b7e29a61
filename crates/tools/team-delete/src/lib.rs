//! # agent-tool-team-delete: the TeamDelete tool
//!
//! Claude Code's `TeamDelete` (agent swarms): ends the team the session leads (the one
//! TeamCreate made). Claude Code refuses while teammates are still active; ours stops them
//! instead, then cleans up:
//!
//! 1. in-process teammates: their background tasks are stopped (as TaskStop stops them: the
//!    agent and everything it started end, no notification follows);
//! 2. tmux teammates: each gets a `shutdown_request` in its mailbox; after at most the tmux
//!    config's grace ([`agent_tools_team::TmuxConfig::shutdown_grace`], 5 s by default) their
//!    tmux session is killed if it is still there;
//! 3. the lead's mailbox watcher stops, the team's folder (config, mailboxes) is removed, and
//!    the session leads no team any more.
//!
//! Input `{}`. The result is the output object as JSON text, `{"success", "message",
//! "team_name"}` (Claude Code's fields): with no team, `success: false` and "No team to
//! delete"; a teammate (or a sub-agent) cannot delete the team. Not read-only, not
//! concurrency-safe, deferred, as in Claude Code.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_team::{state, ActiveTeam, Team};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let tool = agent_tool_team_delete::tool();
//! let none = call_tool(tool.as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert_eq!(none.block.content.text(), r#"{"success":false,"message":"No team to delete"}"#);
//! // What TeamCreate does.
//! let (team, _) = Team::create(dir.path(), "crew", None, None).unwrap();
//! state::begin_team(&ctx, ActiveTeam { team: team.clone(), tmux: None, watch: None }).unwrap();
//! let done = call_tool(tool.as_ref(), "toolu_2", serde_json::json!({}), &ctx).await;
//! let output: serde_json::Value = serde_json::from_str(&done.block.content.text()).unwrap();
//! assert_eq!((output["success"].as_bool(), output["team_name"].as_str()), (Some(true), Some("crew")));
//! assert!(!team.dir().exists());
//! assert!(state::current_team(&ctx).is_none());
//! # });
//! ```

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_background::{TaskRegistry, TaskStatus};
use agent_tools_core::{
    PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use agent_tools_team::{Backend, LEAD_NAME, Member, Message, Team, TmuxConfig, state, tmux};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tool's API name.
pub const NAME: &str = "TeamDelete";

/// TeamDelete's input: nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamDeleteInput {}

/// TeamDelete's output (Claude Code's fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamDeleteOutput {
    /// Whether the team was deleted.
    pub success: bool,
    /// What happened, in words.
    pub message: String,
    /// The team's name, when there was a team.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team_name: Option<String>,
}

/// The TeamDelete tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct TeamDeleteTool;

/// The tool.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(TeamDeleteTool)
}

fn refused(message: impl Into<String>, team: Option<&Team>) -> ToolResult<TeamDeleteOutput> {
    ToolResult::new(TeamDeleteOutput {
        success: false,
        message: message.into(),
        team_name: team.map(|team| team.name().to_owned()),
    })
}

/// Stops the running in-process teammates; returns their names.
async fn stop_in_process(ctx: &ToolUseContext, members: &[Member]) -> Vec<String> {
    let Some(registry) = TaskRegistry::existing(ctx) else { return Vec::new() };
    let mut stopped = Vec::new();
    for member in members.iter().filter(|member| member.backend == Backend::InProcess) {
        let Some(id) = member.task_id.as_deref() else { continue };
        if registry.get(id).is_some_and(|task| task.status == TaskStatus::Running) && registry.stop(id).await.is_ok() {
            stopped.push(member.name.clone());
        }
    }
    stopped
}

/// Asks the tmux teammates to stop, waits up to the grace for their session to end, then kills
/// it. Blocking. Returns the names asked and a problem to report, if any.
fn stop_tmux(team: &Team, config: Option<&TmuxConfig>, members: &[Member]) -> (Vec<String>, Option<String>) {
    let names: Vec<String> =
        members.iter().filter(|member| member.backend == Backend::Tmux).map(|member| member.name.clone()).collect();
    if names.is_empty() {
        return (names, None);
    }
    let request = serde_json::json!({"type": "shutdown_request", "reason": "The team is being deleted."}).to_string();
    for name in &names {
        let _ = team.append_message(name, Message::new(LEAD_NAME, request.clone(), Some("shutdown".into())));
    }
    let Some(config) = config else {
        return (
            names,
            Some("tmux teammates were asked to stop, but this session has no tmux to check on them".into()),
        );
    };
    let session = tmux::session_name(team.name());
    let deadline = Instant::now() + config.shutdown_grace;
    while tmux::has_session(config, &session) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    match tmux::kill_session(config, &session) {
        Ok(()) => (names, None),
        Err(error) => (names, Some(format!("the tmux session {session} could not be ended: {error}"))),
    }
}

impl ToolDef for TeamDeleteTool {
    type Input = TeamDeleteInput;
    type Output = TeamDeleteOutput;

    const NAME: &'static str = NAME;

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::MainConversation)
        .deferred()
        .search_hint("end the agent team: stop its teammates and remove its files");

    fn summary(&self, _input: &TeamDeleteInput) -> String {
        "Delete the team".to_owned()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "End the team you lead (made with TeamCreate) when its work is done: every teammate still running is \
         stopped (in-process teammates at once; tmux teammates are asked to stop, then their tmux session is \
         ended), and the team's files — its config and mailboxes — are removed. Afterwards you lead no team and \
         may create another. Read what the teammates reported before you delete the team: nothing they send \
         afterwards reaches you."
            .to_owned()
    }

    async fn call(
        &self,
        _input: TeamDeleteInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<TeamDeleteOutput>, ToolError> {
        if let Some(teammate) = state::teammate(ctx) {
            return Ok(refused("A teammate cannot delete its team; only the lead can.", Some(&teammate.team)));
        }
        let Some(team) = state::current_team(ctx) else { return Ok(refused("No team to delete", None)) };
        if ctx.agent_id.is_some() {
            return Ok(refused("Only the team's lead (the main conversation) can delete the team.", Some(&team)));
        }
        let tmux_config = state::current_tmux(ctx);
        let members = team.load().map(|file| file.members).unwrap_or_default();
        let stopped = stop_in_process(ctx, &members).await;
        let (asked, problem) = {
            let (team, members) = (team.clone(), members.clone());
            tokio::task::spawn_blocking(move || stop_tmux(&team, tmux_config.as_ref(), &members))
                .await
                .unwrap_or_else(|error| (Vec::new(), Some(format!("tmux teammates could not be stopped: {error}"))))
        };
        // The lead's watcher stops with the state; then the files go.
        drop(state::end_team(ctx));
        let removed = {
            let team = team.clone();
            tokio::task::spawn_blocking(move || team.delete()).await
        };
        match removed {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                return Ok(refused(
                    format!("The teammates were stopped, but the team's files remain: {error}"),
                    Some(&team),
                ));
            }
            Err(error) => return Err(ToolError::internal(format!("removing the team's folder failed: {error}"))),
        }
        let mut message = format!("Team \"{}\" deleted", team.name());
        let ended: Vec<String> = stopped.into_iter().chain(asked).collect();
        if ended.is_empty() {
            message.push_str(" (no teammate was still running)");
        } else {
            message.push_str(&format!("; stopped {}", ended.join(", ")));
        }
        message.push_str(&format!("; removed {}.", team.dir().display()));
        if let Some(problem) = problem {
            message.push_str(&format!(" Note: {problem}."));
        }
        Ok(ToolResult::new(TeamDeleteOutput { success: true, message, team_name: Some(team.name().to_owned()) }))
    }

    fn map_tool_result(&self, output: &TeamDeleteOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = serde_json::to_string(output).unwrap_or_else(|_| output.message.clone());
        ToolResultBlock::text(tool_use_id, text)
    }
}
