//! Strict parsing of model input: [`ParsedInput`], [`InputError`] and the lenient field
//! deserializers in [`semantic`].
//!
//! Mirrors Claude Code's `z.strictObject(...).safeParse` and `formatZodValidationError`: unknown
//! fields are rejected, and a failure lists every problem found, one per line — a missing required
//! parameter, an unexpected parameter, or a type mismatch ("expected `string` but provided as
//! `number`") — with dotted/indexed paths such as `todos[0].activeForm`.

use std::any::Any;
use std::fmt;

use crate::quote::quote;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Input that has passed the tool's strict parse: the typed value (opaque here) and the JSON it
/// came from.
///
/// Produced only by [`crate::Tool::parse`]; every input-driven method of the erased
/// [`crate::Tool`] takes it, so no tool parses JSON twice and no method sees untrusted input.
pub struct ParsedInput {
    typed: Box<dyn Any + Send + Sync>,
    json: Value,
}

impl fmt::Debug for ParsedInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedInput").field("json", &self.json).finish_non_exhaustive()
    }
}

impl ParsedInput {
    /// Wraps a typed value and its JSON.
    pub fn new<T: Any + Send + Sync>(typed: T, json: Value) -> Self {
        Self { typed: Box::new(typed), json }
    }

    /// The JSON the input was parsed from (after string-to-object normalisation).
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The typed value, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.typed.downcast_ref()
    }

    /// Takes the typed value out, if it is a `T`.
    pub fn into_typed<T: Any>(self) -> Option<T> {
        self.typed.downcast::<T>().ok().map(|boxed| *boxed)
    }
}

/// One problem with an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputIssue {
    /// A required parameter is absent.
    Missing {
        /// Dotted/indexed path, e.g. `todos[0].activeForm`.
        path: String,
    },
    /// A parameter the schema does not have.
    Unexpected {
        /// Dotted/indexed path of the unknown key.
        path: String,
    },
    /// A parameter of the wrong JSON type.
    WrongType {
        /// Path of the parameter.
        path: String,
        /// The schema's type (`string`, `number`, `integer`, `boolean`, `array`, `object`).
        expected: String,
        /// The JSON type sent.
        received: String,
    },
    /// Any other problem (bad enum value, out of range …), with a message.
    Invalid {
        /// Path of the parameter (empty for the whole input).
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for InputIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { path } => write!(f, "The required parameter `{}` is missing", quote(path)),
            Self::Unexpected { path } => write!(f, "An unexpected parameter `{}` was provided", quote(path)),
            Self::WrongType { path, expected, received } => write!(
                f,
                "The parameter `{}` type is expected as `{expected}` but provided as `{received}`",
                quote(path)
            ),
            Self::Invalid { path, message } if path.is_empty() => f.write_str(message),
            Self::Invalid { path, message } => write!(f, "The parameter `{}` {message}", quote(path)),
        }
    }
}

/// Why an input was refused. Its `Display` is the text after `InputValidationError: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The input was a string that is not a JSON object (a broken streamed input).
    #[error(
        "{tool} was called with input that is not valid JSON.\nReceived (first {shown} of {total} bytes): {head}\nThis usually means an unescaped backslash or control character, or output that was cut off. Send the call again with a JSON object."
    )]
    NotJson {
        /// The tool's name.
        tool: String,
        /// The start of what was sent.
        head: String,
        /// Bytes shown.
        shown: usize,
        /// Bytes sent.
        total: usize,
    },
    /// The input does not match the schema.
    #[error("{tool} failed due to the following {}:\n{}", if issues.len() == 1 { "issue" } else { "issues" }, join_issues(issues))]
    Invalid {
        /// The tool's name.
        tool: String,
        /// Every problem found, in schema order, unknown keys last.
        issues: Vec<InputIssue>,
    },
}

fn join_issues(issues: &[InputIssue]) -> String {
    issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

/// Most bytes of a non-JSON input quoted back in [`InputError::NotJson`].
const NOT_JSON_HEAD_BYTES: usize = 200;

/// Turns a `tool_use` input into the JSON object to parse: an object is used as is; a string is
/// parsed as JSON (streamed inputs arrive as strings); anything else is returned unchanged for the
/// schema check to report.
pub(crate) fn normalize_input(tool: &str, input: Value) -> Result<Value, InputError> {
    match input {
        Value::String(raw) => match serde_json::from_str::<Value>(&raw) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => {
                let mut end = raw.len().min(NOT_JSON_HEAD_BYTES);
                while !raw.is_char_boundary(end) {
                    end -= 1;
                }
                Err(InputError::NotJson {
                    tool: tool.to_owned(),
                    head: raw[..end].to_owned(),
                    shown: end,
                    total: raw.len(),
                })
            }
        },
        other => Ok(other),
    }
}

/// Parses `value` strictly into `T` against the tool's JSON Schema.
///
/// The input is first checked against the schema, centrally, whatever `T`'s serde attributes say:
/// every problem is listed (missing, unexpected, wrong type, bad enum value, out of range), unknown
/// keys are rejected on the root object and on every object whose schema closes it. Only then does
/// serde build `T`; if it still fails, serde's message is used with the path where it failed.
pub fn parse_strict<T: DeserializeOwned>(tool: &str, schema: &Value, value: &Value) -> Result<T, InputError> {
    let mut issues = Vec::new();
    check_value(schema, schema, value, "", &mut issues, 0);
    if issues.is_empty() {
        if let Ok(parsed) = T::deserialize(value) {
            return Ok(parsed);
        }
        let (path, message) = match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(parsed) => return Ok(parsed),
            Err(error) => {
                let path = error.path().to_string();
                // serde's messages can hold the value itself (`invalid type: string "…"`).
                (path, quote(&clean_serde_message(&error.into_inner().to_string())).into_owned())
            }
        };
        let path = if path == "." { String::new() } else { path };
        issues.push(InputIssue::Invalid {
            message: if path.is_empty() { message } else { format!("is invalid: {message}") },
            path,
        });
    }
    Err(InputError::Invalid { tool: tool.to_owned(), issues })
}

fn clean_serde_message(message: &str) -> String {
    // serde_json appends " at line L column C" only for text input; for Value input it does not,
    // but be safe.
    match message.find(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

/// Deepest nesting the schema walk follows (guards against recursive `$ref`s).
const MAX_DEPTH: usize = 32;

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..MAX_DEPTH {
        match current.get("$ref").and_then(Value::as_str) {
            Some(reference) => match reference.strip_prefix('#').and_then(|pointer| root.pointer(pointer)) {
                Some(target) => current = target,
                None => return current,
            },
            None => return current,
        }
    }
    current
}

/// The path of `key` inside the object at `path`, as messages name parameters: `key` at the
/// root, `path.key` below it (`todos[0].status`).
pub fn join_path(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// The JSON type name of a value, as Claude Code reports it: `null`, `boolean`, `number`,
/// `string`, `array` or `object`.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The JSON type of a value for a sentence: `null`, `a boolean`, `a number`, `a string`,
/// `an array` or `an object`.
pub fn type_phrase(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn matches_type(expected: &str, value: &Value) -> bool {
    match (expected, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(number)) => {
            number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        // The lenient forms `semantic` accepts: numeric strings and "true"/"false".
        ("number", Value::String(text)) => text.trim().parse::<f64>().is_ok_and(f64::is_finite),
        ("integer", Value::String(text)) => text.trim().parse::<i64>().is_ok(),
        ("boolean", Value::String(text)) => matches!(text.as_str(), "true" | "false"),
        _ => false,
    }
}

fn expected_types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(single) => Some(vec![single.as_str()]),
        Value::Array(many) => Some(many.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn check_value(root: &Value, schema: &Value, value: &Value, path: &str, issues: &mut Vec<InputIssue>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(root, schema);
    if let Some(types) = expected_types(schema)
        && !types.iter().any(|expected| matches_type(expected, value))
    {
        let expected = types.iter().find(|t| **t != "null").copied().unwrap_or("null");
        if path.is_empty() {
            issues.push(InputIssue::Invalid {
                path: String::new(),
                message: format!("The input must be a JSON {expected}, but it was provided as `{}`", type_name(value)),
            });
        } else {
            issues.push(InputIssue::WrongType {
                path: path.to_owned(),
                expected: expected.to_owned(),
                received: type_name(value).to_owned(),
            });
        }
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(|v| format!("`{}`", display_scalar(v))).collect();
        issues.push(InputIssue::Invalid {
            path: path.to_owned(),
            message: format!("has the invalid value `{}`; expected one of {}", display_scalar(value), list.join(", ")),
        });
        return;
    }
    if let Some(number) = numeric_value(value) {
        check_bounds(schema, number, path, issues);
    }
    match value {
        Value::Object(map) => check_object(root, schema, map, path, issues, depth),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    check_value(root, item_schema, item, &format!("{path}[{index}]"), issues, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn numeric_value(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn check_bounds(schema: &Value, number: f64, path: &str, issues: &mut Vec<InputIssue>) {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let problem = if let Some(min) = bound("minimum").filter(|min| number < *min) {
        Some(format!("must be at least {}", display_number(min)))
    } else if let Some(min) = bound("exclusiveMinimum").filter(|min| number <= *min) {
        Some(format!("must be greater than {}", display_number(min)))
    } else if let Some(max) = bound("maximum").filter(|max| number > *max) {
        Some(format!("must be at most {}", display_number(max)))
    } else {
        bound("exclusiveMaximum")
            .filter(|max| number >= *max)
            .map(|max| format!("must be less than {}", display_number(max)))
    };
    if let Some(problem) = problem {
        issues.push(InputIssue::Invalid {
            path: path.to_owned(),
            message: format!("{problem}, but it is {}", display_number(number)),
        });
    }
}

fn display_number(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e15 { format!("{number:.0}") } else { number.to_string() }
}

/// A scalar as a message shows it (a string without its JSON quotes), quoted briefly.
fn display_scalar(value: &Value) -> String {
    match value {
        Value::String(text) => quote(text).into_owned(),
        other => quote(&other.to_string()).into_owned(),
    }
}

fn check_object(
    root: &Value,
    schema: &Value,
    map: &Map<String, Value>,
    path: &str,
    issues: &mut Vec<InputIssue>,
    depth: usize,
) {
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (key, child_schema) in properties {
        match map.get(key) {
            // A JSON null for an optional field means "absent" to serde's Option.
            Some(Value::Null) if !required.contains(&key.as_str()) => {}
            Some(child) => check_value(root, child_schema, child, &join_path(path, key), issues, depth + 1),
            None if required.contains(&key.as_str()) => issues.push(InputIssue::Missing { path: join_path(path, key) }),
            None => {}
        }
    }
    // The root object is always closed (unknown keys are refused whatever the serde attributes
    // say), unless its schema lists no properties at all and does not close itself (a free-form
    // input); an object that closes itself is closed even with no properties (`{}` inputs such as
    // EnterPlanMode's), as zod's `strictObject({})` is.
    let explicitly_closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    if explicitly_closed || (depth == 0 && !properties.is_empty()) {
        for key in map.keys().filter(|key| !properties.contains_key(*key)) {
            issues.push(InputIssue::Unexpected { path: join_path(path, key) });
        }
    }
}

/// Lenient deserializers for fields where Claude Code accepts a number or boolean sent as a
/// string (its `semanticNumber` / `semanticBoolean`): `"30"` for 30, `"true"` for true.
///
/// Use with `#[serde(default, deserialize_with = "semantic::…")]`; the JSON Schema keeps the plain
/// number/boolean type.
pub mod semantic {
    use serde::Deserialize;
    use serde::de::{self, Deserializer};
    use serde_json::Value;

    fn number_from(value: Value) -> Result<Option<f64>, String> {
        match value {
            Value::Null => Ok(None),
            Value::Number(number) => number.as_f64().map(Some).ok_or_else(|| "a number".to_owned()),
            Value::String(text) => match text.trim().parse::<f64>() {
                Ok(number) if number.is_finite() => Ok(Some(number)),
                _ => Err(format!("a number, not the string {text:?}")),
            },
            other => Err(format!("a number, not {other}")),
        }
    }

    /// `Option<u64>` from a non-negative integer or an integer string.
    pub fn opt_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match number_from(value).map_err(|want| de::Error::custom(format!("expected {want}")))? {
            None => Ok(None),
            Some(number) if number >= 0.0 && number.fract() == 0.0 && number <= 9_007_199_254_740_991.0 => {
                // The bound above keeps the value exact and in range.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Ok(Some(number as u64))
            }
            Some(number) => Err(de::Error::custom(format!("expected a non-negative integer, got {number}"))),
        }
    }

    /// `Option<f64>` from a number or a numeric string.
    pub fn opt_f64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
        let value = Value::deserialize(deserializer)?;
        number_from(value).map_err(|want| de::Error::custom(format!("expected {want}")))
    }

    /// `Option<bool>` from a boolean or `"true"` / `"false"`.
    pub fn opt_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Null => Ok(None),
            Value::Bool(flag) => Ok(Some(flag)),
            Value::String(text) if text == "true" => Ok(Some(true)),
            Value::String(text) if text == "false" => Ok(Some(false)),
            other => Err(de::Error::custom(format!("expected a boolean, got {other}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Todo {
        content: String,
        #[serde(rename = "activeForm")]
        active_form: String,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Input {
        file_path: String,
        #[serde(default, deserialize_with = "semantic::opt_u64")]
        limit: Option<u64>,
        #[serde(default, deserialize_with = "semantic::opt_bool")]
        flag: Option<bool>,
        #[serde(default)]
        mode: Option<String>,
        #[serde(default)]
        todos: Vec<Todo>,
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "limit": {"type": "integer", "exclusiveMinimum": 0},
                "flag": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "todos": {"type": "array", "items": {"$ref": "#/$defs/Todo"}}
            },
            "required": ["file_path"],
            "additionalProperties": false,
            "$defs": {"Todo": {"type": "object", "properties": {
                "content": {"type": "string"}, "activeForm": {"type": "string"}},
                "required": ["content", "activeForm"], "additionalProperties": false}}
        })
    }

    fn error_text(value: Value) -> String {
        match parse_strict::<Input>("Read", &schema(), &value) {
            Ok(parsed) => format!("parsed: {parsed:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn accepts_valid_input_and_lenient_scalars() {
        let parsed: Input =
            parse_strict("Read", &schema(), &json!({"file_path": "a", "limit": "5", "flag": "true"})).unwrap();
        assert_eq!(parsed.limit, Some(5));
        assert_eq!(parsed.flag, Some(true));
    }

    #[test]
    fn unknown_fields_are_rejected_even_without_serde_deny() {
        assert_eq!(
            error_text(json!({"file_path": "a", "bogus": 1})),
            "Read failed due to the following issue:\nAn unexpected parameter `bogus` was provided"
        );
    }

    #[test]
    fn a_closed_object_without_fields_refuses_every_key() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Nothing {}
        let closed = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert!(parse_strict::<Nothing>("EnterPlanMode", &closed, &json!({})).is_ok());
        let error = parse_strict::<Nothing>("EnterPlanMode", &closed, &json!({"plan": "x"})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "EnterPlanMode failed due to the following issue:\nAn unexpected parameter `plan` was provided"
        );
        // A root schema that lists nothing and does not close itself stays free-form.
        let open = json!({"type": "object"});
        assert!(parse_strict::<Value>("Mcp", &open, &json!({"any": 1})).is_ok());
    }

    #[test]
    fn lists_every_issue_in_schema_order_unknown_last() {
        assert_eq!(
            error_text(json!({"uri": "x", "limit": true})),
            "Read failed due to the following issues:\n\
             The required parameter `file_path` is missing\n\
             The parameter `limit` type is expected as `integer` but provided as `boolean`\n\
             An unexpected parameter `uri` was provided"
        );
    }

    #[test]
    fn reports_wrong_types_bounds_and_enums() {
        assert_eq!(
            error_text(json!({"file_path": 5})),
            "Read failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `number`"
        );
        assert_eq!(
            error_text(json!({"file_path": "a", "limit": 0})),
            "Read failed due to the following issue:\nThe parameter `limit` must be greater than 0, but it is 0"
        );
        assert_eq!(
            error_text(json!({"file_path": "a", "mode": "c"})),
            "Read failed due to the following issue:\nThe parameter `mode` has the invalid value `c`; expected one of `a`, `b`"
        );
        assert_eq!(
            error_text(json!({"file_path": "a", "limit": "fast"})),
            "Read failed due to the following issue:\nThe parameter `limit` type is expected as `integer` but provided as `string`"
        );
    }

    #[test]
    fn nested_paths_are_dotted_and_indexed() {
        assert_eq!(
            error_text(
                json!({"file_path": "a", "todos": [{"content": "x", "activeForm": "y"}, {"content": "z", "extra": 1}]})
            ),
            "Read failed due to the following issues:\n\
             The required parameter `todos[1].activeForm` is missing\n\
             An unexpected parameter `todos[1].extra` was provided"
        );
    }

    #[test]
    fn a_non_object_input_is_named() {
        assert_eq!(
            error_text(json!([1])),
            "Read failed due to the following issue:\nThe input must be a JSON object, but it was provided as `array`"
        );
    }

    #[test]
    fn string_inputs_are_parsed_as_json_or_refused() {
        assert_eq!(normalize_input("Read", json!("{\"a\": 1}")).unwrap(), json!({"a": 1}));
        let error = normalize_input("Read", json!("not json")).unwrap_err();
        assert!(error.to_string().starts_with(
            "Read was called with input that is not valid JSON.\nReceived (first 8 of 8 bytes): not json\n"
        ));
    }

    #[test]
    fn parsed_input_downcasts_only_to_its_type() {
        let parsed = ParsedInput::new(7u32, json!({}));
        assert_eq!(parsed.downcast_ref::<u32>(), Some(&7));
        assert!(parsed.downcast_ref::<u64>().is_none());
        assert_eq!(parsed.into_typed::<u32>(), Some(7));
    }
}
