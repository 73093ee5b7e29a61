//! # agent-tool-glob: the Glob tool
//!
//! Finds files by glob pattern, as Claude Code's `Glob` tool does: the same name, input fields
//! (`pattern`, `path`) and result text. Paths come back relative to the working directory,
//! least recently modified first, at most 100 (or the context's glob limit) with a note saying
//! how many more matched; `No files found` when none did.
//!
//! Where this differs from Claude Code, on purpose: `.gitignore` is respected by default, so
//! Glob and Grep agree on which files exist (Claude Code's Glob passes `--no-ignore`; users
//! reported vendored folders flooding results). [`GlobConfig::walk`] switches that back.
//! Patterns with folders are relative to `path`, brace alternatives work, `~/` patterns start
//! from the home directory, and symbolic link loops end with each real file listed once. Files
//! named by the session's `Read(…)` deny rules are never listed (Claude Code passes them to
//! ripgrep as exclusions too), and the searched folder goes through the read permission check
//! ([`agent_tools_permissions::check_read_permission`]). The search stops promptly when the
//! context's cancellation token fires.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::create_dir(dir.path().join("src")).unwrap();
//! std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
//! std::fs::write(dir.path().join("notes.txt"), "").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let done = call_tool(agent_tool_glob::tool().as_ref(), "toolu_1", json!({"pattern": "**/*.rs"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "src/main.rs");
//! # });
//! ```

mod input;
mod render;
mod search;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;
use std::time::Instant;

use agent_tools_core::path::display_relative;
use agent_tools_core::{
    PermissionResult, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use agent_tools_walk::ReadDenyRules;
pub use agent_tools_walk::WalkConfig;

pub use crate::input::GlobInput;
pub use crate::render::GlobOutput;

/// The API name.
pub const NAME: &str = "Glob";

/// Default number of paths listed (Claude Code's 100).
pub const DEFAULT_MAX_RESULTS: usize = 100;

/// Glob's settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GlobConfig {
    /// Which files the walk sees. `respect_ignore_files: false` gives Claude Code's own behaviour
    /// (ignore files not applied).
    pub walk: WalkConfig,
}

/// The Glob tool definition.
#[derive(Debug, Clone, Default)]
pub struct GlobTool {
    config: GlobConfig,
}

impl GlobTool {
    /// A Glob tool with the given settings.
    pub fn new(config: GlobConfig) -> Self {
        Self { config }
    }
}

/// Glob with default settings, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(GlobTool::default())
}

/// Glob with the given settings.
pub fn tool_with(config: GlobConfig) -> Arc<dyn Tool> {
    build_tool(GlobTool::new(config))
}

impl ToolDef for GlobTool {
    type Input = GlobInput;
    type Output = GlobOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Search)
        .scope(AgentScope::Everywhere)
        .flags(agent_tools_core::ToolFlags::LOCAL_READ_ONLY)
        .search_hint("find files by name or path pattern");

    fn summary(&self, input: &GlobInput) -> String {
        format!("Find files matching {}", input.pattern)
    }

    /// What the auto mode's classifier judges: The pattern and where.
    fn to_auto_classifier_input(&self, input: &GlobInput) -> serde_json::Value {
        serde_json::Value::String(match &input.path {
            Some(path) => format!("{} in {path}", input.pattern),
            None => input.pattern.clone(),
        })
    }

    fn get_path(&self, input: &GlobInput) -> Option<String> {
        input.search_path().map(str::to_owned)
    }

    fn activity_description(&self, input: &GlobInput) -> Option<String> {
        Some(format!("Finding {}", input.pattern))
    }

    async fn validate_input(&self, input: &GlobInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(path) = input.search_path() {
            let dir = ctx.resolve_path(path);
            match std::fs::metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return ValidationResult::error(render::not_a_directory(path, &ctx.cwd.to_string_lossy()), 2),
                Err(_) => {
                    return ValidationResult::error(render::missing_directory(path, &ctx.cwd.to_string_lossy()), 1);
                }
            }
        }
        match search::check(&input.pattern, &ctx.cwd, ctx.home_dir.as_deref()) {
            Ok(()) => ValidationResult::Ok,
            Err(error) => ValidationResult::error(render::invalid_pattern(&input.pattern, &error.to_string()), 3),
        }
    }

    /// The read check on the searched folder (deny and ask rules, the working directories,
    /// allow rules), as Claude Code's Glob does.
    async fn check_permissions(&self, input: &GlobInput, ctx: &ToolUseContext) -> PermissionResult {
        let dir = input.search_path().map_or_else(|| ctx.cwd.clone(), |path| ctx.resolve_path(path));
        agent_tools_permissions::check_read_permission(&dir, ctx)
    }

    async fn call(&self, input: GlobInput, ctx: &ToolUseContext) -> Result<ToolResult<GlobOutput>, ToolError> {
        let started = Instant::now();
        let search_dir = input.search_path().map_or_else(|| ctx.cwd.clone(), |path| ctx.resolve_path(path));
        let plan = search::plan(&input.pattern, &search_dir, ctx.home_dir.as_deref())
            .map_err(|error| ToolError::failed(render::invalid_pattern(&input.pattern, &error.to_string())))?;
        let walk = self.config.walk;
        let deny = ReadDenyRules::from_context(ctx);
        // The walk's root (the search folder, or an absolute pattern's fixed part) when a deny
        // rule names it: nothing is listed from there.
        let root_denied = agent_tools_permissions::is_read_denied(&plan.walk_root, ctx);
        let cancel = ctx.cancel.clone();
        let worker = tokio::task::spawn_blocking(move || {
            if root_denied { Ok(Vec::new()) } else { search::run(&plan, walk, &deny, &cancel) }
        });
        // Answer as soon as the token fires; the walk sees it too and stops on its own.
        let found = ctx
            .cancel
            .run_until_cancelled(worker)
            .await
            .ok_or(ToolError::Cancelled)?
            .map_err(|error| ToolError::internal(format!("glob worker failed: {error}")))?
            .map_err(|_| ToolError::Cancelled)?;
        let limit = ctx.limits.glob.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
        let total_files = found.len();
        let filenames: Vec<String> =
            found.iter().take(limit).map(|(path, _)| display_relative(path, &ctx.cwd)).collect();
        Ok(ToolResult::new(GlobOutput {
            num_files: filenames.len(),
            truncated: total_files > filenames.len(),
            filenames,
            total_files,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }))
    }

    fn map_tool_result(&self, output: &GlobOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
