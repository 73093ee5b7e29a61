//! # agent-tool-lsp: the LSP tool
//!
//! Code intelligence from language servers, as Claude Code's `LSP` tool offers it: the same
//! name, input fields (`operation`, `filePath`, `line`, `character`, `query`), output object
//! (`operation`, `result`, `filePath`, `resultCount`, `fileCount`) and result texts. The
//! operations are goToDefinition, findReferences, hover, documentSymbol, workspaceSymbol,
//! goToImplementation, prepareCallHierarchy, incomingCalls and outgoingCalls; positions are
//! 1-based as editors show them and go to the server 0-based.
//!
//! The language servers are the session's: the host puts an
//! [`agent_tools_lsp::LspManager`] into the tool context ([`agent_tools_lsp::install`]), which
//! starts the server configured for the file's extension on first use and opens the file from
//! disk. Without a manager the result says that no language servers are available; without a
//! server for the file's type it says `No LSP server available for file type: .xyz`. Both are
//! plain results, as are the server's failures (`Error performing <operation>: …`) and files
//! over 10 MB, as in Claude Code; only a cancelled call is an error. An operation the server
//! did not announce in its capabilities (a server without call hierarchy, say) is not sent to
//! it: the result says at once that this server does not support it ([`render::unsupported`]).
//!
//! As in Claude Code, locations in files git ignores (build output, vendored code) are dropped
//! from definition, implementation, reference and workspace-symbol results before they are
//! shown ([`ignored`]); paths are shown relative to the working directory when that is shorter.
//! The file goes through the read permission check
//! ([`agent_tools_permissions::check_read_permission`]), and what the server says about other
//! files a `Read(…)` deny rule covers is withheld ([`denied`]): their locations, workspace
//! symbols, call-hierarchy items and calls are dropped, and the result says how many
//! ([`render::withheld`]); a hover whose symbol is defined in such a file is withheld whole
//! ([`render::HOVER_WITHHELD`]). The tool is read-only,
//! concurrency-safe and deferred (its schema is sent once ToolSearch loads it).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use agent_tools_lsp::{LspManager, LspOptions, LspServerConfig, NamedLspServer};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("notes.xyz"), "hello\n").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let input = json!({"operation": "hover", "filePath": "notes.xyz", "line": 1, "character": 1});
//! // No manager in the session: no language servers.
//! let done = call_tool(agent_tool_lsp::tool().as_ref(), "toolu_1", input.clone(), &ctx).await;
//! assert_eq!(done.block.content.text(), agent_tool_lsp::render::NO_LANGUAGE_SERVERS);
//! // A manager whose only server takes Python files: none for `.xyz` (and none is started).
//! let python = NamedLspServer {
//!     name: "pyright".into(),
//!     config: LspServerConfig::new("pyright-langserver", &["--stdio"], &[(".py", "python")]),
//! };
//! agent_tools_lsp::install(&ctx, Arc::new(LspManager::new(LspOptions::new(dir.path(), vec![python]))));
//! let done = call_tool(agent_tool_lsp::tool().as_ref(), "toolu_2", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "No LSP server available for file type: .xyz");
//! assert!(!done.block.is_error);
//! # });
//! ```

pub mod denied;
pub mod ignored;
mod input;
pub mod query;
pub mod render;

use agent_tools_core::{Capabilities, ToolKind};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, PermissionResult, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_lsp::{LspError, LspManager, path_to_uri, uri_to_path};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbolResponse, Hover, Location,
    OneOf, WorkspaceSymbolResponse,
};
use serde_json::Value;

pub use crate::input::{LspInput, Operation};
pub use crate::render::{Formatted, LspOutput};

/// The API name.
pub const NAME: &str = "LSP";

/// The largest result kept inline, in characters (Claude Code's 100,000).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// The LSP tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct LspTool;

/// The LSP tool, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(LspTool)
}

impl ToolDef for LspTool {
    type Input = LspInput;
    type Output = LspOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Search)
        .flags(ToolFlags::LOCAL_READ_ONLY)
        .deferred()
        .search_hint("code intelligence (definitions, references, symbols, hover)");

    fn summary(&self, input: &LspInput) -> String {
        format!("{} at {}:{}:{}", input.operation, input.file_path, input.line, input.character)
    }

    /// What the auto mode's classifier judges: the operation and where (and the query).
    fn to_auto_classifier_input(&self, input: &LspInput) -> Value {
        let mut text = format!("{} {}:{}:{}", input.operation, input.file_path, input.line, input.character);
        if let Some(query) = &input.query {
            text.push_str(&format!(" query={query}"));
        }
        Value::String(text)
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_CHARS)
    }

    fn get_path(&self, input: &LspInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn activity_description(&self, input: &LspInput) -> Option<String> {
        Some(format!("Asking the language server ({}) about {}", input.operation, input.file_path))
    }

    /// Claude Code's checks: the file exists (1), can be examined (4) and is a regular file (2).
    async fn validate_input(&self, input: &LspInput, ctx: &ToolUseContext) -> ValidationResult {
        let path = ctx.resolve_path(&input.file_path);
        match tokio::fs::metadata(&path).await {
            Ok(meta) if meta.is_file() => ValidationResult::Ok,
            Ok(_) => ValidationResult::error(render::not_a_file(&input.file_path), 2),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                ValidationResult::error(render::missing_file(&input.file_path), 1)
            }
            Err(error) => ValidationResult::error(render::cannot_access(&input.file_path, &error.to_string()), 4),
        }
    }

    /// The read check on the file (deny and ask rules, the working directories, allow rules).
    async fn check_permissions(&self, input: &LspInput, ctx: &ToolUseContext) -> PermissionResult {
        agent_tools_permissions::check_read_permission(&ctx.resolve_path(&input.file_path), ctx)
    }

    async fn call(&self, input: LspInput, ctx: &ToolUseContext) -> Result<ToolResult<LspOutput>, ToolError> {
        let output = |result: String, counts: Option<(usize, usize)>| {
            ToolResult::new(LspOutput {
                operation: input.operation,
                result,
                file_path: input.file_path.clone(),
                result_count: counts.map(|(results, _)| results),
                file_count: counts.map(|(_, files)| files),
            })
        };
        let Some(manager) = agent_tools_lsp::from_context(ctx) else {
            return Ok(output(render::NO_LANGUAGE_SERVERS.to_owned(), None));
        };
        let path = ctx.resolve_path(&input.file_path);
        let asker = Asker {
            manager: &manager,
            path: &path,
            operation: input.operation,
            line: input.line,
            character: input.character,
            ctx,
        };
        let (method, params) = query::first_request(
            input.operation,
            &path_to_uri(&path),
            input.line,
            input.character,
            input.query.as_deref(),
        );
        let answer = match asker.ask(method, params).await? {
            Asked::Answer(value) => value,
            Asked::Said(text) => return Ok(output(text, None)),
        };
        let formatted = match format(&asker, answer).await? {
            Ok(formatted) => formatted,
            Err(Said(text)) => return Ok(output(text, None)),
        };
        Ok(output(formatted.text, Some((formatted.result_count, formatted.file_count))))
    }

    fn map_tool_result(&self, output: &LspOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.result.clone())
    }
}

/// A result text said instead of formatted results (no server, a failure).
struct Said(String);

/// What one request came to.
enum Asked {
    /// The server's result.
    Answer(Value),
    /// The text to show instead.
    Said(String),
}

/// Sends requests for one call and turns the manager's answers into results.
struct Asker<'a> {
    manager: &'a LspManager,
    path: &'a Path,
    operation: Operation,
    /// The model's 1-based position.
    line: u32,
    character: u32,
    ctx: &'a ToolUseContext,
}

impl Asker<'_> {
    async fn ask(&self, method: &str, params: Value) -> Result<Asked, ToolError> {
        match self.manager.request(self.path, method, params, &self.ctx.cancel).await {
            Ok(Some(value)) => Ok(Asked::Answer(value)),
            Ok(None) => {
                let extension = self
                    .path
                    .extension()
                    .map_or_else(String::new, |extension| format!(".{}", extension.to_string_lossy()));
                Ok(Asked::Said(render::no_server(&extension)))
            }
            Err(LspError::Cancelled) => Err(ToolError::Cancelled),
            Err(LspError::FileTooLarge { bytes }) => Ok(Asked::Said(render::file_too_large(bytes))),
            Err(LspError::Unsupported { server, provider, .. }) => {
                Ok(Asked::Said(render::unsupported(self.operation, &server, provider)))
            }
            Err(error) => Ok(Asked::Said(render::failed(self.operation, &error.to_string()))),
        }
    }

    fn failed(&self, why: &str) -> Said {
        Said(render::failed(self.operation, why))
    }

    /// `locations` without those in files git ignores.
    async fn without_ignored(&self, mut locations: Vec<Location>) -> Result<Vec<Location>, ToolError> {
        let dropped = self.ignored_uris(locations.iter().map(|found| found.uri.as_str())).await?;
        locations.retain(|found| !dropped.contains(found.uri.as_str()));
        Ok(locations)
    }

    /// `locations` without those in files git ignores (dropped silently) and those in files a
    /// `Read(…)` deny rule covers (withheld), with how many were withheld.
    async fn shown(&self, locations: Vec<Location>) -> Result<(Vec<Location>, usize), ToolError> {
        let mut locations = self.without_ignored(locations).await?;
        let withheld = denied::retain_readable(&mut locations, |found| found.uri.as_str(), self.ctx);
        Ok((locations, withheld))
    }

    /// Where the hover text at the position comes from, checked against the `Read(…)` deny
    /// rules: the server is asked for the symbol's definition there.
    async fn hover_source(&self) -> Result<HoverSource, ToolError> {
        let (method, params) =
            query::first_request(Operation::GoToDefinition, &path_to_uri(self.path), self.line, self.character, None);
        let answer = match self.ask(method, params).await? {
            Asked::Answer(value) => value,
            Asked::Said(_) => return Ok(HoverSource::Unknown),
        };
        let Ok(locations) = query::locations(answer) else { return Ok(HoverSource::Unknown) };
        let denied = denied::denied_uris(locations.iter().map(|found| found.uri.as_str()), self.ctx);
        Ok(if denied.is_empty() { HoverSource::Readable } else { HoverSource::Denied })
    }

    /// The URIs (as the server spelt them) among `uris` of files git ignores (see
    /// [`ignored`]); stops when the call is cancelled.
    async fn ignored_uris<'u>(&self, uris: impl IntoIterator<Item = &'u str>) -> Result<HashSet<String>, ToolError> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut named: Vec<(&str, PathBuf)> = Vec::new();
        for uri in uris {
            if seen.insert(uri)
                && let Some(path) = uri_to_path(uri)
            {
                named.push((uri, path));
            }
        }
        let paths: Vec<PathBuf> = named.iter().map(|(_, path)| path.clone()).collect();
        let found = self
            .ctx
            .cancel
            .run_until_cancelled(ignored::ignored(
                &paths,
                &self.ctx.cwd,
                &agent_tools_worktree::Git::default().for_context(self.ctx),
            ))
            .await
            .ok_or(ToolError::Cancelled)?;
        Ok(named.into_iter().filter(|(_, path)| found.contains(path)).map(|(uri, _)| uri.to_owned()).collect())
    }
}

/// Where a hover's text comes from, as far as the `Read(…)` deny rules go.
enum HoverSource {
    /// No definition of the symbol is in a read-denied file (or the server knows of none).
    Readable,
    /// A definition is in a read-denied file.
    Denied,
    /// The server could not answer where the symbol is defined.
    Unknown,
}

/// Decodes the first answer, asks the second request of incoming/outgoing calls, drops
/// gitignored and read-denied locations, and formats, saying how many were withheld. The inner
/// `Err` is a text said instead.
async fn format(asker: &Asker<'_>, answer: Value) -> Result<Result<Formatted, Said>, ToolError> {
    Ok(match format_shown(asker, answer).await? {
        Ok((formatted, withheld)) => Ok(render::with_withheld(formatted, withheld)),
        Err(said) => Err(said),
    })
}

/// [`format`] before the withheld sentence: the formatted results and how many were withheld.
async fn format_shown(asker: &Asker<'_>, answer: Value) -> Result<Result<(Formatted, usize), Said>, ToolError> {
    let cwd = asker.ctx.cwd.as_path();
    let ctx = asker.ctx;
    macro_rules! decode {
        ($value:expr) => {
            match query::decode($value) {
                Ok(decoded) => decoded,
                Err(why) => return Ok(Err(asker.failed(&why))),
            }
        };
    }
    Ok(Ok(match asker.operation {
        Operation::GoToDefinition | Operation::GoToImplementation => {
            let locations = match query::locations(answer) {
                Ok(locations) => locations,
                Err(why) => return Ok(Err(asker.failed(&why))),
            };
            let (shown, withheld) = asker.shown(locations).await?;
            (render::definitions(&shown, cwd), withheld)
        }
        Operation::FindReferences => {
            let locations: Option<Vec<Location>> = decode!(answer);
            let (shown, withheld) = asker.shown(locations.unwrap_or_default()).await?;
            (render::references(&shown, cwd), withheld)
        }
        Operation::Hover => {
            let hover: Option<Hover> = decode!(answer);
            let shown = render::hover(hover.as_ref());
            if hover.is_some() && denied::has_read_restrictions(ctx) {
                match asker.hover_source().await? {
                    HoverSource::Readable => {}
                    HoverSource::Denied => return Ok(Ok((Formatted::message(render::HOVER_WITHHELD), 0))),
                    HoverSource::Unknown => return Ok(Ok((Formatted::message(render::HOVER_UNCHECKED), 0))),
                }
                // A readable symbol may still carry a protected file's literal (an inferred type).
                let text = shown.text.clone();
                let ctx = ctx.clone();
                let quotes = tokio::task::spawn_blocking(move || {
                    agent_tools_permissions::content::quotes_protected_content(&text, &ctx)
                })
                .await
                .unwrap_or(true);
                if quotes {
                    return Ok(Ok((Formatted::message(render::HOVER_WITHHELD), 0)));
                }
            }
            (shown, 0)
        }
        Operation::DocumentSymbol => {
            // About the requested file itself, which passed the read check.
            let symbols: Option<DocumentSymbolResponse> = decode!(answer);
            (render::document_symbols(symbols.as_ref(), cwd), 0)
        }
        Operation::WorkspaceSymbol => {
            let mut symbols: Option<WorkspaceSymbolResponse> = decode!(answer);
            let withheld = match &mut symbols {
                Some(found) => retain_symbols(asker, found).await?,
                None => 0,
            };
            (render::workspace_symbols(symbols.as_ref(), cwd), withheld)
        }
        Operation::PrepareCallHierarchy => {
            let items: Option<Vec<CallHierarchyItem>> = decode!(answer);
            let mut items = items.unwrap_or_default();
            let withheld = denied::retain_readable(&mut items, |item| item.uri.as_str(), ctx);
            (render::call_hierarchy_items(&items, cwd), withheld)
        }
        Operation::IncomingCalls | Operation::OutgoingCalls => {
            let item = match query::first_call_item(answer) {
                Ok(Some(item)) => item,
                Ok(None) => return Ok(Ok((render::call_hierarchy_items(&[], cwd), 0))),
                Err(why) => return Ok(Err(asker.failed(&why))),
            };
            // The item's own file: an outgoing call is read from its body.
            let source_denied = query::decode::<CallHierarchyItem>(item.clone())
                .is_ok_and(|source| !denied::denied_uris([source.uri.as_str()], ctx).is_empty());
            let Some(method) = query::second_method(asker.operation) else {
                return Err(ToolError::internal("no second request for a call hierarchy operation"));
            };
            let calls = match asker.ask(method, serde_json::json!({"item": item})).await? {
                Asked::Answer(value) => value,
                Asked::Said(text) => return Ok(Err(Said(text))),
            };
            if asker.operation == Operation::IncomingCalls {
                let calls: Option<Vec<CallHierarchyIncomingCall>> = decode!(calls);
                let mut calls = calls.unwrap_or_default();
                let withheld = denied::retain_readable(&mut calls, |call| call.from.uri.as_str(), ctx);
                (render::incoming_calls(&calls, cwd), withheld)
            } else {
                let calls: Option<Vec<CallHierarchyOutgoingCall>> = decode!(calls);
                let mut calls = calls.unwrap_or_default();
                let withheld = if source_denied {
                    std::mem::take(&mut calls).len()
                } else {
                    denied::retain_readable(&mut calls, |call| call.to.uri.as_str(), ctx)
                };
                (render::outgoing_calls(&calls, cwd), withheld)
            }
        }
    }))
}

/// The URI of a workspace symbol's location, in either shape.
fn symbol_uri(symbol: &lsp_types::WorkspaceSymbol) -> &str {
    match &symbol.location {
        OneOf::Left(location) => location.uri.as_str(),
        OneOf::Right(location) => location.uri.as_str(),
    }
}

/// Drops the workspace symbols in files git ignores (silently) and in files a `Read(…)` deny
/// rule covers; returns how many of the latter were withheld.
async fn retain_symbols(asker: &Asker<'_>, symbols: &mut WorkspaceSymbolResponse) -> Result<usize, ToolError> {
    Ok(match symbols {
        WorkspaceSymbolResponse::Flat(flat) => {
            let dropped = asker.ignored_uris(flat.iter().map(|symbol| symbol.location.uri.as_str())).await?;
            flat.retain(|symbol| !dropped.contains(symbol.location.uri.as_str()));
            denied::retain_readable(flat, |symbol| symbol.location.uri.as_str(), asker.ctx)
        }
        WorkspaceSymbolResponse::Nested(nested) => {
            let uris: Vec<String> = nested.iter().map(|symbol| symbol_uri(symbol).to_owned()).collect();
            let dropped = asker.ignored_uris(uris.iter().map(String::as_str)).await?;
            nested.retain(|symbol| !dropped.contains(symbol_uri(symbol)));
            denied::retain_readable(nested, symbol_uri, asker.ctx)
        }
    })
}
