//! TeamCreate's input: Claude Code's three fields, and `members` (ours).

use schemars::JsonSchema;
use serde::Deserialize;

/// A teammate to start with the team.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberSpec {
    /// The teammate's name (lowercase letters, digits and '-'; other characters become '-'), by which SendMessage reaches it
    pub name: String,
    /// The teammate's task: its first message, with everything it needs to know
    pub prompt: String,
    /// The teammate's agent type (default general-purpose)
    #[serde(default)]
    pub agent_type: Option<String>,
}

/// TeamCreate's input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamCreateInput {
    /// Name for the new team
    pub team_name: String,
    /// What the team is for
    #[serde(default)]
    pub description: Option<String>,
    /// The type or role of the team lead
    #[serde(default)]
    pub agent_type: Option<String>,
    /// Teammates to start now, each with its name and task
    #[serde(default)]
    pub members: Vec<MemberSpec>,
}
