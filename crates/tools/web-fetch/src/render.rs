//! WebFetch's output → `tool_result` text. The exact strings live here.

use std::io;
use std::path::Path;

use serde::Serialize;

use crate::fetch::CrossHostRedirect;

/// What WebFetch produced (Claude Code's output fields and names). The `tool_result` text is
/// `result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebFetchOutput {
    /// Bytes of response body read (for a reported redirect: the length of the report).
    pub bytes: u64,
    /// The HTTP status code of the last response.
    pub code: u16,
    /// Its reason phrase (`OK`, `Found` …).
    pub code_text: String,
    /// The answer: the secondary model's text, or the page content itself.
    pub result: String,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
    /// The URL given.
    pub url: String,
}

/// The `tool_result` text: the output's `result`.
pub fn render(output: &WebFetchOutput) -> String {
    output.result.clone()
}

/// What follows content cut to the character limit (Claude Code's marker).
pub const TRUNCATED_MARKER: &str = "[Content truncated due to length...]";

/// The first `max_chars` characters of `text` and [`TRUNCATED_MARKER`] when it is longer;
/// whether it was cut.
pub fn truncate_content(text: &str, max_chars: usize) -> (String, bool) {
    match text.char_indices().nth(max_chars) {
        None => (text.to_owned(), false),
        Some((end, _)) => (format!("{}\n\n{TRUNCATED_MARKER}", &text[..end]), true),
    }
}

/// The report of a redirect that was not followed (starts `REDIRECT DETECTED:` like Claude
/// Code's, with the same facts: both URLs, the status, and what to do next).
pub fn redirect_detected(redirect: &CrossHostRedirect, prompt: &str) -> String {
    format!(
        "REDIRECT DETECTED: The URL redirects to a different host, which is not followed automatically.\n\n\
         Original URL: {original}\n\
         Redirect URL: {target}\n\
         Status: {code} {code_text}\n\n\
         To get the content, call WebFetch again with the redirect URL and the same prompt:\n\
         - url: \"{target}\"\n\
         - prompt: \"{prompt}\"",
        original = redirect.original_url,
        target = redirect.redirect_url,
        code = redirect.code,
        code_text = redirect.code_text,
    )
}

/// The result for a binary body: never its bytes, the type, the size and where it was saved
/// (`saved` is `None` when the session has no folder to save into).
pub fn binary_content(media_type: &str, bytes: u64, saved: Option<Result<&Path, &io::Error>>) -> String {
    let head = format!("Binary content ({media_type}, {bytes} bytes) is not shown");
    match saved {
        Some(Ok(path)) => format!("{head}; saved to {}", path.display()),
        Some(Err(error)) => format!("{head}; it could not be saved ({error})."),
        None => format!("{head} (this session has no folder to save it in)."),
    }
}

/// The line put before the content when same-host redirects were followed.
pub fn redirected_note(final_url: &str) -> String {
    format!("(Redirected to {final_url}; the content below is from there.)")
}

/// The line put before the content when the body was cut at the byte cap.
pub fn capped_note(max_bytes: usize) -> String {
    format!(
        "(The response is larger than the {} size limit: only its first {max_bytes} bytes were read, so the content below is truncated.)",
        agent_tools_core::persist::format_file_size(max_bytes as u64)
    )
}

/// The line put before the content when the secondary model gave no answer.
pub fn model_failed_note(error: &str) -> String {
    format!("(The page could not be passed to the summarizing model: {error}. Its content follows as fetched.)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_cut_by_characters() {
        assert_eq!(truncate_content("héllo", 10), ("héllo".to_owned(), false));
        assert_eq!(truncate_content("héllo", 2), (format!("hé\n\n{TRUNCATED_MARKER}"), true));
    }

    #[test]
    fn redirect_report() {
        let redirect = CrossHostRedirect {
            original_url: "http://localhost:8/away".into(),
            redirect_url: "http://127.0.0.1:8/other".into(),
            code: 302,
            code_text: "Found".into(),
        };
        let text = redirect_detected(&redirect, "Summarize");
        assert!(text.starts_with("REDIRECT DETECTED: "));
        assert!(text.contains(
            "\nOriginal URL: http://localhost:8/away\nRedirect URL: http://127.0.0.1:8/other\nStatus: 302 Found\n"
        ));
        assert!(text.ends_with("- url: \"http://127.0.0.1:8/other\"\n- prompt: \"Summarize\""));
    }

    #[test]
    fn binary_is_described_not_shown() {
        assert_eq!(
            binary_content("application/pdf", 12, Some(Ok(Path::new("/s/tool-results/x.pdf")))),
            "Binary content (application/pdf, 12 bytes) is not shown; saved to /s/tool-results/x.pdf"
        );
        assert_eq!(
            capped_note(1024),
            "(The response is larger than the 1KB size limit: only its first 1024 bytes were read, so the content below is truncated.)"
        );
    }
}
