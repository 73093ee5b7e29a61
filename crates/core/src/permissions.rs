//! Permission types: modes, rules and their sources, [`ToolPermissionContext`], and the
//! [`PermissionResult`] a tool's `check_permissions` returns.
//!
//! Mirrors Claude Code's `types/permissions.ts` and the rule grammar of `permissionRuleParser.ts`:
//! a rule is `Tool` or `Tool(content)`; `Tool()` and `Tool(*)` mean the whole tool; `\(`, `\)` and
//! `\\` escape inside the content; legacy tool names (`Task`, `KillShell`, …) are normalised.
//! The decision engine that walks these rules lives in the host.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::Tool;

/// The session's permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Ask for anything not allowed by a rule (`default`).
    #[default]
    Default,
    /// Allow file edits inside the working directories without asking (`acceptEdits`).
    AcceptEdits,
    /// Allow everything except what deny rules and safety checks stop (`bypassPermissions`).
    BypassPermissions,
    /// Turn every "ask" into a denial (`dontAsk`).
    DontAsk,
    /// Read-only planning: writes are refused (`plan`).
    Plan,
    /// A safety classifier decides the calls that would ask (`auto`); a call it cannot judge,
    /// or that a rule or safety check makes ask, is asked about as in `default`.
    Auto,
}

impl PermissionMode {
    /// The settings-file spelling (`default`, `acceptEdits`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
            Self::Plan => "plan",
            Self::Auto => "auto",
        }
    }

    /// Parses the settings-file spelling.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Default, Self::AcceptEdits, Self::BypassPermissions, Self::DontAsk, Self::Plan, Self::Auto]
            .into_iter()
            .find(|mode| mode.as_str() == text)
    }
}

impl PermissionMode {
    /// Whether this mode allows no more than `wider` does: the partial order sub-agents are
    /// narrowed by ([`subagent_permission_mode`]). Its steps are `plan` < `default`,
    /// `dontAsk` < `default`, `default` < `acceptEdits` < `bypassPermissions` and
    /// `default` < `auto` < `bypassPermissions`; `plan` and `dontAsk` are not comparable (one
    /// refuses writes, the other every question), nor are `acceptEdits` and `auto`. Every mode
    /// is at most itself.
    ///
    /// ```
    /// use agent_tools_core::PermissionMode::*;
    /// assert!(Plan.is_at_most(Default) && Plan.is_at_most(BypassPermissions));
    /// assert!(!AcceptEdits.is_at_most(Default) && !Plan.is_at_most(DontAsk) && !Auto.is_at_most(AcceptEdits));
    /// ```
    pub fn is_at_most(self, wider: Self) -> bool {
        use PermissionMode::{AcceptEdits, Auto, BypassPermissions, Default, DontAsk, Plan};
        self == wider
            || match self {
                Plan | DontAsk => matches!(wider, Default | AcceptEdits | Auto | BypassPermissions),
                Default => matches!(wider, AcceptEdits | Auto | BypassPermissions),
                AcceptEdits | Auto => wider == BypassPermissions,
                BypassPermissions => false,
            }
    }
}

/// The permission mode a sub-agent runs in, given its caller's mode and the mode it asks for
/// (an agent file's `permissionMode`; for a stopped agent continued by SendMessage, the mode it
/// ran in). Every tool that starts or continues an agent — Agent, Skill's `context: fork`,
/// TeamCreate, SendMessage — comes here, and `Session::fork` applies it again.
///
/// As in Claude Code, a caller in `bypassPermissions`, `acceptEdits` or `auto` keeps its own
/// mode whatever is asked. Otherwise the asked mode applies only when it is
/// [at most](PermissionMode::is_at_most) the caller's, and the caller's mode stays when it is
/// wider or not comparable: a caller in `plan` gets a sub-agent in `plan` (whatever its file
/// says, and even when plan mode was entered from a bypass session), one in `default` allows
/// `plan`, `dontAsk` or `default`, one in `dontAsk` keeps `dontAsk`.
///
/// Stricter than Claude Code, where an agent file's `permissionMode` applies under any caller
/// in `default`, `plan` or `dontAsk` — so a `permissionMode: acceptEdits` agent wrote files for
/// a caller in plan mode. Here a sub-agent never gets more than its caller.
///
/// ```
/// use agent_tools_core::subagent_permission_mode;
/// use agent_tools_core::PermissionMode::*;
/// assert_eq!(subagent_permission_mode(Plan, Some(AcceptEdits)), Plan);
/// assert_eq!(subagent_permission_mode(Default, Some(Plan)), Plan);
/// assert_eq!(subagent_permission_mode(Default, Some(BypassPermissions)), Default);
/// assert_eq!(subagent_permission_mode(AcceptEdits, Some(Plan)), AcceptEdits);
/// assert_eq!(subagent_permission_mode(DontAsk, None), DontAsk);
/// ```
pub fn subagent_permission_mode(caller: PermissionMode, wanted: Option<PermissionMode>) -> PermissionMode {
    if matches!(caller, PermissionMode::BypassPermissions | PermissionMode::AcceptEdits | PermissionMode::Auto) {
        return caller;
    }
    match wanted {
        Some(wanted) if wanted.is_at_most(caller) => wanted,
        _ => caller,
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    /// Run without asking.
    Allow,
    /// Refuse.
    Deny,
    /// Ask the user.
    Ask,
}

/// Where a rule comes from, in Claude Code's lookup order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionRuleSource {
    /// `~/.claude/settings.json`.
    UserSettings,
    /// `.claude/settings.json` in the project.
    ProjectSettings,
    /// `.claude/settings.local.json` in the project.
    LocalSettings,
    /// A `--settings` file.
    FlagSettings,
    /// Managed policy settings.
    PolicySettings,
    /// `--allowedTools` / `--disallowedTools`.
    CliArg,
    /// A command's or skill's `allowed-tools`.
    Command,
    /// An "always allow" answer for this session.
    Session,
}

/// A parsed rule: a tool name and optional content (`Bash(npm test:*)` → `Bash`, `npm test:*`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRuleValue {
    /// The tool the rule names (legacy names already normalised).
    pub tool_name: String,
    /// The content between the parentheses, unescaped; `None` for a whole-tool rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

/// Legacy tool names and what they are called now (Claude Code's `normalizeLegacyToolName`).
const LEGACY_TOOL_NAMES: &[(&str, &str)] = &[
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("AgentOutputTool", "TaskOutput"),
    ("BashOutputTool", "TaskOutput"),
    ("Brief", "SendUserMessage"),
];

/// The current name for a legacy tool name (`Task` → `Agent`); other names are returned unchanged.
pub fn normalize_legacy_tool_name(name: &str) -> &str {
    LEGACY_TOOL_NAMES.iter().find(|(old, _)| *old == name).map_or(name, |(_, new)| new)
}

impl PermissionRuleValue {
    /// A whole-tool rule.
    pub fn tool(tool_name: impl Into<String>) -> Self {
        Self { tool_name: tool_name.into(), rule_content: None }
    }

    /// Parses a rule string. Never fails: a string that is not `Name(content)` with the closing
    /// parenthesis last is taken whole as a tool name, as Claude Code does.
    ///
    /// ```
    /// use agent_tools_core::PermissionRuleValue;
    /// let rule = PermissionRuleValue::parse("Bash(npm run test:*)");
    /// assert_eq!(rule.tool_name, "Bash");
    /// assert_eq!(rule.rule_content.as_deref(), Some("npm run test:*"));
    /// assert_eq!(PermissionRuleValue::parse("Read(*)").rule_content, None);
    /// assert_eq!(PermissionRuleValue::parse("Task").tool_name, "Agent");
    /// ```
    pub fn parse(rule: &str) -> Self {
        let Some(open) = find_unescaped(rule, '(') else {
            return Self::tool(normalize_legacy_tool_name(rule));
        };
        let Some(close) = rfind_unescaped(rule, ')') else {
            return Self::tool(normalize_legacy_tool_name(rule));
        };
        if close <= open || close != rule.len() - 1 || open == 0 {
            return Self::tool(normalize_legacy_tool_name(rule));
        }
        let tool_name = normalize_legacy_tool_name(&rule[..open]).to_owned();
        let raw_content = &rule[open + 1..close];
        if raw_content.is_empty() || raw_content == "*" {
            return Self { tool_name, rule_content: None };
        }
        Self { tool_name, rule_content: Some(unescape_rule_content(raw_content)) }
    }
}

impl fmt::Display for PermissionRuleValue {
    /// Formats the rule back to its string form, escaping parentheses and backslashes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule_content {
            None => f.write_str(&self.tool_name),
            Some(content) => write!(f, "{}({})", self.tool_name, escape_rule_content(content)),
        }
    }
}

fn is_escaped(text: &str, index: usize) -> bool {
    let backslashes = text.as_bytes()[..index].iter().rev().take_while(|b| **b == b'\\').count();
    backslashes % 2 == 1
}

fn find_unescaped(text: &str, needle: char) -> Option<usize> {
    text.char_indices().find(|(i, c)| *c == needle && !is_escaped(text, *i)).map(|(i, _)| i)
}

fn rfind_unescaped(text: &str, needle: char) -> Option<usize> {
    text.char_indices().rev().find(|(i, c)| *c == needle && !is_escaped(text, *i)).map(|(i, _)| i)
}

fn unescape_rule_content(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '(' | ')' | '\\')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

fn escape_rule_content(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    for c in content.chars() {
        if matches!(c, '(' | ')' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Splits a list of permission rules into rule strings, Claude Code's `parseToolListFromCLI`
/// (used for `--allowedTools` / `--disallowedTools` and for the `allowed-tools` of skills and
/// slash commands): a comma or a space (U+0020 only — a tab or a line break is part of a rule,
/// as in Claude Code) outside parentheses ends a rule; each rule is trimmed and empty ones are
/// dropped. Parentheses nest, so `Bash(f(x) y)` stays one rule where Claude Code's single
/// in-parentheses flag would split it after `f(x)`; a `)` without its `(` is kept and does not
/// go below the top level. Never fails.
///
/// ```
/// use agent_tools_core::parse_rule_list;
/// assert_eq!(parse_rule_list("Read Write,Bash(git status, git diff)"), ["Read", "Write", "Bash(git status, git diff)"]);
/// assert_eq!(parse_rule_list(" , Grep,, "), ["Grep"]);
/// ```
pub fn parse_rule_list(text: &str) -> Vec<String> {
    let mut rules = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut end = |current: &mut String| {
        let rule = current.trim();
        if !rule.is_empty() {
            rules.push(rule.to_owned());
        }
        current.clear();
    };
    for c in text.chars() {
        match c {
            ',' | ' ' if depth == 0 => end(&mut current),
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    end(&mut current);
    rules
}

/// A limit on one tool: its calls run only when one of `rule_contents` covers them. An agent
/// file's `tools: Bash(git diff:*), Read` makes one for Bash (`git diff:*`); Claude Code reads
/// the same syntax for a sub-agent's tools (and keeps only the tool name, so its agent could run
/// any command — here the rule holds).
///
/// Enforced by the host's permission decision right after the whole-tool deny rules, before
/// anything that could allow a call (the mode, allow rules, a hook's "allow"), in every mode.
/// A call is matched the way hooks' `if` conditions are — the tool's own matcher (Bash: *every*
/// part of a compound command must be covered), else the path it acts on as a `Read(…)` /
/// `Edit(…)` rule — and a call that offers nothing to match is refused.
///
/// Shape (serialised in the permission context's `toolRestrictions`):
/// `{"toolName": "Bash", "ruleContents": ["git diff:*", "git log:*"]}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRestriction {
    /// The tool it limits (legacy names normalised: `Task` is `Agent`).
    pub tool_name: String,
    /// The rule contents a call must match one of (`git diff:*`), never empty.
    pub rule_contents: Vec<String>,
}

impl ToolRestriction {
    /// The rules it allows, as written in an agent file: `Bash(git diff:*), Bash(git log:*)`.
    pub fn rules_text(&self) -> String {
        self.rule_contents
            .iter()
            .map(|content| {
                PermissionRuleValue { tool_name: self.tool_name.clone(), rule_content: Some(content.clone()) }
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The restrictions a list of tool entries makes (an agent file's `tools`): one per tool that
/// is named only with rule content (`Bash(git diff:*)`, `Bash(git log:*)` → Bash limited to
/// both), in first-mention order. A tool also named whole (`Bash`, `Bash(*)`) is not limited.
///
/// ```
/// use agent_tools_core::tool_restrictions;
/// let limits = tool_restrictions(&["Read", "Bash(git diff:*)", "Bash(git log:*)", "Grep(src/**)", "Grep"]);
/// assert_eq!(limits.len(), 1);
/// assert_eq!(limits[0].tool_name, "Bash");
/// assert_eq!(limits[0].rule_contents, ["git diff:*", "git log:*"]);
/// assert_eq!(limits[0].rules_text(), "Bash(git diff:*), Bash(git log:*)");
/// ```
pub fn tool_restrictions<S: AsRef<str>>(entries: &[S]) -> Vec<ToolRestriction> {
    let rules: Vec<PermissionRuleValue> =
        entries.iter().map(|entry| PermissionRuleValue::parse(entry.as_ref().trim())).collect();
    let mut out: Vec<ToolRestriction> = Vec::new();
    for rule in &rules {
        let Some(content) = &rule.rule_content else { continue };
        if rules.iter().any(|other| other.tool_name == rule.tool_name && other.rule_content.is_none()) {
            continue;
        }
        match out.iter_mut().find(|restriction| restriction.tool_name == rule.tool_name) {
            Some(restriction) if restriction.rule_contents.contains(content) => {}
            Some(restriction) => restriction.rule_contents.push(content.clone()),
            None => {
                out.push(ToolRestriction { tool_name: rule.tool_name.clone(), rule_contents: vec![content.clone()] })
            }
        }
    }
    out
}

/// A rule with its behaviour and source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRule {
    /// Where the rule was set.
    pub source: PermissionRuleSource,
    /// What it does.
    pub rule_behavior: PermissionBehavior,
    /// The parsed rule.
    pub rule_value: PermissionRuleValue,
}

/// Rule strings by source, as settings files hold them.
pub type RulesBySource = BTreeMap<PermissionRuleSource, Vec<String>>;

/// The permission state of a session: mode, rules by source and behaviour, and extra working
/// directories.
///
/// Mirrors Claude Code's `ToolPermissionContext` (kept in its app state).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolPermissionContext {
    /// The current mode.
    pub mode: PermissionMode,
    /// Directories outside the original working directory that tools may use, with the source
    /// that added them.
    pub additional_working_directories: BTreeMap<PathBuf, PermissionRuleSource>,
    /// Allow rules by source.
    pub always_allow_rules: RulesBySource,
    /// Deny rules by source.
    pub always_deny_rules: RulesBySource,
    /// Ask rules by source.
    pub always_ask_rules: RulesBySource,
    /// Whether `bypassPermissions` may be entered.
    pub is_bypass_permissions_mode_available: bool,
    /// Headless or background agents: an "ask" becomes a denial.
    pub should_avoid_permission_prompts: bool,
    /// The mode to restore when plan mode ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_plan_mode: Option<PermissionMode>,
    /// The folder the project, local and policy settings govern (the folder holding their
    /// `.claude/`): the `./x`, `x` and `/x` patterns of those files' `Read(…)` / `Edit(…)` rules
    /// are anchored there. Set once, when the rules are loaded; a `cd` or a worktree never moves
    /// it. `None`: [`Self::launch_dir`], else the context's `original_cwd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<PathBuf>,
    /// The session's original working directory, where it was launched: the `./x`, `x` and
    /// `/x` patterns of rules from user settings (`./x`, `x` only), `--settings`, the command
    /// line, skills and session answers are anchored there. Set once, like
    /// [`Self::project_dir`]. `None`: the context's `original_cwd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_dir: Option<PathBuf>,
    /// Limits on tools (a sub-agent's definition's `tools: Bash(git diff:*)`, see
    /// [`ToolRestriction`]). Several for the same tool must all hold, so a nested agent, which
    /// inherits its caller's and adds its own, can only narrow. Empty for the main conversation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_restrictions: Vec<ToolRestriction>,
}

impl ToolPermissionContext {
    /// Adds a rule string for a behaviour and source (builder style).
    pub fn with_rule(
        mut self,
        behavior: PermissionBehavior,
        source: PermissionRuleSource,
        rule: impl Into<String>,
    ) -> Self {
        self.rules_mut(behavior).entry(source).or_default().push(rule.into());
        self
    }

    /// The rule strings of one behaviour, by source.
    pub fn rules_by_source(&self, behavior: PermissionBehavior) -> &RulesBySource {
        match behavior {
            PermissionBehavior::Allow => &self.always_allow_rules,
            PermissionBehavior::Deny => &self.always_deny_rules,
            PermissionBehavior::Ask => &self.always_ask_rules,
        }
    }

    fn rules_mut(&mut self, behavior: PermissionBehavior) -> &mut RulesBySource {
        match behavior {
            PermissionBehavior::Allow => &mut self.always_allow_rules,
            PermissionBehavior::Deny => &mut self.always_deny_rules,
            PermissionBehavior::Ask => &mut self.always_ask_rules,
        }
    }

    /// Every rule of one behaviour, parsed, in source order.
    pub fn rules(&self, behavior: PermissionBehavior) -> impl Iterator<Item = PermissionRule> + '_ {
        self.rules_by_source(behavior).iter().flat_map(move |(source, rules)| {
            rules.iter().map(move |rule| PermissionRule {
                source: *source,
                rule_behavior: behavior,
                rule_value: PermissionRuleValue::parse(rule),
            })
        })
    }

    /// The first whole-tool rule of a behaviour that matches the tool (Claude Code's
    /// `getDenyRuleForTool` / `getAskRuleForTool` / `toolAlwaysAllowedRule`).
    pub fn tool_wide_rule(&self, tool: &dyn Tool, behavior: PermissionBehavior) -> Option<PermissionRule> {
        self.rules(behavior).find(|rule| tool_matches_rule(tool, &rule.rule_value))
    }

    /// Adds restrictions (builder style) to those already here; one already present is not
    /// added again. Nothing is ever removed: restrictions only accumulate.
    pub fn with_restrictions(mut self, restrictions: impl IntoIterator<Item = ToolRestriction>) -> Self {
        self.add_restrictions(restrictions);
        self
    }

    /// Adds restrictions in place (see [`Self::with_restrictions`]).
    pub fn add_restrictions(&mut self, restrictions: impl IntoIterator<Item = ToolRestriction>) {
        for restriction in restrictions {
            if !restriction.rule_contents.is_empty() && !self.tool_restrictions.contains(&restriction) {
                self.tool_restrictions.push(restriction);
            }
        }
    }

    /// The restrictions on this tool (by its name or an alias), in the order they were added.
    pub fn restrictions_for<'a>(&'a self, tool: &'a dyn Tool) -> impl Iterator<Item = &'a ToolRestriction> + 'a {
        self.tool_restrictions.iter().filter(move |restriction| crate::tool_matches_name(tool, &restriction.tool_name))
    }

    /// Narrows this context (a sub-agent's) to what `caller` may do: the mode by
    /// [`subagent_permission_mode`] (the mode here being the one asked for), and the caller's
    /// restrictions added to these. What a stopped agent goes through before it continues for a
    /// new caller (SendMessage), so it never does more for that caller than the caller could.
    pub fn narrow_to(&mut self, caller: &ToolPermissionContext) {
        self.mode = subagent_permission_mode(caller.mode, Some(self.mode));
        self.add_restrictions(caller.tool_restrictions.iter().cloned());
    }

    /// The content rules of a behaviour that name this tool, e.g. every `Bash(…)` deny rule.
    pub fn content_rules(
        &self,
        tool_name: &str,
        behavior: PermissionBehavior,
    ) -> impl Iterator<Item = PermissionRule> + '_ {
        let tool_name = tool_name.to_owned();
        self.rules(behavior)
            .filter(move |rule| rule.rule_value.tool_name == tool_name && rule.rule_value.rule_content.is_some())
    }
}

/// Splits `mcp__server__tool` into `(server, Some(tool))`, or `mcp__server` into `(server, None)`.
pub(crate) fn parse_mcp_name(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    match rest.split_once("__") {
        Some((server, tool)) if !server.is_empty() => Some((server, Some(tool))),
        None if !rest.is_empty() => Some((rest, None)),
        _ => None,
    }
}

/// Whether a whole-tool rule (no content) matches a tool: the same name, or for MCP tools a server
/// rule `mcp__server` / `mcp__server__*` covering every tool of that server. Rules with content
/// never match here (they are the tool's own business).
///
/// Mirrors Claude Code's `toolMatchesRule`.
pub(crate) fn tool_matches_rule(tool: &dyn Tool, rule: &PermissionRuleValue) -> bool {
    if rule.rule_content.is_some() {
        return false;
    }
    if rule.tool_name == tool.name() {
        return true;
    }
    let (Some((rule_server, rule_tool)), Some((tool_server, Some(_)))) =
        (parse_mcp_name(&rule.tool_name), parse_mcp_name(tool.name()))
    else {
        return false;
    };
    rule_server == tool_server && matches!(rule_tool, None | Some("*"))
}

/// Why a permission decision was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionDecisionReason {
    /// A settings rule decided.
    Rule {
        /// The rule.
        rule: PermissionRule,
    },
    /// The permission mode decided.
    Mode {
        /// The mode.
        mode: PermissionMode,
    },
    /// A compound command's parts decided (Bash): each part and its reason.
    SubcommandResults {
        /// Sub-command → reason text.
        reasons: Vec<(String, String)>,
    },
    /// A hook decided.
    #[serde(rename_all = "camelCase")]
    Hook {
        /// The hook's name (its command).
        hook_name: String,
        /// The reason the hook gave.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A background agent cannot ask.
    AsyncAgent {
        /// Why.
        reason: String,
    },
    /// The path is outside the working directories.
    WorkingDir {
        /// Why.
        reason: String,
    },
    /// A safety check (e.g. writes to `.git/`) requires asking even in bypass mode.
    #[serde(rename_all = "camelCase")]
    SafetyCheck {
        /// Why.
        reason: String,
        /// Whether an automatic classifier may approve it.
        classifier_approvable: bool,
    },
    /// Anything else.
    Other {
        /// Why.
        reason: String,
    },
}

/// Where a permission update is saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionUpdateDestination {
    /// `~/.claude/settings.json`.
    UserSettings,
    /// `.claude/settings.json`.
    ProjectSettings,
    /// `.claude/settings.local.json`.
    LocalSettings,
    /// This session only.
    Session,
    /// Command-line arguments.
    CliArg,
}

/// A change to the permission state, offered as a suggestion with an "ask" or applied after one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionUpdate {
    /// Add rules.
    AddRules {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The rules.
        rules: Vec<PermissionRuleValue>,
        /// Their behaviour.
        behavior: PermissionBehavior,
    },
    /// Replace the rules of a behaviour.
    ReplaceRules {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The rules.
        rules: Vec<PermissionRuleValue>,
        /// Their behaviour.
        behavior: PermissionBehavior,
    },
    /// Remove rules.
    RemoveRules {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The rules.
        rules: Vec<PermissionRuleValue>,
        /// Their behaviour.
        behavior: PermissionBehavior,
    },
    /// Change the mode.
    SetMode {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The new mode.
        mode: PermissionMode,
    },
    /// Add working directories.
    AddDirectories {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The directories.
        directories: Vec<PathBuf>,
    },
    /// Remove working directories.
    RemoveDirectories {
        /// Where to save.
        destination: PermissionUpdateDestination,
        /// The directories.
        directories: Vec<PathBuf>,
    },
}

/// What `check_permissions` (and the permission pipeline) decides about one tool call.
///
/// Mirrors Claude Code's `PermissionResult`: `allow`, `ask`, `deny`, and `passthrough` ("no opinion";
/// the pipeline turns it into `ask` at the end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "camelCase")]
pub enum PermissionResult {
    /// Run the tool, with a replacement input if given.
    #[serde(rename_all = "camelCase")]
    Allow {
        /// A replacement for the model's input (it is parsed again, strictly).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision_reason: Option<PermissionDecisionReason>,
    },
    /// Ask the user.
    #[serde(rename_all = "camelCase")]
    Ask {
        /// What to show (and what the model sees if the answer is no).
        message: String,
        /// A replacement input, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision_reason: Option<PermissionDecisionReason>,
        /// Rule changes to offer.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        suggestions: Vec<PermissionUpdate>,
        /// The path that caused the question, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blocked_path: Option<String>,
    },
    /// Refuse, with a message for the model.
    #[serde(rename_all = "camelCase")]
    Deny {
        /// What the model sees.
        message: String,
        /// Why.
        decision_reason: PermissionDecisionReason,
    },
    /// No opinion; the pipeline decides (and asks if nothing allows).
    #[serde(rename_all = "camelCase")]
    Passthrough {
        /// What to show if it comes to asking.
        message: String,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision_reason: Option<PermissionDecisionReason>,
        /// Rule changes to offer.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        suggestions: Vec<PermissionUpdate>,
        /// The path that caused the question, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blocked_path: Option<String>,
    },
}

impl PermissionResult {
    /// Allow with the input unchanged.
    pub fn allow() -> Self {
        Self::Allow { updated_input: None, decision_reason: None }
    }

    /// Deny with a message and reason.
    pub fn deny(message: impl Into<String>, reason: PermissionDecisionReason) -> Self {
        Self::Deny { message: message.into(), decision_reason: reason }
    }

    /// Ask with a message.
    pub fn ask(message: impl Into<String>) -> Self {
        Self::Ask {
            message: message.into(),
            updated_input: None,
            decision_reason: None,
            suggestions: Vec::new(),
            blocked_path: None,
        }
    }

    /// Passthrough with a message.
    pub fn passthrough(message: impl Into<String>) -> Self {
        Self::Passthrough {
            message: message.into(),
            decision_reason: None,
            suggestions: Vec::new(),
            blocked_path: None,
        }
    }

    /// The behaviour name: `allow`, `ask`, `deny` or `passthrough`.
    pub fn behavior(&self) -> &'static str {
        match self {
            Self::Allow { .. } => "allow",
            Self::Ask { .. } => "ask",
            Self::Deny { .. } => "deny",
            Self::Passthrough { .. } => "passthrough",
        }
    }

    /// The message of an ask, deny or passthrough.
    pub fn message(&self) -> Option<&str> {
        match self {
            Self::Allow { .. } => None,
            Self::Ask { message, .. } | Self::Deny { message, .. } | Self::Passthrough { message, .. } => Some(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one splitter of `--allowedTools` and skills' `allowed-tools` (the settings crate's
    /// copy split on spaces only, the Skill tool's on any white space; Claude Code's
    /// `parseToolListFromCLI` splits on U+0020 only).
    #[test]
    fn rule_lists_split_like_parse_tool_list_from_cli() {
        let cases: &[(&str, &[&str])] = &[
            ("Read Write,Bash(git status, git diff)", &["Read", "Write", "Bash(git status, git diff)"]),
            ("Bash(git add:*), Write", &["Bash(git add:*)", "Write"]),
            ("  Read ,, Grep  ", &["Read", "Grep"]),
            ("", &[]),
            (" , ", &[]),
            // Only a space separates: a tab or a line break stays inside the rule (trimmed at its ends).
            ("Read\tGrep", &["Read\tGrep"]),
            ("Read\nGrep\n", &["Read\nGrep"]),
            ("\tRead Grep\t", &["Read", "Grep"]),
            // Parentheses nest; a stray `)` stays at the top level.
            ("Bash(f(x) y),Read", &["Bash(f(x) y)", "Read"]),
            ("a) b", &["a)", "b"]),
            (r"Bash(echo \(a b\)) Read", &[r"Bash(echo \(a b\))", "Read"]),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_rule_list(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn parses_rule_strings_like_claude_code() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("Bash", "Bash", None),
            ("Bash()", "Bash", None),
            ("Bash(*)", "Bash", None),
            ("Bash(npm run test:*)", "Bash", Some("npm run test:*")),
            ("Bash(git status, git diff)", "Bash", Some("git status, git diff")),
            ("Read(./src/**)", "Read", Some("./src/**")),
            ("WebFetch(domain:example.com)", "WebFetch", Some("domain:example.com")),
            (r"Bash(echo \(hi\))", "Bash", Some("echo (hi)")),
            (r"Bash(a\\b)", "Bash", Some(r"a\b")),
            ("(foo)", "(foo)", None),
            ("Bash(x) trailing", "Bash(x) trailing", None),
            ("Task", "Agent", None),
            ("KillShell", "TaskStop", None),
            ("BashOutputTool", "TaskOutput", None),
            ("Task(Explore)", "Agent", Some("Explore")),
            ("mcp__github__create_issue", "mcp__github__create_issue", None),
        ];
        for (text, tool, content) in cases {
            let rule = PermissionRuleValue::parse(text);
            assert_eq!(rule.tool_name, *tool, "tool of {text}");
            assert_eq!(rule.rule_content.as_deref(), *content, "content of {text}");
        }
    }

    #[test]
    fn rule_display_escapes_and_round_trips() {
        let rule = PermissionRuleValue { tool_name: "Bash".into(), rule_content: Some(r"echo (a)\b".into()) };
        let text = rule.to_string();
        assert_eq!(text, r"Bash(echo \(a\)\\b)");
        assert_eq!(PermissionRuleValue::parse(&text), rule);
        assert_eq!(PermissionRuleValue::tool("Read").to_string(), "Read");
    }

    #[test]
    fn mcp_names_split_into_server_and_tool() {
        assert_eq!(parse_mcp_name("mcp__github__create_issue"), Some(("github", Some("create_issue"))));
        assert_eq!(parse_mcp_name("mcp__github"), Some(("github", None)));
        assert_eq!(parse_mcp_name("mcp__github__*"), Some(("github", Some("*"))));
        assert_eq!(parse_mcp_name("Bash"), None);
        assert_eq!(parse_mcp_name("mcp__"), None);
    }

    #[test]
    fn permission_modes_round_trip_their_settings_names() {
        for name in ["default", "acceptEdits", "bypassPermissions", "dontAsk", "plan", "auto"] {
            assert_eq!(PermissionMode::parse(name).map(PermissionMode::as_str), Some(name));
        }
        assert_eq!(PermissionMode::parse("Auto"), None);
        assert_eq!(PermissionMode::parse("bubble"), None);
    }

    const MODES: [PermissionMode; 6] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::BypassPermissions,
        PermissionMode::DontAsk,
        PermissionMode::Plan,
        PermissionMode::Auto,
    ];

    /// The whole table of [`subagent_permission_mode`]: each caller mode, each asked mode (and
    /// none), with what the sub-agent runs in.
    #[test]
    fn subagent_modes_only_narrow_the_callers() {
        use PermissionMode::{AcceptEdits, Auto, BypassPermissions as Bypass, Default, DontAsk, Plan};
        // (caller, [asked none, default, acceptEdits, bypass, dontAsk, plan, auto]).
        let table: [(PermissionMode, [PermissionMode; 7]); 6] = [
            (Default, [Default, Default, Default, Default, DontAsk, Plan, Default]),
            (AcceptEdits, [AcceptEdits; 7]),
            (Bypass, [Bypass; 7]),
            (DontAsk, [DontAsk; 7]),
            (Plan, [Plan; 7]),
            (Auto, [Auto; 7]),
        ];
        for (caller, expected) in table {
            let asked = std::iter::once(None).chain(MODES.into_iter().map(Some));
            for (asked, want) in asked.zip(expected) {
                let got = subagent_permission_mode(caller, asked);
                assert_eq!(got, want, "caller {caller}, asked {asked:?}");
                // Never wider than the caller; bypass only where the caller had it.
                assert!(got.is_at_most(caller), "caller {caller}, asked {asked:?}: {got}");
                assert!(got != Bypass || caller == Bypass);
                // Applying it again changes nothing (the tools choose, `Session::fork` re-applies).
                assert_eq!(subagent_permission_mode(caller, Some(got)), got);
            }
        }
    }

    #[test]
    fn the_mode_order_is_the_documented_partial_order() {
        use PermissionMode::{AcceptEdits, Auto, BypassPermissions as Bypass, Default, DontAsk, Plan};
        let below: &[(PermissionMode, &[PermissionMode])] = &[
            (Plan, &[Plan, Default, AcceptEdits, Auto, Bypass]),
            (DontAsk, &[DontAsk, Default, AcceptEdits, Auto, Bypass]),
            (Default, &[Default, AcceptEdits, Auto, Bypass]),
            (AcceptEdits, &[AcceptEdits, Bypass]),
            (Auto, &[Auto, Bypass]),
            (Bypass, &[Bypass]),
        ];
        for (mode, wider) in below {
            for other in MODES {
                assert_eq!(mode.is_at_most(other), wider.contains(&other), "{mode} <= {other}");
            }
        }
    }

    #[test]
    fn restrictions_come_from_content_entries_and_only_accumulate() {
        let limits =
            tool_restrictions(&["Bash(git diff:*)", "Read", "Task(Explore)", " Bash(git log:*) ", "Bash(git diff:*)"]);
        assert_eq!(
            limits,
            [
                ToolRestriction {
                    tool_name: "Bash".into(),
                    rule_contents: vec!["git diff:*".into(), "git log:*".into()]
                },
                ToolRestriction { tool_name: "Agent".into(), rule_contents: vec!["Explore".into()] },
            ]
        );
        // A whole-tool entry lifts the limit; `Tool(*)` is the whole tool.
        assert!(tool_restrictions(&["Bash(git diff:*)", "Bash(*)"]).is_empty());
        assert!(tool_restrictions::<&str>(&[]).is_empty());

        let mut ctx = ToolPermissionContext::default().with_restrictions(limits.clone());
        ctx.add_restrictions(limits);
        assert_eq!(ctx.tool_restrictions.len(), 2, "the same restriction is not added twice");
        let caller = ToolPermissionContext {
            mode: PermissionMode::Plan,
            tool_restrictions: vec![ToolRestriction {
                tool_name: "Bash".into(),
                rule_contents: vec!["git diff".into()],
            }],
            ..ToolPermissionContext::default()
        };
        ctx.mode = PermissionMode::BypassPermissions;
        ctx.narrow_to(&caller);
        assert_eq!(ctx.mode, PermissionMode::Plan);
        assert_eq!(ctx.tool_restrictions.len(), 3);
        assert_eq!(ctx.tool_restrictions[2].rules_text(), "Bash(git diff)");
    }

    #[test]
    fn context_lists_rules_in_source_order() {
        let ctx = ToolPermissionContext::default()
            .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Grep")
            .with_rule(PermissionBehavior::Deny, PermissionRuleSource::UserSettings, "Bash(rm:*)");
        let rules: Vec<_> = ctx.rules(PermissionBehavior::Deny).collect();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].source, PermissionRuleSource::UserSettings);
        assert_eq!(rules[0].rule_value.rule_content.as_deref(), Some("rm:*"));
        assert_eq!(rules[1].rule_value.tool_name, "Grep");
        assert_eq!(ctx.content_rules("Bash", PermissionBehavior::Deny).count(), 1);
        assert_eq!(ctx.content_rules("Grep", PermissionBehavior::Deny).count(), 0);
    }
}
