//! Read on real files: Claude Code's recorded results and the failure
//! modes users hit: JSON-like text, and empty files or files without a final newline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use agent_tools_core::FileReadingLimits;
use agent_tools_core::ToolUseContext;
use serde_json::{Value, json};

async fn read_with(ctx: &ToolUseContext, input: Value) -> (String, bool) {
    agent_tools_testkit::run(agent_tool_file_read::tool().as_ref(), ctx, input).await
}

async fn read(cwd: &Path, input: Value) -> String {
    agent_tools_testkit::ok(agent_tool_file_read::tool().as_ref(), cwd, input).await
}

async fn read_error(cwd: &Path, input: Value) -> String {
    agent_tools_testkit::err(agent_tool_file_read::tool().as_ref(), cwd, input).await
}

fn fixture() -> tempfile::TempDir {
    let dir = agent_tools_testkit::oracle_fixture();
    fs::create_dir_all(dir.path().join("proj/src")).unwrap();
    dir
}

#[tokio::test]
async fn oracle_basic_numbers_lines_with_a_tab_and_keeps_the_final_empty_line() {
    let dir = fixture();
    let path = dir.path().join("small.txt");
    assert_eq!(
        read(dir.path(), json!({"file_path": path})).await,
        "1\talpha\n2\tbeta\n3\tgamma\n4\tdelta\n5\tepsilon\n6\t"
    );
}

/// The Reads before the Edit and Write oracle cases (`edit.read`, `edit-crlf.read`,
/// `write-overwrite.read`), a range of one line and tabs as they are: what the model saw before
/// the file tools' tests (which record their reads without this tool) change the files.
#[tokio::test]
async fn oracle_reads_before_edit_and_write() {
    let dir = fixture();
    let shown = |name: &str| read(dir.path(), json!({"file_path": dir.path().join(name)}));
    assert_eq!(shown("edit.txt").await, "1\tfoo bar\n2\tfoo baz\n3\tqux\n4\t");
    assert_eq!(shown("crlf.txt").await, "1\tone\n2\ttwo\n3\tthree\n4\t");
    assert_eq!(shown("existing.txt").await, "1\toriginal content\n2\t");
    fs::write(dir.path().join("long.txt"), "1\n2\n3\n4\n").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "long.txt", "offset": 3, "limit": 1})).await, "3\t3");
    fs::write(dir.path().join("tabs.go"), "func f() {\n\tfor {\n\t\tif it == \"\" {\n").unwrap();
    assert!(shown("tabs.go").await.contains("3\t\t\tif it == \"\" {\n"));
}

#[tokio::test]
async fn oracle_offset_and_limit() {
    let dir = fixture();
    let path = dir.path().join("lines100.txt");
    assert_eq!(
        read(dir.path(), json!({"file_path": path, "offset": 10, "limit": 5})).await,
        "10\tline 10\n11\tline 11\n12\tline 12\n13\tline 13\n14\tline 14"
    );
    // Numbers may arrive as strings.
    assert_eq!(
        read(dir.path(), json!({"file_path": path, "offset": "99", "limit": "5"})).await,
        "99\tline 99\n100\tline 100\n101\t"
    );
}

#[tokio::test]
async fn oracle_offset_past_the_end_warns() {
    let dir = fixture();
    let path = dir.path().join("small.txt");
    assert_eq!(
        read(dir.path(), json!({"file_path": path, "offset": 50})).await,
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (50). The file has 6 lines.</system-reminder>"
    );
}

#[tokio::test]
async fn oracle_no_2000_line_cap_by_default() {
    let dir = fixture();
    let text = read(dir.path(), json!({"file_path": dir.path().join("lines2500.txt")})).await;
    let expected: String = (1..=2500).map(|i| format!("{i}\trow {i}\n")).collect::<String>() + "2501\t";
    assert_eq!(text, expected);
}

#[tokio::test]
async fn oracle_long_lines_come_back_whole() {
    let dir = fixture();
    let text = read(dir.path(), json!({"file_path": dir.path().join("long-line.txt")})).await;
    assert_eq!(text, format!("1\tshort first line\n2\t{}\n3\tlast line\n4\t", "x".repeat(2500)));
}

#[tokio::test]
async fn oracle_empty_file_warns() {
    let dir = fixture();
    assert_eq!(
        read(dir.path(), json!({"file_path": dir.path().join("empty.txt")})).await,
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    );
}

#[tokio::test]
async fn oracle_missing_file_names_the_working_directory() {
    let dir = fixture();
    assert_eq!(
        read_error(dir.path(), json!({"file_path": dir.path().join("no-such-file.txt")})).await,
        format!("File does not exist. Note: your current working directory is {}.", dir.path().display())
    );
}

#[tokio::test]
async fn oracle_directory_is_refused_with_eisdir() {
    let dir = fixture();
    let path = dir.path().join("proj/src");
    assert_eq!(
        read_error(dir.path(), json!({"file_path": path})).await,
        format!("EISDIR: illegal operation on a directory, read '{}'", path.display())
    );
}

#[tokio::test]
async fn binary_content_is_refused_before_reading() {
    let dir = fixture();
    let path = dir.path().join("blob.bin");
    let text = read_error(dir.path(), json!({"file_path": path})).await;
    // Claude Code's text for a binary file.
    assert_eq!(
        text,
        "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .bin file. Use a skill for this file type if one is available, or a shell command or script that can read the format.</tool_use_error>"
    );
    std::fs::copy(&path, dir.path().join("blob")).unwrap();
    let text = read_error(dir.path(), json!({"file_path": dir.path().join("blob")})).await;
    assert!(text.contains("The file appears to be a binary file. Use a skill"), "{text}");
}

#[tokio::test]
async fn text_is_text_whatever_the_extension() {
    // Claude Code refuses this file for its `.dat` name; its content is plain text.
    let dir = fixture();
    assert_eq!(
        read(dir.path(), json!({"file_path": dir.path().join("plain-text.dat")})).await,
        "1\tplain text in a .dat file\n2\t"
    );
}

#[tokio::test]
async fn oracle_relative_paths_resolve_against_the_working_directory() {
    let dir = fixture();
    assert_eq!(
        read(dir.path(), json!({"file_path": "small.txt"})).await,
        "1\talpha\n2\tbeta\n3\tgamma\n4\tdelta\n5\tepsilon\n6\t"
    );
    assert_eq!(read(&dir.path().join("proj"), json!({"file_path": "../small.txt", "limit": 1})).await, "1\talpha");
}

#[tokio::test]
async fn case_018_json_like_text_comes_back_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("braces.txt"), "{}").unwrap();
    fs::write(dir.path().join("mixed.txt"), "This file contains {} braces.\n[]\nnull\n{\"result\": 1}").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": dir.path().join("braces.txt")})).await, "1\t{}");
    assert_eq!(
        read(dir.path(), json!({"file_path": dir.path().join("mixed.txt")})).await,
        "1\tThis file contains {} braces.\n2\t[]\n3\tnull\n4\t{\"result\": 1}"
    );
}

#[tokio::test]
async fn case_020_empty_newline_only_and_no_final_newline() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("newline.txt"), "\n").unwrap();
    fs::write(dir.path().join("nofinal.txt"), "last line without newline").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": dir.path().join("newline.txt")})).await, "1\t\n2\t");
    assert_eq!(
        read(dir.path(), json!({"file_path": dir.path().join("nofinal.txt")})).await,
        "1\tlast line without newline"
    );
}

#[tokio::test]
async fn crlf_and_bom_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("crlf.txt"), "\u{feff}one\r\ntwo\r\n").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "crlf.txt"})).await, "1\tone\n2\ttwo\n3\t");
}

#[tokio::test]
async fn large_files_need_a_limit_and_then_stream() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (1..=40_000).map(|i| format!("entry number {i:06}\n")).collect();
    fs::write(dir.path().join("big.log"), &big).unwrap();
    let text = read_error(dir.path(), json!({"file_path": "big.log"})).await;
    assert_eq!(
        text,
        "File content (781.3KB) exceeds maximum allowed size (256KB). Read it in parts with offset and limit, or search it with Grep. To read it anyway, as far as it fits, call Read again with allow_large: true, only if you truly need all of it or the user asked for the whole file."
    );
    // `allow_large` lifts the size limit and gives a larger token budget; past it, a page.
    let text = read(dir.path(), json!({"file_path": "big.log", "allow_large": true})).await;
    let (lines, note) = text.split_once("\n\n[Truncated: ").unwrap();
    let shown = lines.lines().count() as u64;
    assert!(shown > 10_000 && lines.len() as u64 <= 100_000 * 4, "{shown} lines, {} bytes", lines.len());
    assert!(
        note.starts_with(&format!("a partial view of big.log, lines 1-{shown} of 40001 (the whole would take about ")),
        "{note}"
    );
    assert!(note.contains(&format!("Read on with offset={} limit={shown}", shown + 1)), "{note}");
    assert_eq!(
        read(dir.path(), json!({"file_path": "big.log", "offset": 39_999, "limit": 5})).await,
        "39999\tentry number 039999\n40000\tentry number 040000\n40001\t"
    );
}

/// A file of many short lines over the token limit but under the size limit reads as its first
/// page, with the note on how to read on (Claude Code 2.1 answers a 3,000-line file with lines
/// 1-2526 and the same advice; it used to be refused whole).
#[tokio::test]
async fn a_file_over_the_token_limit_reads_as_its_first_page() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=3000).map(|i| format!("line {i} aaaaaaaaaaaaaaaaaaaaaa\n")).collect();
    fs::write(dir.path().join("f.txt"), &text).unwrap();
    let shown = read(dir.path(), json!({"file_path": "f.txt"})).await;
    let (lines, note) = shown.split_once("\n\n[Truncated: ").unwrap();
    assert_eq!(lines.lines().count(), 2689);
    assert!(lines.starts_with("1\tline 1 aaaaaaaaaaaaaaaaaaaaaa\n2\tline 2 "));
    assert!(lines.ends_with("2689\tline 2689 aaaaaaaaaaaaaaaaaaaaaa"));
    assert_eq!(
        note,
        "a partial view of f.txt, lines 1-2689 of 3001 (the whole would take about 27948 tokens; the limit is 25000). \
         Read on with offset=2690 limit=2689, or find the section you need with Grep; to read it whole anyway, call Read again with \
         allow_large: true, only if you truly need all of it or the user asked for the whole file. Do not answer from this page alone if the \
         answer may be further on.]"
    );
    // The next page follows on; with allow_large the whole file.
    let next = read(dir.path(), json!({"file_path": "f.txt", "offset": 2690, "limit": 2689})).await;
    assert!(next.starts_with("2690\tline 2690 ") && next.ends_with("3000\tline 3000 aaaaaaaaaaaaaaaaaaaaaa\n3001\t"));
    let whole = read(dir.path(), json!({"file_path": "f.txt", "allow_large": true})).await;
    assert_eq!(whole.lines().count(), 3001);
    assert!(!whole.contains("[Truncated"));
}

#[tokio::test]
async fn too_many_tokens_is_an_error_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "word ".repeat(100)).unwrap();
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.limits.file_reading = FileReadingLimits { max_tokens: Some(10), max_size_bytes: None };
    let (text, is_error) = read_with(&ctx, json!({"file_path": "a.txt"})).await;
    assert!(is_error);
    assert_eq!(
        text,
        "File content (125 tokens) exceeds maximum allowed tokens (10). Read it in parts with offset and limit, or search it with Grep."
    );
}

#[tokio::test]
async fn blocked_devices_are_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let text = read_error(dir.path(), json!({"file_path": "/dev/zero"})).await;
    assert_eq!(text, "<tool_use_error>Cannot read /dev/zero: this device file blocks or never ends.</tool_use_error>");
}

#[tokio::test]
async fn reads_are_recorded_in_the_file_read_state() {
    let dir = fixture();
    let ctx = ToolUseContext::new(dir.path());
    read_with(&ctx, json!({"file_path": "small.txt"})).await;
    let stamp = ctx.read_file_state.get(&dir.path().join("small.txt")).expect("recorded");
    assert_eq!(&*stamp.content, "alpha\nbeta\ngamma\ndelta\nepsilon\n");
    assert!(stamp.is_full_read());
    let mtime = fs::metadata(dir.path().join("small.txt")).unwrap().modified().unwrap();
    assert_eq!(stamp.timestamp_ms, agent_tools_core::mtime_ms(Ok(mtime)));
    assert_eq!(stamp.content_hash, Some(agent_tools_core::content_hash(b"alpha\nbeta\ngamma\ndelta\nepsilon\n")));

    read_with(&ctx, json!({"file_path": "lines100.txt", "offset": 2, "limit": 2})).await;
    let partial = ctx.read_file_state.get(&dir.path().join("lines100.txt")).expect("recorded");
    assert_eq!(&*partial.content, "line 2\nline 3");
    assert_eq!((partial.offset, partial.limit), (Some(2), Some(2)));
    assert!(!partial.is_full_read());
    // Even a partial read knows the whole file's hash, so Edit can tell whether it changed.
    let whole = fs::read(dir.path().join("lines100.txt")).unwrap();
    assert_eq!(partial.content_hash, Some(agent_tools_core::content_hash(&whole)));
    // A failed read records nothing.
    read_with(&ctx, json!({"file_path": "missing.txt"})).await;
    assert_eq!(ctx.read_file_state.len(), 2);
}

#[tokio::test]
async fn bad_input_is_refused_with_the_field_named() {
    let dir = fixture();
    let text = read_error(dir.path(), json!({"file_path": "small.txt", "limit": 0})).await;
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe parameter `limit` must be greater than 0, but it is 0</tool_use_error>"
    );
    let text = read_error(dir.path(), json!({"file_path": 5})).await;
    assert_eq!(
        text,
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `number`</tool_use_error>"
    );
}

#[test]
fn read_is_read_only_concurrency_safe_and_never_persisted() {
    let tool = agent_tool_file_read::tool();
    let parsed = tool.parse(json!({"file_path": "a"})).unwrap();
    assert!(tool.is_read_only(&parsed) && tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Unlimited);
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("a"));
    assert_eq!(tool.flags(), agent_tools_core::ToolFlags::LOCAL_READ_ONLY);
    let schema = tool.input_schema();
    assert_eq!(schema["properties"]["limit"]["exclusiveMinimum"], 0);
    assert_eq!(schema["properties"]["offset"]["minimum"], 0);
    assert_eq!(schema["required"], json!(["file_path"]));
}

#[tokio::test]
async fn utf16_files_with_a_byte_order_mark_are_text() {
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = [
        &[0xFF, 0xFE][..],
        &"caf\u{e9}\r\nline two\r\n".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>(),
    ]
    .concat();
    fs::write(dir.path().join("wide.txt"), utf16).unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "wide.txt"})).await, "1\tcaf\u{e9}\n2\tline two\n3\t");
}

#[tokio::test]
async fn oracle_notebook_is_read_cell_by_cell() {
    let dir = fixture();
    let ctx = ToolUseContext::new(dir.path());
    let done = agent_tools_core::call_tool(
        agent_tool_file_read::tool().as_ref(),
        "toolu_nb",
        json!({"file_path": dir.path().join("nb.ipynb")}),
        &ctx,
    )
    .await;
    assert!(!done.block.is_error);
    // One text part, exactly as Claude Code renders it.
    assert_eq!(
        serde_json::to_value(&done.block.content).unwrap(),
        json!([{"type": "text", "text": "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">\n<cell id=\"calc\">print(1 + 1)</cell id=\"calc\">\n\n2\n"}])
    );
    // Recorded whole, for NotebookEdit's read-before-edit rule.
    let stamp = ctx.read_file_state.get(&dir.path().join("nb.ipynb")).unwrap();
    assert_eq!(&*stamp.content, agent_tools_testkit::NOTEBOOK);
}

#[tokio::test]
async fn nul_bytes_are_shown_escaped_with_a_note() {
    let dir = fixture();
    let text = read(dir.path(), json!({"file_path": "nul-bytes.txt"})).await;
    assert_eq!(
        text,
        "1\thi\\0\n2\tthere\u{ff}\n3\t\n\n[Note: this file holds NUL bytes in its first 8 KB, shown above as \\0. It may be binary data, UTF-16/UTF-32 without a byte-order mark, or text with stray NULs. To change it, use a command that keeps its encoding, or ask the user whether to convert it to UTF-8.]"
    );
    assert!(!text.contains('\0'));
}

#[tokio::test]
async fn text_that_is_not_utf8_gets_a_note() {
    let dir = fixture();
    assert_eq!(
        read(dir.path(), json!({"file_path": "latin1.txt"})).await,
        "1\tcaf\u{2c6}\u{e9}\n2\t\n\n[Note: this file is not valid UTF-8, so it was decoded as Windows-1252. If it uses another legacy encoding (Shift-JIS, GBK …), some characters above are wrong. Edit and Write keep the file's encoding.]"
    );
}

#[tokio::test]
async fn a_broken_notebook_reads_as_text() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.ipynb"), "{\"cells\": [\n").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "bad.ipynb"})).await, "1\t{\"cells\": [\n2\t");
}

/// A huge single line: one line of 600,000 `x`, and `short` / 300,000 `y` / `tail`.
fn case_017() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("minified.txt"), "x".repeat(600_000) + "\n").unwrap();
    fs::write(dir.path().join("three.js"), format!("short\n{}\ntail\n", "y".repeat(300_000))).unwrap();
    dir
}

#[tokio::test]
async fn case_017_a_huge_single_line_is_cut_not_refused() {
    let dir = case_017();
    let marker = |omitted: usize| format!(" [… line cut here: {omitted} more characters]");
    let cut_x = format!("{}{}", "x".repeat(2000), marker(598_000));
    for (input, expected) in [
        (json!({"file_path": "minified.txt"}), format!("1\t{cut_x}\n2\t")),
        (json!({"file_path": "minified.txt", "offset": 1, "limit": 1}), format!("1\t{cut_x}")),
        (
            json!({"file_path": "three.js"}),
            format!("1\tshort\n2\t{}{}\n3\ttail\n4\t", "y".repeat(2000), marker(298_000)),
        ),
    ] {
        let started = std::time::Instant::now();
        let text = read(dir.path(), input.clone()).await;
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{input}: {:?}", started.elapsed());
        assert!(text.len() <= 10 * 1024, "{input}: {} bytes", text.len());
        assert_eq!(text, expected, "{input}");
    }
}

#[tokio::test]
async fn many_ordinary_lines_over_the_size_limit_are_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 300 KB of 100-character lines: nothing to cut, so the size rule applies.
    fs::write(dir.path().join("log.txt"), ("z".repeat(99) + "\n").repeat(3_000)).unwrap();
    assert_eq!(
        read_error(dir.path(), json!({"file_path": "log.txt"})).await,
        "File content (293KB) exceeds maximum allowed size (256KB). Read it in parts with offset and limit, or search it with Grep. To read it anyway, as far as it fits, call Read again with allow_large: true, only if you truly need all of it or the user asked for the whole file."
    );
    // Long lines alone do not save a file whose cut lines are still too many.
    fs::write(dir.path().join("wide.txt"), ("w".repeat(5_000) + "\n").repeat(200)).unwrap();
    let text = read_error(dir.path(), json!({"file_path": "wide.txt"})).await;
    assert!(text.starts_with("File content (976.8KB) exceeds maximum allowed size (256KB)."), "{text}");
    // With a limit the token limit applies to what is shown: the page ends where it is full,
    // and says how to read on.
    let text = read(dir.path(), json!({"file_path": "wide.txt", "limit": 60})).await;
    let (lines, note) = text.split_once("\n\n[Truncated: ").unwrap();
    assert_eq!(lines.lines().count(), 48);
    assert_eq!(
        note,
        "a partial view of wide.txt, lines 1-48 of 201 (the whole would take about 31018 tokens; the limit is 25000). \
         Read on with offset=49 limit=48, or find the section you need with Grep; to read it whole anyway, call Read again with \
         allow_large: true, only if you truly need all of it or the user asked for the whole file. Do not answer from this page alone if the \
         answer may be further on.]"
    );
    // A range that fits shows its long lines whole.
    let text = read(dir.path(), json!({"file_path": "wide.txt", "offset": 200, "limit": 2})).await;
    assert!(text == format!("200\t{}\n201\t", "w".repeat(5000)), "{}", &text[..100]);
}

#[tokio::test]
async fn case_003_tabs_are_shown_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let go = "func render(items []string) string {\n\tvar b strings.Builder\n\tfor _, it := range items {\n\t\tif it == \"\" {\n\t\t\tcontinue\n\t\t}\n\t\tb.WriteString(it)\n\t}\n\treturn b.String()\n}\n";
    fs::write(dir.path().join("render.go"), go).unwrap();
    let text = read(dir.path(), json!({"file_path": "render.go"})).await;
    let line_4 = text.lines().nth(3).unwrap();
    assert_eq!(line_4, "4\t\t\tif it == \"\" {");
    assert_eq!(line_4.split_once('\t').unwrap().1, "\t\tif it == \"\" {");
}

#[tokio::test]
async fn case_010_cp1252_is_shown_decoded() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("legacy.pas"),
        b"// Configura\xe7\xe3o principal\nconst Title = 'Bot\xe3o';\nconst Mark = 'Acme\x99';\nconst Price = 10;\n",
    )
    .unwrap();
    let text = read(dir.path(), json!({"file_path": "legacy.pas"})).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "1\t// Configura\u{e7}\u{e3}o principal");
    assert_eq!(lines[2], "3\tconst Mark = 'Acme\u{2122}';");
    assert!(!text.contains('\u{fffd}'));
    assert!(text.ends_with("Edit and Write keep the file's encoding.]"));
}

#[tokio::test]
async fn utf8_bom_is_not_shown_and_utf16_big_endian_is_decoded() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bom.txt"), "\u{feff}first\nsecond").unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "bom.txt"})).await, "1\tfirst\n2\tsecond");
    let utf16be: Vec<u8> =
        [&[0xFE, 0xFF][..], &"\u{e9}t\u{e9}\nhiver".encode_utf16().flat_map(u16::to_be_bytes).collect::<Vec<u8>>()]
            .concat();
    fs::write(dir.path().join("be.txt"), utf16be).unwrap();
    assert_eq!(read(dir.path(), json!({"file_path": "be.txt", "offset": 2})).await, "2\thiver");
}

const STUB: &str = "has not changed since you last read it with the same offset and limit in this conversation, so that earlier result is still current. Refer to it instead of reading the file again.";

#[tokio::test]
async fn an_unchanged_repeat_read_gets_the_stub() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    fs::write(&path, "one\ntwo\nthree\n").unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let file_path = path.to_string_lossy().into_owned();
    let full = "1\tone\n2\ttwo\n3\tthree\n4\t";
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await, (full.to_owned(), false));
    let stub = format!("{file_path} {STUB}");
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await, (stub.clone(), false));
    // `offset` 1 is the same range as no offset.
    assert_eq!(read_with(&ctx, json!({"file_path": file_path, "offset": 1})).await, (stub.clone(), false));
    // Only the mtime moved: the content decides, so still the stub.
    agent_tools_testkit::touch(dir.path(), "a.txt", 1_000_000);
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await.0, stub);
    // Another range: the lines, and that range becomes the last read.
    assert_eq!(read_with(&ctx, json!({"file_path": file_path, "offset": 2, "limit": 1})).await.0, "2\ttwo");
    assert_eq!(read_with(&ctx, json!({"file_path": file_path, "offset": 2, "limit": 1})).await.0, stub);
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await.0, full);
    // The file changed: the new content.
    fs::write(&path, "one\nTWO\nthree\n").unwrap();
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await.0, "1\tone\n2\tTWO\n3\tthree\n4\t");
    // An entry made by a write: the content, never the stub.
    let stamp = ctx.read_file_state.get(&path).unwrap();
    ctx.read_file_state.set(&path, agent_tools_core::FileStamp { from_read: false, ..stamp });
    assert_eq!(read_with(&ctx, json!({"file_path": file_path})).await.0, "1\tone\n2\tTWO\n3\tthree\n4\t");
    // The stub's structured output names the file.
    let done = agent_tools_core::call_tool(
        agent_tool_file_read::tool().as_ref(),
        "toolu_again",
        json!({"file_path": file_path}),
        &ctx,
    )
    .await;
    assert_eq!(done.data.unwrap().to_json(), json!({"type": "file_unchanged", "file": {"filePath": file_path}}));
}

#[tokio::test]
async fn device_files_are_refused_without_being_opened() {
    let dir = tempfile::tempdir().unwrap();
    for path in ["/dev/random", "/dev/stdin", "/dev/tty", "/proc/self/fd/0", "/dev/fd/2"] {
        let text = read_error(dir.path(), json!({"file_path": path})).await;
        assert_eq!(
            text,
            format!("<tool_use_error>Cannot read {path}: this device file blocks or never ends.</tool_use_error>")
        );
    }
    // Any other device, and a link to one, is refused after a stat.
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zeros")).unwrap();
    for path in ["/dev/null", "zeros"] {
        let text = read_error(dir.path(), json!({"file_path": path})).await;
        assert_eq!(
            text,
            format!(
                "<tool_use_error>Cannot read {path}: it is not a regular file (it is a device, FIFO or socket), so reading it could block or never end.</tool_use_error>"
            )
        );
    }
}

#[tokio::test]
async fn a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Opening a FIFO with no writer blocks: a refusal within the timeout shows it was never opened.
    let ctx = ToolUseContext::new(dir.path());
    let tool = agent_tool_file_read::tool();
    let parsed = tool.parse(json!({"file_path": "pipe"})).unwrap();
    let verdict = tokio::time::timeout(std::time::Duration::from_secs(5), tool.validate_input(&parsed, &ctx))
        .await
        .expect("validate_input must not open the FIFO");
    assert!(matches!(verdict, agent_tools_core::ValidationResult::Error { error_code: 9, .. }), "{verdict:?}");
    // The call itself (had validation been skipped) refuses it as well.
    let done = tokio::time::timeout(std::time::Duration::from_secs(5), tool.call(parsed, &ctx))
        .await
        .expect("call must not open the FIFO");
    assert!(done.is_err());
}

#[tokio::test]
async fn a_notebook_is_sized_by_its_cells_not_its_file() {
    let dir = tempfile::tempdir().unwrap();
    // 400 KB of output in one cell: replaced by a hint, so the notebook reads.
    let big_output = json!({
        "cells": [{"cell_type": "code", "id": "plot", "source": "plot()", "outputs": [
            {"output_type": "stream", "text": "o".repeat(400_000)}
        ]}],
        "metadata": {}
    });
    fs::write(dir.path().join("plot.ipynb"), big_output.to_string()).unwrap();
    let path = dir.path().join("plot.ipynb");
    let text = read(dir.path(), json!({"file_path": "plot.ipynb"})).await;
    assert_eq!(
        text,
        format!(
            "<cell id=\"plot\">plot()</cell id=\"plot\">\n\nThe outputs of this cell are too large to show. Inspect them with Bash: jq '.cells[0].outputs' {}",
            path.display()
        )
    );
    // 300 KB of source is too much: the message points to jq.
    let big_source = json!({
        "cells": (0..30).map(|i| json!({"cell_type": "code", "id": format!("c{i}"), "source": "s".repeat(10_000), "outputs": []})).collect::<Vec<_>>(),
        "metadata": {}
    });
    fs::write(dir.path().join("long.ipynb"), big_source.to_string()).unwrap();
    let text = read_error(dir.path(), json!({"file_path": "long.ipynb"})).await;
    assert!(text.starts_with("Notebook content (29"), "{text}");
    assert!(text.contains("exceeds maximum allowed size (256KB). Look at parts of it with jq through Bash"), "{text}");
}

#[tokio::test]
async fn a_read_with_cut_lines_is_recorded_with_the_whole_files_hash() {
    let dir = case_017();
    let ctx = ToolUseContext::new(dir.path());
    read_with(&ctx, json!({"file_path": "three.js", "offset": 2, "limit": 1})).await;
    let stamp = ctx.read_file_state.get(&dir.path().join("three.js")).expect("recorded");
    let bytes = fs::read(dir.path().join("three.js")).unwrap();
    assert_eq!(stamp.content_hash, Some(agent_tools_core::content_hash(&bytes)));
    assert_eq!((stamp.offset, stamp.limit, stamp.from_read, stamp.is_partial_view), (Some(2), Some(1), true, false));
    assert!(stamp.content.starts_with("yyyy") && stamp.content.len() < 3000);
}
