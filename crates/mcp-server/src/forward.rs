//! A remote MCP server's questions, passed on to our own client's user: [`ClientElicitor`].
//!
//! When `serve` is itself the MCP client of other servers (`.mcp.json`, `--mcp-config`), one of
//! them may ask its client's user for input (`elicitation/create`, form mode). Claude Code shows
//! such a form in its dialog; `serve` has no terminal, so the form goes on to the user of *our*
//! client, through the same elicitation we use for permission questions, with the asking
//! server named in the message. A client that cannot show forms (or none connected yet) gets a
//! `decline` for the server. (Under 2026-07-28 the server may not send requests of its own, so
//! only a 2025-era client is asked.)

use std::sync::{Mutex, PoisonError};

use agent_tools_core::BoxFuture;
use agent_tools_mcp::{ElicitRequestParams, ElicitResult, Elicitor};
use rmcp::RoleServer;
use rmcp::model::ElicitationAction;
use rmcp::service::Peer;

/// Answers remote servers' elicitations by asking the client of this MCP server (see the module
/// docs). Give it to the session ([`agent_tools_host::SessionBuilder::mcp_elicitor`]) and to the
/// server ([`crate::ToolServer::with_forwarding`]), which attaches its client.
#[derive(Default)]
pub struct ClientElicitor {
    client: Mutex<Option<Peer<RoleServer>>>,
}

impl std::fmt::Debug for ClientElicitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientElicitor").field("attached", &self.peer().is_some()).finish()
    }
}

impl ClientElicitor {
    /// One with no client attached yet (its questions are declined until one is).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends the forms to `client` from now on (the first client stays).
    pub fn attach(&self, client: &Peer<RoleServer>) {
        let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(client.clone());
        }
    }

    fn peer(&self) -> Option<Peer<RoleServer>> {
        self.client.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Elicitor for ClientElicitor {
    fn elicit<'a>(&'a self, server: &'a str, params: ElicitRequestParams) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            let Some(client) = self.peer() else {
                return ElicitResult::new(ElicitationAction::Decline);
            };
            let info = client.peer_info();
            let shows = crate::shows_forms(info.as_ref().map(|info| &info.capabilities));
            let ElicitRequestParams::FormElicitationParams { meta, message, requested_schema } = params else {
                return ElicitResult::new(ElicitationAction::Decline);
            };
            if !shows {
                return ElicitResult::new(ElicitationAction::Decline);
            }
            let params = ElicitRequestParams::FormElicitationParams {
                meta,
                message: format!("The MCP server \"{server}\" asks: {message}"),
                requested_schema,
            };
            match client.create_elicitation(params).await {
                Ok(result) => result,
                Err(error) => {
                    tracing::debug!(%error, %server, "a remote server's question could not be passed on");
                    ElicitResult::new(ElicitationAction::Cancel)
                }
            }
        })
    }
}
