//! `bench http`: load on one `agent-tools serve --http` (release build), on 127.0.0.1 only.
//!
//! `--sessions N` MCP sessions (default 50) at once, each with its own HTTP/1.1 connection, make
//! `--calls N` tool calls each (default 200): Read, Grep and Bash `echo` in turn. Then:
//! - **isolation**: each session wrote the file it read (allowed) and tried to write another
//!   session's file it never read (must be refused with "has not been read yet");
//! - **latency**: p50 / p99 / max per tool, from sending the request to the whole answer;
//! - **memory**: the server's RSS before any session, with all sessions open and idle (→ per idle
//!   session), and after the load;
//! - **clean end**: every session ended by DELETE; afterwards the server has no child process but
//!   its process-wide watchdog (the background crate's lifeline).
//!
//! Any error (a failed call, a refused isolation check, a child left over) fails the benchmark.
//! Targets (issue 16): p99 ≤ 10 ms for Read, RSS ≤ 5 MiB per idle session.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use serde_json::{Value, json};

const TOKEN: &str = "bench-http-token-0123456789abcdef";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut binary = None;
    let mut sessions = 50usize;
    let mut calls = 200usize;
    let mut mix = vec!["Read", "Grep", "Bash"];
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--bin" => binary = rest.next().map(PathBuf::from),
            "--sessions" => sessions = rest.next().and_then(|n| n.parse().ok()).context("--sessions N")?,
            "--calls" => calls = rest.next().and_then(|n| n.parse().ok()).context("--calls N")?,
            "--only" => {
                let tool = rest.next().context("--only Read|Grep|Bash")?;
                mix.retain(|name| name == tool);
                ensure!(!mix.is_empty(), "--only takes Read, Grep or Bash");
            }
            _ => {}
        }
    }
    ensure!((2..=500).contains(&sessions), "--sessions must be 2 to 500");
    ensure!((3..=10_000).contains(&calls), "--calls must be 3 to 10000");
    let binary = binary.context("--bin PATH")?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let project = tempfile::tempdir()?;
    let project_path = project.path().canonicalize()?;
    for index in 0..sessions {
        std::fs::write(project_path.join(format!("s{index}.txt")), format!("session {index}\nfn main() {{}}\n"))?;
    }
    std::fs::write(project_path.join(".token"), TOKEN)?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(project_path.join(".token"), std::fs::Permissions::from_mode(0o600))?;
    }
    let mut server = start(&binary, &project_path)?;
    let result = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?.block_on(load(
        server.port,
        server.pid(),
        &project_path,
        sessions,
        calls,
        mix,
    ));
    // The process-wide watchdog that ends registered process trees if the server dies (the
    // background crate's lifeline) lives as long as the server; anything else is left over.
    let children: Vec<String> =
        children_of(server.pid()).into_iter().filter(|child| !child.ends_with("agent-tools-watchdog")).collect();
    server.stop();
    let report = result?;
    println!(
        "serve --http under load: {sessions} sessions × {calls} calls, 127.0.0.1, {} CPUs\n",
        std::thread::available_parallelism()?.get()
    );
    let total = report.latencies.len();
    println!(
        "{total} calls in {:.2} s: {:.0} calls/s\n",
        report.took.as_secs_f64(),
        total as f64 / report.took.as_secs_f64()
    );
    println!("| tool | calls | p50 | p99 | max | target |");
    println!("|---|---|---|---|---|---|");
    for (tool, target) in [("Read", "p99 ≤ 10 ms"), ("Grep", ""), ("Bash", "")] {
        if !report.latencies.iter().any(|(name, _)| *name == tool) {
            continue;
        }
        let mut times = report.latencies.iter().filter(|(name, _)| *name == tool).map(|(_, d)| *d).collect::<Vec<_>>();
        times.sort();
        println!(
            "| {tool} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {target} |",
            times.len(),
            ms(percentile(&times, 50)),
            ms(percentile(&times, 99)),
            ms(times.last().copied().unwrap_or_default()),
        );
    }
    let per_idle = report.rss_idle.saturating_sub(report.rss_start) as f64 / sessions as f64;
    println!("\n| memory (RSS) | value | target |");
    println!("|---|---|---|");
    println!("| before any session | {:.1} MiB | |", mib(report.rss_start));
    println!("| {sessions} sessions open, idle | {:.1} MiB | |", mib(report.rss_idle));
    println!("| per idle session | {:.2} MiB | ≤ 5 MiB |", per_idle / (1024.0 * 1024.0));
    println!("| after the load | {:.1} MiB | |", mib(report.rss_after));
    println!("\nisolation: {sessions} of {sessions} sessions refused a write to a file only another session read");
    println!(
        "clean end: {sessions} sessions ended by DELETE; child processes of the server afterwards, \
         besides its watchdog: {}",
        children.len()
    );
    ensure!(children.is_empty(), "the server kept child processes after every session ended: {children:?}");
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn percentile(sorted: &[Duration], pct: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() * pct).div_ceil(100)).saturating_sub(1).min(sorted.len() - 1)]
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn start(binary: &Path, project: &Path) -> anyhow::Result<Server> {
    use std::io::BufRead as _;
    let home = project.join(".home");
    std::fs::create_dir_all(&home)?;
    let mut child = Command::new(binary)
        .current_dir(project)
        .env("HOME", &home)
        .env("XDG_STATE_HOME", project.join(".state"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["--permission-mode", "acceptEdits", "serve", "--http", "0", "--auth-token-file"])
        .arg(project.join(".token"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {}", binary.display()))?;
    let stderr = child.stderr.take().context("no stderr")?;
    let mut lines = std::io::BufReader::new(stderr).lines();
    let serving = lines.next().context("serve --http printed nothing")??;
    let port = serving
        .rsplit(':')
        .next()
        .and_then(|tail| tail.trim_end_matches("/mcp").parse().ok())
        .with_context(|| format!("no port in {serving:?}"))?;
    std::thread::spawn(move || lines.for_each(drop));
    Ok(Server { child, port })
}

/// The resident set of `pid`, in bytes (`VmRSS` of `/proc/PID/status`).
fn rss(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmRSS:")
                    .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
        })
        .map_or(0, |kib| kib * 1024)
}

/// The processes whose parent is `pid`, as `PID (command) state` lines.
fn children_of(pid: u32) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid …; comm may hold spaces, so read after the last ')'.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1).and_then(|ppid| ppid.parse::<u32>().ok()))
                == Some(pid)
        })
        .map(|stat| {
            let pid = stat.split_whitespace().next().unwrap_or_default().to_owned();
            let command = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let command = String::from_utf8_lossy(&command).replace('\0', " ");
            format!("{pid} {}", command.trim())
        })
        .collect()
}

struct Report {
    latencies: Vec<(&'static str, Duration)>,
    rss_start: u64,
    rss_idle: u64,
    rss_after: u64,
    took: Duration,
}

/// One MCP session over its own keep-alive connection.
struct McpSession {
    http: reqwest::Client,
    url: String,
    id: String,
    next: u64,
}

impl McpSession {
    async fn open(url: &str) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder().pool_max_idle_per_host(1).build()?;
        let mut session = Self { http, url: url.to_owned(), id: String::new(), next: 1 };
        let (id, _) = session
            .post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench-http", "version": "1"}}}))
            .await?;
        session.id = id.context("no Mcp-Session-Id")?;
        session.notify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
        Ok(session)
    }

    fn request(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(TOKEN)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if !self.id.is_empty() {
            request = request.header("Mcp-Session-Id", &self.id).header("MCP-Protocol-Version", "2025-11-25");
        }
        request
    }

    async fn notify(&self, body: Value) -> anyhow::Result<()> {
        let response = self.request(&body).send().await?;
        ensure!(response.status().is_success(), "notification answered {}", response.status());
        Ok(())
    }

    /// Posts a request; returns the session id header and the JSON-RPC answer to it.
    async fn post(&self, body: Value) -> anyhow::Result<(Option<String>, Value)> {
        let id = body["id"].clone();
        let response = self.request(&body).send().await?;
        let status = response.status();
        let session = response.headers().get("mcp-session-id").and_then(|value| value.to_str().ok()).map(str::to_owned);
        let text = response.text().await?;
        ensure!(status.is_success(), "HTTP {status}: {text}");
        // A JSON body, or an SSE stream whose `data:` lines hold the messages.
        let answer = if text.trim_start().starts_with('{') {
            serde_json::from_str::<Value>(&text)?
        } else {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message["id"] == id)
                .with_context(|| format!("no answer in {text:?}"))?
        };
        Ok((session, answer))
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> anyhow::Result<(bool, String)> {
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (_, answer) = self.post(body).await?;
        let result = answer.get("result").with_context(|| format!("{tool}: {answer}"))?;
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        Ok((result["isError"] == true, text))
    }

    async fn delete(&self) -> anyhow::Result<()> {
        let response = self.http.delete(&self.url).bearer_auth(TOKEN).header("Mcp-Session-Id", &self.id).send().await?;
        ensure!(response.status().is_success(), "DELETE answered {}", response.status());
        Ok(())
    }
}

async fn load(
    port: u16,
    pid: u32,
    project: &Path,
    sessions: usize,
    calls: usize,
    mix: Vec<&'static str>,
) -> anyhow::Result<Report> {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let rss_start = rss(pid);
    let mut opened = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        let mut session = McpSession::open(&url).await?;
        // The first request opens the session's own state (a `Session` in the server).
        session.next += 1;
        let (_, listed) = session.post(json!({"jsonrpc": "2.0", "id": session.next, "method": "tools/list"})).await?;
        ensure!(listed["result"]["tools"].as_array().is_some_and(|tools| tools.len() > 10), "{listed}");
        opened.push(session);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_idle = rss(pid);
    let project = Arc::new(project.to_path_buf());
    let mut running = Vec::with_capacity(sessions);
    for (index, mut session) in opened.into_iter().enumerate() {
        let project = Arc::clone(&project);
        let mix = mix.clone();
        running.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(calls);
            let own = project.join(format!("s{index}.txt")).display().to_string();
            let other = project.join(format!("s{}.txt", (index + 1) % sessions)).display().to_string();
            for call in 0..calls {
                let tool = mix[call % mix.len()];
                let arguments = match tool {
                    "Read" => json!({"file_path": own}),
                    "Grep" => json!({"pattern": format!("session {index}$"), "output_mode": "content"}),
                    _ => json!({"command": format!("echo call {call}")}),
                };
                let started = Instant::now();
                let (error, text) = session.call(tool, arguments).await?;
                latencies.push((tool, started.elapsed()));
                ensure!(!error, "session {index}: {tool} failed: {text}");
            }
            // Isolation: its own file, read here, may be written; another session's may not.
            let (error, text) = session.call("Read", json!({"file_path": own})).await?;
            ensure!(!error, "session {index}: reading its own file failed: {text}");
            let (error, text) = session.call("Write", json!({"file_path": own, "content": "written\n"})).await?;
            ensure!(!error, "session {index}: writing its own file failed: {text}");
            let (error, text) = session.call("Write", json!({"file_path": other, "content": "x\n"})).await?;
            ensure!(
                error && text.contains("has not been read yet"),
                "session {index}: a write to a file only another session read was not refused: {text}"
            );
            session.delete().await?;
            anyhow::Ok(latencies)
        }));
    }
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(sessions * calls);
    for task in running {
        match task.await {
            Ok(Ok(times)) => latencies.extend(times),
            Ok(Err(error)) => return Err(error),
            Err(error) => bail!("a session's task failed: {error}"),
        }
    }
    let took = started.elapsed();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_after = rss(pid);
    Ok(Report { latencies, rss_start, rss_idle, rss_after, took })
}
