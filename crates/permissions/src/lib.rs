//! # agent-tools-permissions: Claude Code's permission rules
//!
//! The permission engine's parts that tools and the host share:
//!
//! - [`paths`]: `Read(…)` / `Edit(…)` rules as gitignore patterns with Claude Code's roots,
//!   working directories, and the paths that always need approval (`.git/`, shell start-up files);
//! - [`filesystem`]: the read and write checks file tools run in `check_permissions`;
//! - [`links`]: hard links, so a second name of a denied file is denied too;
//! - [`shell`]: shell commands parsed with tree-sitter-bash and checked part by part against
//!   `Bash(…)` rules (exact, `prefix:*`, wildcards), the paths they read and write, and the
//!   read-only and destructive classifications.
//!
//! The settings files these rules come from (and workspace trust) are read by
//! `agent-tools-settings`; WebFetch's `WebFetch(domain:…)` rules live in `agent-tool-web-fetch`.
//!
//! The decision order (deny rules, ask rules, the tool's check, the mode, allow rules) lives in
//! the host's executor.

pub mod filesystem;
pub mod links;
pub mod messages;
pub mod paths;
pub mod shell;

pub use filesystem::{
    check_read_permission, check_write_permission, edit_denied_message, is_edit_denied, is_read_denied,
    read_denied_message,
};
pub use shell::{check_shell_command, is_destructive_command, is_read_only_command, shell_permission_matcher};
