//! Showing AskUserQuestion's questions on the terminal and turning what the user types into the
//! tool's `answers` (Claude Code's question dialog; the MCP form is
//! `agent_tools_mcp_server::questions`).
//!
//! Both offer every option of a question plus a free-text "Other" answer; a multi-select answer
//! is the chosen labels joined by `", "`, as Claude Code sends it to the model.

use std::io::{BufRead, Write};

use agent_tools_core::{Answers, Question, join_choices};

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
}
