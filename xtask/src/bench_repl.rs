//! `bench repl`: what a REPL script's inner tool call costs beside the same call made directly
//! through the executor (release build, in process, through a `Session`).
//!
//! On a generated project of 100 small files: `--calls N` (default 100) Grep calls, each on one
//! file, made one after another as N direct calls (`Session::call`) and as one script
//! (`for … await Grep(…)`); the overhead per inner call is the difference divided by N
//! (issue 18's target: at most 50 µs). Also: the same N calls started at once in a script
//! (`Promise.all`, concurrency-safe calls run in parallel), a trivial script on a warm context,
//! and a conversation's first script (the QuickJS context's creation included). `--runs N`
//! (default 10) rounds, medians. Every answer is checked.

use std::path::Path;
use std::time::{Duration, Instant};

use agent_tools_core::PermissionMode;
use agent_tools_host::{Environment, Session};
use anyhow::{Context as _, ensure};

use crate::bench_lsp::call;
use crate::bench_run::{median, ms};
use serde_json::json;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut calls = 100usize;
    let mut runs = 10usize;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--calls" => calls = rest.next().and_then(|n| n.parse().ok()).context("--calls N")?,
            "--runs" => runs = rest.next().and_then(|n| n.parse().ok()).context("--runs N")?,
            _ => {}
        }
    }
    ensure!((1..=100).contains(&calls), "--calls must be 1 to 100 (one file per call)");
    ensure!((1..=1000).contains(&runs), "--runs must be 1 to 1000");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(bench(calls, runs))
}

async fn bench(calls: usize, runs: usize) -> anyhow::Result<()> {
    let project = tempfile::tempdir()?;
    let root = project.path().canonicalize()?;
    for index in 0..100 {
        std::fs::write(root.join(format!("f{index:03}.txt")), format!("line one\nneedle {index}\nline three\n"))?;
    }
    let home = tempfile::tempdir()?;
    let session = open(&root, home.path()).await?;
    let grep =
        |index: usize| json!({"pattern": "needle", "path": format!("f{index:03}.txt"), "output_mode": "content"});
    let sequential = format!(
        "{{ const out = []; for (let i = 0; i < {calls}; i++) out.push((await Grep({{pattern: 'needle', path: 'f' + String(i).padStart(3, '0') + '.txt', output_mode: 'content'}})).text); out.length }}"
    );
    let parallel = format!(
        "(await Promise.all(Array.from({{length: {calls}}}, (_, i) => Grep({{pattern: 'needle', path: 'f' + String(i).padStart(3, '0') + '.txt', output_mode: 'content'}})))).length"
    );
    // Warm-up: every path once, both ways.
    for index in 0..calls {
        call(&session, "Grep", grep(index)).await?;
    }
    ensure!(call(&session, "REPL", json!({"code": sequential})).await? == calls.to_string(), "the script's answer");

    let (mut direct, mut scripted, mut batched, mut trivial, mut first) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let start = Instant::now();
        for index in 0..calls {
            let text = call(&session, "Grep", grep(index)).await?;
            ensure!(text == format!("2:needle {index}"), "direct Grep answered {text:?}");
        }
        direct.push(start.elapsed());

        let start = Instant::now();
        let text = call(&session, "REPL", json!({"code": sequential})).await?;
        scripted.push(start.elapsed());
        ensure!(text == calls.to_string(), "the script answered {text:?}");

        let start = Instant::now();
        let text = call(&session, "REPL", json!({"code": parallel})).await?;
        batched.push(start.elapsed());
        ensure!(text == calls.to_string(), "the parallel script answered {text:?}");

        let start = Instant::now();
        ensure!(call(&session, "REPL", json!({"code": "1 + 1"})).await? == "2", "1 + 1");
        trivial.push(start.elapsed());

        let fresh = open(&root, home.path()).await?;
        let start = Instant::now();
        ensure!(call(&fresh, "REPL", json!({"code": "1 + 1"})).await? == "2", "1 + 1 in a new conversation");
        first.push(start.elapsed());
    }
    let (direct, scripted, batched) = (median(&mut direct), median(&mut scripted), median(&mut batched));
    let (trivial, first) = (median(&mut trivial), median(&mut first));
    let per = |total: Duration| total.as_secs_f64() * 1e6 / calls as f64;
    println!(
        "REPL benchmark: {calls} Grep calls on one file each, medians of {runs} rounds (release build, in process)\n"
    );
    println!("{:<58} {:>10} {:>12}", "", "total", "per call");
    println!(
        "{:<58} {:>7.2} ms {:>9.1} µs",
        format!("{calls} direct calls through the executor"),
        ms(direct),
        per(direct)
    );
    println!("{:<58} {:>7.2} ms {:>9.1} µs", "one script making them one after another", ms(scripted), per(scripted));
    println!("{:<58} {:>7.2} ms {:>9.1} µs", "one script making them at once (Promise.all)", ms(batched), per(batched));
    let overhead = per(scripted) - per(direct);
    println!(
        "\noverhead per inner call: {overhead:.1} µs (target ≤ 50 µs; the script's fixed cost spread over its calls included)"
    );
    println!("a trivial script (`1 + 1`) on a warm context: {:.3} ms", ms(trivial));
    println!("a conversation's first script (the QuickJS context created): {:.3} ms", ms(first));
    Ok(())
}

async fn open(root: &Path, home: &Path) -> anyhow::Result<Session> {
    let env = Environment::empty().with("HOME", home).with("PATH", "/usr/bin:/bin");
    Ok(Session::builder(root).environment(env).permission_mode(Some(PermissionMode::BypassPermissions)).build().await?)
}
