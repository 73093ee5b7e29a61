//! # agent-tool-enter-worktree: the EnterWorktree tool
//!
//! Moves the session into a new git worktree, as Claude Code's `EnterWorktree` does: from the
//! repository's main root (found canonically, even from inside another worktree) it runs
//! `git worktree add -b worktree-<flattened name> .claude/worktrees/<name> HEAD`, records the
//! session in the context's app state ([`agent_tools_worktree::WorktreeSession`]), and returns a
//! context modifier that sets both the working directory **and** the original (project)
//! directory to the worktree, so later relative paths, shell commands and permission checks all
//! work inside it. ExitWorktree (its own crate) undoes it.
//!
//! Input `{name?}`: each `/`-separated segment letters, digits, `.`, `_`, `-`; no `.`/`..`
//! segments; at most 64 characters (refused as an input validation error). Without a name a
//! random readable one is chosen (`brisk-falcon-3f9a`; Claude Code uses the session's plan
//! slug). A folder that already holds a worktree of that name is reused, as Claude Code resumes
//! it. Errors: already in a worktree session, not a git repository, no commits, git's refusal.
//! Output `{worktreePath, worktreeBranch, message}`; the model sees the message.
//!
//! Flags as Claude Code's: not read-only, not concurrency-safe, deferred. Permission: a write
//! of the worktree's folder (asked in the default mode, allowed in `acceptEdits`, refused in plan
//! mode), where Claude Code allows it unasked. In a folder the user has not trusted, git runs
//! with everything the repository configures to run switched off (hooks such as
//! `post-checkout`, `core.fsmonitor`, filters: [`agent_tools_worktree::guard`]).
//!
//! `WorktreeCreate` hooks (Claude Code's way to make worktrees for other version control
//! systems): when the session has any, they run in place of `git worktree add`, with `name` as
//! input, and the worktree is the folder a hook names — `hookSpecificOutput.worktreePath`, else
//! the last line a command hook printed on stdout. It must be an existing folder (an absolute
//! path, or one relative to the working directory); a hook that blocks, fails or names none
//! fails the call and no worktree is entered. Such a worktree has no branch; ExitWorktree leaves
//! its removal to the `WorktreeRemove` hooks.
//!
//! Not done: clearing prompt and memory caches (this crate has none), and the post-creation
//! setup (copied local settings, symlinked folders).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_worktree::Git;
//! let repo = agent_tools_testkit::GitRepo::new(); // a temporary repository: one commit on main
//! let enter = agent_tool_enter_worktree::tool_with(Git { env: repo.env(), ..Git::default() });
//! let mut ctx = ToolUseContext::new(&repo.root);
//! let input = serde_json::json!({"name": "fix-login"});
//! let mut done = call_tool(enter.as_ref(), "toolu_1", input, &ctx).await;
//! let worktree = repo.root.join(".claude/worktrees/fix-login");
//! assert_eq!(done.block.content.text(), format!(
//!     "Created a worktree at {} on branch worktree-fix-login. The session now works in it: relative \
//!      paths and commands start there. Call ExitWorktree to leave it, keeping or removing it.",
//!     worktree.display()
//! ));
//! ctx = (done.context_modifier.take().unwrap())(ctx);
//! assert_eq!(ctx.cwd, worktree);
//! assert!(worktree.join("README.md").is_file());
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::Path;
use std::sync::Arc;

use agent_tools_core::{
    PermissionResult, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use agent_tools_worktree::{CreateError, Git, WorktreeSession};

pub use crate::input::EnterWorktreeInput;
pub use crate::render::{EnterWorktreeOutput, already_active, cannot_create, message, not_a_repository};

/// The API name.
pub const NAME: &str = "EnterWorktree";

/// The EnterWorktree tool definition: how it runs git.
#[derive(Debug, Clone, Default)]
pub struct EnterWorktreeTool {
    /// The git program and environment (default: `git` from the search path).
    pub git: Git,
}

/// EnterWorktree with the default git, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(EnterWorktreeTool::default())
}

/// EnterWorktree running git as `git` says (another program, extra environment).
pub fn tool_with(git: Git) -> Arc<dyn Tool> {
    build_tool(EnterWorktreeTool { git })
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl ToolDef for EnterWorktreeTool {
    type Input = EnterWorktreeInput;
    type Output = EnterWorktreeOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Adds a folder and a branch and moves the session: not read-only, never run beside other
    // calls, nothing lost (the checkout is new), local only.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: false })
        .deferred()
        .search_hint("create an isolated git worktree and switch into it");

    fn summary(&self, input: &EnterWorktreeInput) -> String {
        match &input.name {
            Some(name) => format!("Enter a new git worktree named {name}"),
            None => "Enter a new git worktree".to_owned(),
        }
    }

    fn activity_description(&self, _input: &EnterWorktreeInput) -> Option<String> {
        Some("Creating worktree".to_owned())
    }

    /// A new checkout is a write: checked as one of the folder it goes in,
    /// `<repository root>/.claude/worktrees/<name>` (deny rules, plan mode, `acceptEdits` inside
    /// the working directories; otherwise the user is asked). Claude Code allows it unasked.
    async fn check_permissions(&self, input: &EnterWorktreeInput, ctx: &ToolUseContext) -> PermissionResult {
        self.git.creation_permission(ctx, input.name.as_deref()).await
    }

    async fn call(
        &self,
        input: EnterWorktreeInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<EnterWorktreeOutput>, ToolError> {
        if let Some(current) = agent_tools_worktree::active(ctx) {
            return Err(ToolError::failed(already_active(&shown(&current.worktree_path))));
        }
        let name = input.name.unwrap_or_else(agent_tools_worktree::random_name);
        if ctx.has_hooks("WorktreeCreate") {
            return enter_hook_worktree(name, ctx).await;
        }
        let made = self.git.for_context(ctx).create(&ctx.cwd, &name).await.map_err(|error| match error {
            CreateError::NotARepository(dir) => ToolError::failed(not_a_repository(&shown(&dir))),
            other => ToolError::failed(cannot_create(&other.to_string())),
        })?;
        let session = WorktreeSession {
            name,
            worktree_path: made.path.clone(),
            worktree_branch: Some(made.branch.clone()),
            repo_root: made.repo_root,
            original_cwd: ctx.cwd.clone(),
            original_project_dir: ctx.original_cwd.clone(),
            base_commit: Some(made.base_commit),
        };
        if let Err(current) = agent_tools_worktree::begin(ctx, session) {
            return Err(ToolError::failed(already_active(&shown(&current.worktree_path))));
        }
        let path = shown(&made.path);
        let output = EnterWorktreeOutput {
            message: message(&path, Some(&made.branch), made.existed),
            worktree_path: path,
            worktree_branch: Some(made.branch),
        };
        let worktree = made.path;
        Ok(ToolResult::new(output).with_context_modifier(move |mut ctx| {
            ctx.cwd = worktree.clone();
            ctx.original_cwd = worktree;
            ctx
        }))
    }

    fn map_tool_result(&self, output: &EnterWorktreeOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.message.clone())
    }
}

/// Makes the worktree through the `WorktreeCreate` hooks (see the crate docs) and enters it.
async fn enter_hook_worktree(name: String, ctx: &ToolUseContext) -> Result<ToolResult<EnterWorktreeOutput>, ToolError> {
    let mut payload = serde_json::Map::new();
    payload.insert("name".into(), name.clone().into());
    let outcome = ctx.fire_hook("WorktreeCreate", "", payload).await;
    if let Some(reason) = outcome.blocked.as_ref().or(outcome.stop.as_ref()) {
        return Err(ToolError::failed(cannot_create(&format!("the WorktreeCreate hook refused: {reason}"))));
    }
    let named = outcome
        .specific_str("worktreePath")
        .map(str::to_owned)
        .or_else(|| outcome.outputs.last().and_then(|text| text.lines().last()).map(|line| line.trim().to_owned()))
        .filter(|path| !path.is_empty());
    let Some(named) = named else {
        let why = if outcome.errors.is_empty() { "it named no folder".to_owned() } else { outcome.errors.join("; ") };
        return Err(ToolError::failed(cannot_create(&format!("the WorktreeCreate hook made no worktree: {why}"))));
    };
    let path = ctx.resolve_path(&named);
    let path = match path.canonicalize() {
        Ok(path) if path.is_dir() => path,
        _ => {
            return Err(ToolError::failed(cannot_create(&format!(
                "the WorktreeCreate hook named {}, which is not a folder",
                shown(&path)
            ))));
        }
    };
    let session = WorktreeSession {
        name,
        worktree_path: path.clone(),
        worktree_branch: None,
        repo_root: ctx.original_cwd.clone(),
        original_cwd: ctx.cwd.clone(),
        original_project_dir: ctx.original_cwd.clone(),
        base_commit: None,
    };
    if let Err(current) = agent_tools_worktree::begin(ctx, session) {
        return Err(ToolError::failed(already_active(&shown(&current.worktree_path))));
    }
    let shown_path = shown(&path);
    let output = EnterWorktreeOutput {
        message: message(&shown_path, None, false),
        worktree_path: shown_path,
        worktree_branch: None,
    };
    Ok(ToolResult::new(output).with_context_modifier(move |mut ctx| {
        ctx.cwd = path.clone();
        ctx.original_cwd = path;
        ctx
    }))
}
