//! # agent-tool-file-read: the Read tool
//!
//! Reads a text file and returns its lines numbered `N<TAB>line`, as Claude Code's `Read` tool
//! does: the same name, input fields (`file_path`, `offset`, `limit`) and result text — the
//! empty-file and past-the-end warnings, `File does not exist. Note: your current working
//! directory is …`, `EISDIR: illegal operation on a directory, read '…'`, and the 256 KiB size
//! rule for reads without a `limit`. Relative paths resolve against the working directory. Every
//! read is recorded in the context's file-read state, which Edit and Write consult.
//!
//! Binary files are refused by content, not by extension: a `.dat` file of plain text reads fine,
//! and a text file with a stray NUL byte is still text (its NULs shown as `\0`, with a note, as
//! for text that is not UTF-8). UTF-16 with a byte-order mark is decoded. Jupyter notebooks
//! (`.ipynb`) come back cell by cell with their outputs, images as image parts.
//!
//! ```no_run
//! # async fn demo() {
//! use agent_tools_core::{invoke::call_tool, ToolUseContext};
//! let read = agent_tool_file_read::tool();
//! let ctx = ToolUseContext::new(std::env::current_dir().unwrap());
//! let done = call_tool(read.as_ref(), "toolu_1", serde_json::json!({"file_path": "Cargo.toml", "limit": 5}), &ctx).await;
//! println!("{}", done.block.content.text());
//! # }
//! ```

mod input;
mod notebook;
mod read;
mod render;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::context::mtime_ms;
use agent_tools_core::text::{SNIFF_BYTES, looks_binary};
use agent_tools_core::tool::SearchOrRead;
use agent_tools_core::{
    FileStamp, MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};

pub use crate::input::ReadInput;
pub use crate::notebook::{Cell, CellOutput, OutputImage};
use crate::read::{ReadError, read_text};
pub use crate::render::{EncodingNote, NotebookFile, ReadOutput, TextFile, format_file_size};

/// The API name.
pub const NAME: &str = "Read";

/// Largest file read whole without a `limit`, in bytes (Claude Code's 256 KiB).
pub const DEFAULT_MAX_SIZE_BYTES: u64 = 256 * 1024;

/// Most tokens of text one read may return (Claude Code's 25,000).
pub const DEFAULT_MAX_TOKENS: u64 = 25_000;

/// Devices that never end or block; reading them would hang the call.
const BLOCKED_DEVICES: &[&str] = &[
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
    "/dev/stdin",
    "/dev/tty",
    "/dev/console",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/0",
    "/dev/fd/1",
    "/dev/fd/2",
];

fn is_blocked_device(path: &Path) -> bool {
    let text = path.to_string_lossy();
    BLOCKED_DEVICES.contains(&text.as_ref())
        || (text.starts_with("/proc/") && ["/fd/0", "/fd/1", "/fd/2"].iter().any(|end| text.ends_with(end)))
}

/// The Read tool definition.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

/// Read, ready for the host.
pub fn tool() -> Arc<dyn Tool> {
    build_tool(ReadTool)
}

/// A rough token count, as Claude Code estimates it before asking the API: bytes / 4.
fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

impl ToolDef for ReadTool {
    type Input = ReadInput;
    type Output = ReadOutput;
    type Progress = ();

    fn name(&self) -> &str {
        NAME
    }

    fn search_hint(&self) -> Option<&str> {
        Some("read a file's contents with line numbers")
    }

    fn description(&self, input: &ReadInput) -> String {
        format!("Read {}", input.file_path)
    }

    fn prompt(&self, _options: &PromptOptions<'_>) -> String {
        include_str!("prompt.md").to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        // Read limits itself (size and token checks); its results are never persisted.
        MaxResultSize::Unlimited
    }

    fn strict(&self) -> bool {
        true
    }

    fn flags(&self) -> agent_tools_core::ToolFlags {
        agent_tools_core::ToolFlags::LOCAL_READ_ONLY
    }

    fn is_concurrency_safe(&self, _input: &ReadInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &ReadInput) -> bool {
        true
    }

    fn get_path(&self, input: &ReadInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn is_search_or_read_command(&self, _input: &ReadInput) -> SearchOrRead {
        SearchOrRead { is_read: true, ..SearchOrRead::default() }
    }

    fn activity_description(&self, input: &ReadInput) -> Option<String> {
        Some(format!("Reading {}", input.file_path))
    }

    async fn validate_input(&self, input: &ReadInput, ctx: &ToolUseContext) -> ValidationResult {
        let path = ctx.resolve_path(&input.file_path);
        if is_blocked_device(&path) {
            return ValidationResult::error(render::blocked_device(&input.file_path), 9);
        }
        if let Ok(mut file) = std::fs::File::open(&path)
            && file.metadata().is_ok_and(|meta| meta.is_file())
        {
            let mut sample = Vec::with_capacity(SNIFF_BYTES);
            if file.by_ref().take(SNIFF_BYTES as u64).read_to_end(&mut sample).is_ok() && looks_binary(&sample) {
                return ValidationResult::error(render::binary_file(&input.file_path), 4);
            }
        }
        ValidationResult::Ok
    }

    async fn call(&self, input: ReadInput, ctx: &ToolUseContext) -> Result<ToolResult<ReadOutput>, ToolError> {
        let path: PathBuf = ctx.resolve_path(&input.file_path);
        let max_size = ctx.limits.file_reading.max_size_bytes.unwrap_or(DEFAULT_MAX_SIZE_BYTES);
        let max_tokens = ctx.limits.file_reading.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let is_notebook = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("ipynb"));
        // A notebook is read whole: its cells, not its JSON lines, are what the model sees.
        let (offset, limit) = if is_notebook { (None, None) } else { (input.offset, input.limit) };
        let read_path = path.clone();
        let (read, modified) = tokio::task::spawn_blocking(move || {
            let read = read_text(&read_path, offset, limit, max_size)?;
            Ok::<_, ReadError>((read, std::fs::metadata(&read_path).and_then(|meta| meta.modified())))
        })
        .await
        .map_err(|error| ToolError::internal(format!("read worker failed: {error}")))?
        .map_err(|error| match error {
            ReadError::NotFound => ToolError::failed(render::file_not_found(&ctx.cwd.to_string_lossy())),
            ReadError::IsDirectory => ToolError::failed(render::is_directory(&path.to_string_lossy())),
            ReadError::TooLarge { size, max } => ToolError::failed(render::too_large(size, max)),
            ReadError::Io(error) => ToolError::failed(format!("Cannot read {}: {error}", path.display())),
        })?;
        let notebook = is_notebook
            .then(|| notebook::parse(&read.content, &path.to_string_lossy()).ok())
            .flatten()
            .map(|cells| NotebookFile { file_path: input.file_path.clone(), cells });
        let shown = match &notebook {
            Some(notebook) => render::render(&ReadOutput::Notebook { file: notebook.clone() }).text(),
            None => read.content.clone(),
        };
        let tokens = estimate_tokens(&shown);
        if tokens > max_tokens {
            return Err(ToolError::failed(render::too_many_tokens(tokens, max_tokens)));
        }
        let stamp_content = read.whole_text.clone().unwrap_or_else(|| read.content.clone());
        ctx.read_file_state.set(
            &path,
            FileStamp {
                content: stamp_content.into(),
                timestamp_ms: mtime_ms(modified),
                offset: input.offset,
                limit: input.limit,
                is_partial_view: false,
                content_hash: Some(read.hash),
                from_read: true,
            },
        );
        if let Some(file) = notebook {
            return Ok(ToolResult::new(ReadOutput::Notebook { file }));
        }
        let encoding_note = if read.has_nul {
            Some(EncodingNote::NulBytes)
        } else if read.not_utf8 {
            Some(EncodingNote::NotUtf8)
        } else {
            None
        };
        Ok(ToolResult::new(ReadOutput::Text {
            file: TextFile {
                file_path: input.file_path,
                num_lines: read.num_lines,
                start_line: read.start_line,
                total_lines: read.total_lines,
                requested_offset: input.offset,
                content: read.content,
                encoding_note,
            },
        }))
    }

    fn map_tool_result(&self, output: &ReadOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock { tool_use_id: tool_use_id.to_owned(), content: render::render(output), is_error: false }
    }
}
