//! The texts of shell-command permission decisions, for Bash, PowerShell and the sandbox. Short
//! fixed strings a model relies on match Claude Code's; the rest is ours. (The texts about a
//! single path, such as [`LINK_DENIED`](agent_tools_permissions::messages::LINK_DENIED), live in
//! [`agent_tools_permissions::messages`].)

use std::path::Path;

use agent_tools_core::quote::quote;

/// A path as a message shows it: the model may have sent it, so it is quoted briefly.
fn shown(path: &Path) -> String {
    quote(&path.to_string_lossy()).into_owned()
}

/// A shell command refused by a deny rule of the shell tool `tool_name` (Claude Code's text).
pub fn command_denied(tool_name: &str, command: &str) -> String {
    let command = quote(command);
    format!("Permission to use {tool_name} with command {command} has been denied.")
}

/// A shell command that needs approval.
pub fn command_needs_approval(command: &str) -> String {
    let command = quote(command);
    format!("The command `{command}` needs approval before it runs.")
}

/// A read-only git command in a folder the user has not trusted: git runs what the
/// repository's configuration names (`core.fsmonitor`, hooks, filters, diff drivers), so it is
/// not run unasked there.
pub fn git_in_untrusted_folder(command: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` needs approval before it runs: git runs programs a repository's own configuration \
         names (its fsmonitor, hooks, filters), and this folder is not trusted. Once the user trusts it \
         (`agent-tools trust`), read-only git commands run without asking."
    )
}

/// A shell command whose structure cannot be checked part by part.
pub fn command_too_complex(command: &str, why: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` needs approval: it uses {why}, so its parts cannot be checked against the permission rules one by one."
    )
}

/// A command of the shell tool `tool_name` refused because a path it uses is denied by a
/// `Read(…)` / `Edit(…)` rule.
pub fn command_path_denied(tool_name: &str, command: &str, path: &Path) -> String {
    let command = quote(command);
    format!(
        "Permission to use {tool_name} with command {command} has been denied: {} is in a directory that is denied by your permission settings.",
        shown(path)
    )
}

/// A command of the shell tool `tool_name` refused because a path it uses is a link to a file a
/// deny rule covers.
pub fn command_link_denied(tool_name: &str, command: &str, path: &Path) -> String {
    let command = quote(command);
    format!(
        "Permission to use {tool_name} with command {command} has been denied: {} is a link to a file that is denied by your permission settings.",
        shown(path)
    )
}

/// A shell command that reads or writes a path that needs approval.
pub fn path_needs_approval(command: &str, path: &Path, write: bool) -> String {
    let command = quote(command);
    let verb = if write { "write to" } else { "read from" };
    format!("The command `{command}` would {verb} {}, which needs approval before it runs.", shown(path))
}

/// A shell command whose path argument is not known before it runs.
pub fn unknown_path(command: &str, word: &str) -> String {
    let command = quote(command);
    let word = quote(word);
    format!(
        "The command `{command}` needs approval: the path `{word}` is only known when it runs (a variable, a wildcard or `~user`), so it cannot be checked against the permission rules."
    )
}

/// A shell command that reads a folder recursively while a rule covers files below it.
pub fn reads_below_rule(command: &str, dir: &Path, rule: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` reads {} recursively, and the permission rule {rule} covers files below it, so it needs approval. Name the folders to read, or use the Grep tool (which leaves denied files out).",
        shown(dir)
    )
}

/// A shell command that changes or removes a folder recursively while a rule covers files below
/// it.
pub fn changes_below_rule(command: &str, dir: &Path, rule: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` changes everything in {}, and the permission rule {rule} covers files below it, so it needs approval.",
        shown(dir)
    )
}

/// A shell command reading a folder too large to check for links out of it.
pub fn tree_too_large(command: &str, dir: &Path) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` reads {} recursively, following links, and the folder is too large to check where its links lead; it needs approval.",
        shown(dir)
    )
}

/// A shell command taking the names of the files it reads or changes from its input or a list.
pub fn unseen_paths(command: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` reads or changes files named by its input or by a list file, which cannot be checked against the permission rules before it runs; it needs approval."
    )
}

/// A git command that can print any file of a repository some rule covers.
pub fn repository_content(command: &str, root: &Path, rule: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` can print any file of the git repository at {}, any version of it, and the permission rule {rule} covers files there, so it needs approval. Name the paths (`git log -p -- src`), or ask for names only (`--stat`, `--name-only`).",
        shown(root)
    )
}

/// A git command working on a repository named by `-C`, `--git-dir`, `--work-tree` or the
/// environment.
pub fn repository_elsewhere(command: &str) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` prints the content of a repository chosen by `-C`, `--git-dir`, `--work-tree` or a variable, which cannot be checked against the permission rules; it needs approval."
    )
}

/// A shell command that removes a path removing which is always confirmed.
pub fn dangerous_removal(command: &str, path: &str) -> String {
    let command = quote(command);
    let path = quote(path);
    format!("The command `{command}` removes `{path}`, which always needs the user's confirmation.")
}

/// A compound command with more parts than are checked one by one.
pub fn too_many_parts(command: &str, parts: usize) -> String {
    let command = quote(command);
    format!(
        "The command `{command}` has {parts} parts, more than the {} that are checked one by one; it needs approval.",
        crate::MAX_PARTS
    )
}

/// A compound command with more than one `cd`.
pub fn multiple_cd() -> String {
    "The command changes directory more than once, so its paths cannot be checked; it needs approval. Run one `cd` per command.".to_owned()
}

/// A compound command with `cd` and `git`.
pub fn cd_with_git() -> String {
    "The command changes directory and runs git: a repository in another folder can run its own hooks and configuration, so it needs approval.".to_owned()
}
