//! Questions with options (AskUserQuestion's) as one MCP elicitation form ([`questions_form`]) and the
//! tool's `answers` read back from the filled-in form ([`answers_from_form`]), as Claude Code's
//! question dialog offers them: every option of a question plus a free-text "other" answer; a
//! multi-select answer is the chosen labels joined by `", "`.

use agent_tools_core::{Answers, Question, join_choices};
use serde_json::{Map, Value};

fn plural(count: usize) -> String {
    if count == 1 { "a question".to_owned() } else { format!("{count} questions") }
}

/// The form property holding question `index`'s choice (`q1`, `q2`, …).
fn choice_key(index: usize) -> String {
    format!("q{}", index + 1)
}

/// The form property holding question `index`'s own answer (`q1_other`, …).
fn other_key(index: usize) -> String {
    format!("q{}_other", index + 1)
}

/// The text above the form: each question with its options described.
pub fn questions_message(questions: &[Question]) -> String {
    let mut message = format!("The assistant has {}:", plural(questions.len()));
    for (index, question) in questions.iter().enumerate() {
        let kind = if question.multi_select { " (choose one or more)" } else { "" };
        message.push_str(&format!("\n\n{}. [{}] {}{kind}", index + 1, question.header, question.question));
        for option in &question.options {
            message.push_str(&format!("\n   - {}: {}", option.label, option.description));
            if let Some(preview) = &option.preview {
                for line in preview.lines() {
                    message.push_str(&format!("\n       │ {line}"));
                }
            }
        }
    }
    message.push_str("\n\nAny question can be answered in your own words in its \"other\" field instead.");
    message
}

/// One elicitation form for all the questions: per question `qN`, a single choice among the
/// option labels (titled "label — description"), or for a multi-select question a text of
/// labels separated by commas (an elicitation form has only flat fields); and `qN_other`, an
/// optional answer in the user's own words. No field is required, so "Other" alone is a valid
/// answer.
pub fn questions_form(questions: &[Question]) -> rmcp::model::ElicitationSchema {
    use rmcp::model::{ElicitationSchema, EnumSchema, PrimitiveSchemaDefinition, StringSchema};
    let mut properties = std::collections::BTreeMap::new();
    for (index, question) in questions.iter().enumerate() {
        let labels: Vec<String> = question.options.iter().map(|option| option.label.clone()).collect();
        let choice = if question.multi_select {
            PrimitiveSchemaDefinition::String(StringSchema::new().title(question.header.clone()).description(format!(
                "{} Choose any of: {} (separate them with commas).",
                question.question,
                labels.join(", ")
            )))
        } else {
            let titles =
                question.options.iter().map(|option| format!("{} — {}", option.label, option.description)).collect();
            let builder = EnumSchema::builder(labels.clone())
                .title(question.header.clone())
                .description(question.question.clone());
            let schema = match builder.enum_titles(titles) {
                Ok(titled) => titled.build(),
                Err(_) => EnumSchema::builder(labels).title(question.header.clone()).build(),
            };
            PrimitiveSchemaDefinition::Enum(schema)
        };
        properties.insert(choice_key(index), choice);
        properties.insert(
            other_key(index),
            PrimitiveSchemaDefinition::String(
                StringSchema::new()
                    .title(format!("{}: other", question.header))
                    .description(format!("Or answer \"{}\" in your own words.", question.question)),
            ),
        );
    }
    ElicitationSchema::new(properties)
}

/// The labels in a multi-select answer: a text separated by commas (or, from a client that sends
/// one, an array), each item matched to an option's label in any case; unknown items are kept
/// as typed.
fn multi_choice(question: &Question, value: &Value) -> Vec<String> {
    let items: Vec<String> = match value {
        Value::String(text) => text.split(',').map(|item| item.trim().to_owned()).collect(),
        Value::Array(items) => items.iter().filter_map(Value::as_str).map(|item| item.trim().to_owned()).collect(),
        _ => Vec::new(),
    };
    let mut picked: Vec<String> = Vec::new();
    for item in items.into_iter().filter(|item| !item.is_empty()) {
        let item = question
            .options
            .iter()
            .find(|option| option.label.eq_ignore_ascii_case(&item))
            .map_or(item, |option| option.label.clone());
        if !picked.contains(&item) {
            picked.push(item);
        }
    }
    picked
}

/// The answers in a filled-in [`questions_form`]: per question its choice (a multi-select one with
/// the own answer added), or the own answer alone for a single-choice question that has one.
/// `Err` lists the questions left without any answer.
pub fn answers_from_form(questions: &[Question], form: &Map<String, Value>) -> Result<Answers, Vec<String>> {
    let mut answers = Vec::with_capacity(questions.len());
    let mut missing = Vec::new();
    for (index, question) in questions.iter().enumerate() {
        let own = form.get(&other_key(index)).and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty());
        let choice = form.get(&choice_key(index));
        let answer = if question.multi_select {
            let mut picked = choice.map(|value| multi_choice(question, value)).unwrap_or_default();
            picked.extend(own.map(str::to_owned));
            (!picked.is_empty()).then(|| join_choices(&picked))
        } else {
            own.map(str::to_owned).or_else(|| {
                choice.and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned)
            })
        };
        match answer {
            Some(answer) => answers.push((question.question.clone(), answer)),
            None => missing.push(question.question.clone()),
        }
    }
    if missing.is_empty() { Ok(Answers(answers)) } else { Err(missing) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(multi: bool) -> Question {
        serde_json::from_value(json!({"question": "Which?", "header": "Pick", "multiSelect": multi, "options": [
            {"label": "Alpha", "description": "first"}, {"label": "Beta", "description": "second"},
            {"label": "Gamma", "description": "third", "preview": "fn gamma() {}"}]}))
        .unwrap()
    }

    #[test]
    fn the_form_is_flat_and_its_answers_are_read_back() {
        let questions = [question(false), {
            let mut q = question(true);
            q.question = "Which ones?".into();
            q
        }];
        let schema = serde_json::to_value(questions_form(&questions)).unwrap();
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["q1", "q1_other", "q2", "q2_other"]);
        assert!(schema.get("required").is_none_or(|r| r.as_array().is_some_and(Vec::is_empty)), "{schema}");
        let consts: Vec<&str> = schema["properties"]["q1"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["const"].as_str())
            .collect();
        assert_eq!(consts, ["Alpha", "Beta", "Gamma"]);
        assert_eq!(schema["properties"]["q2"]["type"], "string");
        for property in schema["properties"].as_object().unwrap().values() {
            assert!(property.get("properties").is_none() && property.get("items").is_none(), "flat: {property}");
        }

        let form = json!({"q1": "Beta", "q2": "gamma, Alpha, Zeta", "q2_other": "and docs"});
        let answers = answers_from_form(&questions, form.as_object().unwrap()).unwrap();
        assert_eq!(
            answers.0,
            vec![
                ("Which?".to_owned(), "Beta".to_owned()),
                ("Which ones?".to_owned(), "Gamma, Alpha, Zeta, and docs".to_owned())
            ]
        );
        let form = json!({"q1": "Beta", "q1_other": "Neither", "q2": ["Beta"]});
        let answers = answers_from_form(&questions, form.as_object().unwrap()).unwrap();
        assert_eq!(answers.get("Which?"), Some("Neither"));
        assert_eq!(answers.get("Which ones?"), Some("Beta"));
        let form = json!({"q1": "", "q2": 3});
        assert_eq!(
            answers_from_form(&questions, form.as_object().unwrap()),
            Err(vec!["Which?".to_owned(), "Which ones?".to_owned()])
        );
    }
}
