//! The Agent tool: resolves an agent definition and the call's input into a
//! [`SubagentRequest`], registers the agent as a `local_agent` task, and runs it through the
//! context's [`SubagentRunner`] — waiting for it (foreground) or not (background).

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_background::{AgentEnd, AgentTask, AgentTaskSpec, TaskRegistry, TaskStatus};
use agent_tools_core::ContentPart;
use agent_tools_core::RestrictionMatcher;
use agent_tools_core::{
    InputError, InterruptBehavior, PermissionMode, PermissionResult, PromptOptions, Tool, ToolDef, ToolError,
    ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use agent_tools_core::{PermissionBehavior, PermissionDecisionReason};
use agent_tools_core::{SubagentError, SubagentOutcome, SubagentRequest, SubagentRunner};
use agent_tools_worktree::Git;
use serde::Serialize;
use serde_json::Value;

use crate::definitions::{self, AgentDefinition, AgentSource};
use crate::input::{AgentInput, FIELDS, Isolation};
use crate::render::{self, KeptWorktree};
use crate::tool_sets::{ToolSetOptions, restrictions_for_agent, tools_for_agent};

/// The tool's API name.
pub const NAME: &str = "Agent";

/// Its legacy name (rules written `Task(...)` mean `Agent(...)`).
pub const ALIASES: &[&str] = &["Task"];

/// The agent type used when the call names none.
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// How deep agents may nest by default: the main conversation is depth 0, and an agent at
/// depth `DEFAULT_MAX_DEPTH` cannot start another.
pub const DEFAULT_MAX_DEPTH: u32 = 3;

/// Built-in agents that answer once and are not continued (no `agentId` line in their result).
const ONE_SHOT: &[&str] = &["Explore", "Plan"];

/// What the tool knows: the agent definitions (built-in and custom), the nesting limit, and git
/// for worktrees.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The agents the model may start, built-ins first (see [`definitions::merge`]).
    pub definitions: Vec<AgentDefinition>,
    /// The deepest level of nesting (see [`DEFAULT_MAX_DEPTH`]).
    pub max_depth: u32,
    /// Coordinator mode (Claude Code's `CLAUDE_CODE_COORDINATOR_MODE`): the caller only
    /// dispatches (the host cut its own pool to the coordinator's set), so every agent it starts
    /// is a worker in the background with the background agents' tools.
    pub coordinator: bool,
    /// How worktrees for `isolation: "worktree"` are made.
    pub git: Git,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            definitions: definitions::built_in(),
            max_depth: DEFAULT_MAX_DEPTH,
            coordinator: false,
            git: Git::default(),
        }
    }
}

/// The Agent tool (see the crate docs).
#[derive(Debug, Clone, Default)]
pub struct AgentTool {
    config: Arc<AgentConfig>,
}

/// The tool with the built-in agents only.
pub fn tool() -> Arc<dyn Tool> {
    tool_with(AgentConfig::default())
}

/// The tool with this configuration.
pub fn tool_with(config: AgentConfig) -> Arc<dyn Tool> {
    build_tool(AgentTool { config: Arc::new(config) })
}

/// Where custom agents come from, lowest priority first: the folders their files
/// (`<name>.md` with frontmatter) are read from — a host passes `~/.claude/agents`, then a
/// trusted project's `.claude/agents` — and then the session's own ([`AgentSource::Session`]:
/// `--agents`, the Agent SDKs' `agents`). A later agent replaces an earlier one of the same
/// name, and any replaces a built-in one. A host keeps it in its `ToolOptions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentFolders {
    /// The folders, user's first.
    pub folders: Vec<PathBuf>,
    /// The session's agents (see [`definitions::parse_agents_json`]).
    pub session: Vec<AgentDefinition>,
}

/// The tool with the built-in agents, those of the folders (a broken agent file is skipped
/// with a warning) and the session's, in coordinator mode when `coordinator` is set (see
/// [`AgentConfig`]). With two folders or more, the last is taken to be the project's.
pub fn tool_from_folders(folders: &AgentFolders, coordinator: bool) -> Arc<dyn Tool> {
    tool_with(AgentConfig { definitions: all_definitions(folders), coordinator, ..AgentConfig::default() })
}

/// Every agent definition the tool of [`tool_from_folders`] offers: the built-in ones, the
/// folders' (the last of two or more is the project's; a broken file is skipped with a
/// warning) and the session's, later ones replacing earlier ones of the same name.
pub fn all_definitions(folders: &AgentFolders) -> Vec<AgentDefinition> {
    use definitions::SourceKind;
    let mut layers = vec![definitions::built_in()];
    let last = folders.folders.len().saturating_sub(1);
    for (index, dir) in folders.folders.iter().enumerate() {
        let kind = if index == last && folders.folders.len() > 1 { SourceKind::Project } else { SourceKind::User };
        let (found, warnings) = definitions::load_dir(dir, kind);
        for warning in warnings {
            tracing::warn!(%warning, "an agent definition was skipped");
        }
        layers.push(found);
    }
    layers.push(folders.session.clone());
    definitions::merge(layers)
}

/// A text block of a finished agent's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextBlock {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: String,
}

/// The output (Claude Code's `AgentOutput`): a finished agent, or one launched in the background.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status")]
// One value per call, moved once: boxing the bigger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum AgentOutput {
    /// The agent ran to its end while the caller waited.
    #[serde(rename = "completed", rename_all = "camelCase")]
    Completed {
        /// Its id.
        agent_id: String,
        /// Its type.
        agent_type: String,
        /// Its report, as text blocks.
        content: Vec<TextBlock>,
        /// The model it ran on.
        resolved_model: String,
        /// Tool calls it made.
        total_tool_use_count: u32,
        /// How long it ran, in ms.
        total_duration_ms: u64,
        /// Tokens in its context at the end.
        total_tokens: u64,
        /// The usage of its last request.
        usage: Value,
        /// The tools it called.
        tools_used: Vec<String>,
        /// The task it was given.
        prompt: String,
        /// The worktree it left changes in, when it ran in one and changed something.
        #[serde(skip_serializing_if = "Option::is_none")]
        worktree_path: Option<String>,
        /// That worktree's branch.
        #[serde(skip_serializing_if = "Option::is_none")]
        worktree_branch: Option<String>,
        /// The object it gave through `StructuredOutput`, when its definition has an output schema.
        #[serde(skip_serializing_if = "Option::is_none")]
        structured_output: Option<Value>,
        /// The text the model reads.
        #[serde(skip)]
        text: String,
    },
    /// The agent runs in the background; a notification follows when it ends.
    #[serde(rename = "async_launched", rename_all = "camelCase")]
    AsyncLaunched {
        /// Always true.
        is_async: bool,
        /// Its id (also its task id).
        agent_id: String,
        /// The call's description.
        description: String,
        /// The task it was given.
        prompt: String,
        /// Its transcript file.
        output_file: String,
        /// Whether the caller has Read or Bash to look at the file.
        can_read_output_file: bool,
        /// The text the model reads.
        #[serde(skip)]
        text: String,
    },
}

impl AgentTool {
    fn find(&self, agent_type: &str) -> Option<&AgentDefinition> {
        self.config.definitions.iter().find(|def| def.agent_type == agent_type)
    }

    fn unknown_type(&self, agent_type: &str) -> String {
        let names: Vec<&str> = self.config.definitions.iter().map(|def| def.agent_type.as_str()).collect();
        format!("Agent type '{agent_type}' not found. Available agents: {}", names.join(", "))
    }
}

/// The deny rule `Agent(<type>)` (or `Task(<type>)`) that refuses this agent type, if any.
fn deny_rule(ctx: &ToolUseContext, agent_type: &str) -> Option<PermissionDecisionReason> {
    ctx.permission_context
        .content_rules(NAME, PermissionBehavior::Deny)
        .find(|rule| rule.rule_value.rule_content.as_deref().is_some_and(|content| content.trim() == agent_type))
        .map(|rule| PermissionDecisionReason::Rule { rule })
}

/// The permission mode a sub-agent runs in: its definition's `permissionMode` only where it
/// narrows the caller's mode, else the caller's
/// ([`subagent_permission_mode`](agent_tools_core::subagent_permission_mode):
/// Claude Code's rule that a caller in `bypassPermissions`, `acceptEdits` or `auto` keeps its
/// mode, and — stricter than Claude Code — a definition never widens the caller's mode, so an
/// agent file saying `acceptEdits` runs in `plan` for a caller in plan mode).
fn agent_mode(def: &AgentDefinition, ctx: &ToolUseContext) -> PermissionMode {
    agent_tools_core::subagent_permission_mode(ctx.permission_context.mode, def.permission_mode)
}

/// A worktree made for one agent.
struct AgentWorktree {
    git: Git,
    made: agent_tools_worktree::Worktree,
}

impl AgentWorktree {
    async fn make(git: &Git, cwd: &std::path::Path, agent_id: &str) -> Result<Self, String> {
        let suffix: String = agent_id.chars().skip(1).take(8).collect();
        let made = git
            .create(cwd, &format!("agent-{suffix}"))
            .await
            .map_err(|error| format!("Cannot create a worktree for the agent: {error}"))?;
        Ok(Self { git: git.clone(), made })
    }

    /// Removes the worktree if the agent left nothing in it; else says where it is.
    async fn settle(self) -> Option<KeptWorktree> {
        let Worktree { path, branch, base_commit, repo_root, .. } = &self.made;
        match self.git.changes(path, base_commit, Some(branch)).await {
            Ok(changes) if changes.is_clean() => {
                let removed = self.git.remove_worktree(repo_root, path).await;
                if removed.is_ok() {
                    let _ = self.git.delete_branch(repo_root, branch).await;
                    return None;
                }
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "cannot tell whether the agent changed its worktree; keeping it"),
        }
        Some(KeptWorktree { path: path.display().to_string(), branch: branch.clone() })
    }
}

use agent_tools_worktree::Worktree;

/// What a call resolved before it runs.
struct Prepared {
    request: SubagentRequest,
    task: AgentTask,
    registry: TaskRegistry,
    runner: Arc<dyn SubagentRunner>,
    continuable: bool,
    worktree: Option<AgentWorktree>,
}

fn outcome_output(
    prepared_id: &str,
    agent_type: &str,
    prompt: &str,
    outcome: &SubagentOutcome,
    continuable: bool,
    kept: Option<&KeptWorktree>,
) -> AgentOutput {
    let report = render::report(outcome);
    AgentOutput::Completed {
        agent_id: prepared_id.to_owned(),
        agent_type: agent_type.to_owned(),
        content: vec![TextBlock { kind: "text", text: report }],
        resolved_model: outcome.model.clone(),
        total_tool_use_count: outcome.total_tool_use_count,
        total_duration_ms: outcome.total_duration_ms,
        total_tokens: outcome.total_tokens,
        usage: outcome.usage.clone(),
        tools_used: outcome.tools_used.clone(),
        prompt: prompt.to_owned(),
        worktree_path: kept.map(|kept| kept.path.clone()),
        worktree_branch: kept.map(|kept| kept.branch.clone()),
        structured_output: outcome.structured_output.clone(),
        text: render::completed(prepared_id, outcome, continuable, kept),
    }
}

fn error_text(error: &SubagentError) -> String {
    match error {
        SubagentError::Cancelled => "The agent was stopped before it finished.".to_owned(),
        other => other.to_string(),
    }
}

impl AgentTool {
    async fn prepare(&self, input: &AgentInput, ctx: &ToolUseContext) -> Result<Prepared, ToolError> {
        let runner = ctx.subagents.clone().ok_or_else(|| {
            ToolError::failed(
                "Agents cannot run here: starting a sub-agent needs the agent loop (agent-tools agent), which \
                 this host does not run.",
            )
        })?;
        if ctx.query_depth >= self.config.max_depth {
            return Err(ToolError::failed(format!(
                "Agents cannot be nested more than {} levels deep; do this task yourself.",
                self.config.max_depth
            )));
        }
        if input.isolation == Some(Isolation::Remote) {
            return Err(ToolError::failed("Remote isolation is not available; use isolation \"worktree\" or none."));
        }
        let agent_type = input.subagent_type.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let agent_type = agent_type.unwrap_or(DEFAULT_AGENT_TYPE);
        let def = self.find(agent_type).ok_or_else(|| ToolError::failed(self.unknown_type(agent_type)))?;
        if let Some(PermissionDecisionReason::Rule { rule }) = deny_rule(ctx, &def.agent_type) {
            return Err(ToolError::failed(format!(
                "Agent type '{}' has been denied by the permission rule '{}({})' from {}.",
                def.agent_type,
                NAME,
                rule.rule_value.rule_content.as_deref().unwrap_or_default(),
                serde_json::to_value(rule.source).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
            )));
        }
        let background = input.run_in_background.unwrap_or(true) || def.background || self.config.coordinator;
        let source = ctx.options.worker_tools.as_ref().unwrap_or(&ctx.options.tools);
        let pool: Vec<(&str, _)> = source.iter().map(|tool| (tool.name(), tool.capabilities())).collect();
        let options = ToolSetOptions {
            background,
            // The coordinator's set is its own pool's; its workers get the background set.
            coordinator: false,
            teammate: false,
            plan_mode: ctx.permission_context.mode == PermissionMode::Plan,
            allow_agent: ctx.query_depth + 1 < self.config.max_depth,
        };
        let tools = tools_for_agent(&pool, def, &options);
        let parent_model = ctx.options.main_loop_model.as_str();
        let model = match (input.model, def.model.as_deref()) {
            (Some(alias), _) => Some(runner.resolve_model(alias.as_str(), parent_model)),
            (None, Some(model)) if model != "inherit" => Some(runner.resolve_model(model, parent_model)),
            _ => None,
        };
        let registry = TaskRegistry::for_context(ctx);
        let task = registry
            .register_agent(AgentTaskSpec {
                description: input.description.clone(),
                prompt: input.prompt.clone(),
                agent_type: def.agent_type.clone(),
                name: input.name.clone().filter(|name| !name.trim().is_empty()),
                tool_use_id: ctx.tool_use_id.clone(),
                owner: ctx.agent_id.clone(),
                notifications: Some(ctx.notifications()),
            })
            .map_err(|error| ToolError::failed(format!("Cannot start the agent: {error}")))?;
        let worktree = match input.isolation {
            // Guarded in a folder the user has not trusted: the repository's hooks and filters
            // do not run on checkout.
            Some(Isolation::Worktree) => {
                match AgentWorktree::make(&self.config.git.for_context(ctx), &ctx.cwd, &task.id).await {
                    Ok(made) => Some(made),
                    Err(error) => {
                        registry.finish_agent(
                            &task.id,
                            AgentEnd { status: TaskStatus::Failed, result: error.clone(), notification: None },
                        );
                        return Err(ToolError::failed(error));
                    }
                }
            }
            _ => None,
        };
        let request = SubagentRequest {
            agent_id: task.id.clone(),
            agent_type: def.agent_type.clone(),
            description: input.description.clone(),
            prompt: input.prompt.clone(),
            system_prompt: def.system_prompt.clone(),
            model,
            tools,
            permission_mode: Some(agent_mode(def, ctx)),
            tool_restrictions: restrictions_for_agent(def),
            cwd: worktree.as_ref().map(|made| made.made.path.clone()),
            background,
            max_turns: def.max_turns,
            output_schema: def.output_schema.clone(),
            omit_claude_md: def.omit_claude_md,
            transcript: Some(task.output_path.clone()),
            inbox: task.inbox.clone(),
            allow_rules: Vec::new(),
        };
        let continuable = !(matches!(def.source, AgentSource::BuiltIn) && ONE_SHOT.contains(&def.agent_type.as_str()));
        Ok(Prepared { request, task, registry, runner, continuable, worktree })
    }
}

impl ToolDef for AgentTool {
    type Input = AgentInput;
    type Output = AgentOutput;

    const NAME: &'static str = NAME;

    // Read-only (its tools check their own permissions) and concurrency-safe (several agents
    // may run at once), as in Claude Code.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Agent)
        .scope(AgentScope::Everywhere)
        .dispatch()
        .flags(ToolFlags::LOCAL_READ_ONLY)
        .search_hint("delegate a task to a sub-agent with its own context");

    fn aliases(&self) -> &[&str] {
        ALIASES
    }

    fn summary(&self, input: &AgentInput) -> String {
        input.description.clone()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        format!(
            "{}\n\nAvailable agent types and the tools they have:\n{}",
            include_str!("prompt.md").trim_end(),
            definitions::listing(&self.config.definitions)
        )
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn parse_input(&self, json: &Value, schema: &Value) -> Result<AgentInput, InputError> {
        // Claude Code's schema for this tool is not strict: unknown fields are dropped.
        let mut json = json.clone();
        if let Some(object) = json.as_object_mut() {
            object.retain(|key, _| FIELDS.contains(&key.as_str()));
        }
        agent_tools_core::parse_strict(NAME, schema, &json)
    }

    /// For a restriction `Agent(worker, researcher)` in a sub-agent's `tools` (Claude Code's
    /// syntax for the agent types it may start): the call's `subagent_type` (by default
    /// `general-purpose`) must be one of the types the contents list, comma-separated.
    fn prepare_restriction_matcher(&self, input: &AgentInput) -> Option<RestrictionMatcher> {
        let agent_type = input.subagent_type.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let agent_type = agent_type.unwrap_or(DEFAULT_AGENT_TYPE).to_owned();
        Some(Box::new(move |contents: &[String]| {
            contents.iter().flat_map(|content| content.split(',')).any(|allowed| allowed.trim() == agent_type)
        }))
    }

    async fn check_permissions(&self, input: &AgentInput, ctx: &ToolUseContext) -> PermissionResult {
        let agent_type = input.subagent_type.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let agent_type = agent_type.unwrap_or(DEFAULT_AGENT_TYPE);
        if let Some(reason) = deny_rule(ctx, agent_type) {
            return PermissionResult::deny(format!("Agent type '{agent_type}' is denied by a permission rule"), reason);
        }
        // A worktree of its own is a new checkout and branch: a write of the worktrees folder,
        // as EnterWorktree's (asked in the default mode, refused in plan mode). Claude Code
        // allows it unasked.
        if input.isolation == Some(Isolation::Worktree) {
            return self.config.git.creation_permission(ctx, None).await;
        }
        PermissionResult::allow()
    }

    async fn call(&self, input: AgentInput, ctx: &ToolUseContext) -> Result<ToolResult<AgentOutput>, ToolError> {
        let prepared = self.prepare(&input, ctx).await?;
        let Prepared { request, task, registry, runner, continuable, worktree } = prepared;
        let output_file = task.output_path.display().to_string();
        if request.background {
            let can_read = ctx.options.tools.iter().any(|tool| matches!(tool.name(), "Read" | "Bash"));
            let text = render::launched(&task.id, can_read.then_some(output_file.as_str()));
            let output = AgentOutput::AsyncLaunched {
                is_async: true,
                agent_id: task.id.clone(),
                description: input.description.clone(),
                prompt: input.prompt.clone(),
                output_file: output_file.clone(),
                can_read_output_file: can_read,
                text,
            };
            // The agent outlives this call: only stopping its task (or the session) stops it.
            let mut own = ctx.clone();
            own.cancel = task.cancel.clone();
            let description = input.description.clone();
            let tool_use_id = ctx.tool_use_id.clone();
            tokio::spawn(async move {
                let ended = runner.run(request, &own).await;
                let kept = match worktree {
                    Some(made) => made.settle().await,
                    None => None,
                };
                let ended = ended.map_err(|error| error_text(&error)).map(|mut outcome| {
                    if let Some(kept) = &kept {
                        outcome.content.push(format!("worktreePath: {}\nworktreeBranch: {}", kept.path, kept.branch));
                    }
                    outcome
                });
                let notification =
                    render::notification(&task.id, tool_use_id.as_deref(), &output_file, &description, &ended);
                registry.finish_agent(&task.id, AgentEnd::of_run(&ended, Some(notification)));
            });
            return Ok(ToolResult::new(output));
        }
        // A foreground agent stops with this call or with its task (TaskStop).
        let cancel = task.cancel_with(&ctx.cancel);
        let mut own = ctx.clone();
        own.cancel = cancel.token.clone();
        let ended = runner.run(request.clone(), &own).await;
        let kept = match worktree {
            Some(made) => made.settle().await,
            None => None,
        };
        match ended {
            Ok(outcome) => {
                let result = render::report(&outcome);
                registry.finish_agent(&task.id, AgentEnd { status: TaskStatus::Completed, result, notification: None });
                let output =
                    outcome_output(&task.id, &request.agent_type, &input.prompt, &outcome, continuable, kept.as_ref());
                Ok(ToolResult::new(output))
            }
            Err(error) => {
                let text = error_text(&error);
                registry.finish_agent(
                    &task.id,
                    AgentEnd { status: TaskStatus::Failed, result: text.clone(), notification: None },
                );
                Err(ToolError::failed(text))
            }
        }
    }

    fn map_tool_result(&self, output: &AgentOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = match output {
            AgentOutput::Completed { text, .. } | AgentOutput::AsyncLaunched { text, .. } => text.clone(),
        };
        ToolResultBlock::parts(tool_use_id, vec![ContentPart::text(text)])
    }
}
