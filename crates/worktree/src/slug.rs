//! Worktree names ("slugs"): the rules a name must follow, the folder and branch it maps to, and
//! the random name used when the model gives none.

use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

/// Longest accepted name, in characters (Claude Code's limit).
pub const MAX_NAME_CHARS: usize = 64;

/// Where worktrees live, relative to the repository root (Claude Code's `.claude/worktrees`): the
/// permission rules' own constant, so the rules look for the project's worktrees where they are
/// made.
pub use agent_tools_permissions::worktrees::WORKTREES_DIR;

/// What every worktree branch name starts with (Claude Code's `worktree-`).
pub const BRANCH_PREFIX: &str = "worktree-";

/// Why a worktree name is refused. The `Display` text reads as the end of a sentence about the
/// parameter ("The parameter `name` is invalid: must be at most 64 characters …").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Longer than [`MAX_NAME_CHARS`].
    #[error("must be at most 64 characters long (it has {0})")]
    TooLong(usize),
    /// The empty string.
    #[error("must not be empty (leave `name` out to get a generated one)")]
    Empty,
    /// A leading or trailing `/`, or `//`.
    #[error("must not start or end with `/` or contain `//`: every `/`-separated segment needs at least one character")]
    EmptySegment,
    /// A `.` or `..` segment.
    #[error("must not contain a `{0}` segment")]
    DotSegment(String),
    /// A segment with a character outside `A-Z a-z 0-9 . _ -`.
    #[error(
        "has the segment \"{0}\"; each `/`-separated segment may contain only ASCII letters, digits, `.`, `_` and `-`"
    )]
    BadCharacter(String),
    /// Follows the segment rules but git refuses the branch it maps to.
    #[error("would give the branch `{0}`, which git does not accept (no `..`, and no ending in `.` or `.lock`)")]
    NotABranchName(String),
}

/// Checks a worktree name: at most [`MAX_NAME_CHARS`] characters; `/`-separated segments, each
/// non-empty, made of ASCII letters, digits, `.`, `_` and `-`, and neither `.` nor `..`.
///
/// These are Claude Code's rules (checked inside its input schema, so a bad name is an input
/// validation error). One addition: a name whose branch git would refuse (`a..b`, `x.lock`, `x.`)
/// is refused here, where Claude Code lets `git worktree add` fail.
///
/// # Errors
/// The first broken rule, as a [`NameError`].
pub fn validate_name(name: &str) -> Result<(), NameError> {
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong(chars));
    }
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    for segment in name.split('/') {
        if segment.is_empty() {
            return Err(NameError::EmptySegment);
        }
        if segment == "." || segment == ".." {
            return Err(NameError::DotSegment(segment.to_owned()));
        }
        if !segment.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
            return Err(NameError::BadCharacter(segment.escape_debug().to_string()));
        }
    }
    let branch = branch_for(name);
    if branch.contains("..") || branch.ends_with('.') || branch.ends_with(".lock") {
        return Err(NameError::NotABranchName(branch));
    }
    Ok(())
}

/// The name with every `/` replaced by `-` (`feature/login` → `feature-login`), as Claude Code
/// flattens it for the branch name.
pub fn flatten(name: &str) -> String {
    name.replace('/', "-")
}

/// The branch a worktree of this name is created on: `worktree-<flattened name>`.
pub fn branch_for(name: &str) -> String {
    format!("{BRANCH_PREFIX}{}", flatten(name))
}

/// The folder of a worktree of this name under a repository root: `<root>/.claude/worktrees/<name>`.
pub fn worktree_dir(repo_root: &Path, name: &str) -> PathBuf {
    let mut dir = repo_root.join(WORKTREES_DIR);
    dir.extend(name.split('/'));
    dir
}

const ADJECTIVES: &[&str] = &[
    "amber", "brisk", "calm", "clever", "copper", "dapper", "eager", "fuzzy", "gentle", "glossy", "hardy", "humble",
    "jolly", "keen", "lively", "lucky", "mellow", "nimble", "plucky", "quiet", "rapid", "rustic", "sunny", "tidy",
    "vivid", "witty",
];

const NOUNS: &[&str] = &[
    "badger", "beacon", "canyon", "comet", "cedar", "delta", "ember", "falcon", "fjord", "garnet", "harbor", "heron",
    "lagoon", "lantern", "maple", "meadow", "otter", "pebble", "quartz", "raven", "summit", "thistle", "tundra",
    "walrus", "willow", "zephyr",
];

/// A fresh random name such as `brisk-falcon-3f9a`: an adjective, a noun and four hex digits.
///
/// Claude Code names an unnamed worktree after the session's plan slug (three random words);
/// this is our own word list, random per call. Always passes [`validate_name`].
pub fn random_name() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    let bits = hasher.finish();
    let pick = |list: &[&'static str], shift: u32| {
        let index = usize::try_from((bits >> shift) % list.len() as u64).unwrap_or(0);
        list.get(index).copied().unwrap_or("worktree")
    };
    format!("{}-{}-{:04x}", pick(ADJECTIVES, 0), pick(NOUNS, 16), (bits >> 32) & 0xffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_names_pass_and_map_to_a_folder_and_a_branch() {
        for name in ["feature", "feature/login-v2", "a.b_c-d", "x/y/z", &"a".repeat(64)] {
            assert_eq!(validate_name(name), Ok(()), "{name}");
        }
        assert_eq!(branch_for("feature/login"), "worktree-feature-login");
        assert_eq!(
            worktree_dir(Path::new("/repo"), "feature/login"),
            Path::new("/repo/.claude/worktrees/feature/login")
        );
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        assert_eq!(validate_name(&"a".repeat(65)), Err(NameError::TooLong(65)));
        assert_eq!(validate_name(""), Err(NameError::Empty));
        assert_eq!(validate_name("/a"), Err(NameError::EmptySegment));
        assert_eq!(validate_name("a//b"), Err(NameError::EmptySegment));
        assert_eq!(validate_name("a/"), Err(NameError::EmptySegment));
        assert_eq!(validate_name("a/../b"), Err(NameError::DotSegment("..".into())));
        assert_eq!(validate_name("."), Err(NameError::DotSegment(".".into())));
        assert_eq!(validate_name("a b"), Err(NameError::BadCharacter("a b".into())));
        assert_eq!(validate_name("naïve"), Err(NameError::BadCharacter("naïve".into())));
        assert_eq!(validate_name("a\nb"), Err(NameError::BadCharacter("a\\nb".into())));
        assert_eq!(validate_name("a..b"), Err(NameError::NotABranchName("worktree-a..b".into())));
        assert_eq!(validate_name("x.lock"), Err(NameError::NotABranchName("worktree-x.lock".into())));
        assert_eq!(NameError::TooLong(70).to_string(), "must be at most 64 characters long (it has 70)");
    }

    #[test]
    fn random_names_are_valid_and_vary() {
        let names: std::collections::HashSet<String> = (0..20).map(|_| random_name()).collect();
        assert!(names.len() > 1);
        for name in &names {
            assert_eq!(validate_name(name), Ok(()), "{name}");
            assert_eq!(name.split('-').count(), 3, "{name}");
        }
    }
}
