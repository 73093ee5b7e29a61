//! # agent-tools-permissions: Claude Code's file-path permission rules
//!
//! The permission engine's path checks that the file tools, the shell analysis and the host share:
//!
//! - [`paths`]: `Read(…)` / `Edit(…)` rules as gitignore patterns with Claude Code's roots,
//!   working directories, and the paths that always need approval (`.git/`, shell start-up files);
//! - [`filesystem`]: the read and write checks file tools run in `check_permissions`;
//! - [`links`]: hard links, so a second name of a denied file is denied too;
//! - [`messages`]: the texts of these decisions.
//!
//! Neighbouring concerns have crates of their own, so a tool that checks paths compiles only
//! this one: the settings files these rules come from (and workspace trust) are read by
//! `agent-tools-settings`; shell commands are parsed with tree-sitter-bash and checked against
//! `Bash(…)` rules by `agent-tools-shell-analysis` (which uses the checks here for the paths a
//! command reads and writes); WebFetch's `WebFetch(domain:…)` rules live in `agent-tool-web-fetch`.
//!
//! The decision order (deny rules, ask rules, the tool's check, the mode, allow rules) lives in
//! the host's executor.

pub mod filesystem;
pub mod links;
pub mod messages;
pub mod paths;

pub use filesystem::{
    check_read_permission, check_write_permission, edit_denied_message, is_edit_denied, is_read_denied,
    read_denied_message,
};
