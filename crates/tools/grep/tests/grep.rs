//! Grep on real folders: Claude Code's recorded results and the failure
//! modes users hit: a stray NUL byte, context lines verbatim, brace globs, regex metacharacters
//! and multiline patterns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools_core::MaxResultSize;
use agent_tools_core::call_tool;
use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
use agent_tools_core::{PermissionResult, Tool, ToolPermissionContext, ToolUseContext};
use agent_tools_testkit::{touch, write};
use serde_json::{Value, json};

/// The oracle fixture (shared by every tool crate's tests).
fn oracle_fixture() -> tempfile::TempDir {
    agent_tools_testkit::oracle_fixture()
}

/// Runs Grep with the working directory `cwd`; returns the result text and whether it is an error.
async fn run(cwd: &Path, input: Value) -> (String, bool) {
    run_with(agent_tool_grep::tool().as_ref(), &ToolUseContext::new(cwd), input).await
}

async fn run_with(tool: &dyn Tool, ctx: &ToolUseContext, input: Value) -> (String, bool) {
    agent_tools_testkit::run(tool, ctx, input).await
}

/// Runs Grep and expects a successful result.
async fn grep(cwd: &Path, input: Value) -> String {
    let (text, is_error) = run(cwd, input).await;
    assert!(!is_error, "unexpected error: {text}");
    text
}

/// Runs Grep and expects an error result.
async fn grep_error(cwd: &Path, input: Value) -> String {
    let (text, is_error) = run(cwd, input).await;
    assert!(is_error, "expected an error, got: {text}");
    text
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

/// The oracle's input with `{{FIX}}` replaced by the fixture folder.
fn oracle_input(root: &Path, input: Value) -> Value {
    let text = input.to_string().replace("{{FIX}}", &root.display().to_string());
    serde_json::from_str(&text).unwrap()
}

// ----- the oracle: Claude Code's recorded results -----

/// `(id, input, expected text)` for every `grep-*` case but `grep-invalid-regex` and
/// `grep-long-line`, which differ on purpose (tests below).
fn oracle_cases() -> Vec<(&'static str, Value, &'static str)> {
    let p = "{{FIX}}/proj";
    vec![
        (
            "grep-files-with-matches",
            json!({"pattern": "helper", "path": p}),
            "Found 5 files\nproj/src/main.rs\nproj/src/lib.rs\nproj/scripts/util.py\nproj/docs/guide.md\nproj/README.md",
        ),
        (
            "grep-content",
            json!({"pattern": "helper", "path": p, "output_mode": "content"}),
            "proj/README.md:2:A helper project.\nproj/docs/guide.md:3:Use `helper()` here.\nproj/scripts/util.py:3:def helper():\nproj/src/lib.rs:7:pub fn helper() {}\nproj/src/main.rs:3:    helper();",
        ),
        (
            "grep-count",
            json!({"pattern": "helper", "path": p, "output_mode": "count"}),
            "proj/README.md:1\nproj/docs/guide.md:1\nproj/scripts/util.py:1\nproj/src/lib.rs:1\nproj/src/main.rs:1\n\nFound 5 total occurrences across 5 files.",
        ),
        (
            "grep-case-insensitive",
            json!({"pattern": "todo", "path": p, "-i": true, "output_mode": "content"}),
            "proj/docs/guide.md:4:TODO: more docs\nproj/scripts/run.py:2:    print('hello')  # TODO\nproj/src/lib.rs:1:// TODO: document\nproj/src/util/mod.rs:4:// todo lower",
        ),
        (
            "grep-no-line-numbers",
            json!({"pattern": "TODO", "path": p, "-n": false, "output_mode": "content"}),
            "proj/docs/guide.md:TODO: more docs\nproj/scripts/run.py:    print('hello')  # TODO\nproj/src/lib.rs:// TODO: document",
        ),
        (
            "grep-context-A-B",
            json!({"pattern": "struct Foo", "path": p, "output_mode": "content", "-A": 1, "-B": 1}),
            "proj/src/lib.rs-1-// TODO: document\nproj/src/lib.rs:2:pub struct Foo {\nproj/src/lib.rs-3-    a: i32,",
        ),
        (
            "grep-context-C",
            json!({"pattern": "42", "path": p, "output_mode": "content", "-C": 1}),
            "proj/src/util/mod.rs-1-pub fn util_fn() -> u32 {\nproj/src/util/mod.rs:2:    42\nproj/src/util/mod.rs-3-}",
        ),
        (
            "grep-only-matching",
            json!({"pattern": "hel+o", "path": p, "output_mode": "content", "-o": true}),
            "proj/scripts/run.py:2:hello",
        ),
        (
            "grep-glob-filter",
            json!({"pattern": "def ", "path": p, "glob": "*.py", "output_mode": "content"}),
            "proj/scripts/run.py:1:def main():\nproj/scripts/util.py:3:def helper():",
        ),
        (
            "grep-type-filter",
            json!({"pattern": "fn", "path": p, "type": "rust"}),
            "Found 3 files\nproj/src/util/mod.rs\nproj/src/main.rs\nproj/src/lib.rs",
        ),
        (
            "grep-head-limit",
            json!({"pattern": "e", "path": p, "output_mode": "content", "head_limit": 3}),
            "proj/README.md:2:A helper project.\nproj/docs/guide.md:1:# Guide\nproj/docs/guide.md:3:Use `helper()` here.\n\n[Showing results with pagination = limit: 3]",
        ),
        (
            "grep-offset-head-limit",
            json!({"pattern": "e", "path": p, "offset": 1, "head_limit": 2}),
            "Found 2 files limit: 2, offset: 1\nproj/src/main.rs\nproj/src/lib.rs",
        ),
        (
            "grep-multiline",
            json!({"pattern": "struct Foo \\{[\\s\\S]*?\\}", "path": p, "multiline": true, "output_mode": "content"}),
            "proj/src/lib.rs:2:pub struct Foo {\nproj/src/lib.rs:3:    a: i32,\nproj/src/lib.rs:4:    b: i32,\nproj/src/lib.rs:5:}",
        ),
        (
            "grep-single-file",
            json!({"pattern": "print", "path": "{{FIX}}/proj/scripts/run.py", "output_mode": "content"}),
            "2:    print('hello')  # TODO",
        ),
        ("grep-no-match", json!({"pattern": "zzz_not_there", "path": p}), "No files found"),
    ]
}

#[tokio::test]
async fn oracle_cases_match_claude_code_byte_for_byte() {
    let dir = oracle_fixture();
    for (id, input, expected) in oracle_cases() {
        let (text, is_error) = run(dir.path(), oracle_input(dir.path(), input)).await;
        assert!(!is_error, "{id}: unexpected error: {text}");
        assert_eq!(text, expected, "{id}");
    }
}

#[tokio::test]
async fn oracle_invalid_regex_is_an_error_quoting_the_parser() {
    let dir = oracle_fixture();
    let input = oracle_input(dir.path(), json!({"pattern": "foo(", "path": "{{FIX}}/proj"}));
    let text = grep_error(dir.path(), input).await;
    assert!(text.starts_with("Search failed — the pattern is not a valid regular expression:\n"), "{text}");
    assert!(text.contains("unclosed group"), "{text}");
    assert!(!text.contains("<tool_use_error>"), "call errors are not wrapped: {text}");
}

/// The oracle's `grep-long-line`: Claude Code shows `2:[Omitted long matching line]`, hiding the
/// match; we show a window of it and say how much was left out.
#[tokio::test]
async fn oracle_long_line_is_shown_as_a_window_not_hidden() {
    let dir = oracle_fixture();
    let input = oracle_input(
        dir.path(),
        json!({"pattern": "x{10}|last", "path": "{{FIX}}/long-line.txt", "output_mode": "content"}),
    );
    let text = grep(dir.path(), input).await;
    assert_eq!(text, format!("2:{} [2000 chars after …]\n3:last line", "x".repeat(500)));
}

#[tokio::test]
async fn a_long_line_is_cut_around_its_match_and_long_context_lines_are_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let long = format!("{}NEEDLE{}", "a".repeat(1200), "z".repeat(3000));
    write(w, "min.js", format!("{}\n{long}\nshort NEEDLE\n", "c".repeat(800)));
    let input = json!({"pattern": "NEEDLE", "path": w.join("min.js"), "output_mode": "content", "-B": 1});
    let text = grep(w, input).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "1-[Omitted long context line]");
    let expected = format!("2:[… 953 chars before] {}NEEDLE{} [2753 chars after …]", "a".repeat(247), "z".repeat(247));
    assert_eq!(lines[1], expected);
    assert_eq!(lines[2], "3:short NEEDLE");
    // With -o the match itself is shown; a match longer than the limit is cut after it.
    let input = json!({"pattern": "z+", "path": w.join("min.js"), "output_mode": "content", "-o": true});
    assert_eq!(grep(w, input).await, format!("2:{} [2500 chars after …]", "z".repeat(500)));
}

// ----- a text file with a stray NUL byte -----

fn case_025_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "nultest.ts", include_bytes!("fixtures/nultest.ts"));
    write(dir.path(), "clean.ts", include_bytes!("fixtures/clean.ts"));
    touch(dir.path(), "clean.ts", 1_704_067_200);
    touch(dir.path(), "nultest.ts", 1_704_067_260);
    dir
}

#[tokio::test]
async fn case_025_step_1_both_files_are_listed() {
    let dir = case_025_fixture();
    let w = dir.path();
    let text = grep(w, json!({"pattern": "SIGNATURE_TOKEN", "path": w, "output_mode": "files_with_matches"})).await;
    assert_eq!(text, "Found 2 files\nnultest.ts\nclean.ts");
}

#[tokio::test]
async fn case_025_step_2_lines_are_shown_with_the_nul_escaped() {
    let dir = case_025_fixture();
    let w = dir.path();
    let input =
        json!({"pattern": "SIGNATURE_TOKEN", "path": w.join("nultest.ts"), "output_mode": "content", "-n": true});
    let text = grep(w, input).await;
    assert_eq!(text, "1:hello SIGNATURE_TOKEN here\\0more text\n2:second line SIGNATURE_TOKEN");
    assert!(!text.contains('\0'));
}

#[tokio::test]
async fn case_025_step_3_counts_include_the_nul_file() {
    let dir = case_025_fixture();
    let w = dir.path();
    let text = grep(w, json!({"pattern": "SIGNATURE_TOKEN", "path": w, "output_mode": "count"})).await;
    assert_eq!(text, "clean.ts:1\nnultest.ts:2\n\nFound 3 total occurrences across 2 files.");
}

#[tokio::test]
async fn real_binary_files_are_skipped_in_folder_searches() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let mut elf = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
    elf.extend_from_slice(b"NEEDLE\x00\x00\x01\x02");
    write(w, "tool.bin", &elf);
    write(w, "notes.txt", "NEEDLE\n");
    assert_eq!(grep(w, json!({"pattern": "NEEDLE"})).await, "Found 1 file\nnotes.txt");
}

#[tokio::test]
async fn utf16_files_with_a_bom_are_searched_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "first\nfind NEEDLE here\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    write(w, "wide.txt", &bytes);
    assert_eq!(grep(w, json!({"pattern": "NEEDLE", "output_mode": "content"})).await, "wide.txt:2:find NEEDLE here");
}

// ----- context lines verbatim, groups merged -----

fn case_027_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "probe.css", include_bytes!("fixtures/probe.css"));
    write(dir.path(), "a-1.txt", include_bytes!("fixtures/a-1.txt"));
    write(dir.path(), "groups.txt", include_bytes!("fixtures/groups.txt"));
    dir
}

#[tokio::test]
async fn case_027_step_1_context_text_is_verbatim() {
    let dir = case_027_fixture();
    let w = dir.path();
    let input =
        json!({"pattern": "MATCHX", "path": w.join("probe.css"), "output_mode": "content", "-n": true, "-A": 5});
    assert_eq!(
        grep(w, input).await,
        "1:MATCHX\n2-filler\n3-\n4-/* foo 24: bar */\n5-/// see https://example.org/x\n6-x"
    );
}

#[tokio::test]
async fn case_027_step_2_dashes_and_colons_in_text_and_names_are_kept() {
    let dir = case_027_fixture();
    let w = dir.path();
    let input = json!({"pattern": "MATCHX", "path": w.join("a-1.txt"), "output_mode": "content", "-n": true, "-C": 1});
    assert_eq!(grep(w, input).await, "1-k-2-v\n2:MATCHX\n3-z:3:w");
    // Searched as part of a folder, the path prefix is the file name, also verbatim.
    let input = json!({"pattern": "MATCHX", "path": w, "glob": "a-1.txt", "output_mode": "content", "-C": 1});
    assert_eq!(grep(w, input).await, "a-1.txt-1-k-2-v\na-1.txt:2:MATCHX\na-1.txt-3-z:3:w");
}

#[tokio::test]
async fn case_027_step_3_overlapping_contexts_merge_and_groups_are_separated() {
    let dir = case_027_fixture();
    let w = dir.path();
    let input =
        json!({"pattern": "MATCHX", "path": w.join("groups.txt"), "output_mode": "content", "-n": true, "-C": 2});
    assert_eq!(grep(w, input).await, "1:m1 MATCHX\n2-a\n3-b\n4:m2 MATCHX\n5-c\n6-d\n--\n8-f\n9-g\n10:m3 MATCHX");
}

#[tokio::test]
async fn a_separator_stands_between_files_when_context_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "f1.txt", "a\nb\nc\nd\ne\nf\nX\n");
    write(w, "f2.txt", "X\ny\n");
    let with_context = json!({"pattern": "X", "output_mode": "content", "-B": 1});
    assert_eq!(grep(w, with_context).await, "f1.txt-6-f\nf1.txt:7:X\n--\nf2.txt:1:X");
    let without = json!({"pattern": "X", "output_mode": "content"});
    assert_eq!(grep(w, without).await, "f1.txt:7:X\nf2.txt:1:X");
}

// ----- brace globs -----

fn case_028_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for path in ["docs/a.md", "scripts/b.sh", "src/c.py", "notes/d.txt"] {
        write(dir.path(), path, "needle\n");
    }
    dir
}

#[tokio::test]
async fn case_028_brace_globs_and_types_filter_files() {
    let dir = case_028_fixture();
    let w = dir.path();
    let rows: [(Value, &[&str]); 3] = [
        (json!({"pattern": "needle", "path": w, "glob": "*.{md,sh}"}), &["Found 2 files", "docs/a.md", "scripts/b.sh"]),
        (
            json!({"pattern": "needle", "path": w, "glob": "**/*.{md,sh}", "output_mode": "files_with_matches"}),
            &["Found 2 files", "docs/a.md", "scripts/b.sh"],
        ),
        (
            json!({"pattern": "needle", "path": w, "type": "py", "output_mode": "files_with_matches"}),
            &["Found 1 file", "src/c.py"],
        ),
    ];
    for (input, expected) in rows {
        let text = grep(w, input.clone()).await;
        assert_eq!(sorted_lines(&text), expected, "{input}");
    }
}

#[tokio::test]
async fn case_028_an_invalid_glob_is_an_error_naming_it() {
    let dir = case_028_fixture();
    let w = dir.path();
    let text =
        grep_error(w, json!({"pattern": "needle", "path": w, "glob": "*.{md", "output_mode": "files_with_matches"}))
            .await;
    assert!(text.starts_with("Search failed — the `glob` filter is not a valid glob: "), "{text}");
    assert!(text.contains("*.{md") && text.contains("unclosed"), "{text}");
}

#[tokio::test]
async fn globs_split_on_spaces_and_commas_and_exclude_with_a_bang() {
    let dir = case_028_fixture();
    let w = dir.path();
    let text = grep(w, json!({"pattern": "needle", "glob": "*.md,*.py"})).await;
    assert_eq!(sorted_lines(&text), ["Found 2 files", "docs/a.md", "src/c.py"]);
    let text = grep(w, json!({"pattern": "needle", "glob": "!*.md !*.sh"})).await;
    assert_eq!(sorted_lines(&text), ["Found 2 files", "notes/d.txt", "src/c.py"]);
}

#[tokio::test]
async fn an_unknown_type_is_an_error_not_an_empty_result() {
    let dir = case_028_fixture();
    let text = grep_error(dir.path(), json!({"pattern": "needle", "type": "pythonish"})).await;
    assert!(text.starts_with("Search failed — `pythonish` is not a known file type."), "{text}");
}

// ----- regex metacharacters -----

#[tokio::test]
async fn case_030_syntax_errors_are_reported_and_escapes_match() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "types.go", include_bytes!("fixtures/types.go"));
    let file = w.join("types.go");
    let input = |pattern: &str| json!({"pattern": pattern, "path": file, "output_mode": "content", "-n": true});

    let text = grep_error(w, input("attach(")).await;
    assert!(text.contains("unclosed group"), "{text}");
    assert_eq!(grep(w, input(r"attach\(")).await, "3:func attach(v interface{}) {}\n4:func main() { attach(nil) }");
    let text = grep_error(w, input("interface{}")).await;
    assert!(text.contains("repetition quantifier expects a valid decimal"), "{text}");
    assert_eq!(grep(w, input(r"interface\{\}")).await, "3:func attach(v interface{}) {}");
    assert_eq!(grep(w, input(r"main\(\) \{ attach")).await, "4:func main() { attach(nil) }");
    assert_eq!(
        grep(w, input(r"v interface|nil\)")).await,
        "3:func attach(v interface{}) {}\n4:func main() { attach(nil) }"
    );
}

// ----- multiline -----

#[tokio::test]
async fn case_031_multiline_matches_cross_lines_and_the_flag_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "model.go", include_bytes!("fixtures/model.go"));
    let file = w.join("model.go");

    let row1 = json!({"pattern": r"struct \{[\s\S]*?Port", "path": file, "multiline": true, "output_mode": "content", "-n": true});
    assert_eq!(grep(w, row1).await, "1:type Config struct {\n2:\tName string\n3:\tPort int");
    let row2 = json!({"pattern": r"Name string\n\tPort", "path": file, "multiline": true, "output_mode": "content", "-n": true});
    assert_eq!(grep(w, row2).await, "2:\tName string\n3:\tPort int");
    let row3 = json!({"pattern": r"struct \{[\s\S]*?Port", "path": file, "output_mode": "files_with_matches"});
    assert_eq!(grep(w, row3).await, "No files found");
    let row4 = json!({"pattern": r"Name string\n\tPort", "path": file});
    let text = grep_error(w, row4).await;
    assert!(text.contains("`multiline: true`"), "{text}");
    let row5 = json!({"pattern": r"struct \{[\s\S]*?Port", "path": file, "multiline": true, "output_mode": "count"});
    assert_eq!(grep(w, row5).await, "model.go:1\n\nFound 1 total occurrence across 1 file.");
}

// ----- pagination, defaults and flags -----

/// `many.txt` with `n` lines `hit N`, plus `other.txt` with one.
fn lines_fixture(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=n).map(|i| format!("hit {i}\n")).collect();
    write(dir.path(), "many.txt", text);
    write(dir.path(), "other.txt", "hit other\n");
    dir
}

#[tokio::test]
async fn content_pagination_texts() {
    let dir = lines_fixture(5);
    let w = dir.path();
    let page = |extra: Value| {
        let mut input = json!({"pattern": "hit", "output_mode": "content"});
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        input
    };
    assert_eq!(
        grep(w, page(json!({"head_limit": 2, "offset": 1}))).await,
        "many.txt:2:hit 2\nmany.txt:3:hit 3\n\n[Showing results with pagination = limit: 2, offset: 1]"
    );
    assert_eq!(
        grep(w, page(json!({"offset": 4}))).await,
        "many.txt:5:hit 5\nother.txt:1:hit other\n\n[Showing results with pagination = offset: 4]"
    );
    // A limit that cuts nothing is not reported.
    assert_eq!(grep(w, page(json!({"head_limit": 6}))).await.lines().count(), 6);
    assert_eq!(
        grep(w, page(json!({"offset": 10}))).await,
        "No entries at this offset\n\n[Showing results with pagination = offset: 10]"
    );
}

#[tokio::test]
async fn count_and_files_pagination_texts() {
    let dir = lines_fixture(3);
    let w = dir.path();
    touch(w, "many.txt", 1_704_067_200);
    touch(w, "other.txt", 1_704_067_260);
    assert_eq!(
        grep(w, json!({"pattern": "hit", "output_mode": "count", "head_limit": "1"})).await,
        "many.txt:3\n\nFound 4 total occurrences across 2 files. with pagination = limit: 1",
        "the closing line counts every match, not only the page (Claude Code's count)"
    );
    assert_eq!(
        grep(w, json!({"pattern": "hit", "output_mode": "count", "offset": 1})).await,
        "other.txt:1\n\nFound 4 total occurrences across 2 files. with pagination = offset: 1"
    );
    assert_eq!(
        grep(w, json!({"pattern": "hit", "output_mode": "count", "offset": 10})).await,
        "No entries at this offset\n\nFound 4 total occurrences across 2 files. with pagination = offset: 10"
    );
    assert_eq!(grep(w, json!({"pattern": "hit", "head_limit": 1})).await, "Found 1 file limit: 1\nother.txt");
    assert_eq!(grep(w, json!({"pattern": "hit", "offset": 1})).await, "Found 1 file offset: 1\nmany.txt");
    assert_eq!(
        grep(w, json!({"pattern": "hit", "offset": 2})).await,
        "No entries at this offset. [Showing results with pagination = offset: 2]"
    );
    assert_eq!(
        grep(w, json!({"pattern": "nothing", "output_mode": "count"})).await,
        "No matches found\n\nFound 0 total occurrences across 0 files."
    );
    assert_eq!(grep(w, json!({"pattern": "nothing", "output_mode": "content"})).await, "No matches found");
}

#[tokio::test]
async fn the_default_limit_is_250_and_zero_means_unlimited() {
    let dir = lines_fixture(300);
    let w = dir.path();
    let text = grep(w, json!({"pattern": "hit", "path": w.join("many.txt"), "output_mode": "content"})).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 252);
    assert_eq!(lines[249], "250:hit 250");
    assert_eq!(lines[251], "[Showing results with pagination = limit: 250]");
    let text =
        grep(w, json!({"pattern": "hit", "path": w.join("many.txt"), "output_mode": "content", "head_limit": 0})).await;
    assert_eq!(text.lines().count(), 300);
    assert!(text.ends_with("300:hit 300"));
}

#[tokio::test]
async fn context_takes_precedence_over_c_which_takes_precedence_over_a_and_b() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "f.txt", "1\n2\n3\n4\nX\n6\n7\n8\n9\n");
    let file = w.join("f.txt");
    let base = json!({"pattern": "X", "path": file, "output_mode": "content", "-n": false});
    let with = |extra: Value| {
        let mut input = base.clone();
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        input
    };
    assert_eq!(grep(w, with(json!({"-B": 1, "-A": 2}))).await, "4\nX\n6\n7");
    assert_eq!(grep(w, with(json!({"-B": 1, "-A": 2, "-C": 3}))).await, "2\n3\n4\nX\n6\n7\n8");
    assert_eq!(grep(w, with(json!({"-B": 1, "-A": 2, "-C": 3, "context": "0"}))).await, "X");
    // Context only applies to content mode.
    let count = json!({"pattern": "X", "path": file, "output_mode": "count", "-C": 3});
    assert_eq!(grep(w, count).await, "f.txt:1\n\nFound 1 total occurrence across 1 file.");
}

#[tokio::test]
async fn line_numbers_can_be_turned_off_with_a_string() {
    let dir = oracle_fixture();
    let input = json!({"pattern": "42", "path": "proj", "output_mode": "content", "-n": "false"});
    assert_eq!(grep(dir.path(), input).await, "proj/src/util/mod.rs:    42");
}

#[tokio::test]
async fn only_matching_lists_each_match() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "a.txt", "id=1 id=22\nnone\nid=333\n");
    let input = json!({"pattern": r"id=\d+", "output_mode": "content", "-o": true});
    assert_eq!(grep(w, input).await, "a.txt:1:id=1\na.txt:1:id=22\na.txt:3:id=333");
}

#[tokio::test]
async fn case_insensitive_accepts_a_string() {
    let dir = oracle_fixture();
    let input = json!({"pattern": "HELLO", "path": "proj/src", "-i": "true", "output_mode": "content"});
    assert_eq!(grep(dir.path(), input).await, "proj/src/main.rs:2:    println!(\"Hello\");");
}

#[tokio::test]
async fn crlf_line_endings_are_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "dos.txt", "one\r\ntwo\r\n");
    assert_eq!(grep(w, json!({"pattern": "two$", "output_mode": "content"})).await, "dos.txt:2:two");
}

// ----- walking -----

#[tokio::test]
async fn gitignore_is_respected_hidden_files_searched_and_vcs_folders_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    fs::create_dir(w.join(".git")).unwrap();
    write(w, ".git/config", "needle\n");
    write(w, ".gitignore", "build/\n");
    write(w, "build/out.txt", "needle\n");
    write(w, ".github/ci.yml", "needle\n");
    write(w, "src/a.txt", "needle\n");
    let text = grep(w, json!({"pattern": "needle", "output_mode": "count"})).await;
    assert_eq!(text, ".github/ci.yml:1\nsrc/a.txt:1\n\nFound 2 total occurrences across 2 files.");
}

/// A `glob` narrows what the ignore files leave; it never brings back an ignored file
/// (ripgrep's `-g` would list `docs/draft.md`, which `docs/.gitignore` names), so Grep and Glob
/// agree on which files exist.
#[tokio::test]
async fn glob_filters_never_bring_back_ignored_files() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    fs::create_dir(w.join(".git")).unwrap();
    write(w, ".gitignore", "node_modules/\ndist/\n");
    write(w, "README.md", "# readme\n");
    write(w, "docs/guide.md", "# guide\n");
    write(w, "docs/.gitignore", "draft.md\n");
    write(w, "docs/draft.md", "# draft\n");
    write(w, "docs/notes.txt", "# notes\n");
    write(w, "node_modules/pkg/README.md", "# pkg\n");
    write(w, "dist/out.md", "# out\n");
    let files = |glob: &str| {
        let input = json!({"pattern": "#", "glob": glob, "output_mode": "count"});
        async move { sorted_lines(&grep(w, input).await).into_iter().map(str::to_owned).collect::<Vec<_>>() }
    };
    let md = files("*.md").await;
    assert_eq!(md, ["", "Found 2 total occurrences across 2 files.", "README.md:1", "docs/guide.md:1"]);
    assert_eq!(files("**/*.md").await, md);
    assert_eq!(files("{*.md,*.txt}").await[3..], ["docs/guide.md:1", "docs/notes.txt:1"]);
    // A negated glob still leaves things out, folders included.
    let not_docs = files("!docs").await;
    assert_eq!(not_docs, ["", "Found 1 total occurrence across 1 file.", "README.md:1"]);
    let not_md = files("!*.md").await;
    assert_eq!(not_md, ["", "Found 1 total occurrence across 1 file.", "docs/notes.txt:1"]);
}

/// A `glob` decides before `type`, as in ripgrep (Claude Code's recorded answer to
/// `{"pattern": "hit", "type": "md", "glob": "*.txt"}`: the `.txt` files, not the `.md` one).
#[tokio::test]
async fn a_glob_decides_before_the_type() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "a.txt", "hit\nhit\n");
    write(w, "b.txt", "hit\n");
    write(w, "c.md", "hit\n");
    let files = |input: Value| async move {
        sorted_lines(&grep(w, input).await).into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(
        files(json!({"pattern": "hit", "type": "md", "glob": "*.txt"})).await,
        ["Found 2 files", "a.txt", "b.txt"]
    );
    assert_eq!(files(json!({"pattern": "hit", "type": "md"})).await, ["Found 1 file", "c.md"]);
    // A negated glob leaves the type to decide what is left.
    assert_eq!(files(json!({"pattern": "hit", "type": "txt", "glob": "!a.txt"})).await, ["Found 1 file", "b.txt"]);
}

#[tokio::test]
async fn paths_outside_the_working_directory_are_absolute() {
    let dir = oracle_fixture();
    let cwd = dir.path().join("proj/docs");
    let src = dir.path().join("proj/src");
    let text = grep(&cwd, json!({"pattern": "helper", "path": src, "output_mode": "content"})).await;
    assert_eq!(
        text,
        format!("{}/lib.rs:7:pub fn helper() {{}}\n{}/main.rs:3:    helper();", src.display(), src.display())
    );
}

#[tokio::test]
async fn empty_or_undefined_path_means_the_working_directory() {
    let dir = oracle_fixture();
    for path in ["", "undefined", "null"] {
        let text = grep(&dir.path().join("proj/src"), json!({"pattern": "42", "path": path})).await;
        assert_eq!(text, "Found 1 file\nutil/mod.rs", "{path:?}");
    }
}

// ----- validation, cancellation and the contract -----

#[tokio::test]
async fn a_missing_path_is_a_validation_error_naming_it_and_the_cwd() {
    let dir = oracle_fixture();
    let w = dir.path();
    let text = grep_error(w, json!({"pattern": "x", "path": "nope"})).await;
    assert_eq!(
        text,
        format!(
            "<tool_use_error>Path does not exist: nope. Note: your current working directory is {}.</tool_use_error>",
            w.display()
        )
    );
}

#[tokio::test]
async fn unknown_fields_and_bad_modes_are_refused() {
    let dir = oracle_fixture();
    let text = grep_error(dir.path(), json!({"pattern": "x", "recursive": true})).await;
    assert!(text.contains("`recursive`"), "{text}");
    let text = grep_error(dir.path(), json!({"pattern": "x", "output_mode": "lines"})).await;
    assert!(text.contains("`output_mode`"), "{text}");
}

#[tokio::test]
async fn a_cancelled_call_is_an_error_result() {
    let dir = oracle_fixture();
    let ctx = ToolUseContext::new(dir.path());
    ctx.cancel.cancel();
    let (text, is_error) = run_with(agent_tool_grep::tool().as_ref(), &ctx, json!({"pattern": "helper"})).await;
    assert!(is_error);
    assert_eq!(text, "[Request interrupted by user for tool use]");
}

#[cfg(unix)]
#[tokio::test]
async fn a_path_that_is_neither_file_nor_folder_is_a_validation_error() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let made = std::process::Command::new("mkfifo").arg(w.join("pipe")).status();
    if !made.is_ok_and(|status| status.success()) {
        return; // no mkfifo here
    }
    let text = grep_error(w, json!({"pattern": "x", "path": "pipe"})).await;
    assert_eq!(
        text,
        format!(
            "<tool_use_error>Path is not a file or a folder: pipe. Only regular files and folders can be searched. \
             Note: your current working directory is {}.</tool_use_error>",
            w.display()
        )
    );
    // In a folder search a FIFO is passed over, not opened (which would wait for a writer).
    write(w, "a.txt", "x\n");
    assert_eq!(grep(w, json!({"pattern": "x"})).await, "Found 1 file\na.txt");
}

#[tokio::test]
async fn a_search_cancelled_midway_answers_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    // A sparse 64 GiB file of zero bytes: searching it through would take minutes.
    let file = fs::File::create(w.join("zeros.bin")).unwrap();
    file.set_len(64 << 30).unwrap();
    let ctx = ToolUseContext::new(w);
    // The cancel comes once the search has the file open (this process's descriptors show it).
    let zeros = fs::canonicalize(w.join("zeros.bin")).unwrap();
    let searching = || {
        let open = fs::read_dir("/proc/self/fd").into_iter().flatten().flatten();
        open.filter_map(|fd| fs::read_link(fd.path()).ok()).any(|target| target == zeros)
    };
    drop(file);
    let cancelling = async {
        assert!(agent_tools_testkit::eventually(Duration::from_secs(10), searching).await, "the search never began");
        ctx.cancel.cancel();
    };
    let started = Instant::now();
    let input = json!({"pattern": "x", "path": "zeros.bin", "output_mode": "count"});
    let grep = agent_tool_grep::tool();
    let ((text, is_error), ()) = tokio::join!(run_with(grep.as_ref(), &ctx, input), cancelling);
    assert!(is_error, "{text}");
    assert_eq!(text, "[Request interrupted by user for tool use]");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

// ----- read-deny rules -----

/// A context for `cwd` whose project settings deny reading with these `Read(…)` rules.
fn denying(cwd: &Path, rules: &[&str]) -> ToolUseContext {
    let mut permissions = ToolPermissionContext::default();
    for rule in rules {
        permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, *rule);
    }
    let mut ctx = ToolUseContext::new(cwd);
    ctx.permission_context = Arc::new(permissions);
    ctx
}

fn secrets_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for path in [".env", "config/prod.env", "secrets/key.txt", "secrets/deep/more.txt", "src/main.rs", "src/secrets.rs"]
    {
        write(dir.path(), path, "token\n");
    }
    dir
}

#[tokio::test]
async fn read_deny_rules_exclude_the_files_they_name() {
    let dir = secrets_fixture();
    let w = dir.path();
    let ctx = denying(w, &["Read(*.env)", "Read(/secrets/**)", "Read(Bash)", "Edit(src/**)"]);
    let tool = agent_tool_grep::tool();
    let (text, _) = run_with(tool.as_ref(), &ctx, json!({"pattern": "token", "output_mode": "count"})).await;
    assert_eq!(text, "src/main.rs:1\nsrc/secrets.rs:1\n\nFound 2 total occurrences across 2 files.");
    // `//abs/**` rules, and a search inside a denied folder finds nothing there.
    let ctx = denying(w, &[&format!("Read(/{}/src/**)", w.display())]);
    let (text, _) = run_with(tool.as_ref(), &ctx, json!({"pattern": "token", "output_mode": "count"})).await;
    assert_eq!(
        text,
        ".env:1\nconfig/prod.env:1\nsecrets/deep/more.txt:1\nsecrets/key.txt:1\n\nFound 4 total occurrences across 4 files."
    );
    let (text, _) = run_with(tool.as_ref(), &ctx, json!({"pattern": "token", "path": "src/main.rs"})).await;
    assert_eq!(text, "No files found");
}

#[tokio::test]
async fn a_denied_search_path_is_refused_at_the_permission_stage() {
    let dir = secrets_fixture();
    let w = dir.path();
    let ctx = denying(w, &["Read(/secrets/**)"]);
    let tool = agent_tool_grep::tool();
    let denied = tool.parse(json!({"pattern": "x", "path": "secrets/deep"})).unwrap();
    match tool.check_permissions(&denied, &ctx).await {
        PermissionResult::Deny { message, .. } => {
            assert_eq!(message, "File is in a directory that is denied by your permission settings.");
        }
        other => panic!("expected a denial, got {other:?}"),
    }
    let allowed = tool.parse(json!({"pattern": "x", "path": "src"})).unwrap();
    assert!(matches!(tool.check_permissions(&allowed, &ctx).await, PermissionResult::Allow { .. }));
    // Outside the working directories a search needs approval, as any read does.
    let outside = tool.parse(json!({"pattern": "x", "path": "/"})).unwrap();
    assert!(matches!(tool.check_permissions(&outside, &ctx).await, PermissionResult::Passthrough { .. }));
}

#[test]
fn grep_is_read_only_concurrency_safe_and_strict() {
    let tool = agent_tool_grep::tool();
    let parsed = tool.parse(json!({"pattern": "x", "path": "src"})).unwrap();
    assert!(tool.is_read_only(&parsed));
    assert!(tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.name(), "Grep");
    assert_eq!(tool.max_result_size_chars(), MaxResultSize::Chars(20_000));
    assert_eq!(tool.flags(), agent_tools_core::ToolFlags::LOCAL_READ_ONLY);
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("src"));
}

#[test]
fn the_schema_uses_claude_codes_field_names() {
    let tool = agent_tool_grep::tool();
    let schema = tool.input_schema();
    let properties = schema["properties"].as_object().unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "pattern",
            "path",
            "glob",
            "output_mode",
            "-B",
            "-A",
            "-C",
            "context",
            "-n",
            "-i",
            "-o",
            "type",
            "head_limit",
            "offset",
            "multiline"
        ]
    );
    assert_eq!(schema["required"], json!(["pattern"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(properties["output_mode"]["enum"], json!(["content", "files_with_matches", "count"]));
}

#[tokio::test]
async fn structured_output_uses_claude_codes_field_names() {
    let dir = oracle_fixture();
    let ctx = ToolUseContext::new(dir.path());
    let done = call_tool(
        agent_tool_grep::tool().as_ref(),
        "t",
        json!({"pattern": "e", "path": "proj", "offset": 1, "head_limit": 2}),
        &ctx,
    )
    .await;
    let data = done.data.unwrap().to_json();
    assert_eq!(
        data,
        json!({
            "mode": "files_with_matches",
            "numFiles": 2,
            "filenames": ["proj/src/main.rs", "proj/src/lib.rs"],
            "appliedLimit": 2,
            "appliedOffset": 1
        })
    );
}

#[tokio::test]
async fn huge_numbers_neither_panic_nor_misbehave() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    write(w, "a.txt", "a\nx\nb\n");
    let big = 9_007_199_254_740_991u64;
    let input = json!({"pattern": "x", "output_mode": "content", "-C": big, "head_limit": big});
    assert_eq!(grep(w, input).await, "a.txt-1-a\na.txt:2:x\na.txt-3-b");
    let input = json!({"pattern": "x", "output_mode": "content", "offset": big});
    assert_eq!(
        grep(w, input).await,
        format!("No entries at this offset\n\n[Showing results with pagination = offset: {big}]")
    );
}
