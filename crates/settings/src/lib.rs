//! # agent-tools-settings: Claude Code's settings files
//!
//! What a session's configuration says, read from the files Claude Code reads:
//!
//! - the settings files (`~/.claude/settings.json`, `.claude/settings.json`,
//!   `.claude/settings.local.json`, a `--settings` file or JSON text) and the command-line rules
//!   (`--allowedTools`, `--disallowedTools`, [`parse_tool_list`]), loaded into [`LoadedSettings`]:
//!   the permission rules and mode as a
//!   [`ToolPermissionContext`](agent_tools_core::ToolPermissionContext), the hooks
//!   ([`HookMatcher`], [`CommandHook`]), the sandbox settings, the approval of the project's
//!   `.mcp.json` servers ([`McpjsonApproval`]), the plans folder and the cleanup period;
//! - [`trust`]: workspace trust — whether a project folder's own configuration (its MCP
//!   servers, hooks and allow rules) may take effect, compatible with Claude Code's record.
//!
//! This crate only reads configuration; it decides nothing about a tool call. The checks that
//! use the rules live in `agent-tools-permissions` (paths), `agent-tools-shell-analysis` (shell
//! commands) and the tools themselves; a tool crate that checks paths does not compile this one.

mod settings;
pub mod trust;

pub use settings::{
    CommandHook, HookMatcher, HooksSettings, LoadedSettings, McpjsonApproval, PermissionsSettings, SandboxFileSettings,
    SettingsError, SettingsFile, SettingsSources, Withheld, parse_tool_list,
};
