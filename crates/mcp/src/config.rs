//! MCP server configurations in Claude Code's format.
//!
//! Claude Code reads `{"mcpServers": {"<name>": {...}}}` from a project's `.mcp.json` and from
//! each `--mcp-config <file|json>`. A server entry is one of
//!
//! ```json
//! {"command": "npx", "args": ["-y", "some-server"], "env": {"TOKEN": "…"}}
//! {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"}}
//! {"type": "sse", "url": "https://example.com/sse", "headers": {"X-Api-Key": "…"}}
//! ```
//!
//! - a local process spoken to over stdio (`"type": "stdio"` optional): [`ServerConfig::Stdio`];
//! - a remote server over Streamable HTTP (`"type": "http"`, also spelt `"streamable-http"`):
//!   [`ServerConfig::Http`];
//! - a remote server over the legacy HTTP+SSE transport of protocol 2024-11-05
//!   (`"type": "sse"`): [`ServerConfig::Sse`];
//! - an in-process server of a Claude Agent SDK program (`"type": "sdk"`): [`ServerConfig::Sdk`];
//! - anything else (`"ws"`, …) is kept as [`ServerConfig::Unsupported`] so the caller can warn
//!   about it by name.
//!
//! Every entry may also carry two timeouts of ours (Claude Code has only the global
//! `MCP_TOOL_TIMEOUT`), both in milliseconds and both over [`McpOptions::tool_timeout`]:
//!
//! - `"timeout"`: the time allowed for each tool call of that server ([`NamedServer::timeout`]);
//! - `"toolTimeouts"`: `{"<raw tool name>": ms}`, the time for one tool, over `"timeout"`
//!   ([`NamedServer::tool_timeouts`]).
//!
//! ## Environment variables
//!
//! As Claude Code does ("Environment variable expansion in `.mcp.json`"), `${VAR}` and
//! `${VAR:-default}` are expanded in `command`, `args`, `env` values, `url` and `headers`
//! values, by [`expand_env`] (or [`NamedServer::expand`]) with a lookup the caller gives — the
//! library never reads the environment. A bare `$VAR` is not expanded; a `${VAR}` whose variable
//! is unset and has no default stays as its literal text, and its name is reported
//! ([`MissingVars`]) so the caller can warn, as `claude mcp list` does.
//!
//! [`McpOptions::tool_timeout`]: crate::McpOptions::tool_timeout

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerConfig {
    /// A local server started as a child process and spoken to over its stdin/stdout.
    Stdio {
        /// The program to run (looked up on `PATH` when it has no `/`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables, on top of the inherited environment.
        env: BTreeMap<String, String>,
    },
    /// A remote server over Streamable HTTP (`"type": "http"`): every message is a POST to
    /// `url`, answers come as JSON or an SSE stream.
    Http {
        /// The endpoint, e.g. `https://example.com/mcp` (checked when connecting).
        url: String,
        /// Extra HTTP headers sent with every request (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
    /// A remote server over the legacy HTTP+SSE transport (`"type": "sse"`, protocol
    /// 2024-11-05): a GET of `url` streams the server's messages, and the server names the
    /// endpoint (same origin only) where each of ours is POSTed.
    Sse {
        /// The SSE endpoint, e.g. `https://example.com/sse`.
        url: String,
        /// Extra HTTP headers sent with the GET and every POST.
        headers: BTreeMap<String, String>,
    },
    /// An in-process server of the program driving the agent through a Claude Agent SDK
    /// (`"type": "sdk"`): its messages go through [`crate::SdkServers`] (the `mcp_message`
    /// control request), by the entry's name. Without a bridge it fails to connect.
    Sdk,
    /// A transport this crate does not speak (`ws`, …): listed so it can be reported, never
    /// connected.
    Unsupported {
        /// The configured `type`.
        kind: String,
    },
}

/// A named server entry, in the order it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedServer {
    /// The name under `mcpServers` (raw; tool names use its normalised form).
    pub name: String,
    /// How to reach it.
    pub config: ServerConfig,
    /// `"timeout"` (ms): the time allowed for each tool call of this server, over
    /// [`crate::McpOptions::tool_timeout`] (`MCP_TOOL_TIMEOUT`). `None` when not configured.
    pub timeout: Option<Duration>,
    /// `"toolTimeouts"` (`{"<raw tool name>": ms}`): the time for one tool's calls, over
    /// [`Self::timeout`].
    pub tool_timeouts: BTreeMap<String, Duration>,
}

impl NamedServer {
    /// A server with no timeouts of its own.
    pub fn new(name: impl Into<String>, config: ServerConfig) -> Self {
        Self { name: name.into(), config, timeout: None, tool_timeouts: BTreeMap::new() }
    }

    /// The time allowed for one call of the raw tool `tool`: its `"toolTimeouts"` entry, else
    /// the server's `"timeout"`, else `default` (`MCP_TOOL_TIMEOUT`); `None` = no limit.
    pub fn tool_timeout(&self, tool: &str, default: Option<Duration>) -> Option<Duration> {
        self.tool_timeouts.get(tool).copied().or(self.timeout).or(default)
    }

    /// Expands `${VAR}` and `${VAR:-default}` in `command`, `args`, `env` values, `url` and
    /// `headers` values (see the [module docs](self)), looking names up with `lookup`. Returns
    /// the names that were unset and had no default (each once, in order of appearance); their
    /// `${VAR}` text is left as it was.
    pub fn expand(&mut self, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
        let mut missing = Vec::new();
        let mut one = |text: &mut String| {
            let (expanded, names) = expand_vars(text, lookup);
            *text = expanded;
            for name in names {
                if !missing.contains(&name) {
                    missing.push(name);
                }
            }
        };
        match &mut self.config {
            ServerConfig::Stdio { command, args, env } => {
                one(command);
                args.iter_mut().for_each(&mut one);
                env.values_mut().for_each(&mut one);
            }
            ServerConfig::Http { url, headers } | ServerConfig::Sse { url, headers } => {
                one(url);
                headers.values_mut().for_each(&mut one);
            }
            ServerConfig::Sdk | ServerConfig::Unsupported { .. } => {}
        }
        missing
    }
}

/// The variables a server's config names that were unset and had no default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingVars {
    /// The server's name.
    pub server: String,
    /// The unset variables, each once, in order of appearance.
    pub names: Vec<String>,
}

impl std::fmt::Display for MissingVars {
    /// `MCP server "<name>": missing environment variables: A, B` (Claude Code's warning).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MCP server \"{}\": missing environment variables: {}", self.server, self.names.join(", "))
    }
}

/// Expands every server's config (see [`NamedServer::expand`]) and returns, per server with
/// any, the variables that were unset and had no default.
pub fn expand_env(servers: &mut [NamedServer], lookup: &dyn Fn(&str) -> Option<String>) -> Vec<MissingVars> {
    servers
        .iter_mut()
        .filter_map(|server| {
            let names = server.expand(lookup);
            (!names.is_empty()).then(|| MissingVars { server: server.name.clone(), names })
        })
        .collect()
}

/// Expands `${VAR}` and `${VAR:-default}` in `text` with `lookup`: Claude Code's syntax. An
/// unset `${VAR}` without a default stays literal and its name is returned; `${VAR:-default}`
/// uses `default` when `VAR` is unset (the default is taken as it is, not expanded again); a
/// `${` without its `}` and a bare `$VAR` are kept as written.
pub fn expand_vars(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                out.push_str(&rest[start..start + 2 + end + 1]);
                if !missing.iter().any(|known| known == name) {
                    missing.push(name.to_owned());
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    (out, missing)
}

/// Why a configuration could not be read. Each message is complete on its own (the cause is in
/// it, not chained as a `source`), so printing the error chain does not repeat it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP config {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        reason: std::io::Error,
    },
    /// The text is not JSON.
    #[error("MCP config {origin} is not valid JSON: {reason}")]
    Json {
        /// Where the text came from (a path, or `--mcp-config`).
        origin: String,
        /// The parse error.
        reason: serde_json::Error,
    },
    /// The JSON does not have the expected shape; the message names the server
    /// (`server "name": …`) when an entry is at fault.
    #[error("MCP config {origin}: {message}")]
    Shape {
        /// Where the text came from.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

/// Parses the text of a config (`{"mcpServers": {...}}`); `origin` names it in errors. Nothing
/// is expanded here: call [`expand_env`] on the result.
///
/// # Errors
/// [`ConfigError::Json`] for text that is not JSON, [`ConfigError::Shape`] when `mcpServers` is
/// missing or not an object, or an entry is not an object, a stdio entry lacks a string
/// `command` (or has non-string `args` / `env` values), an `http`/`sse` entry lacks a string
/// `url` (or has non-string `headers` values), or `timeout` / `toolTimeouts` are not whole
/// numbers of milliseconds.
pub fn parse_config(text: &str, origin: &str) -> Result<Vec<NamedServer>, ConfigError> {
    let value: Value =
        serde_json::from_str(text).map_err(|reason| ConfigError::Json { origin: origin.to_owned(), reason })?;
    let shape = |message: String| ConfigError::Shape { origin: origin.to_owned(), message };
    let Some(servers) = value.get("mcpServers") else {
        return Err(shape("expected an object with an \"mcpServers\" field".to_owned()));
    };
    let Value::Object(servers) = servers else {
        return Err(shape("\"mcpServers\" must be an object of server entries".to_owned()));
    };
    servers
        .iter()
        .map(|(name, entry)| parse_entry(name, entry).map_err(|message| shape(format!("server {name:?}: {message}"))))
        .collect()
}

fn parse_entry(name: &str, entry: &Value) -> Result<NamedServer, String> {
    let Value::Object(entry) = entry else { return Err("an entry must be an object".to_owned()) };
    let kind = match entry.get("type") {
        None | Some(Value::Null) => "stdio",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("\"type\" must be a string".to_owned()),
    };
    let config = match kind {
        "stdio" => parse_stdio(entry)?,
        "http" | "streamable-http" | "streamableHttp" => {
            let (url, headers) = parse_remote(entry, "an http")?;
            ServerConfig::Http { url, headers }
        }
        "sse" => {
            let (url, headers) = parse_remote(entry, "an sse")?;
            ServerConfig::Sse { url, headers }
        }
        "sdk" => ServerConfig::Sdk,
        other => ServerConfig::Unsupported { kind: other.to_owned() },
    };
    let timeout = match entry.get("timeout") {
        None | Some(Value::Null) => None,
        Some(value) => Some(millis(value).ok_or("\"timeout\" must be a whole number of milliseconds")?),
    };
    let tool_timeouts = match entry.get("toolTimeouts") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(tools)) => tools
            .iter()
            .map(|(tool, value)| {
                millis(value)
                    .map(|limit| (tool.clone(), limit))
                    .ok_or_else(|| format!("\"toolTimeouts\".{tool:?} must be a whole number of milliseconds"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("\"toolTimeouts\" must be an object of tool names to milliseconds".to_owned()),
    };
    Ok(NamedServer { name: name.to_owned(), config, timeout, tool_timeouts })
}

/// A positive whole number of milliseconds.
fn millis(value: &Value) -> Option<Duration> {
    value.as_u64().filter(|ms| *ms > 0).map(Duration::from_millis)
}

fn strings(entry: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(key_name, value)| {
                value
                    .as_str()
                    .map(|text| (key_name.clone(), text.to_owned()))
                    .ok_or_else(|| format!("\"{key}\" values must be strings"))
            })
            .collect(),
        Some(_) => Err(format!("\"{key}\" must be an object of strings")),
    }
}

fn parse_stdio(entry: &Map<String, Value>) -> Result<ServerConfig, String> {
    let command = match entry.get("command") {
        Some(Value::String(command)) if !command.trim().is_empty() => command.clone(),
        _ => return Err("a stdio server needs a non-empty string \"command\"".to_owned()),
    };
    let args = match entry.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(|| "\"args\" must be strings".to_owned()))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("\"args\" must be an array of strings".to_owned()),
    };
    let env = strings(entry, "env")?;
    Ok(ServerConfig::Stdio { command, args, env })
}

fn parse_remote(entry: &Map<String, Value>, what: &str) -> Result<(String, BTreeMap<String, String>), String> {
    let url = match entry.get("url") {
        Some(Value::String(url)) if !url.trim().is_empty() => url.trim().to_owned(),
        _ => return Err(format!("{what} server needs a non-empty string \"url\"")),
    };
    Ok((url, strings(entry, "headers")?))
}

/// Reads a `--mcp-config` argument: JSON text when it starts with `{` (after blanks), else a
/// file path (relative paths against `cwd`).
///
/// # Errors
/// See [`parse_config`]; [`ConfigError::Read`] when the file cannot be read.
pub fn load_config_arg(arg: &str, cwd: &Path) -> Result<Vec<NamedServer>, ConfigError> {
    if arg.trim_start().starts_with('{') {
        return parse_config(arg, "--mcp-config");
    }
    load_config_file(&cwd.join(arg))
}

/// Reads a config file such as a project's `.mcp.json`.
///
/// # Errors
/// See [`parse_config`]; [`ConfigError::Read`] when the file cannot be read.
pub fn load_config_file(path: &Path) -> Result<Vec<NamedServer>, ConfigError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|reason| ConfigError::Read { path: origin.clone(), reason })?;
    parse_config(&text, &origin)
}

/// Merges configs in order: a later entry with the same name replaces an earlier one (in its
/// earlier place), as Claude Code lets `--mcp-config` override the project's `.mcp.json`.
pub fn merge(sources: impl IntoIterator<Item = Vec<NamedServer>>) -> Vec<NamedServer> {
    let mut merged: Vec<NamedServer> = Vec::new();
    for server in sources.into_iter().flatten() {
        match merged.iter_mut().find(|known| known.name == server.name) {
            Some(known) => *known = server,
            None => merged.push(server),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_remote_entries_are_read() {
        let servers = parse_config(
            r#"{"mcpServers": {
                "files": {"command": "srv", "args": ["-v"], "env": {"A": "1"}},
                "typed": {"type": "stdio", "command": "x"},
                "web": {"type": "http", "url": "https://example.com/mcp"}
            }}"#,
            "test",
        )
        .unwrap();
        assert_eq!(servers.len(), 3);
        assert_eq!(
            servers[0].config,
            ServerConfig::Stdio {
                command: "srv".into(),
                args: vec!["-v".into()],
                env: BTreeMap::from([("A".to_owned(), "1".to_owned())]),
            }
        );
        assert_eq!(servers[1].config, ServerConfig::Stdio { command: "x".into(), args: vec![], env: BTreeMap::new() });
        assert_eq!(
            servers[2].config,
            ServerConfig::Http { url: "https://example.com/mcp".into(), headers: BTreeMap::new() }
        );
    }

    #[test]
    fn bad_shapes_are_errors_not_panics() {
        for text in [
            "[]",
            "{}",
            r#"{"mcpServers": 3}"#,
            r#"{"mcpServers": {"a": 1}}"#,
            r#"{"mcpServers": {"a": {}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#,
            r#"{"mcpServers": {"a": {"type": 7, "command": "x"}}}"#,
            r#"{"mcpServers": {"a": {"type": "http"}}}"#,
            r#"{"mcpServers": {"a": {"type": "sse", "url": 3}}}"#,
            r#"{"mcpServers": {"a": {"type": "http", "url": "u", "headers": {"K": 1}}}}"#,
            r#"{"mcpServers": {"a": {"type": "http", "url": "u", "headers": []}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "timeout": "5"}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "timeout": -1}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "toolTimeouts": {"t": 1.5}}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "toolTimeouts": [1]}}}"#,
            "not json",
        ] {
            assert!(parse_config(text, "t").is_err(), "{text}");
        }
    }

    #[test]
    fn later_configs_replace_earlier_servers_of_the_same_name() {
        let first = parse_config(r#"{"mcpServers": {"a": {"command": "one"}, "b": {"command": "b"}}}"#, "1").unwrap();
        let second = parse_config(r#"{"mcpServers": {"a": {"command": "two"}}}"#, "2").unwrap();
        let merged = merge([first, second]);
        assert_eq!(merged.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert!(matches!(&merged[0].config, ServerConfig::Stdio { command, .. } if command == "two"));
    }

    #[test]
    fn remote_entries_timeouts_and_unsupported_types_are_read() {
        let servers = parse_config(
            r#"{"mcpServers": {
                "web": {"type": "http", "url": " https://example.com/mcp ", "headers": {"Authorization": "Bearer t"},
                        "timeout": 5000, "toolTimeouts": {"slow.tool": 60000}},
                "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
                "sock": {"type": "ws", "url": "ws://x"}
            }}"#,
            "test",
        )
        .unwrap();
        assert_eq!(
            servers[0].config,
            ServerConfig::Http {
                url: "https://example.com/mcp".into(),
                headers: BTreeMap::from([("Authorization".to_owned(), "Bearer t".to_owned())]),
            }
        );
        assert_eq!(servers[0].timeout, Some(Duration::from_millis(5000)));
        assert_eq!(servers[0].tool_timeout("slow.tool", None), Some(Duration::from_secs(60)));
        assert_eq!(servers[0].tool_timeout("other", Some(Duration::from_secs(1))), Some(Duration::from_secs(5)));
        assert_eq!(
            servers[1].config,
            ServerConfig::Sse { url: "http://127.0.0.1:1/sse".into(), headers: BTreeMap::new() }
        );
        assert_eq!(servers[1].tool_timeout("t", Some(Duration::from_secs(1))), Some(Duration::from_secs(1)));
        assert_eq!(servers[1].tool_timeout("t", None), None);
        assert_eq!(servers[2].config, ServerConfig::Unsupported { kind: "ws".into() });
    }

    #[test]
    fn shape_errors_name_the_server() {
        let error = parse_config(r#"{"mcpServers": {"web": {"type": "http"}}}"#, "cfg").unwrap_err();
        assert_eq!(
            error.to_string(),
            "MCP config cfg: server \"web\": an http server needs a non-empty string \"url\""
        );
        let error = parse_config(r#"{"mcpServers": {"s": {"command": "x", "timeout": "5"}}}"#, "cfg").unwrap_err();
        assert_eq!(
            error.to_string(),
            "MCP config cfg: server \"s\": \"timeout\" must be a whole number of milliseconds"
        );
    }

    fn lookup(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".to_owned()),
            "TOKEN" => Some("s3cret".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_as_claude_code_expands_them() {
        let expand = |text: &str| expand_vars(text, &lookup);
        assert_eq!(expand("${HOME}/bin"), ("/home/me/bin".to_owned(), vec![]));
        assert_eq!(expand("${NOPE:-/tmp}/x"), ("/tmp/x".to_owned(), vec![]));
        assert_eq!(expand("${HOME:-/tmp}"), ("/home/me".to_owned(), vec![]));
        assert_eq!(expand("${EMPTY:-d}"), (String::new(), vec![]), "a set but empty variable is used");
        assert_eq!(expand("${NOPE:-}"), (String::new(), vec![]));
        assert_eq!(expand("a ${NOPE} b ${NOPE}"), ("a ${NOPE} b ${NOPE}".to_owned(), vec!["NOPE".to_owned()]));
        assert_eq!(expand("$HOME and ${unclosed"), ("$HOME and ${unclosed".to_owned(), vec![]));
        assert_eq!(expand("é${TOKEN}é"), ("és3creté".to_owned(), vec![]));
    }

    #[test]
    fn expansion_covers_command_args_env_url_and_headers_and_reports_missing_names() {
        let mut servers = parse_config(
            r#"{"mcpServers": {
                "local": {"command": "${HOME}/srv", "args": ["--token=${TOKEN}", "${GONE}"], "env": {"K": "${MISSING:-x}"}},
                "web": {"type": "http", "url": "https://${HOST:-example.com}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X": "${GONE}${ALSO}"}},
                "plain": {"command": "x"}
            }}"#,
            "test",
        )
        .unwrap();
        let missing = expand_env(&mut servers, &lookup);
        assert_eq!(
            servers[0].config,
            ServerConfig::Stdio {
                command: "/home/me/srv".into(),
                args: vec!["--token=s3cret".into(), "${GONE}".into()],
                env: BTreeMap::from([("K".to_owned(), "x".to_owned())]),
            }
        );
        assert_eq!(
            servers[1].config,
            ServerConfig::Http {
                url: "https://example.com/mcp".into(),
                headers: BTreeMap::from([
                    ("Authorization".to_owned(), "Bearer s3cret".to_owned()),
                    ("X".to_owned(), "${GONE}${ALSO}".to_owned()),
                ]),
            }
        );
        assert_eq!(
            missing,
            [
                MissingVars { server: "local".into(), names: vec!["GONE".into()] },
                MissingVars { server: "web".into(), names: vec!["GONE".into(), "ALSO".into()] },
            ]
        );
        assert_eq!(missing[1].to_string(), "MCP server \"web\": missing environment variables: GONE, ALSO");
    }
}
