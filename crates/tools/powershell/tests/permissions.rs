//! The read-only classifier and the permission decisions, with rules, modes and real folders.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tool_powershell::PowerShellConfig;
use agent_tool_powershell::classify::is_read_only;
use agent_tool_powershell::permissions::is_excluded;
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionRuleSource, PermissionUpdate,
    ToolPermissionContext,
};
use agent_tools_core::{PermissionResult, Tool, ToolUseContext};
use serde_json::json;

#[test]
fn read_only_cmdlets_with_literal_arguments_are_read_only() {
    for command in [
        "Get-ChildItem",
        "Get-ChildItem -Recurse -Filter *.rs src",
        "get-childitem -Name",
        "GET-CHILDITEM",
        "gci src",
        "dir",
        "Get-Content README.md",
        "Get-Content -Path 'my notes.txt' -TotalCount 5",
        "gc -Tail 20 log.txt",
        "type Cargo.toml",
        "Get-Location",
        "pwd",
        "Select-String -Pattern 'fn main' -Path src/main.rs",
        "sls TODO -Path:notes.md",
        "Test-Path Cargo.toml",
        "Test-Path -PathType Container src",
        "Get-Item .",
        "Get-Item ..\\other\\file.txt",
        "Measure-Object",
        "Get-Command git",
        "Get-Date",
        "Get-Date -Format yyyy-MM-dd",
        "Get-Date -Format HH:mm",
        "Write-Output hello",
        "echo 'a; b | c > d'",
        "Write-Output \"double, but plain\"",
        "Resolve-Path ./src",
        "Get-FileHash -Algorithm SHA256 Cargo.lock",
        "  Get-Location  ",
    ] {
        assert!(is_read_only(command), "{command}");
    }
}

#[test]
fn anything_else_is_not_read_only() {
    for command in [
        "",
        "   ",
        "Get-ChildItem | Remove-Item",
        "Get-ChildItem | Select-Object -First 3",
        "Get-Content a; Remove-Item a",
        "Get-Content a;Remove-Item a",
        "Get-Date && Remove-Item x",
        "Get-Date || Remove-Item x",
        "Get-Content a > b",
        "Get-Content a >> b",
        "Get-Content a 2>&1",
        "Get-Content a *> b",
        "Get-Content < a",
        "Get-Content $env:HOME/x",
        "Get-Content $HOME",
        "Get-Content $(Remove-Item x)",
        "Get-Content (Remove-Item x)",
        "Get-Content @(1)",
        "Get-ChildItem @params",
        "& Get-Content a",
        "&Get-Content a",
        ". ./profile.ps1",
        ". Get-Date",
        "./script.ps1",
        "Invoke-Expression 'Get-Date'",
        "iex 'Get-Date'",
        "Get-ChildItem { Remove-Item x }",
        "Write-Output \"$(Remove-Item x)\"",
        "Write-Output \"$x\"",
        "Write-Output \"a`nb\"",
        "Write-Output a`",
        "Get-Content a`\nRemove-Item b",
        "Get-Date\nRemove-Item x",
        "Get-Date\r\nRemove-Item x",
        "Get-Date #comment",
        "Get-Content <# x #> a",
        "Get-Content a,b",
        "Get-Content [a]",
        "[IO.File]::Delete('x')",
        "Get-Content Env:SECRET",
        "Get-ChildItem env:",
        "Get-Item HKLM:\\Software",
        "Get-Content -Path:Variable:x",
        "Get-Content C:\\Windows\\win.ini",
        "Get-Content \u{2018}a\u{2019}",
        "Get-Content \u{2013}Path a",
        "Get-Content\u{a0}a",
        "Write-Output a'b'",
        "Write-Output 'a'b",
        "Write-Output 'open",
        "'Get-Date'",
        "\"Get-Date\"",
        "-Get-Date",
        "1 + 1",
        "Remove-Item x",
        "Set-Content a b",
        "New-Item -ItemType File x",
        "Set-Location src",
        "cd src",
        "Start-Process notepad",
        "Out-File x",
        "ls",
        "cat a",
        "write root hello",
        "Get-Help Get-Date -Online",
        "git status",
        "Get-Content a --% $(x)",
        "Get-Content a\t;b",
    ] {
        assert!(!is_read_only(command), "{command:?}");
    }
}

/// A project folder with a `sub` folder and a file, and a context there with these rules.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join("README.md"), "hi").unwrap();
        std::fs::write(root.join(".bashrc"), "").unwrap();
        let root = root.canonicalize().unwrap();
        Self { _dir: dir, root }
    }

    fn ctx(&self, mode: PermissionMode, rules: &[(PermissionBehavior, &str)]) -> ToolUseContext {
        let mut permissions = ToolPermissionContext { mode, ..Default::default() };
        for (behavior, rule) in rules {
            permissions = permissions.with_rule(*behavior, PermissionRuleSource::Session, *rule);
        }
        let mut ctx = ToolUseContext::new(&self.root);
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        ctx.permission_context = Arc::new(permissions);
        ctx
    }
}

fn tool() -> Arc<dyn Tool> {
    agent_tool_powershell::tool_with(PowerShellConfig {
        shell: Some(PathBuf::from("/usr/bin/pwsh")),
        ..PowerShellConfig::default()
    })
}

async fn decide(ctx: &ToolUseContext, command: &str) -> PermissionResult {
    let tool = tool();
    let parsed = tool.parse(json!({"command": command})).unwrap();
    tool.check_permissions(&parsed, ctx).await
}

async fn behavior(ctx: &ToolUseContext, command: &str) -> &'static str {
    decide(ctx, command).await.behavior()
}

use PermissionBehavior::{Allow as A, Ask as K, Deny as D};

#[tokio::test]
async fn deny_rules_win_through_case_aliases_pipelines_and_wrappers() {
    let p = Project::new();
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::BypassPermissions] {
        let ctx = p.ctx(mode, &[(D, "PowerShell(Remove-Item:*)"), (A, "PowerShell(Remove-Item x)"), (A, "PowerShell")]);
        for command in [
            "Remove-Item x",
            "remove-item x",
            "REMOVE-ITEM -Recurse build",
            "rm x",
            "del x",
            "ri x",
            "Get-ChildItem *.tmp | Remove-Item",
            "Write-Output ok; Remove-Item x",
            "Write-Output ok\nRemove-Item x",
            "Get-Date && Remove-Item x",
            "& Remove-Item x",
            ". Remove-Item x",
            "iex 'Remove-Item x'",
            "Invoke-Expression \"Remove-Item x\"",
            "Start-Process -FilePath Remove-Item -ArgumentList x",
            "Get-Content $(Remove-Item x)",
            "Get-ChildItem | ForEach-Object { Remove-Item $_ }",
            "sudo rm -rf build",
            "/bin/rm -rf build",
        ] {
            let result = decide(&ctx, command).await;
            assert_eq!(result.behavior(), "deny", "{mode:?} {command:?}: {result:?}");
        }
    }
    let ctx = p.ctx(PermissionMode::Default, &[(D, "PowerShell(Remove-Item:*)")]);
    assert_eq!(
        decide(&ctx, "Remove-Item x").await.message(),
        Some("Permission to use PowerShell with command Remove-Item x has been denied.")
    );
    assert_eq!(behavior(&ctx, "Write-Output Remove-Item").await, "allow", "an argument is not a command");
    assert_eq!(behavior(&ctx, "Get-ChildItem").await, "allow");
}

#[tokio::test]
async fn allow_rules_cover_only_one_plain_command() {
    let p = Project::new();
    let ctx = p.ctx(
        PermissionMode::Default,
        &[
            (A, "PowerShell(npm test:*)"),
            (A, "PowerShell(git status)"),
            (A, "PowerShell(git * main)"),
            (A, "PowerShell(Invoke-Build:*)"),
        ],
    );
    for (command, expected) in [
        ("npm test", "allow"),
        ("npm test -- --watch", "allow"),
        ("NPM test", "allow"),
        ("npm TEST", "passthrough"),
        ("npm testing", "passthrough"),
        ("npm test; Remove-Item x", "passthrough"),
        ("npm test;Remove-Item x", "passthrough"),
        ("npm test | Out-File log.txt", "passthrough"),
        ("npm test && Remove-Item x", "passthrough"),
        ("npm test || Remove-Item x", "passthrough"),
        ("npm test > out.txt", "passthrough"),
        ("npm test 2>&1", "passthrough"),
        ("npm test $(Remove-Item x)", "passthrough"),
        ("npm test $env:EXTRA", "passthrough"),
        ("npm test `\nRemove-Item x", "passthrough"),
        ("npm test\nRemove-Item x", "passthrough"),
        ("& npm test", "passthrough"),
        (". npm test", "passthrough"),
        ("npm test { Remove-Item x }", "passthrough"),
        ("npm test \u{2013}x", "passthrough"),
        ("git status", "allow"),
        ("git status -s", "passthrough"),
        ("git push origin main", "allow"),
        ("git push origin main2", "passthrough"),
        ("invoke-build -Task Test", "allow"),
        ("Invoke-BuildX", "passthrough"),
    ] {
        let result = decide(&ctx, command).await;
        assert_eq!(result.behavior(), expected, "{command:?}: {result:?}");
    }
    let complex = decide(&ctx, "npm test; Remove-Item x").await;
    assert_eq!(
        complex.message(),
        Some(
            "The command `npm test; Remove-Item x` needs approval: it uses `;` (more than one statement), so its parts cannot be checked against the permission rules one by one."
        )
    );
}

#[tokio::test]
async fn ask_rules_beat_allow_rules_and_bypass_mode() {
    let p = Project::new();
    for mode in [PermissionMode::Default, PermissionMode::BypassPermissions] {
        let ctx = p.ctx(mode, &[(K, "PowerShell(git push:*)"), (A, "PowerShell(git:*)")]);
        let result = decide(&ctx, "git push --force").await;
        assert!(
            matches!(
                &result,
                PermissionResult::Ask { decision_reason: Some(PermissionDecisionReason::Rule { .. }), .. }
            ),
            "{mode:?}: {result:?}"
        );
        assert_eq!(behavior(&ctx, "Write-Output x; git push").await, "ask");
        assert_eq!(behavior(&ctx, "git pull").await, "allow");
    }
}

#[tokio::test]
async fn read_only_cmdlets_are_allowed_inside_the_working_directories_only() {
    let p = Project::new();
    let ctx = p.ctx(PermissionMode::Default, &[(D, "Read(./secret.txt)"), (K, "Read(*.pem)")]);
    for (command, expected) in [
        ("Get-Content README.md", "allow"),
        ("Get-ChildItem -Recurse sub", "allow"),
        ("Get-ChildItem -Filter *.rs", "allow"),
        ("Get-ChildItem", "allow"),
        ("Get-Date", "allow"),
        ("Select-String -Pattern /etc/passwd -Path README.md", "allow"),
        ("Get-Content /etc/passwd", "passthrough"),
        ("Get-Content ..\\..\\etc\\passwd", "passthrough"),
        ("Get-Content ~/notes.txt", "passthrough"),
        ("Get-ChildItem *.md", "passthrough"),
        ("Get-Content secret.txt", "deny"),
        ("Get-Content -Path:secret.txt", "deny"),
        ("Get-Content key.pem", "ask"),
        ("Set-Location sub", "passthrough"),
    ] {
        let result = decide(&ctx, command).await;
        assert_eq!(result.behavior(), expected, "{command:?}: {result:?}");
    }
    assert_eq!(
        decide(&ctx, "Get-Content secret.txt").await.message().unwrap(),
        format!(
            "Permission to use PowerShell with command Get-Content secret.txt has been denied: {} is in a directory that is denied by your permission settings.",
            p.root.join("secret.txt").display()
        )
    );
    // An outside read is allowed by a Read rule.
    let ctx = p.ctx(PermissionMode::Default, &[(A, "Read(//etc/**)")]);
    assert_eq!(behavior(&ctx, "Get-Content /etc/hosts").await, "allow");
}

#[tokio::test]
async fn protected_paths_and_removals_ask_even_in_bypass_mode() {
    let p = Project::new();
    let ctx =
        p.ctx(PermissionMode::BypassPermissions, &[(A, "PowerShell(Set-Content:*)"), (A, "PowerShell(Remove-Item:*)")]);
    for command in [
        "Set-Content .git/config x",
        "Set-Content -Path .git\\hooks\\pre-commit -Value x",
        "Set-Content .bash* x",
        "sc ~/.bashrc x",
        "Add-Content /home/me/.config/powershell/Microsoft.PowerShell_profile.ps1 'iex x'",
        "New-Item -Path .claude/settings.json -Force",
        "Write-Output x > .git/hooks/post-checkout",
        "Write-Output x >> .mcp.json",
        "Get-Date; Copy-Item evil .git/hooks/pre-push",
        "Remove-Item -Recurse -Force ~",
        "Remove-Item -Recurse /",
        "Remove-Item *",
        "rm -r .",
        "Remove-Item -Recurse ..",
        "sudo rm -rf /",
    ] {
        let result = decide(&ctx, command).await;
        assert!(
            matches!(
                &result,
                PermissionResult::Ask { decision_reason: Some(PermissionDecisionReason::SafetyCheck { .. }), .. }
            ),
            "{command:?}: {result:?}"
        );
    }
    assert_eq!(
        decide(&ctx, "Remove-Item -Recurse ~").await.message(),
        Some("The command `Remove-Item -Recurse ~` removes `~`, which always needs the user's confirmation.")
    );
    // Not protected: the allow rule applies (bypass mode would allow the rest anyway).
    let accept =
        p.ctx(PermissionMode::AcceptEdits, &[(A, "PowerShell(Set-Content:*)"), (A, "PowerShell(Remove-Item:*)")]);
    assert_eq!(behavior(&accept, "Set-Content notes.txt hello").await, "allow");
    assert_eq!(behavior(&accept, "Remove-Item sub").await, "allow");
    assert_eq!(behavior(&accept, "Set-Content ../outside.txt hello").await, "passthrough", "a write outside");
    // Default mode asks before a write, as for Bash, even when the command is allowed.
    let default = p.ctx(PermissionMode::Default, &[(A, "PowerShell(Set-Content:*)")]);
    assert_eq!(behavior(&default, "Set-Content notes.txt hello").await, "passthrough");
    // acceptEdits alone does not approve file cmdlets.
    assert_eq!(behavior(&p.ctx(PermissionMode::AcceptEdits, &[]), "Set-Content notes.txt hello").await, "passthrough");
    // Edit deny rules cover what a command writes.
    let denied = p.ctx(PermissionMode::BypassPermissions, &[(D, "Edit(sub/**)")]);
    assert_eq!(behavior(&denied, "Set-Content sub/a.txt x").await, "deny");
    assert_eq!(behavior(&denied, "Write-Output x > sub/a.txt").await, "deny");
}

#[tokio::test]
async fn needing_approval_suggests_the_exact_command() {
    let p = Project::new();
    let ctx = p.ctx(PermissionMode::Default, &[]);
    let result = decide(&ctx, "  npm run build ").await;
    let PermissionResult::Passthrough { message, suggestions, .. } = &result else { panic!("{result:?}") };
    assert_eq!(message, "The command `  npm run build ` needs approval before it runs.");
    let [PermissionUpdate::AddRules { rules, behavior, .. }] = suggestions.as_slice() else {
        panic!("{suggestions:?}")
    };
    assert_eq!(*behavior, A);
    assert_eq!(rules.iter().map(ToString::to_string).collect::<Vec<_>>(), ["PowerShell(npm run build)"]);
    // A complex command suggests nothing: no rule could allow it.
    let complex = decide(&ctx, "npm test | Out-File x").await;
    assert!(matches!(&complex, PermissionResult::Passthrough { suggestions, .. } if suggestions.is_empty()));
}

#[test]
fn hook_matchers_and_sandbox_exclusions_use_the_rule_syntax() {
    let tool = tool();
    let parsed = tool.parse(json!({"command": "Write-Output a; rm -Recurse build"})).unwrap();
    let matches = tool.prepare_permission_matcher(&parsed).unwrap();
    assert!(matches("Remove-Item:*"));
    assert!(matches("rm:*"));
    assert!(matches("write-output *"));
    assert!(!matches("Set-Content:*"));

    let excluded = ["docker:*".to_owned(), "Invoke-Build".to_owned()];
    assert!(is_excluded("docker ps", &excluded));
    assert!(is_excluded("invoke-build", &excluded));
    assert!(!is_excluded("docker ps; Remove-Item x", &excluded), "only a plain command is excluded");
    assert!(!is_excluded("docker $(x)", &excluded));
    assert!(!is_excluded("dockerd", &excluded));
    assert!(!is_excluded("docker ps", &[]));
}

#[tokio::test]
async fn a_command_that_changes_nothing_on_disk_is_allowed_without_rules_only_when_read_only() {
    let p = Project::new();
    let ctx = p.ctx(PermissionMode::Default, &[]);
    assert_eq!(behavior(&ctx, "Write-Output hi").await, "allow");
    assert_eq!(behavior(&ctx, "Write-Output hi | Out-Null").await, "passthrough");
    assert_eq!(behavior(&ctx, "git status").await, "passthrough", "natives are not classified");
    assert!(Path::new(&p.root).join("README.md").exists());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

    /// No line panics the classifier or the check; nothing with an operator is read-only, and
    /// nothing but one plain command is allowed.
    #[test]
    fn no_command_line_panics_and_compound_lines_are_never_allowed(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            "Get-Content", "gci", "Write-Output", "rm", "Set-Content", "npm", ".", "&", "$", "'", "\"", "`",
            ";", "|", ">", "<", "(", ")", "{", "}", "é", "\u{2019}", "\u{2013}", " ", "\t", "\n", "a", "/",
            "\\", "*", "-Path:", "~", ".git/config", "#", "@", ",", "[",
        ]), 0..12)
    ) {
        let line: String = parts.concat();
        let _ = agent_tool_powershell::classify::rule_spellings(&line);
        let _ = agent_tool_powershell::classify::write_targets(&line);
        if is_read_only(&line) {
            proptest::prop_assert!(!line.contains([';', '|', '&', '>', '<', '$', '`', '(', '{', '\n']), "{:?}", line);
        }
        let p = Project::new();
        let ctx = p.ctx(PermissionMode::Default, &[(A, "PowerShell(npm:*)"), (D, "PowerShell(rm:*)")]);
        let result = agent_tool_powershell::permissions::check(&line, &ctx);
        if result.behavior() == "allow" {
            proptest::prop_assert!(agent_tool_powershell::classify::simple_command(&line).is_ok(), "{:?}", line);
        }
    }
}
