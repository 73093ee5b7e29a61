//! The request and reply of a non-streaming `POST /v1/messages`, as far as agent-tools uses
//! them.

use serde::Serialize;
use serde_json::{Map, Value};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user (or the tool asking on the user's behalf).
    User,
}

/// What a message says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum MessageContent {
    /// Plain text (sent as a JSON string).
    Text(String),
}

/// One message of the conversation sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: MessageContent,
}

impl Message {
    /// A user message of plain text.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: MessageContent::Text(text.into()) }
    }
}

/// A tool the model may use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ToolSpec {
    /// A tool the API runs itself (such as `web_search_20250305`).
    Server(ServerTool),
}

/// A server tool: its versioned `type`, its `name` and its own options (for web search:
/// `allowed_domains`, `blocked_domains`, `max_uses` …), sent as they are.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerTool {
    /// The versioned type, e.g. `web_search_20250305`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The name, e.g. `web_search`.
    pub name: String,
    /// The tool's other fields, in order.
    #[serde(flatten)]
    pub options: Map<String, Value>,
}

/// A request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct MessagesRequest {
    /// The model asked.
    pub model: String,
    /// Most tokens of answer.
    pub max_tokens: u32,
    /// The system prompt, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The tools offered (none: the field is left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
}

impl MessagesRequest {
    /// A request of `messages` to `model`, answered in at most `max_tokens` tokens, with no
    /// system prompt and no tools.
    pub fn new(model: impl Into<String>, max_tokens: u32, messages: Vec<Message>) -> Self {
        Self { model: model.into(), max_tokens, system: None, messages, tools: Vec::new() }
    }
}

/// One block of a reply's `content`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// A `text` block with a string `text`.
    Text {
        /// The text.
        text: String,
    },
    /// Any other block (`server_tool_use`, `web_search_tool_result`, `thinking` …, or a `text`
    /// block without a string `text`), as the API sent it.
    Other(Value),
}

impl ContentBlock {
    fn from_json(block: &Value) -> Self {
        match (block.get("type").and_then(Value::as_str), block.get("text").and_then(Value::as_str)) {
            (Some("text"), Some(text)) => Self::Text { text: text.to_owned() },
            _ => Self::Other(block.clone()),
        }
    }
}

/// A reply, read leniently: a field missing or of an unexpected shape is left empty rather
/// than failing the call (a `content` that is not an array has no blocks).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct MessagesResponse {
    /// The message id (`msg_…`).
    pub id: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Why the answer ended (`end_turn`, `max_tokens`, `tool_use` …).
    pub stop_reason: Option<String>,
    /// The answer's blocks, in order.
    pub content: Vec<ContentBlock>,
}

impl MessagesResponse {
    /// The reply in a JSON answer.
    pub fn from_json(reply: &Value) -> Self {
        let text = |key: &str| reply.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            id: text("id"),
            model: text("model"),
            stop_reason: text("stop_reason"),
            content: reply
                .get("content")
                .and_then(Value::as_array)
                .map(|blocks| blocks.iter().map(ContentBlock::from_json).collect())
                .unwrap_or_default(),
        }
    }

    /// The first `text` block's text.
    pub fn first_text(&self) -> Option<&str> {
        self.content.iter().find_map(|block| match block {
            ContentBlock::Text { text } => Some(text.as_str()),
            ContentBlock::Other(_) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_serialise_as_the_api_expects() {
        let mut request = MessagesRequest::new("m", 10, vec![Message::user("hi")]);
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
        );
        let mut options = Map::new();
        options.insert("max_uses".into(), json!(8));
        request.tools.push(ToolSpec::Server(ServerTool {
            kind: "web_search_20250305".into(),
            name: "web_search".into(),
            options,
        }));
        request.system = Some("be brief".into());
        let body = serde_json::to_value(&request).unwrap();
        assert_eq!(body["tools"], json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}]));
        assert_eq!(body["system"], "be brief");
    }

    #[test]
    fn replies_are_read_leniently() {
        let reply = MessagesResponse::from_json(&json!({"id": "msg_1", "content": [
            {"type": "thinking", "thinking": "x"}, {"type": "text", "text": "A"}, {"type": "text", "text": 3}, "odd"
        ]}));
        assert_eq!(reply.first_text(), Some("A"));
        assert_eq!(reply.content.len(), 4);
        assert_eq!(reply.content[2], ContentBlock::Other(json!({"type": "text", "text": 3})));
        assert_eq!(MessagesResponse::from_json(&json!({"content": 3})), MessagesResponse::default());
        assert_eq!(MessagesResponse::from_json(&json!(null)).first_text(), None);
    }
}
