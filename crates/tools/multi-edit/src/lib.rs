//! # agent-tool-multi-edit: the MultiEdit tool
//!
//! Several exact-text replacements in one file, in one call: Claude Code's older `MultiEdit`
//! tool (it shipped until Claude Code 2.x dropped it for repeated Edit calls; many models still
//! call it). Same name and input as Claude Code's: `file_path` and `edits`, a non-empty list of
//! `{old_string, new_string, replace_all}` (an empty list is refused when the input is parsed,
//! with Claude Code's `At least one edit is required`).
//!
//! Semantics (Claude Code's documented ones, and anthropics/claude-code#5234, a batch
//! that left a file half-edited):
//! - **in order**: the edits apply one after another, each matched against the text the edits
//!   before it left, never against the file as read (`port=3000` → `listen_port=3000`, then
//!   `listen_port=3000` → `listen_port=8080` works);
//! - **all or nothing**: every edit is applied in memory first; if one fails — not found,
//!   ambiguous without `replace_all`, `old_string` equal to `new_string`, or a change that
//!   leaves the text as it was — nothing is written, and the error names the edit by its number
//!   and gives Edit's text for the reason:
//!   `Edit #3 of 3 failed: String to replace not found in file.\nString: timeout=99\nNo edit was
//!   applied: the file is unchanged.` (an edit after the first also says it was matched against
//!   the text the edits before it left, so an ambiguity those edits created is understood);
//! - otherwise the file is written **once, atomically**, keeping its permissions.
//!
//! Everything else is Edit's, from the same engine (`agent_tools_files::edit::plan_batch`, the engine Edit runs): the
//! permission checks (`Edit(…)` rules govern MultiEdit as they govern Edit and Write; a deny rule
//! refuses it in `validate_input` with Edit's text), the read-before-edit rule and the
//! changed-since-read check (run once, on the file as loaded), the file-state record after the
//! write (the model may edit again without a Read), the note after the result
//! (`(file state is current in your context — no need to Read it back)`, none after a partial
//! Read, the changed-on-disk note), curly-quote and sanitised-tag tolerance, line endings,
//! encodings, trailing-whitespace and deletion rules, and a first edit with an empty
//! `old_string` creating a missing file or filling an empty one. The result text has the shape
//! of Claude Code's (`Applied 2 edits to PATH:` then `1. Replaced "a" with "b"` per edit, the
//! strings quoted briefly), with the count of a `replace_all` edit and Edit's note on a line of
//! its own; the output data is Edit's (`filePath`, `originalFile`, `structuredPatch`,
//! `userModified`) with `edits` instead of `oldString`/`newString`.
//!
//! Where this differs from Claude Code's MultiEdit, on purpose:
//! - matching is strictly sequential: Claude Code's refusal of an edit whose `old_string` occurs
//!   in an earlier edit's `new_string` (`Cannot edit file: old_string is a substring of a
//!   new_string from a previous edit.`, anthropics/claude-code#3877) is not kept, and neither
//!   is its validation of every edit against the original file before applying them in order;
//! - a failing edit is named by its number (Claude Code gave only Edit's reason, so the model
//!   could not tell which edit failed);
//! - Edit's own differences (see the `agent-tool-file-edit` crate): the read-first rule always enforced,
//!   changes decided by content, legacy encodings kept byte-exact, deletions that empty a line.
//!
//! **Deferred.** Claude Code 2.1.332 has no MultiEdit, so the tool is deferred
//! ([`ToolDef::should_defer`]): it is in the pool (`agent-tools serve` lists it, a call by name
//! works) but its schema is not in the model's up-front tool list, which stays Claude Code's; a
//! model finds it with ToolSearch (`select:MultiEdit`, or words like "multiple edits").
//!
//! The batch is Edit's engine (`agent_tools_files::edit`) folded over several edits, not a copy
//! of it; like every tool crate, this one depends on no other tool crate.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use agent_tools_core::{ToolUseContext, call_tool};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("server.conf");
//! std::fs::write(&path, "port=3000\nhost=0.0.0.0\n").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let file_path = path.display().to_string();
//! // The file must have been read on this context first (the Read tool records this).
//! let bytes = std::fs::read(&path).unwrap();
//! let modified = std::fs::metadata(&path).and_then(|meta| meta.modified());
//! let text = String::from_utf8(bytes.clone()).unwrap();
//! let hash = agent_tools_core::content_hash(&bytes);
//! agent_tools_files::record_read(&ctx.read_file_state, &path, text, hash, modified, None, None);
//!
//! let multi_edit = agent_tool_multi_edit::tool();
//! let input = json!({"file_path": file_path, "edits": [
//!     {"old_string": "port=3000", "new_string": "listen_port=3000"},
//!     {"old_string": "listen_port=3000", "new_string": "listen_port=8080"},
//! ]});
//! let done = call_tool(multi_edit.as_ref(), "toolu_2", input, &ctx).await;
//! assert!(!done.block.is_error);
//! assert!(done.block.content.text().starts_with(&format!("Applied 2 edits to {file_path}:\n")));
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "listen_port=8080\nhost=0.0.0.0\n");
//!
//! // A batch with a failing edit writes nothing.
//! let input = json!({"file_path": file_path, "edits": [
//!     {"old_string": "host=0.0.0.0", "new_string": "host=127.0.0.1"},
//!     {"old_string": "timeout=99", "new_string": "timeout=30"},
//! ]});
//! let done = call_tool(multi_edit.as_ref(), "toolu_3", input, &ctx).await;
//! assert!(done.block.is_error);
//! assert!(done.block.content.text().contains("Edit #2 of 2 failed: String to replace not found in file."));
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "listen_port=8080\nhost=0.0.0.0\n");
//! # }
//! ```

mod input;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use agent_tools_files::edit::{PlannedBatch, Request, plan_batch, write_planned};
use agent_tools_files::structured_patch;

pub use crate::input::{EditEntry, MultiEditInput, NO_EDITS};
pub use crate::render::{AppliedEdit, CANCEL_OUT, MultiEditOutput, NOTHING_APPLIED};

/// The API name (Claude Code's).
pub const NAME: &str = "MultiEdit";

/// Result size past which the executor persists the result (Edit's 100,000).
pub const MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// The `validate_input` code of a path an `Edit(…)` deny rule covers (Edit's code 2; the other
/// codes are Edit's, `agent_tools_files::edit::error_codes`).
pub const DENIED: i32 = 2;

/// The MultiEdit tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct MultiEditTool;

/// MultiEdit, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(MultiEditTool)
}

/// The engine's requests for the input's edits, in order.
fn requests(input: &MultiEditInput) -> Vec<Request<'_>> {
    input
        .edits
        .iter()
        .map(|edit| Request {
            old_string: &edit.old_string,
            new_string: &edit.new_string,
            replace_all: edit.replace_all(),
        })
        .collect()
}

impl ToolDef for MultiEditTool {
    type Input = MultiEditInput;
    type Output = MultiEditOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Claude Code 2.1.332 has no MultiEdit: its schema waits for ToolSearch, so the model's
    // up-front tool list stays Claude Code's.
    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Edit)
        .scope(AgentScope::Everywhere)
        .flags(ToolFlags { read_only: false, concurrency_safe: false, destructive: true, open_world: false })
        .deferred()
        .search_hint("make multiple edits to one file at once");

    fn summary(&self, input: &MultiEditInput) -> String {
        let count = input.edits.len();
        format!("Edit {} ({count} edit{})", input.file_path, if count == 1 { "" } else { "s" })
    }

    /// What the auto mode's classifier judges: The file and its new texts.
    fn to_auto_classifier_input(&self, input: &MultiEditInput) -> serde_json::Value {
        serde_json::Value::String(format!(
            "{}: {}",
            input.file_path,
            input.edits.iter().map(|edit| edit.new_string.as_str()).collect::<Vec<_>>().join("\n")
        ))
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_SIZE_CHARS)
    }

    fn get_path(&self, input: &MultiEditInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn activity_description(&self, input: &MultiEditInput) -> Option<String> {
        Some(format!("Editing {}", input.file_path))
    }

    async fn check_permissions(
        &self,
        input: &MultiEditInput,
        ctx: &ToolUseContext,
    ) -> agent_tools_core::PermissionResult {
        agent_tools_permissions::check_write_permission(&ctx.resolve_path(&input.file_path), ctx)
    }

    async fn validate_input(&self, input: &MultiEditInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(message) = agent_tools_permissions::edit_denied_message(&ctx.resolve_path(&input.file_path), ctx) {
            return ValidationResult::denied_by_rule(message);
        }
        let path = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let owned = input.clone();
        let checked = tokio::task::spawn_blocking(move || plan_batch(&path, &state, &requests(&owned)).err()).await;
        match checked {
            Ok(None) => ValidationResult::Ok,
            Ok(Some(refused)) => {
                let (message, code) = render::refusal(&refused, input, &ctx.cwd, false);
                ValidationResult::error(message, code)
            }
            // The check could not run; `call` checks again before writing anything.
            Err(_) => ValidationResult::Ok,
        }
    }

    async fn call(
        &self,
        input: MultiEditInput,
        ctx: &ToolUseContext,
    ) -> Result<ToolResult<MultiEditOutput>, ToolError> {
        let path = ctx.resolve_path(&input.file_path);
        let state = ctx.read_file_state.clone();
        let cwd = ctx.cwd.clone();
        tokio::task::spawn_blocking(move || {
            // Everything is checked again: the file may have changed since validation.
            let PlannedBatch { planned, edits } = plan_batch(&path, &state, &requests(&input))
                .map_err(|refused| ToolError::failed(render::refusal(&refused, &input, &cwd, true).0))?;
            write_planned(&path, &input.file_path, &state, &planned)?;
            let created = planned.creates();
            let original_file = planned.original.map(|file| file.text).unwrap_or_default();
            let applied = input
                .edits
                .into_iter()
                .zip(edits)
                .map(|(edit, done)| AppliedEdit {
                    replace_all: edit.replace_all(),
                    old_string: done.actual_old,
                    new_string: edit.new_string,
                    replacements: done.replacements,
                })
                .collect();
            Ok(ToolResult::new(MultiEditOutput {
                structured_patch: structured_patch(&original_file, &planned.text),
                file_path: input.file_path,
                edits: applied,
                original_file,
                user_modified: false,
                created,
                seen: planned.seen,
            }))
        })
        .await
        .map_err(|error| ToolError::internal(format!("multi-edit worker failed: {error}")))?
    }

    fn map_tool_result(&self, output: &MultiEditOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, render::render(output))
    }
}
