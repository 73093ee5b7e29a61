//! The texts of permission decisions about paths. Short fixed strings a model relies on match
//! Claude Code's; the rest is ours. (The texts about shell commands live in
//! `agent_tools_shell_analysis::messages`.)

use std::path::Path;

use agent_tools_core::quote::quote;

/// A path as a message shows it: the model may have sent it, so it is quoted briefly.
fn shown(path: &Path) -> String {
    quote(&path.to_string_lossy()).into_owned()
}

/// A reading tool refused by a `Read(…)` deny rule (Claude Code's text).
pub const READ_DENIED: &str = "File is in a directory that is denied by your permission settings.";

/// A writing tool refused by an `Edit(…)` deny rule (Claude Code's text).
pub const EDIT_DENIED: &str = "File is in a directory that is denied by your permission settings.";

/// A file tool refused because the path is a link (symbolic, or another hard link) to a file a
/// deny rule covers.
pub const LINK_DENIED: &str = "File is a link to a file that is denied by your permission settings.";

/// A read that needs approval (Claude Code's text).
pub fn read_needs_approval(path: &Path) -> String {
    format!("Claude requested permissions to read from {}, but you haven't granted it yet.", shown(path))
}

/// A write that needs approval (Claude Code's text).
pub fn write_needs_approval(path: &Path) -> String {
    format!("Claude requested permissions to write to {}, but you haven't granted it yet.", shown(path))
}

/// A write refused in plan mode (Claude Code's text).
pub fn plan_mode_write(path: &Path) -> String {
    format!("Cannot write to {} while in plan mode.", shown(path))
}

/// Why a hard-linked file needs approval even in bypass mode.
pub fn unknown_links(path: &Path) -> String {
    format!("{} has other hard links, and the folders the deny rules name are too large to check them all", shown(path))
}

/// Why a path needs approval: it is outside the working directories.
pub fn outside_working_directories(path: &Path) -> String {
    format!("{} is outside the working directories of this session", shown(path))
}
