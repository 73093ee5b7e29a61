//! MultiEdit on real files: four steps of a batch edit (sequential matching, all or nothing;
//! anthropics/claude-code#5234) with the
//! exact bytes each leaves and the exact texts, the read-before-edit and changed-since-read rules,
//! `Edit(…)` deny rules, input validation, CRLF files, a new file, the read-state record and the
//! output data.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_tools_core::call_tool;
use agent_tools_core::{
    PermissionBehavior, PermissionMode, PermissionResult, PermissionRuleSource, ToolPermissionContext,
};
use agent_tools_testkit::Session;
use serde_json::{Value, json};

const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";
const NOT_READ: &str =
    "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>";
const MODIFIED: &str = "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>";
const CONF: &[u8] = b"port=3000\nhost=0.0.0.0\ntimeout=10\n";

/// MultiEdit, and the model's Read, in a testkit session.
trait MultiEditSession {
    async fn read(&self, file_path: &str) -> String;
    async fn multi_edit_ok(&self, file_path: &str, edits: Value) -> String;
    async fn multi_edit_err(&self, file_path: &str, edits: Value) -> String;
}

impl MultiEditSession for Session {
    async fn read(&self, file_path: &str) -> String {
        self.mark_read(file_path)
    }

    async fn multi_edit_ok(&self, file_path: &str, edits: Value) -> String {
        self.ok(agent_tool_multi_edit::tool().as_ref(), json!({"file_path": file_path, "edits": edits})).await
    }

    async fn multi_edit_err(&self, file_path: &str, edits: Value) -> String {
        self.err(agent_tool_multi_edit::tool().as_ref(), json!({"file_path": file_path, "edits": edits})).await
    }
}

fn validation_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

/// The setup before each step: `server.conf` as given, then a Read (recorded as Read
/// records it).
async fn reset_and_read(s: &Session) -> String {
    let path = s.put("server.conf", CONF);
    s.read(&path).await;
    path
}

#[tokio::test]
async fn case_014_edits_apply_in_order_and_all_or_nothing() {
    let s = Session::new();

    // Step 1: edits 1 and 2 apply, edit 3 is not found: nothing is written, edit #3 is named.
    let path = reset_and_read(&s).await;
    let edits = json!([
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "host=0.0.0.0", "new_string": "host=127.0.0.1"},
        {"old_string": "timeout=99", "new_string": "timeout=30"},
    ]);
    assert_eq!(
        s.multi_edit_err(&path, edits).await,
        validation_error(
            "Edit #3 of 3 failed: String to replace not found in file.\nString: timeout=99\nEdit #3 was matched against the file as edits #1–#2 left it. No edit was applied: the file is unchanged."
        )
    );
    assert_eq!(s.bytes("server.conf"), CONF);

    // Step 2: edit 2 matches what edit 1 wrote (Claude Code's old substring guard is not kept).
    let path = reset_and_read(&s).await;
    let edits = json!([
        {"old_string": "port=3000", "new_string": "listen_port=3000"},
        {"old_string": "listen_port=3000", "new_string": "listen_port=8080"},
    ]);
    assert_eq!(
        s.multi_edit_ok(&path, edits).await,
        format!(
            "Applied 2 edits to {path}:\n1. Replaced \"port=3000\" with \"listen_port=3000\"\n2. Replaced \"listen_port=3000\" with \"listen_port=8080\"\n{STATE_IS_CURRENT}"
        )
    );
    assert_eq!(s.bytes("server.conf"), b"listen_port=8080\nhost=0.0.0.0\ntimeout=10\n");

    // Step 3: edit 1 makes edit 2's text occur twice: ambiguous, nothing is written.
    let path = reset_and_read(&s).await;
    let edits = json!([
        {"old_string": "host=0.0.0.0", "new_string": "host=0.0.0.0\nbackup_host=0.0.0.0"},
        {"old_string": "host=0.0.0.0", "new_string": "host=10.0.0.1"},
    ]);
    assert_eq!(
        s.multi_edit_err(&path, edits).await,
        validation_error(
            "Edit #2 of 2 failed: Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: host=0.0.0.0\nEdit #2 was matched against the file as edit #1 left it. No edit was applied: the file is unchanged."
        )
    );
    assert_eq!(s.bytes("server.conf"), CONF);

    // Step 4: replace_all first, then an edit of the text it produced.
    let path = reset_and_read(&s).await;
    let edits = json!([
        {"old_string": "0", "new_string": "1", "replace_all": true},
        {"old_string": "timeout=11", "new_string": "timeout=5"},
    ]);
    assert_eq!(
        s.multi_edit_ok(&path, edits).await,
        format!(
            "Applied 2 edits to {path}:\n1. Replaced \"0\" with \"1\" (all 8 occurrences)\n2. Replaced \"timeout=11\" with \"timeout=5\"\n{STATE_IS_CURRENT}"
        )
    );
    assert_eq!(s.bytes("server.conf"), b"port=3111\nhost=1.1.1.1\ntimeout=5\n");

    // The write is recorded: the model may edit again without a Read.
    let edits = json!([{"old_string": "timeout=5", "new_string": "timeout=6"}]);
    assert_eq!(
        s.multi_edit_ok(&path, edits).await,
        format!("Applied 1 edit to {path}:\n1. Replaced \"timeout=5\" with \"timeout=6\"\n{STATE_IS_CURRENT}")
    );
    assert_eq!(s.bytes("server.conf"), b"port=3111\nhost=1.1.1.1\ntimeout=6\n");
}

#[tokio::test]
async fn an_unread_file_is_refused_and_left_alone() {
    let s = Session::new();
    let path = s.put("server.conf", CONF);
    let edits = json!([{"old_string": "port=3000", "new_string": "port=8080"}]);
    assert_eq!(s.multi_edit_err(&path, edits).await, NOT_READ);
    assert_eq!(s.bytes("server.conf"), CONF);
}

#[tokio::test]
async fn a_file_changed_since_read_is_edited_only_where_every_edit_still_matches() {
    let s = Session::new();
    let path = reset_and_read(&s).await;
    std::fs::write(s.path("server.conf"), b"port=3000\nhost=0.0.0.0\ntimeout=20\n").unwrap();
    // An edit the change took away: the change is what the model hears about.
    let edits = json!([
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "timeout=10", "new_string": "timeout=30"},
    ]);
    assert_eq!(s.multi_edit_err(&path, edits).await, MODIFIED);
    assert_eq!(s.bytes("server.conf"), b"port=3000\nhost=0.0.0.0\ntimeout=20\n");
    // Edits that still match apply, with Edit's changed-on-disk note.
    let edits = json!([{"old_string": "port=3000", "new_string": "port=8080"}]);
    assert_eq!(
        s.multi_edit_ok(&path, edits).await,
        format!(
            "Applied 1 edit to {path}:\n1. Replaced \"port=3000\" with \"port=8080\"\n{}",
            agent_tools_files::edit::CHANGED_SINCE_READ
        )
    );
    assert_eq!(s.bytes("server.conf"), b"port=8080\nhost=0.0.0.0\ntimeout=20\n");
}

/// A context for the session's folder with these `Edit(…)` deny rules from project settings.
fn denying(s: &Session, rules: &[&str]) -> agent_tools_core::ToolUseContext {
    let mut permissions = ToolPermissionContext::default();
    for rule in rules {
        permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, *rule);
    }
    permissions.mode = PermissionMode::BypassPermissions;
    let mut ctx = s.ctx.clone();
    ctx.permission_context = Arc::new(permissions);
    ctx
}

#[tokio::test]
async fn edit_deny_rules_govern_multi_edit() {
    let s = Session::new();
    let locked = s.put("locked/server.conf", CONF);
    let open = s.put("open/server.conf", CONF);
    s.read(&locked).await;
    s.read(&open).await;
    let ctx = denying(&s, &["Edit(locked/**)"]);
    let tool = agent_tool_multi_edit::tool();
    let input = |path: &str| json!({"file_path": path, "edits": [{"old_string": "port=3000", "new_string": "port=1"}]});

    // validate_input refuses with Edit's text; nothing is written.
    let done = call_tool(tool.as_ref(), "toolu_1", input(&locked), &ctx).await;
    assert!(done.block.is_error);
    assert_eq!(
        done.block.content.text(),
        validation_error("File is in a directory that is denied by your permission settings.")
    );
    assert_eq!(s.bytes("locked/server.conf"), CONF);
    // The permission check denies too, with the same text (a deny rule wins even in bypass
    // mode); for the other folder it leaves the decision to the general permission system.
    let parsed = tool.parse(input(&locked)).unwrap();
    let verdict = tool.check_permissions(&parsed, &ctx).await;
    assert!(
        matches!(&verdict, PermissionResult::Deny { message, .. } if message == "File is in a directory that is denied by your permission settings."),
        "{verdict:?}"
    );
    let parsed = tool.parse(input(&open)).unwrap();
    let verdict = tool.check_permissions(&parsed, &ctx).await;
    assert!(matches!(verdict, PermissionResult::Passthrough { .. }), "{verdict:?}");
    let done = call_tool(tool.as_ref(), "toolu_2", input(&open), &ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    assert_eq!(s.bytes("open/server.conf"), b"port=1\nhost=0.0.0.0\ntimeout=10\n");
}

#[tokio::test]
async fn bad_inputs_are_refused_before_anything_is_read() {
    let s = Session::new();
    let path = reset_and_read(&s).await;
    let tool = agent_tool_multi_edit::tool();
    assert_eq!(
        s.err(tool.as_ref(), json!({"file_path": path, "edits": []})).await,
        "<tool_use_error>InputValidationError: MultiEdit failed due to the following issue:\nThe parameter `edits` is invalid: At least one edit is required</tool_use_error>"
    );
    assert_eq!(
        s.err(tool.as_ref(), json!({"file_path": path})).await,
        "<tool_use_error>InputValidationError: MultiEdit failed due to the following issue:\nThe required parameter `edits` is missing</tool_use_error>"
    );
    assert_eq!(
        s.err(
            tool.as_ref(),
            json!({"file_path": path, "edits": [{"old_string": "a", "new_string": "b", "expected_replacements": 1}]})
        )
        .await,
        "<tool_use_error>InputValidationError: MultiEdit failed due to the following issue:\nAn unexpected parameter `edits[0].expected_replacements` was provided</tool_use_error>"
    );
    // old_string == new_string in any edit is refused first, by number.
    let edits = json!([
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "host", "new_string": "host"},
    ]);
    assert_eq!(
        s.multi_edit_err(&path, edits).await,
        validation_error(
            "Edit #2 of 2 failed: No changes to make: old_string and new_string are exactly the same.\nNo edit was applied: the file is unchanged."
        )
    );
    // Edits that undo each other change nothing.
    let edits = json!([
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "port=8080", "new_string": "port=3000"},
    ]);
    assert_eq!(
        s.multi_edit_err(&path, edits).await,
        validation_error(
            "Original and edited file match exactly. Failed to apply edit. The edits, applied in order, cancel each other out."
        )
    );
    // Only the first edit may create or fill: later, an empty old_string meets a file with text.
    let edits = json!([
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "", "new_string": "x"},
    ]);
    assert_eq!(
        s.multi_edit_err(&path, edits).await,
        validation_error(
            "Edit #2 of 2 failed: Cannot create new file - file already exists.\nNo edit was applied: the file is unchanged."
        )
    );
    // A notebook is NotebookEdit's.
    let notebook = s.put("a.ipynb", "{}\n");
    s.read(&notebook).await;
    assert_eq!(
        s.multi_edit_err(&notebook, json!([{"old_string": "{}", "new_string": "[]"}])).await,
        validation_error("File is a Jupyter Notebook. Use the NotebookEdit to edit this file.")
    );
    assert_eq!(s.bytes("server.conf"), CONF);
}

#[tokio::test]
async fn a_crlf_file_keeps_its_line_endings_through_every_edit() {
    let s = Session::new();
    let path = s.put("win.ini", b"[a]\r\nx = 1\r\ny = 2\r\n");
    s.read(&path).await;
    let edits = json!([
        {"old_string": "x = 1\ny = 2", "new_string": "x = 10\nz = 3\ny = 2"},
        {"old_string": "z = 3\n", "new_string": ""},
        {"old_string": "[a]", "new_string": "[b]"},
    ]);
    s.multi_edit_ok(&path, edits).await;
    assert_eq!(s.bytes("win.ini"), b"[b]\r\nx = 10\r\ny = 2\r\n");
}

#[tokio::test]
async fn a_first_empty_old_string_creates_the_file_and_later_edits_apply_to_it() {
    let s = Session::new();
    let path = s.abs("new.txt");
    let edits = json!([
        {"old_string": "", "new_string": "alpha\nbeta\n"},
        {"old_string": "beta", "new_string": "gamma"},
    ]);
    assert_eq!(
        s.multi_edit_ok(&path, edits).await,
        format!(
            "Applied 2 edits to {path}, a new file:\n1. Replaced \"\" with \"alpha\nbeta\n\"\n2. Replaced \"beta\" with \"gamma\"\n{STATE_IS_CURRENT}"
        )
    );
    assert_eq!(s.bytes("new.txt"), b"alpha\ngamma\n");
    // A missing file with a non-empty first old_string is Edit's missing-file error.
    let missing = s.abs("missing.txt");
    let text = s.multi_edit_err(&missing, json!([{"old_string": "a", "new_string": "b"}])).await;
    assert!(text.starts_with("<tool_use_error>File does not exist."), "{text}");
    assert!(!s.path("missing.txt").exists());
}

#[tokio::test]
async fn the_output_data_lists_each_edit_and_the_whole_diff() {
    let s = Session::new();
    let path = reset_and_read(&s).await;
    let tool = agent_tool_multi_edit::tool();
    let input = json!({"file_path": path, "edits": [
        {"old_string": "port=3000", "new_string": "port=8080"},
        {"old_string": "0", "new_string": "9", "replace_all": "true"},
    ]});
    let done = call_tool(tool.as_ref(), "toolu_1", input, &s.ctx).await;
    assert!(!done.block.is_error, "{}", done.block.content.text());
    let data = done.data.unwrap().to_json();
    assert_eq!(data["filePath"], json!(path));
    assert_eq!(
        data["edits"],
        json!([
            {"oldString": "port=3000", "newString": "port=8080", "replaceAll": false, "replacements": 1},
            {"oldString": "0", "newString": "9", "replaceAll": true, "replacements": 7},
        ])
    );
    assert_eq!(data["originalFile"], json!("port=3000\nhost=0.0.0.0\ntimeout=10\n"));
    assert_eq!(data["userModified"], json!(false));
    assert_eq!(data["structuredPatch"][0]["lines"].as_array().unwrap().len(), 6);
    assert_eq!(s.bytes("server.conf"), b"port=8989\nhost=9.9.9.9\ntimeout=19\n");
}

#[test]
fn it_is_deferred_and_never_read_only() {
    let tool = agent_tool_multi_edit::tool();
    assert_eq!(tool.name(), "MultiEdit");
    assert!(tool.should_defer());
    assert!(agent_tools_core::is_deferred(tool.as_ref()));
    let parsed = tool.parse(json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}]})).unwrap();
    assert!(!tool.is_read_only(&parsed));
    assert!(!tool.is_concurrency_safe(&parsed));
}
