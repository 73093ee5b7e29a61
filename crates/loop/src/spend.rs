//! What a session's agents spent: tokens and dollars, in all and per model, shared by an agent
//! and every sub-agent it starts, so a result's totals and `--max-budget-usd` count the
//! sub-agents' requests too (as `claude -p`'s do).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use agent_tools_api::Usage;

/// Tokens and dollars spent, shared (see the module docs). Cheap to share behind an `Arc`.
#[derive(Debug, Default)]
pub struct Spend {
    inner: Mutex<Totals>,
}

#[derive(Debug, Default, Clone)]
struct Totals {
    usage: Usage,
    cost_usd: f64,
    per_model: BTreeMap<String, (Usage, f64)>,
}

impl Spend {
    fn totals(&self) -> std::sync::MutexGuard<'_, Totals> {
        // Every update is a few additions: a poisoned lock is still consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds one request's `usage` and `cost_usd` (dollars) for `model`.
    pub fn add(&self, model: &str, usage: Usage, cost_usd: f64) {
        let mut totals = self.totals();
        totals.usage += usage;
        totals.cost_usd += cost_usd;
        let entry = totals.per_model.entry(model.to_owned()).or_default();
        entry.0 += usage;
        entry.1 += cost_usd;
    }

    /// Dollars spent so far.
    pub fn cost_usd(&self) -> f64 {
        self.totals().cost_usd
    }

    /// Tokens spent so far.
    pub fn usage(&self) -> Usage {
        self.totals().usage
    }

    /// Tokens and dollars per model so far.
    pub fn per_model(&self) -> BTreeMap<String, (Usage, f64)> {
        self.totals().per_model.clone()
    }
}
