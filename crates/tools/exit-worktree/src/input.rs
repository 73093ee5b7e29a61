//! ExitWorktree's input: keep or remove, and whether losing work is confirmed.

use std::borrow::Cow;

use agent_tools_core::semantic;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// ExitWorktree's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitWorktreeInput {
    /// "keep" leaves the worktree folder and its branch on disk; "remove" deletes both.
    pub action: ExitAction,
    /// Must be true to remove a worktree that has uncommitted files or commits not on its
    /// starting commit (or whose state cannot be checked). Only set it after the user confirmed
    /// that this work may be thrown away.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    pub discard_changes: Option<bool>,
}

/// What to do with the worktree when leaving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitAction {
    /// Leave the folder and branch in place.
    Keep,
    /// Delete the folder (`git worktree remove --force`) and the branch (`git branch -D`).
    Remove,
}

/// A plain string enum, as Claude Code's schema has it.
impl JsonSchema for ExitAction {
    fn schema_name() -> Cow<'static, str> {
        "ExitAction".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["keep", "remove"]})
    }
}
