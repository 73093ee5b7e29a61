//! Which language servers exist and how to start them.
//!
//! A server is configured as Claude Code's plugins configure one (`lspServers` in a plugin's
//! manifest or its `.lsp.json`): `command`, `args`, `extensionToLanguage`, `env`,
//! `initializationOptions`, `settings`, `workspaceFolder`, `startupTimeout`, `shutdownTimeout`,
//! `restartOnCrash`, `maxRestarts`. agent-tools reads the same object from the `lspServers` key
//! of its settings files, and adds built-in servers for the common languages when their
//! programs are on the search path ([`builtin_servers`]).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Default time a server has to answer `initialize` (Claude Code's `startupTimeout`), in ms.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 60_000;
/// Default time a server has to answer `shutdown` before it is killed, in ms.
pub const DEFAULT_SHUTDOWN_TIMEOUT_MS: u64 = 2_000;
/// Default number of restarts after a crash before a server is given up on.
pub const DEFAULT_MAX_RESTARTS: u32 = 3;

/// One language server, as Claude Code's `lspServers` entries describe it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LspServerConfig {
    /// The program (a name looked up on `PATH`, or a path).
    pub command: String,
    /// Its arguments (`["--stdio"]`).
    #[serde(default)]
    pub args: Vec<String>,
    /// File extensions (with the dot, `.py`) to the LSP language id sent in `didOpen`
    /// (`python`). Required: a server with none is never chosen.
    #[serde(default)]
    pub extension_to_language: BTreeMap<String, String>,
    /// Extra environment variables for the server's process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `initializationOptions` sent with `initialize`.
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// Settings answered to `workspace/configuration` (looked up by section, `python.analysis`)
    /// and sent with `workspace/didChangeConfiguration` after start.
    #[serde(default)]
    pub settings: Option<Value>,
    /// The workspace folder; default: the session's working directory.
    #[serde(default)]
    pub workspace_folder: Option<PathBuf>,
    /// Milliseconds the server has to answer `initialize`.
    #[serde(default)]
    pub startup_timeout: Option<u64>,
    /// Milliseconds the server has to answer `shutdown`.
    #[serde(default)]
    pub shutdown_timeout: Option<u64>,
    /// Start the server again after it exits unexpectedly (default true).
    #[serde(default)]
    pub restart_on_crash: Option<bool>,
    /// Restarts allowed before the server is given up on (default 3).
    #[serde(default)]
    pub max_restarts: Option<u32>,
    /// `stdio` (the only transport; `socket` is refused when the config is read).
    #[serde(default)]
    pub transport: Option<String>,
}

impl LspServerConfig {
    /// A server started as `command args…` for the given extensions.
    pub fn new(command: impl Into<String>, args: &[&str], extensions: &[(&str, &str)]) -> Self {
        Self {
            command: command.into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            extension_to_language: extensions
                .iter()
                .map(|(extension, language)| ((*extension).to_owned(), (*language).to_owned()))
                .collect(),
            env: BTreeMap::new(),
            initialization_options: None,
            settings: None,
            workspace_folder: None,
            startup_timeout: None,
            shutdown_timeout: None,
            restart_on_crash: None,
            max_restarts: None,
            transport: None,
        }
    }

    /// The language id for `path`'s extension, if this server takes it.
    pub fn language_for(&self, path: &Path) -> Option<&str> {
        let extension = extension_of(path)?;
        self.extension_to_language
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(&extension))
            .map(|(_, language)| language.as_str())
    }

    pub(crate) fn startup_timeout(&self) -> Duration {
        Duration::from_millis(self.startup_timeout.unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS))
    }

    pub(crate) fn shutdown_timeout(&self) -> Duration {
        Duration::from_millis(self.shutdown_timeout.unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT_MS))
    }

    pub(crate) fn max_restarts(&self) -> u32 {
        if self.restart_on_crash == Some(false) { 0 } else { self.max_restarts.unwrap_or(DEFAULT_MAX_RESTARTS) }
    }
}

/// `path`'s extension with its dot (`.py`), or `None`.
pub fn extension_of(path: &Path) -> Option<String> {
    path.extension().and_then(OsStr::to_str).map(|extension| format!(".{extension}"))
}

/// A configured server and its name (the key in `lspServers`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedLspServer {
    /// The name (`pyright`, `typescript`).
    pub name: String,
    /// How to start it.
    pub config: LspServerConfig,
}

/// Why an `lspServers` object could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("lspServers.{name}: {message}")]
pub struct ConfigError {
    /// The server's name.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

/// Reads an `lspServers` object (`{"name": {command, args, extensionToLanguage, …}}`). Entries
/// that cannot be used are returned as errors beside the good ones, so one bad entry does not
/// cost the others.
pub fn parse_servers(value: &Value) -> (Vec<NamedLspServer>, Vec<ConfigError>) {
    let mut servers = Vec::new();
    let mut errors = Vec::new();
    let Some(entries) = value.as_object() else {
        if !value.is_null() {
            errors.push(ConfigError { name: "*".into(), message: "must be an object of servers".into() });
        }
        return (servers, errors);
    };
    for (name, entry) in entries {
        let error = |message: String| ConfigError { name: name.clone(), message };
        match LspServerConfig::deserialize(entry) {
            Err(why) => errors.push(error(why.to_string())),
            Ok(config) if config.command.trim().is_empty() => errors.push(error("command is empty".into())),
            Ok(config) if config.extension_to_language.is_empty() => {
                errors.push(error("extensionToLanguage names no extension".into()));
            }
            Ok(config) if config.transport.as_deref().is_some_and(|transport| transport != "stdio") => {
                errors.push(error("only the stdio transport is supported".into()));
            }
            Ok(config) => servers.push(NamedLspServer { name: name.clone(), config }),
        }
    }
    (servers, errors)
}

/// The built-in servers whose programs are found in `search_path` (a `PATH`-style list), in
/// this order: `pyright-langserver` (else `basedpyright-langserver`) for Python,
/// `typescript-language-server` for TypeScript and JavaScript, `rust-analyzer`, `gopls`,
/// `clangd` for C and C++. Each is started from the path it was found at.
pub fn builtin_servers(search_path: Option<&OsStr>) -> Vec<NamedLspServer> {
    let find = |program: &str| agent_tools_core::path::find_program(program, search_path);
    let mut servers = Vec::new();
    let python = [(".py", "python"), (".pyi", "python")];
    if let Some(found) = find("pyright-langserver").or_else(|| find("basedpyright-langserver")) {
        servers.push(builtin("pyright", &found, &["--stdio"], &python));
    }
    if let Some(found) = find("typescript-language-server") {
        let languages = [
            (".ts", "typescript"),
            (".mts", "typescript"),
            (".cts", "typescript"),
            (".tsx", "typescriptreact"),
            (".js", "javascript"),
            (".mjs", "javascript"),
            (".cjs", "javascript"),
            (".jsx", "javascriptreact"),
        ];
        servers.push(builtin("typescript", &found, &["--stdio"], &languages));
    }
    if let Some(found) = find("rust-analyzer") {
        servers.push(builtin("rust-analyzer", &found, &[], &[(".rs", "rust")]));
    }
    if let Some(found) = find("gopls") {
        servers.push(builtin("gopls", &found, &["serve"], &[(".go", "go")]));
    }
    if let Some(found) = find("clangd") {
        let languages = [
            (".c", "c"),
            (".h", "c"),
            (".cc", "cpp"),
            (".cpp", "cpp"),
            (".cxx", "cpp"),
            (".hh", "cpp"),
            (".hpp", "cpp"),
            (".hxx", "cpp"),
        ];
        servers.push(builtin("clangd", &found, &[], &languages));
    }
    servers
}

fn builtin(name: &str, program: &Path, args: &[&str], extensions: &[(&str, &str)]) -> NamedLspServer {
    NamedLspServer { name: name.to_owned(), config: LspServerConfig::new(program.to_string_lossy(), args, extensions) }
}

/// Servers in order, later names replacing earlier ones of the same name (in place), as
/// settings files later in precedence replace a server.
pub fn merge_servers(layers: impl IntoIterator<Item = Vec<NamedLspServer>>) -> Vec<NamedLspServer> {
    let mut merged: Vec<NamedLspServer> = Vec::new();
    for layer in layers {
        for server in layer {
            match merged.iter_mut().find(|known| known.name == server.name) {
                Some(known) => *known = server,
                None => merged.push(server),
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn claude_code_server_entries_are_read_and_bad_ones_reported() {
        let value = json!({
            "go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"},
                   "startupTimeout": 5000, "maxRestarts": 1, "settings": {"gopls": {"x": 1}}},
            "empty": {"command": " ", "extensionToLanguage": {".x": "x"}},
            "noext": {"command": "srv"},
            "socket": {"command": "srv", "extensionToLanguage": {".y": "y"}, "transport": "socket"},
            "typo": {"command": 3},
        });
        let (servers, errors) = parse_servers(&value);
        assert_eq!(servers.len(), 1);
        let go = &servers[0];
        assert_eq!(
            (go.name.as_str(), go.config.command.as_str(), go.config.args.clone()),
            ("go", "gopls", vec!["serve".to_owned()])
        );
        assert_eq!(go.config.language_for(Path::new("/w/main.GO")), Some("go"));
        assert_eq!(go.config.language_for(Path::new("/w/main.rs")), None);
        assert_eq!(go.config.startup_timeout(), Duration::from_secs(5));
        assert_eq!(go.config.max_restarts(), 1);
        let names: Vec<&str> = errors.iter().map(|error| error.name.as_str()).collect();
        assert_eq!(names, ["empty", "noext", "socket", "typo"]);
        assert_eq!(errors[1].to_string(), "lspServers.noext: extensionToLanguage names no extension");
        assert_eq!(parse_servers(&json!([1])).1.len(), 1);
    }

    #[test]
    fn builtin_servers_are_those_on_the_search_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        for program in ["basedpyright-langserver", "gopls"] {
            let path = bin.join(program);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        // Not executable: not found.
        std::fs::write(bin.join("clangd"), "").unwrap();
        let path = std::env::join_paths([dir.path().join("missing"), bin.clone()]).unwrap();
        let servers = builtin_servers(Some(&path));
        let names: Vec<&str> = servers.iter().map(|server| server.name.as_str()).collect();
        assert_eq!(names, ["pyright", "gopls"]);
        assert_eq!(servers[0].config.command, bin.join("basedpyright-langserver").to_string_lossy());
        assert_eq!(servers[0].config.args, ["--stdio"]);
        assert!(builtin_servers(None).is_empty());
    }

    #[test]
    fn later_servers_replace_earlier_ones_of_the_same_name() {
        let server = |name: &str, command: &str| NamedLspServer {
            name: name.into(),
            config: LspServerConfig::new(command, &[], &[(".a", "a")]),
        };
        let merged = merge_servers([vec![server("a", "one"), server("b", "two")], vec![server("a", "three")]]);
        let got: Vec<(&str, &str)> =
            merged.iter().map(|server| (server.name.as_str(), server.config.command.as_str())).collect();
        assert_eq!(got, [("a", "three"), ("b", "two")]);
    }
}
