//! # agent-tools-shell: what the shell tools share
//!
//! Claude Code's Bash and PowerShell tools are one contract over two shells: the same input
//! (`command`, `timeout`, `description`, `run_in_background`, `dangerouslyDisableSandbox`), the
//! same running of a command and the same result text. This crate is that shared part;
//! [`ShellTool`] implements the Tool contract once, and a shell tool crate implements [`Shell`]
//! for its shell: its program and arguments, what its exit codes mean, its prompt, and how its
//! command language is classified and checked against permission rules.
//!
//! - [`process`]: one command in its own process group — a program with its arguments
//!   ([`Argv`]), stdin from `/dev/null`, stdout and stderr appended to one temporary file,
//!   [`SHELL_ENV`] so nothing waits for a terminal, a second file for the shell's final working
//!   directory ([`CallFiles`]); at the timeout or on cancellation every process the command
//!   started gets SIGTERM, then SIGKILL — its group and, on Linux, whatever left it (`setsid`, a
//!   double fork; see [`agent_tools_background::procs`]); the command also ends with the process
//!   that started it, however that ends ([`agent_tools_background::lifeline`]); progress snapshots
//!   (the output's tail and size) while it runs.
//! - [`output`]: the output file read back within a character budget — the head and the tail,
//!   found by seeking, with a marker counting what was left out — and saved whole under the
//!   session's folder when cut.
//! - [`render`]: the result text ([`ShellOutput`]: the output for success, `Exit code N` first
//!   for failure, then the tool's notes), and every other exact string.
//! - [`input`]: the input type ([`ShellInput`]) and the schema without `run_in_background`.
//! - [`sandbox`]: sandbox mode with bubblewrap (who runs sandboxed, the policy, the prefix).
//! - [`runner`]: a whole call — [`run_foreground`] (start directory, sandbox, run, interpret,
//!   read, carry the directory over) and [`start_background`] (a task of the session's
//!   [`agent_tools_background::TaskRegistry`]) — and the settings ([`ShellConfig`]).
//! - [`tool`]: [`Shell`] and [`ShellTool`].
//!
//! A shell tool for POSIX `sh`, whose commands all need approval, and one call of it:
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use agent_tools_core::PermissionResult;
//! use agent_tools_core::PermissionMatcher;
//! use agent_tools_core::ToolUseContext;
//! use agent_tools_shell::{Argv, Interpretation, Shell, ShellConfig, ShellTool};
//! use agent_tools_background::ShellTaskSpec;
//!
//! #[derive(Debug, Clone, PartialEq, Eq)]
//! enum Sh {}
//!
//! impl Shell for Sh {
//!     const NAME: &'static str = "Sh";
//!     const SEARCH_HINT: &'static str = "run POSIX shell commands";
//!     const PROMPT: &'static str = "Runs a command with /bin/sh.";
//!     const BACKGROUND_PROMPT: &'static str = "Set run_in_background to start it as a task.";
//!     const AUTO_ALLOW_SANDBOXED: bool = false;
//!     type Program = PathBuf;
//!     fn default_program() -> PathBuf {
//!         PathBuf::from("/bin/sh")
//!     }
//!     fn program(program: &PathBuf) -> Result<&Path, &'static str> {
//!         Ok(program)
//!     }
//!     // `$1` is the file for the final directory, `$2` the command: never spliced in.
//!     fn foreground(program: &Path, command: &str, cwd_file: &Path) -> Argv {
//!         let script = r#"trap 'pwd -P > "$1"' EXIT; eval "$2""#;
//!         Argv::new(program).arg("-c").arg(script).arg("sh").arg(cwd_file).arg(command)
//!     }
//!     fn background(program: &Path, command: &str, dir: &Path) -> ShellTaskSpec {
//!         ShellTaskSpec::new(program, command, dir)
//!     }
//!     fn interpret(_command: &str, exit_code: i32) -> Interpretation {
//!         Interpretation::plain(exit_code)
//!     }
//!     fn is_read_only(_command: &str) -> bool {
//!         false
//!     }
//!     fn is_concurrency_safe(_command: &str) -> bool {
//!         false
//!     }
//!     fn is_destructive(_command: &str) -> bool {
//!         true
//!     }
//!     fn check_permissions(command: &str, _ctx: &ToolUseContext) -> PermissionResult {
//!         PermissionResult::passthrough(format!("`{command}` needs approval"))
//!     }
//!     fn permission_matcher(command: &str) -> PermissionMatcher {
//!         let command = command.to_owned();
//!         Box::new(move |pattern| pattern == command)
//!     }
//!     fn is_excluded(_command: &str, _excluded: &[String]) -> bool {
//!         false
//!     }
//! }
//!
//! let sh = agent_tools_core::build_tool(ShellTool::<Sh>::new(ShellConfig::default()));
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let mut ctx = ToolUseContext::new(dir.path());
//! let input = serde_json::json!({"command": "mkdir sub && cd sub && echo hi; exit 3"});
//! let mut done = agent_tools_core::call_tool(sh.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "Exit code 3\nhi");
//! // The directory the command ended in becomes the next call's.
//! ctx = (done.context_modifier.take().unwrap())(ctx);
//! assert_eq!(ctx.cwd, dir.path().canonicalize().unwrap().join("sub"));
//! # });
//! ```

pub mod input;
pub mod output;
pub mod process;
pub mod render;
pub mod runner;
pub mod sandbox;
pub mod tool;

pub use crate::input::{ShellInput, input_schema};
pub use crate::process::{Argv, CallFiles, SHELL_ENV};
pub use crate::render::{ShellOutput, to_block};
pub use crate::runner::{
    Background, DEFAULT_TIMEOUT_MS, Foreground, Interpretation, MAX_OUTPUT_CHARS, MAX_TIMEOUT_MS, ShellConfig,
    ShellProgress, run_foreground, start_background, start_dir,
};
pub use crate::tool::{Shell, ShellTool};

/// The first executable file named `name` in a `PATH`-style list (core's, re-exported for the
/// shell tools' hosts).
pub use agent_tools_core::path::find_program;
