//! The HTTP side of WebFetch: one GET per hop, redirects followed by hand, the body streamed
//! under a byte cap with an idle timeout, and the body turned into text for the model.
//!
//! Mirrors Claude Code's `getWithPermittedRedirects` and `getURLMarkdownContent`: redirects are
//! never followed automatically; a redirect to the same host (a leading `www.` aside), scheme and
//! port is followed, up to [`crate::WebFetchConfig::max_redirects`] hops; any other redirect is
//! reported to the model instead of followed.

use std::error::Error as _;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use url::Url;

use crate::WebFetchConfig;
use crate::content::{self, Kind};
use crate::target::is_permitted_redirect;

/// The `Accept` header sent (Claude Code's): Markdown first, then HTML, then anything.
pub const ACCEPT_VALUE: &str = "text/markdown, text/html, */*";

/// A fetched page, as text for the model (what the cache keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The content for the model: Markdown for HTML, the decoded text for text types, a note
    /// naming the saved file for binary bodies.
    pub text: String,
    /// The response's `Content-Type` header (empty when there was none).
    pub content_type: String,
    /// Bytes of body read (at most the configured cap).
    pub bytes: u64,
    /// The final response's HTTP status code.
    pub code: u16,
    /// Its reason phrase (`OK`).
    pub code_text: String,
    /// The URL the content came from, after any same-host redirects.
    pub final_url: String,
    /// Whether same-host redirects were followed to get here.
    pub redirected: bool,
    /// Whether the body was cut at the byte cap.
    pub capped: bool,
}

impl Page {
    /// Bytes the page takes in the cache: its text's length.
    pub fn size(&self) -> usize {
        self.text.len()
    }
}

/// A redirect to another host (or scheme, or port), reported instead of followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrossHostRedirect {
    /// The URL that answered with the redirect.
    pub original_url: String,
    /// Where it points, resolved against `original_url`.
    pub redirect_url: String,
    /// The redirect's status code (301, 302, 303, 307, 308).
    pub code: u16,
    /// Its reason phrase (`Found`).
    pub code_text: String,
}

/// What a fetch ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// A page (status 2xx).
    Page(Page),
    /// A redirect that is not followed automatically.
    Redirect(CrossHostRedirect),
}

/// Why a fetch failed; the messages are what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// No byte arrived for the idle timeout.
    #[error(
        "Request timed out: {url} sent nothing for {} (the server accepted the connection but did not answer). Try again later or use another URL.", human(*.timeout)
    )]
    Idle {
        /// The URL being read.
        url: String,
        /// The idle timeout.
        timeout: Duration,
    },
    /// The whole fetch took longer than the overall timeout.
    #[error("Request timed out: fetching {url} took longer than {}.", human(*.timeout))]
    Overall {
        /// The URL given.
        url: String,
        /// The overall timeout.
        timeout: Duration,
    },
    /// The connection could not be made (or timed out).
    #[error("Could not connect to {url}: {detail}")]
    Connect {
        /// The URL being fetched.
        url: String,
        /// The cause.
        detail: String,
    },
    /// Another transport failure.
    #[error("Request to {url} failed: {detail}")]
    Transport {
        /// The URL being fetched.
        url: String,
        /// The cause.
        detail: String,
    },
    /// More same-host redirects than allowed.
    #[error("Too many redirects: {url} was still redirecting after {max} redirects (a redirect loop?).")]
    TooManyRedirects {
        /// The URL given.
        url: String,
        /// The redirect limit.
        max: usize,
    },
    /// A redirect without a usable `Location`.
    #[error("{url} answered {code} {code_text} without a usable Location header ({detail}).")]
    BadLocation {
        /// The URL that redirected.
        url: String,
        /// Its status code.
        code: u16,
        /// Its reason phrase.
        code_text: String,
        /// What was wrong.
        detail: String,
    },
    /// A status that is neither success nor a redirect.
    #[error("Request failed with status code {code} ({code_text}) for {url}")]
    Status {
        /// The URL that answered.
        url: String,
        /// Its status code.
        code: u16,
        /// Its reason phrase.
        code_text: String,
    },
    /// The body could not be turned into text.
    #[error("Could not read the content of {url}: {detail}")]
    Content {
        /// The URL fetched.
        url: String,
        /// The cause.
        detail: String,
    },
}

/// The innermost cause of a reqwest error (`Connection refused (os error 111)`, `dns error: …`):
/// for a failed connection the outer layers only repeat the URL.
fn root_cause(error: &reqwest::Error) -> String {
    let mut innermost: &dyn std::error::Error = error;
    while let Some(cause) = innermost.source() {
        innermost = cause;
    }
    innermost.to_string()
}

/// A reqwest error with its chain of causes, `a: b: c`.
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn transport(url: &Url, error: &reqwest::Error, config: &WebFetchConfig) -> FetchError {
    if error.is_connect() || (error.is_timeout() && !error.is_body()) {
        let detail = if error.is_timeout() {
            format!("the connection timed out after {}", human(config.connect_timeout))
        } else {
            root_cause(error)
        };
        FetchError::Connect { url: url.to_string(), detail }
    } else {
        FetchError::Transport { url: url.to_string(), detail: describe(error) }
    }
}

fn reason(status: StatusCode) -> String {
    status.canonical_reason().unwrap_or("").to_owned()
}

/// A duration for a message: `300 ms`, `1 second`, `30 seconds`, `2.5 seconds`.
pub use agent_tools_core::text::human_duration as human;

/// Where binary bodies are saved, and under which name.
#[derive(Debug, Clone)]
pub struct SaveTo {
    /// The session's folder (`None`: nothing is saved).
    pub session_dir: Option<PathBuf>,
    /// A name for the file (the `tool_use` id).
    pub name: String,
}

/// Fetches `url` (already checked and upgraded), following permitted redirects by hand.
///
/// # Errors
/// [`FetchError`] for timeouts, connection failures, too many redirects, a non-2xx status and a
/// body that cannot be converted. The overall timeout is the caller's.
pub async fn fetch(
    client: &reqwest::Client,
    url: Url,
    config: &WebFetchConfig,
    save: &SaveTo,
) -> Result<Fetched, FetchError> {
    let mut current = url;
    let mut hops = 0;
    loop {
        let request = client.get(current.clone()).header(ACCEPT, ACCEPT_VALUE).send();
        let response = match tokio::time::timeout(config.idle_timeout, request).await {
            Err(_) => return Err(FetchError::Idle { url: current.to_string(), timeout: config.idle_timeout }),
            Ok(Err(error)) => return Err(transport(&current, &error, config)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) {
            let bad = |detail: &str| FetchError::BadLocation {
                url: current.to_string(),
                code: status.as_u16(),
                code_text: reason(status),
                detail: detail.to_owned(),
            };
            let location = response.headers().get(LOCATION).ok_or_else(|| bad("none was sent"))?;
            let location = location.to_str().map_err(|_| bad("it is not text"))?;
            let next = current.join(location.trim()).map_err(|err| bad(&format!("{location:?}: {err}")))?;
            if !is_permitted_redirect(&current, &next) {
                return Ok(Fetched::Redirect(CrossHostRedirect {
                    original_url: current.to_string(),
                    redirect_url: next.to_string(),
                    code: status.as_u16(),
                    code_text: reason(status),
                }));
            }
            if hops >= config.max_redirects {
                return Err(FetchError::TooManyRedirects { url: current.to_string(), max: config.max_redirects });
            }
            hops += 1;
            current = next;
            continue;
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                url: current.to_string(),
                code: status.as_u16(),
                code_text: reason(status),
            });
        }
        let content_type =
            response.headers().get(CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default().to_owned();
        let (body, capped) = read_capped(response, &current, config).await?;
        let text = to_text(&content_type, &body, &current, save).await?;
        return Ok(Fetched::Page(Page {
            text,
            content_type,
            bytes: body.len() as u64,
            code: status.as_u16(),
            code_text: reason(status),
            final_url: current.to_string(),
            redirected: hops > 0,
            capped,
        }));
    }
}

/// Reads the body, at most `config.max_body_bytes` of it; waits at most `config.idle_timeout`
/// for each piece. Returns the bytes and whether the cap cut the body (the rest is never read:
/// the connection is dropped).
async fn read_capped(
    mut response: reqwest::Response,
    url: &Url,
    config: &WebFetchConfig,
) -> Result<(Vec<u8>, bool), FetchError> {
    let cap = config.max_body_bytes;
    let expected = response.content_length().and_then(|len| usize::try_from(len).ok()).unwrap_or(0);
    let mut body = Vec::with_capacity(expected.min(cap).min(1 << 20));
    loop {
        let chunk = match tokio::time::timeout(config.idle_timeout, response.chunk()).await {
            Err(_) => return Err(FetchError::Idle { url: url.to_string(), timeout: config.idle_timeout }),
            Ok(Err(error)) => return Err(transport(url, &error, config)),
            Ok(Ok(None)) => return Ok((body, false)),
            Ok(Ok(Some(chunk))) => chunk,
        };
        let room = cap.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
}

/// The body as text for the model (see [`content`]); binary bodies are saved, never shown.
async fn to_text(content_type: &str, body: &[u8], url: &Url, save: &SaveTo) -> Result<String, FetchError> {
    let header = (!content_type.is_empty()).then_some(content_type);
    match content::classify(header, body) {
        Kind::Html => {
            let html = content::decode_html(header, body);
            content::html_to_markdown(html).await.map_err(|detail| FetchError::Content { url: url.to_string(), detail })
        }
        Kind::Text => Ok(content::decode(header, body)),
        Kind::Binary => Ok(save_binary(content_type, body, save)),
    }
}

/// Saves a binary body under the session's `tool-results` folder and says so.
fn save_binary(content_type: &str, body: &[u8], save: &SaveTo) -> String {
    let media = content::media_type(content_type);
    let shown_type = if media.is_empty() { "unknown type".to_owned() } else { media.clone() };
    let saved = save.session_dir.as_ref().map(|dir| {
        let path = agent_tools_core::persist::result_path(
            dir,
            &format!("webfetch-{}", save.name),
            content::extension_for(&media),
        );
        agent_tools_core::persist::save_once(&path, body).map(|()| path)
    });
    crate::render::binary_content(
        &shown_type,
        body.len() as u64,
        saved.as_ref().map(|r| r.as_ref().map(PathBuf::as_path)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(human(Duration::from_secs(30)), "30 seconds");
        assert_eq!(human(Duration::from_secs(1)), "1 second");
        assert_eq!(human(Duration::from_millis(300)), "300 ms");
        assert_eq!(human(Duration::from_millis(2_500)), "2.5 seconds");
    }
}
