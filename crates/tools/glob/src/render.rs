//! Glob's output → `tool_result` text. The exact strings live here.

use agent_tools_core::quote::quote;
use serde::Serialize;

/// What Glob found (the MCP `structuredContent`; field names as Claude Code's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlobOutput {
    /// The listed paths, relative to the working directory when inside it, oldest first.
    pub filenames: Vec<String>,
    /// How many paths are listed.
    pub num_files: usize,
    /// How many files matched in all (more than `num_files` when truncated).
    pub total_files: usize,
    /// Whether matches were left out.
    pub truncated: bool,
    /// How long the search took, in milliseconds.
    pub duration_ms: u64,
}

/// The text shown when nothing matched.
pub const NO_FILES_FOUND: &str = "No files found";

/// The result text: one path per line, a note when the list was cut, or [`NO_FILES_FOUND`].
pub fn render(output: &GlobOutput) -> String {
    if output.filenames.is_empty() {
        return NO_FILES_FOUND.to_owned();
    }
    let mut text = output.filenames.join("\n");
    if output.truncated {
        let hidden = output.total_files - output.num_files;
        text.push_str(&format!(
            "\n(Showing {} of {} matching files; {hidden} more are not listed. Narrow the pattern or path to see the rest.)",
            output.num_files, output.total_files
        ));
    }
    text
}

/// The validation message for a `path` that does not exist.
pub fn missing_directory(path: &str, cwd: &str) -> String {
    format!("Directory does not exist: {}. Note: your current working directory is {cwd}.", quote(path))
}

/// The validation message for a `path` that is a file.
pub fn not_a_directory(path: &str, cwd: &str) -> String {
    format!("Path is not a directory: {}. Note: your current working directory is {cwd}.", quote(path))
}

/// The validation message for a pattern that is not a valid glob.
pub fn invalid_pattern(pattern: &str, error: &str) -> String {
    format!("Invalid glob pattern `{}`: {error}", quote(pattern))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(names: &[&str], total: usize) -> GlobOutput {
        GlobOutput {
            filenames: names.iter().map(|s| s.to_string()).collect(),
            num_files: names.len(),
            total_files: total,
            truncated: total > names.len(),
            duration_ms: 0,
        }
    }

    #[test]
    fn renders_lists_notes_and_no_match() {
        assert_eq!(render(&output(&[], 0)), "No files found");
        assert_eq!(render(&output(&["a.rs", "b/c.rs"], 2)), "a.rs\nb/c.rs");
        assert_eq!(
            render(&output(&["a"], 3)),
            "a\n(Showing 1 of 3 matching files; 2 more are not listed. Narrow the pattern or path to see the rest.)"
        );
    }
}
