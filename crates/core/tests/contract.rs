//! The contract's promises, tested through the public API: `build_tool`'s fail-closed defaults,
//! strict parsing, the cached schema, name lookup, and `call_tool`'s envelopes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::PermissionResult;
use agent_tools_core::call_tool;
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool, find_tool_by_name, tool_matches_name,
};
use serde_json::{Value, json};

/// A tool that defines only the required items.
struct Minimal;

/// Minimal's input.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct MinimalInput {
    /// Some text.
    text: String,
}

impl ToolDef for Minimal {
    type Input = MinimalInput;
    type Output = String;

    const NAME: &'static str = "Minimal";

    fn summary(&self, _input: &MinimalInput) -> String {
        "Does little".into()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "A tool that does little.".into()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(100)
    }

    async fn call(&self, input: MinimalInput, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if input.text == "fail" {
            return Err(ToolError::failed("it failed"));
        }
        Ok(ToolResult::new(input.text))
    }

    fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.clone())
    }
}

/// A tool that overrides the defaults, has an alias and validates its input.
struct Custom;

impl ToolDef for Custom {
    type Input = MinimalInput;
    type Output = String;

    const NAME: &'static str = "Custom";

    fn aliases(&self) -> &[&str] {
        &["OldCustom"]
    }

    fn summary(&self, _input: &MinimalInput) -> String {
        "Custom".into()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "Custom.".into()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Unlimited
    }

    fn is_read_only(&self, _input: &MinimalInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, input: &MinimalInput) -> bool {
        input.text != "serial"
    }

    async fn validate_input(&self, input: &MinimalInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.text.is_empty() { ValidationResult::error("text must not be empty", 1) } else { ValidationResult::Ok }
    }

    async fn call(&self, _input: MinimalInput, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }

    fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.clone())
    }
}

fn ctx() -> ToolUseContext {
    ToolUseContext::new("/tmp")
}

#[tokio::test]
async fn a_minimal_tool_gets_every_fail_closed_default() {
    let tool = build_tool(Minimal);
    let parsed = tool.parse(json!({"text": "hi"})).unwrap();
    assert!(tool.is_enabled());
    assert!(!tool.is_concurrency_safe(&parsed));
    assert!(!tool.is_read_only(&parsed));
    // Possibly destructive and open-world, as the flags it did not give promise nothing.
    assert!(tool.is_destructive(&parsed) && tool.is_open_world(&parsed));
    assert!(tool.interaction(&parsed, &ctx()).is_none() && tool.rule_content_field().is_none());
    assert!(tool.get_path(&parsed).is_none() && tool.prepare_permission_matcher(&parsed).is_none());
    assert_eq!(tool.check_permissions(&parsed, &ctx()).await, PermissionResult::allow());
    assert_eq!(tool.user_facing_name(Some(&parsed)), "Minimal");
    assert_eq!(tool.user_facing_name(None), "Minimal");
    assert!(tool.validate_input(&parsed, &ctx()).await.is_ok());
    // The neutral optional members.
    assert!(tool.aliases().is_empty());
    assert!(!tool.should_defer() && !tool.always_load());
    assert!(tool.mcp_info().is_none());
    // Whole-tool flags promise nothing by default.
    let flags = tool.flags();
    assert!(!flags.read_only && !flags.concurrency_safe && flags.destructive && flags.open_world);
}

#[test]
fn input_that_fails_to_parse_is_neither_read_only_nor_concurrency_safe() {
    let tool = build_tool(Custom);
    assert!(tool.is_concurrency_safe_json(&json!({"text": "x"})));
    assert!(tool.is_read_only_json(&json!({"text": "x"})));
    for bad in [json!({}), json!({"text": 1}), json!({"text": "x", "extra": true}), json!("nope"), Value::Null] {
        assert!(!tool.is_concurrency_safe_json(&bad), "{bad}");
        assert!(!tool.is_read_only_json(&bad), "{bad}");
    }
    // Input-driven: the same tool is serial for some inputs.
    assert!(!tool.is_concurrency_safe_json(&json!({"text": "serial"})));
}

#[test]
fn input_parsed_by_another_tool_is_treated_fail_closed() {
    let custom = build_tool(Custom);
    let other = build_tool(Minimal);
    let foreign = other.parse(json!({"text": "x"})).unwrap();
    // Same input type, different tool: still a ParsedInput of `MinimalInput`, so it downcasts.
    assert!(custom.is_read_only(&foreign));
    let unrelated = agent_tools_core::ParsedInput::new(5u8, json!({}));
    assert!(!custom.is_read_only(&unrelated));
    assert!(!custom.is_concurrency_safe(&unrelated));
    assert!(custom.is_destructive(&unrelated));
}

#[test]
fn strict_parsing_names_the_field_and_what_was_expected() {
    let tool = build_tool(Minimal);
    let error = tool.parse(json!({"text": "a", "bogus": 1})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Minimal failed due to the following issue:\nAn unexpected parameter `bogus` was provided"
    );
    let error = tool.parse(json!({"text": 5})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Minimal failed due to the following issue:\nThe parameter `text` type is expected as `string` but provided as `number`"
    );
    let error = tool.parse(json!({})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Minimal failed due to the following issue:\nThe required parameter `text` is missing"
    );
    // A streamed input arrives as a JSON string and is parsed.
    assert!(tool.parse(json!("{\"text\": \"a\"}")).is_ok());
}

#[test]
fn the_schema_is_built_once_and_is_strict() {
    let tool = build_tool(Minimal);
    let first: *const Value = tool.input_schema();
    let second: *const Value = tool.input_schema();
    assert_eq!(first, second, "the schema must be cached");
    assert_eq!(
        tool.input_schema(),
        &json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Some text."}},
            "required": ["text"],
            "additionalProperties": false
        })
    );
}

#[test]
fn tools_are_found_by_name_or_alias() {
    let tools: Vec<Arc<dyn Tool>> = vec![build_tool(Minimal), build_tool(Custom)];
    assert!(tool_matches_name(tools[1].as_ref(), "OldCustom"));
    assert!(!tool_matches_name(tools[0].as_ref(), "OldCustom"));
    assert_eq!(find_tool_by_name(&tools, "OldCustom").map(|t| t.name()), Some("Custom"));
    assert_eq!(find_tool_by_name(&tools, "Minimal").map(|t| t.name()), Some("Minimal"));
    assert!(find_tool_by_name(&tools, "minimal").is_none());
}

#[tokio::test]
async fn call_tool_gives_claude_codes_envelopes() {
    let minimal = build_tool(Minimal);
    let custom = build_tool(Custom);
    let ok = call_tool(minimal.as_ref(), "toolu_1", json!({"text": "hello"}), &ctx()).await;
    assert_eq!(serde_json::to_value(&ok.block).unwrap(), json!({"tool_use_id": "toolu_1", "content": "hello"}));
    assert_eq!(ok.data.map(|d| d.to_json()), Some(json!("hello")));

    let parse = call_tool(minimal.as_ref(), "toolu_2", json!({"text": "a", "bogus": 1}), &ctx()).await;
    assert!(parse.block.is_error);
    assert_eq!(
        parse.block.content.text(),
        "<tool_use_error>InputValidationError: Minimal failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>"
    );

    let invalid = call_tool(custom.as_ref(), "toolu_3", json!({"text": ""}), &ctx()).await;
    assert_eq!(invalid.block.content.text(), "<tool_use_error>text must not be empty</tool_use_error>");
    assert!(invalid.block.is_error);

    let failed = call_tool(minimal.as_ref(), "toolu_4", json!({"text": "fail"}), &ctx()).await;
    assert_eq!(failed.block.content.text(), "it failed");
    assert!(failed.block.is_error);

    let empty = call_tool(custom.as_ref(), "toolu_5", json!({"text": "x"}), &ctx()).await;
    assert_eq!(empty.block.content.text(), "(Custom completed with no output)");
    assert!(!empty.block.is_error);
}

/// A tool whose flags promise read-only for every input, but whose per-input answer says
/// otherwise: the flags win, and debug builds (every test) catch the contradiction.
struct Contradicts;

impl ToolDef for Contradicts {
    type Input = MinimalInput;
    type Output = String;
    const NAME: &'static str = "Contradicts";

    fn summary(&self, _input: &MinimalInput) -> String {
        String::new()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        String::new()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(10)
    }

    fn flags(&self) -> ToolFlags {
        ToolFlags::LOCAL_READ_ONLY
    }

    fn is_read_only(&self, _input: &MinimalInput) -> bool {
        false
    }

    async fn call(&self, input: MinimalInput, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(input.text))
    }

    fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.clone())
    }
}

#[test]
#[should_panic(expected = "says read-only for every input but not for this one")]
fn a_per_input_answer_that_contradicts_the_flags_is_caught() {
    let tool = build_tool(Contradicts);
    let parsed = tool.parse(json!({"text": "hi"})).unwrap();
    let _ = tool.is_read_only(&parsed);
}

#[test]
fn names_are_checked_for_duplicates_at_compile_time() {
    // Usable in a `const` assertion, as the host's pool uses it …
    const _: () = assert!(agent_tools_core::names_are_distinct(&["Read", "Grep", "Glob"]));
    // … and answering the same at run time.
    let names = ["Read".to_owned(), "Grep".to_owned(), "Read".to_owned()];
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(!agent_tools_core::names_are_distinct(&names));
    assert!(agent_tools_core::names_are_distinct(&names[..2]));
    assert!(agent_tools_core::names_are_distinct(&[]));
}
