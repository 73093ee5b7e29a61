//! Small tools for host tests, independent of which tool features are compiled in.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use agent_tools_core::McpInfo;
use agent_tools_core::{
    MaxResultSize, PromptOptions, Tool, ToolDef, ToolError, ToolResult, ToolResultBlock, ToolUseContext,
    ValidationResult, build_tool,
};
use agent_tools_core::{PermissionDecisionReason, PermissionResult};

/// Input with one text field.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextInput {
    /// Text.
    pub text: String,
}

/// A configurable test tool.
pub struct TestTool {
    pub name: String,
    pub mcp_server: Option<String>,
    pub deny: bool,
    pub change_cwd_to: Option<PathBuf>,
    /// Gives the auto mode's classifier the text to judge (by default it gives nothing).
    pub judged: bool,
    /// Has no opinion on its calls (passthrough: the mode decides) instead of allowing them.
    pub asks: bool,
}

impl TestTool {
    pub fn named(name: &str) -> Self {
        Self { name: name.into(), mcp_server: None, deny: false, change_cwd_to: None, judged: false, asks: false }
    }
}

pub fn tool(name: &str) -> Arc<dyn Tool> {
    build_tool(TestTool::named(name))
}

pub fn mcp_tool(server: &str, name: &str) -> Arc<dyn Tool> {
    build_tool(TestTool { mcp_server: Some(server.into()), ..TestTool::named(name) })
}

impl ToolDef for TestTool {
    type Input = TextInput;
    type Output = String;

    const NAME: &'static str = "Test";

    fn name(&self) -> &str {
        &self.name
    }

    fn aliases(&self) -> &[&str] {
        if self.name == "Echo" { &["OldEcho"] } else { &[] }
    }

    fn summary(&self, _input: &TextInput) -> String {
        self.name.clone()
    }

    fn to_auto_classifier_input(&self, input: &TextInput) -> serde_json::Value {
        serde_json::Value::String(if self.judged { input.text.clone() } else { String::new() })
    }

    fn description(&self, _options: &PromptOptions<'_>) -> String {
        format!("The {} test tool.", self.name)
    }

    fn max_result_size_chars(&self) -> MaxResultSize {
        MaxResultSize::Chars(1000)
    }

    fn mcp_info(&self) -> Option<McpInfo> {
        self.mcp_server.as_ref().map(|server| McpInfo { server_name: server.clone(), tool_name: self.name.clone() })
    }

    async fn validate_input(&self, input: &TextInput, _ctx: &ToolUseContext) -> ValidationResult {
        if input.text == "panic in validate_input" {
            panic!("the test tool panics in validate_input");
        }
        if input.text == "invalid" {
            ValidationResult::error("text may not be 'invalid'", 1)
        } else {
            ValidationResult::Ok
        }
    }

    async fn check_permissions(&self, input: &TextInput, _ctx: &ToolUseContext) -> PermissionResult {
        if input.text == "panic in check_permissions" {
            panic!("the test tool panics in {}", "check_permissions");
        }
        if self.deny {
            PermissionResult::deny("the test tool refuses", PermissionDecisionReason::Other { reason: "test".into() })
        } else if self.asks {
            PermissionResult::Passthrough {
                message: format!("{} needs approval", self.name),
                decision_reason: None,
                suggestions: Vec::new(),
                blocked_path: None,
            }
        } else {
            PermissionResult::allow()
        }
    }

    async fn call(&self, input: TextInput, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if input.text == "fail" {
            return Err(ToolError::failed("the call failed"));
        }
        if input.text == "panic in call" {
            // Where tools really panicked: inside a library (globset on a huge pattern).
            let huge = "a".repeat(1_000_000);
            let _ = globset::Glob::new(&huge).unwrap().compile_matcher();
        }
        let text = format!("{}: {} (cwd {})", self.name, input.text, ctx.cwd.display());
        let result = ToolResult::new(text);
        Ok(match &self.change_cwd_to {
            Some(dir) => {
                let dir = dir.clone();
                result.with_context_modifier(move |mut ctx| {
                    ctx.cwd = dir;
                    ctx
                })
            }
            None => result,
        })
    }

    fn map_tool_result(&self, output: &String, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::text(tool_use_id, output.clone())
    }
}
