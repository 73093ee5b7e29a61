//! The session's language servers (the `lsp` feature): which servers a session gets, and what
//! the executor tells them around file tools — a Read opens the file in its server, an Edit,
//! Write, MultiEdit or NotebookEdit sends the new content and attaches the new errors the
//! server reports, as Claude Code attaches its diagnostics — leaving out a diagnostic that
//! quotes a literal from a file the `Read(…)` rules protect.

use std::path::Path;
use std::sync::Arc;

use agent_tools_core::BoxFuture;
use agent_tools_core::{Tool, ToolKind, ToolUseContext};
use agent_tools_lsp::{LspManager, LspOptions, builtin_servers, merge_servers, parse_servers};
use agent_tools_settings::LoadedSettings;

use crate::environment::Environment;
use crate::executor::CallObserver;
use crate::pool::HostConfig;

/// The session's language servers, when LSP is on (`ENABLE_LSP_TOOL`, already in
/// [`HostConfig::lsp`], or the `lsp.enabled` setting), the folder is trusted (a server can run
/// the folder's code: a TypeScript plugin, a build script) and some server is configured
/// (`lspServers`) or built in and found on `PATH` (unless `lsp.builtinServers` is false).
/// Leaves [`HostConfig::lsp`] set only when a manager is returned; says each reason it is not
/// through `notice`.
pub(crate) fn session_servers(
    config: &mut HostConfig,
    settings: &LoadedSettings,
    trusted: bool,
    cwd: &Path,
    env: &Environment,
    notice: &dyn Fn(&str),
) -> Option<Arc<LspManager>> {
    let on = config.lsp || settings.lsp_enabled() == Some(true);
    config.lsp = false;
    if !on {
        return None;
    }
    // An untrusted folder's notice (its `Gated`) already says that its language servers are off.
    if !trusted {
        return None;
    }
    let builtin = if settings.lsp_builtin_servers() == Some(false) {
        Vec::new()
    } else {
        builtin_servers(env.get("PATH").map(std::ffi::OsString::as_os_str))
    };
    let mut layers = vec![builtin];
    for value in settings.lsp_servers() {
        let (servers, errors) = parse_servers(value);
        for error in errors {
            notice(&format!("{error} (that server is skipped)"));
        }
        layers.push(servers);
    }
    let servers = merge_servers(layers);
    if servers.is_empty() {
        notice(
            "LSP is on, but no language server is configured (lspServers) or found on PATH: the LSP tool is left out",
        );
        return None;
    }
    let mut options = LspOptions::new(cwd, servers);
    options.diagnostics_after_edit = settings.lsp_diagnostics() != Some(false);
    config.lsp = true;
    Some(Arc::new(LspManager::new(options)))
}

/// The executor's observer for the session's language servers (installed with them): after a
/// successful call, [`after_call`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Diagnostics;

impl CallObserver for Diagnostics {
    fn after_call<'a>(
        &'a self,
        tool: &'a dyn Tool,
        path: Option<&'a Path>,
        ctx: &'a ToolUseContext,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(after_call(tool.capabilities().kind, path, ctx))
    }
}

/// What follows a successful call of a tool of `kind` on `path` (what its `get_path` names): a
/// [`ToolKind::Read`] opens the file in its server (without waiting); a [`ToolKind::Edit`] sends
/// the new content and returns the `<new-diagnostics>` block of the errors and warnings it
/// introduced, if any.
async fn after_call(kind: ToolKind, path: Option<&Path>, ctx: &ToolUseContext) -> Option<String> {
    let path = path?;
    let manager = agent_tools_lsp::from_context(ctx)?;
    manager.server_for(path)?;
    if kind == ToolKind::Read {
        manager.file_read(path);
        return None;
    }
    if kind != ToolKind::Edit || !manager.diagnostics_after_edit() {
        return None;
    }
    let mut fresh = manager.file_changed(path).await;
    // A diagnostic can quote what the server inferred from a file the Read rules protect
    // (`Type "Literal['…']" is not assignable …`): such a diagnostic is left out.
    if !fresh.is_empty() {
        let check = ctx.clone();
        fresh = tokio::task::spawn_blocking(move || {
            for file in &mut fresh {
                file.diagnostics.retain(|diagnostic| {
                    !agent_tools_permissions::content::quotes_protected_content(&diagnostic.message, &check)
                });
            }
            fresh.retain(|file| !file.diagnostics.is_empty());
            fresh
        })
        .await
        .unwrap_or_default();
    }
    (!fresh.is_empty()).then(|| agent_tools_lsp::format_new_diagnostics(&fresh, &ctx.cwd))
}
