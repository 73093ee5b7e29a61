//! A `context: fork` skill: it runs as a sub-agent (Claude Code's forked skill execution)
//! through the context's runner, with the caller's tools minus those no sub-agent inherits,
//! the skill's `allowed-tools` as allow rules and its `model`, and its report is the result.

use agent_tools_background::{AgentEnd, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::subagent_permission_mode;
use agent_tools_core::{SubagentError, SubagentRequest};
use agent_tools_core::{ToolError, ToolUseContext};

use crate::render::{self, SkillOutput};
use crate::skills::Skill;

/// The system prompt of a forked skill's agent.
const SYSTEM_PROMPT: &str = "You are a sub-agent running one skill for the agent that started you. The first message \
holds the skill's instructions: follow them with your tools, step by step, and finish with a short report of what \
you did and found — it is the only thing the caller sees. Do not ask questions: nobody can answer them.";

/// Runs the skill `name` (whose instructions, expanded, are `text`) as a sub-agent and waits
/// for its report.
pub(crate) async fn run(
    name: &str,
    skill: &Skill,
    text: String,
    ctx: &ToolUseContext,
) -> Result<SkillOutput, ToolError> {
    let runner = ctx.subagents.clone().ok_or_else(|| ToolError::failed(render::fork_unsupported(name)))?;
    let agent_type = skill
        .frontmatter
        .get("agent")
        .map(|value| value.to_text().trim().to_owned())
        .filter(|agent| !agent.is_empty())
        .unwrap_or_else(|| "general-purpose".to_owned());
    let registry = TaskRegistry::for_context(ctx);
    let task = registry
        .register_agent(AgentTaskSpec {
            description: format!("Skill {name}"),
            prompt: text.clone(),
            agent_type: agent_type.clone(),
            name: None,
            tool_use_id: ctx.tool_use_id.clone(),
            owner: ctx.agent_id.clone(),
            notifications: Some(ctx.notifications()),
        })
        .map_err(|error| ToolError::failed(format!("Cannot start the skill's agent: {error}")))?;
    let tools = ctx
        .options
        .tools
        .iter()
        .filter(|tool| tool.capabilities().scope.in_subagents())
        .map(|tool| tool.name().to_owned())
        .collect();
    let model = skill.model().map(|model| runner.resolve_model(&model, &ctx.options.main_loop_model));
    let request = SubagentRequest {
        agent_id: task.id.clone(),
        agent_type,
        description: format!("Skill {name}"),
        prompt: text,
        system_prompt: SYSTEM_PROMPT.to_owned(),
        model,
        tools,
        transcript: Some(task.output_path.clone()),
        inbox: task.inbox.clone(),
        allow_rules: skill.allowed_tools(),
        // A skill asks for no mode: the caller's, through the one narrowing rule. The caller's
        // tool restrictions reach the skill's agent with its permission context.
        permission_mode: Some(subagent_permission_mode(ctx.permission_context.mode, None)),
        ..SubagentRequest::default()
    };
    // It stops with this call, and with TaskStop on its task.
    let cancel = task.cancel_with(&ctx.cancel);
    let mut own = ctx.clone();
    own.cancel = cancel.token.clone();
    let ended = runner.run(request, &own).await;
    match ended {
        Ok(outcome) => {
            let report = outcome.report();
            registry.finish_agent(
                &task.id,
                AgentEnd { status: TaskStatus::Completed, result: report.clone(), notification: None },
            );
            Ok(SkillOutput {
                success: true,
                command_name: name.to_owned(),
                allowed_tools: None,
                model: skill.model(),
                result: Some(report),
                agent_id: Some(task.id),
            })
        }
        Err(error) => {
            let text = match error {
                SubagentError::Cancelled => format!("Skill {name} was stopped before it finished."),
                other => format!("Skill {name} failed: {other}"),
            };
            registry.finish_agent(
                &task.id,
                AgentEnd { status: TaskStatus::Failed, result: text.clone(), notification: None },
            );
            Err(ToolError::failed(text))
        }
    }
}
