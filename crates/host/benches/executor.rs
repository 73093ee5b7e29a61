//! What the executor adds to one call: a permitted Read of a small file through
//! `Executor::run_tool_use` (find, parse, validate, permissions, call, map, size control) against
//! the tool's own `call` on pre-parsed input. Run with `cargo xtask bench executor` (or
//! `cargo bench -p agent-tools-host --bench executor`). Prints medians in microseconds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use agent_tools_core::ToolUseBlock;
use agent_tools_core::{ToolPermissionContext, ToolUseContext};
use agent_tools_host::{Executor, HostConfig, assemble_tool_pool};
use serde_json::json;

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort_unstable();
    samples[samples.len() / 2].as_secs_f64() * 1e6
}

fn main() {
    let iterations: usize = std::env::var("BENCH_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=20).map(|i| format!("line {i} of a small file\n")).collect();
    std::fs::write(dir.path().join("small.txt"), text).unwrap();
    let pool = assemble_tool_pool(&ToolPermissionContext::default(), Vec::new(), &HostConfig::default());
    let read = pool.iter().find(|tool| tool.name() == "Read").expect("the Read feature is on").clone();
    let executor = Executor::new(pool);
    let ctx = ToolUseContext::new(dir.path());
    let input = json!({"file_path": dir.path().join("small.txt")});
    let block = ToolUseBlock { id: "toolu_bench".into(), name: "Read".into(), input: input.clone() };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();

    runtime.block_on(async {
        // Warm up both paths (page cache, blocking threads, lazily built schemas).
        for _ in 0..1_000 {
            executor.run_tool_use(&block, &ctx).await;
            read.call(read.parse(input.clone()).unwrap(), &ctx).await.unwrap();
        }
        let mut through_executor = Vec::with_capacity(iterations);
        let mut call_only = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let started = Instant::now();
            let done = executor.run_tool_use(&block, &ctx).await;
            through_executor.push(started.elapsed());
            assert!(!done.block.is_error);

            let parsed = read.parse(input.clone()).unwrap();
            let started = Instant::now();
            let output = read.call(parsed, &ctx).await.unwrap();
            call_only.push(started.elapsed());
            assert!(!output.data.block.is_error);
        }
        let executor_us = median(through_executor);
        let call_us = median(call_only);
        println!("executor bench: a permitted Read of a 20-line file, {iterations} iterations, medians");
        println!("  through Executor::run_tool_use : {executor_us:8.1} µs");
        println!("  the tool's call alone          : {call_us:8.1} µs");
        println!("  pipeline overhead              : {:8.1} µs (target: under 50 µs)", executor_us - call_us);
    });
}
