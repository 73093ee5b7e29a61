//! The LSP tool and diagnostics after edits, end to end through a `Session`, on real language
//! servers (pyright, typescript-language-server with TypeScript: `.ci/run` installs them into
//! `.ci/lsp`; without them these tests print a skip, and fail under AGENT_TOOLS_REQUIRE_LSP=1)
//! and the small projects in `tests/fixtures/lsp`. Every operation is checked against the exact
//! text Claude Code's formatters give for the locations the fixture has; a gitignored file's
//! references are left out, and what pyright says about files a `Read(…)` deny rule covers
//! (hover text, definitions, references, symbols, call-hierarchy items) is withheld and counted
//! (issue 30, item 6); an edit that breaks a type gets the server's error attached, and
//! the fix gets none; a server that keeps crashing is restarted, then given up on.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_tools_core::PermissionMode;
use agent_tools_core::ToolUseBlock;
use agent_tools_host::session::WorkspaceTrust;
use agent_tools_host::{CallOptions, Environment, Session};
use serde_json::{Value, json};

/// A copy of `tests/fixtures/lsp/<name>` in a fresh git repository (so `git check-ignore`
/// works), with `extra` files added.
fn project(name: &str, extra: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lsp").join(name);
    copy_tree(&fixture, &root);
    for (path, text) in extra {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let git = std::process::Command::new("git").args(["init", "-q"]).current_dir(&root).status().unwrap();
    assert!(git.success());
    (dir, root)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

struct Fixture {
    session: Session,
    root: PathBuf,
    _home: tempfile::TempDir,
    notices: Arc<Mutex<Vec<String>>>,
}

async fn open(
    root: &Path,
    bin: Option<&Path>,
    trust: WorkspaceTrust,
    settings: Option<String>,
    lsp_env: bool,
) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let path = bin.map_or_else(|| "/usr/bin:/bin".into(), agent_tools_testkit::path_with);
    let mut env = Environment::empty().with("HOME", home.path()).with("PATH", path);
    if lsp_env {
        env = env.with("ENABLE_LSP_TOOL", "1");
    }
    let notices = Arc::new(Mutex::new(Vec::new()));
    let said = Arc::clone(&notices);
    let mut builder = Session::builder(root)
        .environment(env)
        .permission_mode(Some(PermissionMode::BypassPermissions))
        .workspace_trust(trust)
        .notices(move |text| said.lock().unwrap().push(text.to_owned()));
    if let Some(settings) = settings {
        builder = builder.settings_json(settings);
    }
    let session = builder.build().await.unwrap();
    Fixture { session, root: root.to_path_buf(), _home: home, notices }
}

impl Fixture {
    async fn call(&self, name: &str, input: Value) -> (String, bool, Value) {
        let block = ToolUseBlock { id: "toolu_lsp".into(), name: name.into(), input };
        let done = self.session.call(&block, CallOptions::default()).await;
        let data = done.data.as_ref().map_or(Value::Null, |data| data.to_json());
        (done.block.content.text(), done.block.is_error, data)
    }

    async fn lsp(&self, operation: &str, file: &str, line: u32, character: u32) -> (String, Value) {
        let input = json!({"operation": operation, "filePath": file, "line": line, "character": character});
        let (text, is_error, data) = self.call("LSP", input).await;
        assert!(!is_error, "{operation}: {text}");
        (text, data)
    }

    fn abs(&self, file: &str) -> String {
        self.root.join(file).to_string_lossy().into_owned()
    }
}

/// The Edit result's note that the model's copy of the file is current.
const FRESH: &str = " (file state is current in your context — no need to Read it back)";

fn counts(data: &Value) -> (Value, Value) {
    (data["resultCount"].clone(), data["fileCount"].clone())
}

#[tokio::test]
async fn python_operations_on_pyright_give_exact_locations() {
    let Some(bin) = agent_tools_testkit::lsp_bin_dir("LSP on pyright", &["pyright-langserver", "node"]) else { return };
    let generated = "from shapes import total_area\n\nprint(total_area([]))\n";
    let (_dir, root) = project("python", &[(".gitignore", "build/\n"), ("build/generated.py", generated)]);
    let fx = open(&root, Some(&bin), WorkspaceTrust::Trusted, None, true).await;
    let names: Vec<String> = fx.session.pool().iter().map(|tool| tool.name().to_owned()).collect();
    assert!(names.iter().any(|name| name == "LSP"), "{names:?}");

    let (text, data) = fx.lsp("goToDefinition", "main.py", 6, 22).await;
    assert_eq!(text, "Defined in shapes.py:14:5");
    assert_eq!(counts(&data), (json!(1), json!(1)));
    assert_eq!(data["operation"], "goToDefinition");
    assert_eq!(data["filePath"], "main.py");

    let (text, data) = fx.lsp("findReferences", &fx.abs("shapes.py"), 14, 5).await;
    assert_eq!(
        text,
        "Found 3 references across 2 files:\n\nmain.py:\n  Line 1:28\n  Line 6:22\n\nshapes.py:\n  Line 14:5"
    );
    assert_eq!(counts(&data), (json!(3), json!(2)), "the gitignored build/generated.py is left out");

    let (text, _) = fx.lsp("hover", "shapes.py", 14, 5).await;
    assert_eq!(
        text,
        "Hover info at 14:5:\n\n```python\n(function) def total_area(shapes: tuple[Shape, ...]) -> float\n```"
    );

    let (text, data) = fx.lsp("documentSymbol", "shapes.py", 1, 1).await;
    assert_eq!(
        text,
        "Document symbols:\nShape (Class) - Line 1\n  area (Method) - Line 2\nSquare (Class) - Line 6\n\
         \x20 __init__ (Method) - Line 7\n    side (Variable) - Line 7\n  area (Method) - Line 10\n  side (Variable) - Line 8\n\
         total_area (Function) - Line 14\n  shapes (Variable) - Line 14"
    );
    assert_eq!(counts(&data), (json!(9), json!(1)));

    let input = json!({"operation": "workspaceSymbol", "filePath": "main.py", "line": 1, "character": 1, "query": "total_area"});
    let (text, is_error, data) = fx.call("LSP", input).await;
    assert!(!is_error);
    assert_eq!(text, "Found 1 symbol in workspace:\n\nshapes.py:\n  total_area (Function) - Line 14");
    assert_eq!(counts(&data), (json!(1), json!(1)));

    let (text, _) = fx.lsp("prepareCallHierarchy", "main.py", 4, 5).await;
    assert_eq!(text, "Call hierarchy item: report (Function) - main.py:4 [(main.py)]");
    let (text, data) = fx.lsp("incomingCalls", "main.py", 4, 5).await;
    assert_eq!(text, "Found 1 incoming call:\n\nmain.py:\n  main (Function) - Line 9 [calls at: 10:11]");
    assert_eq!(counts(&data), (json!(1), json!(1)));
    let (text, _) = fx.lsp("outgoingCalls", "main.py", 4, 5).await;
    assert_eq!(
        text,
        "Found 2 outgoing calls:\n\nshapes.py:\n  Square (Class) - Line 6 [called from: 5:16, 5:27]\n  total_area (Function) - Line 14 [called from: 6:22]"
    );

    // Pyright has no textDocument/implementation: the server's answer, as a result.
    let (text, _) = fx.lsp("goToImplementation", "shapes.py", 2, 9).await;
    assert!(text.starts_with("Error performing goToImplementation: "), "{text}");
    // Nothing at a blank line.
    let (text, data) = fx.lsp("goToDefinition", "shapes.py", 4, 1).await;
    assert_eq!(
        text,
        "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external library not indexed by the LSP server."
    );
    assert_eq!(counts(&data), (json!(0), json!(0)));
    // A file type no server takes.
    std::fs::write(root.join("notes.xyz"), "x\n").unwrap();
    let (text, _) = fx.lsp("hover", "notes.xyz", 1, 1).await;
    assert_eq!(text, "No LSP server available for file type: .xyz");
    fx.session.shutdown().await;
}

#[tokio::test]
async fn typescript_operations_give_exact_locations_and_implementations() {
    let Some(bin) =
        agent_tools_testkit::lsp_bin_dir("LSP on typescript", &["typescript-language-server", "tsserver", "node"])
    else {
        return;
    };
    let (_dir, root) = project("ts", &[]);
    let fx = open(&root, Some(&bin), WorkspaceTrust::Trusted, None, true).await;

    // While tsserver still loads the project (seconds on a busy machine) it resolves the call to
    // the import binding in main.ts; asked again it answers from the loaded project. Only that
    // answer is waited out, and for a bounded time.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let (text, data) = loop {
        let (text, data) = fx.lsp("goToDefinition", "src/main.ts", 5, 21).await;
        if text != "Defined in src/main.ts:1:18" || std::time::Instant::now() >= deadline {
            break (text, data);
        }
    };
    assert_eq!(text, "Defined in src/shapes.ts:13:17");
    assert_eq!(counts(&data), (json!(1), json!(1)));
    let (text, data) = fx.lsp("findReferences", "src/shapes.ts", 13, 17).await;
    assert_eq!(
        text,
        "Found 3 references across 2 files:\n\nsrc/shapes.ts:\n  Line 13:17\n\nsrc/main.ts:\n  Line 1:18\n  Line 5:20"
    );
    assert_eq!(counts(&data), (json!(3), json!(2)));
    let (text, data) = fx.lsp("goToImplementation", "src/shapes.ts", 1, 18).await;
    assert_eq!(text, "Defined in src/shapes.ts:5:14");
    assert_eq!(counts(&data), (json!(1), json!(1)));
    let (text, _) = fx.lsp("hover", "src/shapes.ts", 13, 17).await;
    assert_eq!(text, "Hover info at 13:17:\n\n\n```typescript\nfunction totalArea(shapes: Shape[]): number\n```\n");
    let (text, data) = fx.lsp("documentSymbol", "src/shapes.ts", 1, 1).await;
    assert_eq!(
        text,
        "Document symbols:\nShape (Interface) - Line 1\n  area (Method) - Line 2\nSquare (Class) - Line 5\n  constructor (Constructor) - Line 6\n\
         \x20 area (Method) - Line 8\n  side (Property) - Line 6\ntotalArea (Function) - Line 13\n  shapes.reduce() callback (Function) - Line 14"
    );
    assert_eq!(counts(&data), (json!(8), json!(1)));
    let input = json!({"operation": "workspaceSymbol", "filePath": "src/main.ts", "line": 1, "character": 1, "query": "totalArea"});
    let (text, _, _) = fx.call("LSP", input).await;
    assert_eq!(text, "Found 1 symbol in workspace:\n\nsrc/shapes.ts:\n  totalArea (Function) - Line 13");
    let (text, _) = fx.lsp("incomingCalls", "src/shapes.ts", 13, 17).await;
    assert_eq!(text, "Found 1 incoming call:\n\nsrc/main.ts:\n  report (Function) - Line 3 [calls at: 5:20]");
    fx.session.shutdown().await;
}

#[tokio::test]
async fn an_edit_that_breaks_a_type_gets_the_error_and_the_fix_gets_none() {
    let Some(bin) = agent_tools_testkit::lsp_bin_dir("diagnostics after edits", &["pyright-langserver", "node"]) else {
        return;
    };
    let (_dir, root) = project("python", &[]);
    let fx = open(&root, Some(&bin), WorkspaceTrust::Trusted, None, true).await;
    let main = fx.abs("main.py");
    let (_, is_error, _) = fx.call("Read", json!({"file_path": main})).await;
    assert!(!is_error);
    let edit = |old: &str, new: &str| json!({"file_path": main, "old_string": old, "new_string": new});
    let (text, is_error, _) = fx.call("Edit", edit("total_area(squares)", "total_area(squares, 2)")).await;
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        "The file main.py has been updated successfully. (file state is current in your context — no need to Read it back)\n<new-diagnostics>The following new diagnostic issues were detected:\n\n\
         main.py:\n  ✘ [Line 6:42] Expected 1 positional argument [reportCallIssue] (Pyright)</new-diagnostics>"
            .replace("main.py has", &format!("{main} has"))
    );
    let (text, _, _) = fx.call("Edit", edit("total_area(squares, 2)", "total_area(squares)")).await;
    assert_eq!(text, format!("The file {main} has been updated successfully.{FRESH}"));
    // A new file with an error of its own: Write attaches it too.
    let broken = fx.abs("broken.py");
    let (text, _, _) =
        fx.call("Write", json!({"file_path": broken, "content": "from shapes import Square\n\nSquare()\n"})).await;
    assert!(
        text.ends_with(
            "broken.py:\n  ✘ [Line 3:1] Argument missing for parameter \"side\" [reportCallIssue] (Pyright)</new-diagnostics>"
        ),
        "{text}"
    );
    fx.session.shutdown().await;

    // Off with the setting.
    let quiet =
        open(&root, Some(&bin), WorkspaceTrust::Trusted, Some(r#"{"lsp": {"diagnostics": false}}"#.into()), true).await;
    quiet.call("Read", json!({"file_path": main})).await;
    let (text, _, _) = quiet.call("Edit", edit("total_area(squares)", "total_area(squares, 2)")).await;
    assert_eq!(text, format!("The file {main} has been updated successfully.{FRESH}"));
    quiet.session.shutdown().await;
}

#[tokio::test]
async fn a_crashing_server_is_restarted_then_given_up_on_through_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/lsp/tests/fixtures/crashing_server.py");
    let starts = root.join("starts.log");
    let settings = json!({
        "lsp": {"builtinServers": false},
        "lspServers": {"crashy": {"command": "python3", "args": [script, starts], "extensionToLanguage": {".py": "python"}, "maxRestarts": 1}}
    });
    let fx = open(&root, None, WorkspaceTrust::Trusted, Some(settings.to_string()), true).await;
    for _ in 0..2 {
        let (text, _) = fx.lsp("hover", "a.py", 1, 1).await;
        assert_eq!(text, "Error performing hover: the language server exited");
    }
    let (text, _) = fx.lsp("hover", "a.py", 1, 1).await;
    assert_eq!(text, "Error performing hover: the language server \"crashy\" stopped 2 times and was given up on");
    assert_eq!(std::fs::read_to_string(&starts).unwrap().lines().count(), 2);
    fx.session.shutdown().await;
}

#[tokio::test]
async fn lsp_is_off_unless_asked_for_and_off_in_a_folder_that_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let servers = r#"{"lspServers": {"fake": {"command": "true", "extensionToLanguage": {".py": "python"}}}}"#;
    let has_lsp = |fx: &Fixture| fx.session.pool().iter().any(|tool| tool.name() == "LSP");

    let off = open(&root, None, WorkspaceTrust::Trusted, Some(servers.into()), false).await;
    assert!(!has_lsp(&off), "neither ENABLE_LSP_TOOL nor lsp.enabled");
    let by_setting = json!({"lsp": {"enabled": true}, "lspServers": {"fake": {"command": "true", "extensionToLanguage": {".py": "python"}}}});
    let on = open(&root, None, WorkspaceTrust::Trusted, Some(by_setting.to_string()), false).await;
    assert!(has_lsp(&on), "lsp.enabled turns it on");
    let none =
        open(&root, None, WorkspaceTrust::Trusted, Some(r#"{"lsp": {"builtinServers": false}}"#.into()), true).await;
    assert!(!has_lsp(&none), "no server at all");
    assert!(none.notices.lock().unwrap().iter().any(|notice| notice.contains("no language server is configured")));

    let untrusted = open(&root, None, WorkspaceTrust::Recorded, Some(servers.into()), true).await;
    assert!(!has_lsp(&untrusted));
    let notices = untrusted.notices.lock().unwrap().join("\n");
    assert!(notices.contains("language servers (LSP), which can run its code"), "{notices}");
}

/// `secret/consts.py` of the deny-rule test: a constant whose value must not show, and a
/// function.
const SECRET_CONSTS: &str = "API_TOKEN = \"CANARY-LSP-7f3a\"\n\n\ndef fetch_secret() -> str:\n    return API_TOKEN\n\n\nSIGNING_SALT = \"CANARY-LSP-salt-91\"\n";
/// `pub/derived.py`: a readable variable whose inferred type is a denied constant's value.
const PUB_DERIVED: &str = "from secret.consts import SIGNING_SALT\n\nsalt = SIGNING_SALT\n";
/// `pub/use.py`: uses both (`API_TOKEN` at 5:11, `fetch_secret` at 6:12, `show` at 4:5).
const PUB_USE: &str = "from secret.consts import API_TOKEN, fetch_secret\n\n\ndef show() -> str:\n    print(API_TOKEN)\n    return fetch_secret()\n";

/// What the LSP tool's texts add when results in read-denied files are left out.
const WITHHELD_ONE: &str = "\n\n1 result in a file a permission rule denies reading was withheld.";

#[tokio::test]
async fn pyright_answers_about_read_denied_files_are_withheld() {
    let Some(bin) = agent_tools_testkit::lsp_bin_dir("LSP with Read deny rules", &["pyright-langserver", "node"])
    else {
        return;
    };
    let (_dir, root) = project(
        "python",
        &[("secret/consts.py", SECRET_CONSTS), ("pub/use.py", PUB_USE), ("pub/derived.py", PUB_DERIVED)],
    );
    let symbol = json!({"operation": "workspaceSymbol", "filePath": "pub/use.py", "line": 1, "character": 1, "query": "API_TOKEN"});

    // Without a deny rule the server shows the secret's value and locations.
    let open_fx = open(&root, Some(&bin), WorkspaceTrust::Trusted, None, true).await;
    let (text, _) = open_fx.lsp("hover", "pub/use.py", 5, 11).await;
    assert_eq!(text, "Hover info at 5:11:\n\n```python\n(constant) API_TOKEN: Literal['CANARY-LSP-7f3a']\n```");
    let (text, _) = open_fx.lsp("goToDefinition", "pub/use.py", 5, 11).await;
    assert_eq!(text, "Defined in secret/consts.py:1:1");
    let (text, _) = open_fx.lsp("hover", "pub/derived.py", 3, 1).await;
    assert!(text.contains("CANARY-LSP-salt-91"), "pyright infers the constant's value: {text}");
    let (text, data) = open_fx.lsp("findReferences", "pub/use.py", 5, 11).await;
    assert_eq!(
        text,
        "Found 4 references across 2 files:\n\npub/use.py:\n  Line 1:27\n  Line 5:11\n\nsecret/consts.py:\n  Line 1:1\n  Line 5:12"
    );
    assert_eq!(counts(&data), (json!(4), json!(2)));
    let (text, _, _) = open_fx.call("LSP", symbol.clone()).await;
    assert_eq!(text, "Found 1 symbol in workspace:\n\nsecret/consts.py:\n  API_TOKEN (Constant) - Line 1");
    let (text, _) = open_fx.lsp("prepareCallHierarchy", "pub/use.py", 6, 12).await;
    assert_eq!(text, "Call hierarchy item: fetch_secret (Function) - secret/consts.py:4 [(consts.py)]");
    open_fx.session.shutdown().await;

    // With `Read(./secret/**)` denied, nothing of secret/ shows, and the texts say what was withheld.
    let deny = json!({"permissions": {"deny": ["Read(./secret/**)"]}}).to_string();
    let fx = open(&root, Some(&bin), WorkspaceTrust::Trusted, Some(deny), true).await;
    let (text, data) = fx.lsp("hover", "pub/use.py", 5, 11).await;
    assert!(!text.contains("CANARY"), "{text}");
    assert_eq!(text, "The hover text comes from a file a permission rule denies reading, so it was withheld.");
    assert_eq!(counts(&data), (json!(0), json!(0)));
    // A function's signature comes from its definition too.
    let (text, _) = fx.lsp("hover", "pub/use.py", 6, 12).await;
    assert_eq!(text, "The hover text comes from a file a permission rule denies reading, so it was withheld.");
    // A readable variable whose inferred type quotes the denied constant's value.
    let (text, _) = fx.lsp("hover", "pub/derived.py", 3, 1).await;
    assert_eq!(text, "The hover text comes from a file a permission rule denies reading, so it was withheld.");
    // A symbol defined in a readable file keeps its hover.
    let (text, _) = fx.lsp("hover", "pub/use.py", 4, 5).await;
    assert_eq!(text, "Hover info at 4:5:\n\n```python\n(function) def show() -> str\n```");

    let (text, data) = fx.lsp("goToDefinition", "pub/use.py", 5, 11).await;
    assert_eq!(
        text,
        format!(
            "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external library not indexed by the LSP server.{WITHHELD_ONE}"
        )
    );
    assert_eq!(counts(&data), (json!(0), json!(0)));

    let (text, data) = fx.lsp("findReferences", "pub/use.py", 5, 11).await;
    assert_eq!(
        text,
        "Found 2 references across 1 files:\n\npub/use.py:\n  Line 1:27\n  Line 5:11\n\n2 results in files a permission rule denies reading were withheld."
    );
    assert_eq!(counts(&data), (json!(2), json!(1)));
    let (text, data) = fx.lsp("findReferences", "pub/use.py", 6, 12).await;
    assert_eq!(
        text,
        format!("Found 2 references across 1 files:\n\npub/use.py:\n  Line 1:38\n  Line 6:12{WITHHELD_ONE}")
    );
    assert_eq!(counts(&data), (json!(2), json!(1)));

    let (text, _, data) = fx.call("LSP", symbol).await;
    assert!(!text.contains("secret/"), "{text}");
    assert_eq!(
        text,
        format!(
            "No symbols found in workspace. This may occur if the workspace is empty, or if the LSP server has not finished indexing the project.{WITHHELD_ONE}"
        )
    );
    assert_eq!(counts(&data), (json!(0), json!(0)));

    // The call hierarchy: fetch_secret's item is in secret/; show's call of it is withheld,
    // its calls of print (in the typeshed stubs) are not.
    let (text, _) = fx.lsp("prepareCallHierarchy", "pub/use.py", 6, 12).await;
    assert_eq!(text, format!("No call hierarchy item found at this position{WITHHELD_ONE}"));
    let (text, data) = fx.lsp("outgoingCalls", "pub/use.py", 4, 5).await;
    assert!(text.starts_with("Found 2 outgoing calls:\n\n") && text.ends_with(WITHHELD_ONE), "{text}");
    assert!(!text.contains("secret/") && !text.contains("fetch_secret"), "{text}");
    assert_eq!(counts(&data), (json!(2), json!(1)));
    // Who calls fetch_secret is in pub/, readable: shown as without the rule.
    let (text, _) = fx.lsp("incomingCalls", "pub/use.py", 6, 12).await;
    assert_eq!(text, "Found 1 incoming call:\n\npub/use.py:\n  show (Function) - Line 4 [calls at: 6:12]");
    // The file itself: its document symbols are its own.
    let (text, _) = fx.lsp("documentSymbol", "pub/use.py", 1, 1).await;
    assert!(text.starts_with("Document symbols:\n"), "{text}");
    fx.session.shutdown().await;
}
