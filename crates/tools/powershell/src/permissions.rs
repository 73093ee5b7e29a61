//! PowerShell's permission check: `PowerShell(…)` rules with Bash's matching semantics
//! ([`ShellPattern`]: exact, `prefix:*`, wildcards), the paths a command reads and writes, and
//! the read-only cmdlets.
//!
//! In order:
//!
//! 1. a deny rule matching any spelling of any part of the line ([`classify::rule_spellings`]:
//!    statements, quoted pieces, wrappers skipped, aliases resolved) → deny;
//! 2. a path the line writes that an `Edit(…)` deny rule covers, or that a simple read-only
//!    command reads under a `Read(…)` deny rule → deny;
//! 3. an ask rule → ask (even in bypass mode);
//! 4. a protected path the line writes (`.git/`, `.claude/`, shell and PowerShell start-up files
//!    …), a removal of `/`, `~`, `*` or a working directory, or an `Edit(…)`/`Read(…)` ask rule
//!    → ask (even in bypass mode);
//! 5. a line that is not one simple command ([`classify::simple_command`]: `;`, `|`, `&&`,
//!    `&`, `.`, redirections, `$(…)`, script blocks …) → needs approval: no rule can cover it;
//! 6. a path that needs approval (outside the working directories, a wildcard or provider path
//!    of a read-only cmdlet, a write in default mode) → needs approval, whatever the allow rules;
//! 7. an allow rule matching the command (its name compared without regard to case) → allow;
//! 8. a read-only cmdlet ([`classify::is_read_only`]) → allow;
//! 9. otherwise needs approval, suggesting `PowerShell(<the command>)`.
//!
//! "Needs approval" is `passthrough`: the host asks unless bypass mode or a whole-tool
//! `PowerShell` allow rule decides.

use std::path::{Path, PathBuf};

use agent_tools_core::PermissionMatcher;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionResult, PermissionRule, PermissionRuleValue,
    PermissionUpdate, PermissionUpdateDestination,
};
use agent_tools_permissions::paths::working_directories;
use agent_tools_permissions::{check_read_permission, check_write_permission};
use agent_tools_shell_analysis::{ShellPattern, Verdict, asked_by_rule, messages, too_complex};

use crate::classify::{self, ReadPath, Word, WriteTarget};
use crate::{NAME, render};

/// The first `PowerShell(…)` rule of `behavior` whose pattern (after `normalize`) matches one of
/// `spellings`.
fn matching_rule(
    behavior: PermissionBehavior,
    spellings: &[String],
    normalize: fn(&str) -> String,
    ctx: &ToolUseContext,
) -> Option<PermissionRule> {
    ctx.permission_context.content_rules(NAME, behavior).find(|rule| {
        let pattern = ShellPattern::parse(&normalize(rule.rule_value.rule_content.as_deref().unwrap_or_default()));
        spellings.iter().any(|spelling| pattern.matches(spelling))
    })
}

/// Whether removing `target` (resolved to `resolved`) takes away `/`, the home folder, a working
/// directory or a folder holding one — or all of the working directory's contents (`*`).
fn dangerous_removal(target: &str, resolved: &Path, ctx: &ToolUseContext) -> bool {
    let base = target.trim_end_matches(['*', '/']);
    let base = if base.is_empty() && target.starts_with('/') {
        PathBuf::from("/")
    } else if base.is_empty() {
        ctx.cwd.clone()
    } else if base == target {
        resolved.to_path_buf()
    } else {
        ctx.resolve_path(base)
    };
    let spellings: Vec<PathBuf> = std::iter::once(base.clone()).chain(base.canonicalize().ok()).collect();
    spellings.iter().any(|base| {
        base == Path::new("/")
            || ctx.home_dir.as_deref() == Some(base.as_path())
            || working_directories(ctx).iter().any(|dir| dir.starts_with(base))
    })
}

/// The paths a wildcard write target names now: its literal spelling, and the entries of its
/// folder that the last component matches. `None` when a folder itself has a wildcard.
fn expand(resolved: &Path) -> Option<Vec<PathBuf>> {
    let (Some(parent), Some(name)) = (resolved.parent(), resolved.file_name()) else { return None };
    if parent.to_string_lossy().contains(['*', '?']) {
        return None;
    }
    let pattern = name.to_string_lossy();
    let mut paths = vec![resolved.to_path_buf()];
    // A pattern longer than any file name is left unknown (globset panics on huge ones).
    if pattern.len() > 4096 {
        return None;
    }
    if pattern.contains(['*', '?']) {
        let matcher = globset::GlobBuilder::new(&pattern).literal_separator(true).build().ok()?.compile_matcher();
        let entries = std::fs::read_dir(parent).into_iter().flatten().flatten();
        paths.extend(entries.filter(|entry| matcher.is_match(entry.file_name())).map(|entry| entry.path()));
    }
    Some(paths)
}

/// The verdict for the paths a line writes.
fn write_verdict(targets: &[WriteTarget], command: &str, ctx: &ToolUseContext) -> Verdict {
    let mut verdict = Verdict::Allow(String::new());
    for target in targets {
        let resolved = ctx.resolve_path(&target.path);
        if target.removes && dangerous_removal(&target.path, &resolved, ctx) {
            return Verdict::Ask {
                message: messages::dangerous_removal(command, &target.path),
                reason: PermissionDecisionReason::SafetyCheck {
                    reason: render::removal_reason(&target.path),
                    classifier_approvable: false,
                },
                blocked_path: Some(target.path.clone()),
            };
        }
        let Some(paths) = expand(&resolved) else {
            verdict = verdict.worse(Verdict::Needs {
                message: messages::unknown_path(command, &target.path),
                reason: None,
                suggestions: Vec::new(),
                blocked_path: Some(target.path.clone()),
                rule_may_allow: false,
            });
            continue;
        };
        for path in paths {
            verdict =
                verdict.worse(Verdict::for_path(check_write_permission(&path, ctx), &path, true, NAME, command, false));
        }
    }
    verdict
}

/// The verdict for the paths a simple read-only command reads.
fn read_verdict(words: &[Word], command: &str, ctx: &ToolUseContext) -> Verdict {
    let Some(cmdlet) = words.first().and_then(|name| classify::read_only_cmdlet(&name.value)) else {
        return Verdict::Allow(String::new());
    };
    let mut verdict = Verdict::Allow(String::new());
    for path in classify::read_paths(cmdlet, words) {
        verdict = verdict.worse(match path {
            ReadPath::Plain(path) => {
                let resolved = ctx.resolve_path(&path);
                Verdict::for_path(check_read_permission(&resolved, ctx), &resolved, false, NAME, command, false)
            }
            ReadPath::Unknown(value) => Verdict::Needs {
                message: render::unknown_read_path(command, &value),
                reason: None,
                suggestions: Vec::new(),
                blocked_path: Some(value),
                rule_may_allow: false,
            },
        });
    }
    verdict
}

/// The permission decision for a PowerShell command (see the [module docs](self) for the order).
/// Never panics, whatever the input.
pub fn check(command: &str, ctx: &ToolUseContext) -> PermissionResult {
    let spellings = classify::rule_spellings(command);
    if let Some(rule) = matching_rule(PermissionBehavior::Deny, &spellings, classify::rule_pattern, ctx) {
        return PermissionResult::Deny {
            message: messages::command_denied(NAME, command),
            decision_reason: PermissionDecisionReason::Rule { rule },
        };
    }
    let simple = classify::simple_command(command);
    let mut paths = write_verdict(&classify::write_targets(command), command, ctx);
    if let Ok(words) = &simple {
        paths = paths.worse(read_verdict(words, command, ctx));
    }
    if matches!(paths, Verdict::Deny { .. })
        && let Some(denied) = paths.clone().into_result()
    {
        return denied;
    }
    if let Some(rule) = matching_rule(PermissionBehavior::Ask, &spellings, classify::rule_pattern, ctx) {
        return asked_by_rule(command, rule);
    }
    if matches!(paths, Verdict::Ask { .. })
        && let Some(asked) = paths.clone().into_result()
    {
        return asked;
    }
    let words = match simple {
        Ok(words) => words,
        Err(why) => return too_complex(command, why),
    };
    if let Some(needs) = paths.into_result() {
        return needs;
    }
    let spelling = [classify::allow_spelling(&words)];
    if let Some(rule) = matching_rule(PermissionBehavior::Allow, &spelling, classify::allow_pattern, ctx) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
        };
    }
    if classify::is_read_only(command) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Other { reason: "only reads".to_owned() }),
        };
    }
    PermissionResult::Passthrough {
        message: messages::command_needs_approval(command),
        decision_reason: None,
        suggestions: vec![PermissionUpdate::AddRules {
            destination: PermissionUpdateDestination::LocalSettings,
            rules: vec![PermissionRuleValue {
                tool_name: NAME.to_owned(),
                rule_content: Some(command.trim().to_owned()),
            }],
            behavior: PermissionBehavior::Allow,
        }],
        blocked_path: None,
    }
}

/// Whether `command` is one of the sandbox's `excludedCommands` (rule content in `PowerShell(…)`
/// syntax): only a simple command can be, matched as allow rules match it.
pub fn is_excluded(command: &str, excluded: &[String]) -> bool {
    let Ok(words) = classify::simple_command(command) else { return false };
    let spelling = classify::allow_spelling(&words);
    excluded.iter().any(|pattern| ShellPattern::parse(&classify::allow_pattern(pattern)).matches(&spelling))
}

/// Whether a `PowerShell(…)` rule pattern covers any part of `command`, with the spellings deny
/// rules see, for hook conditions (Claude Code's `preparePermissionMatcher`).
pub fn matcher(command: &str) -> PermissionMatcher {
    let spellings = classify::rule_spellings(command);
    Box::new(move |pattern: &str| {
        let pattern = ShellPattern::parse(&classify::rule_pattern(pattern));
        spellings.iter().any(|spelling| pattern.matches(spelling))
    })
}
