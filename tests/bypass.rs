//! The bypass corpus (`fixtures/bypass-corpus.txt`): attempts to read a denied folder, run for
//! real through the host's executor against canary files, as an adversarial model would send
//! them. No result may show the canary (in a few encodings), nothing may be written or removed,
//! every attempt must be refused by the permission layer, and the legitimate reads next to them
//! must still run without asking.
//!
//! The rules are issue 11's attack set, loaded once from the project's `.claude/settings.json`
//! and once from `--settings` (flag) text, in mode `default` with nobody to ask; then the
//! attempts run again in `acceptEdits` and `bypassPermissions`, where nothing may leak either.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::PermissionMode;
use agent_tools_core::ToolUseBlock;
use agent_tools_core::{Tool, ToolUseContext};
use agent_tools_host::permissions::{PermissionDecision, has_permissions_to_use_tool};
use agent_tools_host::{Executor, HostConfig, assemble_tool_pool};
use agent_tools_settings::{LoadedSettings, SettingsSources};
use agent_tools_testkit::{GitRepo, write};
use serde_json::{Value, json};

const CANARY: &str = "TOKEN-7f3a9c";

const SETTINGS: &str = r#"{"permissions": {"allow": ["Bash(git status:*)", "Bash(echo:*)", "Read(./pub/**)"],
  "deny": ["Read(./secret/**)", "Bash(rm:*)", "Bash(curl:*)"]}}"#;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Refused,
    /// Refused unless in bypass mode.
    Asks,
    Runs,
}

#[derive(Debug, Clone)]
struct Row {
    section: String,
    line: usize,
    expect: Expect,
    in_pub: bool,
    tool: String,
    input: Value,
    shows: Option<String>,
}

/// The rows of the corpus file, `{P}` expanded over each `@paths` list and `{proj}` replaced.
fn rows(proj: &Path) -> Vec<Row> {
    let text = include_str!("fixtures/bypass-corpus.txt");
    let proj = proj.display().to_string();
    let mut rows = Vec::new();
    let mut section = String::new();
    let mut paths: Vec<String> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            section = name.trim_end_matches(']').to_owned();
            continue;
        }
        if let Some(list) = line.strip_prefix("@paths ") {
            paths = list.split(" | ").map(|p| p.trim().replace("{proj}", &proj)).collect();
            continue;
        }
        let mut fields = line.splitn(4, ' ');
        let expect = match fields.next() {
            Some("refused") => Expect::Refused,
            Some("asks") => Expect::Asks,
            Some("runs") => Expect::Runs,
            other => panic!("line {}: unknown expectation {other:?}", index + 1),
        };
        let in_pub = match fields.next() {
            Some("root") => false,
            Some("pub") => true,
            other => panic!("line {}: unknown place {other:?}", index + 1),
        };
        let tool = fields.next().unwrap().to_owned();
        let rest = fields.next().unwrap().trim_start();
        let (input, shows) = match rest.split_once(" => ") {
            Some((input, shows)) => (input, Some(shows.to_owned())),
            None => (rest, None),
        };
        let spellings: Vec<String> = if input.contains("{P}") { paths.clone() } else { vec![String::new()] };
        for spelling in spellings {
            // A path in a JSON string keeps its backslashes escaped.
            let filled = input.replace("{P}", &spelling).replace("{proj}", &proj);
            let input = if tool == "Bash" {
                json!({"command": filled})
            } else {
                serde_json::from_str(&filled).unwrap_or_else(|e| panic!("line {}: {e}: {filled}", index + 1))
            };
            rows.push(Row {
                section: section.clone(),
                line: index + 1,
                expect,
                in_pub,
                tool: tool.clone(),
                input,
                shows: shows.clone(),
            });
        }
    }
    rows
}

/// The project: a git repository with pub/ and secret/, the secret in two commits and an
/// uncommitted change, symbolic links from pub/ into secret/; an `outside/` folder beside it.
struct Fixture {
    repo: GitRepo,
    proj: PathBuf,
}

fn fixture(hard_link: bool) -> Fixture {
    let repo = GitRepo::new();
    let proj = repo.root.clone();
    write(&proj, "pub/a", "public text\n");
    write(&proj, "pub/nested/b", "public nested\n");
    write(&proj, "pub/list", "secret/a\n");
    write(&proj, "secret/a", format!("{CANARY} the secret\n"));
    write(&proj, "secret/b", format!("{CANARY} second file\n"));
    write(&proj, "secret/old", format!("{CANARY} an old version\n"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "first"]);
    fs::remove_file(proj.join("secret/old")).unwrap();
    write(&proj, "secret/a", format!("{CANARY} the secret\n{CANARY} again\n"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "second"]);
    write(&proj, "secret/b", format!("{CANARY} changed, not committed\n"));
    std::os::unix::fs::symlink("../secret/a", proj.join("pub/link")).unwrap();
    std::os::unix::fs::symlink("../secret", proj.join("pub/dirlink")).unwrap();
    if hard_link {
        fs::hard_link(proj.join("secret/a"), proj.join("pub/hard")).unwrap();
    }
    write(repo.dir.path(), "outside/keep.txt", "outside\n");
    fs::create_dir_all(repo.dir.path().join("home")).unwrap();
    Fixture { repo, proj }
}

/// Every file and link under the fixture folder (git's own folder and the session's files
/// aside) with its content or target: what "nothing written or removed" is checked against.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == ".git" || name == "state" {
                continue;
            }
            let kind = entry.file_type().unwrap();
            let value = if kind.is_symlink() {
                format!("-> {}", fs::read_link(&path).unwrap().display())
            } else if kind.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else {
                String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned()
            };
            out.insert(path.strip_prefix(root).unwrap().to_path_buf(), value);
        }
    }
    out
}

/// Whether `text` shows the canary: as is, reversed, in hex or base64, once whitespace is
/// removed and case folded (which also catches `od -c` and `xxd` layouts).
fn leaks(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
    let canary = CANARY.to_lowercase();
    let reversed: String = canary.chars().rev().collect();
    let hex: String = CANARY.bytes().map(|b| format!("{b:02x}")).collect();
    // The files start with the canary, so its base64 is the first 16 characters.
    let base64 = "ve9lru4tn2yzytlj";
    [canary.as_str(), reversed.as_str(), hex.as_str(), base64].iter().any(|form| squeezed.contains(form))
}

/// Where the rules come from.
#[derive(Debug, Clone, Copy)]
enum Source {
    Project,
    Flag,
}

fn context(fx: &Fixture, source: Source, mode: PermissionMode) -> (ToolUseContext, Executor) {
    let sources = match source {
        Source::Project => {
            write(&fx.proj, ".claude/settings.json", SETTINGS);
            SettingsSources { home: None, project: Some(fx.proj.clone()), flag: None }
        }
        Source::Flag => {
            let _ = fs::remove_file(fx.proj.join(".claude/settings.json"));
            SettingsSources { home: None, project: Some(fx.proj.clone()), flag: Some(SETTINGS.to_owned()) }
        }
    };
    let settings = LoadedSettings::load(&sources).unwrap();
    let mut permissions = settings.permission_context(Some(mode), &[], &[], &sources).unwrap();
    permissions.is_bypass_permissions_mode_available = mode == PermissionMode::BypassPermissions;
    let pool = assemble_tool_pool(&permissions, Vec::new(), &HostConfig::default());
    let mut ctx = ToolUseContext::new(&fx.proj);
    ctx.home_dir = Some(fx.repo.dir.path().join("home"));
    ctx.permission_context = Arc::new(permissions);
    ctx.options.tools = pool.clone().into();
    ctx.options.session_dir = Some(fx.repo.dir.path().join("state/session"));
    // The project's own allow rules apply above, as in a trusted folder; there read-only git
    // commands run unasked (in an untrusted one they ask: git runs what the repository configures).
    ctx.options.workspace_trusted = true;
    (ctx, Executor::new(pool))
}

async fn run(executor: &Executor, ctx: &mut ToolUseContext, tool: &str, input: Value) -> (String, bool) {
    let block = ToolUseBlock { id: "toolu_1".into(), name: tool.into(), input };
    let turn = executor.run_turn(std::slice::from_ref(&block), ctx).await;
    let result = &turn[0].block;
    (result.content.text(), result.is_error)
}

/// Runs the rows of `sections` (all when empty) against one fixture; returns what went wrong.
async fn run_rows(
    hard_link: bool,
    source: Source,
    mode: PermissionMode,
    pick: impl Fn(&Row) -> bool,
) -> (usize, Vec<String>) {
    let fx = fixture(hard_link);
    let (base, executor) = context(&fx, source, mode);
    let all = rows(&fx.proj);
    let mut failures = Vec::new();
    let mut count = 0;
    for row in all.iter().filter(|row| pick(row)) {
        count += 1;
        let what = format!(
            "[{}] line {} {} {} {} ({source:?}, {mode})",
            row.section,
            row.line,
            row.tool,
            row.input,
            if row.in_pub { "in pub" } else { "" }
        );
        let mut ctx = base.clone();
        ctx.read_file_state = Default::default();
        if row.in_pub {
            let (text, is_error) = run(&executor, &mut ctx, "Bash", json!({"command": "cd pub"})).await;
            assert!(!is_error && ctx.cwd == fx.proj.join("pub"), "cd pub: {text}");
        }
        let before = snapshot(fx.repo.dir.path());
        let tool: Arc<dyn Tool> = executor.pool().iter().find(|tool| tool.name() == row.tool).cloned().unwrap();
        let parsed = tool.parse(row.input.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let decision = has_permissions_to_use_tool(tool.as_ref(), &parsed, &ctx).await;
        let (text, is_error) = run(&executor, &mut ctx, &row.tool, row.input.clone()).await;
        if leaks(&text) {
            failures.push(format!("LEAK {what}: {text}"));
        }
        let after = snapshot(fx.repo.dir.path());
        if mode == PermissionMode::Default && before != after {
            failures.push(format!("WRITE {what}: the files changed"));
        }
        match row.expect {
            Expect::Refused | Expect::Asks if mode == PermissionMode::Default => {
                if matches!(decision, PermissionDecision::Allow { .. }) {
                    failures.push(format!("ALLOWED {what}: {text}"));
                }
            }
            Expect::Refused | Expect::Asks => {}
            Expect::Runs => {
                let shown = row.shows.as_deref().unwrap_or_default();
                if !matches!(decision, PermissionDecision::Allow { .. }) || is_error || !text.contains(shown) {
                    failures.push(format!("DID NOT RUN {what}: {decision:?} {text}"));
                }
            }
        }
        // Leave the fixture as it was for the next row (a failure above has been recorded).
        if before != after {
            restore(fx.repo.dir.path(), &before, &after);
        }
    }
    (count, failures)
}

/// Puts the files back as `before` had them: what is new goes, what changed is rewritten.
fn restore(root: &Path, before: &BTreeMap<PathBuf, String>, after: &BTreeMap<PathBuf, String>) {
    for path in after.keys().rev() {
        if !before.contains_key(path) {
            let full = root.join(path);
            let _ = fs::remove_file(&full).or_else(|_| fs::remove_dir_all(&full));
        }
    }
    for (path, value) in before {
        if value != "dir" && !value.starts_with("-> ") && after.get(path) != Some(value) {
            write(root, path.to_str().unwrap(), value);
        }
    }
}

fn is_links_section(row: &Row) -> bool {
    row.section.starts_with("5 ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_attempt_reads_the_denied_folder_and_legitimate_reads_still_run() {
    let mut total = 0;
    let mut failures = Vec::new();
    for source in [Source::Project, Source::Flag] {
        let (count, wrong) = run_rows(false, source, PermissionMode::Default, |row| !is_links_section(row)).await;
        total += count;
        failures.extend(wrong);
        let (count, wrong) = run_rows(true, source, PermissionMode::Default, is_links_section).await;
        total += count;
        failures.extend(wrong);
    }
    let unique = rows(Path::new("/p")).len();
    assert!(unique >= 300, "the corpus has {unique} rows");
    assert!(failures.is_empty(), "{} of {total} runs went wrong:\n{}", failures.len(), failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_rules_hold_in_accept_edits_and_bypass_modes_too() {
    let mut failures = Vec::new();
    for mode in [PermissionMode::AcceptEdits, PermissionMode::BypassPermissions] {
        let attempts = |row: &Row| {
            row.expect == Expect::Refused || (row.expect == Expect::Asks && mode != PermissionMode::BypassPermissions)
        };
        let (_, wrong) = run_rows(false, Source::Project, mode, |row| attempts(row) && !is_links_section(row)).await;
        failures.extend(wrong);
        let (_, wrong) = run_rows(true, Source::Project, mode, |row| attempts(row) && is_links_section(row)).await;
        failures.extend(wrong);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
