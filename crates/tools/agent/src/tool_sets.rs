//! Which of the caller's tools a sub-agent keeps (Claude Code's `src/constants/tools.ts` and
//! `filterToolsForAgent` / `resolveAgentTools`).
//!
//! [`tools_for_agent`] takes the names and [`Capabilities`] of the caller's tool pool, in order,
//! and returns the names the sub-agent gets, in the same order. Claude Code's name lists are the
//! tools' own [`AgentScope`](agent_tools_core::AgentScope)s: `ALL_AGENT_DISALLOWED_TOOLS` is [`AgentScope::MainConversation`](agent_tools_core::AgentScope::MainConversation),
//! `ASYNC_AGENT_ALLOWED_TOOLS` is [`AgentScope::Everywhere`](agent_tools_core::AgentScope::Everywhere), `IN_PROCESS_TEAMMATE_ALLOWED_TOOLS`
//! adds [`AgentScope::Team`](agent_tools_core::AgentScope::Team), and `COORDINATOR_MODE_ALLOWED_TOOLS` is
//! [`Capabilities::dispatch`]. Two deliberate differences from Claude Code's public builds, both
//! following Claude Code 2.1.332 (whose sub-agents, background ones included, were recorded with
//! `Agent` in their tool list):
//!
//! - `Agent` is not main-conversation only: a sub-agent may launch sub-agents of its own, to a
//!   bounded depth — the caller passes `allow_agent: false` at the limit;
//! - `Agent`'s scope is [`AgentScope::Everywhere`](agent_tools_core::AgentScope::Everywhere), so background agents may nest too.
//!
//! `StructuredOutput` is never inherited: it belongs to the session that asked for structured
//! output. A sub-agent whose definition has an `output_schema` gets a `StructuredOutput` of its
//! own, for that schema, from the Agent tool.
//!
//! ```
//! use agent_tool_agent::definitions::built_in;
//! use agent_tool_agent::tool_sets::{ToolSetOptions, tools_for_agent};
//! use agent_tools_core::{AgentScope, Capabilities, ToolKind};
//! let work = |kind| Capabilities::new(kind).scope(AgentScope::Everywhere);
//! let pool = [
//!     ("Agent", Capabilities::new(ToolKind::Agent).scope(AgentScope::Everywhere).dispatch()),
//!     ("AskUserQuestion", Capabilities::new(ToolKind::Think).scope(AgentScope::MainConversation)),
//!     ("Bash", work(ToolKind::Execute).shell()),
//!     ("Edit", work(ToolKind::Edit)),
//!     ("Grep", work(ToolKind::Search)),
//!     ("Read", work(ToolKind::Read)),
//!     ("mcp__db__query", Capabilities::DEFAULT),
//! ];
//! let explore = &built_in()[1];
//! assert_eq!(tools_for_agent(&pool, explore, &ToolSetOptions::default()), ["Bash", "Grep", "Read", "mcp__db__query"]);
//! ```

use std::collections::HashSet;

use agent_tools_core::Capabilities;
use agent_tools_core::{PermissionRuleValue, ToolRestriction, tool_restrictions};

use crate::definitions::AgentDefinition;

/// The Agent tool's name.
pub const AGENT: &str = "Agent";
/// ExitPlanMode's name.
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";
/// StructuredOutput's name.
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";
/// The prefix of MCP tools' names.
pub const MCP_PREFIX: &str = "mcp__";

/// How the sub-agent runs, for [`tools_for_agent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSetOptions {
    /// It runs in the background (keeps only the tools of [`AgentScope::Everywhere`](agent_tools_core::AgentScope::Everywhere)).
    pub background: bool,
    /// It runs in coordinator mode (keeps only the tools [`Capabilities::dispatch`] marks).
    pub coordinator: bool,
    /// It is an in-process teammate (in the background, also keeps the tools of
    /// [`AgentScope::Team`](agent_tools_core::AgentScope::Team)).
    pub teammate: bool,
    /// It runs in plan mode (keeps `ExitPlanMode`, to leave it).
    pub plan_mode: bool,
    /// It may launch sub-agents: `false` at the nesting limit (drops `Agent`).
    pub allow_agent: bool,
}

impl Default for ToolSetOptions {
    /// A foreground sub-agent below the nesting limit: everything `false` but `allow_agent`.
    fn default() -> Self {
        Self { background: false, coordinator: false, teammate: false, plan_mode: false, allow_agent: true }
    }
}

/// The tool a definition's `tools` or `disallowedTools` entry names: the name before any
/// `(…)` (`Bash(git:*)` → `Bash`), legacy names normalised (`Task` → `Agent`), as Claude Code
/// reads them with `permissionRuleValueFromString`.
pub fn entry_tool_name(entry: &str) -> String {
    PermissionRuleValue::parse(entry.trim()).tool_name
}

/// The names in `pool` (in order) that a sub-agent of definition `def` gets. Applied in turn:
///
/// 1. `StructuredOutput` is dropped (never inherited; see the module docs).
/// 2. In coordinator mode only the tools [`Capabilities::dispatch`] marks stay — MCP tools are
///    dropped too, since a coordinator delegates rather than works — and steps 4–7 do not
///    apply (step 3 still does).
/// 3. `Agent` is dropped unless `allow_agent`.
/// 4. MCP tools (`mcp__…`) stay, whatever steps 5–7 say.
/// 5. `ExitPlanMode` stays in plan mode.
/// 6. Tools of [`AgentScope::MainConversation`](agent_tools_core::AgentScope::MainConversation) are dropped (for built-in and custom agents
///    alike).
/// 7. In the background only tools of [`AgentScope::Everywhere`](agent_tools_core::AgentScope::Everywhere) stay, and for a teammate those
///    of [`AgentScope::Team`](agent_tools_core::AgentScope::Team) too.
/// 8. The definition's `tools`, when set, keeps only the tools it names; then its
///    `disallowed_tools` drops the tools they name (MCP tools included). Entries are matched by
///    tool name ([`entry_tool_name`]): `Bash(git:*)` in `tools` keeps the Bash tool — limited to
///    that rule by [`restrictions_for_agent`] — and in `disallowed_tools` drops the whole tool
///    (narrower than the rule; Claude Code's sub-agent tool lists hold whole tools).
pub fn tools_for_agent(pool: &[(&str, Capabilities)], def: &AgentDefinition, options: &ToolSetOptions) -> Vec<String> {
    let allowed: Option<HashSet<String>> =
        def.tools.as_ref().map(|tools| tools.iter().map(|entry| entry_tool_name(entry)).collect());
    let denied: HashSet<String> = def.disallowed_tools.iter().map(|entry| entry_tool_name(entry)).collect();
    pool.iter()
        .filter(|(name, capabilities)| inherited(name, *capabilities, options))
        .map(|(name, _)| *name)
        .filter(|name| allowed.as_ref().is_none_or(|allowed| allowed.contains(*name)))
        .filter(|name| !denied.contains(*name))
        .map(str::to_owned)
        .collect()
}

/// The limits a definition's `tools` puts on the tools it keeps: each tool named there only
/// with rule content (`Bash(git diff:*)`, `Read(src/**)`, `Agent(Explore)`) may be used only as
/// one of those rules covers (see [`ToolRestriction`]); a tool also named whole (`Bash`) is not
/// limited. Empty when `tools` is absent. The Agent tool puts them in the sub-agent's request,
/// where they join the caller's own (a nested agent only narrows), and the host enforces them
/// in every mode.
///
/// Claude Code reads the same syntax but keeps only the tool's name (except for `Agent(…)`,
/// the agent types it may start), so its `tools: Bash(git diff:*)` agent can run any command;
/// here the rule holds.
///
/// ```
/// use agent_tool_agent::definitions::built_in;
/// use agent_tool_agent::tool_sets::restrictions_for_agent;
/// let mut def = built_in().remove(0);
/// def.tools = Some(vec!["Read".into(), "Bash(git diff:*)".into()]);
/// let limits = restrictions_for_agent(&def);
/// assert_eq!(limits.len(), 1);
/// assert_eq!(limits[0].rules_text(), "Bash(git diff:*)");
/// ```
pub fn restrictions_for_agent(def: &AgentDefinition) -> Vec<ToolRestriction> {
    def.tools.as_deref().map(tool_restrictions).unwrap_or_default()
}

/// Steps 1–7 of [`tools_for_agent`] (a custom agent loses what a built-in one does: Claude
/// Code's custom set equals its general one).
fn inherited(name: &str, capabilities: Capabilities, options: &ToolSetOptions) -> bool {
    if name == STRUCTURED_OUTPUT {
        return false;
    }
    if name == AGENT && !options.allow_agent {
        return false;
    }
    if options.coordinator {
        return capabilities.dispatch;
    }
    if name.starts_with(MCP_PREFIX) {
        return true;
    }
    if name == EXIT_PLAN_MODE && options.plan_mode {
        return true;
    }
    let scope = capabilities.scope;
    if options.background {
        return scope.in_background() || (options.teammate && scope.in_teammates());
    }
    scope.in_subagents()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definitions::{AgentSource, built_in};
    use agent_tools_core::AgentScope;

    const POOL: &[&str] = &[
        "Agent",
        "AskUserQuestion",
        "Bash",
        "Edit",
        "EnterPlanMode",
        "ExitPlanMode",
        "Glob",
        "Grep",
        "Read",
        "Skill",
        "StructuredOutput",
        "TaskOutput",
        "TaskStop",
        "ToolSearch",
        "WebFetch",
        "Write",
        "mcp__srv__echo",
    ];

    /// The capabilities the real tools declare (the host's tests check the real pool; this
    /// crate cannot depend on the other tool crates).
    fn with_capabilities<'a>(names: &[&'a str]) -> Vec<(&'a str, Capabilities)> {
        use agent_tools_core::ToolKind;
        let scope = |name: &str| match name {
            "AskUserQuestion" | "EnterPlanMode" | "ExitPlanMode" | "TaskOutput" | "TaskStop" => {
                AgentScope::MainConversation
            }
            "TaskCreate" | "SendMessage" | "CronList" => AgentScope::Team,
            "LSP" => AgentScope::Foreground,
            _ => AgentScope::Everywhere,
        };
        names
            .iter()
            .map(|name| {
                let mut capabilities = Capabilities::new(ToolKind::Other).scope(scope(name));
                if matches!(*name, "Agent" | "TaskStop" | "SendMessage" | "StructuredOutput") {
                    capabilities = capabilities.dispatch();
                }
                if name.starts_with(MCP_PREFIX) {
                    capabilities = Capabilities::DEFAULT;
                }
                (*name, capabilities)
            })
            .collect()
    }

    fn general() -> AgentDefinition {
        built_in().remove(0)
    }

    fn custom(tools: Option<&[&str]>, disallowed: &[&str]) -> AgentDefinition {
        AgentDefinition {
            agent_type: "custom".into(),
            tools: tools.map(|tools| tools.iter().map(|tool| (*tool).to_owned()).collect()),
            disallowed_tools: disallowed.iter().map(|tool| (*tool).to_owned()).collect(),
            source: AgentSource::Project("/p/.claude/agents/custom.md".into()),
            ..general()
        }
    }

    fn run(def: &AgentDefinition, options: ToolSetOptions) -> Vec<String> {
        tools_for_agent(&with_capabilities(POOL), def, &options)
    }

    const FOREGROUND: &[&str] = &[
        "Agent",
        "Bash",
        "Edit",
        "Glob",
        "Grep",
        "Read",
        "Skill",
        "ToolSearch",
        "WebFetch",
        "Write",
        "mcp__srv__echo",
    ];

    #[test]
    fn a_foreground_agent_loses_the_session_tools_and_structured_output() {
        assert_eq!(run(&general(), ToolSetOptions::default()), FOREGROUND);
        // The same for an agent from a file (the custom set is the same set).
        assert_eq!(run(&custom(None, &[]), ToolSetOptions::default()), FOREGROUND);
    }

    #[test]
    fn plan_mode_keeps_exit_plan_mode() {
        let options = ToolSetOptions { plan_mode: true, ..ToolSetOptions::default() };
        let tools = run(&general(), options);
        assert!(tools.iter().any(|tool| tool == "ExitPlanMode"));
        assert!(!tools.iter().any(|tool| tool == "EnterPlanMode"));
        assert_eq!(tools.len(), FOREGROUND.len() + 1);
    }

    #[test]
    fn the_depth_limit_drops_agent() {
        let options = ToolSetOptions { allow_agent: false, ..ToolSetOptions::default() };
        assert_eq!(run(&general(), options), FOREGROUND[1..]);
    }

    #[test]
    fn background_agents_keep_the_async_set_and_mcp() {
        let options = ToolSetOptions { background: true, ..ToolSetOptions::default() };
        // Everything the foreground gets is in the async set here, Agent included.
        assert_eq!(run(&general(), options), FOREGROUND);
        let names = ["Agent", "Bash", "TaskCreate", "SendMessage", "CronList", "LSP", "mcp__srv__echo"];
        let pool = with_capabilities(&names);
        assert_eq!(tools_for_agent(&pool, &general(), &options), ["Agent", "Bash", "mcp__srv__echo"]);
        let teammate = ToolSetOptions { teammate: true, ..options };
        assert_eq!(
            tools_for_agent(&pool, &general(), &teammate),
            ["Agent", "Bash", "TaskCreate", "SendMessage", "CronList", "mcp__srv__echo"]
        );
        // A foreground teammate is not limited.
        let foreground_teammate = ToolSetOptions { teammate: true, ..ToolSetOptions::default() };
        assert_eq!(tools_for_agent(&pool, &general(), &foreground_teammate), names);
    }

    #[test]
    fn coordinators_keep_only_the_coordinator_set() {
        let options = ToolSetOptions { coordinator: true, ..ToolSetOptions::default() };
        assert_eq!(run(&general(), options), ["Agent", "TaskStop"]);
        let limited = ToolSetOptions { allow_agent: false, ..options };
        assert_eq!(run(&general(), limited), ["TaskStop"]);
    }

    #[test]
    fn the_allow_list_keeps_only_named_tools_and_reads_rules_as_names() {
        let def = custom(Some(&["Read", "Bash(git:*)", "Task", "AskUserQuestion", "NoSuchTool"]), &[]);
        // Task is Agent's old name; AskUserQuestion stays removed.
        assert_eq!(run(&def, ToolSetOptions::default()), ["Agent", "Bash", "Read"]);
        // MCP tools too must be named when there is an allow-list.
        let def = custom(Some(&["Read", "mcp__srv__echo"]), &[]);
        assert_eq!(run(&def, ToolSetOptions::default()), ["Read", "mcp__srv__echo"]);
        assert_eq!(run(&custom(Some(&[]), &[]), ToolSetOptions::default()), Vec::<String>::new());
    }

    #[test]
    fn the_deny_list_removes_whole_tools_mcp_included() {
        let def = custom(None, &["Bash(rm:*)", "mcp__srv__echo", " Write "]);
        assert_eq!(
            run(&def, ToolSetOptions::default()),
            ["Agent", "Edit", "Glob", "Grep", "Read", "Skill", "ToolSearch", "WebFetch"]
        );
        let def = custom(Some(&["Read", "Grep"]), &["Grep"]);
        assert_eq!(run(&def, ToolSetOptions::default()), ["Read"]);
    }

    #[test]
    fn explore_and_plan_are_read_only() {
        let defs = built_in();
        let read_only = ["Bash", "Glob", "Grep", "Read", "Skill", "ToolSearch", "WebFetch", "mcp__srv__echo"];
        assert_eq!(run(&defs[1], ToolSetOptions::default()), read_only);
        assert_eq!(run(&defs[2], ToolSetOptions::default()), read_only);
        // Their own ExitPlanMode ban wins over plan mode.
        assert_eq!(run(&defs[2], ToolSetOptions { plan_mode: true, ..ToolSetOptions::default() }), read_only);
    }

    #[test]
    fn content_entries_in_tools_become_restrictions() {
        let def = custom(Some(&["Read", "Bash(git diff:*)", "Bash(git log:*)", "Edit(docs/**)", "Edit"]), &[]);
        // The tools are kept whole …
        assert_eq!(run(&def, ToolSetOptions::default()), ["Bash", "Edit", "Read"]);
        // … and Bash (named only with rules) is limited to them; Edit, also named whole, is not.
        let limits = restrictions_for_agent(&def);
        assert_eq!(limits.len(), 1);
        assert_eq!(limits[0].tool_name, "Bash");
        assert_eq!(limits[0].rule_contents, ["git diff:*", "git log:*"]);
        assert!(restrictions_for_agent(&custom(None, &["Bash(rm:*)"])).is_empty());
        assert!(restrictions_for_agent(&general()).is_empty());
    }

    #[test]
    fn entry_names() {
        assert_eq!(entry_tool_name("Bash(git diff:*)"), "Bash");
        assert_eq!(entry_tool_name(" Read "), "Read");
        assert_eq!(entry_tool_name("Task"), "Agent");
        assert_eq!(entry_tool_name("mcp__srv__echo"), "mcp__srv__echo");
    }
}
