//! # agent-tool-config: the Config tool
//!
//! Reads or changes one setting, as Claude Code's `Config` tool does, for the settings this
//! project reads from Claude Code's settings files ([`SETTINGS`]: `model`,
//! `permissions.defaultMode`, `cleanupPeriodDays`, `plansDirectory`, the `lsp.*` switches and the
//! `sandbox.*` switches).
//!
//! - **Input** `{setting: string, value?: string | boolean | number}` (strict). Without `value`
//!   the call reads; with it, it writes.
//! - **Read** (permission: allow, read-only): the value in effect, following the precedence of
//!   `agent-tools-settings` — user (`~/.claude/settings.json`), then project
//!   (`.claude/settings.json`), then local (`.claude/settings.local.json`), then a `--settings`
//!   file or text; the last source holding a value of the right shape wins (a value of another
//!   shape is ignored, as the settings loader ignores it). Result `SETTING = VALUE` (compact
//!   JSON); when no file sets it, `SETTING is not set (default: VALUE)`, or `SETTING is not set`
//!   for a setting without a fixed default.
//! - **Write** (permission: ask, [`set_question`] — `Config asks to set SETTING to VALUE in
//!   FILE. Until that is approved, the setting is not changed.` — as a safety check: asked even in bypass
//!   mode and never approved by the auto mode's classifier, since a settings file decides the
//!   permission mode and the sandbox — as a Write to the file would be asked): the value is checked against the
//!   setting's type and allowed values (booleans also as `"true"`/`"false"`, whole numbers also
//!   as a string of digits), then written to the setting's file ([`Scope`]: user settings for
//!   personal preferences, as Claude Code writes `model` and `permissions.defaultMode`; the
//!   local project file for `plansDirectory` and the sandbox switches, as Claude Code's
//!   `/sandbox` does). The write is atomic (a temporary file in the same folder renamed over the
//!   target), keeps every other key in its order, and creates the file and its folders when
//!   missing; nested keys land in their nested object. Result `Set SETTING to VALUE`; when a
//!   file of higher precedence sets the same key to something else, a note says that value stays
//!   in effect.
//! - **Failure**: an unknown setting (the message lists the supported ones), a value of the wrong
//!   type or not among the allowed ones, a settings file that is not a JSON object, a write that
//!   fails: an error result `Error: MESSAGE`. A change that is going to fail this way is not
//!   asked about (nothing is written).
//!
//! Flags as Claude Code's: deferred, concurrency-safe (writes in this process are serialised),
//! read-only only for reads. Deliberate differences: only keys this project reads are offered
//! (Claude Code's theme, editor mode and other terminal settings mean nothing here); `bypassPermissions`
//! and `auto` cannot be set as the default mode; a change applies from the next session (the
//! host reads settings when a session starts). What a folder that is not trusted withholds from
//! the project's files is not modelled: a read reports what the files say.
//!
//! After a write the session's `ConfigChange` hooks run (input `source` — `user_settings` or
//! `local_settings`, which the matcher selects on — and `file_path`). Since a change applies
//! from the next session only, nothing a hook answers is read (Claude Code lets a hook block a
//! change from taking effect in the running session; here it never does).
//!
//! The host passes the files in [`ConfigToolConfig`]; without a user or local file the tool is
//! disabled (`is_enabled` false).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tool_config::{ConfigToolConfig, tool_with};
//! use agent_tools_core::{call_tool, ToolUseContext};
//! let home = tempfile::tempdir().unwrap();
//! let project = tempfile::tempdir().unwrap();
//! let user = home.path().join(".claude/settings.json");
//! std::fs::create_dir_all(user.parent().unwrap()).unwrap();
//! std::fs::write(&user, r#"{"model": "sonnet", "permissions": {"allow": ["Bash(npm test:*)"]}}"#).unwrap();
//! let config = tool_with(ConfigToolConfig::for_dirs(Some(home.path()), Some(project.path())));
//! let ctx = ToolUseContext::new(project.path());
//! let input = serde_json::json!({"setting": "permissions.defaultMode", "value": "acceptEdits"});
//! let set = call_tool(config.as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(set.block.content.text(), r#"Set permissions.defaultMode to "acceptEdits""#);
//! let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
//! assert_eq!(written, serde_json::json!({
//!     "model": "sonnet",
//!     "permissions": {"allow": ["Bash(npm test:*)"], "defaultMode": "acceptEdits"},
//! }));
//! let get = call_tool(config.as_ref(), "toolu_2", serde_json::json!({"setting": "model"}), &ctx).await;
//! assert_eq!(get.block.content.text(), r#"model = "sonnet""#);
//! let bad = call_tool(config.as_ref(), "toolu_3", serde_json::json!({"setting": "lsp.enabled", "value": "maybe"}), &ctx).await;
//! assert!(bad.block.is_error);
//! assert_eq!(bad.block.content.text(), r#"Error: Invalid value "maybe" for lsp.enabled: expected true or false"#);
//! # });
//! ```

mod input;
mod keys;
mod render;
mod store;

use agent_tools_core::{Capabilities, ToolKind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::{PermissionDecisionReason, PermissionResult};
use agent_tools_core::{
    PromptOptions, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use serde_json::Value;

pub use crate::input::{ConfigInput, ConfigValue};
pub use crate::keys::{Fallback, Kind, MODES, SETTINGS, Scope, Setting, find, names};
pub use crate::render::{ConfigOutput, Operation, result_text, set_message, set_question};
pub use crate::store::{Found, Layer, StoreError};

use crate::store::Source;

/// The API name.
pub const NAME: &str = "Config";

/// The settings files Config reads and writes. Library code never looks at the environment or
/// the home folder itself: the host fills these in (see [`ConfigToolConfig::for_dirs`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigToolConfig {
    /// The user's settings, `~/.claude/settings.json`: read, and written for [`Scope::User`]
    /// settings. `None`: not read, and those settings cannot be changed.
    pub user_settings: Option<PathBuf>,
    /// The project's shared settings, `<project>/.claude/settings.json`: read only (Config never
    /// changes a file the whole team shares).
    pub project_settings: Option<PathBuf>,
    /// The project's local settings, `<project>/.claude/settings.local.json`: read, and written
    /// for [`Scope::Local`] settings.
    pub local_settings: Option<PathBuf>,
    /// The `--settings` argument: a file path, or JSON text starting with `{`. Read only, and
    /// of the highest precedence.
    pub flag_settings: Option<String>,
}

impl ConfigToolConfig {
    /// The standard files: `<home>/.claude/settings.json`, `<project>/.claude/settings.json` and
    /// `<project>/.claude/settings.local.json` (what `agent-tools-settings`' `SettingsSources`
    /// reads for the same folders); no `--settings`.
    pub fn for_dirs(home: Option<&Path>, project: Option<&Path>) -> Self {
        Self {
            user_settings: home.map(|home| home.join(".claude/settings.json")),
            project_settings: project.map(|project| project.join(".claude/settings.json")),
            local_settings: project.map(|project| project.join(".claude/settings.local.json")),
            flag_settings: None,
        }
    }

    /// The file written for settings of `scope`, if configured.
    pub fn path_for(&self, scope: Scope) -> Option<&Path> {
        match scope {
            Scope::User => self.user_settings.as_deref(),
            Scope::Local => self.local_settings.as_deref(),
        }
    }

    /// The configured sources, in precedence order (later wins).
    fn sources(&self) -> Vec<(Layer, Source<'_>)> {
        let mut sources = Vec::new();
        let files = [
            (Layer::User, &self.user_settings),
            (Layer::Project, &self.project_settings),
            (Layer::Local, &self.local_settings),
        ];
        for (layer, path) in files {
            if let Some(path) = path {
                sources.push((layer, Source::File(path)));
            }
        }
        if let Some(flag) = &self.flag_settings {
            let source =
                if flag.trim_start().starts_with('{') { Source::Text(flag) } else { Source::File(Path::new(flag)) };
            sources.push((Layer::Flag, source));
        }
        sources
    }
}

/// Serialises every Config write in this process (two sessions may share the user's file).
static WRITES: Mutex<()> = Mutex::new(());

/// The Config tool definition: the files it works on.
#[derive(Debug, Clone, Default)]
pub struct ConfigTool {
    config: ConfigToolConfig,
}

impl ConfigTool {
    /// A tool working on these files.
    pub fn new(config: ConfigToolConfig) -> Self {
        Self { config }
    }

    /// The files.
    pub fn config(&self) -> &ConfigToolConfig {
        &self.config
    }

    /// Runs a call: a read or a write, its failure as an output with `success: false`.
    pub fn run(&self, input: &ConfigInput) -> ConfigOutput {
        let operation = if input.is_get() { Operation::Get } else { Operation::Set };
        let Some(setting) = find(input.setting.trim()) else {
            return ConfigOutput::failure(&input.setting, None, render::unknown_setting(&input.setting, &names()));
        };
        match &input.value {
            None => self.get(setting),
            Some(value) => self.set(setting, value),
        }
        .unwrap_or_else(|error| ConfigOutput::failure(setting.key, Some(operation), error))
    }

    fn get(&self, setting: &Setting) -> Result<ConfigOutput, String> {
        let found = store::effective(&self.config.sources(), setting).map_err(|error| error.to_string())?;
        let mut output = ConfigOutput::ok(setting.key, Operation::Get);
        match found {
            Some(found) => {
                output.value = Some(found.value);
                output.file = Some(found.file);
            }
            None => output.default = setting.default.to_json(),
        }
        Ok(output)
    }

    fn set(&self, setting: &Setting, value: &ConfigValue) -> Result<ConfigOutput, String> {
        let new_value = setting.coerce(value)?;
        let path = self.config.path_for(setting.scope).ok_or_else(|| render::no_file(setting))?;
        let previous = {
            let _guard = WRITES.lock().unwrap_or_else(PoisonError::into_inner);
            store::write(path, setting, new_value.clone()).map_err(|error| error.to_string())?
        };
        let written = match setting.scope {
            Scope::User => Layer::User,
            Scope::Local => Layer::Local,
        };
        let above: Vec<(Layer, Source<'_>)> =
            self.config.sources().into_iter().filter(|(layer, _)| *layer > written).collect();
        let overridden_by = store::effective(&above, setting).ok().flatten().filter(|found| found.value != new_value);
        let mut output = ConfigOutput::ok(setting.key, Operation::Set);
        output.previous_value = previous;
        output.new_value = Some(new_value);
        output.file = Some(path.display().to_string());
        output.overridden_by = overridden_by;
        Ok(output)
    }
}

/// Config working on these files, ready for the host.
pub fn tool_with(config: ConfigToolConfig) -> Arc<dyn Tool> {
    build_tool(ConfigTool::new(config))
}

/// The permission question for a change that would succeed; `None` for a read, or for a change
/// that will fail without writing (unknown setting, invalid value, no file for its scope).
fn question(input: &ConfigInput, config: &ConfigToolConfig) -> Option<(String, PathBuf)> {
    let value = input.value.as_ref()?;
    let setting = find(input.setting.trim())?;
    let value = setting.coerce(value).ok()?;
    let path = config.path_for(setting.scope)?;
    Some((set_question(setting.key, &value.to_string(), path), path.to_path_buf()))
}

impl ToolDef for ConfigTool {
    type Input = ConfigInput;
    type Output = ConfigOutput;

    const NAME: &'static str = NAME;

    // Writes settings files for some inputs (so not read-only as a whole), local, never
    // destructive; concurrency-safe as in Claude Code.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Other)
        .flags(ToolFlags { read_only: false, concurrency_safe: true, destructive: false, open_world: false })
        .deferred()
        .search_hint("get or set settings: model, permission mode, LSP, sandbox");

    fn summary(&self, input: &ConfigInput) -> String {
        match &input.value {
            None => format!("Get {}", input.setting),
            Some(value) => set_message(&input.setting, &value.to_string()),
        }
    }

    /// The prompt, then one line per supported setting: name, type, file, what it does.
    fn description(&self, _options: &PromptOptions<'_>) -> String {
        let mut text = include_str!("prompt.md").to_owned();
        for setting in SETTINGS {
            text.push_str(&format!(
                "- `{}` ({}; saved in {}): {}\n",
                setting.key,
                setting.kind.describe(),
                setting.scope.file_name(),
                setting.about
            ));
        }
        text
    }

    /// Read-only when `value` is omitted (Claude Code's rule).
    fn is_read_only(&self, input: &ConfigInput) -> bool {
        input.is_get()
    }

    /// Only with a file to write to.
    fn is_enabled(&self) -> bool {
        self.config.user_settings.is_some() || self.config.local_settings.is_some()
    }

    fn activity_description(&self, input: &ConfigInput) -> Option<String> {
        Some(match input.value {
            None => format!("Reading {}", input.setting),
            Some(_) => format!("Setting {}", input.setting),
        })
    }

    /// A read is allowed; a change asks [`set_question`] (the value as it will be written, the
    /// file, and that nothing changes unless approved — Claude Code asks `Set SETTING to VALUE`,
    /// which read like a success when a headless run refused it). A change that will fail is
    /// allowed through to its error.
    async fn check_permissions(&self, input: &ConfigInput, _ctx: &ToolUseContext) -> PermissionResult {
        // A settings file decides the permission mode, the sandbox and the model: changing one is
        // a safety check, asked even in bypass mode (as a Write to the file would be), never
        // approved by the auto mode's classifier.
        match question(input, &self.config) {
            Some((message, path)) => PermissionResult::Ask {
                message,
                updated_input: None,
                decision_reason: Some(PermissionDecisionReason::SafetyCheck {
                    reason: format!("Config changes the settings file {}", path.display()),
                    classifier_approvable: false,
                }),
                suggestions: Vec::new(),
                blocked_path: Some(path.display().to_string()),
            },
            None => PermissionResult::allow(),
        }
    }

    /// What a change is, for the auto mode's classifier: `Set SETTING to VALUE`; a read is
    /// `Get SETTING`.
    fn to_auto_classifier_input(&self, input: &ConfigInput) -> Value {
        Value::String(self.summary(input))
    }

    async fn call(&self, input: ConfigInput, ctx: &ToolUseContext) -> Result<ToolResult<ConfigOutput>, ToolError> {
        let output = self.run(&input);
        if output.success
            && output.new_value.is_some()
            && ctx.has_hooks("ConfigChange")
            && let Some(setting) = find(input.setting.trim())
        {
            let source = match setting.scope {
                Scope::User => "user_settings",
                Scope::Local => "local_settings",
            };
            let mut payload = serde_json::Map::new();
            payload.insert("source".into(), source.into());
            if let Some(file) = &output.file {
                payload.insert("file_path".into(), file.clone().into());
            }
            let _ = ctx.fire_hook("ConfigChange", source, payload).await;
        }
        Ok(ToolResult::new(output))
    }

    fn map_tool_result(&self, output: &ConfigOutput, tool_use_id: &str) -> ToolResultBlock {
        let text = result_text(output);
        if output.success {
            ToolResultBlock::text(tool_use_id, text)
        } else {
            ToolResultBlock::error(tool_use_id, text)
        }
    }
}
