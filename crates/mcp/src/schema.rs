//! Checking a call's input against the server's `inputSchema` before it is sent (the
//! `jsonschema` crate), so that a wrong or missing field is refused with a clear message instead
//! of reaching the server — and, for a deferred tool the model has not loaded yet, with the
//! executor's ToolSearch `select:` hint (anthropics/claude-code#34974, #60052).
//!
//! - The validator is compiled once per tool, on its first call ([`InputValidator`]).
//! - A schema that does not compile (invalid for its draft, a `$ref` to another document — no
//!   file or network lookups are made —, a pattern the regex engine rejects) turns validation off
//!   for that tool, with one warning in the log: the input's shape is then the server's to check,
//!   as it is in Claude Code, which sends MCP inputs unchecked. Permissions never depend on this.
//! - `format` is not asserted (an annotation in JSON Schema 2020-12): the server decides what it
//!   accepts as a `uri` or an `email`.
//! - Each problem becomes an [`InputIssue`] with a dotted/indexed path (`items[0].name`), like
//!   the built-in tools' errors; values (and long paths) are quoted with
//!   [`agent_tools_core::quote::quote`]: at most 200 characters, control characters escaped.

use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;

use agent_tools_core::quote::quote;
use agent_tools_core::{InputIssue, join_path, type_name};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Most problems reported for one input.
const MAX_ISSUES: usize = 20;

/// A tool's `inputSchema`, compiled on first use.
#[derive(Default)]
pub struct InputValidator {
    compiled: OnceLock<Option<Validator>>,
}

impl std::fmt::Debug for InputValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.compiled.get() {
            None => "not compiled",
            Some(Some(_)) => "compiled",
            Some(None) => "off (the schema does not compile)",
        };
        f.debug_tuple("InputValidator").field(&state).finish()
    }
}

impl InputValidator {
    /// A validator that compiles `schema` when [`InputValidator::check`] first runs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether validation is on: the schema compiled (compiling it now if need be). `tool` names
    /// the tool in the warning logged when it does not.
    pub fn is_active(&self, tool: &str, schema: &Value) -> bool {
        self.validator(tool, schema).is_some()
    }

    fn validator(&self, tool: &str, schema: &Value) -> Option<&Validator> {
        self.compiled.get_or_init(|| compile(tool, schema)).as_ref()
    }

    /// The problems of `input` against `schema` (empty: valid, or validation is off). Never
    /// panics: a failure inside the validator is logged and counts as no problem.
    pub fn check(&self, tool: &str, schema: &Value, input: &Value) -> Vec<InputIssue> {
        let Some(validator) = self.validator(tool, schema) else { return Vec::new() };
        let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut issues = Vec::new();
            for error in validator.iter_errors(input) {
                push_issues(&error, &mut issues);
                if issues.len() >= MAX_ISSUES {
                    break;
                }
            }
            issues
        }));
        let mut issues = checked.unwrap_or_else(|_| {
            tracing::warn!(tool, "the input schema validator failed; the input is sent unchecked");
            Vec::new()
        });
        if !issues.is_empty() {
            undeclared_keys(schema, input, &mut issues);
        }
        issues.truncate(MAX_ISSUES);
        issues
    }
}

fn compile(tool: &str, schema: &Value) -> Option<Validator> {
    let built = std::panic::catch_unwind(|| jsonschema::options().should_validate_formats(false).build(schema));
    match built {
        Ok(Ok(validator)) => Some(validator),
        Ok(Err(error)) => {
            tracing::warn!(tool, error = %quote(&error.to_string()),
                "the server's input schema does not compile; inputs of this tool are sent unchecked");
            None
        }
        Err(_) => {
            tracing::warn!(tool, "compiling the server's input schema failed; inputs of this tool are sent unchecked");
            None
        }
    }
}

/// Most characters of one problem's message, the quoted value included (an enum's values or a
/// `not` schema come from the server and can be long).
const MAX_MESSAGE_CHARS: usize = 500;

/// `text` cut to `max` characters, with `…` when something was left out.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// A JSON pointer location as a dotted/indexed path (`items[0].name`; the issue's `Display`
/// quotes it).
fn dotted<'a>(segments: impl Iterator<Item = LocationSegment<'a>>) -> String {
    let mut path = String::new();
    for segment in segments {
        match segment {
            LocationSegment::Property(key) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
            }
            LocationSegment::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

fn push_issues(error: &ValidationError<'_>, issues: &mut Vec<InputIssue>) {
    let path = dotted(error.instance_path().segments());
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let property = property.as_str().map_or_else(|| property.to_string(), str::to_owned);
            issues.push(InputIssue::Missing { path: join_path(&path, &property) });
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            issues.extend(unexpected.iter().map(|key| InputIssue::Unexpected { path: join_path(&path, key) }));
        }
        ValidationErrorKind::Type { kind } if !path.is_empty() => {
            let expected = match kind {
                TypeKind::Single(single) => single.to_string(),
                TypeKind::Multiple(many) => many.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or "),
            };
            issues.push(InputIssue::WrongType { path, expected, received: type_name(error.instance()).to_owned() });
        }
        _ => {
            // The value quoted short; the whole message (an enum's values, a `not` schema) cut.
            let value = quote(&error.instance().to_string()).into_owned();
            let message = cut(&error.masked_with(value).to_string(), MAX_MESSAGE_CHARS);
            let message = if path.is_empty() { message } else { format!("is invalid: {message}") };
            issues.push(InputIssue::Invalid { path, message });
        }
    }
}

/// When the input is refused anyway, names its top-level keys the schema does not declare (a
/// misspelt `txt` beside a missing `text`), unless the schema already refused them or accepts
/// undeclared keys on purpose (`additionalProperties` or `patternProperties` with a schema).
fn undeclared_keys(schema: &Value, input: &Value, issues: &mut Vec<InputIssue>) {
    let (Some(properties), Some(input)) = (schema.get("properties").and_then(Value::as_object), input.as_object())
    else {
        return;
    };
    let open_on_purpose = schema.get("patternProperties").is_some()
        || schema.get("additionalProperties").is_some_and(|extra| extra != &Value::Bool(true));
    if properties.is_empty() || open_on_purpose {
        return;
    }
    for key in input.keys().filter(|key| !properties.contains_key(*key)) {
        let issue = InputIssue::Unexpected { path: key.clone() };
        if !issues.contains(&issue) {
            issues.push(issue);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Value, input: Value) -> Vec<String> {
        InputValidator::new().check("t", &schema, &input).iter().map(ToString::to_string).collect()
    }

    /// The test server's `args` schema: `text` (string, required), `count` (integer).
    fn echo_schema() -> Value {
        json!({"type": "object",
               "properties": {"text": {"type": "string"}, "count": {"type": "integer"}},
               "required": ["text"]})
    }

    #[test]
    fn a_wrong_field_names_the_missing_and_the_undeclared_one() {
        assert_eq!(
            check(echo_schema(), json!({"txt": "wrong field"})),
            ["The required parameter `text` is missing", "An unexpected parameter `txt` was provided"]
        );
        assert_eq!(check(echo_schema(), json!({"text": "hi", "count": 2})), Vec::<String>::new());
        // Undeclared keys alone are the server's business (no additionalProperties: false).
        assert_eq!(check(echo_schema(), json!({"text": "hi", "extra": 1})), Vec::<String>::new());
    }

    #[test]
    fn types_nested_paths_and_other_keywords() {
        assert_eq!(
            check(echo_schema(), json!({"text": "hi", "count": "2"})),
            ["The parameter `count` type is expected as `integer` but provided as `string`"]
        );
        let schema = json!({"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "object",
                "properties": {"name": {"type": "string"}, "mode": {"enum": ["a", "b"]}},
                "required": ["name"], "additionalProperties": false}},
            "level": {"type": "integer", "minimum": 1}}});
        assert_eq!(
            check(schema, json!({"items": [{"name": 3, "mode": "c", "x": true}, {}], "level": 0})),
            [
                "The parameter `items[0].name` type is expected as `string` but provided as `number`",
                "The parameter `items[0].mode` is invalid: \"c\" is not one of \"a\" or \"b\"",
                "An unexpected parameter `items[0].x` was provided",
                "The required parameter `items[1].name` is missing",
                "The parameter `level` is invalid: 0 is less than the minimum of 1",
            ]
        );
    }

    #[test]
    fn long_values_are_quoted_short() {
        let schema = json!({"type": "object", "properties": {"code": {"type": "string", "maxLength": 3}}});
        let issues = check(schema, json!({"code": "x".repeat(5000)}));
        assert_eq!(issues.len(), 1);
        assert_eq!(
            issues[0],
            format!(
                "The parameter `code` is invalid: \"{}… (5002 characters) is longer than 3 characters",
                "x".repeat(199)
            )
        );
    }

    #[test]
    fn long_schema_text_in_a_message_is_cut() {
        let options: Vec<String> = (0..500).map(|i| format!("option-{i}")).collect();
        let schema = json!({"type": "object", "properties": {"mode": {"enum": options}}});
        assert_eq!(
            check(schema, json!({"mode": "nope"})),
            [
                "The parameter `mode` is invalid: \"nope\" is not one of \"option-0\", \"option-1\" or 498 other candidates"
            ]
        );
        let schema = json!({"type": "object", "properties": {"mode": {"not": {"const": "y".repeat(2000)}}}});
        let issues = check(schema, json!({"mode": "y".repeat(2000)}));
        assert_eq!(issues.len(), 1);
        assert!(issues[0].starts_with("The parameter `mode` is invalid: {\"const\":\"yyy"), "{}", issues[0]);
        assert_eq!(issues[0].chars().count(), "The parameter `mode` is invalid: ".len() + MAX_MESSAGE_CHARS + 1);
        assert!(issues[0].ends_with('…'));
    }

    #[test]
    fn a_schema_that_does_not_compile_turns_validation_off() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/other.json"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}),
            json!({"type": 7}),
        ] {
            let validator = InputValidator::new();
            assert!(!validator.is_active("t", &schema), "{schema}");
            assert_eq!(validator.check("t", &schema, &json!({"a": 1})), [], "{schema}");
        }
        // A schema that is not even an object compiles as JSON Schema allows (`true` accepts all).
        assert_eq!(check(json!(true), json!({"a": 1})), Vec::<String>::new());
    }

    #[test]
    fn formats_are_not_asserted() {
        let schema = json!({"type": "object", "properties": {"to": {"type": "string", "format": "email"}}});
        assert_eq!(check(schema, json!({"to": "not an address"})), Vec::<String>::new());
    }

    #[test]
    fn the_number_of_problems_is_bounded() {
        let properties: serde_json::Map<String, Value> =
            (0..100).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        let required: Vec<String> = (0..100).map(|i| format!("p{i}")).collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        assert_eq!(check(schema, json!({})).len(), MAX_ISSUES);
    }
}
