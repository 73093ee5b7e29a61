//! Turning the environment and flags into a tool pool and a context (library code never reads
//! the environment; this is where it happens).

use std::path::Path;
use std::sync::Arc;

use agent_tools_core::{Tool, ToolPermissionContext, ToolUseContext};
use agent_tools_host::{HostConfig, assemble_tool_pool};
use anyhow::Context as _;

/// The pool and the context a command runs with.
pub(crate) struct Session {
    pub(crate) pool: Vec<Arc<dyn Tool>>,
    pub(crate) ctx: ToolUseContext,
}

fn env_flag(name: &str) -> bool {
    std::env::var(name)
        .is_ok_and(|value| matches!(value.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

impl Session {
    /// Builds the session: working directory from `--cwd` (or the current one), home from `HOME`,
    /// Claude Code's switches from its environment variables.
    pub(crate) fn from_env(cwd: Option<&Path>) -> anyhow::Result<Self> {
        let cwd = match cwd {
            Some(dir) => dir.canonicalize().with_context(|| format!("--cwd {}", dir.display()))?,
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        anyhow::ensure!(cwd.is_dir(), "--cwd {} is not a directory", cwd.display());
        let config = HostConfig {
            simple: env_flag("CLAUDE_CODE_SIMPLE"),
            glob_no_ignore: std::env::var("CLAUDE_CODE_GLOB_NO_IGNORE").is_ok_and(|v| v.trim() == "true"),
        };
        let permissions = ToolPermissionContext::default();
        let pool = assemble_tool_pool(&permissions, Vec::new(), &config);
        let mut ctx = ToolUseContext::new(cwd);
        ctx.home_dir = std::env::var_os("HOME").map(Into::into);
        ctx.permission_context = Arc::new(permissions);
        ctx.options.tools = pool.clone().into();
        ctx.options.is_non_interactive_session = true;
        Ok(Self { pool, ctx })
    }
}
