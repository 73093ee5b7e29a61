//! Read-deny rules as walk exclusions: files a `Read(…)` deny rule names are never yielded, so
//! they vanish from Glob and Grep results alike (Claude Code turns the same rules into ripgrep
//! `--glob !…` exclusions).
//!
//! Each rule is read the way the permission checks read it
//! ([`agent_tools_permissions::paths::rule_root_and_pattern`]): a gitignore pattern matched
//! against the path relative to a root chosen by the pattern's start — `//abs/**` from `/`,
//! `~/x/**` from the home directory, `/x/**` from the settings file's base (the project root for
//! project settings), anything else from the working directory, where a pattern without a slash
//! matches at any depth; a trailing `/**` covers a folder's contents. Both spellings of a rule's
//! root are used, as given and with symbolic links resolved, as the permission checks do.
//!
//! The walk prunes a denied folder without reading it. The walk's root itself is the caller's to
//! check (with [`agent_tools_permissions::is_read_denied`] or the full read check).

use std::path::{Path, PathBuf};

use agent_tools_core::ToolUseContext;
use agent_tools_core::permissions::PermissionBehavior;
use agent_tools_permissions::filesystem::READ_RULES;
use agent_tools_permissions::paths::{candidates, rule_root_and_pattern};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The compiled `Read(…)` deny rules of a session. Cheap to clone; empty by default.
#[derive(Debug, Clone, Default)]
pub struct ReadDenyRules {
    rules: Vec<Compiled>,
}

#[derive(Debug, Clone)]
struct Compiled {
    /// Paths are matched relative to this folder; paths outside it never match.
    root: PathBuf,
    /// The rule's pattern as a one-line gitignore rooted at `root`.
    matcher: Gitignore,
}

impl ReadDenyRules {
    /// The `Read(…)` deny rules of the context's permission settings. Rules that cannot apply
    /// (`~/…` with no known home) or do not compile are left out.
    pub fn from_context(ctx: &ToolUseContext) -> Self {
        let mut rules = Vec::new();
        for rule in ctx.permission_context.content_rules(READ_RULES, PermissionBehavior::Deny) {
            let Some(content) = rule.rule_value.rule_content.as_deref() else { continue };
            let Some((root, pattern)) = rule_root_and_pattern(content, rule.source, ctx) else { continue };
            for root in candidates(&root) {
                let mut builder = GitignoreBuilder::new(&root);
                if builder.add_line(None, &pattern).is_err() {
                    continue;
                }
                if let Ok(matcher) = builder.build() {
                    rules.push(Compiled { root, matcher });
                }
            }
        }
        Self { rules }
    }

    /// True when there are no rules (the walk then skips the checks).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether reading `path` (absolute, spelled as the walk spells it) is denied, looking at
    /// the path itself and every folder above it up to each rule's root.
    pub fn denies(&self, path: &Path, is_dir: bool) -> bool {
        self.rules.iter().any(|rule| rule.denies(path, is_dir, true))
    }

    /// Whether a walk entry is denied, looking at the entry's own path only: the walk has
    /// already pruned denied folders below its root, and callers check the root.
    pub(crate) fn denies_entry(&self, path: &Path, is_dir: bool) -> bool {
        self.rules.iter().any(|rule| rule.denies(path, is_dir, false))
    }
}

impl Compiled {
    fn denies(&self, path: &Path, is_dir: bool, with_parents: bool) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else { return false };
        let mut current = relative;
        let mut current_is_dir = is_dir;
        while !current.as_os_str().is_empty() {
            if self.matcher.matched(current, current_is_dir).is_ignore() {
                return true;
            }
            if !with_parents {
                break;
            }
            current = current.parent().unwrap_or(Path::new(""));
            current_is_dir = true;
        }
        false
    }
}

/// The walk's root as given and, when different, with symbolic links resolved; entries are
/// checked under both spellings (a rule rooted at the real folder still names files reached
/// through a link to it).
#[derive(Debug, Clone)]
pub(crate) struct Spellings {
    given: PathBuf,
    resolved: Option<PathBuf>,
}

impl Spellings {
    pub(crate) fn of(root: &Path) -> Self {
        let resolved = std::fs::canonicalize(root).ok().filter(|resolved| resolved != root);
        Self { given: root.to_path_buf(), resolved }
    }

    /// Whether `deny` names the entry at `path` under either spelling.
    pub(crate) fn entry_denied(&self, deny: &ReadDenyRules, path: &Path, is_dir: bool) -> bool {
        if deny.denies_entry(path, is_dir) {
            return true;
        }
        match (&self.resolved, path.strip_prefix(&self.given)) {
            (Some(resolved), Ok(rest)) => deny.denies_entry(&resolved.join(rest), is_dir),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::ToolPermissionContext;
    use agent_tools_core::permissions::PermissionRuleSource;
    use std::sync::Arc;

    fn rules(list: &[(PermissionRuleSource, &str)]) -> ReadDenyRules {
        let mut permissions = ToolPermissionContext::default();
        for (source, rule) in list {
            permissions = permissions.with_rule(PermissionBehavior::Deny, *source, *rule);
        }
        let mut ctx = ToolUseContext::new("/proj/sub");
        ctx.original_cwd = PathBuf::from("/proj");
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        ctx.permission_context = Arc::new(permissions);
        ReadDenyRules::from_context(&ctx)
    }

    fn denied(rules: &ReadDenyRules, path: &str) -> bool {
        rules.denies(Path::new(path), false)
    }

    #[test]
    fn roots_follow_the_rule_prefix() {
        use PermissionRuleSource::*;
        let set = rules(&[
            (ProjectSettings, "Read(//etc/secrets/**)"),
            (ProjectSettings, "Read(~/.ssh/**)"),
            (ProjectSettings, "Read(/private/**)"),
            (Session, "Read(/local/**)"),
            (UserSettings, "Read(/mine)"),
            (ProjectSettings, "Read(keys/*.pem)"),
            (ProjectSettings, "Read(*.env)"),
            (ProjectSettings, "Read(./.netrc)"),
        ]);
        assert!(denied(&set, "/etc/secrets/db.txt"));
        assert!(!denied(&set, "/etc/hosts"));
        assert!(denied(&set, "/home/me/.ssh/id_ed25519"));
        assert!(!denied(&set, "/home/me/ssh/x"));
        // `/x` rules: project settings from the project root, session rules from the cwd, user
        // settings from ~/.claude.
        assert!(denied(&set, "/proj/private/notes.md"));
        assert!(!denied(&set, "/proj/sub/private/notes.md"));
        assert!(denied(&set, "/proj/sub/local/a"));
        assert!(!denied(&set, "/proj/local/a"));
        assert!(denied(&set, "/home/me/.claude/mine"));
        // Relative rules: from the cwd; anchored when they hold a slash, any depth otherwise.
        assert!(denied(&set, "/proj/sub/keys/a.pem"));
        assert!(!denied(&set, "/proj/sub/deep/keys/a.pem"));
        assert!(denied(&set, "/proj/sub/deep/.env"));
        assert!(denied(&set, "/proj/sub/x/.netrc"));
        assert!(!denied(&set, "/proj/sub/main.rs"));
    }

    #[test]
    fn folders_cover_their_contents_and_other_tools_rules_are_ignored() {
        use PermissionRuleSource::*;
        let set = rules(&[(LocalSettings, "Read(vendor)"), (LocalSettings, "Edit(*.rs)"), (LocalSettings, "Read")]);
        assert!(denied(&set, "/proj/sub/vendor/lib/a.rs"));
        assert!(set.denies(Path::new("/proj/sub/vendor"), true));
        assert!(!set.denies_entry(Path::new("/proj/sub/vendor/lib/a.rs"), false));
        assert!(!denied(&set, "/proj/sub/src/a.rs"));
        assert!(rules(&[]).is_empty());
    }

    #[test]
    fn everything_under_a_root_and_unknown_homes() {
        use PermissionRuleSource::*;
        let set = rules(&[(ProjectSettings, "Read(//tmp/**)")]);
        assert!(denied(&set, "/tmp/a/b"));
        assert!(!denied(&set, "/proj/a"));
        let mut ctx = ToolUseContext::new("/w");
        ctx.permission_context =
            Arc::new(ToolPermissionContext::default().with_rule(PermissionBehavior::Deny, CliArg, "Read(~/x)"));
        assert!(ReadDenyRules::from_context(&ctx).is_empty());
    }
}
