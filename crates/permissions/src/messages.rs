//! The texts of permission decisions. Short fixed strings a model relies on match Claude Code's;
//! the rest is ours.

use std::path::Path;

/// A reading tool refused by a `Read(…)` deny rule (Claude Code's text).
pub const READ_DENIED: &str = "File is in a directory that is denied by your permission settings.";

/// A writing tool refused by an `Edit(…)` deny rule (Claude Code's text).
pub const EDIT_DENIED: &str = "File is in a directory that is denied by your permission settings.";

/// A read that needs approval (Claude Code's text).
pub fn read_needs_approval(path: &Path) -> String {
    format!("Claude requested permissions to read from {}, but you haven't granted it yet.", path.display())
}

/// A write that needs approval (Claude Code's text).
pub fn write_needs_approval(path: &Path) -> String {
    format!("Claude requested permissions to write to {}, but you haven't granted it yet.", path.display())
}

/// A write refused in plan mode (Claude Code's text).
pub fn plan_mode_write(path: &Path) -> String {
    format!("Cannot write to {} while in plan mode.", path.display())
}

/// Why a path needs approval: it is outside the working directories.
pub fn outside_working_directories(path: &Path) -> String {
    format!("{} is outside the working directories of this session", path.display())
}

/// A shell command refused by a deny rule (Claude Code's text).
pub fn command_denied(command: &str) -> String {
    format!("Permission to use Bash with command {command} has been denied.")
}

/// A shell command that needs approval.
pub fn command_needs_approval(command: &str) -> String {
    format!("The command `{command}` needs approval before it runs.")
}

/// A shell command whose structure cannot be checked part by part.
pub fn command_too_complex(command: &str, why: &str) -> String {
    format!(
        "The command `{command}` needs approval: it uses {why}, so its parts cannot be checked against the permission rules one by one."
    )
}

/// A fetch refused by a `WebFetch(domain:…)` deny rule.
pub fn fetch_denied(tool_name: &str, key: &str) -> String {
    format!("Permission to use {tool_name} with {key} has been denied by your permission settings.")
}

/// A fetch that needs approval.
pub fn fetch_needs_approval(tool_name: &str, key: &str) -> String {
    format!("Claude requested permissions to use {tool_name} on {key}, but you haven't granted it yet.")
}
