//! MultiEdit's input.

use agent_tools_core::semantic;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};

/// MultiEdit's input (Claude Code's field names): one file and the edits to make in it, in order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditInput {
    /// The absolute path of the file to change (a relative path is resolved against the working
    /// directory).
    pub file_path: String,
    /// The edits, applied in this order, each to the text the edits before it left. At least one.
    /// If any edit fails, none is applied and the file is left as it was.
    #[serde(deserialize_with = "at_least_one")]
    #[schemars(length(min = 1))]
    pub edits: Vec<EditEntry>,
}

/// One edit of a batch: Edit's fields without the path.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditEntry {
    /// The exact text to find in the file as the edits before this one left it (copied from
    /// Read's output without the line-number prefix). Empty only in the first edit, to create a
    /// file that does not exist or to fill an empty one.
    pub old_string: String,
    /// The text to put in its place. Must differ from `old_string`.
    pub new_string: String,
    /// Replace every occurrence of `old_string` instead of exactly one. Defaults to false.
    #[serde(default, deserialize_with = "semantic::opt_bool")]
    #[schemars(extend("default" = false))]
    pub replace_all: Option<bool>,
}

impl EditEntry {
    /// Whether every occurrence is to be replaced.
    pub fn replace_all(&self) -> bool {
        self.replace_all.unwrap_or(false)
    }
}

/// The message for an empty `edits` (Claude Code's zod message).
pub const NO_EDITS: &str = "At least one edit is required";

/// `edits` with at least one element; an empty list is refused with [`NO_EDITS`] (the schema's
/// `minItems: 1`, which the strict parse does not check by itself).
fn at_least_one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<EditEntry>, D::Error> {
    let edits = Vec::<EditEntry>::deserialize(deserializer)?;
    if edits.is_empty() {
        return Err(de::Error::custom(NO_EDITS));
    }
    Ok(edits)
}
