//! `agent-tools agent` without `-p` on a terminal: a line-based chat.
//!
//! The prompt is `> ` (rustyline: line editing and history for the session). The answer's text
//! is printed as it streams; each tool call is a line `● Name(summary)` and its result
//! `  ⎿  first line… (N lines)`, or the error's first line. Permission questions are asked on the
//! terminal ([`crate::prompt::TerminalPrompter`]). Ctrl-C interrupts the running query (a second
//! one leaves) or, at the prompt, clears the line; Ctrl-D leaves.

use std::process::ExitCode;
use std::sync::Arc;

use agent_tools_host::{Session, WorkspaceTrust};
use agent_tools_loop::AgentEvent;
use rustyline::error::ReadlineError;
use serde_json::Value;

use super::setup::{self, Frontend, Started};
use super::{AgentArgs, Outcome, interruptible, output};
use crate::GlobalOptions;

/// Longest a call's summary or a result's first line is shown, in characters.
const MAX_LINE_CHARS: usize = 100;

/// Cuts `text` to [`MAX_LINE_CHARS`] characters, with `…` when longer.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The line a tool call is shown as: `● Name(summary)`, with the tool's user-facing name and
/// its summary of the input when the input parses.
pub(crate) fn call_line(session: &Session, block: &Value) -> String {
    let name = block.get("name").and_then(Value::as_str).unwrap_or_default();
    let input = block.get("input").cloned().unwrap_or(Value::Null);
    let shown = session.find_tool(name).and_then(|tool| {
        let parsed = tool.parse(input).ok()?;
        Some((tool.user_facing_name(Some(&parsed)), tool.summary(&parsed)))
    });
    // A summary names the tool first (`Read /p/notes.txt`): the line names it once, and paths
    // inside the project are shown relative to it.
    let shown = shown.map(|(label, summary)| {
        let summary = [label.as_str(), name]
            .iter()
            .find_map(|prefix| summary.strip_prefix(prefix).and_then(|rest| rest.strip_prefix(' ')))
            .unwrap_or(&summary)
            .to_owned();
        let project = format!("{}/", session.project_dir().display());
        (label, summary.replace(&project, ""))
    });
    match shown {
        Some((label, summary)) if !summary.is_empty() => format!("● {label}({})", cut(&summary)),
        Some((label, _)) => format!("● {label}"),
        None => format!("● {name}"),
    }
}

/// The text of a `tool_result` block's content (a string, or its text parts).
fn result_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => part.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("image") => Some("[image]".to_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The line a tool result is shown as: `  ⎿  first line… (N lines)`, or for an error its first
/// line (without the `<tool_use_error>` wrapper).
pub(crate) fn result_line(block: &Value) -> String {
    let text = result_text(block);
    let text = text.trim().trim_start_matches("<tool_use_error>").trim_end_matches("</tool_use_error>").trim();
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.first().map(|line| cut(line.trim_end())).unwrap_or_default();
    let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
    match (lines.len(), is_error) {
        (0, _) => "  ⎿  (no output)".to_owned(),
        (_, true) => format!("  ⎿  Error: {first}"),
        (1, false) => format!("  ⎿  {first}"),
        (count, false) => format!("  ⎿  {first}… ({count} lines)"),
    }
}

/// Prints the loop's events on the terminal.
struct Printer {
    session: Arc<Session>,
    /// The last thing printed did not end a line.
    mid_line: bool,
}

impl Printer {
    fn end_line(&mut self) {
        if self.mid_line {
            output::text("\n");
            self.mid_line = false;
        }
    }

    fn event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TextDelta(text) => {
                output::text(&text);
                self.mid_line = !text.ends_with('\n');
            }
            AgentEvent::Message(message) => {
                let blocks = message.pointer("/message/content").and_then(Value::as_array).cloned().unwrap_or_default();
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_use") => {
                            self.end_line();
                            output::text(&format!("{}\n", call_line(&self.session, &block)));
                        }
                        Some("tool_result") => {
                            self.end_line();
                            output::text(&format!("{}\n", result_line(&block)));
                        }
                        Some("text") => self.end_line(),
                        _ => {}
                    }
                }
                if message.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
                    self.end_line();
                    output::text("(the conversation was compacted)\n");
                }
            }
            AgentEvent::Notice(notice) => {
                self.end_line();
                crate::report(format_args!("{notice}"));
            }
            _ => {}
        }
    }
}

/// Runs the chat until Ctrl-D (or a second Ctrl-C during a query); `first` is asked first.
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs, first: Option<String>) -> ExitCode {
    let frontend = Frontend {
        prompter: Some(Arc::new(crate::prompt::TerminalPrompter)),
        trust: WorkspaceTrust::Ask(Arc::new(crate::trust::ask)),
        hooks: None,
    };
    let Started { agent, session } = match setup::start(options, args, frontend).await {
        Ok(started) => started,
        Err(error) => {
            crate::report(format_args!("{}", error.text()));
            return ExitCode::from(1);
        }
    };
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(error) => {
            crate::report(format_args!("agent-tools: cannot use the terminal: {error}"));
            crate::report_stopped_tasks(&session.shutdown().await);
            return ExitCode::from(2);
        }
    };
    crate::report(format_args!(
        "agent-tools agent {} · {} · {} (Ctrl-C interrupts, Ctrl-D leaves)",
        env!("CARGO_PKG_VERSION"),
        agent.options().model,
        session.project_dir().display()
    ));
    let mut code = ExitCode::SUCCESS;
    let mut next = first;
    loop {
        let prompt = match next.take() {
            Some(prompt) => prompt,
            None => match tokio::task::block_in_place(|| editor.readline("> ")) {
                Ok(line) => line,
                // Ctrl-C at the prompt clears the line.
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => break,
                Err(error) => {
                    crate::report(format_args!("agent-tools: cannot read the terminal: {error}"));
                    code = ExitCode::from(2);
                    break;
                }
            },
        };
        if prompt.trim().is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(prompt.as_str());
        let mut printer = Printer { session: Arc::clone(&session), mid_line: false };
        let mut sink = |event: AgentEvent| printer.event(event);
        match interruptible(&agent, agent.query(&prompt, &mut sink)).await {
            Outcome::Done(result) => {
                printer.end_line();
                if result.is_error {
                    let text = output::result_text(&result, args.max_turns, args.max_budget_usd);
                    crate::report(format_args!("{text}"));
                }
            }
            Outcome::Stopped(stopped) => {
                printer.end_line();
                code = ExitCode::from(stopped);
                break;
            }
        }
    }
    agent.end("prompt_input_exit").await;
    crate::report_stopped_tasks(&session.shutdown().await);
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_shown_by_their_first_line() {
        assert_eq!(result_line(&json!({"content": "one"})), "  ⎿  one");
        assert_eq!(result_line(&json!({"content": "one\ntwo\nthree\n"})), "  ⎿  one… (3 lines)");
        assert_eq!(result_line(&json!({"content": [{"type": "text", "text": "a\nb"}]})), "  ⎿  a… (2 lines)");
        assert_eq!(
            result_line(&json!({"content": "<tool_use_error>File does not exist.</tool_use_error>", "is_error": true})),
            "  ⎿  Error: File does not exist."
        );
        assert_eq!(result_line(&json!({"content": ""})), "  ⎿  (no output)");
        assert_eq!(cut(&"x".repeat(150)).chars().count(), MAX_LINE_CHARS + 1);
    }
}
