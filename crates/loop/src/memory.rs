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
    /// Its text (imports are separate entries, right after their importer).
    pub content: String,
}

/// Loads the memory files for a session in `cwd`, with the user's files in `config_dir`;
/// `home` is what `@~/…` imports start from (none: they are skipped). Nothing is read from
/// the process environment.
pub fn load(cwd: &Path, config_dir: Option<&Path>, home: Option<&Path>) -> Vec<MemoryFile> {
    let mut loader = Loader { seen: HashSet::new(), files: Vec::new(), home: home.map(Path::to_path_buf) };
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
    loader.files
}

struct Loader {
    seen: HashSet<PathBuf>,
    files: Vec<MemoryFile>,
    home: Option<PathBuf>,
}

impl Loader {
    fn file(&mut self, path: &Path, kind: MemoryKind, depth: usize) {
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if depth > MAX_IMPORT_DEPTH || !key.is_file() || !self.seen.insert(key) {
            return;
        }
        let Ok(bytes) = std::fs::read(path) else { return };
        let bytes = &bytes[..bytes.len().min(MAX_FILE_BYTES)];
        let content = String::from_utf8_lossy(bytes).into_owned();
        if content.trim().is_empty() {
            return;
        }
        let imports = imports(&content);
        self.files.push(MemoryFile { path: path.to_path_buf(), kind, content });
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
            self.file(&agent_tools_core::path::normalize(&target), kind, depth + 1);
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
        let files = load(&sub, Some(&config), Some(root.path()));
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
        assert_eq!(load(&sub, Some(&config), None).len(), 7);
        let text = render(&files);
        assert!(text.contains(&format!("Contents of {} (project instructions", project.join("CLAUDE.md").display())));
        assert!(render(&[]).is_empty());
    }
}
