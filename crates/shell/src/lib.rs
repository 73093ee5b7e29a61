//! # agent-tools-shell: what the shell tools share
//!
//! Claude Code's Bash and PowerShell tools are one contract over two shells: the same input
//! (`command`, `timeout`, `description`, `run_in_background`, `dangerouslyDisableSandbox`), the
//! same running of a command and the same result text. This crate is that shared part; a shell
//! tool adds only its program and arguments, what its exit codes mean, and its permission rules.
//!
//! - [`process`]: one command in its own process group — a program with its arguments
//!   ([`Argv`]), stdin from `/dev/null`, stdout and stderr appended to one temporary file,
//!   [`SHELL_ENV`] so nothing waits for a terminal, a second file for the shell's final working
//!   directory ([`CallFiles`]); at the timeout or on cancellation the whole group gets SIGTERM,
//!   then SIGKILL; progress snapshots (the output's tail and size) while it runs.
//! - [`output`]: the output file read back within a character budget — the head and the tail,
//!   found by seeking, with a marker counting what was left out — and saved whole under the
//!   session's folder when cut.
//! - [`render`]: the result text ([`ShellOutput`]: the output for success, `Exit code N` first
//!   for failure, then the tool's notes), and every other exact string.
//! - [`input`]: the input type ([`ShellInput`]) and the schema without `run_in_background`.
//! - [`sandbox`]: sandbox mode with bubblewrap (who runs sandboxed, the policy, the prefix).
//! - [`runner`]: a whole call — [`run_foreground`] (start directory, sandbox, run, interpret,
//!   read, carry the directory over) and [`start_background`] (a task of the session's
//!   [`agent_tools_tasks::TaskRegistry`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), agent_tools_core::ToolError> {
//! use agent_tools_core::ToolUseContext;
//! use agent_tools_shell::{Argv, Foreground, Interpretation, ShellConfig, ShellInput, ShellKind, run_foreground};
//! use std::path::PathBuf;
//! /// A POSIX `sh` as a shell kind: its program is a path.
//! enum Sh {}
//! impl ShellKind for Sh {
//!     type Program = PathBuf;
//!     fn default_program() -> PathBuf {
//!         PathBuf::from("/bin/sh")
//!     }
//! }
//! let ctx = ToolUseContext::new("/tmp");
//! let input = ShellInput {
//!     command: "echo hi".into(),
//!     timeout: None,
//!     description: None,
//!     run_in_background: None,
//!     dangerously_disable_sandbox: None,
//! };
//! let settings = ShellConfig::<Sh>::default();
//! // `$1` is the file for the final directory, `$2` the command: never spliced into the script.
//! let argv = |cwd_file: &std::path::Path| {
//!     let script = r#"trap 'pwd -P > "$1"' EXIT; eval "$2""#;
//!     Argv::new(&settings.shell).arg("-c").arg(script).arg("sh").arg(cwd_file).arg("echo hi")
//! };
//! let call = Foreground {
//!     tool_name: "Sh",
//!     input: &input,
//!     settings: &settings,
//!     sandboxed: false,
//!     argv: &argv,
//!     interpret: |_, code| Interpretation::plain(code),
//! };
//! let result = run_foreground(call, &ctx).await?;
//! assert_eq!(result.data.stdout, "hi");
//! # Ok(()) }
//! ```

pub mod input;
pub mod output;
pub mod process;
pub mod render;
pub mod runner;
pub mod sandbox;

use std::ffi::OsStr;
use std::path::PathBuf;

pub use crate::input::{ShellInput, input_schema};
pub use crate::process::{Argv, CallFiles, SHELL_ENV};
pub use crate::render::{ShellOutput, to_block};
pub use crate::runner::{
    Background, DEFAULT_TIMEOUT_MS, Foreground, Interpretation, MAX_OUTPUT_CHARS, MAX_TIMEOUT_MS, ShellConfig,
    ShellKind, ShellProgress, render_progress, run_foreground, start_background, start_dir,
};

/// The first executable file named `name` in `search_path` (a `PATH`-style list; `None` finds
/// nothing), as a shell would find the program. Library code never reads `PATH` itself: the
/// caller passes it.
pub fn find_program(name: &str, search_path: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    search_path.into_iter().flat_map(std::env::split_paths).map(|dir| dir.join(name)).find(|candidate| {
        candidate.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}
