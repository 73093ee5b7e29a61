//! AskUserQuestion through the contract: the schema, Claude Code's refinements as input errors,
//! the result text for single, multi-select and "Other" answers, and the refusals.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_ask_user_question::{
    Answers, NO_ANSWERS, NOT_IN_SUB_AGENTS, QUESTION, questions_of, tool, with_answers,
};
use agent_tools_core::PermissionResult;
use agent_tools_core::ToolUseContext;
use agent_tools_core::call_tool;
use serde_json::{Value, json};

fn ctx() -> ToolUseContext {
    ToolUseContext::new(std::env::temp_dir())
}

/// One call; the result text, the error flag and the output data.
async fn call(ctx: &ToolUseContext, input: Value) -> (String, bool, Value) {
    let done = call_tool(tool().as_ref(), "toolu_1", input, ctx).await;
    let data = done.data.map(|data| data.to_json()).unwrap_or(Value::Null);
    (done.block.content.text(), done.block.is_error, data)
}

fn question(text: &str, labels: &[&str], multi: bool) -> Value {
    let options: Vec<Value> =
        labels.iter().map(|label| json!({"label": label, "description": format!("about {label}")})).collect();
    json!({"question": text, "header": "Chip", "options": options, "multiSelect": multi})
}

fn db() -> Value {
    question("Which database?", &["Postgres", "SQLite"], false)
}

fn features() -> Value {
    question("Which features?", &["Auth", "Search", "Export"], true)
}

#[test]
fn the_schema_is_claude_codes_shape() {
    let tool = tool();
    assert_eq!(tool.name(), "AskUserQuestion");
    assert!(tool.should_defer());
    assert!(tool.requires_user_interaction());
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["questions"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(props, ["questions", "answers", "annotations", "metadata"]);
    assert_eq!(schema["properties"]["questions"]["minItems"], 1);
    assert_eq!(schema["properties"]["questions"]["maxItems"], 4);
    let text = schema.to_string();
    for field in ["\"header\"", "\"options\"", "\"multiSelect\"", "\"label\"", "\"description\"", "\"preview\""] {
        assert!(text.contains(field), "{field} in {text}");
    }
}

#[tokio::test]
async fn flags_and_permission() {
    let tool = tool();
    let parsed = tool.parse(json!({"questions": [db()]})).unwrap();
    assert!(tool.is_read_only(&parsed));
    assert!(tool.is_concurrency_safe(&parsed));
    assert!(!tool.is_destructive(&parsed));
    match tool.check_permissions(&parsed, &ctx()).await {
        PermissionResult::Ask { message, .. } => assert_eq!(message, QUESTION),
        other => panic!("expected ask, got {other:?}"),
    }
}

#[tokio::test]
async fn refinements_and_counts_are_input_errors() {
    let ctx = ctx();
    let cases = [
        (json!({"questions": [db(), db()]}), "Question texts must be unique (\"Which database?\" repeats)"),
        (
            json!({"questions": [question("Pick?", &["A", "B", "A"], false)]}),
            "Option labels must be unique within each question (\"A\" repeats in \"Pick?\")",
        ),
        (
            json!({"questions": [question("1?", &["A", "B"], false), question("2?", &["A", "B"], false),
                question("3?", &["A", "B"], false), question("4?", &["A", "B"], false),
                question("5?", &["A", "B"], false)]}),
            "must hold 1 to 4 questions (5 given)",
        ),
        (json!({"questions": []}), "must hold 1 to 4 questions (0 given)"),
        (json!({"questions": [question("Pick?", &["Only"], false)]}), "must hold 2 to 4 options (1 given)"),
        (
            json!({"questions": [question("Pick?", &["A", "B", "C", "D", "E"], false)]}),
            "must hold 2 to 4 options (5 given)",
        ),
    ];
    for (input, expected) in cases {
        let (text, is_error, _) = call(&ctx, input).await;
        assert!(is_error, "{text}");
        assert!(text.starts_with("<tool_use_error>InputValidationError: AskUserQuestion failed"), "{text}");
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    // The same label in two different questions is fine.
    let fine = json!({"questions": [question("1?", &["A", "B"], false), question("2?", &["A", "B"], false)],
        "answers": {"1?": "A", "2?": "B"}});
    assert!(!call(&ctx, fine).await.1);
}

#[tokio::test]
async fn strictness_and_odd_input_never_panic() {
    let ctx = ctx();
    let odd = [
        json!({"questions": [db()], "extra": 1}),
        json!({"questions": [{"question": "Q?", "header": "H", "options": [{"label": "a", "description": "b", "x": 1}, {"label": "c", "description": "d"}]}]}),
        json!({"questions": [db()], "answers": {"Which database?": 3}}),
        json!({"questions": [db()], "annotations": {"Which database?": {"colour": "red"}}}),
        json!({"questions": "Which database?"}),
        json!({}),
        json!(null),
        json!("{not json"),
    ];
    for input in odd {
        let (text, is_error, _) = call(&ctx, input.clone()).await;
        assert!(is_error, "{input} gave {text}");
        assert!(text.contains("InputValidationError"), "{input} gave {text}");
    }
}

#[tokio::test]
async fn a_single_answer() {
    let input = json!({"questions": [db()], "answers": {"Which database?": "SQLite"}});
    let (text, is_error, data) = call(&ctx(), input).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "User has answered your questions: \"Which database?\"=\"SQLite\". You can now continue with the user's answers in mind."
    );
    assert_eq!(data["answers"], json!({"Which database?": "SQLite"}));
    assert_eq!(data["questions"][0]["options"][1]["label"], "SQLite");
    assert!(data.get("annotations").is_none());
}

#[tokio::test]
async fn multi_select_other_and_annotations_in_answer_order() {
    let input = json!({
        "questions": [db(), features()],
        "answers": {"Which features?": "Auth, Export", "Which database?": "DuckDB, if it is not too slow"},
        "annotations": {"Which database?": {"preview": "CREATE TABLE t;", "notes": "keep it local"}}
    });
    let (text, is_error, data) = call(&ctx(), input).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "User has answered your questions: \"Which features?\"=\"Auth, Export\", \
         \"Which database?\"=\"DuckDB, if it is not too slow\" selected preview:\nCREATE TABLE t; \
         user notes: keep it local. You can now continue with the user's answers in mind."
    );
    assert_eq!(data["annotations"]["Which database?"]["notes"], "keep it local");
}

#[tokio::test]
async fn no_answers_and_sub_agents_are_refused() {
    let (text, is_error, _) = call(&ctx(), json!({"questions": [db()]})).await;
    assert!(is_error);
    assert_eq!(text, NO_ANSWERS);
    let (text, is_error, _) = call(&ctx(), json!({"questions": [db()], "answers": {}})).await;
    assert!(is_error);
    assert_eq!(text, NO_ANSWERS);
    let mut sub = ctx();
    sub.agent_id = Some("agent-1".into());
    let (text, is_error, _) = call(&sub, json!({"questions": [db()], "answers": {"Which database?": "SQLite"}})).await;
    assert!(is_error);
    assert_eq!(text, format!("<tool_use_error>{NOT_IN_SUB_AGENTS}</tool_use_error>"));
}

#[test]
fn prompter_helpers() {
    let input = json!({"questions": [db(), features()], "answers": {"stale": "x"}});
    let questions = questions_of(&input).unwrap();
    assert_eq!(questions.len(), 2);
    assert!(questions[1].multi_select);
    assert!(!questions[0].multi_select, "multiSelect defaults to false");
    assert!(questions_of(&json!({"command": "ls"})).is_none());
    let answers =
        Answers(vec![("Which database?".into(), "Postgres".into()), ("Which features?".into(), "Auth".into())]);
    let updated = with_answers(&input, &answers);
    assert_eq!(updated["answers"], json!({"Which database?": "Postgres", "Which features?": "Auth"}));
    assert_eq!(updated["questions"], input["questions"]);
    assert!(tool().parse(updated).is_ok());
}
