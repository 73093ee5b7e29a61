//! What a tool gives back: [`ToolResult`] (the typed result of `call`), and the Anthropic Messages API
//! content types the model sees: [`ToolResultBlock`], [`ToolResultContent`], [`ContentBlock`],
//! [`Message`].
//!
//! Mirrors Claude Code's `ToolResult<T>` (`src/Tool.ts`) and the API's `ToolResultBlockParam`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::ToolUseContext;

/// A function from context to context that a tool returns to change what later tools see
/// (for example a new working directory).
///
/// Mirrors Claude Code's `contextModifier`: the executor applies it only for tools that ran serially
/// (not concurrency-safe); for a concurrent batch it applies them after the batch, in block order.
pub type ContextModifier = Box<dyn FnOnce(ToolUseContext) -> ToolUseContext + Send + Sync>;

/// The result of a tool's `call`: its output data plus optional side channels.
///
/// Mirrors Claude Code's `ToolResult<T> = { data, newMessages?, contextModifier?, mcpMeta? }`.
pub struct ToolResult<T> {
    /// The tool's output; mapped to a `tool_result` block by the tool's result mapping, and returned
    /// as `structuredContent` by the MCP server.
    pub data: T,
    /// Extra messages to append to the conversation after the `tool_result` (e.g. image metadata).
    pub new_messages: Vec<Message>,
    /// An optional change to the context seen by later tool calls.
    pub context_modifier: Option<ContextModifier>,
    /// MCP metadata passed through for MCP tools (`_meta`, `structuredContent`).
    pub mcp_meta: Option<McpMeta>,
}

impl<T> ToolResult<T> {
    /// A result carrying only `data`.
    pub fn new(data: T) -> Self {
        Self { data, new_messages: Vec::new(), context_modifier: None, mcp_meta: None }
    }

    /// Adds a context modifier (see [`ContextModifier`]).
    pub fn with_context_modifier(
        mut self,
        modifier: impl FnOnce(ToolUseContext) -> ToolUseContext + Send + Sync + 'static,
    ) -> Self {
        self.context_modifier = Some(Box::new(modifier));
        self
    }

    /// Appends a message to [`ToolResult::new_messages`].
    pub fn with_message(mut self, message: Message) -> Self {
        self.new_messages.push(message);
        self
    }

    /// Maps the data, keeping the side channels.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> ToolResult<U> {
        ToolResult {
            data: f(self.data),
            new_messages: self.new_messages,
            context_modifier: self.context_modifier,
            mcp_meta: self.mcp_meta,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for ToolResult<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolResult")
            .field("data", &self.data)
            .field("new_messages", &self.new_messages)
            .field("context_modifier", &self.context_modifier.as_ref().map(|_| "<fn>"))
            .field("mcp_meta", &self.mcp_meta)
            .finish()
    }
}

/// MCP result metadata (`_meta` and `structuredContent` of an MCP `CallToolResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpMeta {
    /// JSON key `_meta`. The MCP `_meta` object, if any.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// JSON key `structuredContent`. The MCP `structuredContent` object, if any.
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
}

/// Base64 image data, as the Messages API's `{"type": "base64", "media_type", "data"}` source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource {
    /// JSON key `type`. Always `"base64"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The image bytes, base64-encoded (standard alphabet, padded).
    pub data: String,
}

impl ImageSource {
    /// A base64 source with the given media type.
    pub fn base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self { kind: "base64".to_owned(), media_type: media_type.into(), data: data.into() }
    }
}

/// One part of a `tool_result`'s content list: text, an image, or a reference to a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// A text part.
    Text {
        /// The text.
        text: String,
    },
    /// An image part.
    Image {
        /// The image data.
        source: ImageSource,
    },
    /// `{"type": "tool_reference", "tool_name": NAME}`: what ToolSearch returns for each match.
    /// With server-side tool search the Messages API expands it into the tool's full definition
    /// for the model (Claude Code's `tool_reference` block). A client that cannot expand it shows
    /// the tool's definition as text instead (the host's `render_tool_references`).
    ToolReference {
        /// The referenced tool's API name.
        tool_name: String,
    },
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A `tool_reference` part naming `tool_name`.
    pub fn tool_reference(tool_name: impl Into<String>) -> Self {
        Self::ToolReference { tool_name: tool_name.into() }
    }
}

/// The `content` of a `tool_result` block: a plain string, or a list of text and image parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// A plain string (what most tools return).
    Text(String),
    /// A list of parts (images, notebooks, MCP results).
    Parts(Vec<ContentPart>),
}

impl ToolResultContent {
    /// The text of the content: the string itself, or the text parts joined with `\n`
    /// (image parts are skipped; a `tool_reference` part gives the tool's name).
    pub fn text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Parts(parts) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter_map(|part| match part {
                        ContentPart::Text { text } => Some(text.as_str()),
                        ContentPart::Image { .. } => None,
                        ContentPart::ToolReference { tool_name } => Some(tool_name.as_str()),
                    })
                    .collect();
                texts.join("\n")
            }
        }
    }

    /// Size in characters, as Claude Code measures it for result-size limits: the string's length,
    /// or the sum of the text parts' lengths (images and tool references count 0).
    pub fn text_len(&self) -> usize {
        match self {
            Self::Text(text) => text.chars().count(),
            Self::Parts(parts) => parts
                .iter()
                .map(|part| match part {
                    ContentPart::Text { text } => text.chars().count(),
                    ContentPart::Image { .. } | ContentPart::ToolReference { .. } => 0,
                })
                .sum(),
        }
    }

    /// True when the content is empty in Claude Code's sense: a whitespace-only string, an empty
    /// list, or a list of only empty text parts (an image or a tool reference is content).
    pub fn is_empty(&self) -> bool {
        match self {
            Self::Text(text) => text.trim().is_empty(),
            Self::Parts(parts) => parts.iter().all(|part| match part {
                ContentPart::Text { text } => text.trim().is_empty(),
                ContentPart::Image { .. } | ContentPart::ToolReference { .. } => false,
            }),
        }
    }

    /// Adds `text` as a text part after what is there (a string becomes a list of its text and
    /// this): how the host attaches a block to a result, such as an edit's new diagnostics.
    pub fn push_text(&mut self, text: impl Into<String>) {
        let text = ContentPart::text(text);
        match self {
            Self::Text(first) => *self = Self::Parts(vec![ContentPart::text(std::mem::take(first)), text]),
            Self::Parts(parts) => parts.push(text),
        }
    }

    /// The names in the content's `tool_reference` parts, in order (empty for a string).
    pub fn tool_references(&self) -> Vec<&str> {
        match self {
            Self::Text(_) => Vec::new(),
            Self::Parts(parts) => parts
                .iter()
                .filter_map(|part| match part {
                    ContentPart::ToolReference { tool_name } => Some(tool_name.as_str()),
                    _ => None,
                })
                .collect(),
        }
    }

    /// True when any part is an image.
    pub fn has_image(&self) -> bool {
        matches!(self, Self::Parts(parts) if parts.iter().any(|p| matches!(p, ContentPart::Image { .. })))
    }
}

impl From<String> for ToolResultContent {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for ToolResultContent {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

/// A `tool_result` content block: the answer to one `tool_use` block.
///
/// Serialises as the Messages API's `{"type": "tool_result", "tool_use_id", "content", "is_error"}`;
/// `is_error` is left out when false, as Claude Code does for successful results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The `id` of the `tool_use` block this answers.
    pub tool_use_id: String,
    /// What the model sees.
    pub content: ToolResultContent,
    /// True for error results.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl ToolResultBlock {
    /// A successful text result.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: ToolResultContent::Text(text.into()), is_error: false }
    }

    /// An error result with the given text.
    pub fn error(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: ToolResultContent::Text(text.into()), is_error: true }
    }

    /// A successful result with content parts.
    pub fn parts(tool_use_id: impl Into<String>, parts: Vec<ContentPart>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: ToolResultContent::Parts(parts), is_error: false }
    }
}

/// The role of a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A user message (tool results travel in these).
    User,
    /// An assistant message (tool_use blocks travel in these).
    Assistant,
    /// A system message inside the conversation (hook output, environment updates), as Claude
    /// Code sends them.
    System,
}

/// A `tool_use` content block: the model asks for one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// Unique id (`toolu_…`), echoed in the `tool_result`.
    pub id: String,
    /// The tool's name (or one of its aliases).
    pub name: String,
    /// The tool's input; should be a JSON object.
    #[serde(default)]
    pub input: Value,
}

/// A known content block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// The image data.
        source: ImageSource,
    },
    /// A tool call.
    ToolUse(ToolUseBlock),
    /// A tool result.
    ToolResult(ToolResultBlock),
}

/// A content block: one of the [`KnownBlock`]s, or any other block (thinking, documents, server
/// tools …) kept verbatim so a message round-trips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ContentBlock {
    /// A block this crate understands.
    Known(KnownBlock),
    /// Any other block, kept as JSON.
    Other(Value),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Known(KnownBlock::Text { text: text.into() })
    }

    /// The `tool_use` inside, if this is one.
    pub fn as_tool_use(&self) -> Option<&ToolUseBlock> {
        match self {
            Self::Known(KnownBlock::ToolUse(tool_use)) => Some(tool_use),
            _ => None,
        }
    }
}

impl From<ToolResultBlock> for ContentBlock {
    fn from(block: ToolResultBlock) -> Self {
        Self::Known(KnownBlock::ToolResult(block))
    }
}

/// The content of a message: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content blocks.
    Blocks(Vec<ContentBlock>),
}

/// A conversation message, as the Messages API's `{"role", "content"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: MessageContent,
}

impl Message {
    /// A user message made of blocks.
    pub fn user(blocks: Vec<ContentBlock>) -> Self {
        Self { role: Role::User, content: MessageContent::Blocks(blocks) }
    }

    /// A system message with one text block (hook feedback and the like).
    pub fn system_text(text: impl Into<String>) -> Self {
        Self { role: Role::System, content: MessageContent::Blocks(vec![ContentBlock::text(text)]) }
    }

    /// The `tool_use` blocks of the message, in order.
    pub fn tool_uses(&self) -> Vec<&ToolUseBlock> {
        match &self.content {
            MessageContent::Text(_) => Vec::new(),
            MessageContent::Blocks(blocks) => blocks.iter().filter_map(ContentBlock::as_tool_use).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pushed_text_follows_the_content_as_its_own_part() {
        let mut content = ToolResultContent::Text("edited".into());
        content.push_text("<new-diagnostics>x</new-diagnostics>");
        assert_eq!(
            content,
            ToolResultContent::Parts(vec![
                ContentPart::text("edited"),
                ContentPart::text("<new-diagnostics>x</new-diagnostics>")
            ])
        );
        content.push_text("more");
        assert_eq!(content.text(), "edited\n<new-diagnostics>x</new-diagnostics>\nmore");
    }

    #[test]
    fn tool_result_block_serialises_like_the_api() {
        let ok = ToolResultBlock::text("toolu_1", "hi");
        assert_eq!(serde_json::to_value(&ok).unwrap(), json!({"tool_use_id": "toolu_1", "content": "hi"}));
        let err = ToolResultBlock::error("toolu_2", "bad");
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"tool_use_id": "toolu_2", "content": "bad", "is_error": true})
        );
        let parts = ToolResultBlock::parts(
            "toolu_3",
            vec![ContentPart::text("a"), ContentPart::Image { source: ImageSource::base64("image/png", "AAAA") }],
        );
        assert_eq!(
            serde_json::to_value(&parts).unwrap(),
            json!({"tool_use_id": "toolu_3", "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
            ]})
        );
    }

    #[test]
    fn tool_reference_parts_serialise_like_the_api() {
        let block = ToolResultBlock::parts("toolu_4", vec![ContentPart::tool_reference("TodoWrite")]);
        let json = serde_json::to_value(&block).unwrap();
        assert_eq!(
            json,
            json!({"tool_use_id": "toolu_4", "content": [{"type": "tool_reference", "tool_name": "TodoWrite"}]})
        );
        assert_eq!(serde_json::from_value::<ToolResultBlock>(json).unwrap(), block);
        assert!(!block.content.is_empty());
        assert_eq!(block.content.text_len(), 0);
        assert_eq!(block.content.tool_references(), ["TodoWrite"]);
        assert_eq!(block.content.text(), "TodoWrite");
    }

    #[test]
    fn content_emptiness_and_size_follow_claude_code() {
        assert!(ToolResultContent::from("  \n").is_empty());
        assert!(ToolResultContent::Parts(vec![]).is_empty());
        assert!(ToolResultContent::Parts(vec![ContentPart::text(" ")]).is_empty());
        assert!(!ToolResultContent::from("x").is_empty());
        assert_eq!(ToolResultContent::from("héllo").text_len(), 5);
        let parts = ToolResultContent::Parts(vec![ContentPart::text("ab"), ContentPart::text("cde")]);
        assert_eq!(parts.text_len(), 5);
        assert_eq!(parts.text(), "ab\ncde");
    }

    #[test]
    fn messages_round_trip_unknown_blocks() {
        let raw = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "Looking"},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}
        ]});
        let message: Message = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(message.tool_uses().len(), 1);
        assert_eq!(message.tool_uses()[0].name, "Read");
        assert_eq!(serde_json::to_value(&message).unwrap(), raw);
    }
}
