//! NotebookEdit on real files: Claude Code's recorded result (after a
//! Read on the same context, recorded as Read records it), Jupyter's layout byte for byte against expected notebooks, insert and
//! delete, the `cell-N` form, notebooks without cell ids, other layouts, every refusal, and
//! generated calls.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_tools_testkit::Session;
use serde_json::{Value, json};

const NOT_READ: &str =
    "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>";
const MODIFIED: &str = "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>";

/// NotebookEdit's calls in a testkit session.
trait NotebookSession {
    async fn read(&self, file_path: &str) -> String;
    async fn edit_ok(&self, input: Value) -> String;
    async fn edit_err(&self, input: Value) -> String;
}

impl NotebookSession for Session {
    async fn read(&self, file_path: &str) -> String {
        self.mark_read(file_path)
    }

    async fn edit_ok(&self, input: Value) -> String {
        self.ok(agent_tool_notebook_edit::tool().as_ref(), input).await
    }

    async fn edit_err(&self, input: Value) -> String {
        self.err(agent_tool_notebook_edit::tool().as_ref(), input).await
    }
}

fn wrapped(message: &str) -> String {
    format!("<tool_use_error>{message}</tool_use_error>")
}

fn text(s: &Session, name: &str) -> String {
    String::from_utf8(s.bytes(name)).unwrap()
}

/// The id in `Inserted cell ID with …`.
fn inserted_id(result: &str) -> String {
    result.strip_prefix("Inserted cell ").unwrap().split(' ').next().unwrap().to_owned()
}

// ----- the oracle -----

#[tokio::test]
async fn oracle_notebook_edit_replace_after_read() {
    let s = Session::in_dir(agent_tools_testkit::oracle_fixture());
    let path = s.abs("nb.ipynb");
    // Observation 4 of LOOP.md: an unread notebook is refused.
    assert_eq!(
        s.edit_err(json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(2 + 2)"})).await,
        NOT_READ
    );
    assert_eq!(text(&s, "nb.ipynb"), agent_tools_testkit::NOTEBOOK);

    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(2 + 2)"})).await,
        "Updated cell calc with print(2 + 2)"
    );
    // Claude Code's file after, except that `source` stays a list and the rest of the
    // file keeps its bytes (Claude Code's output happens to match it elsewhere).
    let expected = agent_tools_testkit::NOTEBOOK.replace(
        "   \"execution_count\": 1,\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"2\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n    \"print(1 + 1)\"\n   ]",
        "   \"execution_count\": null,\n   \"outputs\": [],\n   \"source\": [\n    \"print(2 + 2)\"\n   ]",
    );
    assert_ne!(expected, agent_tools_testkit::NOTEBOOK);
    assert_eq!(text(&s, "nb.ipynb"), expected);
}

// ----- Jupyter's layout survives, outputs are cleared properly -----

const CASE_038: &str = include_str!("fixtures/038-nb.ipynb");
const CASE_038_STEP1: &str = include_str!("fixtures/038-after-step1.ipynb");
const CASE_038_STEP2: &str = include_str!("fixtures/038-after-step2.ipynb");

#[tokio::test]
async fn case_038_replace_keeps_the_nbformat_layout_byte_for_byte() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "intro-md", "new_source": "# Title\nLine one\nLine two", "edit_mode": "replace"}))
            .await,
        "Updated cell intro-md with # Title\nLine one\nLine two"
    );
    assert_eq!(text(&s, "nb.ipynb"), CASE_038_STEP1);
    // No new Read: the edit refreshed the read state.
    assert_eq!(
        s.edit_ok(
            json!({"notebook_path": path, "cell_id": "load-data", "new_source": "print('hi')", "edit_mode": "replace"})
        )
        .await,
        "Updated cell load-data with print('hi')"
    );
    assert_eq!(text(&s, "nb.ipynb"), CASE_038_STEP2);
    let nb: Value = serde_json::from_str(&text(&s, "nb.ipynb")).unwrap();
    let cell = &nb["cells"][1];
    assert_eq!(cell.get("execution_count"), Some(&Value::Null));
    assert_eq!(cell["outputs"], json!([]));
    assert_eq!(cell["id"], "load-data");
}

#[tokio::test]
async fn the_output_data_has_claude_codes_fields() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    let done = agent_tools_core::call_tool(
        agent_tool_notebook_edit::tool().as_ref(),
        "toolu_1",
        json!({"notebook_path": path, "cell_id": "intro-md", "new_source": "# Title\nLine one\nLine two"}),
        &s.ctx,
    )
    .await;
    assert!(!done.block.is_error);
    let data = done.data.unwrap().to_json();
    assert_eq!(
        data,
        json!({
            "new_source": "# Title\nLine one\nLine two",
            "cell_id": "intro-md",
            "cell_type": "markdown",
            "language": "python",
            "edit_mode": "replace",
            "notebook_path": path,
            "original_file": CASE_038,
            "updated_file": CASE_038_STEP1,
        })
    );
}

// ----- insert and delete -----

/// The 038 notebook's cells, for building expected files.
const INTRO: &str = "  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"intro-md\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Title\\n\",\n    \"Line one\"\n   ]\n  }";
const PLOT: &str = "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 4,\n   \"id\": \"plot\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\"\n   ]\n  }";

#[tokio::test]
async fn insert_goes_after_the_cell_with_a_new_id_in_jupyters_key_order() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    let result = s
        .edit_ok(json!({"notebook_path": path, "cell_id": "plot", "new_source": "y = 2\nprint(y)\n", "cell_type": "code", "edit_mode": "insert"}))
        .await;
    let id = inserted_id(&result);
    assert_eq!(result, format!("Inserted cell {id} with y = 2\nprint(y)\n"));
    assert_eq!(id.len(), 8);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    let new_cell = format!(
        "  {{\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"{id}\",\n   \"metadata\": {{}},\n   \"outputs\": [],\n   \"source\": [\n    \"y = 2\\n\",\n    \"print(y)\\n\"\n   ]\n  }}"
    );
    assert_eq!(text(&s, "nb.ipynb"), CASE_038.replace(&format!("{PLOT}\n"), &format!("{PLOT},\n{new_cell}\n")));

    // Without cell_id: at the top. A markdown cell has no code keys.
    let result = s
        .edit_ok(json!({"notebook_path": path, "new_source": "Intro", "cell_type": "markdown", "edit_mode": "insert"}))
        .await;
    let top = inserted_id(&result);
    assert_ne!(top, id);
    let md_cell = format!(
        "  {{\n   \"cell_type\": \"markdown\",\n   \"id\": \"{top}\",\n   \"metadata\": {{}},\n   \"source\": [\n    \"Intro\"\n   ]\n  }}"
    );
    let expected = CASE_038
        .replace(&format!("{PLOT}\n"), &format!("{PLOT},\n{new_cell}\n"))
        .replace(&format!("[\n{INTRO}"), &format!("[\n{md_cell},\n{INTRO}"));
    assert_eq!(text(&s, "nb.ipynb"), expected);
    let nb: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(nb["cells"].as_array().unwrap().len(), 5);

    // By index: after cell-0 (the new markdown cell).
    let result = s
        .edit_ok(json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "", "cell_type": "code", "edit_mode": "insert"}))
        .await;
    let nb: Value = serde_json::from_str(&text(&s, "nb.ipynb")).unwrap();
    assert_eq!(nb["cells"][1]["id"], inserted_id(&result));
    // An empty source is an empty list, as nbformat writes it.
    assert_eq!(nb["cells"][1]["source"], json!([]));
    assert!(text(&s, "nb.ipynb").contains("   \"source\": []\n"));
}

#[tokio::test]
async fn delete_removes_exactly_the_cell() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    // The middle cell.
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "load-data", "new_source": "", "edit_mode": "delete"}))
            .await,
        "Deleted cell load-data"
    );
    assert_eq!(text(&s, "nb.ipynb"), format!("{{\n \"cells\": [\n{INTRO},\n{PLOT}\n ],\n{}", tail_of_038()));
    // The last cell.
    s.edit_ok(json!({"notebook_path": path, "cell_id": "plot", "new_source": "", "edit_mode": "delete"})).await;
    assert_eq!(text(&s, "nb.ipynb"), format!("{{\n \"cells\": [\n{INTRO}\n ],\n{}", tail_of_038()));
    // The only cell, by index: the list is written `[]`, as Jupyter writes it.
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "", "edit_mode": "delete"})).await,
        "Deleted cell cell-0"
    );
    assert_eq!(text(&s, "nb.ipynb"), format!("{{\n \"cells\": [],\n{}", tail_of_038()));
    // And a first cell into the empty list.
    let result = s
        .edit_ok(json!({"notebook_path": path, "new_source": "a\nb", "cell_type": "markdown", "edit_mode": "insert"}))
        .await;
    let id = inserted_id(&result);
    assert_eq!(
        text(&s, "nb.ipynb"),
        format!(
            "{{\n \"cells\": [\n  {{\n   \"cell_type\": \"markdown\",\n   \"id\": \"{id}\",\n   \"metadata\": {{}},\n   \"source\": [\n    \"a\\n\",\n    \"b\"\n   ]\n  }}\n ],\n{}",
            tail_of_038()
        )
    );
}

/// Everything after the cells list of the 038 notebook.
fn tail_of_038() -> &'static str {
    let at = CASE_038.find(" \"metadata\": {\n  \"kernelspec\"").unwrap();
    &CASE_038[at..]
}

#[tokio::test]
async fn the_index_form_addresses_cells_and_is_checked() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "cell-2", "new_source": "x = 2"})).await,
        "Updated cell cell-2 with x = 2"
    );
    assert_eq!(
        text(&s, "nb.ipynb"),
        CASE_038.replace("\"execution_count\": 4", "\"execution_count\": null").replace("\"x = 1\"", "\"x = 2\"")
    );
    assert_eq!(
        s.edit_err(json!({"notebook_path": path, "cell_id": "cell-3", "new_source": "x"})).await,
        wrapped("Cell with index 3 does not exist in notebook.")
    );
    assert_eq!(
        s.edit_err(json!({"notebook_path": path, "cell_id": "nope", "new_source": "x"})).await,
        wrapped("Cell with ID \"nope\" not found in notebook.")
    );
}

// ----- notebooks older than nbformat 4.5: no ids -----

const OLD_FORMAT: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 2,
   "metadata": {
    "scrolled": true
   },
   "outputs": [
    {
     "data": {
      "text/plain": [
       "3"
      ]
     },
     "execution_count": 2,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "1 + 2"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 2
}
"#;

#[tokio::test]
async fn old_notebooks_get_no_ids_and_results_name_cells_by_index() {
    let s = Session::new();
    let path = s.put("old.ipynb", OLD_FORMAT);
    s.read(&path).await;
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "a = 1\nb = 2", "edit_mode": "insert", "cell_type": "code"}))
            .await,
        "Inserted cell cell-1 with a = 1\nb = 2"
    );
    let nb: Value = serde_json::from_str(&text(&s, "old.ipynb")).unwrap();
    assert_eq!(
        nb["cells"][1],
        json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["a = 1\n", "b = 2"]})
    );
    assert_eq!(
        s.edit_ok(json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "1 + 3"})).await,
        "Updated cell cell-0 with 1 + 3"
    );
    let expected_first = "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"metadata\": {\n    \"scrolled\": true\n   },\n   \"outputs\": [],\n   \"source\": [\n    \"1 + 3\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"a = 1\\n\",\n    \"b = 2\"\n   ]\n  }\n";
    assert_eq!(
        text(&s, "old.ipynb"),
        format!(
            "{{\n \"cells\": [\n{expected_first} ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 2\n}}\n"
        )
    );
}

// ----- converting cells keeps them valid -----

#[tokio::test]
async fn converting_a_cell_adds_and_removes_the_code_keys() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    s.edit_ok(json!({"notebook_path": path, "cell_id": "intro-md", "new_source": "import os", "cell_type": "code"}))
        .await;
    let code = "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"intro-md\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"import os\"\n   ]\n  }";
    assert_eq!(text(&s, "nb.ipynb"), CASE_038.replace(INTRO, code));
    s.edit_ok(json!({"notebook_path": path, "cell_id": "intro-md", "new_source": "# Back", "cell_type": "markdown"}))
        .await;
    let markdown = "  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"intro-md\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Back\"\n   ]\n  }";
    assert_eq!(text(&s, "nb.ipynb"), CASE_038.replace(INTRO, markdown));
}

// ----- other layouts are kept too -----

#[tokio::test]
async fn two_space_crlf_string_sources_and_unicode_are_kept() {
    let s = Session::new();
    let original = "{\r\n  \"nbformat\": 4,\r\n  \"nbformat_minor\": 5,\r\n  \"metadata\": {\"language_info\": {\"name\": \"julia\"}},\r\n  \"cells\": [\r\n    {\r\n      \"id\": \"a\",\r\n      \"cell_type\": \"markdown\",\r\n      \"source\": \"Caf\u{e9} \u{1F600}\",\r\n      \"metadata\": {}\r\n    }\r\n  ]\r\n}";
    let path = s.put("vs.ipynb", original);
    s.read(&path).await;
    s.edit_ok(json!({"notebook_path": path, "cell_id": "a", "new_source": "Th\u{e9} \"end\"\n\tdone"})).await;
    assert_eq!(text(&s, "vs.ipynb"), original.replace("Caf\u{e9} \u{1F600}", "Th\u{e9} \\\"end\\\"\\n\\tdone"));
    // A new cell follows its neighbour: key order, string source; CRLF, two spaces.
    let result = s
        .edit_ok(json!({"notebook_path": path, "cell_id": "a", "new_source": "x", "cell_type": "code", "edit_mode": "insert"}))
        .await;
    let id = inserted_id(&result);
    let done = agent_tools_core::call_tool(
        agent_tool_notebook_edit::tool().as_ref(),
        "toolu_2",
        json!({"notebook_path": path, "cell_id": id, "new_source": "y"}),
        &s.ctx,
    )
    .await;
    assert_eq!(done.data.unwrap().to_json()["language"], "julia");
    let new_cell = format!(
        "    {{\r\n      \"id\": \"{id}\",\r\n      \"cell_type\": \"code\",\r\n      \"source\": \"y\",\r\n      \"metadata\": {{}},\r\n      \"execution_count\": null,\r\n      \"outputs\": []\r\n    }}"
    );
    let first = "    {\r\n      \"id\": \"a\",\r\n      \"cell_type\": \"markdown\",\r\n      \"source\": \"Th\u{e9} \\\"end\\\"\\n\\tdone\",\r\n      \"metadata\": {}\r\n    }";
    assert_eq!(
        text(&s, "vs.ipynb"),
        format!("{}{first},\r\n{new_cell}\r\n  ]\r\n}}", &original[..original.find("    {").unwrap()])
    );
}

#[tokio::test]
async fn one_line_ascii_json_stays_one_line_ascii() {
    let s = Session::new();
    let original = "{\"cells\":[{\"cell_type\":\"code\",\"execution_count\":7,\"id\":\"c\",\"metadata\":{},\"outputs\":[{\"output_type\":\"stream\",\"name\":\"stdout\",\"text\":\"\\u00e9\"}],\"source\":\"print('\\u00e9')\"}],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}";
    let path = s.put("c.ipynb", original);
    s.mark_read("c.ipynb");
    s.edit_ok(json!({"notebook_path": path, "cell_id": "c", "new_source": "print('\u{e8}')\nx = 1"})).await;
    assert_eq!(
        text(&s, "c.ipynb"),
        "{\"cells\":[{\"cell_type\":\"code\",\"execution_count\":null,\"id\":\"c\",\"metadata\":{},\"outputs\":[],\"source\":\"print('\\u00e8')\\nx = 1\"}],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}"
    );
}

#[tokio::test]
async fn a_byte_order_mark_and_the_file_mode_are_kept() {
    let s = Session::new();
    let path = s.put("bom.ipynb", format!("\u{feff}{CASE_038}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(s.path("bom.ipynb"), std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    s.mark_read("bom.ipynb");
    s.edit_ok(json!({"notebook_path": path, "cell_id": "intro-md", "new_source": "# Title\nLine one\nLine two"})).await;
    assert_eq!(text(&s, "bom.ipynb"), format!("\u{feff}{CASE_038_STEP1}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(s.path("bom.ipynb")).unwrap().permissions().mode() & 0o777, 0o640);
    }
}

// ----- refusals -----

#[tokio::test]
async fn refusals_leave_the_notebook_alone() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    let edit = |extra: Value| {
        let mut input = json!({"notebook_path": path, "new_source": "x"});
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        input
    };
    // Not read yet.
    assert_eq!(s.edit_err(edit(json!({"cell_id": "plot"}))).await, NOT_READ);
    s.read(&path).await;
    // Not a notebook path, a missing notebook.
    let other = s.put("notes.txt", "x\n");
    assert_eq!(
        s.edit_err(json!({"notebook_path": other, "cell_id": "a", "new_source": "x"})).await,
        wrapped("File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.")
    );
    assert_eq!(
        s.edit_err(json!({"notebook_path": s.abs("missing.ipynb"), "cell_id": "a", "new_source": "x"})).await,
        wrapped("Notebook file does not exist.")
    );
    // Insert without a type; replace and delete without a cell.
    assert_eq!(
        s.edit_err(edit(json!({"edit_mode": "insert"}))).await,
        wrapped("Cell type is required when using edit_mode=insert.")
    );
    for mode in ["replace", "delete"] {
        assert_eq!(
            s.edit_err(edit(json!({"edit_mode": mode}))).await,
            wrapped("Cell ID must be specified when not inserting a new cell.")
        );
    }
    // A bad edit_mode or cell_type is a schema error.
    let bad = s.edit_err(edit(json!({"cell_id": "plot", "edit_mode": "append"}))).await;
    assert!(bad.starts_with("<tool_use_error>InputValidationError: NotebookEdit failed"), "{bad}");
    assert!(bad.contains("edit_mode"), "{bad}");
    let bad = s.edit_err(edit(json!({"cell_id": "plot", "cell_type": "raw"}))).await;
    assert!(bad.contains("cell_type"), "{bad}");
    assert_eq!(text(&s, "nb.ipynb"), CASE_038);

    // Changed on disk since the read.
    s.put("nb.ipynb", CASE_038.replace("x = 1", "x = 3"));
    assert_eq!(s.edit_err(edit(json!({"cell_id": "plot"}))).await, MODIFIED);
    assert_eq!(text(&s, "nb.ipynb"), CASE_038.replace("x = 1", "x = 3"));

    // Not JSON, JSON without cells, a cell that is not an object.
    s.put("bad.ipynb", "{\"cells\": [");
    s.mark_read("bad.ipynb");
    assert_eq!(
        s.edit_err(json!({"notebook_path": s.abs("bad.ipynb"), "cell_id": "a", "new_source": "x"})).await,
        wrapped("Notebook is not valid JSON.")
    );
    s.put("plain.ipynb", "{\"not\": \"a notebook\"}");
    s.mark_read("plain.ipynb");
    assert_eq!(
        s.edit_err(json!({"notebook_path": s.abs("plain.ipynb"), "cell_id": "a", "new_source": "x"})).await,
        wrapped(
            "The file is valid JSON but not a Jupyter notebook: it has no \"cells\" list. Use Edit or Write to change it."
        )
    );
    s.put("odd.ipynb", "{\"cells\": [42]}");
    s.mark_read("odd.ipynb");
    assert_eq!(
        s.edit_err(json!({"notebook_path": s.abs("odd.ipynb"), "cell_id": "cell-0", "new_source": "x"})).await,
        wrapped("Cell 0 (cell-0) of the notebook is not a JSON object, so it cannot be edited.")
    );
    assert_eq!(text(&s, "odd.ipynb"), "{\"cells\": [42]}");
}

#[tokio::test]
async fn a_change_between_validation_and_call_is_not_lost() {
    let s = Session::new();
    let path = s.put("nb.ipynb", CASE_038);
    s.read(&path).await;
    let tool = agent_tool_notebook_edit::tool();
    let parsed = tool.parse(json!({"notebook_path": path, "cell_id": "plot", "new_source": "y"})).unwrap();
    assert!(tool.validate_input(&parsed, &s.ctx).await.is_ok());
    s.put("nb.ipynb", CASE_038.replace("x = 1", "x = 9"));
    let error = tool.call(parsed, &s.ctx).await.unwrap_err();
    assert_eq!(error.to_string(), "File has been unexpectedly modified. Read it again before attempting to write it.");
    assert_eq!(text(&s, "nb.ipynb"), CASE_038.replace("x = 1", "x = 9"));
}

// ----- contract -----

#[test]
fn contract_flags_and_schema() {
    let tool = agent_tool_notebook_edit::tool();
    assert_eq!(tool.name(), "NotebookEdit");
    assert!(tool.should_defer());
    assert_eq!(tool.max_result_size_chars(), agent_tools_core::MaxResultSize::Chars(100_000));
    assert_eq!(
        tool.flags(),
        agent_tools_core::ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false }
    );
    assert_eq!(tool.search_hint(), Some("edit Jupyter notebook cells (.ipynb)"));
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["notebook_path", "new_source"]));
    assert_eq!(schema["properties"]["cell_type"]["enum"], json!(["code", "markdown"]));
    assert_eq!(schema["properties"]["edit_mode"]["enum"], json!(["replace", "insert", "delete"]));
    assert_eq!(schema["additionalProperties"], false);
    let parsed = tool.parse(json!({"notebook_path": "/x.ipynb", "new_source": ""})).unwrap();
    assert!(!tool.is_read_only(&parsed));
    assert!(!tool.is_concurrency_safe(&parsed));
    assert_eq!(tool.get_path(&parsed).as_deref(), Some("/x.ipynb"));
    assert!(tool.parse(json!({"notebook_path": "/x.ipynb"})).is_err());
}

// ----- generated inputs -----

/// Random calls on notebooks of several layouts: never an internal error (a panic), every result
/// is a valid notebook, and the cells not edited are unchanged.
#[tokio::test]
async fn generated_edits_never_panic_and_touch_only_their_cell() {
    let notebooks = [
        CASE_038.to_owned(),
        OLD_FORMAT.to_owned(),
        "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}".to_owned(),
        "{\r\n  \"cells\": [\r\n    {\"cell_type\": \"raw\", \"source\": \"r\", \"metadata\": {}}\r\n  ],\r\n  \"nbformat\": 4\r\n}\r\n"
            .to_owned(),
        "{\"nbformat\": 4, \"nbformat_minor\": 5, \"cells\": [{\"cell_type\": \"markdown\", \"id\": \"m\", \"metadata\": {}, \"source\": [\"\\u00e9\"], \"attachments\": {}}]}".to_owned(),
    ];
    let ids = ["intro-md", "load-data", "plot", "m", "cell-0", "cell-1", "cell-2", "cell-9", "cell-", "nope", ""];
    let sources = ["", "x", "a\nb\n", "caf\u{e9} \u{1F600}\r\n\"q\"\t\\", "\u{2028}\u{85}z"];
    let modes = [None, Some("replace"), Some("insert"), Some("delete")];
    let types = [None, Some("code"), Some("markdown")];
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % bound as u64).unwrap()
    };
    let s = Session::new();
    let path = s.abs("nb.ipynb");
    for round in 0..500 {
        if round % 10 == 0 {
            s.put("nb.ipynb", &notebooks[next(notebooks.len())]);
        }
        s.mark_read("nb.ipynb");
        let before: Value = serde_json::from_slice(&s.bytes("nb.ipynb")).unwrap();
        let mut input = json!({"notebook_path": path, "new_source": sources[next(sources.len())]});
        let id = ids[next(ids.len())];
        if !id.is_empty() {
            input["cell_id"] = json!(id);
        }
        if let Some(mode) = modes[next(modes.len())] {
            input["edit_mode"] = json!(mode);
        }
        if let Some(kind) = types[next(types.len())] {
            input["cell_type"] = json!(kind);
        }
        let (text, is_error) = s.run(agent_tool_notebook_edit::tool().as_ref(), input.clone()).await;
        assert!(!text.contains("worker failed"), "{input}: {text}");
        let after: Value = serde_json::from_slice(&s.bytes("nb.ipynb")).unwrap();
        let (old_cells, new_cells) = (before["cells"].as_array().unwrap(), after["cells"].as_array().unwrap());
        if is_error {
            assert_eq!(after, before, "{input}: {text}");
            continue;
        }
        // Everything but the cells list is unchanged, and all but one cell.
        let without_cells = |nb: &Value| {
            let mut nb = nb.clone();
            nb.as_object_mut().unwrap().remove("cells");
            nb
        };
        assert_eq!(without_cells(&after), without_cells(&before), "{input}");
        let common = old_cells.len().min(new_cells.len());
        let head = (0..common).take_while(|i| old_cells[*i] == new_cells[*i]).count();
        let tail = (0..common - head)
            .take_while(|i| old_cells[old_cells.len() - 1 - i] == new_cells[new_cells.len() - 1 - i])
            .count();
        assert!(old_cells.len() - head - tail <= 1 && new_cells.len() - head - tail <= 1, "{input}: {text}");
        for cell in new_cells {
            match cell["cell_type"].as_str().unwrap() {
                "code" => assert!(cell.get("outputs").is_some() && cell.get("execution_count").is_some(), "{cell}"),
                _ => assert!(cell.get("outputs").is_none(), "{cell}"),
            }
        }
    }
}
