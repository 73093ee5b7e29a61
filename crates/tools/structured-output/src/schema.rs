//! The session's output schema, compiled once, and the check of an answer against it.
//!
//! - The schema must be a JSON object describing a JSON object: the Messages API requires a
//!   tool's `input_schema` to have `"type": "object"`, and Claude Code only offers this tool for
//!   such schemas. A schema without `type` gets `"type": "object"` added (it then reports and
//!   checks that); any other `type` is a [`SchemaError::NotAnObjectType`].
//! - It is compiled with the `jsonschema` crate (the draft its `$schema` names, else 2020-12),
//!   which also checks it against its meta-schema. No files or URLs are fetched: a `$ref` to
//!   another document is a [`SchemaError::Invalid`].
//! - `format` is asserted (`"format": "email"` refuses a string that is not an e-mail address):
//!   whoever asked for structured output asked for that shape.
//! - A mismatch is reported as `<path>: <message>`: the path is the JSON pointer of the value
//!   that does not fit (`/age`, `/items/0/name`), with the whole answer shown as `/`; the message
//!   is the `jsonschema` crate's (`"x" is not of type "integer"`, `"name" is a required
//!   property`), the offending value quoted short.

use std::fmt;
use std::panic::AssertUnwindSafe;

use agent_tools_core::quote::quote;
use agent_tools_core::type_phrase;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Most mismatches listed for one answer.
pub const MAX_MISMATCHES: usize = 20;

/// Most characters of one mismatch's message (an `enum` or a `not` schema can be long).
const MAX_MESSAGE_CHARS: usize = 500;

/// Why a schema cannot be the tool's input schema. Its `Display` is a sentence for the person
/// who passed the schema (the CLI shows it for `--json-schema`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaError {
    /// The schema is not a JSON object (a boolean schema, a string, an array …).
    NotAnObject {
        /// What it is instead (`a boolean`, `an array` …).
        found: &'static str,
    },
    /// The schema's `type` is not `"object"`.
    NotAnObjectType {
        /// The `type` it has, as JSON.
        found: String,
    },
    /// The `jsonschema` crate refused it: not valid for its draft, a `$ref` that cannot be
    /// resolved, a `pattern` the regex engine rejects.
    Invalid {
        /// The crate's message.
        message: String,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnObject { found } => {
                write!(f, "The output schema must be a JSON object (a JSON Schema for an object), not {found}")
            }
            Self::NotAnObjectType { found } => write!(
                f,
                "The output schema must describe a JSON object (\"type\": \"object\"), but its type is {}",
                quote(found)
            ),
            Self::Invalid { message } => write!(f, "The output schema is not a valid JSON Schema: {}", quote(message)),
        }
    }
}

impl std::error::Error for SchemaError {}

/// One way an answer does not fit the schema. `Display`: `<path>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The JSON pointer of the value that does not fit (`/age`); `/` for the whole answer.
    pub path: String,
    /// What is wrong (the `jsonschema` crate's message, values quoted short).
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A schema ready to check answers: the JSON the tool reports as its input schema, and its
/// compiled validator.
pub struct OutputSchema {
    schema: Value,
    validator: Validator,
}

impl fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSchema").field("schema", &self.schema).finish_non_exhaustive()
    }
}

impl OutputSchema {
    /// Checks and compiles `schema` (see the module docs for what is accepted).
    ///
    /// # Errors
    /// [`SchemaError`]: not an object, a `type` other than `"object"`, or not a schema the
    /// `jsonschema` crate compiles.
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        let Value::Object(mut map) = schema else {
            return Err(SchemaError::NotAnObject { found: type_phrase(&schema) });
        };
        match map.get("type") {
            None => {
                map.insert("type".to_owned(), Value::String("object".to_owned()));
            }
            Some(Value::String(kind)) if kind == "object" => {}
            Some(other) => return Err(SchemaError::NotAnObjectType { found: other.to_string() }),
        }
        let schema = Value::Object(map);
        let built = std::panic::catch_unwind(AssertUnwindSafe(|| {
            jsonschema::options().should_validate_formats(true).build(&schema)
        }));
        let validator = match built {
            Ok(Ok(validator)) => validator,
            Ok(Err(error)) => return Err(SchemaError::Invalid { message: error.to_string() }),
            Err(_) => return Err(SchemaError::Invalid { message: "the schema compiler failed".to_owned() }),
        };
        Ok(Self { schema, validator })
    }

    /// The schema as reported to the model (with `"type": "object"` added when it was absent).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The mismatches of `answer` (empty: it fits), at most [`MAX_MISMATCHES`], and whether
    /// there were more. Never panics: a failure inside the validator is reported as one
    /// mismatch at `/`, so an answer is never accepted unchecked.
    pub fn check(&self, answer: &Value) -> (Vec<Mismatch>, bool) {
        let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut mismatches = Vec::new();
            let mut more = false;
            for error in self.validator.iter_errors(answer) {
                if mismatches.len() == MAX_MISMATCHES {
                    more = true;
                    break;
                }
                mismatches.push(mismatch(&error));
            }
            (mismatches, more)
        }));
        checked.unwrap_or_else(|_| {
            tracing::warn!("the output schema validator failed");
            (vec![Mismatch { path: "/".to_owned(), message: "the schema check failed".to_owned() }], false)
        })
    }
}

fn mismatch(error: &ValidationError<'_>) -> Mismatch {
    let pointer = error.instance_path().as_str();
    let path = if pointer.is_empty() { "/".to_owned() } else { quote(pointer).into_owned() };
    let value = quote(&error.instance().to_string()).into_owned();
    Mismatch { path, message: cut(&error.masked_with(value).to_string(), MAX_MESSAGE_CHARS) }
}

/// `text` cut to `max` characters, with `…` when something was left out.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(schema: Value, answer: Value) -> Vec<String> {
        let schema = OutputSchema::new(schema).map_err(|e| e.to_string());
        schema.map(|schema| schema.check(&answer).0.iter().map(ToString::to_string).collect()).unwrap_or_default()
    }

    #[test]
    fn a_missing_type_becomes_object() {
        let schema = OutputSchema::new(json!({"properties": {"a": {"type": "string"}}})).ok();
        assert_eq!(
            schema.map(|s| s.schema().clone()),
            Some(json!({"type": "object", "properties": {"a": {"type": "string"}}}))
        );
    }

    #[test]
    fn paths_are_json_pointers_and_the_root_is_a_slash() {
        let schema = json!({"type": "object", "required": ["name"],
            "properties": {"items": {"type": "array", "items": {"type": "object",
                "properties": {"n": {"type": "integer"}}}}}});
        assert_eq!(
            listed(schema, json!({"items": [{"n": 1}, {"n": "two"}]})),
            ["/: \"name\" is a required property", "/items/1/n: \"two\" is not of type \"integer\""]
        );
    }

    #[test]
    fn long_values_are_quoted_short_and_the_list_is_capped() {
        let long = "x".repeat(1_000);
        let shown = listed(json!({"properties": {"a": {"type": "integer"}}}), json!({"a": long}));
        assert_eq!(shown, [format!("/a: \"{}… (1002 characters) is not of type \"integer\"", "x".repeat(199))]);
        let properties: serde_json::Map<String, Value> =
            (0..30).map(|i| (format!("k{i:02}"), json!({"type": "string"}))).collect();
        let answer: serde_json::Map<String, Value> = (0..30).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let schema = OutputSchema::new(json!({"type": "object", "properties": properties})).ok();
        let (mismatches, more) = schema.map(|s| s.check(&Value::Object(answer))).unwrap_or_default();
        assert_eq!((mismatches.len(), more), (MAX_MISMATCHES, true));
    }

    #[test]
    fn formats_are_asserted() {
        let schema = json!({"properties": {"mail": {"type": "string", "format": "email"}}});
        assert_eq!(listed(schema.clone(), json!({"mail": "ada@example.com"})), Vec::<String>::new());
        assert_eq!(listed(schema, json!({"mail": "not a mail"})), ["/mail: \"not a mail\" is not a \"email\""]);
    }
}
