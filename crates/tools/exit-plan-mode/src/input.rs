//! ExitPlanMode's input: optional permission requests, and the fields a host may inject.

use schemars::JsonSchema;
use serde::Deserialize;

/// ExitPlanMode's input (Claude Code's V2 field names). The plan itself is not a model input: it
/// is read from the plan file. `plan` and `planFilePath` are what Claude Code's hosts inject
/// (SDK, hooks, a plan the user edited); unknown fields are refused.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExitPlanModeInput {
    /// Prompt-based permissions the implementation will need: categories of actions ("run
    /// tests", "install dependencies"), not exact commands.
    #[serde(default)]
    pub allowed_prompts: Option<Vec<AllowedPrompt>>,
    /// Set by the host, not the model: the plan text, when it comes from elsewhere than the plan
    /// file (for instance a plan the user edited). It replaces the plan file's content. Leave it
    /// out; write the plan to the plan file instead.
    #[serde(default)]
    pub plan: Option<String>,
    /// Set by the host, not the model: where the plan file is. Informational only; the plan
    /// file is always the session's own. Leave it out.
    #[serde(default)]
    pub plan_file_path: Option<String>,
}

/// One prompt-based permission request.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllowedPrompt {
    /// The tool the request is for.
    pub tool: PromptTool,
    /// What the action is, in a few words, e.g. "run tests", "install dependencies".
    pub prompt: String,
}

/// The tools an [`AllowedPrompt`] may name (Claude Code accepts only Bash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum PromptTool {
    /// The Bash tool.
    Bash,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_claude_codes_fields() {
        let input: ExitPlanModeInput = serde_json::from_value(json!({
            "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}],
            "plan": "# Plan",
            "planFilePath": "/p.md"
        }))
        .unwrap();
        assert_eq!(input.allowed_prompts.unwrap()[0].prompt, "run tests");
        assert_eq!(input.plan.as_deref(), Some("# Plan"));
        assert_eq!(input.plan_file_path.as_deref(), Some("/p.md"));
        assert!(
            serde_json::from_value::<ExitPlanModeInput>(json!({"allowedPrompts": [{"tool": "Edit", "prompt": "x"}]}))
                .is_err()
        );
    }
}
