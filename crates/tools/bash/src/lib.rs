//! # agent-tool-bash: the Bash tool
//!
//! Runs shell commands, as Claude Code's `Bash` tool does: the same name, input fields
//! (`command`, `timeout`, `description`, `run_in_background`) and result text — the merged output
//! for a command that succeeded, `Exit code N` followed by the output for one that failed.
//!
//! Each call runs a fresh `bash -c` in the session's working directory, in its own process
//! group, with stdin from `/dev/null` and stdout and stderr appended to one temporary file (so
//! they interleave in the order written, and a background child holding them open can never keep
//! the call waiting: the call ends when the shell exits). Pagers, editors and git prompts are
//! turned off through the environment ([`SHELL_ENV`]).
//!
//! - **Working directory**: the directory the shell ends in — after success, failure or `exit` —
//!   becomes the session's working directory, through the result's context modifier. Variables
//!   and functions do not carry over. If the working directory has been deleted, the call starts
//!   in the original directory and says so (`Shell cwd was reset to …`).
//! - **Exit codes** ([`semantics`]): non-zero is an error, except exit code 1 of `grep`/`rg` (no
//!   match), `find` (some folders unreadable), `diff` (files differ) and `test`/`[` (false), judged
//!   by the last sub-command's first word, as Claude Code does.
//! - **Timeout**: default 2 minutes, at most 10 (larger values are clamped). A command past its
//!   timeout is stopped with everything it started — its process group and, on Linux, what left
//!   the group (`setsid`, `setsid -f`, a double fork) — SIGTERM, then SIGKILL, and the result is
//!   `Exit code 143`, the output so far, and `Command timed out after Ns`. Cancelling the
//!   context's token stops it the same way. A command (foreground or background) also ends with
//!   the process that started it, even one killed with SIGKILL (see
//!   [`agent_tools_background::lifeline`]).
//! - **Size**: at most 30,000 characters of output reach the model (10,000 for a failed command,
//!   as Claude Code cuts error results): the head and the tail, read by seeking so any size of
//!   output is fine, with a marker counting the lines and characters left out. When the session
//!   has a folder, the whole output is also saved to `<session>/tool-results/<tool_use_id>.txt`
//!   and a `<persisted-output>` block after the marker names the file. The command itself always
//!   runs to completion.
//! - **Background** (`run_in_background: true`): the command becomes a task of the session's
//!   [`agent_tools_background::TaskRegistry`] — on a pseudo-terminal of its own, its output (escape
//!   sequences stripped) in `<session>/tasks/<id>.output` — and the call returns at once with
//!   Claude Code's `Command running in background with ID: …` text. The task queues a
//!   `<task-notification>` when it ends, for the conversation that started it (inside a
//!   sub-agent: the sub-agent, which also owns the task and stops it when it is cancelled);
//!   TaskOutput reads it and TaskStop stops it. With
//!   [`BashConfig::background_tasks`] off the field is not in the schema.
//!
//! - **Sandbox** (`sandbox.enabled` in the settings, see [`agent_tools_core::SandboxSettings`]):
//!   foreground and background commands run under bubblewrap — writes only in the working
//!   directories, the temporary folder and the session's folder (code-running paths such as
//!   `.git/hooks` excluded), no network; `dangerouslyDisableSandbox` and `excludedCommands` are
//!   the ways out, and a sandboxed command needs no approval unless a rule or safety check asks.
//!   Without a working `bwrap` the command is refused, never run unsandboxed.
//!
//! Where this differs from Claude Code, on purpose: a timed-out command is killed rather than
//! moved to the background, a `cd` persists even when the command then fails, and long output
//! keeps its head and tail inline (with the whole saved to a file) instead of a 2 KB preview.
//!
//! The tool needs a Tokio runtime with I/O and time enabled (`#[tokio::main]`, or
//! `Builder::enable_all`), since it waits for processes and timers.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let dir = tempfile::tempdir().unwrap();
//! let bash = agent_tool_bash::tool();
//! let mut ctx = ToolUseContext::new(dir.path());
//! let input = serde_json::json!({"command": "mkdir src && cd src && echo hi > a.txt && ls"});
//! let mut done = call_tool(bash.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "a.txt");
//! if let Some(modifier) = done.context_modifier.take() {
//!     ctx = modifier(ctx); // the next call starts in src/
//! }
//! let done = call_tool(bash.as_ref(), "toolu_2", serde_json::json!({"command": "cat a.txt"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "hi");
//! # });
//! ```

pub mod semantics;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_background::ShellTaskSpec;
use agent_tools_core::{PermissionMatcher, RestrictionMatcher};
use agent_tools_core::{PermissionResult, Tool, ToolUseContext, build_tool};
use agent_tools_shell::{Argv, Interpretation, Shell, ShellConfig, ShellTool, sandbox};

pub use agent_tools_shell::SHELL_ENV;
pub use agent_tools_shell::{DEFAULT_TIMEOUT_MS, MAX_OUTPUT_CHARS, MAX_TIMEOUT_MS};
pub use agent_tools_shell::{ShellInput as BashInput, ShellOutput as BashOutput, ShellProgress as BashProgress};

/// The API name.
pub const NAME: &str = "Bash";

/// The script `bash -c` runs. `$1` is the file that receives the final working directory and
/// `$2` the command; both are taken out of the positional parameters before the command runs,
/// which `eval` reads from a variable (never spliced into the script). The `EXIT` trap records
/// the directory however the shell ends: success, failure or `exit`.
/// It is one line so that bash's error messages number the command's own lines from 1.
const SCRIPT: &str = r#"__agent_tools_cwd_file=$1; __agent_tools_command=$2; shift 2; trap 'pwd -P 2>/dev/null >| "$__agent_tools_cwd_file"' EXIT; eval "$__agent_tools_command""#;

/// Bash's settings ([`ShellConfig`]): `shell` is the bash binary — `/bin/bash` when it exists,
/// else `bash` looked up on `PATH` — and the rest how commands run.
pub type BashConfig = ShellConfig<Bash>;

/// The Bash tool definition: the shared shell tool over [`Bash`].
pub type BashTool = ShellTool<Bash>;

/// Bash as a [`Shell`]: `bash -c` with a fixed script (the command is its argument, run with
/// `eval`; an `EXIT` trap records the final directory), Claude Code's exit-code semantics
/// ([`semantics`]), and the permission rules of `agent_tools_shell_analysis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bash {}

impl Shell for Bash {
    const NAME: &'static str = NAME;
    const SEARCH_HINT: &'static str = "run shell commands, builds, tests and git";
    const PROMPT: &'static str = include_str!("prompt.md");
    const BACKGROUND_PROMPT: &'static str = include_str!("prompt_background.md");
    /// In sandbox mode with `autoAllowBashIfSandboxed` (the default), a command that will run
    /// sandboxed needs no approval unless a deny rule, an ask rule or a safety check says so.
    const AUTO_ALLOW_SANDBOXED: bool = true;

    type Program = PathBuf;

    fn default_program() -> PathBuf {
        let bin_bash = Path::new("/bin/bash");
        if bin_bash.is_file() { bin_bash.to_path_buf() } else { PathBuf::from("bash") }
    }

    fn program(program: &PathBuf) -> Result<&Path, &'static str> {
        Ok(program)
    }

    /// `$0` is the program's path, so bash's own messages name it as Claude Code's do
    /// (`/bin/bash: line 1: cd: …`).
    fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv {
        Argv::new(program).arg("-c").arg(SCRIPT).arg(program).arg(cwd_file).arg(command)
    }

    fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec {
        ShellTaskSpec::new(program, command, dir)
    }

    fn interpret(command: &str, exit_code: i32) -> Interpretation {
        semantics::interpret(command, exit_code)
    }

    /// Read-only when the parsed command provably only reads: every part a known command with
    /// allow-listed flags, no expansion, no file written (see
    /// `agent_tools_shell_analysis::is_read_only_command`, Claude Code's read-only validation).
    fn is_read_only(command: &str) -> bool {
        agent_tools_shell_analysis::is_read_only_command(command, None)
    }

    /// Read-only calls may run side by side with other concurrency-safe calls, as in Claude Code,
    /// unless they change the working directory (`cd src && ls`): those run in order, so the
    /// directory they end in carries over to the calls after them.
    fn is_concurrency_safe(command: &str) -> bool {
        Self::is_read_only(command) && !agent_tools_shell_analysis::changes_working_directory(command)
    }

    /// Whether the command may delete or overwrite data (`rm`, `git reset --hard`, `> file` …);
    /// `true` when in doubt (see `agent_tools_shell_analysis::is_destructive_command`).
    fn is_destructive(command: &str) -> bool {
        agent_tools_shell_analysis::is_destructive_command(command)
    }

    /// Claude Code's Bash permission check: each part of the command against `Bash(…)` rules, the
    /// paths it reads and writes against `Read(…)`/`Edit(…)` rules and the working directories,
    /// the mode, and the read-only allow-list (see `agent_tools_shell_analysis::check_shell_command`).
    fn check_permissions(command: &str, ctx: &ToolUseContext) -> PermissionResult {
        agent_tools_shell_analysis::check_shell_command(NAME, command, ctx)
    }

    /// Tells whether a `Bash(…)` rule pattern (`git push:*`) covers any part of the command, for
    /// hook conditions (Claude Code's `preparePermissionMatcher`).
    fn permission_matcher(command: &str) -> PermissionMatcher {
        agent_tools_shell_analysis::shell_permission_matcher(command)
    }

    /// Tells whether rule contents cover every part of the command, for a sub-agent's
    /// `tools: Bash(git diff:*)` restriction (see `agent_tools_shell_analysis::shell_restriction_matcher`).
    fn restriction_matcher(command: &str) -> Option<RestrictionMatcher> {
        Some(agent_tools_shell_analysis::shell_restriction_matcher(command))
    }

    /// Every part of the command matches an excluded pattern (see [`sandbox::is_excluded`]).
    fn is_excluded(command: &str, excluded: &[String]) -> bool {
        sandbox::is_excluded(command, excluded)
    }
}

/// Bash with default settings, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(BashTool::default())
}

/// Bash with the given settings.
pub fn tool_with(config: BashConfig) -> Arc<dyn Tool> {
    build_tool(BashTool::new(config))
}
