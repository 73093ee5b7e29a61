//! MCP elicitations through the `Elicitation` and `ElicitationResult` hooks.
//!
//! When an MCP server asks the user for something (`elicitation/create`), the `Elicitation`
//! hooks run first (`mcp_server_name`, `message`, `mode`, `requested_schema`; the matcher
//! selects on the server's name). A hook's `hookSpecificOutput.action` (`accept` with `content`,
//! `decline`, `cancel`) answers in the user's place; exit code 2 or `decision: "block"`
//! declines. Otherwise whoever answers elicitations in this session is asked (none: the
//! request is cancelled). Then the `ElicitationResult` hooks see the answer (`action`,
//! `content`) and may change it (their `action` / `content`; a block declines) before it goes
//! back to the server.
//!
//! With Elicitation hooks configured the session declares the `elicitation` capability even
//! when nobody else answers, since a hook may.

use std::sync::{Arc, OnceLock};

use agent_tools_core::{BoxFuture, ToolUseContext};
use agent_tools_mcp::{ElicitRequestParams, ElicitResult, ElicitationAction, Elicitor};
use serde_json::{Map, Value, json};

use crate::hooks::{Hooks, run_event};

/// An [`Elicitor`] that runs the hooks around another one (see the module docs).
pub(crate) struct HookedElicitor {
    /// Who answers when no hook does.
    pub(crate) inner: Option<Arc<dyn Elicitor>>,
    pub(crate) hooks: Hooks,
    /// The session's context, once it exists (the hooks' common fields come from it).
    pub(crate) ctx: Arc<OnceLock<ToolUseContext>>,
    /// The session's folder, for a context before the session is built.
    pub(crate) cwd: std::path::PathBuf,
}

/// An answer as JSON: `{"action", "content"?}`.
fn answer(action: &str, content: Option<Value>) -> Value {
    let mut value = json!({"action": action});
    if let Some(content) = content.filter(Value::is_object) {
        value["content"] = content;
    }
    value
}

/// A hook's `action` (and `content`), when it gave a valid one.
fn hook_answer(specific: &Map<String, Value>) -> Option<Value> {
    let action = specific.get("action").and_then(Value::as_str)?;
    matches!(action, "accept" | "decline" | "cancel").then(|| answer(action, specific.get("content").cloned()))
}

fn cancel() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Cancel)
}

impl Elicitor for HookedElicitor {
    fn elicit<'a>(&'a self, server: &'a str, params: ElicitRequestParams) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            let ctx = self.ctx.get().cloned().unwrap_or_else(|| ToolUseContext::new(&self.cwd));
            let asked = serde_json::to_value(&params).unwrap_or_default();
            let mode = asked.get("mode").and_then(Value::as_str).unwrap_or("form").to_owned();
            let mut payload = Map::new();
            payload.insert("mcp_server_name".into(), json!(server));
            payload.insert("message".into(), asked.get("message").cloned().unwrap_or(json!("")));
            payload.insert("mode".into(), json!(mode));
            for (field, key) in
                [("requestedSchema", "requested_schema"), ("url", "url"), ("elicitationId", "elicitation_id")]
            {
                if let Some(value) = asked.get(field) {
                    payload.insert(key.into(), value.clone());
                }
            }
            let before = run_event(&self.hooks, "Elicitation", server, payload, &ctx).await;
            let mut reply = if before.blocked.is_some() || before.stop.is_some() {
                answer("decline", None)
            } else if let Some(reply) = hook_answer(&before.specific) {
                reply
            } else {
                match &self.inner {
                    Some(inner) => serde_json::to_value(inner.elicit(server, params).await).unwrap_or_default(),
                    None => answer("cancel", None),
                }
            };
            let mut payload = Map::new();
            payload.insert("mcp_server_name".into(), json!(server));
            payload.insert("mode".into(), json!(mode));
            if let Some(id) = asked.get("elicitationId") {
                payload.insert("elicitation_id".into(), id.clone());
            }
            payload.insert("action".into(), reply.get("action").cloned().unwrap_or(json!("cancel")));
            if let Some(content) = reply.get("content") {
                payload.insert("content".into(), content.clone());
            }
            let after = run_event(&self.hooks, "ElicitationResult", server, payload, &ctx).await;
            if after.blocked.is_some() || after.stop.is_some() {
                reply = answer("decline", None);
            } else if let Some(changed) = hook_answer(&after.specific) {
                reply = changed;
            }
            serde_json::from_value(reply).unwrap_or_else(|_| cancel())
        })
    }
}
