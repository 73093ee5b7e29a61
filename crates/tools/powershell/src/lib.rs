//! # agent-tool-powershell: the PowerShell tool
//!
//! Runs PowerShell commands, as Claude Code's `PowerShell` tool does: the same name, input fields
//! (`command`, `timeout`, `description`, `run_in_background`, `dangerouslyDisableSandbox`) and
//! result text as Bash — the merged output for a command that succeeded, `Exit code N` followed by
//! the output for one that failed, `(PowerShell completed with no output)` for none.
//!
//! The tool exists only where PowerShell 7 does: [`PowerShellConfig`]'s `shell` is the `pwsh`
//! program, `None` when there is none — the tool is then disabled (`is_enabled` is false).
//! [`find_pwsh`] looks it up on a search path the caller passes; the host composes the tool only
//! when the CLI found one on `PATH`.
//!
//! Each call runs `pwsh -NoLogo -NoProfile -NonInteractive -Command SCRIPT` through the shared
//! shell runner ([`agent_tools_shell`]), exactly as Bash runs `bash -c`: in the session's working
//! directory, in its own process group, stdin from `/dev/null`, all output to one file read back
//! head and tail within 30,000 characters (the whole saved under the session's folder when cut),
//! everything it started (its process group and what left it) stopped at the timeout (default 2
//! minutes, at most 10; larger values clamped, as Claude Code's PowerShell tool does) or on
//! cancellation. The command reaches the fixed
//! script through an environment variable, never spliced into it ([`invocation`]); the script
//! writes the directory the command ended in to a file, and that becomes the next call's working
//! directory. `run_in_background` starts a task of the session (TaskOutput and TaskStop work on
//! it); sandbox mode runs the command under bubblewrap, as for Bash.
//!
//! - **Read-only** (and so concurrency-safe): only one plain command of a short allow-list of
//!   cmdlets that read (`Get-ChildItem`, `Get-Content`, `Select-String`, `Test-Path`,
//!   `Get-Location` …) with literal arguments — no pipeline, `;`, redirection, variable,
//!   subexpression or script block ([`classify`]). Any doubt is "not read-only".
//! - **Permissions** ([`permissions`]): `PowerShell(…)` rules match like Bash's (exact,
//!   `prefix:*`, wildcards), command names without regard to case; deny and ask rules see every
//!   statement and quoted piece of the line, through wrappers and aliases; allow rules cover only
//!   a single plain command; protected paths ask even in bypass mode.
//!
//! Where this differs from Claude Code, on purpose: Claude Code offers the tool on Windows (and
//! behind `CLAUDE_CODE_USE_POWERSHELL_TOOL`); here it is offered wherever `pwsh` is installed, and
//! runs on Linux and macOS. As for Bash, a timed-out command is killed rather than moved to the
//! background. A sandboxed PowerShell command is not approved automatically
//! (`autoAllowBashIfSandboxed` is Bash's), `acceptEdits` does not approve file cmdlets
//! (`Set-Content`, `Remove-Item` …) on its own, and suggested rules are always the exact command.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tool_powershell::{find_pwsh, PowerShellConfig};
//! let dir = tempfile::tempdir().unwrap();
//! // A search path without pwsh: the tool exists but is disabled, and a call runs nothing.
//! let shell = find_pwsh(Some(dir.path().as_os_str()));
//! assert_eq!(shell, None);
//! let pwsh = agent_tool_powershell::tool_with(PowerShellConfig { shell, ..PowerShellConfig::default() });
//! assert!(!pwsh.is_enabled());
//! // Read-only (and so concurrency-safe) is decided from the command alone.
//! assert!(pwsh.is_read_only(&pwsh.parse(serde_json::json!({"command": "Get-ChildItem -Name"})).unwrap()));
//! assert!(!pwsh.is_read_only(&pwsh.parse(serde_json::json!({"command": "Remove-Item a.txt"})).unwrap()));
//! let ctx = ToolUseContext::new(dir.path());
//! let input = serde_json::json!({"command": "Get-ChildItem -Name"});
//! let done = call_tool(pwsh.as_ref(), "toolu_1", input, &ctx).await;
//! assert!(done.block.is_error);
//! assert_eq!(done.block.content.text(), "PowerShell is not available: no pwsh program was found, so \
//!     the command was not run. Install PowerShell 7 (pwsh), or use Bash.");
//! # });
//! ```

pub mod classify;
pub mod invocation;
pub mod permissions;
mod render;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_background::ShellTaskSpec;
use agent_tools_core::PermissionMatcher;
use agent_tools_core::{PermissionResult, Tool, ToolUseContext, build_tool};
use agent_tools_shell::{Argv, Interpretation, Shell, ShellConfig, ShellTool};

pub use agent_tools_shell::{ShellInput as PowerShellInput, ShellOutput as PowerShellOutput};

/// The API name.
pub const NAME: &str = "PowerShell";

/// The program name looked up on the search path.
pub const PWSH: &str = "pwsh";

/// PowerShell's settings ([`ShellConfig`]): `shell` is the `pwsh` program, `None` (the default)
/// when PowerShell is not installed — the tool is then disabled. The rest is how commands run,
/// with Bash's defaults (2-minute default timeout, 10-minute maximum, 30,000 characters).
pub type PowerShellConfig = ShellConfig<PowerShell>;

/// The PowerShell tool definition: the shared shell tool over [`PowerShell`].
pub type PowerShellTool = ShellTool<PowerShell>;

/// The `pwsh` program in `search_path` (a `PATH`-style list), if there is one. The host and the
/// CLI call this with the `PATH` they run with; library code never reads the environment.
pub fn find_pwsh(search_path: Option<&OsStr>) -> Option<PathBuf> {
    agent_tools_shell::find_program(PWSH, search_path)
}

/// PowerShell as a [`Shell`]: `pwsh` with [`invocation`]'s flags and script, any non-zero exit
/// code an error, the [`classify`] read-only cmdlets and the [`permissions`] check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerShell {}

impl Shell for PowerShell {
    const NAME: &'static str = NAME;
    const SEARCH_HINT: &'static str = "run PowerShell commands, cmdlets and scripts";
    const PROMPT: &'static str = include_str!("prompt.md");
    const BACKGROUND_PROMPT: &'static str = include_str!("prompt_background.md");
    const COMMAND_DESCRIPTION: Option<&'static str> =
        Some("The PowerShell command line to run, exactly as you would type it at a pwsh prompt.");
    /// `autoAllowBashIfSandboxed` is Bash's: a sandboxed PowerShell command is still checked.
    const AUTO_ALLOW_SANDBOXED: bool = false;

    type Program = Option<PathBuf>;

    fn default_program() -> Option<PathBuf> {
        None
    }

    fn program(program: &Option<PathBuf>) -> Result<&Path, &'static str> {
        program.as_deref().ok_or(render::NOT_INSTALLED)
    }

    fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv {
        invocation::foreground(program, command, cwd_file)
    }

    fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec {
        let mut spec = ShellTaskSpec::with_args(program, invocation::args(), command, dir);
        spec.env = invocation::background_env(command);
        spec
    }

    /// Any non-zero exit code is an error (PowerShell has no `grep`-style answers in its codes).
    fn interpret(_command: &str, exit_code: i32) -> Interpretation {
        Interpretation::plain(exit_code)
    }

    /// Only one plain read-only cmdlet with literal arguments (see [`classify::is_read_only`]).
    fn is_read_only(command: &str) -> bool {
        classify::is_read_only(command)
    }

    /// Same as [`Shell::is_read_only`], as in Claude Code: no read-only cmdlet changes the
    /// location, so the working directory carries over in order anyway.
    fn is_concurrency_safe(command: &str) -> bool {
        classify::is_read_only(command)
    }

    /// Anything not provably read-only may delete or overwrite data.
    fn is_destructive(command: &str) -> bool {
        !classify::is_read_only(command)
    }

    /// `PowerShell(…)` rules, paths and the read-only cmdlets (see [`permissions::check`]).
    fn check_permissions(command: &str, ctx: &ToolUseContext) -> PermissionResult {
        permissions::check(command, ctx)
    }

    /// Whether a `PowerShell(…)` rule pattern covers any part of the command (see
    /// [`permissions::matcher`]).
    fn permission_matcher(command: &str) -> PermissionMatcher {
        permissions::matcher(command)
    }

    /// Only a plain command can be excluded (see [`permissions::is_excluded`]).
    fn is_excluded(command: &str, excluded: &[String]) -> bool {
        permissions::is_excluded(command, excluded)
    }
}

/// PowerShell with default settings: no `pwsh`, so disabled (the host builds it with
/// [`tool_with`] and the program it found).
pub fn tool() -> Arc<dyn Tool> {
    build_tool(PowerShellTool::default())
}

/// PowerShell with the given settings.
pub fn tool_with(config: PowerShellConfig) -> Arc<dyn Tool> {
    build_tool(PowerShellTool::new(config))
}
