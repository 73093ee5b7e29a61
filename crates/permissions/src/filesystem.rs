//! The read and write checks file tools run in `check_permissions`.
//!
//! Mirrors Claude Code's `checkReadPermissionForTool` and `checkWritePermissionForTool`:
//! `Read(…)` rules govern the reading tools (Read, Glob, Grep …) and `Edit(…)` rules the writing
//! ones (Edit, Write, NotebookEdit); an `Edit` allow implies read access.

use std::path::{Path, PathBuf};

use agent_tools_core::ToolUseContext;
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionResult, PermissionRule,
    PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination,
};

use crate::links::{LinkVerdict, linked_denial};
use crate::messages;
use crate::paths::{candidates, is_inside_working_directories, rule_covers, safety_concern};

/// The tool name whose content rules govern reading (`Read(…)`).
pub const READ_RULES: &str = "Read";
/// The tool name whose content rules govern writing (`Edit(…)`).
pub const EDIT_RULES: &str = "Edit";

/// The first `family(…)` content rule of `behavior` that covers `path`.
pub fn matching_rule(
    family: &str,
    behavior: PermissionBehavior,
    path: &Path,
    ctx: &ToolUseContext,
) -> Option<PermissionRule> {
    ctx.permission_context.content_rules(family, behavior).find(|rule| rule_covers(rule, path, ctx))
}

/// The `family(…)` deny rule that refuses `path`: one covering the path itself, or — for a
/// file with several hard links — one covering another name of the same file. `Err(())` when
/// the file has other names that could not all be checked ([`LinkVerdict::Unknown`]).
fn denying_rule(family: &str, path: &Path, ctx: &ToolUseContext) -> Result<Option<PermissionRule>, ()> {
    Ok(denial(family, path, ctx)?.map(|(rule, _)| rule))
}

/// [`denying_rule`], and whether the rule reaches `path` only through a link: a symbolic link on
/// the way, or another hard link to the same file (the path as written is not what it names).
fn denial(family: &str, path: &Path, ctx: &ToolUseContext) -> Result<Option<(PermissionRule, bool)>, ()> {
    if let Some(rule) = matching_rule(family, PermissionBehavior::Deny, path, ctx) {
        let given = agent_tools_core::path::normalize(path);
        let as_written = crate::paths::CompiledRule::compile(rule.clone(), ctx)
            .is_none_or(|compiled| compiled.covers_spelling(&given, given.is_dir(), true));
        return Ok(Some((rule, !as_written)));
    }
    match linked_denial(family, path, ctx) {
        LinkVerdict::Clear => Ok(None),
        LinkVerdict::Denied(rule) => Ok(Some((rule, true))),
        LinkVerdict::Unknown => Err(()),
    }
}

/// Whether a `Read(…)` deny rule covers `path`, or another hard link to the same file (Read
/// refuses such a file in `validate_input`; Glob and Grep leave such files out).
pub fn is_read_denied(path: &Path, ctx: &ToolUseContext) -> bool {
    matches!(denying_rule(READ_RULES, path, ctx), Ok(Some(_)))
}

/// The refusal text for reading `path` when a `Read(…)` deny rule covers it (Claude Code's
/// text), or covers what it links to (ours); `None` when no deny rule does.
pub fn read_denied_message(path: &Path, ctx: &ToolUseContext) -> Option<&'static str> {
    match denial(READ_RULES, path, ctx) {
        Ok(Some((_, true))) => Some(messages::LINK_DENIED),
        Ok(Some((_, false))) => Some(messages::READ_DENIED),
        _ => None,
    }
}

/// The refusal text for changing `path` when an `Edit(…)` deny rule covers it, or what it links
/// to; `None` when no deny rule does.
pub fn edit_denied_message(path: &Path, ctx: &ToolUseContext) -> Option<&'static str> {
    match denial(EDIT_RULES, path, ctx) {
        Ok(Some((_, true))) => Some(messages::LINK_DENIED),
        Ok(Some((_, false))) => Some(messages::EDIT_DENIED),
        _ => None,
    }
}

/// Whether an `Edit(…)` deny rule covers `path`, or another hard link to the same file.
pub fn is_edit_denied(path: &Path, ctx: &ToolUseContext) -> bool {
    matches!(denying_rule(EDIT_RULES, path, ctx), Ok(Some(_)))
}

/// The question for a multiply-linked file whose other names could not all be checked against
/// the deny rules; asked even in bypass mode (a deny rule may stand behind it).
fn unknown_links(path: &Path, write: bool) -> PermissionResult {
    let message = if write { messages::write_needs_approval(path) } else { messages::read_needs_approval(path) };
    PermissionResult::Ask {
        message,
        updated_input: None,
        decision_reason: Some(PermissionDecisionReason::SafetyCheck {
            reason: messages::unknown_links(path),
            classifier_approvable: false,
        }),
        suggestions: Vec::new(),
        blocked_path: Some(path.display().to_string()),
    }
}

fn rule_reason(rule: PermissionRule) -> Option<PermissionDecisionReason> {
    Some(PermissionDecisionReason::Rule { rule })
}

/// A session rule allowing `family` under `dir`, offered with an "ask".
fn directory_suggestion(family: &str, dir: &Path) -> PermissionUpdate {
    PermissionUpdate::AddRules {
        destination: PermissionUpdateDestination::Session,
        rules: vec![PermissionRuleValue {
            tool_name: family.to_owned(),
            rule_content: Some(format!("/{}/**", dir.display())),
        }],
        behavior: PermissionBehavior::Allow,
    }
}

/// The folders under the session's folder that hold files the session saved for the model to
/// read: oversized results (`tool-results`) and background tasks' output (`tasks`).
pub const SESSION_OUTPUT_FOLDERS: &[&str] = &["tool-results", "tasks"];

/// Whether `path` is a file this session saved for the model to read (inside one of
/// [`SESSION_OUTPUT_FOLDERS`] of `ctx.options.session_dir`, however it is spelled or linked).
/// Claude Code lets its tools read its own session folders the same way
/// (`checkReadableInternalPath`): the results tell the model to Read those files.
pub fn is_session_output(path: &Path, ctx: &ToolUseContext) -> bool {
    let Some(session) = &ctx.options.session_dir else { return false };
    let folders: Vec<PathBuf> = SESSION_OUTPUT_FOLDERS.iter().map(|folder| session.join(folder)).collect();
    crate::paths::lies_within(path, &folders)
}

/// Whether `path` is the caller's plan file — the one EnterPlanMode or ExitPlanMode named for this
/// session ([`agent_tools_plan::current_plan_file`]), however it is spelled or linked. Before a
/// plan tool has named one, no path is. Claude Code treats the current session's plan file as an
/// internal path: readable, and writable without asking, plan mode included
/// (`checkEditableInternalPath` / `checkReadableInternalPath`).
pub fn is_session_plan_file(path: &Path, ctx: &ToolUseContext) -> bool {
    let Some(plan) = agent_tools_plan::current_plan_file(ctx) else { return false };
    let plans = candidates(&plan);
    candidates(path).iter().all(|spelling| plans.contains(spelling))
}

/// May a reading tool read `path`? Deny rules (on the path, and on the other names of a
/// hard-linked file) and ask rules first, then the session's own output files and plan file, an
/// `Edit` allow, the working directories, then `Read` allow rules; anything else asks.
pub fn check_read_permission(path: &Path, ctx: &ToolUseContext) -> PermissionResult {
    match denial(READ_RULES, path, ctx) {
        Ok(Some((rule, through_link))) => {
            let message = if through_link { messages::LINK_DENIED } else { messages::READ_DENIED };
            return PermissionResult::Deny {
                message: message.to_owned(),
                decision_reason: PermissionDecisionReason::Rule { rule },
            };
        }
        Err(()) => return unknown_links(path, false),
        Ok(None) => {}
    }
    if let Some(rule) = matching_rule(READ_RULES, PermissionBehavior::Ask, path, ctx) {
        return PermissionResult::Ask {
            message: messages::read_needs_approval(path),
            updated_input: None,
            decision_reason: rule_reason(rule),
            suggestions: Vec::new(),
            blocked_path: Some(path.display().to_string()),
        };
    }
    if is_session_output(path, ctx) || is_session_plan_file(path, ctx) {
        return PermissionResult::allow();
    }
    if let Some(rule) = matching_rule(EDIT_RULES, PermissionBehavior::Allow, path, ctx) {
        return PermissionResult::Allow { updated_input: None, decision_reason: rule_reason(rule) };
    }
    if is_inside_working_directories(path, ctx) {
        return PermissionResult::allow();
    }
    if let Some(rule) = matching_rule(READ_RULES, PermissionBehavior::Allow, path, ctx) {
        return PermissionResult::Allow { updated_input: None, decision_reason: rule_reason(rule) };
    }
    let folder = if path.is_dir() { path } else { path.parent().unwrap_or(path) };
    PermissionResult::Passthrough {
        message: messages::read_needs_approval(path),
        decision_reason: Some(PermissionDecisionReason::WorkingDir {
            reason: messages::outside_working_directories(path),
        }),
        suggestions: vec![directory_suggestion(READ_RULES, folder)],
        blocked_path: Some(path.display().to_string()),
    }
}

/// May a writing tool change `path`? Deny rules, the session's plan file (allowed, in plan mode
/// too: it is where the plan is written), plan mode (refused), the safety check (which survives
/// bypass mode), ask rules, `acceptEdits` inside the working directories, allow rules; anything
/// else asks.
pub fn check_write_permission(path: &Path, ctx: &ToolUseContext) -> PermissionResult {
    let permissions = &ctx.permission_context;
    match denial(EDIT_RULES, path, ctx) {
        Ok(Some((rule, through_link))) => {
            let message = if through_link { messages::LINK_DENIED } else { messages::EDIT_DENIED };
            return PermissionResult::Deny {
                message: message.to_owned(),
                decision_reason: PermissionDecisionReason::Rule { rule },
            };
        }
        Err(()) => return unknown_links(path, true),
        Ok(None) => {}
    }
    if is_session_plan_file(path, ctx) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Other { reason: "the session's plan file".into() }),
        };
    }
    if permissions.mode == PermissionMode::Plan {
        return PermissionResult::Deny {
            message: messages::plan_mode_write(path),
            decision_reason: PermissionDecisionReason::Mode { mode: PermissionMode::Plan },
        };
    }
    if let Some(reason) = safety_concern(path) {
        return PermissionResult::Ask {
            message: messages::write_needs_approval(path),
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::SafetyCheck { reason, classifier_approvable: false }),
            suggestions: Vec::new(),
            blocked_path: Some(path.display().to_string()),
        };
    }
    if let Some(rule) = matching_rule(EDIT_RULES, PermissionBehavior::Ask, path, ctx) {
        return PermissionResult::Ask {
            message: messages::write_needs_approval(path),
            updated_input: None,
            decision_reason: rule_reason(rule),
            suggestions: Vec::new(),
            blocked_path: Some(path.display().to_string()),
        };
    }
    let inside = is_inside_working_directories(path, ctx);
    if permissions.mode == PermissionMode::AcceptEdits && inside {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Mode { mode: PermissionMode::AcceptEdits }),
        };
    }
    if let Some(rule) = matching_rule(EDIT_RULES, PermissionBehavior::Allow, path, ctx) {
        return PermissionResult::Allow { updated_input: None, decision_reason: rule_reason(rule) };
    }
    let mut suggestions = vec![PermissionUpdate::SetMode {
        destination: PermissionUpdateDestination::Session,
        mode: PermissionMode::AcceptEdits,
    }];
    if !inside {
        let folder = path.parent().unwrap_or(path).to_path_buf();
        suggestions.push(PermissionUpdate::AddDirectories {
            destination: PermissionUpdateDestination::Session,
            directories: vec![folder],
        });
    }
    PermissionResult::Passthrough {
        message: messages::write_needs_approval(path),
        decision_reason: (!inside)
            .then(|| PermissionDecisionReason::WorkingDir { reason: messages::outside_working_directories(path) }),
        suggestions,
        blocked_path: Some(path.display().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::{PermissionRuleSource, ToolPermissionContext};
    use std::path::PathBuf;
    use std::sync::Arc;

    fn ctx(mode: PermissionMode, rules: &[(PermissionBehavior, &str)]) -> ToolUseContext {
        let mut permissions = ToolPermissionContext { mode, ..Default::default() };
        for (behavior, rule) in rules {
            permissions = permissions.with_rule(*behavior, PermissionRuleSource::Session, *rule);
        }
        let mut ctx = ToolUseContext::new("/proj");
        ctx.permission_context = Arc::new(permissions);
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        ctx
    }

    fn behavior(result: &PermissionResult) -> &'static str {
        result.behavior()
    }

    #[test]
    fn reads_inside_the_project_are_allowed_outside_ask_and_denied_files_deny() {
        let c = ctx(PermissionMode::Default, &[(PermissionBehavior::Deny, "Read(./secret.txt)")]);
        assert_eq!(behavior(&check_read_permission(Path::new("/proj/a.txt"), &c)), "allow");
        assert_eq!(behavior(&check_read_permission(Path::new("/etc/hosts"), &c)), "passthrough");
        let denied = check_read_permission(Path::new("/proj/secret.txt"), &c);
        assert_eq!(denied.message(), Some(messages::READ_DENIED));
        let c = ctx(PermissionMode::Default, &[(PermissionBehavior::Allow, "Read(//etc/**)")]);
        assert_eq!(behavior(&check_read_permission(Path::new("/etc/hosts"), &c)), "allow");
        let c = ctx(PermissionMode::Default, &[(PermissionBehavior::Allow, "Edit(//data/**)")]);
        assert_eq!(behavior(&check_read_permission(Path::new("/data/x"), &c)), "allow", "an Edit allow implies read");
        let c = ctx(PermissionMode::Default, &[(PermissionBehavior::Ask, "Read(*.pem)")]);
        assert_eq!(behavior(&check_read_permission(Path::new("/proj/k.pem"), &c)), "ask");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_denied_file_is_refused_as_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secret")).unwrap();
        std::fs::create_dir_all(root.join("pub")).unwrap();
        std::fs::write(root.join("secret/a"), "k").unwrap();
        std::os::unix::fs::symlink(root.join("secret/a"), root.join("pub/soft")).unwrap();
        std::fs::hard_link(root.join("secret/a"), root.join("pub/hard")).unwrap();
        let rule = format!("Read(/{}/secret/**)", root.display());
        let mut c = ctx(PermissionMode::Default, &[(PermissionBehavior::Deny, rule.as_str())]);
        c.cwd = root.clone();
        c.original_cwd = root.clone();
        for (path, message) in [
            ("secret/a", messages::READ_DENIED),
            ("pub/soft", messages::LINK_DENIED),
            ("pub/hard", messages::LINK_DENIED),
        ] {
            let path = root.join(path);
            assert_eq!(check_read_permission(&path, &c).message(), Some(message), "{}", path.display());
            assert_eq!(read_denied_message(&path, &c), Some(message));
        }
        assert_eq!(read_denied_message(&root.join("pub"), &c), None);
    }

    #[test]
    fn the_sessions_own_output_files_are_readable() {
        let mut c = ctx(PermissionMode::Default, &[(PermissionBehavior::Deny, "Read(//state/s1/tasks/secret.output)")]);
        let outside = Path::new("/state/s1/tasks/b1.output");
        assert_eq!(behavior(&check_read_permission(outside, &c)), "passthrough", "no session folder, no exception");
        c.options.session_dir = Some(PathBuf::from("/state/s1"));
        assert_eq!(behavior(&check_read_permission(outside, &c)), "allow");
        assert_eq!(behavior(&check_read_permission(Path::new("/state/s1/tool-results/toolu_1.txt"), &c)), "allow");
        for other in ["/state/s1/other.txt", "/state/s1/tasks/../other.txt", "/state/s2/tasks/b1.output"] {
            assert_eq!(behavior(&check_read_permission(Path::new(other), &c)), "passthrough", "{other}");
        }
        // Deny rules still win, and nothing here licenses a write.
        assert_eq!(behavior(&check_read_permission(Path::new("/state/s1/tasks/secret.output"), &c)), "deny");
        assert_eq!(behavior(&check_write_permission(outside, &c)), "passthrough");
    }

    #[test]
    fn only_the_named_plan_file_is_exempt_from_plan_mode() {
        let dir = tempfile::tempdir().unwrap();
        let plans = dir.path().join("home/.claude/plans");
        let mut c = ctx(PermissionMode::Plan, &[]);
        c.options.plans_dir = Some(plans.clone());
        let project = Path::new("/proj/src/main.rs");
        assert_eq!(behavior(&check_write_permission(project, &c)), "deny");
        // Before a plan tool names the plan file, nothing in the plans folder is exempt.
        let guess = plans.join("some-guessed-name.md");
        assert_eq!(behavior(&check_write_permission(&guess, &c)), "deny");
        let plan = agent_tools_plan::plan_file_path(&c);
        assert_eq!(behavior(&check_write_permission(&plan, &c)), "allow");
        assert_eq!(behavior(&check_read_permission(&plan, &c)), "allow");
        // Spelled with `..`, still the plan file; its neighbours and other names are not.
        let dotted = plans.join("x").join("..").join(plan.file_name().unwrap());
        assert_eq!(behavior(&check_write_permission(&dotted, &c)), "allow");
        assert_eq!(behavior(&check_write_permission(&guess, &c)), "deny");
        assert_eq!(behavior(&check_write_permission(&plan.with_extension("sh"), &c)), "deny");
        assert_eq!(behavior(&check_write_permission(project, &c)), "deny");
        // Through a link to it: still the plan file (the link's own path is not).
        #[cfg(unix)]
        {
            std::fs::create_dir_all(&plans).unwrap();
            std::fs::write(&plan, "# plan\n").unwrap();
            let link = dir.path().join("link.md");
            std::os::unix::fs::symlink(&plan, &link).unwrap();
            assert_eq!(behavior(&check_write_permission(&link, &c)), "deny", "the link is another path");
        }
        // A sub-agent has its own plan file; the session's is not its to write.
        let mut agent = c.clone();
        agent.agent_id = Some("a7".into());
        assert_eq!(behavior(&check_write_permission(&plan, &agent)), "deny");
        assert_eq!(behavior(&check_write_permission(&agent_tools_plan::plan_file_path(&agent), &agent)), "allow");
        // Deny rules still win.
        let mut denied = ctx(PermissionMode::Plan, &[(PermissionBehavior::Deny, "Edit(//**/*.md)")]);
        denied.options.plans_dir = Some(plans.clone());
        denied.app_state = c.app_state.clone();
        assert_eq!(behavior(&check_write_permission(&plan, &denied)), "deny");
        // Outside plan mode the plan file needs no approval either (it is not in a working dir).
        let mut plain = ctx(PermissionMode::Default, &[]);
        plain.options.plans_dir = Some(plans);
        plain.app_state = c.app_state;
        assert_eq!(behavior(&check_write_permission(&plan, &plain)), "allow");
    }

    #[test]
    fn writes_follow_claude_codes_order() {
        let plain = ctx(PermissionMode::Default, &[]);
        let result = check_write_permission(Path::new("/proj/new.txt"), &plain);
        assert_eq!(behavior(&result), "passthrough");
        assert_eq!(
            result.message(),
            Some("Claude requested permissions to write to /proj/new.txt, but you haven't granted it yet.")
        );
        let accept = ctx(PermissionMode::AcceptEdits, &[]);
        assert_eq!(behavior(&check_write_permission(Path::new("/proj/new.txt"), &accept)), "allow");
        assert_eq!(behavior(&check_write_permission(Path::new("/elsewhere/new.txt"), &accept)), "passthrough");
        let plan = ctx(PermissionMode::Plan, &[]);
        assert_eq!(
            check_write_permission(Path::new("/proj/x"), &plan).message(),
            Some("Cannot write to /proj/x while in plan mode.")
        );
        let denied = ctx(PermissionMode::BypassPermissions, &[(PermissionBehavior::Deny, "Edit(src/**)")]);
        assert_eq!(behavior(&check_write_permission(Path::new("/proj/src/a.rs"), &denied)), "deny");
        let allowed = ctx(PermissionMode::Default, &[(PermissionBehavior::Allow, "Edit(docs/**)")]);
        assert_eq!(behavior(&check_write_permission(Path::new("/proj/docs/a.md"), &allowed)), "allow");
    }

    #[test]
    fn protected_files_ask_even_in_accept_edits_and_allow_rules() {
        let c = ctx(PermissionMode::AcceptEdits, &[(PermissionBehavior::Allow, "Edit(**)")]);
        for path in ["/proj/.git/hooks/pre-commit", "/home/me/.bashrc", "/proj/.claude/settings.json"] {
            let result = check_write_permission(Path::new(path), &c);
            assert!(
                matches!(
                    result,
                    PermissionResult::Ask { decision_reason: Some(PermissionDecisionReason::SafetyCheck { .. }), .. }
                ),
                "{path}: {result:?}"
            );
        }
    }
}
