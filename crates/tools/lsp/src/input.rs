//! LSP's input.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// What to ask the language server (Claude Code's `operation` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Operation {
    /// Where the symbol at the position is defined (`textDocument/definition`).
    GoToDefinition,
    /// Every use of the symbol at the position, its declaration included
    /// (`textDocument/references`).
    FindReferences,
    /// The type and documentation of the symbol at the position (`textDocument/hover`).
    Hover,
    /// The symbols declared in the file, nested as in the source (`textDocument/documentSymbol`).
    DocumentSymbol,
    /// Symbols of the whole workspace whose names match `query` (`workspace/symbol`).
    WorkspaceSymbol,
    /// The implementations of the interface or abstract member at the position
    /// (`textDocument/implementation`).
    GoToImplementation,
    /// The call hierarchy item (function, method) at the position
    /// (`textDocument/prepareCallHierarchy`).
    PrepareCallHierarchy,
    /// The functions that call the one at the position (`callHierarchy/incomingCalls`).
    IncomingCalls,
    /// The functions that the one at the position calls (`callHierarchy/outgoingCalls`).
    OutgoingCalls,
}

impl Operation {
    /// Every operation, in the schema's order.
    pub const ALL: [Self; 9] = [
        Self::GoToDefinition,
        Self::FindReferences,
        Self::Hover,
        Self::DocumentSymbol,
        Self::WorkspaceSymbol,
        Self::GoToImplementation,
        Self::PrepareCallHierarchy,
        Self::IncomingCalls,
        Self::OutgoingCalls,
    ];

    /// The name as the model spells it (`goToDefinition`), used in `Error performing …`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GoToDefinition => "goToDefinition",
            Self::FindReferences => "findReferences",
            Self::Hover => "hover",
            Self::DocumentSymbol => "documentSymbol",
            Self::WorkspaceSymbol => "workspaceSymbol",
            Self::GoToImplementation => "goToImplementation",
            Self::PrepareCallHierarchy => "prepareCallHierarchy",
            Self::IncomingCalls => "incomingCalls",
            Self::OutgoingCalls => "outgoingCalls",
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A plain string enum (as Claude Code's schema has it), without per-value sub-schemas.
impl JsonSchema for Operation {
    fn schema_name() -> Cow<'static, str> {
        "Operation".into()
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Self::ALL.iter().map(|operation| operation.as_str()).collect();
        json_schema!({"type": "string", "enum": names})
    }
}

/// LSP's input (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LspInput {
    /// The operation to perform: goToDefinition, findReferences, hover, documentSymbol,
    /// workspaceSymbol, goToImplementation, prepareCallHierarchy, incomingCalls or
    /// outgoingCalls.
    pub operation: Operation,
    /// The file to ask about: an absolute path, or one relative to the working directory.
    pub file_path: String,
    /// The line of the position, counting from 1 as editors show it.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// The column of the position, counting from 1 as editors show it.
    #[schemars(range(min = 1))]
    pub character: u32,
    /// The symbol name, or part of it, to search for (workspaceSymbol only). Most servers
    /// return nothing for an empty query.
    #[serde(default)]
    pub query: Option<String>,
}
