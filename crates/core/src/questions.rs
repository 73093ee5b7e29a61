//! Questions put to the user with options to choose from, and the answers that come back: the
//! shapes AskUserQuestion's input uses (Claude Code's field names), and [`Interaction`], what a
//! tool asks the user beyond yes or no, so a front end (a terminal, an MCP elicitation form)
//! can show it without knowing the tool.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Fewest options per question (Claude Code's 2).
pub const MIN_OPTIONS: usize = 2;
/// Most options per question (Claude Code's 4).
pub const MAX_OPTIONS: usize = 4;
/// The refinement message for a repeated option label within one question.
pub const DUPLICATE_LABELS: &str = "Option labels must be unique within each question";

/// What a tool asks the user beyond a yes or no, when its permission question is put (see
/// `Tool::interaction`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Interaction {
    /// Questions with options (AskUserQuestion): the answers go back into the input's `answers`
    /// ([`with_answers`]).
    Questions(Vec<Question>),
    /// A plan for the user to approve before the session leaves plan mode (ExitPlanMode); the
    /// permission question's message holds it too.
    Plan {
        /// The plan, in Markdown.
        plan: String,
    },
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

/// A multi-select answer: the chosen labels (and any text of the user's own) joined by `", "`,
/// the way Claude Code's dialog joins them.
pub fn join_choices<S: AsRef<str>>(choices: &[S]) -> String {
    choices.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
}

/// `input` with `answers` replaced by `answers`: what a prompter returns as the updated input
/// once the user has answered (the host re-parses it strictly before the call).
pub fn with_answers(input: &Value, answers: &Answers) -> Value {
    let mut updated = input.clone();
    if let Value::Object(fields) = &mut updated {
        let map = answers.0.iter().map(|(question, answer)| (question.clone(), Value::String(answer.clone())));
        fields.insert("answers".to_owned(), Value::Object(map.collect()));
    }
    updated
}

/// The first option label that repeats an earlier one.
pub fn repeated_label(options: &[QuestionOption]) -> Option<&str> {
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
