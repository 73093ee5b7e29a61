//! AskUserQuestion's input: the questions, and the answers a host fills in.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most questions per call (Claude Code's 4).
pub const MAX_QUESTIONS: usize = 4;
/// Fewest options per question (Claude Code's 2).
pub const MIN_OPTIONS: usize = 2;
/// Most options per question (Claude Code's 4).
pub const MAX_OPTIONS: usize = 4;

/// The refinement message for a repeated question text.
pub const DUPLICATE_QUESTIONS: &str = "Question texts must be unique";
/// The refinement message for a repeated option label within one question.
pub const DUPLICATE_LABELS: &str = "Option labels must be unique within each question";

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

/// One question with its choices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Question {
    /// The complete question to ask the user. Should be clear, specific, and end with a question
    /// mark.
    pub question: String,
    /// Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method",
    /// "Library", "Approach".
    pub header: String,
    /// The available choices for this question. Must have 2-4 options. The user can always answer
    /// with their own text ("Other") instead.
    #[serde(deserialize_with = "options")]
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<QuestionOption>,
    /// Set to true to allow the user to select multiple options instead of just one.
    #[serde(default)]
    pub multi_select: bool,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionOption {
    /// The display text for this option that the user will see and select. Should be concise
    /// (1-5 words).
    pub label: String,
    /// Explanation of what this option means or what will happen if chosen.
    pub description: String,
    /// Optional content shown when this option is focused: a code snippet, a mockup, a
    /// comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
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

/// The user's answers, question text → answer, in the order they were given (the result text
/// lists them in this order). A multi-select answer is the chosen labels joined by `", "`; an
/// "Other" answer is the user's own text.
///
/// JSON: an object of strings (`{"Which database?": "Postgres"}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answers(pub Vec<(String, String)>);

impl Answers {
    /// The answer to `question`, if there is one.
    pub fn get(&self, question: &str) -> Option<&str> {
        self.0.iter().find(|(text, _)| text == question).map(|(_, answer)| answer.as_str())
    }

    /// True when there is no answer at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Answers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (question, answer) in &self.0 {
            map.serialize_entry(question, answer)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Answers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde_json's map keeps insertion order (the workspace enables `preserve_order`).
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let mut answers = Vec::with_capacity(map.len());
        for (question, answer) in map {
            match answer {
                serde_json::Value::String(text) => answers.push((question, text)),
                _ => {
                    return Err(serde::de::Error::custom(format!("the answer to \"{question}\" must be a string")));
                }
            }
        }
        Ok(Self(answers))
    }
}

impl JsonSchema for Answers {
    fn schema_name() -> Cow<'static, str> {
        "Answers".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object", "additionalProperties": {"type": "string"}})
    }
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

fn repeated_label(options: &[QuestionOption]) -> Option<&str> {
    options
        .iter()
        .enumerate()
        .find(|(index, option)| options[..*index].iter().any(|earlier| earlier.label == option.label))
        .map(|(_, option)| option.label.as_str())
}

fn options<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<QuestionOption>, D::Error> {
    let options = Vec::<QuestionOption>::deserialize(deserializer)?;
    if options.len() < MIN_OPTIONS || options.len() > MAX_OPTIONS {
        return Err(serde::de::Error::custom(format!(
            "must hold {MIN_OPTIONS} to {MAX_OPTIONS} options ({} given)",
            options.len()
        )));
    }
    Ok(options)
}
