//! The secondary model: WebFetch hands the page and the user's prompt to a small, fast model and
//! returns its answer (Claude Code's `applyPromptToMarkdown`, which asks Haiku).
//!
//! [`Summarizer`] is the seam: the host supplies one (or none, and the tool then returns the
//! page content itself). [`AnthropicSummarizer`] calls the Anthropic Messages API through
//! `agent-tools-api`, the one Messages API client (WebSearch uses it too).

use std::time::Duration;

use agent_tools_api::{ApiError, Client, ClientOptions, Message, MessagesRequest};
use agent_tools_core::BoxFuture;
use std::fmt;

pub use agent_tools_api::{ANTHROPIC_VERSION, DEFAULT_BASE_URL, DEFAULT_MODEL};

/// Where and how to reach the Messages API: `agent_tools_api::ApiConfig` (key, base URL,
/// model; `Debug` never prints the key), under the name this crate has always used.
pub use agent_tools_api::ApiConfig as MessagesApiConfig;

/// Most tokens of the secondary model's answer.
pub const MAX_TOKENS: u32 = 4_096;

/// How long one request to the secondary model may take in all unless the config sets its own `timeout`.
pub const TIMEOUT: Duration = Duration::from_secs(120);

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

/// A [`Summarizer`] that asks a model through the Anthropic Messages API: `POST
/// {base_url}/v1/messages` with `x-api-key` and `anthropic-version`, one user message built by
/// [`build_prompt`]; the first text block of the reply is the answer ([`NO_RESPONSE`] if none).
#[derive(Debug)]
pub struct AnthropicSummarizer {
    client: Result<Client, String>,
}

impl AnthropicSummarizer {
    /// A summarizer for this API configuration ([`MAX_TOKENS`], [`TIMEOUT`]).
    pub fn new(config: MessagesApiConfig) -> Self {
        let options = ClientOptions::new(crate::USER_AGENT, TIMEOUT);
        let client = Client::new(config, &options).map_err(|err| match err {
            ApiError::Setup(source) => source.to_string(),
            other => other.to_string(),
        });
        Self { client }
    }

    async fn ask(&self, request: SummaryRequest<'_>) -> Result<String, SummaryError> {
        let client = self.client.as_ref().map_err(|err| SummaryError(err.clone()))?;
        let messages = vec![Message::user(build_prompt(&request))];
        let reply = client
            .messages(&MessagesRequest::new(client.config().model.clone(), MAX_TOKENS, messages))
            .await
            .map_err(|err| SummaryError(describe(&err)))?;
        Ok(reply.first_text().unwrap_or(NO_RESPONSE).to_owned())
    }
}

/// WebFetch's wording of a failed call.
fn describe(err: &ApiError) -> String {
    match err {
        ApiError::Send { endpoint, source } => format!("the model API at {endpoint} could not be reached: {source}"),
        ApiError::Body { source, .. } => format!("the model API's answer could not be read: {source}"),
        ApiError::Status { status, body, .. } => {
            let detail: String = body.chars().take(500).collect();
            format!("the model API answered {status}: {detail}")
        }
        ApiError::NotJson(source) => format!("the model API's answer is not JSON: {source}"),
        other => other.to_string(),
    }
}

impl Summarizer for AnthropicSummarizer {
    fn summarize<'a>(&'a self, request: SummaryRequest<'a>) -> BoxFuture<'a, Result<String, SummaryError>> {
        Box::pin(self.ask(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
