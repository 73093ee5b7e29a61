//! The Agent tool's input, as Claude Code 2.1.332's (`AgentInput` in its `sdk-tools.d.ts`).

use schemars::JsonSchema;
use serde::Deserialize;

/// A model alias for the sub-agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModelAlias {
    /// The Sonnet family.
    Sonnet,
    /// The Opus family.
    Opus,
    /// The Haiku family.
    Haiku,
}

impl ModelAlias {
    /// The alias as written (`sonnet`, `opus`, `haiku`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sonnet => "sonnet",
            Self::Opus => "opus",
            Self::Haiku => "haiku",
        }
    }
}

/// A reasoning effort (accepted for compatibility; the loop does not set an effort yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Extra high.
    Xhigh,
    /// The most.
    Max,
}

/// Where the sub-agent works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// A fresh git worktree of the repository (`.claude/worktrees/agent-<8 chars>`).
    Worktree,
    /// A remote cloud environment (Claude Code only; refused here).
    Remote,
}

/// The Agent tool's input. Unknown fields are dropped, not refused (Claude Code's schema is not
/// strict for this tool).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// A short (3-5 word) description of the task
    pub description: String,
    /// The task for the agent to perform
    pub prompt: String,
    /// The type of specialized agent to use for this task
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    /// Optional model for this agent: an alias of a model family. Takes precedence over the
    /// agent definition's model; when omitted the definition's model is used, else the caller's.
    #[serde(default)]
    pub model: Option<ModelAlias>,
    /// Reasoning effort for this agent. Set it only when the user or instructions ask for one.
    #[serde(default)]
    pub effort: Option<Effort>,
    /// Agents run in the background by default and you are notified when one completes. Set to
    /// false only when your very next step needs this agent's result.
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// A name for the agent, so SendMessage({to: name}) can reach it while it runs.
    #[serde(default)]
    pub name: Option<String>,
    /// Deprecated and ignored (the session has one implicit team).
    #[serde(default)]
    pub team_name: Option<String>,
    /// Deprecated and ignored: sub-agents inherit the caller's permission mode; an agent
    /// definition's `permissionMode` may change it.
    #[serde(default)]
    pub mode: Option<String>,
    /// "worktree" runs the agent in a temporary git worktree, an isolated copy of the repository.
    #[serde(default)]
    pub isolation: Option<Isolation>,
}

/// The input's field names, for dropping unknown ones.
pub(crate) const FIELDS: &[&str] = &[
    "description",
    "prompt",
    "subagent_type",
    "model",
    "effort",
    "run_in_background",
    "name",
    "team_name",
    "mode",
    "isolation",
];
