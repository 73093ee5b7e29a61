//! The MCP client's failure cases end to end: the `agent-tools` binary with `--mcp-config`
//! naming a small stdio server of our own (`crates/mcp/tests/fixtures/case_mcp_server.py`, built
//! to reproduce the public reports below; it needs `python3`).
//!
//! - 053 (anthropics/claude-code#955, microsoft/wassette#56, rollbar/rollbar-mcp-server#28):
//!   every listed name fits the Messages API, each calls the server's own tool, permission rules
//!   use the listed names, and a huge result keeps its start with a note and the saved whole;
//! - 054 (anthropics/claude-code#53641): a hung call times out, the turn goes on, a server that
//!   never initialises is skipped with a message;
//! - 060 (anthropics/claude-code#34974, #60052): deferred MCP tools load with their whole schema,
//!   a premature call with a wrong field is refused before the server with the `select:` hint.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// The cases' server script.
fn server_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/fixtures/case_mcp_server.py")
}

/// Writes `<dir>/mcp.json` naming the case server as each `(name, args, env)`.
fn write_config(dir: &Path, servers: &[(&str, &[&str], Value)]) -> PathBuf {
    let script = server_script().display().to_string();
    let entries: serde_json::Map<String, Value> = servers
        .iter()
        .map(|(name, args, env)| {
            let mut all = vec![script.clone()];
            all.extend(args.iter().map(|arg| (*arg).to_owned()));
            ((*name).to_owned(), json!({"command": "python3", "args": all, "env": env}))
        })
        .collect();
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({"mcpServers": entries}).to_string()).unwrap();
    path
}

/// The program with a clean environment (no user settings or state outside `dir`, no MCP
/// variables but those of `env`), run with `args` until it ends or 60 s pass (then it is killed
/// and the test fails: a bound, not a timing check).
fn agent_tools(dir: &Path, config: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("XDG_CONFIG_HOME", dir.join(".home/.config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("ENABLE_TOOL_SEARCH")
        .env_remove("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("MCP_TIMEOUT")
        .env_remove("MCP_TOOL_TIMEOUT")
        .env_remove("MAX_MCP_OUTPUT_TOKENS")
        .env_remove("AGENT_TOOLS_MCP_DEPTH")
        .envs(env.iter().copied())
        .arg("--cwd")
        .arg(dir)
        .arg("--mcp-config")
        .arg(config)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    // Read both pipes while waiting: a result larger than a pipe's buffer must not block it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn std::io::Read + Send>));
    let err = drain(child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn std::io::Read + Send>));
    if !agent_tools_testkit::eventually_blocking(Duration::from_secs(60), || child.try_wait().unwrap().is_some()) {
        let _ = child.kill();
        panic!("agent-tools {args:?} did not end within 60 s");
    }
    let status = child.wait().unwrap();
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const BYPASS: [&str; 2] = ["--permission-mode", "bypassPermissions"];

fn with_bypass<'a>(args: &[&'a str]) -> Vec<&'a str> {
    BYPASS.iter().copied().chain(args.iter().copied()).collect()
}

/// What the case server's `big {"chars": n}` returns (its `big_text`).
fn big_text(n: usize) -> String {
    let line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-line\n";
    let s: String = line.repeat(n / line.len() + 1).chars().take(n - 4).collect();
    format!("BEGIN\n{}END\n", &s[6..])
}

fn api_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

const LONG: &str = "mcp__my_case_server__synchronize_all_customer_records_a_7515e5ef";

/// The `tools` array of `list --json` only has names the API accepts; the
/// sanitised and shortened names call the server's own tools.
#[test]
fn case_053_listed_names_fit_the_api_and_call_the_servers_tools() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &[("my.case server", &["--names"], json!({}))]);
    let listed = agent_tools(dir.path(), &config, &[], &with_bypass(&["list", "--json"]));
    assert!(listed.status.success(), "{}", stderr(&listed));
    let tools: Vec<Value> = serde_json::from_str(&stdout(&listed)).unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    for name in &names {
        assert!(api_name_ok(name), "{name} ({} characters)", name.len());
    }
    let mut mcp: Vec<&str> = names.iter().copied().filter(|name| name.starts_with("mcp__")).collect();
    mcp.sort_unstable();
    assert_eq!(
        mcp,
        [
            "mcp__my_case_server__big",
            "mcp__my_case_server__echo",
            "mcp__my_case_server__get_data",
            "mcp__my_case_server__hang",
            "mcp__my_case_server__slow",
            LONG,
            "mcp__my_case_server__weird_name_v2",
        ]
    );

    for (name, input, expected) in [
        ("mcp__my_case_server__weird_name_v2", "{}", "called weird/name.v2"),
        ("mcp__my_case_server__get_data", "{}", "called get data"),
        (LONG, "{}", "called synchronize_all_customer_records_across_every_region_now"),
        ("mcp__my_case_server__echo", r#"{"text": "hi"}"#, r#"echo: {"text": "hi"}"#),
    ] {
        let done = agent_tools(dir.path(), &config, &[], &with_bypass(&["call", name, input]));
        assert!(done.status.success(), "{name}: {}", stderr(&done));
        assert_eq!(stdout(&done).trim_end(), expected);
    }
}

/// Permission rules name a tool by its listed (shortened) name, and a server rule covers it.
#[test]
fn case_053_permission_rules_use_the_listed_names() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &[("my.case server", &["--names"], json!({}))]);
    let expected = "called synchronize_all_customer_records_across_every_region_now";
    for rule in [LONG, "mcp__my_case_server", "mcp__my_case_server__*"] {
        let done = agent_tools(dir.path(), &config, &[], &["--allowed-tools", rule, "call", LONG, "{}"]);
        assert!(done.status.success(), "{rule}: {}", stderr(&done));
        assert_eq!(stdout(&done).trim_end(), expected, "{rule}");
    }
    // The server's raw name is no rule for the tool; with nobody to ask, the call is refused.
    let raw = "mcp__my_case_server__synchronize_all_customer_records_across_every_region_now";
    let refused = agent_tools(dir.path(), &config, &[], &["--allowed-tools", raw, "call", LONG, "{}"]);
    assert!(!refused.status.success());
    assert!(!stdout(&refused).contains(expected), "{}", stdout(&refused));
    let denied = agent_tools(dir.path(), &config, &[], &with_bypass(&["--disallowed-tools", LONG, "list", "--json"]));
    assert!(!stdout(&denied).contains(LONG), "a deny rule with the listed name removes the tool");
}

/// Extracts the path after `saved to: ` in a cut result.
fn saved_path(text: &str) -> PathBuf {
    let start = text.find("saved to: ").unwrap_or_else(|| panic!("no saved path in {}", &text[text.len() - 600..]));
    let rest = &text[start + "saved to: ".len()..];
    PathBuf::from(&rest[..rest.find('\n').unwrap_or(rest.len())])
}

/// The note after the kept text, as `agent_tools_mcp::transform::saved_truncation_notice` writes it.
fn notice(max_tokens: usize, chars: usize, path: &Path) -> String {
    format!(
        "\n\n[OUTPUT TRUNCATED - exceeded {max_tokens} token limit]\n\nThe whole output ({chars} characters) was saved \
         to: {}\nRead the rest from that file in parts (Read with offset and limit) or search it with Grep, or use \
         the server's own tools or parameters to page or filter its output.",
        path.display()
    )
}

/// 400,000 characters keep their first 100,000 (25,000 tokens) inline with
/// the note and the whole saved; `MAX_MCP_OUTPUT_TOKENS=1000` keeps 4,000.
#[test]
fn case_053_huge_results_keep_their_start_with_a_note_and_the_saved_whole() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &[("my.case server", &["--names"], json!({}))]);
    let whole = big_text(400_000);
    let done = agent_tools(
        dir.path(),
        &config,
        &[],
        &with_bypass(&["call", "mcp__my_case_server__big", r#"{"chars": 400000}"#]),
    );
    assert!(done.status.success(), "{}", stderr(&done));
    let text = stdout(&done);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    assert!(text.starts_with("BEGIN\n"));
    let path = saved_path(text);
    assert!(path.starts_with(dir.path().join(".state")), "{}", path.display());
    assert!(text == format!("{}{}", &whole[..100_000], notice(25_000, 400_000, &path)), "{}", &text[99_000..]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);

    let done = agent_tools(
        dir.path(),
        &config,
        &[("MAX_MCP_OUTPUT_TOKENS", "1000")],
        &with_bypass(&["call", "mcp__my_case_server__big", r#"{"chars": 20000}"#]),
    );
    let text = stdout(&done);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let path = saved_path(text);
    let whole = big_text(20_000);
    assert!(text == format!("{}{}", &whole[..4_000], notice(1_000, 20_000, &path)), "{}", &text[3_000..]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
}

/// A call that never answers times out as an error result, the turn's later calls
/// still work, a server that never answers `initialize` is skipped with a message, and a slow call
/// within its timeout is not cut.
#[test]
fn case_054_a_hung_call_times_out_and_a_deaf_server_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ok-calls.log");
    let config = write_config(
        dir.path(),
        &[("ok", &[], json!({"MCP_LOG": log.display().to_string()})), ("deaf", &["--no-init"], json!({}))],
    );
    // The case's values: calls get 3 s, start-up 2 s.
    let timeouts = [("MCP_TOOL_TIMEOUT", "3000"), ("MCP_TIMEOUT", "2000")];
    let skipped = "agent-tools: MCP server \"deaf\" skipped: the server did not initialise within 2000 ms\n";

    let hang = agent_tools(dir.path(), &config, &timeouts, &with_bypass(&["call", "mcp__ok__hang", "{}"]));
    assert!(!hang.status.success());
    assert_eq!(stdout(&hang), "MCP server \"ok\" tool \"hang\" timed out after 3000 ms\n");
    assert_eq!(stderr(&hang), skipped);

    let turn = dir.path().join("turn.json");
    std::fs::write(
        &turn,
        json!([
            {"type": "tool_use", "id": "toolu_1", "name": "mcp__ok__hang", "input": {}},
            {"type": "tool_use", "id": "toolu_2", "name": "mcp__ok__echo", "input": {"text": "after-hang"}},
            {"type": "tool_use", "id": "toolu_3", "name": "mcp__ok__slow", "input": {"seconds": 0.1}}
        ])
        .to_string(),
    )
    .unwrap();
    let ran = agent_tools(dir.path(), &config, &timeouts, &with_bypass(&["run", turn.to_str().unwrap()]));
    let message: Value = serde_json::from_str(&stdout(&ran)).unwrap();
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1",
             "content": "MCP server \"ok\" tool \"hang\" timed out after 3000 ms", "is_error": true},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "echo: {\"text\": \"after-hang\"}"},
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "slow done"}
        ]})
    );

    let listed = agent_tools(dir.path(), &config, &timeouts, &with_bypass(&["list"]));
    assert!(listed.status.success());
    let listing = stdout(&listed);
    let mcp: Vec<&str> =
        listing.lines().filter_map(|line| line.split_whitespace().next()).filter(|n| n.starts_with("mcp__")).collect();
    assert_eq!(mcp, ["mcp__ok__big", "mcp__ok__echo", "mcp__ok__hang", "mcp__ok__slow"]);
    assert_eq!(stderr(&listed), skipped);

    let slow = agent_tools(
        dir.path(),
        &config,
        &[("MCP_TOOL_TIMEOUT", "60000"), ("MCP_TIMEOUT", "2000")],
        &with_bypass(&["call", "mcp__ok__slow", r#"{"seconds": 4}"#]),
    );
    assert!(slow.status.success(), "{}", stderr(&slow));
    assert_eq!(stdout(&slow), "slow done\n");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "hang {}\nhang {}\necho {\"text\": \"after-hang\"}\nslow {\"seconds\": 0.1}\nslow {\"seconds\": 4}\n"
    );
}

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string","description":"text to echo"},"count":{"type":"integer","description":"times"}},"required":["text"]}"#;

/// The deferred tool is marked, loads with its whole schema, a premature call with a
/// wrong field is refused with the `select:` hint and never reaches the server, and the right
/// call sends every argument.
#[test]
fn case_060_deferred_mcp_tools_load_whole_and_a_premature_call_gets_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let config = write_config(dir.path(), &[("case", &[], json!({"MCP_LOG": log.display().to_string()}))]);

    let listed = agent_tools(dir.path(), &config, &[], &with_bypass(&["list", "--json"]));
    let tools: Vec<Value> = serde_json::from_str(&stdout(&listed)).unwrap();
    let echo = tools.iter().find(|tool| tool["name"] == "mcp__case__echo").unwrap();
    assert_eq!(echo["defer_loading"], json!(true));
    assert_eq!(echo["input_schema"], serde_json::from_str::<Value>(ECHO_SCHEMA).unwrap());
    assert!(tools.iter().any(|tool| tool["name"] == "ToolSearch"));

    let loaded = agent_tools(
        dir.path(),
        &config,
        &[],
        &with_bypass(&["call", "ToolSearch", r#"{"query": "select:mcp__case__echo"}"#]),
    );
    assert_eq!(
        stdout(&loaded),
        format!(
            "<function>{{\"description\":\"Echo the arguments back as JSON.\",\"name\":\"mcp__case__echo\",\"parameters\":{ECHO_SCHEMA}}}</function>\n"
        )
    );

    let turn = dir.path().join("turn.json");
    std::fs::write(
        &turn,
        json!([
            {"type": "tool_use", "id": "toolu_1", "name": "mcp__case__echo", "input": {"txt": "wrong field"}},
            {"type": "tool_use", "id": "toolu_2", "name": "ToolSearch", "input": {"query": "select:mcp__case__echo"}},
            {"type": "tool_use", "id": "toolu_3", "name": "mcp__case__echo", "input": {"text": "hi", "count": 2}},
            {"type": "tool_use", "id": "toolu_4", "name": "mcp__case__echo", "input": {"text": "hi", "count": "2"}}
        ])
        .to_string(),
    )
    .unwrap();
    let ran = agent_tools(dir.path(), &config, &[], &with_bypass(&["run", turn.to_str().unwrap()]));
    let message: Value = serde_json::from_str(&stdout(&ran)).unwrap();
    let issues = "mcp__case__echo failed due to the following issues:\nThe required parameter `text` is missing\n\
                  An unexpected parameter `txt` was provided";
    let hint = format!(
        "\n\nThis tool's schema was not sent to the API — it was not in the discovered-tool set derived from message \
         history. Without the schema in your prompt, typed parameters (arrays, numbers, booleans) get emitted as \
         strings and the client-side parser rejects them. Load the tool first: call ToolSearch with query \
         \"select:mcp__case__echo\", then retry this call. For reference, this tool's input schema is: {ECHO_SCHEMA}"
    );
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1",
             "content": format!("<tool_use_error>InputValidationError: {issues}{hint}</tool_use_error>"), "is_error": true},
            {"type": "tool_result", "tool_use_id": "toolu_2",
             "content": [{"type": "tool_reference", "tool_name": "mcp__case__echo"}]},
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": "echo: {\"count\": 2, \"text\": \"hi\"}"},
            // Loaded now: the error names the problem, without the hint.
            {"type": "tool_result", "tool_use_id": "toolu_4",
             "content": "<tool_use_error>InputValidationError: mcp__case__echo failed due to the following issue:\n\
                         The parameter `count` type is expected as `integer` but provided as `string`</tool_use_error>",
             "is_error": true},
            {"type": "text", "text": "Tool loaded."}
        ]})
    );
    // Only the valid call reached the server, with both arguments.
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "echo {\"count\": 2, \"text\": \"hi\"}\n");

    let found = agent_tools(
        dir.path(),
        &config,
        &[],
        &with_bypass(&["call", "ToolSearch", r#"{"query": "echo arguments back"}"#]),
    );
    assert!(
        stdout(&found).starts_with(
            "<function>{\"description\":\"Echo the arguments back as JSON.\",\"name\":\"mcp__case__echo\""
        ),
        "{}",
        stdout(&found)
    );
    let none = agent_tools(
        dir.path(),
        &config,
        &[],
        &with_bypass(&["call", "ToolSearch", r#"{"query": "select:NoSuchTool"}"#]),
    );
    assert!(none.status.success());
    assert_eq!(stdout(&none), "No matching deferred tools found\n");
}
