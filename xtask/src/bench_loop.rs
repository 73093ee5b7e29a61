//! `bench loop`: the agent loop against the scripted fake Messages API (`agent_tools_testkit::
//! fake_api`), on this machine.
//!
//! Rows:
//! - **start → first request**: from spawning `agent-tools agent -p … --output-format json` to the
//!   fake receiving its first request (median of `--runs`);
//! - **loop overhead per turn**: in process, from the answer's `message_stop` (as the loop sees
//!   it) to the fake receiving the next request, over a 50-turn session whose calls name an
//!   unknown tool (no tool time: only the loop, the executor's refusal and the HTTP client);
//! - **streaming tool execution**: three Reads streamed 200 ms apart: when the first Read's result
//!   was ready, and when `message_stop` came, both from the request;
//! - **peak RSS after a 50-turn session** of the binary (VmHWM via `getrusage`).
//! - **interrupt latency**: a Bash call runs `sleep`; in process, from `Agent::interrupt` to the
//!   query's result (the command's tree already killed and reaped); and for the binary, from
//!   SIGINT to `agent -p`'s exit. Median of `--runs`.
//!
//! `--claude PATH` runs the same script against Claude Code (`claude.exe -p`) for the first and
//! last rows (its loop overhead is read off the fake's request times, less the stream itself).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_api::{ApiConfig, Backend, Client, ClientOptions, StreamEvent};
use agent_tools_host::{Environment, Session};
use agent_tools_loop::{Agent, AgentEvent, AgentOptions};
use agent_tools_testkit::fake_api::{FakeApi, Recorded, Reply};
use anyhow::{Context as _, ensure};
use serde_json::json;

/// Turns of the long session.
const TURNS: usize = 50;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut binary = None;
    let mut claude = None;
    let mut runs = 10;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--bin" => binary = rest.next().map(PathBuf::from),
            "--claude" => claude = rest.next().map(PathBuf::from),
            "--runs" => runs = rest.next().and_then(|n| n.parse().ok()).context("--runs N")?,
            _ => {}
        }
    }
    let binary = binary.context("--bin PATH")?;
    let project = tempfile::tempdir()?;
    std::fs::write(project.path().join("a.txt"), "hello\n")?;
    let home = tempfile::tempdir()?;

    println!("agent loop against the fake Messages API ({} CPUs)\n", std::thread::available_parallelism()?.get());
    println!("| measure | agent-tools | Claude Code | target |");
    println!("|---|---|---|---|");
    let ours =
        start_to_first_request(&[binary.display().to_string(), "agent".into()], project.path(), home.path(), runs)?;
    let theirs = match &claude {
        Some(path) => format!(
            "{:.1} ms",
            start_to_first_request(&[path.display().to_string()], project.path(), home.path(), runs.min(5))?
        ),
        None => "(--claude PATH)".into(),
    };
    println!("| process start → first request, median of {runs} | {ours:.1} ms | {theirs} | ≤ 20 ms |");

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let (overhead, p90) = runtime.block_on(loop_overhead(project.path(), home.path()))?;
    let theirs = match &claude {
        Some(path) => format!("{:.1} ms", claude_gap(path, project.path(), home.path())?),
        None => "(--claude PATH)".into(),
    };
    println!(
        "| loop overhead per turn (message_stop → next request), median / p90 of {TURNS} | {overhead:.3} / {p90:.3} ms | {theirs} (request gap less stream) | ≤ 1 ms |"
    );

    let (first, stop) = runtime.block_on(streamed_reads(project.path(), home.path()))?;
    println!(
        "| three Reads 200 ms apart: first result / message_stop, from the request | {first:.0} / {stop:.0} ms | — | first < stop |"
    );

    let rss = peak_rss(&[binary.display().to_string(), "agent".into()], project.path(), home.path())?;
    let theirs = match &claude {
        Some(path) => format!("{:.1} MiB", peak_rss(&[path.display().to_string()], project.path(), home.path())?),
        None => "(--claude PATH)".into(),
    };
    println!("| peak RSS after a {TURNS}-turn session | {rss:.1} MiB | {theirs} | ≤ 40 MiB |");

    let mut inside = Vec::new();
    for _ in 0..runs {
        inside.push(runtime.block_on(interrupt_in_process(project.path(), home.path()))?);
    }
    let mut outside = Vec::new();
    for _ in 0..runs {
        outside.push(interrupt_by_sigint(&binary, project.path(), home.path())?);
    }
    println!(
        "| interrupt during a Bash call: interrupt() → result / SIGINT → exit, median of {runs} | {:.1} / {:.1} ms | — | < 200 ms |",
        median(&mut inside),
        median(&mut outside)
    );
    Ok(())
}

/// The Bash call every interrupt row stops: it marks that it runs, then sleeps.
fn sleeping_call(project: &Path) -> (FakeApi, PathBuf) {
    let marker = project.join(format!("bench-started-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let command = format!("touch {}; sleep 30", marker.display());
    let api = FakeApi::start(move |request| match request.assistant_turns() {
        0 => Reply::tool_use("toolu_1", "Bash", json!({"command": command, "description": "sleep"})),
        _ => Reply::text("Done."),
    });
    (api, marker)
}

fn wait_for(path: &Path) -> anyhow::Result<()> {
    let appeared = agent_tools_testkit::eventually_blocking(Duration::from_secs(30), || path.exists());
    ensure!(appeared, "{} never appeared", path.display());
    Ok(())
}

async fn interrupt_in_process(project: &Path, home: &Path) -> anyhow::Result<f64> {
    let (api, marker) = sleeping_call(project);
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.persist = false;
    let agent = Arc::new(Agent::new(session(project, home).await?, backend(&api)?, options)?);
    let running = tokio::spawn({
        let agent = Arc::clone(&agent);
        async move { agent.query("go", &mut |_| {}).await }
    });
    let waited = marker.clone();
    tokio::task::spawn_blocking(move || wait_for(&waited)).await??;
    let asked = Instant::now();
    agent.interrupt();
    let result = running.await?;
    let took = asked.elapsed();
    ensure!(result.terminal_reason == "interrupted", "the query ended {}", result.terminal_reason);
    let _ = std::fs::remove_file(&marker);
    Ok(took.as_secs_f64() * 1000.0)
}

fn interrupt_by_sigint(binary: &Path, project: &Path, home: &Path) -> anyhow::Result<f64> {
    let (api, marker) = sleeping_call(project);
    let mut child = command(&[binary.display().to_string(), "agent".into()], project, home, &api)?.spawn()?;
    wait_for(&marker)?;
    let asked = Instant::now();
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status()?;
    ensure!(status.success(), "kill -INT failed");
    let exit = child.wait()?;
    let took = asked.elapsed();
    ensure!(exit.code() == Some(1), "agent -p exited with {exit} after SIGINT");
    let _ = std::fs::remove_file(&marker);
    Ok(took.as_secs_f64() * 1000.0)
}

fn read_turns(project: &Path, turns: usize) -> Vec<Vec<serde_json::Value>> {
    let file = project.join("a.txt").display().to_string();
    (0..turns)
        .map(|i| vec![json!({"type": "tool_use", "id": format!("toolu_{i:03}"), "name": "Read", "input": {"file_path": file}})])
        .collect()
}

fn command(argv: &[String], project: &Path, home: &Path, api: &FakeApi) -> anyhow::Result<Command> {
    let (program, args) = argv.split_first().context("empty command")?;
    let mut command = Command::new(program);
    command
        .args(args)
        .args(["-p", "bench: go", "--output-format", "json", "--dangerously-skip-permissions"])
        .current_dir(project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("IS_SANDBOX", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("ANTHROPIC_BASE_URL", api.base_url())
        .env("ANTHROPIC_API_KEY", "dummy")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    Ok(command)
}

fn start_to_first_request(argv: &[String], project: &Path, home: &Path, runs: usize) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for _ in 0..runs + 1 {
        let api = FakeApi::scripted(Vec::new(), "Done.");
        let started = Instant::now();
        let status = command(argv, project, home, &api)?.status()?;
        ensure!(status.success(), "{argv:?} failed: {status}");
        let first = api.requests().first().map(|request| request.received).context("no request came")?;
        times.push(first.duration_since(started).as_secs_f64() * 1000.0);
    }
    times.remove(0);
    Ok(median(&mut times))
}

fn peak_rss(argv: &[String], project: &Path, home: &Path) -> anyhow::Result<f64> {
    let api = FakeApi::scripted(read_turns(project, TURNS), "Done.");
    let me = std::env::current_exe()?;
    let mut inner = command(argv, project, home, &api)?;
    let program = inner.get_program().to_owned();
    let args: Vec<_> = inner.get_args().map(ToOwned::to_owned).collect();
    // `bench-rss` runs the command as its only child and prints its peak RSS in KiB.
    let output = Command::new(me)
        .arg("bench-rss")
        .arg(program)
        .args(args)
        .current_dir(project)
        .envs(inner.get_envs().filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))))
        .env_remove("RUST_LOG")
        .output()?;
    let _ = &mut inner;
    ensure!(output.status.success(), "bench-rss failed");
    ensure!(api.requests().len() == TURNS + 1, "the session made {} requests, not {}", api.requests().len(), TURNS + 1);
    let kib: f64 = String::from_utf8_lossy(&output.stdout).trim().parse().context("bench-rss output")?;
    Ok(kib / 1024.0)
}

async fn session(project: &Path, home: &Path) -> anyhow::Result<Arc<Session>> {
    let env = Environment::empty().with("HOME", home).with("PATH", std::env::var_os("PATH").unwrap_or_default());
    let session = Session::builder(project)
        .environment(env)
        .permission_mode(Some(agent_tools_core::PermissionMode::BypassPermissions))
        .build()
        .await?;
    Ok(Arc::new(session))
}

fn backend(api: &FakeApi) -> anyhow::Result<Backend> {
    let config = ApiConfig { base_url: api.base_url(), ..ApiConfig::new("dummy") };
    Ok(Backend::Anthropic(Client::new(config, &ClientOptions::new("bench", Duration::from_secs(60)))?))
}

async fn loop_overhead(project: &Path, home: &Path) -> anyhow::Result<(f64, f64)> {
    let turns: Vec<Vec<serde_json::Value>> = (0..TURNS)
        .map(|i| vec![json!({"type": "tool_use", "id": format!("toolu_{i:03}"), "name": "NoSuchTool", "input": {}})])
        .collect();
    let api = FakeApi::scripted(turns, "Done.");
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.persist = false;
    let agent = Agent::new(session(project, home).await?, backend(&api)?, options)?;
    let mut stops = Vec::new();
    agent
        .query("go", &mut |event| {
            if let AgentEvent::Stream(StreamEvent::MessageStop) = event {
                stops.push(Instant::now());
            }
        })
        .await;
    let requests: Vec<Recorded> = api.requests();
    ensure!(requests.len() == TURNS + 1, "{} requests", requests.len());
    let mut gaps: Vec<f64> = stops
        .iter()
        .zip(&requests[1..])
        .map(|(stop, next)| next.received.duration_since(*stop).as_secs_f64() * 1000.0)
        .collect();
    gaps.sort_by(f64::total_cmp);
    let p90 = gaps[gaps.len() * 9 / 10];
    Ok((median(&mut gaps), p90))
}

async fn streamed_reads(project: &Path, home: &Path) -> anyhow::Result<(f64, f64)> {
    let turn = read_turns(project, 3).into_iter().flatten().collect::<Vec<_>>();
    let api = FakeApi::start(move |request| {
        if request.assistant_turns() == 0 {
            Reply::Slow { content: turn.clone(), gap: Duration::from_millis(200) }
        } else {
            Reply::text("Done.")
        }
    });
    let mut options = AgentOptions::new("claude-sonnet-4-5");
    options.persist = false;
    let agent = Agent::new(session(project, home).await?, backend(&api)?, options)?;
    let (mut first, mut stop) = (None, None);
    agent
        .query("go", &mut |event| match event {
            AgentEvent::Message(message) if message["type"] == "user" && first.is_none() => {
                first = Some(Instant::now())
            }
            AgentEvent::Stream(StreamEvent::MessageStop) if stop.is_none() => stop = Some(Instant::now()),
            _ => {}
        })
        .await;
    let asked = api.requests().first().map(|request| request.received).context("no request")?;
    let since = |at: Option<Instant>| at.map_or(f64::NAN, |at| at.duration_since(asked).as_secs_f64() * 1000.0);
    Ok((since(first), since(stop)))
}

/// Claude Code's gap between an answer and its next request, less nothing we can see inside it:
/// the median time from one request's arrival to the next, minus the fake's stream time (read
/// as the same measure of a session whose answers end at once).
fn claude_gap(path: &Path, project: &Path, home: &Path) -> anyhow::Result<f64> {
    let turns: Vec<Vec<serde_json::Value>> = (0..10)
        .map(|i| vec![json!({"type": "tool_use", "id": format!("toolu_{i:03}"), "name": "NoSuchTool", "input": {}})])
        .collect();
    let api = FakeApi::scripted(turns, "Done.");
    let status = command(&[path.display().to_string()], project, home, &api)?.status()?;
    ensure!(status.success(), "claude failed: {status}");
    let requests = api.requests();
    let mut gaps: Vec<f64> = requests
        .windows(2)
        .map(|pair| pair[1].received.duration_since(pair[0].received).as_secs_f64() * 1000.0)
        .collect();
    Ok(median(&mut gaps))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
