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
//!
//! ```
//! use agent_tools_core::{PermissionMode, PermissionRuleSource as Source};
//! use agent_tools_settings::{parse_tool_list, LoadedSettings, SettingsSources};
//! let project = tempfile::tempdir().unwrap();
//! std::fs::create_dir_all(project.path().join(".claude")).unwrap();
//! let shared = r#"{"permissions": {"allow": ["Bash(npm test:*)"], "defaultMode": "plan"}}"#;
//! std::fs::write(project.path().join(".claude/settings.json"), shared).unwrap();
//! let local = r#"{"permissions": {"deny": ["Read(./.env)"], "defaultMode": "acceptEdits"}}"#;
//! std::fs::write(project.path().join(".claude/settings.local.json"), local).unwrap();
//! let sources = SettingsSources { project: Some(project.path().into()), ..SettingsSources::default() };
//! let settings = LoadedSettings::load(&sources).unwrap();
//! assert_eq!(settings.default_mode().unwrap(), Some(PermissionMode::AcceptEdits)); // the later file wins
//! let cli_deny = parse_tool_list("WebFetch, Bash(rm:*)"); // --disallowedTools
//! let rules = settings.permission_context(None, &[], &cli_deny, &sources).unwrap();
//! assert_eq!(rules.mode, PermissionMode::AcceptEdits);
//! assert_eq!(rules.always_allow_rules[&Source::ProjectSettings], ["Bash(npm test:*)"]);
//! assert_eq!(rules.always_deny_rules[&Source::LocalSettings], ["Read(./.env)"]);
//! assert_eq!(rules.always_deny_rules[&Source::CliArg], ["WebFetch", "Bash(rm:*)"]);
//! ```

mod settings;
pub mod trust;

pub use settings::{
    CommandHook, HookMatcher, HooksSettings, LoadedSettings, McpjsonApproval, PermissionsSettings, SandboxFileSettings,
    SettingsError, SettingsFile, SettingsSources, Withheld, parse_tool_list,
};
