//! # agent-tool-file-edit: the Edit tool
//!
//! Replaces an exact piece of a file's text, as Claude Code's `Edit` tool does: the same name,
//! input fields (`file_path`, `old_string`, `new_string`, `replace_all`), checks in the same
//! order with the same texts (`No changes to make: …`, `File does not exist. …`, `Cannot create
//! new file - file already exists.`, the NotebookEdit hint, `File has not been read yet. …`,
//! `File has been modified since read, …`, `String to replace not found in file.\nString: …`,
//! `Found N matches of the string to replace, but replace_all is false. …`) and the same result
//! texts. Matching is literal and counts non-overlapping occurrences; the replacement is literal
//! too (no `$1`). An empty `old_string` creates a missing file or fills an empty one. Claude
//! Code's curly-quote fallback is kept: when `old_string` is not found as written, straight quotes
//! in it find curly ones in the file, and `new_string` then takes the file's quote style; the same
//! fallback reads no-break spaces (U+00A0, U+2007, U+202F) in the file as plain spaces. Last,
//! like Claude Code, tags that the API spells differently in model output (`<fnr>`, `<n>`, `<o>`,
//! `<e>`, `<s>`, `<r>` and their closers, `\n\nH:`, `\n\nA:`) are tried written out
//! (`<function_results>`, `<name>` …), and `new_string` gets the same.
//!
//! Line endings: the model sees and writes `\n`. A CRLF file matches an `old_string` written with
//! `\n` (or with `\r\n`); the replacement's line breaks are written in the ending of the lines
//! around it (`\r\n` in a CRLF file; in a file with mixed endings, the ending most of the
//! replaced line breaks have, else that of the line the edit ends on); and the edit is spliced
//! into the file's own text, so **no byte outside the replaced span changes** — not the other
//! lines' endings, not the encoding (UTF-8, UTF-8 with BOM, UTF-16LE/BE, Windows-1252), not the
//! final newline or its absence.
//!
//! Trailing whitespace, as Claude Code: spaces and tabs at the end of `new_string`'s lines are
//! stripped, except in Markdown (`.md`, `.mdx`), where two trailing spaces are a line break.
//! Within limits that keep the stripping to what the model wrote (see
//! `agent_tools_files::strip_trailing_whitespace`): a line copied unchanged from the replaced
//! text keeps its whitespace, the end of `new_string` is not stripped when the file's line goes
//! on after it (Claude Code turns `x = 1  + 2` → `x = 3  + 2` into `x = 3+ 2`), and `.markdown`,
//! `.diff` and `.patch` files are left alone too.
//!
//! Deletion, as Claude Code means it: deleting a line leaves no blank line. An empty
//! `new_string` whose match empties its line (only indentation before it, a line break right
//! after) removes the whole line, indentation and line break included.
//!
//! Where this differs from Claude Code, on purpose:
//! - the read-first rule is always enforced (Claude Code's `mcp serve` edits unread files), and
//!   "changed since read" is decided by content, not modification time: a `touch` is not a
//!   change, and an external change is never silently kept underneath an edit;
//! - non-UTF-8 files are edited as Windows-1252 and stay byte-exact (Claude Code writes U+FFFD
//!   over every such byte); a character the encoding lacks is refused rather than corrupted;
//! - a deletion takes the following line break only when it empties the line: Claude Code takes
//!   it whenever `old_string + "\n"` occurs, so deleting the end of a line (` # note`) joins the
//!   line to the next one, and deleting an indented line's text leaves its indentation in front
//!   of the next line (`    foo()` deleted from `if x:` code indents `bar()` twice); with
//!   `replace_all` it also deletes only the occurrences followed by a line break;
//! - the trailing-whitespace limits above;
//! - the write is atomic and keeps the file's permissions; binary files, folders and devices are
//!   refused.
//!
//! The engine lives in `agent_tools_files::edit` (re-exported here), so that a batch of edits
//! (Claude Code's old MultiEdit, the `agent-tool-multi-edit` crate) runs it without
//! depending on this tool: [`plan_batch`] runs the file-level checks once, applies each edit in
//! memory to the result of the previous one, and the file is written once ([`write_planned`]),
//! atomically, only if every edit applies; [`refusal_message`] gives each refusal Edit's text.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::call_tool;
//! use serde_json::json;
//! let session = agent_tools_testkit::Session::new(); // a temporary folder and one context
//! let path = session.put("hello.txt", "Hello, world\n");
//! let edit = agent_tool_file_edit::tool();
//! let input = json!({"file_path": path, "old_string": "Hello", "new_string": "Hi"});
//! let refused = call_tool(edit.as_ref(), "toolu_1", input.clone(), &session.ctx).await;
//! assert!(refused.block.content.text().contains("File has not been read yet."));
//! session.mark_read(&path); // what the Read tool records
//! let done = call_tool(edit.as_ref(), "toolu_2", input, &session.ctx).await;
//! assert_eq!(done.block.content.text(), format!(
//!     "The file {path} has been updated successfully. \
//!      (file state is current in your context — no need to Read it back)"
//! ));
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "Hi, world\n");
//! # });
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use agent_tools_files::edit;
use agent_tools_files::structured_patch;

pub use crate::input::EditInput;
pub use crate::render::EditOutput;
pub use agent_tools_files::edit::{
    BatchRefusal, CHANGED_SINCE_READ, Planned, PlannedBatch, Refusal, Replaced, Request, STATE_IS_CURRENT, Seen,
    error_codes, plan_batch, refusal_message, state_note, write_planned,
};

/// The API name.
pub const NAME: &str = "Edit";

/// Result size past which the executor persists the result (Claude Code's 100,000).
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// The Edit tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

/// Edit, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(EditTool)
}

impl ToolDef for EditTool {
    type Input = EditInput;
    type Output = EditOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Edit)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false })
        .search_hint("replace exact text in a file");

    fn summary(&self, input: &EditInput) -> String {
        format!("Edit {}", input.file_path)
    }

    /// What the auto mode's classifier judges: The file and its new text.
    fn to_auto_classifier_input(&self, input: &EditInput) -> serde_json::Value {
        serde_json::Value::String(format!("{}: {}", input.file_path, input.new_string))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_SIZE_CHARS)
    }

    fn get_path(&self, input: &EditInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn activity_description(&self, input: &EditInput) -> Option<String> {
        Some(format!("Editing {}", input.file_path))
    }

    async fn check_permissions(&self, input: &EditInput, ctx: &ToolUseContext) -> agent_tools_core::PermissionResult {
        agent_tools_permissions::check_write_permission(&ctx.resolve_path(&input.file_path), ctx)
    }

    async fn validate_input(&self, input: &EditInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(message) = agent_tools_permissions::edit_denied_message(&ctx.resolve_path(&input.file_path), ctx) {
            return ValidationResult::denied_by_rule(message);
        }
        // The cheap check first, without touching the disk.
        if input.old_string == input.new_string {
            let (message, code) =
                refusal_message(&Refusal::NoChange, &input.file_path, &input.old_string, &ctx.cwd, false);
            return ValidationResult::error(message, code);
        }
        let path = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let owned = input.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let request = Request {
                old_string: &owned.old_string,
                new_string: &owned.new_string,
                replace_all: owned.replace_all(),
            };
            edit::plan(&path, &state, request).err()
        })
        .await;
        match checked {
            Ok(None) => ValidationResult::Ok,
            Ok(Some(refusal)) => {
                let (message, code) = refusal_message(&refusal, &input.file_path, &input.old_string, &ctx.cwd, false);
                ValidationResult::error(message, code)
            }
            // The check could not run; `call` checks again before writing anything.
            Err(_) => ValidationResult::Ok,
        }
    }

    async fn call(&self, input: EditInput, ctx: &ToolUseContext) -> Result<ToolResult<EditOutput>, ToolError> {
        let path = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let cwd = ctx.cwd.clone();
        tokio::task::spawn_blocking(move || {
            let replace_all = input.replace_all();
            let request = Request { old_string: &input.old_string, new_string: &input.new_string, replace_all };
            // Everything is checked again: the file may have changed since validation.
            let planned = edit::plan(&path, &state, request).map_err(|refusal| {
                ToolError::failed(refusal_message(&refusal, &input.file_path, &input.old_string, &cwd, true).0)
            })?;
            write_planned(&path, &input.file_path, &state, &planned)?;
            let created = planned.creates();
            let seen = planned.seen;
            let original_file = planned.original.map(|file| file.text).unwrap_or_default();
            Ok(ToolResult::new(EditOutput {
                structured_patch: structured_patch(&original_file, &planned.text),
                file_path: input.file_path,
                old_string: planned.actual_old,
                new_string: input.new_string,
                original_file,
                user_modified: false,
                replace_all,
                created,
                replacements: planned.replacements,
                seen,
            }))
        })
        .await
        .map_err(|error| ToolError::internal(format!("edit worker failed: {error}")))?
    }

    fn map_tool_result(&self, output: &EditOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
