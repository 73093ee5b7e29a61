//! The diagnostics servers publish (`textDocument/publishDiagnostics`), kept per file, and the
//! block that tells the model which of them an edit introduced.
//!
//! The block is Claude Code's diagnostics attachment: `<new-diagnostics>The following new
//! diagnostic issues were detected:` then, per file, `path:` and one line per issue,
//! `  ✘ [Line 3:5] message [code] (source)`, cut at 4,000 characters with `…[truncated]`. Claude
//! Code names each file by its last path component; we give the path relative to the working
//! directory, so two `__init__.py` files stay apart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};
use serde_json::Value;
use tokio::sync::watch;

/// The longest diagnostics block, in characters (Claude Code's 4,000).
pub const MAX_DIAGNOSTICS_CHARS: usize = 4_000;

/// What is shown at the end of a block cut at [`MAX_DIAGNOSTICS_CHARS`].
pub const TRUNCATED: &str = "…[truncated]";

/// The diagnostics of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDiagnostics {
    /// The file (absolute).
    pub path: PathBuf,
    /// Its diagnostics, in the server's order.
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone)]
struct Entry {
    diagnostics: Vec<Diagnostic>,
    version: Option<i32>,
    seq: u64,
}

/// What every file's diagnostics were at one moment ([`DiagnosticStore::snapshot`]).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    entries: HashMap<PathBuf, (u64, Vec<Diagnostic>)>,
}

/// The last diagnostics each server published, per file; a counter that grows with every
/// publication lets a caller wait for the next one.
#[derive(Debug)]
pub struct DiagnosticStore {
    entries: Mutex<HashMap<PathBuf, Entry>>,
    seq: watch::Sender<u64>,
}

impl Default for DiagnosticStore {
    fn default() -> Self {
        Self { entries: Mutex::default(), seq: watch::channel(0).0 }
    }
}

impl DiagnosticStore {
    /// Takes a `textDocument/publishDiagnostics` notification's params; a file URI that is not
    /// a local path, or a diagnostic that does not parse, is left out.
    pub fn publish(&self, params: &Value) {
        let Some(path) = params.get("uri").and_then(Value::as_str).and_then(crate::uri_to_path) else { return };
        let version = params.get("version").and_then(Value::as_i64).and_then(|version| i32::try_from(version).ok());
        let diagnostics = params
            .get("diagnostics")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(|item| serde_json::from_value(item.clone()).ok()).collect())
            .unwrap_or_default();
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let seq = *self.seq.borrow() + 1;
        entries.insert(path, Entry { diagnostics, version, seq });
        self.seq.send_replace(seq);
    }

    /// The number of publications so far.
    pub fn seq(&self) -> u64 {
        *self.seq.borrow()
    }

    /// The last diagnostics published for `path`, if any were.
    pub fn get(&self, path: &Path) -> Option<Vec<Diagnostic>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).get(path).map(|entry| entry.diagnostics.clone())
    }

    /// Every file's diagnostics now.
    pub fn snapshot(&self) -> Snapshot {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        Snapshot {
            entries: entries
                .iter()
                .map(|(path, entry)| (path.clone(), (entry.seq, entry.diagnostics.clone())))
                .collect(),
        }
    }

    /// The files that have diagnostics.
    pub fn snapshot_paths(&self) -> Vec<PathBuf> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect()
    }

    /// Forgets `path`'s diagnostics (its server was restarted or the file closed).
    pub fn forget(&self, path: &Path) {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).remove(path);
    }

    /// Waits until diagnostics for `path` are published after publication `after`, for
    /// `version` or later when the server says which version they are for; at most until
    /// `deadline`. Whether they came.
    pub async fn wait_for(
        &self,
        path: &Path,
        after: u64,
        version: Option<i32>,
        deadline: tokio::time::Instant,
    ) -> bool {
        let mut seen = self.seq.subscribe();
        loop {
            {
                let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(entry) = entries.get(path)
                    && entry.seq > after
                    && match (entry.version, version) {
                        (Some(published), Some(ours)) => published >= ours,
                        _ => true,
                    }
                {
                    return true;
                }
            }
            match tokio::time::timeout_at(deadline, seen.changed()).await {
                Ok(Ok(())) => {}
                _ => return false,
            }
        }
    }

    /// The errors and warnings published since `before` that it did not have, per file: an
    /// issue counts as old when the file had one with the same severity, message, code and
    /// source (lines move with edits, so positions are not compared).
    pub fn new_since(&self, before: &Snapshot) -> Vec<FileDiagnostics> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let mut changed: Vec<FileDiagnostics> = entries
            .iter()
            .filter(|(path, entry)| before.entries.get(*path).is_none_or(|(seq, _)| entry.seq > *seq))
            .filter_map(|(path, entry)| {
                let old = before.entries.get(path).map(|(_, old)| old.as_slice()).unwrap_or_default();
                let fresh = new_issues(old, &entry.diagnostics);
                (!fresh.is_empty()).then(|| FileDiagnostics { path: path.clone(), diagnostics: fresh })
            })
            .collect();
        changed.sort_by(|a, b| a.path.cmp(&b.path));
        changed
    }
}

type IssueKey = (u8, String, Option<String>, Option<String>);

fn key(diagnostic: &Diagnostic) -> IssueKey {
    let code = diagnostic.code.as_ref().map(code_text);
    (severity_rank(diagnostic.severity), diagnostic.message.clone(), code, diagnostic.source.clone())
}

fn code_text(code: &NumberOrString) -> String {
    match code {
        NumberOrString::Number(number) => number.to_string(),
        NumberOrString::String(text) => text.clone(),
    }
}

/// The errors and warnings of `now` that `old` had no match for (each old issue matches once).
fn new_issues(old: &[Diagnostic], now: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut remaining: HashMap<IssueKey, usize> = HashMap::new();
    for diagnostic in old {
        *remaining.entry(key(diagnostic)).or_default() += 1;
    }
    now.iter()
        .filter(|diagnostic| {
            matches!(diagnostic.severity, Some(DiagnosticSeverity::ERROR | DiagnosticSeverity::WARNING) | None)
        })
        .filter(|diagnostic| match remaining.get_mut(&key(diagnostic)) {
            Some(count) if *count > 0 => {
                *count -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// 1 error, 2 warning, 3 information, 4 hint, 0 none.
fn severity_rank(severity: Option<DiagnosticSeverity>) -> u8 {
    match severity {
        Some(DiagnosticSeverity::ERROR) => 1,
        Some(DiagnosticSeverity::WARNING) => 2,
        Some(DiagnosticSeverity::INFORMATION) => 3,
        Some(DiagnosticSeverity::HINT) => 4,
        _ => 0,
    }
}

/// The mark before an issue: `✘` error, `⚠` warning, `ℹ` information, `★` hint, `●` unknown
/// (Claude Code's figures).
pub fn severity_mark(severity: Option<DiagnosticSeverity>) -> &'static str {
    match severity {
        Some(DiagnosticSeverity::ERROR) => "✘",
        Some(DiagnosticSeverity::WARNING) => "⚠",
        Some(DiagnosticSeverity::INFORMATION) => "ℹ",
        Some(DiagnosticSeverity::HINT) => "★",
        _ => "●",
    }
}

/// The `<new-diagnostics>` block for `files` (see the module docs), paths relative to `cwd`
/// where they lie inside it. Empty `files` give an empty string.
pub fn format_new_diagnostics(files: &[FileDiagnostics], cwd: &Path) -> String {
    if files.is_empty() {
        return String::new();
    }
    let listing = files
        .iter()
        .map(|file| {
            let name = file.path.strip_prefix(cwd).unwrap_or(&file.path).to_string_lossy().replace('\\', "/");
            let lines: Vec<String> = file
                .diagnostics
                .iter()
                .map(|diagnostic| {
                    let start = diagnostic.range.start;
                    let mut line = format!(
                        "  {} [Line {}:{}] {}",
                        severity_mark(diagnostic.severity),
                        u64::from(start.line) + 1,
                        u64::from(start.character) + 1,
                        diagnostic.message
                    );
                    if let Some(code) = &diagnostic.code {
                        line.push_str(&format!(" [{}]", code_text(code)));
                    }
                    if let Some(source) = &diagnostic.source {
                        line.push_str(&format!(" ({source})"));
                    }
                    line
                })
                .collect();
            format!("{name}:\n{}", lines.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let listing = if listing.chars().count() > MAX_DIAGNOSTICS_CHARS {
        let keep = MAX_DIAGNOSTICS_CHARS - TRUNCATED.chars().count();
        format!("{}{TRUNCATED}", listing.chars().take(keep).collect::<String>())
    } else {
        listing
    };
    format!("<new-diagnostics>The following new diagnostic issues were detected:\n\n{listing}</new-diagnostics>")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn diagnostic(line: u32, severity: u8, message: &str) -> Value {
        json!({"range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}},
               "severity": severity, "message": message, "code": "reportX", "source": "Pyright"})
    }

    #[tokio::test]
    async fn only_issues_the_file_did_not_have_are_new_and_they_are_formatted_like_claude_codes() {
        let store = DiagnosticStore::default();
        let uri = "file:///w/src/a.py";
        store.publish(&json!({"uri": uri, "version": 1, "diagnostics": [diagnostic(1, 1, "old error")]}));
        let before = store.snapshot();
        let seq = store.seq();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(50);
        assert!(!store.wait_for(Path::new("/w/src/a.py"), seq, Some(2), deadline).await);
        // The old error moved two lines down; a new error, a hint and a malformed entry arrive.
        store.publish(&json!({"uri": uri, "version": 2, "diagnostics": [
            diagnostic(3, 1, "old error"), diagnostic(0, 1, "new error"), diagnostic(5, 4, "unused"), {"bad": 1}
        ]}));
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
        assert!(store.wait_for(Path::new("/w/src/a.py"), seq, Some(2), deadline).await);
        let fresh = store.new_since(&before);
        assert_eq!(fresh.len(), 1);
        assert_eq!(fresh[0].diagnostics.len(), 1);
        assert_eq!(
            format_new_diagnostics(&fresh, Path::new("/w")),
            "<new-diagnostics>The following new diagnostic issues were detected:\n\n\
             src/a.py:\n  ✘ [Line 1:5] new error [reportX] (Pyright)</new-diagnostics>"
        );
        assert_eq!(format_new_diagnostics(&[], Path::new("/w")), "");
        assert_eq!(store.get(Path::new("/w/src/a.py")).map(|all| all.len()), Some(3));
    }

    #[test]
    fn a_long_block_is_cut_at_four_thousand_characters() {
        let store = DiagnosticStore::default();
        let many: Vec<Value> = (0..200).map(|line| diagnostic(line, 2, &format!("warning number {line}"))).collect();
        store.publish(&json!({"uri": "file:///w/b.py", "diagnostics": many}));
        let block = format_new_diagnostics(&store.new_since(&Snapshot::default()), Path::new("/w"));
        let listing = block
            .strip_prefix("<new-diagnostics>The following new diagnostic issues were detected:\n\n")
            .and_then(|rest| rest.strip_suffix("</new-diagnostics>"))
            .unwrap();
        assert_eq!(listing.chars().count(), MAX_DIAGNOSTICS_CHARS);
        assert!(listing.ends_with(TRUNCATED));
        assert!(listing.starts_with("b.py:\n  ⚠ [Line 1:5] warning number 0 [reportX] (Pyright)\n"));
    }
}
