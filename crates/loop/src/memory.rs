//! Memory files: `CLAUDE.md` instructions, loaded as Claude Code loads them.
//!
//! In order (later files take precedence, so they come last):
//! 1. **user**: `<config dir>/CLAUDE.md` (`~/.claude/CLAUDE.md`, or under `$CLAUDE_CONFIG_DIR`);
//! 2. **project**: from the filesystem root down to the working directory, each folder's
//!    `CLAUDE.md`, `.claude/CLAUDE.md` and `.claude/rules/*.md` (sorted by name);
//! 3. **local**: each of those folders' `CLAUDE.local.md` (private, not checked in).
//!
//! A line's `@path` tokens import other files (`@./notes.md`, `@docs/style.md`, `@~/prefs.md`,
//! `@/abs/path.md`), resolved against the importing file's folder, up to [`MAX_IMPORT_DEPTH`]
//! levels deep; a file is loaded once (an import cycle ends there). Tokens inside fenced code
//! blocks and inline code spans are not imports, nor are e-mail addresses (`a@b.c`). Missing and
//! unreadable files are skipped. Each file is cut at [`MAX_FILE_BYTES`].
//!
//! Whatever is loaded goes to the model, so every import passes a check first (the caller's
//! `may_import`, see [`load`]): the agent loop loads an import only when a Read of it would be
//! allowed without asking, and an untrusted project's memory may import only inside the
//! project. Claude Code follows imports anywhere; a cloned repository's `CLAUDE.md` saying
//! `@~/.ssh/id_ed25519` would send the key with the first request. Skipped imports are
//! returned ([`Memory::skipped`]) so the user is told, never silently dropped; a memory file a
//! deny rule covers is skipped the same way.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How deep `@path` imports are followed (Claude Code's limit).
pub const MAX_IMPORT_DEPTH: usize = 5;

/// Most bytes read of one memory file.
pub const MAX_FILE_BYTES: usize = 40_000;

/// Where a memory file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// The user's own instructions, for every project.
    User,
    /// The project's instructions, checked into the codebase.
    Project,
    /// The user's private instructions for this project.
    Local,
}

impl MemoryKind {
    /// How the file is described to the model.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "user's private global instructions for all projects",
            Self::Project => "project instructions, checked into the codebase",
            Self::Local => "user's private project instructions, not checked in",
        }
    }
}

/// One loaded memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Its path.
    pub path: PathBuf,
    /// Where it comes from (an import takes its importer's kind).
    pub kind: MemoryKind,
    /// The memory file that imports it (`@path`); `None` for a memory file found in its place.
    pub importer: Option<PathBuf>,
    /// Its text (imports are separate entries, right after their importer).
    pub content: String,
}

/// Which memory files load, by the setting source Claude Code ties each kind to: user memory to
/// `user`, project memory to `project`, local memory to `local` (`--setting-sources`; the Agent
/// SDKs pass `""` by default, and then no `CLAUDE.md` loads, as in Claude Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySources {
    /// `~/.claude/CLAUDE.md` and its imports.
    pub user: bool,
    /// The project's `CLAUDE.md`, `.claude/CLAUDE.md` and `.claude/rules/*.md`, and their imports.
    pub project: bool,
    /// The `CLAUDE.local.md` files and their imports.
    pub local: bool,
}

impl MemorySources {
    /// Every kind.
    pub const ALL: Self = Self { user: true, project: true, local: true };

    /// From a `--setting-sources` value (`user,project,local`, any subset, comma- or
    /// space-separated; `""` for none).
    ///
    /// ```
    /// use agent_tools_loop::memory::MemorySources;
    /// assert_eq!(MemorySources::from_setting_sources(""), MemorySources { user: false, project: false, local: false });
    /// assert_eq!(MemorySources::from_setting_sources("user, project"), MemorySources { user: true, project: true, local: false });
    /// ```
    pub fn from_setting_sources(list: &str) -> Self {
        let has = |name: &str| list.split([',', ' ']).map(str::trim).any(|source| source == name);
        Self { user: has("user"), project: has("project"), local: has("local") }
    }

    /// Whether memory of this kind loads.
    pub fn includes(self, kind: MemoryKind) -> bool {
        match kind {
            MemoryKind::User => self.user,
            MemoryKind::Project => self.project,
            MemoryKind::Local => self.local,
        }
    }
}

/// A memory file or import that was not loaded because the check refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file refused (as resolved: absolute, `..` removed).
    pub path: PathBuf,
    /// The memory file that imports it; `None` when it is a memory file itself.
    pub importer: Option<PathBuf>,
    /// Why, as the end of a sentence ("a permission rule denies reading it").
    pub reason: String,
}

/// What [`load`] found: the files to show the model, and what it left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    /// The loaded files, in the order the model reads them.
    pub files: Vec<MemoryFile>,
    /// The files the check refused, in the order they were met.
    pub skipped: Vec<Skipped>,
}

impl Memory {
    /// One notice for the user naming every skipped file and why (`None` when none was):
    /// `Memory files not loaded: /p/.env (imported by /p/CLAUDE.md): a permission rule denies
    /// reading it; …`.
    pub fn skipped_notice(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let items: Vec<String> = self
            .skipped
            .iter()
            .map(|skip| match &skip.importer {
                Some(importer) => {
                    format!("{} (imported by {}): {}", skip.path.display(), importer.display(), skip.reason)
                }
                None => format!("{}: {}", skip.path.display(), skip.reason),
            })
            .collect();
        Some(format!("Memory files not loaded: {}.", items.join("; ")))
    }
}

/// What a memory file is checked as: a memory file found in its usual place, or an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load<'a> {
    /// A `CLAUDE.md`, rule or local file found where memory files live.
    File,
    /// An `@path` import made by the file `by`.
    Import {
        /// The importing file.
        by: &'a Path,
    },
}

/// Loads the memory files for a session in `cwd`, with the user's files in `config_dir`;
/// `home` is what `@~/…` imports start from (none: they are skipped). Only the kinds `sources`
/// names are read ([`MemorySources::ALL`] for every one). Nothing is read from the process
/// environment.
///
/// `may_import(path, kind, load)` is asked before each file is read — the memory files found
/// in their usual places and every import (kind: the importer's) — and answers `Ok(())` or why
/// it must not be loaded; a refused file is listed in [`Memory::skipped`] and its imports are
/// not followed.
pub fn load(
    cwd: &Path,
    config_dir: Option<&Path>,
    home: Option<&Path>,
    sources: MemorySources,
    may_import: &dyn Fn(&Path, MemoryKind, Load<'_>) -> Result<(), String>,
) -> Memory {
    let mut loader = Loader {
        seen: HashSet::new(),
        memory: Memory::default(),
        home: home.map(Path::to_path_buf),
        may_import,
        sources,
    };
    if let Some(dir) = config_dir {
        loader.file(&dir.join("CLAUDE.md"), MemoryKind::User, 0);
    }
    let folders: Vec<&Path> = {
        let mut up: Vec<&Path> = cwd.ancestors().collect();
        up.reverse();
        up
    };
    for folder in &folders {
        loader.file(&folder.join("CLAUDE.md"), MemoryKind::Project, 0);
        loader.file(&folder.join(".claude").join("CLAUDE.md"), MemoryKind::Project, 0);
        let mut rules: Vec<PathBuf> = std::fs::read_dir(folder.join(".claude").join("rules"))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.path())
                    .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
                    .collect()
            })
            .unwrap_or_default();
        rules.sort();
        for rule in rules {
            loader.file(&rule, MemoryKind::Project, 0);
        }
    }
    for folder in &folders {
        loader.file(&folder.join("CLAUDE.local.md"), MemoryKind::Local, 0);
    }
    loader.memory
}

struct Loader<'a> {
    seen: HashSet<PathBuf>,
    memory: Memory,
    home: Option<PathBuf>,
    may_import: &'a dyn Fn(&Path, MemoryKind, Load<'_>) -> Result<(), String>,
    sources: MemorySources,
}

impl Loader<'_> {
    fn file(&mut self, path: &Path, kind: MemoryKind, depth: usize) {
        self.load(path, kind, depth, None);
    }

    fn load(&mut self, path: &Path, kind: MemoryKind, depth: usize, importer: Option<&Path>) {
        if !self.sources.includes(kind) {
            return;
        }
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if depth > MAX_IMPORT_DEPTH || !key.is_file() || !self.seen.insert(key) {
            return;
        }
        let load = match importer {
            Some(by) => Load::Import { by },
            None => Load::File,
        };
        if let Err(reason) = (self.may_import)(path, kind, load) {
            self.memory.skipped.push(Skipped {
                path: path.to_path_buf(),
                importer: importer.map(Path::to_path_buf),
                reason,
            });
            return;
        }
        let Ok(bytes) = std::fs::read(path) else { return };
        let bytes = &bytes[..bytes.len().min(MAX_FILE_BYTES)];
        let content = String::from_utf8_lossy(bytes).into_owned();
        if content.trim().is_empty() {
            return;
        }
        let imports = imports(&content);
        self.memory.files.push(MemoryFile {
            path: path.to_path_buf(),
            kind,
            importer: importer.map(Path::to_path_buf),
            content,
        });
        let base = path.parent().unwrap_or(Path::new("/"));
        for import in imports {
            let target = if let Some(rest) = import.strip_prefix("~/") {
                match &self.home {
                    Some(home) => home.join(rest),
                    None => continue,
                }
            } else {
                base.join(&import)
            };
            self.load(&agent_tools_core::path::normalize(&target), kind, depth + 1, Some(path));
        }
    }
}

/// The agent loop's check of memory files and imports (see the module docs), over the
/// session's permission context:
///
/// 1. a file a `Read(…)` deny rule covers (or another name of it, through a link) is never
///    loaded, wherever it was found;
/// 2. an import made by the project's or the local memory of a folder that is not trusted must
///    lie inside the project folder (`project`), links resolved;
/// 3. an import must be readable without asking: inside the working directories, the user's
///    own Claude folder (`config_dir`), or allowed by a `Read(…)` allow rule — and not covered by
///    an ask rule.
///
/// The memory files themselves (found in their usual places) pass rule 1 only.
pub struct ImportPolicy<'a> {
    /// The session's context: its permission rules and working directories.
    pub ctx: &'a agent_tools_core::ToolUseContext,
    /// Whether the project folder is trusted.
    pub trusted: bool,
    /// The project folder (canonical).
    pub project: &'a Path,
    /// The user's Claude folder (`~/.claude`).
    pub config_dir: Option<&'a Path>,
}

impl ImportPolicy<'_> {
    /// `Ok(())` when `path` may be loaded, else why not (the end of a sentence).
    ///
    /// # Errors
    /// The reason it is skipped, as the user will read it.
    pub fn check(&self, path: &Path, kind: MemoryKind, load: Load<'_>) -> Result<(), String> {
        use agent_tools_core::PermissionResult;
        const DENIED: &str = "a permission rule denies reading it";
        if load == Load::File {
            let denied = agent_tools_permissions::is_read_denied(path, self.ctx);
            return if denied { Err(DENIED.to_owned()) } else { Ok(()) };
        }
        let read = agent_tools_permissions::check_read_permission(path, self.ctx);
        if matches!(read, PermissionResult::Deny { .. }) {
            return Err(DENIED.to_owned());
        }
        let inside = |folder: &Path| agent_tools_permissions::paths::lies_within(path, &[folder.to_path_buf()]);
        if !self.trusted && kind != MemoryKind::User && !inside(self.project) {
            return Err(format!(
                "{} is not a trusted folder, so its memory files may import only files inside it",
                self.project.display()
            ));
        }
        match read {
            PermissionResult::Allow { .. } => Ok(()),
            PermissionResult::Ask { .. } => Err("a permission rule asks before reading it".to_owned()),
            PermissionResult::Deny { .. } => Err(DENIED.to_owned()),
            PermissionResult::Passthrough { .. } if self.config_dir.is_some_and(inside) => Ok(()),
            PermissionResult::Passthrough { .. } => Err(
                "it is outside the working directories, so reading it would need approval (a Read allow rule for it \
                 lets it load)"
                    .to_owned(),
            ),
        }
    }
}

/// The `@path` imports of a memory file's text, in order.
pub fn imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        let mut previous = ' ';
        for (at, c) in line.char_indices() {
            if c == '`' {
                in_code = !in_code;
            } else if c == '@' && !in_code && (previous.is_whitespace() || at == 0) {
                let token: String = line[at + 1..].chars().take_while(|c| !c.is_whitespace()).collect();
                let token = token.trim_end_matches([',', '.', ';', ':', ')']);
                if !token.is_empty() && !token.starts_with('@') {
                    found.push(token.to_owned());
                }
            }
            previous = c;
        }
    }
    found
}

/// The memory files as the text the model reads (empty when there are none): a short preface,
/// then each file with its path and kind.
pub fn render(files: &[MemoryFile]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "Instructions from the user's and the project's CLAUDE.md files follow. Follow them: they take \
         precedence over your default behaviour.\n",
    );
    for file in files {
        text.push_str(&format!("\nContents of {} ({}):\n\n{}\n", file.path.display(), file.kind.label(), file.content));
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn imports_skip_code_and_addresses() {
        let text = "See @docs/style.md and @~/prefs.md.\nmail me at me@example.com\n`@not/this`\n```\n@nor/this\n```\n@./last.md";
        assert_eq!(imports(text), vec!["docs/style.md", "~/prefs.md", "./last.md"]);
    }

    #[test]
    fn files_load_in_claude_code_order_with_imports_once() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("proj");
        let sub = project.join("sub");
        std::fs::create_dir_all(sub.join(".claude/rules")).unwrap();
        let config = root.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("CLAUDE.md"), "user prefs").unwrap();
        std::fs::write(project.join("CLAUDE.md"), "top @notes.md @notes.md @~/prefs.md").unwrap();
        std::fs::write(root.path().join("prefs.md"), "home prefs").unwrap();
        std::fs::write(project.join("notes.md"), "imported notes @CLAUDE.md").unwrap();
        std::fs::write(sub.join(".claude/CLAUDE.md"), "sub rules").unwrap();
        std::fs::write(sub.join(".claude/rules/b.md"), "rule b").unwrap();
        std::fs::write(sub.join(".claude/rules/a.md"), "rule a").unwrap();
        std::fs::write(project.join("CLAUDE.local.md"), "mine").unwrap();
        let all = MemorySources::ALL;
        let files = load(&sub, Some(&config), Some(root.path()), all, &|_, _, _| Ok(())).files;
        let texts: Vec<&str> = files.iter().map(|file| file.content.as_str()).collect();
        assert_eq!(
            texts,
            [
                "user prefs",
                "top @notes.md @notes.md @~/prefs.md",
                "imported notes @CLAUDE.md",
                "home prefs",
                "sub rules",
                "rule a",
                "rule b",
                "mine"
            ]
        );
        assert_eq!(files[0].kind, MemoryKind::User);
        assert_eq!(files[2].kind, MemoryKind::Project);
        assert_eq!(files[7].kind, MemoryKind::Local);
        // Without a home, `@~/` imports are skipped.
        assert_eq!(load(&sub, Some(&config), None, all, &|_, _, _| Ok(())).files.len(), 7);
        // By setting source: only the user's own; none at all.
        let user_only = MemorySources { user: true, project: false, local: false };
        let texts = |sources| {
            load(&sub, Some(&config), Some(root.path()), sources, &|_, _, _| Ok(()))
                .files
                .into_iter()
                .map(|file| file.content)
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(user_only), ["user prefs"]);
        assert!(texts(MemorySources::from_setting_sources("")).is_empty());
        let text = render(&files);
        assert!(text.contains(&format!("Contents of {} (project instructions", project.join("CLAUDE.md").display())));
        assert!(render(&[]).is_empty());
    }

    #[test]
    fn a_refused_import_is_listed_with_its_importer_and_its_own_imports_are_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().canonicalize().unwrap().join("proj");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("CLAUDE.md"), "see @notes.md and @secret.md").unwrap();
        std::fs::write(project.join("notes.md"), "notes").unwrap();
        std::fs::write(project.join("secret.md"), "SECRET @deeper.md").unwrap();
        std::fs::write(project.join("deeper.md"), "DEEPER").unwrap();
        let asked = std::sync::Mutex::new(Vec::new());
        let check = |path: &Path, kind: MemoryKind, load: Load<'_>| {
            asked.lock().unwrap().push((path.file_name().unwrap().to_owned(), kind, load == Load::File));
            if path.ends_with("secret.md") { Err("a permission rule denies reading it".to_owned()) } else { Ok(()) }
        };
        let memory = load(&project, None, None, MemorySources::ALL, &check);
        let texts: Vec<&str> = memory.files.iter().map(|file| file.content.as_str()).collect();
        assert_eq!(texts, ["see @notes.md and @secret.md", "notes"]);
        assert_eq!(
            memory.skipped,
            [Skipped {
                path: project.join("secret.md"),
                importer: Some(project.join("CLAUDE.md")),
                reason: "a permission rule denies reading it".into()
            }]
        );
        assert_eq!(
            memory.skipped_notice().unwrap(),
            format!(
                "Memory files not loaded: {} (imported by {}): a permission rule denies reading it.",
                project.join("secret.md").display(),
                project.join("CLAUDE.md").display()
            )
        );
        let asked = asked.into_inner().unwrap();
        assert_eq!(asked[0], ("CLAUDE.md".into(), MemoryKind::Project, true));
        assert_eq!(asked[1], ("notes.md".into(), MemoryKind::Project, false));
        assert!(!asked.iter().any(|(name, ..)| name == "deeper.md"), "{asked:?}");
        assert_eq!(Memory::default().skipped_notice(), None);
    }

    #[test]
    fn the_policy_loads_imports_a_read_would_allow_unasked_and_keeps_untrusted_memory_inside() {
        use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let (project, config, other) = (root.join("proj"), root.join("home/.claude"), root.join("other"));
        for dir in [&project, &config, &other] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mut ctx = agent_tools_core::ToolUseContext::new(&project);
        let rules = agent_tools_core::ToolPermissionContext {
            project_dir: Some(project.clone()),
            launch_dir: Some(project.clone()),
            ..Default::default()
        }
        .with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, "Read(./.env)")
        .with_rule(PermissionBehavior::Ask, PermissionRuleSource::ProjectSettings, "Read(./ask.md)");
        ctx.permission_context = std::sync::Arc::new(rules);
        let by = project.join("CLAUDE.md");
        let import = Load::Import { by: &by };
        let verdict = |trusted: bool, path: &Path, kind: MemoryKind| {
            ImportPolicy { ctx: &ctx, trusted, project: &project, config_dir: Some(&config) }
                .check(path, kind, import)
                .map_err(|why| why.split(' ').take(4).collect::<Vec<_>>().join(" "))
        };
        for trusted in [false, true] {
            assert_eq!(verdict(trusted, &project.join("docs/a.md"), MemoryKind::Project), Ok(()));
            assert_eq!(
                verdict(trusted, &project.join(".env"), MemoryKind::Project),
                Err("a permission rule denies".into())
            );
            assert_eq!(
                verdict(trusted, &project.join("ask.md"), MemoryKind::Project),
                Err("a permission rule asks".into())
            );
            assert_eq!(
                verdict(trusted, &other.join("notes.md"), MemoryKind::User),
                Err("it is outside the".into()),
                "outside the working directories: a Read would ask"
            );
            // The user's own memory may import from the user's Claude folder.
            assert_eq!(verdict(trusted, &config.join("prefs.md"), MemoryKind::User), Ok(()));
        }
        // The Claude folder is the user's: a trusted project's memory may import from it, an
        // untrusted one's may not leave the project at all.
        assert_eq!(verdict(true, &config.join("prefs.md"), MemoryKind::Project), Ok(()));
        let shown = project.display().to_string();
        let refused = verdict(false, &config.join("prefs.md"), MemoryKind::Local).unwrap_err();
        assert_eq!(refused, format!("{shown} is not a"));
        // A link inside the project to a file outside it is outside.
        #[cfg(unix)]
        {
            std::fs::write(other.join("key"), "k").unwrap();
            std::os::unix::fs::symlink(other.join("key"), project.join("key.md")).unwrap();
            assert!(verdict(false, &project.join("key.md"), MemoryKind::Project).is_err());
            assert!(verdict(true, &project.join("key.md"), MemoryKind::Project).is_err());
        }
        // Memory files found in their places pass the deny rules only.
        let policy = ImportPolicy { ctx: &ctx, trusted: false, project: &project, config_dir: None };
        assert_eq!(policy.check(&root.join("CLAUDE.md"), MemoryKind::Project, Load::File), Ok(()));
        assert!(policy.check(&project.join(".env"), MemoryKind::Project, Load::File).is_err());
    }
}
