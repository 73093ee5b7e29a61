//! Read's output → `tool_result` text, and Read's messages. The exact strings live here.

use agent_tools_core::quote::quote;
use std::fmt::Write as _;

use agent_tools_core::ImageSource;
use agent_tools_core::{ContentPart, ToolResultContent};
pub use agent_tools_files::messages::format_file_size;
use serde::Serialize;

use crate::notebook::{self, Cell, Piece};

/// A text file's lines as read (Claude Code's `{type: "text", file: {…}}` output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextFile {
    /// The path as the model gave it.
    pub file_path: String,
    /// The selected lines joined with `\n`.
    pub content: String,
    /// How many lines were selected.
    pub num_lines: usize,
    /// The first selected line's number (1-based).
    pub start_line: u64,
    /// Lines in the whole file.
    pub total_lines: u64,
    /// The `offset` asked for, if any (used to word the past-the-end warning).
    #[serde(skip)]
    pub requested_offset: Option<u64>,
    /// A note about the file's bytes, shown after the lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding_note: Option<EncodingNote>,
    /// Set when the token limit ended the page before the selection did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
}

/// Where a page cut short by the token limit stopped, for the note that says how to read on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncated {
    /// The last line shown.
    pub end_line: u64,
    /// Tokens the whole selection would have taken.
    pub tokens: u64,
    /// The token limit.
    pub max_tokens: u64,
}

/// Something the model should know about a text file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EncodingNote {
    /// NUL bytes near the start (shown as `\0`).
    NulBytes,
    /// Bytes that are not UTF-8: the text was decoded as Windows-1252.
    NotUtf8,
}

/// What Read returns (the MCP `structuredContent`), discriminated on `type` as Claude Code's is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReadOutput {
    /// A text file.
    Text {
        /// The lines read.
        file: TextFile,
    },
    /// A Jupyter notebook.
    Notebook {
        /// What was read.
        file: NotebookFile,
    },
    /// An image (PNG, JPEG, GIF or WebP), as one image part.
    Image {
        /// The image sent.
        file: ImageFile,
    },
    /// A whole PDF, sent as a `document` block in a message after the result.
    Pdf {
        /// The PDF.
        file: PdfFile,
    },
    /// PDF pages rendered as images, sent in a message after the result.
    Parts {
        /// The pages.
        file: PdfPages,
    },
    /// PDF pages as text (when the page renderer, poppler's `pdftoppm`, is not installed).
    PdfText {
        /// The pages' text.
        file: PdfPagesText,
    },
    /// The same range of a file read earlier in the conversation, unchanged since.
    FileUnchanged {
        /// The file.
        file: UnchangedFile,
    },
}

/// An image as sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageFile {
    /// The image bytes sent, base64-encoded. Left out of the structured output: the image itself is
    /// in the result content, and would double its size.
    #[serde(skip)]
    pub base64: String,
    /// JSON key `type`. The media type sent: `image/png`, `image/jpeg`, `image/gif` or
    /// `image/webp`.
    #[serde(rename = "type")]
    pub media_type: String,
    /// The file's size in bytes.
    pub original_size: u64,
    /// Set when the image was scaled down to fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<ImageDimensions>,
}

/// An image's size in the file and as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDimensions {
    /// Width in the file, in pixels.
    pub original_width: u32,
    /// Height in the file, in pixels.
    pub original_height: u32,
    /// Width sent.
    pub display_width: u32,
    /// Height sent.
    pub display_height: u32,
}

/// A whole PDF as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfFile {
    /// The path as the model gave it.
    pub file_path: String,
    /// The file's size in bytes.
    pub original_size: u64,
    /// Its pages, when they could be counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_count: Option<usize>,
}

/// PDF pages sent as images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfPages {
    /// The path as the model gave it.
    pub file_path: String,
    /// The file's size in bytes.
    pub original_size: u64,
    /// How many page images were sent.
    pub count: usize,
    /// The first page sent (1-based).
    pub first_page: u32,
    /// The last page sent.
    pub last_page: u32,
}

/// The text of PDF pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdfPagesText {
    /// The path as the model gave it.
    pub file_path: String,
    /// The file's size in bytes.
    pub original_size: u64,
    /// Each page's text, in order.
    pub pages: Vec<PageText>,
}

/// One PDF page's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageText {
    /// The page number (1-based).
    pub page: u32,
    /// Its text, as extracted.
    pub text: String,
}

/// A file read again, unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnchangedFile {
    /// The path as the model gave it.
    pub file_path: String,
}

/// A notebook as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotebookFile {
    /// The path as the model gave it.
    pub file_path: String,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// The result content: text for text files (see [`render_text`]); for notebooks, the cells and
/// their outputs as text and image parts; one image part for an image; a line of text for a PDF
/// (its content follows in a message).
pub fn render(output: &ReadOutput) -> ToolResultContent {
    match output {
        ReadOutput::Text { file } => ToolResultContent::Text(render_text(file)),
        ReadOutput::Image { file } => ToolResultContent::Parts(vec![ContentPart::Image {
            source: ImageSource::base64(file.media_type.clone(), file.base64.clone()),
        }]),
        ReadOutput::Pdf { file } => ToolResultContent::Text(format!(
            "PDF file read: {} ({})",
            file.file_path,
            format_file_size(file.original_size)
        )),
        ReadOutput::Parts { file } => ToolResultContent::Text(format!(
            "PDF pages extracted: {} page(s) from {} ({})",
            file.count,
            file.file_path,
            format_file_size(file.original_size)
        )),
        ReadOutput::PdfText { file } => ToolResultContent::Text(render_pdf_text(file)),
        ReadOutput::FileUnchanged { file } => ToolResultContent::Text(format!(
            "{} has not changed since you last read it with the same offset and limit in this conversation, \
             so that earlier result is still current. Refer to it instead of reading the file again.",
            file.file_path
        )),
        ReadOutput::Notebook { file } => ToolResultContent::Parts(
            notebook::render(&file.cells)
                .into_iter()
                .map(|piece| match piece {
                    Piece::Text(text) => ContentPart::text(text),
                    Piece::Image(media_type, data) => {
                        ContentPart::Image { source: ImageSource::base64(media_type, data) }
                    }
                })
                .collect(),
        ),
    }
}

/// The text of a text read: `N<TAB>line` for each line (NUL bytes shown as `\0`) and the
/// encoding note if any, or a warning when no line was selected.
pub fn render_text(file: &TextFile) -> String {
    if file.num_lines == 0 {
        return if file.total_lines == 0 {
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>".to_owned()
        } else {
            format!(
                "<system-reminder>Warning: the file exists but is shorter than the provided offset ({}). The file has {} lines.</system-reminder>",
                file.requested_offset.unwrap_or(file.start_line),
                file.total_lines
            )
        };
    }
    let mut text = number_lines(file.content.split('\n'), file.start_line);
    if text.contains('\0') {
        text = text.replace('\0', "\\0");
    }
    match file.encoding_note {
        Some(EncodingNote::NulBytes) => text.push_str(
            "\n\n[Note: this file holds NUL bytes in its first 8 KB, shown above as \\0. It may be binary data, \
             UTF-16/UTF-32 without a byte-order mark, or text with stray NULs. To change it, use a command that keeps \
             its encoding, or ask the user whether to convert it to UTF-8.]",
        ),
        Some(EncodingNote::NotUtf8) => text.push_str(
            "\n\n[Note: this file is not valid UTF-8, so it was decoded as Windows-1252. If it uses another legacy \
             encoding (Shift-JIS, GBK …), some characters above are wrong. Edit and Write keep the file's encoding.]",
        ),
        None => {}
    }
    if let Some(cut) = &file.truncated {
        text.push_str("\n\n");
        text.push_str(&truncation_note(file, cut));
    }
    text
}

/// What follows a page cut short by the token limit (Claude Code 2.1 says the same things in a
/// system message after the result): which lines were shown, how to read on, and not to answer
/// from this page alone.
pub fn truncation_note(file: &TextFile, cut: &Truncated) -> String {
    let next = cut.end_line + 1;
    format!(
        "[Truncated: a partial view of {path}, lines {start}-{end} of {total} (the whole would take about {tokens} tokens; the limit is {max}). \
         Read on with offset={next} limit={lines}, or find the section you need with Grep; to read it whole anyway, call Read again with \
         allow_large: true, only if you truly need all of it or the user asked for the whole file. Do not answer from this page alone if the \
         answer may be further on.]",
        path = file.file_path,
        start = file.start_line,
        end = cut.end_line,
        total = file.total_lines,
        tokens = cut.tokens,
        max = cut.max_tokens,
        lines = file.num_lines,
    )
}

/// The text of PDF pages, page by page, with a note that page images need poppler.
pub fn render_pdf_text(file: &PdfPagesText) -> String {
    let mut text = format!(
        "PDF text extracted: {} page(s) from {} ({}).\n[Note: only the pages' text is shown; their images need poppler-utils (the pdftoppm command), which is not installed.]",
        file.pages.len(),
        file.file_path,
        format_file_size(file.original_size)
    );
    for page in &file.pages {
        let _ =
            write!(text, "\n\n<page number=\"{}\">\n{}\n</page>", page.page, page.text.trim_end().replace('\0', "\\0"));
    }
    text
}

/// What follows the first [`crate::read::MAX_LINE_CHARS`] characters of a line cut to fit.
pub fn line_cut_marker(omitted: u64) -> String {
    format!(" [… line cut here: {omitted} more characters]")
}

/// The message sent after an image that was scaled down.
pub fn image_resized(path: &str, dimensions: &ImageDimensions) -> String {
    let path = quote(path);
    #[allow(clippy::cast_precision_loss)]
    let scale = f64::from(dimensions.original_width) / f64::from(dimensions.display_width.max(1));
    format!(
        "[Image {path} was scaled down from {}x{} to {}x{} pixels to fit. To map a point of the image you see to the original, multiply its coordinates by {scale:.2}.]",
        dimensions.original_width, dimensions.original_height, dimensions.display_width, dimensions.display_height
    )
}

/// Numbers lines as Claude Code's Read does: the number, a TAB, the line.
pub fn number_lines<'a>(lines: impl Iterator<Item = &'a str>, start_line: u64) -> String {
    let mut out = String::new();
    for (index, line) in lines.enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = write!(out, "{}\t{line}", start_line + index as u64);
    }
    out
}

/// Message for a path that does not exist.
pub fn file_not_found(cwd: &str) -> String {
    format!("File does not exist. Note: your current working directory is {cwd}.")
}

/// Message for a path that is a folder (Node's wording, which models know).
pub fn is_directory(path: &str) -> String {
    let path = quote(path);
    format!("EISDIR: illegal operation on a directory, read '{path}'")
}

/// Message for a file too large to read whole.
pub fn too_large(size: u64, max: u64) -> String {
    format!(
        "File content ({}) exceeds maximum allowed size ({}). Read it in parts with offset and limit, or search it with Grep. \
         To read it anyway, as far as it fits, call Read again with allow_large: true, only if you truly need all of it or the user asked for the whole file.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for a notebook whose cells are too large to show.
pub fn notebook_too_large(size: u64, max: u64, path: &str) -> String {
    let path = quote(path);
    format!(
        "Notebook content ({}) exceeds maximum allowed size ({}). Look at parts of it with jq through Bash, such as jq '.cells[:10]' {path} for the first cells, or jq '.cells[3].source' {path} for one cell's source.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for text too long for the model's budget.
pub fn too_many_tokens(tokens: u64, max: u64) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({max}). Read it in parts with offset and limit, or search it with Grep."
    )
}

/// Message for any other failure to read a file.
pub fn cannot_read(path: &str, error: &str) -> String {
    let path = quote(path);
    format!("Cannot read {path}: {error}")
}

/// Message for a binary file (Claude Code's text; here the content decides, so a file without an
/// extension is "a binary file").
pub fn binary_file(path: &str) -> String {
    let kind = match std::path::Path::new(path).extension().map(|ext| ext.to_string_lossy()) {
        Some(ext) if !ext.is_empty() => format!("a binary .{} file", quote(&ext)),
        _ => "a binary file".to_owned(),
    };
    format!(
        "This tool cannot read binary files. The file appears to be {kind}. Use a skill for this file type if one is available, or a shell command or script that can read the format."
    )
}

/// Message for a device that never ends or blocks.
pub fn blocked_device(path: &str) -> String {
    let path = quote(path);
    format!("Cannot read {path}: this device file blocks or never ends.")
}

/// Message for a FIFO, socket or device that is not on the list of known devices.
pub fn special_file(path: &str) -> String {
    let path = quote(path);
    format!(
        "Cannot read {path}: it is not a regular file (it is a device, FIFO or socket), so reading it could block or never end."
    )
}

/// Message for an image or PDF file of zero bytes.
pub fn empty_media(path: &str) -> String {
    let path = quote(path);
    format!("{path} is empty (0 bytes), so there is nothing to show.")
}

/// Message for an image that could not be decoded or re-encoded.
pub fn bad_image(path: &str, error: &str) -> String {
    let path = quote(path);
    format!("Cannot read the image {path}: {error}")
}

/// Message for an image file too large to process.
pub fn image_too_large(size: u64, max: u64) -> String {
    format!(
        "Image file ({}) exceeds the maximum size this tool processes ({}). Scale it down with a command first.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for a `pages` value that is not a page range (validation code 7).
pub fn invalid_pages(pages: &str) -> String {
    let pages = quote(pages);
    format!(
        "\"{pages}\" is not a page range. Give one page (\"3\"), a range (\"1-5\") or a first page to read to the end (\"3-\"); pages count from 1."
    )
}

/// Message for a `pages` range over the per-call maximum (validation code 8).
pub fn too_many_pages(pages: &str, max: u32) -> String {
    let pages = quote(pages);
    format!(
        "The page range \"{pages}\" covers more than {max} pages; one Read returns at most {max}. Ask for a smaller range."
    )
}

/// Message for an open range (`"3-"`) that reaches past the per-call maximum.
pub fn open_range_too_long(pages: &str, first: u32, page_count: usize, max: u32) -> String {
    let pages = quote(pages);
    format!(
        "The page range \"{pages}\" runs to the end of this {page_count}-page PDF, more than the {max} pages one Read returns. Ask for at most {max} pages, such as \"{first}-{}\".",
        u64::from(first) + u64::from(max) - 1
    )
}

/// Message for pages past the end of the PDF.
pub fn pages_out_of_range(pages: &str, page_count: usize) -> String {
    let pages = quote(pages);
    format!("The page range \"{pages}\" is past the end of this PDF, which has {page_count} page(s).")
}

/// Message for a PDF with too many pages to read whole.
pub fn pdf_needs_pages(page_count: usize, max_whole: usize, max_per_call: u32) -> String {
    format!(
        "This PDF has {page_count} pages, too many to read at once (at most {max_whole}). Read it in parts with the pages parameter, such as pages: \"1-5\"; each call returns at most {max_per_call} pages."
    )
}

/// Message for a PDF too large to send whole.
pub fn pdf_too_large_whole(size: u64, max: u64) -> String {
    format!(
        "PDF file ({}) is too large to send whole (at most {}). Read it in parts with the pages parameter, such as pages: \"1-5\".",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for a PDF too large to process at all.
pub fn pdf_too_large(size: u64, max: u64) -> String {
    format!(
        "PDF file ({}) exceeds the maximum size this tool processes ({}). Extract the pages you need with a command first.",
        format_file_size(size),
        format_file_size(max)
    )
}

/// Message for an open range on a PDF whose pages cannot be counted.
pub fn pdf_uncountable(error: &str) -> String {
    format!("Cannot count the pages of this PDF ({error}). Give the range with a last page, such as pages: \"1-5\".")
}

/// Message for a PDF whose pages could not be rendered or read.
pub fn pdf_failed(path: &str, error: &str) -> String {
    let path = quote(path);
    format!("Cannot read pages of the PDF {path}: {error}")
}

/// Message for page text over the token limit.
pub fn pdf_text_too_many_tokens(tokens: u64, max: u64) -> String {
    format!("The text of these pages ({tokens} tokens) exceeds maximum allowed tokens ({max}). Ask for fewer pages.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_with_a_tab() {
        assert_eq!(number_lines(["a", ""].into_iter(), 9), "9\ta\n10\t");
    }
}
