//! AskUserQuestion's input: the questions, and the answers a host fills in.

use std::collections::BTreeMap;

use agent_tools_core::repeated_label;
pub use agent_tools_core::{Answers, DUPLICATE_LABELS, MAX_OPTIONS, MIN_OPTIONS, Question, QuestionOption};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// Most questions per call (Claude Code's 4).
pub const MAX_QUESTIONS: usize = 4;

/// The refinement message for a repeated question text.
pub const DUPLICATE_QUESTIONS: &str = "Question texts must be unique";

/// AskUserQuestion's input (Claude Code's field names; strict: unknown keys are refused).
///
/// The model sends `questions`; `answers` (and `annotations`) are filled in by whoever asks the
/// user — the host's prompter, or an SDK-style host that already has the answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskUserQuestionInput {
    /// Questions to ask the user (1-4 questions)
    #[serde(deserialize_with = "questions")]
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<Question>,
    /// User answers collected by the permission component
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<Answers>,
    /// Optional per-question annotations from the user (e.g., notes on preview selections). Keyed
    /// by question text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, Annotation>>,
    /// Optional metadata for tracking and analytics purposes. Not displayed to user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// What the user added to one question's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Annotation {
    /// The preview content of the selected option, if the question used previews.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Free-text notes the user added to their selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// Tracking metadata (never shown to the user).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// Where the question came from (e.g. "remember" for a /remember command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

fn questions<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Question>, D::Error> {
    let questions = Vec::<Question>::deserialize(deserializer)?;
    if questions.is_empty() || questions.len() > MAX_QUESTIONS {
        return Err(serde::de::Error::custom(format!(
            "must hold 1 to {MAX_QUESTIONS} questions ({} given)",
            questions.len()
        )));
    }
    for (index, question) in questions.iter().enumerate() {
        if questions[..index].iter().any(|earlier| earlier.question == question.question) {
            return Err(serde::de::Error::custom(format!("{DUPLICATE_QUESTIONS} (\"{}\" repeats)", question.question)));
        }
        if let Some(label) = repeated_label(&question.options) {
            return Err(serde::de::Error::custom(format!(
                "{DUPLICATE_LABELS} (\"{label}\" repeats in \"{}\")",
                question.question
            )));
        }
    }
    Ok(questions)
}
