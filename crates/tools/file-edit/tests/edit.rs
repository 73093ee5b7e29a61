//! Edit on real files: Claude Code's recorded results (run in order on
//! one context as the oracle ran them), the failure modes users hit (CRLF files, tabs,
//! no-break spaces, curly quotes, several matches, staleness, legacy bytes, re-indenting, empty
//! files), deletions, trailing whitespace, mixed line endings and the output data, with the
//! exact bytes each leaves. (`tests/proptest.rs` drives Edit with generated files.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;

use agent_tools_testkit::Session;
use serde_json::{Value, json};

const STATE_IS_CURRENT: &str = "(file state is current in your context — no need to Read it back)";
const NOT_READ: &str =
    "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>";
const MODIFIED: &str = "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>";

/// Edit's calls in a testkit session.
trait EditSession {
    async fn read(&self, file_path: &str) -> String;
    async fn edit(&self, input: Value) -> (String, bool);
    async fn edit_ok(&self, input: Value) -> String;
    async fn edit_err(&self, input: Value) -> String;
}

impl EditSession for Session {
    async fn read(&self, file_path: &str) -> String {
        self.mark_read(file_path)
    }

    async fn edit(&self, input: Value) -> (String, bool) {
        self.run(agent_tool_file_edit::tool().as_ref(), input).await
    }

    async fn edit_ok(&self, input: Value) -> String {
        self.ok(agent_tool_file_edit::tool().as_ref(), input).await
    }

    async fn edit_err(&self, input: Value) -> String {
        self.err(agent_tool_file_edit::tool().as_ref(), input).await
    }
}

fn updated(path: &str) -> String {
    format!("The file {path} has been updated successfully. {STATE_IS_CURRENT}")
}

fn validation_error(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

// ----- the oracle, in its order on one context -----

#[tokio::test]
async fn oracle_edit_cases_in_order() {
    let s = Session::in_dir(agent_tools_testkit::oracle_fixture());

    // edit-unread-file: Claude Code's `mcp serve` edits it; we refuse (see peer/README.md).
    let unread = s.path("unread.txt").to_string_lossy().into_owned();
    assert_eq!(s.edit_err(json!({"file_path": unread, "old_string": "never", "new_string": "now"})).await, NOT_READ);
    assert_eq!(s.bytes("unread.txt"), b"never read\n");

    // edit.read, then edit-unique.
    let path = s.path("edit.txt").to_string_lossy().into_owned();
    assert_eq!(s.read(&path).await, "foo bar\nfoo baz\nqux\n");
    assert_eq!(s.edit_ok(json!({"file_path": path, "old_string": "qux", "new_string": "QUX"})).await, updated(&path));
    assert_eq!(s.bytes("edit.txt"), b"foo bar\nfoo baz\nQUX\n");

    // edit-non-unique: no Read in between (the edit refreshed the state).
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "foo", "new_string": "FOO"})).await,
        validation_error(
            "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: foo"
        )
    );
    assert_eq!(s.bytes("edit.txt"), b"foo bar\nfoo baz\nQUX\n");

    // edit-replace-all: Claude Code's "All occurrences were…", then the count.
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "foo", "new_string": "FOO", "replace_all": true})).await,
        format!(
            "The file {path} has been updated. All occurrences were successfully replaced. Replacements made: 2. {STATE_IS_CURRENT}"
        )
    );
    assert_eq!(s.bytes("edit.txt"), b"FOO bar\nFOO baz\nQUX\n");

    // edit-missing-old-string.
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "not present", "new_string": "x"})).await,
        validation_error("String to replace not found in file.\nString: not present")
    );

    // edit-old-equals-new.
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "QUX", "new_string": "QUX"})).await,
        validation_error("No changes to make: old_string and new_string are exactly the same.")
    );
    assert_eq!(s.bytes("edit.txt"), b"FOO bar\nFOO baz\nQUX\n");

    // edit-crlf.read, then edit-crlf.
    let crlf = s.path("crlf.txt").to_string_lossy().into_owned();
    assert_eq!(s.read(&crlf).await, "one\ntwo\nthree\n");
    assert_eq!(
        s.edit_ok(json!({"file_path": crlf, "old_string": "two\nthree", "new_string": "TWO\nTHREE"})).await,
        updated(&crlf)
    );
    assert_eq!(s.bytes("crlf.txt"), b"one\r\nTWO\r\nTHREE\r\n");
}

// ----- CRLF file, LF old_string -----

const SETTINGS: &[u8] = include_bytes!("fixtures/settings.txt");
const SETTINGS_EDITED: &[u8] = b"[server]\r\nhost = 0.0.0.0\r\nport = 9090\r\n\r\n[client]\r\nretries = 3\r\n";

#[tokio::test]
async fn case_001_crlf_file_matches_lf_and_crlf_old_strings() {
    let s = Session::new();
    let path = s.put("settings.txt", SETTINGS);
    // Step 1: no trailing \r in what the model sees.
    let shown = s.read(&path).await;
    assert!(shown.contains("host = localhost\nport = 8080\n"), "{shown}");
    assert!(!shown.contains('\r'));
    // Step 2: LF strings.
    s.edit_ok(json!({"file_path": path, "old_string": "host = localhost\nport = 8080", "new_string": "host = 0.0.0.0\nport = 9090"}))
        .await;
    assert_eq!(s.bytes("settings.txt"), SETTINGS_EDITED);
    // Step 3: reset, read again, CRLF in both strings.
    s.put("settings.txt", SETTINGS);
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "host = localhost\r\nport = 8080", "new_string": "host = 0.0.0.0\r\nport = 9090"}))
        .await;
    let bytes = s.bytes("settings.txt");
    assert_eq!(bytes, SETTINGS_EDITED);
    assert_eq!(bytes.iter().filter(|b| **b == b'\r').count(), 6);
    assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 6);
}

#[tokio::test]
async fn mixed_line_endings_outside_the_edit_are_left_alone() {
    let s = Session::new();
    // Mostly CRLF, one bare LF line, a lone CR, no final newline.
    let original: &[u8] = b"a\r\nb\nc\r\nd\re\r\nlast";
    let path = s.put("mixed.txt", original);
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "c\nd", "new_string": "C\nD"})).await;
    assert_eq!(s.bytes("mixed.txt"), b"a\r\nb\nC\r\nD\re\r\nlast");
    // An LF file with one CRLF line keeps it.
    let path = s.put("mostly-lf.txt", b"one\ntwo\r\nthree\nfour\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "three\n", "new_string": "3\n3b\n"})).await;
    assert_eq!(s.bytes("mostly-lf.txt"), b"one\ntwo\r\n3\n3b\nfour\n");
}

// ----- tabs are matched as tabs -----

#[tokio::test]
async fn case_003_tabs_match_tabs_and_spaces_do_not() {
    let original: &[u8] = include_bytes!("fixtures/render.go");
    let s = Session::new();
    let path = s.put("render.go", original);
    assert!(s.read(&path).await.contains("\n\t\tif it == \"\" {\n"));
    s.edit_ok(json!({"file_path": path, "old_string": "\t\tif it == \"\" {\n\t\t\tcontinue\n\t\t}", "new_string": "\t\tif strings.TrimSpace(it) == \"\" {\n\t\t\tcontinue\n\t\t}"}))
        .await;
    let expected = String::from_utf8(original.to_vec())
        .unwrap()
        .replace("\t\tif it == \"\" {", "\t\tif strings.TrimSpace(it) == \"\" {");
    assert_eq!(s.bytes("render.go"), expected.as_bytes());

    s.put("render.go", original);
    s.read(&path).await;
    let spaces = s
        .edit_err(json!({"file_path": path, "old_string": "        if it == \"\" {\n            continue\n        }", "new_string": "        if strings.TrimSpace(it) == \"\" {\n            continue\n        }"}))
        .await;
    assert!(spaces.starts_with("<tool_use_error>String to replace not found in file."), "{spaces}");
    assert_eq!(s.bytes("render.go"), original);
}

// ----- curly and straight quotes stay distinct -----

#[tokio::test]
async fn case_005_curly_and_straight_quotes_are_kept_byte_for_byte() {
    let s = Session::new();
    let messages = s.put("messages.txt", include_bytes!("fixtures/messages.txt"));
    let check = s.put("check.mjs", include_bytes!("fixtures/check.mjs"));
    s.read(&messages).await;
    s.read(&check).await;
    s.edit_ok(json!({"file_path": messages, "old_string": "'Hello %s'", "new_string": "\u{2018}Hello %s\u{2019}"}))
        .await;
    s.edit_ok(json!({"file_path": messages, "old_string": "We\u{2019}ll miss you", "new_string": "We\u{2019}ll really miss you"}))
        .await;
    assert_eq!(
        s.bytes("messages.txt"),
        "greeting = \u{2018}Hello %s\u{2019}\nfarewell = We\u{2019}ll really miss you, \u{201C}friend\u{201D}.\n"
            .as_bytes()
    );
    s.edit_ok(json!({"file_path": check, "old_string": "if (/^[\"'(]+the/i.test(s)) return false;", "new_string": "if (/^[\"'(]+(the|a)\\s/i.test(s)) return false;"}))
        .await;
    let bytes = s.bytes("check.mjs");
    assert!(bytes.is_ascii());
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "export function keep(s) {\n  if (/^[\"'(]+(the|a)\\s/i.test(s)) return false;\n  return true;\n}\n"
    );
}

#[tokio::test]
async fn straight_quotes_find_curly_text_and_keep_its_style() {
    let s = Session::new();
    let path = s.put("prose.txt", "She said \u{201C}wait\u{201D} and left.\n".as_bytes());
    s.read(&path).await;
    let text = s
        .edit_ok(json!({"file_path": path, "old_string": "said \"wait\"", "new_string": "said \"stop, it's late\""}))
        .await;
    assert_eq!(text, updated(&path));
    assert_eq!(s.bytes("prose.txt"), "She said \u{201C}stop, it's late\u{201D} and left.\n".as_bytes());
}

#[tokio::test]
async fn sanitised_tag_spellings_find_the_files_tags() {
    let s = Session::new();
    let path = s.put("prompt.txt", b"Wrap it in <name>x</name> and <result>y</result>.\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "<n>x</n>", "new_string": "<n>z</n>"})).await;
    assert_eq!(s.bytes("prompt.txt"), b"Wrap it in <name>z</name> and <result>y</result>.\n");
    // Found as written, a short tag is just text.
    let path = s.put("html.txt", b"<s>old</s>\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "<s>old</s>", "new_string": "<s>new</s>"})).await;
    assert_eq!(s.bytes("html.txt"), b"<s>new</s>\n");
}

// ----- a no-break space in the file, a plain space in old_string -----

#[tokio::test]
async fn case_004_no_break_spaces_match_plain_spaces_and_stay_elsewhere() {
    let s = Session::new();
    let path = s.put("notes.md", include_bytes!("fixtures/notes.md"));
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "the task list in current sprint", "new_string": "the backlog for the current sprint"}))
        .await;
    assert_eq!(
        s.bytes("notes.md"),
        "# Sprint notes\nStatus: the backlog for the current sprint is frozen.\nDistance: 10\u{202f}km\n".as_bytes()
    );
}

// ----- several matches -----

const STATS: &[u8] = include_bytes!("fixtures/stats.py");

#[tokio::test]
async fn case_007_ambiguous_old_string() {
    let s = Session::new();
    let path = s.put("stats.py", STATS);
    s.read(&path).await;
    let old = "            \"errors\": 0,\n";
    let new = "            \"errors\": 0,\n            \"retries\": 0,\n";
    // Step 1: refused, file byte-identical.
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": old, "new_string": new})).await,
        validation_error(&format!(
            "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old}"
        ))
    );
    assert_eq!(s.bytes("stats.py"), STATS);
    // Step 2: replace_all (sent as a string, as models sometimes do); the result reports 2.
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": "true"})).await,
        format!(
            "The file {path} has been updated. All occurrences were successfully replaced. Replacements made: 2. {STATE_IS_CURRENT}"
        )
    );
    let after = String::from_utf8(s.bytes("stats.py")).unwrap();
    assert_eq!(after, String::from_utf8(STATS.to_vec()).unwrap().replace(old, new));
    assert_eq!(after.lines().count(), 13);
    assert_eq!(after.matches("\"retries\": 0,").count(), 2);
    // Step 3: reset, read, more context picks the second block only.
    s.put("stats.py", STATS);
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "\"name\": black.name,\n            \"errors\": 0,", "new_string": "\"name\": black.name,\n            \"errors\": 1,"}))
        .await;
    let after = String::from_utf8(s.bytes("stats.py")).unwrap();
    let lines: Vec<&str> = after.lines().collect();
    assert_eq!(lines[4], "            \"errors\": 0,");
    assert_eq!(lines[8], "            \"errors\": 1,");
    assert_eq!(
        after,
        String::from_utf8(STATS.to_vec()).unwrap().replacen(
            "\"errors\": 0,\n        },\n    }",
            "\"errors\": 1,\n        },\n    }",
            1
        )
    );
    // Step 4: no changes.
    let before = s.bytes("stats.py");
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "return {", "new_string": "return {"})).await,
        validation_error("No changes to make: old_string and new_string are exactly the same.")
    );
    assert_eq!(s.bytes("stats.py"), before);
}

#[tokio::test]
async fn replace_all_rejects_non_boolean_strings() {
    let s = Session::new();
    let path = s.put("f.txt", b"a a\n");
    s.read(&path).await;
    let text = s.edit_err(json!({"file_path": path, "old_string": "a", "new_string": "b", "replace_all": "yes"})).await;
    assert!(text.starts_with("<tool_use_error>InputValidationError: "), "{text}");
    assert_eq!(s.bytes("f.txt"), b"a a\n");
    s.edit_ok(json!({"file_path": path, "old_string": "a a", "new_string": "b", "replace_all": "false"})).await;
    assert_eq!(s.bytes("f.txt"), b"b\n");
}

#[tokio::test]
async fn matches_are_literal_and_do_not_overlap() {
    let s = Session::new();
    let path = s.put("f.txt", b"aaaa $1 (x)\n");
    s.read(&path).await;
    assert!(
        s.edit_err(json!({"file_path": path, "old_string": "aa", "new_string": "b"}))
            .await
            .starts_with("<tool_use_error>Found 2 matches")
    );
    s.edit_ok(json!({"file_path": path, "old_string": "aa", "new_string": "$1$&", "replace_all": true})).await;
    assert_eq!(s.bytes("f.txt"), b"$1$&$1$& $1 (x)\n");
    s.edit_ok(json!({"file_path": path, "old_string": "(x)", "new_string": "[.*]"})).await;
    assert_eq!(s.bytes("f.txt"), b"$1$&$1$& $1 [.*]\n");
}

// ----- staleness by content, not by timestamp -----

#[tokio::test]
async fn case_009_false_alarms_do_not_happen() {
    let s = Session::new();
    let edit = |path: &str| json!({"file_path": path, "old_string": "beta", "new_string": "gamma"});
    // A1: created outside (as by Bash), read, edited.
    let path = s.put("log.md", include_bytes!("fixtures/log.md"));
    s.read(&path).await;
    assert_eq!(s.edit_ok(edit(&path)).await, updated(&path));
    assert_eq!(s.bytes("log.md"), b"alpha\ngamma\n");
    // A2: reset, read, touch into the future: the content did not change.
    s.put("log.md", b"alpha\nbeta\n");
    s.read(&path).await;
    filetime::set_file_mtime(s.path("log.md"), filetime::FileTime::from_unix_time(1_893_456_000, 0)).unwrap();
    assert_eq!(s.edit_ok(edit(&path)).await, updated(&path));
    assert_eq!(s.bytes("log.md"), b"alpha\ngamma\n");
}

#[tokio::test]
async fn case_009_real_changes_are_caught() {
    let s = Session::new();
    let path = s.put("log.md", b"alpha\nbeta\n");
    s.read(&path).await;
    // B3: changed outside after the read (same second, even the same millisecond: the content
    // decides).
    s.put("log.md", b"alpha\nBETA-external\n");
    assert_eq!(s.edit_err(json!({"file_path": path, "old_string": "beta", "new_string": "gamma"})).await, MODIFIED);
    assert_eq!(s.bytes("log.md"), b"alpha\nBETA-external\n");
    // An old_string that still matches is replaced in the file as it is now, keeping the
    // outside change, and the result says the file had changed (Claude Code 2.1's rule).
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "alpha", "new_string": "ALPHA"})).await,
        format!("The file {path} has been updated successfully. {}", agent_tools_files::edit::CHANGED_SINCE_READ)
    );
    assert_eq!(s.bytes("log.md"), b"ALPHA\nBETA-external\n");
    // The model has not seen the whole file since: the next edit claims nothing about it.
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "ALPHA", "new_string": "alpha"})).await,
        format!("The file {path} has been updated successfully.")
    );
    // (B4, the Write without reading again, is in the Write crate's tests.)
    // B5: read again, then the edit goes through.
    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "BETA-external", "new_string": "gamma"})).await,
        updated(&path)
    );
    assert_eq!(s.bytes("log.md"), b"alpha\ngamma\n");
}

#[tokio::test]
async fn case_009_never_read_is_refused() {
    let s = Session::new();
    let path = s.put("fresh.md", b"x\n");
    assert_eq!(s.edit_err(json!({"file_path": path, "old_string": "x", "new_string": "y"})).await, NOT_READ);
    assert_eq!(s.bytes("fresh.md"), b"x\n");
}

#[tokio::test]
async fn a_read_through_another_spelling_of_the_path_counts() {
    let s = Session::new();
    let path = s.put("dir/log.md", b"alpha\nbeta\n");
    let dotted = s.dir.path().join("dir/./log.md").to_string_lossy().into_owned();
    s.read(&dotted).await;
    s.edit_ok(json!({"file_path": path, "old_string": "beta", "new_string": "gamma"})).await;
    #[cfg(unix)]
    {
        let link = s.path("link.md");
        std::os::unix::fs::symlink(s.path("dir/log.md"), &link).unwrap();
        // The state written through the real path counts for the link, and the link survives.
        s.edit_ok(json!({"file_path": link, "old_string": "gamma", "new_string": "delta"})).await;
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(s.bytes("dir/log.md"), b"alpha\ndelta\n");
    }
}

#[tokio::test]
async fn a_partial_read_counts_as_a_read() {
    let s = Session::new();
    let path = s.put("long.txt", b"1\n2\n3\n4\n");
    assert_eq!(s.mark_read_lines(&path, Some((3, 1))), "3");
    // Claude Code's `read-partial-then-edit`: an edit outside the range read, with no note (the
    // model has seen part of the file).
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "4\n", "new_string": "four\n"})).await,
        format!("The file {path} has been updated successfully.")
    );
    assert_eq!(s.bytes("long.txt"), b"1\n2\n3\nfour\n");
}

/// Claude Code's `edit-after-external-change`, `edit-after-bash-change` and
/// `edit-after-external-change-conflict` (peer `cc-loop-results.json`): a file changed on disk
/// since its Read is edited when `old_string` still matches, with a note; refused as modified
/// when the change removed the text; and after a new Read the note is the usual one.
#[tokio::test]
async fn an_outside_change_is_kept_and_noted_or_refused_when_it_took_the_text() {
    let s = Session::new();
    let path = s.put("f.txt", b"alpha\nbeta\ngamma\n");
    s.read(&path).await;
    s.put("f.txt", b"alpha\nbeta\ngamma\nappended\n");
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "beta", "new_string": "BETA"})).await,
        format!("The file {path} has been updated successfully. {}", agent_tools_files::edit::CHANGED_SINCE_READ)
    );
    assert_eq!(s.bytes("f.txt"), b"alpha\nBETA\ngamma\nappended\n");
    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "gamma", "new_string": "GAMMA"})).await,
        updated(&path)
    );
    // The conflict: the outside change rewrote the very text.
    s.put("f.txt", b"alpha\nBeta changed\ngamma\n");
    assert_eq!(s.edit_err(json!({"file_path": path, "old_string": "BETA", "new_string": "beta"})).await, MODIFIED);
    assert_eq!(s.bytes("f.txt"), b"alpha\nBeta changed\ngamma\n");
}

#[tokio::test]
async fn a_second_edit_needs_no_new_read() {
    let s = Session::new();
    let path = s.put("f.txt", b"one\ntwo\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "one", "new_string": "1"})).await;
    s.edit_ok(json!({"file_path": path, "old_string": "two", "new_string": "2"})).await;
    assert_eq!(s.bytes("f.txt"), b"1\n2\n");
}

#[tokio::test]
async fn a_change_between_validation_and_call_is_not_lost() {
    let s = Session::new();
    let path = s.put("f.txt", b"one\ntwo\n");
    s.read(&path).await;
    let tool = agent_tool_file_edit::tool();
    let parsed = tool.parse(json!({"file_path": path, "old_string": "one", "new_string": "1"})).unwrap();
    assert!(tool.validate_input(&parsed, &s.ctx).await.is_ok());
    s.put("f.txt", b"one\ntwo\nexternal\n");
    // `old_string` still matches: the edit is made on the file as it is now, and says so.
    let done = tool.call(parsed, &s.ctx).await.unwrap();
    assert_eq!(
        done.data.block.content.text(),
        format!("The file {path} has been updated successfully. {}", agent_tools_files::edit::CHANGED_SINCE_READ)
    );
    assert_eq!(s.bytes("f.txt"), b"1\ntwo\nexternal\n");
    // A change that takes the text away is refused as a change.
    s.put("f.txt", b"ONE\n");
    let parsed = tool.parse(json!({"file_path": path, "old_string": "two", "new_string": "2"})).unwrap();
    let error = tool.call(parsed, &s.ctx).await.unwrap_err();
    assert_eq!(error.to_string(), "File has been unexpectedly modified. Read it again before attempting to write it.");
    assert_eq!(s.bytes("f.txt"), b"ONE\n");
}

// ----- legacy bytes elsewhere in the file -----

#[tokio::test]
async fn case_010_windows_1252_bytes_survive_an_edit() {
    let original: &[u8] = include_bytes!("fixtures/legacy.pas");
    let s = Session::new();
    let path = s.put("legacy.pas", original);
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "const Price = 10;", "new_string": "const Price = 12;"})).await;
    let after = s.bytes("legacy.pas");
    assert_eq!(after.len(), original.len());
    assert_eq!(after.iter().zip(original).filter(|(a, b)| a != b).count(), 1);
    assert!(!after.windows(3).any(|w| w == b"\xef\xbf\xbd"));
    // Step 3: the model's 'ã' is the file's byte E3, and 'õ' goes back as F5.
    s.edit_ok(json!({"file_path": path, "old_string": "'Bot\u{e3}o'", "new_string": "'Bot\u{f5}es'"})).await;
    assert_eq!(
        s.bytes("legacy.pas"),
        b"// Configura\xe7\xe3o principal\nconst Title = 'Bot\xf5es';\nconst Mark = 'Acme\x99';\nconst Price = 12;\n"
    );
    // A character Windows-1252 lacks is refused, not corrupted.
    let before = s.bytes("legacy.pas");
    let text = s.edit_err(json!({"file_path": path, "old_string": "Price", "new_string": "\u{4ef7}\u{683c}"})).await;
    assert!(text.contains("is saved as Windows-1252, which has no character U+4EF7"), "{text}");
    assert_eq!(s.bytes("legacy.pas"), before);
}

#[tokio::test]
async fn utf16_and_bom_files_keep_their_encoding() {
    let s = Session::new();
    let utf16: Vec<u8> =
        [&[0xFF, 0xFE][..], &"h\u{e9}llo\r\nworld\r\n".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>()]
            .concat();
    let path = s.put("wide.txt", &utf16);
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "world\n", "new_string": "w\u{f6}rld\nmore\n"})).await;
    let expected: Vec<u8> = [
        &[0xFF, 0xFE][..],
        &"h\u{e9}llo\r\nw\u{f6}rld\r\nmore\r\n".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>(),
    ]
    .concat();
    assert_eq!(s.bytes("wide.txt"), expected);

    let path = s.put("bom.txt", b"\xef\xbb\xbfone\ntwo\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "two", "new_string": "2"})).await;
    assert_eq!(s.bytes("bom.txt"), b"\xef\xbb\xbfone\n2\n");
}

// ----- new_string goes in verbatim -----

#[tokio::test]
async fn case_012_new_string_is_not_reindented() {
    let s = Session::new();
    let path = s.put("panel.py", include_bytes!("fixtures/panel.py"));
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "self.width = 10\n        self.height = 20", "new_string": "self.width = 11\n        self.height = 21"}))
        .await;
    s.edit_ok(json!({"file_path": path, "old_string": "        self.color = \"red\"\n", "new_string": "        self.color = \"blue\"\n        self.border = 1\n"}))
        .await;
    assert_eq!(
        String::from_utf8(s.bytes("panel.py")).unwrap(),
        "class Panel:\n    def refresh(self):\n        self.title = \"x\"\n        self.width = 11\n        self.height = 21\n        self.color = \"blue\"\n        self.border = 1\n"
    );
}

// ----- empty file, no final newline -----

#[tokio::test]
async fn case_020_fill_an_empty_file_and_keep_a_missing_final_newline() {
    let s = Session::new();
    let empty = s.put("empty.txt", include_bytes!("fixtures/empty.txt"));
    let nofinal = s.put("nofinal.txt", include_bytes!("fixtures/nofinal.txt"));
    assert_eq!(s.read(&empty).await, "");
    assert_eq!(s.read(&nofinal).await, "last line without newline");
    // Step 4.
    assert_eq!(
        s.edit_ok(json!({"file_path": empty, "old_string": "", "new_string": "hello\n"})).await,
        updated(&empty)
    );
    assert_eq!(s.bytes("empty.txt"), b"hello\n");
    // Step 5.
    s.edit_ok(json!({"file_path": nofinal, "old_string": "newline", "new_string": "final newline"})).await;
    assert_eq!(s.bytes("nofinal.txt"), b"last line without final newline");
}

#[tokio::test]
async fn an_empty_old_string_creates_a_missing_file_but_not_over_content() {
    let s = Session::new();
    let path = s.path("new/dir/made.txt").to_string_lossy().into_owned();
    assert_eq!(
        s.edit_ok(json!({"file_path": path, "old_string": "", "new_string": "a\r\nb\n"})).await,
        format!("File created successfully at: {path} {STATE_IS_CURRENT}")
    );
    assert_eq!(s.bytes("new/dir/made.txt"), b"a\r\nb\n");
    // It now has content: an empty old_string is refused.
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "", "new_string": "x"})).await,
        validation_error("Cannot create new file - file already exists.")
    );
    // And the state is current: an edit needs no Read.
    s.edit_ok(json!({"file_path": path, "old_string": "b", "new_string": "B"})).await;
    assert_eq!(s.bytes("new/dir/made.txt"), b"a\r\nB\n");
}

// ----- deletions -----

#[tokio::test]
async fn deleting_a_line_leaves_no_blank_line_and_deleting_a_tail_joins_nothing() {
    let s = Session::new();
    let path = s.put("f.py", b"a = 1  # note\nremove_me()\nb = 2\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "remove_me()", "new_string": ""})).await;
    assert_eq!(s.bytes("f.py"), b"a = 1  # note\nb = 2\n");
    s.edit_ok(json!({"file_path": path, "old_string": "  # note", "new_string": ""})).await;
    assert_eq!(s.bytes("f.py"), b"a = 1\nb = 2\n");
    // CRLF: the whole \r\n goes with the line.
    let path = s.put("w.txt", b"keep\r\ndrop\r\nkeep too\r\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "drop", "new_string": ""})).await;
    assert_eq!(s.bytes("w.txt"), b"keep\r\nkeep too\r\n");
}

#[tokio::test]
async fn deleting_an_indented_line_removes_it_with_its_indentation() {
    let s = Session::new();
    let path = s.put("f.py", b"if x:\n    foo()\n    bar()\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "foo()", "new_string": ""})).await;
    assert_eq!(s.bytes("f.py"), b"if x:\n    bar()\n");
    // Every occurrence, each on its own line: the lines go; one with other text keeps its line.
    let path = s.put("g.py", b"log()\nx = 1\n    log()\ny = 2  # log()\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "log()", "new_string": "", "replace_all": true})).await;
    assert_eq!(s.bytes("g.py"), b"x = 1\ny = 2  # \n");
    // An old_string with its own line break is taken as it is.
    let path = s.put("h.txt", b"a\nb\nc\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "\nb", "new_string": ""})).await;
    assert_eq!(s.bytes("h.txt"), b"a\nc\n");
}

// ----- trailing whitespace -----

#[tokio::test]
async fn trailing_whitespace_goes_from_new_lines_but_not_from_copied_ones_or_markdown() {
    let s = Session::new();
    let path = s.put("app.py", b"def f():\n    x = 1  \n    return x\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "    x = 1  \n    return x", "new_string": "    x = 1  \n    \n    y = 2 \t\n    return x + y  "}))
        .await;
    // The line copied from the file keeps its spaces; the blank line and new lines lose theirs.
    assert_eq!(s.bytes("app.py"), b"def f():\n    x = 1  \n\n    y = 2\n    return x + y\n");
    // In the middle of a line, the end of new_string is not a line end.
    let path = s.put("calc.py", b"a = 1  + 2\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "1  ", "new_string": "3  "})).await;
    assert_eq!(s.bytes("calc.py"), b"a = 3  + 2\n");
    // Markdown: two trailing spaces are a line break.
    let path = s.put("notes.md", b"one\ntwo\n");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "one\n", "new_string": "one  \nand a half  \n"})).await;
    assert_eq!(s.bytes("notes.md"), b"one  \nand a half  \ntwo\n");
    // A file made by Edit too.
    let made = s.abs("made.txt");
    s.edit_ok(json!({"file_path": made, "old_string": "", "new_string": "a \nb\t"})).await;
    assert_eq!(s.bytes("made.txt"), b"a\nb");
}

// ----- mixed line endings -----

#[tokio::test]
async fn added_lines_take_the_ending_of_the_lines_around_them() {
    let s = Session::new();
    let original: &[u8] = b"first\nsecond\nwin one\r\nwin two\r\nlast\n";
    let path = s.put("mixed.txt", original);
    s.read(&path).await;
    // Inside the CRLF block: CRLF.
    s.edit_ok(json!({"file_path": path, "old_string": "win one", "new_string": "win one\nwin one and a half"})).await;
    assert_eq!(s.bytes("mixed.txt"), b"first\nsecond\nwin one\r\nwin one and a half\r\nwin two\r\nlast\n");
    // In the LF part: LF.
    s.edit_ok(json!({"file_path": path, "old_string": "first", "new_string": "first\nfirst b"})).await;
    assert_eq!(s.bytes("mixed.txt"), b"first\nfirst b\nsecond\nwin one\r\nwin one and a half\r\nwin two\r\nlast\n");
    // Across the border, the replaced line breaks decide (here the CRLF ending "win two").
    s.edit_ok(json!({"file_path": path, "old_string": "win two\nlast", "new_string": "X\nY\nZ"})).await;
    assert_eq!(s.bytes("mixed.txt"), b"first\nfirst b\nsecond\nwin one\r\nwin one and a half\r\nX\r\nY\r\nZ\n");
    // The last line, no line break after it: the one before decides.
    let path = s.put("tail.txt", b"a\nb\r\nc");
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "c", "new_string": "c\nd"})).await;
    assert_eq!(s.bytes("tail.txt"), b"a\nb\r\nc\r\nd");
}

// ----- output data -----

#[tokio::test]
async fn output_data_carries_the_structured_patch() {
    let s = Session::new();
    let path = s.put("f.txt", b"a\r\nb\r\nc\r\n");
    s.read(&path).await;
    let done = agent_tools_core::call_tool(
        agent_tool_file_edit::tool().as_ref(),
        "toolu_1",
        json!({"file_path": path, "old_string": "b", "new_string": "B\nB2"}),
        &s.ctx,
    )
    .await;
    assert!(!done.block.is_error);
    assert_eq!(
        done.data.unwrap().to_json(),
        json!({
            "filePath": path,
            "oldString": "b",
            "newString": "B\nB2",
            "originalFile": "a\nb\nc\n",
            "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 4, "lines": [" a", "-b", "+B", "+B2", " c"]}],
            "userModified": false,
            "replaceAll": false
        })
    );
}

// ----- refusals -----

#[tokio::test]
async fn missing_files_folders_notebooks_and_binaries_are_refused() {
    let s = Session::new();
    let missing = s.path("nope.txt").to_string_lossy().into_owned();
    assert_eq!(
        s.edit_err(json!({"file_path": missing, "old_string": "a", "new_string": "b"})).await,
        validation_error(&format!(
            "File does not exist. Note: your current working directory is {}.",
            s.dir.path().display()
        ))
    );
    assert!(!s.path("nope.txt").exists());

    let folder = s.path("sub");
    fs::create_dir(&folder).unwrap();
    assert_eq!(
        s.edit_err(json!({"file_path": folder, "old_string": "a", "new_string": "b"})).await,
        validation_error(&format!("EISDIR: illegal operation on a directory, open '{}'", folder.display()))
    );

    let notebook = s.put("nb.ipynb", b"{\"cells\": []}\n");
    assert_eq!(
        s.edit_err(json!({"file_path": notebook, "old_string": "cells", "new_string": "x"})).await,
        validation_error("File is a Jupyter Notebook. Use the NotebookEdit to edit this file.")
    );

    let binary = s.put("blob.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00");
    let text = s.edit_err(json!({"file_path": binary, "old_string": "ELF", "new_string": "FLE"})).await;
    assert_eq!(
        text,
        validation_error(&format!(
            "This tool cannot edit binary files, and {binary} holds binary data. Use a command or script that understands its format."
        ))
    );
    assert_eq!(s.bytes("blob.bin"), b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00");
}

#[tokio::test]
async fn an_edit_that_changes_nothing_is_refused() {
    let s = Session::new();
    let path = s.put("w.txt", b"a\r\nb\r\n");
    s.read(&path).await;
    // Different strings, same text once line endings are normalised.
    assert_eq!(
        s.edit_err(json!({"file_path": path, "old_string": "a\r\nb", "new_string": "a\nb"})).await,
        validation_error("Original and edited file match exactly. Failed to apply edit.")
    );
    assert_eq!(s.bytes("w.txt"), b"a\r\nb\r\n");
}

// ----- atomic writes -----

#[cfg(unix)]
#[tokio::test]
async fn the_file_mode_survives_an_edit() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Session::new();
    let path = s.put("run.sh", b"#!/bin/sh\necho one\n");
    fs::set_permissions(s.path("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    s.read(&path).await;
    s.edit_ok(json!({"file_path": path, "old_string": "one", "new_string": "two"})).await;
    assert_eq!(fs::metadata(s.path("run.sh")).unwrap().permissions().mode() & 0o7777, 0o755);
    assert_eq!(s.bytes("run.sh"), b"#!/bin/sh\necho two\n");
    let leftovers: Vec<_> = fs::read_dir(s.dir.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[cfg(unix)]
#[tokio::test]
async fn a_failed_write_leaves_the_original_and_reports_an_error() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Session::new();
    let path = s.put("locked/f.txt", b"original\n");
    s.read(&path).await;
    let locked = s.path("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // A privileged process (root) may write in a read-only folder anyway.
    let privileged = fs::write(locked.join("probe"), b"").is_ok();
    let _ = fs::remove_file(locked.join("probe"));
    let (text, is_error) = s.edit(json!({"file_path": path, "old_string": "original", "new_string": "changed"})).await;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        assert!(!is_error, "{text}");
        assert_eq!(s.bytes("locked/f.txt"), b"changed\n");
    } else {
        assert!(is_error);
        assert!(text.starts_with(&format!("Cannot write {path}: ")), "{text}");
        assert!(text.ends_with(". The file was not changed."), "{text}");
        assert_eq!(s.bytes("locked/f.txt"), b"original\n");
    }
}

// ----- contract -----

#[test]
fn contract_flags_and_schema() {
    let tool = agent_tool_file_edit::tool();
    assert_eq!(tool.name(), "Edit");
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(100_000));
    assert_eq!(
        tool.flags(),
        agent_tools_core::ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false }
    );
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["file_path", "old_string", "new_string"]));
    assert_eq!(schema["properties"]["replace_all"]["type"], "boolean");
    assert_eq!(schema["properties"]["replace_all"]["default"], false);
    assert_eq!(schema["additionalProperties"], false);
    let parsed = tool.parse(json!({"file_path": "/x", "old_string": "a", "new_string": "b"})).unwrap();
    assert!(!tool.is_read_only(&parsed));
    assert!(!tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("/x"));
    assert!(tool.parse(json!({"file_path": "/x", "old_string": "a"})).is_err());
}
