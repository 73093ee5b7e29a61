//! Glob on real folders: Claude Code's recorded results and the failure
//! modes users hit: .gitignore files, patterns with folders, braces and absolute prefixes, and
//! link loops.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use std::sync::Arc;

use agent_tool_glob::{GlobConfig, WalkConfig};
use agent_tools_core::GlobLimits;
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
use agent_tools_core::{PermissionResult, Tool, ToolPermissionContext, ToolUseContext};
use agent_tools_testkit::{oracle_fixture, run, write};
use serde_json::{Value, json};

async fn glob_in(tool: &dyn Tool, cwd: &Path, input: Value) -> (String, bool) {
    run(tool, &ToolUseContext::new(cwd), input).await
}

async fn glob(cwd: &Path, input: Value) -> String {
    let (text, is_error) = glob_in(agent_tool_glob::tool().as_ref(), cwd, input).await;
    assert!(!is_error, "unexpected error: {text}");
    text
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

#[tokio::test]
async fn oracle_doublestar_lists_oldest_first() {
    let dir = oracle_fixture();
    assert_eq!(
        glob(dir.path(), json!({"pattern": "**/*.rs"})).await,
        "proj/src/lib.rs\nproj/src/main.rs\nproj/src/util/mod.rs"
    );
}

#[tokio::test]
async fn oracle_path_results_stay_relative_to_the_working_directory() {
    let dir = oracle_fixture();
    let path = dir.path().join("proj/scripts");
    assert_eq!(
        glob(dir.path(), json!({"pattern": "*.py", "path": path})).await,
        "proj/scripts/run.py\nproj/scripts/util.py"
    );
}

#[tokio::test]
async fn oracle_brace_alternatives() {
    let dir = oracle_fixture();
    assert_eq!(
        glob(dir.path(), json!({"pattern": "proj/**/*.{md,py}"})).await,
        "proj/README.md\nproj/docs/guide.md\nproj/scripts/run.py\nproj/scripts/util.py"
    );
}

#[tokio::test]
async fn oracle_truncates_at_100_keeping_the_oldest() {
    let dir = oracle_fixture();
    let text = glob(dir.path(), json!({"pattern": "many/*.txt"})).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(lines[0], "many/f001.txt");
    assert_eq!(lines[99], "many/f100.txt");
    assert_eq!(
        lines[100],
        "(Showing 100 of 120 matching files; 20 more are not listed. Narrow the pattern or path to see the rest.)"
    );
}

#[tokio::test]
async fn the_context_limit_overrides_100() {
    let dir = oracle_fixture();
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.limits.glob = GlobLimits { max_results: Some(2) };
    let done = call_tool(agent_tool_glob::tool().as_ref(), "t", json!({"pattern": "many/*.txt"}), &ctx).await;
    assert_eq!(
        done.block.content.text(),
        "many/f001.txt\nmany/f002.txt\n(Showing 2 of 120 matching files; 118 more are not listed. Narrow the pattern or path to see the rest.)"
    );
}

#[tokio::test]
async fn oracle_no_match() {
    let dir = oracle_fixture();
    assert_eq!(glob(dir.path(), json!({"pattern": "**/*.zzz"})).await, "No files found");
}

#[tokio::test]
async fn paths_outside_the_working_directory_are_absolute() {
    let dir = oracle_fixture();
    let cwd = dir.path().join("many");
    let src = dir.path().join("proj/src");
    let text = glob(&cwd, json!({"pattern": "*.rs", "path": src})).await;
    assert_eq!(text, format!("{0}/lib.rs\n{0}/main.rs", src.display()));
}

/// .gitignore at the root and in a subfolder.
fn gitignore_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join(".git")).unwrap();
    write(root, ".gitignore", "node_modules/\ndist/\n");
    write(root, "docs/.gitignore", "draft.md\n");
    write(root, "README.md", "# Readme\n");
    write(root, "docs/guide.md", "# Guide\n");
    write(root, "docs/draft.md", "# Draft\n");
    write(root, "node_modules/pkg/README.md", "# Pkg\n");
    write(root, "dist/out.md", "# Out\n");
    dir
}

#[tokio::test]
async fn case_021_gitignore_is_respected_root_and_nested() {
    let dir = gitignore_fixture();
    let root = dir.path();
    assert_eq!(
        sorted_lines(&glob(root, json!({"pattern": "**/*.md", "path": root})).await),
        ["README.md", "docs/guide.md"]
    );
    assert_eq!(glob(root, json!({"pattern": "*.md", "path": root.join("docs")})).await, "docs/guide.md");
}

#[tokio::test]
async fn case_021_the_no_ignore_switch_gives_claude_codes_behaviour() {
    let dir = gitignore_fixture();
    let root = dir.path();
    let config = GlobConfig { walk: WalkConfig { respect_ignore_files: false, ..WalkConfig::default() } };
    let tool = agent_tool_glob::tool_with(config);
    let (text, _) = glob_in(tool.as_ref(), root, json!({"pattern": "**/*.md"})).await;
    assert_eq!(
        sorted_lines(&text),
        ["README.md", "dist/out.md", "docs/draft.md", "docs/guide.md", "node_modules/pkg/README.md"]
    );
}

#[tokio::test]
async fn hidden_files_are_found_and_git_never() {
    let dir = gitignore_fixture();
    let root = dir.path();
    write(root, ".github/workflows/ci.yml", "on: push\n");
    write(root, ".git/config.yml", "x\n");
    assert_eq!(glob(root, json!({"pattern": "**/*.yml"})).await, ".github/workflows/ci.yml");
    // Not even when the pattern names the folder.
    assert_eq!(glob(root, json!({"pattern": ".git/*"})).await, "No files found");
    assert_eq!(glob(root, json!({"pattern": ".git/**/*.yml"})).await, "No files found");
}

/// Every row of the table.
#[tokio::test]
async fn case_023_patterns_with_folders_braces_and_absolute_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    for path in [
        "src/lib/scoring.ts",
        "src/lib/util.ts",
        "src/components/Card.tsx",
        "src/components/ui/Button.tsx",
        "CLAUDE.md",
    ] {
        write(w, path, "x\n");
    }
    let rows: [(Value, &[&str]); 8] = [
        (json!({"pattern": "src/lib/*.ts", "path": w}), &["src/lib/scoring.ts", "src/lib/util.ts"]),
        (json!({"pattern": "src/lib/scoring.ts", "path": w}), &["src/lib/scoring.ts"]),
        (
            json!({"pattern": "src/components/**/*.tsx", "path": w}),
            &["src/components/Card.tsx", "src/components/ui/Button.tsx"],
        ),
        (json!({"pattern": "*.md", "path": w}), &["CLAUDE.md"]),
        (
            json!({"pattern": "**/{Card,Button}.tsx", "path": w}),
            &["src/components/Card.tsx", "src/components/ui/Button.tsx"],
        ),
        (
            json!({"pattern": "src/**/*.{ts,tsx}", "path": w}),
            &["src/components/Card.tsx", "src/components/ui/Button.tsx", "src/lib/scoring.ts", "src/lib/util.ts"],
        ),
        (json!({"pattern": format!("{}/src/lib/*.ts", w.display())}), &["src/lib/scoring.ts", "src/lib/util.ts"]),
        (json!({"pattern": "*.ts", "path": w}), &["No files found"]),
    ];
    for (input, expected) in rows {
        let text = glob(w, input.clone()).await;
        assert_eq!(sorted_lines(&text), expected, "{input}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn case_024_link_loops_end_and_list_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "a/b/file.txt", "hi\n");
    std::os::unix::fs::symlink(w.join("a"), w.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink(w.join("a/b"), w.join("a/b/again")).unwrap();
    std::os::unix::fs::symlink(w.join("nowhere.txt"), w.join("a/dangling.txt")).unwrap();
    assert_eq!(glob(w, json!({"pattern": "**/*.txt", "path": w})).await, "a/b/file.txt");
}

#[tokio::test]
async fn a_missing_or_file_path_is_a_validation_error_naming_it() {
    let dir = oracle_fixture();
    let root = dir.path();
    let tool = agent_tool_glob::tool();
    let (text, is_error) = glob_in(tool.as_ref(), root, json!({"pattern": "*", "path": "nope"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "<tool_use_error>Directory does not exist: nope. Note: your current working directory is {}.</tool_use_error>",
            root.display()
        )
    );
    let (text, is_error) = glob_in(tool.as_ref(), root, json!({"pattern": "*", "path": "proj/README.md"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "<tool_use_error>Path is not a directory: proj/README.md. Note: your current working directory is {}.</tool_use_error>",
            root.display()
        )
    );
}

#[tokio::test]
async fn an_invalid_glob_is_an_error_not_an_empty_result() {
    let dir = oracle_fixture();
    let (text, is_error) = glob_in(agent_tool_glob::tool().as_ref(), dir.path(), json!({"pattern": "**/*.{md"})).await;
    assert!(is_error);
    assert!(text.starts_with("<tool_use_error>Invalid glob pattern `**/*.{md`: "), "{text}");
}

#[tokio::test]
async fn a_huge_pattern_is_refused_with_its_length_and_a_short_quote() {
    // A 1 MB pattern made globset panic and the request went unanswered (issue 12).
    let dir = oracle_fixture();
    let pattern = "a".repeat(1_000_000);
    let (text, is_error) = glob_in(agent_tool_glob::tool().as_ref(), dir.path(), json!({"pattern": pattern})).await;
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "<tool_use_error>Invalid glob pattern `{}… (1000000 characters)`: the pattern is 1000000 characters long, \
             and a pattern may have at most 10000</tool_use_error>",
            "a".repeat(200)
        )
    );
}

#[tokio::test]
async fn undefined_path_means_the_working_directory() {
    let dir = oracle_fixture();
    assert_eq!(
        glob(dir.path(), json!({"pattern": "proj/src/*.rs", "path": "undefined"})).await,
        "proj/src/lib.rs\nproj/src/main.rs"
    );
}

#[tokio::test]
async fn a_cancelled_call_is_an_error_result() {
    let dir = oracle_fixture();
    let ctx = ToolUseContext::new(dir.path());
    ctx.cancel.cancel();
    let (text, is_error) = glob_in(agent_tool_glob::tool().as_ref(), dir.path(), json!({"pattern": "**/*"})).await;
    assert!(!is_error, "{text}");
    let (text, is_error) = run(agent_tool_glob::tool().as_ref(), &ctx, json!({"pattern": "**/*"})).await;
    assert!(is_error);
    assert_eq!(text, "[Request interrupted by user for tool use]");
}

#[tokio::test]
async fn a_pattern_without_double_star_matches_at_its_own_depth_only() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    for path in ["a.md", "x/b.md", "x/y/c.md", "x/y/z/d.md"] {
        write(w, path, "x\n");
    }
    assert_eq!(glob(w, json!({"pattern": "*.md"})).await, "a.md");
    assert_eq!(glob(w, json!({"pattern": "*/*/*.md"})).await, "x/y/c.md");
    assert_eq!(sorted_lines(&glob(w, json!({"pattern": "{x,x/y}/*.md"})).await), ["x/b.md", "x/y/c.md"]);
}

#[tokio::test]
async fn a_tilde_pattern_starts_from_the_home_directory() {
    let dir = oracle_fixture();
    let mut ctx = ToolUseContext::new(dir.path().join("many"));
    ctx.home_dir = Some(dir.path().join("proj"));
    let (text, is_error) = run(agent_tool_glob::tool().as_ref(), &ctx, json!({"pattern": "~/src/*.rs"})).await;
    assert!(!is_error, "{text}");
    let src = dir.path().join("proj/src");
    assert_eq!(text, format!("{0}/lib.rs\n{0}/main.rs", src.display()));
}

/// A context for `cwd` whose project settings deny reading with these `Read(…)` rules.
fn denying(cwd: &Path, rules: &[&str]) -> ToolUseContext {
    let mut permissions = ToolPermissionContext::default();
    for rule in rules {
        permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, *rule);
    }
    let mut ctx = ToolUseContext::new(cwd);
    ctx.permission_context = Arc::new(permissions);
    ctx
}

#[tokio::test]
async fn read_deny_rules_exclude_the_files_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    for path in [".env", "config/prod.env", "secrets/key.txt", "secrets/deep/more.txt", "src/main.rs"] {
        write(w, path, "x\n");
    }
    let tool = agent_tool_glob::tool();
    let ctx = denying(w, &["Read(*.env)", "Read(/secrets/**)", "Edit(src/**)"]);
    let (text, _) = run(tool.as_ref(), &ctx, json!({"pattern": "**/*"})).await;
    assert_eq!(sorted_lines(&text), ["src/main.rs"]);
    // A pattern pointing into a denied folder lists nothing, and the folder as `path` is refused.
    let (text, _) = run(tool.as_ref(), &ctx, json!({"pattern": "secrets/deep/*.txt"})).await;
    assert_eq!(text, "No files found");
    let parsed = tool.parse(json!({"pattern": "*", "path": "secrets"})).unwrap();
    match tool.check_permissions(&parsed, &ctx).await {
        PermissionResult::Deny { message, .. } => {
            assert_eq!(message, "File is in a directory that is denied by your permission settings.");
        }
        other => panic!("expected a denial, got {other:?}"),
    }
    let parsed = tool.parse(json!({"pattern": "*", "path": "src"})).unwrap();
    assert!(matches!(tool.check_permissions(&parsed, &ctx).await, PermissionResult::Allow { .. }));
}

#[test]
fn glob_is_read_only_and_concurrency_safe() {
    let tool = agent_tool_glob::tool();
    let parsed = tool.parse(json!({"pattern": "*"})).unwrap();
    assert!(tool.is_read_only(&parsed));
    assert!(tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.name(), "Glob");
    assert_eq!(tool.flags(), agent_tools_core::ToolFlags::LOCAL_READ_ONLY);
}
