//! Asking the user on the terminal whether a call may run (`call` and `run` in a terminal).
//!
//! The question goes to `/dev/tty`, not stdin/stdout, so piped input and output stay clean.
//!
//! AskUserQuestion's ask is not a yes/no: each prompter shows its questions instead
//! ([`crate::questions`]) and answers [`PermissionAnswer::AllowWithInput`] with the answers
//! filled in, or declines.

use std::io::{BufRead as _, BufReader, IsTerminal as _, Write as _};

use agent_tools_core::BoxFuture;
use agent_tools_core::{PermissionBehavior, PermissionUpdate};
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest};

/// Whether a terminal is there to ask (stderr is one and `/dev/tty` opens).
pub(crate) fn terminal_available() -> bool {
    std::io::stderr().is_terminal() && std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").is_ok()
}

/// Asks on `/dev/tty`: allow once, always (this session), or no (optionally with a reason).
pub(crate) struct TerminalPrompter;

/// The activity line (spinner) on the terminal, if one is showing: a question hides it while it
/// waits for the answer, so the spinner's redraws cannot overwrite the question.
static ACTIVITY_LINE: std::sync::Mutex<Option<indicatif::ProgressBar>> = std::sync::Mutex::new(None);

/// Registers (or with `None`, forgets) the activity line a question must hide.
pub(crate) fn set_activity_line(bar: Option<indicatif::ProgressBar>) {
    *ACTIVITY_LINE.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = bar;
}

/// Reads one answer: `y`/`yes` once, `a`/`always` for the session, `n`/`no` or an empty line
/// for no (words after `n` are the reason). Anything else is `None`: ask again.
fn parse_answer(line: &str) -> Option<PermissionAnswer> {
    let answer = line.trim();
    let (word, rest) = answer.split_once(char::is_whitespace).unwrap_or((answer, ""));
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(PermissionAnswer::AllowOnce),
        "a" | "always" => Some(PermissionAnswer::AllowAlways),
        "" | "n" | "no" => {
            Some(PermissionAnswer::Deny { feedback: Some(rest.trim().to_owned()).filter(|text| !text.is_empty()) })
        }
        _ => None,
    }
}

fn ask_blocking(request: &PermissionRequest) -> std::io::Result<PermissionAnswer> {
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = BufReader::new(tty);
    writeln!(out, "\n{} wants to run: {}", request.tool_label(), request.summary)?;
    writeln!(out, "  input: {}", request.input_preview())?;
    if let Some(caution) = request.caution() {
        writeln!(out, "  note:  {caution}")?;
    }
    // A long message (ExitPlanMode's plan) is shown whole, its lines under the first.
    let mut why = request.message.lines();
    writeln!(out, "  why:   {}", why.next().unwrap_or_default())?;
    for line in why {
        writeln!(out, "         {line}")?;
    }
    for _ in 0..5 {
        write!(out, "Allow? [y] once, [a] always this session, [n] no (a reason may follow, as in `n use docs/`): ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        if let Some(answer) = parse_answer(&line) {
            // A bare `n` gets one more line for the reason (an empty line skips it).
            if matches!(answer, PermissionAnswer::Deny { feedback: None }) && !line.trim().is_empty() {
                write!(out, "Reason for the model (optional, Enter to skip): ")?;
                out.flush()?;
                let mut reason = String::new();
                input.read_line(&mut reason)?;
                let reason = reason.trim();
                return Ok(PermissionAnswer::Deny { feedback: (!reason.is_empty()).then(|| reason.to_owned()) });
            }
            return Ok(answer);
        }
        writeln!(out, "Please answer y, a or n.")?;
    }
    Ok(PermissionAnswer::Deny { feedback: None })
}

/// Shows AskUserQuestion's questions on `/dev/tty`: the answers as the updated input, or a
/// decline (end of input, or no clear answer).
fn ask_questions_blocking(
    request: &PermissionRequest,
    questions: &[agent_tools_core::Question],
) -> std::io::Result<PermissionAnswer> {
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = BufReader::new(tty);
    Ok(match crate::questions::ask_on_terminal(questions, &mut input, &mut out)? {
        Some(answers) => {
            PermissionAnswer::AllowWithInput { input: agent_tools_core::with_answers(&request.input, &answers) }
        }
        None => PermissionAnswer::Deny { feedback: None },
    })
}

impl PermissionPrompter for TerminalPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        let request = request.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let bar = ACTIVITY_LINE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                let questions = request.questions().map(<[_]>::to_vec);
                let ask = || match &questions {
                    Some(questions) => ask_questions_blocking(&request, questions),
                    None => ask_blocking(&request),
                };
                match bar {
                    Some(bar) => bar.suspend(ask),
                    None => ask(),
                }
            })
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(PermissionAnswer::Deny { feedback: None })
        })
    }
}

/// The prompter of `call` and `run` without a terminal: nobody can be asked, so a call that needs
/// approval is refused with what would let it run.
pub(crate) struct NoTerminal;

/// Why [`NoTerminal`] refuses, and what the user can do about it: the allow rule the call itself
/// suggests (`--allowed-tools 'Bash(npm test:*)'`, `mcp__server__tool` …), else one naming the
/// tool; for a tool that always asks a person, where it can be answered.
fn no_terminal_reason(request: &PermissionRequest) -> String {
    // A question or a plan only a person can answer (AskUserQuestion, ExitPlanMode).
    if request.interaction.is_some() {
        return "there is no terminal to ask on, and only a person can answer this (no rule or mode can); \
                run it in a terminal or through an MCP client that supports elicitation"
            .to_owned();
    }
    if request.forced {
        return "there is no terminal to ask on, and this call is asked about whatever the rules and the mode say \
                (an ask rule, a safety check, or a deny rule that may stand behind it), so no --allowed-tools rule or \
                mode can let it run; run it in a terminal to approve it, or do it another way"
            .to_owned();
    }
    let suggested = request.suggestions.iter().find_map(|update| match update {
        PermissionUpdate::AddRules { rules, behavior: PermissionBehavior::Allow, .. } => rules.first(),
        _ => None,
    });
    let rule = suggested.map_or_else(|| request.tool_name.clone(), ToString::to_string);
    format!(
        "there is no terminal to ask on; allow such calls with --allowed-tools '{rule}', a rule in \
         .claude/settings.json, or --permission-mode"
    )
}

/// Why [`NoTerminal`] cannot put AskUserQuestion's questions to anyone (no rule can answer them).
pub(crate) const NO_TERMINAL_FOR_QUESTIONS: &str = "there is no terminal to show the questions on, and only a \
     person can answer them; run in a terminal, or decide without the user's answers";

impl PermissionPrompter for NoTerminal {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        let why = if request.questions().is_some() {
            NO_TERMINAL_FOR_QUESTIONS.to_owned()
        } else {
            no_terminal_reason(request)
        };
        Box::pin(async move { PermissionAnswer::Unavailable { why } })
    }
}

#[cfg(test)]
mod elicitation_tests {
    use super::*;

    #[test]
    fn terminal_answers_are_read_strictly() {
        assert!(matches!(parse_answer("y\n"), Some(PermissionAnswer::AllowOnce)));
        assert!(matches!(parse_answer(" YES "), Some(PermissionAnswer::AllowOnce)));
        assert!(matches!(parse_answer("a"), Some(PermissionAnswer::AllowAlways)));
        assert!(matches!(parse_answer("n"), Some(PermissionAnswer::Deny { feedback: None })));
        assert!(matches!(parse_answer("\n"), Some(PermissionAnswer::Deny { feedback: None })));
        assert!(
            matches!(parse_answer("no use docs/ instead"), Some(PermissionAnswer::Deny { feedback: Some(ref f) }) if f == "use docs/ instead")
        );
        for unclear in ["1", "ok", "sure", "yy", "allow"] {
            assert!(parse_answer(unclear).is_none(), "{unclear} is asked again");
        }
    }
}
