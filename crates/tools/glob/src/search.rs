//! The search itself: turn a pattern into a walk root plus a matcher, walk, sort.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agent_tools_core::context::CancellationToken;
use agent_tools_walk::{Cancelled, VCS_DIRECTORIES, WalkConfig, collect_files};
use globset::{GlobBuilder, GlobMatcher};

/// A compiled search: where to walk and what to match against paths relative to that folder.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The folder the walk starts in (the search folder plus the pattern's fixed leading folders).
    pub walk_root: PathBuf,
    /// Matches paths relative to `walk_root`.
    pub matcher: GlobMatcher,
    /// The pattern's fixed folders go into a version-control folder (`.git/*`): nothing is listed
    /// from there, as from any other VCS folder.
    pub inside_vcs: bool,
}

/// Characters that make a pattern component a glob rather than a literal name.
const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

/// Builds the plan for `pattern` searched from `search_dir` (absolute).
///
/// An absolute pattern searches from its fixed leading folders (Claude Code splits absolute
/// patterns the same way); a relative one from `search_dir`. Leading folder names without glob
/// characters are moved into the walk root, so `src/lib/*.ts` walks only `src/lib`.
///
/// # Errors
/// The glob's syntax error (e.g. an unclosed `{`).
pub fn plan(pattern: &str, search_dir: &Path) -> Result<Plan, globset::Error> {
    let pattern = pattern.trim();
    let (mut root, relative) = match pattern.strip_prefix('/') {
        Some(rest) => (PathBuf::from("/"), rest),
        None => (search_dir.to_path_buf(), pattern.strip_prefix("./").unwrap_or(pattern)),
    };
    let components: Vec<&str> = relative.split('/').collect();
    let literal = components
        .iter()
        .take(components.len().saturating_sub(1))
        .take_while(|component| !component.contains(GLOB_META))
        .count();
    let inside_vcs = components[..literal].iter().any(|component| VCS_DIRECTORIES.contains(component));
    for component in &components[..literal] {
        root.push(component);
    }
    let rest = components[literal..].join("/");
    let matcher = GlobBuilder::new(&rest).literal_separator(true).backslash_escape(true).build()?.compile_matcher();
    Ok(Plan { walk_root: agent_tools_core::path::normalize(&root), matcher, inside_vcs })
}

/// Walks the plan's root and returns every matching file with its modification time, sorted
/// least recently modified first, ties by path.
///
/// # Errors
/// [`Cancelled`] when the token fired.
pub fn run(plan: &Plan, walk: WalkConfig, cancel: &CancellationToken) -> Result<Vec<(PathBuf, SystemTime)>, Cancelled> {
    if plan.inside_vcs || !plan.walk_root.is_dir() {
        return Ok(Vec::new());
    }
    let builder = walk.builder(&plan.walk_root);
    let mut found = collect_files(
        &builder,
        cancel,
        || (),
        |(), entry| {
            let relative = entry.path().strip_prefix(&plan.walk_root).ok()?;
            if !plan.matcher.is_match(relative) {
                return None;
            }
            let modified =
                entry.metadata().ok().and_then(|meta| meta.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
            Some((entry.path().to_path_buf(), modified))
        },
    )?;
    found.sort_unstable_by(|(a_path, a_time), (b_path, b_time)| a_time.cmp(b_time).then_with(|| a_path.cmp(b_path)));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_leading_folders_move_into_the_walk_root() {
        let base = Path::new("/w");
        let cases = [
            ("src/lib/*.ts", "/w/src/lib", "*.ts"),
            ("src/lib/scoring.ts", "/w/src/lib", "scoring.ts"),
            ("**/*.rs", "/w", "**/*.rs"),
            ("src/**/*.{ts,tsx}", "/w/src", "**/*.{ts,tsx}"),
            ("./a/*.md", "/w/a", "*.md"),
            ("/abs/src/*.c", "/abs/src", "*.c"),
            ("../other/*.rs", "/other", "*.rs"),
            ("*.md", "/w", "*.md"),
        ];
        for (pattern, root, rest) in cases {
            let plan = plan(pattern, base).unwrap();
            assert_eq!(plan.walk_root, Path::new(root), "{pattern}");
            assert_eq!(plan.matcher.glob().glob(), rest, "{pattern}");
        }
    }

    #[test]
    fn star_does_not_cross_folders_but_double_star_does() {
        let plan = plan("*.ts", Path::new("/w")).unwrap();
        assert!(plan.matcher.is_match("a.ts"));
        assert!(!plan.matcher.is_match("src/a.ts"));
        let deep = super::plan("**/*.ts", Path::new("/w")).unwrap();
        assert!(deep.matcher.is_match("a.ts") && deep.matcher.is_match("src/lib/a.ts"));
    }

    #[test]
    fn bad_globs_are_errors() {
        let error = plan("*.{md", Path::new("/w")).unwrap_err();
        assert!(error.to_string().contains("unclosed alternate group"), "{error}");
    }
}
