//! The LSP tool through the contract: validation, the sessions without servers, and a real
//! (fake) language server process answering in a temporary project, gitignored files included.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use agent_tool_lsp::render::NO_LANGUAGE_SERVERS;
use agent_tools_core::CancellationToken;
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
use agent_tools_core::{PermissionResult, ToolFlags, ToolPermissionContext, ToolUseContext, ValidationResult};
use agent_tools_lsp::{LspManager, LspOptions, LspServerConfig, NamedLspServer};
use serde_json::{Value, json};

fn write(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// One call: the text, whether it is an error, and the output object (when the call ran).
async fn call(ctx: &ToolUseContext, input: Value) -> (String, bool, Option<Value>) {
    let done = call_tool(agent_tool_lsp::tool().as_ref(), "toolu_lsp", input, ctx).await;
    (done.block.content.text(), done.block.is_error, done.data.map(|data| data.to_json()))
}

fn at(operation: &str, file: &str, line: u32, character: u32) -> Value {
    json!({"operation": operation, "filePath": file, "line": line, "character": character})
}

fn manager_with(root: &Path, config: LspServerConfig) -> Arc<LspManager> {
    Arc::new(LspManager::new(LspOptions::new(root, vec![NamedLspServer { name: "fake".into(), config }])))
}

fn fake_server() -> LspServerConfig {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", "fake_server.py"].iter().collect();
    LspServerConfig::new("python3", &[script.to_str().unwrap()], &[(".py", "python")])
}

/// main.py, lib/util.py and build/gen.py; with `git`, a repository whose .gitignore names build/.
fn project(git: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "main.py", "from lib.util import helper\n\n\n\ndef main():\n    helper()\n");
    write(root, "lib/util.py", "\n\ndef helper():\n    return 1\n");
    write(root, "build/gen.py", "# generated\nhelper()\n");
    if git {
        write(root, ".gitignore", "build/\n");
        let status = Command::new("git").args(["init", "-q"]).current_dir(root).status().unwrap();
        assert!(status.success());
    }
    dir
}

#[tokio::test]
async fn validation_codes_for_a_missing_file_and_a_folder() {
    let dir = project(false);
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_lsp::tool();
    let missing = tool.parse(at("hover", "nope.py", 1, 1)).unwrap();
    assert_eq!(tool.validate_input(&missing, &ctx).await, ValidationResult::error("File does not exist: nope.py", 1));
    let folder = tool.parse(at("hover", "lib", 1, 1)).unwrap();
    assert_eq!(tool.validate_input(&folder, &ctx).await, ValidationResult::error("Path is not a file: lib", 2));
    let file = tool.parse(at("hover", "lib/util.py", 1, 1)).unwrap();
    assert_eq!(tool.validate_input(&file, &ctx).await, ValidationResult::Ok);

    assert_eq!(
        call(&ctx, at("hover", "nope.py", 1, 1)).await,
        ("<tool_use_error>File does not exist: nope.py</tool_use_error>".to_owned(), true, None)
    );
    assert_eq!(
        call(&ctx, at("hover", "lib", 1, 1)).await,
        ("<tool_use_error>Path is not a file: lib</tool_use_error>".to_owned(), true, None)
    );
}

#[tokio::test]
async fn without_a_manager_no_language_servers_are_available() {
    let dir = project(false);
    let ctx = ToolUseContext::new(dir.path());
    let (text, is_error, data) = call(&ctx, at("goToDefinition", "main.py", 6, 5)).await;
    assert_eq!(text, "No language servers are available in this session, so code intelligence cannot be used here.");
    assert_eq!(text, NO_LANGUAGE_SERVERS);
    assert!(!is_error);
    assert_eq!(data.unwrap(), json!({"operation": "goToDefinition", "result": text, "filePath": "main.py"}));
}

#[tokio::test]
async fn a_file_type_no_server_takes_says_so_without_starting_one() {
    let dir = project(false);
    write(dir.path(), "notes.xyz", "text\n");
    write(dir.path(), "Makefile", "all:\n");
    let ctx = ToolUseContext::new(dir.path());
    // The program does not exist: nothing may try to start it for `.xyz`.
    let manager =
        manager_with(dir.path(), LspServerConfig::new("/nonexistent/language-server", &[], &[(".py", "python")]));
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));
    let (text, is_error, data) = call(&ctx, at("hover", "notes.xyz", 1, 1)).await;
    assert_eq!((text.as_str(), is_error), ("No LSP server available for file type: .xyz", false));
    assert_eq!(data.unwrap(), json!({"operation": "hover", "result": text, "filePath": "notes.xyz"}));
    let (text, _, _) = call(&ctx, at("documentSymbol", "Makefile", 1, 1)).await;
    assert_eq!(text, "No LSP server available for file type: ");
    assert_eq!(manager.status("fake").await, Some(agent_tools_lsp::ServerStatus::Idle));
    // For a `.py` file it is tried, fails to start, and the failure is a plain result.
    let (text, is_error, data) = call(&ctx, at("hover", "main.py", 1, 1)).await;
    assert_eq!(
        text,
        "Error performing hover: the language server \"fake\" could not be started: /nonexistent/language-server: No such file or directory (os error 2)"
    );
    assert!(!is_error);
    assert_eq!(data.unwrap().get("resultCount"), None);
    manager.shutdown().await;
}

#[tokio::test]
async fn unknown_fields_and_positions_below_one_are_rejected() {
    let dir = project(false);
    let ctx = ToolUseContext::new(dir.path());
    let mut input = at("hover", "main.py", 1, 1);
    input["column"] = json!(3);
    let (text, is_error, data) = call(&ctx, input).await;
    assert!(is_error);
    assert!(data.is_none());
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: LSP failed due to the following issue:\nAn unexpected parameter `column` was provided</tool_use_error>"
    );
    let (text, is_error, _) = call(&ctx, at("hover", "main.py", 0, 1)).await;
    assert!(is_error);
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: LSP failed due to the following issue:\nThe parameter `line` must be at least 1, but it is 0</tool_use_error>"
    );
    let (_, is_error, _) = call(&ctx, at("hover", "main.py", 1, 0)).await;
    assert!(is_error);
    let (text, is_error, _) = call(&ctx, at("rename", "main.py", 1, 1)).await;
    assert!(is_error);
    assert!(text.contains("operation"), "{text}");
}

#[test]
fn the_tool_is_a_deferred_read_only_lsp_tool() {
    let tool = agent_tool_lsp::tool();
    assert_eq!(tool.name(), "LSP");
    assert_eq!(tool.flags(), ToolFlags::LOCAL_READ_ONLY);
    assert!(tool.should_defer());
    assert_eq!(tool.search_hint(), Some("code intelligence (definitions, references, symbols, hover)"));
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(100_000));
    let parsed = tool.parse(at("findReferences", "src/a.py", 3, 4)).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("src/a.py"));
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["operation", "filePath", "line", "character"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["line"]["minimum"], json!(1));
    assert_eq!(schema["properties"]["operation"]["type"], json!("string"));
    assert_eq!(
        schema["properties"]["operation"]["enum"],
        json!([
            "goToDefinition",
            "findReferences",
            "hover",
            "documentSymbol",
            "workspaceSymbol",
            "goToImplementation",
            "prepareCallHierarchy",
            "incomingCalls",
            "outgoingCalls"
        ])
    );
}

#[tokio::test]
async fn the_read_check_applies_to_the_file() {
    let dir = project(false);
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.permission_context = Arc::new(ToolPermissionContext::default().with_rule(
        PermissionBehavior::Deny,
        PermissionRuleSource::ProjectSettings,
        "Read(./lib/**)",
    ));
    let tool = agent_tool_lsp::tool();
    let denied = tool.parse(at("hover", "lib/util.py", 1, 1)).unwrap();
    assert!(matches!(tool.check_permissions(&denied, &ctx).await, PermissionResult::Deny { .. }));
    let allowed = tool.parse(at("hover", "main.py", 1, 1)).unwrap();
    assert!(matches!(tool.check_permissions(&allowed, &ctx).await, PermissionResult::Allow { .. }));
}

#[tokio::test]
async fn a_real_server_answers_and_gitignored_files_are_left_out() {
    let dir = project(true);
    let ctx = ToolUseContext::new(dir.path());
    let manager = manager_with(dir.path(), fake_server());
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));

    let (text, is_error, data) = call(&ctx, at("goToDefinition", "main.py", 6, 5)).await;
    assert_eq!((text.as_str(), is_error), ("Defined in lib/util.py:3:5", false));
    assert_eq!(
        data.unwrap(),
        json!({"operation": "goToDefinition", "result": text, "filePath": "main.py", "resultCount": 1, "fileCount": 1})
    );

    // build/gen.py is ignored by git: only main.py's reference is left.
    let (text, _, data) = call(&ctx, at("findReferences", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 1 reference:\n  main.py:6:1");
    let data = data.unwrap();
    assert_eq!((data["resultCount"].clone(), data["fileCount"].clone()), (json!(1), json!(1)));

    // The position goes out 0-based and comes back 1-based.
    let (text, _, data) = call(&ctx, at("hover", "main.py", 3, 7)).await;
    assert_eq!(text, "Hover info at 3:7:\n\nasked at 2:6");
    assert_eq!(
        (data.as_ref().unwrap()["resultCount"].clone(), data.unwrap()["fileCount"].clone()),
        (json!(1), json!(1))
    );

    let mut input = at("workspaceSymbol", "main.py", 1, 1);
    input["query"] = json!("thing");
    let (text, _, data) = call(&ctx, input).await;
    assert_eq!(text, "Found 1 symbol in workspace:\n\nmain.py:\n  thing_one (Function) - Line 1 in main");
    assert_eq!(data.unwrap()["resultCount"], json!(1));

    let (text, _, data) = call(&ctx, at("prepareCallHierarchy", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Call hierarchy item: helper (Function) - lib/util.py:3");
    assert_eq!(data.unwrap()["fileCount"], json!(1));

    // The item goes back with its data (the caller's name comes from it).
    let (text, _, data) = call(&ctx, at("incomingCalls", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 1 incoming call:\n\nmain.py:\n  from_data (Function) - Line 5 [calls at: 6:1, 8:9]");
    let data = data.unwrap();
    assert_eq!((data["resultCount"].clone(), data["fileCount"].clone()), (json!(1), json!(1)));

    // The server's own error is a plain result.
    let (text, is_error, data) = call(&ctx, at("goToImplementation", "main.py", 6, 5)).await;
    assert_eq!(
        (text.as_str(), is_error),
        ("Error performing goToImplementation: Unhandled method textDocument/implementation (code -32601)", false)
    );
    assert_eq!(data.unwrap().get("resultCount"), None);

    // An answer that is not what the protocol says.
    let (text, _, _) = call(&ctx, at("documentSymbol", "main.py", 1, 1)).await;
    assert_eq!(
        text,
        "Error performing documentSymbol: data did not match any variant of untagged enum DocumentSymbolResponse"
    );

    // Over 10 MB: not sent to the server.
    let big = std::fs::File::create(dir.path().join("big.py")).unwrap();
    big.set_len(10_000_001).unwrap();
    let (text, is_error, _) = call(&ctx, at("hover", "big.py", 1, 1)).await;
    assert_eq!((text.as_str(), is_error), ("File too large for LSP analysis (11MB exceeds 10MB limit)", false));

    // A cancelled call is an error.
    let mut cancelled = ctx.clone();
    cancelled.cancel = CancellationToken::new();
    cancelled.cancel.cancel();
    let (text, is_error, _) = call(&cancelled, at("hover", "main.py", 1, 1)).await;
    assert_eq!((text.as_str(), is_error), ("[Request interrupted by user for tool use]", true));

    manager.shutdown().await;
}

#[tokio::test]
async fn outside_a_git_repository_every_location_is_kept() {
    let dir = project(false);
    let ctx = ToolUseContext::new(dir.path());
    let manager = manager_with(dir.path(), fake_server());
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));
    let (text, _, data) = call(&ctx, at("findReferences", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 2 references across 2 files:\n\nmain.py:\n  Line 6:1\n\nbuild/gen.py:\n  Line 2:3");
    let data = data.unwrap();
    assert_eq!((data["resultCount"].clone(), data["fileCount"].clone()), (json!(2), json!(2)));
    let mut input = at("workspaceSymbol", "main.py", 1, 1);
    input["query"] = json!("x");
    let (text, _, _) = call(&ctx, input).await;
    assert_eq!(
        text,
        "Found 2 symbols in workspace:\n\nmain.py:\n  x_one (Function) - Line 1 in main\n\nbuild/gen.py:\n  x_two (Class) - Line 4"
    );
    manager.shutdown().await;
}

/// A context in `root` whose deny rules are `rules`, with the fake server installed.
fn denying(root: &Path, rules: &[&str]) -> (ToolUseContext, Arc<LspManager>) {
    let mut permissions = ToolPermissionContext::default();
    for rule in rules {
        permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, *rule);
    }
    let mut ctx = ToolUseContext::new(root);
    ctx.permission_context = Arc::new(permissions);
    let manager = manager_with(root, fake_server());
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));
    (ctx, manager)
}

fn counted(data: Option<Value>) -> (Value, Value) {
    let data = data.unwrap();
    (data["resultCount"].clone(), data["fileCount"].clone())
}

#[tokio::test]
async fn what_the_server_says_about_read_denied_files_is_withheld_and_counted() {
    use agent_tool_lsp::render::{HOVER_WITHHELD, NO_CALL_HIERARCHY_ITEM, NO_DEFINITION, withheld};
    let dir = project(false);
    let (ctx, manager) = denying(dir.path(), &["Read(./lib/**)", "Read(./build/**)"]);
    let one = withheld(1);
    assert_eq!(one, "1 result in a file a permission rule denies reading was withheld.");

    // The only definition is in lib/util.py.
    let (text, is_error, data) = call(&ctx, at("goToDefinition", "main.py", 6, 5)).await;
    assert_eq!((text.clone(), is_error), (format!("{NO_DEFINITION}\n\n{one}"), false));
    assert_eq!(counted(data), (json!(0), json!(0)));

    // build/gen.py's reference is withheld (no repository here, so git drops nothing).
    let (text, _, data) = call(&ctx, at("findReferences", "main.py", 6, 5)).await;
    assert_eq!(text, format!("Found 1 reference:\n  main.py:6:1\n\n{one}"));
    assert_eq!(counted(data), (json!(1), json!(1)));

    // The hover's symbol is defined in lib/util.py (the server's definition answer).
    let (text, is_error, data) = call(&ctx, at("hover", "main.py", 3, 7)).await;
    assert_eq!((text.as_str(), is_error), (HOVER_WITHHELD, false));
    assert_eq!(counted(data), (json!(0), json!(0)));

    let mut input = at("workspaceSymbol", "main.py", 1, 1);
    input["query"] = json!("x");
    let (text, _, data) = call(&ctx, input).await;
    assert_eq!(text, format!("Found 1 symbol in workspace:\n\nmain.py:\n  x_one (Function) - Line 1 in main\n\n{one}"));
    assert_eq!(counted(data), (json!(1), json!(1)));

    // The one item is in lib/util.py.
    let (text, _, data) = call(&ctx, at("prepareCallHierarchy", "main.py", 6, 5)).await;
    assert_eq!(text, format!("{NO_CALL_HIERARCHY_ITEM}\n\n{one}"));
    assert_eq!(counted(data), (json!(0), json!(0)));
    // Its caller is in main.py, which may be read: shown as without the rules.
    let (text, _, data) = call(&ctx, at("incomingCalls", "main.py", 6, 5)).await;
    assert_eq!(text, "Found 1 incoming call:\n\nmain.py:\n  from_data (Function) - Line 5 [calls at: 6:1, 8:9]");
    assert_eq!(counted(data), (json!(1), json!(1)));
    manager.shutdown().await;
}

#[tokio::test]
async fn a_gitignored_location_is_dropped_not_counted_and_other_rules_change_nothing() {
    let dir = project(true);
    // build/ is gitignored and denied: dropped as before, and not counted as withheld.
    let (ctx, manager) = denying(dir.path(), &["Read(./build/**)", "Read(./elsewhere/**)"]);
    let (text, _, data) = call(&ctx, at("findReferences", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 1 reference:\n  main.py:6:1");
    assert_eq!(counted(data), (json!(1), json!(1)));
    // A rule that covers none of the files: every answer is as without rules.
    let (text, _, _) = call(&ctx, at("goToDefinition", "main.py", 6, 5)).await;
    assert_eq!(text, "Defined in lib/util.py:3:5");
    let (text, _, data) = call(&ctx, at("hover", "main.py", 3, 7)).await;
    assert_eq!(text, "Hover info at 3:7:\n\nasked at 2:6");
    assert_eq!(counted(data), (json!(1), json!(1)));
    let (text, _, _) = call(&ctx, at("prepareCallHierarchy", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Call hierarchy item: helper (Function) - lib/util.py:3");
    manager.shutdown().await;
}

/// The fake server with extra options (see the script's doc), logging the requests it gets.
fn fake_server_with(options: &[&str], log: &Path) -> LspServerConfig {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", "fake_server.py"].iter().collect();
    let mut args = vec![script.to_str().unwrap(), "--log", log.to_str().unwrap()];
    args.extend_from_slice(options);
    LspServerConfig::new("python3", &args, &[(".py", "python")])
}

/// The requests the fake server received, in order (its `--log`).
fn received(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_owned).collect()
}

#[tokio::test]
async fn an_operation_the_server_did_not_announce_is_answered_at_once_and_never_sent() {
    let dir = project(false);
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("requests.log");
    // Hover, and references as an options object; definition `false`; nothing else. A request
    // it did not announce is never answered, as the servers of the report do.
    let capabilities = r#"{"textDocumentSync": 1, "hoverProvider": true,
        "referencesProvider": {"workDoneProgress": false}, "definitionProvider": false}"#;
    let config = fake_server_with(&["--capabilities", capabilities, "--ignore-unannounced"], &log);
    let ctx = ToolUseContext::new(dir.path());
    let manager = manager_with(dir.path(), config); // the default 30 s request timeout
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));

    let unsupported = |operation: &str, provider: &str| {
        format!(
            "Error performing {operation}: the language server \"fake\" does not support {operation} (it did not announce {provider})"
        )
    };
    // The very first call (the server starts for it) is one it does not offer.
    let started = std::time::Instant::now();
    let (text, is_error, data) = call(&ctx, at("incomingCalls", "lib/util.py", 3, 5)).await;
    let cold = started.elapsed();
    assert_eq!((text, is_error), (unsupported("incomingCalls", "callHierarchyProvider"), false));
    assert_eq!(data.unwrap().get("resultCount"), None);
    assert!(cold < std::time::Duration::from_secs(1), "the first, unannounced call took {cold:?}");
    eprintln!("incomingCalls (server started for it): {cold:?}");

    let (text, _, _) = call(&ctx, at("hover", "main.py", 3, 7)).await;
    assert_eq!(text, "Hover info at 3:7:\n\nasked at 2:6");
    for (operation, provider) in [
        ("prepareCallHierarchy", "callHierarchyProvider"),
        ("incomingCalls", "callHierarchyProvider"),
        ("outgoingCalls", "callHierarchyProvider"),
        ("goToImplementation", "implementationProvider"),
        ("goToDefinition", "definitionProvider"),
        ("documentSymbol", "documentSymbolProvider"),
        ("workspaceSymbol", "workspaceSymbolProvider"),
    ] {
        let started = std::time::Instant::now();
        let (text, is_error, data) = call(&ctx, at(operation, "main.py", 6, 5)).await;
        let took = started.elapsed();
        assert_eq!((text, is_error), (unsupported(operation, provider), false));
        assert_eq!(
            data.unwrap(),
            json!({"operation": operation, "result": unsupported(operation, provider), "filePath": "main.py"})
        );
        assert!(took < std::time::Duration::from_secs(1), "{operation} took {took:?}");
        eprintln!("{operation} (server running): {took:?}");
    }
    // Announced as an options object: asked and answered.
    let (text, _, _) = call(&ctx, at("findReferences", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 2 references across 2 files:\n\nmain.py:\n  Line 6:1\n\nbuild/gen.py:\n  Line 2:3");
    manager.shutdown().await;
    // Only what it announced reached it.
    assert_eq!(received(&log), ["initialize", "textDocument/hover", "textDocument/references", "shutdown"]);
}

#[tokio::test]
async fn a_capability_the_server_registers_after_initialize_is_asked() {
    let dir = project(false);
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("requests.log");
    let capabilities = r#"{"textDocumentSync": 1, "hoverProvider": true}"#;
    let options =
        ["--capabilities", capabilities, "--ignore-unannounced", "--register", "textDocument/prepareCallHierarchy"];
    let ctx = ToolUseContext::new(dir.path());
    let manager = manager_with(dir.path(), fake_server_with(&options, &log));
    agent_tools_lsp::install(&ctx, Arc::clone(&manager));
    // The registration comes after `initialized`, before the hover's answer.
    let (text, _, _) = call(&ctx, at("hover", "main.py", 3, 7)).await;
    assert_eq!(text, "Hover info at 3:7:\n\nasked at 2:6");
    let (text, _, _) = call(&ctx, at("incomingCalls", "lib/util.py", 3, 5)).await;
    assert_eq!(text, "Found 1 incoming call:\n\nmain.py:\n  from_data (Function) - Line 5 [calls at: 6:1, 8:9]");
    let (text, _, _) = call(&ctx, at("goToImplementation", "main.py", 6, 5)).await;
    assert_eq!(
        text,
        "Error performing goToImplementation: the language server \"fake\" does not support goToImplementation (it did not announce implementationProvider)"
    );
    manager.shutdown().await;
    assert_eq!(
        received(&log),
        [
            "initialize",
            "textDocument/hover",
            "textDocument/prepareCallHierarchy",
            "callHierarchy/incomingCalls",
            "shutdown"
        ]
    );
}
