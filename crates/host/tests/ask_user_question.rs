//! AskUserQuestion through the real pool and permission pipeline: the answers come from the
//! prompter as the updated input and reach `call`; a "no" is the standard rejection; bypass mode,
//! allow rules and a hook's bare `allow` still ask; a hook that supplies the answers (an SDK-style
//! host) skips the question; with nobody to ask the call is refused.

#![cfg(feature = "ask-user-question")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use agent_tool_ask_user_question::{Answers, questions_of, with_answers};
use agent_tools_core::BoxFuture;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionMode, PermissionRuleSource, ToolPermissionContext};
use agent_tools_host::hooks::{CommandHook, HookMatcher};
use agent_tools_host::permissions::rejected_message;
use agent_tools_host::{
    Executor, Hooks, HostConfig, PermissionAnswer, PermissionPrompter, PermissionRequest, assemble_tool_pool,
};
use serde_json::{Value, json};

/// What the scripted user does with each question set.
enum Reply {
    /// Picks these answers, in question order.
    Answer(Vec<&'static str>),
    /// Says no.
    Decline(Option<&'static str>),
    /// Says "yes" without answering (a prompter that does not know the tool).
    PlainYes,
}

/// A user answering from a script, remembering every request.
#[derive(Default)]
struct ScriptedUser {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<PermissionRequest>>,
}

impl ScriptedUser {
    fn replying(replies: impl IntoIterator<Item = Reply>) -> Arc<Self> {
        Arc::new(Self { replies: Mutex::new(replies.into_iter().collect()), requests: Mutex::default() })
    }

    fn asked(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl PermissionPrompter for ScriptedUser {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        self.requests.lock().unwrap().push(request.clone());
        let reply = self.replies.lock().unwrap().pop_front().unwrap_or(Reply::Decline(None));
        let answer = match reply {
            Reply::Answer(picked) => {
                let questions = questions_of(&request.input).expect("an AskUserQuestion input");
                let answers = questions.iter().zip(picked).map(|(q, a)| (q.question.clone(), a.to_owned())).collect();
                PermissionAnswer::AllowWithInput { input: with_answers(&request.input, &Answers(answers)) }
            }
            Reply::Decline(feedback) => PermissionAnswer::Deny { feedback: feedback.map(str::to_owned) },
            Reply::PlainYes => PermissionAnswer::AllowOnce,
        };
        Box::pin(async move { answer })
    }
}

fn setup(
    permissions: ToolPermissionContext,
    user: Option<Arc<ScriptedUser>>,
) -> (tempfile::TempDir, ToolUseContext, Executor) {
    let dir = tempfile::tempdir().unwrap();
    let pool = assemble_tool_pool(&permissions, Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.options.tools = pool.clone().into();
    ctx.permission_context = Arc::new(permissions);
    let mut executor = Executor::new(pool);
    if let Some(user) = user {
        executor = executor.with_prompter(user);
    }
    (dir, ctx, executor)
}

fn mode(mode: PermissionMode) -> ToolPermissionContext {
    ToolPermissionContext {
        mode,
        is_bypass_permissions_mode_available: mode == PermissionMode::BypassPermissions,
        ..Default::default()
    }
}

fn ask(input: Value) -> ToolUseBlock {
    ToolUseBlock { id: "toolu_q".into(), name: "AskUserQuestion".into(), input }
}

fn two_questions() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "Postgres", "description": "The server"}, {"label": "SQLite", "description": "A file"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "Log-in"}, {"label": "Search", "description": "Full text"},
            {"label": "Export", "description": "CSV"}]}
    ]})
}

const ANSWERED: &str = "User has answered your questions: \"Which database?\"=\"SQLite\", \
    \"Which features?\"=\"Auth, Export\". You can now continue with the user's answers in mind.";

#[tokio::test]
async fn the_users_answers_reach_call() {
    let user = ScriptedUser::replying([Reply::Answer(vec!["SQLite", "Auth, Export"])]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), Some(user.clone()));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    assert_eq!(done[0].block.content.text(), ANSWERED);
    let data = done[0].data.as_ref().unwrap().to_json();
    assert_eq!(data["answers"], json!({"Which database?": "SQLite", "Which features?": "Auth, Export"}));
    let requests = user.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].tool_name, "AskUserQuestion");
    assert_eq!(requests[0].message, "Answer questions?");
    assert_eq!(requests[0].tool_use_id, "toolu_q");
}

#[tokio::test]
async fn answers_the_model_made_up_are_replaced_by_the_users() {
    let user = ScriptedUser::replying([Reply::Answer(vec!["SQLite", "Auth, Export"])]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), Some(user.clone()));
    let mut input = two_questions();
    input["answers"] = json!({"Which database?": "Postgres", "Which features?": "Search"});
    let done = executor.run_turn(&[ask(input)], &mut ctx).await;
    assert_eq!(done[0].block.content.text(), ANSWERED);
    assert_eq!(user.asked(), 1);
}

#[tokio::test]
async fn declining_is_the_standard_rejection() {
    let user = ScriptedUser::replying([Reply::Decline(None), Reply::Decline(Some("ask me later"))]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), Some(user));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(done[0].block.is_error);
    assert_eq!(done[0].block.content.text(), rejected_message(None));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert_eq!(done[0].block.content.text(), rejected_message(Some("ask me later")));
}

#[tokio::test]
async fn bypass_mode_and_allow_rules_still_ask() {
    let user = ScriptedUser::replying([Reply::Answer(vec!["SQLite", "Auth, Export"]), Reply::Decline(None)]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::BypassPermissions), Some(user.clone()));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert_eq!(done[0].block.content.text(), ANSWERED);
    assert_eq!(user.asked(), 1);

    let mut permissions = mode(PermissionMode::Default);
    permissions.always_allow_rules.insert(PermissionRuleSource::Session, vec!["AskUserQuestion".into()]);
    let (_dir, mut ctx, executor) = setup(permissions, Some(user.clone()));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert_eq!(done[0].block.content.text(), rejected_message(None));
    assert_eq!(user.asked(), 2);
}

fn hook_printing(output: &Value) -> Hooks {
    let command = format!("echo '{output}'");
    Hooks {
        pre_tool_use: vec![HookMatcher {
            matcher: "AskUserQuestion".into(),
            hooks: vec![CommandHook {
                kind: "command".into(),
                command,
                timeout: None,
                condition: None,
                ..CommandHook::default()
            }],
        }],
        post_tool_use: Vec::new(),
        ..Hooks::default()
    }
}

#[tokio::test]
async fn a_hooks_bare_allow_still_asks_but_a_hook_with_the_answers_does_not() {
    let user = ScriptedUser::replying([Reply::Answer(vec!["Postgres", "Search"])]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), Some(user.clone()));
    let bare = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}});
    let executor_bare = executor.clone().with_hooks(hook_printing(&bare));
    let done = executor_bare.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(!done[0].block.is_error, "{}", done[0].block.content.text());
    assert!(done[0].block.content.text().contains("\"Which database?\"=\"Postgres\""));
    assert_eq!(user.asked(), 1);

    // An SDK-style host: its hook already has the answers and supplies them.
    let mut answered = two_questions();
    answered["answers"] = json!({"Which database?": "SQLite", "Which features?": "Auth, Export"});
    let with_input = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": answered}});
    let executor_sdk = executor.with_hooks(hook_printing(&with_input));
    let done = executor_sdk.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert_eq!(done[0].block.content.text(), ANSWERED);
    assert_eq!(user.asked(), 1, "no second question");
}

#[tokio::test]
async fn nobody_to_ask_or_a_yes_without_answers_is_refused() {
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::BypassPermissions), None);
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(done[0].block.is_error);
    assert!(done[0].block.content.text().starts_with("Permission to use AskUserQuestion has been denied"));

    let user = ScriptedUser::replying([Reply::PlainYes]);
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), Some(user));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(done[0].block.is_error);
    assert_eq!(done[0].block.content.text(), agent_tool_ask_user_question::NO_ANSWERS);
}

#[tokio::test]
async fn an_answer_input_that_does_not_parse_is_an_input_error() {
    struct Broken;
    impl PermissionPrompter for Broken {
        fn ask<'a>(&'a self, _request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
            Box::pin(async { PermissionAnswer::AllowWithInput { input: json!({"questions": "?"}) } })
        }
    }
    let (_dir, mut ctx, executor) = setup(mode(PermissionMode::Default), None);
    let executor = executor.with_prompter(Arc::new(Broken));
    let done = executor.run_turn(&[ask(two_questions())], &mut ctx).await;
    assert!(done[0].block.is_error);
    assert!(done[0].block.content.text().contains("InputValidationError"), "{}", done[0].block.content.text());
}
