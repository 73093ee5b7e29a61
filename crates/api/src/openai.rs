//! An OpenAI-compatible backend (Chat Completions), behind the same [`crate::EventStream`].

use serde_json::Value;

use crate::error::ApiError;
use crate::stream::{SseEvent, StreamEvent};

/// Turns Chat Completions chunks into Messages API events.
#[derive(Debug, Default)]
pub(crate) struct ChunkTranslator {}

impl ChunkTranslator {
    /// The events of one SSE chunk.
    pub(crate) fn chunk(&mut self, _sse: &SseEvent) -> Result<Vec<StreamEvent>, ApiError> {
        Ok(Vec::new())
    }

    /// The events still owed when the body ends.
    pub(crate) fn end(&mut self) -> Vec<StreamEvent> {
        Vec::new()
    }
}

/// The events of a whole (non-streamed) chat completion.
pub(crate) fn events_of_completion(_reply: &Value) -> Vec<StreamEvent> {
    Vec::new()
}
