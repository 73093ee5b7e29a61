//! # agent-tool-list-agents: the ListAgents tool
//!
//! The agents of this session — every agent an Agent call started, at any depth, running or
//! stopped — so the model can find the id or name to give SendMessage or TaskStop. Claude Code
//! 2.1.332 offers a `ListAgents` tool (input `channel`, `q`, `cursor`, each at most 256
//! characters) in place of the retired team tools; its output format is not public, so ours is:
//!
//! ```text
//! 2 agents:
//! - a1b2c3d4e (scout) general-purpose, running: Survey the parser
//! - a9x8y7w6v Explore, completed: Find the config loader
//! ```
//!
//! `q` keeps the agents whose id, name, type or description contains it (any case); `channel`
//! keeps those whose type is it (a team's channel in Claude Code; here the agent type). At most
//! [`PAGE`] agents are listed at a time, newest first; `cursor` (the `next_cursor` of the last
//! page) lists the next ones. Read-only and concurrency-safe; not deferred, as in Claude Code.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_background::{AgentTaskSpec, TaskRegistry};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let spec = AgentTaskSpec {
//!     description: "Survey the parser".into(),
//!     agent_type: "general-purpose".into(),
//!     name: Some("scout".into()),
//!     ..AgentTaskSpec::default()
//! };
//! let task = TaskRegistry::for_context(&ctx).register_agent(spec).unwrap();
//! let done = call_tool(agent_tool_list_agents::tool().as_ref(), "toolu_1", serde_json::json!({}), &ctx).await;
//! assert_eq!(
//!     done.block.content.text(),
//!     format!("1 agent:\n- {} (scout) general-purpose, running: Survey the parser", task.id)
//! );
//! # });
//! ```

use agent_tools_core::{Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_background::{TaskRegistry, TaskSnapshot, TaskType};
use agent_tools_core::{
    PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tool's API name.
pub const NAME: &str = "ListAgents";

/// Most agents listed at once.
pub const PAGE: usize = 50;

/// Most characters of each input field (Claude Code's schema says 256).
pub const MAX_FIELD_CHARS: usize = 256;

/// ListAgents' input (Claude Code 2.1.332's fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListAgentsInput {
    /// Only agents of this type
    #[serde(default)]
    #[schemars(length(max = 256))]
    pub channel: Option<String>,
    /// Only agents whose id, name, type or description contains this text
    #[serde(default)]
    #[schemars(length(max = 256))]
    pub q: Option<String>,
    /// The next_cursor of the previous page
    #[serde(default)]
    #[schemars(length(max = 256))]
    pub cursor: Option<String>,
}

/// One agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentEntry {
    /// Its id (also its task id).
    pub agent_id: String,
    /// The name its Agent call gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its type.
    pub agent_type: String,
    /// `running`, `completed`, `failed` or `killed`.
    pub status: String,
    /// The Agent call's description.
    pub description: String,
}

/// ListAgents' output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListAgentsOutput {
    /// The agents of this page, newest first.
    pub agents: Vec<AgentEntry>,
    /// How many agents match in all.
    pub total: usize,
    /// The cursor for the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The ListAgents tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListAgentsTool;

/// The tool.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ListAgentsTool)
}

fn matches(task: &TaskSnapshot, input: &ListAgentsInput) -> bool {
    let agent_type = task.agent_type.as_deref().unwrap_or_default();
    if let Some(channel) = input.channel.as_deref().map(str::trim).filter(|channel| !channel.is_empty())
        && agent_type != channel
    {
        return false;
    }
    let Some(q) = input.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) else { return true };
    let q = q.to_lowercase();
    [Some(task.id.as_str()), task.name.as_deref(), Some(agent_type), Some(task.description.as_str())]
        .into_iter()
        .flatten()
        .any(|field| field.to_lowercase().contains(&q))
}

impl ToolDef for ListAgentsTool {
    type Input = ListAgentsInput;
    type Output = ListAgentsOutput;

    const NAME: &'static str = NAME;

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .flags(ToolFlags::LOCAL_READ_ONLY)
        .search_hint("list the session's sub-agents and their status");

    fn summary(&self, _input: &ListAgentsInput) -> String {
        "List the session's agents".to_owned()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "List the agents of this session (the ones Agent calls started, running or stopped), newest first, with \
         each one's agentId, name, type, status and description. Use it to find whom to address with SendMessage \
         or stop with TaskStop. `q` filters by text, `channel` by agent type; a long list comes in pages, continued \
         with `cursor`."
            .to_owned()
    }

    async fn validate_input(&self, input: &ListAgentsInput, _ctx: &ToolUseContext) -> ValidationResult {
        for (field, value) in [("channel", &input.channel), ("q", &input.q), ("cursor", &input.cursor)] {
            if value.as_ref().is_some_and(|value| value.chars().count() > MAX_FIELD_CHARS) {
                return ValidationResult::error(format!("{field} must be at most {MAX_FIELD_CHARS} characters"), 1);
            }
        }
        ValidationResult::Ok
    }

    async fn call(
        &self,
        input: ListAgentsInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<ListAgentsOutput>, ToolError> {
        let skip = match input.cursor.as_deref().map(str::trim).filter(|cursor| !cursor.is_empty()) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| ToolError::failed(format!("cursor {cursor:?} is not one this tool gave")))?,
        };
        let mut tasks: Vec<TaskSnapshot> = TaskRegistry::existing(ctx)
            .map(|registry| registry.list())
            .unwrap_or_default()
            .into_iter()
            .filter(|task| task.task_type == TaskType::LocalAgent && matches(task, &input))
            .collect();
        tasks.reverse();
        let total = tasks.len();
        let agents: Vec<AgentEntry> = tasks
            .into_iter()
            .skip(skip)
            .take(PAGE)
            .map(|task| AgentEntry {
                agent_id: task.id,
                name: task.name,
                agent_type: task.agent_type.unwrap_or_default(),
                status: task.status.as_str().to_owned(),
                description: task.description,
            })
            .collect();
        let next = skip + agents.len();
        let next_cursor = (next < total).then(|| next.to_string());
        Ok(ToolResult::new(ListAgentsOutput { agents, total, next_cursor }))
    }

    fn map_tool_result(&self, output: &ListAgentsOutput, tool_use_id: &str) -> ToolResultBlock {
        if output.total == 0 {
            return ToolResultBlock::text(tool_use_id, "No agents in this session.");
        }
        let mut text = format!("{} agent{}:", output.total, if output.total == 1 { "" } else { "s" });
        for agent in &output.agents {
            let name = agent.name.as_deref().map(|name| format!(" ({name})")).unwrap_or_default();
            text.push_str(&format!(
                "\n- {}{name} {}, {}: {}",
                agent.agent_id, agent.agent_type, agent.status, agent.description
            ));
        }
        if let Some(cursor) = &output.next_cursor {
            text.push_str(&format!("\nMore agents: call again with cursor \"{cursor}\"."));
        }
        ToolResultBlock::text(tool_use_id, text)
    }
}
