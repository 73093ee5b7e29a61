//! Paths in tool inputs: resolving them against the working directory, and showing result paths
//! relative to it.
//!
//! Mirrors Claude Code's `expandPath` (trim, `~`, relative → cwd) and the relativising of Glob and
//! Grep results (paths inside the cwd are shown relative, others absolute).

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// Resolves a path as given by the model: surrounding whitespace is trimmed, a leading `~` or
/// `~/` becomes `home` (when known), a relative path is joined to `cwd`, and `.`/`..` components
/// are removed lexically (symlinks are not resolved). An empty input resolves to `cwd`.
///
/// ```
/// use std::path::Path;
/// use agent_tools_core::path::expand_path;
/// let cwd = Path::new("/work/proj");
/// assert_eq!(expand_path(" src/../Cargo.toml ", cwd, None), Path::new("/work/proj/Cargo.toml"));
/// assert_eq!(expand_path("/etc/hosts", cwd, None), Path::new("/etc/hosts"));
/// assert_eq!(expand_path("~/x", cwd, Some(Path::new("/home/me"))), Path::new("/home/me/x"));
/// ```
pub fn expand_path(input: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return normalize(cwd);
    }
    let expanded = match (trimmed, home) {
        ("~", Some(home)) => home.to_path_buf(),
        (text, Some(home)) if text.starts_with("~/") => home.join(&text[2..]),
        (text, _) => PathBuf::from(text),
    };
    if expanded.is_absolute() { normalize(&expanded) } else { normalize(&cwd.join(expanded)) }
}

/// The first executable file named `name` in `search_path` (a `PATH`-style list; `None` finds
/// nothing), as a shell would find the program. Library code never reads `PATH` itself: the
/// caller passes it.
pub fn find_program(name: &str, search_path: Option<&OsStr>) -> Option<PathBuf> {
    search_path.into_iter().flat_map(std::env::split_paths).map(|dir| dir.join(name)).find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = path.metadata() else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

/// The top folder of the git work tree `dir` is in: `dir` or the nearest folder above it that
/// holds a `.git` entry (a folder, or the file of a linked worktree or submodule). `None`
/// outside every work tree. No process is started; links in `dir` are not resolved.
///
/// ```
/// use agent_tools_core::path::git_work_tree_top;
/// let dir = std::env::temp_dir().join(format!("git-top-example-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
/// std::fs::create_dir_all(dir.join("repo/src/deep")).unwrap();
/// assert_eq!(git_work_tree_top(&dir.join("repo/src/deep")), Some(dir.join("repo").as_path()));
/// assert_eq!(git_work_tree_top(std::path::Path::new("/")), None);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn git_work_tree_top(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|folder| folder.join(".git").exists())
}

/// Removes `.` and `..` components lexically. `..` at the root stays at the root.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

/// Whether `rest` has neither `//` nor `/./` in it (spellings the component-wise prefix check
/// would tidy).
fn tidy_spelling(rest: &[u8]) -> bool {
    !rest.windows(2).any(|pair| pair == b"//") && !rest.windows(3).any(|triple| triple == b"/./")
}

/// Shows `path` relative to `cwd` when it lies inside it (`src/main.rs`), and absolute otherwise.
/// The path itself equal to `cwd` shows as `.`.
pub fn display_relative(path: &Path, cwd: &Path) -> String {
    // The common case, a plain `cwd/rest` spelling, on bytes (searches show thousands of paths);
    // anything else (`.` parts, doubled or trailing separators) the component-wise way.
    let (bytes, base) = (path.as_os_str().as_encoded_bytes(), cwd.as_os_str().as_encoded_bytes());
    if let Some(rest) = bytes.strip_prefix(base).and_then(|rest| rest.strip_prefix(b"/"))
        && !base.is_empty()
        && !base.ends_with(b"/")
        && !rest.is_empty()
        && !rest.starts_with(b"/")
        && !rest.starts_with(b"./")
        && rest != b"."
        && !rest.ends_with(b"/")
        && !rest.ends_with(b"/.")
        && tidy_spelling(rest)
        && let Ok(rest) = std::str::from_utf8(rest)
    {
        return rest.to_owned();
    }
    match path.strip_prefix(cwd) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_a_search_path() {
        let found = find_program("sh", Some(OsStr::new("/nonexistent:/bin:/usr/bin")));
        assert!(found.is_some_and(|path| path.ends_with("sh")));
        assert_eq!(find_program("sh", None), None);
        assert_eq!(find_program("no-such-program-here", Some(OsStr::new("/bin"))), None);
    }

    #[test]
    fn expands_like_claude_code() {
        let cwd = Path::new("/w");
        assert_eq!(expand_path("a.txt", cwd, None), Path::new("/w/a.txt"));
        assert_eq!(expand_path("./a/./b", cwd, None), Path::new("/w/a/b"));
        assert_eq!(expand_path("../x", cwd, None), Path::new("/x"));
        assert_eq!(expand_path("/../../x", cwd, None), Path::new("/x"));
        assert_eq!(expand_path("", cwd, None), Path::new("/w"));
        assert_eq!(expand_path("~", cwd, Some(Path::new("/h"))), Path::new("/h"));
        // Without a known home, `~` is an ordinary relative name.
        assert_eq!(expand_path("~/x", cwd, None), Path::new("/w/~/x"));
    }

    #[test]
    fn displays_paths_relative_to_the_working_directory() {
        let cwd = Path::new("/w/proj");
        assert_eq!(display_relative(Path::new("/w/proj/src/a.rs"), cwd), "src/a.rs");
        assert_eq!(display_relative(Path::new("/w/other/a.rs"), cwd), "/w/other/a.rs");
        assert_eq!(display_relative(Path::new("/w/project/a.rs"), cwd), "/w/project/a.rs");
        assert_eq!(display_relative(Path::new("/w/proj"), cwd), ".");
        // The byte-wise shortcut shows every spelling as the component-wise comparison does.
        let reference = |path: &Path, cwd: &Path| match path.strip_prefix(cwd) {
            Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
            Ok(rest) => rest.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        };
        for path in [
            "/w/proj/src//a.rs",
            "/w/proj/./src/a.rs",
            "/w/proj/src/./a.rs",
            "/w/proj/src/",
            "/w/proj//src",
            "/w/proj/.",
            "/w/proj/a",
            "/w/projx/a",
            "/w/proj/\u{e9}",
        ] {
            for base in ["/w/proj", "/w/proj/", "/w/proj/.", "/", "/w"] {
                let (path, base) = (Path::new(path), Path::new(base));
                assert_eq!(
                    display_relative(path, base),
                    reference(path, base),
                    "{} in {}",
                    path.display(),
                    base.display()
                );
            }
        }
        assert_eq!(display_relative(Path::new("/w/proj/a"), Path::new("/w/proj/")), "a");
    }
}
