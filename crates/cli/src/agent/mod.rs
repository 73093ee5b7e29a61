//! `agent-tools agent`: the agent loop ([`agent_tools_loop`]) on the command line, a drop-in for
//! `claude -p` and for the `claude` binary the Claude Agent SDKs start.
//!
//! - `-p PROMPT` (or a positional prompt, or standard input) runs one query headless and prints
//!   it as `--output-format text` (the result's text), `json` (the result object) or
//!   `stream-json` (one JSON object per line: the `system/init` line, every message, the
//!   `result` line; with `--include-partial-messages` the raw stream events too).
//! - `--input-format stream-json` reads user messages and the SDK's control requests from
//!   standard input ([`sdk`]): the Agent SDKs drive it unchanged through their CLI-path option.
//! - Without `-p`, on a terminal: a line-based chat ([`repl`]).
//!
//! The exit status is 0 when the (last) result is a success, 1 when it is an error or the run
//! could not start (no API key, no conversation to resume), 2 for a usage error.

mod control;
mod headless;
mod output;
mod relay;
mod repl;
mod sdk;
mod setup;
mod task_events;
mod teammate;

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::GlobalOptions;

pub(crate) use relay::relay_main;

/// The version line `agent-tools agent --version` prints (`claude --version` prints
/// `2.1.0 (Claude Code)`).
pub(crate) fn version_line() -> String {
    format!("{} (agent-tools)", env!("CARGO_PKG_VERSION"))
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// The result's text.
    #[default]
    Text,
    /// The result object, on one line.
    Json,
    /// One JSON object per line as things happen.
    StreamJson,
}

/// How the prompt arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum InputFormat {
    /// The prompt as text (`-p`, positional, or standard input).
    #[default]
    Text,
    /// JSON lines: user messages and control requests (the Agent SDKs' protocol).
    StreamJson,
}

/// `agent-tools agent`'s own flags (the rules, mode, settings and MCP flags are the global
/// ones: `--allowedTools`, `--disallowedTools`, `--permission-mode`,
/// `--dangerously-skip-permissions`, `--settings`, `--mcp-config`, `--strict-mcp-config`).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct AgentArgs {
    /// The prompt (else `-p PROMPT`, else standard input when it is not a terminal).
    pub(crate) prompt: Option<String>,
    /// Run one query headless and print the result (`claude -p`); the prompt may follow.
    #[arg(short = 'p', long = "print", num_args = 0..=1, value_name = "PROMPT")]
    pub(crate) print: Option<Option<String>>,
    /// text (the result's text), json (the result object) or stream-json (JSON lines).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text, value_name = "FORMAT")]
    pub(crate) output_format: OutputFormat,
    /// text, or stream-json: user messages and control requests as JSON lines on stdin.
    #[arg(long, value_enum, default_value_t = InputFormat::Text, value_name = "FORMAT")]
    pub(crate) input_format: InputFormat,
    /// Accepted for `claude -p` compatibility (stream-json output is always complete).
    #[arg(long)]
    pub(crate) verbose: bool,
    /// The model: an alias (`sonnet`, `opus`, `haiku`) or an id (default: `ANTHROPIC_MODEL`,
    /// else the settings' `model`, else the loop's default).
    #[arg(long, value_name = "MODEL")]
    pub(crate) model: Option<String>,
    /// Replaces the default system prompt.
    #[arg(long, value_name = "PROMPT")]
    pub(crate) system_prompt: Option<String>,
    /// Replaces the default system prompt with a file's text.
    #[arg(long, value_name = "FILE", conflicts_with = "system_prompt")]
    pub(crate) system_prompt_file: Option<PathBuf>,
    /// Appended to the system prompt.
    #[arg(long, value_name = "PROMPT")]
    pub(crate) append_system_prompt: Option<String>,
    /// Appended to the system prompt, from a file.
    #[arg(long, value_name = "FILE", conflicts_with = "append_system_prompt")]
    pub(crate) append_system_prompt_file: Option<PathBuf>,
    /// Most model turns of one query; past it the result is `error_max_turns`.
    #[arg(long, value_name = "N")]
    pub(crate) max_turns: Option<u32>,
    /// Most dollars the session may spend; past it the result is `error_max_budget_usd`.
    #[arg(long, value_name = "USD")]
    pub(crate) max_budget_usd: Option<f64>,
    /// Another working directory the tools may use (repeatable; `--add-dir A B` takes both).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub(crate) add_dir: Vec<PathBuf>,
    /// Only these built-in tools, comma or space separated (`"Bash,Read"`; `""`: none;
    /// `default`: all).
    #[arg(long, value_name = "TOOLS")]
    pub(crate) tools: Option<String>,
    /// Continue the most recent conversation started in this directory.
    #[arg(short = 'c', long = "continue")]
    pub(crate) continue_conversation: bool,
    /// Resume the conversation with this session id (without one: the most recent, as
    /// `--continue`).
    #[arg(short = 'r', long, num_args = 0..=1, value_name = "SESSION_ID")]
    pub(crate) resume: Option<Option<String>>,
    /// The id of the new session (a plain name: letters, digits, `-`, `_`).
    #[arg(long, value_name = "ID")]
    pub(crate) session_id: Option<String>,
    /// With `--resume`/`--continue`: go on in a new session (a new id, `--session-id` or a fresh
    /// UUID) holding a copy of the history, instead of the old one.
    #[arg(long)]
    pub(crate) fork_session: bool,
    /// With `--resume`: the conversation up to and including the message with this uuid (a
    /// transcript entry's, as the SDKs' `get_session_messages` and streamed messages give
    /// them); the session goes on from there.
    #[arg(long, value_name = "UUID")]
    pub(crate) resume_session_at: Option<String>,
    /// Save nothing of the session (no transcript): it cannot be resumed.
    #[arg(long)]
    pub(crate) no_session_persistence: bool,
    /// stream-json: also print the raw stream events (`{"type":"stream_event","event":…}`).
    #[arg(long)]
    pub(crate) include_partial_messages: bool,
    /// Brief mode (as `claude --brief`, or `CLAUDE_CODE_BRIEF=1`): the model has SendUserMessage
    /// (alias `Brief`), and what it sends is what the user reads.
    #[arg(long)]
    pub(crate) brief: bool,
    /// Which settings files are read: `user`, `project`, `local`, comma separated (any of them:
    /// all are read; none, `""`: only `--settings`).
    #[arg(long, value_name = "SOURCES")]
    pub(crate) setting_sources: Option<String>,
    /// `stdio`: permission questions go to the SDK as `can_use_tool` control requests (the
    /// default with `--input-format stream-json`); an MCP tool name is not supported.
    #[arg(long, value_name = "TOOL")]
    pub(crate) permission_prompt_tool: Option<String>,
    /// The thinking budget in tokens (`thinking: {"type": "enabled", "budget_tokens": N}`; 0: none).
    #[arg(long, value_name = "TOKENS")]
    pub(crate) max_thinking_tokens: Option<u32>,
    /// `disabled` turns thinking off; `adaptive` is accepted and sends nothing.
    #[arg(long, value_name = "MODE")]
    pub(crate) thinking: Option<String>,
    /// Print the version and exit.
    #[arg(short = 'v', long = "version")]
    pub(crate) version: bool,

    /// With `--output-format stream-json`: a `system/hook_started` and a `system/hook_response`
    /// line for every hook run (those of SessionStart and Setup hooks are printed anyway).
    #[arg(long)]
    pub(crate) include_hook_events: bool,

    // Accepted for compatibility with `claude` and the Agent SDKs, and ignored.
    /// Ignored (`claude`'s approval surface switch).
    #[arg(long, value_name = "MODE", hide = true)]
    pub(crate) permission_prompts: Option<String>,
    /// Ignored.
    #[arg(long, value_name = "MODEL", hide = true)]
    pub(crate) fallback_model: Option<String>,
    /// Ignored.
    #[arg(long, value_name = "BETAS", hide = true)]
    pub(crate) betas: Vec<String>,
    /// Ignored.
    #[arg(long, value_name = "TOKENS", hide = true)]
    pub(crate) task_budget: Option<String>,
    /// Ignored.
    #[arg(long, value_name = "DISPLAY", hide = true)]
    pub(crate) thinking_display: Option<String>,
    /// Ignored.
    #[arg(long, value_name = "LEVEL", hide = true)]
    pub(crate) effort: Option<String>,
    /// A JSON Schema (JSON text, or a file holding it) the final answer must match: the model
    /// finishes through the StructuredOutput tool, and the result carries `structured_output`.
    #[arg(long, value_name = "SCHEMA")]
    pub(crate) json_schema: Option<String>,
    /// Ignored.
    #[arg(long, value_name = "DIR", hide = true)]
    pub(crate) plugin_dir: Vec<PathBuf>,
    /// Ignored.
    #[arg(long, value_name = "UUID", hide = true)]
    pub(crate) resume_drops_turn: Option<String>,
    /// Ignored.
    #[arg(long, hide = true)]
    pub(crate) session_mirror: bool,
    /// Sub-agents of this session, as JSON: `{"reviewer": {"description": "…", "prompt": "…",
    /// "tools": ["Read"], "model": "sonnet"}}`; they replace file agents of the same name.
    #[arg(long, value_name = "JSON")]
    pub(crate) agents: Option<String>,
    /// Ignored.
    #[arg(long, hide = true)]
    pub(crate) replay_user_messages: bool,
    /// Ignored (`claude` makes bypassPermissions a mode one may switch to; here it always is
    /// one, asked for with `--permission-mode` or `set_permission_mode`).
    #[arg(long, hide = true)]
    pub(crate) allow_dangerously_skip_permissions: bool,
    /// Run as teammate NAME of team TEAM (`TEAM/NAME`), as TeamCreate's tmux backend starts
    /// one ([`teammate`]).
    #[arg(long, value_name = "TEAM/NAME", hide = true)]
    pub(crate) teammate: Option<String>,
    /// With `--teammate`: the teams folder (default `<config dir>/teams`).
    #[arg(long, value_name = "DIR", hide = true, requires = "teammate")]
    pub(crate) teams_dir: Option<PathBuf>,
    /// With `--teammate`: how long to wait for a message before exiting, in seconds (default
    /// 1800).
    #[arg(long, value_name = "SECONDS", hide = true, requires = "teammate")]
    pub(crate) teammate_idle_secs: Option<u64>,
    /// Ignored (logs go to stderr with `AGENT_TOOLS_LOG`).
    #[arg(short = 'd', long, num_args = 0..=1, value_name = "FILTER", hide = true)]
    pub(crate) debug: Option<Option<String>>,
    /// Ignored (logs go to stderr with `AGENT_TOOLS_LOG`).
    #[arg(long, value_name = "FILE", hide = true)]
    pub(crate) debug_file: Option<PathBuf>,
    /// Ignored: a stream-json session always waits for the SDK's `initialize` before it starts.
    #[arg(long, hide = true)]
    pub(crate) await_initialize: bool,
    /// Ignored: which settings the SDK sends in `initialize` (they are read from it when sent).
    #[arg(long, value_name = "FIELDS", hide = true)]
    pub(crate) initialize_fields: Option<String>,
    /// Ignored: managed settings come in `initialize` (`managedSettings`), read from there.
    #[arg(long, hide = true)]
    pub(crate) managed_settings_in_initialize: bool,
    /// Settings an organisation imposes (JSON text), laid over `--settings`: their rule lists
    /// are added to the others, so a managed deny always holds.
    #[arg(long, value_name = "JSON", hide = true)]
    pub(crate) managed_settings: Option<String>,
    /// Ignored (claude.ai channels).
    #[arg(long, value_name = "CHANNEL", hide = true)]
    pub(crate) channels: Vec<String>,
    /// Ignored.
    #[arg(long, value_name = "DIR", hide = true)]
    pub(crate) project_config_root: Option<PathBuf>,
    /// Ignored (plugins are not loaded).
    #[arg(long, value_name = "DIR", hide = true)]
    pub(crate) plugin_dir_no_mcp: Vec<PathBuf>,
    /// Ignored.
    #[arg(long, value_name = "NAME", hide = true)]
    pub(crate) workload: Option<String>,
    /// Run the conversation as this agent (a built-in, file or `--agents` agent): its
    /// instructions are the system prompt (unless `--system-prompt` is given), its tools the
    /// only ones allowed, its model and permission mode the session's (unless flags say).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
}

/// The flags whose values `claude` takes as lists (`--allowedTools Read Write`); the agent's
/// arguments are rewritten so that clap sees one flag per value.
const LIST_FLAGS: &[&str] = &[
    "--allowedTools",
    "--allowed-tools",
    "--disallowedTools",
    "--disallowed-tools",
    "--add-dir",
    "--mcp-config",
    "--betas",
    "--plugin-dir",
];

/// The global flags that take a value (to find the subcommand among the arguments).
const VALUE_FLAGS: &[&str] = &[
    "--cwd",
    "--permission-mode",
    "--settings",
    "--allowed-tools",
    "--allowedTools",
    "--disallowed-tools",
    "--disallowedTools",
    "--mcp-config",
    "--mcpConfig",
];

/// The subcommands `agent-tools` knows (any other first word is left to clap to refuse).
const SUBCOMMANDS: &[&str] = &["list", "call", "run", "serve", "trust", "agent", "hook-relay", "help"];

/// Flags only `agent` takes: arguments that start with one of them and name no subcommand are
/// the agent's (`agent-tools -p hi`, and the Agent SDKs, which run their CLI path with flags
/// only: `--output-format stream-json --verbose … --input-format stream-json`).
const AGENT_FLAGS: &[&str] = &[
    "-p",
    "--print",
    "--output-format",
    "--input-format",
    "--model",
    "--system-prompt",
    "--append-system-prompt",
    "--max-turns",
    "-c",
    "--continue",
    "-r",
    "--resume",
    "-v",
    "--agent",
    "--agents",
    "--session-id",
    "--fork-session",
    "--resume-session-at",
    "--no-session-persistence",
    "--json-schema",
    "--permission-prompt-tool",
    "--setting-sources",
    "--include-hook-events",
];

/// The arguments as clap should read them: `agent` put in front when the program runs as
/// `claude` (a link named so) or is given `claude`'s flags without a subcommand, and `claude`'s
/// list flags taking every value up to the next flag (`--allowedTools Write 'Bash(touch:*)'` is
/// two rules, as in `claude`). Other commands' arguments are returned as they are.
pub(crate) fn expand_list_flags(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let text = |arg: &std::ffi::OsString| arg.to_str().map(str::to_owned).unwrap_or_default();
    let mut at = 1;
    let mut subcommand = None;
    while at < args.len() {
        let arg = text(&args[at]);
        if VALUE_FLAGS.contains(&arg.as_str()) {
            at += 2;
            continue;
        }
        if !arg.starts_with('-') {
            subcommand = Some(at);
            break;
        }
        at += 1;
    }
    let named_claude = args
        .first()
        .and_then(|program| std::path::Path::new(program).file_stem())
        .is_some_and(|stem| stem == "claude" || stem == "claude.exe");
    let known = subcommand.is_some_and(|at| SUBCOMMANDS.contains(&text(&args[at]).as_str()));
    let agent_flags = args.iter().skip(1).any(|arg| {
        let arg = text(arg);
        let flag = arg.split('=').next().unwrap_or_default();
        AGENT_FLAGS.contains(&flag)
    });
    if !known && args.len() > 1 && (named_claude || (agent_flags && text(&args[1]).starts_with('-'))) {
        args.insert(1, std::ffi::OsString::from("agent"));
        subcommand = Some(1);
    } else if named_claude && args.len() == 1 {
        args.push(std::ffi::OsString::from("agent"));
        subcommand = Some(1);
    }
    let Some(start) = subcommand.filter(|&at| text(&args[at]) == "agent") else { return args };
    let mut out: Vec<std::ffi::OsString> = args[..=start].to_vec();
    let mut rest = args[start + 1..].iter().peekable();
    while let Some(arg) = rest.next() {
        let flag = text(arg);
        out.push(arg.clone());
        if flag == "--" {
            out.extend(rest.by_ref().cloned());
            break;
        }
        if !LIST_FLAGS.contains(&flag.as_str()) {
            continue;
        }
        // The first value, whatever it is (it may be empty, or start with a dash).
        if let Some(value) = rest.next() {
            out.push(value.clone());
        }
        while let Some(value) = rest.peek() {
            if text(value).starts_with('-') || value.is_empty() {
                break;
            }
            out.push(std::ffi::OsString::from(flag.clone()));
            out.push((*value).clone());
            rest.next();
        }
    }
    out
}

/// Which front end runs.
enum Mode {
    /// One query, printed (`-p`, or a prompt on a pipe).
    Headless(String),
    /// The SDK's JSON lines on stdin.
    Stream,
    /// A chat on the terminal, maybe with a first prompt.
    Interactive(Option<String>),
    /// A team's teammate, prompted through its mailbox (`--teammate`).
    Teammate,
}

/// Runs `agent-tools agent` and returns its exit status.
pub(crate) fn main(options: GlobalOptions, args: AgentArgs) -> ExitCode {
    if args.version {
        crate::say(format_args!("{}", version_line()));
        return ExitCode::SUCCESS;
    }
    let mode = match if args.teammate.is_some() { Ok(Mode::Teammate) } else { choose_mode(&args) } {
        Ok(mode) => mode,
        Err(error) => {
            crate::report(format_args!("Error: {error:#}"));
            return ExitCode::from(1);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            crate::report(format_args!("agent-tools: cannot start the async runtime: {error}"));
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(async move {
        match mode {
            Mode::Headless(prompt) => headless::run(&options, &args, &prompt).await,
            Mode::Stream => sdk::run(&options, &args).await,
            Mode::Interactive(first) => repl::run(&options, &args, first).await,
            Mode::Teammate => teammate::run(&options, &args).await,
        }
    });
    // Do not wait for a blocking read of stdin or the terminal that is still pending.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}

/// Chooses the front end from the flags and whether stdin is a terminal; reads the prompt from
/// stdin when it comes from there.
fn choose_mode(args: &AgentArgs) -> anyhow::Result<Mode> {
    if args.input_format == InputFormat::StreamJson {
        return Ok(Mode::Stream);
    }
    let given = args.print.clone().flatten().or_else(|| args.prompt.clone());
    let stdin_is_terminal = std::io::stdin().is_terminal();
    if args.print.is_none() && stdin_is_terminal {
        return Ok(Mode::Interactive(given));
    }
    let prompt = match given {
        Some(prompt) => prompt,
        None if stdin_is_terminal => {
            anyhow::bail!("Input must be provided either through stdin or as a prompt argument when using --print")
        }
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|error| anyhow::anyhow!("cannot read stdin: {error}"))?;
            text
        }
    };
    anyhow::ensure!(
        !prompt.trim().is_empty(),
        "Input must be provided either through stdin or as a prompt argument when using --print"
    );
    Ok(Mode::Headless(prompt))
}

/// How a piece of work under Ctrl-C ended.
pub(crate) enum Outcome<T> {
    /// It finished (an interrupted query finishes too, as an error result).
    Done(T),
    /// The program was asked to stop: a second Ctrl-C, SIGTERM or SIGHUP; the exit status
    /// (128 + the signal).
    Stopped(u8),
}

/// Runs `work` while watching the signals: the first Ctrl-C interrupts the agent's running query
/// (`agent.interrupt()`), a second one, SIGTERM or SIGHUP stop the program.
pub(crate) async fn interruptible<T>(agent: &agent_tools_loop::Agent, work: impl Future<Output = T>) -> Outcome<T> {
    let mut signals = Signals::new();
    tokio::pin!(work);
    let mut interrupts = 0;
    loop {
        tokio::select! {
            value = &mut work => return Outcome::Done(value),
            code = signals.next() => {
                if code != 130 {
                    return Outcome::Stopped(code);
                }
                interrupts += 1;
                if interrupts > 1 {
                    return Outcome::Stopped(130);
                }
                agent.interrupt();
                crate::report(format_args!("Interrupted: stopping what runs. Press Ctrl-C again to exit at once."));
            }
        }
    }
}

/// The signals that stop or interrupt the agent.
pub(crate) struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers (Ctrl-C, SIGTERM, SIGHUP); one that cannot be installed is never
    /// seen.
    pub(crate) fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
                hangup: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// The next signal, as its exit status: 130 for Ctrl-C, 143 SIGTERM, 129 SIGHUP.
    pub(crate) async fn next(&mut self) -> u8 {
        #[cfg(unix)]
        {
            async fn next(handler: Option<&mut tokio::signal::unix::Signal>) {
                match handler {
                    Some(handler) => {
                        handler.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = next(self.interrupt.as_mut()) => 130,
                () = next(self.terminate.as_mut()) => 143,
                () = next(self.hangup.as_mut()) => 129,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            130
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(args: &[&str]) -> Vec<String> {
        expand_list_flags(args.iter().map(std::ffi::OsString::from).collect())
            .into_iter()
            .map(|arg| arg.into_string().unwrap_or_default())
            .collect()
    }

    #[test]
    fn list_flags_take_every_value_up_to_the_next_flag_for_the_agent_only() {
        assert_eq!(
            expand(&["at", "agent", "-p", "go", "--allowedTools", "Write", "Bash(touch:*)", "--verbose"]),
            ["at", "agent", "-p", "go", "--allowedTools", "Write", "--allowedTools", "Bash(touch:*)", "--verbose"]
        );
        assert_eq!(
            expand(&["at", "--cwd", "agent", "agent", "--tools", "", "--add-dir", "a", "b"]),
            ["at", "--cwd", "agent", "agent", "--tools", "", "--add-dir", "a", "--add-dir", "b"]
        );
        // An empty first value is taken; other commands are left alone.
        assert_eq!(
            expand(&["at", "agent", "--disallowedTools", "", "x"]),
            ["at", "agent", "--disallowedTools", "", "--disallowedTools", "x"]
        );
        assert_eq!(
            expand(&["at", "--allowed-tools", "Write", "call", "A", "B"]),
            ["at", "--allowed-tools", "Write", "call", "A", "B"]
        );
        assert_eq!(
            expand(&["at", "--cwd", "/d", "--disallowed-tools", "Bash", "call", "Bash", "{}"]),
            ["at", "--cwd", "/d", "--disallowed-tools", "Bash", "call", "Bash", "{}"]
        );
        // The SDKs run their CLI path with flags only; a link named claude is the agent.
        assert_eq!(
            expand(&["at", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]),
            ["at", "agent", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
        );
        assert_eq!(expand(&["/bin/claude", "-p", "hi"]), ["/bin/claude", "agent", "-p", "hi"]);
        // `-v` is claude's version flag: the agent prints it; `--version` stays the program's.
        assert_eq!(expand(&["at", "-v"]), ["at", "agent", "-v"]);
        assert_eq!(expand(&["at", "--version"]), ["at", "--version"]);
        assert_eq!(expand(&["at", "--agent=looker", "-p", "x"]), ["at", "agent", "--agent=looker", "-p", "x"]);
        assert_eq!(expand(&["/bin/claude"]), ["/bin/claude", "agent"]);
        assert_eq!(expand(&["/bin/claude", "--version"]), ["/bin/claude", "agent", "--version"]);
        // Not without claude's flags, nor with a subcommand, nor for a mistyped one.
        assert_eq!(expand(&["at", "--cwd", "d", "lst"]), ["at", "--cwd", "d", "lst"]);
        assert_eq!(expand(&["at", "lst", "-p"]), ["at", "lst", "-p"]);
        assert_eq!(expand(&["at", "--version"]), ["at", "--version"]);
    }
}
