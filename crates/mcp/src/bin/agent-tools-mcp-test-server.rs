//! A small stdio MCP server for agent-tools-mcp's tests and for trying the client by hand.
//!
//! Tools: `echo` (read-only, titled), `structured` (text plus `structuredContent`), `fail`
//! (`isError`), `image`, `slow` (sleeps `ms`), `big` (`size` characters), `embed` (an embedded
//! text resource), `delete.thing` (destructive, open-world; its name needs normalising). Two
//! resources: `mem://greeting` (text) and `mem://blob` (binary).
//!
//! Flags: `--no-resources` drops the resources capability; `--exit` exits before the handshake;
//! `--hang` never answers it; `--pid-file PATH` writes the process id to PATH first;
//! `--log PATH` appends one line per `tools/call` to PATH: `<tool> <arguments as JSON>`.
//!
//! `--case-tools` adds tools that reproduce publicly reported MCP client failures
//! (anthropics/claude-code#955, #53641, #34974): `weird/name.v2`, `get data`, `get.data` and two 56+-character
//! names (each answers `called <its name>`), `hang` (never answers), `args` (schema `text`
//! string required, `count` integer; answers `echo: <arguments as sorted JSON>`) and
//! `bad-schema` (an `inputSchema` that does not compile; answers like `args`).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, ServerRequest,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};

struct TestServer {
    resources: bool,
    case_tools: bool,
    /// `--ask-client`: two more tools, `ask-sampling` and `ask-elicitation`, that send the client
    /// a sampling or elicitation request whatever it declared, and return how it answered.
    ask_client: bool,
    log: Option<std::path::PathBuf>,
}

/// A 56-character tool name (77 characters once prefixed), and one that differs from it
/// only past the 55 characters a shortened name keeps.
const LONG_NAMES: [&str; 2] = [
    "synchronize_all_customer_records_across_every_region_now",
    "synchronize_all_customer_records_across_every_region_later",
];

/// Tools that answer `called <name>`.
const NAME_TOOLS: [&str; 3] = ["weird/name.v2", "get data", "get.data"];

fn case_tools() -> Value {
    let mut tools: Vec<Value> = NAME_TOOLS
        .iter()
        .chain(LONG_NAMES.iter())
        .map(|name| json!({"name": name, "description": "Answers with its own name.", "inputSchema": {"type": "object", "properties": {}}}))
        .collect();
    tools.push(
        json!({"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object", "properties": {}}}),
    );
    tools.push(json!({"name": "args", "description": "Echo the arguments back as JSON.",
        "inputSchema": {"type": "object",
                        "properties": {"text": {"type": "string", "description": "text to echo"},
                                       "count": {"type": "integer", "description": "times"}},
                        "required": ["text"]}}));
    tools.push(json!({"name": "bad-schema", "description": "Its input schema does not compile.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "no-such-type"}}, "required": ["a"]}}));
    Value::Array(tools)
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

fn tools() -> Value {
    json!([
        {"name": "echo", "description": "Echoes the text back.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "What to echo"}},
                         "required": ["text"], "x-custom": {"kept": true}},
         "annotations": {"title": "Echo Text", "readOnlyHint": true}},
        {"name": "structured", "description": "Returns structured content.", "inputSchema": {"type": "object"}},
        {"name": "fail", "description": "Always fails.", "inputSchema": {"type": "object"}},
        {"name": "image", "description": "Returns a tiny image.", "inputSchema": {"type": "object"}},
        {"name": "slow", "description": "Sleeps for `ms` milliseconds.",
         "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}},
        {"name": "big", "description": "Returns `size` characters.",
         "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}},
        {"name": "embed", "description": "Returns an embedded resource.", "inputSchema": {"type": "object"}},
        {"name": "delete.thing", "description": "Pretends to delete something.", "inputSchema": {"type": "object"},
         "annotations": {"destructiveHint": true, "openWorldHint": true}}
    ])
}

impl TestServer {
    async fn call(&self, name: &str, args: &serde_json::Map<String, Value>) -> Value {
        let number = |key: &str, default: u64| args.get(key).and_then(Value::as_u64).unwrap_or(default);
        if let Some(log) = &self.log {
            use std::io::Write as _;
            let sorted: std::collections::BTreeMap<&String, &Value> = args.iter().collect();
            let line = format!("{name} {}\n", serde_json::to_string(&sorted).unwrap_or_default());
            if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
                let _ = file.write_all(line.as_bytes());
            }
        }
        if self.case_tools {
            if NAME_TOOLS.contains(&name) || LONG_NAMES.contains(&name) {
                return json!({"content": [{"type": "text", "text": format!("called {name}")}]});
            }
            match name {
                "hang" => std::future::pending::<()>().await,
                "args" | "bad-schema" => {
                    let sorted: std::collections::BTreeMap<&String, &Value> = args.iter().collect();
                    let text = format!("echo: {}", serde_json::to_string(&sorted).unwrap_or_default());
                    return json!({"content": [{"type": "text", "text": text}]});
                }
                _ => {}
            }
        }
        match name {
            "echo" => {
                json!({"content": [{"type": "text", "text": args.get("text").and_then(Value::as_str).unwrap_or("")}]})
            }
            "structured" => {
                json!({"content": [{"type": "text", "text": "plain"}], "structuredContent": {"answer": 42}})
            }
            "fail" => json!({"content": [{"type": "text", "text": "it broke"}], "isError": true}),
            "image" => json!({"content": [
                {"type": "text", "text": "an image:"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ]}),
            "slow" => {
                tokio::time::sleep(std::time::Duration::from_millis(number("ms", 10_000))).await;
                json!({"content": [{"type": "text", "text": "done"}]})
            }
            "big" => {
                json!({"content": [{"type": "text", "text": "a".repeat(usize::try_from(number("size", 10)).unwrap_or(10))}]})
            }
            "embed" => {
                json!({"content": [{"type": "resource", "resource": {"uri": "mem://greeting", "text": "hello resource"}}]})
            }
            "delete.thing" => json!({"content": [{"type": "text", "text": "deleted"}]}),
            other => json!({"content": [{"type": "text", "text": format!("unknown tool {other}")}], "isError": true}),
        }
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.resources { json!({"tools": {}, "resources": {}}) } else { json!({"tools": {}}) };
        ServerConfig::new(serde_json::from_value::<ServerCapabilities>(capabilities).unwrap_or_default())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = tools();
        if self.case_tools
            && let (Value::Array(all), Value::Array(extra)) = (&mut listed, case_tools())
        {
            all.extend(extra);
        }
        if self.ask_client
            && let Value::Array(all) = &mut listed
        {
            all.push(json!({"name": "ask-sampling", "inputSchema": {"type": "object"}}));
            all.push(json!({"name": "ask-elicitation", "inputSchema": {"type": "object"}}));
        }
        from_json(json!({"tools": listed}))
    }

    #[allow(deprecated)] // sampling is deprecated by SEP-2577 in rmcp, and still what servers use
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.ask_client && request.name.starts_with("ask-") {
            let ask = if request.name == "ask-sampling" {
                ServerRequest::CreateMessageRequest(rmcp::model::CreateMessageRequest::new(from_json(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5
                }))?))
            } else {
                ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(from_json(json!({
                    "mode": "form", "message": "Your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                }))?))
            };
            let text = match context.peer.send_request(ask).await {
                Ok(answer) => format!("answered: {}", serde_json::to_string(&answer).unwrap_or_default()),
                Err(rmcp::service::ServiceError::McpError(error)) => {
                    format!("refused: {} {}", error.code.0, error.message)
                }
                Err(other) => format!("failed: {other}"),
            };
            let result: CallToolResult = from_json(json!({"content": [{"type": "text", "text": text}]}))?;
            return Ok(result.into());
        }
        let args = request.arguments.unwrap_or_default();
        let result: CallToolResult = from_json(self.call(&request.name, &args).await)?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(json!({"resources": [
            {"uri": "mem://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting"},
            {"uri": "mem://blob", "name": "blob", "mimeType": "application/pdf"}
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = match request.uri.as_str() {
            "mem://greeting" => json!([{"uri": "mem://greeting", "mimeType": "text/plain", "text": "hello resource"}]),
            "mem://blob" => json!([{"uri": "mem://blob", "mimeType": "application/pdf", "blob": "JVBERi0="}]),
            other => return Err(ErrorData::resource_not_found(format!("no resource {other}"), None)),
        };
        let result: ReadResourceResult = from_json(json!({"contents": contents}))?;
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(path) = args.iter().position(|arg| arg == "--pid-file").and_then(|index| args.get(index + 1)) {
        std::fs::write(path, std::process::id().to_string())?;
    }
    if args.iter().any(|arg| arg == "--exit") {
        return Err("asked to exit before the handshake".into());
    }
    if args.iter().any(|arg| arg == "--hang") {
        std::future::pending::<()>().await;
    }
    let log = args.iter().position(|arg| arg == "--log").and_then(|index| args.get(index + 1)).map(Into::into);
    let server = Arc::new(TestServer {
        resources: !args.iter().any(|arg| arg == "--no-resources"),
        case_tools: args.iter().any(|arg| arg == "--case-tools"),
        ask_client: args.iter().any(|arg| arg == "--ask-client"),
        log,
    });
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
