//! # agent-tool-file-read: the Read tool
//!
//! Reads a file and returns what the model should see of it, as Claude Code's `Read` tool does:
//! the same name, input fields (`file_path`, `offset`, `limit`, `pages`) and result text.
//!
//! - **Text** comes back as numbered lines (`N<TAB>line`) with the empty-file and past-the-end
//!   warnings, `File does not exist. Note: your current working directory is …`, `EISDIR: illegal
//!   operation on a directory, read '…'`, the 256 KiB size limit for reads without a `limit` and
//!   the 25,000-token limit. A line too long for the limits is cut to 2,000 characters with a
//!   marker, before the limits are checked, so a minified one-line file still reads (see the
//!   `read` module). Files are streamed: memory stays bounded whatever their size.
//! - **Encodings** are decoded exactly as Edit decodes them: a UTF-8 byte-order mark is not shown,
//!   UTF-16 with a mark is decoded, other non-UTF-8 text is shown as Windows-1252 with a note, and
//!   NUL bytes show as `\0` with a note. Binary files are refused by content, not by extension: a
//!   `.dat` file of plain text reads fine.
//! - **Images** (PNG, JPEG, GIF, WebP, told by their bytes) come back as one image part, scaled
//!   down and re-encoded when they are too large for the model (the `images` module); a message
//!   after the result gives the original and shown sizes when they differ.
//! - **PDFs** are sent whole as a document, or with `pages` as page images rendered by poppler's
//!   `pdftoppm` (their text when it is missing); see the `pdf` module.
//! - **Jupyter notebooks** (`.ipynb`) come back cell by cell with their outputs, images as image
//!   parts.
//! - **Devices**, FIFOs and sockets are refused without being opened.
//! - Every text or notebook read is recorded in the context's file-read state (path, text, a
//!   hash of the file's bytes, the range), which Edit and Write consult. Reading the same range of
//!   an unchanged file again returns a short stub instead of the same text.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("notes.txt");
//! std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
//! let ctx = ToolUseContext::new(dir.path());
//! let input = json!({"file_path": path, "offset": 2, "limit": 1});
//! let done = call_tool(agent_tool_file_read::tool().as_ref(), "toolu_1", input, &ctx).await;
//! assert_eq!(done.block.content.text(), "2\ttwo");
//! // What was shown is recorded, so Edit and Write can tell whether the file changed since.
//! assert!(ctx.read_file_state.get(&path).is_some());
//! # });
//! ```

mod images;
mod input;
mod notebook;
mod pdf;
mod read;
mod render;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_core::CancellationToken;
use agent_tools_core::text::{SNIFF_BYTES, looks_binary};
use agent_tools_core::{ContentBlock, ImageSource, KnownBlock, Message};
use agent_tools_core::{
    FileStamp, MaxResultSize, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, ValidationResult,
    build_tool,
};
use serde_json::json;

pub use crate::input::ReadInput;
pub use crate::notebook::{Cell, CellOutput, OutputImage};
pub use crate::pdf::{MAX_PAGES_PER_READ, MAX_PAGES_WHOLE, PageRange, RangeError};
pub use crate::read::MAX_LINE_CHARS;
use crate::read::{Bounds, ReadError, TextRange, estimate_tokens, read_text};
pub use crate::render::{
    EncodingNote, ImageDimensions, ImageFile, NotebookFile, PageText, PdfFile, PdfPages, PdfPagesText, ReadOutput,
    TextFile, UnchangedFile, format_file_size,
};

/// The API name.
pub const NAME: &str = "Read";

/// Largest text read whole without a `limit`, in bytes (Claude Code's 256 KiB).
pub const DEFAULT_MAX_SIZE_BYTES: u64 = 256 * 1024;

/// Most tokens one read may return (Claude Code's 25,000).
pub const DEFAULT_MAX_TOKENS: u64 = 25_000;

/// Records what a read showed in the file-read state: the text, its hash, the file's
/// modification time and, for a page cut short, the range shown (first line, line count).
type RecordRead<'a> = dyn Fn(String, u64, std::io::Result<std::time::SystemTime>, Option<(u64, u64)>) + 'a;

/// The token budget of a Read with `allow_large: true` (which also lifts the size limit): as
/// much as can fit beside a conversation in a model's context, paged past that.
pub const ALLOW_LARGE_MAX_TOKENS: u64 = 100_000;

/// Devices that never end or block; reading them would hang the call. They are refused by name,
/// before any I/O; any other device, FIFO or socket is refused after a `stat`, without opening it.
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

/// What the blocking part of a call found.
enum Outcome {
    /// The same range of an unchanged file was read before.
    Unchanged,
    /// Lines of a text file.
    Text(TextRange, std::io::Result<std::time::SystemTime>),
    /// A notebook's cells, text and hash.
    Notebook { cells: Vec<Cell>, text: String, hash: u64, modified: std::io::Result<std::time::SystemTime> },
    /// An image ready to send.
    Image(images::Fitted, u64),
    /// A whole PDF.
    Pdf { base64: String, size: u64, page_count: Option<usize> },
    /// PDF pages as images.
    PdfPages { images: Vec<images::Fitted>, size: u64, first: u32, last: u32 },
    /// PDF pages as text.
    PdfText { pages: Vec<(u32, String)>, size: u64 },
}

/// Everything the blocking part of a call needs.
struct Job {
    path: PathBuf,
    file_path: String,
    cwd: String,
    offset: Option<u64>,
    limit: Option<u64>,
    pages: Option<(String, PageRange)>,
    bounds: Bounds,
    previous_hash: Option<u64>,
    cancel: CancellationToken,
    /// The page renderer ([`pdf::RENDERER`]; another name in tests).
    renderer: &'static str,
}

impl Job {
    fn fail(&self, error: ReadError) -> ToolError {
        let path = self.path.to_string_lossy();
        ToolError::failed(match error {
            ReadError::NotFound => render::file_not_found(&self.cwd),
            ReadError::IsDirectory => render::is_directory(&path),
            ReadError::NotRegular => render::special_file(&self.file_path),
            ReadError::TooLarge { size, max } => render::too_large(size, max),
            ReadError::TooManyTokens { tokens, max } => render::too_many_tokens(tokens, max),
            ReadError::Io(error) => render::cannot_read(&path, &error.to_string()),
        })
    }

    fn run(self) -> Result<Outcome, ToolError> {
        if let Some(previous) = self.previous_hash
            && read::hash_file(&self.path).map_err(|error| self.fail(error))? == previous
        {
            return Ok(Outcome::Unchanged);
        }
        let (mut file, meta) = read::open_regular(&self.path).map_err(|error| self.fail(error))?;
        let mut head = Vec::with_capacity(16);
        file.by_ref().take(16).read_to_end(&mut head).map_err(|error| self.fail(error.into()))?;
        if let Some(format) = images::sniff(&head) {
            return self.image(file, head, format, meta.len());
        }
        if pdf::is_pdf(&head) {
            return self.pdf(meta.len());
        }
        drop(file);
        if meta.len() == 0 && (images::has_image_extension(&self.path) || has_extension(&self.path, "pdf")) {
            return Err(ToolError::failed(render::empty_media(&self.file_path)));
        }
        if has_extension(&self.path, "ipynb") {
            return self.notebook();
        }
        self.text()
    }

    /// A notebook is read whole (its cells, not its JSON lines, are what the model sees); the size
    /// limit applies to its cells once large outputs are replaced by hints, as in Claude Code.
    fn notebook(&self) -> Result<Outcome, ToolError> {
        let (text, hash) = read::read_whole(&self.path, notebook::MAX_FILE_BYTES).map_err(|error| match error {
            ReadError::TooLarge { size, max } => {
                ToolError::failed(render::notebook_too_large(size, max, &self.path.to_string_lossy()))
            }
            other => self.fail(other),
        })?;
        let modified = std::fs::metadata(&self.path).and_then(|meta| meta.modified());
        let Ok(cells) = notebook::parse(&text, &self.path.to_string_lossy()) else {
            // Not a notebook after all: read it as text, with the range asked for.
            return self.text();
        };
        let size = serde_json::to_string(&cells).map_or(0, |json| json.len() as u64);
        if size > self.bounds.max_size {
            return Err(ToolError::failed(render::notebook_too_large(
                size,
                self.bounds.max_size,
                &self.path.to_string_lossy(),
            )));
        }
        Ok(Outcome::Notebook { cells, text, hash, modified })
    }

    fn text(&self) -> Result<Outcome, ToolError> {
        let read = read_text(&self.path, self.offset, self.limit, self.bounds).map_err(|error| self.fail(error))?;
        let modified = std::fs::metadata(&self.path).and_then(|meta| meta.modified());
        Ok(Outcome::Text(read, modified))
    }

    fn image(
        &self,
        mut file: std::fs::File,
        mut bytes: Vec<u8>,
        format: images::Format,
        size: u64,
    ) -> Result<Outcome, ToolError> {
        if size > images::MAX_IMAGE_FILE_BYTES {
            return Err(ToolError::failed(render::image_too_large(size, images::MAX_IMAGE_FILE_BYTES)));
        }
        file.by_ref()
            .take(images::MAX_IMAGE_FILE_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|error| self.fail(error.into()))?;
        let budget =
            usize::try_from(self.bounds.max_tokens.saturating_mul(8)).unwrap_or(usize::MAX).min(images::API_MAX_BASE64);
        let fitted = images::fit(&bytes, format, budget)
            .map_err(|error| ToolError::failed(render::bad_image(&self.file_path, &error)))?;
        Ok(Outcome::Image(fitted, bytes.len() as u64))
    }

    fn pdf(&self, size: u64) -> Result<Outcome, ToolError> {
        if size > pdf::MAX_PDF_BYTES {
            return Err(ToolError::failed(render::pdf_too_large(size, pdf::MAX_PDF_BYTES)));
        }
        let bytes = std::fs::read(&self.path).map_err(|error| self.fail(error.into()))?;
        let size = bytes.len() as u64;
        let page_count = pdf::page_count(&bytes);
        let Some((pages, range)) = &self.pages else {
            if let Ok(count) = page_count
                && count > pdf::MAX_PAGES_WHOLE
            {
                return Err(ToolError::failed(render::pdf_needs_pages(
                    count,
                    pdf::MAX_PAGES_WHOLE,
                    pdf::MAX_PAGES_PER_READ,
                )));
            }
            if size > pdf::MAX_DOCUMENT_BYTES {
                return Err(ToolError::failed(render::pdf_too_large_whole(size, pdf::MAX_DOCUMENT_BYTES)));
            }
            return Ok(Outcome::Pdf { base64: images::base64(&bytes), size, page_count: page_count.ok() });
        };
        let (first, last) = match (&page_count, range.last) {
            (Ok(count), _) if range.first as usize > *count => {
                return Err(ToolError::failed(render::pages_out_of_range(pages, *count)));
            }
            (Ok(count), None) => {
                let last = u32::try_from(*count).unwrap_or(u32::MAX);
                if last - range.first >= pdf::MAX_PAGES_PER_READ {
                    return Err(ToolError::failed(render::open_range_too_long(
                        pages,
                        range.first,
                        *count,
                        pdf::MAX_PAGES_PER_READ,
                    )));
                }
                (range.first, last)
            }
            (Ok(count), Some(last)) => (range.first, last.min(u32::try_from(*count).unwrap_or(u32::MAX))),
            (Err(error), None) => return Err(ToolError::failed(render::pdf_uncountable(error))),
            (Err(_), Some(last)) => (range.first, last),
        };
        match pdf::render_pages(self.renderer, &self.path, first, last, &self.cancel) {
            Ok(pages) => {
                let images = pages
                    .iter()
                    .map(|page| images::fit(page, images::Format::Jpeg, images::API_MAX_BASE64))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|error| ToolError::failed(render::pdf_failed(&self.file_path, &error)))?;
                Ok(Outcome::PdfPages { images, size, first, last })
            }
            Err(pdf::RenderError::Missing) => {
                let pages = pdf::page_texts(&bytes, first, last)
                    .map_err(|error| ToolError::failed(render::pdf_failed(&self.file_path, &error)))?;
                Ok(Outcome::PdfText { pages, size })
            }
            Err(pdf::RenderError::Cancelled) => Err(ToolError::Cancelled),
            Err(pdf::RenderError::Failed(error)) => Err(ToolError::failed(render::pdf_failed(&self.file_path, &error))),
        }
    }
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case(extension))
}

/// A message of one user text block.
fn user_text(text: String) -> Message {
    Message::user(vec![ContentBlock::text(text)])
}

/// A user message of images.
fn user_images(images: &[images::Fitted]) -> Message {
    Message::user(
        images
            .iter()
            .map(|image| {
                ContentBlock::Known(KnownBlock::Image {
                    source: ImageSource::base64(image.media_type, image.base64.clone()),
                })
            })
            .collect(),
    )
}

/// The file-read state's view of a range: `offset` 0 and 1 (and none) all start at line 1.
fn same_range(stamp: &FileStamp, offset: Option<u64>, limit: Option<u64>) -> bool {
    stamp.offset.unwrap_or(1).max(1) == offset.unwrap_or(1).max(1) && stamp.limit == limit
}

impl ToolDef for ReadTool {
    type Input = ReadInput;
    type Output = ReadOutput;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    const CAPABILITIES: Capabilities = Capabilities::new(ToolKind::Read)
        .scope(AgentScope::Everywhere)
        .flags(agent_tools_core::ToolFlags::LOCAL_READ_ONLY)
        .search_hint("read a file's contents with line numbers");

    fn summary(&self, input: &ReadInput) -> String {
        format!("Read {}", input.file_path)
    }

    /// What the auto mode's classifier judges: The file.
    fn to_auto_classifier_input(&self, input: &ReadInput) -> serde_json::Value {
        serde_json::Value::String(input.file_path.clone())
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        // Read limits itself (size and token checks); its results are never persisted.
        MaxResultSize::Unlimited
    }

    fn get_path(&self, input: &ReadInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    fn activity_description(&self, input: &ReadInput) -> Option<String> {
        Some(format!("Reading {}", input.file_path))
    }

    async fn check_permissions(&self, input: &ReadInput, ctx: &ToolUseContext) -> agent_tools_core::PermissionResult {
        agent_tools_permissions::check_read_permission(&ctx.resolve_path(&input.file_path), ctx)
    }

    async fn validate_input(&self, input: &ReadInput, ctx: &ToolUseContext) -> ValidationResult {
        if let Some(pages) = &input.pages {
            match PageRange::parse(pages) {
                Ok(_) => {}
                Err(RangeError::Invalid) => return ValidationResult::error(render::invalid_pages(pages), 7),
                Err(RangeError::TooMany) => {
                    return ValidationResult::error(render::too_many_pages(pages, MAX_PAGES_PER_READ), 8);
                }
            }
        }
        let path = ctx.resolve_path(&input.file_path);
        if let Some(message) = agent_tools_permissions::read_denied_message(&path, ctx) {
            return ValidationResult::denied_by_rule(message);
        }
        if is_blocked_device(&path) {
            return ValidationResult::error(render::blocked_device(&input.file_path), 9);
        }
        // `stat` (through links), never `open`: opening a FIFO blocks until someone writes to it.
        let Ok(meta) = std::fs::metadata(&path) else {
            return ValidationResult::Ok;
        };
        if meta.is_dir() {
            return ValidationResult::Ok;
        }
        if !meta.is_file() {
            return ValidationResult::error(render::special_file(&input.file_path), 9);
        }
        if let Ok(file) = std::fs::File::open(&path) {
            let mut sample = Vec::with_capacity(SNIFF_BYTES);
            if file.take(SNIFF_BYTES as u64).read_to_end(&mut sample).is_ok()
                && images::sniff(&sample).is_none()
                && !pdf::is_pdf(&sample)
                && looks_binary(&sample)
            {
                return ValidationResult::error(render::binary_file(&input.file_path), 4);
            }
        }
        ValidationResult::Ok
    }

    async fn call(&self, input: ReadInput, ctx: &ToolUseContext) -> Result<ToolResult<ReadOutput>, ToolError> {
        let path: PathBuf = ctx.resolve_path(&input.file_path);
        let mut bounds = Bounds {
            max_size: ctx.limits.file_reading.max_size_bytes.unwrap_or(DEFAULT_MAX_SIZE_BYTES),
            max_tokens: ctx.limits.file_reading.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        };
        if input.allow_large == Some(true) {
            bounds = Bounds { max_size: u64::MAX / 8, max_tokens: bounds.max_tokens.max(ALLOW_LARGE_MAX_TOKENS) };
        }
        let pages = match &input.pages {
            Some(pages) => match PageRange::parse(pages) {
                Ok(range) => Some((pages.clone(), range)),
                Err(RangeError::Invalid) => return Err(ToolError::failed(render::invalid_pages(pages))),
                Err(RangeError::TooMany) => {
                    return Err(ToolError::failed(render::too_many_pages(pages, MAX_PAGES_PER_READ)));
                }
            },
            None => None,
        };
        // A repeat of the last Read of this file (same range) is answered with a stub when the
        // file's bytes are the same; an entry made by a write never is.
        let previous_hash = ctx
            .read_file_state
            .get(&path)
            .filter(|stamp| stamp.from_read && !stamp.is_partial_view && same_range(stamp, input.offset, input.limit))
            .and_then(|stamp| stamp.content_hash);
        let job = Job {
            path: path.clone(),
            file_path: input.file_path.clone(),
            cwd: ctx.cwd.to_string_lossy().into_owned(),
            offset: input.offset,
            limit: input.limit,
            pages,
            bounds,
            previous_hash,
            cancel: ctx.cancel.clone(),
            renderer: pdf::RENDERER,
        };
        let outcome = tokio::task::spawn_blocking(move || job.run())
            .await
            .map_err(|error| ToolError::internal(format!("read worker failed: {error}")))??;
        let record =
            |content: String, hash: u64, modified: std::io::Result<std::time::SystemTime>, page: Option<(u64, u64)>| {
                // A page cut short by the token limit is a ranged view, as if asked for.
                let (offset, limit) =
                    page.map_or((input.offset, input.limit), |(start, lines)| (Some(start), Some(lines)));
                agent_tools_files::record_read(&ctx.read_file_state, &path, content, hash, modified, offset, limit);
            };
        let file_path = input.file_path.clone();
        match outcome {
            Outcome::Unchanged => Ok(ToolResult::new(ReadOutput::FileUnchanged { file: UnchangedFile { file_path } })),
            Outcome::Notebook { cells, text, hash, modified } => {
                let file = NotebookFile { file_path, cells };
                let output = ReadOutput::Notebook { file };
                let tokens = estimate_tokens(render::render(&output).text().len());
                if tokens > bounds.max_tokens {
                    return Err(ToolError::failed(render::too_many_tokens(tokens, bounds.max_tokens)));
                }
                record(text, hash, modified, None);
                Ok(ToolResult::new(output))
            }
            Outcome::Text(read, modified) => Ok(self.text_result(read, modified, &input, &record, bounds.max_tokens)),
            Outcome::Image(fitted, original_size) => {
                let dimensions = (fitted.shown != fitted.original).then_some(ImageDimensions {
                    original_width: fitted.original.0,
                    original_height: fitted.original.1,
                    display_width: fitted.shown.0,
                    display_height: fitted.shown.1,
                });
                let file = ImageFile {
                    base64: fitted.base64,
                    media_type: fitted.media_type.to_owned(),
                    original_size,
                    dimensions,
                };
                let mut result = ToolResult::new(ReadOutput::Image { file });
                if let Some(dimensions) = &dimensions {
                    result = result.with_message(user_text(render::image_resized(&file_path, dimensions)));
                }
                Ok(result)
            }
            Outcome::Pdf { base64, size, page_count } => {
                let document = json!({
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": base64},
                });
                Ok(ToolResult::new(ReadOutput::Pdf { file: PdfFile { file_path, original_size: size, page_count } })
                    .with_message(Message::user(vec![ContentBlock::Other(document)])))
            }
            Outcome::PdfPages { images, size, first, last } => {
                let file = PdfPages {
                    file_path,
                    original_size: size,
                    count: images.len(),
                    first_page: first,
                    last_page: last,
                };
                Ok(ToolResult::new(ReadOutput::Parts { file }).with_message(user_images(&images)))
            }
            Outcome::PdfText { pages, size } => {
                let file = PdfPagesText {
                    file_path,
                    original_size: size,
                    pages: pages.into_iter().map(|(page, text)| PageText { page, text }).collect(),
                };
                let output = ReadOutput::PdfText { file };
                let tokens = estimate_tokens(render::render(&output).text().len());
                if tokens > bounds.max_tokens {
                    return Err(ToolError::failed(render::pdf_text_too_many_tokens(tokens, bounds.max_tokens)));
                }
                Ok(ToolResult::new(output))
            }
        }
    }

    fn map_tool_result(&self, output: &ReadOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock { tool_use_id: tool_use_id.to_owned(), content: render::render(output), is_error: false }
    }
}

impl ReadTool {
    /// The result of a text read, recorded in the file-read state.
    fn text_result(
        &self,
        read: TextRange,
        modified: std::io::Result<std::time::SystemTime>,
        input: &ReadInput,
        record: &RecordRead<'_>,
        max_tokens: u64,
    ) -> ToolResult<ReadOutput> {
        let stamp_content = read.whole_text.clone().unwrap_or_else(|| read.content.clone());
        let page = read.page_end.map(|_| (read.start_line, read.num_lines as u64));
        record(stamp_content, read.hash, modified, page);
        let truncated =
            read.page_end.map(|end_line| render::Truncated { end_line, tokens: read.selection_tokens, max_tokens });
        let encoding_note = if read.has_nul {
            Some(EncodingNote::NulBytes)
        } else if read.not_utf8 {
            Some(EncodingNote::NotUtf8)
        } else {
            None
        };
        ToolResult::new(ReadOutput::Text {
            file: TextFile {
                file_path: input.file_path.clone(),
                num_lines: read.num_lines,
                start_line: read.start_line,
                total_lines: read.total_lines,
                requested_offset: input.offset,
                content: read.content,
                encoding_note,
                truncated,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(path: &Path, pages: &str, renderer: &'static str) -> Job {
        Job {
            path: path.to_path_buf(),
            file_path: path.to_string_lossy().into_owned(),
            cwd: "/".to_owned(),
            offset: None,
            limit: None,
            pages: PageRange::parse(pages).ok().map(|range| (pages.to_owned(), range)),
            bounds: Bounds { max_size: DEFAULT_MAX_SIZE_BYTES, max_tokens: DEFAULT_MAX_TOKENS },
            previous_hash: None,
            cancel: CancellationToken::new(),
            renderer,
        }
    }

    /// A PDF of `pages` pages, page N showing `Page N says hello`.
    fn pdf_bytes(pages: u32) -> Vec<u8> {
        use lopdf::content::{Content, Operation};
        use lopdf::{Document, Object, Stream, dictionary};
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier"});
        let resources_id = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
        let kids: Vec<Object> = (1..=pages)
            .map(|page| {
                let content = Content {
                    operations: vec![
                        Operation::new("BT", vec![]),
                        Operation::new("Tf", vec!["F1".into(), 24.into()]),
                        Operation::new("Td", vec![72.into(), 700.into()]),
                        Operation::new("Tj", vec![Object::string_literal(format!("Page {page} says hello"))]),
                        Operation::new("ET", vec![]),
                    ],
                };
                let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
                doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id, "Contents" => content_id}).into()
            })
            .collect();
        let count = i64::from(pages);
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources_id,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn without_pdftoppm_pages_come_back_as_text_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.pdf");
        std::fs::write(&path, pdf_bytes(4)).unwrap();
        let Ok(Outcome::PdfText { pages, size }) = job(&path, "2-3", "no-such-pdftoppm").run() else {
            panic!("expected the pages' text");
        };
        assert_eq!(size, std::fs::metadata(&path).unwrap().len());
        assert_eq!(pages.iter().map(|(page, _)| *page).collect::<Vec<_>>(), [2, 3]);
        assert!(pages[0].1.contains("Page 2 says hello"), "{pages:?}");
        assert!(pages[1].1.contains("Page 3 says hello"), "{pages:?}");
        let output = ReadOutput::PdfText {
            file: PdfPagesText {
                file_path: "doc.pdf".into(),
                original_size: 2048,
                pages: vec![PageText { page: 2, text: "Page 2 says hello\n".into() }],
            },
        };
        assert_eq!(
            render::render(&output).text(),
            "PDF text extracted: 1 page(s) from doc.pdf (2KB).\n[Note: only the pages' text is shown; their images need poppler-utils (the pdftoppm command), which is not installed.]\n\n<page number=\"2\">\nPage 2 says hello\n</page>"
        );
        // An open range ends at the last page.
        let Ok(Outcome::PdfText { pages, .. }) = job(&path, "3-", "no-such-pdftoppm").run() else {
            panic!("expected the pages' text");
        };
        assert_eq!(pages.iter().map(|(page, _)| *page).collect::<Vec<_>>(), [3, 4]);
    }

    #[test]
    fn pdf_page_counts_bound_whole_reads_and_open_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.pdf");
        std::fs::write(&path, pdf_bytes(25)).unwrap();
        let error = |job: Job| match job.run() {
            Err(ToolError::Failed(message)) => message,
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("expected an error"),
        };
        assert_eq!(
            error(job(&path, "", "none")),
            "This PDF has 25 pages, too many to read at once (at most 10). Read it in parts with the pages parameter, such as pages: \"1-5\"; each call returns at most 20 pages."
        );
        assert_eq!(
            error(job(&path, "3-", "none")),
            "The page range \"3-\" runs to the end of this 25-page PDF, more than the 20 pages one Read returns. Ask for at most 20 pages, such as \"3-22\"."
        );
        assert_eq!(
            error(job(&path, "26", "none")),
            "The page range \"26\" is past the end of this PDF, which has 25 page(s)."
        );
        let Ok(Outcome::PdfText { pages, .. }) = job(&path, "24-30", "none").run() else {
            panic!("expected the pages' text");
        };
        assert_eq!(pages.len(), 2, "a range past the end stops at the last page");
    }
}
