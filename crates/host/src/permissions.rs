//! The permission decision for one call: rules, the tool's own check, and the mode.
//!
//! Mirrors the order of Claude Code's `hasPermissionsToUseTool`:
//! 1. a whole-tool **deny** rule → deny;
//! 2. a whole-tool **ask** rule → ask;
//! 3. the tool's `check_permissions`: deny → deny; an ask from a tool that requires user
//!    interaction → ask;
//! 4. mode `bypassPermissions` → allow;
//! 5. a whole-tool **allow** rule → allow;
//! 6. the tool's allow → allow (with its updated input); its passthrough → ask.
//!
//! What happens to an "ask" is the caller's business: [`resolve_ask`] applies the session's
//! policy (`dontAsk` and sessions that cannot prompt turn it into a denial).

use agent_tools_core::permissions::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionResult, ToolPermissionContext,
};
use agent_tools_core::{ParsedInput, Tool, ToolUseContext};
use serde_json::Value;

/// The final decision about one call.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Run it, with a replacement input if given.
    Allow {
        /// A replacement for the model's input.
        updated_input: Option<Value>,
    },
    /// Ask the user.
    Ask {
        /// What to ask.
        message: String,
    },
    /// Refuse; `message` is what the model reads.
    Deny {
        /// What the model reads.
        message: String,
        /// Why.
        reason: PermissionDecisionReason,
    },
}

/// The text for a call refused by a whole-tool deny rule.
pub fn denied_message(tool_name: &str) -> String {
    format!("Permission to use {tool_name} has been denied.")
}

/// The text for a call that needs approval nobody has given yet.
pub fn needs_approval_message(tool_name: &str) -> String {
    format!("Permission to use {tool_name} is required, and it has not been granted.")
}

/// Decides whether a parsed call may run.
pub async fn has_permissions_to_use_tool(
    tool: &dyn Tool,
    input: &ParsedInput,
    ctx: &ToolUseContext,
) -> PermissionDecision {
    let permissions: &ToolPermissionContext = &ctx.permission_context;
    if let Some(rule) = permissions.tool_wide_rule(tool, PermissionBehavior::Deny) {
        return PermissionDecision::Deny {
            message: denied_message(tool.name()),
            reason: PermissionDecisionReason::Rule { rule },
        };
    }
    if permissions.tool_wide_rule(tool, PermissionBehavior::Ask).is_some() {
        return PermissionDecision::Ask { message: needs_approval_message(tool.name()) };
    }
    let tool_says = tool.check_permissions(input, ctx).await;
    match &tool_says {
        PermissionResult::Deny { message, decision_reason } => {
            return PermissionDecision::Deny { message: message.clone(), reason: decision_reason.clone() };
        }
        PermissionResult::Ask { message, .. } if tool.requires_user_interaction() => {
            return PermissionDecision::Ask { message: message.clone() };
        }
        PermissionResult::Ask {
            message, decision_reason: Some(PermissionDecisionReason::SafetyCheck { .. }), ..
        } => {
            return PermissionDecision::Ask { message: message.clone() };
        }
        _ => {}
    }
    let updated_input = match &tool_says {
        PermissionResult::Allow { updated_input, .. } | PermissionResult::Ask { updated_input, .. } => {
            updated_input.clone()
        }
        _ => None,
    };
    let bypass = permissions.mode == PermissionMode::BypassPermissions
        || (permissions.mode == PermissionMode::Plan && permissions.is_bypass_permissions_mode_available);
    if bypass || permissions.tool_wide_rule(tool, PermissionBehavior::Allow).is_some() {
        return PermissionDecision::Allow { updated_input };
    }
    match tool_says {
        PermissionResult::Allow { updated_input, .. } => PermissionDecision::Allow { updated_input },
        PermissionResult::Ask { message, .. } | PermissionResult::Passthrough { message, .. } => {
            PermissionDecision::Ask {
                message: if message.is_empty() { needs_approval_message(tool.name()) } else { message },
            }
        }
        PermissionResult::Deny { message, decision_reason } => {
            PermissionDecision::Deny { message, reason: decision_reason }
        }
    }
}

/// What to do with an "ask" when nobody can be asked: `dontAsk` mode, or a session that cannot
/// prompt, turns it into a denial the model can read.
pub fn resolve_ask(tool_name: &str, message: &str, permissions: &ToolPermissionContext) -> PermissionDecision {
    let reason = if permissions.mode == PermissionMode::DontAsk {
        format!("Permission to use {tool_name} has been denied because the session runs in don't-ask mode. {message}")
    } else {
        format!(
            "Permission to use {tool_name} has been denied: this call needs approval and no one is available to give it. {message}"
        )
    };
    PermissionDecision::Deny { message: reason, reason: PermissionDecisionReason::Mode { mode: permissions.mode } }
}
