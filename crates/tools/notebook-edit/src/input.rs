//! NotebookEdit's input.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// The kind of cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Code, run by the notebook's kernel.
    Code,
    /// Markdown text.
    Markdown,
}

impl CellType {
    /// `code` or `markdown`, as nbformat writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Markdown => "markdown",
        }
    }
}

/// A plain string enum (as Claude Code's schema has it).
impl JsonSchema for CellType {
    fn schema_name() -> Cow<'static, str> {
        "CellType".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["code", "markdown"]})
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditMode {
    /// Replace the cell's source.
    #[default]
    Replace,
    /// Add a new cell.
    Insert,
    /// Remove the cell.
    Delete,
}

impl EditMode {
    /// `replace`, `insert` or `delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Replace => "replace",
            Self::Insert => "insert",
            Self::Delete => "delete",
        }
    }
}

/// A plain string enum (as Claude Code's schema has it).
impl JsonSchema for EditMode {
    fn schema_name() -> Cow<'static, str> {
        "EditMode".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": ["replace", "insert", "delete"]})
    }
}

/// NotebookEdit's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// The absolute path of the Jupyter notebook (`.ipynb`) to change (a relative path is
    /// resolved against the working directory).
    pub notebook_path: String,
    /// The cell to change: its `id` as Read shows it, or `cell-N` for the N-th cell counting from
    /// 0. For an insert, the new cell goes after this one, or first when it is left out.
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The cell's new source (ignored by a delete).
    pub new_source: String,
    /// `code` or `markdown`. Required to insert; for a replace it defaults to the cell's type and
    /// otherwise converts the cell.
    #[serde(default)]
    pub cell_type: Option<CellType>,
    /// `replace` (the default) the cell's source, `insert` a new cell, or `delete` the cell.
    #[serde(default)]
    pub edit_mode: Option<EditMode>,
}

impl NotebookEditInput {
    /// The edit mode (replace when not given).
    pub fn edit_mode(&self) -> EditMode {
        self.edit_mode.unwrap_or_default()
    }
}
