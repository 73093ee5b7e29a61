//! # agent-tool-skill: the Skill tool
//!
//! Runs a skill the way Claude Code's `Skill` tool does. A skill is a folder holding a
//! `SKILL.md`: YAML frontmatter (`description`, `when_to_use`, `allowed-tools`, `model`,
//! `disable-model-invocation`, `context` …) and a markdown body of instructions. The host hands
//! the tool its skills folders in priority order ([`SkillConfig::dirs`]; the CLI passes
//! `~/.claude/skills` then `<project>/.claude/skills`, so a personal skill wins over a project
//! skill of the same name, as Claude Code's documentation orders them), and its legacy command
//! folders ([`SkillConfig::command_dirs`], `.claude/commands/<name>.md`), searched after them.
//!
//! * **Prompt**: the tool's description lists the skills the model may call, one
//!   `- name: description - when_to_use` line each (at most [`MAX_ENTRY_CHARS`] characters),
//!   within [`SkillConfig::char_budget`] characters in all (default [`DEFAULT_CHAR_BUDGET`]);
//!   skills with `disable-model-invocation` are not listed. The folders are read when the
//!   prompt is built, so a new skill shows up in the next prompt.
//! * **Input** `{skill, args?}`; a leading `/` in `skill` is dropped.
//! * **Validation** (Claude Code's codes): 1 blank name (`Invalid skill format: …`), 2 no such
//!   skill (`Unknown skill: NAME`), 4 `disable-model-invocation` set. Ours: 8 a `context: fork`
//!   skill where the host runs no sub-agents (no runner in the context, as under `serve`).
//! * **Permissions**: a `Skill(name)` deny rule denies; a `Skill(name)` or `Skill(prefix:*)`
//!   allow rule allows; a skill whose frontmatter uses only [`skills::SAFE_KEYS`] is allowed;
//!   any other asks `Execute skill: NAME`, suggesting `Skill(NAME)` and `Skill(NAME:*)`.
//! * **Call**: the result is `Launching skill: NAME` (data `{success, commandName,
//!   allowedTools?, model?}`); the skill's body, with `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` and
//!   `${CLAUDE_SKILL_DIR}` expanded and headed by its base directory, follows as a new user
//!   message. A context modifier adds the skill's `allowed-tools` as `command`-source allow rules
//!   and switches the main-loop model when the skill names one, for the calls that follow.
//! * **`context: fork`**: the skill runs as a sub-agent instead (Claude Code's forked skill), of
//!   the type its `agent` key names (default `general-purpose`), through the context's runner:
//!   the caller's tools minus those no sub-agent inherits, its `allowed-tools` as allow rules, its
//!   `model`; the call waits for it and the result is `Skill "NAME" completed (forked
//!   execution).\n\nResult:\n<report>` (data adds `result` and `agentId`).
//!
//! Not read-only, not concurrency-safe (one skill at a time), not deferred.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! let skills = dir.path().join(".claude/skills");
//! std::fs::create_dir_all(skills.join("greet")).unwrap();
//! let skill_md = "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.\n";
//! std::fs::write(skills.join("greet/SKILL.md"), skill_md).unwrap();
//! let tool = agent_tool_skill::tool_with(agent_tool_skill::SkillConfig::new(vec![skills.clone()]));
//! let ctx = ToolUseContext::new(dir.path());
//! let done = call_tool(tool.as_ref(), "toolu_1", json!({"skill": "greet", "args": "Ada"}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Launching skill: greet");
//! // The skill's instructions follow as a new user message.
//! let message = serde_json::to_value(&done.new_messages[0]).unwrap();
//! let base = skills.join("greet");
//! let text = format!("Base directory for this skill: {}\n\nSay hello to Ada.", base.display());
//! assert_eq!(message["content"], json!([{"type": "text", "text": text}]));
//! let unknown = call_tool(tool.as_ref(), "toolu_2", json!({"skill": "deploy"}), &ctx).await;
//! assert_eq!(unknown.block.content.text(), "<tool_use_error>Unknown skill: deploy</tool_use_error>");
//! # });
//! ```

/// The frontmatter reader, now shared in core (re-exported so `agent_tool_skill::frontmatter` keeps working).
pub use agent_tools_core::frontmatter;
mod fork;
mod input;
mod render;
pub mod skills;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::ContentBlock;
use agent_tools_core::{
    Message, PermissionResult, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock,
    ToolUseContext, ValidationResult, build_tool,
};
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionRuleSource, PermissionRuleValue, PermissionUpdate,
    PermissionUpdateDestination,
};

pub use crate::input::SkillInput;
pub use crate::render::SkillOutput;
pub use crate::skills::Skill;

/// The API name.
pub const NAME: &str = "Skill";

/// Default size of the skill listing in the prompt, in characters (Claude Code's default when
/// it does not know the context window: 1 % of it, 8 000).
pub const DEFAULT_CHAR_BUDGET: usize = 8_000;

/// Longest listing entry, in characters; longer ones are cut and end with `…`.
pub const MAX_ENTRY_CHARS: usize = 250;

/// Where the skills are and how much of the prompt their listing may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillConfig {
    /// Skills folders (each holding `<name>/SKILL.md`), highest priority first: a name found in
    /// an earlier folder hides the same name in later ones.
    pub dirs: Vec<PathBuf>,
    /// Legacy command folders (each holding `<name>.md`, Claude Code's `.claude/commands`),
    /// highest priority first, searched after every skills folder.
    pub command_dirs: Vec<PathBuf>,
    /// Characters the prompt's skill listing may take (default [`DEFAULT_CHAR_BUDGET`]).
    pub char_budget: usize,
}

impl SkillConfig {
    /// Skills from `dirs` (highest priority first) with the default listing budget.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs, command_dirs: Vec::new(), char_budget: DEFAULT_CHAR_BUDGET }
    }
}

impl Default for SkillConfig {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

/// The Skill tool definition.
#[derive(Debug, Clone, Default)]
pub struct SkillTool {
    config: SkillConfig,
}

impl SkillTool {
    /// A Skill tool reading the folders of `config`.
    pub fn new(config: SkillConfig) -> Self {
        Self { config }
    }

    /// The skill called `name` (no leading `/`), looked up folder by folder; `None` when no
    /// folder has it, when the name is not a plain folder name, or when its `SKILL.md` cannot be
    /// read (a warning is logged).
    pub fn find(&self, name: &str) -> Option<Skill> {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
            return None;
        }
        let skills = self.config.dirs.iter().map(|dir| skills::load_skill(&dir.join(name)));
        let commands = self.config.command_dirs.iter().map(|dir| skills::load_command(&dir.join(format!("{name}.md"))));
        skills.chain(commands).find_map(|loaded| match loaded {
            Ok(found) => found,
            Err(warning) => {
                tracing::warn!(%warning, "skipping a skill that cannot be read");
                None
            }
        })
    }

    /// The prompt's listing of skills the model may call, within the budget.
    pub fn listing(&self) -> String {
        let (found, _) = skills::discover(&self.config.dirs, &self.config.command_dirs);
        listing(&found, self.config.char_budget)
    }
}

/// Skill with no skills folders (every call is `Unknown skill`).
pub fn tool() -> Arc<dyn Tool> {
    build_tool(SkillTool::default())
}

/// Skill reading the folders of `config`, ready for the host.
pub fn tool_with(config: SkillConfig) -> Arc<dyn Tool> {
    build_tool(SkillTool::new(config))
}

/// The listing lines for `skills`, skipping those the model may not call: each entry cut to
/// [`MAX_ENTRY_CHARS`], and entries added in order while the whole (lines joined with `\n`)
/// stays within `budget` characters.
pub fn listing(skills: &[Skill], budget: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for skill in skills.iter().filter(|skill| !skill.model_invocation_disabled()) {
        let entry = cap(&skill.listing_entry().replace('\n', " "), MAX_ENTRY_CHARS);
        let cost = entry.chars().count() + usize::from(!out.is_empty());
        if used + cost > budget {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&entry);
        used += cost;
    }
    out
}

fn cap(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Whether a `Skill(…)` rule's content covers `name`: the same name (a leading `/` ignored on
/// both sides), or `prefix:*` for names starting with `prefix`.
pub fn rule_matches(content: &str, name: &str) -> bool {
    let content = content.trim();
    let content = content.strip_prefix('/').unwrap_or(content);
    match content.strip_suffix(":*") {
        Some(prefix) => name.starts_with(prefix),
        None => content == name,
    }
}

fn matching_rule(ctx: &ToolUseContext, behavior: PermissionBehavior, name: &str) -> Option<PermissionDecisionReason> {
    ctx.permission_context
        .content_rules(NAME, behavior)
        .find(|rule| rule.rule_value.rule_content.as_deref().is_some_and(|content| rule_matches(content, name)))
        .map(|rule| PermissionDecisionReason::Rule { rule })
}

fn suggestion(content: String) -> PermissionRuleValue {
    PermissionRuleValue { tool_name: NAME.to_owned(), rule_content: Some(content) }
}

fn add_allow_rules(ctx: &mut ToolUseContext, rules: &[String]) {
    let mut permissions = (*ctx.permission_context).clone();
    for rule in rules {
        let present = permissions
            .rules_by_source(PermissionBehavior::Allow)
            .get(&PermissionRuleSource::Command)
            .is_some_and(|existing| existing.contains(rule));
        if !present {
            permissions = permissions.with_rule(PermissionBehavior::Allow, PermissionRuleSource::Command, rule.clone());
        }
    }
    ctx.permission_context = Arc::new(permissions);
}

impl ToolDef for SkillTool {
    type Input = SkillInput;
    type Output = SkillOutput;

    const NAME: &'static str = NAME;

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: false, open_world: false })
        .search_hint("run a packaged skill or slash command");

    fn summary(&self, input: &SkillInput) -> String {
        format!("Run the skill {}", input.name())
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        let mut prompt = include_str!("prompt.md").trim_end().to_owned();
        let listing = self.listing();
        prompt.push_str("\n\nAvailable skills:\n");
        prompt.push_str(if listing.is_empty() { "(none)" } else { &listing });
        prompt
    }

    fn user_facing_name(&self, _input: Option<&SkillInput>) -> String {
        NAME.to_owned()
    }

    fn activity_description(&self, input: &SkillInput) -> Option<String> {
        Some(format!("Running skill {}", input.name()))
    }

    async fn validate_input(&self, input: &SkillInput, ctx: &ToolUseContext) -> ValidationResult {
        let name = input.name();
        if name.trim().is_empty() {
            return ValidationResult::error(render::invalid_format(&input.skill), 1);
        }
        let Some(skill) = self.find(name) else {
            return ValidationResult::error(render::unknown(name), 2);
        };
        if skill.model_invocation_disabled() {
            return ValidationResult::error(render::model_invocation_disabled(name), 4);
        }
        if skill.is_fork() && ctx.subagents.is_none() {
            return ValidationResult::error(render::fork_unsupported(name), 8);
        }
        ValidationResult::Ok
    }

    async fn check_permissions(&self, input: &SkillInput, ctx: &ToolUseContext) -> PermissionResult {
        let name = input.name();
        if let Some(reason) = matching_rule(ctx, PermissionBehavior::Deny, name) {
            return PermissionResult::deny("Skill execution blocked by permission rules", reason);
        }
        if let Some(reason) = matching_rule(ctx, PermissionBehavior::Allow, name) {
            return PermissionResult::Allow { updated_input: None, decision_reason: Some(reason) };
        }
        if self.find(name).is_some_and(|skill| skill.uses_only_safe_keys()) {
            return PermissionResult::Allow {
                updated_input: None,
                decision_reason: Some(PermissionDecisionReason::Other {
                    reason: "the skill only uses safe properties".to_owned(),
                }),
            };
        }
        PermissionResult::Ask {
            message: render::execute_question(name),
            updated_input: None,
            decision_reason: None,
            suggestions: vec![PermissionUpdate::AddRules {
                destination: PermissionUpdateDestination::LocalSettings,
                rules: vec![suggestion(name.to_owned()), suggestion(format!("{name}:*"))],
                behavior: PermissionBehavior::Allow,
            }],
            blocked_path: None,
        }
    }

    async fn call(&self, input: SkillInput, ctx: &ToolUseContext) -> Result<ToolResult<SkillOutput>, ToolError> {
        let name = input.name().to_owned();
        let Some(skill) = self.find(&name) else {
            return Err(ToolError::failed(render::unknown(&name)));
        };
        let body = skill.read_body().map_err(ToolError::failed)?;
        let expanded = skills::expand(&body, input.args.as_deref().unwrap_or(""), &skill.base_dir);
        let allowed = skill.allowed_tools();
        let model = skill.model();
        if skill.is_fork() {
            let text = render::injected(&skill.base_dir, &expanded);
            return fork::run(&name, &skill, text, ctx).await.map(ToolResult::new);
        }
        let message = Message::user(vec![ContentBlock::text(render::injected(&skill.base_dir, &expanded))]);
        let output = SkillOutput {
            success: true,
            command_name: name,
            allowed_tools: (!allowed.is_empty()).then(|| allowed.clone()),
            model: model.clone(),
            result: None,
            agent_id: None,
        };
        let mut result = ToolResult::new(output).with_message(message);
        if !allowed.is_empty() || model.is_some() {
            result = result.with_context_modifier(move |mut ctx| {
                add_allow_rules(&mut ctx, &allowed);
                if let Some(model) = model {
                    ctx.options.main_loop_model = model;
                }
                ctx
            });
        }
        Ok(result)
    }

    fn map_tool_result(&self, output: &SkillOutput, tool_use_id: &str) -> ToolResultBlock {
        match &output.result {
            Some(report) => ToolResultBlock::text(tool_use_id, render::forked(&output.command_name, report)),
            None => ToolResultBlock::text(tool_use_id, render::launching(&output.command_name)),
        }
    }
}
