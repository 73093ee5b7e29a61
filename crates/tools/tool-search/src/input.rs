//! ToolSearch's input.

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;

/// The number of results when `max_results` is not given (Claude Code's default).
pub const DEFAULT_MAX_RESULTS: usize = 5;

/// ToolSearch's input (Claude Code's field names and schema: `query` required, `max_results` a
/// number defaulting to 5).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchInput {
    /// What to look for: `select:NAME[,NAME…]` to load tools by name, or keywords (`+word`
    /// makes a word required).
    pub query: String,
    /// How many tools a keyword search returns at most (default 5).
    #[serde(default, deserialize_with = "semantic::opt_f64")]
    #[schemars(extend("default" = 5))]
    pub max_results: Option<f64>,
}

impl ToolSearchInput {
    /// `max_results` as a count: the default when absent, whole part of a fraction, and
    /// saturated at `usize::MAX` when huge. `None` when it is not a number of at least 1 (the
    /// input check refuses such input before the call).
    pub fn limit(&self) -> Option<usize> {
        match self.max_results {
            None => Some(DEFAULT_MAX_RESULTS),
            Some(number) if number.is_finite() && number >= 1.0 => {
                // A float-to-int `as` saturates; the value is known finite and >= 1.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Some(number.trunc() as usize)
            }
            Some(_) => None,
        }
    }
}
