//! Skill on real skill folders in temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tool_skill::{SkillConfig, listing, skills, tool_with};
use agent_tools_core::{ContentBlock, KnownBlock, MessageContent};
use agent_tools_core::{
    Message, PermissionResult, PromptOptions, Tool, ToolPermissionContext, ToolUseContext, call_tool,
};
use agent_tools_core::{PermissionBehavior, PermissionRuleSource, PermissionUpdate};
use serde_json::json;

fn write_skill(dir: &Path, name: &str, text: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
}

struct Fixture {
    _root: tempfile::TempDir,
    user: PathBuf,
    project: PathBuf,
    cwd: PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let user = root.path().join("home/.claude/skills");
    let cwd = root.path().join("proj");
    let project = cwd.join(".claude/skills");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    write_skill(&user, "greet", "---\nname: greet\ndescription: Say hello to someone\n---\nSay hello to $ARGUMENTS.\n");
    write_skill(
        &project,
        "greet",
        "---\ndescription: The project's greeting\n---\nProject greeting, never used while a personal one exists.\n",
    );
    write_skill(
        &project,
        "commit",
        "---\ndescription: Write a commit\nwhen_to_use: When the user asks to commit\nallowed-tools: Bash(git add:*), Write\n---\n# Commit\nCommit $0 with message $1 (see ${CLAUDE_SKILL_DIR}/notes.md).\n",
    );
    write_skill(&project, "secret", "---\ndescription: Human only\ndisable-model-invocation: true\n---\nNo.\n");
    write_skill(&project, "forked", "---\ndescription: Runs apart\ncontext: fork\n---\nWork alone.\n");
    write_skill(&project, "broken", "---\ndescription: [unclosed\n---\nBody\n");
    std::fs::create_dir_all(project.join("empty-folder")).unwrap();
    Fixture { _root: root, user, project, cwd }
}

impl Fixture {
    fn tool(&self) -> Arc<dyn Tool> {
        tool_with(SkillConfig::new(vec![self.user.clone(), self.project.clone()]))
    }

    fn ctx(&self) -> ToolUseContext {
        ToolUseContext::new(self.cwd.clone())
    }
}

async fn permission(tool: &dyn Tool, input: serde_json::Value, ctx: &ToolUseContext) -> PermissionResult {
    let parsed = tool.parse(input).unwrap();
    tool.check_permissions(&parsed, ctx).await
}

fn text_of(message: &Message) -> String {
    match &message.content {
        MessageContent::Text(text) => text.clone(),
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Known(KnownBlock::Text { text }) => Some(text.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn discovery_reads_both_folders_personal_first_and_skips_malformed_skills() {
    let f = fixture();
    let (found, warnings) = skills::discover(&[f.user.clone(), f.project.clone()], &[]);
    let names: Vec<&str> = found.iter().map(|skill| skill.name.as_str()).collect();
    assert_eq!(names, vec!["greet", "commit", "forked", "secret"]);
    assert_eq!(found[0].description, "Say hello to someone");
    assert_eq!(found[0].base_dir, f.user.join("greet"));
    assert_eq!(found[1].when_to_use.as_deref(), Some("When the user asks to commit"));
    assert_eq!(found[1].allowed_tools(), vec!["Bash(git add:*)", "Write"]);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("broken/SKILL.md"), "{warnings:?}");
    // Missing folders are no error.
    let (none, warnings) = skills::discover(&[f.cwd.join("nope")], &[f.cwd.join("nope")]);
    assert!(none.is_empty() && warnings.is_empty());
}

#[test]
fn a_skill_without_frontmatter_takes_its_first_line_as_description() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "plain", "\n# Tidy the imports\n\nSort them.\n");
    let (found, _) = skills::discover(&[dir.path().to_path_buf()], &[]);
    assert_eq!(found[0].description, "Tidy the imports");
    assert!(found[0].uses_only_safe_keys());
}

#[test]
fn the_prompt_lists_callable_skills_within_the_budget() {
    let f = fixture();
    let prompt = f.tool().description(&PromptOptions::default());
    let tail = prompt.split("Available skills:\n").nth(1).unwrap();
    assert_eq!(
        tail,
        "- greet: Say hello to someone\n- commit: Write a commit - When the user asks to commit\n- forked: Runs apart"
    );
    let (found, _) = skills::discover(&[f.user.clone(), f.project], &[]);
    // 30 characters hold only the first entry (29 characters).
    assert_eq!(listing(&found, 30), "- greet: Say hello to someone");
    assert_eq!(listing(&found, 0), "");
    let empty = tool_with(SkillConfig::default()).description(&PromptOptions::default());
    assert!(empty.ends_with("Available skills:\n(none)"));
}

#[test]
fn each_entry_is_capped_at_250_characters() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(400);
    write_skill(dir.path(), "long", &format!("---\ndescription: {long}\n---\nBody\n"));
    let (found, _) = skills::discover(&[dir.path().to_path_buf()], &[]);
    let entry = listing(&found, 8_000);
    assert_eq!(entry.chars().count(), 250);
    assert!(entry.starts_with("- long: xxx") && entry.ends_with("x…"));
}

#[tokio::test]
async fn validation_uses_claude_codes_codes() {
    let f = fixture();
    let tool = f.tool();
    let ctx = f.ctx();
    let cases = [
        (json!({"skill": "  "}), "<tool_use_error>Invalid skill format:   </tool_use_error>"),
        (json!({"skill": "/"}), "<tool_use_error>Invalid skill format: /</tool_use_error>"),
        (json!({"skill": "nope"}), "<tool_use_error>Unknown skill: nope</tool_use_error>"),
        (json!({"skill": "../proj"}), "<tool_use_error>Unknown skill: ../proj</tool_use_error>"),
        (json!({"skill": "broken"}), "<tool_use_error>Unknown skill: broken</tool_use_error>"),
        (
            json!({"skill": "secret"}),
            "<tool_use_error>Skill secret cannot be used with Skill tool due to disable-model-invocation</tool_use_error>",
        ),
    ];
    for (input, expected) in cases {
        let done = call_tool(tool.as_ref(), "t", input.clone(), &ctx).await;
        assert!(done.block.is_error, "{input}");
        assert_eq!(done.block.content.text(), expected, "{input}");
    }
    for (input, code) in [("  ", 1), ("nope", 2), ("secret", 4), ("forked", 8)] {
        let parsed = tool.parse(json!({"skill": input})).unwrap();
        match tool.validate_input(&parsed, &ctx).await {
            agent_tools_core::ValidationResult::Error { error_code, .. } => assert_eq!(error_code, code, "{input}"),
            agent_tools_core::ValidationResult::Ok => panic!("{input} passed"),
        }
    }
}

#[tokio::test]
async fn a_forked_skill_is_refused_clearly_where_no_sub_agents_run() {
    let f = fixture();
    let done = call_tool(f.tool().as_ref(), "t", json!({"skill": "forked"}), &f.ctx()).await;
    assert_eq!(
        done.block.content.text(),
        "<tool_use_error>Skill forked runs in a forked sub-agent (context: fork), and this host runs no sub-agents. Follow the skill's steps yourself or ask the user to run it.</tool_use_error>"
    );
}

#[tokio::test]
async fn permissions_follow_rules_then_safe_properties_then_ask() {
    let f = fixture();
    let tool = f.tool();
    let with = |behavior, rule: &str| {
        let mut ctx = f.ctx();
        ctx.permission_context =
            Arc::new(ToolPermissionContext::default().with_rule(behavior, PermissionRuleSource::UserSettings, rule));
        ctx
    };
    // A safe skill is allowed; one with allowed-tools asks with two suggestions.
    assert_eq!(permission(tool.as_ref(), json!({"skill": "greet"}), &f.ctx()).await.behavior(), "allow");
    match permission(tool.as_ref(), json!({"skill": "/commit"}), &f.ctx()).await {
        PermissionResult::Ask { message, suggestions, .. } => {
            assert_eq!(message, "Execute skill: commit");
            let [PermissionUpdate::AddRules { rules, behavior, .. }] = suggestions.as_slice() else {
                panic!("{suggestions:?}")
            };
            assert_eq!(*behavior, PermissionBehavior::Allow);
            let rules: Vec<String> = rules.iter().map(ToString::to_string).collect();
            assert_eq!(rules, vec!["Skill(commit)", "Skill(commit:*)"]);
        }
        other => panic!("{other:?}"),
    }
    // Allow rules: exact (a leading slash ignored) and prefix.
    for rule in ["Skill(commit)", "Skill(/commit)", "Skill(com:*)"] {
        let ctx = with(PermissionBehavior::Allow, rule);
        assert_eq!(permission(tool.as_ref(), json!({"skill": "commit"}), &ctx).await.behavior(), "allow", "{rule}");
    }
    let other = with(PermissionBehavior::Allow, "Skill(commits)");
    assert_eq!(permission(tool.as_ref(), json!({"skill": "commit"}), &other).await.behavior(), "ask");
    // Deny rules win, even for a safe skill.
    let deny = with(PermissionBehavior::Deny, "Skill(greet)");
    let denied = permission(tool.as_ref(), json!({"skill": "greet"}), &deny).await;
    assert_eq!(denied.behavior(), "deny");
    assert_eq!(denied.message(), Some("Skill execution blocked by permission rules"));
}

#[tokio::test]
async fn a_call_launches_the_skill_and_injects_its_expanded_text() {
    let f = fixture();
    let done =
        call_tool(f.tool().as_ref(), "t", json!({"skill": "/commit", "args": "src/a.rs \"Fix it\""}), &f.ctx()).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    assert_eq!(done.block.content.text(), "Launching skill: commit");
    assert_eq!(
        done.data.as_ref().map(|data| data.to_json()),
        Some(json!({"success": true, "commandName": "commit", "allowedTools": ["Bash(git add:*)", "Write"]}))
    );
    assert_eq!(done.new_messages.len(), 1);
    let dir = f.project.join("commit");
    assert_eq!(
        text_of(&done.new_messages[0]),
        format!(
            "Base directory for this skill: {}\n\n# Commit\nCommit src/a.rs with message Fix it (see {}/notes.md).",
            dir.display(),
            dir.display()
        )
    );
    // The context modifier turns allowed-tools into command-source allow rules.
    let modifier = done.context_modifier.expect("a modifier");
    let ctx = modifier(f.ctx());
    let rules = ctx.permission_context.rules_by_source(PermissionBehavior::Allow);
    assert_eq!(
        rules.get(&PermissionRuleSource::Command).cloned(),
        Some(vec!["Bash(git add:*)".into(), "Write".into()])
    );
}

#[tokio::test]
async fn the_personal_skill_wins_and_arguments_replace_the_placeholder() {
    let f = fixture();
    let done = call_tool(f.tool().as_ref(), "t", json!({"skill": "greet", "args": "Ada"}), &f.ctx()).await;
    assert_eq!(done.block.content.text(), "Launching skill: greet");
    assert_eq!(
        text_of(&done.new_messages[0]),
        format!("Base directory for this skill: {}\n\nSay hello to Ada.", f.user.join("greet").display())
    );
    assert!(done.context_modifier.is_none());
    assert_eq!(done.data.map(|data| data.to_json()), Some(json!({"success": true, "commandName": "greet"})));
}

#[tokio::test]
async fn a_skill_naming_a_model_switches_it() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "deep", "---\ndescription: Think\nmodel: claude-opus-4-1\n---\nThink hard.\n");
    let tool = tool_with(SkillConfig::new(vec![dir.path().to_path_buf()]));
    let ctx = ToolUseContext::new(dir.path());
    assert_eq!(permission(tool.as_ref(), json!({"skill": "deep"}), &ctx).await.behavior(), "ask");
    let done = call_tool(tool.as_ref(), "t", json!({"skill": "deep"}), &ctx).await;
    assert_eq!(
        done.data.as_ref().map(|data| data.to_json()),
        Some(json!({"success": true, "commandName": "deep", "model": "claude-opus-4-1"}))
    );
    let after = (done.context_modifier.expect("a modifier"))(ctx);
    assert_eq!(after.options.main_loop_model, "claude-opus-4-1");
}

#[tokio::test]
async fn odd_inputs_never_panic() {
    let f = fixture();
    let tool = f.tool();
    for name in ["\0", "a/b", "..", ".", "é", "/ /", "greet\n", &"z".repeat(5000)] {
        let done = call_tool(tool.as_ref(), "t", json!({"skill": name, "args": "$0 $ARGUMENTS[99]"}), &f.ctx()).await;
        let _ = done.block.content.text();
    }
    assert!(tool.parse(json!({"skill": "greet", "extra": 1})).is_err());
    assert!(tool.parse(json!({})).is_err());
}

#[tokio::test]
async fn legacy_commands_are_skills_after_the_skills_folders() {
    let f = fixture();
    let commands = f.cwd.join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(commands.join("deploy.md"), "---\ndescription: Ship it\n---\nDeploy to $ARGUMENTS.\n").unwrap();
    std::fs::write(commands.join("greet.md"), "Hidden by the greet skill.\n").unwrap();
    std::fs::write(commands.join("readme.txt"), "Not a command.\n").unwrap();
    let (found, _) = skills::discover(std::slice::from_ref(&f.project), std::slice::from_ref(&commands));
    let names: Vec<&str> = found.iter().map(|skill| skill.name.as_str()).collect();
    assert_eq!(names, vec!["commit", "forked", "greet", "secret", "deploy"]);
    let config = SkillConfig { command_dirs: vec![commands.clone()], ..SkillConfig::new(vec![f.project.clone()]) };
    let tool = tool_with(config);
    assert!(tool.description(&PromptOptions::default()).ends_with("\n- deploy: Ship it"));
    let done = call_tool(tool.as_ref(), "t", json!({"skill": "deploy", "args": "staging"}), &f.ctx()).await;
    assert_eq!(done.block.content.text(), "Launching skill: deploy");
    assert_eq!(
        text_of(&done.new_messages[0]),
        format!("Base directory for this skill: {}\n\nDeploy to staging.", commands.display())
    );
}
