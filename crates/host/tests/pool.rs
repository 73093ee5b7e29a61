//! Pool composition: features, deny rules, sorting, MCP tools.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_tools_core::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
use agent_tools_host::{HostConfig, assemble_tool_pool, filter_tools_by_deny_rules, get_all_base_tools, get_tools};

fn names(tools: &[std::sync::Arc<dyn agent_tools_core::Tool>]) -> Vec<String> {
    tools.iter().map(|tool| tool.name().to_owned()).collect()
}

fn deny(rule: &str) -> ToolPermissionContext {
    ToolPermissionContext::default().with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, rule)
}

/// The tools each feature contributes with the default config, in base order.
fn compiled() -> Vec<&'static str> {
    compiled_with(&HostConfig::default())
}

/// The tools each feature contributes under `config`, in base order.
fn compiled_with(config: &HostConfig) -> Vec<&'static str> {
    let mut expected = Vec::new();
    if cfg!(feature = "task-output") {
        expected.push("TaskOutput");
    }
    if cfg!(feature = "bash") {
        expected.push("Bash");
    }
    if cfg!(feature = "glob") {
        expected.push("Glob");
    }
    if cfg!(feature = "grep") {
        expected.push("Grep");
    }
    if cfg!(feature = "exit-plan-mode") {
        expected.push("ExitPlanMode");
    }
    if cfg!(feature = "file-read") {
        expected.push("Read");
    }
    if cfg!(feature = "file-edit") {
        expected.push("Edit");
    }
    if cfg!(feature = "multi-edit") {
        expected.push("MultiEdit");
    }
    if cfg!(feature = "file-write") {
        expected.push("Write");
    }
    if cfg!(feature = "notebook-edit") {
        expected.push("NotebookEdit");
    }
    if cfg!(feature = "web-fetch") {
        expected.push("WebFetch");
    }
    // Task list V2 replaces TodoWrite (Claude Code's `isTodoV2Enabled()`).
    if cfg!(feature = "todo-write") && !config.todo_v2 {
        expected.push("TodoWrite");
    }
    // WebSearch needs an API key (Claude Code's `isEnabled`).
    if cfg!(feature = "web-search") && config.small_model.as_ref().is_some_and(|model| !model.api_key.is_empty()) {
        expected.push("WebSearch");
    }
    if cfg!(feature = "task-stop") {
        expected.push("TaskStop");
    }
    if cfg!(feature = "ask-user-question") {
        expected.push("AskUserQuestion");
    }
    if cfg!(feature = "skill") {
        expected.push("Skill");
    }
    if cfg!(feature = "enter-plan-mode") {
        expected.push("EnterPlanMode");
    }
    // Config needs a settings file it may write (the session names them).
    if has_settings_file(config) {
        expected.push("Config");
    }
    if config.todo_v2 {
        let features = [
            cfg!(feature = "task-create"),
            cfg!(feature = "task-get"),
            cfg!(feature = "task-update"),
            cfg!(feature = "task-list"),
        ];
        expected.extend(TASK_V2.iter().zip(features).filter(|(_, on)| *on).map(|(name, _)| *name));
    }
    if cfg!(feature = "enter-worktree") {
        expected.push("EnterWorktree");
    }
    if cfg!(feature = "exit-worktree") {
        expected.push("ExitWorktree");
    }
    // Claude Code's late block: Sleep, the cron tools, RemoteTrigger, Monitor, SendUserMessage.
    if cfg!(feature = "sleep") {
        expected.push("Sleep");
    }
    for (on, name) in [
        (cfg!(feature = "cron-create"), "CronCreate"),
        (cfg!(feature = "cron-delete"), "CronDelete"),
        (cfg!(feature = "cron-list"), "CronList"),
    ] {
        if on && !config.disable_cron {
            expected.push(name);
        }
    }
    if has_triggers_endpoint(config) {
        expected.push("RemoteTrigger");
    }
    if cfg!(feature = "monitor") && !config.disable_background_tasks {
        expected.push("Monitor");
    }
    if cfg!(feature = "send-user-message") && config.brief {
        expected.push("SendUserMessage");
    }
    // PowerShell also needs a pwsh, which the default config does not name.
    if has_pwsh(config) {
        expected.push("PowerShell");
    }
    // ToolSearch comes last, after the conditional tools, unless tool search is off.
    if cfg!(feature = "tool-search") && config.tool_search.is_on() {
        expected.push("ToolSearch");
    }
    expected
}

/// The task list V2 tools, in Claude Code's order.
const TASK_V2: [&str; 4] = ["TaskCreate", "TaskGet", "TaskUpdate", "TaskList"];

/// Task list V2 switched on (Claude Code's interactive sessions, or `CLAUDE_CODE_ENABLE_TASKS`).
fn todo_v2() -> HostConfig {
    HostConfig { todo_v2: true, ..HostConfig::default() }
}

#[test]
fn base_tools_are_exactly_the_compiled_features_in_claude_codes_order() {
    assert_eq!(names(&get_all_base_tools(&HostConfig::default())), compiled());
    assert_eq!(names(&get_all_base_tools(&todo_v2())), compiled_with(&todo_v2()));
    let both = HostConfig { todo_v2: true, ..with_pwsh() };
    assert_eq!(names(&get_all_base_tools(&both)), compiled_with(&both));
    let off = HostConfig { tool_search: agent_tools_host::ToolSearchMode::Off, ..with_pwsh() };
    assert_eq!(names(&get_all_base_tools(&off)), compiled_with(&off));
    assert!(!names(&get_all_base_tools(&off)).contains(&"ToolSearch".to_owned()));
}

/// A session with an Anthropic API key (for WebSearch).
fn with_key() -> HostConfig {
    HostConfig {
        small_model: Some(agent_tools_host::SmallModelConfig { api_key: "sk-test".into(), ..Default::default() }),
        ..HostConfig::default()
    }
}

#[test]
fn web_search_is_in_the_pool_only_with_an_api_key() {
    let keyed = with_key();
    assert_eq!(names(&get_all_base_tools(&keyed)), compiled_with(&keyed));
    let pool = names(&assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &keyed));
    assert_eq!(pool.contains(&"WebSearch".to_owned()), cfg!(feature = "web-search"));
    let mut expected = compiled_with(&keyed);
    expected.sort_unstable();
    assert_eq!(pool, expected);
    let keyless = names(&assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default()));
    assert!(!keyless.contains(&"WebSearch".to_owned()));
    let empty_key =
        HostConfig { small_model: Some(agent_tools_host::SmallModelConfig::default()), ..HostConfig::default() };
    assert!(!names(&get_all_base_tools(&empty_key)).contains(&"WebSearch".to_owned()));
    if cfg!(feature = "web-search") {
        // Right after TodoWrite (or WebFetch), before TaskStop, as in Claude Code.
        let base = names(&get_all_base_tools(&keyed));
        let at = base.iter().position(|name| name == "WebSearch").unwrap();
        if cfg!(feature = "todo-write") {
            assert_eq!(base[at - 1], "TodoWrite");
        }
        if cfg!(feature = "task-stop") {
            assert_eq!(base[at + 1], "TaskStop");
        }
        let search = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &keyed)
            .into_iter()
            .find(|tool| tool.name() == "WebSearch")
            .unwrap();
        assert!(search.should_defer() && search.flags().read_only && search.flags().concurrency_safe);
        // A tool-wide deny rule removes it like any other tool.
        assert!(!names(&get_tools(&deny("WebSearch"), &keyed)).contains(&"WebSearch".to_owned()));
    }
}

#[test]
fn task_list_v2_replaces_todo_write() {
    let off = names(&get_all_base_tools(&HostConfig::default()));
    let on = names(&get_all_base_tools(&todo_v2()));
    assert!(off.iter().all(|name| !TASK_V2.contains(&name.as_str())));
    assert!(!on.contains(&"TodoWrite".to_owned()));
    assert_eq!(off.contains(&"TodoWrite".to_owned()), cfg!(feature = "todo-write"));
    assert_eq!(on.contains(&"TaskCreate".to_owned()), cfg!(feature = "task-create"));
    assert_eq!(on.contains(&"TaskList".to_owned()), cfg!(feature = "task-list"));
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &todo_v2());
    let mut expected = compiled_with(&todo_v2());
    expected.sort_unstable();
    assert_eq!(names(&pool), expected);
    // The Task* tools are deferred (their schemas load through ToolSearch), like TodoWrite.
    for tool in pool.iter().filter(|tool| TASK_V2.contains(&tool.name())) {
        assert!(tool.should_defer() && tool.flags().concurrency_safe, "{}", tool.name());
    }
    // Simple mode keeps none of them.
    let simple = HostConfig { simple: true, ..todo_v2() };
    assert!(
        names(&get_tools(&ToolPermissionContext::default(), &simple))
            .iter()
            .all(|name| !TASK_V2.contains(&name.as_str()))
    );
    if cfg!(feature = "task-update") {
        assert!(names(&get_tools(&deny("TaskUpdate"), &todo_v2())).iter().all(|name| name != "TaskUpdate"));
    }
}

/// Create, update and list through the executor, on the folder the context names.
#[cfg(all(feature = "task-create", feature = "task-update", feature = "task-list"))]
#[tokio::test]
async fn the_task_tools_share_the_list_the_context_names() {
    use agent_tools_core::ToolUseBlock;
    let tasks = tempfile::tempdir().unwrap();
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &todo_v2());
    let mut ctx = agent_tools_core::ToolUseContext::new(tasks.path());
    ctx.options.tasks_dir = Some(tasks.path().to_path_buf());
    ctx.options.task_list_id = Some("shared".into());
    async fn run(
        pool: &[std::sync::Arc<dyn agent_tools_core::Tool>],
        ctx: &agent_tools_core::ToolUseContext,
        name: &str,
        input: serde_json::Value,
    ) -> String {
        let block = ToolUseBlock { id: "toolu_1".into(), name: name.into(), input };
        agent_tools_host::run_tool_use(pool, &block, ctx).await.block.content.text()
    }
    let text = |name: &'static str, input: serde_json::Value| run(&pool, &ctx, name, input);
    assert_eq!(
        text("TaskCreate", serde_json::json!({"subject": "Build", "description": "b"})).await,
        "Task #1 created successfully: Build"
    );
    text("TaskCreate", serde_json::json!({"subject": "Ship", "description": "s"})).await;
    assert_eq!(
        text("TaskUpdate", serde_json::json!({"taskId": "2", "addBlockedBy": ["1"], "owner": "me"})).await,
        "Updated task #2 owner, blockedBy"
    );
    assert_eq!(
        text("TaskList", serde_json::json!({})).await,
        "#1 [pending] Build\n#2 [pending] Ship (me) [blocked by #1]"
    );
    assert!(tasks.path().join("shared/2.json").is_file());
}

/// With `--no-default-features --features grep,glob` (as `cargo xtask ci` runs it) this is the
/// pool of exactly `[Glob, Grep]`.
#[test]
fn the_assembled_pool_is_the_compiled_tools_sorted_by_name() {
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let mut expected = compiled();
    expected.sort_unstable();
    assert_eq!(names(&pool), expected);
}

#[cfg(feature = "grep")]
#[test]
fn a_deny_rule_naming_grep_removes_grep() {
    let tools = get_tools(&deny("Grep"), &HostConfig::default());
    assert!(!names(&tools).contains(&"Grep".to_owned()));
    assert_eq!(tools.len(), compiled().len() - 1);
    // A content rule never removes the tool.
    let tools = get_tools(&deny("Grep(secret/**)"), &HostConfig::default());
    assert!(names(&tools).contains(&"Grep".to_owned()));
}

#[test]
fn simple_mode_keeps_only_bash_read_and_edit() {
    let config = HostConfig { simple: true, ..HostConfig::default() };
    let expected: Vec<&str> = compiled().into_iter().filter(|name| ["Bash", "Read", "Edit"].contains(name)).collect();
    assert_eq!(names(&get_tools(&ToolPermissionContext::default(), &config)), expected);
}

#[test]
fn built_ins_come_first_sorted_then_mcp_tools_sorted() {
    let mcp = vec![common::mcp_tool("srv", "mcp__srv__zeta"), common::mcp_tool("srv", "mcp__srv__alpha")];
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), mcp, &HostConfig::default());
    let mut built_ins: Vec<String> = compiled().into_iter().map(str::to_owned).collect();
    built_ins.sort();
    let expected: Vec<String> =
        built_ins.into_iter().chain(["mcp__srv__alpha".into(), "mcp__srv__zeta".into()]).collect();
    assert_eq!(names(&pool), expected);
}

#[test]
fn an_mcp_tool_with_a_built_in_name_loses_to_the_built_in() {
    let Some(first) = get_all_base_tools(&HostConfig::default()).into_iter().next() else { return };
    let impostor = common::mcp_tool("evil", first.name());
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), vec![impostor], &HostConfig::default());
    let same_name: Vec<_> = pool.iter().filter(|tool| tool.name() == first.name()).collect();
    assert_eq!(same_name.len(), 1);
    assert!(same_name[0].mcp_info().is_none(), "the built-in must win");
}

#[test]
fn server_wide_deny_rules_remove_every_tool_of_that_server() {
    let tools = vec![
        common::mcp_tool("github", "mcp__github__create_issue"),
        common::mcp_tool("github", "mcp__github__list"),
        common::mcp_tool("jira", "mcp__jira__list"),
    ];
    assert_eq!(names(&filter_tools_by_deny_rules(tools.clone(), &deny("mcp__github"))), ["mcp__jira__list"]);
    assert_eq!(names(&filter_tools_by_deny_rules(tools.clone(), &deny("mcp__github__*"))), ["mcp__jira__list"]);
    assert_eq!(
        names(&filter_tools_by_deny_rules(tools, &deny("mcp__github__list"))),
        ["mcp__github__create_issue", "mcp__jira__list"]
    );
}

#[cfg(feature = "bash")]
#[test]
fn without_background_tasks_bash_has_no_run_in_background() {
    let schema_keys = |config: &HostConfig| -> Vec<String> {
        let tools = get_all_base_tools(config);
        let bash = tools.iter().find(|tool| tool.name() == "Bash").unwrap();
        bash.input_schema()["properties"].as_object().unwrap().keys().cloned().collect()
    };
    assert!(schema_keys(&HostConfig::default()).contains(&"run_in_background".to_owned()));
    let off = HostConfig { disable_background_tasks: true, ..HostConfig::default() };
    assert!(!schema_keys(&off).contains(&"run_in_background".to_owned()));
}

/// A config naming a `pwsh` (the host trusts the path it is given; the CLI finds it on `PATH`).
fn with_pwsh() -> HostConfig {
    #[allow(unused_mut)]
    let mut config = HostConfig::default();
    #[cfg(feature = "powershell")]
    config.tools.insert(agent_tool_powershell::PowerShellConfig {
        shell: Some(std::path::PathBuf::from("/usr/bin/pwsh")),
        ..Default::default()
    });
    config
}

/// Whether Config's options name a settings file it may write.
fn has_settings_file(config: &HostConfig) -> bool {
    #[cfg(feature = "config")]
    return config
        .tools
        .get::<agent_tool_config::ConfigToolConfig>()
        .is_some_and(|files| files.user_settings.is_some() || files.local_settings.is_some());
    #[cfg(not(feature = "config"))]
    return {
        let _ = config;
        false
    };
}

/// Whether RemoteTrigger's options name an endpoint.
fn has_triggers_endpoint(config: &HostConfig) -> bool {
    #[cfg(feature = "remote-trigger")]
    return config.tools.get::<agent_tool_remote_trigger::RemoteTriggerConfig>().is_some();
    #[cfg(not(feature = "remote-trigger"))]
    return {
        let _ = config;
        false
    };
}

/// Whether PowerShell's options name a `pwsh`.
fn has_pwsh(config: &HostConfig) -> bool {
    #[cfg(feature = "powershell")]
    return config
        .tools
        .get::<agent_tool_powershell::PowerShellConfig>()
        .is_some_and(|options| options.shell.is_some());
    #[cfg(not(feature = "powershell"))]
    return {
        let _ = config;
        false
    };
}

#[test]
fn powershell_is_in_the_pool_only_with_a_pwsh_and_last_in_base_order() {
    let without = names(&get_all_base_tools(&HostConfig::default()));
    assert!(!without.contains(&"PowerShell".to_owned()));
    let with = names(&get_all_base_tools(&with_pwsh()));
    let mut expected = compiled_with(&with_pwsh());
    assert_eq!(with, expected);
    // Last of the conditional tools; only ToolSearch follows it.
    if cfg!(feature = "powershell") {
        let tail = if cfg!(feature = "tool-search") { 2 } else { 1 };
        assert_eq!(with[with.len() - tail], "PowerShell");
    }
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &with_pwsh());
    expected.sort_unstable();
    assert_eq!(names(&pool), expected);
    if cfg!(feature = "powershell") {
        assert!(names(&get_tools(&deny("PowerShell"), &with_pwsh())).iter().all(|name| name != "PowerShell"));
        assert!(names(&get_tools(&deny("PowerShell(Remove-Item:*)"), &with_pwsh())).contains(&"PowerShell".to_owned()));
    }
}

#[cfg(feature = "powershell")]
#[test]
fn powershell_follows_the_background_switch() {
    let schema_keys = |config: &HostConfig| -> Vec<String> {
        let tools = get_all_base_tools(config);
        let tool = tools.iter().find(|tool| tool.name() == "PowerShell").unwrap();
        assert!(tool.is_enabled());
        tool.input_schema()["properties"].as_object().unwrap().keys().cloned().collect()
    };
    assert!(schema_keys(&with_pwsh()).contains(&"run_in_background".to_owned()));
    let off = HostConfig { disable_background_tasks: true, ..with_pwsh() };
    assert!(!schema_keys(&off).contains(&"run_in_background".to_owned()));
}

#[test]
fn pwsh_is_looked_up_on_the_search_path_given() {
    use std::os::unix::fs::PermissionsExt as _;
    let bin = tempfile::tempdir().unwrap();
    let pwsh = bin.path().join("pwsh");
    std::fs::write(&pwsh, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&pwsh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let expected = cfg!(feature = "powershell").then_some(pwsh);
    assert_eq!(agent_tools_host::find_pwsh(Some(bin.path().as_os_str())), expected);
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(agent_tools_host::find_pwsh(Some(empty.path().as_os_str())), None);
}

#[test]
fn the_small_models_key_is_never_printed_and_web_fetch_is_built_with_it() {
    let config = HostConfig {
        small_model: Some(agent_tools_host::SmallModelConfig {
            api_key: "sk-secret-key".into(),
            base_url: Some("http://127.0.0.1:9".into()),
            model: None,
        }),
        ..HostConfig::default()
    };
    assert!(!format!("{config:?}").contains("sk-secret-key"));
    // The key also brings WebSearch in.
    assert_eq!(names(&get_all_base_tools(&config)), compiled_with(&config));
}

/// The late tools follow their switches: no cron tools with `CLAUDE_CODE_DISABLE_CRON`, no
/// Monitor without background tasks, RemoteTrigger only with a usable endpoint, SendUserMessage
/// only in brief mode, Config only with a settings file to write.
#[test]
fn the_late_tools_follow_their_switches() {
    // Every tool but those of sub-agents, LSP and REPL (their own tests follow them).
    let everything = HostConfig { subagents: false, lsp: false, repl: false, ..agent_tools_host::every_tool_config() };
    assert_eq!(names(&get_all_base_tools(&everything)), compiled_with(&everything));
    let off = HostConfig { disable_cron: true, disable_background_tasks: true, ..everything.clone() };
    assert_eq!(names(&get_all_base_tools(&off)), compiled_with(&off));
    let names_off = names(&get_all_base_tools(&off));
    assert!(!names_off.iter().any(|name| name.starts_with("Cron") || name == "Monitor"), "{names_off:?}");
    // A plain-http endpoint on another host is refused: RemoteTrigger stays out.
    #[cfg(feature = "remote-trigger")]
    {
        let mut insecure = HostConfig::default();
        insecure.tools.insert(agent_tool_remote_trigger::RemoteTriggerConfig::new("http://triggers.example", "t"));
        assert!(!names(&get_all_base_tools(&insecure)).contains(&"RemoteTrigger".to_owned()));
    }
    if cfg!(all(feature = "send-user-message", feature = "sleep")) {
        let base = names(&get_all_base_tools(&everything));
        let sleep = base.iter().position(|name| name == "Sleep").unwrap();
        let brief = base.iter().position(|name| name == "SendUserMessage").unwrap();
        assert!(sleep < brief, "{base:?}");
    }
}
