//! # agent-tool-ask-user-question: the AskUserQuestion tool
//!
//! Lets the model put 1-4 multiple-choice questions to the user and read the answers, as Claude
//! Code's `AskUserQuestion` tool does. The answers come from the person, through the host's
//! permission step: the tool's permission is always an `ask` ([`QUESTION`], "Answer
//! questions?"), and whoever answers that ask (the host's `PermissionPrompter`: a terminal, an
//! MCP client's elicitation form, an SDK host) shows the questions and allows the call *with an
//! updated input* whose `answers` are filled in ([`with_answers`]). `call` then only echoes.
//!
//! - **Input** (strict, [`AskUserQuestionInput`]): `questions`: 1-4 ×
//!   `{question, header, options: 2-4 × {label, description, preview?}, multiSelect = false}`;
//!   `answers?: {questionText: answer}`, `annotations?: {questionText: {preview?, notes?}}`,
//!   `metadata?: {source?}`. Claude Code's refinements are part of the parse, so a violation is an
//!   `InputValidationError`: question texts unique ([`DUPLICATE_QUESTIONS`]), option labels unique
//!   within a question ([`DUPLICATE_LABELS`]), and the counts above.
//! - **validate_input**: inside a sub-agent (`ctx.agent_id` set) error code 1,
//!   [`NOT_IN_SUB_AGENTS`] (Claude Code removes the tool from every sub-agent's pool).
//! - **Permission**: always `ask` with [`QUESTION`]; `requires_user_interaction` is true, so
//!   bypass mode and allow rules still ask, and a PreToolUse hook's `allow` counts only when the
//!   hook also supplies `updatedInput` (an SDK-style host that already has the answers: the
//!   question is then skipped). Declining gives the host's standard rejection.
//! - **call**: echoes `{questions, answers, annotations?}` ([`AskUserQuestionOutput`]). With no
//!   answer at all (the host allowed the call without showing the questions) it fails with
//!   [`NO_ANSWERS`] — Claude Code would report an empty answer list instead.
//! - **Result text** ([`result_text`]): `User has answered your questions: "Q"="A", "Q2"="A2".
//!   You can now continue with the user's answers in mind.` Multi-select answers are the labels
//!   joined by `", "`; an "Other" answer is the user's own text.
//!
//! Flags as Claude Code's: read-only, concurrency-safe, deferred, local. Not done: the `html`
//! preview format check (Claude Code's setting for HTML previews) and the KAIROS-channel switch.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let ctx = ToolUseContext::new(std::env::temp_dir());
//! // What a host passes to `call` once the user has answered:
//! let input = serde_json::json!({
//!     "questions": [{"question": "Which database?", "header": "Database", "options": [
//!         {"label": "Postgres", "description": "The server we run"},
//!         {"label": "SQLite", "description": "A file, no server"}]}],
//!     "answers": {"Which database?": "SQLite"}
//! });
//! let done = call_tool(agent_tool_ask_user_question::tool().as_ref(), "toolu_1", input, &ctx).await;
//! let answer = r#"User has answered your questions: "Which database?"="SQLite"."#;
//! assert!(done.block.content.text().starts_with(answer));
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::PermissionResult;
use agent_tools_core::{
    Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult, build_tool,
};
use serde_json::Value;

pub use crate::input::{
    Annotation, Answers, AskUserQuestionInput, DUPLICATE_LABELS, DUPLICATE_QUESTIONS, MAX_OPTIONS, MAX_QUESTIONS,
    MIN_OPTIONS, Metadata, Question, QuestionOption,
};
pub use crate::render::{
    ANSWERED, AskUserQuestionOutput, CONTINUE, NO_ANSWERS, NOT_IN_SUB_AGENTS, QUESTION, join_choices, result_text,
};

/// The API name.
pub const NAME: &str = "AskUserQuestion";

/// The AskUserQuestion tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct AskUserQuestionTool;

/// AskUserQuestion, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(AskUserQuestionTool)
}

/// The questions of a call's input, for a prompter that shows them; `None` when `input` is not
/// an AskUserQuestion input (the prompter should then ask its ordinary question, or decline).
pub fn questions_of(input: &Value) -> Option<Vec<Question>> {
    serde_json::from_value::<AskUserQuestionInput>(input.clone()).ok().map(|parsed| parsed.questions)
}

pub use agent_tools_core::with_answers;

use agent_tools_core::Interaction;

impl ToolDef for AskUserQuestionTool {
    type Input = AskUserQuestionInput;
    type Output = AskUserQuestionOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Read-only and concurrency-safe as in Claude Code; nothing destructive; local.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Think)
        .scope(AgentScope::MainConversation)
        .flags(ToolFlags { read_only: true, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("ask the user multiple-choice questions");

    /// The questions, for a prompter to show (the answers come back as the input's `answers`).
    fn interaction(&self, input: &AskUserQuestionInput, _ctx: &ToolUseContext) -> Option<Interaction> {
        Some(Interaction::Questions(input.questions.clone()))
    }

    fn summary(&self, _input: &AskUserQuestionInput) -> String {
        "Asks the user multiple choice questions to gather information, clarify ambiguity, understand \
         preferences, make decisions or offer them choices."
            .to_owned()
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }

    fn activity_description(&self, _input: &AskUserQuestionInput) -> Option<String> {
        Some("Waiting for the user's answers".to_owned())
    }

    async fn validate_input(&self, _input: &AskUserQuestionInput, ctx: &ToolUseContext) -> ValidationResult {
        if ctx.agent_id.is_some() { ValidationResult::error(NOT_IN_SUB_AGENTS, 1) } else { ValidationResult::Ok }
    }

    /// Always asks: the answer to the ask is where the user's answers come from.
    async fn check_permissions(&self, _input: &AskUserQuestionInput, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::ask(QUESTION)
    }

    async fn call(
        &self,
        input: AskUserQuestionInput,
        _ctx: &ToolUseContext,
    ) -> Result<ToolResult<AskUserQuestionOutput>, ToolError> {
        let answers = input.answers.unwrap_or_default();
        if answers.is_empty() {
            return Err(ToolError::failed(NO_ANSWERS));
        }
        Ok(ToolResult::new(AskUserQuestionOutput {
            questions: input.questions,
            answers,
            annotations: input.annotations,
        }))
    }

    fn map_tool_result(&self, output: &AskUserQuestionOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, result_text(output))
    }
}
