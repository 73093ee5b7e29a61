//! # agent-tools-permissions: Claude Code's file-path permission rules
//!
//! The permission engine's path checks that the file tools, the shell analysis and the host share:
//!
//! - [`paths`]: `Read(…)` / `Edit(…)` rules as gitignore patterns with Claude Code's roots,
//!   working directories, and the paths that always need approval (`.git/`, shell start-up files);
//! - [`filesystem`]: the read and write checks file tools run in `check_permissions`;
//! - [`links`]: hard links, so a second name of a denied file is denied too;
//! - [`content`]: text that quotes what those rules protect (a language server's inferred types);
//! - [`worktrees`]: the project's other checkouts, where its deny rules apply as well;
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
//!
//! ```
//! use std::{path::Path, sync::Arc};
//! use agent_tools_core::{PermissionBehavior, PermissionMode, PermissionRuleSource};
//! use agent_tools_core::{ToolPermissionContext, ToolUseContext};
//! use agent_tools_permissions::{check_read_permission, check_write_permission, messages};
//! let rules = ToolPermissionContext::default()
//!     .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Read(./secret.txt)");
//! let mut ctx = ToolUseContext::new("/proj");
//! ctx.permission_context = Arc::new(rules.clone());
//! assert_eq!(check_read_permission(Path::new("/proj/src/main.rs"), &ctx).behavior(), "allow");
//! assert_eq!(check_read_permission(Path::new("/etc/hosts"), &ctx).behavior(), "passthrough"); // asks
//! assert_eq!(check_read_permission(Path::new("/proj/secret.txt"), &ctx).message(), Some(messages::READ_DENIED));
//! // Writes need approval in the default mode, not in acceptEdits, except protected files.
//! assert_eq!(check_write_permission(Path::new("/proj/src/main.rs"), &ctx).behavior(), "passthrough");
//! ctx.permission_context = Arc::new(ToolPermissionContext { mode: PermissionMode::AcceptEdits, ..rules });
//! assert_eq!(check_write_permission(Path::new("/proj/src/main.rs"), &ctx).behavior(), "allow");
//! assert_eq!(check_write_permission(Path::new("/proj/.git/config"), &ctx).behavior(), "ask");
//! ```

pub mod content;
pub mod filesystem;
pub mod links;
pub mod messages;
pub mod paths;
pub mod worktrees;

pub use filesystem::{
    check_read_permission, check_write_permission, edit_denied_message, is_edit_denied, is_read_denied,
    read_denied_message,
};
