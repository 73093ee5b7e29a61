//! Read-deny rules as walk exclusions: files a `Read(…)` deny rule names are never yielded, so
//! they vanish from Glob and Grep results alike (Claude Code turns the same rules into ripgrep
//! `--glob !…` exclusions).
//!
//! Each rule is read the way the permission checks read it
//! ([`agent_tools_permissions::paths::CompiledRule`]): a gitignore pattern matched against the
//! path relative to a root chosen by the pattern's start — `//abs/**` from `/`, `~/x/**` from the
//! home directory, `/x/**` from the settings file's base (the project folder for project
//! settings), anything else from the project folder (project settings) or the session's launch
//! folder (every other source), where a pattern without a slash matches at any depth; a trailing
//! `/**` covers a folder's contents. Both spellings of a rule's root are used, as given and with
//! symbolic links resolved, as the permission checks do. A `cd` never moves a rule.
//!
//! A file with several hard links is left out when one of its other names is denied
//! ([`agent_tools_permissions::links`]), or when its other names could not all be checked.
//!
//! The walk prunes a denied folder without reading it. The walk's root itself is the caller's to
//! check (with [`agent_tools_permissions::is_read_denied`] or the full read check).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use agent_tools_core::PermissionBehavior;
use agent_tools_core::ToolUseContext;
use agent_tools_permissions::filesystem::READ_RULES;
use agent_tools_permissions::links::{LinkedDenials, multiply_linked_metadata};
use agent_tools_permissions::paths::{CompiledRule, compile_rules};

/// The compiled `Read(…)` deny rules of a session. Cheap to clone; empty by default.
#[derive(Debug, Clone, Default)]
pub struct ReadDenyRules {
    rules: Arc<[CompiledRule]>,
    /// The denied files' other names, collected the first time a walk meets a file with more
    /// than one link (shared by the clones a parallel walk makes).
    links: Arc<OnceLock<LinkedDenials>>,
}

impl ReadDenyRules {
    /// The `Read(…)` deny rules of the context's permission settings. Rules that cannot apply
    /// (`~/…` with no known home) or do not compile are left out.
    pub fn from_context(ctx: &ToolUseContext) -> Self {
        Self { rules: compile_rules(READ_RULES, PermissionBehavior::Deny, ctx).into(), links: Arc::default() }
    }

    /// True when there are no rules (the walk then skips the checks).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether reading `path` (absolute, spelled as the walk spells it) is denied, looking at
    /// the path itself and every folder above it up to each rule's root.
    pub fn denies(&self, path: &Path, is_dir: bool) -> bool {
        self.rules.iter().any(|rule| rule.covers_spelling(path, is_dir, true))
    }

    /// Whether a walk entry is denied, looking at the entry's own path only: the walk has
    /// already pruned denied folders below its root, and callers check the root.
    pub(crate) fn denies_entry(&self, path: &Path, is_dir: bool) -> bool {
        self.rules.iter().any(|rule| rule.covers_spelling(path, is_dir, false))
    }

    /// Whether a file with this metadata is another hard link to a denied file, or one whose
    /// other names could not all be checked (left out either way).
    pub fn denies_linked(&self, metadata: &std::fs::Metadata) -> bool {
        let Some(id) = multiply_linked_metadata(metadata) else { return false };
        if self.rules.is_empty() {
            return false;
        }
        let denials = self.links.get_or_init(|| LinkedDenials::collect(&self.rules));
        denials.rule_for(id).is_some() || !denials.is_complete()
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
    use agent_tools_core::PermissionRuleSource;
    use agent_tools_core::ToolPermissionContext;
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
    fn roots_follow_the_rule_prefix_and_the_source_not_the_current_directory() {
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
        // `/x` rules: project and session rules from the project root (where the session was
        // launched), user settings from ~/.claude; never from the directory a `cd` went to.
        assert!(denied(&set, "/proj/private/notes.md"));
        assert!(!denied(&set, "/proj/sub/private/notes.md"));
        assert!(denied(&set, "/proj/local/a"));
        assert!(!denied(&set, "/proj/sub/local/a"));
        assert!(denied(&set, "/home/me/.claude/mine"));
        // Relative rules: from the project root; anchored when they hold a slash or start with
        // `./`, any depth otherwise.
        assert!(denied(&set, "/proj/keys/a.pem"));
        assert!(!denied(&set, "/proj/sub/keys/a.pem"));
        assert!(denied(&set, "/proj/sub/deep/.env"));
        assert!(denied(&set, "/proj/.netrc"));
        assert!(!denied(&set, "/proj/sub/x/.netrc"));
        assert!(!denied(&set, "/proj/sub/main.rs"));
    }

    #[cfg(unix)]
    #[test]
    fn another_hard_link_to_a_denied_file_is_denied() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secret")).unwrap();
        std::fs::write(root.join("secret/a"), "TOKEN").unwrap();
        std::fs::write(root.join("plain"), "x").unwrap();
        std::fs::hard_link(root.join("secret/a"), root.join("hard")).unwrap();
        let mut ctx = ToolUseContext::new(&root);
        ctx.permission_context = Arc::new(ToolPermissionContext::default().with_rule(
            PermissionBehavior::Deny,
            PermissionRuleSource::ProjectSettings,
            "Read(./secret/**)",
        ));
        let set = ReadDenyRules::from_context(&ctx);
        let metadata = |name: &str| std::fs::symlink_metadata(root.join(name)).unwrap();
        assert!(set.denies_linked(&metadata("hard")));
        assert!(!set.denies_linked(&metadata("plain")));
        assert!(!ReadDenyRules::default().denies_linked(&metadata("hard")), "no rules, nothing denied");
    }

    #[test]
    fn folders_cover_their_contents_and_other_tools_rules_are_ignored() {
        use PermissionRuleSource::*;
        let set = rules(&[(LocalSettings, "Read(vendor)"), (LocalSettings, "Edit(*.rs)"), (LocalSettings, "Read")]);
        assert!(denied(&set, "/proj/sub/vendor/lib/a.rs"));
        assert!(set.denies(Path::new("/proj/vendor"), true));
        assert!(!set.denies_entry(Path::new("/proj/vendor/lib/a.rs"), false));
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
