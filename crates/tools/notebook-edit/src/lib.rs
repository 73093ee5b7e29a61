//! # agent-tool-notebook-edit: the NotebookEdit tool
//!
//! Replaces, inserts or deletes one cell of a Jupyter notebook, as Claude Code's `NotebookEdit`
//! tool does: the same name, input fields (`notebook_path`, `cell_id`, `new_source`, `cell_type`,
//! `edit_mode`), checks with the same texts (`Notebook file does not exist.`, `Cell type is
//! required when using edit_mode=insert.`, `Notebook is not valid JSON.`, `Cell ID must be
//! specified when not inserting a new cell.`, `Cell with index N does not exist in notebook.`,
//! `Cell with ID "X" not found in notebook.`, and Edit's `File has not been read yet. …` /
//! `File has been modified since read, …`) and the same result texts (`Updated cell ID with
//! SOURCE`, `Inserted cell ID with SOURCE`, `Deleted cell ID`). Like Claude Code it is deferred
//! (`should_defer`): its schema is sent once ToolSearch loads it.
//!
//! - `cell_id` is a cell's `id`, or `cell-N` for the N-th cell from 0 (the form Read shows for
//!   cells without ids); an insert goes after that cell, or first without `cell_id`;
//! - a replace sets the source and, for a code cell, empties `outputs` and sets
//!   `execution_count` to `null` (the key stays, as nbformat requires); a `cell_type` different
//!   from the cell's converts it;
//! - a new cell gets an `id` (8 hex digits, as nbformat makes them) in nbformat 4.5 and later,
//!   none before; new code cells have `execution_count: null`, `outputs: []` and `metadata: {}`.
//!
//! **The file keeps its layout.** Claude Code parses the notebook and writes all of it back
//! (`JSON.stringify(nb, null, 1)`), which rewrites the edited cell's `source` list as one string
//! and can re-serialise every other cell; Jupyter then converts it back on its next save, and
//! each agent edit shows as a large diff. Here the notebook is never re-serialised:
//! the edited cell is rebuilt from the text of its members that stay, the values that change are
//! written in the file's own layout — its indentation (Jupyter's one space, or whatever the file
//! uses, or one line), `": "` or `":"`, non-ASCII characters as they are or as `\uXXXX`, CRLF or LF
//! — and `source` as nbformat writes it: a list of lines each ending in its line break but the
//! last, or one string when the cell had one. A new cell takes its neighbour's key order
//! (Jupyter's sorted keys). Every byte outside the edited cell stays as it was, the final
//! newline included, and the encoding (UTF-8, with or without BOM, UTF-16) is kept.
//!
//! Also different from Claude Code, on purpose:
//! - "changed since read" is decided by content, not modification time (as for Edit and Write);
//! - converting a cell between code and markdown keeps it valid nbformat: a code cell gets
//!   `execution_count` and `outputs` (Claude Code leaves them out) and loses `attachments`, a
//!   markdown cell loses the code-only keys (Claude Code keeps them);
//! - in a notebook without cell ids the result names the cell as the model can address it
//!   (`cell-N`, or the `cell_id` given) instead of `undefined`;
//! - the output data's `cell_type` is the cell's real type (Claude Code reports `code` for a
//!   markdown replace without `cell_type`); failures are error results, not output data with an
//!   `error` field;
//! - the write is atomic and keeps the file's permissions; a file that is not `.ipynb` is pointed
//!   to Edit (Claude Code names it "FileEdit", which the model never sees).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::call_tool;
//! use serde_json::json;
//! let session = agent_tools_testkit::Session::new(); // a temporary folder and one context
//! let path = session.put("nb.ipynb", agent_tools_testkit::NOTEBOOK); // cells `intro`, `calc`
//! session.mark_read(&path); // what the Read tool records: NotebookEdit refuses unread notebooks
//! let input = json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(2 + 2)"});
//! let done = call_tool(agent_tool_notebook_edit::tool().as_ref(), "toolu_1", input, &session.ctx).await;
//! assert_eq!(done.block.content.text(), "Updated cell calc with print(2 + 2)");
//! let notebook: serde_json::Value = serde_json::from_slice(&session.bytes("nb.ipynb")).unwrap();
//! assert_eq!(notebook["cells"][1]["source"], json!(["print(2 + 2)"]));
//! # });
//! ```

mod input;
mod json;
mod notebook;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use agent_tools_files::{StaleRead, messages, record_write, write_atomic};

pub use crate::input::{CellType, EditMode, NotebookEditInput};
pub use crate::json::split_lines;
use crate::notebook::{Refusal, Request};
pub use crate::render::NotebookEditOutput;

/// The API name.
pub const NAME: &str = "NotebookEdit";

/// Result size past which the executor persists the result (Claude Code's 100,000).
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// `validate_input` error codes (Claude Code's numbers; ours from 11).
pub mod error_codes {
    /// No file at the path.
    pub const MISSING: i32 = 1;
    /// Not a `.ipynb` path.
    pub const NOT_A_NOTEBOOK_PATH: i32 = 2;
    /// An insert without `cell_type`.
    pub const CELL_TYPE_REQUIRED: i32 = 5;
    /// Not JSON.
    pub const INVALID_JSON: i32 = 6;
    /// `cell_id` missing, or `cell-N` out of range.
    pub const CELL_INDEX: i32 = 7;
    /// No cell with the id.
    pub const CELL_NOT_FOUND: i32 = 8;
    /// Not read.
    pub const NOT_READ: i32 = 9;
    /// Changed since read.
    pub const MODIFIED_SINCE_READ: i32 = 10;
    /// A folder, device, binary or oversized file, or one that cannot be read.
    pub const NOT_A_TEXT_FILE: i32 = 11;
    /// The file's encoding cannot take the edit (broken bytes, or a character it lacks).
    pub const ENCODING: i32 = 12;
    /// JSON that is not a notebook (no `cells` list, a cell that is not an object).
    pub const NOT_A_NOTEBOOK: i32 = 13;
}

/// The NotebookEdit tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct NotebookEditTool;

/// NotebookEdit, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(NotebookEditTool)
}

/// The message and error code for a refusal; `at_call` words a change found in `call` (after
/// validation passed) as Claude Code does.
fn refusal_message(refusal: &Refusal, notebook_path: &str, at_call: bool) -> (String, i32) {
    use error_codes as code;
    match refusal {
        Refusal::NotNotebookPath => (render::NOT_A_NOTEBOOK_PATH.to_owned(), code::NOT_A_NOTEBOOK_PATH),
        Refusal::CellTypeRequired => (render::CELL_TYPE_REQUIRED.to_owned(), code::CELL_TYPE_REQUIRED),
        Refusal::Missing => (render::NOTEBOOK_MISSING.to_owned(), code::MISSING),
        Refusal::Load(error) => (messages::load_error("edit", notebook_path, error), code::NOT_A_TEXT_FILE),
        Refusal::Stale(stale) => {
            let code = match stale {
                StaleRead::NotRead => code::NOT_READ,
                StaleRead::Modified => code::MODIFIED_SINCE_READ,
            };
            (stale.message(at_call).to_owned(), code)
        }
        Refusal::Undecodable(encoding) => (messages::undecodable(notebook_path, encoding), code::ENCODING),
        Refusal::InvalidJson => (render::INVALID_JSON.to_owned(), code::INVALID_JSON),
        Refusal::NoCells => (render::NO_CELLS.to_owned(), code::NOT_A_NOTEBOOK),
        Refusal::CellIdRequired => (render::CELL_ID_REQUIRED.to_owned(), code::CELL_INDEX),
        Refusal::IndexMissing(index) => (render::index_missing(index), code::CELL_INDEX),
        Refusal::IdNotFound(cell_id) => (render::id_not_found(cell_id), code::CELL_NOT_FOUND),
        Refusal::CellNotObject(index) => (render::cell_not_object(*index), code::NOT_A_NOTEBOOK),
        Refusal::Unrepresentable(problem) => (messages::unrepresentable(notebook_path, problem), code::ENCODING),
    }
}

fn request(input: &NotebookEditInput) -> Request<'_> {
    Request {
        cell_id: input.cell_id.as_deref(),
        new_source: &input.new_source,
        cell_type: input.cell_type,
        mode: input.edit_mode(),
    }
}

impl ToolDef for NotebookEditTool {
    type Input = NotebookEditInput;
    type Output = NotebookEditOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Edit)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false })
        .deferred()
        .search_hint("edit Jupyter notebook cells (.ipynb)");

    fn summary(&self, input: &NotebookEditInput) -> String {
        format!("Edit notebook {}", input.notebook_path)
    }

    /// What the auto mode's classifier judges: The notebook and the cell's new source.
    fn to_auto_classifier_input(&self, input: &NotebookEditInput) -> serde_json::Value {
        serde_json::Value::String(format!("{}: {}", input.notebook_path, input.new_source))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_SIZE_CHARS)
    }

    fn user_facing_name(&self, _input: Option<&NotebookEditInput>) -> String {
        "Edit Notebook".to_owned()
    }

    fn get_path(&self, input: &NotebookEditInput) -> Option<String> {
        Some(input.notebook_path.clone())
    }

    fn activity_description(&self, input: &NotebookEditInput) -> Option<String> {
        Some(format!("Editing notebook {}", input.notebook_path))
    }

    async fn check_permissions(
        &self,
        input: &NotebookEditInput,
        ctx: &ToolUseContext,
    ) -> agent_tools_core::PermissionResult {
        agent_tools_permissions::check_write_permission(&ctx.resolve_path(&input.notebook_path), ctx)
    }

    async fn validate_input(&self, input: &NotebookEditInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(message) =
            agent_tools_permissions::edit_denied_message(&ctx.resolve_path(&input.notebook_path), ctx)
        {
            return ValidationResult::denied_by_rule(message);
        }
        let path = ctx.resolve_path(&input.notebook_path);
        let state = ctx.read_file_state.clone();
        let owned = input.clone();
        let checked = tokio::task::spawn_blocking(move || notebook::plan(&path, &state, request(&owned)).err()).await;
        match checked {
            Ok(None) => ValidationResult::Ok,
            Ok(Some(refusal)) => {
                let (message, code) = refusal_message(&refusal, &input.notebook_path, false);
                ValidationResult::error(message, code)
            }
            // The check could not run; `call` checks again before writing anything.
            Err(_) => ValidationResult::Ok,
        }
    }

    async fn call(
        &self,
        input: NotebookEditInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<NotebookEditOutput>, ToolError> {
        let path = ctx.resolve_path(&input.notebook_path);
        let state = ctx.read_file_state.clone();
        tokio::task::spawn_blocking(move || {
            // Everything is checked again: the notebook may have changed since validation.
            let planned = notebook::plan(&path, &state, request(&input))
                .map_err(|refusal| ToolError::failed(refusal_message(&refusal, &input.notebook_path, true).0))?;
            let original_file = planned.original.raw.clone();
            if planned.raw != original_file {
                write_atomic(&path, &planned.bytes)
                    .map_err(|error| ToolError::failed(messages::cannot_write(&input.notebook_path, error)))?;
            }
            record_write(&state, &path, &planned.text(), &planned.bytes);
            let edit_mode = input.edit_mode().as_str().to_owned();
            Ok(ToolResult::new(NotebookEditOutput {
                new_source: input.new_source,
                cell_id: planned.cell_id,
                cell_type: planned.cell_type,
                language: planned.language,
                edit_mode,
                notebook_path: input.notebook_path,
                original_file,
                updated_file: planned.raw,
            }))
        })
        .await
        .map_err(|error| ToolError::internal(format!("notebook edit worker failed: {error}")))?
    }

    fn map_tool_result(&self, output: &NotebookEditOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
