//! In-process SDK MCP servers (`"type": "sdk"`): servers that live inside the program driving
//! the agent through a Claude Agent SDK (`create_sdk_mcp_server` in Python, `createSdkMcpServer`
//! in TypeScript). There is no process or URL to reach: each JSON-RPC message goes to the host
//! through an [`SdkServers`] bridge (the CLI sends it as an `mcp_message` control request and the
//! SDK answers with the server's reply), and the transport hands replies back to rmcp. The
//! server's tools then join the pool as `mcp__<server>__<tool>` like any other MCP server's.

use std::sync::Arc;

use agent_tools_core::BoxFuture;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Carries JSON-RPC messages to in-process SDK MCP servers and brings their replies back.
///
/// Claude Code sends `{"subtype": "mcp_message", "server_name", "message"}` control requests and
/// reads `{"mcp_response": …}` from the answer; a host implements this with its control channel.
pub trait SdkServers: Send + Sync {
    /// Sends `message` (a JSON-RPC request or notification object) to the server named `server`
    /// and returns what it answered: a JSON-RPC response object for a request (anything,
    /// ignored, for a notification).
    ///
    /// # Errors
    /// Why the message could not be delivered or answered (the SDK refused it, or went away);
    /// a request that fails this way is answered to rmcp as a JSON-RPC internal error.
    fn message<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, String>>;
}

/// The transport of one SDK server: each message sent is delivered through the bridge; each
/// reply to a request is queued for [`Transport::receive`].
pub(crate) struct SdkTransport {
    bridge: Arc<dyn SdkServers>,
    server: String,
    replies: mpsc::UnboundedSender<RxJsonRpcMessage<RoleClient>>,
    incoming: mpsc::UnboundedReceiver<RxJsonRpcMessage<RoleClient>>,
}

impl SdkTransport {
    pub(crate) fn new(bridge: Arc<dyn SdkServers>, server: &str) -> Self {
        let (replies, incoming) = mpsc::unbounded_channel();
        Self { bridge, server: server.to_owned(), replies, incoming }
    }
}

/// Why a message could not be turned into JSON (it always can; rmcp's types serialise).
#[derive(Debug, thiserror::Error)]
#[error("an MCP message for the SDK server could not be serialised: {0}")]
pub(crate) struct SdkTransportError(String);

impl Transport<RoleClient> for SdkTransport {
    type Error = SdkTransportError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let bridge = Arc::clone(&self.bridge);
        let server = self.server.clone();
        let replies = self.replies.clone();
        let message = serde_json::to_value(&item).map_err(|error| SdkTransportError(error.to_string()));
        async move {
            let message = message?;
            // Only a request (a message with a method and an id) expects a reply.
            let request_id = message.get("method").and(message.get("id")).filter(|id| !id.is_null()).cloned();
            let answer = bridge.message(&server, message).await;
            let Some(id) = request_id else { return Ok(()) };
            let reply = match answer {
                Ok(reply) if reply.get("result").is_some() || reply.get("error").is_some() => {
                    // The reply names the request it answers; an SDK that leaves the id out (or
                    // garbles it) still answered this request.
                    let mut reply = reply;
                    reply["id"] = id.clone();
                    reply["jsonrpc"] = json!("2.0");
                    reply
                }
                Ok(other) => failure(&id, &format!("the SDK server {server:?} answered without a result: {other}")),
                Err(why) => failure(&id, &format!("the SDK server {server:?} did not answer: {why}")),
            };
            let reply = serde_json::from_value(reply).or_else(|error| {
                let why = format!("the SDK server {server:?} answered a message MCP does not allow ({error})");
                serde_json::from_value(failure(&id, &why))
            });
            let Ok(reply) = reply else {
                // The id came from rmcp's own request, so its error reply always reads back.
                tracing::warn!(server = %server, "an SDK server's reply could not be read");
                return Ok(());
            };
            // A closed queue means the connection is gone; nobody waits for the reply.
            let _ = replies.send(reply);
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// A JSON-RPC internal error answering request `id`.
fn failure(id: &Value, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}})
}
