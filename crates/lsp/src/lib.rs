//! # agent-tools-lsp: language servers for the LSP tool and for diagnostics after edits
//!
//! Claude Code starts the language servers its plugins configure and offers them to the model
//! through its `LSP` tool (definitions, references, hover, symbols, call hierarchy), and it
//! shows the model the new errors a file edit introduced. This crate is that machinery:
//!
//! - [`config`]: servers configured by file extension, in Claude Code's `lspServers` shape
//!   ([`LspServerConfig`]), and built-in servers for the common languages when their programs
//!   are on the search path ([`builtin_servers`]: pyright, typescript-language-server,
//!   rust-analyzer, gopls, clangd).
//! - [`LspManager`]: starts a server the first time a file of its kind is used, with the
//!   working directory as its workspace folder; opens files from disk and keeps them in sync
//!   (`didOpen` / `didChange` / `didSave` / `didClose`); restarts a server that crashed, a
//!   bounded number of times; shuts the servers down with the session.
//! - [`diagnostics`]: what servers publish, and the `<new-diagnostics>` block listing the
//!   errors an edit introduced ([`format_new_diagnostics`]).
//! - [`rpc`]: JSON-RPC over the server's stdio, with `Content-Length` framing.
//! - [`capabilities`]: what each server announced in its `initialize` result (and registered
//!   later); a request it did not announce is answered with [`LspError::Unsupported`] at once
//!   instead of being sent.
//!
//! The host puts the session's manager into the tool context ([`install`]); the LSP tool
//! finds it there ([`from_context`]), so the tool crate never depends on the host.
//!
//! ```
//! use std::path::Path;
//! use agent_tools_lsp::{LspManager, LspOptions, LspServerConfig, NamedLspServer};
//! let python = NamedLspServer {
//!     name: "pyright".into(),
//!     config: LspServerConfig::new("pyright-langserver", &["--stdio"], &[(".py", "python")]),
//! };
//! let manager = LspManager::new(LspOptions::new("/work", vec![python]));
//! assert_eq!(manager.server_for(Path::new("/work/app.py")), Some("pyright"));
//! assert_eq!(manager.server_for(Path::new("/work/app.rs")), None);
//! assert_eq!(agent_tools_lsp::path_to_uri(Path::new("/work/a b.py")), "file:///work/a%20b.py");
//! ```

pub mod capabilities;
pub mod config;
pub mod diagnostics;
mod manager;
pub mod rpc;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::ToolUseContext;

pub use crate::config::{LspServerConfig, NamedLspServer, builtin_servers, merge_servers, parse_servers};
pub use crate::diagnostics::{FileDiagnostics, format_new_diagnostics};
pub use crate::manager::{
    DEFAULT_DIAGNOSTICS_TIMEOUT, DEFAULT_MAX_OPEN_FILES, DEFAULT_REQUEST_TIMEOUT, LspManager, LspOptions, ServerStatus,
};
pub use crate::rpc::RpcError;

/// The largest file opened in a server (Claude Code's 10 MB, decimal).
pub const MAX_FILE_BYTES: u64 = 10_000_000;

/// Why a language server could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LspError {
    /// The file is over [`MAX_FILE_BYTES`].
    #[error("the file is {bytes} bytes, over the {MAX_FILE_BYTES}-byte limit")]
    FileTooLarge {
        /// Its size in bytes.
        bytes: u64,
    },
    /// The server could not be started, or stopped too often and was given up on.
    #[error("{0}")]
    Unavailable(String),
    /// The request failed: the server's error, a timeout, or the server exiting meanwhile.
    #[error("{0}")]
    Request(RpcError),
    /// The file could not be read.
    #[error("{0}")]
    Io(String),
    /// The server did not announce the capability the request needs (neither in its
    /// `initialize` result nor by `client/registerCapability`), so the request was not sent.
    #[error("the language server \"{server}\" does not support {method} (it did not announce {provider})")]
    Unsupported {
        /// The server's configured name.
        server: String,
        /// The request's method (`callHierarchy/incomingCalls`).
        method: String,
        /// The capability it needs ([`capabilities::Provider::name`]: `callHierarchyProvider`).
        provider: &'static str,
    },
    /// The caller cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// The `file://` URI of an absolute path (percent-encoded); a relative path is made absolute
/// against `/` first.
pub fn path_to_uri(path: &Path) -> String {
    let absolute = if path.is_absolute() { path.to_path_buf() } else { Path::new("/").join(path) };
    url::Url::from_file_path(&absolute).map_or_else(|()| format!("file://{}", absolute.display()), String::from)
}

/// The local path of a `file://` URI; `None` for any other URI.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok().filter(|url| url.scheme() == "file").and_then(|url| url.to_file_path().ok())
}

/// The session's manager as the context carries it (in the session-wide app state).
#[derive(Clone)]
struct Installed(Arc<LspManager>);

/// Puts `manager` into the session-wide app state of `ctx` (and so of every context cloned
/// from it, sub-agents included), where [`from_context`] finds it.
pub fn install(ctx: &ToolUseContext, manager: Arc<LspManager>) {
    ctx.root_app_state.with(|state| state.set(Installed(manager)));
}

/// The session's manager, when the host installed one ([`install`]).
pub fn from_context(ctx: &ToolUseContext) -> Option<Arc<LspManager>> {
    ctx.root_app_state.with(|state| state.get::<Installed>().map(|installed| Arc::clone(&installed.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_and_paths_convert_both_ways() {
        let path = Path::new("/w/src/ünï code.py");
        let uri = path_to_uri(path);
        assert_eq!(uri, "file:///w/src/%C3%BCn%C3%AF%20code.py");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(path));
        assert_eq!(uri_to_path("untitled:1"), None);
        assert_eq!(uri_to_path("not a uri"), None);
    }

    #[test]
    fn the_manager_travels_in_the_context() {
        let ctx = ToolUseContext::new("/w");
        assert!(from_context(&ctx).is_none());
        let manager = Arc::new(LspManager::new(LspOptions::new("/w", Vec::new())));
        install(&ctx, Arc::clone(&manager));
        let copy = ctx.clone();
        assert!(from_context(&copy).is_some_and(|found| Arc::ptr_eq(&found, &manager)));
        assert_eq!(ctx.cwd, copy.cwd);
    }
}
