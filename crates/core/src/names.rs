//! Finding tools by name: [`tool_matches_name`] and [`find_tool_by_name`].
//!
//! Mirrors Claude Code's `toolMatchesName` / `findToolByName`: a tool answers to its name and to
//! any of its aliases (`Task` for `Agent`, `KillShell` for `TaskStop` …).

use std::sync::Arc;

use crate::tool::Tool;

/// Whether `name` is the tool's name or one of its aliases.
pub fn tool_matches_name(tool: &dyn Tool, name: &str) -> bool {
    tool.name() == name || tool.aliases().contains(&name)
}

/// The first tool in `tools` that answers to `name` (its name or an alias).
pub fn find_tool_by_name<'a>(tools: &'a [Arc<dyn Tool>], name: &str) -> Option<&'a Arc<dyn Tool>> {
    tools.iter().find(|tool| tool_matches_name(tool.as_ref(), name))
}
