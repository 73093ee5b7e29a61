//! What can change while an agent runs, and what it tells about itself: the model and
//! extended thinking of the next request (the SDKs' `set_model`, `set_max_thinking_tokens`),
//! the context's use, what it spent, and whether work of its own is still pending.

use serde_json::{Value, json};

use agent_tools_host::tool_search::api_tools;

use super::Agent;
use crate::spend::Spend;

/// What a running agent's next request is made with, changeable while it runs.
#[derive(Debug, Clone)]
pub(super) struct Live {
    pub(super) model: String,
    pub(super) thinking: Option<Value>,
}

impl Agent {
    pub(super) fn live(&self) -> Live {
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The model the next request asks (the options' until [`Agent::set_model`]).
    pub fn model(&self) -> String {
        self.live().model
    }

    /// Switches the model from the next request on (the SDK's `set_model`); `None` goes back
    /// to the model the agent started with. Aliases (`sonnet` …) are resolved.
    pub fn set_model(&self, model: Option<&str>) {
        let model = model.map_or_else(|| self.options.model.clone(), crate::resolve_model);
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).model = model;
    }

    /// Sets extended thinking's budget from the next request on (the SDK's
    /// `set_max_thinking_tokens`): `None` or 0 turns thinking off.
    pub fn set_max_thinking_tokens(&self, budget: Option<u32>) {
        let thinking =
            budget.filter(|budget| *budget > 0).map(|budget| json!({"type": "enabled", "budget_tokens": budget}));
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).thinking = thinking;
    }

    /// Tokens in the context after the last request (input, cache and output; 0 before the
    /// first).
    pub fn context_tokens(&self) -> u64 {
        self.measured.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What the agent spent so far (tokens and dollars, its sub-agents' included).
    pub fn spend(&self) -> &Spend {
        &self.spend
    }

    /// Whether work of the agent's own is still under way or waiting for a turn: a background
    /// agent it started that runs, or a report, message or event queued for it. A front end
    /// that says when the session is idle asks this after each result.
    pub fn work_pending(&self) -> bool {
        let ctx = self.session.context_without_waiting();
        let me = self.session.agent_id();
        let running = agent_tools_background::TaskRegistry::existing(&ctx).is_some_and(|registry| {
            registry.list().iter().any(|task| {
                task.task_type == agent_tools_background::TaskType::LocalAgent
                    && task.status == agent_tools_background::TaskStatus::Running
                    && task.owner.as_deref() == me
            })
        });
        running || self.pending_now()
    }

    /// What fills the context window now, by category (the SDKs' `get_context_usage`; see
    /// [`crate::context_usage`]). While a query runs, the conversation's share is the last
    /// request's measured size less the rest.
    pub async fn context_usage(&self) -> crate::context_usage::ContextUsage {
        use crate::context_usage::{ContextUsage, Inputs, estimate_tokens};
        let system = self.system_blocks();
        let session = &self.session;
        let tools = session.with_prompt_options(|options| api_tools(&session.pool(), options)).await;
        let fixed: u64 = system
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .map(estimate_tokens)
            .chain(
                tools
                    .iter()
                    .filter(|tool| tool.get("defer_loading").is_none())
                    .map(|tool| estimate_tokens(&tool.to_string())),
            )
            .sum();
        let messages = match self.state.try_lock() {
            Ok(st) => st.messages.iter().map(|message| estimate_tokens(&message.to_value().to_string())).sum(),
            Err(_) => self.measured.load(std::sync::atomic::Ordering::Relaxed).saturating_sub(fixed),
        };
        let model = self.model();
        ContextUsage::measure(Inputs {
            system: &system,
            tools: &tools,
            messages,
            model: &model,
            window: self.options.context_window,
            compact_at: self.options.compact_at,
        })
    }
}
