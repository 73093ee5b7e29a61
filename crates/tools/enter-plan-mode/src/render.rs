//! EnterPlanMode's output → `tool_result` text. The exact strings live here.

use serde::Serialize;

/// What EnterPlanMode produced (Claude Code's `{message}`, plus the plan file it named; camelCase
/// keys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnterPlanModeOutput {
    /// The confirmation ([`ENTERED`]).
    pub message: String,
    /// The session's plan file: where the model writes its plan, and where ExitPlanMode reads it.
    pub plan_file_path: String,
}

/// The confirmation message (the output's `message`).
pub const ENTERED: &str =
    "Entered plan mode. Explore the code and design an implementation approach before changing anything.";

/// The error when a sub-agent calls EnterPlanMode (Claude Code refuses it in agent contexts).
pub const NOT_IN_SUB_AGENTS: &str = "EnterPlanMode cannot be used by a sub-agent: only the main conversation can \
                                     enter plan mode. Carry on with the task you were given.";

/// The result text: the message, then what to do in plan mode, naming the plan file.
pub fn result_text(output: &EnterPlanModeOutput) -> String {
    format!(
        "{message}\n\n\
         While in plan mode:\n\
         1. Read the relevant code to learn how it is built and which patterns it follows.\n\
         2. Look for existing features that solve a similar problem.\n\
         3. Weigh more than one approach and their trade-offs.\n\
         4. If something is unclear, ask the user (AskUserQuestion, where available) instead of guessing.\n\
         5. Settle on a concrete, step-by-step implementation plan.\n\
         6. Write the plan to the plan file, {path}, with the Write tool (Edit it to revise it).\n\
         7. Call ExitPlanMode when the plan is ready: the user reviews it there.\n\n\
         Do not create, change or delete any file other than the plan file until the user has approved \
         the plan: this is a read-only phase of exploring and planning.",
        message = output.message,
        path = output.plan_file_path,
    )
}
