//! # agent-tool-structured-output: the StructuredOutput tool
//!
//! Claude Code's `StructuredOutput` tool (its `SyntheticOutputTool`): in a non-interactive
//! session that asked for its result in a JSON shape (`claude -p --json-schema <schema>`), the
//! model ends its work by calling this tool with the answer as the input. The tool's input
//! schema **is** that JSON Schema, so the model sees the shape wanted in the tool definition.
//!
//! * **Build**: [`tool`] takes the schema and checks it first ([`OutputSchema::new`]): it must
//!   be a JSON object whose `type` is `"object"` (added when absent) and that the `jsonschema`
//!   crate compiles; otherwise a [`SchemaError`] that says why, before any model call.
//! * **Input**: any JSON object (a JSON text of one is accepted, as for every tool); a
//!   non-object is an input error. The schema is not checked when the input is parsed but
//!   when the tool is called, so that a mismatch is one tool error listing every problem.
//! * **Call**: the answer is checked against the schema. A mismatch is an error result,
//!   `Output does not match required schema:` and one `<path>: <message>` line per problem
//!   (path a JSON pointer, `/age`; the whole answer is `/`; at most
//!   [`schema::MAX_MISMATCHES`]), so the model can correct it and call again. An answer that
//!   fits gives the text `Structured output provided successfully`, and the output data
//!   ([`StructuredOutputData`]) carries the answer as `structured_output`, for the host to hand
//!   to its caller.
//! * Read-only, concurrency-safe, permission allow (nothing to approve: it only returns data),
//!   never deferred — the model must see it from the start.
//!
//! The host adds this tool only to sessions that asked for structured output; this crate does
//! not decide when.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agent_tools_core::{call_tool, ToolUseContext};
//! use serde_json::json;
//! let schema = json!({"type": "object", "required": ["name", "age"],
//!     "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}});
//! let tool = agent_tool_structured_output::tool(schema.clone()).unwrap();
//! assert_eq!(tool.input_schema(), &schema);
//! let ctx = ToolUseContext::new("/tmp");
//! let done = call_tool(tool.as_ref(), "toolu_1", json!({"name": "Ada", "age": 36}), &ctx).await;
//! assert_eq!(done.block.content.text(), "Structured output provided successfully");
//! assert_eq!(done.data.map(|data| data.to_json()),
//!     Some(json!({"structured_output": {"name": "Ada", "age": 36}})));
//! let refused = call_tool(tool.as_ref(), "toolu_2", json!({"age": "x"}), &ctx).await;
//! assert!(refused.block.is_error);
//! assert_eq!(refused.block.content.text(), "Output does not match required schema:\n\
//!     /: \"name\" is a required property\n/age: \"x\" is not of type \"integer\"");
//! // A schema for something other than an object is refused when the tool is built.
//! let error = agent_tool_structured_output::tool(json!({"type": "string"})).err().unwrap();
//! assert_eq!(error.to_string(),
//!     "The output schema must describe a JSON object (\"type\": \"object\"), but its type is \"string\"");
//! # });
//! ```

mod input;
mod render;
pub mod schema;

use agent_tools_core::{AgentScope, Capabilities, ToolKind};
use std::sync::Arc;

use agent_tools_core::{
    InputError, MaxResultSize, Tool, ToolDef, ToolError, ToolFlags, ToolResult, ToolResultBlock, ToolUseContext,
    build_tool,
};
use serde_json::Value;

pub use crate::input::StructuredOutputInput;
pub use crate::render::{SUCCESS, StructuredOutputData};
pub use crate::schema::{Mismatch, OutputSchema, SchemaError};

/// The API name.
pub const NAME: &str = "StructuredOutput";

/// Result size past which the executor saves the result to a file (Claude Code's 100,000; the
/// result text is one short line anyway).
pub const MAX_RESULT_CHARS: usize = 100_000;

/// The StructuredOutput tool definition, holding the session's compiled schema.
#[derive(Debug)]
pub struct StructuredOutputTool {
    schema: OutputSchema,
}

impl StructuredOutputTool {
    /// A definition for `schema`.
    ///
    /// # Errors
    /// [`SchemaError`] when the schema is not a JSON Schema for an object (see
    /// [`OutputSchema::new`]).
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        Ok(Self { schema: OutputSchema::new(schema)? })
    }

    /// The schema the tool reports as its input schema.
    pub fn schema(&self) -> &Value {
        self.schema.schema()
    }
}

/// StructuredOutput for `schema`, ready for the host.
///
/// # Errors
/// [`SchemaError`] when the schema is not a JSON Schema for an object (see
/// [`OutputSchema::new`]).
pub fn tool(schema: Value) -> Result<Arc<dyn Tool>, SchemaError> {
    Ok(build_tool(StructuredOutputTool::new(schema)?))
}

impl ToolDef for StructuredOutputTool {
    type Input = StructuredOutputInput;
    type Output = StructuredOutputData;

    const NAME: &'static str = NAME;

    const PROMPT: &'static str = include_str!("prompt.md");

    // Read-only and concurrency-safe: it only hands data back.
    const CAPABILITIES: Capabilities =
        Capabilities::new(ToolKind::Other).scope(AgentScope::Everywhere).dispatch().flags(ToolFlags::LOCAL_READ_ONLY);

    fn summary(&self, _input: &StructuredOutputInput) -> String {
        "Provide the final structured output".to_owned()
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(MAX_RESULT_CHARS)
    }

    /// The session's schema, verbatim (with `"type": "object"` added when it had no `type`).
    fn input_json_schema(&self) -> Option<Value> {
        Some(self.schema.schema().clone())
    }

    /// Any JSON object; the schema is checked by `call`.
    fn parse_input(&self, json: &Value, _schema: &Value) -> Result<StructuredOutputInput, InputError> {
        input::parse(NAME, json)
    }

    async fn call(
        &self,
        input: StructuredOutputInput,
        _ctx: &ToolUseContext,
    ) -> Result<ToolResult<StructuredOutputData>, ToolError> {
        let answer = Value::Object(input);
        let (mismatches, more) = self.schema.check(&answer);
        if !mismatches.is_empty() {
            return Err(ToolError::failed(render::mismatches(&mismatches, more)));
        }
        Ok(ToolResult::new(StructuredOutputData { structured_output: answer }))
    }

    fn map_tool_result(&self, _output: &StructuredOutputData, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, SUCCESS)
    }

    fn activity_description(&self, _input: &StructuredOutputInput) -> Option<String> {
        Some("Providing the final output".to_owned())
    }
}
