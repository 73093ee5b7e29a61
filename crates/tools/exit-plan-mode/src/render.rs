//! ExitPlanMode's output → `tool_result` text, and the texts of its question and refusal. The
//! exact strings live here.

use serde::Serialize;

use crate::input::AllowedPrompt;

/// What ExitPlanMode produced (Claude Code's output data, camelCase keys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitPlanModeOutput {
    /// The approved plan; `None` when the plan file was missing or blank.
    pub plan: Option<String>,
    /// True inside a sub-agent.
    pub is_agent: bool,
    /// The plan file.
    pub file_path: String,
    /// True when the host supplied a plan (`plan` in the input) that differs from what the plan
    /// file held, e.g. a plan the user edited; it was written to the plan file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub plan_was_edited: bool,
}

/// The validation error outside plan mode (error code 1).
pub const NOT_IN_PLAN_MODE: &str = "You are not in plan mode. ExitPlanMode only ends plan mode once a plan is \
                                    written; if your plan was already approved, go on with the implementation.";

/// The question's first line (Claude Code's "Exit plan mode?").
pub const QUESTION: &str = "Exit plan mode?";

/// The approval a sub-agent reads.
pub const AGENT_APPROVED: &str =
    "The user approved the plan. Nothing else is needed from you now: reply with just \"ok\".";

/// The approval when there was no plan.
pub const APPROVED_WITHOUT_PLAN: &str = "The user approved leaving plan mode. You can go ahead now.";

/// The permission question: [`QUESTION`], then the plan (or a note that there is none) and the
/// permissions it asks for, so the user sees what they approve.
pub fn question(plan: Option<&str>, path: &str, allowed_prompts: &[AllowedPrompt]) -> String {
    let mut text = QUESTION.to_owned();
    match plan {
        Some(plan) => {
            text.push_str(&format!("\n\nThe plan ({path}):\n\n{}", plan.trim_end()));
        }
        None => text.push_str(&format!("\n\nNo plan was written: the plan file {path} is missing or empty.")),
    }
    if !allowed_prompts.is_empty() {
        text.push_str("\n\nThe plan asks permission to:");
        for request in allowed_prompts {
            text.push_str(&format!("\n- Bash: {}", request.prompt));
        }
    }
    text
}

/// The result text for the output (see the crate docs).
pub fn result_text(output: &ExitPlanModeOutput) -> String {
    if output.is_agent {
        return AGENT_APPROVED.to_owned();
    }
    let Some(plan) = output.plan.as_deref().filter(|plan| !plan.trim().is_empty()) else {
        return APPROVED_WITHOUT_PLAN.to_owned();
    };
    let label = if output.plan_was_edited { "Approved Plan (edited by user)" } else { "Approved Plan" };
    format!(
        "The user approved your plan: you can start implementing it now. If a todo list fits the work, update it \
         first.\n\n\
         The plan is saved at: {path}\n\
         Refer back to it during the implementation when you need to.\n\n\
         ## {label}:\n{plan}",
        path = output.file_path,
    )
}
