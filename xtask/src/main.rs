//! `cargo xtask <task>`: the project's automation.
//!
//! - `ci`: format check, clippy with warnings denied, the tidy checks, the whole test suite, the
//!   host's tests with only the `grep,glob` features (the pool must then be `[Glob, Grep]`), the
//!   docs with warnings denied (broken intra-doc links fail), and `cargo package` of every
//!   publishable crate (metadata complete, path dependencies versioned).
//! - `features`: builds each tool crate alone, and the host with no tool and with each single
//!   tool feature, so no crate silently depends on another's features.
//! - `tidy`: the repository's conventions, which live as tests in `tests/tidy.rs` (so
//!   `cargo test --workspace` checks them too): this task runs only those tests.
//! - `bench search`: times Grep and Glob (in process through the host's executor, and through the
//!   release `agent-tools call` binary) side by side with `rg` on a generated 5,000-file tree and
//!   on the sources under `~/.cargo/registry/src`, and prints medians, ratios and peak memory.
//!   Speed is measured here, never in tests. See [`mod@bench`].
//! - `bench loop`: the agent loop against the scripted fake Messages API: process start to the
//!   first request, the loop's overhead per turn, streaming tool execution, peak RSS after a
//!   50-turn session (see `bench_loop.rs`).
//! - `bench http`: 50 MCP sessions × 200 calls against one `serve --http` on 127.0.0.1: latency
//!   per tool, RSS per idle session, isolation and a clean end (see `bench_http.rs`).
//! - `bench lsp`: the LSP tool on typescript-language-server and pyright, on generated
//!   500-module projects: the first answer with the server's start, warm goToDefinition and
//!   findReferences, beside Grep for the same symbol (see `bench_lsp.rs`).
//! - `bench repl`: a REPL script's 100 Grep calls against 100 direct calls through the executor
//!   (the overhead per inner call) and the JavaScript context's creation (see `bench_repl.rs`).
//! - `bench executor`: what the executor's pipeline (find, parse, validate, permissions, call,
//!   map, size control) adds to a permitted Read of a small file.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail, ensure};
use serde_json::Value;

mod bench;
#[cfg(feature = "bench")]
mod bench_http;
#[cfg(feature = "bench")]
mod bench_loop;
#[cfg(feature = "bench")]
mod bench_lsp;
#[cfg(feature = "bench")]
mod bench_repl;
#[cfg(feature = "bench")]
mod bench_run;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().cloned().unwrap_or_default();
    #[cfg(feature = "bench")]
    match task.as_str() {
        // The release build's own entry points (started by `bench`; they keep the caller's cwd).
        "bench-run" => return bench_run::run(&args[1..]),
        "bench-rss" => return bench_run::peak_rss_of_child(&args[1..]),
        "bench-loop" => return bench_loop::run(&args[1..]),
        "bench-http" => return bench_http::run(&args[1..]),
        "bench-lsp" => return bench_lsp::run(&args[1..]),
        "bench-repl" => return bench_repl::run(&args[1..]),
        _ => {}
    }
    let root = workspace_root()?;
    std::env::set_current_dir(&root)?;
    match task.as_str() {
        "ci" => ci(),
        "features" => features(),
        "tidy" => tidy(),
        "bench" => bench::bench(&args[1..]),
        "" | "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            bail!("unknown task {task:?}")
        }
    }
}

const USAGE: &str = "usage: cargo xtask <task>
  ci        format check, clippy (warnings denied), tidy checks, every test, docs (warnings
            denied), cargo package of every publishable crate
  features  each tool crate built alone, the host with no tool and with each single tool
  tidy      the repository's conventions (tests/tidy.rs)
  bench search [--runs N] [--large DIR | --no-large] [--no-build]
            Grep and Glob against ripgrep on a generated tree
  bench executor
            the executor's per-call overhead
  bench loop [--runs N] [--claude PATH] [--no-build]
            the agent loop against the fake Messages API (start, per-turn overhead, streaming
            tool execution, peak RSS), beside Claude Code's when --claude names claude.exe
  bench http [--sessions N] [--calls N] [--no-build]
            MCP sessions at once on `serve --http`: latency, RSS per session, isolation
  bench lsp [--files N] [--starts N] [--runs N] [--only TEXT] [--no-build]
            the LSP tool on real language servers (first answer, warm calls) beside Grep
  bench repl [--calls N] [--runs N] [--no-build]
            a REPL script's inner tool calls against direct calls (overhead per call)";

fn workspace_root() -> anyhow::Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).context("xtask has no parent folder")
}

fn cargo(args: &[&str]) -> anyhow::Result<()> {
    println!("\n$ cargo {}", args.join(" "));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .status()
        .with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    ensure!(status.success(), "cargo {} failed ({status})", args.join(" "));
    Ok(())
}

fn ci() -> anyhow::Result<()> {
    cargo(&["fmt", "--all", "--", "--check"])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    tidy()?;
    cargo(&["test", "--workspace"])?;
    // Adding a tool is one crate, one table line and one feature: the test does it to a copy of
    // the workspace, reusing the registry builds of the CLI's own (hence the build first).
    cargo(&["build", "-p", "agent-tools-cli", "--quiet"])?;
    cargo(&["test", "-p", "agent-tools-tests", "--test", "add_a_tool", "--", "--ignored"])?;
    cargo(&["test", "-p", "agent-tools-host", "--no-default-features", "--features", "grep,glob"])?;
    println!("\n$ RUSTDOCFLAGS=\"-D warnings\" cargo doc --workspace --no-deps");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["doc", "--workspace", "--no-deps"])
        .env("RUSTDOCFLAGS", "-D warnings")
        .status()
        .context("cannot run cargo doc")?;
    ensure!(status.success(), "cargo doc failed ({status})");
    // Test-only packages are never published; every other crate must package.
    let mut package = vec!["package", "--workspace", "--no-verify", "--allow-dirty"];
    for unpublished in ["agent-tools-tests", "agent-tools-testkit", "xtask"] {
        package.extend(["--exclude", unpublished]);
    }
    cargo(&package)?;
    println!("\nci: all checks passed");
    Ok(())
}

/// Tool crates (`crates/tools/<short>` → package) and the host's features.
struct Layout {
    tools: Vec<(String, String)>,
    host_features: Vec<String>,
}

fn layout() -> anyhow::Result<Layout> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("cannot run cargo metadata")?;
    ensure!(output.status.success(), "cargo metadata failed");
    let metadata: Value = serde_json::from_slice(&output.stdout)?;
    let packages = metadata["packages"].as_array().context("no packages in cargo metadata")?;
    let mut tools = Vec::new();
    let mut host_features = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default().to_owned();
        let manifest = package["manifest_path"].as_str().unwrap_or_default();
        let dir = Path::new(manifest).parent().unwrap_or(Path::new(""));
        if dir.parent().is_some_and(|parent| parent.ends_with("crates/tools")) {
            let short = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            tools.push((short, name.clone()));
        }
        if name == "agent-tools-host"
            && let Some(features) = package["features"].as_object()
        {
            host_features = features.keys().filter(|f| *f != "default").cloned().collect();
        }
    }
    tools.sort();
    host_features.sort();
    Ok(Layout { tools, host_features })
}

/// The conventions are tests (`tests/tidy.rs`): the crate shape, dependency rules, module docs,
/// unique tool names, no ordering sleeps, no citations of files outside the repository, and
/// running crate examples.
fn tidy() -> anyhow::Result<()> {
    cargo(&["test", "-p", "agent-tools-tests", "--test", "tidy"])
}

fn features() -> anyhow::Result<()> {
    tidy()?;
    let layout = layout()?;
    for (_, package) in &layout.tools {
        cargo(&["build", "-p", package])?;
    }
    cargo(&["build", "-p", "agent-tools-host", "--no-default-features"])?;
    for feature in &layout.host_features {
        cargo(&["build", "-p", "agent-tools-host", "--no-default-features", "--features", feature])?;
    }
    println!(
        "\nfeatures: {} tool crates alone, the host with each of {} features",
        layout.tools.len(),
        layout.host_features.len()
    );
    Ok(())
}
