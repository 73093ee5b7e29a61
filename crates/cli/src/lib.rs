//! `agent-tools`: Claude Code's tools on the command line and over MCP.
//!
//! - `agent-tools list [--json]` — the tool pool, one line per tool, or the Messages API `tools`
//!   array;
//! - `agent-tools call <TOOL> <JSON>` — runs one call and prints its `tool_result` text (exit
//!   status 1 for an error result);
//! - `agent-tools run <FILE|->` — runs an assistant turn's `tool_use` blocks and prints the user
//!   message with the `tool_result` blocks, as JSON;
//! - `agent-tools serve` — an MCP server over stdio serving the whole pool;
//! - `agent-tools trust [DIR]` — trusts a project folder, so that its own configuration
//!   applies (workspace trust, below);
//! - `agent-tools agent -p PROMPT` — the agent loop against a model API, a drop-in for
//!   `claude -p` (text, json or stream-json output; `--input-format stream-json` speaks the
//!   Claude Agent SDK's control protocol; without `-p` on a terminal, a chat).
//!
//! `--mcp-config FILE|JSON` (repeatable) and the project's `.mcp.json` name MCP servers (stdio)
//! whose tools join the pool as `mcp__<server>__<tool>`; they are started when the session starts
//! and ended with it (see the `agent-tools-mcp` crate). `MCP_TIMEOUT` (ms) bounds a server's start,
//! `MCP_TOOL_TIMEOUT` (ms) one call, `MAX_MCP_OUTPUT_TOKENS` a result.
//!
//! Workspace trust: in a folder nobody trusted yet — no record of ours or of Claude Code's
//! (`~/.claude.json`) for it or a folder above it — the project's `.mcp.json` servers, its hooks,
//! allow rules, `defaultMode`, extra directories and skills are left out (its deny and ask rules
//! always apply), and stderr says so once. A terminal asks on first use; `agent-tools trust`
//! or `--trust-workspace` (one run) trust without asking.
//!
//! `--cwd DIR` sets the working directory. Logs go to stderr (`AGENT_TOOLS_LOG`, e.g. `debug`).
//! Background tasks a command started (Bash's `run_in_background`) are stopped, with everything
//! they started, when the program ends — normally or on Ctrl-C, SIGTERM or SIGHUP.
//! `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1` removes `run_in_background` from Bash and
//! PowerShell. The PowerShell tool is in the pool when `pwsh` is found on `PATH`.
//! `CLAUDE_CODE_ENABLE_TASKS=1` offers the task list tools (TaskCreate, TaskGet, TaskUpdate,
//! TaskList) instead of TodoWrite; their lists live in `~/.claude/tasks/<list id>/` (or under
//! `$CLAUDE_CONFIG_DIR`), the list id being `CLAUDE_CODE_TASK_LIST_ID` or else the session id.
//! EnterPlanMode names the session's plan file in `~/.claude/plans` (under `$CLAUDE_CONFIG_DIR`
//! when set, or the `plansDirectory` setting inside the project); ExitPlanMode shows that plan
//! in its permission question.
//! The binary is a thin wrapper around [`main`], so tests can build the same program:
//!
//! The example is `no_run`: [`main`] parses the process's own arguments (a doctest has none, so
//! it would print the usage and exit the process) and reads its environment; `tests/cli.rs`
//! runs the built binary instead, on temporary folders.
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     agent_tools_cli::main()
//! }
//! ```

mod agent;
mod commands;
mod prompt;
mod questions;
mod session;
mod trust;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Claude Code's tools, as a command-line program.
#[derive(Debug, Parser)]
#[command(name = "agent-tools", version, about)]
struct Cli {
    #[command(flatten)]
    options: GlobalOptions,

    #[command(subcommand)]
    command: Command,
}

/// Options every command takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct GlobalOptions {
    /// The working directory tools resolve relative paths against (default: the current one).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// Permission mode: default, acceptEdits, plan, bypassPermissions, dontAsk or auto (default: the
    /// settings' `defaultMode`, else `default`; `serve` on stdio defaults to bypassPermissions,
    /// since the MCP client asks its user before each call; `serve --http` stays at `default`,
    /// asking the client's user through elicitation).
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_mode)]
    pub(crate) permission_mode: Option<agent_tools_core::PermissionMode>,
    /// The same as `--permission-mode bypassPermissions` (deny rules and the safety checks on
    /// `.git/`, shell start-up files and the like still apply).
    #[arg(long, global = true)]
    pub(crate) dangerously_skip_permissions: bool,
    /// A settings file, or settings as JSON text, on top of `~/.claude/settings.json`,
    /// `.claude/settings.json` and `.claude/settings.local.json` (Claude Code's format).
    #[arg(long, global = true, value_name = "FILE|JSON")]
    pub(crate) settings: Option<String>,
    /// Allow rules, comma or space separated, e.g. `"Write Bash(git status:*)"` (repeatable;
    /// after `agent`, like Claude Code's, the flag takes every following word up to the next
    /// flag: `--allowedTools Write 'Bash(touch:*)'`).
    #[arg(long = "allowed-tools", alias = "allowedTools", global = true, value_name = "RULES")]
    pub(crate) allowed_tools: Vec<String>,
    /// Deny rules, comma or space separated, e.g. `"Bash WebFetch"` (repeatable, and after
    /// `agent` every following word up to the next flag; a rule naming a whole tool removes it).
    #[arg(long = "disallowed-tools", alias = "disallowedTools", global = true, value_name = "RULES")]
    pub(crate) disallowed_tools: Vec<String>,
    /// Ignore the settings files (only the command-line rules apply) and the project's
    /// `.mcp.json`.
    #[arg(long, global = true)]
    pub(crate) no_settings: bool,
    /// MCP servers to connect to, as a file or JSON text in Claude Code's format
    /// (`{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}`); repeatable,
    /// later entries replace earlier ones of the same name. Their tools join the pool as
    /// `mcp__<server>__<tool>`.
    #[arg(long = "mcp-config", alias = "mcpConfig", global = true, value_name = "FILE|JSON")]
    pub(crate) mcp_config: Vec<String>,
    /// Use only the `--mcp-config` servers, not the project's `.mcp.json`.
    #[arg(long = "strict-mcp-config", global = true)]
    pub(crate) strict_mcp_config: bool,
    /// Trust the working directory for this run only, without asking (for scripts and CI): its
    /// `.mcp.json` servers, hooks, allow rules and skills apply. Use it only on folders you
    /// trust; `agent-tools trust` remembers a folder instead.
    #[arg(long = "trust-workspace", global = true)]
    pub(crate) trust_workspace: bool,
}

fn parse_mode(text: &str) -> Result<agent_tools_core::PermissionMode, String> {
    agent_tools_core::PermissionMode::parse(text).ok_or_else(|| {
        format!("unknown mode {text:?} (default, acceptEdits, plan, bypassPermissions, dontAsk or auto)")
    })
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools: name, read-only, concurrency-safe, summary.
    List {
        /// Print the Anthropic Messages API `tools` array instead.
        #[arg(long)]
        json: bool,
    },
    /// Run one tool call and print its result text.
    Call {
        /// The tool's name (or an alias), e.g. `Grep`.
        tool: String,
        /// The input as a JSON object, e.g. '{"pattern": "fn main"}'.
        input: String,
    },
    /// Run the `tool_use` blocks of an assistant message and print the user message with the
    /// results.
    Run {
        /// A file with an assistant message (or a bare array of `tool_use` blocks); `-` reads
        /// standard input.
        file: PathBuf,
        /// Print JSON lines as things happen: progress events, each result, then the message.
        #[arg(long)]
        stream: bool,
    },
    /// Serve the tool pool over MCP on stdin/stdout (for Claude Desktop, Claude Code, Cursor,
    /// the MCP Inspector …), or over Streamable HTTP with `--http`.
    Serve {
        /// Serve over MCP's Streamable HTTP at http://ADDR/mcp instead (`PORT` alone means
        /// 127.0.0.1:PORT; port 0 picks a free one): one session per MCP session, every request
        /// with `Authorization: Bearer <token>`.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// The file holding the bearer token (its first line); without it a token is made and
        /// printed once on stderr.
        #[arg(long, value_name = "FILE", requires = "http")]
        auth_token_file: Option<PathBuf>,
        /// Accept requests without a bearer token. Only for a loopback address (127.0.0.1,
        /// ::1), for test harnesses that cannot send headers (the MCP conformance suite); any
        /// local user's process can then use the server.
        #[arg(long, requires = "http", conflicts_with = "auth_token_file")]
        no_auth: bool,
        /// Another host name the `Host` header may carry (a reverse proxy's public name);
        /// repeatable. Loopback names are always allowed.
        #[arg(long, value_name = "HOST", requires = "http")]
        allow_host: Vec<String>,
        /// A folder sessions may work in; repeatable. Each MCP session works in the first root
        /// its client offers (MCP `roots`) that is one of these or inside one, else in the first
        /// of these. Default: `--cwd`, else the current directory.
        #[arg(long, value_name = "DIR", requires = "http")]
        root: Vec<PathBuf>,
    },
    /// Sign in to a remote MCP server that needs OAuth (an `http` server of `.mcp.json` or
    /// `--mcp-config` that answers 401): prints the URL to open, waits until the browser comes
    /// back (at most 5 minutes), and stores the tokens, which later runs use.
    McpLogin {
        /// The server's name in the configuration.
        server: String,
    },
    /// Trust a project folder (default: the current one), so that its own configuration — the
    /// servers of its `.mcp.json`, its hooks, allow rules and skills — applies. A folder trusted
    /// in Claude Code is trusted here already.
    Trust {
        /// The folder (default: `--cwd`, else the current directory).
        dir: Option<PathBuf>,
        /// List the folders trusted here (not Claude Code's).
        #[arg(long, conflicts_with = "remove")]
        list: bool,
        /// Forget the folder's trust instead.
        #[arg(long)]
        remove: bool,
    },
    /// Run the agent loop against a model API (`claude -p`'s flags): `agent -p PROMPT`, a chat
    /// without `-p`, or `--input-format stream-json` for the Claude Agent SDKs.
    Agent(Box<agent::AgentArgs>),
    /// Passes one SDK hook callback from a hook process to the agent that registered it
    /// (internal: the agent names it in the command hooks it adds).
    #[command(hide = true)]
    HookRelay {
        /// The agent's socket.
        socket: PathBuf,
        /// The callback's id.
        id: String,
        /// `--timeout SECONDS`, `--block-on-failure`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        rest: Vec<String>,
    },
}

fn init_logging() {
    // rmcp logs a failed or closed MCP connection as an error of its own; the notices already
    // say what happened in our words, so its lines show only when asked (AGENT_TOOLS_LOG).
    let filter = tracing_subscriber::EnvFilter::try_from_env("AGENT_TOOLS_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
}

/// Whether the error is a closed output pipe (`agent-tools list | head`): not a failure.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|json| json.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// Writes a line to stdout, ignoring a closed stdout (never panics, unlike `println!`).
fn say(message: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{message}");
    let _ = out.flush();
}

/// Writes a line to stderr, ignoring a closed stderr (never panics, unlike `eprintln!`).
fn report(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Resolves when the program is asked to stop (Ctrl-C, SIGTERM, SIGHUP) with the exit status for
/// it (128 + the signal); never, if the handlers cannot be installed.
async fn stop_requested() -> u8 {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        async fn next(handler: Option<&mut Signal>) {
            match handler {
                Some(handler) => {
                    handler.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut hangup = signal(SignalKind::hangup()).ok();
        tokio::select! {
            () = next(interrupt.as_mut()) => 130,
            () = next(terminate.as_mut()) => 143,
            () = next(hangup.as_mut()) => 129,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        130
    }
}

/// Tells the user (on stderr) which background tasks were still running when the program ended
/// and were stopped with it: a `call` or `run` session ends with the program.
fn report_stopped_tasks(stopped: &[agent_tools_background::TaskSnapshot]) {
    if stopped.is_empty() {
        return;
    }
    let count = stopped.len();
    let noun = if count == 1 { "task was" } else { "tasks were" };
    report(format_args!("agent-tools: {count} background {noun} still running and stopped on exit:"));
    for task in stopped {
        report(format_args!("  {} ({}), output in {}", task.id, task.description, task.output_path.display()));
    }
}

/// `serve --http ADDR`: listens on ADDR (a bare port means 127.0.0.1), says where and with which
/// token on stderr, and serves until SIGINT or SIGTERM; each MCP session opens a session of its
/// own as `serve` would.
async fn serve_http(
    options: &GlobalOptions,
    addr: &str,
    token_file: Option<&std::path::Path>,
    no_auth: bool,
    allow_host: &[String],
    roots: &[PathBuf],
) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    let addr = if addr.chars().all(|c| c.is_ascii_digit()) { format!("127.0.0.1:{addr}") } else { addr.to_owned() };
    let listener = tokio::net::TcpListener::bind(&addr).await.with_context(|| format!("--http {addr}"))?;
    let local = listener.local_addr()?;
    anyhow::ensure!(
        !no_auth || local.ip().is_loopback(),
        "--no-auth is only allowed on a loopback address (127.0.0.1 or ::1), not {local}"
    );
    let (token, made) = match token_file {
        _ if no_auth => (String::new(), false),
        Some(path) => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("--auth-token-file {}", path.display()))?;
            #[cfg(unix)]
            if let Ok(metadata) = std::fs::metadata(path) {
                use std::os::unix::fs::PermissionsExt as _;
                if metadata.permissions().mode() & 0o077 != 0 {
                    report(format_args!(
                        "agent-tools: warning: --auth-token-file {} can be read by other users (chmod 600 it)",
                        path.display()
                    ));
                }
            }
            let token = text.lines().next().unwrap_or_default().trim().to_owned();
            anyhow::ensure!(
                token.len() >= 16,
                "--auth-token-file {}: the token must be at least 16 characters",
                path.display()
            );
            (token, false)
        }
        None => (agent_tools_mcp_server::http::new_token(), true),
    };
    let mut http = agent_tools_mcp_server::http::HttpOptions::new(token.clone());
    if no_auth {
        http.token = None;
    }
    http.allowed_hosts.extend(allow_host.iter().cloned());
    let base = match &options.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().context("the current directory")?,
    };
    let roots = if roots.is_empty() { std::slice::from_ref(&base) } else { roots };
    for root in roots {
        let canonical = base.join(root).canonicalize().with_context(|| format!("--root {}", root.display()))?;
        anyhow::ensure!(canonical.is_dir(), "--root {}: not a directory", root.display());
        http.roots.push(canonical);
    }
    // A session per MCP session, opened as `serve` opens its one; over the network, questions go
    // to the client's user unless a permission mode is given.
    let mut shared = options.clone();
    if shared.permission_mode.is_none() && !shared.dangerously_skip_permissions {
        shared.permission_mode = Some(agent_tools_core::PermissionMode::Default);
    }
    let factory: agent_tools_mcp_server::http::SessionFactory = std::sync::Arc::new(move |cwd| {
        let mut options = shared.clone();
        options.cwd = Some(cwd);
        Box::pin(async move {
            // The session's own MCP servers' questions go on to this MCP session's client.
            let elicitor = std::sync::Arc::new(agent_tools_mcp_server::ClientElicitor::new());
            let extras = session::Extras { elicitor: Some(elicitor.clone()), ..session::Extras::default() };
            let session = session::open_with(&options, session::Kind::Server, extras)
                .await
                .map_err(|error| format!("{error:#}"))?;
            Ok(agent_tools_mcp_server::http::OpenedSession {
                session: std::sync::Arc::new(session),
                elicitor: Some(elicitor),
            })
        })
    });
    report(format_args!("agent-tools: serving MCP at http://{local}{}", agent_tools_mcp_server::http::MCP_PATH));
    if made {
        report(format_args!("agent-tools: bearer token (shown once): {token}"));
    }
    if no_auth {
        report(format_args!("agent-tools: --no-auth: requests need no token; any local process can use this server"));
    }
    let stop = tokio_util::sync::CancellationToken::new();
    let server = agent_tools_mcp_server::http::serve_http(listener, factory, http, stop.clone());
    tokio::pin!(server);
    tokio::select! {
        served = &mut server => served?,
        code = stop_requested() => {
            stop.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), server).await;
            return Ok(ExitCode::from(code));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the `agent-tools` program with the process's arguments and returns its exit status:
/// 0 success, 1 an error `tool_result` (`call`), 2 a usage or setup error.
pub fn main() -> ExitCode {
    let cli = Cli::parse_from(agent::expand_list_flags(std::env::args_os().collect()));
    if let Command::HookRelay { socket, id, rest } = &cli.command {
        return agent::relay_main(socket, id, rest);
    }
    init_logging();
    if let Command::Agent(args) = cli.command {
        return agent::main(cli.options, *args);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            report(format_args!("agent-tools: cannot start the async runtime: {error}"));
            return ExitCode::from(2);
        }
    };
    if let Command::Trust { dir, list, remove } = &cli.command {
        // `agent-tools --cwd DIR trust` trusts DIR, as every other command works there.
        let dir = dir.as_deref().or(cli.options.cwd.as_deref());
        return match trust::command(dir, *list, *remove) {
            Ok(code) => code,
            Err(error) => {
                report(format_args!("agent-tools: {error:#}"));
                ExitCode::from(2)
            }
        };
    }
    if let Command::Serve { http: Some(addr), auth_token_file, no_auth, allow_host, root } = &cli.command {
        let served =
            runtime.block_on(serve_http(&cli.options, addr, auth_token_file.as_deref(), *no_auth, allow_host, root));
        runtime.shutdown_timeout(std::time::Duration::from_millis(200));
        return match served {
            Ok(code) => code,
            Err(error) => {
                report(format_args!("agent-tools: {error:#}"));
                ExitCode::from(2)
            }
        };
    }
    let result = runtime.block_on(async move {
        // `serve` passes its own MCP servers' questions on to its client.
        let (kind, elicitor) = match cli.command {
            Command::Serve { .. } => {
                (session::Kind::Server, Some(std::sync::Arc::new(agent_tools_mcp_server::ClientElicitor::new())))
            }
            _ => (session::Kind::Command, None),
        };
        let extras = session::Extras {
            elicitor: elicitor.clone().map(|e| e as std::sync::Arc<dyn agent_tools_mcp::Elicitor>),
            ..session::Extras::default()
        };
        let session = std::sync::Arc::new(session::open_with(&cli.options, kind, extras).await?);
        let command = {
            let session = std::sync::Arc::clone(&session);
            async move {
                match cli.command {
                    Command::List { json } => commands::list(&session, json).await,
                    Command::Call { tool, input } => commands::call(&session, &tool, &input).await,
                    Command::Run { file, stream } => commands::run(&session, &file, stream).await,
                    Command::McpLogin { server } => commands::mcp_login(&session, &server).await,
                    Command::Serve { .. } => {
                        let server = agent_tools_mcp_server::ToolServer::with_forwarding(session, elicitor).await;
                        agent_tools_mcp_server::serve_stdio_with(server).await?;
                        Ok(ExitCode::SUCCESS)
                    }
                    Command::Trust { .. } | Command::Agent(_) | Command::HookRelay { .. } => Ok(ExitCode::SUCCESS),
                }
            }
        };
        // The session's background tasks and MCP servers end with the program, however it ends.
        let outcome = tokio::select! {
            outcome = command => outcome,
            code = stop_requested() => Ok(ExitCode::from(code)),
        };
        report_stopped_tasks(&session.shutdown().await);
        outcome
    });
    // Do not wait for a blocking read of the terminal that a signal interrupted.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            report(format_args!("agent-tools: {error:#}"));
            ExitCode::from(2)
        }
    }
}
