//! NotebookEdit's output → `tool_result` text, and NotebookEdit's messages. The exact strings live
//! here (the read-before-write refusals it shares with Edit and Write come from
//! `agent_tools_files::StaleRead`).

use serde::Serialize;

/// What NotebookEdit returns (Claude Code's output fields; the MCP `structuredContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotebookEditOutput {
    /// The new source as the model gave it.
    pub new_source: String,
    /// The cell: the `cell_id` given (replace, delete), or the new cell's id (insert; `cell-N`
    /// in a notebook whose cells have no ids).
    pub cell_id: String,
    /// The type of the cell (`code`, `markdown`, `raw`).
    pub cell_type: String,
    /// The notebook's language (`metadata.language_info.name`, else `python`).
    pub language: String,
    /// `replace`, `insert` or `delete`.
    pub edit_mode: String,
    /// The path as the model gave it.
    pub notebook_path: String,
    /// The notebook's text before the edit.
    pub original_file: String,
    /// The notebook's text after it.
    pub updated_file: String,
}

/// The result text (Claude Code's).
pub fn render(output: &NotebookEditOutput) -> String {
    let NotebookEditOutput { cell_id, new_source, .. } = output;
    match output.edit_mode.as_str() {
        "insert" => format!("Inserted cell {cell_id} with {new_source}"),
        "delete" => format!("Deleted cell {cell_id}"),
        _ => format!("Updated cell {cell_id} with {new_source}"),
    }
}

/// No file at the path (Claude Code's text).
pub const NOTEBOOK_MISSING: &str = "Notebook file does not exist.";

/// A path that is not a `.ipynb` file (Claude Code's text, naming the tool as the model knows it:
/// Claude Code says "FileEdit", a name the model never sees).
pub const NOT_A_NOTEBOOK_PATH: &str =
    "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.";

/// An insert without `cell_type` (Claude Code's text).
pub const CELL_TYPE_REQUIRED: &str = "Cell type is required when using edit_mode=insert.";

/// The file is not JSON (Claude Code's text).
pub const INVALID_JSON: &str = "Notebook is not valid JSON.";

/// The file is JSON but has no `cells` list (ours; Claude Code fails with a script error).
pub const NO_CELLS: &str =
    "The file is valid JSON but not a Jupyter notebook: it has no \"cells\" list. Use Edit or Write to change it.";

/// A replace or delete without `cell_id` (Claude Code's text).
pub const CELL_ID_REQUIRED: &str = "Cell ID must be specified when not inserting a new cell.";

/// `cell-N` past the last cell (Claude Code's text).
pub fn index_missing(index: &str) -> String {
    format!("Cell with index {index} does not exist in notebook.")
}

/// No cell with this id (Claude Code's text).
pub fn id_not_found(cell_id: &str) -> String {
    format!("Cell with ID \"{cell_id}\" not found in notebook.")
}

/// The cell is not a JSON object (ours).
pub fn cell_not_object(index: usize) -> String {
    format!("Cell {index} (cell-{index}) of the notebook is not a JSON object, so it cannot be edited.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(edit_mode: &str) -> NotebookEditOutput {
        NotebookEditOutput {
            new_source: "print(2 + 2)".into(),
            cell_id: "calc".into(),
            cell_type: "code".into(),
            language: "python".into(),
            edit_mode: edit_mode.into(),
            notebook_path: "/w/nb.ipynb".into(),
            original_file: "{}".into(),
            updated_file: "{}".into(),
        }
    }

    #[test]
    fn texts_match_claude_code() {
        assert_eq!(render(&output("replace")), "Updated cell calc with print(2 + 2)");
        assert_eq!(render(&output("insert")), "Inserted cell calc with print(2 + 2)");
        assert_eq!(render(&output("delete")), "Deleted cell calc");
        assert_eq!(index_missing("7"), "Cell with index 7 does not exist in notebook.");
        assert_eq!(id_not_found("x"), "Cell with ID \"x\" not found in notebook.");
        let json = serde_json::to_value(output("replace")).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "new_source",
                "cell_id",
                "cell_type",
                "language",
                "edit_mode",
                "notebook_path",
                "original_file",
                "updated_file"
            ]
        );
    }
}
