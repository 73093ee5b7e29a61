//! EnterWorktree's input: an optional name.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

/// EnterWorktree's input (Claude Code's field name). A name that breaks the rules of
/// [`agent_tools_worktree::validate_name`] is refused while the input is parsed, so the model
/// gets an `InputValidationError` naming the rule, as Claude Code's schema refinement does.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterWorktreeInput {
    /// Optional name for the worktree. Segments separated by `/` may use only letters, digits,
    /// `.`, `_` and `-`; at most 64 characters in all. A random name is chosen when it is left out.
    #[serde(default, deserialize_with = "name")]
    pub name: Option<String>,
}

fn name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let name = Option::<String>::deserialize(deserializer)?;
    if let Some(name) = &name {
        agent_tools_worktree::validate_name(name).map_err(serde::de::Error::custom)?;
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_checked_while_parsing() {
        let input: EnterWorktreeInput = serde_json::from_value(json!({"name": "feature/x"})).unwrap();
        assert_eq!(input.name.as_deref(), Some("feature/x"));
        let input: EnterWorktreeInput = serde_json::from_value(json!({})).unwrap();
        assert_eq!(input.name, None);
        let bad = serde_json::from_value::<EnterWorktreeInput>(json!({"name": "../x"})).unwrap_err();
        assert!(bad.to_string().contains("must not contain a `..` segment"), "{bad}");
    }
}
