//! The repository's conventions, checked as tests (as rust-analyzer's `tidy` does), so that
//! `cargo test --workspace` refuses a change that breaks one. `cargo xtask tidy` runs only this
//! file. Each test names the rule it enforces; ARCHITECTURE.md explains why the rules exist.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_tools_host::{HostConfig, get_all_base_tools};
use serde_json::Value;

/// Tool crate → tool crate dependencies that exist today and must go. This list must shrink to
/// empty: a tool crate that needs another's code should get it from a support crate (or core).
const KNOWN_TOOL_TO_TOOL: &[(&str, &str)] = &[];

/// Crates whose crate-level example does not run yet (`no_run` without a reason, or none at
/// all). This list must shrink to empty: each crate's docs open with an example that runs and
/// asserts, as ripgrep's crates do.
const KNOWN_WITHOUT_RUNNING_EXAMPLE: &[&str] = &[];

/// The workspace root (this package lives in `<root>/tests`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `cargo metadata --no-deps` for the workspace.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("cannot run cargo metadata");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Every workspace package: (name, folder relative to the root, the package's JSON).
fn packages() -> Vec<(String, PathBuf, Value)> {
    let root = root();
    let mut found = Vec::new();
    for package in metadata()["packages"].as_array().unwrap() {
        let manifest = Path::new(package["manifest_path"].as_str().unwrap());
        let dir = manifest.parent().unwrap().strip_prefix(&root).unwrap().to_path_buf();
        found.push((package["name"].as_str().unwrap().to_owned(), dir, package.clone()));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The tool crates: (short name from `crates/tools/<short>`, package name, package JSON).
fn tool_crates() -> Vec<(String, String, Value)> {
    packages()
        .into_iter()
        .filter(|(_, dir, _)| dir.parent() == Some(Path::new("crates/tools")))
        .map(|(name, dir, package)| (dir.file_name().unwrap().to_string_lossy().into_owned(), name, package))
        .collect()
}

/// Files under `crates/`, `xtask/` and `tests/` (never `target/`), sorted.
fn files(accept: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(dir: &Path, accept: &dyn Fn(&Path) -> bool, found: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                walk(&path, accept, found);
            } else if accept(&path) {
                found.push(path);
            }
        }
    }
    let root = root();
    let mut found = Vec::new();
    for top in ["crates", "xtask", "tests"] {
        walk(&root.join(top), &accept, &mut found);
    }
    found.sort();
    found
}

fn rust_files() -> Vec<PathBuf> {
    files(|path| path.extension().is_some_and(|ext| ext == "rs"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

fn fail_if_any(rule: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{rule}:\n  {}", problems.join("\n  "));
}

/// A tool crate is usable alone: it depends on core and support crates, never on another tool
/// crate, the host or the CLI. Dev-dependencies may name another tool crate (Edit's tests read a
/// file with Read first, as the model must), but never the host or the CLI.
#[test]
fn tool_crates_depend_on_no_tool_crate_nor_the_host() {
    let mut problems = Vec::new();
    let mut known_seen = Vec::new();
    for (_, package, json) in tool_crates() {
        for dependency in json["dependencies"].as_array().unwrap() {
            let name = dependency["name"].as_str().unwrap();
            let dev = dependency["kind"].as_str() == Some("dev");
            let host_or_cli = name == "agent-tools-host" || name == "agent-tools-cli";
            let tool = name.starts_with("agent-tool-");
            if host_or_cli || (tool && !dev) {
                if KNOWN_TOOL_TO_TOOL.contains(&(package.as_str(), name)) {
                    known_seen.push((package.clone(), name.to_owned()));
                } else {
                    let kind = dependency["kind"].as_str().unwrap_or("normal");
                    problems.push(format!("{package} depends on {name} ({kind})"));
                }
            }
        }
    }
    fail_if_any("tool crates must not depend on other tool crates, the host or the CLI", &problems);
    for (from, to) in KNOWN_TOOL_TO_TOOL {
        assert!(
            known_seen.iter().any(|(a, b)| a == from && b == to),
            "{from} no longer depends on {to}: remove the pair from KNOWN_TOOL_TO_TOOL"
        );
    }
}

/// `crates/tools/<short>` is package `agent-tool-<short>`, the host has a feature `<short>` for it
/// (and no feature without a crate), the tool table in `crates/host/src/pool.rs` has one line for
/// every feature, and every tool crate has its own `tests/` folder.
#[test]
fn every_tool_crate_has_its_name_host_feature_pool_entry_and_tests() {
    let tools = tool_crates();
    let host = packages().into_iter().find(|(name, _, _)| name == "agent-tools-host").expect("no agent-tools-host");
    let features: Vec<String> =
        host.2["features"].as_object().unwrap().keys().filter(|f| *f != "default").cloned().collect();
    let mut problems = Vec::new();
    for (short, package, _) in &tools {
        if package != &format!("agent-tool-{short}") {
            problems.push(format!("crates/tools/{short} is package {package}, expected agent-tool-{short}"));
        }
        if !features.contains(short) {
            problems.push(format!("the host has no feature `{short}` for {package}"));
        }
        if !root().join("crates/tools").join(short).join("tests").is_dir() {
            problems.push(format!("{package} has no tests/ folder"));
        }
    }
    for feature in &features {
        if !tools.iter().any(|(short, _, _)| short == feature) {
            problems.push(format!("host feature `{feature}` has no crate in crates/tools/{feature}"));
        }
        // The compiled table's lines for this feature; StructuredOutput is a special tool (Claude
        // Code's), built for a schema outside the table.
        let lines = agent_tools_host::pool::BUILT_IN_TOOLS.iter().filter(|tool| tool.feature == feature).count();
        let special = SPECIAL_TOOL_FEATURES.contains(&feature.as_str())
            && agent_tools_host::structured_output_tool(serde_json::json!({"type": "object"})).is_ok();
        match lines + usize::from(special) {
            1 => {}
            0 => problems.push(format!("the tool table (crates/host/src/pool.rs) has no line for `{feature}`")),
            n => problems.push(format!("the tool table (crates/host/src/pool.rs) has {n} lines for `{feature}`")),
        }
    }
    fail_if_any("tool crate shape", &problems);
    assert!(!tools.is_empty(), "no tool crate found under crates/tools");
}

/// Tool features whose tool is made outside the tool table (a special tool, built on demand).
const SPECIAL_TOOL_FEATURES: &[&str] = &["structured-output"];

/// The tools of the design's source chapters, by API name: each is built — a built-in of the
/// pool with every switch on (both task-list modes), or one the MCP client makes per server.
const SEED_TOOLS: &[&str] = &[
    "Agent",
    "TaskOutput",
    "Bash",
    "Glob",
    "Grep",
    "ExitPlanMode",
    "Read",
    "Edit",
    "Write",
    "NotebookEdit",
    "WebFetch",
    "TodoWrite",
    "WebSearch",
    "TaskStop",
    "AskUserQuestion",
    "Skill",
    "EnterPlanMode",
    "Config",
    "TaskCreate",
    "TaskGet",
    "TaskUpdate",
    "TaskList",
    "LSP",
    "EnterWorktree",
    "ExitWorktree",
    "SendMessage",
    "TeamCreate",
    "TeamDelete",
    "REPL",
    "Sleep",
    "CronCreate",
    "CronDelete",
    "CronList",
    "RemoteTrigger",
    "SendUserMessage",
    "PowerShell",
    "ToolSearch",
    "StructuredOutput",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "mcp__<server>__<tool>",
    "mcp__<server>__authenticate",
];

/// The tools the MCP client makes (resources, one per server tool, the sign-in), with where.
const MCP_MADE: &[(&str, &str)] = &[
    ("ListMcpResourcesTool", "crates/mcp/src/resources.rs"),
    ("ReadMcpResourceTool", "crates/mcp/src/resources.rs"),
    ("mcp__<server>__<tool>", "crates/mcp/src/client.rs"),
    ("mcp__<server>__authenticate", "crates/mcp/src/client.rs"),
];

#[test]
fn every_seed_tool_is_built() {
    let mut built: Vec<String> = Vec::new();
    for todo_v2 in [false, true] {
        built.extend(
            get_all_base_tools(&HostConfig { todo_v2, ..agent_tools_host::every_tool_config() })
                .iter()
                .map(|t| t.name().to_owned()),
        );
    }
    built.push(agent_tools_host::structured_output_tool(serde_json::json!({"type": "object"})).unwrap().name().into());
    let mut missing = Vec::new();
    for name in SEED_TOOLS {
        if let Some((_, file)) = MCP_MADE.iter().find(|(made, _)| made == name) {
            let text = fs::read_to_string(root().join(file)).unwrap();
            let needle = name.replace("mcp__<server>__<tool>", "mcp__").replace("mcp__<server>__", "__");
            if !text.contains(&needle) {
                missing.push(format!("{name} (not made in {file})"));
            }
        } else if !built.iter().any(|b| b == name) {
            missing.push((*name).to_owned());
        }
    }
    fail_if_any("seed tools that are not built", &missing);
    assert_eq!(SEED_TOOLS.len(), 42);
}

/// No two tools answer to the same name: every tool's name and aliases, over the pools of both
/// task-list modes with every optional tool switched on, are distinct (case-sensitively, as the
/// API compares them), and every tool crate contributes a tool.
#[test]
fn tool_names_and_aliases_are_unique() {
    let everything = agent_tools_host::every_tool_config();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut problems = Vec::new();
    // StructuredOutput is a special tool: only there for a structured answer's schema.
    let special = agent_tools_host::structured_output_tool(serde_json::json!({"type": "object"})).unwrap();
    for todo_v2 in [false, true] {
        let mut pool = get_all_base_tools(&HostConfig { todo_v2, ..everything.clone() });
        pool.push(std::sync::Arc::clone(&special));
        for tool in pool {
            let name = tool.name().to_owned();
            if todo_v2 && owner.get(&name) == Some(&name) {
                continue; // Seen in the first pool.
            }
            for answer in std::iter::once(name.as_str()).chain(tool.aliases().iter().copied()) {
                if let Some(first) = owner.insert(answer.to_owned(), name.clone()) {
                    problems.push(format!("`{answer}` names both {first} and {name}"));
                }
            }
        }
    }
    fail_if_any("tool names and aliases must be unique", &problems);
    let names: Vec<&String> = owner.iter().filter(|(answer, name)| answer == name).map(|(_, name)| name).collect();
    assert_eq!(names.len(), tool_crates().len(), "one tool per tool crate, got {names:?}");
}

/// Every Rust file, `main.rs`, tests, benches and examples included, opens with module docs
/// (`//!`) saying what it is for.
#[test]
fn every_rust_file_opens_with_module_docs() {
    let problems: Vec<String> = rust_files()
        .into_iter()
        .filter(|path| {
            let text = fs::read_to_string(path).unwrap();
            !text.lines().find(|line| !line.trim().is_empty()).is_some_and(|line| line.starts_with("//!"))
        })
        .map(|path| relative(&path))
        .collect();
    fail_if_any("these files do not open with `//!` module docs", &problems);
}

/// Whether a line of `path` is test code: files in `tests/`, `benches/` or `examples/` folders,
/// the shared test kit, and what follows a `#[cfg(test)]` in a source file.
fn test_lines(path: &Path, text: &str) -> Vec<bool> {
    let rel = relative(path);
    let whole = rel.starts_with("tests/")
        || rel.starts_with("crates/testkit/")
        || ["/tests/", "/benches/", "/examples/"].iter().any(|folder| rel.contains(folder));
    let mut in_tests = whole;
    text.lines()
        .map(|line| {
            in_tests |= line.trim_start().starts_with("#[cfg(test)]");
            in_tests
        })
        .collect()
}

/// Byte offsets of `sleep(` calls in `line` (`thread::sleep(`, `tokio::time::sleep(`, a bare
/// `sleep(`), leaving out methods and other languages' calls inside strings (`time.sleep(`).
fn sleep_calls(line: &str) -> Vec<usize> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("sleep(")
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = code[..at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        })
        .collect()
}

/// Tests order events with barriers, channels or a deadline poll (`agent_tools_testkit::eventually`),
/// never by sleeping and hoping. A sleep that is itself the thing under test (a stalled server,
/// the poll helper's interval) says so with `tidy:allow-sleep <reason>` on its line or the one
/// before.
#[test]
fn tests_do_not_sleep_for_ordering() {
    let mut problems = Vec::new();
    for path in rust_files() {
        if path.ends_with("tests/tidy.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let in_tests = test_lines(&path, &text);
        for (index, line) in lines.iter().enumerate() {
            if !in_tests[index] || sleep_calls(line).is_empty() {
                continue;
            }
            let allowed = |i: usize| lines[i].contains("tidy:allow-sleep");
            if !(allowed(index) || index > 0 && allowed(index - 1)) {
                problems.push(format!("{}:{}: {}", relative(&path), index + 1, line.trim()));
            }
        }
    }
    fail_if_any(
        "sleeps in test code need `// tidy:allow-sleep <reason>` (or wait with testkit's eventually, a barrier or a channel)",
        &problems,
    );
}

/// Phrases that cite material outside the repository (a private test corpus, design notes) where
/// a reader cannot follow them.
fn outside_citations(line: &str) -> Vec<&'static str> {
    let lower = line.to_lowercase();
    let mut found = Vec::new();
    let phrases = ["shared/peer", "../shared/", "the seeds", "seed chapter", "cases/", "peer record", "cc-results"];
    for phrase in phrases {
        if lower.contains(phrase) {
            found.push(phrase);
        }
    }
    // "case 014", "cases 053, 054": numbered cases of that corpus.
    let bytes = lower.as_bytes();
    for word in ["case ", "cases "] {
        for (at, _) in lower.match_indices(word) {
            let word_start = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
            let number = at + word.len();
            let digits = bytes[number..].iter().take_while(|b| b.is_ascii_digit()).count();
            let word_end = bytes.get(number + digits).is_none_or(|b| !b.is_ascii_alphanumeric());
            if word_start && digits >= 2 && word_end && !found.contains(&"case NN") {
                found.push("case NN");
            }
        }
    }
    found
}

/// Code, tests and fixtures cite public sources (a Claude Code behaviour, a public bug report),
/// never files outside the repository; and every file a test includes lives in the repository.
#[test]
fn nothing_cites_or_reads_files_outside_the_repository() {
    let root = root();
    let mut problems = Vec::new();
    let text_files = files(|path| {
        !path.ends_with("tests/tidy.rs")
            && path.extension().is_some_and(|ext| {
                ["rs", "toml", "md", "txt", "json", "py", "sh", "ps1", "ipynb"].contains(&ext.to_str().unwrap_or(""))
            })
    });
    for path in text_files {
        let Ok(text) = fs::read_to_string(&path) else { continue };
        for (index, line) in text.lines().enumerate() {
            for phrase in outside_citations(line) {
                problems.push(format!("{}:{}: cites {phrase:?}: {}", relative(&path), index + 1, line.trim()));
            }
            for macro_name in ["include_str!(\"", "include_bytes!(\""] {
                for (at, _) in line.match_indices(macro_name) {
                    let rest = &line[at + macro_name.len()..];
                    let Some(end) = rest.find('"') else { continue };
                    let target = path.parent().unwrap().join(&rest[..end]);
                    let inside = target.canonicalize().is_ok_and(|real| real.starts_with(&root));
                    if !inside {
                        problems.push(format!(
                            "{}:{}: includes {} outside the repository",
                            relative(&path),
                            index + 1,
                            &rest[..end]
                        ));
                    }
                }
            }
        }
    }
    fail_if_any("cite public sources and keep fixtures in the repository", &problems);
}

/// A Markdown code fence's info string is Rust when it is empty or only doctest attributes.
fn rust_fence(info: &str) -> Option<Vec<&str>> {
    let attributes: Vec<&str> = info.split([',', ' ']).map(str::trim).filter(|a| !a.is_empty()).collect();
    let doctest =
        |a: &&str| ["rust", "no_run", "ignore", "should_panic", "compile_fail"].contains(a) || a.starts_with("edition");
    attributes.iter().all(doctest).then_some(attributes)
}

/// Every library crate's docs (its `lib.rs` `//!` block) carry an example that runs and asserts;
/// an example marked `no_run` or `ignore` says why in the line before its fence (mentioning the
/// attribute), e.g. "The example is `no_run`: it needs a terminal."
#[test]
fn crate_examples_run() {
    let mut problems = Vec::new();
    for (name, dir, package) in packages() {
        let Some(lib) = package["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|target| target["kind"].as_array().unwrap().iter().any(|kind| kind == "lib"))
        else {
            continue;
        };
        let lib = PathBuf::from(lib["src_path"].as_str().unwrap());
        if dir == Path::new("tests") {
            continue; // The integration tests' empty library.
        }
        let text = fs::read_to_string(&lib).unwrap();
        let docs: Vec<&str> =
            text.lines().take_while(|line| line.starts_with("//!")).map(|line| line[3..].trim()).collect();
        let mut examples = 0;
        let mut inside = false;
        for (index, line) in docs.iter().enumerate() {
            let Some(info) = line.strip_prefix("```") else { continue };
            if inside {
                inside = false;
                continue;
            }
            inside = true;
            let Some(attributes) = rust_fence(info) else { continue };
            examples += 1;
            for attribute in attributes.iter().filter(|a| ["no_run", "ignore"].contains(a)) {
                let before = docs[index.saturating_sub(3)..index].join(" ");
                if !before.contains(attribute) {
                    problems.push(format!(
                        "{name}: a crate example is `{attribute}` with no word on why in the lines before it ({})",
                        relative(&lib)
                    ));
                }
            }
        }
        if examples == 0 {
            problems.push(format!("{name} has no example in its crate docs ({})", relative(&lib)));
        }
        let known = KNOWN_WITHOUT_RUNNING_EXAMPLE.contains(&name.as_str());
        let failing = problems
            .iter()
            .any(|problem| problem.starts_with(&format!("{name}: ")) || problem.starts_with(&format!("{name} has")));
        if known && !failing {
            problems.push(format!("{name}'s example runs now: remove it from KNOWN_WITHOUT_RUNNING_EXAMPLE"));
        } else if known {
            problems.retain(|problem| {
                !(problem.starts_with(&format!("{name}: ")) || problem.starts_with(&format!("{name} has")))
            });
        }
    }
    let names: Vec<String> = packages().into_iter().map(|(name, _, _)| name).collect();
    for known in KNOWN_WITHOUT_RUNNING_EXAMPLE {
        if !names.iter().any(|name| name == known) {
            problems.push(format!("{known} in KNOWN_WITHOUT_RUNNING_EXAMPLE is no package of the workspace"));
        }
    }
    fail_if_any("crate-level examples", &problems);
}

#[test]
fn the_checks_catch_what_they_should() {
    assert_eq!(sleep_calls("std::thread::sleep(d);"), [13]);
    assert_eq!(sleep_calls("tokio::time::sleep(d).await"), [13]);
    assert!(sleep_calls("\"python3 -c 'import time; time.sleep(5)'\"").is_empty());
    assert!(sleep_calls("run(\"sleep 30; touch late\")").is_empty());
    assert!(sleep_calls("x.sleep(d); // sleep(1)").is_empty());
    assert_eq!(outside_citations("// Claude Code's text (case 014)"), ["case NN"]);
    assert_eq!(outside_citations("//! the failure cases 053, 054"), ["case NN"]);
    assert!(outside_citations("// in this case 2 tools; the showcase 100").is_empty());
    assert_eq!(rust_fence("no_run"), Some(vec!["no_run"]));
    assert_eq!(rust_fence(""), Some(vec![]));
    assert_eq!(rust_fence("text"), None);
    // An upward or sideways edge is refused anywhere but between support crates.
    assert!(dependency_keeps_floors(4, 2) && dependency_keeps_floors(2, 2) && dependency_keeps_floors(2, 1));
    assert!(!dependency_keeps_floors(2, 4) && !dependency_keeps_floors(5, 5) && !dependency_keeps_floors(1, 1));
    let floors = BTreeMap::from([("agent-tools-host".to_owned(), 4)]);
    assert_eq!(floor_of("agent-tool-grep", &floors), Some(3));
    assert_eq!(floor_of("agent-tools-host", &floors), Some(4));
    // Unit tests and comments are not code.
    let text = "let a = 1; // \"Bash\"\n// \"Read\"\n#[cfg(all(test, unix))]\nmod tests { \"Edit\" }";
    assert_eq!(code_lines(text), ["let a = 1; // \"Bash\""]);
    assert_eq!(tests_start("fn f() {}\n"), 10);
}

/// The floors of ARCHITECTURE.md's crates table: package → floor.
fn architecture_floors() -> BTreeMap<String, u32> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut floors = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let [_, name, floor, ..] = cells.as_slice()
            && let (Some(name), Ok(floor)) = (name.strip_prefix('`').and_then(|n| n.strip_suffix('`')), floor.parse())
        {
            floors.insert(name.to_owned(), floor);
        }
    }
    floors
}

/// The floor of a workspace package: the table's, or 3 for a tool crate.
fn floor_of(package: &str, floors: &BTreeMap<String, u32>) -> Option<u32> {
    if package.starts_with("agent-tool-") { Some(3) } else { floors.get(package).copied() }
}

/// Whether a normal dependency from floor `from` to floor `to` keeps the layering: downwards, or
/// sideways between support crates.
fn dependency_keeps_floors(from: u32, to: u32) -> bool {
    to < from || (from == 2 && to == 2)
}

/// ARCHITECTURE.md's crates table is the workspace (every crate but the tool crates, each once),
/// and no crate depends on a crate of a higher floor, nor sideways outside the support floor
/// (dev-dependencies may reach any floor below the harness, as a tool's tests may use another
/// tool).
#[test]
fn the_architecture_map_is_the_workspace_and_its_floors_hold() {
    let floors = architecture_floors();
    let packages = packages();
    let mut problems = Vec::new();
    for (name, _, _) in &packages {
        if !name.starts_with("agent-tool-") && !floors.contains_key(name) {
            problems.push(format!("{name} is not in ARCHITECTURE.md's crates table"));
        }
    }
    for name in floors.keys() {
        if !packages.iter().any(|(package, _, _)| package == name) {
            problems.push(format!("ARCHITECTURE.md lists {name}, which is not a workspace crate"));
        }
    }
    for (name, _, json) in &packages {
        let Some(from) = floor_of(name, &floors) else { continue };
        for dependency in json["dependencies"].as_array().unwrap() {
            let to_name = dependency["name"].as_str().unwrap();
            let Some(to) = floor_of(to_name, &floors) else { continue };
            let dev = dependency["kind"].as_str() == Some("dev");
            let fine = if dev { to < 7 && (to <= from || from >= 5) } else { dependency_keeps_floors(from, to) };
            // Tool → tool edges are `tool_crates_depend_on_no_tool_crate_nor_the_host`'s to judge.
            let tool_to_tool = from == 3 && to == 3;
            if !(fine || tool_to_tool) {
                let kind = if dev { "dev" } else { "normal" };
                problems.push(format!("{name} (floor {from}) depends on {to_name} (floor {to}, {kind})"));
            }
        }
    }
    fail_if_any("the architecture map", &problems);
}

/// Tool names that generic (non-tool) crates may still spell out, each a product rule of Claude
/// Code's kept by name (file, literal, why). Everything else asks the tools' capabilities.
const NAMED_IN_GENERIC_CODE: &[(&str, &str, &str)] = &[
    ("crates/core/src/tool.rs", "ToolSearch", "core owns deferred tools and the name they are found with"),
    ("crates/core/src/permissions.rs", "Agent", "Claude Code's legacy rule names: Task is Agent"),
    ("crates/core/src/permissions.rs", "TaskStop", "legacy rule names: KillShell is TaskStop"),
    ("crates/core/src/permissions.rs", "TaskOutput", "legacy rule names: AgentOutputTool, BashOutputTool"),
    ("crates/core/src/permissions.rs", "SendUserMessage", "legacy rule names: Brief"),
    ("crates/permissions/src/filesystem.rs", "Read", "the `Read(…)` rules are permission syntax"),
    ("crates/permissions/src/filesystem.rs", "Edit", "the `Edit(…)` rules are permission syntax"),
    ("crates/shell-analysis/src/check.rs", "Bash", "the `Bash(…)` rules are permission syntax"),
    ("crates/mcp/src/resources.rs", "ListMcpResourcesTool", "the MCP client makes this tool"),
    ("crates/mcp/src/resources.rs", "ReadMcpResourceTool", "the MCP client makes this tool"),
    ("crates/host/src/pool.rs", "Bash", "simple mode's tools and REPL mode's primitives (Claude Code's sets)"),
    ("crates/host/src/pool.rs", "Read", "simple mode's tools and REPL mode's primitives"),
    ("crates/host/src/pool.rs", "Edit", "simple mode's tools and REPL mode's primitives"),
    ("crates/host/src/pool.rs", "Write", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "MultiEdit", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "Glob", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "Grep", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "NotebookEdit", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "Agent", "REPL mode's primitives"),
    ("crates/host/src/pool.rs", "REPL", "REPL mode keeps only the REPL in simple mode"),
    ("crates/host/src/pool.rs", "StructuredOutput", "Claude Code's special tools, added outside get_tools"),
    ("crates/host/src/pool.rs", "ListMcpResourcesTool", "Claude Code's special tools"),
    ("crates/host/src/pool.rs", "ReadMcpResourceTool", "Claude Code's special tools"),
    ("crates/loop/src/agent.rs", "StructuredOutput", "the loop ends a query on the structured answer"),
    ("crates/loop/src/agent.rs", "ToolSearch", "scripts cannot load tools (REPL's inner calls)"),
    ("crates/loop/src/agent.rs", "Monitor", "an interrupt stops the monitors the query started"),
    ("crates/loop/src/agent.rs", "Agent", "the `Agent` type's Debug output (not the tool)"),
    ("crates/loop/src/subagents.rs", "Agent", "SubagentStart hooks name the Agent tool, as Claude Code's do"),
    ("crates/cli/src/agent/repl.rs", "Read", "the chat's one-line summary of a REPL script's calls"),
    ("crates/cli/src/agent/repl.rs", "Glob", "the chat's one-line summary of a REPL script's calls"),
    ("crates/cli/src/agent/repl.rs", "Grep", "the chat's one-line summary of a REPL script's calls"),
    ("crates/loop/src/prompt.rs", "Read", "the default system prompt names the file tools the request carries"),
    ("crates/loop/src/prompt.rs", "Edit", "the default system prompt names the file tools the request carries"),
    ("crates/loop/src/prompt.rs", "Write", "the default system prompt names the file tools the request carries"),
    ("crates/loop/src/prompt.rs", "Bash", "the default system prompt names Bash when the request carries it"),
    ("crates/loop/src/prompt.rs", "ToolSearch", "the default prompt speaks of deferred tools only with ToolSearch"),
    ("crates/loop/src/prompt.rs", "Glob", "the default system prompt names the file tools the request carries"),
    ("crates/loop/src/prompt.rs", "Grep", "the default system prompt names the file tools the request carries"),
];

/// Where a file's unit tests start (its first `#[cfg(test)]` or `#[cfg(all(test, …))]`), or its
/// length.
fn tests_start(text: &str) -> usize {
    ["#[cfg(test)]", "#[cfg(all(test"].iter().filter_map(|mark| text.find(mark)).min().unwrap_or(text.len())
}

/// The code of a file before its unit tests, without comment lines.
fn code_lines(text: &str) -> Vec<&str> {
    text[..tests_start(text)].lines().filter(|line| !line.trim_start().starts_with("//")).collect()
}

/// No generic crate spells a built-in tool's name as a string literal in its code (tests and
/// comments aside): generic code asks a tool's capabilities (kind, scope, shell, dispatch), so a
/// new tool needs no edit there. The product rules kept by name are [`NAMED_IN_GENERIC_CODE`].
#[test]
fn generic_crates_ask_capabilities_not_tool_names() {
    let mut names: Vec<String> = agent_tools_host::pool::BUILT_IN_TOOL_NAMES.iter().map(|n| (*n).to_owned()).collect();
    names.extend(["StructuredOutput", "ListMcpResourcesTool", "ReadMcpResourceTool"].map(str::to_owned));
    let mut problems = Vec::new();
    let mut used = Vec::new();
    for path in rust_files() {
        let file = relative(&path);
        let generic =
            file.starts_with("crates/") && !file.starts_with("crates/tools/") && !file.starts_with("crates/testkit/");
        if !generic || file.contains("/tests/") || file.contains("/benches/") || file.ends_with("/tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for line in code_lines(&text) {
            for name in &names {
                if !line.contains(&format!("\"{name}\"")) {
                    continue;
                }
                if let Some(entry) = NAMED_IN_GENERIC_CODE.iter().find(|(f, n, _)| *f == file && n == name) {
                    used.push(*entry);
                } else {
                    problems.push(format!("{file}: \"{name}\" in `{}`", line.trim()));
                }
            }
        }
    }
    fail_if_any("tool names in generic code (ask the tool's capabilities, or name the rule here)", &problems);
    let stale: Vec<String> = NAMED_IN_GENERIC_CODE
        .iter()
        .filter(|entry| !used.contains(entry))
        .map(|(file, name, _)| format!("{file}: {name} is no longer there: remove it from the list"))
        .collect();
    fail_if_any("named tool-name exceptions that are gone", &stale);
}

/// The most lines of code (before the unit tests) a Rust file may have.
const FILE_LINE_BUDGET: usize = 1_000;

/// Files over [`FILE_LINE_BUDGET`], each with its ceiling (its size when it was named) and why.
/// A file here may shrink, never grow past its ceiling; this list must shrink.
const OVERSIZED_FILES: &[(&str, usize, &str)] = &[];

/// No Rust source file's code (before its unit tests; test files are not counted) is longer than
/// [`FILE_LINE_BUDGET`] lines, except the files [`OVERSIZED_FILES`] names, which stay under their
/// ceilings.
#[test]
fn files_keep_to_the_line_budget() {
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for path in rust_files() {
        let file = relative(&path);
        if file.starts_with("tests/") || file.contains("/tests/") || file.ends_with("/tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let lines = text[..tests_start(&text)].lines().count();
        match OVERSIZED_FILES.iter().find(|(named, _, _)| *named == file) {
            Some((_, ceiling, _)) => {
                seen.push(file.clone());
                if lines > *ceiling {
                    problems.push(format!("{file}: {lines} lines, over its ceiling of {ceiling}"));
                }
            }
            None if lines > FILE_LINE_BUDGET => {
                problems.push(format!("{file}: {lines} lines of code, over the budget of {FILE_LINE_BUDGET}"));
            }
            None => {}
        }
    }
    for (file, _, _) in OVERSIZED_FILES {
        if !seen.iter().any(|seen| seen == file) {
            problems.push(format!("{file} is gone: remove it from OVERSIZED_FILES"));
        }
    }
    fail_if_any("file size", &problems);
}
