//! Adding a tool is one crate, one line in the host's tool table and one feature: this test does
//! exactly that to a copy of the workspace, builds the `agent-tools` program of the copy, and
//! finds the new tool where its capabilities put it — in `list` (with its kind and the agents
//! that get it), in the model's pool, and in the tools of an Explore sub-agent (no list of
//! names anywhere had to learn it).
//!
//! It builds every workspace crate of the copy again (registry crates are reused from this
//! target folder), so it is ignored by `cargo test` and run by `cargo xtask ci` after
//! `cargo build -p agent-tools-cli`, whose registry builds it shares.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_tools_testkit::fake_api::{FakeApi, Reply};
use serde_json::{Value, json};

/// The new crate: a read tool, and nothing else.
const CARGO_TOML: &str = r#"[package]
name = "agent-tool-throwaway"
description = "A tool added by the add_a_tool test."
version.workspace = true
edition.workspace = true
publish = false

[dependencies]
agent-tools-core = { workspace = true }
schemars = { workspace = true }
serde = { workspace = true }
"#;

const LIB_RS: &str = r#"//! Throwaway: says how many letters a word has.
use std::sync::Arc;

use agent_tools_core::{
    Capabilities, Tool, ToolDef, ToolError, ToolFlags, ToolKind, ToolResult, ToolResultBlock, ToolUseContext,
    build_tool,
};

/// The API name.
pub const NAME: &str = "Throwaway";

/// The input.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The word.
    pub word: String,
}

struct Throwaway;

/// The tool.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(Throwaway)
}

impl ToolDef for Throwaway {
    type Input = Input;
    type Output = usize;
    const NAME: &'static str = NAME;
    const PROMPT: &'static str = "Counts the letters of a word. Use it when asked how long a word is.";
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Read).flags(ToolFlags::LOCAL_READ_ONLY);

    fn summary(&self, input: &Input) -> String {
        format!("Count the letters of {}", input.word)
    }

    async fn call(&self, input: Input, _: &ToolUseContext) -> Result<ToolResult<usize>, ToolError> {
        Ok(ToolResult::new(input.word.chars().count()))
    }

    fn map_tool_result(&self, output: &usize, id: &str) -> ToolResultBlock {
        ToolResultBlock::text(id, format!("{output} letters"))
    }
}
"#;

/// The one line in the tool table, before ToolSearch (which stays last).
const TABLE_LINE: &str = "    \"throwaway\" => agent_tool_throwaway;\n";

/// The workspace root (this package's parent).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// This test binary's target folder (`<target>/debug/deps/add_a_tool-…` → `<target>`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

fn run(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap_or_else(|error| panic!("{command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Copies the workspace's sources (not its target folder, git data or npm packages) to `to`.
fn copy_workspace(to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in ["Cargo.toml", "Cargo.lock", ".cargo", "crates", "xtask", "tests"] {
        run(Command::new("cp").arg("-a").arg(root().join(entry)).arg(to));
    }
}

/// A target folder for the copy that already holds this one's registry builds: `deps` hard
/// linked (their outputs are never rewritten: the copy's own crates hash to other names), the
/// fingerprints and build-script outputs copied with their times.
fn seeded_target(to: &Path) -> PathBuf {
    let from = target_dir().join("debug");
    let profile = to.join("debug");
    fs::create_dir_all(&profile).unwrap();
    if from.join("deps").is_dir() {
        run(Command::new("cp").arg("-al").arg(from.join("deps")).arg(&profile));
        for dir in ["build", ".fingerprint"] {
            if from.join(dir).is_dir() {
                run(Command::new("cp").arg("-a").arg(from.join(dir)).arg(&profile));
            }
        }
    }
    to.to_path_buf()
}

/// Puts `line` before the first line of `file` that contains `marker`.
fn insert_before(file: &Path, marker: &str, line: &str) {
    let text = fs::read_to_string(file).unwrap();
    let at = text.find(marker).unwrap_or_else(|| panic!("{marker:?} not in {}", file.display()));
    let at = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    fs::write(file, format!("{}{line}{}", &text[..at], &text[at..])).unwrap();
}

/// The one crate, the one table line and the one feature (declared, on by default, and its
/// optional dependency).
fn add_the_tool(workspace: &Path) {
    let krate = workspace.join("crates/tools/throwaway");
    fs::create_dir_all(krate.join("src")).unwrap();
    fs::write(krate.join("Cargo.toml"), CARGO_TOML).unwrap();
    fs::write(krate.join("src/lib.rs"), LIB_RS).unwrap();

    insert_before(&workspace.join("crates/host/src/pool.rs"), "\"tool-search\" => agent_tool_tool_search", TABLE_LINE);

    let manifest = workspace.join("crates/host/Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    let text = text.replacen("default = [", "default = [\"throwaway\", ", 1).replacen(
        "\n[dependencies]\n",
        "\nthrowaway = [\"dep:agent-tool-throwaway\"]\n\n[dependencies]\nagent-tool-throwaway = { path = \"../tools/throwaway\", optional = true }\n",
        1,
    );
    fs::write(&manifest, text).unwrap();
}

/// The `agent-tools` program of the copy, run in `cwd` with its home inside it.
fn program(binary: &Path, cwd: &Path) -> Command {
    agent_tools_testkit::procs::isolated_command(binary, cwd)
}

/// The names in a request's `tools` array.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().filter_map(|tool| tool["name"].as_str().map(str::to_owned)).collect()
}

#[test]
#[ignore = "builds a copy of the workspace; `cargo xtask ci` runs it"]
fn a_tool_is_one_crate_one_table_line_and_one_feature() {
    let scratch = target_dir().join("add-a-tool");
    let _ = fs::remove_dir_all(&scratch);
    let workspace = scratch.join("workspace");
    copy_workspace(&workspace);
    add_the_tool(&workspace);
    let target = seeded_target(&scratch.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo).current_dir(&workspace).env("CARGO_TARGET_DIR", &target).args([
        "build",
        "--quiet",
        "-p",
        "agent-tools-cli",
        "--bin",
        "agent-tools",
    ]));
    let binary = target.join("debug/agent-tools");

    let project = tempfile::tempdir().unwrap();
    let cwd = project.path().canonicalize().unwrap();

    // `list`: its line, with the kind and the agents its scope reaches.
    let listed = run(program(&binary, &cwd).arg("list"));
    let listed = String::from_utf8(listed.stdout).unwrap();
    let line = listed.lines().find(|line| line.starts_with("Throwaway ")).unwrap_or_else(|| panic!("{listed}"));
    let columns: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(columns[..5], ["Throwaway", "read", "read-only", "concurrent", "subagents"], "{line}");
    assert!(line.ends_with("Counts the letters of a word."), "{line}");

    // The model's pool, and a foreground Explore sub-agent's: the tool's capabilities (a read
    // tool of the default scope, sub-agents) put it in that read-only set without anyone naming
    // it, while the edit tools stay out.
    let api = FakeApi::start(|request| {
        let main = request.body["messages"][0].to_string().contains("MAIN-PROMPT");
        match (main, request.assistant_turns()) {
            (true, 0) => Reply::tool_use(
                "toolu_agent",
                "Agent",
                json!({
                    "description": "Look around",
                    "prompt": "Count some letters.",
                    "subagent_type": "Explore",
                    "run_in_background": false
                }),
            ),
            (true, _) => Reply::text("All done."),
            (false, _) => Reply::text("Nothing to count."),
        }
    });
    let output = run(program(&binary, &cwd)
        .env("ANTHROPIC_BASE_URL", api.base_url())
        .env("ANTHROPIC_API_KEY", "dummy")
        .args(["agent", "-p", "MAIN-PROMPT: start an Explore agent"]));
    assert!(String::from_utf8_lossy(&output.stdout).contains("All done."));
    let requests: Vec<Value> = api.requests().into_iter().map(|request| request.body).collect();
    let main = requests.iter().find(|body| body["messages"][0].to_string().contains("MAIN-PROMPT")).unwrap();
    let explore = requests
        .iter()
        .find(|body| !body["messages"][0].to_string().contains("MAIN-PROMPT") && body["tools"].is_array())
        .unwrap_or_else(|| panic!("no sub-agent request among {requests:#?}"));
    let (main_tools, explore_tools) = (tool_names(main), tool_names(explore));
    assert!(main_tools.iter().any(|name| name == "Throwaway"), "{main_tools:?}");
    assert!(explore_tools.iter().any(|name| name == "Throwaway"), "{explore_tools:?}");
    assert!(explore_tools.iter().any(|name| name == "Read"), "{explore_tools:?}");
    assert!(
        !explore_tools.iter().any(|name| name == "Write" || name == "Edit"),
        "Explore reads only: {explore_tools:?}"
    );

    let _ = fs::remove_dir_all(&scratch);
}
