//! Write on real files: Claude Code's recorded results (in order on one
//! context), a change on disk since the read, line endings of
//! new and overwritten files, mixed line endings, trailing whitespace and
//! symbolic links, with the exact bytes each leaves. (`tests/proptest.rs` drives Write with
//! generated files.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;

use agent_tools_testkit::Session;
use serde_json::{Value, json};

const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";
const NOT_READ: &str =
    "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>";
const MODIFIED: &str = "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>";

/// Write's calls in a testkit session.
trait WriteSession {
    async fn read(&self, file_path: &str) -> String;
    async fn write(&self, input: Value) -> (String, bool);
    async fn write_ok(&self, file_path: &str, content: &str) -> String;
    async fn write_err(&self, file_path: &str, content: &str) -> String;
}

impl WriteSession for Session {
    async fn read(&self, file_path: &str) -> String {
        self.mark_read(file_path)
    }

    async fn write(&self, input: Value) -> (String, bool) {
        self.run(agent_tool_file_write::tool().as_ref(), input).await
    }

    async fn write_ok(&self, file_path: &str, content: &str) -> String {
        self.ok(agent_tool_file_write::tool().as_ref(), json!({"file_path": file_path, "content": content})).await
    }

    async fn write_err(&self, file_path: &str, content: &str) -> String {
        self.err(agent_tool_file_write::tool().as_ref(), json!({"file_path": file_path, "content": content})).await
    }
}

fn created(path: &str) -> String {
    format!("File created successfully at: {path} {STATE_IS_CURRENT}")
}

fn updated(path: &str) -> String {
    format!("The file {path} has been updated successfully. {STATE_IS_CURRENT}")
}

// ----- the oracle, in its order on one context -----

#[tokio::test]
async fn oracle_write_cases_in_order() {
    let s = Session::in_dir(agent_tools_testkit::oracle_fixture());

    // write-new: into a folder that does not exist yet.
    let new = s.abs("out/new-file.txt");
    assert_eq!(s.write_ok(&new, "line one\nline two\n").await, created(&new));
    assert_eq!(s.bytes("out/new-file.txt"), b"line one\nline two\n");

    // write-overwrite-unread: Claude Code's `mcp serve` overwrites it; we refuse (see
    // peer/README.md).
    let existing = s.abs("existing.txt");
    assert_eq!(s.write_err(&existing, "replaced\n").await, NOT_READ);
    assert_eq!(s.bytes("existing.txt"), b"original content\n");

    // write-overwrite.read, then write-overwrite-after-read.
    assert_eq!(s.read(&existing).await, "original content\n");
    assert_eq!(s.write_ok(&existing, "replaced\nsecond\n").await, updated(&existing));
    assert_eq!(s.bytes("existing.txt"), b"replaced\nsecond\n");

    // write-relative-path: the text names the path as given.
    assert_eq!(s.write_ok("rel.txt", "relative\n").await, created("rel.txt"));
    assert_eq!(s.bytes("rel.txt"), b"relative\n");
}

// ----- line endings -----

#[tokio::test]
async fn case_015_new_files_verbatim_overwrites_keep_crlf() {
    let s = Session::new();
    s.put("App.config", include_bytes!("fixtures/App.config"));
    // Step 1: a new script next to a CRLF file gets LF, exactly.
    let script = s.abs("new.sh");
    s.write_ok(&script, "#!/bin/sh\necho hi\n").await;
    assert_eq!(s.bytes("new.sh"), b"#!/bin/sh\necho hi\n");
    assert_eq!(s.bytes("new.sh").len(), 18);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(s.path("new.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        // Run through `sh` (the temporary folder may be mounted noexec): a `\r` would break it.
        let out = std::process::Command::new("sh").arg(s.path("new.sh")).output().unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, b"hi\n");
    }
    // Step 2: overwriting the CRLF file keeps CRLF.
    let config = s.abs("App.config");
    s.read(&config).await;
    assert_eq!(s.write_ok(&config, "<a>\n  <c/>\n</a>\n").await, updated(&config));
    assert_eq!(s.bytes("App.config"), b"<a>\r\n  <c/>\r\n</a>\r\n");
    // Content already in CRLF is not doubled.
    s.write_ok(&config, "<a>\r\n  <d/>\r\n</a>\r\n").await;
    assert_eq!(s.bytes("App.config"), b"<a>\r\n  <d/>\r\n</a>\r\n");
    // Step 3: explicit CRLF in a new file stays as given.
    let explicit = s.abs("explicit.txt");
    s.write_ok(&explicit, "x\r\ny\r\n").await;
    assert_eq!(s.bytes("explicit.txt"), b"x\r\ny\r\n");
}

#[tokio::test]
async fn overwrites_keep_the_encoding_and_its_mark() {
    let s = Session::new();
    let bom = s.put("bom.txt", b"\xef\xbb\xbfold\n");
    s.read(&bom).await;
    s.write_ok(&bom, "new\n").await;
    assert_eq!(s.bytes("bom.txt"), b"\xef\xbb\xbfnew\n");

    let utf16: Vec<u8> =
        [&[0xFE, 0xFF][..], &"old\r\n".encode_utf16().flat_map(u16::to_be_bytes).collect::<Vec<u8>>()].concat();
    let wide = s.put("wide.txt", &utf16);
    s.read(&wide).await;
    s.write_ok(&wide, "n\u{e9}w\n").await;
    let expected: Vec<u8> =
        [&[0xFE, 0xFF][..], &"n\u{e9}w\r\n".encode_utf16().flat_map(u16::to_be_bytes).collect::<Vec<u8>>()].concat();
    assert_eq!(s.bytes("wide.txt"), expected);

    let legacy = s.put("legacy.txt", b"caf\xe9\n");
    s.read(&legacy).await;
    s.write_ok(&legacy, "na\u{ef}ve\n").await;
    assert_eq!(s.bytes("legacy.txt"), b"na\xefve\n");
}

#[tokio::test]
async fn mixed_line_endings_stay_on_the_lines_that_stay() {
    let s = Session::new();
    let path = s.put("mixed.txt", b"first\nsecond\nwin one\r\nwin two\r\nlast\n");
    s.read(&path).await;
    s.write_ok(&path, "first\nsecond\nSECOND b\nwin one\nwin 1.5\nwin two\nlast\nafter\n").await;
    assert_eq!(s.bytes("mixed.txt"), b"first\nsecond\nSECOND b\nwin one\r\nwin 1.5\r\nwin two\r\nlast\nafter\n");
    // A changed line keeps the ending of the line it replaces.
    s.write_ok(&path, "first\nsecond\nSECOND b\nWIN ONE\nwin 1.5\nwin two\nlast\nafter\n").await;
    assert_eq!(s.bytes("mixed.txt"), b"first\nsecond\nSECOND b\nWIN ONE\r\nwin 1.5\r\nwin two\r\nlast\nafter\n");
}

// ----- trailing whitespace -----

#[tokio::test]
async fn trailing_whitespace_goes_except_in_markdown_and_on_lines_that_were_there() {
    let s = Session::new();
    let script = s.abs("new.py");
    s.write_ok(&script, "def f():  \n    \n    return 1\t\n").await;
    assert_eq!(s.bytes("new.py"), b"def f():\n\n    return 1\n");
    let notes = s.abs("notes.md");
    s.write_ok(&notes, "line one  \nline two\n").await;
    assert_eq!(s.bytes("notes.md"), b"line one  \nline two\n");
    let patch = s.abs("fix.patch");
    s.write_ok(&patch, "@@ -1,2 +1,2 @@\n \n-a\n+b\n").await;
    assert_eq!(s.bytes("fix.patch"), b"@@ -1,2 +1,2 @@\n \n-a\n+b\n");
    // Lines kept from the file keep their whitespace (here a significant one in a heredoc).
    let path = s.put("gen.sh", b"cat <<EOF\nkeep me  \nEOF\n");
    s.read(&path).await;
    s.write_ok(&path, "cat <<EOF\nkeep me  \nnew  \nEOF\n").await;
    assert_eq!(s.bytes("gen.sh"), b"cat <<EOF\nkeep me  \nnew\nEOF\n");
}

#[cfg(unix)]
#[tokio::test]
async fn a_symbolic_link_is_written_through() {
    let s = Session::new();
    s.put("real.txt", b"old\n");
    let link = s.path("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    let link = link.to_string_lossy().into_owned();
    s.read(&link).await;
    assert_eq!(s.write_ok(&link, "new\n").await, updated(&link));
    assert!(fs::symlink_metadata(s.path("link.txt")).unwrap().file_type().is_symlink());
    assert_eq!(s.bytes("real.txt"), b"new\n");
}

// ----- a change on disk since the read is caught -----

#[tokio::test]
async fn case_009_write_after_an_external_change_is_refused() {
    let s = Session::new();
    let path = s.put("log.md", b"alpha\nbeta\n");
    s.read(&path).await;
    s.put("log.md", b"alpha\nBETA-external\n");
    assert_eq!(s.write_err(&path, "overwritten\n").await, MODIFIED);
    assert_eq!(s.bytes("log.md"), b"alpha\nBETA-external\n");
    // A touch alone is not a change.
    s.read(&path).await;
    filetime::set_file_mtime(s.path("log.md"), filetime::FileTime::from_unix_time(1_893_456_000, 0)).unwrap();
    s.write_ok(&path, "overwritten\n").await;
    assert_eq!(s.bytes("log.md"), b"overwritten\n");
}

#[tokio::test]
async fn a_change_between_validation_and_call_is_not_lost() {
    let s = Session::new();
    let path = s.put("f.txt", b"mine\n");
    s.read(&path).await;
    let tool = agent_tool_file_write::tool();
    let parsed = tool.parse(json!({"file_path": path, "content": "new\n"})).unwrap();
    assert!(tool.validate_input(&parsed, &s.ctx).await.is_ok());
    s.put("f.txt", b"theirs\n");
    let error = tool.call(parsed, &s.ctx).await.unwrap_err();
    assert_eq!(error.to_string(), "File has been unexpectedly modified. Read it again before attempting to write it.");
    assert_eq!(s.bytes("f.txt"), b"theirs\n");

    // A file that appears between validation and call is not overwritten either.
    let late = s.abs("late.txt");
    let parsed = tool.parse(json!({"file_path": late, "content": "new\n"})).unwrap();
    assert!(tool.validate_input(&parsed, &s.ctx).await.is_ok());
    s.put("late.txt", b"someone else's\n");
    assert_eq!(
        tool.call(parsed, &s.ctx).await.unwrap_err().to_string(),
        "File has not been read yet. Read it first before writing to it."
    );
    assert_eq!(s.bytes("late.txt"), b"someone else's\n");
}

#[tokio::test]
async fn writes_refresh_the_read_state() {
    let s = Session::new();
    let path = s.abs("f.txt");
    s.write_ok(&path, "one\n").await;
    // No Read needed after our own write.
    s.write_ok(&path, "two\n").await;
    assert_eq!(s.bytes("f.txt"), b"two\n");
    // Through another spelling of the path too.
    let dotted = s.dir.path().join("./f.txt").to_string_lossy().into_owned();
    s.write_ok(&dotted, "three\n").await;
    assert_eq!(s.bytes("f.txt"), b"three\n");
}

// ----- refusals and failures -----

#[tokio::test]
async fn folders_and_binaries_are_refused() {
    let s = Session::new();
    fs::create_dir(s.path("sub")).unwrap();
    let folder = s.abs("sub");
    assert_eq!(
        s.write_err(&folder, "x").await,
        format!("<tool_use_error>EISDIR: illegal operation on a directory, open '{folder}'</tool_use_error>")
    );
    let blob: &[u8] = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00";
    let binary = s.put("blob.bin", blob);
    assert_eq!(
        s.write_err(&binary, "text").await,
        format!(
            "<tool_use_error>This tool cannot overwrite binary files, and {binary} holds binary data. Use a command or script that understands its format.</tool_use_error>"
        )
    );
    assert_eq!(s.bytes("blob.bin"), blob);
}

#[tokio::test]
async fn a_parent_that_is_a_file_is_an_error_result_not_a_panic() {
    let s = Session::new();
    s.put("blocker", b"i am a file\n");
    let path = s.abs("blocker/child.txt");
    let text = s.write_err(&path, "x").await;
    assert!(text.starts_with(&format!("Cannot write {path}: ")), "{text}");
    assert!(text.ends_with(". The file was not changed."), "{text}");
    assert_eq!(s.bytes("blocker"), b"i am a file\n");
}

#[cfg(unix)]
#[tokio::test]
async fn the_mode_survives_and_new_files_get_the_default_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Session::new();
    let path = s.put("tool.sh", b"#!/bin/sh\n");
    fs::set_permissions(s.path("tool.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    s.read(&path).await;
    s.write_ok(&path, "#!/bin/sh\necho ok\n").await;
    assert_eq!(fs::metadata(s.path("tool.sh")).unwrap().permissions().mode() & 0o7777, 0o755);
    // A new file gets the mode any new file gets here (0o666 less the umask), not the temporary
    // file's private 0o600.
    let fresh = s.abs("fresh.txt");
    s.write_ok(&fresh, "x").await;
    fs::write(s.path("reference.txt"), "x").unwrap();
    let mode = |name: &str| fs::metadata(s.path(name)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("fresh.txt"), mode("reference.txt"));
}

#[cfg(unix)]
#[tokio::test]
async fn a_read_only_folder_leaves_the_original() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Session::new();
    let path = s.put("locked/f.txt", b"original\n");
    s.read(&path).await;
    let locked = s.path("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // A privileged process (root) may write in a read-only folder anyway.
    let privileged = fs::write(locked.join("probe"), b"").is_ok();
    let _ = fs::remove_file(locked.join("probe"));
    let (text, is_error) = s.write(json!({"file_path": path, "content": "changed\n"})).await;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        assert!(!is_error, "{text}");
    } else {
        assert!(is_error);
        assert!(text.starts_with(&format!("Cannot write {path}: ")), "{text}");
        assert_eq!(s.bytes("locked/f.txt"), b"original\n");
    }
}

// ----- contract and output -----

#[test]
fn contract_flags_and_schema() {
    let tool = agent_tool_file_write::tool();
    assert_eq!(tool.name(), "Write");
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(100_000));
    assert_eq!(
        tool.flags(),
        agent_tools_core::ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false }
    );
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["file_path", "content"]));
    assert_eq!(schema["additionalProperties"], false);
    let parsed = tool.parse(json!({"file_path": "/x", "content": ""})).unwrap();
    assert!(!tool.is_read_only(&parsed));
    assert!(!tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("/x"));
    assert!(tool.parse(json!({"file_path": "/x"})).is_err());
    assert!(tool.parse(json!({"file_path": "/x", "content": "", "mode": 1})).is_err());
}

#[tokio::test]
async fn output_data_is_claude_codes_shape() {
    let s = Session::new();
    let path = s.put("f.txt", b"a\nb\n");
    s.read(&path).await;
    let done = agent_tools_core::call_tool(
        agent_tool_file_write::tool().as_ref(),
        "toolu_1",
        json!({"file_path": path, "content": "a\nB\n"}),
        &s.ctx,
    )
    .await;
    let data = done.data.unwrap().to_json();
    assert_eq!(
        data,
        json!({
            "type": "update",
            "filePath": path,
            "content": "a\nB\n",
            "structuredPatch": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "lines": [" a", "-b", "+B"]}],
            "originalFile": "a\nb\n"
        })
    );
}
