//! The subcommands.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use std::io::IsTerminal as _;
use std::sync::Arc;

use agent_tools_core::ProgressEvent;
use agent_tools_core::{ContentBlock, KnownBlock, MessageContent, ToolUseBlock};
use agent_tools_core::{ContentPart, Message, ToolResultContent};
use agent_tools_host::{CallOptions, Session};
use anyhow::{Context as _, bail};
use serde_json::{Value, json};

/// A prompt's first sentence: its first paragraph (lines up to a blank line, joined), up to the
/// first full stop followed by a space, so a sentence wrapped over lines is not cut.
fn first_sentence(text: &str) -> String {
    let paragraph: Vec<&str> =
        text.lines().map(str::trim).skip_while(|line| line.is_empty()).take_while(|line| !line.is_empty()).collect();
    let paragraph = paragraph.join(" ");
    match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_owned(),
        None => paragraph,
    }
}

/// `list`: one line per tool (name, kind, read-only or not, concurrent or serial, the farthest
/// agents that get it, the prompt's first sentence), or the API `tools` array (deferred tools
/// marked `defer_loading` while tool search is on).
pub(crate) async fn list(session: &Session, as_json: bool) -> anyhow::Result<ExitCode> {
    let pool = session.pool();
    if as_json {
        let tools = session.with_prompt_options(|options| agent_tools_host::api_tools(&pool, options)).await;
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &tools)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let prompts: Vec<String> =
        session.with_prompt_options(|options| pool.iter().map(|tool| tool.description(options)).collect()).await;
    let mut out = std::io::stdout().lock();
    let width = pool.iter().map(|tool| tool.name().len()).max().unwrap_or(0);
    for (tool, prompt) in pool.iter().zip(&prompts) {
        let flags = tool.flags();
        let capabilities = tool.capabilities();
        writeln!(
            out,
            "{:<width$}  {:<7}  {:<9}  {:<10}  {:<10}  {}",
            tool.name(),
            capabilities.kind.as_str(),
            if flags.read_only { "read-only" } else { "writes" },
            if flags.concurrency_safe { "concurrent" } else { "serial" },
            capabilities.scope.label(),
            first_sentence(prompt),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The result as text; `tool_reference` blocks (ToolSearch) become the tools' definitions, which
/// a reader of the text has no other way to see.
async fn content_text(session: &Session, content: &ToolResultContent) -> String {
    let rendered = session
        .with_prompt_options(|options| agent_tools_host::render_tool_references(content, &session.pool(), options))
        .await;
    match &rendered {
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Parts(parts) => parts
            .iter()
            .map(|part| match part {
                ContentPart::Text { text } => text.clone(),
                ContentPart::Image { source } => {
                    format!("[image: {}, {} bytes of base64]", source.media_type, source.data.len())
                }
                ContentPart::ToolReference { tool_name } => tool_name.clone(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// `call`: one call, its result text on stdout; exit status 1 for an error result.
pub(crate) async fn call(session: &Session, tool: &str, input: &str) -> anyhow::Result<ExitCode> {
    let input: Value = serde_json::from_str(input).context("the input is not valid JSON")?;
    let block = ToolUseBlock { id: "toolu_cli".into(), name: tool.into(), input };
    let activity = Activity::start(session, &block);
    let done = session.call(&block, CallOptions::default()).await;
    activity.finish();
    let text = content_text(session, &done.block.content).await;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    // Text a call adds after its result (a skill's instructions, hook feedback) follows it,
    // each message after a blank line.
    for extra in &done.new_messages {
        let text = message_text(extra);
        if !text.is_empty() {
            writeln!(out, "\n{text}")?;
        }
    }
    out.flush()?;
    Ok(if done.block.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The text blocks of a message, joined with newlines.
fn message_text(message: &Message) -> String {
    match &message.content {
        MessageContent::Text(text) => text.clone(),
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Known(KnownBlock::Text { text }) => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Pulls the `tool_use` blocks out of an assistant message, a Messages API response, or a bare
/// array of blocks.
fn tool_uses(turn: Value) -> anyhow::Result<Vec<ToolUseBlock>> {
    let blocks = match turn {
        Value::Array(blocks) => blocks,
        Value::Object(mut message) => match message.remove("content") {
            Some(Value::Array(blocks)) => blocks,
            Some(Value::String(_)) => Vec::new(),
            _ => bail!("expected an assistant message with a `content` array, or an array of tool_use blocks"),
        },
        _ => bail!("expected an assistant message with a `content` array, or an array of tool_use blocks"),
    };
    let mut uses = Vec::new();
    for (index, block) in blocks.into_iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str);
        if kind.is_some_and(|kind| kind != "tool_use") {
            continue;
        }
        let tool_use: ToolUseBlock =
            serde_json::from_value(block).with_context(|| format!("content block {index} is not a valid tool_use"))?;
        uses.push(tool_use);
    }
    Ok(uses)
}

/// `run`: the turn's `tool_use` blocks in, the user message with the `tool_result` blocks out.
/// With `stream`, JSON lines: each progress event and each result as it is known, then the
/// message.
pub(crate) async fn run(session: &Session, file: &Path, stream: bool) -> anyhow::Result<ExitCode> {
    let text = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    let turn: Value = serde_json::from_str(&text).context("the turn is not valid JSON")?;
    let uses = tool_uses(turn)?;
    let mut progress: Option<agent_tools_core::ProgressSink> = None;
    if stream {
        progress = Some(Arc::new(|event: ProgressEvent| {
            let line = json!({"type": "progress", "tool_use_id": event.tool_use_id, "tool": event.tool_name, "data": event.data});
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }));
    }
    let done = session.run_turn(&uses, progress).await;
    let message = done.message();
    let mut out = std::io::stdout().lock();
    if stream {
        for invocation in done.iter() {
            writeln!(
                out,
                "{}",
                json!({"type": "tool_result", "block": invocation.block, "messages": invocation.new_messages})
            )?;
        }
        writeln!(out, "{}", json!({"type": "message", "message": message}))?;
    } else {
        serde_json::to_writer_pretty(&mut out, &message)?;
        writeln!(out)?;
        // Messages a call adds after the results (a skill's instructions, hook feedback) follow
        // as further JSON values, in the order the conversation would carry them.
        for extra in done.iter().flat_map(|invocation| &invocation.new_messages) {
            serde_json::to_writer_pretty(&mut out, extra)?;
            writeln!(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A spinner on stderr for calls that take a while (only when stderr is a terminal).
struct Activity {
    task: Option<tokio::task::JoinHandle<()>>,
    bar: indicatif::ProgressBar,
}

impl Activity {
    fn start(session: &Session, block: &ToolUseBlock) -> Self {
        let bar = indicatif::ProgressBar::hidden();
        if !std::io::stderr().is_terminal() {
            return Self { task: None, bar };
        }
        let label = session
            .find_tool(&block.name)
            .and_then(|tool| tool.parse(block.input.clone()).ok().and_then(|parsed| tool.activity_description(&parsed)))
            .unwrap_or_else(|| format!("Running {}", block.name));
        crate::prompt::set_activity_line(Some(bar.clone()));
        let shown = bar.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            shown.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            shown.set_message(label);
            shown.enable_steady_tick(std::time::Duration::from_millis(120));
        });
        Self { task: Some(task), bar }
    }

    fn finish(self) {
        if let Some(task) = self.task {
            task.abort();
            crate::prompt::set_activity_line(None);
        }
        self.bar.finish_and_clear();
    }
}

/// `mcp-login SERVER`: calls the server's `mcp__<server>__authenticate` tool, prints the URL,
/// and waits until the sign-in connects the server (its McpAuth flow stores the tokens).
pub(crate) async fn mcp_login(session: &Session, server: &str) -> anyhow::Result<ExitCode> {
    // Each line is flushed at once: the user must see the URL while this waits.
    let say = |text: &str| -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")?;
        out.flush()
    };
    let pool = session.pool();
    let sign_in = pool.iter().find(|tool| {
        tool.mcp_info().is_some_and(|info| info.server_name == server && info.tool_name == "authenticate")
    });
    let Some(sign_in) = sign_in else {
        if session.mcp().connections().iter().any(|connection| connection.name == server) {
            say(&format!("MCP server \"{server}\" is connected: it needs no sign-in (or its stored one works)."))?;
            return Ok(ExitCode::SUCCESS);
        }
        let why = session
            .mcp()
            .failures()
            .into_iter()
            .find(|failure| failure.name == server)
            .map_or_else(|| "no server of that name is configured".to_owned(), |failure| failure.message);
        anyhow::bail!("cannot sign in to MCP server \"{server}\": {why}");
    };
    let mut changes = session.mcp().changes();
    let block = ToolUseBlock { id: "mcp_login".into(), name: sign_in.name().to_owned(), input: serde_json::json!({}) };
    let done = session.call(&block, CallOptions::default()).await;
    let output = done.data.as_ref().map(|data| data.to_json()).unwrap_or_default();
    let Some(url) = output.get("authUrl").and_then(Value::as_str) else {
        anyhow::bail!("{}", done.block.content.text());
    };
    say(&format!("Open this URL in a browser to sign in to MCP server \"{server}\":\n\n{url}\n"))?;
    say("Waiting for the browser to come back (at most 5 minutes)…")?;
    let connected = |session: &Session| session.mcp().connections().iter().any(|connection| connection.name == server);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5 * 60 + 5);
    while !connected(session) {
        if tokio::time::timeout_at(deadline, changes.changed()).await.is_err() {
            anyhow::bail!("the sign-in to MCP server \"{server}\" did not finish in time");
        }
    }
    say(&format!("Signed in to MCP server \"{server}\"; later runs use the stored tokens."))?;
    Ok(ExitCode::SUCCESS)
}
