//! Changing a running session's servers: switching one off and on again, reconnecting it, the
//! servers an SDK host sets at run time, and reading a resource for the host (the Agent SDKs'
//! `mcp_toggle`, `mcp_reconnect`, `mcp_set_servers`, `mcp_read_resource`).

use serde_json::Value;

use crate::client::{McpSession, ServerFailure};
use crate::config::NamedServer;

/// What [`McpSession::set_dynamic_servers`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DynamicServers {
    /// Servers connected now.
    pub added: Vec<String>,
    /// Servers disconnected.
    pub removed: Vec<String>,
    /// Servers that failed to connect: name and why.
    pub errors: Vec<(String, String)>,
}

impl McpSession {
    /// Reads the resource `uri` of `server` (`resources/read`) and returns the server's answer
    /// as sent: `{"contents": [{"uri", "mimeType", "text" | "blob"}]}` (the SDKs'
    /// `mcp_read_resource`).
    ///
    /// # Errors
    /// No connected server of that name, a server without resources, or its error.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, String> {
        let connection =
            self.shared.connection(server).ok_or_else(|| format!("no connected MCP server is named {server:?}"))?;
        if !connection.has_resources {
            return Err(format!("MCP server {server:?} does not offer resources"));
        }
        let params = serde_json::from_value::<rmcp::model::ReadResourceRequestParams>(serde_json::json!({"uri": uri}))
            .map_err(|error| format!("resources/read params: {error}"))?;
        let peer = connection.peer().await?;
        let read = peer.read_resource(params).await.map_err(|error| format!("resources/read failed: {error}"))?;
        serde_json::to_value(&read).map_err(|error| error.to_string())
    }

    /// Makes the servers added through this method exactly `servers` (the SDKs'
    /// `mcp_set_servers`): a server of the last set that is not in `servers` is disconnected, a
    /// new one connected (a changed one: connected again). Servers from the configuration are
    /// not touched. Returns the names added, those removed, and each failure by name.
    pub async fn set_dynamic_servers(&self, servers: &[NamedServer]) -> DynamicServers {
        let before = std::mem::take(&mut self.shared.lock().dynamic);
        let mut outcome = DynamicServers::default();
        for old in &before {
            if !servers.iter().any(|server| server == old) {
                self.close_server(&old.name).await;
                let mut state = self.shared.lock();
                state.configured.retain(|known| known.name != old.name);
                state.failures.retain(|failure| failure.name != old.name);
                outcome.removed.push(old.name.clone());
            }
        }
        for server in servers {
            if before.contains(server) && self.shared.connection(&server.name).is_some() {
                continue;
            }
            match self.add_server(server).await {
                Ok(()) => outcome.added.push(server.name.clone()),
                Err(failure) => outcome.errors.push((failure.name, failure.message)),
            }
        }
        self.shared.lock().dynamic = servers.to_vec();
        outcome
    }

    /// The servers switched off with [`Self::disable_server`] (and not connected since).
    pub fn disabled(&self) -> Vec<String> {
        self.shared.lock().disabled.clone()
    }

    /// Switches the configured server `name` off (Claude Code's `mcp_toggle` with `enabled:
    /// false`): its connection is closed and its tools leave the session; [`Self::changes`]
    /// signals. [`Self::reconnect_server`] switches it on again.
    ///
    /// # Errors
    /// No server of that name is configured.
    pub async fn disable_server(&self, name: &str) -> Result<(), String> {
        if !self.shared.lock().configured.iter().any(|server| server.name == name) {
            return Err(format!("no MCP server is named {name:?}"));
        }
        self.close_server(name).await;
        let mut state = self.shared.lock();
        state.failures.retain(|failure| failure.name != name);
        if !state.disabled.iter().any(|known| known == name) {
            state.disabled.push(name.to_owned());
        }
        Ok(())
    }

    /// Connects the configured server `name` again, from its configuration (Claude Code's
    /// `mcp_reconnect`, and `mcp_toggle` with `enabled: true`): a live connection is closed
    /// first, a failed or switched-off server is tried anew.
    ///
    /// # Errors
    /// No server of that name is configured, or the new connection failed (also recorded in
    /// [`Self::failures`]).
    pub async fn reconnect_server(&self, name: &str) -> Result<(), ServerFailure> {
        let configured = self.shared.lock().configured.iter().find(|server| server.name == name).cloned();
        let Some(server) = configured else {
            return Err(ServerFailure::failed(name, format!("no MCP server named {name:?} is configured")));
        };
        self.close_server(name).await;
        self.add_server(&server).await
    }

    /// Closes the connection of `name`, if any, and takes its tools away.
    pub(crate) async fn close_server(&self, name: &str) {
        let Some(connection) = self.shared.connection(name) else { return };
        {
            let mut state = self.shared.lock();
            state.servers.retain(|known| known.name != name);
            state.tools.remove(name);
            state.listed.remove(name);
        }
        self.shared.bump();
        connection.close().await;
    }
}
