//! No input a model can send makes a tool panic or hit an internal error: every tool in the pool
//! gets a corpus of hostile inputs and a few hundred generated ones, and must answer each with a
//! `tool_result` (a success or an error the model can read).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;

use agent_tools_core::ToolUseBlock;
use agent_tools_core::{ToolPermissionContext, ToolUseContext};
use agent_tools_host::{HostConfig, assemble_tool_pool, run_tool_use};
use serde_json::{Map, Value, json};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STRINGS: &[&str] = &[
    "",
    " ",
    ".",
    "..",
    // Absolute roots stay small: a search of `/` is legitimate but walks the whole machine.
    "/nonexistent-root/x",
    "~",
    "~/",
    "../../../../etc/passwd",
    "/dev/zero",
    "/dev/urandom",
    "/proc/self/fd/0",
    "a.txt",
    "dir",
    "dir/",
    "**",
    "**/*",
    "{",
    "}",
    "{a,b",
    "[",
    "[!",
    "(",
    "(?",
    "\\",
    "a{100000}",
    "(a*)*b",
    "\u{0}",
    "line\nbreak",
    "\u{feff}bom",
    "日本語",
    "💥",
    "-e",
    "--help",
    "undefined",
    "null",
    "content",
    "count",
    "files_with_matches",
    "true",
    "false",
    "-1",
    "1e309",
    "18446744073709551616",
];

/// What a tool that writes or runs commands may be given: names that stay inside the test's
/// folder (no absolute paths, no `..`, no `~`), so nothing outside it can be touched.
fn contained(strings: &'static [&'static str]) -> Vec<&'static str> {
    strings.iter().copied().filter(|s| !s.starts_with('/') && !s.contains("..") && !s.starts_with('~')).collect()
}

fn pick(rng: &mut Rng, strings: &[&'static str]) -> Value {
    json!(strings[rng.below(strings.len() as u64) as usize])
}

fn scalar(rng: &mut Rng, strings: &[&'static str]) -> Value {
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.below(5) as i64 - 2),
        3 => json!(u64::MAX),
        4 => json!(i64::MIN),
        5 => json!(1.5e300),
        6 => json!(-0.5),
        _ => pick(rng, strings),
    }
}

fn value(rng: &mut Rng, depth: u32, strings: &[&'static str]) -> Value {
    if depth > 2 {
        return scalar(rng, strings);
    }
    match rng.below(8) {
        0 => Value::Array((0..rng.below(3)).map(|_| value(rng, depth + 1, strings)).collect()),
        1 => {
            let mut map = Map::new();
            for i in 0..rng.below(3) {
                map.insert(format!("k{i}"), value(rng, depth + 1, strings));
            }
            Value::Object(map)
        }
        _ => scalar(rng, strings),
    }
}

/// An input built from the tool's own field names (so the parse often succeeds and the tool
/// really runs), with hostile values, sometimes a field missing or an extra one.
fn input_for(schema: &Value, rng: &mut Rng, strings: &[&'static str]) -> Value {
    let mut map = Map::new();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if rng.below(4) == 0 {
                continue;
            }
            let typed = match property["type"].as_str() {
                Some("string") if rng.below(3) > 0 => pick(rng, strings),
                Some("integer" | "number") if rng.below(3) > 0 => json!(rng.below(300) as i64 - 5),
                Some("boolean") if rng.below(3) > 0 => json!(rng.below(2) == 0),
                _ => value(rng, 0, strings),
            };
            map.insert(name.clone(), typed);
        }
    }
    if rng.below(10) == 0 {
        map.insert("unexpected".into(), value(rng, 0, strings));
    }
    Value::Object(map)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_inputs_never_panic_or_hit_an_internal_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
    fs::create_dir(root.join("dir")).unwrap();
    fs::write(root.join("dir/b.rs"), "fn main() {}\n").unwrap();
    fs::write(root.join("bin.dat"), b"\x00\x01\x02\x03\xff\xfe\x00\x00").unwrap();

    // Every tool: the default pool, plus the task list V2 tools it leaves out (TodoWrite's
    // alternative, on with `todo_v2`).
    let mut pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let v2 = HostConfig { todo_v2: true, ..HostConfig::default() };
    for tool in assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &v2) {
        if !pool.iter().any(|known| known.name() == tool.name()) {
            pool.push(tool);
        }
    }
    assert!(pool.iter().any(|tool| tool.name() == "TaskUpdate") && pool.iter().any(|tool| tool.name() == "TodoWrite"));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut calls = 0;
    let safe = contained(STRINGS);
    for tool in &pool {
        // Each tool gets its own session, so a Read of a system file can never license a Write
        // of it; tools that write or run commands only ever see names inside the test folder.
        let mut ctx = ToolUseContext::new(root);
        // EnterPlanMode makes the plans folder: inside the test folder, not the temporary one.
        ctx.options.plans_dir = Some(root.join("plans"));
        let strings: &[&'static str] = if tool.flags().read_only { STRINGS } else { &safe };
        let schema = tool.input_schema().clone();
        let mut inputs: Vec<Value> =
            vec![Value::Null, json!([]), json!("not json"), json!("{\"half\": "), json!({}), json!(42)];
        inputs.extend((0..150).map(|_| input_for(&schema, &mut rng, strings)));
        inputs.extend((0..30).map(|_| value(&mut rng, 0, strings)));
        for input in inputs {
            let block = ToolUseBlock { id: "toolu_fuzz".into(), name: tool.name().into(), input: input.clone() };
            let done = run_tool_use(&pool, &block, &ctx).await;
            calls += 1;
            let text = done.block.content.text();
            assert!(!text.contains("internal error"), "{} {input}: {text}", tool.name());
            assert_eq!(done.block.tool_use_id, "toolu_fuzz");
            // A NUL may only come back if the model sent one (echoed in a message), never from a file.
            if !input.to_string().contains("\\u0000") {
                assert!(!text.contains('\u{0}'), "{} {input}: raw NUL in the result", tool.name());
            }
        }
    }
    assert!(calls >= 3 * 186);
}

/// A value far too long to echo, with a NUL and a line break inside.
fn huge_value() -> String {
    let mut value = "x".repeat(500_000);
    value.push('\u{0}');
    value.push('\n');
    value.push_str(&"y".repeat(500_000));
    value
}

/// The longest error text any tool may give for a call whose values are too long to echo:
/// a message quotes at most a couple of hundred characters of each value (issue 12).
const MAX_ERROR_TEXT: usize = 4_096;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_value_is_quoted_briefly_and_escaped_never_echoed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
    let mut pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let v2 = HostConfig { todo_v2: true, ..HostConfig::default() };
    for tool in assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &v2) {
        if !pool.iter().any(|known| known.name() == tool.name()) {
            pool.push(tool);
        }
    }
    let huge = huge_value();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let safe = contained(STRINGS);
    let mut failures = Vec::new();
    let mut cases: Vec<(String, Value)> = vec![(huge.clone(), json!({}))];
    for tool in &pool {
        let schema = tool.input_schema().clone();
        let Some(properties) = schema["properties"].as_object() else { continue };
        // An unknown field whose name is the huge value.
        let mut extra = input_for(&schema, &mut rng, &safe);
        extra[huge.as_str()] = json!(1);
        cases.push((tool.name().to_owned(), extra));
        for (name, property) in properties {
            for value in [json!(huge), json!([huge]), json!({"k": huge})] {
                if property["type"] == "string" && !value.is_string() {
                    continue;
                }
                // The value alone, and beside a few sets of other fields (some reach the tool's
                // later checks, where other messages name the value).
                let mut alone = json!({});
                alone[name.as_str()] = value.clone();
                cases.push((tool.name().to_owned(), alone));
                for _ in 0..2 {
                    let mut input = input_for(&schema, &mut rng, &safe);
                    input[name.as_str()] = value.clone();
                    cases.push((tool.name().to_owned(), input));
                }
            }
        }
    }
    for (name, input) in cases {
        let mut ctx = ToolUseContext::new(root);
        ctx.options.plans_dir = Some(root.join("plans"));
        let block = ToolUseBlock { id: "toolu_huge".into(), name: name.clone(), input: input.clone() };
        let done = run_tool_use(&pool, &block, &ctx).await;
        let text = done.block.content.text();
        let field = input
            .as_object()
            .and_then(|map| map.iter().find(|(k, v)| k.len() > 1000 || v.to_string().len() > 1000))
            .map(|(k, _)| k.chars().take(20).collect::<String>());
        let shown = |name: &str| if name.len() > 40 { format!("{}…", &name[..40]) } else { name.to_owned() };
        if done.block.is_error && text.len() > MAX_ERROR_TEXT {
            failures.push(format!(
                "{} {field:?}: {} chars: {}",
                shown(&name),
                text.len(),
                text.chars().take(150).collect::<String>()
            ));
        } else if text.contains('\u{0}') {
            failures.push(format!(
                "{} {field:?}: raw NUL: {}",
                shown(&name),
                text.chars().take(150).collect::<String>()
            ));
        }
    }
    assert!(failures.is_empty(), "{} calls echoed the value:\n{}", failures.len(), failures.join("\n"));
}

/// The hidden temporary files beside `file` (`.<name>.….tmp`).
fn temp_files_beside(file: &std::path::Path) -> Vec<String> {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let mut found: Vec<String> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|entry| entry.starts_with(&format!(".{name}.")) && entry.ends_with(".tmp"))
        .collect();
    found.sort();
    found
}

/// Whether process `pid` is writing a file in `folder`: it has a hidden temporary file there
/// (`.<name>.….tmp`, named) or holds one open without a name (Linux's `O_TMPFILE`, which
/// `/proc/<pid>/fd` shows as `<folder>/#<inode> (deleted)`).
fn writing_in(pid: u32, folder: &std::path::Path, file: &std::path::Path) -> bool {
    let unnamed = format!("{}/#", folder.display());
    !temp_files_beside(file).is_empty()
        || fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|to| to.to_string_lossy().starts_with(&unnamed)))
}

#[test]
fn a_write_killed_midway_leaves_the_old_file_and_no_temporary_file_past_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let root = root.as_path();
    let target = root.join("big.txt");
    let old = "A".repeat(1000);
    fs::write(&target, &old).unwrap();
    let new = "B".repeat(16 << 20);
    let turn = json!([
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": target, "limit": 1}},
        {"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {"file_path": target, "content": new}}
    ]);
    fs::write(root.join("turn.json"), turn.to_string()).unwrap();
    let run = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools-under-test"));
        command.env("HOME", root.join(".home")).env("XDG_STATE_HOME", root.join(".state"));
        command.arg("--cwd").arg(root).args(["run", "--permission-mode", "acceptEdits"]).arg(root.join("turn.json"));
        command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        command
    };
    // Kill the writer while it writes its temporary file (a few tries: a fast disk may finish the
    // write between two looks).
    let mut left = Vec::new();
    let mut caught = false;
    for _ in 0..20 {
        let mut child = run().spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !writing_in(child.id(), root, &target)
            && child.try_wait().unwrap().is_none()
            && std::time::Instant::now() < deadline
        {
            // tidy:allow-sleep a 200 µs look for the temporary file: the moment of the kill is the test.
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let _ = child.kill();
        child.wait().unwrap();
        // Never torn: the old bytes or all the new ones.
        let now = fs::read(&target).unwrap();
        assert!(now == old.as_bytes() || now == new.as_bytes(), "torn: {} bytes", now.len());
        left = temp_files_beside(&target);
        if now == old.as_bytes() {
            caught = true;
            // On Linux the temporary file has no name until it is complete (a kill in the instant
            // between naming it and renaming it over the file leaves it: then try again).
            if left.is_empty() || !cfg!(target_os = "linux") {
                break;
            }
        }
        fs::write(&target, &old).unwrap();
    }
    assert!(caught, "the writer was never caught writing");
    if cfg!(target_os = "linux") {
        assert_eq!(left, Vec::<String>::new(), "a killed write left its temporary file");
    }
    // Where it has a name, the name says whose it is.
    assert!(left.iter().all(|name| name.starts_with(".big.txt.") && name.split('.').count() == 6), "{left:?}");
    // The next write of that file, by another process, removes whatever the killed ones left.
    let status = run().status().unwrap();
    assert!(status.success());
    assert_eq!(fs::read(&target).unwrap().len(), new.len());
    assert_eq!(temp_files_beside(&target), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_of_a_huge_string_that_is_not_there_repeats_only_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    fs::write(&file, "alpha\nbeta\n").unwrap();
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let permissions =
        ToolPermissionContext { mode: agent_tools_core::PermissionMode::AcceptEdits, ..Default::default() };
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.permission_context = std::sync::Arc::new(permissions);
    let read = ToolUseBlock { id: "toolu_r".into(), name: "Read".into(), input: json!({"file_path": file}) };
    assert!(!run_tool_use(&pool, &read, &ctx).await.block.is_error);
    let huge = huge_value();
    for (tool, input) in [
        ("Edit", json!({"file_path": file, "old_string": huge, "new_string": "x"})),
        ("MultiEdit", json!({"file_path": file, "edits": [{"old_string": huge, "new_string": "x"}]})),
    ] {
        if !pool.iter().any(|pooled| pooled.name() == tool) {
            continue;
        }
        let block = ToolUseBlock { id: "toolu_e".into(), name: tool.into(), input };
        let done = run_tool_use(&pool, &block, &ctx).await;
        let text = done.block.content.text();
        assert!(done.block.is_error, "{tool}: {}", &text[..text.len().min(200)]);
        assert!(text.contains("String to replace not found in file."), "{tool}: {}", &text[..text.len().min(300)]);
        assert!(text.contains(&format!("{}… (1000002 characters)", "x".repeat(1_000))), "{tool}");
        assert!(text.len() < MAX_ERROR_TEXT, "{tool}: {} chars", text.len());
    }
}
