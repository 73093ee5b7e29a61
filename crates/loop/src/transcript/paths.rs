//! Where transcripts live, as Claude Code lays them out: `<config dir>/projects/<slug>/` holds
//! one `<session id>.jsonl` per session, and `<session id>/subagents/agent-<agent id>.jsonl`
//! (with its `agent-<agent id>.meta.json`) per sub-agent; the slug names the project's working
//! directory ([`project_slug`]).

use std::path::{Path, PathBuf};

use agent_tools_host::Environment;

/// The longest slug kept whole; a longer one is cut to this many characters and a hash of the
/// path is added (most file systems take 255 bytes per name).
pub const MAX_SLUG_LEN: usize = 200;

/// The folder of every project's transcripts: `<Claude config dir>/projects`
/// (`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`); `None` without either (no home).
pub fn projects_dir(env: &Environment) -> Option<PathBuf> {
    env.claude_config_dir().map(|dir| dir.join("projects"))
}

/// The folder name of a project's transcripts, as Claude Code and the Agent SDKs make it from
/// the working directory: every character that is not an ASCII letter or digit becomes `-`
/// (`/home/me/my project` → `-home-me-my-project`); a result longer than [`MAX_SLUG_LEN`] is cut
/// to that and followed by `-` and [`path_hash`] of the path. `cwd` is taken as given (pass the
/// canonical path: [`project_dir`] does).
///
/// Characters are Unicode scalar values, as the Python Agent SDK counts them (Claude Code, in
/// JavaScript, counts UTF-16 units: the two differ only for characters beyond the Basic
/// Multilingual Plane, and only in a long path's hash, which readers do not rely on).
pub fn project_slug(cwd: &Path) -> String {
    let text = cwd.to_string_lossy();
    let slug: String = text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    if slug.len() <= MAX_SLUG_LEN {
        return slug;
    }
    // Only ASCII is left: bytes are characters.
    format!("{}-{}", &slug[..MAX_SLUG_LEN], path_hash(&text))
}

/// The 32-bit string hash of Claude Code's folder names, in base 36: `h = h * 31 + c` over the
/// characters, wrapped to a signed 32-bit integer, then its absolute value.
pub fn path_hash(text: &str) -> String {
    let mut hash: i32 = 0;
    for c in text.chars() {
        hash = hash.wrapping_shl(5).wrapping_sub(hash).wrapping_add(c as i32);
    }
    base36(u64::from(hash.unsigned_abs()))
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The canonical form of `cwd` (symbolic links resolved), or `cwd` itself when it cannot be
/// resolved.
fn canonical(cwd: &Path) -> PathBuf {
    cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf())
}

/// The folder a new session started in `cwd` writes to: `<projects>/<slug of canonical cwd>`.
pub fn project_dir(projects: &Path, cwd: &Path) -> PathBuf {
    projects.join(project_slug(&canonical(cwd)))
}

/// The folders that may hold `cwd`'s sessions: [`project_dir`], and for a slug that was cut,
/// any `<first 200>-*` folder (Claude Code itself hashes long paths with another function, so
/// the suffix may differ), as the Agent SDKs look for them.
pub fn project_dirs(projects: &Path, cwd: &Path) -> Vec<PathBuf> {
    let exact = project_dir(projects, cwd);
    let mut dirs = vec![exact.clone()];
    let slug = project_slug(&canonical(cwd));
    if slug.len() > MAX_SLUG_LEN {
        let prefix = format!("{}-", &slug[..MAX_SLUG_LEN]);
        for entry in std::fs::read_dir(projects).into_iter().flatten().filter_map(Result::ok) {
            let path = entry.path();
            if path != exact && path.is_dir() && entry.file_name().to_string_lossy().starts_with(&prefix) {
                dirs.push(path);
            }
        }
    }
    dirs
}

/// The transcript of session `id` started in `cwd`: `<projects>/<slug>/<id>.jsonl`.
pub fn session_file(projects: &Path, cwd: &Path, id: &str) -> PathBuf {
    project_dir(projects, cwd).join(format!("{id}.jsonl"))
}

/// The folder of the sub-agent transcripts of the session whose transcript is `transcript`: a
/// session's `<dir>/<id>.jsonl` has them in `<dir>/<id>/subagents`; a sub-agent's own
/// transcript (already in a `subagents` folder) has its sub-agents beside it, as Claude Code
/// keeps nested agents in the one folder.
pub fn subagents_dir(transcript: &Path) -> Option<PathBuf> {
    let parent = transcript.parent()?;
    if parent.file_name().is_some_and(|name| name == "subagents") {
        return Some(parent.to_path_buf());
    }
    let stem = transcript.file_stem()?;
    Some(parent.join(stem).join("subagents"))
}

/// The git branch checked out where `cwd` is (read from `HEAD`, no process started): the
/// branch name, `HEAD` for a detached head, `None` outside a repository or when `HEAD` cannot
/// be read. Worktrees (a `.git` file naming the git folder) are followed.
pub fn git_branch(cwd: &Path) -> Option<String> {
    let mut dir = Some(cwd);
    while let Some(here) = dir {
        let dot_git = here.join(".git");
        if dot_git.is_dir() {
            return branch_of(&dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let git_dir = if Path::new(target).is_absolute() { PathBuf::from(target) } else { here.join(target) };
            return branch_of(&git_dir);
        }
        dir = here.parent();
    }
    None
}

fn branch_of(git_dir: &Path) -> Option<String> {
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(reference) => {
            let reference = reference.trim();
            Some(reference.strip_prefix("refs/heads/").unwrap_or(reference).to_owned())
        }
        None if !head.is_empty() => Some("HEAD".to_owned()),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Each expected value was computed with the Python Agent SDK's own `_sanitize_path`
    /// (claude_agent_sdk 0.2.189, `_internal/sessions.py`).
    #[test]
    fn slugs_match_the_agent_sdk_short_and_long() {
        assert_eq!(project_slug(Path::new("/home/me/my project")), "-home-me-my-project");
        assert_eq!(project_slug(Path::new("/work/wt-transcripts")), "-work-wt-transcripts");
        assert_eq!(path_hash("/home/me/my project"), "yceri3");
        assert_eq!(path_hash("/work/wt-transcripts"), "dxwsk");
        // Exactly 200 characters: kept whole.
        let at_limit = format!("/srv/{}", "x".repeat(195));
        assert_eq!(project_slug(Path::new(&at_limit)), format!("-srv-{}", "x".repeat(195)));
        // Longer: the first 200, `-`, the hash.
        let cases = [
            (format!("/tmp/{}", "deep/".repeat(50)), format!("-tmp{}--8tnu49", "-deep".repeat(39))),
            (format!("/srv/{}", "x".repeat(196)), format!("-srv-{}-sa6ta1", "x".repeat(195))),
            (
                format!("/data/caf\u{e9}/{}", "na\u{ef}ve-".repeat(40)),
                format!("-data-caf--{}na--bi2wy0", "na-ve-".repeat(31)),
            ),
            (format!("/p/\u{1F600}/{}", "q".repeat(200)), format!("-p---{}-tnkt5v", "q".repeat(195))),
        ];
        for (path, expected) in cases {
            let slug = project_slug(Path::new(&path));
            assert_eq!(slug, expected, "{path}");
            assert_eq!(slug.len(), 207);
        }
    }

    #[test]
    fn a_cut_slug_finds_folders_another_hash_named() {
        let projects = tempfile::tempdir().unwrap();
        let long = projects.path().join("w".repeat(120)).join("v".repeat(120));
        std::fs::create_dir_all(&long).unwrap();
        let exact = project_dir(projects.path(), &long);
        let slug = exact.file_name().unwrap().to_string_lossy().into_owned();
        let other = projects.path().join(format!("{}-bunhash", &slug[..MAX_SLUG_LEN]));
        std::fs::create_dir_all(&other).unwrap();
        std::fs::create_dir_all(projects.path().join("-unrelated")).unwrap();
        assert_eq!(project_dirs(projects.path(), &long), [exact, other]);
    }

    #[test]
    fn subagent_transcripts_sit_in_the_sessions_folder() {
        assert_eq!(
            subagents_dir(Path::new("/c/projects/-p/1234.jsonl")).unwrap(),
            Path::new("/c/projects/-p/1234/subagents")
        );
        assert_eq!(
            subagents_dir(Path::new("/c/projects/-p/1234/subagents/agent-a1.jsonl")).unwrap(),
            Path::new("/c/projects/-p/1234/subagents")
        );
    }

    #[test]
    fn the_branch_is_read_from_head_in_a_repository_and_a_worktree() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(git_branch(&repo.join("src/deep")).as_deref(), Some("feature/x"));
        std::fs::write(repo.join(".git/HEAD"), "0123456789abcdef0123456789abcdef01234567\n").unwrap();
        assert_eq!(git_branch(&repo).as_deref(), Some("HEAD"));
        let worktree = dir.path().join("wt");
        let git_dir = repo.join(".git/worktrees/wt");
        std::fs::create_dir_all(&git_dir).unwrap();
        std::fs::create_dir_all(&worktree).unwrap();
        std::fs::write(git_dir.join("HEAD"), "ref: refs/heads/issue33\n").unwrap();
        std::fs::write(worktree.join(".git"), format!("gitdir: {}\n", git_dir.display())).unwrap();
        assert_eq!(git_branch(&worktree).as_deref(), Some("issue33"));
        assert_eq!(git_branch(Path::new("/")), None);
    }
}
