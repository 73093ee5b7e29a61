//! `agent-tools agent -p PROMPT`: one query, headless, printed in the `--output-format`.

use std::process::ExitCode;
use std::sync::Arc;

use agent_tools_core::BoxFuture;
use agent_tools_core::{PermissionBehavior, PermissionUpdate};
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest, WorkspaceTrust};
use agent_tools_loop::AgentEvent;

use super::setup::{self, Frontend, Started};
use super::{AgentArgs, Outcome, OutputFormat, interruptible, output};
use crate::GlobalOptions;

/// The prompter of a headless run: nobody can be asked (as in `claude -p`), so a call that needs
/// approval is refused with the ask's own reason as the model's text (Claude Code's), and
/// stderr says which rule would allow such calls.
pub(crate) struct Headless;

/// What stderr says about a refused call: the allow rule the call suggests (else one naming the
/// tool), or that only a person can approve it.
fn headless_hint(request: &PermissionRequest) -> String {
    let label = request.tool_label();
    if request.interaction.is_some() || request.forced {
        return format!(
            "{label} was refused: it needs approval, and in a non-interactive run only a person can give it \
             (run `agent-tools agent` without -p to answer it, or answer through an Agent SDK's can_use_tool)"
        );
    }
    if request.message.contains("this folder is not trusted") {
        // An allow rule would run what the repository configures: trusting the folder is the way.
        return format!(
            "{label} was refused: it runs what this folder's own git configuration names, and the folder is not \
             trusted; if you trust it, run `agent-tools trust`"
        );
    }
    let suggested = request.suggestions.iter().find_map(|update| match update {
        PermissionUpdate::AddRules { rules, behavior: PermissionBehavior::Allow, .. } => rules.first(),
        _ => None,
    });
    let rule = suggested.map_or_else(|| request.tool_name.clone(), ToString::to_string);
    format!(
        "{label} was refused: it needs approval; allow such calls with --allowedTools '{rule}' or a --permission-mode \
         that allows them (acceptEdits for file changes)"
    )
}

impl PermissionPrompter for Headless {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        crate::report(format_args!("agent-tools: {}", headless_hint(request)));
        let message = request.message.clone();
        Box::pin(async move { PermissionAnswer::Refuse { message } })
    }
}

/// Runs one query and prints it; the exit status is 1 when the result is an error.
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs, prompt: &str) -> ExitCode {
    // Nobody can be asked: a folder is trusted only if it was trusted before (`agent-tools
    // trust`, Claude Code's own record) or with `--trust-workspace`. Unlike `claude -p`, which
    // runs an unknown project's hooks unasked, a hostile repository's hooks, allow rules and MCP
    // servers never apply by themselves (its deny rules always do).
    let frontend = Frontend {
        prompter: Some(Arc::new(Headless)),
        trust: WorkspaceTrust::Recorded,
        hooks: None,
        notify: false,
        sdk_servers: None,
    };
    let Started { agent, session } = match setup::start(options, args, frontend).await {
        Ok(started) => started,
        Err(error) => {
            output::print_start_error(args.output_format, &error.text());
            return ExitCode::from(1);
        }
    };
    let format = args.output_format;
    if format == OutputFormat::StreamJson {
        output::line(&agent.init_event().await);
    }
    let mut lines = output::json_lines_sink(session.id().to_owned(), args.include_partial_messages);
    let mut sink = move |event: AgentEvent| match format {
        OutputFormat::StreamJson => lines(event),
        _ => {
            if let AgentEvent::Notice(notice) = event {
                crate::report(format_args!("{notice}"));
            }
        }
    };
    let blocks = vec![serde_json::json!({"type": "text", "text": prompt})];
    let mut outcome = interruptible(&agent, agent.prompt(blocks, &mut sink)).await;
    // Background agents report when they end: each report is one more turn, as in `claude -p`,
    // which waits for them before it exits (stream-json shows every turn's result).
    while let Outcome::Done(result) = &outcome
        && !result.is_error
    {
        match interruptible(&agent, agent.continue_with_pending(&mut sink)).await {
            Outcome::Done(None) => break,
            Outcome::Done(Some(next)) => {
                if format == OutputFormat::StreamJson {
                    output::print_result(format, result, args.max_turns, args.max_budget_usd);
                }
                outcome = Outcome::Done(next);
            }
            Outcome::Stopped(code) => outcome = Outcome::Stopped(code),
        }
    }
    let code = match outcome {
        Outcome::Done(result) => {
            output::print_result(format, &result, args.max_turns, args.max_budget_usd);
            if result.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Outcome::Stopped(code) => ExitCode::from(code),
    };
    agent.end("other").await;
    crate::report_stopped_tasks(&session.shutdown().await);
    code
}
