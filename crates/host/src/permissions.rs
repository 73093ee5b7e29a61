//! The permission decision for one call: rules, the tool's own check, the mode, and — when it
//! comes to asking — whoever can answer.
//!
//! [`has_permissions_to_use_tool`] mirrors the order of Claude Code's `hasPermissionsToUseTool`:
//! 1. a whole-tool **deny** rule → deny;
//!    then (ours) a sub-agent's **tool restriction** the call breaks → deny
//!    ([`restriction_denial`]), in every mode and before anything that could allow it;
//! 2. a whole-tool **ask** rule → ask;
//! 3. the tool's `check_permissions`: deny → deny; an ask from a tool that requires user
//!    interaction, from a content ask rule, or from a safety check (`.git/`, shell start-up files)
//!    → ask, even in bypass mode;
//! 4. mode `bypassPermissions` → allow;
//! 5. a whole-tool **allow** rule → allow;
//! 6. the tool's allow → allow (with its updated input); its passthrough → ask.
//!
//! [`resolve_ask`] then settles an ask: `dontAsk` mode and sessions that must not prompt refuse,
//! a [`PermissionPrompter`] (the terminal, an MCP client) answers, and with nobody to answer the
//! call is refused with a message the model can act on.
//!
//! A prompter may answer with an input of its own ([`PermissionAnswer::AllowWithInput`]), as
//! Claude Code's permission dialogs and SDK `canUseTool` callbacks return `updatedInput`: that is
//! how the user's answers reach AskUserQuestion. The host parses that input strictly, like the
//! model's, before the call.

use std::sync::Arc;

use agent_tools_core::BoxFuture;
use agent_tools_core::ContextModifier;
use agent_tools_core::Interaction;
use agent_tools_core::{ParsedInput, Tool, ToolKind, ToolUseContext};
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionResult, PermissionRule,
    PermissionRuleSource, PermissionRuleValue, PermissionUpdate, ToolPermissionContext, ToolRestriction,
};
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
        /// Rule changes to offer with the question.
        suggestions: Vec<PermissionUpdate>,
        /// Asked whatever the rules and the mode say (an ask rule, a safety check, a tool that
        /// always asks a person, a hook's "ask"): no allow rule or mode would let the call run
        /// unasked, so only a person can answer.
        forced: bool,
    },
    /// Refuse; `message` is what the model reads.
    Deny {
        /// What the model reads.
        message: String,
        /// Why.
        reason: PermissionDecisionReason,
    },
}

/// The text for a call refused by a whole-tool deny rule (Claude Code's text).
pub fn denied_message(tool_name: &str) -> String {
    format!("Permission to use {tool_name} has been denied.")
}

/// The text for a call that would change something while plan mode is on (see
/// [`changes_in_plan_mode`]).
pub fn plan_mode_message(tool_name: &str) -> String {
    format!("Plan mode is on: {tool_name} would make a change, and that needs the user's approval.")
}

/// Whether plan mode is on and this call would change something: a tool of kind
/// [`ToolKind::Edit`] or [`ToolKind::Execute`] (from its capabilities, never its name) that is
/// not read-only for this input. Such a call is the host's to hold, whatever the tool's own
/// check says (Claude Code leaves plan mode to each tool).
pub fn changes_in_plan_mode(tool: &dyn Tool, input: &ParsedInput, permissions: &ToolPermissionContext) -> bool {
    permissions.mode == PermissionMode::Plan
        && matches!(tool.capabilities().kind, ToolKind::Edit | ToolKind::Execute)
        && !tool.is_read_only(input)
}

/// The text for a call that needs approval nobody has given yet.
pub fn needs_approval_message(tool_name: &str) -> String {
    format!("Permission to use {tool_name} is required, and it has not been granted.")
}

/// What the model reads when a sub-agent calls a tool its definition restricts
/// ([`ToolRestriction`]) in a way the restriction does not cover: the tool, the rules it may
/// use it under, and that the call did not run.
///
/// ```
/// use agent_tools_core::ToolRestriction;
/// let limit = ToolRestriction { tool_name: "Bash".into(), rule_contents: vec!["git diff:*".into()] };
/// assert_eq!(
///     agent_tools_host::permissions::restricted_message(&limit),
///     "This agent may use Bash only as its definition allows: Bash(git diff:*). This call is not covered by \
///      that, so it did not run; use Bash only in that way, or do without it."
/// );
/// ```
pub fn restricted_message(restriction: &ToolRestriction) -> String {
    let tool = &restriction.tool_name;
    format!(
        "This agent may use {tool} only as its definition allows: {}. This call is not covered by that, so it did \
         not run; use {tool} only in that way, or do without it.",
        restriction.rules_text()
    )
}

/// The denial of a call that breaks one of the context's tool restrictions
/// ([`ToolPermissionContext::tool_restrictions`]: a sub-agent's `tools: Bash(git diff:*)`, its
/// callers' too), if it breaks one. Every restriction on the tool must hold. A call is matched
/// as hooks' `if` conditions match it (`CallMatch::covers`: the tool's restriction matcher —
/// Bash needs *every* part of a compound command covered — else the path it acts on as a
/// `Read(…)`/`Edit(…)` rule), failing closed: a call that offers nothing to match the rules
/// against is refused.
///
/// [`has_permissions_to_use_tool`] asks this right after the whole-tool deny rules; the executor
/// asks it again of an input that replaces the checked one after the decision.
pub fn restriction_denial(tool: &dyn Tool, input: &ParsedInput, ctx: &ToolUseContext) -> Option<PermissionDecision> {
    let permissions = &ctx.permission_context;
    let mut restrictions = permissions.restrictions_for(tool).peekable();
    restrictions.peek()?;
    let matched = CallMatch::for_restrictions(tool, input, ctx);
    let broken =
        restrictions.find(|restriction| !matched.covers(&restriction.tool_name, &restriction.rule_contents))?;
    Some(PermissionDecision::Deny {
        message: restricted_message(broken),
        reason: PermissionDecisionReason::Other {
            reason: format!("the agent's definition allows {} only as {}", broken.tool_name, broken.rules_text()),
        },
    })
}

/// What a rule's content is matched against for one call — one logic for hooks' `if`
/// conditions ([`CallMatch::for_hooks`], [`CallMatch::holds`]) and sub-agents' tool
/// restrictions ([`CallMatch::for_restrictions`], [`CallMatch::covers`]): the tool's own
/// matcher, else the path it acts on (`get_path`, matched as a `Read(…)`/`Edit(…)` rule would
/// match it). The two differ only where they must: a hook's pattern holds when it covers *any*
/// part of a shell command (`prepare_permission_matcher`), a restriction only when its rules
/// cover *every* part (`prepare_restriction_matcher`); and a call that offers nothing to match
/// runs the hook but breaks the restriction (each fails closed in its own direction).
pub(crate) struct CallMatch<'a> {
    tool: &'a dyn Tool,
    subject: Subject,
    /// How a path is matched: as an ask rule for hooks (which then also covers the project's
    /// worktree copies, so a guard never misses one), as an allow rule for restrictions (which
    /// stays where it was given).
    path_rule: PermissionBehavior,
    ctx: &'a ToolUseContext,
}

/// What a call offers rule contents.
enum Subject {
    /// A pattern covers some part of it (hooks).
    AnyPart(agent_tools_core::PermissionMatcher),
    /// The contents cover every part of it (restrictions).
    EveryPart(agent_tools_core::RestrictionMatcher),
    /// The path it acts on, resolved.
    Path(std::path::PathBuf),
    /// Nothing to match.
    Nothing,
}

impl<'a> CallMatch<'a> {
    /// For hooks' `if` conditions: the tool's permission matcher, else its path.
    pub(crate) fn for_hooks(tool: &'a dyn Tool, input: &ParsedInput, ctx: &'a ToolUseContext) -> Self {
        let subject = match tool.prepare_permission_matcher(input) {
            Some(matcher) => Subject::AnyPart(matcher),
            None => Self::path(tool, input, ctx),
        };
        Self { tool, subject, path_rule: PermissionBehavior::Ask, ctx }
    }

    /// For tool restrictions: the tool's restriction matcher, else — unless the tool has a
    /// permission matcher, whose parts this cannot check one by one — its path.
    pub(crate) fn for_restrictions(tool: &'a dyn Tool, input: &ParsedInput, ctx: &'a ToolUseContext) -> Self {
        let subject = match tool.prepare_restriction_matcher(input) {
            Some(matcher) => Subject::EveryPart(matcher),
            None if tool.prepare_permission_matcher(input).is_some() => Subject::Nothing,
            None => Self::path(tool, input, ctx),
        };
        Self { tool, subject, path_rule: PermissionBehavior::Allow, ctx }
    }

    fn path(tool: &dyn Tool, input: &ParsedInput, ctx: &ToolUseContext) -> Subject {
        tool.get_path(input).map_or(Subject::Nothing, |path| Subject::Path(ctx.resolve_path(&path)))
    }

    /// Whether the contents of `tool_name(…)` rules match the call: `Some(true)` when they do
    /// (any one of them for a path or a hook's matcher, all parts together for a restriction
    /// matcher), `None` when the call offers nothing to match them against. The one matching
    /// step both [`Self::holds`] and [`Self::covers`] take.
    fn content_match(&self, tool_name: &str, contents: &[String]) -> Option<bool> {
        match &self.subject {
            Subject::AnyPart(matcher) => Some(contents.iter().any(|content| matcher(content))),
            Subject::EveryPart(matcher) => Some(matcher(contents)),
            Subject::Path(path) => Some(contents.iter().any(|content| {
                let rule = PermissionRule {
                    source: PermissionRuleSource::Session,
                    rule_behavior: self.path_rule,
                    rule_value: PermissionRuleValue {
                        tool_name: tool_name.to_owned(),
                        rule_content: Some(content.clone()),
                    },
                };
                agent_tools_permissions::paths::rule_covers(&rule, path, self.ctx)
            })),
            Subject::Nothing => None,
        }
    }

    /// Whether a hook's rule pattern (`Bash(git *)`, `Edit(src/**)`, `Read`) matches the call. A
    /// pattern for another tool does not; one this call offers nothing to match its content
    /// against does (the hook runs: a guard is never skipped for want of a matcher).
    pub(crate) fn holds(&self, pattern: &str) -> bool {
        let rule = PermissionRuleValue::parse(pattern);
        if !agent_tools_core::tool_matches_name(self.tool, &rule.tool_name) {
            return false;
        }
        let Some(content) = rule.rule_content else { return true };
        self.content_match(&rule.tool_name, &[content]).unwrap_or(true)
    }

    /// Whether a restriction's rule contents for `tool_name` cover the call. One this call
    /// offers nothing to match against does not (the call is refused).
    pub(crate) fn covers(&self, tool_name: &str, contents: &[String]) -> bool {
        self.content_match(tool_name, contents).unwrap_or(false)
    }
}

/// What the model reads when the user says no.
pub fn rejected_message(feedback: Option<&str>) -> String {
    let base = "The user declined this tool use, so it did not run (a file edit, for example, was not written). \
                Stop and wait for the user to say how to go on.";
    match feedback.map(str::trim).filter(|text| !text.is_empty()) {
        Some(feedback) => format!("{base} The user said: {feedback}"),
        None => base.to_owned(),
    }
}

/// Decides whether a parsed call may run (see the module docs for the order).
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
    // Before anything that could allow the call: bypass mode, allow rules, the tool's own
    // allow (and the executor lets a hook's "allow" turn only an ask into an allow).
    if let Some(denied) = restriction_denial(tool, input, ctx) {
        return denied;
    }
    if permissions.tool_wide_rule(tool, PermissionBehavior::Ask).is_some() {
        return PermissionDecision::Ask {
            message: needs_approval_message(tool.name()),
            suggestions: Vec::new(),
            forced: true,
        };
    }
    let tool_says = tool.check_permissions(input, ctx).await;
    match &tool_says {
        PermissionResult::Deny { message, decision_reason } => {
            return PermissionDecision::Deny { message: message.clone(), reason: decision_reason.clone() };
        }
        PermissionResult::Ask { message, decision_reason, suggestions, .. }
            if tool.requires_user_interaction()
                || matches!(
                    decision_reason,
                    Some(
                        PermissionDecisionReason::SafetyCheck { .. }
                            | PermissionDecisionReason::Rule {
                                rule: PermissionRule { rule_behavior: PermissionBehavior::Ask, .. }
                            }
                    )
                ) =>
        {
            return PermissionDecision::Ask {
                message: message.clone(),
                suggestions: suggestions.clone(),
                forced: true,
            };
        }
        _ => {}
    }
    let updated_input = match &tool_says {
        PermissionResult::Allow { updated_input, .. } | PermissionResult::Ask { updated_input, .. } => {
            updated_input.clone()
        }
        _ => None,
    };
    // Plan mode, held here whatever the tool's own check says (fail-closed): a call that would
    // change something runs only when the tool allowed it with a reason (the session's plan
    // file); otherwise the user is asked (in the tool's own words when it asked), bypass and
    // whole-tool allow rules notwithstanding.
    let plan_hold = changes_in_plan_mode(tool, input, permissions)
        && !matches!(tool_says, PermissionResult::Allow { decision_reason: Some(_), .. });
    if plan_hold && matches!(tool_says, PermissionResult::Allow { .. }) {
        return PermissionDecision::Ask {
            message: plan_mode_message(tool.name()),
            suggestions: Vec::new(),
            forced: true,
        };
    }
    // Plan mode entered from a bypass session keeps bypassing what does not change anything.
    let bypass = permissions.mode == PermissionMode::BypassPermissions
        || (permissions.mode == PermissionMode::Plan && permissions.is_bypass_permissions_mode_available);
    if !plan_hold && (bypass || permissions.tool_wide_rule(tool, PermissionBehavior::Allow).is_some()) {
        return PermissionDecision::Allow { updated_input };
    }
    match tool_says {
        PermissionResult::Allow { updated_input, .. } => PermissionDecision::Allow { updated_input },
        PermissionResult::Ask { message, suggestions, .. }
        | PermissionResult::Passthrough { message, suggestions, .. } => PermissionDecision::Ask {
            message: if message.is_empty() { needs_approval_message(tool.name()) } else { message },
            suggestions,
            forced: false,
        },
        PermissionResult::Deny { message, decision_reason } => {
            PermissionDecision::Deny { message, reason: decision_reason }
        }
    }
}

/// A permission question for whoever can answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// The tool's name.
    pub tool_name: String,
    /// The call's `tool_use` id.
    pub tool_use_id: String,
    /// The call's input.
    pub input: Value,
    /// A one-line summary of the call (the tool's [`Tool::summary`] of it).
    pub summary: String,
    /// The tool's name as the user knows it (`Tool::user_facing_name`: `Update` for an Edit,
    /// `<server> - <tool> (MCP)` for an MCP tool).
    pub display_name: String,
    /// The call may delete, overwrite or send something irreversibly (`Tool::is_destructive`).
    pub destructive: bool,
    /// The call reaches outside this machine (`Tool::is_open_world`).
    pub open_world: bool,
    /// What the tool asks beyond yes or no (`Tool::interaction`): AskUserQuestion's questions,
    /// ExitPlanMode's plan. A prompter that cannot show it answers
    /// [`PermissionAnswer::Unavailable`].
    pub interaction: Option<Interaction>,
    /// The input field a rule's content is matched against (`Tool::rule_content_field`): what
    /// "allow always" puts in the session rule.
    pub rule_content_field: Option<&'static str>,
    /// Why it needs approval.
    pub message: String,
    /// Rule changes that would allow it from now on.
    pub suggestions: Vec<PermissionUpdate>,
    /// Asked whatever the rules and the mode say (see [`PermissionDecision::Ask`]): no rule the
    /// user could add would let such a call run unasked.
    pub forced: bool,
}

/// How long [`PermissionRequest::input_preview`] lets an input get, in characters.
pub const INPUT_PREVIEW_CHARS: usize = 300;

impl PermissionRequest {
    /// The tool as a question names it: its user-facing name, with the API name beside it when
    /// the two differ (`Fetch (WebFetch)`, `Bash`).
    pub fn tool_label(&self) -> String {
        if self.display_name.is_empty() || self.display_name == self.tool_name {
            self.tool_name.clone()
        } else {
            format!("{} ({})", self.display_name, self.tool_name)
        }
    }

    /// What a question should warn about, in one sentence: the call may destroy something
    /// ([`PermissionRequest::destructive`]) or reach outside this machine
    /// ([`PermissionRequest::open_world`]); `None` when neither.
    pub fn caution(&self) -> Option<&'static str> {
        match (self.destructive, self.open_world) {
            (true, true) => Some("It may delete or overwrite data, and it reaches outside this machine."),
            (true, false) => Some("It may delete or overwrite data."),
            (false, true) => Some("It reaches outside this machine."),
            (false, false) => None,
        }
    }

    /// The questions this request puts to the user ([`Interaction::Questions`]); `None` for a
    /// plain permission question (or a plan).
    pub fn questions(&self) -> Option<&[agent_tools_core::Question]> {
        match &self.interaction {
            Some(Interaction::Questions(questions)) => Some(questions),
            _ => None,
        }
    }

    /// The input as compact JSON for a question's "input:" line, cut to
    /// [`INPUT_PREVIEW_CHARS`] characters with `…` when longer.
    pub fn input_preview(&self) -> String {
        let compact = self.input.to_string();
        match compact.char_indices().nth(INPUT_PREVIEW_CHARS) {
            Some((end, _)) => format!("{}…", &compact[..end]),
            None => compact,
        }
    }
}

/// An answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// Run it this once.
    AllowOnce,
    /// Run it this once, with this input instead of the model's: what the user supplied in the
    /// question itself (Claude Code's `{behavior: "allow", updatedInput}` from a permission
    /// dialog). For AskUserQuestion it is the input with `answers` filled in; a prompter that
    /// shows such questions recognises the tool by [`PermissionRequest::tool_name`]. The input is
    /// parsed strictly before the call: one that does not parse fails as an input error.
    AllowWithInput {
        /// The replacement input (a JSON object of the tool's schema).
        input: Value,
    },
    /// Run it, and allow such calls for the rest of the session.
    AllowAlways,
    /// Do not run it; the user may say why.
    Deny {
        /// What the user said, passed on to the model.
        feedback: Option<String>,
    },
    /// Nobody could be asked (an MCP client without elicitation, a question that could not be
    /// shown): the call is refused as when there is no prompter at all, never as the user's "no".
    Unavailable {
        /// Why, and what would let such calls run; passed on to the model.
        why: String,
    },
    /// Refuse it with exactly this text for the model: a front end where nobody is ever asked
    /// (`agent-tools agent -p`, like `claude -p`, which answers with the ask's own reason,
    /// [`PermissionRequest::message`]).
    Refuse {
        /// What the model reads.
        message: String,
    },
}

/// Someone who can answer permission questions: the CLI's terminal, an MCP client's elicitation.
/// The host's `can_use_tool`.
///
/// Tools that need more than a yes or no from the user (AskUserQuestion: the answers to its
/// questions) are asked through the same method; a prompter that can show them answers
/// [`PermissionAnswer::AllowWithInput`], one that cannot answers
/// [`PermissionAnswer::Unavailable`] (or, if it says yes anyway, the tool finds no answers and
/// fails without pretending the user answered).
pub trait PermissionPrompter: Send + Sync {
    /// Asks, and waits for the answer.
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer>;
}

/// What the auto mode's safety classifier is asked about one call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClassifierRequest {
    /// The tool's name.
    pub tool_name: String,
    /// The tool's compact view of the call ([`Tool::to_auto_classifier_input`]): never empty.
    pub input: Value,
    /// The working directory the call runs in.
    pub cwd: std::path::PathBuf,
    /// Why the call would otherwise ask (the permission check's message).
    pub reason: String,
}

/// The auto mode's answer about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassifierVerdict {
    /// Low risk and within what the user asked for: run it.
    Allow,
    /// Refused, with the reason the model reads.
    Block(String),
    /// The classifier could not judge (no answer, an error): the call is asked about as in the
    /// default mode, and refused where nobody can answer.
    Unavailable(String),
}

/// The auto mode's safety classifier (`--permission-mode auto`): judges the calls that would
/// otherwise ask. Implementations must fail closed: anything but a clear "allow" is not
/// [`ClassifierVerdict::Allow`].
pub trait AutoClassifier: Send + Sync {
    /// Judges one call.
    fn classify<'a>(&'a self, request: &'a ClassifierRequest) -> BoxFuture<'a, ClassifierVerdict>;
}

/// Whether a classifier input says nothing (the default empty string, `null`, an empty object):
/// such a call is never approved automatically.
pub fn is_blank_classifier_input(input: &Value) -> bool {
    match input {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Who may settle an ask: the auto mode's classifier (in auto mode), then whoever answers
/// permission questions.
#[derive(Clone, Copy, Default)]
pub struct Deciders<'a> {
    /// Asks the user (none: the call is refused).
    pub prompter: Option<&'a dyn PermissionPrompter>,
    /// Judges the call in auto mode.
    pub classifier: Option<&'a dyn AutoClassifier>,
    /// The session's hooks: their `PermissionRequest` hooks answer before anyone is asked.
    pub hooks: Option<&'a crate::hooks::Hooks>,
}

/// How an ask was settled.
pub struct Resolved {
    /// The decision (never `Ask`).
    pub decision: PermissionDecision,
    /// For "allow always": the change to the session's permission context.
    pub modifier: Option<ContextModifier>,
}

/// The session rule "allow always" adds: the first rule suggestion, else `Tool(content)` with the
/// input's [`PermissionRequest::rule_content_field`] (Bash's `command`), else the whole tool.
fn always_rule(request: &PermissionRequest) -> PermissionUpdate {
    request
        .suggestions
        .iter()
        .find(|update| matches!(update, PermissionUpdate::AddRules { .. } | PermissionUpdate::SetMode { .. }))
        .cloned()
        .unwrap_or_else(|| {
            let content = request
                .rule_content_field
                .and_then(|field| request.input.get(field))
                .and_then(Value::as_str)
                .map(str::to_owned);
            PermissionUpdate::AddRules {
                destination: agent_tools_core::PermissionUpdateDestination::Session,
                rules: vec![PermissionRuleValue { tool_name: request.tool_name.clone(), rule_content: content }],
                behavior: PermissionBehavior::Allow,
            }
        })
}

/// Applies a permission update to a context (for "allow always").
pub fn apply_update(permissions: &mut ToolPermissionContext, update: &PermissionUpdate) {
    match update {
        PermissionUpdate::AddRules { rules, behavior, .. } => {
            let list = match behavior {
                PermissionBehavior::Allow => &mut permissions.always_allow_rules,
                PermissionBehavior::Deny => &mut permissions.always_deny_rules,
                PermissionBehavior::Ask => &mut permissions.always_ask_rules,
            };
            list.entry(PermissionRuleSource::Session).or_default().extend(rules.iter().map(ToString::to_string));
        }
        PermissionUpdate::SetMode { mode, .. } => permissions.mode = *mode,
        PermissionUpdate::AddDirectories { directories, .. } => {
            for dir in directories {
                permissions.additional_working_directories.insert(dir.clone(), PermissionRuleSource::Session);
            }
        }
        PermissionUpdate::RemoveDirectories { directories, .. } => {
            for dir in directories {
                permissions.additional_working_directories.remove(dir);
            }
        }
        PermissionUpdate::ReplaceRules { .. } | PermissionUpdate::RemoveRules { .. } => {}
    }
}

/// Runs the `PermissionRequest` hooks of a call that would ask (Claude Code runs them where it
/// would show its permission dialog, and for a background agent that cannot ask): the input is
/// `tool_name`, `tool_input` and `permission_suggestions`. A hook's
/// `hookSpecificOutput.decision` answers for the user: `{"behavior": "allow", "updatedInput"?,
/// "updatedPermissions"?}` allows (with the input replaced, and the permission updates applied
/// — rules and directories; a switch to `bypassPermissions` is not taken from a hook), and
/// `{"behavior": "deny", "message"?, "interrupt"?}` refuses (`interrupt` also stops the turn),
/// as do exit code 2 and `decision: "block"`. `None` when no hook decided: the question is
/// asked as before.
async fn permission_request_hooks(
    hooks: &crate::hooks::Hooks,
    tool: &dyn Tool,
    input: &ParsedInput,
    suggestions: &[PermissionUpdate],
    ctx: &ToolUseContext,
) -> Option<Resolved> {
    let tool_name = tool.name();
    let matched = crate::hooks::any_condition(hooks.event("PermissionRequest"), tool_name)
        .then(|| CallMatch::for_hooks(tool, input, ctx));
    let condition = |pattern: &str| matched.as_ref().is_none_or(|matched| matched.holds(pattern));
    let mut payload = serde_json::Map::new();
    payload.insert("tool_name".into(), Value::from(tool_name));
    payload.insert("tool_input".into(), input.json().clone());
    payload.insert("permission_suggestions".into(), serde_json::to_value(suggestions).unwrap_or_default());
    let outcome = crate::hooks::run_tool_event(hooks, "PermissionRequest", tool_name, &condition, payload, ctx).await;
    let deny = |message: String| Resolved {
        decision: PermissionDecision::Deny {
            message,
            reason: PermissionDecisionReason::Hook { hook_name: "PermissionRequest".into(), reason: None },
        },
        modifier: None,
    };
    if let Some(reason) = outcome.blocked.or(outcome.stop) {
        let reason = if reason.trim().is_empty() { "no reason given".to_owned() } else { reason };
        return Some(deny(format!(
            "Permission to use {tool_name} has been denied by a PermissionRequest hook: {reason}"
        )));
    }
    let decision = outcome.specific.get("decision")?;
    match decision.get("behavior").and_then(Value::as_str) {
        Some("deny") => {
            if decision.get("interrupt").and_then(Value::as_bool) == Some(true) {
                ctx.interrupt.cancel();
            }
            let message =
                decision.get("message").and_then(Value::as_str).filter(|text| !text.trim().is_empty()).map_or_else(
                    || format!("Permission to use {tool_name} has been denied by a PermissionRequest hook."),
                    str::to_owned,
                );
            Some(deny(message))
        }
        Some("allow") => {
            let updated_input = decision.get("updatedInput").filter(|value| value.is_object()).cloned();
            let updates: Vec<PermissionUpdate> = decision
                .get("updatedPermissions")
                .and_then(Value::as_array)
                .map(|list| list.iter().filter_map(|update| serde_json::from_value(update.clone()).ok()).collect())
                .unwrap_or_default();
            let updates: Vec<PermissionUpdate> = updates
                .into_iter()
                .filter(|update| {
                    !matches!(update, PermissionUpdate::SetMode { mode: PermissionMode::BypassPermissions, .. })
                })
                .collect();
            let modifier: Option<ContextModifier> = (!updates.is_empty()).then(|| {
                Box::new(move |mut ctx: ToolUseContext| {
                    for update in &updates {
                        apply_update(Arc::make_mut(&mut ctx.permission_context), update);
                    }
                    ctx
                }) as ContextModifier
            });
            Some(Resolved { decision: PermissionDecision::Allow { updated_input }, modifier })
        }
        _ => None,
    }
}

/// Settles an ask (see the module docs).
pub async fn resolve_ask(
    tool: &dyn Tool,
    input: &ParsedInput,
    message: String,
    suggestions: Vec<PermissionUpdate>,
    forced: bool,
    ctx: &ToolUseContext,
    deciders: Deciders<'_>,
) -> Resolved {
    let Deciders { prompter, classifier, hooks } = deciders;
    let permissions = &ctx.permission_context;
    let refuse = |text: String| Resolved {
        decision: PermissionDecision::Deny {
            message: text,
            reason: PermissionDecisionReason::Mode { mode: permissions.mode },
        },
        modifier: None,
    };
    let tool_name = tool.name();
    // Auto mode: the classifier judges what would ask, unless a rule, a safety check or the
    // tool itself insists on the user (`forced`), or the tool gives it nothing to judge.
    let mut unavailable = None;
    if permissions.mode == PermissionMode::Auto && !forced {
        let view = tool.to_auto_classifier_input(input);
        match classifier.filter(|_| !is_blank_classifier_input(&view)) {
            Some(classifier) => {
                let request = ClassifierRequest {
                    tool_name: tool_name.to_owned(),
                    input: view,
                    cwd: ctx.cwd.clone(),
                    reason: message.clone(),
                };
                match classifier.classify(&request).await {
                    ClassifierVerdict::Allow => {
                        return Resolved {
                            decision: PermissionDecision::Allow { updated_input: None },
                            modifier: None,
                        };
                    }
                    ClassifierVerdict::Block(reason) => {
                        return refuse(format!(
                            "Permission to use {tool_name} has been denied by the auto mode's safety check: {reason}"
                        ));
                    }
                    ClassifierVerdict::Unavailable(why) => unavailable = Some(why),
                }
            }
            None => unavailable = Some(format!("{tool_name} calls are not judged automatically")),
        }
    }
    let message = match &unavailable {
        Some(why) => format!("{message} (auto mode: {why})"),
        None => message,
    };
    if permissions.mode == PermissionMode::DontAsk {
        return refuse(format!(
            "Permission to use {tool_name} has been denied because the session runs in don't-ask mode. {message}"
        ));
    }
    if let Some(hooks) = hooks.filter(|hooks| !hooks.event("PermissionRequest").is_empty())
        && let Some(resolved) = Box::pin(permission_request_hooks(hooks, tool, input, &suggestions, ctx)).await
    {
        return resolved;
    }
    let Some(prompter) = prompter.filter(|_| !permissions.should_avoid_permission_prompts) else {
        return refuse(format!(
            "Permission to use {tool_name} has been denied: this call needs approval and no one is available to give it. {message}"
        ));
    };
    let request = PermissionRequest {
        tool_name: tool_name.to_owned(),
        tool_use_id: ctx.tool_use_id.clone().unwrap_or_default(),
        input: input.json().clone(),
        summary: tool.summary(input),
        display_name: tool.user_facing_name(Some(input)),
        destructive: tool.is_destructive(input),
        open_world: tool.is_open_world(input),
        interaction: tool.interaction(input, ctx),
        rule_content_field: tool.rule_content_field(),
        message,
        suggestions,
        forced,
    };
    match prompter.ask(&request).await {
        PermissionAnswer::AllowOnce => {
            Resolved { decision: PermissionDecision::Allow { updated_input: None }, modifier: None }
        }
        PermissionAnswer::AllowWithInput { input } => {
            Resolved { decision: PermissionDecision::Allow { updated_input: Some(input) }, modifier: None }
        }
        PermissionAnswer::AllowAlways => {
            let update = always_rule(&request);
            Resolved {
                decision: PermissionDecision::Allow { updated_input: None },
                modifier: Some(Box::new(move |mut ctx: ToolUseContext| {
                    apply_update(Arc::make_mut(&mut ctx.permission_context), &update);
                    ctx
                })),
            }
        }
        PermissionAnswer::Deny { feedback } => Resolved {
            decision: PermissionDecision::Deny {
                message: rejected_message(feedback.as_deref()),
                reason: PermissionDecisionReason::Other { reason: "the user declined".into() },
            },
            modifier: None,
        },
        PermissionAnswer::Unavailable { why } => refuse(format!(
            "Permission to use {tool_name} has been denied: this call needs approval and no one could be asked ({why}). {}",
            request.message
        )),
        PermissionAnswer::Refuse { message } => refuse(message),
    }
}
