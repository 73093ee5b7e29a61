//! Plan mode through the real pool and the real permission pipeline, on real files: EnterPlanMode
//! switches later calls of the same turn to plan mode, Write is refused there except for the plan
//! file, and ExitPlanMode asks with the plan shown, restoring the earlier mode on "yes" and
//! staying in plan mode on "no".

#![cfg(all(feature = "enter-plan-mode", feature = "exit-plan-mode", feature = "file-write"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_tools_core::BoxFuture;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionMode, ToolPermissionContext};
use agent_tools_host::permissions::rejected_message;
use agent_tools_host::{
    Executor, HostConfig, PermissionAnswer, PermissionPrompter, PermissionRequest, assemble_tool_pool,
};
use serde_json::{Value, json};

/// A user who answers from a script and remembers every question (an unexpected question is
/// answered "no" and recorded, so a test sees it).
#[derive(Default)]
struct ScriptedUser {
    answers: Mutex<VecDeque<PermissionAnswer>>,
    questions: Mutex<Vec<PermissionRequest>>,
}

impl ScriptedUser {
    fn answering(answers: impl IntoIterator<Item = PermissionAnswer>) -> Arc<Self> {
        Arc::new(Self { answers: Mutex::new(answers.into_iter().collect()), questions: Mutex::default() })
    }
}

impl PermissionPrompter for ScriptedUser {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        self.questions.lock().unwrap().push(request.clone());
        let answer = self.answers.lock().unwrap().pop_front().unwrap_or(PermissionAnswer::Deny { feedback: None });
        Box::pin(async move { answer })
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    project: PathBuf,
    ctx: ToolUseContext,
    executor: Executor,
}

fn setup(mode: PermissionMode, user: Option<Arc<ScriptedUser>>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let permissions = ToolPermissionContext {
        mode,
        is_bypass_permissions_mode_available: mode == PermissionMode::BypassPermissions,
        ..Default::default()
    };
    let pool = assemble_tool_pool(&permissions, Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(&project);
    ctx.home_dir = Some(root.join("home"));
    ctx.options.plans_dir = Some(root.join("home/.claude/plans"));
    ctx.options.tools = pool.clone().into();
    ctx.permission_context = Arc::new(permissions);
    let mut executor = Executor::new(pool);
    if let Some(user) = user {
        executor = executor.with_prompter(user);
    }
    Setup { _dir: dir, project, ctx, executor }
}

fn block(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock { id: id.into(), name: name.into(), input }
}

fn write(id: &str, path: &Path, content: &str) -> ToolUseBlock {
    block(id, "Write", json!({"file_path": path.display().to_string(), "content": content}))
}

/// Enters plan mode in its own turn and returns the plan file it named.
async fn enter(s: &mut Setup) -> PathBuf {
    let done = s.executor.run_turn(&[block("e1", "EnterPlanMode", json!({}))], &mut s.ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    let data = done[0].data.as_ref().unwrap().to_json();
    PathBuf::from(data["planFilePath"].as_str().unwrap())
}

const PLAN: &str = "# Plan\n\n1. Add `--verbose`.\n2. Test it.\n";

#[tokio::test]
async fn entering_switches_the_rest_of_the_turn_and_only_the_plan_file_is_writable() {
    let user = ScriptedUser::answering([]);
    let mut s = setup(PermissionMode::AcceptEdits, Some(user.clone()));
    let project_file = s.project.join("main.rs");
    let calls = [block("t1", "EnterPlanMode", json!({})), write("t2", &project_file, "fn main() {}\n")];
    let done = s.executor.run_turn(&calls, &mut s.ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Plan);
    assert_eq!(s.ctx.permission_context.pre_plan_mode, Some(PermissionMode::AcceptEdits));
    assert!(done[1].block.is_error);
    assert_eq!(done[1].block.content.text(), format!("Cannot write to {} while in plan mode.", project_file.display()));
    assert!(!project_file.exists());

    // The plan file the result named is writable without a question; the project still is not.
    let plan = PathBuf::from(done[0].data.as_ref().unwrap().to_json()["planFilePath"].as_str().unwrap());
    assert!(done[0].block.content.text().contains(&plan.display().to_string()));
    let calls = [write("t3", &plan, PLAN), write("t4", &project_file, "x")];
    let done = s.executor.run_turn(&calls, &mut s.ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), PLAN);
    assert!(done[1].block.is_error);
    assert!(!project_file.exists());
    // And the plan can be read back and edited, as any file of the session.
    let calls = [
        block("t5", "Read", json!({"file_path": plan.display().to_string()})),
        block(
            "t6",
            "Edit",
            json!({"file_path": plan.display().to_string(), "old_string": "Test it.", "new_string": "Test it well."}),
        ),
    ];
    let done = s.executor.run_turn(&calls, &mut s.ctx).await;
    assert!(
        done.iter().all(|d| !d.block.is_error),
        "{:?}",
        done.iter().map(|d| d.block.content.text()).collect::<Vec<_>>()
    );
    assert!(std::fs::read_to_string(&plan).unwrap().contains("Test it well."));
    assert!(user.questions.lock().unwrap().is_empty(), "nothing was asked");
}

#[tokio::test]
async fn exit_plan_mode_outside_plan_mode_is_refused_with_code_1() {
    let mut s = setup(PermissionMode::Default, Some(ScriptedUser::answering([])));
    let done = s.executor.run_turn(&[block("x1", "ExitPlanMode", json!({}))], &mut s.ctx).await;
    assert!(done[0].block.is_error);
    assert_eq!(
        done[0].block.content.text(),
        format!("<tool_use_error>{}</tool_use_error>", agent_tool_exit_plan_mode::NOT_IN_PLAN_MODE)
    );
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Default);
}

#[tokio::test]
async fn yes_restores_the_earlier_mode_and_returns_the_approved_plan() {
    let user = ScriptedUser::answering([PermissionAnswer::AllowOnce]);
    let mut s = setup(PermissionMode::AcceptEdits, Some(user.clone()));
    let plan = enter(&mut s).await;
    s.executor.run_turn(&[write("w1", &plan, PLAN)], &mut s.ctx).await;
    let exit = block("x1", "ExitPlanMode", json!({"allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}]}));
    let done = s.executor.run_turn(&[exit], &mut s.ctx).await;
    let text = done[0].block.content.text();
    assert!(!done[0].block.is_error, "{text}");
    assert!(text.contains(&format!("The plan is saved at: {}", plan.display())), "{text}");
    assert!(text.ends_with(&format!("## Approved Plan:\n{PLAN}")), "{text}");
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::AcceptEdits);
    assert_eq!(s.ctx.permission_context.pre_plan_mode, None);
    {
        let questions = user.questions.lock().unwrap();
        assert_eq!(questions.len(), 1);
        assert_eq!(questions[0].tool_name, "ExitPlanMode");
        assert!(questions[0].message.starts_with("Exit plan mode?\n\nThe plan ("), "{}", questions[0].message);
        assert!(questions[0].message.contains(PLAN.trim_end()), "the user sees the plan");
        assert!(questions[0].message.ends_with("- Bash: run tests"), "{}", questions[0].message);
    }
    // Back in acceptEdits: a project write runs without a question.
    let file = s.project.join("main.rs");
    let done = s.executor.run_turn(&[write("w2", &file, "fn main() {}\n")], &mut s.ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    assert_eq!(user.questions.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn no_is_the_standard_rejection_and_planning_goes_on() {
    let user = ScriptedUser::answering([PermissionAnswer::Deny { feedback: Some("split step 2".into()) }]);
    let mut s = setup(PermissionMode::Default, Some(user.clone()));
    let plan = enter(&mut s).await;
    s.executor.run_turn(&[write("w1", &plan, PLAN)], &mut s.ctx).await;
    let done = s.executor.run_turn(&[block("x1", "ExitPlanMode", json!({}))], &mut s.ctx).await;
    assert!(done[0].block.is_error);
    assert_eq!(done[0].block.content.text(), rejected_message(Some("split step 2")));
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Plan);
    assert_eq!(s.ctx.permission_context.pre_plan_mode, Some(PermissionMode::Default));
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), PLAN);
    let file = s.project.join("main.rs");
    let done = s.executor.run_turn(&[write("w2", &file, "x")], &mut s.ctx).await;
    assert!(done[0].block.content.text().ends_with("while in plan mode."));
}

#[tokio::test]
async fn bypass_mode_and_allow_rules_still_ask_and_nobody_to_ask_refuses() {
    // Entered from bypass mode: the question is still asked (requires_user_interaction).
    let user = ScriptedUser::answering([PermissionAnswer::AllowOnce]);
    let mut s = setup(PermissionMode::BypassPermissions, Some(user.clone()));
    enter(&mut s).await;
    let done = s.executor.run_turn(&[block("x1", "ExitPlanMode", json!({}))], &mut s.ctx).await;
    assert_eq!(done[0].block.content.text(), agent_tool_exit_plan_mode::APPROVED_WITHOUT_PLAN);
    assert_eq!(user.questions.lock().unwrap().len(), 1);
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::BypassPermissions);

    // With nobody to ask, the call is refused and the session keeps planning.
    let mut s = setup(PermissionMode::Default, None);
    enter(&mut s).await;
    let done = s.executor.run_turn(&[block("x1", "ExitPlanMode", json!({}))], &mut s.ctx).await;
    assert!(done[0].block.is_error);
    assert!(
        done[0].block.content.text().starts_with(
            "Permission to use ExitPlanMode has been denied: this call needs approval and no one is available to give it. Exit plan mode?"
        ),
        "{}",
        done[0].block.content.text()
    );
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Plan);
}

#[tokio::test]
async fn a_sub_agent_cannot_enter_plan_mode() {
    let mut s = setup(PermissionMode::Default, None);
    s.ctx.agent_id = Some("agent-7".into());
    let done = s.executor.run_turn(&[block("e1", "EnterPlanMode", json!({}))], &mut s.ctx).await;
    assert!(done[0].block.is_error);
    assert_eq!(done[0].block.content.text(), agent_tool_enter_plan_mode::NOT_IN_SUB_AGENTS);
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Default);
}

#[tokio::test]
async fn a_hooks_allow_does_not_skip_the_users_approval_of_the_plan() {
    use agent_tools_host::Hooks;
    use agent_tools_host::hooks::{CommandHook, HookMatcher};
    let user = ScriptedUser::answering([PermissionAnswer::Deny { feedback: None }]);
    let mut s = setup(PermissionMode::Default, Some(user.clone()));
    let allow = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#;
    let hooks = Hooks {
        pre_tool_use: vec![HookMatcher {
            matcher: "ExitPlanMode".into(),
            hooks: vec![CommandHook {
                kind: "command".into(),
                command: allow.into(),
                timeout: None,
                condition: None,
                ..CommandHook::default()
            }],
        }],
        post_tool_use: Vec::new(),
        ..Hooks::default()
    };
    s.executor = s.executor.clone().with_hooks(hooks);
    enter(&mut s).await;
    let done = s.executor.run_turn(&[block("x1", "ExitPlanMode", json!({}))], &mut s.ctx).await;
    assert_eq!(done[0].block.content.text(), rejected_message(None));
    assert_eq!(user.questions.lock().unwrap().len(), 1, "the user was still asked");
    assert_eq!(s.ctx.permission_context.mode, PermissionMode::Plan);
}
