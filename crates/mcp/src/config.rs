//! MCP server configurations in Claude Code's format.
//!
//! Claude Code reads `{"mcpServers": {"<name>": {...}}}` from a project's `.mcp.json` and from
//! each `--mcp-config <file|json>`. A server entry is either a local process spoken to over stdio
//!
//! ```json
//! {"command": "npx", "args": ["-y", "some-server"], "env": {"TOKEN": "…"}}
//! ```
//!
//! (`"type": "stdio"` optional), or a remote one (`"type": "http"`, `"sse"` or `"ws"` with a
//! `"url"`). Only stdio servers are connected here; remote ones are kept as
//! [`ServerConfig::Unsupported`] so the caller can warn about them by name.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

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
    /// A transport this crate does not speak (`http`, `sse`, `ws`, …): listed so it can be
    /// reported, never connected.
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
    /// The JSON does not have the expected shape.
    #[error("MCP config {origin}: {message}")]
    Shape {
        /// Where the text came from.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

/// Parses the text of a config (`{"mcpServers": {...}}`); `origin` names it in errors.
///
/// # Errors
/// [`ConfigError::Json`] for text that is not JSON, [`ConfigError::Shape`] when `mcpServers` is
/// missing or not an object, or an entry is not an object or a stdio entry lacks a string
/// `command` (or has non-string `args` / `env` values).
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
        .map(|(name, entry)| {
            let config = parse_entry(entry).map_err(|message| shape(format!("server {name:?}: {message}")))?;
            Ok(NamedServer { name: name.clone(), config })
        })
        .collect()
}

fn parse_entry(entry: &Value) -> Result<ServerConfig, String> {
    let Value::Object(entry) = entry else { return Err("an entry must be an object".to_owned()) };
    let kind = match entry.get("type") {
        None | Some(Value::Null) => "stdio",
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err("\"type\" must be a string".to_owned()),
    };
    if kind != "stdio" {
        return Ok(ServerConfig::Unsupported { kind: kind.to_owned() });
    }
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
    let env = match entry.get("env") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(key, value)| {
                value
                    .as_str()
                    .map(|text| (key.clone(), text.to_owned()))
                    .ok_or_else(|| "\"env\" values must be strings".to_owned())
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("\"env\" must be an object of strings".to_owned()),
    };
    Ok(ServerConfig::Stdio { command, args, env })
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
        assert_eq!(servers[2].config, ServerConfig::Unsupported { kind: "http".into() });
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
}
