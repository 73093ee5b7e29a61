//! Showing AskUserQuestion's questions to the user and turning what they answer into the
//! tool's `answers` (Claude Code's question dialog): on the terminal ([`ask_on_terminal`]) and
//! as one MCP elicitation form ([`questions_form`], [`answers_from_form`]).
//!
//! Both offer every option of a question plus a free-text "Other" answer; a multi-select answer
//! is the chosen labels joined by `", "`, as Claude Code sends it to the model.

use std::io::{BufRead, Write};

use agent_tool_ask_user_question::{Answers, Question, join_choices};
use serde_json::{Map, Value};

/// Wrong answers in a row before the terminal gives up and counts the questions as declined.
const MAX_TRIES: usize = 5;

/// What one line typed at a question means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Choice {
    /// The answer (a label, several labels joined, or the user's own text).
    Answer(String),
    /// The "Other" number was chosen: ask for the user's own text, then add it to `picked` (the
    /// labels also chosen, for a multi-select question).
    Other {
        /// Labels chosen with "Other".
        picked: Vec<String>,
    },
    /// Not understood: ask again.
    Unclear,
}

/// Reads one line typed at `question`: a number (1..=options, options+1 is "Other"), for a
/// multi-select question several numbers separated by commas, an option's label (any case), or
/// any other text, taken as the user's own answer. An empty line, a number out of range, or
/// several numbers for a single-choice question are [`Choice::Unclear`].
pub(crate) fn parse_choice(question: &Question, line: &str) -> Choice {
    let line = line.trim();
    if line.is_empty() {
        return Choice::Unclear;
    }
    let other = question.options.len() + 1;
    // Digits only: a choice by number (one too long for `usize` is simply out of range).
    let number = |part: &str| {
        let part = part.trim();
        (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<usize>().unwrap_or(usize::MAX))
    };
    let numbers: Option<Vec<usize>> = line.split(',').map(number).collect();
    if let Some(numbers) = numbers {
        if numbers.iter().any(|n| *n == 0 || *n > other) || (!question.multi_select && numbers.len() != 1) {
            return Choice::Unclear;
        }
        let mut picked: Vec<String> = Vec::new();
        for n in &numbers {
            if let Some(option) = question.options.get(n - 1)
                && !picked.contains(&option.label)
            {
                picked.push(option.label.clone());
            }
        }
        return if numbers.contains(&other) { Choice::Other { picked } } else { Choice::Answer(join_choices(&picked)) };
    }
    match question.options.iter().find(|option| option.label.eq_ignore_ascii_case(line)) {
        Some(option) => Choice::Answer(option.label.clone()),
        None => Choice::Answer(line.to_owned()),
    }
}

/// Asks every question on the terminal (`input` reads what is typed, `out` shows the questions)
/// and returns the answers, or `None` when the user declines (end of input, Ctrl-D) or answers
/// unclearly [`MAX_TRIES`] times in a row.
pub(crate) fn ask_on_terminal(
    questions: &[Question],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> std::io::Result<Option<Answers>> {
    writeln!(out, "\nThe assistant has {} for you (Ctrl-D declines):", plural(questions.len()))?;
    let mut answers = Vec::with_capacity(questions.len());
    for question in questions {
        let Some(answer) = ask_one(question, input, out)? else {
            return Ok(None);
        };
        answers.push((question.question.clone(), answer));
    }
    Ok(Some(Answers(answers)))
}

fn plural(count: usize) -> String {
    if count == 1 { "a question".to_owned() } else { format!("{count} questions") }
}

fn read_line(input: &mut dyn BufRead) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    Ok((input.read_line(&mut line)? > 0).then_some(line))
}

fn ask_one(question: &Question, input: &mut dyn BufRead, out: &mut dyn Write) -> std::io::Result<Option<String>> {
    writeln!(out, "\n[{}] {}", question.header, question.question)?;
    for (index, option) in question.options.iter().enumerate() {
        writeln!(out, "  {}. {} — {}", index + 1, option.label, option.description)?;
        if let Some(preview) = &option.preview {
            for line in preview.lines() {
                writeln!(out, "       │ {line}")?;
            }
        }
    }
    let other = question.options.len() + 1;
    writeln!(out, "  {other}. Other (type your own answer)")?;
    let how = if question.multi_select {
        format!("numbers separated by commas, e.g. 1,{}", question.options.len())
    } else {
        "a number".to_owned()
    };
    for _ in 0..MAX_TRIES {
        write!(out, "Your answer ({how}, or your own words): ")?;
        out.flush()?;
        let Some(line) = read_line(input)? else {
            return Ok(None);
        };
        match parse_choice(question, &line) {
            Choice::Answer(answer) => return Ok(Some(answer)),
            Choice::Other { mut picked } => {
                write!(out, "Your own answer: ")?;
                out.flush()?;
                let Some(own) = read_line(input)? else {
                    return Ok(None);
                };
                let own = own.trim();
                if own.is_empty() {
                    writeln!(out, "No answer typed; choose again.")?;
                    continue;
                }
                picked.push(own.to_owned());
                return Ok(Some(join_choices(&picked)));
            }
            Choice::Unclear => {
                let range = if question.multi_select {
                    format!("one or more numbers from 1 to {other}, separated by commas")
                } else {
                    format!("one number from 1 to {other}")
                };
                writeln!(out, "Please answer with {range}, or type your own answer.")?;
            }
        }
    }
    Ok(None)
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
pub(crate) fn questions_message(questions: &[Question]) -> String {
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
pub(crate) fn questions_form(questions: &[Question]) -> rmcp::model::ElicitationSchema {
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
pub(crate) fn answers_from_form(questions: &[Question], form: &Map<String, Value>) -> Result<Answers, Vec<String>> {
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
    fn typed_lines_become_choices() {
        let single = question(false);
        assert_eq!(parse_choice(&single, "2\n"), Choice::Answer("Beta".into()));
        assert_eq!(parse_choice(&single, " beta "), Choice::Answer("Beta".into()));
        assert_eq!(parse_choice(&single, "4"), Choice::Other { picked: vec![] });
        assert_eq!(parse_choice(&single, "Delta, please"), Choice::Answer("Delta, please".into()));
        for unclear in ["", "  \n", "0", "5", "1,2", "99999999999999999999999"] {
            assert_eq!(parse_choice(&single, unclear), Choice::Unclear, "{unclear:?}");
        }
        let multi = question(true);
        assert_eq!(parse_choice(&multi, "3, 1"), Choice::Answer("Gamma, Alpha".into()));
        assert_eq!(parse_choice(&multi, "1,1"), Choice::Answer("Alpha".into()));
        assert_eq!(parse_choice(&multi, "2,4"), Choice::Other { picked: vec!["Beta".into()] });
        assert_eq!(parse_choice(&multi, "1,5"), Choice::Unclear);
    }

    fn terminal(questions: &[Question], typed: &str) -> (Option<Answers>, String) {
        let mut input = std::io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let answers = ask_on_terminal(questions, &mut input, &mut out).unwrap();
        (answers, String::from_utf8(out).unwrap())
    }

    #[test]
    fn the_terminal_dialog_re_asks_takes_other_and_declines_at_the_end_of_input() {
        let questions = [question(false), {
            let mut q = question(true);
            q.question = "Which ones?".into();
            q
        }];
        let (answers, shown) = terminal(&questions, "7\n4\n\nmy own\n1,3\n");
        let answers = answers.unwrap();
        assert_eq!(answers.get("Which?"), Some("my own"));
        assert_eq!(answers.get("Which ones?"), Some("Alpha, Gamma"));
        assert!(shown.contains("[Pick] Which?"), "{shown}");
        assert!(shown.contains("  3. Gamma — third\n       │ fn gamma() {}\n  4. Other"), "{shown}");
        assert!(shown.contains("Please answer with one number from 1 to 4"), "{shown}");
        assert!(shown.contains("No answer typed; choose again."), "{shown}");
        assert_eq!(terminal(&questions, "1\n").0, None, "end of input declines");
        assert_eq!(terminal(&questions, "9\n9\n9\n9\n9\n1\n").0, None, "five unclear answers decline");
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
