//! AskUserQuestion's output → `tool_result` text. The exact strings live here.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::input::{Annotation, Answers, Question};

/// What AskUserQuestion produced: the questions echoed with the user's answers (Claude Code's
/// output data: `{questions, answers, annotations?}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AskUserQuestionOutput {
    /// The questions that were asked.
    pub questions: Vec<Question>,
    /// Question text → the user's answer, in the order given.
    pub answers: Answers,
    /// Question text → what the user added (a selected preview, notes), when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, Annotation>>,
}

/// The question the permission step shows (Claude Code's "Answer questions?").
pub const QUESTION: &str = "Answer questions?";

/// The start of the result text.
pub const ANSWERED: &str = "User has answered your questions: ";

/// The end of the result text.
pub const CONTINUE: &str = ". You can now continue with the user's answers in mind.";

/// The refusal inside a sub-agent (validation error code 1): only the main agent talks to the
/// user, as in Claude Code, where sub-agents do not get this tool.
pub const NOT_IN_SUB_AGENTS: &str = "AskUserQuestion is not available to sub-agents: only the main agent can ask \
                                     the user. Decide with what you have, and say in your result what you assumed.";

/// The failure when the call arrives without any answer: the host let it run without showing
/// the questions to anyone.
pub const NO_ANSWERS: &str = "The questions were not shown to the user, so there are no answers. Go on without \
                              them, or ask in your reply instead.";

/// The result text, as Claude Code builds it: [`ANSWERED`], then `"<question>"="<answer>"` per
/// answer joined by `", "` — each followed by ` selected preview:\n<preview>` and
/// ` user notes: <notes>` when the annotations carry them — then [`CONTINUE`].
pub fn result_text(output: &AskUserQuestionOutput) -> String {
    let entries: Vec<String> = output
        .answers
        .0
        .iter()
        .map(|(question, answer)| {
            let mut entry = format!("\"{question}\"=\"{answer}\"");
            if let Some(annotation) = output.annotations.as_ref().and_then(|all| all.get(question)) {
                if let Some(preview) = &annotation.preview {
                    entry.push_str(&format!(" selected preview:\n{preview}"));
                }
                if let Some(notes) = &annotation.notes {
                    entry.push_str(&format!(" user notes: {notes}"));
                }
            }
            entry
        })
        .collect();
    format!("{ANSWERED}{}{CONTINUE}", entries.join(", "))
}

pub use agent_tools_core::join_choices;
