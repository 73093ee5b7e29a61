//! What a shell command, a part of one, or one of its paths calls for.

use std::path::Path;

use agent_tools_core::{PermissionDecisionReason, PermissionResult, PermissionRule, PermissionUpdate};

use crate::messages;

/// What one part of a shell command (or one path it uses) calls for. Ordered: a later variant
/// wins when verdicts are combined ([`Verdict::worse`]).
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Allowed, and why.
    Allow(String),
    /// Needs the user's approval; the general permission system (mode, whole-tool rules) may
    /// still allow it.
    Needs {
        /// What to show when asking.
        message: String,
        /// Why, if known.
        reason: Option<PermissionDecisionReason>,
        /// Rule changes to offer.
        suggestions: Vec<PermissionUpdate>,
        /// The path that needs approval, if a path does.
        blocked_path: Option<String>,
        /// Only writes inside the working directories need the approval, so an allow rule for
        /// the command (`Bash(touch:*)`) may give it, as in Claude Code; a path outside them
        /// needs the user whatever the rules say.
        rule_may_allow: bool,
    },
    /// Asks even in bypass mode: an ask rule or a safety check.
    Ask {
        /// What to show.
        message: String,
        /// The rule or safety check.
        reason: PermissionDecisionReason,
        /// The path concerned, if a path is.
        blocked_path: Option<String>,
    },
    /// Refused.
    Deny {
        /// What the model sees.
        message: String,
        /// The rule that refuses it.
        reason: PermissionDecisionReason,
    },
}

impl Verdict {
    fn rank(&self) -> u8 {
        match self {
            Self::Allow(_) => 0,
            Self::Needs { .. } => 1,
            Self::Ask { .. } => 2,
            Self::Deny { .. } => 3,
        }
    }

    /// The worse of two verdicts (the first of equals; two that need approval may be given by
    /// an allow rule only if both may).
    #[must_use]
    pub fn worse(self, other: Self) -> Self {
        match (self, other) {
            (
                Self::Needs { message, reason, suggestions, blocked_path, rule_may_allow },
                Self::Needs { rule_may_allow: other, .. },
            ) => Self::Needs { message, reason, suggestions, blocked_path, rule_may_allow: rule_may_allow && other },
            (this, other) => {
                if other.rank() > this.rank() {
                    other
                } else {
                    this
                }
            }
        }
    }

    /// Needs approval, with only a message.
    pub fn needs(message: String) -> Self {
        Self::Needs { message, reason: None, suggestions: Vec::new(), blocked_path: None, rule_may_allow: false }
    }

    /// This verdict, with an allow rule for the command no longer able to give its approval (a
    /// redirection's target: `Bash(echo:*)` does not let `echo x > file` write the file).
    #[must_use]
    pub fn beyond_rules(self) -> Self {
        match self {
            Self::Needs { message, reason, suggestions, blocked_path, .. } => {
                Self::Needs { message, reason, suggestions, blocked_path, rule_may_allow: false }
            }
            other => other,
        }
    }

    /// Whether this verdict needs only an approval an allow rule for the command may give.
    pub fn rule_may_allow(&self) -> bool {
        matches!(self, Self::Needs { rule_may_allow: true, .. })
    }

    /// The permission result this verdict comes to on its own: `Deny`, `Ask`, or `Passthrough`
    /// for a verdict that needs approval; `None` for `Allow` (what allows the command is the
    /// caller's to say).
    pub fn into_result(self) -> Option<PermissionResult> {
        match self {
            Self::Allow(_) => None,
            Self::Deny { message, reason } => Some(PermissionResult::Deny { message, decision_reason: reason }),
            Self::Ask { message, reason, blocked_path } => Some(PermissionResult::Ask {
                message,
                updated_input: None,
                decision_reason: Some(reason),
                suggestions: Vec::new(),
                blocked_path,
            }),
            Self::Needs { message, reason, suggestions, blocked_path, .. } => {
                Some(PermissionResult::Passthrough { message, decision_reason: reason, suggestions, blocked_path })
            }
        }
    }

    /// The verdict for one path a command of the shell tool `tool_name` reads or (`write`)
    /// writes, from what [`check_read_permission`](agent_tools_permissions::check_read_permission) or
    /// [`check_write_permission`](agent_tools_permissions::check_write_permission) said about it (Claude Code's
    /// path constraints for shell commands): a deny stays a deny naming the command; an ask rule
    /// or safety check asks; plan mode's refusal of a write, a path outside the working
    /// directories or a write without `acceptEdits` needs approval.
    pub fn for_path(
        result: PermissionResult,
        path: &Path,
        write: bool,
        tool_name: &str,
        command: &str,
        inside_working_dirs: bool,
    ) -> Self {
        let shown = path.display().to_string();
        let needs_message = || messages::path_needs_approval(command, path, write);
        match result {
            PermissionResult::Allow { .. } => Self::Allow("inside the allowed paths".into()),
            // Plan mode refuses file tools' writes; a shell command is asked about instead.
            PermissionResult::Deny { decision_reason: PermissionDecisionReason::Mode { .. }, .. } => Self::Needs {
                message: needs_message(),
                reason: None,
                suggestions: Vec::new(),
                blocked_path: Some(shown),
                rule_may_allow: false,
            },
            PermissionResult::Deny { decision_reason, message } => {
                let message = if message == agent_tools_permissions::messages::LINK_DENIED {
                    messages::command_link_denied(tool_name, command, path)
                } else {
                    messages::command_path_denied(tool_name, command, path)
                };
                Self::Deny { message, reason: decision_reason }
            }
            PermissionResult::Ask { decision_reason: Some(reason), .. }
                if matches!(
                    reason,
                    PermissionDecisionReason::SafetyCheck { .. } | PermissionDecisionReason::Rule { .. }
                ) =>
            {
                Self::Ask { message: needs_message(), reason, blocked_path: Some(shown) }
            }
            PermissionResult::Ask { decision_reason, suggestions, .. }
            | PermissionResult::Passthrough { decision_reason, suggestions, .. } => Self::Needs {
                message: needs_message(),
                reason: decision_reason,
                suggestions,
                blocked_path: Some(shown),
                rule_may_allow: write && inside_working_dirs,
            },
        }
    }
}

/// The decision for a shell command an ask rule matches: ask, even in bypass mode.
pub fn asked_by_rule(command: &str, rule: PermissionRule) -> PermissionResult {
    PermissionResult::Ask {
        message: messages::command_needs_approval(command),
        updated_input: None,
        decision_reason: Some(PermissionDecisionReason::Rule { rule }),
        suggestions: Vec::new(),
        blocked_path: None,
    }
}

/// The decision for a shell command that uses `why` (`"a pipeline"` …), which keeps its parts
/// from being checked one by one: it needs approval, and no rule is suggested.
pub fn too_complex(command: &str, why: &str) -> PermissionResult {
    PermissionResult::Passthrough {
        message: messages::command_too_complex(command, why),
        decision_reason: Some(PermissionDecisionReason::Other { reason: format!("the command uses {why}") }),
        suggestions: Vec::new(),
        blocked_path: None,
    }
}
