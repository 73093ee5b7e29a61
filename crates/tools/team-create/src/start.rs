//! Starting one teammate: in this process (a background sub-agent through the context's runner,
//! as the Agent tool's background path runs one) or in a tmux pane (`agent-tools agent
//! --teammate`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionBehavior, subagent_permission_mode};
use agent_tools_core::{SubagentError, SubagentRequest, SubagentRunner, task_notification};
use agent_tools_team::{
    Backend, LEAD_NAME, Member, Message, Team, TeamConfig, TmuxConfig, teammate_system_prompt, tmux,
};
use serde_json::json;

/// A teammate to start, resolved from the input.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Its sanitised name.
    pub(crate) name: String,
    /// Its task.
    pub(crate) prompt: String,
    /// Its agent type.
    pub(crate) agent_type: String,
}

/// StructuredOutput belongs to the session that asked for it; MCP tools stay (as for background
/// agents).
const NEVER_INHERITED: &str = "StructuredOutput";

/// The caller's tools an in-process teammate keeps, in pool order: those whose scope reaches
/// teammates (Claude Code's background and teammate sets), MCP tools, never StructuredOutput.
pub(crate) fn teammate_tools(ctx: &ToolUseContext) -> Vec<String> {
    ctx.options
        .tools
        .iter()
        .filter(|tool| tool.name() != NEVER_INHERITED)
        .filter(|tool| tool.name().starts_with("mcp__") || tool.capabilities().scope.in_teammates())
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// The task description a teammate's background task is known by.
pub(crate) fn task_description(team: &str, name: &str) -> String {
    format!("{name} (team {team})")
}

/// Starts `plan` as a background sub-agent and adds it to the team's config (before it runs);
/// returns its member entry.
pub(crate) fn start_in_process(
    ctx: &ToolUseContext,
    runner: &Arc<dyn SubagentRunner>,
    team: &Team,
    plan: &Plan,
) -> Result<Member, String> {
    let registry = TaskRegistry::for_context(ctx);
    let description = task_description(team.name(), &plan.name);
    let task = registry
        .register_agent(AgentTaskSpec {
            description: description.clone(),
            prompt: plan.prompt.clone(),
            agent_type: plan.agent_type.clone(),
            name: Some(plan.name.clone()),
            tool_use_id: ctx.tool_use_id.clone(),
            owner: ctx.agent_id.clone(),
            notifications: Some(ctx.notifications()),
        })
        .map_err(|error| format!("cannot start {}: {error}", plan.name))?;
    let request = SubagentRequest {
        agent_id: task.id.clone(),
        agent_type: plan.agent_type.clone(),
        description: description.clone(),
        prompt: plan.prompt.clone(),
        system_prompt: teammate_system_prompt(team.name(), &plan.name),
        model: None,
        tools: teammate_tools(ctx),
        // It asks for no mode of its own: the lead's, through the one narrowing rule.
        permission_mode: Some(subagent_permission_mode(ctx.permission_context.mode, None)),
        // The lead is the main conversation (a sub-agent cannot lead a team): nothing to add.
        tool_restrictions: Vec::new(),
        cwd: None,
        background: true,
        max_turns: None,
        output_schema: None,
        omit_claude_md: false,
        transcript: Some(task.output_path.clone()),
        inbox: task.inbox.clone(),
        allow_rules: Vec::new(),
    };
    let member = Member {
        agent_id: team.agent_id(&plan.name),
        name: plan.name.clone(),
        agent_type: plan.agent_type.clone(),
        backend: Backend::InProcess,
        task_id: Some(task.id.clone()),
        tmux_pane: None,
        cwd: ctx.cwd.clone(),
    };
    // In the config before the teammate runs, so its first SendMessage is signed with its name.
    if let Err(error) = team.add_member(member.clone()) {
        let end = AgentEnd { status: TaskStatus::Failed, result: error.to_string(), notification: None };
        registry.finish_agent(&task.id, end);
        return Err(format!("cannot add {} to the team: {error}", plan.name));
    }
    // The teammate outlives this call: only stopping its task (TeamDelete, TaskStop, the
    // session's end) stops it.
    let mut own = ctx.clone();
    own.cancel = task.cancel.clone();
    let (runner, id) = (Arc::clone(runner), task.id.clone());
    let output_file = task.output_path.display().to_string();
    let tool_use_id = ctx.tool_use_id.clone();
    tokio::spawn(async move {
        let ended = runner.run(request, &own).await.map_err(|error| match error {
            SubagentError::Cancelled => "The teammate was stopped before it finished.".to_owned(),
            other => other.to_string(),
        });
        let notification = task_notification(&id, tool_use_id.as_deref(), &output_file, &description, &ended);
        registry.finish_agent(&id, AgentEnd::of_run(&ended, Some(notification)));
    });
    Ok(member)
}

/// The folder a tmux teammate starts in: where the session was launched, where the lead's
/// rules are anchored (so the rules it is handed mean the same paths).
pub(crate) fn tmux_cwd(ctx: &ToolUseContext) -> PathBuf {
    ctx.permission_context.launch_dir.clone().unwrap_or_else(|| ctx.original_cwd.clone())
}

/// The settings a tmux teammate is started with: the lead's deny and ask rules (every source),
/// so the teammate is refused at least what the lead is.
pub(crate) fn inherited_settings(ctx: &ToolUseContext) -> serde_json::Value {
    let rules = |behavior| -> Vec<String> {
        ctx.permission_context.rules_by_source(behavior).values().flatten().cloned().collect()
    };
    json!({"permissions": {"deny": rules(PermissionBehavior::Deny), "ask": rules(PermissionBehavior::Ask)}})
}

/// What a tmux teammate process needs, from the tool's configuration.
pub(crate) struct TmuxLaunch<'a> {
    pub(crate) tmux: &'a TmuxConfig,
    pub(crate) program: &'a Path,
    pub(crate) teams_dir: &'a Path,
    pub(crate) config: &'a TeamConfig,
}

/// Adds `plan` to the team's config and starts it as `agent-tools agent --teammate TEAM/NAME`
/// in the team's tmux session, its task waiting in its mailbox (the task never goes on a
/// command line); returns its member entry. Blocking (runs tmux).
pub(crate) fn start_tmux(
    ctx: &ToolUseContext,
    launch: &TmuxLaunch<'_>,
    team: &Team,
    plan: &Plan,
) -> Result<Member, String> {
    let cwd = tmux_cwd(ctx);
    let launch_dir = team.dir().join("launch");
    std::fs::create_dir_all(&launch_dir).map_err(|error| format!("cannot make {}: {error}", launch_dir.display()))?;
    let settings = launch_dir.join(format!("{}.settings.json", plan.name));
    let text = inherited_settings(ctx).to_string();
    agent_tools_team::files::write_atomic(&settings, text.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", settings.display()))?;
    let mut args: Vec<OsString> = vec![
        "agent".into(),
        "--teammate".into(),
        format!("{}/{}", team.name(), plan.name).into(),
        "--teams-dir".into(),
        launch.teams_dir.as_os_str().to_owned(),
        "--cwd".into(),
        cwd.as_os_str().to_owned(),
        "--permission-mode".into(),
        subagent_permission_mode(ctx.permission_context.mode, None).as_str().into(),
        "--settings".into(),
        settings.as_os_str().to_owned(),
    ];
    let model = ctx.options.main_loop_model.trim();
    if !model.is_empty() {
        args.extend(["--model".into(), model.into()]);
    }
    if let Some(idle) = launch.config.teammate_idle_timeout {
        args.extend(["--teammate-idle-secs".into(), idle.as_secs().max(1).to_string().into()]);
    }
    let mut member = Member {
        agent_id: team.agent_id(&plan.name),
        name: plan.name.clone(),
        agent_type: plan.agent_type.clone(),
        backend: Backend::Tmux,
        task_id: None,
        tmux_pane: None,
        cwd: cwd.clone(),
    };
    // In the config before the process starts: the teammate checks that it is a member.
    team.add_member(member.clone()).map_err(|error| format!("cannot add {} to the team: {error}", plan.name))?;
    let task = Message::new(LEAD_NAME, plan.prompt.clone(), Some("your task".into()));
    if let Err(error) = team.append_message(&plan.name, task) {
        let _ = team.remove_member(&plan.name);
        return Err(format!("cannot send {} its task: {error}", plan.name));
    }
    let pane = match tmux::spawn(launch.tmux, team.name(), &plan.name, &cwd, launch.program, &args) {
        Ok(pane) => pane,
        Err(error) => {
            let _ = team.remove_member(&plan.name);
            return Err(format!("cannot start {} in tmux: {error}", plan.name));
        }
    };
    let _ = team.update_member(&plan.name, |entry| entry.tmux_pane = Some(pane.clone()));
    member.tmux_pane = Some(pane);
    Ok(member)
}
