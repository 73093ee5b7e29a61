//! PDFs: the `pages` range, counting pages, rendering pages to images, and their text.
//!
//! The design, end to end:
//!
//! - A file is a PDF when its bytes start with `%PDF-`, whatever its name. Pages are counted with
//!   `lopdf`.
//! - **Without `pages`**: a PDF of more than [`MAX_PAGES_WHOLE`] pages, or larger than
//!   [`MAX_DOCUMENT_BYTES`], is refused with a message asking for `pages`. Otherwise the whole file
//!   goes to the model as a `document` block in a user message after the result, and the result
//!   text says `PDF file read: PATH (SIZE)`. (A PDF `lopdf` cannot parse is still sent whole: the
//!   model's API may read what `lopdf` cannot.)
//! - **With `pages`** (`"3"`, `"1-5"`, `"3-"`; at most [`MAX_PAGES_PER_READ`] pages, checked before
//!   any I/O; an open range is checked against the page count): the pages are rendered to JPEG
//!   with poppler's `pdftoppm` (`-jpeg -r 100`) and sent as images in a user message after the
//!   result, whose text says `PDF pages extracted: N page(s) from PATH (SIZE)`. Without
//!   `pdftoppm`, the pages' text is extracted with `lopdf` and returned in the result itself, with
//!   a note that page images need poppler-utils.
//! - PDFs are not recorded in the file-read state: Edit and Write do not change them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_tools_core::CancellationToken;

/// Most pages one Read returns.
pub const MAX_PAGES_PER_READ: u32 = 20;

/// Most pages of a PDF read whole (without `pages`).
pub const MAX_PAGES_WHOLE: usize = 10;

/// Largest PDF sent whole as a document, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = 20 * 1024 * 1024;

/// Largest PDF processed at all, in bytes.
pub const MAX_PDF_BYTES: u64 = 100 * 1024 * 1024;

/// Resolution of rendered pages, in dots per inch.
pub const RENDER_DPI: u32 = 100;

/// Longest a page rendering may take.
pub const RENDER_TIMEOUT: Duration = Duration::from_secs(120);

/// The program that renders pages (poppler-utils).
pub const RENDERER: &str = "pdftoppm";

/// Whether a file's first bytes are a PDF's.
pub fn is_pdf(head: &[u8]) -> bool {
    head.starts_with(b"%PDF-")
}

/// A `pages` value: one page, a closed range, or a first page to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRange {
    /// First page (1-based).
    pub first: u32,
    /// Last page, or `None` for "to the end".
    pub last: Option<u32>,
}

/// Why a `pages` value is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeError {
    /// Not a page range (validation code 7).
    Invalid,
    /// More than [`MAX_PAGES_PER_READ`] pages (validation code 8).
    TooMany,
}

impl PageRange {
    /// Parses `"3"`, `"1-5"` or `"3-"` (spaces around the numbers allowed; pages count from 1).
    ///
    /// # Errors
    /// [`RangeError`] for anything else, a range that runs backwards, or one of too many pages.
    pub fn parse(text: &str) -> Result<Self, RangeError> {
        let page = |part: &str| part.trim().parse::<u32>().ok().filter(|page| *page >= 1).ok_or(RangeError::Invalid);
        let range = match text.split_once('-') {
            None => {
                let page = page(text)?;
                Self { first: page, last: Some(page) }
            }
            Some((first, "")) => Self { first: page(first)?, last: None },
            Some((first, last)) if last.trim().is_empty() => Self { first: page(first)?, last: None },
            Some((first, last)) => Self { first: page(first)?, last: Some(page(last)?) },
        };
        if let Some(last) = range.last {
            if last < range.first {
                return Err(RangeError::Invalid);
            }
            if last - range.first >= MAX_PAGES_PER_READ {
                return Err(RangeError::TooMany);
            }
        }
        Ok(range)
    }
}

/// Counts a PDF's pages.
///
/// # Errors
/// `lopdf`'s message when the file cannot be parsed.
pub fn page_count(bytes: &[u8]) -> Result<usize, String> {
    lopdf::Document::load_mem(bytes).map(|document| document.get_pages().len()).map_err(|error| error.to_string())
}

/// The text of pages `first..=last`, page by page.
///
/// # Errors
/// `lopdf`'s message when the file cannot be parsed or a page's text not extracted.
pub fn page_texts(bytes: &[u8], first: u32, last: u32) -> Result<Vec<(u32, String)>, String> {
    let document = lopdf::Document::load_mem(bytes).map_err(|error| error.to_string())?;
    (first..=last)
        .map(|page| {
            document.extract_text(&[page]).map(|text| (page, text)).map_err(|error| format!("page {page}: {error}"))
        })
        .collect()
}

/// Why pages could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// The renderer is not installed.
    Missing,
    /// The call was cancelled.
    Cancelled,
    /// It failed: its message.
    Failed(String),
}

/// Renders pages `first..=last` of the PDF at `path` to JPEG images with `program` (normally
/// [`RENDERER`]), in page order.
///
/// # Errors
/// [`RenderError::Missing`] when `program` cannot be started; [`RenderError::Failed`] when it fails
/// or runs past [`RENDER_TIMEOUT`]; [`RenderError::Cancelled`] when `cancel` fires.
pub fn render_pages(
    program: &str,
    path: &Path,
    first: u32,
    last: u32,
    cancel: &CancellationToken,
) -> Result<Vec<Vec<u8>>, RenderError> {
    let failed = |error: std::io::Error| RenderError::Failed(error.to_string());
    let dir = tempfile::tempdir().map_err(failed)?;
    let prefix: PathBuf = dir.path().join("page");
    let errors_path = dir.path().join("errors.txt");
    let errors = std::fs::File::create(&errors_path).map_err(failed)?;
    let mut child = match Command::new(program)
        .args(["-jpeg", "-r", &RENDER_DPI.to_string(), "-f", &first.to_string(), "-l", &last.to_string()])
        .arg(path)
        .arg(&prefix)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(errors)
        .spawn()
    {
        Ok(child) => child,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(RenderError::Missing),
        Err(error) => return Err(failed(error)),
    };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(failed)? {
            break status;
        }
        let cancelled = cancel.is_cancelled();
        if cancelled || started.elapsed() > RENDER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(if cancelled {
                RenderError::Cancelled
            } else {
                RenderError::Failed(format!("{program} took longer than {} s", RENDER_TIMEOUT.as_secs()))
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !status.success() {
        let message = std::fs::read_to_string(&errors_path).unwrap_or_default();
        let message: String = message.trim().chars().take(500).collect();
        return Err(RenderError::Failed(format!("{program} failed ({status}): {message}")));
    }
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .map_err(failed)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jpg"))
        .collect();
    // `page-01.jpg`, `page-02.jpg` …: the numbers are zero-padded, so names sort in page order.
    pages.sort();
    pages.iter().map(|page| std::fs::read(page).map_err(failed)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_parse_and_are_bounded() {
        assert_eq!(PageRange::parse("3"), Ok(PageRange { first: 3, last: Some(3) }));
        assert_eq!(PageRange::parse(" 1 - 5 "), Ok(PageRange { first: 1, last: Some(5) }));
        assert_eq!(PageRange::parse("3-"), Ok(PageRange { first: 3, last: None }));
        assert_eq!(PageRange::parse("1-20"), Ok(PageRange { first: 1, last: Some(20) }));
        assert_eq!(PageRange::parse("1-21"), Err(RangeError::TooMany));
        assert_eq!(PageRange::parse("100-200"), Err(RangeError::TooMany));
        for bad in ["", "0", "-3", "5-3", "a", "1-b", "1,3", "1-2-3", "2.5"] {
            assert_eq!(PageRange::parse(bad), Err(RangeError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn a_missing_renderer_is_told_apart() {
        let cancel = CancellationToken::new();
        assert_eq!(
            render_pages("no-such-pdftoppm-here", Path::new("/nowhere.pdf"), 1, 1, &cancel),
            Err(RenderError::Missing)
        );
    }
}
