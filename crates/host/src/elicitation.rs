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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::hooks::CommandHook;

    /// Answers every elicitation with `answer`.
    struct Fixed(Value);

    impl Elicitor for Fixed {
        fn elicit<'a>(&'a self, _server: &'a str, _params: ElicitRequestParams) -> BoxFuture<'a, ElicitResult> {
            Box::pin(async move { serde_json::from_value(self.0.clone()).unwrap() })
        }
    }

    fn recorder(log: &std::path::Path) -> CommandHook {
        CommandHook::new_command(format!("cat >> '{0}'; echo >> '{0}'", log.display()))
    }

    fn logged(log: &std::path::Path, event: &str) -> Vec<Value> {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|input| input["hook_event_name"] == event)
            .collect()
    }

    fn asked() -> ElicitRequestParams {
        serde_json::from_value(json!({"mode": "form", "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}))
        .unwrap()
    }

    fn elicitor(hooks: Hooks, inner: Option<Arc<dyn Elicitor>>, dir: &std::path::Path) -> HookedElicitor {
        let mut ctx = ToolUseContext::new(dir);
        ctx.options.session_id = "s-elicit".into();
        let slot = Arc::new(OnceLock::new());
        let _ = slot.set(ctx);
        HookedElicitor { inner, hooks, ctx: slot, cwd: dir.to_path_buf() }
    }

    #[tokio::test]
    async fn hooks_see_the_question_and_the_answer_and_may_give_either() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("hooks.log");
        let hooks = Hooks::default()
            .with_hook("Elicitation", "forms", recorder(&log))
            .with_hook("Elicitation", "other", CommandHook::new_command("echo never >> never.log"))
            .with_hook("ElicitationResult", "forms", recorder(&log));
        let user: Arc<dyn Elicitor> = Arc::new(Fixed(json!({"action": "accept", "content": {"name": "Ada"}})));
        let answer = elicitor(hooks, Some(user), dir.path()).elicit("forms", asked()).await;
        assert_eq!(serde_json::to_value(&answer).unwrap(), json!({"action": "accept", "content": {"name": "Ada"}}));
        let before = logged(&log, "Elicitation");
        assert_eq!(before.len(), 1);
        assert_eq!(before[0]["session_id"], "s-elicit");
        assert_eq!(before[0]["mcp_server_name"], "forms");
        assert_eq!(before[0]["message"], "Your name?");
        assert_eq!(before[0]["mode"], "form");
        assert_eq!(before[0]["requested_schema"]["properties"]["name"]["type"], "string");
        let after = logged(&log, "ElicitationResult");
        assert_eq!(after.len(), 1);
        assert_eq!((after[0]["action"].as_str(), &after[0]["content"]), (Some("accept"), &json!({"name": "Ada"})));
        assert!(!dir.path().join("never.log").exists(), "the matcher selects on the server's name");

        // A hook answers for the user (nobody else here), and a result hook's block declines.
        let answer = json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"name": "Hook"}}});
        let hooks =
            Hooks::default().with_hook("Elicitation", "", CommandHook::new_command(format!("printf '%s' '{answer}'")));
        let reply = elicitor(hooks, None, dir.path()).elicit("forms", asked()).await;
        assert_eq!(serde_json::to_value(&reply).unwrap(), json!({"action": "accept", "content": {"name": "Hook"}}));
        let hooks = Hooks::default()
            .with_hook("Elicitation", "", CommandHook::new_command(format!("printf '%s' '{answer}'")))
            .with_hook("ElicitationResult", "", CommandHook::new_command("echo 'no names' >&2; exit 2"));
        let reply = elicitor(hooks, None, dir.path()).elicit("forms", asked()).await;
        assert_eq!(serde_json::to_value(&reply).unwrap(), json!({"action": "decline"}));
        // Without hooks that answer and without anyone to ask: cancelled.
        let hooks = Hooks::default().with_hook("Elicitation", "", recorder(&log));
        let reply = elicitor(hooks, None, dir.path()).elicit("forms", asked()).await;
        assert_eq!(serde_json::to_value(&reply).unwrap(), json!({"action": "cancel"}));
    }
}
