//! Skill's output and the texts the model sees.

use agent_tools_core::quote::quote;
use serde::Serialize;

/// What a successful inline call returns (Claude Code's `{success, commandName, allowedTools?,
/// model?}`); the skill's text itself travels as a new user message after the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillOutput {
    /// Always `true` (failures are error results).
    pub success: bool,
    /// The skill's name.
    pub command_name: String,
    /// The skill's `allowed-tools`, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// The skill's `model`, when it sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A forked skill's (`context: fork`) report: it ran as a sub-agent, which wrote this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The sub-agent a forked skill ran as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// The `tool_result` text of a forked skill: its sub-agent's report.
pub fn forked(name: &str, report: &str) -> String {
    format!("Skill \"{name}\" completed (forked execution).\n\nResult:\n{report}")
}

/// The `tool_result` text of an inline call: `Launching skill: NAME`.
pub fn launching(name: &str) -> String {
    format!("Launching skill: {name}")
}

/// Validation message for a blank name (error code 1).
pub fn invalid_format(skill: &str) -> String {
    format!("Invalid skill format: {skill}")
}

/// Validation message for a name no skill has (error code 2).
pub fn unknown(name: &str) -> String {
    format!("Unknown skill: {}", quote(name))
}

/// Validation message for a skill with `disable-model-invocation` (error code 4).
pub fn model_invocation_disabled(name: &str) -> String {
    format!("Skill {name} cannot be used with Skill tool due to disable-model-invocation")
}

/// Validation message for a `context: fork` skill where nothing runs sub-agents (error code 8,
/// ours: an MCP server has no model to run one on).
pub fn fork_unsupported(name: &str) -> String {
    format!(
        "Skill {name} runs in a forked sub-agent (context: fork), and this host runs no sub-agents. Follow the skill's steps yourself or ask the user to run it."
    )
}

/// The permission question for a skill that asks.
pub fn execute_question(name: &str) -> String {
    format!("Execute skill: {name}")
}

/// The text of the user message that carries the skill: its base folder, then its expanded body.
pub fn injected(base_dir: &std::path::Path, body: &str) -> String {
    format!("Base directory for this skill: {}\n\n{}", base_dir.display(), body.trim_end())
}
