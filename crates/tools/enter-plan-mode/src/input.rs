//! EnterPlanMode's input: nothing.

use schemars::JsonSchema;
use serde::Deserialize;

/// EnterPlanMode's input: an empty object. Any field is refused as an unexpected parameter
/// (Claude Code's `z.strictObject({})`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {}
