//! `agent-tools agent` without `-p` on a terminal: a line-based chat.
//!
//! The prompt is `> ` (rustyline: line editing and history for the session). The answer's text
//! is printed as it streams; each tool call is a line `● Name(summary)` and its result
//! `  ⎿  first line… (N lines)`, or the error's first line (`Refused: …` for a call a permission
//! or hook refused). Consecutive reads and searches are one line (`● Read 3 files, searched 1
//! pattern`; their results are shown only when they fail). A running command's progress is one
//! line, overwritten as it comes (`  … 12 s · last line`). Permission questions are asked on the
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

/// Tools whose consecutive calls are shown as one grouped line (`● Read 3 files, searched 2
/// patterns`), as Claude Code groups its reads and searches.
const GROUPED: &[&str] = &["Read", "Glob", "Grep"];

/// The grouped line for these tool names (in call order).
pub(crate) fn group_line(names: &[String]) -> String {
    let count = |name: &str| names.iter().filter(|n| n.as_str() == name).count();
    let plural = |n: usize, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
    let mut parts = Vec::new();
    if count("Read") > 0 {
        parts.push(format!("read {}", plural(count("Read"), "file", "files")));
    }
    let searches = count("Glob") + count("Grep");
    if searches > 0 {
        parts.push(format!("searched {}", plural(searches, "pattern", "patterns")));
    }
    let mut line = parts.join(", ");
    if let Some(first) = line.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    format!("● {line}")
}

/// The line of a running call's progress (`  … 12 s · last line of output`).
pub(crate) fn progress_line(data: &Value) -> Option<String> {
    let seconds = data.get("elapsedTimeSeconds").and_then(Value::as_u64);
    let last =
        data.get("output").and_then(Value::as_str).and_then(|output| output.lines().rfind(|l| !l.trim().is_empty()));
    match (seconds, last) {
        (Some(seconds), Some(last)) => Some(format!("  … {seconds} s · {}", cut(last.trim()))),
        (Some(seconds), None) => Some(format!("  … {seconds} s")),
        (None, Some(last)) => Some(format!("  … {}", cut(last.trim()))),
        (None, None) => None,
    }
}

/// Prints the loop's events on the terminal.
struct Printer {
    session: Arc<Session>,
    /// The last thing printed did not end a line.
    mid_line: bool,
    /// A progress line is on screen (it is overwritten, then cleared).
    progress: bool,
    /// Calls of [`GROUPED`] tools not shown yet: id, name, call line, and the result line once
    /// it came; shown as one line when something else comes.
    pending: Vec<(String, String, String, Option<String>)>,
    /// Ids of grouped calls whose results are shown only when they fail.
    grouped: std::collections::HashSet<String>,
    /// Ids of calls a permission or hook refused (shown as refusals, not errors).
    refused: std::collections::HashSet<String>,
}

impl Printer {
    fn new(session: Arc<Session>) -> Self {
        Self {
            session,
            mid_line: false,
            progress: false,
            pending: Vec::new(),
            grouped: std::collections::HashSet::new(),
            refused: std::collections::HashSet::new(),
        }
    }

    fn clear_progress(&mut self) {
        if self.progress {
            output::text("\r\x1b[2K");
            self.progress = false;
        }
    }

    fn end_line(&mut self) {
        self.clear_progress();
        if self.mid_line {
            output::text("\n");
            self.mid_line = false;
        }
    }

    /// Shows the pending grouped calls: one call as its own line, several as one line.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.end_line();
        let mut pending = std::mem::take(&mut self.pending);
        if pending.len() == 1 {
            let (id, _, line, result) = pending.remove(0);
            output::text(&format!("{line}\n"));
            match result {
                Some(result) => output::text(&format!("{result}\n")),
                // Its result is still to come: shown as an ordinary one.
                None => drop(id),
            }
            return;
        }
        let names: Vec<String> = pending.iter().map(|(_, name, _, _)| name.clone()).collect();
        output::text(&format!("{}\n", group_line(&names)));
        self.grouped.extend(pending.into_iter().filter(|entry| entry.3.is_none()).map(|(id, _, _, _)| id));
    }

    fn event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TextDelta(text) => {
                self.flush();
                self.clear_progress();
                output::text(&text);
                self.mid_line = !text.ends_with('\n');
            }
            AgentEvent::Progress(progress) => {
                if let Some(line) = progress_line(&progress.data) {
                    self.flush();
                    if self.mid_line {
                        self.end_line();
                    }
                    output::text(&format!("\r\x1b[2K{line}"));
                    self.progress = true;
                }
            }
            AgentEvent::CallFinished { tool_use_id, denied: true, .. } => {
                self.refused.insert(tool_use_id);
            }
            AgentEvent::Message(message) => {
                let blocks = message.pointer("/message/content").and_then(Value::as_array).cloned().unwrap_or_default();
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_use") => {
                            let name = block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                            let id = block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
                            let line = call_line(&self.session, &block);
                            if GROUPED.contains(&name.as_str()) {
                                self.pending.push((id, name, line, None));
                            } else {
                                self.flush();
                                self.end_line();
                                output::text(&format!("{line}\n"));
                            }
                        }
                        Some("tool_result") => {
                            let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default().to_owned();
                            let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
                            if !failed && let Some(entry) = self.pending.iter_mut().find(|entry| entry.0 == id) {
                                // A grouped call's result waits with its call line.
                                entry.3 = Some(result_line(&block));
                                continue;
                            }
                            self.flush();
                            self.end_line();
                            if self.grouped.remove(&id) && !failed {
                                continue;
                            }
                            let line = if self.refused.remove(&id) {
                                result_line(&block).replacen("Error: ", "Refused: ", 1)
                            } else {
                                result_line(&block)
                            };
                            output::text(&format!("{line}\n"));
                        }
                        Some("text") => {
                            self.flush();
                            self.end_line();
                        }
                        _ => {}
                    }
                }
                if message.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
                    self.flush();
                    self.end_line();
                    output::text("(the conversation was compacted)\n");
                }
            }
            AgentEvent::Notice(notice) => {
                self.flush();
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
        notify: true,
        sdk_servers: None,
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
        // What arrived since the last answer — a background agent's report, a scheduled job
        // that fired, a monitor's event — is a turn of its own before the next prompt.
        if next.is_none() && agent.pending_now() {
            let mut printer = Printer::new(Arc::clone(&session));
            let mut sink = |event: AgentEvent| printer.event(event);
            match interruptible(&agent, agent.query_pending(&mut sink)).await {
                Outcome::Done(_) => {
                    printer.flush();
                    printer.end_line();
                }
                Outcome::Stopped(stopped) => {
                    printer.end_line();
                    code = ExitCode::from(stopped);
                    break;
                }
            }
            continue;
        }
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
        let mut printer = Printer::new(Arc::clone(&session));
        let mut sink = |event: AgentEvent| printer.event(event);
        match interruptible(&agent, agent.query(&prompt, &mut sink)).await {
            Outcome::Done(result) => {
                printer.flush();
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

    #[test]
    fn reads_and_searches_group_and_progress_shows_the_last_line() {
        let names = |list: &[&str]| list.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        assert_eq!(group_line(&names(&["Read", "Read", "Grep"])), "● Read 2 files, searched 1 pattern");
        assert_eq!(group_line(&names(&["Glob", "Grep"])), "● Searched 2 patterns");
        assert_eq!(
            progress_line(&json!({"output": "building\nstep 3\n\n", "elapsedTimeSeconds": 12})).as_deref(),
            Some("  … 12 s · step 3")
        );
        assert_eq!(progress_line(&json!({})), None);
    }
}
