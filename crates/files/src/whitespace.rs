//! Trailing whitespace in the text a model writes.
//!
//! Models often end lines with spaces, most of all the blank lines between indented code; linters
//! and reviewers then flag every such line. Claude Code therefore strips trailing whitespace from
//! each line of Edit's `new_string` and Write's `content`, except in Markdown (`.md`, `.mdx`),
//! where two trailing spaces are a line break. We do the same, within limits that keep the
//! stripping from changing what the model did not write:
//!
//! - only spaces and tabs are stripped (not form feeds, no-break spaces or other characters that
//!   may be content), and never a line break; a line whose stripping would leave a lone `\r` at
//!   its end keeps its whitespace, so the `\r` never joins the line break;
//! - a line is stripped only where it really ends: the last piece of an Edit's `new_string` is
//!   left alone when the file's line goes on after the replaced text (Claude Code would turn
//!   `x = 1  + 2` → `x = 3  + 2` into `x = 3+ 2`);
//! - a line the model copied unchanged from the file (a line of the replaced text, or of the file
//!   a Write replaces) keeps its whitespace, so an edit never rewrites lines around it;
//! - besides Markdown (also `.markdown`), patches (`.diff`, `.patch`) keep theirs: there a line
//!   holding one space is an unchanged empty line.

use std::borrow::Cow;
use std::path::Path;

/// Extensions of files whose trailing whitespace is content (compared ignoring ASCII case).
const KEEP_EXTENSIONS: &[&str] = &["md", "mdx", "markdown", "diff", "patch"];

/// True when trailing whitespace in `path` is meaningful and must be written as given: Markdown
/// (`.md`, `.mdx`, `.markdown`) and patches (`.diff`, `.patch`).
///
/// ```
/// use agent_tools_files::keeps_trailing_whitespace;
/// use std::path::Path;
/// assert!(keeps_trailing_whitespace(Path::new("/w/README.MD")));
/// assert!(keeps_trailing_whitespace(Path::new("fix.patch")));
/// assert!(!keeps_trailing_whitespace(Path::new("main.rs")));
/// assert!(!keeps_trailing_whitespace(Path::new("md")));
/// ```
pub fn keeps_trailing_whitespace(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| KEEP_EXTENSIONS.iter().any(|keep| keep.eq_ignore_ascii_case(ext)))
}

/// `text` with trailing spaces and tabs removed from each line.
///
/// A line is the text before a `\n` (a `\r` just before it is part of the line break and stays);
/// the piece after the last `\n` counts as a line only when `last_ends_line` is true. A line for
/// which `keep` returns true (given the line without its line break) is left as it is.
///
/// ```
/// use agent_tools_files::strip_trailing_whitespace;
/// let never = |_: &str| false;
/// assert_eq!(strip_trailing_whitespace("a  \n\t\n  b \t", true, never), "a\n\n  b");
/// assert_eq!(strip_trailing_whitespace("a  \r\nb ", false, never), "a\r\nb ");
/// assert_eq!(strip_trailing_whitespace("same  \nnew  \n", true, |line: &str| line == "same  "), "same  \nnew\n");
/// ```
pub fn strip_trailing_whitespace(text: &str, last_ends_line: bool, keep: impl Fn(&str) -> bool) -> Cow<'_, str> {
    let blank = |c: char| c == ' ' || c == '\t';
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    loop {
        let (line, brk, next) = match rest.find('\n') {
            Some(at) => {
                let line = &rest[..at];
                let (line, cr) = line.strip_suffix('\r').map_or((line, ""), |line| (line, "\r"));
                (line, if cr.is_empty() { "\n" } else { "\r\n" }, Some(&rest[at + 1..]))
            }
            None => (rest, "", None),
        };
        let is_line = next.is_some() || last_ends_line;
        // `keep` is asked only about lines that have something to strip.
        let mut trimmed =
            if is_line && line.ends_with(blank) && !keep(line) { line.trim_end_matches(blank) } else { line };
        if trimmed.ends_with('\r') {
            // Stripping `\r ` before a line break would make a lone CR part of a CRLF break.
            trimmed = line;
        }
        changed |= trimmed.len() != line.len();
        out.push_str(trimmed);
        out.push_str(brk);
        match next {
            Some(next) => rest = next,
            None => break,
        }
    }
    if changed { Cow::Owned(out) } else { Cow::Borrowed(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_spaces_and_tabs_at_real_line_ends_go() {
        let never = |_: &str| false;
        assert_eq!(strip_trailing_whitespace("", true, never), "");
        assert_eq!(strip_trailing_whitespace("\n", true, never), "\n");
        assert_eq!(strip_trailing_whitespace("   ", true, never), "");
        assert_eq!(strip_trailing_whitespace("   ", false, never), "   ");
        // A lone CR never becomes part of a line break.
        assert_eq!(strip_trailing_whitespace("a\r \nb\r \t", true, never), "a\r \nb\r \t");
        // A no-break space, a form feed and a lone CR are content.
        assert_eq!(strip_trailing_whitespace("a\u{a0}\nb\u{c}\nc \r", true, never), "a\u{a0}\nb\u{c}\nc \r");
        // CRLF stays CRLF; the spaces before it go.
        assert_eq!(strip_trailing_whitespace("a \t\r\n  \r\n", true, never), "a\r\n\r\n");
        assert!(matches!(strip_trailing_whitespace("clean\n", true, never), Cow::Borrowed(_)));
    }

    #[test]
    fn kept_lines_are_compared_without_their_line_break() {
        let keep = |line: &str| line == "  ";
        assert_eq!(strip_trailing_whitespace("  \r\n  x  \n  ", true, keep), "  \r\n  x\n  ");
    }
}
