//! The other worktrees of a project: where a rule anchored to the project also applies.
//!
//! `EnterWorktree` and `Agent {isolation: "worktree"}` check the project out again under
//! `.claude/worktrees/<name>/` (and a user may add worktrees anywhere with `git worktree add`).
//! Each is a second copy of the project's files, so a deny rule anchored to the project —
//! `Read(./secret/**)` — must cover `.claude/worktrees/<name>/secret/` as well, or a kept
//! worktree hands out what the rule protects. [`counterparts`] finds, for a folder of the
//! project, the same folder in each of the repository's other worktrees.
//!
//! Nothing here starts git: the worktrees are read from git's own records
//! (`<common dir>/worktrees/<id>/gitdir`) and found by looking for checkouts (a `.git` entry)
//! under the project's `.claude/worktrees/` folder, so a worktree whose record was removed is
//! still found. Both are bounded ([`MAX_WORKTREES`], [`MAX_SCAN_DEPTH`]) so a hostile
//! repository cannot make every permission check slow.
//!
//! Only restricting rules (deny and ask) get these extra roots: an allow rule covering a path in
//! another checkout would widen what the user granted.

use std::path::{Path, PathBuf};

use agent_tools_core::path::normalize;

/// The most worktrees looked at for one folder.
pub const MAX_WORKTREES: usize = 256;

/// How many folders deep `.claude/worktrees/` is searched for checkouts (a worktree name may
/// have `/`-separated segments: `feature/login`).
pub const MAX_SCAN_DEPTH: usize = 6;

/// Where worktree sessions put their checkouts, relative to the repository's main root (Claude
/// Code's `.claude/worktrees`; `agent-tools-worktree` creates them there).
pub const WORKTREES_DIR: &str = ".claude/worktrees";

/// The folders that stand for `dir` in the other worktrees of the git repository `dir` is in:
/// for `/repo/app` with a worktree at `/repo/.claude/worktrees/w`, that is
/// `/repo/.claude/worktrees/w/app` — and, seen from inside a worktree, the main checkout and the
/// other worktrees likewise. Empty when `dir` is not in a git work tree. `dir` itself is never
/// in the list; the list is sorted and has no duplicates.
///
/// ```
/// use agent_tools_permissions::worktrees::counterparts;
/// let dir = tempfile::tempdir().unwrap();
/// let repo = dir.path().canonicalize().unwrap();
/// std::fs::create_dir_all(repo.join(".git")).unwrap();
/// std::fs::create_dir_all(repo.join(".claude/worktrees/fix/login")).unwrap();
/// std::fs::write(repo.join(".claude/worktrees/fix/login/.git"), "gitdir: elsewhere\n").unwrap();
/// assert_eq!(counterparts(&repo.join("src")), [repo.join(".claude/worktrees/fix/login/src")]);
/// assert!(counterparts(std::path::Path::new("/")).is_empty());
/// ```
pub fn counterparts(dir: &Path) -> Vec<PathBuf> {
    let dir = normalize(dir);
    let Some(top) = agent_tools_core::path::git_work_tree_top(&dir) else { return Vec::new() };
    let relative = dir.strip_prefix(top).unwrap_or(Path::new("")).to_path_buf();
    let top = top.to_path_buf();
    let mut checkouts = Vec::new();
    // Worktree sessions' checkouts sit below this checkout and below the main one.
    let mut worktree_parents = vec![top.clone()];
    if let Some(common) = common_dir(&top) {
        // The main checkout holds the common dir as its `.git`.
        if common.file_name().is_some_and(|name| name == ".git")
            && let Some(main) = common.parent().filter(|main| *main != top)
        {
            checkouts.push(main.to_path_buf());
            worktree_parents.push(main.to_path_buf());
        }
        registered(&common, &mut checkouts);
    }
    for parent in worktree_parents {
        scan(&parent.join(WORKTREES_DIR), MAX_SCAN_DEPTH, &mut checkouts);
    }
    let mut out: Vec<PathBuf> = checkouts
        .into_iter()
        .map(|checkout| normalize(&checkout))
        .filter(|checkout| *checkout != top)
        .map(|checkout| checkout.join(&relative))
        .collect();
    out.sort();
    out.dedup();
    out.truncate(MAX_WORKTREES);
    out
}

/// The repository's common git dir for the checkout at `top`: its `.git` folder, or — for a
/// linked worktree, whose `.git` is a file `gitdir: <admin dir>` — the folder the admin dir's
/// `commondir` file names.
fn common_dir(top: &Path) -> Option<PathBuf> {
    let dot_git = top.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let text = read_small(&dot_git)?;
    let admin = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?.trim();
    let admin = top.join(admin);
    let common = read_small(&admin.join("commondir"))
        .map(|text| normalize(&admin.join(text.trim())))
        .unwrap_or_else(|| normalize(&admin));
    Some(common)
}

/// The checkouts git records under `<common>/worktrees/<id>/gitdir` (each names the
/// checkout's `.git` file).
fn registered(common: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(common.join("worktrees")) else { return };
    for entry in entries.filter_map(Result::ok).take(MAX_WORKTREES) {
        let admin = entry.path();
        let Some(text) = read_small(&admin.join("gitdir")) else { continue };
        let named = admin.join(text.trim());
        if let Some(checkout) = normalize(&named).parent() {
            out.push(checkout.to_path_buf());
        }
    }
}

/// The folders below `folder` (at most `depth` levels) that hold a `.git` entry: checkouts.
/// A checkout's own contents are not searched; links are not followed.
fn scan(folder: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth == 0 || out.len() >= MAX_WORKTREES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.filter_map(Result::ok) {
        if out.len() >= MAX_WORKTREES {
            return;
        }
        if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let path = entry.path();
        if std::fs::symlink_metadata(path.join(".git")).is_ok() {
            out.push(path);
        } else {
            scan(&path, depth - 1, out);
        }
    }
}

/// A small text file (a git pointer file), or `None`.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(4096).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn registered_and_scanned_worktrees_are_found_from_either_side() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git/worktrees")).unwrap();
        // A worktree git knows of, outside the project.
        let outside = root.join("elsewhere/wt");
        write(&outside.join(".git"), &format!("gitdir: {}\n", repo.join(".git/worktrees/wt").display()));
        write(&repo.join(".git/worktrees/wt/gitdir"), &format!("{}\n", outside.join(".git").display()));
        write(&repo.join(".git/worktrees/wt/commondir"), "../..\n");
        // A worktree session's checkout, with a nested name, found by scanning.
        let nested = repo.join(".claude/worktrees/feature/login");
        write(&nested.join(".git"), "gitdir: ../../../../.git/worktrees/login\n");
        // A folder without a checkout is not a worktree.
        std::fs::create_dir_all(repo.join(".claude/worktrees/empty/deeper")).unwrap();

        assert_eq!(counterparts(&repo.join("app")), [outside.join("app"), nested.join("app")], "sorted");
        // Seen from the outside worktree: the main checkout and the nested one.
        let mut expected = vec![repo, nested];
        expected.sort();
        assert_eq!(counterparts(&outside), expected);
        assert!(counterparts(&root).is_empty(), "not in a repository");
    }
}
