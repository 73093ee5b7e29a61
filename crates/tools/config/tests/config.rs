//! Config through the contract, on real settings files in temp folders: reads across the
//! user, project, local and `--settings` sources, writes that keep the rest of the file, the
//! type checks, unknown settings, and the permission decision.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use agent_tool_config::{ConfigToolConfig, SETTINGS, tool_with};
use agent_tools_core::PermissionResult;
use agent_tools_core::call_tool;
use agent_tools_core::{Tool, ToolUseContext};
use serde_json::{Value, json};

/// A home folder and a project folder, and the tool on their standard files.
struct Setup {
    _home: tempfile::TempDir,
    _project: tempfile::TempDir,
    user: PathBuf,
    shared: PathBuf,
    local: PathBuf,
    config: ConfigToolConfig,
    ctx: ToolUseContext,
}

impl Setup {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let config = ConfigToolConfig::for_dirs(Some(home.path()), Some(project.path()));
        Self {
            user: home.path().join(".claude/settings.json"),
            shared: project.path().join(".claude/settings.json"),
            local: project.path().join(".claude/settings.local.json"),
            ctx: ToolUseContext::new(project.path()),
            config,
            _home: home,
            _project: project,
        }
    }

    fn tool(&self) -> std::sync::Arc<dyn Tool> {
        tool_with(self.config.clone())
    }

    async fn call(&self, input: Value) -> (String, bool) {
        let done = call_tool(self.tool().as_ref(), "toolu_1", input, &self.ctx).await;
        (done.block.content.text(), done.block.is_error)
    }

    async fn ok(&self, input: Value) -> String {
        let (text, is_error) = self.call(input.clone()).await;
        assert!(!is_error, "{input}: {text}");
        text
    }

    async fn err(&self, input: Value) -> String {
        let (text, is_error) = self.call(input.clone()).await;
        assert!(is_error, "{input}: {text}");
        text
    }
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[tokio::test]
async fn a_read_reports_the_value_in_effect_by_precedence() {
    let s = Setup::new();
    assert_eq!(s.ok(json!({"setting": "model"})).await, "model is not set");
    assert_eq!(s.ok(json!({"setting": "lsp.enabled"})).await, "lsp.enabled is not set (default: false)");
    assert_eq!(s.ok(json!({"setting": "cleanupPeriodDays"})).await, "cleanupPeriodDays is not set (default: 30)");
    assert_eq!(
        s.ok(json!({"setting": "permissions.defaultMode"})).await,
        r#"permissions.defaultMode is not set (default: "default")"#
    );

    put(&s.user, r#"{"model": "opus", "lsp": {"enabled": true}, "cleanupPeriodDays": 7}"#);
    assert_eq!(s.ok(json!({"setting": "model"})).await, r#"model = "opus""#);
    assert_eq!(s.ok(json!({"setting": "lsp.enabled"})).await, "lsp.enabled = true");
    assert_eq!(s.ok(json!({"setting": "cleanupPeriodDays"})).await, "cleanupPeriodDays = 7");

    // The project's file overrides the user's, the local file the project's.
    put(&s.shared, r#"{"model": "sonnet"}"#);
    assert_eq!(s.ok(json!({"setting": "model"})).await, r#"model = "sonnet""#);
    put(&s.local, r#"{"model": "haiku", "permissions": {"defaultMode": "bypassPermissions"}}"#);
    assert_eq!(s.ok(json!({"setting": "model"})).await, r#"model = "haiku""#);
    // A mode Config would not set is still reported as it is.
    assert_eq!(
        s.ok(json!({"setting": "permissions.defaultMode"})).await,
        r#"permissions.defaultMode = "bypassPermissions""#
    );

    // A value of the wrong shape is ignored, as the settings loader ignores it.
    put(&s.local, r#"{"model": 3, "cleanupPeriodDays": -1}"#);
    assert_eq!(s.ok(json!({"setting": "model"})).await, r#"model = "sonnet""#);
    assert_eq!(s.ok(json!({"setting": "cleanupPeriodDays"})).await, "cleanupPeriodDays = 7");

    // --settings wins over every file, as text or as a file.
    let mut flagged = s.config.clone();
    flagged.flag_settings = Some(r#"{"model": "claude-opus-4-1"}"#.into());
    let done = call_tool(tool_with(flagged.clone()).as_ref(), "t", json!({"setting": "model"}), &s.ctx).await;
    assert_eq!(done.block.content.text(), r#"model = "claude-opus-4-1""#);
    let data = done.data.unwrap().to_json();
    assert_eq!(
        data,
        json!({"success": true, "operation": "get", "setting": "model", "value": "claude-opus-4-1", "file": "--settings"})
    );
    let flag_file = s.local.with_file_name("flag.json");
    put(&flag_file, r#"{"lsp": {"enabled": false}}"#);
    flagged.flag_settings = Some(flag_file.display().to_string());
    let done = call_tool(tool_with(flagged).as_ref(), "t", json!({"setting": "lsp.enabled"}), &s.ctx).await;
    assert_eq!(done.block.content.text(), "lsp.enabled = false");
    assert_eq!(done.data.unwrap().to_json()["file"], json!(flag_file.display().to_string()));
}

#[tokio::test]
async fn a_write_keeps_the_other_keys_in_their_order() {
    let s = Setup::new();
    let before = r#"{
    "theme": "dark",
    "permissions": {
        "allow": ["Bash(npm test:*)"],
        "defaultMode": "plan",
        "deny": ["Read(./.env)"]
    },
    "model": "sonnet",
    "zeta": {"nested": [1, 2, {"x": null}]}
}"#;
    put(&s.user, before);
    let text = s.ok(json!({"setting": "permissions.defaultMode", "value": "acceptEdits"})).await;
    assert_eq!(text, r#"Set permissions.defaultMode to "acceptEdits""#);
    // Same keys, same order, the one value changed; two-space JSON and a final newline.
    assert_eq!(
        read(&s.user),
        r#"{
  "theme": "dark",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ],
    "defaultMode": "acceptEdits",
    "deny": [
      "Read(./.env)"
    ]
  },
  "model": "sonnet",
  "zeta": {
    "nested": [
      1,
      2,
      {
        "x": null
      }
    ]
  }
}
"#
    );
    // A new top-level key goes last; a new nested object is created.
    s.ok(json!({"setting": "cleanupPeriodDays", "value": 14})).await;
    s.ok(json!({"setting": "lsp.diagnostics", "value": false})).await;
    let written: Value = serde_json::from_str(&read(&s.user)).unwrap();
    let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["theme", "permissions", "model", "zeta", "cleanupPeriodDays", "lsp"]);
    assert_eq!(written["lsp"], json!({"diagnostics": false}));
    assert_eq!(written["cleanupPeriodDays"], json!(14));
    // No temporary file is left beside it; the lock writers take stays (empty).
    let mut names: Vec<String> = std::fs::read_dir(s.user.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".settings.json.lock", "settings.json"]);
}

#[tokio::test]
async fn a_write_creates_the_file_and_goes_to_the_settings_own_file() {
    let s = Setup::new();
    assert!(!s.user.exists() && !s.local.exists());
    let done = call_tool(s.tool().as_ref(), "t", json!({"setting": "model", "value": "opus"}), &s.ctx).await;
    assert_eq!(done.block.content.text(), r#"Set model to "opus""#);
    assert_eq!(
        done.data.unwrap().to_json(),
        json!({"success": true, "operation": "set", "setting": "model", "newValue": "opus", "file": s.user.display().to_string()})
    );
    assert_eq!(read(&s.user), "{\n  \"model\": \"opus\"\n}\n");
    // The sandbox switches and the plans folder belong to this checkout.
    assert_eq!(s.ok(json!({"setting": "sandbox.enabled", "value": true})).await, "Set sandbox.enabled to true");
    assert_eq!(
        s.ok(json!({"setting": "plansDirectory", "value": "docs/plans"})).await,
        r#"Set plansDirectory to "docs/plans""#
    );
    assert_eq!(
        read(&s.local),
        "{\n  \"sandbox\": {\n    \"enabled\": true\n  },\n  \"plansDirectory\": \"docs/plans\"\n}\n"
    );
    assert!(!s.shared.exists(), "the shared project file is never written");
    assert_eq!(read(&s.user), "{\n  \"model\": \"opus\"\n}\n");
    // The previous value is reported.
    let done = call_tool(s.tool().as_ref(), "t", json!({"setting": "sandbox.enabled", "value": "false"}), &s.ctx).await;
    assert_eq!(done.block.content.text(), "Set sandbox.enabled to false");
    assert_eq!(done.data.unwrap().to_json()["previousValue"], json!(true));
    assert_eq!(s.ok(json!({"setting": "sandbox.enabled"})).await, "sandbox.enabled = false");
}

#[tokio::test]
async fn strings_become_booleans_and_numbers() {
    let s = Setup::new();
    assert_eq!(s.ok(json!({"setting": "lsp.enabled", "value": "true"})).await, "Set lsp.enabled to true");
    assert_eq!(
        s.ok(json!({"setting": "lsp.builtinServers", "value": "FALSE"})).await,
        "Set lsp.builtinServers to false"
    );
    assert_eq!(s.ok(json!({"setting": "cleanupPeriodDays", "value": "45"})).await, "Set cleanupPeriodDays to 45");
    let written: Value = serde_json::from_str(&read(&s.user)).unwrap();
    assert_eq!(written, json!({"lsp": {"enabled": true, "builtinServers": false}, "cleanupPeriodDays": 45}));
}

#[tokio::test]
async fn wrong_values_are_refused_and_nothing_is_written() {
    let s = Setup::new();
    put(&s.user, r#"{"model": "sonnet"}"#);
    let cases = [
        (
            json!({"setting": "lsp.enabled", "value": "yes"}),
            r#"Error: Invalid value "yes" for lsp.enabled: expected true or false"#,
        ),
        (
            json!({"setting": "lsp.enabled", "value": 1}),
            "Error: Invalid value 1 for lsp.enabled: expected true or false",
        ),
        (
            json!({"setting": "permissions.defaultMode", "value": "bypassPermissions"}),
            r#"Error: Invalid value "bypassPermissions" for permissions.defaultMode. Options: default, acceptEdits, plan, dontAsk"#,
        ),
        (
            json!({"setting": "permissions.defaultMode", "value": true}),
            "Error: Invalid value true for permissions.defaultMode. Options: default, acceptEdits, plan, dontAsk",
        ),
        (
            json!({"setting": "model", "value": "  "}),
            r#"Error: Invalid value "  " for model: expected a non-empty string"#,
        ),
        (json!({"setting": "model", "value": 4}), "Error: Invalid value 4 for model: expected a non-empty string"),
        (
            json!({"setting": "cleanupPeriodDays", "value": -2}),
            "Error: Invalid value -2 for cleanupPeriodDays: expected a whole number, 0 or more",
        ),
        (
            json!({"setting": "cleanupPeriodDays", "value": 2.5}),
            "Error: Invalid value 2.5 for cleanupPeriodDays: expected a whole number, 0 or more",
        ),
        (
            json!({"setting": "cleanupPeriodDays", "value": "soon"}),
            r#"Error: Invalid value "soon" for cleanupPeriodDays: expected a whole number, 0 or more"#,
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(s.err(input).await, expected);
    }
    assert_eq!(read(&s.user), r#"{"model": "sonnet"}"#);
    // The schema refuses other JSON types and unknown fields before the tool runs.
    let text = s.err(json!({"setting": "model", "value": ["opus"]})).await;
    assert!(text.starts_with("<tool_use_error>InputValidationError: "), "{text}");
    let text = s.err(json!({"setting": "model", "scope": "user"})).await;
    assert!(text.contains("An unexpected parameter `scope` was provided"), "{text}");
}

#[tokio::test]
async fn an_unknown_setting_lists_the_supported_ones() {
    let s = Setup::new();
    let expected = "Error: Unknown setting: \"theme\". Supported settings: model, permissions.defaultMode, \
                    cleanupPeriodDays, plansDirectory, lsp.enabled, lsp.diagnostics, lsp.builtinServers, \
                    sandbox.enabled, sandbox.autoAllowBashIfSandboxed, sandbox.allowUnsandboxedCommands";
    assert_eq!(s.err(json!({"setting": "theme"})).await, expected);
    assert_eq!(s.err(json!({"setting": "theme", "value": "dark"})).await, expected);
    assert!(s.err(json!({"setting": "Model"})).await.starts_with("Error: Unknown setting: \"Model\"."));
    assert!(!s.user.exists() && !s.local.exists());
}

#[tokio::test]
async fn a_broken_settings_file_is_reported_and_left_alone() {
    let s = Setup::new();
    put(&s.user, "{ \"model\": ");
    let text = s.err(json!({"setting": "model", "value": "opus"})).await;
    let path = s.user.display();
    assert!(text.starts_with(&format!("Error: {path} is not valid JSON (")), "{text}");
    assert!(text.ends_with("); fix or remove it first"), "{text}");
    assert_eq!(read(&s.user), "{ \"model\": ");
    // A read cannot know the value in effect either.
    assert!(s.err(json!({"setting": "model"})).await.starts_with(&format!("Error: {path} is not valid JSON (")));
    put(&s.user, "[]");
    assert_eq!(
        s.err(json!({"setting": "model", "value": "opus"})).await,
        format!("Error: {path} does not hold a JSON object; fix or remove it first")
    );
    put(&s.user, r#"{"lsp": true}"#);
    assert_eq!(
        s.err(json!({"setting": "lsp.enabled", "value": true})).await,
        format!("Error: {path}: \"lsp\" is not a JSON object, so nothing can be set inside it")
    );
    assert_eq!(read(&s.user), r#"{"lsp": true}"#);
    // An empty file counts as no settings.
    put(&s.user, "");
    assert_eq!(s.ok(json!({"setting": "model", "value": "opus"})).await, r#"Set model to "opus""#);
}

#[tokio::test]
async fn a_file_of_higher_precedence_is_pointed_out() {
    let s = Setup::new();
    put(&s.local, r#"{"model": "haiku"}"#);
    let text = s.ok(json!({"setting": "model", "value": "opus"})).await;
    assert_eq!(
        text,
        format!(
            "Set model to \"opus\"\n\nNote: {} sets model to \"haiku\", and it takes precedence, so that value stays in effect.",
            s.local.display()
        )
    );
    // The same value there is no conflict.
    put(&s.local, r#"{"model": "opus"}"#);
    assert_eq!(s.ok(json!({"setting": "model", "value": "opus"})).await, r#"Set model to "opus""#);
}

#[tokio::test]
async fn without_the_file_a_setting_cannot_be_changed() {
    let home = tempfile::tempdir().unwrap();
    let config =
        ConfigToolConfig { user_settings: Some(home.path().join(".claude/settings.json")), ..Default::default() };
    let tool = tool_with(config);
    assert!(tool.is_enabled());
    let ctx = ToolUseContext::new(home.path());
    let done = call_tool(tool.as_ref(), "t", json!({"setting": "sandbox.enabled", "value": true}), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(
        done.block.content.text(),
        "Error: Cannot set sandbox.enabled: no .claude/settings.local.json file is configured for this session"
    );
    // Nothing to ask about a change that cannot be written.
    let parsed = tool.parse(json!({"setting": "sandbox.enabled", "value": true})).unwrap();
    assert_eq!(tool.check_permissions(&parsed, &ctx).await, PermissionResult::allow());
    assert!(!tool_with(ConfigToolConfig::default()).is_enabled(), "nothing to read or write");
}

#[tokio::test]
async fn reads_are_allowed_and_changes_ask() {
    let s = Setup::new();
    let tool = s.tool();
    let decide = |input: Value| {
        let tool = tool.clone();
        let ctx = s.ctx.clone();
        async move {
            let parsed = tool.parse(input).unwrap();
            tool.check_permissions(&parsed, &ctx).await
        }
    };
    assert_eq!(decide(json!({"setting": "model"})).await, PermissionResult::allow());
    // A change is a safety check on the settings file: asked even in bypass mode, never left to
    // the auto mode's classifier.
    let model = decide(json!({"setting": "model", "value": "opus"})).await;
    let PermissionResult::Ask { message, decision_reason, blocked_path, .. } = &model else { panic!("{model:?}") };
    assert_eq!(
        message,
        &format!(
            r#"Config asks to set model to "opus" in {}. Until that is approved, the setting is not changed."#,
            s.user.display()
        )
    );
    assert_eq!(blocked_path.as_deref(), Some(s.user.to_str().unwrap()));
    assert!(matches!(
        decision_reason,
        Some(agent_tools_core::PermissionDecisionReason::SafetyCheck { classifier_approvable: false, .. })
    ));
    // The question shows the value as it will be written.
    assert_eq!(
        decide(json!({"setting": "sandbox.enabled", "value": "false"})).await.message().map(|m| m.split(" in ").next()),
        Some(Some("Config asks to set sandbox.enabled to false"))
    );
    assert_eq!(
        decide(json!({"setting": "cleanupPeriodDays", "value": 10})).await.message().map(|m| m.split(" in ").next()),
        Some(Some("Config asks to set cleanupPeriodDays to 10"))
    );
    // A change that will fail writes nothing, so there is nothing to ask.
    assert_eq!(decide(json!({"setting": "theme", "value": "dark"})).await, PermissionResult::allow());
    assert_eq!(decide(json!({"setting": "lsp.enabled", "value": "maybe"})).await, PermissionResult::allow());
    // Read-only and concurrency-safe by input, as in Claude Code.
    let get = tool.parse(json!({"setting": "model"})).unwrap();
    let set = tool.parse(json!({"setting": "model", "value": "opus"})).unwrap();
    assert!(tool.is_read_only(&get) && !tool.is_read_only(&set));
    assert!(tool.is_concurrency_safe(&get) && tool.is_concurrency_safe(&set));
    assert!(!tool.is_destructive(&set));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_to_one_file_all_land() {
    let s = Setup::new();
    put(&s.user, r#"{"keep": 1}"#);
    let inputs = [
        json!({"setting": "model", "value": "opus"}),
        json!({"setting": "permissions.defaultMode", "value": "plan"}),
        json!({"setting": "cleanupPeriodDays", "value": 3}),
        json!({"setting": "lsp.enabled", "value": true}),
        json!({"setting": "lsp.diagnostics", "value": false}),
        json!({"setting": "lsp.builtinServers", "value": true}),
    ];
    let mut calls = Vec::new();
    for input in inputs {
        let tool = s.tool();
        let ctx = s.ctx.clone();
        calls.push(tokio::spawn(async move { call_tool(tool.as_ref(), "t", input, &ctx).await.block.is_error }));
    }
    for call in calls {
        assert!(!call.await.unwrap());
    }
    let written: Value = serde_json::from_str(&read(&s.user)).unwrap();
    assert_eq!(written["keep"], json!(1));
    assert_eq!(written["model"], json!("opus"));
    assert_eq!(written["permissions"], json!({"defaultMode": "plan"}));
    assert_eq!(written["cleanupPeriodDays"], json!(3));
    assert_eq!(written["lsp"].as_object().unwrap().len(), 3);
}

#[test]
fn contract_members_and_prompt() {
    let s = Setup::new();
    let tool = s.tool();
    assert_eq!(tool.name(), "Config");
    assert_eq!(agent_tool_config::NAME, "Config");
    assert!(tool.should_defer());
    let flags = tool.flags();
    assert!(!flags.read_only && flags.concurrency_safe && !flags.destructive && !flags.open_world);
    let schema = tool.input_schema();
    assert_eq!(
        *schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "setting": {
                    "description": "The setting's name, with dots for nested keys (e.g. \"model\", \"permissions.defaultMode\",\n\"lsp.enabled\").",
                    "type": "string"
                },
                "value": {
                    "description": "The new value. Leave it out to read the current value.",
                    "type": ["string", "boolean", "number"]
                }
            },
            "required": ["setting"],
            "additionalProperties": false
        })
    );
    let description = tool.description(&agent_tools_core::PromptOptions::default());
    for setting in SETTINGS {
        assert!(description.contains(&format!("- `{}` (", setting.key)), "{}", setting.key);
    }
    assert!(description.contains(
        "- `permissions.defaultMode` (one of: default, acceptEdits, plan, dontAsk; saved in ~/.claude/settings.json): "
    ));
    assert!(description.contains("- `sandbox.enabled` (boolean; saved in .claude/settings.local.json): "));
    let set = tool.parse(json!({"setting": "model", "value": "opus"})).unwrap();
    assert_eq!(tool.summary(&set), r#"Set model to "opus""#);
    assert_eq!(tool.summary(&tool.parse(json!({"setting": "model"})).unwrap()), "Get model");
}
