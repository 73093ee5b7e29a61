//! Skill's input.

use schemars::JsonSchema;
use serde::Deserialize;

/// Skill's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillInput {
    /// The skill name. E.g., "commit", "review-pr", or "pdf"
    pub skill: String,
    /// Optional arguments for the skill
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
}

impl SkillInput {
    /// The name as the model wrote it, trimmed and without one leading `/`.
    pub fn name(&self) -> &str {
        let trimmed = self.skill.trim();
        trimmed.strip_prefix('/').unwrap_or(trimmed)
    }
}
