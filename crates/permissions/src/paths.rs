//! File paths against permission rules and working directories.
//!
//! `Read(…)` and `Edit(…)` rule content is a gitignore-style pattern, evaluated (with the `ignore`
//! crate, as Claude Code does) against the path relative to a root chosen by the pattern's start:
//!
//! | pattern | root |
//! |---|---|
//! | `//abs/path/**` | `/` |
//! | `~/x/**` | the home directory |
//! | `/x/**` | the settings file's base: the project folder for project, local and policy settings; `~/.claude` for user settings; the session's launch folder for `--settings`, command-line, skill and session rules |
//! | anything else (`src/**`, `*.env`, `./.env`) | the project folder for project, local and policy settings, the launch folder for every other source |
//!
//! Anchoring follows gitignore, with `./` counting as an anchor: `./secret/**`, `./.env` and
//! `src/**` name paths at the root (`<project>/secret`, not `pub/secret`), while a slash-less
//! `*.env` or `secret.txt` matches at any depth below it.
//!
//! The project and launch folders are fixed when the rules are loaded
//! ([`ToolPermissionContext::project_dir`](agent_tools_core::ToolPermissionContext::project_dir),
//! [`launch_dir`](agent_tools_core::ToolPermissionContext::launch_dir)): a `cd` never moves a
//! rule, so `Read(./secret/**)` protects `<project>/secret` from a shell that went into `pub/`.
//! When the session's project directory moved (a worktree), relative rules also apply there;
//! relative deny and ask rules apply in every worktree of the project's repository, kept or
//! running ([`crate::worktrees`]), so a second checkout never exposes what a rule protects.
//!
//! A trailing `/**` is dropped (a folder pattern covers its contents). A path is checked as given
//! and with symbolic links resolved; a rule matching either matches.
//!
//! [`CompiledRule::may_cover_below`] answers the question recursive readers raise (`grep -r x
//! dir`): could this rule match anything inside `dir`? It looks at the pattern's *scope*, the
//! folder its literal leading components name, so `Read(./secret/**)` cannot match inside
//! `pub/` but `Read(*.env)` can match anywhere below its root.

use std::path::{Component, Path, PathBuf};

use agent_tools_core::{PermissionBehavior, PermissionRule, PermissionRuleSource};
use agent_tools_core::{ToolUseContext, path::normalize};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The folder a relative pattern (`./x`, `x`) of this source is anchored to.
fn anchor(source: PermissionRuleSource, ctx: &ToolUseContext) -> PathBuf {
    let permissions = &ctx.permission_context;
    let launch = || permissions.launch_dir.clone().unwrap_or_else(|| ctx.original_cwd.clone());
    match source {
        PermissionRuleSource::ProjectSettings
        | PermissionRuleSource::LocalSettings
        | PermissionRuleSource::PolicySettings => permissions.project_dir.clone().unwrap_or_else(launch),
        PermissionRuleSource::UserSettings
        | PermissionRuleSource::FlagSettings
        | PermissionRuleSource::CliArg
        | PermissionRuleSource::Command
        | PermissionRuleSource::Session => launch(),
    }
}

/// The folder a `/x` pattern of this source is relative to (`None` for user settings without a
/// known home).
fn settings_root(source: PermissionRuleSource, ctx: &ToolUseContext) -> Option<PathBuf> {
    match source {
        PermissionRuleSource::UserSettings => ctx.home_dir.as_ref().map(|home| home.join(".claude")),
        _ => Some(anchor(source, ctx)),
    }
}

/// The roots and gitignore pattern a rule's content stands for (`None` when it cannot apply,
/// e.g. `~/…` with no known home). A pattern anchored to the project or launch folder also
/// applies in the session's current project directory when that moved (a worktree).
pub fn rule_roots_and_pattern(
    content: &str,
    source: PermissionRuleSource,
    ctx: &ToolUseContext,
) -> Option<(Vec<PathBuf>, String)> {
    roots_and_pattern(content, source, ctx).map(|(roots, pattern, _)| (roots, pattern))
}

/// [`rule_roots_and_pattern`], and whether the roots are the project's or launch folder's (a
/// relative pattern), which move with the project into its worktrees.
fn roots_and_pattern(
    content: &str,
    source: PermissionRuleSource,
    ctx: &ToolUseContext,
) -> Option<(Vec<PathBuf>, String, bool)> {
    let content = content.trim();
    // Anchoring is gitignore's (a slash at the start or in the middle; `./` counts as one),
    // decided before a trailing `/**` is dropped: `src/**` and `./secret/**` name folders at
    // the root, `*.env` and `secret.txt` match at any depth.
    let anchored = content.starts_with("./") || content.trim_end_matches('/').contains('/');
    let content = content.strip_suffix("/**").unwrap_or(content);
    let (root, pattern, movable) = if let Some(rest) = content.strip_prefix("//") {
        (PathBuf::from("/"), format!("/{rest}"), false)
    } else if let Some(rest) = content.strip_prefix("~/") {
        (ctx.home_dir.clone()?, format!("/{rest}"), false)
    } else if content == "~" {
        (ctx.home_dir.clone()?, "*".to_owned(), false)
    } else if content.starts_with('/') {
        (settings_root(source, ctx)?, content.to_owned(), source != PermissionRuleSource::UserSettings)
    } else {
        let relative = content.strip_prefix("./").unwrap_or(content);
        let relative = if anchored && !relative.is_empty() && !relative.starts_with("**") {
            format!("/{relative}")
        } else {
            relative.to_owned()
        };
        (anchor(source, ctx), relative, true)
    };
    let pattern = if pattern.is_empty() || pattern == "/" { "*".to_owned() } else { pattern };
    let mut roots = vec![normalize(&root)];
    // The session's project directory moved since launch (into a worktree): relative rules
    // apply there too.
    let moved = ctx.permission_context.launch_dir.as_ref().is_some_and(|launch| *launch != ctx.original_cwd);
    let current = normalize(&ctx.original_cwd);
    if movable && moved && !roots.contains(&current) {
        roots.push(current);
    }
    Some((roots, pattern, movable))
}

/// The spellings of a path to check: as given (lexically normalised) and with symbolic links
/// resolved — for a file that does not exist yet, its closest existing ancestor resolved.
pub fn candidates(path: &Path) -> Vec<PathBuf> {
    let given = normalize(path);
    let mut out = vec![given.clone()];
    if let Some(resolved) = resolve_existing_prefix(&given)
        && resolved != given
    {
        out.push(resolved);
    }
    out
}

/// `path` with its longest existing prefix canonicalised and the rest appended.
fn resolve_existing_prefix(path: &Path) -> Option<PathBuf> {
    let mut tail = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(resolved) = std::fs::canonicalize(&current) {
            let mut out = resolved;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return Some(out);
        }
        let name = current.file_name()?.to_os_string();
        tail.push(name);
        if !current.pop() {
            return None;
        }
    }
}

/// The folder below `root` that holds everything the gitignore `pattern` can match: for an
/// anchored pattern (a `/` at its start or in its middle) `root` joined with the pattern's
/// literal leading components (`/secret/*.key` → `root/secret`, `docs/a.md` → `root/docs/a.md`);
/// for a pattern that matches at any depth (`*.env`), or one this cannot read, `root` itself.
///
/// ```
/// use std::path::Path;
/// use agent_tools_permissions::paths::pattern_scope;
/// let root = Path::new("/p");
/// assert_eq!(pattern_scope(root, "/secret"), Path::new("/p/secret"));
/// assert_eq!(pattern_scope(root, "a/b/*.key"), Path::new("/p/a/b"));
/// assert_eq!(pattern_scope(root, "/**/x"), Path::new("/p"));
/// assert_eq!(pattern_scope(root, "*.env"), Path::new("/p"));
/// ```
pub fn pattern_scope(root: &Path, pattern: &str) -> PathBuf {
    let body = pattern.trim_end_matches('/');
    if body.starts_with('!') {
        return root.to_path_buf();
    }
    let anchored = body.starts_with('/') || body.contains('/');
    if !anchored {
        return root.to_path_buf();
    }
    let mut scope = root.to_path_buf();
    for part in body.trim_start_matches('/').split('/') {
        if part.is_empty() || part == "." {
            continue;
        }
        if part == ".." || part.contains(['*', '?', '[', '\\']) {
            break;
        }
        scope.push(part);
    }
    scope
}

/// One `Read(…)` / `Edit(…)` rule compiled against each spelling of each of its roots.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    /// The rule.
    pub rule: PermissionRule,
    matchers: Vec<RootedMatcher>,
}

#[derive(Debug, Clone)]
struct RootedMatcher {
    /// Paths are matched relative to this folder; paths outside it never match.
    root: PathBuf,
    /// Everything the rule can match lies in this folder (see [`pattern_scope`]).
    scope: PathBuf,
    /// The pattern is `*`: it covers the root itself too.
    whole_root: bool,
    matcher: Gitignore,
}

impl CompiledRule {
    /// Compiles a content rule; `None` for a whole-tool rule (no content) or one that cannot
    /// apply (`~/…` without a home, a pattern that does not compile).
    pub fn compile(rule: PermissionRule, ctx: &ToolUseContext) -> Option<Self> {
        let content = rule.rule_value.rule_content.as_deref()?;
        let (mut roots, pattern, movable) = roots_and_pattern(content, rule.source, ctx)?;
        // A deny or ask rule anchored to the project covers the same relative path in each of
        // the project's worktrees (copies of its files); an allow rule stays where it was given.
        if movable && rule.rule_behavior != PermissionBehavior::Allow {
            let copies: Vec<PathBuf> = roots.iter().flat_map(|root| crate::worktrees::counterparts(root)).collect();
            for copy in copies {
                if !roots.contains(&copy) {
                    roots.push(copy);
                }
            }
        }
        let mut matchers = Vec::new();
        for root in roots.iter().flat_map(|root| candidates(root)) {
            if matchers.iter().any(|m: &RootedMatcher| m.root == root) {
                continue;
            }
            let mut builder = GitignoreBuilder::new(&root);
            if builder.add_line(None, &pattern).is_err() {
                continue;
            }
            let Ok(matcher) = builder.build() else { continue };
            let scope = pattern_scope(&root, &pattern);
            matchers.push(RootedMatcher { root, scope, whole_root: pattern == "*", matcher });
        }
        (!matchers.is_empty()).then_some(Self { rule, matchers })
    }

    /// Whether the rule covers `path` as spelled (absolute, normalised), or a folder above it
    /// up to the rule's root when `with_parents`.
    pub fn covers_spelling(&self, path: &Path, is_dir: bool, with_parents: bool) -> bool {
        self.matchers.iter().any(|m| m.covers(path, is_dir, with_parents))
    }

    /// Whether the rule covers `path` (or a folder above it), under either spelling of `path`.
    pub fn covers(&self, path: &Path) -> bool {
        let is_dir = path.is_dir();
        candidates(path).iter().any(|spelling| self.covers_spelling(spelling, is_dir, true))
    }

    /// Whether the rule could match anything at or below the folder `dir` (either spelling): its
    /// scope and `dir` lie one inside the other. `false` means no file under `dir` can ever be
    /// covered, whatever is created there.
    pub fn may_cover_below(&self, dir: &Path) -> bool {
        candidates(dir)
            .iter()
            .any(|dir| self.matchers.iter().any(|m| m.scope.starts_with(dir) || dir.starts_with(&m.scope)))
    }

    /// The folders holding everything this rule can match (one per root spelling).
    pub fn scopes(&self) -> impl Iterator<Item = &Path> {
        self.matchers.iter().map(|m| m.scope.as_path())
    }
}

impl RootedMatcher {
    fn covers(&self, path: &Path, is_dir: bool, with_parents: bool) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else { return false };
        if relative.as_os_str().is_empty() {
            return self.whole_root;
        }
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

/// The compiled `family(…)` content rules of `behavior` (`Read` deny rules, say), in source
/// order; rules that cannot apply are left out.
pub fn compile_rules(family: &str, behavior: PermissionBehavior, ctx: &ToolUseContext) -> Vec<CompiledRule> {
    ctx.permission_context.content_rules(family, behavior).filter_map(|rule| CompiledRule::compile(rule, ctx)).collect()
}

/// Whether a `Read(…)` / `Edit(…)` rule covers `path` (either spelling of it).
pub fn rule_covers(rule: &PermissionRule, path: &Path, ctx: &ToolUseContext) -> bool {
    if rule.rule_value.rule_content.is_none() {
        return true;
    }
    CompiledRule::compile(rule.clone(), ctx).is_some_and(|compiled| compiled.covers(path))
}

/// The first `family(…)` deny or ask rule that could match anything at or below the folder
/// `dir` (see [`CompiledRule::may_cover_below`]): what keeps a command that reads (or, for
/// `Edit`, changes) `dir` recursively from being checked by its path alone.
pub fn rule_below(family: &str, dir: &Path, ctx: &ToolUseContext) -> Option<PermissionRule> {
    [PermissionBehavior::Deny, PermissionBehavior::Ask]
        .into_iter()
        .flat_map(|behavior| compile_rules(family, behavior, ctx))
        .find(|rule| rule.may_cover_below(dir))
        .map(|compiled| compiled.rule)
}

/// The session's working directories: where it started, plus the extra directories the
/// permission context allows.
pub fn working_directories(ctx: &ToolUseContext) -> Vec<PathBuf> {
    let mut dirs = vec![ctx.original_cwd.clone()];
    dirs.extend(ctx.permission_context.additional_working_directories.keys().cloned());
    dirs
}

/// Whether `path` lies inside one of the working directories — as written **and** with symbolic
/// links resolved (a link inside the project that points outside is outside).
pub fn is_inside_working_directories(path: &Path, ctx: &ToolUseContext) -> bool {
    lies_within(path, &working_directories(ctx))
}

/// Whether every spelling of `path` ([`candidates`]: as written, links resolved) lies inside one
/// of `folders` (each taken under either of its own spellings): a link inside a folder that
/// points out of it is outside.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use agent_tools_permissions::paths::lies_within;
/// assert!(lies_within(Path::new("/proj/src/a.rs"), &[PathBuf::from("/other"), PathBuf::from("/proj")]));
/// assert!(!lies_within(Path::new("/proj/../etc/passwd"), &[PathBuf::from("/proj")]));
/// ```
pub fn lies_within(path: &Path, folders: &[PathBuf]) -> bool {
    let folders: Vec<PathBuf> = folders.iter().flat_map(|folder| candidates(folder)).collect();
    candidates(path).iter().all(|spelling| folders.iter().any(|folder| spelling.starts_with(folder)))
}

/// Folders whose files always need the user's approval to change, even in bypass mode.
pub const PROTECTED_FOLDERS: &[&str] = &[".git", ".claude", ".vscode", ".idea"];

/// Files that always need the user's approval to change, even in bypass mode: shell start-up
/// files and tool configuration that runs code.
pub const PROTECTED_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".config/fish/config.fish",
    ".config/powershell/Microsoft.PowerShell_profile.ps1",
    ".config/powershell/profile.ps1",
    ".gitconfig",
    ".gitmodules",
    ".mcp.json",
    ".claude.json",
];

/// Why writing `path` needs the user whatever the mode, if it does: a file inside `.git/`,
/// `.claude/` (but not `.claude/worktrees/`), `.vscode/` or `.idea/`, a shell start-up file, or
/// configuration that runs code.
pub fn safety_concern(path: &Path) -> Option<String> {
    for spelling in candidates(path) {
        let parts: Vec<String> = spelling
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        for (index, part) in parts.iter().enumerate() {
            let is_last = index + 1 == parts.len();
            if !is_last && PROTECTED_FOLDERS.contains(&part.as_str()) {
                if part == ".claude" && parts.get(index + 1).is_some_and(|next| next == "worktrees") {
                    continue;
                }
                return Some(format!("{} is inside {part}/", spelling.display()));
            }
        }
        let name = parts.last().map(String::as_str).unwrap_or_default();
        let last_two = parts.len().checked_sub(3).map(|start| parts[start..].join("/")).unwrap_or_default();
        if PROTECTED_FILES.contains(&name) || PROTECTED_FILES.contains(&last_two.as_str()) {
            return Some(format!("{} is a configuration file that runs code", spelling.display()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::{PermissionBehavior, PermissionRuleValue};

    /// A session launched in `/proj` (whose `.claude/` holds the project settings) that moved
    /// into `/proj/sub` with `cd`.
    fn ctx() -> ToolUseContext {
        let mut ctx = ToolUseContext::new("/proj/sub");
        ctx.original_cwd = PathBuf::from("/proj");
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        ctx
    }

    fn rule(content: &str, source: PermissionRuleSource) -> PermissionRule {
        PermissionRule {
            source,
            rule_behavior: PermissionBehavior::Deny,
            rule_value: PermissionRuleValue { tool_name: "Read".into(), rule_content: Some(content.into()) },
        }
    }

    #[test]
    fn roots_follow_the_pattern_prefix_and_the_source_never_the_current_directory() {
        let mut ctx = ctx();
        let permissions = std::sync::Arc::make_mut(&mut ctx.permission_context);
        permissions.project_dir = Some(PathBuf::from("/proj"));
        permissions.launch_dir = Some(PathBuf::from("/proj"));
        let cases: [(&str, PermissionRuleSource, &[&str], &str); 12] = [
            ("//etc/**", PermissionRuleSource::Session, &["/"], "/etc"),
            ("~/.ssh/**", PermissionRuleSource::Session, &["/home/me"], "/.ssh"),
            ("/secrets/**", PermissionRuleSource::ProjectSettings, &["/proj"], "/secrets"),
            ("/secrets/**", PermissionRuleSource::UserSettings, &["/home/me/.claude"], "/secrets"),
            ("/secrets/**", PermissionRuleSource::CliArg, &["/proj"], "/secrets"),
            ("./.env", PermissionRuleSource::Session, &["/proj"], "/.env"),
            ("./secret/**", PermissionRuleSource::ProjectSettings, &["/proj"], "/secret"),
            ("*.env", PermissionRuleSource::UserSettings, &["/proj"], "*.env"),
            ("src/**", PermissionRuleSource::FlagSettings, &["/proj"], "/src"),
            ("secret.txt", PermissionRuleSource::ProjectSettings, &["/proj"], "secret.txt"),
            ("**/id_rsa", PermissionRuleSource::ProjectSettings, &["/proj"], "**/id_rsa"),
            ("**", PermissionRuleSource::Session, &["/proj"], "**"),
        ];
        for (content, source, roots, pattern) in cases {
            let (got_roots, got_pattern) = rule_roots_and_pattern(content, source, &ctx).unwrap();
            let got_roots: Vec<&str> = got_roots.iter().map(|root| root.to_str().unwrap()).collect();
            assert_eq!((got_roots.as_slice(), got_pattern.as_str()), (roots, pattern), "{content}");
        }
    }

    #[test]
    fn project_rules_stay_with_the_project_and_others_with_the_launch_folder() {
        let mut ctx = ctx();
        let permissions = std::sync::Arc::make_mut(&mut ctx.permission_context);
        permissions.project_dir = Some(PathBuf::from("/repo"));
        permissions.launch_dir = Some(PathBuf::from("/repo/app"));
        ctx.original_cwd = PathBuf::from("/repo/app");
        let ctx = ctx;
        let roots = |content: &str, source| rule_roots_and_pattern(content, source, &ctx).unwrap().0;
        assert_eq!(roots("./x", PermissionRuleSource::LocalSettings), [PathBuf::from("/repo")]);
        assert_eq!(roots("/x", PermissionRuleSource::PolicySettings), [PathBuf::from("/repo")]);
        assert_eq!(roots("./x", PermissionRuleSource::UserSettings), [PathBuf::from("/repo/app")]);
        assert_eq!(roots("/x", PermissionRuleSource::Command), [PathBuf::from("/repo/app")]);
        // The session's project directory moved into a worktree: relative rules apply in both.
        let mut ctx = ctx;
        ctx.original_cwd = PathBuf::from("/repo/.claude/worktrees/w");
        let roots = |content: &str, source| rule_roots_and_pattern(content, source, &ctx).unwrap().0;
        assert_eq!(
            roots("./x", PermissionRuleSource::ProjectSettings),
            [PathBuf::from("/repo"), PathBuf::from("/repo/.claude/worktrees/w")]
        );
        assert_eq!(roots("//x", PermissionRuleSource::ProjectSettings), [PathBuf::from("/")]);
    }

    #[test]
    fn relative_deny_rules_cover_the_projects_worktrees_and_allow_rules_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let kept = repo.join(".claude/worktrees/kept");
        std::fs::create_dir_all(kept.join("secret")).unwrap();
        std::fs::write(kept.join(".git"), "gitdir: ../../../.git/worktrees/kept\n").unwrap();
        let mut ctx = ToolUseContext::new(&repo);
        let permissions = std::sync::Arc::make_mut(&mut ctx.permission_context);
        permissions.project_dir = Some(repo.clone());
        permissions.launch_dir = Some(repo.clone());
        let with = |content: &str, behavior| PermissionRule {
            rule_behavior: behavior,
            ..rule(content, PermissionRuleSource::ProjectSettings)
        };
        let deny = with("./secret/**", PermissionBehavior::Deny);
        assert!(rule_covers(&deny, &repo.join("secret/key"), &ctx));
        assert!(rule_covers(&deny, &kept.join("secret/key"), &ctx), "the kept worktree's copy");
        assert!(!rule_covers(&deny, &kept.join("pub/key"), &ctx));
        assert!(rule_covers(&with("./.env", PermissionBehavior::Ask), &kept.join(".env"), &ctx));
        // A worktree made after the rules were loaded is covered too: nothing is cached.
        let later = repo.join(".claude/worktrees/later");
        std::fs::create_dir_all(&later).unwrap();
        std::fs::write(later.join(".git"), "gitdir: x\n").unwrap();
        assert!(rule_covers(&deny, &later.join("secret/key"), &ctx));
        // Walks prune by scope: the worktree's secret folder, not its public one.
        let compiled = CompiledRule::compile(deny, &ctx).unwrap();
        assert!(compiled.may_cover_below(&kept.join("secret")));
        assert!(!compiled.may_cover_below(&kept.join("pub")));
        // An allow rule is not widened into the copies; an absolute rule does not move.
        assert!(!rule_covers(&with("./src/**", PermissionBehavior::Allow), &kept.join("src/a.rs"), &ctx));
        assert!(rule_covers(&with("./src/**", PermissionBehavior::Allow), &repo.join("src/a.rs"), &ctx));
        let absolute = format!("/{}/secret/**", repo.display());
        assert!(!rule_covers(&with(&absolute, PermissionBehavior::Deny), &kept.join("secret/key"), &ctx));
    }

    #[test]
    fn a_rule_may_cover_below_a_folder_only_where_its_scope_reaches() {
        let ctx = ctx();
        let may = |content: &str, dir: &str| {
            CompiledRule::compile(rule(content, PermissionRuleSource::ProjectSettings), &ctx)
                .unwrap()
                .may_cover_below(Path::new(dir))
        };
        assert!(may("./secret/**", "/proj"), "the project holds secret/");
        assert!(may("./secret/**", "/"));
        assert!(may("./secret/**", "/proj/secret/deep"));
        assert!(!may("./secret/**", "/proj/pub"));
        assert!(!may("./secret/**", "/proj/secrets"), "a longer name is another folder");
        assert!(may("*.env", "/proj/pub/deep"), "a slash-less pattern matches at any depth");
        assert!(!may("*.env", "/elsewhere"));
        assert!(may("docs/*.md", "/proj/docs"));
        assert!(!may("docs/*.md", "/proj/src"));
        assert!(may("**/id_rsa", "/proj/src"));
        assert!(!may("//etc/**", "/proj"));
        assert!(may("//etc/**", "/"));
    }

    #[test]
    fn gitignore_semantics_decide_coverage() {
        let ctx = ctx();
        let covers = |content: &str, path: &str| {
            rule_covers(&rule(content, PermissionRuleSource::Session), Path::new(path), &ctx)
        };
        assert!(covers("*.env", "/proj/.env"));
        assert!(covers("*.env", "/proj/sub/deep/prod.env"));
        assert!(!covers("*.env", "/other/prod.env"), "outside the root");
        assert!(covers("./.env", "/proj/.env"));
        assert!(!covers("./.env", "/proj/sub/.env"), "anchored at the project, not at the current directory");
        assert!(covers("src/**", "/proj/src/a/b.rs"));
        assert!(!covers("src/**", "/proj/lib/src.rs"));
        assert!(!covers("src/**", "/proj/lib/src/a.rs"), "a pattern with a slash is anchored");
        assert!(covers("./secret/**", "/proj/secret/a"));
        assert!(!covers("./secret/**", "/proj/pub/secret/a"));
        assert!(covers("//etc/**", "/etc/passwd"));
        assert!(covers("~/.ssh/**", "/home/me/.ssh/id_rsa"));
        assert!(!covers("~/.ssh/**", "/home/you/.ssh/id_rsa"));
        assert!(covers("secret.txt", "/proj/sub/secret.txt"));
        assert!(!covers("secret.txt", "/proj/sub/secret.txt.bak"));
        // `..` in the path cannot escape a rule.
        assert!(covers("//etc/**", "/proj/sub/../../etc/shadow"));
    }

    #[test]
    fn working_directories_contain_their_subpaths_only() {
        let mut ctx = ctx();
        assert!(is_inside_working_directories(Path::new("/proj/a.txt"), &ctx));
        assert!(is_inside_working_directories(Path::new("/proj/sub/deep/x"), &ctx));
        assert!(!is_inside_working_directories(Path::new("/project/a.txt"), &ctx));
        assert!(!is_inside_working_directories(Path::new("/proj/../etc/passwd"), &ctx));
        std::sync::Arc::make_mut(&mut ctx.permission_context)
            .additional_working_directories
            .insert(PathBuf::from("/data"), PermissionRuleSource::Session);
        assert!(is_inside_working_directories(Path::new("/data/x.csv"), &ctx));
    }

    #[test]
    fn protected_paths_are_named() {
        for path in
            ["/p/.git/config", "/p/.claude/settings.json", "/home/me/.bashrc", "/p/.vscode/tasks.json", "/p/.mcp.json"]
        {
            assert!(safety_concern(Path::new(path)).is_some(), "{path}");
        }
        // PowerShell's start-up files run code too.
        for path in
            ["/home/me/.config/powershell/Microsoft.PowerShell_profile.ps1", "/home/me/.config/powershell/profile.ps1"]
        {
            assert!(safety_concern(Path::new(path)).is_some(), "{path}");
        }
        for path in
            ["/p/src/main.rs", "/p/.claude/worktrees/x/a.rs", "/p/.gitignore", "/p/git/config", "/p/.github/ci.yml"]
        {
            assert!(safety_concern(Path::new(path)).is_none(), "{path}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_checked_by_their_target_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("secrets")).unwrap();
        std::fs::write(root.join("secrets/key"), "k").unwrap();
        std::os::unix::fs::symlink(root.join("secrets/key"), root.join("innocent.txt")).unwrap();
        let mut ctx = ToolUseContext::new(&root);
        ctx.original_cwd = root.clone();
        let deny = rule("secrets/**", PermissionRuleSource::Session);
        assert!(rule_covers(&deny, &root.join("innocent.txt"), &ctx));
        // A file that does not exist yet, under a linked folder.
        std::os::unix::fs::symlink(root.join("secrets"), root.join("alias")).unwrap();
        assert!(rule_covers(&deny, &root.join("alias/new.txt"), &ctx));
    }
}
