//! The secondary model: WebFetch hands the page and the user's prompt to a small, fast model and
//! returns its answer (Claude Code's `applyPromptToMarkdown`, which asks Haiku).
//!
//! [`Summarizer`] is the seam: the host supplies one (or none, and the tool then returns the
//! page content itself). [`AnthropicSummarizer`] calls the Anthropic Messages API.

use std::fmt;
use std::time::Duration;

use agent_tools_core::tool::BoxFuture;
use serde_json::{Value, json};

/// The Messages API's address when no other is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The model asked when no other is configured.
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";

/// The `anthropic-version` header sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The answer when the model's reply has no text block (Claude Code's text).
pub const NO_RESPONSE: &str = "No response from model";

/// What the secondary model is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryRequest<'a> {
    /// The page's URL (the one the model gave).
    pub url: &'a str,
    /// The user's prompt: what to find in the page.
    pub prompt: &'a str,
    /// The page content (Markdown or text), already cut to WebFetch's 100,000 characters.
    pub content: &'a str,
    /// Whether the host is pre-approved (documentation): the quoting limits are relaxed.
    pub preapproved: bool,
}

/// Why the secondary model gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SummaryError(pub String);

/// A model that answers a prompt about a page. Implement it to plug in another provider; the
/// host passes one to [`crate::WebFetchConfig::summarizer`].
pub trait Summarizer: Send + Sync + fmt::Debug {
    /// The model's answer: the text WebFetch returns.
    ///
    /// # Errors
    /// [`SummaryError`] when the model cannot be reached or refuses the request.
    fn summarize<'a>(&'a self, request: SummaryRequest<'a>) -> BoxFuture<'a, Result<String, SummaryError>>;
}

/// The message sent to the secondary model: the page, the user's prompt, and how to answer.
/// Our own wording; the quoting guidelines for hosts that are not pre-approved follow Claude
/// Code's (short quotes, no song lyrics, no legal opinions).
pub fn build_prompt(request: &SummaryRequest<'_>) -> String {
    let guidelines = if request.preapproved {
        "Answer from the page alone. Include the details the request needs, code examples and exact \
         wording from the documentation included."
    } else {
        "Answer from the page alone, briefly and to the point. Quote the page only in short excerpts \
         (at most 125 characters each, in quotation marks) and otherwise use your own words. Do not \
         reproduce song lyrics. Do not comment on whether anything on the page is legal. If the page \
         does not answer the request, say so."
    };
    format!(
        "Here is the content of the web page {url}:\n\n<page>\n{content}\n</page>\n\n\
         The request about this page:\n{prompt}\n\n{guidelines}",
        url = request.url,
        content = request.content,
        prompt = request.prompt,
    )
}

/// Where and how to reach the Messages API.
#[derive(Clone, PartialEq, Eq)]
pub struct MessagesApiConfig {
    /// The API's base address, without `/v1/messages` ([`DEFAULT_BASE_URL`]).
    pub base_url: String,
    /// The key sent as `x-api-key`.
    pub api_key: String,
    /// The model to ask ([`DEFAULT_MODEL`]).
    pub model: String,
    /// Most tokens of answer.
    pub max_tokens: u32,
    /// How long one request may take in all.
    pub timeout: Duration,
}

impl MessagesApiConfig {
    /// The defaults with this key: [`DEFAULT_BASE_URL`], [`DEFAULT_MODEL`], 4,096 tokens, 120 s.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: api_key.into(),
            model: DEFAULT_MODEL.to_owned(),
            max_tokens: 4_096,
            timeout: Duration::from_secs(120),
        }
    }
}

impl fmt::Debug for MessagesApiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessagesApiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// A [`Summarizer`] that asks a model through the Anthropic Messages API: `POST
/// {base_url}/v1/messages` with `x-api-key` and `anthropic-version`, one user message built by
/// [`build_prompt`]; the first text block of the reply is the answer ([`NO_RESPONSE`] if none).
#[derive(Debug)]
pub struct AnthropicSummarizer {
    config: MessagesApiConfig,
    client: Result<reqwest::Client, String>,
}

impl AnthropicSummarizer {
    /// A summarizer for this API configuration.
    pub fn new(config: MessagesApiConfig) -> Self {
        let client = crate::api_client(&config.base_url, config.timeout).map_err(|err| err.to_string());
        Self { config, client }
    }

    async fn ask(&self, request: SummaryRequest<'_>) -> Result<String, SummaryError> {
        let client = self.client.as_ref().map_err(|err| SummaryError(err.clone()))?;
        let endpoint = format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'));
        let body = json!({
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": [{"role": "user", "content": build_prompt(&request)}],
        });
        let response = client
            .post(&endpoint)
            .header("x-api-key", &self.config.api_key)
            .header("anthropic-version", ANTHROPIC_VERSION)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|err| SummaryError(format!("the model API at {endpoint} could not be reached: {err}")))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|err| SummaryError(format!("the model API's answer could not be read: {err}")))?;
        if !status.is_success() {
            let detail: String = text.chars().take(500).collect();
            return Err(SummaryError(format!("the model API answered {status}: {detail}")));
        }
        let reply: Value = serde_json::from_str(&text)
            .map_err(|err| SummaryError(format!("the model API's answer is not JSON: {err}")))?;
        Ok(first_text(&reply).unwrap_or(NO_RESPONSE).to_owned())
    }
}

impl Summarizer for AnthropicSummarizer {
    fn summarize<'a>(&'a self, request: SummaryRequest<'a>) -> BoxFuture<'a, Result<String, SummaryError>> {
        Box::pin(self.ask(request))
    }
}

/// The first `text` block of a Messages API reply.
fn first_text(reply: &Value) -> Option<&str> {
    reply
        .get("content")?
        .as_array()?
        .iter()
        .find_map(|block| (block.get("type")?.as_str()? == "text").then(|| block.get("text")?.as_str()).flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_text_block_is_the_answer() {
        let reply = json!({"content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "A"}, {"type": "text", "text": "B"}]});
        assert_eq!(first_text(&reply), Some("A"));
        assert_eq!(first_text(&json!({"content": []})), None);
        assert_eq!(first_text(&json!({})), None);
    }

    #[test]
    fn the_prompt_carries_page_and_request() {
        let request =
            SummaryRequest { url: "https://e.com/", prompt: "What is X?", content: "X is 1.", preapproved: false };
        let prompt = build_prompt(&request);
        assert!(prompt.contains("<page>\nX is 1.\n</page>"));
        assert!(prompt.contains("What is X?"));
        assert!(prompt.contains("125 characters"));
        assert!(!build_prompt(&SummaryRequest { preapproved: true, ..request }).contains("125 characters"));
    }

    #[test]
    fn the_key_is_never_printed() {
        let config = MessagesApiConfig::new("sk-secret");
        assert!(!format!("{config:?}").contains("sk-secret"));
    }
}
