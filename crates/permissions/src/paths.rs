//! File paths against permission rules and working directories.
//!
//! `Read(…)` and `Edit(…)` rule content is a gitignore-style pattern, evaluated (with the `ignore`
//! crate, as Claude Code does) against the path relative to a root chosen by the pattern's start:
//!
//! | pattern | root |
//! |---|---|
//! | `//abs/path/**` | `/` |
//! | `~/x/**` | the home directory |
//! | `/x/**` | the settings file's base: the project root for project, local, policy and flag settings; `~/.claude` for user settings; the working directory for command-line, session and command rules |
//! | anything else (`src/**`, `*.env`, `./.env`) | the working directory; a slash-less pattern matches at any depth |
//!
//! A trailing `/**` is dropped (a folder pattern covers its contents). A path is checked as given
//! and with symbolic links resolved; a rule matching either matches.

use std::path::{Component, Path, PathBuf};

use agent_tools_core::permissions::{PermissionRule, PermissionRuleSource};
use agent_tools_core::{ToolUseContext, path::normalize};
use ignore::gitignore::GitignoreBuilder;

/// The folder a `/x` pattern of this source is relative to.
fn settings_root(source: PermissionRuleSource, ctx: &ToolUseContext) -> Option<PathBuf> {
    match source {
        PermissionRuleSource::ProjectSettings
        | PermissionRuleSource::LocalSettings
        | PermissionRuleSource::PolicySettings
        | PermissionRuleSource::FlagSettings => Some(ctx.original_cwd.clone()),
        PermissionRuleSource::UserSettings => ctx.home_dir.as_ref().map(|home| home.join(".claude")),
        PermissionRuleSource::CliArg | PermissionRuleSource::Command | PermissionRuleSource::Session => {
            Some(ctx.cwd.clone())
        }
    }
}

/// The root and gitignore pattern a rule's content stands for (`None` when it cannot apply, e.g.
/// `~/…` with no known home).
pub fn rule_root_and_pattern(
    content: &str,
    source: PermissionRuleSource,
    ctx: &ToolUseContext,
) -> Option<(PathBuf, String)> {
    let content = content.trim();
    let content = content.strip_suffix("/**").unwrap_or(content);
    let (root, pattern) = if let Some(rest) = content.strip_prefix("//") {
        (PathBuf::from("/"), format!("/{rest}"))
    } else if let Some(rest) = content.strip_prefix("~/") {
        (ctx.home_dir.clone()?, format!("/{rest}"))
    } else if content == "~" {
        (ctx.home_dir.clone()?, "*".to_owned())
    } else if content.starts_with('/') {
        (settings_root(source, ctx)?, content.to_owned())
    } else {
        let relative = content.strip_prefix("./").unwrap_or(content);
        (ctx.cwd.clone(), relative.to_owned())
    };
    let pattern = if pattern.is_empty() || pattern == "/" { "*".to_owned() } else { pattern };
    Some((normalize(&root), pattern))
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

/// Whether a gitignore `pattern` rooted at `root` covers `path` (or one of its parents).
pub fn gitignore_covers(root: &Path, pattern: &str, path: &Path) -> bool {
    if !path.starts_with(root) || path == root && pattern != "*" {
        return false;
    }
    let mut builder = GitignoreBuilder::new(root);
    if builder.add_line(None, pattern).is_err() {
        return false;
    }
    let Ok(matcher) = builder.build() else { return false };
    let is_dir = path.is_dir();
    if path == root {
        return matcher.matched(path, is_dir).is_ignore();
    }
    matcher.matched_path_or_any_parents(path, is_dir).is_ignore()
}

/// Whether a `Read(…)` / `Edit(…)` rule covers `path` (either spelling of it).
pub fn rule_covers(rule: &PermissionRule, path: &Path, ctx: &ToolUseContext) -> bool {
    let Some(content) = rule.rule_value.rule_content.as_deref() else { return true };
    let Some((root, pattern)) = rule_root_and_pattern(content, rule.source, ctx) else { return false };
    let roots = candidates(&root);
    candidates(path).iter().any(|spelling| roots.iter().any(|root| gitignore_covers(root, &pattern, spelling)))
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
    let dirs: Vec<PathBuf> = working_directories(ctx).iter().flat_map(|dir| candidates(dir)).collect();
    candidates(path).iter().all(|spelling| dirs.iter().any(|dir| spelling.starts_with(dir)))
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
    use agent_tools_core::permissions::{PermissionBehavior, PermissionRuleValue};

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
    fn roots_follow_the_pattern_prefix_and_the_source() {
        let ctx = ctx();
        let cases = [
            ("//etc/**", PermissionRuleSource::Session, "/", "/etc"),
            ("~/.ssh/**", PermissionRuleSource::Session, "/home/me", "/.ssh"),
            ("/secrets/**", PermissionRuleSource::ProjectSettings, "/proj", "/secrets"),
            ("/secrets/**", PermissionRuleSource::UserSettings, "/home/me/.claude", "/secrets"),
            ("/secrets/**", PermissionRuleSource::CliArg, "/proj/sub", "/secrets"),
            ("./.env", PermissionRuleSource::Session, "/proj/sub", ".env"),
            ("*.env", PermissionRuleSource::Session, "/proj/sub", "*.env"),
            ("src/**", PermissionRuleSource::Session, "/proj/sub", "src"),
            ("**", PermissionRuleSource::Session, "/proj/sub", "**"),
        ];
        for (content, source, root, pattern) in cases {
            let (got_root, got_pattern) = rule_root_and_pattern(content, source, &ctx).unwrap();
            assert_eq!((got_root.to_str().unwrap(), got_pattern.as_str()), (root, pattern), "{content}");
        }
    }

    #[test]
    fn gitignore_semantics_decide_coverage() {
        let ctx = ctx();
        let covers = |content: &str, path: &str| {
            rule_covers(&rule(content, PermissionRuleSource::Session), Path::new(path), &ctx)
        };
        assert!(covers("*.env", "/proj/sub/.env"));
        assert!(covers("*.env", "/proj/sub/deep/prod.env"));
        assert!(!covers("*.env", "/proj/other/prod.env"), "outside the root");
        assert!(covers("./.env", "/proj/sub/.env"));
        assert!(covers("src/**", "/proj/sub/src/a/b.rs"));
        assert!(!covers("src/**", "/proj/sub/lib/src.rs"));
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
