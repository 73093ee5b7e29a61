//! Tool calls a model wrote as text, for servers that pass them through unparsed (a chat
//! template without a tool-call parser: llama-cpp-python's, Ollama's raw mode, LM Studio's):
//! [`extract`].
//!
//! The forms read, in order:
//! - Hermes/Qwen tags: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, any number, the
//!   last one's closing tag optional (a model often stops right after the JSON);
//! - else a fenced code block (```` ```json ````) or the whole answer that is one such JSON call,
//!   or a JSON list of them.
//!
//! A call is a JSON object with a `name` that is one of the request's tools and `arguments` (an
//! object, or JSON text of one; Llama's `parameters` too). Anything else stays text.

use serde_json::{Map, Value};

/// A tool call read from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextCall {
    /// The tool's name.
    pub(crate) name: String,
    /// The arguments, as JSON text of an object.
    pub(crate) arguments: String,
}

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// The text without the calls written in it, and those calls (see the [module docs](self)).
/// `tools` are the names a call may have; an empty list allows any.
pub(crate) fn extract(text: &str, tools: &[String]) -> (String, Vec<TextCall>) {
    if text.contains(OPEN) {
        let (rest, calls) = tagged(text, tools);
        if !calls.is_empty() {
            return (rest, calls);
        }
    }
    if let Some(calls) = whole(text.trim(), tools) {
        return (String::new(), calls);
    }
    fenced(text, tools)
}

/// The `<tool_call>` blocks.
fn tagged(text: &str, tools: &[String]) -> (String, Vec<TextCall>) {
    let mut rest = String::new();
    let mut calls = Vec::new();
    let mut tail = text;
    while let Some(start) = tail.find(OPEN) {
        let after = &tail[start + OPEN.len()..];
        let (inner, next) = match after.find(CLOSE) {
            Some(end) => (&after[..end], &after[end + CLOSE.len()..]),
            None => (after, ""),
        };
        match calls_in(inner.trim(), tools) {
            Some(found) => {
                rest.push_str(&tail[..start]);
                calls.extend(found);
            }
            None => rest.push_str(&tail[..tail.len() - next.len()]),
        }
        tail = next;
    }
    rest.push_str(tail);
    (rest, calls)
}

/// The whole text, fences stripped (an opening ```` ```json ```` and a closing ```` ``` ````,
/// either alone too), as calls.
fn whole(text: &str, tools: &[String]) -> Option<Vec<TextCall>> {
    let mut inner = text.trim();
    if let Some(body) = inner.strip_prefix("```") {
        inner = body.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    }
    inner = inner.strip_suffix("```").unwrap_or(inner).trim();
    calls_in(inner, tools)
}

/// The fenced blocks that are calls, taken out of the text.
fn fenced(text: &str, tools: &[String]) -> (String, Vec<TextCall>) {
    let mut rest = String::new();
    let mut calls = Vec::new();
    let mut tail = text;
    while let Some(start) = tail.find("```") {
        let Some(length) = tail[start + 3..].find("```") else { break };
        let end = start + 3 + length + 3;
        match whole(&tail[start..end], tools) {
            Some(found) => {
                rest.push_str(&tail[..start]);
                calls.extend(found);
            }
            None => rest.push_str(&tail[..end]),
        }
        tail = &tail[end..];
    }
    rest.push_str(tail);
    (rest, calls)
}

/// JSON text of one call, a list of calls, or several of either one after the other (one a
/// line, as small models write them); `None` when it is not exactly that.
fn calls_in(text: &str, tools: &[String]) -> Option<Vec<TextCall>> {
    if !(text.starts_with('{') || text.starts_with('[')) {
        return None;
    }
    let mut calls = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match value.ok()? {
            Value::Array(items) if !items.is_empty() => {
                for item in &items {
                    calls.push(call_of(item, tools)?);
                }
            }
            item => calls.push(call_of(&item, tools)?),
        }
    }
    (!calls.is_empty()).then_some(calls)
}

fn call_of(value: &Value, tools: &[String]) -> Option<TextCall> {
    let object = value.as_object()?;
    let name = object.get("name")?.as_str()?;
    if !tools.is_empty() && !tools.iter().any(|tool| tool == name) {
        return None;
    }
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text).ok()? {
            arguments @ Value::Object(_) => arguments,
            _ => return None,
        },
        Some(arguments @ Value::Object(_)) => arguments.clone(),
        Some(_) => return None,
    };
    Some(TextCall { name: name.to_owned(), arguments: arguments.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<String> {
        vec!["Read".into(), "Bash".into()]
    }

    fn call(name: &str, arguments: &str) -> TextCall {
        TextCall { name: name.into(), arguments: arguments.into() }
    }

    #[test]
    fn qwen_tags_with_and_without_the_closing_tag() {
        let text = "I will read it.\n<tool_call>\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"/a.py\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"Bash\", \"arguments\": \"{\\\"command\\\": \\\"ls\\\"}\"}";
        let (rest, calls) = extract(text, &tools());
        assert_eq!(rest.trim(), "I will read it.");
        assert_eq!(calls, vec![call("Read", r#"{"file_path":"/a.py"}"#), call("Bash", r#"{"command":"ls"}"#)]);
    }

    #[test]
    fn bare_and_fenced_json_calls() {
        let (rest, calls) = extract(r#" {"name": "Bash", "parameters": {"command": "python3 a.py"}} "#, &tools());
        assert_eq!((rest.as_str(), calls), ("", vec![call("Bash", r#"{"command":"python3 a.py"}"#)]));
        let text = "Running it:\n```json\n[{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}]\n```\nDone.";
        let (rest, calls) = extract(text, &tools());
        assert_eq!(rest, "Running it:\n\nDone.");
        assert_eq!(calls, vec![call("Bash", r#"{"command":"ls"}"#)]);
    }

    #[test]
    fn calls_one_a_line_with_a_closing_fence() {
        // What Qwen2.5-Coder-1.5B wrote after its first call (arguments as JSON text).
        let text = "{\"name\": \"Edit\", \"arguments\": \"{\\\"old_string\\\":\\\"a - b\\\"}\"}\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"python3 add.py\"}}\n```";
        let (rest, calls) = extract(text, &["Edit".into(), "Bash".into()]);
        assert_eq!(rest, "");
        assert_eq!(
            calls,
            vec![call("Edit", r#"{"old_string":"a - b"}"#), call("Bash", r#"{"command":"python3 add.py"}"#)]
        );
    }

    #[test]
    fn what_is_not_a_call_stays_text() {
        for text in [
            r#"{"name": "Write", "arguments": {}}"#,
            r#"{"name": "Read", "arguments": [1]}"#,
            "<tool_call>not json</tool_call> and more",
            "```python\nprint(1)\n```",
            r#"Use {"name": "Read"} like this"#,
            r#"{"name": "Read"} and then some prose"#,
        ] {
            let (rest, calls) = extract(text, &tools());
            assert!(calls.is_empty(), "{text}");
            assert_eq!(rest, text);
        }
        // Any name goes when the request named no tools.
        assert_eq!(extract(r#"{"name": "X"}"#, &[]).1, vec![call("X", "{}")]);
    }
}
