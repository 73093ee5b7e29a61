//! The REPL tool end to end through a `Session`: a script's inner calls go through the
//! session's executor and give what the same direct calls give (a denial included), the
//! context keeps its state and survives a timeout and memory exhaustion, and REPL mode hides
//! the primitives from the model while scripts still reach them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use agent_tools_core::PermissionMode;
use agent_tools_core::ToolUseBlock;
use agent_tools_host::{CallOptions, Environment, Session};
use serde_json::{Value, json};

async fn open(root: &Path, env: &[(&str, &str)], settings: Option<Value>) -> (Session, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let mut environment = Environment::empty().with("HOME", home.path()).with("PATH", "/usr/bin:/bin");
    for (name, value) in env {
        environment = environment.with(name, value);
    }
    let mut builder =
        Session::builder(root).environment(environment).permission_mode(Some(PermissionMode::AcceptEdits));
    if let Some(settings) = settings {
        builder = builder.settings_json(settings.to_string());
    }
    (builder.build().await.unwrap(), home)
}

async fn call(session: &Session, name: &str, input: Value) -> (String, bool) {
    let block = ToolUseBlock { id: "toolu_repl".into(), name: name.into(), input };
    let done = session.call(&block, CallOptions::default()).await;
    (done.block.content.text(), done.block.is_error)
}

/// A direct call in a fresh copy of the session's state (nothing read yet), as a script's
/// first call of it sees.
async fn direct(session: &Session, name: &str, input: Value) -> String {
    let block = ToolUseBlock { id: "toolu_direct".into(), name: name.into(), input };
    let done = session.call(&block, CallOptions { isolated: true, ..CallOptions::default() }).await;
    done.block.content.text()
}

async fn script(session: &Session, code: &str) -> (String, bool) {
    call(session, "REPL", json!({"code": code})).await
}

fn project(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for index in 0..files {
        let text = format!("file {index}\nfn item_{index}() {{}}\n// TODO: check {index}\n");
        std::fs::write(dir.path().join(format!("f{index:02}.rs")), text).unwrap();
    }
    dir
}

#[tokio::test]
async fn a_script_reading_and_grepping_twenty_files_gets_what_forty_direct_calls_get() {
    let dir = project(20);
    let root = dir.path().canonicalize().unwrap();
    let (session, _home) = open(&root, &[], None).await;
    let (text, is_error) = script(
        &session,
        r#"
        const files = (await Glob({pattern: "*.rs"})).filenames.sort();
        const reads = await Promise.all(files.map((file_path) => Read({file_path})));
        const greps = [];
        for (const path of files) greps.push(await Grep({pattern: "TODO", path, output_mode: "content", "-n": true}));
        ({files, reads: reads.map(String), greps: greps.map((g) => g.text), lines: reads.map((r) => r.file.numLines)})
        "#,
    )
    .await;
    assert!(!is_error, "{text}");
    let out: Value = serde_json::from_str(&text).unwrap();
    let files: Vec<String> = serde_json::from_value(out["files"].clone()).unwrap();
    assert_eq!(files.len(), 20);
    for (index, file) in files.iter().enumerate() {
        let read = direct(&session, "Read", json!({"file_path": file})).await;
        assert_eq!(out["reads"][index], read, "{file}");
        assert!(read.contains(&format!("fn item_{index}()")), "{read}");
        let grep =
            direct(&session, "Grep", json!({"pattern": "TODO", "path": file, "output_mode": "content", "-n": true}))
                .await;
        assert_eq!(out["greps"][index], grep, "{file}");
        assert_eq!(grep, format!("3:// TODO: check {index}"));
        assert_eq!(out["lines"][index], 4);
    }
}

#[tokio::test]
async fn a_denied_path_inside_a_script_is_refused_exactly_as_a_direct_call() {
    let dir = project(1);
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("secret")).unwrap();
    std::fs::write(root.join("secret/key.txt"), "hunter2\n").unwrap();
    let settings = json!({"permissions": {"deny": ["Read(./secret/**)", "Bash"]}});
    let (session, _home) = open(&root, &[], Some(settings)).await;
    let (refused, is_error) = call(&session, "Read", json!({"file_path": "secret/key.txt"})).await;
    assert!(is_error);
    let (text, is_error) = script(
        &session,
        r#"
        let caught;
        try { await Read({file_path: "secret/key.txt"}); } catch (error) { caught = error; }
        [caught.name, caught.message]
        "#,
    )
    .await;
    assert!(!is_error, "{text}");
    let out: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(out[0], "ReadError");
    assert_eq!(out[1], refused.as_str());
    assert!(!text.contains("hunter2"));
    // A whole tool the rules remove is not there for scripts either.
    let (text, is_error) = script(&session, "await Bash({command: 'cat secret/key.txt'})").await;
    assert!(is_error);
    assert!(text.contains("Bash is not defined") || text.contains("No such tool"), "{text}");
    // Uncaught, the refusal is the script's error, with where it was thrown.
    let (text, is_error) = script(&session, "\nawait Read({file_path: 'secret/key.txt'})").await;
    assert!(is_error);
    assert!(text.starts_with(&format!("ReadError: {refused}")), "{text}");
    assert!(text.ends_with("at <eval> (repl:2:7)"), "where the script called Read: {text}");
    // The REPL cannot call itself.
    let (text, _) = script(&session, "typeof REPL + ' ' + typeof tools.REPL").await;
    assert_eq!(text, "undefined undefined");
}

#[tokio::test]
async fn state_persists_and_a_timeout_or_memory_exhaustion_leaves_the_context_usable() {
    let dir = project(1);
    let root = dir.path().canonicalize().unwrap();
    let (session, _home) = open(&root, &[], None).await;
    assert_eq!(
        script(&session, "let count = 41; function bump() { return ++count; }").await,
        ("(no output)".into(), false)
    );
    assert_eq!(script(&session, "console.log('bumped'); bump()").await, ("bumped\n42".into(), false));

    let (text, is_error) = call(&session, "REPL", json!({"code": "count = 7; while (true) {}", "timeout": 300})).await;
    assert!(is_error);
    assert!(text.contains("ran past its timeout"), "{text}");
    assert_eq!(script(&session, "bump()").await, ("8".into(), false));

    let (text, is_error) =
        script(&session, "const hoard = []; while (true) hoard.push('x'.repeat(1 << 20) + hoard.length)").await;
    assert!(is_error);
    assert!(text.contains("out of memory"), "{text}");
    assert_eq!(script(&session, "bump()").await, ("9".into(), false));

    // Errors carry the script's line and column.
    let (text, is_error) = script(&session, "let a = 1;\n\n   a.b.c").await;
    assert!(is_error);
    assert!(text.starts_with("TypeError: cannot read property 'c' of undefined"), "{text}");
    assert!(text.contains("repl:3:"), "{text}");
    let (text, is_error) = script(&session, "let = ;").await;
    assert!(is_error);
    assert!(text.starts_with("SyntaxError"), "{text}");
    // No host access but the tools.
    assert_eq!(
        script(&session, "[typeof require, typeof fetch, typeof process, typeof std, typeof os].join()").await.0,
        "undefined,undefined,undefined,undefined,undefined"
    );
    let (text, is_error) = script(&session, "await import('os')").await;
    assert!(is_error, "{text}");
}

#[tokio::test]
async fn repl_mode_hides_the_primitives_from_the_model_and_scripts_still_call_them() {
    let dir = project(2);
    let root = dir.path().canonicalize().unwrap();
    let (session, _home) = open(&root, &[("CLAUDE_REPL_MODE", "1")], None).await;
    let names: Vec<String> = session.pool().iter().map(|tool| tool.name().to_owned()).collect();
    assert!(names.contains(&"REPL".to_owned()), "{names:?}");
    for hidden in ["Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "Bash", "NotebookEdit"] {
        assert!(!names.contains(&hidden.to_owned()), "{hidden} is hidden: {names:?}");
    }
    let repl = session.find_tool("REPL").unwrap();
    assert!(!repl.should_defer(), "in REPL mode the REPL is the main tool");
    let (text, is_error) = call(&session, "Read", json!({"file_path": "f00.rs"})).await;
    assert!(is_error);
    assert!(text.contains("No such tool available: Read"), "{text}");

    let (text, is_error) = script(
        &session,
        "await Write({file_path: 'new.txt', content: 'made by a script\\n'}); (await Read({file_path: 'new.txt'})).file.content",
    )
    .await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "made by a script\n");
    assert_eq!(std::fs::read_to_string(root.join("new.txt")).unwrap(), "made by a script\n");

    // Outside REPL mode the REPL is there, deferred, beside the primitives; CLAUDE_CODE_REPL=0
    // removes it.
    let (plain, _home) = open(&root, &[], None).await;
    assert!(plain.find_tool("REPL").unwrap().should_defer());
    assert!(plain.find_tool("Read").is_some());
    assert!(plain.find_tool("Eval").is_some(), "Claude Code's alias");
    let (off, _home) = open(&root, &[("CLAUDE_CODE_REPL", "0")], None).await;
    assert!(off.find_tool("REPL").is_none());
}
