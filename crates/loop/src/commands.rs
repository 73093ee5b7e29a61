//! Slash commands in a headless or SDK session: a prompt that starts with `/name` is a command
//! (Claude Code dispatches them the same way in `-p` and stream-json sessions). The built-in
//! ones ([`BUILT_IN`]) run here without the model — `/compact [focus]`, `/clear`, `/context`,
//! `/cost` — and print a `system/local_command_output` line; a custom command
//! (`.claude/commands/<name>.md`) or a skill expands into the prompt the model gets; any other
//! `/text` (a path, say) is an ordinary prompt.

use serde_json::{Value, json};

use crate::agent::{Agent, Sink, uuid};
use crate::events::{AgentEvent, QueryResult};

/// The built-in commands: name, description, argument hint.
pub const BUILT_IN: &[(&str, &str, &str)] = &[
    ("compact", "Replace the conversation with a summary of it and go on from there", "[what to focus on]"),
    ("clear", "Start the conversation afresh", ""),
    ("context", "Show what fills the context window", ""),
    ("cost", "Show what the session has cost so far", ""),
];

/// `/name args` of a prompt that is one text starting with `/` and a command-like name
/// (letters, digits, `-`, `_`, `:`, `.`; not starting with a punctuation mark); `None`
/// otherwise.
///
/// ```
/// use agent_tools_loop::commands::parse;
/// let text = |t: &str| vec![serde_json::json!({"type": "text", "text": t})];
/// assert_eq!(parse(&text("/compact  keep the API notes ")), Some(("compact".into(), "keep the API notes".into())));
/// assert_eq!(parse(&text("/cost")), Some(("cost".into(), String::new())));
/// assert_eq!(parse(&text("/usr/bin/env is missing")), None);
/// assert_eq!(parse(&text("hello /cost")), None);
/// ```
pub fn parse(blocks: &[Value]) -> Option<(String, String)> {
    let [block] = blocks else { return None };
    let text = block.get("text").and_then(Value::as_str)?.trim();
    let rest = text.strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let first = name.chars().next()?;
    let name_like = first.is_ascii_alphanumeric()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
    name_like.then(|| (name.to_owned(), args.trim().to_owned()))
}

/// Every command of `agent`'s session: the built-in ones, then its custom commands and skills
/// (`{"name", "description", "argumentHint"}`, the SDKs' `SlashCommand`).
pub fn listing(agent: &Agent) -> Vec<Value> {
    let built_in = BUILT_IN.iter().map(|(name, description, hint)| {
        json!({"name": name, "description": description, "argumentHint": hint, "builtin": true})
    });
    let user = agent.session().user_commands().into_iter().map(|command| {
        json!({"name": command.name, "description": command.description, "argumentHint": command.argument_hint})
    });
    built_in.chain(user).collect()
}

impl Agent {
    /// Runs a prompt as a front end receives it: a slash command (see the module docs) or a
    /// query ([`Agent::query_blocks`]).
    pub async fn prompt(&self, blocks: Vec<Value>, sink: Sink<'_>) -> QueryResult {
        let Some((name, args)) = parse(&blocks) else { return self.query_blocks(blocks, sink).await };
        match name.as_str() {
            "compact" => self.compact_command(&args, sink).await,
            "clear" => self.clear_command(sink).await,
            "context" => {
                let text = context_text(&self.context_usage().await);
                self.local_output(text, sink)
            }
            "cost" => {
                let text = self.cost_text();
                self.local_output(text, sink)
            }
            _ => match self.session().expand_user_command(&name, &args) {
                None => self.query_blocks(blocks, sink).await,
                Some(Err(why)) => {
                    let mut result = self.local_output(format!("/{name} could not be read: {why}"), sink);
                    result.is_error = true;
                    result
                }
                Some(Ok(body)) => {
                    // UserPromptExpansion hooks see the expansion first: they may add context or
                    // refuse it.
                    let expansion = crate::agent::PromptExpansion {
                        expansion_type: "slash_command",
                        command_name: &name,
                        command_args: &args,
                        command_source: None,
                        prompt: &body,
                    };
                    let context = match self.expand_prompt(&expansion).await {
                        Ok(context) => context,
                        Err(reason) => {
                            let mut result = self.local_output(
                                format!("/{name} was blocked by a UserPromptExpansion hook: {reason}"),
                                sink,
                            );
                            result.is_error = true;
                            return result;
                        }
                    };
                    let invoked = format!(
                        "<command-message>{name} is running…</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>"
                    );
                    let mut blocks =
                        vec![json!({"type": "text", "text": invoked}), json!({"type": "text", "text": body})];
                    blocks.extend(context.into_iter().map(|text| json!({"type": "text", "text": text})));
                    self.query_blocks(blocks, sink).await
                }
            },
        }
    }

    /// A command's output: a `system/local_command_output` line, and a result without a model
    /// turn whose text it is.
    pub(crate) fn local_output(&self, content: String, sink: Sink<'_>) -> QueryResult {
        sink(AgentEvent::Message(json!({
            "type": "system", "subtype": "local_command_output", "content": content,
            "session_id": self.session().id(), "uuid": uuid(),
        })));
        self.model_less_result(content)
    }

    /// The `/cost` text: dollars and tokens, in all and per model.
    fn cost_text(&self) -> String {
        let spend = self.spend();
        let usage = spend.usage();
        let mut text = format!(
            "Total cost: ${:.4}\nTotal tokens: {} input, {} output, {} cache read, {} cache write",
            spend.cost_usd(),
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens
        );
        for (model, (usage, cost)) in spend.per_model() {
            text.push_str(&format!(
                "\n{model}: ${cost:.4} ({} input, {} output tokens)",
                usage.input_tokens, usage.output_tokens
            ));
        }
        text
    }
}

/// The `/context` text: the window's use, then each category.
fn context_text(usage: &crate::context_usage::ContextUsage) -> String {
    let mut text = format!(
        "Context: {} of {} tokens ({:.1}%), model {}",
        usage.total_tokens, usage.max_tokens, usage.percentage, usage.model
    );
    for category in usage.categories.iter().filter(|category| category.tokens > 0) {
        text.push_str(&format!("\n- {}: {} tokens", category.name, category.tokens));
    }
    text
}
