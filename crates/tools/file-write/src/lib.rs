//! # agent-tool-file-write: the Write tool
//!
//! Creates a file or replaces its whole content, as Claude Code's `Write` tool does: the same name,
//! input fields (`file_path`, `content`) and result texts (`File created successfully at: PATH …`,
//! `The file PATH has been updated successfully. …`, with PATH as the model gave it). An existing
//! file must have been read in this session and be unchanged since (`File has not been read yet.
//! …`, `File has been modified since read, …`); a new file needs no read. Every write is recorded
//! in the file-read state, so a following Edit or Write needs no new Read.
//!
//! Trailing whitespace, as Claude Code: spaces and tabs at the end of `content`'s lines are
//! stripped, except in Markdown (`.md`, `.mdx`), where two trailing spaces are a line break.
//!
//! Where this differs from Claude Code, on purpose:
//! - the read-first rule is always enforced (Claude Code's `mcp serve` lets Write replace an
//!   unread file; its own agent loop does not), and "changed since read" is decided by the file's
//!   content, not its modification time, so a `touch` is not a change and a real change is caught;
//! - replacing a CRLF file keeps CRLF (every line break of `content` is written `\r\n`, never
//!   `\r\r\n`); in a file with mixed line endings each line `content` keeps unchanged keeps its
//!   ending and new lines take the ending of the lines around them (a line diff decides which
//!   lines stayed); the file keeps its encoding and byte-order mark (Windows-1252 too, unless
//!   the new content has characters it lacks); a new file gets `content` byte for byte, as UTF-8;
//! - the write is atomic (temporary file, sync, rename), keeps the file's permissions, writes
//!   through a symbolic link rather than replacing it, and refuses binary files, folders and
//!   devices;
//! - the trailing-whitespace stripping keeps lines that are in the replaced file exactly as
//!   written (a heredoc or a fixture with significant spaces survives a rewrite around it), and
//!   leaves `.markdown`, `.diff` and `.patch` files alone too (in a patch, a line holding one
//!   space is an unchanged empty line).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("notes/todo.txt");
//! let ctx = ToolUseContext::new(dir.path());
//! let input = json!({"file_path": path, "content": "ship it\n"});
//! let done = call_tool(agent_tool_file_write::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), format!(
//!     "File created successfully at: {} (file state is current in your context — no need to Read it back)",
//!     path.display()
//! ));
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "ship it\n");
//! # });
//! ```

mod input;
mod render;
mod write;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use agent_tools_files::{StaleRead, keeps_trailing_whitespace, messages, record_write, structured_patch, write_atomic};

pub use crate::input::WriteInput;
pub use crate::render::{WriteKind, WriteOutput};
use crate::write::{Plan, Refusal};

/// The API name.
pub const NAME: &str = "Write";

/// Result size past which the executor persists the result (Claude Code's 100,000).
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// `validate_input` error codes (Claude Code's numbers where it has the check).
pub mod error_codes {
    /// An existing file the model has not read.
    pub const NOT_READ: i32 = 2;
    /// A file changed since it was read.
    pub const MODIFIED_SINCE_READ: i32 = 3;
    /// A folder, device, binary or oversized file, or one that cannot be read.
    pub const NOT_A_TEXT_FILE: i32 = 4;
}

/// The Write tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

/// Write, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(WriteTool)
}

fn refusal_message(refusal: &Refusal, file_path: &str, at_call: bool) -> (String, i32) {
    match refusal {
        Refusal::Stale(stale) => {
            let code = match stale {
                StaleRead::NotRead => error_codes::NOT_READ,
                StaleRead::Modified => error_codes::MODIFIED_SINCE_READ,
            };
            (stale.message(at_call).to_owned(), code)
        }
        Refusal::Load(error) => (messages::load_error("overwrite", file_path, error), error_codes::NOT_A_TEXT_FILE),
    }
}

impl ToolDef for WriteTool {
    type Input = WriteInput;
    type Output = WriteOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Edit)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false })
        .search_hint("create or overwrite a whole file");

    fn summary(&self, input: &WriteInput) -> String {
        format!("Write {}", input.file_path)
    }

    /// What the auto mode's classifier judges: The file and what it would hold.
    fn to_auto_classifier_input(&self, input: &WriteInput) -> serde_json::Value {
        serde_json::Value::String(format!("{}: {}", input.file_path, input.content))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_SIZE_CHARS)
    }

    fn get_path(&self, input: &WriteInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn activity_description(&self, input: &WriteInput) -> Option<String> {
        Some(format!("Writing {}", input.file_path))
    }

    async fn check_permissions(&self, input: &WriteInput, ctx: &ToolUseContext) -> agent_tools_core::PermissionResult {
        agent_tools_permissions::check_write_permission(&ctx.resolve_path(&input.file_path), ctx)
    }

    async fn validate_input(&self, input: &WriteInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(message) = agent_tools_permissions::edit_denied_message(&ctx.resolve_path(&input.file_path), ctx) {
            return ValidationResult::denied_by_rule(message);
        }
        let path = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let checked = tokio::task::spawn_blocking(move || write::plan(&path, &state).err()).await;
        match checked {
            Ok(None) => ValidationResult::Ok,
            Ok(Some(refusal)) => {
                let (message, code) = refusal_message(&refusal, &input.file_path, false);
                ValidationResult::error(message, code)
            }
            // The check could not run; `call` checks again before writing anything.
            Err(_) => ValidationResult::Ok,
        }
    }

    async fn call(&self, input: WriteInput, ctx: &ToolUseContext) -> Result<ToolResult<WriteOutput>, ToolError> {
        let path: PathBuf = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let WriteInput { file_path, content } = input;
        let display = file_path.clone();
        tokio::task::spawn_blocking(move || {
            // Check again: the file may have changed since validation.
            let plan = write::plan(&path, &state)
                .map_err(|refusal| ToolError::failed(refusal_message(&refusal, &display, true).0))?;
            let (bytes, text) = write::encode(&plan, &content, keeps_trailing_whitespace(&path));
            write_atomic(&path, &bytes).map_err(|error| ToolError::failed(messages::cannot_write(&display, error)))?;
            record_write(&state, &path, &text, &bytes);
            let output = match plan {
                Plan::Create => WriteOutput {
                    kind: WriteKind::Create,
                    file_path,
                    content,
                    structured_patch: Vec::new(),
                    original_file: None,
                },
                Plan::Update(original) => WriteOutput {
                    kind: WriteKind::Update,
                    file_path,
                    content,
                    structured_patch: structured_patch(&original.text, &text),
                    original_file: Some(original.text),
                },
            };
            Ok(ToolResult::new(output))
        })
        .await
        .map_err(|error| ToolError::internal(format!("write worker failed: {error}")))?
    }

    fn map_tool_result(&self, output: &WriteOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
