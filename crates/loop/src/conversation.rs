//! The conversation as typed messages over verbatim blocks.
//!
//! A [`Message`] has a typed [`Role`] and [`Content`]; each [`Block`] keeps the JSON object the
//! API sent or the loop made, key order included, so what the loop does not read (thinking
//! signatures, citations, `cache_control`, server tool blocks) goes back to the API as it came,
//! and the three key orders of Claude Code's `tool_result` blocks (`results.rs`) survive. The
//! loop reads blocks through typed views ([`Block::kind`], [`Block::as_tool_use`] …), never by
//! indexing JSON.
//!
//! ```
//! use agent_tools_loop::conversation::{Block, Content, Message, Role, push};
//! use serde_json::json;
//!
//! let answer: Message = serde_json::from_value(json!({"role": "assistant", "content": [
//!     {"type": "thinking", "thinking": "hmm", "signature": "sig"},
//!     {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}
//! ]})).unwrap();
//! assert_eq!(answer.tool_uses()[0].name, "Read");
//! // Blocks go back as they came.
//! assert_eq!(serde_json::to_value(&answer).unwrap()["content"][0]["signature"], "sig");
//!
//! // Consecutive user messages merge, results first, as Claude Code sends them.
//! let mut messages = vec![answer, Message::user(vec![Block::text("result")])];
//! push(&mut messages, Message::user_text("and then?"));
//! assert_eq!(messages.len(), 2);
//! assert_eq!(messages[1].role, Role::User);
//! assert_eq!(messages[1].blocks().iter().map(Block::kind).collect::<Vec<_>>(), ["text", "text"]);
//! assert!(matches!(Message::user_text("hi").content, Content::Text(_)));
//! ```

use agent_tools_core::ToolUseBlock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Who speaks: core's `Role` (user, assistant, system).
pub use agent_tools_core::Role;

/// One content block: its JSON object, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Block(Map<String, Value>);

impl Block {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        let mut object = Map::new();
        object.insert("type".into(), json!("text"));
        object.insert("text".into(), Value::String(text.into()));
        Self(object)
    }

    /// The block in `value`, when it is an object with a string `type` (what the API accepts as
    /// a block); `None` otherwise.
    pub fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::Object(object) if object.get("type").is_some_and(Value::is_string) => Some(Self(object)),
            _ => None,
        }
    }

    /// Its `type` (`text`, `tool_use`, `tool_result`, `thinking` …).
    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or_default()
    }

    /// The text of a `text` block.
    pub fn text_value(&self) -> Option<&str> {
        (self.kind() == "text").then(|| self.0.get("text").and_then(Value::as_str)).flatten()
    }

    /// The call of a `tool_use` block (a missing input is `{}`).
    pub fn as_tool_use(&self) -> Option<ToolUseBlock> {
        if self.kind() != "tool_use" {
            return None;
        }
        let text = |key: &str| self.0.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        Some(ToolUseBlock {
            id: text("id"),
            name: text("name"),
            input: self.0.get("input").cloned().unwrap_or_else(|| json!({})),
        })
    }

    /// The `tool_use_id` of a `tool_result` block.
    pub fn tool_result_id(&self) -> Option<&str> {
        (self.kind() == "tool_result").then(|| self.0.get("tool_use_id").and_then(Value::as_str)).flatten()
    }

    /// The JSON object.
    pub fn as_object(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The JSON object, to change (the loop marks the last block as a cache breakpoint).
    pub fn as_object_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.0
    }
}

/// What a message says: plain text (sent as a JSON string, as the first prompt is), or blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// A string.
    Text(String),
    /// Content blocks, in order.
    Blocks(Vec<Block>),
}

/// One message of the conversation: the Messages API's `{"role", "content"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl Message {
    /// A user message of blocks.
    pub fn user(blocks: Vec<Block>) -> Self {
        Self { role: Role::User, content: Content::Blocks(blocks) }
    }

    /// A user message of plain text.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: Content::Text(text.into()) }
    }

    /// A system message of one text block.
    pub fn system_text(text: impl Into<String>) -> Self {
        Self { role: Role::System, content: Content::Blocks(vec![Block::text(text)]) }
    }

    /// An assistant message of blocks.
    pub fn assistant(blocks: Vec<Block>) -> Self {
        Self { role: Role::Assistant, content: Content::Blocks(blocks) }
    }

    /// Its blocks: a string is one text block, an empty string none (the API refuses empty
    /// text blocks).
    pub fn blocks(&self) -> Vec<Block> {
        match &self.content {
            Content::Text(text) if text.is_empty() => Vec::new(),
            Content::Text(text) => vec![Block::text(text.clone())],
            Content::Blocks(blocks) => blocks.clone(),
        }
    }

    /// The message in `value` (`None` when it is not `{"role", "content"}` of a known role with
    /// string or block content).
    pub fn from_value(value: Value) -> Option<Self> {
        serde_json::from_value(value).ok()
    }

    /// The message as JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Its `tool_use` calls, in order.
    pub fn tool_uses(&self) -> Vec<ToolUseBlock> {
        match &self.content {
            Content::Text(_) => Vec::new(),
            Content::Blocks(blocks) => blocks.iter().filter_map(Block::as_tool_use).collect(),
        }
    }
}

/// The blocks among `values` (what is not an object with a `type` is left out: the API refuses
/// it).
pub fn blocks(values: Vec<Value>) -> Vec<Block> {
    values.into_iter().filter_map(Block::from_value).collect()
}

/// Appends `message`; a user message that follows a user message (system messages in between
/// do not count) is merged into it, its blocks after the earlier ones, as Claude Code merges
/// consecutive user messages before a request (a prompt after a turn that ended without an
/// answer: a kill or an interrupt during the stream or the calls).
pub fn push(messages: &mut Vec<Message>, message: Message) {
    if message.role == Role::User
        && let Some(previous) = messages.iter_mut().rev().find(|earlier| earlier.role != Role::System)
        && previous.role == Role::User
    {
        let mut blocks = previous.blocks();
        blocks.extend(message.blocks());
        previous.content = Content::Blocks(blocks);
        return;
    }
    messages.push(message);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_keep_their_key_order_and_unknown_fields_survive() {
        let raw = json!({"role": "user", "content": [
            {"tool_use_id": "toolu_1", "type": "tool_result", "content": "ok", "is_error": false},
            {"type": "text", "text": "see", "citations": [{"cited_text": "x"}], "cache_control": {"type": "ephemeral"}}
        ]});
        let message: Message = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(serde_json::to_string(&message).unwrap(), raw.to_string());
        let blocks = message.blocks();
        assert_eq!(blocks[0].tool_result_id(), Some("toolu_1"));
        assert_eq!(blocks[1].text_value(), Some("see"));
        assert_eq!(blocks[0].as_tool_use(), None);
    }

    #[test]
    fn only_objects_with_a_type_are_blocks_and_merging_skips_system_messages() {
        assert!(Block::from_value(json!({"text": "no type"})).is_none());
        assert!(Block::from_value(json!("text")).is_none());
        assert_eq!(
            Block::from_value(json!({"type": "image", "source": {}})).map(|b| b.kind().to_owned()),
            Some("image".into())
        );
        let mut messages = vec![Message::user_text("first"), Message::system_text("# Environment update")];
        push(&mut messages, Message::user_text(""));
        push(&mut messages, Message::user(vec![Block::text("second")]));
        assert_eq!(messages.len(), 2, "{messages:?}");
        let texts: Vec<Option<String>> =
            messages[0].blocks().iter().map(|b| b.text_value().map(str::to_owned)).collect();
        assert_eq!(texts, [Some("first".to_owned()), Some("second".to_owned())]);
        assert_eq!(messages[1].role, Role::System);
    }
}
