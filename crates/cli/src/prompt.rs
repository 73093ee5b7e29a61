//! Asking the user on the terminal whether a call may run (`call` and `run` in a terminal).
//!
//! The question goes to `/dev/tty`, not stdin/stdout, so piped input and output stay clean.
//!
//! AskUserQuestion's ask is not a yes/no: each prompter shows its questions instead
//! ([`crate::questions`]) and answers [`PermissionAnswer::AllowWithInput`] with the answers
//! filled in, or declines.

use std::io::{BufRead as _, BufReader, IsTerminal as _, Write as _};

use agent_tools_core::permissions::{PermissionBehavior, PermissionUpdate};
use agent_tools_core::tool::BoxFuture;
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest};
use serde_json::Value;

/// Whether a terminal is there to ask (stderr is one and `/dev/tty` opens).
pub(crate) fn terminal_available() -> bool {
    std::io::stderr().is_terminal() && std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").is_ok()
}

/// Asks on `/dev/tty`: allow once, always (this session), or no (optionally with a reason).
pub(crate) struct TerminalPrompter;

fn input_line(request: &PermissionRequest) -> String {
    let compact = request.input.to_string();
    if compact.chars().count() > 300 {
        format!("{}…", compact.chars().take(300).collect::<String>())
    } else {
        compact
    }
}

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
    writeln!(out, "\n{} wants to run: {}", request.tool_name, request.summary)?;
    writeln!(out, "  input: {}", input_line(request))?;
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

/// The questions of an AskUserQuestion request, `None` for any other tool.
fn questions_in(request: &PermissionRequest) -> Option<Vec<agent_tool_ask_user_question::Question>> {
    (request.tool_name == agent_tool_ask_user_question::NAME)
        .then(|| agent_tool_ask_user_question::questions_of(&request.input))
        .flatten()
}

/// Shows AskUserQuestion's questions on `/dev/tty`: the answers as the updated input, or a
/// decline (end of input, or no clear answer).
fn ask_questions_blocking(
    request: &PermissionRequest,
    questions: &[agent_tool_ask_user_question::Question],
) -> std::io::Result<PermissionAnswer> {
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = BufReader::new(tty);
    Ok(match crate::questions::ask_on_terminal(questions, &mut input, &mut out)? {
        Some(answers) => PermissionAnswer::AllowWithInput {
            input: agent_tool_ask_user_question::with_answers(&request.input, &answers),
        },
        None => PermissionAnswer::Deny { feedback: None },
    })
}

impl PermissionPrompter for TerminalPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        let request = request.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let bar = ACTIVITY_LINE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                let questions = questions_in(&request);
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

/// Tools that ask a person whatever the rules and mode say (`requires_user_interaction`).
const ALWAYS_ASK: &[&str] = &[agent_tool_ask_user_question::NAME, "ExitPlanMode"];

/// Why [`NoTerminal`] refuses, and what the user can do about it: the allow rule the call itself
/// suggests (`--allowed-tools 'Bash(npm test:*)'`, `mcp__server__tool` …), else one naming the
/// tool; for a tool that always asks a person, where it can be answered.
fn no_terminal_reason(request: &PermissionRequest) -> String {
    if ALWAYS_ASK.contains(&request.tool_name.as_str()) {
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
        let why = if request.tool_name == agent_tool_ask_user_question::NAME {
            NO_TERMINAL_FOR_QUESTIONS.to_owned()
        } else {
            no_terminal_reason(request)
        };
        Box::pin(async move { PermissionAnswer::Unavailable { why } })
    }
}

/// Asks an MCP client's user through elicitation (a form with the choice and a reason). A client
/// without elicitation support gets a refusal the model can act on.
pub(crate) struct ElicitationPrompter {
    peer: rmcp::service::Peer<rmcp::RoleServer>,
}

impl ElicitationPrompter {
    pub(crate) fn new(peer: rmcp::service::Peer<rmcp::RoleServer>) -> Self {
        Self { peer }
    }
}

/// The answer an MCP client sends back for the [`permission_form`].
#[derive(Debug, serde::Deserialize)]
pub(crate) struct PermissionForm {
    /// allow_once, allow_always (for the rest of this session), or deny.
    pub(crate) decision: FormDecision,
    /// Why not, if denying (passed on to the model).
    #[serde(default)]
    pub(crate) reason: Option<String>,
}

/// The choices of [`PermissionForm`].
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FormDecision {
    /// Run it this once.
    AllowOnce,
    /// Run it and allow such calls for the rest of the session.
    AllowAlways,
    /// Do not run it.
    Deny,
}

/// The form an MCP client shows: a required single choice with readable titles, and an optional
/// reason. Written out rather than derived, because an elicitation schema allows only flat
/// primitive properties (a derived `Option<String>` or documented enum is not one).
pub(crate) fn permission_form() -> rmcp::model::ElicitationSchema {
    use rmcp::model::{ElicitationSchema, EnumSchema, PrimitiveSchemaDefinition, StringSchema};
    let choices = ["allow_once", "allow_always", "deny"].map(String::from).to_vec();
    let titles = ["Allow once", "Allow for the rest of this session", "Deny"].map(String::from).to_vec();
    let decision = match EnumSchema::builder(choices.clone()).enum_titles(titles) {
        Ok(titled) => titled.build(),
        Err(_) => EnumSchema::builder(choices).build(),
    };
    let mut schema = ElicitationSchema::new(
        [
            ("decision".to_owned(), PrimitiveSchemaDefinition::Enum(decision)),
            (
                "reason".to_owned(),
                PrimitiveSchemaDefinition::String(
                    StringSchema::new().description("If denying: what to do instead (the model reads this)."),
                ),
            ),
        ]
        .into(),
    );
    schema = schema.with_required(vec!["decision".to_owned()]);
    schema
}

/// Where a question form goes: an `elicitation/create` request to the client (the 2025
/// protocol), or the result of the request that asked (2026-07-28's rounds, `serve::rounds`).
pub(crate) trait FormAsker: Send + Sync {
    /// Shows `params` to the client's user; the reply, or why there is none.
    fn elicit(
        &self,
        params: rmcp::model::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<rmcp::model::ElicitResult, String>>;
}

impl FormAsker for rmcp::service::Peer<rmcp::RoleServer> {
    fn elicit(
        &self,
        params: rmcp::model::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<rmcp::model::ElicitResult, String>> {
        Box::pin(async move { self.create_elicitation(params).await.map_err(|err| err.to_string()) })
    }
}

/// Asks `request` as a form through `asker`, whichever protocol carries it: AskUserQuestion's
/// questions as one form ([`crate::questions::questions_form`]), anything else as the
/// permission form ([`permission_form`]).
///
/// Questions: accepted with every question answered gives the answers as the updated input;
/// declined, cancelled or left partly unanswered is the user's "no". Permission: the chosen
/// decision (an unreadable answer is a "no"). A form the client could not show means nobody
/// could be asked.
pub(crate) async fn ask_through_forms(asker: &dyn FormAsker, request: &PermissionRequest) -> PermissionAnswer {
    use rmcp::model::{ElicitRequestParams, ElicitationAction};
    if let Some(questions) = questions_in(request) {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: crate::questions::questions_message(&questions),
            requested_schema: crate::questions::questions_form(&questions),
        };
        let form = match asker.elicit(params).await {
            Ok(result) if result.action == ElicitationAction::Accept => result.content,
            Ok(_) => return PermissionAnswer::Deny { feedback: None },
            Err(err) => {
                tracing::warn!("the questions could not be asked: {err}");
                return PermissionAnswer::Unavailable {
                    why: format!("the MCP client did not show the questions: {err}"),
                };
            }
        };
        let form = match form {
            Some(Value::Object(form)) => form,
            _ => serde_json::Map::new(),
        };
        return match crate::questions::answers_from_form(&questions, &form) {
            Ok(answers) => PermissionAnswer::AllowWithInput {
                input: agent_tool_ask_user_question::with_answers(&request.input, &answers),
            },
            Err(missing) => {
                PermissionAnswer::Deny { feedback: Some(format!("I did not answer: {}", missing.join("; "))) }
            }
        };
    }
    let message = format!(
        "{} wants to run: {}\nInput: {}\nWhy it needs approval: {}",
        request.tool_name,
        request.summary,
        input_line(request),
        request.message
    );
    let params =
        ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: permission_form() };
    let answer = match asker.elicit(params).await {
        Ok(result) if result.action == ElicitationAction::Accept => result.content,
        Ok(_) => None,
        Err(err) => {
            tracing::warn!("the permission question could not be asked: {err}");
            return PermissionAnswer::Unavailable {
                why: format!("the MCP client did not show the permission question: {err}"),
            };
        }
    };
    match answer.map(serde_json::from_value::<PermissionForm>) {
        Some(Ok(PermissionForm { decision: FormDecision::AllowOnce, .. })) => PermissionAnswer::AllowOnce,
        Some(Ok(PermissionForm { decision: FormDecision::AllowAlways, .. })) => PermissionAnswer::AllowAlways,
        Some(Ok(PermissionForm { decision: FormDecision::Deny, reason })) => {
            PermissionAnswer::Deny { feedback: reason }
        }
        Some(Err(err)) => {
            tracing::warn!("the permission answer was not understood: {err}");
            PermissionAnswer::Deny { feedback: None }
        }
        None => PermissionAnswer::Deny { feedback: None },
    }
}

impl PermissionPrompter for ElicitationPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        Box::pin(async move {
            use rmcp::service::ElicitationMode;
            if !self.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
                let why = if questions_in(request).is_some() {
                    "this MCP client cannot show questions to its user (it does not support elicitation), and \
                     only a person can answer them; decide without the user's answers"
                } else {
                    "this MCP client cannot show permission questions; the server's --permission-mode or \
                     --allowed-tools rules must allow such calls"
                };
                return PermissionAnswer::Unavailable { why: why.into() };
            }
            ask_through_forms(&self.peer, request).await
        })
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

    #[test]
    fn the_permission_form_is_a_flat_schema_with_a_required_titled_choice() {
        let schema = serde_json::to_value(permission_form()).unwrap();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], serde_json::json!(["decision"]));
        let choices: Vec<&str> = schema["properties"]["decision"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["const"].as_str())
            .collect();
        assert_eq!(choices, ["allow_once", "allow_always", "deny"]);
        assert_eq!(schema["properties"]["reason"]["type"], "string");
        // What a client sends back parses into the answer.
        let answer: PermissionForm =
            serde_json::from_value(serde_json::json!({"decision": "deny", "reason": "no"})).unwrap();
        assert!(matches!(answer, PermissionForm { decision: FormDecision::Deny, reason: Some(ref r) } if r == "no"));
    }
}
