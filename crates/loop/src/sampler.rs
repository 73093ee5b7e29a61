//! MCP sampling through the agent loop's model: [`ModelSampler`].
//!
//! A server that asks `sampling/createMessage` gets an answer from the model the loop talks to
//! (the same backend, the same model), without tools, in at most [`MAX_SAMPLING_TOKENS`]
//! tokens. Text and image content are passed on; anything else (audio, tool use) is refused with
//! a message saying so. Claude Code itself does not offer sampling; only `agent-tools agent`
//! does, and the MCP client declares the capability only when a sampler is bound.
#![allow(
    deprecated,
    reason = "sampling is deprecated by 2026-07-28 (SEP-2577) but part of 2025-11-25, which servers speak"
)]

use std::sync::OnceLock;

use agent_tools_api::{Backend, MessageBuilder, StreamEvent};
use agent_tools_core::BoxFuture;
use agent_tools_mcp::{CreateMessageRequestParams, CreateMessageResult, Sampler};
use serde_json::{Value, json};

/// The most tokens one sampling answer may have, whatever the server asks.
pub const MAX_SAMPLING_TOKENS: u32 = 4096;

/// Answers MCP servers' sampling requests with the loop's model, once bound ([`Self::bind`]);
/// before that, a request is refused.
#[derive(Default)]
pub struct ModelSampler {
    model: OnceLock<(Backend, String)>,
}

impl std::fmt::Debug for ModelSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSampler").field("model", &self.model.get().map(|(_, model)| model)).finish()
    }
}

impl ModelSampler {
    /// An unbound sampler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the backend and model it asks (the first call wins).
    pub fn bind(&self, backend: Backend, model: impl Into<String>) {
        let _ = self.model.set((backend, model.into()));
    }

    async fn answer(&self, server: &str, params: CreateMessageRequestParams) -> Result<CreateMessageResult, String> {
        let Some((backend, model)) = self.model.get() else {
            return Err("sampling is not available yet: the session has no model".to_owned());
        };
        let body = request_body(model, &params)?;
        tracing::debug!(%server, "an MCP server's sampling request goes to the model");
        let mut stream =
            backend.stream(&body, &[]).await.map_err(|error| format!("the model could not be asked: {error}"))?;
        let mut builder = MessageBuilder::new();
        while let Some(event) = stream.next().await {
            match event {
                Ok(StreamEvent::Error { message, .. }) => return Err(format!("the model failed: {message}")),
                Ok(event) => {
                    builder.apply(&event).map_err(|_| "the model's answer was malformed".to_owned())?;
                }
                Err(error) => return Err(format!("the model failed: {error}")),
            }
        }
        let message = builder.finish();
        let stop = match message.stop_reason.as_deref() {
            Some("max_tokens") => "maxTokens",
            Some("stop_sequence") => "stopSequence",
            _ => "endTurn",
        };
        serde_json::from_value(json!({
            "model": model,
            "stopReason": stop,
            "role": "assistant",
            "content": {"type": "text", "text": message.text()},
        }))
        .map_err(|error| format!("the answer could not be made: {error}"))
    }
}

impl Sampler for ModelSampler {
    fn sample<'a>(
        &'a self,
        server: &'a str,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>> {
        Box::pin(self.answer(server, params))
    }
}

/// The Messages API request (`"stream": true`) for a sampling request: its messages (text and
/// images), system prompt, temperature and stop sequences, at most [`MAX_SAMPLING_TOKENS`].
///
/// # Errors
/// A message naming what cannot be passed on: content other than text and images, tools, or no
/// messages.
pub fn request_body(model: &str, params: &CreateMessageRequestParams) -> Result<Value, String> {
    if params.tools.as_ref().is_some_and(|tools| !tools.is_empty()) {
        return Err("sampling with tools is not supported".to_owned());
    }
    let raw = serde_json::to_value(&params.messages).map_err(|error| error.to_string())?;
    let mut messages = Vec::new();
    for message in raw.as_array().into_iter().flatten() {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("assistant") => "assistant",
            _ => "user",
        };
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(block) => vec![block.clone()],
            None => Vec::new(),
        };
        let content = blocks.iter().map(api_block).collect::<Result<Vec<_>, _>>()?;
        messages.push(json!({"role": role, "content": content}));
    }
    if messages.is_empty() {
        return Err("the sampling request has no messages".to_owned());
    }
    let mut body = json!({
        "model": model,
        "max_tokens": params.max_tokens.clamp(1, MAX_SAMPLING_TOKENS),
        "messages": messages,
        "stream": true,
    });
    if let Some(system) = params.system_prompt.as_deref().filter(|system| !system.trim().is_empty()) {
        body["system"] = json!(system);
    }
    if let Some(temperature) = params.temperature {
        body["temperature"] = json!(temperature.clamp(0.0, 1.0));
    }
    if let Some(stops) = params.stop_sequences.as_ref().filter(|stops| !stops.is_empty()) {
        body["stop_sequences"] = json!(stops);
    }
    Ok(body)
}

/// One MCP content block as a Messages API block.
fn api_block(block: &Value) -> Result<Value, String> {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Ok(json!({"type": "text", "text": block.get("text").and_then(Value::as_str).unwrap_or("")})),
        Some("image") => {
            let data = block.get("data").and_then(Value::as_str).ok_or("an image block has no data")?;
            let media = block.get("mimeType").and_then(Value::as_str).ok_or("an image block has no mimeType")?;
            Ok(json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}))
        }
        other => Err(format!("sampling content of type {} is not supported", other.unwrap_or("(none)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> CreateMessageRequestParams {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_sampling_request_becomes_a_messages_request_within_the_token_cap() {
        let body = request_body(
            "claude-test",
            &params(json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Summarise"}},
                    {"role": "assistant", "content": [{"type": "text", "text": "Of what?"}]},
                    {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}
                ],
                "systemPrompt": "Be brief.",
                "maxTokens": 100000,
                "temperature": 0.2,
                "stopSequences": ["END"]
            })),
        )
        .unwrap();
        assert_eq!(
            body,
            json!({
                "model": "claude-test",
                "max_tokens": MAX_SAMPLING_TOKENS,
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Summarise"}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "Of what?"}]},
                    {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}
                ],
                "stream": true,
                "system": "Be brief.",
                "temperature": 0.2f32,
                "stop_sequences": ["END"]
            })
        );
    }

    #[test]
    fn what_cannot_be_passed_on_is_refused_with_the_reason() {
        let audio = params(
            json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"}}], "maxTokens": 5}),
        );
        assert_eq!(request_body("m", &audio).unwrap_err(), "sampling content of type audio is not supported");
        let empty = params(json!({"messages": [], "maxTokens": 5}));
        assert_eq!(request_body("m", &empty).unwrap_err(), "the sampling request has no messages");
    }

    #[tokio::test]
    async fn an_unbound_sampler_refuses() {
        let sampler = ModelSampler::new();
        let request =
            params(json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}));
        let refused = sampler.sample("srv", request).await.unwrap_err();
        assert!(refused.contains("no model"), "{refused}");
    }
}
