//! WebSearch's output: the reply of the Messages API read into results, and the text the model
//! sees (Claude Code's serialisation).

use agent_tools_api::ContentBlock;
use serde::Serialize;
use serde_json::Value;

/// The line that closes every result text: the model must cite what it used. Our own wording.
pub const CITE_REMINDER: &str =
    "REMINDER: In your reply to the user, cite the sources above that you use as markdown links ([title](url)).";

/// One search hit: a page's title and address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// The page's URL.
    pub url: String,
}

/// The hits of one `web_search` call of the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHits {
    /// The id of the server's `server_tool_use` block these hits answer.
    pub tool_use_id: String,
    /// The hits, in the server's order.
    pub content: Vec<SearchHit>,
}

/// One item of the results: the model's commentary, or a list of hits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SearchResult {
    /// A text block of the reply (or `Web search error: <code>` for a failed search).
    Text(String),
    /// A `web_search_tool_result` block.
    Hits(SearchHits),
}

/// WebSearch's output data (Claude Code's field names).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebSearchOutput {
    /// The query searched.
    pub query: String,
    /// Commentary and hit lists, in the reply's order.
    pub results: Vec<SearchResult>,
    /// How long the request took, in seconds.
    pub duration_seconds: f64,
}

/// The results in a Messages API reply: `text` blocks become strings, `web_search_tool_result`
/// blocks become hit lists (an error object becomes `Web search error: <code>`), other blocks
/// (`server_tool_use` …) are skipped. (A reply without a `content` array has no blocks: see
/// `agent_tools_api::MessagesResponse::from_json`.)
pub fn results_of(blocks: &[ContentBlock]) -> Vec<SearchResult> {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text } => Some(SearchResult::Text(text.clone())),
            ContentBlock::Other(block) => result_of(block),
            _ => None,
        })
        .collect()
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn result_of(block: &Value) -> Option<SearchResult> {
    match block.get("type").and_then(Value::as_str)? {
        "text" => Some(SearchResult::Text(str_field(block, "text").to_owned())),
        "web_search_tool_result" => {
            let content = block.get("content");
            let Some(items) = content.and_then(Value::as_array) else {
                let code = content.map(|error| str_field(error, "error_code")).unwrap_or_default();
                let code = if code.is_empty() { "unknown" } else { code };
                return Some(SearchResult::Text(format!("Web search error: {code}")));
            };
            let content = items
                .iter()
                .map(|item| SearchHit {
                    title: str_field(item, "title").to_owned(),
                    url: str_field(item, "url").to_owned(),
                })
                .collect();
            Some(SearchResult::Hits(SearchHits { tool_use_id: str_field(block, "tool_use_id").to_owned(), content }))
        }
        _ => None,
    }
}

/// The result text (Claude Code's layout): the query line, then each result followed by a blank
/// line (text as-is; hits as `Links: <JSON array>` or `No links found.`), then
/// [`CITE_REMINDER`]; trimmed.
pub fn render(output: &WebSearchOutput) -> String {
    let mut text = format!("Web search results for query: \"{}\"\n\n", output.query);
    for result in &output.results {
        match result {
            SearchResult::Text(commentary) => text.push_str(commentary),
            SearchResult::Hits(hits) if hits.content.is_empty() => text.push_str("No links found."),
            SearchResult::Hits(hits) => {
                text.push_str("Links: ");
                text.push_str(&serde_json::to_string(&hits.content).unwrap_or_else(|_| "[]".to_owned()));
            }
        }
        text.push_str("\n\n");
    }
    text.push_str(CITE_REMINDER);
    text.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_api::MessagesResponse;
    use serde_json::json;

    #[test]
    fn blocks_become_results_in_order() {
        let reply = json!({"content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "A", "url": "https://a.example/", "encrypted_content": "x"}
            ]},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2",
             "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
            {"type": "text", "text": "Done."},
            {"type": "mystery"},
            "not an object"
        ]});
        let results = results_of(&MessagesResponse::from_json(&reply).content);
        assert_eq!(results.len(), 3);
        assert_eq!(
            results[0],
            SearchResult::Hits(SearchHits {
                tool_use_id: "srvtoolu_1".into(),
                content: vec![SearchHit { title: "A".into(), url: "https://a.example/".into() }],
            })
        );
        assert_eq!(results[1], SearchResult::Text("Web search error: max_uses_exceeded".into()));
        assert_eq!(results[2], SearchResult::Text("Done.".into()));
        assert!(results_of(&MessagesResponse::from_json(&json!({"content": 3})).content).is_empty());
        assert!(results_of(&MessagesResponse::from_json(&json!(null)).content).is_empty());
    }

    #[test]
    fn empty_hit_lists_say_so() {
        let output = WebSearchOutput {
            query: "q".into(),
            results: vec![SearchResult::Hits(SearchHits { tool_use_id: "t".into(), content: Vec::new() })],
            duration_seconds: 0.5,
        };
        assert_eq!(
            render(&output),
            format!("Web search results for query: \"q\"\n\nNo links found.\n\n{CITE_REMINDER}")
        );
        let data = serde_json::to_value(&output).unwrap_or_default();
        assert_eq!(data["durationSeconds"], json!(0.5));
        assert_eq!(data["results"][0]["tool_use_id"], json!("t"));
    }
}
