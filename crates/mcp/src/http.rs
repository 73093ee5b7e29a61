//! The HTTP client rmcp's Streamable HTTP transport uses: reqwest, with one correction.
//!
//! A server restarted under a live session no longer knows the session id, and many (the
//! TypeScript SDK's examples, server-everything) answer `400` with a JSON-RPC error whose `id`
//! is `null`, not the `404` the spec asks for. rmcp would pass that error on as a message no
//! request matches, and the call would wait for ever. Here such an answer to a request POSTed
//! within a session is [`StreamableHttpError::SessionExpired`], so the call fails at once and
//! the connection is made again ([`crate::ServerConnection`]).

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

/// reqwest as rmcp's Streamable HTTP client, with stale sessions recognised (module docs).
#[derive(Clone)]
pub(crate) struct SessionClient(pub(crate) reqwest::Client);

type Result<T> = std::result::Result<T, StreamableHttpError<reqwest::Error>>;

impl StreamableHttpClient for SessionClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse> {
        let request_id = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let in_session = session_id.is_some();
        let response = self
            .0
            .post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits)
            .await?;
        if let (Some(sent), true, StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(error), _)) =
            (&request_id, in_session, &response)
            && error.id.as_ref() != Some(sent)
        {
            tracing::debug!(error = ?error.error, "an uncorrelated HTTP error answer: the session is gone");
            return Err(StreamableHttpError::SessionExpired);
        }
        Ok(response)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<()> {
        self.0.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, std::result::Result<sse_stream::Sse, SseError>>> {
        self.0.get_stream(uri, session_id, last_event_id, auth_header, custom_headers).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, std::result::Result<sse_stream::Sse, SseError>>> {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
