//! What a response body becomes for the model: HTML turned into Markdown, text kept as it is
//! (decoded from its charset), anything else treated as binary and never shown.
//!
//! Claude Code runs every body it does not know to be binary through its HTML converter only when
//! the type says HTML; we do the same, and also keep JSON, XML, JavaScript and other text types
//! verbatim (so `"<b>x</b>"` inside JSON stays as written).

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// Tags whose contents are dropped before HTML becomes Markdown: style sheets and scripts are not
/// page text (a page with a megabyte of inline CSS must not bury its text).
pub const SKIPPED_TAGS: &[&str] = &["script", "style", "noscript", "template"];

/// Stack size of the thread that converts HTML, in bytes: the parser and the converter recurse
/// once per nesting level, and a page may nest deeply.
const CONVERT_STACK_BYTES: usize = 256 * 1024 * 1024;

/// How a body is handled, from its `Content-Type` (and a look at the bytes when there is none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `text/html`, `application/xhtml+xml`: converted to Markdown.
    Html,
    /// Markdown, plain text, JSON, XML, JavaScript and other text: kept verbatim.
    Text,
    /// Anything else: saved to a file, never shown.
    Binary,
}

/// The media type of a `Content-Type` value, lower case, without parameters (`text/html`).
pub fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// The `charset` parameter of a `Content-Type` value, if any.
pub fn charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches('"').trim_matches('\''))
    })
}

/// Whether a media type (as [`media_type`] gives it) is text to keep verbatim.
fn is_text_type(media: &str) -> bool {
    let Some((top, sub)) = media.split_once('/') else { return false };
    if top == "text" {
        return true;
    }
    if sub.ends_with("+json") || sub.ends_with("+xml") || sub.ends_with("+yaml") {
        return true;
    }
    top == "application"
        && matches!(
            sub,
            "json"
                | "xml"
                | "javascript"
                | "x-javascript"
                | "ecmascript"
                | "x-ecmascript"
                | "yaml"
                | "x-yaml"
                | "toml"
                | "x-toml"
                | "x-sh"
                | "x-shellscript"
                | "x-httpd-php"
                | "sql"
                | "graphql"
                | "x-ndjson"
                | "jsonl"
                | "x-www-form-urlencoded"
                | "x-tex"
                | "x-latex"
                | "csv"
        )
}

/// How to handle a body with this `Content-Type` (`None` when the response had none).
///
/// Without a type the bytes decide: valid UTF-8 without NUL bytes is text (HTML when it starts
/// like an HTML document), anything else binary.
pub fn classify(content_type: Option<&str>, body: &[u8]) -> Kind {
    let media = content_type.map(media_type).unwrap_or_default();
    if media.is_empty() {
        return sniff(body);
    }
    if media == "text/html" || media == "application/xhtml+xml" {
        Kind::Html
    } else if is_text_type(&media) {
        Kind::Text
    } else {
        Kind::Binary
    }
}

fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(8_192)];
    if head.contains(&0) {
        return Kind::Binary;
    }
    // A multi-byte character may be cut at the end of `head`: only an error before it counts.
    match std::str::from_utf8(head) {
        Ok(text) => sniff_text(text),
        Err(err) if err.error_len().is_none() => {
            sniff_text(std::str::from_utf8(&head[..err.valid_up_to()]).unwrap_or(""))
        }
        Err(_) => Kind::Binary,
    }
}

fn sniff_text(text: &str) -> Kind {
    let start = text.trim_start().get(..15).unwrap_or(text.trim_start()).to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") { Kind::Html } else { Kind::Text }
}

/// The body as text: decoded with the `Content-Type`'s charset (UTF-8 when there is none or it is
/// unknown; a byte-order mark wins), invalid sequences replaced by U+FFFD.
pub fn decode(content_type: Option<&str>, body: &[u8]) -> String {
    let encoding =
        content_type.and_then(charset).and_then(|label| Encoding::for_label(label.as_bytes())).unwrap_or(UTF_8);
    let (text, _, _): (Cow<'_, str>, _, _) = encoding.decode(body);
    text.into_owned()
}

/// An HTML body as text: the `Content-Type`'s charset, else one declared in the first 1,024
/// bytes (`<meta charset="…">` or `<meta http-equiv … content="…; charset=…">`), else UTF-8.
pub fn decode_html(content_type: Option<&str>, body: &[u8]) -> String {
    if content_type.and_then(charset).is_some() {
        return decode(content_type, body);
    }
    let head = String::from_utf8_lossy(&body[..body.len().min(1_024)]).to_ascii_lowercase();
    let declared = head.find("charset=").map(|at| {
        let rest = head[at + "charset=".len()..].trim_start_matches(['"', '\'', ' ']);
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
        rest[..end].to_owned()
    });
    match declared.as_deref().and_then(|label| Encoding::for_label(label.as_bytes())) {
        Some(encoding) => encoding.decode(body).0.into_owned(),
        None => decode(content_type, body),
    }
}

/// HTML → Markdown with htmd, the contents of [`SKIPPED_TAGS`] dropped (on the calling thread).
///
/// # Errors
/// A message when the converter fails.
pub fn convert_html(html: &str) -> Result<String, String> {
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(SKIPPED_TAGS.to_vec()).build();
    converter.convert(html).map_err(|err| format!("the HTML could not be converted to Markdown: {err}"))
}

/// [`convert_html`] on a thread of its own with a large stack (the parser and the converter
/// recurse once per nesting level, and a page may nest deeply), so neither the async runtime's
/// threads nor their stacks are used.
///
/// # Errors
/// A message when the converter fails or its thread cannot be started.
pub async fn html_to_markdown(html: String) -> Result<String, String> {
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("web-fetch-html".to_owned())
        .stack_size(CONVERT_STACK_BYTES)
        .spawn(move || {
            let _ = send.send(convert_html(&html));
        })
        .map_err(|err| format!("the HTML could not be converted to Markdown: {err}"))?;
    receive.await.unwrap_or_else(|_| Err("the HTML could not be converted to Markdown".to_owned()))
}

/// A file-name extension for a saved binary body of this media type.
pub fn extension_for(media: &str) -> &'static str {
    match media {
        "application/pdf" => "pdf",
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/avif" => "avif",
        "image/bmp" => "bmp",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "image/tiff" => "tiff",
        "application/zip" => "zip",
        "application/gzip" | "application/x-gzip" => "gz",
        "application/x-tar" => "tar",
        "application/x-7z-compressed" => "7z",
        "application/wasm" => "wasm",
        "audio/mpeg" => "mp3",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/ogg" => "ogg",
        "video/mp4" => "mp4",
        "video/webm" => "webm",
        "font/woff" => "woff",
        "font/woff2" => "woff2",
        "application/msword" => "doc",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => "docx",
        "application/vnd.ms-excel" => "xls",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_decide_the_handling() {
        assert_eq!(classify(Some("text/html; charset=utf-8"), b""), Kind::Html);
        assert_eq!(classify(Some("application/xhtml+xml"), b""), Kind::Html);
        for text in [
            "text/plain",
            "text/markdown",
            "text/css",
            "application/json",
            "application/problem+json",
            "application/atom+xml",
            "image/svg+xml",
            "application/javascript",
            "TEXT/PLAIN; charset=latin1",
        ] {
            assert_eq!(classify(Some(text), b""), Kind::Text, "{text}");
        }
        for binary in ["application/octet-stream", "image/png", "application/pdf", "application/zip", "video/mp4"] {
            assert_eq!(classify(Some(binary), b"abc"), Kind::Binary, "{binary}");
        }
        assert_eq!(classify(None, b"  <!DOCTYPE html><p>x"), Kind::Html);
        assert_eq!(classify(None, b"just text"), Kind::Text);
        assert_eq!(classify(None, b"\x00\x01\x02"), Kind::Binary);
        assert_eq!(classify(None, b"\xff\xfe\xfd"), Kind::Binary);
        assert_eq!(classify(Some(""), "café".as_bytes()), Kind::Text);
    }

    #[test]
    fn text_is_decoded_by_its_charset() {
        assert_eq!(charset("text/plain; charset=\"ISO-8859-1\""), Some("ISO-8859-1"));
        assert_eq!(decode(Some("text/plain; charset=iso-8859-1"), b"caf\xe9"), "café");
        assert_eq!(decode(Some("application/json"), "café".as_bytes()), "café");
        assert_eq!(decode(None, b"a\xffb"), "a\u{fffd}b");
        assert_eq!(decode(Some("text/plain; charset=nonsense"), "é".as_bytes()), "é");
    }

    #[test]
    fn html_declares_its_charset_in_a_meta_tag() {
        let page = b"<html><head><meta charset=\"windows-1252\"></head><body>caf\xe9</body></html>";
        assert!(decode_html(Some("text/html"), page).contains("caf\u{e9}"));
        let old_style = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\xe9";
        assert!(decode_html(None, old_style).ends_with('\u{e9}'));
        // The header wins over the page.
        assert!(decode_html(Some("text/html; charset=utf-8"), page).contains('\u{fffd}'));
        assert_eq!(decode_html(Some("text/html"), "<p>é</p>".as_bytes()), "<p>é</p>");
    }

    #[tokio::test]
    async fn html_loses_styles_and_scripts() {
        let html = "<html><head><style>.a{color:red}</style><script>var a=[1];</script></head>\
                    <body><h1>Title</h1><p>Some <b>bold</b> text</p><noscript>enable js</noscript></body></html>";
        let markdown = html_to_markdown(html.to_owned()).await.unwrap();
        assert!(markdown.contains("# Title"), "{markdown}");
        assert!(markdown.contains("Some **bold** text"), "{markdown}");
        for gone in ["color:red", "var a", "enable js"] {
            assert!(!markdown.contains(gone), "{gone} kept: {markdown}");
        }
    }

    #[tokio::test]
    async fn deeply_nested_html_does_not_overflow_the_stack() {
        let depth = 5_000;
        let html = format!("{}deep text{}", "<div>".repeat(depth), "</div>".repeat(depth));
        let markdown = html_to_markdown(html).await.unwrap();
        assert!(markdown.contains("deep text"));
    }
}
