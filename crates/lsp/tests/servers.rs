//! The manager against real processes: a fake server that crashes (restarted, then given up
//! on), and the real pyright and typescript-language-server (installed by `.ci/run` into
//! `.ci/lsp`): diagnostics appear after an edit that breaks a type and go after the fix.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_core::CancellationToken;
use agent_tools_lsp::{LspError, LspManager, LspOptions, LspServerConfig, NamedLspServer, ServerStatus};
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).to_string_lossy().into_owned()
}

fn position(path: &Path, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": agent_tools_lsp::path_to_uri(path)}, "position": {"line": line, "character": character}})
}

#[tokio::test]
async fn a_crashing_server_is_restarted_then_given_up_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let starts = root.join("starts.log");
    let file = root.join("a.py");
    std::fs::write(&file, "x = 1\n").unwrap();
    let mut config = LspServerConfig::new(
        "python3",
        &[&fixture("crashing_server.py"), starts.to_str().unwrap()],
        &[(".py", "python")],
    );
    config.max_restarts = Some(2);
    let manager = LspManager::new(LspOptions::new(&root, vec![NamedLspServer { name: "crashy".into(), config }]));
    let cancel = CancellationToken::new();
    for attempt in 1..=3 {
        let outcome = manager.request(&file, "textDocument/hover", position(&file, 0, 0), &cancel).await;
        assert_eq!(outcome, Err(LspError::Request(agent_tools_lsp::RpcError::Exited)), "attempt {attempt}");
    }
    let given_up = manager.request(&file, "textDocument/hover", position(&file, 0, 0), &cancel).await;
    let why = "the language server \"crashy\" stopped 3 times and was given up on";
    assert_eq!(given_up, Err(LspError::Unavailable(why.into())));
    assert_eq!(manager.status("crashy").await, Some(ServerStatus::Failed(why.into())));
    assert_eq!(std::fs::read_to_string(&starts).unwrap().lines().count(), 3);
    // An edit of its file attaches nothing and does not wait.
    assert!(manager.file_changed(&file).await.is_empty());
    manager.shutdown().await;
}

#[tokio::test]
async fn a_request_the_server_did_not_announce_is_refused_at_once_and_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let starts = root.join("starts.log");
    let file = root.join("a.py");
    std::fs::write(&file, "x = 1\n").unwrap();
    // It announces hover only, and exits at the first request it gets about a document.
    let config = LspServerConfig::new(
        "python3",
        &[&fixture("crashing_server.py"), starts.to_str().unwrap()],
        &[(".py", "python")],
    );
    let mut options = LspOptions::new(&root, vec![NamedLspServer { name: "crashy".into(), config }]);
    options.request_timeout = Duration::from_secs(5);
    let manager = LspManager::new(options);
    assert_eq!(manager.capabilities("crashy").await, None);
    let cancel = CancellationToken::new();
    for method in [
        "textDocument/prepareCallHierarchy",
        "callHierarchy/incomingCalls",
        "callHierarchy/outgoingCalls",
        "textDocument/implementation",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/documentSymbol",
        "workspace/symbol",
    ] {
        let started = std::time::Instant::now();
        let outcome = manager.request(&file, method, position(&file, 0, 0), &cancel).await;
        let took = started.elapsed();
        let provider = agent_tools_lsp::capabilities::provider_of(method).unwrap().name;
        let refused = LspError::Unsupported { server: "crashy".into(), method: method.into(), provider };
        assert_eq!(outcome, Err(refused), "{method}");
        assert!(took < Duration::from_secs(1), "{method} took {took:?}");
    }
    assert_eq!(
        LspError::Unsupported {
            server: "crashy".into(),
            method: "callHierarchy/incomingCalls".into(),
            provider: "callHierarchyProvider"
        }
        .to_string(),
        "the language server \"crashy\" does not support callHierarchy/incomingCalls (it did not announce callHierarchyProvider)"
    );
    // None of them reached it: it still runs, started once, with what it announced.
    assert!(matches!(manager.status("crashy").await, Some(ServerStatus::Running { starts: 1, .. })));
    let caps = manager.capabilities("crashy").await.unwrap();
    assert_eq!(caps.hover_provider, Some(lsp_types::HoverProviderCapability::Simple(true)));
    assert_eq!(caps.call_hierarchy_provider, None);
    // The one it announced is sent (and crashes it, as it does every request).
    let hover = manager.request(&file, "textDocument/hover", position(&file, 0, 0), &cancel).await;
    assert_eq!(hover, Err(LspError::Request(agent_tools_lsp::RpcError::Exited)));
    assert_eq!(std::fs::read_to_string(&starts).unwrap().lines().count(), 1);
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_cannot_be_started_is_reported_once_and_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.go");
    std::fs::write(&file, "package a\n").unwrap();
    let config = LspServerConfig::new("/nonexistent/gopls", &[], &[(".go", "go")]);
    let manager = LspManager::new(LspOptions::new(dir.path(), vec![NamedLspServer { name: "gopls".into(), config }]));
    let cancel = CancellationToken::new();
    let Err(LspError::Unavailable(why)) = manager.request(&file, "x", json!({}), &cancel).await else { panic!() };
    assert!(why.starts_with("the language server \"gopls\" could not be started: /nonexistent/gopls:"), "{why}");
    assert_eq!(manager.request(&file, "x", json!({}), &cancel).await, Err(LspError::Unavailable(why)));
    assert_eq!(manager.request(&dir.path().join("a.rs"), "x", json!({}), &cancel).await, Ok(None));
}

/// A manager for one real server, over a copy of `files` in a fresh folder.
fn project(
    bin: &Path,
    name: &str,
    command: &str,
    extensions: &[(&str, &str)],
    files: &[(&str, &str)],
) -> (tempfile::TempDir, PathBuf, Arc<LspManager>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut config = LspServerConfig::new(bin.join(command).to_string_lossy(), &["--stdio"], extensions);
    config.env.insert("PATH".into(), agent_tools_testkit::path_with(bin).to_string_lossy().into_owned());
    let mut options = LspOptions::new(&root, vec![NamedLspServer { name: name.into(), config }]);
    options.diagnostics_timeout = Duration::from_secs(30);
    (dir, root, Arc::new(LspManager::new(options)))
}

/// Whether the running server `name` announced the provider of each request the LSP tool
/// sends: definition, references, hover, documentSymbol, workspace/symbol, implementation,
/// prepareCallHierarchy, incomingCalls, outgoingCalls.
async fn announced(manager: &LspManager, name: &str) -> Vec<bool> {
    let caps = manager.capabilities(name).await.unwrap();
    [
        "textDocument/definition",
        "textDocument/references",
        "textDocument/hover",
        "textDocument/documentSymbol",
        "workspace/symbol",
        "textDocument/implementation",
        "textDocument/prepareCallHierarchy",
        "callHierarchy/incomingCalls",
        "callHierarchy/outgoingCalls",
    ]
    .iter()
    .map(|method| agent_tools_lsp::capabilities::announces(&caps, method).unwrap())
    .collect()
}

/// Edits `file` to `broken` (a type error: diagnostics name it), then back (none new).
async fn break_and_fix(manager: &LspManager, file: &Path, broken: &str, fixed: &str, expected: &str) {
    // Opened as it is (clean), as a Read opens it.
    let cancel = CancellationToken::new();
    manager.request(file, "textDocument/hover", position(file, 0, 0), &cancel).await.unwrap();
    // The clean file's own diagnostics are in before the edit (a server that publishes them
    // without a version, as typescript-language-server does, could otherwise answer the edit's
    // wait with them when the machine is slow).
    let published =
        agent_tools_testkit::eventually(Duration::from_secs(60), || manager.diagnostics().get(file).is_some()).await;
    assert!(published, "no diagnostics for the clean file");
    std::fs::write(file, broken).unwrap();
    let fresh = manager.file_changed(file).await;
    let block = agent_tools_lsp::format_new_diagnostics(&fresh, manager.root());
    assert!(block.contains(expected), "{block}");
    assert!(block.starts_with("<new-diagnostics>The following new diagnostic issues were detected:\n\n"), "{block}");
    std::fs::write(file, fixed).unwrap();
    assert_eq!(manager.file_changed(file).await, Vec::new());
    let now = manager.diagnostics().get(file).unwrap_or_default();
    assert!(now.iter().all(|diagnostic| !diagnostic.message.contains("not assignable")), "{now:?}");
}

#[tokio::test]
async fn pyright_reports_the_error_an_edit_introduced_and_nothing_after_the_fix() {
    let Some(bin) = agent_tools_testkit::lsp_bin_dir("pyright diagnostics", &["pyright-langserver", "node"]) else {
        return;
    };
    let clean = "def double(n: int) -> int:\n    return n * 2\n\n\nvalue: int = double(2)\n";
    let (_dir, root, manager) = project(
        &bin,
        "pyright",
        "pyright-langserver",
        &[(".py", "python")],
        &[("calc.py", clean), ("pyrightconfig.json", "{}")],
    );
    let file = root.join("calc.py");
    let broken = clean.replace("double(2)", "double(\"2\")");
    break_and_fix(
        &manager,
        &file,
        &broken,
        clean,
        "calc.py:\n  ✘ [Line 5:21] Argument of type \"Literal['2']\" cannot be assigned to parameter \"n\" of type \"int\" in function \"double\"",
    )
    .await;
    // A definition across the workspace.
    let cancel = CancellationToken::new();
    let found =
        manager.request(&file, "textDocument/definition", position(&file, 4, 14), &cancel).await.unwrap().unwrap();
    let first = if found.is_array() { found[0].clone() } else { found };
    let uri = first.get("uri").or_else(|| first.get("targetUri")).cloned().unwrap();
    assert_eq!(uri, json!(agent_tools_lsp::path_to_uri(&file)));
    // pyright announces every provider the LSP tool uses but implementation, which is then not
    // asked.
    assert_eq!(announced(&manager, "pyright").await, [true, true, true, true, true, false, true, true, true]);
    let implementation = manager.request(&file, "textDocument/implementation", position(&file, 4, 14), &cancel).await;
    let refused = LspError::Unsupported {
        server: "pyright".into(),
        method: "textDocument/implementation".into(),
        provider: "implementationProvider",
    };
    assert_eq!(implementation, Err(refused));
    assert!(matches!(manager.status("pyright").await, Some(ServerStatus::Running { starts: 1, .. })));
    manager.shutdown().await;
    assert_eq!(manager.status("pyright").await, Some(ServerStatus::Idle));
}

#[tokio::test]
async fn typescript_reports_the_error_an_edit_introduced_and_nothing_after_the_fix() {
    let Some(bin) =
        agent_tools_testkit::lsp_bin_dir("typescript diagnostics", &["typescript-language-server", "node", "tsserver"])
    else {
        return;
    };
    let clean =
        "export function double(n: number): number {\n  return n * 2;\n}\n\nexport const value: number = double(2);\n";
    let tsconfig = r#"{"compilerOptions": {"strict": true, "noEmit": true}}"#;
    let (_dir, root, manager) = project(
        &bin,
        "typescript",
        "typescript-language-server",
        &[(".ts", "typescript")],
        &[("calc.ts", clean), ("tsconfig.json", tsconfig)],
    );
    // typescript-language-server finds TypeScript in the project's node_modules or its own.
    let file = root.join("calc.ts");
    let broken = clean.replace("double(2)", "double(\"2\")");
    break_and_fix(
        &manager,
        &file,
        &broken,
        clean,
        "calc.ts:\n  ✘ [Line 5:37] Argument of type 'string' is not assignable to parameter of type 'number'. [2345] (typescript)",
    )
    .await;
    assert_eq!(announced(&manager, "typescript").await, [true; 9]);
    manager.shutdown().await;
}
