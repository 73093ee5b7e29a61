//! StructuredOutput's output and result texts. The exact strings live here.

use serde::Serialize;
use serde_json::Value;

use crate::schema::{MAX_MISMATCHES, Mismatch};

/// The result text of an accepted answer (Claude Code's text).
pub const SUCCESS: &str = "Structured output provided successfully";

/// What an accepted call produced: the answer, exactly as the model gave it. As JSON (the MCP
/// `structuredContent`): `{"structured_output": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredOutputData {
    /// The answer (Claude Code's `structured_output`, which it hands to the SDK caller).
    pub structured_output: Value,
}

/// The error text of a refused answer: a first line, then one `<path>: <message>` line per
/// mismatch, and a last line when more than [`MAX_MISMATCHES`] were found.
pub fn mismatches(list: &[Mismatch], more: bool) -> String {
    let mut text = String::from("Output does not match required schema:");
    for mismatch in list {
        text.push('\n');
        text.push_str(&mismatch.to_string());
    }
    if more {
        text.push_str(&format!("\n(only the first {MAX_MISMATCHES} mismatches are listed)"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mismatch_is_one_line() {
        let list = [
            Mismatch { path: "/age".into(), message: "\"x\" is not of type \"integer\"".into() },
            Mismatch { path: "/".into(), message: "\"name\" is a required property".into() },
        ];
        assert_eq!(
            mismatches(&list, false),
            "Output does not match required schema:\n/age: \"x\" is not of type \"integer\"\n/: \"name\" is a required property"
        );
        assert!(mismatches(&list[..1], true).ends_with("\n(only the first 20 mismatches are listed)"));
    }
}
