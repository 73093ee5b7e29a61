//! The messages Write, Edit (and NotebookEdit) share, exactly as the model reads them. Those that
//! Claude Code also has use its wording, which models know; the others are ours.

use agent_tools_core::quote::quote;
use std::fmt::Display;

/// An existing file the model has not read (Claude Code's text).
pub const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";

/// A file changed on disk since the model read it, found before the call (Claude Code's text).
pub const MODIFIED_SINCE_READ: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// A file changed on disk between the check and the write (Claude Code's text).
pub const UNEXPECTEDLY_MODIFIED: &str =
    "File has been unexpectedly modified. Read it again before attempting to write it.";

/// A path that does not exist (Claude Code's text, as Read words it).
pub fn file_not_found(cwd: impl Display) -> String {
    format!("File does not exist. Note: your current working directory is {cwd}.")
}

/// A path that is a folder (Node's wording, which models know).
pub fn is_directory(path: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!("EISDIR: illegal operation on a directory, open '{path}'")
}

/// A device, pipe or socket.
pub fn not_regular_file(path: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!("{path} is not a regular file (it is a device, pipe or socket), so it cannot be changed.")
}

/// A file larger than the tools load (Claude Code's text).
pub fn too_large(size: u64, max: u64) -> String {
    format!(
        "File is too large to edit ({}). Maximum editable file size is {}.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// A binary file; `action` is what the tool does (`edit`, `overwrite`).
pub fn binary_file(action: &str, path: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!(
        "This tool cannot {action} binary files, and {path} holds binary data. Use a command or script that understands its format."
    )
}

/// A file whose bytes do not decode cleanly, so a partial edit would change other bytes.
pub fn undecodable(path: impl Display, encoding: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!(
        "{path} is not valid {encoding} text, so editing part of it would change bytes outside the edit. Rewrite the whole file with Write, or fix it with a command."
    )
}

/// A character the file's encoding cannot store.
pub fn unrepresentable(path: impl Display, problem: &crate::Unrepresentable) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!(
        "{path} is saved as {}, which has no character U+{:04X} ({:?}). Use characters that encoding has, or rewrite the whole file with Write (it is then saved as UTF-8).",
        problem.encoding,
        u32::from(problem.ch),
        problem.ch
    )
}

/// Any failure to read the file.
pub fn cannot_read(path: impl Display, error: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!("Cannot read {path}: {error}")
}

/// Any failure to write the file; the file is unchanged.
pub fn cannot_write(path: impl Display, error: impl Display) -> String {
    let path = quote(&path.to_string()).into_owned();
    format!("Cannot write {path}: {error}. The file was not changed.")
}

/// A byte count as Claude Code's `formatFileSize` writes it (moved to the core, where Bash and the
/// host's size control share it; re-exported here for the file tools).
///
/// ```
/// use agent_tools_files::messages::format_file_size;
/// assert_eq!(format_file_size(1536), "1.5KB");
/// ```
pub use agent_tools_core::persist::format_file_size;

/// The message for a file that could not be loaded; `action` is what the tool does (`edit`,
/// `overwrite`) and `path` the path as the model gave it.
pub fn load_error(action: &str, path: impl Display, error: &crate::LoadError) -> String {
    let path = quote(&path.to_string()).into_owned();
    match error {
        crate::LoadError::IsDirectory => is_directory(path),
        crate::LoadError::NotRegularFile => not_regular_file(path),
        crate::LoadError::TooLarge { size, max } => too_large(*size, *max),
        crate::LoadError::Binary => binary_file(action, path),
        crate::LoadError::Io(error) => cannot_read(path, error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_like_claude_code() {
        assert_eq!(format_file_size(1023), "1023 bytes");
        assert_eq!(format_file_size(353_894), "345.6KB");
        // Halves round up, as JavaScript's toFixed(1) does: 781.25 → 781.3.
        assert_eq!(format_file_size(800_000), "781.3KB");
        assert_eq!(format_file_size(3 * 1024 * 1024 + 512 * 1024), "3.5MB");
        assert_eq!(
            too_large(2 * 1024 * 1024 * 1024, 1024 * 1024 * 1024),
            "File is too large to edit (2GB). Maximum editable file size is 1GB."
        );
    }
}
