//! The search itself: turn a pattern into a walk root plus a matcher, walk, sort.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agent_tools_core::CancellationToken;
use agent_tools_walk::{Cancelled, OpenFolder, ReadDenyRules, VCS_DIRECTORIES, WalkConfig, collect_files};
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
    /// How deep below `walk_root` a match can be (`None`: any depth, the pattern has `**`), so
    /// `*.md` reads one folder, not the whole tree.
    pub max_depth: Option<usize>,
}

/// The longest `pattern` accepted, in characters. Paths are at most 4,096 bytes on Linux, so a
/// longer glob is almost surely a mistake, and far longer ones make globset's compiled regex
/// outgrow its size limit (which it reports by panicking).
pub const MAX_PATTERN_CHARS: usize = 10_000;

/// Why a pattern cannot be searched.
#[derive(Debug)]
pub enum PlanError {
    /// Longer than [`MAX_PATTERN_CHARS`]; holds its length in characters.
    TooLong(usize),
    /// Not a valid glob (e.g. an unclosed `{`).
    Syntax(globset::Error),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLong(chars) => {
                write!(f, "the pattern is {chars} characters long, and a pattern may have at most {MAX_PATTERN_CHARS}")
            }
            Self::Syntax(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for PlanError {}

/// Characters that make a pattern component a glob rather than a literal name.
const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

/// Builds the plan for `pattern` searched from `search_dir` (absolute).
///
/// An absolute pattern searches from its fixed leading folders (Claude Code splits absolute
/// patterns the same way); so does one starting with `~/` when `home` is known; a relative one
/// searches from `search_dir`. Leading folder names without glob characters are moved into the
/// walk root, so `src/lib/*.ts` walks only `src/lib`.
///
/// # Errors
/// [`PlanError::TooLong`] past [`MAX_PATTERN_CHARS`]; [`PlanError::Syntax`] for the glob's syntax
/// error (e.g. an unclosed `{`).
pub fn plan(pattern: &str, search_dir: &Path, home: Option<&Path>) -> Result<Plan, PlanError> {
    let parsed = parse(pattern, search_dir, home)?;
    Ok(Plan {
        walk_root: parsed.walk_root,
        matcher: parsed.glob.compile_matcher(),
        inside_vcs: parsed.inside_vcs,
        max_depth: parsed.max_depth,
    })
}

/// Checks `pattern` as [`plan`] would, without compiling its matcher (the costly part), for
/// the validation step.
///
/// # Errors
/// As [`plan`]'s.
pub fn check(pattern: &str, search_dir: &Path, home: Option<&Path>) -> Result<(), PlanError> {
    parse(pattern, search_dir, home).map(|_| ())
}

/// A pattern taken apart: everything of a [`Plan`] but the compiled matcher.
struct Parsed {
    walk_root: PathBuf,
    glob: globset::Glob,
    inside_vcs: bool,
    max_depth: Option<usize>,
}

fn parse(pattern: &str, search_dir: &Path, home: Option<&Path>) -> Result<Parsed, PlanError> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(PlanError::TooLong(chars));
    }
    let pattern = pattern.trim();
    let (mut root, relative) = match (pattern.strip_prefix('/'), pattern.strip_prefix("~/"), home) {
        (Some(rest), _, _) => (PathBuf::from("/"), rest),
        (None, Some(rest), Some(home)) => (home.to_path_buf(), rest),
        _ => (search_dir.to_path_buf(), pattern.strip_prefix("./").unwrap_or(pattern)),
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
    let glob =
        GlobBuilder::new(&rest).literal_separator(true).backslash_escape(true).build().map_err(PlanError::Syntax)?;
    Ok(Parsed { walk_root: agent_tools_core::path::normalize(&root), glob, inside_vcs, max_depth: max_depth(&rest) })
}

/// The most folder levels a path matching `glob` can have: its number of components, unless `**`
/// (any depth) or a brace group holding a `/` (alternatives of different depths) makes that
/// unknown.
fn max_depth(glob: &str) -> Option<usize> {
    if glob.contains("**") {
        return None;
    }
    for group in glob.split('{').skip(1) {
        if group.split('}').next().is_some_and(|inside| inside.contains('/')) {
            return None;
        }
    }
    Some(glob.matches('/').count() + 1)
}

/// Walks the plan's root, leaving out what `deny` names, and returns every matching file with its
/// modification time, sorted least recently modified first, ties by path.
///
/// # Errors
/// [`Cancelled`] when the token fired.
pub fn run(
    plan: &Plan,
    walk: WalkConfig,
    deny: &ReadDenyRules,
    cancel: &CancellationToken,
) -> Result<Vec<(PathBuf, SystemTime)>, Cancelled> {
    if plan.inside_vcs || !plan.walk_root.is_dir() {
        return Ok(Vec::new());
    }
    let mut builder = walk.builder_excluding(&plan.walk_root, deny);
    builder.max_depth(plan.max_depth);
    let mut found = collect_files(&plan.walk_root, &builder, cancel, OpenFolder::default, |folder, entry| {
        if !plan.matcher.is_match(relative_to(entry.path(), &plan.walk_root)?) {
            return None;
        }
        let modified = folder.modified(entry.path()).unwrap_or(SystemTime::UNIX_EPOCH);
        Some((entry.path().to_path_buf(), modified))
    })?;
    found.sort_unstable_by(|(a_path, a_time), (b_path, b_time)| {
        a_time
            .cmp(b_time)
            .then_with(|| a_path.as_os_str().as_encoded_bytes().cmp(b_path.as_os_str().as_encoded_bytes()))
    });
    Ok(found)
}

/// `path` relative to `root`, for a path the walk built by joining names onto `root`: the bytes
/// after `root` and its separator (quicker than [`Path::strip_prefix`], which compares component
/// by component, and this runs once per file).
#[cfg(unix)]
fn relative_to<'a>(path: &'a Path, root: &Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let root = root.as_os_str().as_bytes();
    let rest = path.as_os_str().as_bytes().strip_prefix(root)?;
    let rest = if root.ends_with(b"/") { rest } else { rest.strip_prefix(b"/")? };
    Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
}

#[cfg(not(unix))]
fn relative_to<'a>(path: &'a Path, root: &Path) -> Option<&'a Path> {
    path.strip_prefix(root).ok()
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
            let plan = plan(pattern, base, None).unwrap();
            assert_eq!(plan.walk_root, Path::new(root), "{pattern}");
            assert_eq!(plan.matcher.glob().glob(), rest, "{pattern}");
        }
    }

    #[test]
    fn star_does_not_cross_folders_but_double_star_does() {
        let plan = plan("*.ts", Path::new("/w"), None).unwrap();
        assert!(plan.matcher.is_match("a.ts"));
        assert!(!plan.matcher.is_match("src/a.ts"));
        let deep = super::plan("**/*.ts", Path::new("/w"), None).unwrap();
        assert!(deep.matcher.is_match("a.ts") && deep.matcher.is_match("src/lib/a.ts"));
    }

    #[test]
    fn depth_is_bounded_unless_the_pattern_can_cross_folders() {
        let depth = |pattern: &str| plan(pattern, Path::new("/w"), None).unwrap().max_depth;
        assert_eq!(depth("*.md"), Some(1));
        assert_eq!(depth("src/lib/*.ts"), Some(1));
        assert_eq!(depth("*/x/*.rs"), Some(3));
        assert_eq!(depth("{a,b}/*.rs"), Some(2));
        assert_eq!(depth("{a/b,c}/*.rs"), None);
        assert_eq!(depth("src/**/*.rs"), None);
    }

    #[test]
    fn a_tilde_pattern_starts_from_home_when_known() {
        let home = Path::new("/home/me");
        let plan = plan("~/notes/*.md", Path::new("/w"), Some(home)).unwrap();
        assert_eq!(plan.walk_root, Path::new("/home/me/notes"));
        assert_eq!(super::plan("~/notes/*.md", Path::new("/w"), None).unwrap().walk_root, Path::new("/w/~/notes"));
    }

    #[test]
    fn walk_paths_are_made_relative_to_the_root() {
        assert_eq!(relative_to(Path::new("/w/src/a.rs"), Path::new("/w")), Some(Path::new("src/a.rs")));
        assert_eq!(relative_to(Path::new("/etc/hosts"), Path::new("/")), Some(Path::new("etc/hosts")));
        assert_eq!(relative_to(Path::new("/wx/a.rs"), Path::new("/w")), None);
    }

    #[test]
    fn bad_globs_are_errors() {
        let error = plan("*.{md", Path::new("/w"), None).unwrap_err();
        assert!(error.to_string().contains("unclosed alternate group"), "{error}");
    }

    #[test]
    fn patterns_up_to_the_limit_compile_and_longer_ones_are_refused() {
        // The costliest forms globset turns into regexes, each as long as allowed: none may
        // reach its regex size limit (globset would panic).
        let fill = |unit: &str| unit.repeat(MAX_PATTERN_CHARS / unit.chars().count());
        for pattern in [
            fill("a"),
            fill("é"),
            fill("?"),
            fill("*"),
            fill("**/"),
            fill("[!a]"),
            fill("[a-zé]"),
            fill("{a,b}"),
            fill("\\*"),
            format!(
                "{{{}}}",
                fill("ab,").trim_end_matches(',').chars().take(MAX_PATTERN_CHARS - 2).collect::<String>()
            ),
        ] {
            assert!(pattern.chars().count() <= MAX_PATTERN_CHARS);
            let compiled = plan(&pattern, Path::new("/w"), None);
            assert!(compiled.is_ok() || matches!(compiled, Err(PlanError::Syntax(_))), "{}", &pattern[..20]);
        }
        let long = "a".repeat(MAX_PATTERN_CHARS + 1);
        let error = plan(&long, Path::new("/w"), None).unwrap_err();
        assert_eq!(error.to_string(), "the pattern is 10001 characters long, and a pattern may have at most 10000");
    }
}
