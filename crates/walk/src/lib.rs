//! # agent-tools-walk: the file walk Glob and Grep share
//!
//! Glob and Grep must agree on which files exist (a user who sees a file in one and not the other
//! stops trusting both), so they walk with the same rules, defined once here:
//!
//! - `.gitignore` (root and nested, and parents of the search root), `.git/info/exclude`, the
//!   global git excludes file, `.ignore` and `.rgignore` are respected — as ripgrep does, and as
//!   Claude Code's Grep does — unless [`WalkConfig::respect_ignore_files`] is off;
//! - hidden files and folders are included, but VCS folders ([`VCS_DIRECTORIES`]) never are;
//! - symbolic links are not followed, so link loops end and each real file is seen once; dangling
//!   links and unreadable folders are skipped quietly;
//! - files and folders named by the session's `Read(…)` deny rules ([`ReadDenyRules`]) are left
//!   out, so what a session may not read never shows up in a search;
//! - the walk is parallel (`ignore`'s parallel walker), and stops promptly when the
//!   cancellation token fires.
//!
//! Results come back in walk order, which varies between runs; callers sort them.
//!
//! ```
//! use agent_tools_walk::{collect_files, WalkConfig};
//! use tokio_util::sync::CancellationToken;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("a.txt"), "x").unwrap();
//! std::fs::create_dir(dir.path().join(".git")).unwrap();
//! std::fs::write(dir.path().join(".git/config"), "x").unwrap();
//! let builder = WalkConfig::default().builder(dir.path());
//! let mut names = collect_files(dir.path(), &builder, &CancellationToken::new(), || (), |_, entry| {
//!     Some(entry.file_name().to_string_lossy().into_owned())
//! }).unwrap();
//! names.sort();
//! assert_eq!(names, ["a.txt"]);
//! ```

mod deny;
mod folder;

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use ignore::overrides::Override;
pub use ignore::{DirEntry, WalkBuilder};
use ignore::{ParallelVisitor, ParallelVisitorBuilder, WalkState};
use tokio_util::sync::CancellationToken;

pub use crate::deny::ReadDenyRules;
pub use crate::folder::OpenFolder;

/// Version-control folders that are never searched (what Claude Code's Grep excludes with
/// `--glob !.git` and friends).
pub const VCS_DIRECTORIES: &[&str] = &[".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// How to walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkConfig {
    /// Respect `.gitignore`, `.ignore`, `.rgignore`, git excludes (default true).
    pub respect_ignore_files: bool,
    /// Include hidden (dot) files and folders (default true). VCS folders stay excluded.
    pub include_hidden: bool,
    /// Worker threads; 0 picks a number from the available cores (default 0).
    pub threads: usize,
}

impl Default for WalkConfig {
    fn default() -> Self {
        Self { respect_ignore_files: true, include_hidden: true, threads: 0 }
    }
}

impl WalkConfig {
    /// A walk builder rooted at `root` with these rules. Callers may add overrides or file types
    /// before passing it to [`collect_files`].
    pub fn builder(&self, root: &Path) -> WalkBuilder {
        self.builder_excluding(root, &ReadDenyRules::default())
    }

    /// [`Self::builder`], leaving out what `deny` names. The walk's root itself is not checked:
    /// callers check it first (see [`ReadDenyRules`]).
    pub fn builder_excluding(&self, root: &Path, deny: &ReadDenyRules) -> WalkBuilder {
        self.builder_filtered(root, deny, None, None)
    }

    /// [`Self::builder_excluding`], keeping only what `globs` and `types` admit, as ripgrep's
    /// `--glob` and `--type` decide between them: globs first — a file a positive glob admits
    /// is searched whatever the types say, one a `!glob` names is left out, and with any
    /// positive glob a file none admits is left out — then the types, for files no glob
    /// decided.
    ///
    /// Unlike ripgrep, no glob brings back a file the ignore files (or `deny`) leave out: its
    /// overrides take precedence over `.gitignore`, so `rg -g '*.md'` lists a `draft.md` that a
    /// nested `.gitignore` names while a Glob call does not (Grep and Glob must
    /// agree on which files exist).
    pub fn builder_filtered(
        &self,
        root: &Path,
        deny: &ReadDenyRules,
        globs: Option<Override>,
        types: Option<ignore::types::Types>,
    ) -> WalkBuilder {
        let mut builder = WalkBuilder::new(root);
        let ignore_files = self.respect_ignore_files;
        builder
            .hidden(!self.include_hidden)
            .parents(ignore_files)
            .ignore(ignore_files)
            .git_ignore(ignore_files)
            .git_global(ignore_files)
            .git_exclude(ignore_files)
            .follow_links(false)
            .threads(self.threads);
        if ignore_files {
            builder.add_custom_ignore_filename(".rgignore");
        }
        let deny = (!deny.is_empty()).then(|| (deny.clone(), deny::Spellings::of(root)));
        let globs = globs.filter(|globs| !globs.is_empty());
        builder.filter_entry(move |entry| {
            if is_vcs_directory(entry) {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            if let Some((deny, root)) = &deny {
                if root.entry_denied(deny, entry.path(), is_dir) {
                    return false;
                }
                // A second hard link to a denied file is denied too (one stat per file, only
                // while deny rules exist).
                let is_file = entry.file_type().is_some_and(|kind| kind.is_file());
                if is_file && entry.metadata().is_ok_and(|metadata| deny.denies_linked(&metadata)) {
                    return false;
                }
            }
            // The walk's root is never filtered out (a file root is searched as named).
            if entry.depth() == 0 {
                return true;
            }
            let by_glob =
                globs.as_ref().map_or(ignore::Match::None, |globs| match globs.matched(entry.path(), is_dir) {
                    ignore::Match::None if !is_dir && globs.num_whitelists() > 0 => ignore::Match::Ignore(()),
                    other => other.map(|_| ()),
                });
            match by_glob {
                ignore::Match::Ignore(()) => false,
                ignore::Match::Whitelist(()) => true,
                ignore::Match::None => {
                    types.as_ref().is_none_or(|types| !types.matched(entry.path(), is_dir).is_ignore())
                }
            }
        });
        builder
    }

    /// The number of walker threads this configuration runs: [`Self::threads`], or when that is
    /// 0 the available cores, at most 12 (`ignore`'s own choice).
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
            threads => threads,
        }
    }
}

fn is_vcs_directory(entry: &DirEntry) -> bool {
    entry.depth() > 0
        && entry.file_type().is_some_and(|kind| kind.is_dir())
        && entry.file_name().to_str().is_some_and(|name| VCS_DIRECTORIES.contains(&name))
}

/// The walk was stopped by its cancellation token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the walk was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Walks `root` with `builder` (made for that root) and collects what `visit` returns for each
/// regular file.
///
/// The walk is parallel, and each worker thread gets its own state from `init` (e.g. a reusable
/// searcher), so `visit` needs no locking. A root without subfolders (an empty folder, a flat
/// one) is walked on the calling thread instead: the parallel walker shares out work by folder,
/// so threads could not help there, and its idle threads poll every millisecond, which would be
/// most of the cost of a small walk. Only regular files are visited (not directories, not
/// symbolic links). Entries that cannot be read are skipped. The order of the result is not
/// deterministic.
///
/// # Errors
/// [`Cancelled`] when `cancel` fired before the walk finished.
pub fn collect_files<S, T, I, F>(
    root: &Path,
    builder: &WalkBuilder,
    cancel: &CancellationToken,
    init: I,
    visit: F,
) -> Result<Vec<T>, Cancelled>
where
    S: Send,
    T: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, &DirEntry) -> Option<T> + Sync,
{
    if !has_subfolders(root) {
        let mut state = init();
        let mut found = Vec::new();
        for (seen, entry) in builder.build().enumerate() {
            if seen % CANCEL_CHECK_EVERY as usize == 0 && cancel.is_cancelled() {
                return Err(Cancelled);
            }
            let Ok(entry) = entry else { continue };
            if entry.file_type().is_some_and(|kind| kind.is_file())
                && let Some(item) = visit(&mut state, &entry)
            {
                found.push(item);
            }
        }
        return if cancel.is_cancelled() { Err(Cancelled) } else { Ok(found) };
    }
    let sink = Mutex::new(Vec::new());
    let mut visitors = Builder { init: &init, visit: &visit, cancel, sink: &sink };
    builder.build_parallel().visit(&mut visitors);
    if cancel.is_cancelled() {
        return Err(Cancelled);
    }
    let batches = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
    Ok(batches.into_iter().flatten().collect())
}

/// Whether `root` is a folder holding at least one folder (symbolic links are not followed, so
/// they do not count). A root that cannot be listed counts as having some, so the walk reports it
/// the usual way.
fn has_subfolders(root: &Path) -> bool {
    match std::fs::read_dir(root) {
        Ok(entries) => entries
            .into_iter()
            .any(|entry| entry.map_or(true, |entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))),
        Err(_) => true,
    }
}

struct Builder<'a, T, I, F> {
    init: &'a I,
    visit: &'a F,
    cancel: &'a CancellationToken,
    sink: &'a Mutex<Vec<Vec<T>>>,
}

impl<'s, S, T, I, F> ParallelVisitorBuilder<'s> for Builder<'s, T, I, F>
where
    S: Send + 's,
    T: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, &DirEntry) -> Option<T> + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            state: Some((self.init)()),
            visits: 0,
            found: Vec::new(),
            visit: self.visit,
            cancel: self.cancel,
            sink: self.sink,
        })
    }
}

/// How many entries a walker thread visits between two looks at the cancellation token: a few
/// dozen small files, well under a millisecond.
const CANCEL_CHECK_EVERY: u32 = 16;

struct Visitor<'a, S, T, F> {
    // `Option` only so the state can be dropped before the results are handed over.
    state: Option<S>,
    /// Entries seen, to look at the cancellation token every [`CANCEL_CHECK_EVERY`] of them
    /// (looking takes a lock the other walker threads want too).
    visits: u32,
    found: Vec<T>,
    visit: &'a F,
    cancel: &'a CancellationToken,
    sink: &'a Mutex<Vec<Vec<T>>>,
}

impl<S, T, F> ParallelVisitor for Visitor<'_, S, T, F>
where
    T: Send,
    F: Fn(&mut S, &DirEntry) -> Option<T> + Sync,
    S: Send,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        self.visits = self.visits.wrapping_add(1);
        if self.visits % CANCEL_CHECK_EVERY == 1 && self.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        let Ok(entry) = entry else { return WalkState::Continue };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            return WalkState::Continue;
        }
        if let Some(state) = self.state.as_mut()
            && let Some(item) = (self.visit)(state, &entry)
        {
            self.found.push(item);
        }
        WalkState::Continue
    }
}

impl<S, T, F> Drop for Visitor<'_, S, T, F> {
    fn drop(&mut self) {
        self.state = None;
        let found = std::mem::take(&mut self.found);
        if !found.is_empty() {
            self.sink.lock().unwrap_or_else(PoisonError::into_inner).push(found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    fn names(root: &Path, config: WalkConfig) -> Vec<String> {
        let builder = config.builder(root);
        let mut found = collect_files(
            root,
            &builder,
            &CancellationToken::new(),
            || (),
            |_, entry| entry.path().strip_prefix(root).ok().map(|p| p.to_string_lossy().into_owned()),
        )
        .unwrap();
        found.sort();
        found
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("src/a.rs", "a"),
            (".hidden/h.txt", "h"),
            (".env", "e"),
            ("node_modules/m.js", "m"),
            ("docs/draft.md", "d"),
            ("docs/guide.md", "g"),
            (".git/HEAD", "ref"),
            (".hg/store", "s"),
        ] {
            let file = root.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, text).unwrap();
        }
        fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
        fs::write(root.join("docs/.gitignore"), "draft.md\n").unwrap();
        dir
    }

    #[test]
    fn respects_ignore_files_includes_hidden_and_skips_vcs_folders() {
        let dir = tree();
        assert_eq!(
            names(dir.path(), WalkConfig::default()),
            [".env", ".gitignore", ".hidden/h.txt", "docs/.gitignore", "docs/guide.md", "src/a.rs"]
        );
    }

    #[test]
    fn can_ignore_the_ignore_files() {
        let dir = tree();
        let config = WalkConfig { respect_ignore_files: false, ..WalkConfig::default() };
        assert_eq!(
            names(dir.path(), config),
            [
                ".env",
                ".gitignore",
                ".hidden/h.txt",
                "docs/.gitignore",
                "docs/draft.md",
                "docs/guide.md",
                "node_modules/m.js",
                "src/a.rs"
            ]
        );
    }

    #[test]
    fn parent_ignore_files_apply_to_a_subfolder_walk() {
        let dir = tree();
        fs::create_dir_all(dir.path().join("node_modules/deep")).unwrap();
        fs::write(dir.path().join("docs/x.md"), "x").unwrap();
        assert_eq!(names(&dir.path().join("docs"), WalkConfig::default()), [".gitignore", "guide.md", "x.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_and_dangling_links_end_quietly() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/file.txt"), "hi").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("a/b/up")).unwrap();
        std::os::unix::fs::symlink(root.join("missing"), root.join("a/dangling.txt")).unwrap();
        assert_eq!(names(root, WalkConfig::default()), ["a/b/file.txt"]);
    }

    #[test]
    fn rgignore_files_count_too() {
        let dir = tree();
        fs::write(dir.path().join(".rgignore"), "src/\n").unwrap();
        assert!(!names(dir.path(), WalkConfig::default()).contains(&"src/a.rs".to_owned()));
    }

    #[test]
    fn read_deny_rules_prune_folders_and_leave_out_files() {
        use agent_tools_core::ToolUseContext;
        use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
        let dir = tree();
        let mut ctx = ToolUseContext::new(dir.path());
        ctx.permission_context = std::sync::Arc::new(
            agent_tools_core::ToolPermissionContext::default()
                .with_rule(PermissionBehavior::Deny, PermissionRuleSource::LocalSettings, "Read(.hidden/**)")
                .with_rule(PermissionBehavior::Deny, PermissionRuleSource::LocalSettings, "Read(*.md)"),
        );
        let deny = ReadDenyRules::from_context(&ctx);
        let builder = WalkConfig::default().builder_excluding(dir.path(), &deny);
        let mut found = collect_files(
            dir.path(),
            &builder,
            &CancellationToken::new(),
            || (),
            |_, entry| entry.path().strip_prefix(dir.path()).ok().map(|p| p.to_string_lossy().into_owned()),
        )
        .unwrap();
        found.sort();
        assert_eq!(found, [".env", ".gitignore", "docs/.gitignore", "src/a.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn rules_on_the_real_folder_apply_through_a_link_to_it() {
        use agent_tools_core::ToolUseContext;
        use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
        let dir = tree();
        let real = fs::canonicalize(dir.path()).unwrap();
        let links = tempfile::tempdir().unwrap();
        let via = links.path().join("via");
        std::os::unix::fs::symlink(&real, &via).unwrap();
        let mut ctx = ToolUseContext::new(&via);
        let rule = format!("Read(/{}/docs/**)", real.display());
        ctx.permission_context = std::sync::Arc::new(agent_tools_core::ToolPermissionContext::default().with_rule(
            PermissionBehavior::Deny,
            PermissionRuleSource::Session,
            rule,
        ));
        let deny = ReadDenyRules::from_context(&ctx);
        let builder = WalkConfig::default().builder_excluding(&via, &deny);
        let found = collect_files(
            &via,
            &builder,
            &CancellationToken::new(),
            || (),
            |_, entry| Some(entry.path().to_string_lossy().into_owned()),
        )
        .unwrap();
        assert!(!found.is_empty());
        assert!(found.iter().all(|path| !path.contains("/docs/")), "{found:?}");
    }

    #[test]
    fn the_thread_count_is_the_cores_unless_set() {
        assert!(WalkConfig::default().thread_count() >= 1);
        assert_eq!(WalkConfig { threads: 3, ..WalkConfig::default() }.thread_count(), 3);
    }

    #[test]
    fn a_file_root_is_walked_as_itself() {
        let dir = tree();
        let file: PathBuf = dir.path().join("src/a.rs");
        let builder = WalkConfig::default().builder(&file);
        let found =
            collect_files(&file, &builder, &CancellationToken::new(), || (), |_, e| Some(e.path().to_path_buf()));
        assert_eq!(found.unwrap(), [file]);
    }

    #[test]
    fn a_cancelled_walk_says_so() {
        let dir = tree();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let builder = WalkConfig::default().builder(dir.path());
        assert_eq!(collect_files(dir.path(), &builder, &cancel, || (), |_, _| Some(())), Err(Cancelled));
        // A flat folder is walked on this thread, and a cancelled walk of it says so too.
        let flat = dir.path().join("src");
        let builder = WalkConfig::default().builder(&flat);
        assert_eq!(collect_files(&flat, &builder, &cancel, || (), |_, _| Some(())), Err(Cancelled));
    }

    #[test]
    fn a_folder_without_subfolders_is_walked_in_place_by_the_same_rules() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".ignore"), "skip.txt\n").unwrap();
        fs::write(dir.path().join("skip.txt"), "x").unwrap();
        fs::write(dir.path().join("keep.txt"), "x").unwrap();
        fs::write(dir.path().join(".hidden"), "x").unwrap();
        assert!(!has_subfolders(dir.path()));
        let here = std::thread::current().id();
        let builder = WalkConfig::default().builder(dir.path());
        let mut found = collect_files(
            dir.path(),
            &builder,
            &CancellationToken::new(),
            || (),
            |_, entry| {
                assert_eq!(std::thread::current().id(), here, "walked on the calling thread");
                Some(entry.file_name().to_string_lossy().into_owned())
            },
        )
        .unwrap();
        found.sort();
        assert_eq!(found, [".hidden", ".ignore", "keep.txt"]);
        // An empty folder yields nothing; a folder with a folder inside is walked in parallel.
        let empty = dir.path().join("empty");
        fs::create_dir(&empty).unwrap();
        assert!(has_subfolders(dir.path()) && !has_subfolders(&empty));
        let builder = WalkConfig::default().builder(&empty);
        assert_eq!(collect_files(&empty, &builder, &CancellationToken::new(), || (), |_, _| Some(())), Ok(Vec::new()));
    }

    #[test]
    fn per_thread_state_is_reused() {
        let dir = tree();
        let builder = WalkConfig { threads: 1, ..WalkConfig::default() }.builder(dir.path());
        // With one worker, one state sees every file: the counter runs 1, 2, 3 …
        let mut seen = collect_files(
            dir.path(),
            &builder,
            &CancellationToken::new(),
            || 0usize,
            |count, _| {
                *count += 1;
                Some(*count)
            },
        )
        .unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (1..=6).collect::<Vec<_>>());
    }
}
