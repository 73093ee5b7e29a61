//! StructuredOutput's input: any JSON object (the session's schema decides what fits).

use agent_tools_core::InputError;
use agent_tools_core::{InputIssue, type_phrase};
use serde_json::{Map, Value};

/// The input: the final answer, a JSON object. Its shape is checked against the session's
/// schema when the tool is called, not when the input is parsed, so that a mismatch comes back
/// as one tool error listing every problem (Claude Code checks it in `call` too).
pub type StructuredOutputInput = Map<String, Value>;

/// Accepts any JSON object; anything else (an array, a string that is not a JSON object, a
/// number …) is an [`InputError::Invalid`] saying an object is needed. The executor has already
/// turned a JSON text of an object into the object.
pub(crate) fn parse(tool: &str, json: &Value) -> Result<StructuredOutputInput, InputError> {
    match json {
        Value::Object(map) => Ok(map.clone()),
        other => Err(InputError::Invalid {
            tool: tool.to_owned(),
            issues: vec![InputIssue::Invalid {
                path: String::new(),
                message: format!("The input must be a JSON object, not {}", type_phrase(other)),
            }],
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_objects_are_accepted() {
        assert_eq!(parse("StructuredOutput", &json!({"a": 1})).ok(), json!({"a": 1}).as_object().cloned());
        let error = parse("StructuredOutput", &json!([1, 2])).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            error,
            "StructuredOutput failed due to the following issue:\nThe input must be a JSON object, not an array"
        );
    }
}
