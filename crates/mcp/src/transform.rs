//! Turning an MCP `CallToolResult` into the `tool_result` content the model sees (Claude Code's
//! `transformMCPResult` and its output cap), working on the result's JSON so that it does not
//! depend on one version of the protocol types.

use std::path::{Path, PathBuf};

use agent_tools_core::ImageSource;
use agent_tools_core::persist;
use agent_tools_core::{ContentPart, ToolResultContent};
use base64::Engine as _;
use serde_json::Value;

/// Claude Code's default `MAX_MCP_OUTPUT_TOKENS`.
pub const DEFAULT_MAX_OUTPUT_TOKENS: usize = 25_000;

/// Tokens an image is counted as when estimating a result's size (Claude Code's estimate).
pub const IMAGE_TOKENS: usize = 1_600;

/// Where binary content goes and what names it gets.
#[derive(Debug, Clone, Copy)]
pub struct SaveTarget<'a> {
    /// The session's folder (`<it>/tool-results/` receives the files); `None`: nothing is saved.
    pub session_dir: Option<&'a Path>,
    /// A prefix for file names (the `tool_use` id).
    pub name: &'a str,
}

/// The text of the first `text` content block of an error result, else the legacy `error`
/// field, else a generic sentence (Claude Code's message for `isError: true` results).
pub fn error_message(result: &Value) -> String {
    let first_text = result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.iter().find(|block| block.get("type").and_then(Value::as_str) == Some("text")))
        .and_then(|block| block.get("text"))
        .and_then(Value::as_str);
    first_text
        .or_else(|| result.get("error").and_then(Value::as_str))
        .map_or_else(|| "The MCP tool reported an error without a message.".to_owned(), str::to_owned)
}

/// Maps a successful result: `structuredContent` (when present) as its JSON text, taking
/// precedence over `content`; else each content block — text as text, images as image parts,
/// embedded text resources as text prefixed `[Resource from <server> at <uri>] `, image blobs as
/// that prefix and the image, other blobs and audio saved under the session's `tool-results/`
/// folder with a text pointing at the file. A legacy `toolResult` field is shown as text.
pub fn transform_result(result: &Value, server: &str, save: SaveTarget<'_>) -> ToolResultContent {
    if let Some(structured) = result.get("structuredContent").filter(|value| !value.is_null()) {
        return ToolResultContent::Text(structured.to_string());
    }
    if let Some(legacy) = result.get("toolResult").filter(|value| !value.is_null()) {
        return ToolResultContent::Text(legacy.as_str().map_or_else(|| legacy.to_string(), str::to_owned));
    }
    let blocks = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut parts = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let name = format!("{}-{index}", save.name);
        map_block(block, server, SaveTarget { name: &name, ..save }, &mut parts);
    }
    simplify(parts)
}

/// A single text part becomes plain text; anything else stays a list of parts.
fn simplify(mut parts: Vec<ContentPart>) -> ToolResultContent {
    match parts.as_slice() {
        [] => ToolResultContent::Text(String::new()),
        [ContentPart::Text { .. }] => match parts.pop() {
            Some(ContentPart::Text { text }) => ToolResultContent::Text(text),
            _ => ToolResultContent::Parts(parts),
        },
        _ => ToolResultContent::Parts(parts),
    }
}

fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn map_block(block: &Value, server: &str, save: SaveTarget<'_>, parts: &mut Vec<ContentPart>) {
    match str_field(block, "type") {
        Some("text") => parts.push(ContentPart::text(str_field(block, "text").unwrap_or_default())),
        Some("image") => {
            let data = str_field(block, "data").unwrap_or_default();
            let mime = str_field(block, "mimeType").unwrap_or("image/png");
            parts.push(ContentPart::Image { source: ImageSource::base64(mime, data) });
        }
        Some("audio") => {
            let data = str_field(block, "data").unwrap_or_default();
            let mime = str_field(block, "mimeType").unwrap_or("audio/octet-stream");
            parts.push(ContentPart::text(save_blob(data, mime, save, "Audio").0));
        }
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let uri = str_field(resource, "uri").unwrap_or_default();
            let prefix = format!("[Resource from {server} at {uri}] ");
            if let Some(text) = str_field(resource, "text") {
                parts.push(ContentPart::text(format!("{prefix}{text}")));
            } else if let Some(blob) = str_field(resource, "blob") {
                let mime = str_field(resource, "mimeType").unwrap_or("application/octet-stream");
                if is_image(mime) {
                    parts.push(ContentPart::text(prefix));
                    parts.push(ContentPart::Image { source: ImageSource::base64(mime, blob) });
                } else {
                    parts.push(ContentPart::text(format!(
                        "{prefix}{}",
                        save_blob(blob, mime, save, "Binary resource").0
                    )));
                }
            } else {
                parts.push(ContentPart::text(prefix.trim_end().to_owned()));
            }
        }
        Some("resource_link") => {
            let uri = str_field(block, "uri").unwrap_or_default();
            let name = str_field(block, "name").unwrap_or(uri);
            let mut text = format!("[Resource link: {name}] {uri}");
            if let Some(description) = str_field(block, "description") {
                text.push_str(&format!(" ({description})"));
            }
            parts.push(ContentPart::text(text));
        }
        // Unknown block types are shown as their JSON rather than dropped silently.
        _ => parts.push(ContentPart::text(block.to_string())),
    }
}

fn is_image(mime: &str) -> bool {
    matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
}

/// A file extension for a MIME type (`bin` when unknown).
fn extension(mime: &str) -> &'static str {
    match mime.split(';').next().unwrap_or_default().trim() {
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "application/zip" => "zip",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "text/plain" => "txt",
        _ => "bin",
    }
}

/// Decodes base64 `data` and saves it once under the session's `tool-results/` folder; returns
/// the text the model reads about it, and the file when it was saved.
pub(crate) fn save_blob(data: &str, mime: &str, save: SaveTarget<'_>, what: &str) -> (String, Option<PathBuf>) {
    let bytes = match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
        Ok(bytes) => bytes,
        Err(error) => return (format!("[{what} ({mime}) could not be decoded: {error}]"), None),
    };
    let size = persist::format_file_size(bytes.len() as u64);
    let Some(dir) = save.session_dir else {
        return (format!("[{what} ({mime}, {size}) was not saved: this session has no folder for tool results]"), None);
    };
    let path = persist::result_path(dir, save.name, extension(mime));
    match persist::save_once(&path, &bytes) {
        Ok(()) => (format!("[{what} ({mime}, {size}) saved to {}]", path.display()), Some(path)),
        Err(error) => (format!("[{what} ({mime}, {size}) could not be saved: {error}]"), None),
    }
}

/// Estimated tokens of a result: characters / 4, and [`IMAGE_TOKENS`] per image.
pub fn estimate_tokens(content: &ToolResultContent) -> usize {
    match content {
        ToolResultContent::Text(text) => text.chars().count().div_ceil(4),
        ToolResultContent::Parts(parts) => parts
            .iter()
            .map(|part| match part {
                ContentPart::Text { text } => text.chars().count().div_ceil(4),
                ContentPart::Image { .. } => IMAGE_TOKENS,
                ContentPart::ToolReference { tool_name } => tool_name.chars().count().div_ceil(4),
            })
            .sum(),
    }
}

/// The notice appended to a cut result when the whole output could not be saved (Claude Code's
/// wording for the marker line).
pub fn truncation_notice(max_tokens: usize) -> String {
    format!(
        "\n\n[OUTPUT TRUNCATED - exceeded {max_tokens} token limit]\n\nThe rest of this MCP tool's output was \
         dropped. If the server has tools or parameters to page or filter its output, use them to fetch the \
         part you need; otherwise tell the user the output was cut."
    )
}

/// The notice appended to a cut result whose whole text was saved to `path` (`chars`
/// characters in all).
pub fn saved_truncation_notice(max_tokens: usize, chars: usize, path: &Path) -> String {
    format!(
        "\n\n[OUTPUT TRUNCATED - exceeded {max_tokens} token limit]\n\nThe whole output ({chars} characters) was \
         saved to: {}\nRead the rest from that file in parts (Read with offset and limit) or search it with \
         Grep, or use the server's own tools or parameters to page or filter its output.",
        path.display()
    )
}

/// The text of every text part, joined with newlines (what is saved of a cut result).
fn all_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Text(text) => text.clone(),
        ToolResultContent::Parts(parts) => parts
            .iter()
            .filter_map(|part| match part {
                ContentPart::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Caps a result at `max_tokens` estimated tokens (Claude Code's `MAX_MCP_OUTPUT_TOKENS`). Under
/// the cap the content is returned unchanged. Over it, text is cut to `4 × max_tokens`
/// characters in all (images count [`IMAGE_TOKENS`] each and are dropped once the budget is
/// spent), so the model still gets the start of the output; the whole text is saved once to
/// `<session dir>/tool-results/<save.name>.txt` and [`saved_truncation_notice`] names the file,
/// or, without a session folder or when saving fails, [`truncation_notice`] is appended.
///
/// Claude Code either cuts (this notice, no file) or, with `ENABLE_MCP_LARGE_OUTPUT_FILES`,
/// replaces the result by a file path and reading instructions only — which left the model with
/// nothing usable in the reports (anthropics/claude-code#955). Doing both keeps the start inline and the rest
/// reachable.
pub fn cap_output(content: ToolResultContent, max_tokens: usize, save: SaveTarget<'_>) -> ToolResultContent {
    if estimate_tokens(&content) <= max_tokens {
        return content;
    }
    let notice = match save.session_dir {
        Some(dir) => {
            let whole = all_text(&content);
            let path = persist::result_path(dir, save.name, "txt");
            match persist::save_once(&path, whole.as_bytes()) {
                Ok(()) => saved_truncation_notice(max_tokens, whole.chars().count(), &path),
                Err(error) => {
                    tracing::warn!(%error, path = %path.display(), "cannot save a cut MCP result");
                    truncation_notice(max_tokens)
                }
            }
        }
        None => truncation_notice(max_tokens),
    };
    let mut budget = max_tokens.saturating_mul(4);
    let parts = match content {
        ToolResultContent::Text(text) => vec![ContentPart::Text { text }],
        ToolResultContent::Parts(parts) => parts,
    };
    let mut kept = Vec::new();
    for part in parts {
        match part {
            ContentPart::Text { text } => {
                let take: String = text.chars().take(budget).collect();
                budget -= take.chars().count();
                if !take.is_empty() {
                    kept.push(ContentPart::Text { text: take });
                }
            }
            ContentPart::Image { source } => {
                let cost = IMAGE_TOKENS * 4;
                if budget >= cost {
                    budget -= cost;
                    kept.push(ContentPart::Image { source });
                }
            }
            // MCP servers never send these; kept as they are.
            reference @ ContentPart::ToolReference { .. } => kept.push(reference),
        }
    }
    match kept.last_mut() {
        Some(ContentPart::Text { text }) => text.push_str(&notice),
        _ => kept.push(ContentPart::text(notice.trim_start().to_owned())),
    }
    simplify(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NO_SAVE: SaveTarget<'static> = SaveTarget { session_dir: None, name: "t" };

    #[test]
    fn structured_content_wins_over_content() {
        let result = json!({"content": [{"type": "text", "text": "ignored"}], "structuredContent": {"a": 1}});
        assert_eq!(transform_result(&result, "s", NO_SAVE), ToolResultContent::Text(r#"{"a":1}"#.into()));
    }

    #[test]
    fn text_images_and_resources_are_mapped() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "body"}},
            {"type": "resource", "resource": {"uri": "file:///b.png", "blob": "AAAA", "mimeType": "image/png"}},
        ]});
        assert_eq!(
            transform_result(&result, "srv", NO_SAVE),
            ToolResultContent::Parts(vec![
                ContentPart::text("hello"),
                ContentPart::Image { source: ImageSource::base64("image/png", "AAAA") },
                ContentPart::text("[Resource from srv at file:///a.txt] body"),
                ContentPart::text("[Resource from srv at file:///b.png] "),
                ContentPart::Image { source: ImageSource::base64("image/png", "AAAA") },
            ])
        );
    }

    #[test]
    fn blobs_and_audio_are_saved_to_the_session_folder() {
        let dir = tempfile::tempdir().unwrap();
        let save = SaveTarget { session_dir: Some(dir.path()), name: "toolu_1" };
        let result = json!({"content": [
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "mem://x", "blob": "aGk=", "mimeType": "application/pdf"}},
        ]});
        let ToolResultContent::Parts(parts) = transform_result(&result, "srv", save) else { panic!() };
        let audio = dir.path().join("tool-results/toolu_1-0.wav");
        let pdf = dir.path().join("tool-results/toolu_1-1.pdf");
        assert_eq!(std::fs::read(&audio).unwrap(), b"RIFF");
        assert_eq!(std::fs::read(&pdf).unwrap(), b"hi");
        assert_eq!(parts[0], ContentPart::text(format!("[Audio (audio/wav, 4 bytes) saved to {}]", audio.display())));
        assert_eq!(
            parts[1],
            ContentPart::text(format!(
                "[Resource from srv at mem://x] [Binary resource (application/pdf, 2 bytes) saved to {}]",
                pdf.display()
            ))
        );
    }

    #[test]
    fn error_message_is_the_first_text() {
        let result =
            json!({"isError": true, "content": [{"type": "image", "data": ""}, {"type": "text", "text": "boom"}]});
        assert_eq!(error_message(&result), "boom");
        assert_eq!(error_message(&json!({"isError": true})), "The MCP tool reported an error without a message.");
    }

    #[test]
    fn output_over_the_cap_is_cut_with_the_notice() {
        let long = "x".repeat(500);
        let capped = cap_output(ToolResultContent::Text(long), 100, NO_SAVE);
        assert_eq!(capped, ToolResultContent::Text(format!("{}{}", "x".repeat(400), truncation_notice(100))));
        let short = ToolResultContent::Text("y".repeat(400));
        assert_eq!(cap_output(short.clone(), 100, NO_SAVE), short);
    }

    #[test]
    fn a_cut_output_is_saved_whole_and_the_notice_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let save = SaveTarget { session_dir: Some(dir.path()), name: "toolu_9" };
        let whole = format!("BEGIN{}END", "é".repeat(600));
        let capped = cap_output(ToolResultContent::Text(whole.clone()), 100, save);
        let path = dir.path().join("tool-results/toolu_9.txt");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        let kept: String = whole.chars().take(400).collect();
        assert_eq!(capped, ToolResultContent::Text(format!("{kept}{}", saved_truncation_notice(100, 608, &path))));
        // Parts: the text parts are saved, joined with newlines; an image costs 1,600 tokens, more
        // than the whole budget, so it is dropped and the text fits.
        let save = SaveTarget { session_dir: Some(dir.path()), name: "toolu_10" };
        let parts = ToolResultContent::Parts(vec![
            ContentPart::text("a".repeat(300)),
            ContentPart::Image { source: ImageSource::base64("image/png", "AAAA") },
            ContentPart::text("b".repeat(300)),
        ]);
        let capped = cap_output(parts, 200, save);
        let path = dir.path().join("tool-results/toolu_10.txt");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\n{}", "a".repeat(300), "b".repeat(300)));
        assert_eq!(
            capped,
            ToolResultContent::Parts(vec![
                ContentPart::text("a".repeat(300)),
                ContentPart::text(format!("{}{}", "b".repeat(300), saved_truncation_notice(200, 601, &path))),
            ])
        );
    }

    #[test]
    fn garbage_results_map_to_empty_text_or_their_json() {
        let generic = "The MCP tool reported an error without a message.";
        for value in [json!(null), json!(3), json!({"content": 5})] {
            assert_eq!(transform_result(&value, "s", NO_SAVE), ToolResultContent::Text(String::new()), "{value}");
            assert_eq!(error_message(&value), generic, "{value}");
        }
        // Blocks that are not objects with a string type are shown as their JSON, not dropped.
        let value = json!({"content": [1, null, {"type": 2}]});
        assert_eq!(
            transform_result(&value, "s", NO_SAVE),
            ToolResultContent::Parts(vec![
                ContentPart::text("1"),
                ContentPart::text("null"),
                ContentPart::text(r#"{"type":2}"#)
            ])
        );
        assert_eq!(error_message(&value), generic);
    }
}
