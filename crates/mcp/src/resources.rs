//! `ListMcpResourcesTool` and `ReadMcpResourceTool` (Claude Code §3.20): added once to a session
//! whose connected servers include one with the `resources` capability.
//!
//! They live here rather than as tool crates under `crates/tools/` because they only exist per
//! session, built from the live connections: the host's static, feature-gated pool has nothing to
//! build them from, and a pool entry without connections would be a tool that can never work.

use std::sync::Arc;

use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext, build_tool,
};
use rmcp::model::ReadResourceRequestParams;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{Connections, ServerConnection};
use crate::transform::{SaveTarget, save_blob};

/// The listing tool's name.
pub const LIST_MCP_RESOURCES: &str = "ListMcpResourcesTool";
/// The reading tool's name.
pub const READ_MCP_RESOURCE: &str = "ReadMcpResourceTool";

/// The text shown when no server has resources.
pub const NO_RESOURCES: &str =
    "No resources found. The MCP servers may still offer tools even though they list no resources.";

/// Both resource tools, sharing the session's (current) connections.
pub(crate) fn tools(connections: Connections) -> Vec<Arc<dyn Tool>> {
    vec![build_tool(ListResources { connections: connections.clone() }), build_tool(ReadResource { connections })]
}

fn unknown_server(name: &str, connections: &[Arc<ServerConnection>]) -> ToolError {
    let available: Vec<&str> = connections.iter().map(|connection| connection.name.as_str()).collect();
    let available = if available.is_empty() { "none".to_owned() } else { available.join(", ") };
    ToolError::failed(format!("Server \"{name}\" not found. Available servers: {available}"))
}

/// `ListMcpResourcesTool`'s input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListInput {
    /// Only this server's resources (default: every connected server's).
    #[serde(default)]
    pub server: Option<String>,
}

/// One listed resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceEntry {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its description, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The server that has it.
    pub server: String,
}

struct ListResources {
    connections: Connections,
}

/// What both resource tools are: read-only reads of a server (open world), deferred.
const RESOURCE_TOOL: agent_tools_core::Capabilities = agent_tools_core::Capabilities::DEFAULT
    .flags(agent_tools_core::ToolFlags {
        read_only: true,
        concurrency_safe: true,
        destructive: false,
        open_world: true,
    })
    .deferred();

impl ToolDef for ListResources {
    type Input = ListInput;
    type Output = Vec<ResourceEntry>;

    const NAME: &'static str = LIST_MCP_RESOURCES;

    const CAPABILITIES: agent_tools_core::Capabilities = RESOURCE_TOOL;

    fn summary(&self, _input: &ListInput) -> String {
        "List MCP resources".to_owned()
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "Lists the resources that the connected MCP servers offer (files, records, documents …), with each \
         one's URI, name, MIME type, description and server. Give `server` to list a single server's \
         resources. Read one with ReadMcpResourceTool."
            .to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(crate::tool::MAX_RESULT_CHARS)
    }

    async fn call(&self, input: ListInput, ctx: &ToolUseContext) -> Result<ToolResult<Vec<ResourceEntry>>, ToolError> {
        let connections = self.connections.list();
        let chosen: Vec<&Arc<ServerConnection>> = match &input.server {
            Some(name) => match connections.iter().find(|connection| &connection.name == name) {
                Some(connection) => vec![connection],
                None => return Err(unknown_server(name, &connections)),
            },
            None => connections.iter().collect(),
        };
        let listings = chosen.iter().filter(|connection| connection.has_resources).map(|connection| async move {
            // One server's failure does not hide the others' resources.
            let listed = match connection.peer().await {
                Ok(peer) => peer.list_all_resources().await.map_err(|error| error.to_string()),
                Err(error) => Err(error),
            };
            match listed {
                Ok(resources) => resources
                    .iter()
                    .filter_map(|resource| serde_json::to_value(resource).ok())
                    .map(|resource| entry(&resource, &connection.name))
                    .collect(),
                Err(error) => {
                    tracing::debug!(server = %connection.name, %error, "resources/list failed");
                    Vec::new()
                }
            }
        });
        let all = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            all = futures_util::future::join_all(listings) => all,
        };
        Ok(ToolResult::new(all.into_iter().flatten().collect()))
    }

    fn map_tool_result(&self, output: &Vec<ResourceEntry>, tool_use_id: &str) -> ToolResultBlock {
        if output.is_empty() {
            return ToolResultBlock::text(tool_use_id, NO_RESOURCES);
        }
        ToolResultBlock::text(tool_use_id, serde_json::to_string(output).unwrap_or_default())
    }
}

fn entry(resource: &Value, server: &str) -> ResourceEntry {
    let text = |key: &str| resource.get(key).and_then(Value::as_str).map(str::to_owned);
    ResourceEntry {
        uri: text("uri").unwrap_or_default(),
        name: text("name").unwrap_or_default(),
        mime_type: text("mimeType"),
        description: text("description"),
        server: server.to_owned(),
    }
}

/// `ReadMcpResourceTool`'s input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReadInput {
    /// The server that has the resource.
    pub server: String,
    /// The resource's URI.
    pub uri: String,
}

/// One part of a read resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadContent {
    /// The part's URI.
    pub uri: String,
    /// Its MIME type, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text (text resources), or a note about where a binary part was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where a binary part was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_saved_to: Option<String>,
}

/// `ReadMcpResourceTool`'s output: `{"contents": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadOutput {
    /// The resource's parts.
    pub contents: Vec<ReadContent>,
}

struct ReadResource {
    connections: Connections,
}

impl ToolDef for ReadResource {
    type Input = ReadInput;
    type Output = ReadOutput;

    const NAME: &'static str = READ_MCP_RESOURCE;

    const CAPABILITIES: agent_tools_core::Capabilities = RESOURCE_TOOL;

    fn summary(&self, input: &ReadInput) -> String {
        format!("Read {} from {}", input.uri, input.server)
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        "Reads one resource of a connected MCP server, given the server's name and the resource's URI (as \
         ListMcpResourcesTool lists them). Text comes back as is; binary content is saved to a file whose \
         path is given."
            .to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(crate::tool::MAX_RESULT_CHARS)
    }

    async fn call(&self, input: ReadInput, ctx: &ToolUseContext) -> Result<ToolResult<ReadOutput>, ToolError> {
        let connections = self.connections.list();
        let Some(connection) = connections.iter().find(|connection| connection.name == input.server) else {
            return Err(unknown_server(&input.server, &connections));
        };
        if !connection.has_resources {
            return Err(ToolError::failed(format!("Server \"{}\" does not offer resources", input.server)));
        }
        let params = serde_json::from_value::<ReadResourceRequestParams>(serde_json::json!({"uri": input.uri}))
            .map_err(|error| ToolError::internal(format!("resources/read params: {error}")))?;
        let read = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            read = async {
                let peer = connection.peer().await?;
                peer.read_resource(params).await.map_err(|error| error.to_string())
            } => read,
        };
        let read = read.map_err(|error| {
            ToolError::failed(format!("Reading {} from server \"{}\" failed: {error}", input.uri, input.server))
        })?;
        let read = serde_json::to_value(&read).unwrap_or(Value::Null);
        let parts = read.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let tool_use_id = ctx.tool_use_id.clone().unwrap_or_default();
        let contents = parts
            .iter()
            .enumerate()
            .map(|(index, part)| {
                let text = |key: &str| part.get(key).and_then(Value::as_str).map(str::to_owned);
                let uri = text("uri").unwrap_or_default();
                let mime_type = text("mimeType");
                if let Some(blob) = text("blob") {
                    let name = format!("{tool_use_id}-resource-{index}");
                    let save = SaveTarget { session_dir: ctx.options.session_dir.as_deref(), name: &name };
                    let mime = mime_type.clone().unwrap_or_else(|| "application/octet-stream".to_owned());
                    let (note, saved) = save_blob(&blob, &mime, save, "Binary content");
                    let blob_saved_to = saved.map(|path| path.display().to_string());
                    ReadContent { uri, mime_type, text: Some(note), blob_saved_to }
                } else {
                    ReadContent { uri, mime_type, text: text("text"), blob_saved_to: None }
                }
            })
            .collect();
        Ok(ToolResult::new(ReadOutput { contents }))
    }

    fn map_tool_result(&self, output: &ReadOutput, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, serde_json::to_string(output).unwrap_or_default())
    }
}
