//! StructuredOutput end to end through the erased tool, as the host calls it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tool_structured_output::{NAME, SUCCESS, SchemaError, StructuredOutputData, tool};
use agent_tools_core::call_tool;
use agent_tools_core::{PromptOptions, ToolUseContext, is_deferred};
use serde_json::{Value, json};

fn person_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["name", "age"],
        "additionalProperties": false
    })
}

async fn call(schema: Value, input: Value) -> (bool, String, Option<Value>) {
    let tool = tool(schema).expect("a valid schema");
    let dir = std::env::temp_dir();
    let ctx = ToolUseContext::new(&dir);
    let done = call_tool(tool.as_ref(), "toolu_1", input, &ctx).await;
    let data = done.data.as_ref().map(|data| data.to_json());
    (done.block.is_error, done.block.content.text(), data)
}

#[tokio::test]
async fn a_fitting_answer_is_returned_as_structured_output() {
    let answer = json!({"name": "Ada", "age": 36, "tags": ["math"]});
    let (is_error, text, data) = call(person_schema(), answer.clone()).await;
    assert!(!is_error);
    assert_eq!(text, SUCCESS);
    assert_eq!(text, "Structured output provided successfully");
    assert_eq!(data, Some(json!({"structured_output": answer})));
}

#[tokio::test]
async fn the_typed_output_holds_the_input_unchanged() {
    let tool = tool(person_schema()).expect("a valid schema");
    let ctx = ToolUseContext::new(std::env::temp_dir());
    let answer = json!({"name": "Ada", "age": 36});
    let done = call_tool(tool.as_ref(), "toolu_1", answer.clone(), &ctx).await;
    let data = done.data.expect("output data");
    let typed = data.as_any().downcast_ref::<StructuredOutputData>().expect("StructuredOutputData");
    assert_eq!(typed.structured_output, answer);
}

#[tokio::test]
async fn a_wrong_type_names_its_path() {
    let (is_error, text, data) = call(person_schema(), json!({"name": "Ada", "age": "x"})).await;
    assert!(is_error);
    assert_eq!(text, "Output does not match required schema:\n/age: \"x\" is not of type \"integer\"");
    assert_eq!(data, None);
}

#[tokio::test]
async fn every_mismatch_is_listed() {
    let (is_error, text, _) = call(person_schema(), json!({"age": -1, "tags": ["a", 2], "extra": true})).await;
    assert!(is_error);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Output does not match required schema:");
    let mut rest = lines[1..].to_vec();
    rest.sort_unstable();
    assert_eq!(
        rest,
        [
            "/: \"name\" is a required property",
            "/: Additional properties are not allowed ('extra' was unexpected)",
            "/age: -1 is less than the minimum of 0",
            "/tags/1: 2 is not of type \"string\"",
        ]
    );
}

#[tokio::test]
async fn a_missing_required_field_is_reported_at_the_root() {
    let (is_error, text, _) = call(person_schema(), json!({"age": 3})).await;
    assert!(is_error);
    assert_eq!(text, "Output does not match required schema:\n/: \"name\" is a required property");
}

#[tokio::test]
async fn a_non_object_input_is_an_input_error() {
    let (is_error, text, _) = call(person_schema(), json!(["Ada", 36])).await;
    assert!(is_error);
    assert!(text.contains("The input must be a JSON object, not an array"), "{text}");
    // A JSON text of an object is accepted, as for every tool.
    let (is_error, text, _) = call(person_schema(), json!("{\"name\": \"Ada\", \"age\": 1}")).await;
    assert!(!is_error, "{text}");
}

#[test]
fn invalid_schemas_are_refused_when_the_tool_is_built() {
    let refused = |schema: Value| tool(schema).err().map(|error| (error.clone(), error.to_string()));
    assert_eq!(
        refused(json!(true)),
        Some((
            SchemaError::NotAnObject { found: "a boolean" },
            "The output schema must be a JSON object (a JSON Schema for an object), not a boolean".to_owned()
        ))
    );
    assert_eq!(
        refused(json!({"type": ["object", "null"]})).map(|(error, _)| error),
        Some(SchemaError::NotAnObjectType { found: "[\"object\",\"null\"]".into() })
    );
    let (error, text) = refused(json!({"type": "object", "properties": {"a": {"type": "nope"}}})).expect("refused");
    assert!(matches!(error, SchemaError::Invalid { .. }), "{error:?}");
    assert!(text.starts_with("The output schema is not a valid JSON Schema: "), "{text}");
    assert!(text.contains("nope"), "{text}");
    let (error, _) = refused(json!({"type": "object", "properties": {"a": {"pattern": "("}}})).expect("refused");
    assert!(matches!(error, SchemaError::Invalid { .. }), "{error:?}");
    let (error, _) = refused(json!({"$ref": "https://example.com/schema.json"})).expect("refused");
    assert!(matches!(error, SchemaError::Invalid { .. }), "{error:?}");
}

#[test]
fn the_api_definition_reports_the_schema() {
    let tool = tool(person_schema()).expect("a valid schema");
    assert_eq!(tool.name(), NAME);
    assert_eq!(tool.name(), "StructuredOutput");
    assert_eq!(tool.input_schema(), &person_schema());
    let flags = tool.flags();
    assert!(flags.read_only && flags.concurrency_safe && !flags.destructive && !flags.open_world);
    assert!(!is_deferred(tool.as_ref()));
    assert!(tool.description(&PromptOptions::default()).contains("exactly once"));
    let parsed = tool.parse(json!({"name": "Ada", "age": 1})).expect("parses");
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
}
