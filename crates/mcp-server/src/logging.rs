//! MCP logging (`logging/setLevel`, `notifications/message`) for one client.
//!
//! The server stays quiet until the client sets a level; from then on it sends what it logs at
//! that level or above: each finished call at `debug` (tool, outcome, milliseconds), changes of
//! the pool at `info`. (Logging is part of the 2025-11-25 protocol; 2026-07-28 deprecates it,
//! SEP-2577, so a client of that era simply never sets a level.)
#![allow(deprecated, reason = "LoggingLevel is deprecated by 2026-07-28 (SEP-2577) but part of 2025-11-25")]

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use serde_json::json;
use tokio::sync::Mutex;

/// No level set: send nothing.
const UNSET: u8 = u8::MAX;

/// The name our messages carry as their `logger`.
const LOGGER: &str = "agent-tools";

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The client's level and the peer to send to.
#[derive(Default)]
pub(crate) struct Log {
    level: AtomicU8Default,
    peer: Mutex<Option<Peer<RoleServer>>>,
}

struct AtomicU8Default(AtomicU8);

impl Default for AtomicU8Default {
    fn default() -> Self {
        Self(AtomicU8::new(UNSET))
    }
}

impl Log {
    /// Remembers where to send messages (the client's peer; the first request gives it).
    pub(crate) async fn attach(&self, peer: &Peer<RoleServer>) {
        let mut slot = self.peer.lock().await;
        if slot.is_none() {
            *slot = Some(peer.clone());
        }
    }

    /// The client's `logging/setLevel`.
    pub(crate) fn set_level(&self, level: LoggingLevel) {
        self.level.0.store(rank(level), Ordering::Relaxed);
    }

    /// Whether a message at `level` is to be sent.
    fn wants(&self, level: LoggingLevel) -> bool {
        let set = self.level.0.load(Ordering::Relaxed);
        set != UNSET && rank(level) >= set
    }

    /// Sends `data` at `level` if the client asked for that level.
    pub(crate) async fn send(&self, level: LoggingLevel, data: serde_json::Value) {
        if !self.wants(level) {
            return;
        }
        let Some(peer) = self.peer.lock().await.clone() else { return };
        let mut param = LoggingMessageNotificationParam::new(level, data);
        param.logger = Some(LOGGER.to_owned());
        if let Err(error) = peer.notify_logging_message(param).await {
            tracing::debug!(%error, "a log message could not be sent");
        }
    }

    /// Sends an event of the session (see [`crate::events`]) at `notice`, unless the client asked
    /// for a higher level; returns `false` once the client is gone.
    pub(crate) async fn send_event(&self, peer: &Peer<RoleServer>, data: serde_json::Value) -> bool {
        let set = self.level.0.load(Ordering::Relaxed);
        if set != UNSET && rank(LoggingLevel::Notice) < set {
            return true;
        }
        let mut param = LoggingMessageNotificationParam::new(LoggingLevel::Notice, data);
        param.logger = Some(LOGGER.to_owned());
        match peer.notify_logging_message(param).await {
            Ok(()) => true,
            Err(error) => {
                tracing::debug!(%error, "an event could not be sent; the client is gone");
                false
            }
        }
    }

    /// A call finished: `debug`, with its tool, outcome and time.
    pub(crate) async fn call_finished(&self, tool: &str, is_error: bool, took: Duration) {
        if !self.wants(LoggingLevel::Debug) {
            return;
        }
        let outcome = if is_error { "error" } else { "ok" };
        let millis = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
        self.send(LoggingLevel::Debug, json!({"tool": tool, "outcome": outcome, "ms": millis})).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_wanted_until_a_level_is_set_then_that_level_and_above() {
        let log = Log::default();
        assert!(!log.wants(LoggingLevel::Emergency));
        log.set_level(LoggingLevel::Info);
        assert!(!log.wants(LoggingLevel::Debug));
        assert!(log.wants(LoggingLevel::Info));
        assert!(log.wants(LoggingLevel::Error));
        log.set_level(LoggingLevel::Debug);
        assert!(log.wants(LoggingLevel::Debug));
    }
}
