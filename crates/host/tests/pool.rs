//! Pool composition: features, deny rules, sorting, MCP tools.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_tools_core::permissions::{PermissionBehavior, PermissionRuleSource, ToolPermissionContext};
use agent_tools_host::{HostConfig, assemble_tool_pool, filter_tools_by_deny_rules, get_all_base_tools, get_tools};

fn names(tools: &[std::sync::Arc<dyn agent_tools_core::Tool>]) -> Vec<String> {
    tools.iter().map(|tool| tool.name().to_owned()).collect()
}

fn deny(rule: &str) -> ToolPermissionContext {
    ToolPermissionContext::default().with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, rule)
}

/// The tools each feature contributes, in base order.
fn compiled() -> Vec<&'static str> {
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
    if cfg!(feature = "file-read") {
        expected.push("Read");
    }
    if cfg!(feature = "file-edit") {
        expected.push("Edit");
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
    if cfg!(feature = "todo-write") {
        expected.push("TodoWrite");
    }
    if cfg!(feature = "task-stop") {
        expected.push("TaskStop");
    }
    if cfg!(feature = "enter-worktree") {
        expected.push("EnterWorktree");
    }
    if cfg!(feature = "exit-worktree") {
        expected.push("ExitWorktree");
    }
    // PowerShell also needs a pwsh, which the default config does not name.
    if cfg!(feature = "powershell") && HostConfig::default().pwsh.is_some() {
        expected.push("PowerShell");
    }
    expected
}

#[test]
fn base_tools_are_exactly_the_compiled_features_in_claude_codes_order() {
    assert_eq!(names(&get_all_base_tools(&HostConfig::default())), compiled());
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
    assert!(!same_name[0].is_mcp(), "the built-in must win");
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
    HostConfig { pwsh: Some(std::path::PathBuf::from("/usr/bin/pwsh")), ..HostConfig::default() }
}

#[test]
fn powershell_is_in_the_pool_only_with_a_pwsh_and_last_in_base_order() {
    let without = names(&get_all_base_tools(&HostConfig::default()));
    assert!(!without.contains(&"PowerShell".to_owned()));
    let with = names(&get_all_base_tools(&with_pwsh()));
    let mut expected = compiled();
    if cfg!(feature = "powershell") {
        expected.push("PowerShell");
    }
    assert_eq!(with, expected);
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
    assert_eq!(names(&get_all_base_tools(&config)), compiled());
}
