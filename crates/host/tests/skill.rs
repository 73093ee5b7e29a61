//! Skill through the real pool and executor: a skill's `allowed-tools` become allow rules for the
//! calls after it in the same turn, its text follows the result as a new user message, and a
//! skill with no such rights runs without a question.

#![cfg(all(feature = "skill", feature = "file-write"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::ToolUseContext;
use agent_tools_core::{ContentBlock, KnownBlock, MessageContent, ToolUseBlock};
use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
use agent_tools_host::{Executor, HostConfig, assemble_tool_pool};
use serde_json::{Value, json};

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.to_owned(), name: name.to_owned(), input }
}

struct Setup {
    _root: tempfile::TempDir,
    cwd: std::path::PathBuf,
    executor: Executor,
    ctx: ToolUseContext,
}

fn setup(permissions: ToolPermissionContext) -> Setup {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().canonicalize().unwrap();
    let skills = cwd.join(".claude/skills");
    std::fs::create_dir_all(skills.join("notes")).unwrap();
    std::fs::write(
        skills.join("notes/SKILL.md"),
        "---\ndescription: Keep notes\nallowed-tools: Write\n---\nWrite the note $ARGUMENTS to notes.txt.\n",
    )
    .unwrap();
    std::fs::create_dir_all(skills.join("hello")).unwrap();
    std::fs::write(skills.join("hello/SKILL.md"), "---\ndescription: Greet\n---\nSay hello.\n").unwrap();
    let mut config = HostConfig::default();
    config.tools.insert(agent_tool_skill::SkillConfig::new(vec![cwd.join("home-skills"), skills]));
    let pool = assemble_tool_pool(&permissions, Vec::new(), &config);
    let mut ctx = ToolUseContext::new(cwd.clone());
    ctx.permission_context = Arc::new(permissions);
    ctx.options.tools = pool.clone().into();
    Setup { _root: root, cwd, executor: Executor::new(pool), ctx }
}

fn write_note(id: &str, cwd: &std::path::Path) -> ToolUseBlock {
    let path = cwd.join("notes.txt").display().to_string();
    block(id, "Write", json!({"file_path": path, "content": "remember\n"}))
}

#[tokio::test]
async fn allowed_tools_allow_the_next_call_of_the_same_turn() {
    let allow_skill = ToolPermissionContext::default().with_rule(
        PermissionBehavior::Allow,
        PermissionRuleSource::Session,
        "Skill(notes)",
    );
    let mut s = setup(allow_skill);
    // Without the skill, nobody can approve the Write.
    let refused = s.executor.run_turn(&[write_note("w0", &s.cwd)], &mut s.ctx.clone()).await;
    assert!(refused.invocations[0].block.is_error);
    let turn = s
        .executor
        .run_turn(
            &[block("s1", "Skill", json!({"skill": "/notes", "args": "milk"})), write_note("w1", &s.cwd)],
            &mut s.ctx,
        )
        .await;
    let skill = &turn.invocations[0];
    assert_eq!(skill.block.content.text(), "Launching skill: notes");
    let MessageContent::Blocks(blocks) = &skill.new_messages[0].content else { panic!("blocks") };
    let [ContentBlock::Known(KnownBlock::Text { text })] = blocks.as_slice() else { panic!("{blocks:?}") };
    assert_eq!(
        text,
        &format!(
            "Base directory for this skill: {}\n\nWrite the note milk to notes.txt.",
            s.cwd.join(".claude/skills/notes").display()
        )
    );
    assert!(!turn.invocations[1].block.is_error, "{:?}", turn.invocations[1].block);
    assert_eq!(std::fs::read_to_string(s.cwd.join("notes.txt")).unwrap(), "remember\n");
    let rules = s.ctx.permission_context.rules_by_source(PermissionBehavior::Allow);
    assert_eq!(rules.get(&PermissionRuleSource::Command), Some(&vec!["Write".to_owned()]));
}

#[tokio::test]
async fn a_safe_skill_runs_without_a_question_and_an_unsafe_one_is_refused_without_one() {
    let mut s = setup(ToolPermissionContext::default());
    let turn = s
        .executor
        .run_turn(
            &[block("s1", "Skill", json!({"skill": "hello"})), block("s2", "Skill", json!({"skill": "notes"}))],
            &mut s.ctx,
        )
        .await;
    assert_eq!(turn.invocations[0].block.content.text(), "Launching skill: hello");
    assert!(turn.invocations[1].block.is_error);
    assert!(turn.invocations[1].new_messages.is_empty());
}
