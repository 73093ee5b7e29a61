//! Text that quotes what a `Read(…)` rule protects.
//!
//! Some answers carry a file's content without naming the file: a language server's hover on a
//! readable variable shows the literal type it inferred from a denied constant
//! (`token: Literal['sk-live-…']`), and its diagnostics quote such types. Such text cannot be
//! traced to its source, so [`quotes_protected_content`] looks the other way: it takes the
//! quoted literals of the text and searches the files the `Read(…)` deny and ask rules cover
//! ([`crate::links::read_rule_paths`]) for them. The search is bounded ([`MAX_FILES`],
//! [`MAX_BYTES`]); when it cannot look at everything it answers yes (fail closed).

use std::path::Path;

use agent_tools_core::ToolUseContext;

/// The most covered files read for one check.
pub const MAX_FILES: usize = 2_000;

/// The most bytes read for one check.
pub const MAX_BYTES: u64 = 32 * 1024 * 1024;

/// Quoted literals shorter than this (in characters) are too common to mean anything.
pub const MIN_LITERAL_CHARS: usize = 4;

/// The literals `text` quotes (between `'…'`, `"…"` or `` `…` `` on one line) of at least
/// [`MIN_LITERAL_CHARS`] characters, without the quotes.
///
/// ```
/// use agent_tools_permissions::content::quoted_literals;
/// assert_eq!(quoted_literals(r#"token: Literal['sk-9f1c'] | "abc" | `long one`"#), ["sk-9f1c", "long one"]);
/// ```
pub fn quoted_literals(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(start) = rest.find(['\'', '"', '`']) {
            let quote = rest[start..].chars().next().unwrap_or('"');
            let after = &rest[start + quote.len_utf8()..];
            let Some(end) = after.find(quote) else { break };
            let literal = &after[..end];
            if literal.chars().count() >= MIN_LITERAL_CHARS && !found.contains(&literal) {
                found.push(literal);
            }
            rest = &after[end + quote.len_utf8()..];
        }
    }
    found
}

/// Whether `text` quotes a literal found in a file a `Read(…)` deny or ask rule covers — or
/// might: `true` as well when the covered files could not all be searched (too many, too large,
/// a hard link elsewhere). `false` at once when the text quotes nothing or no rule covers
/// anything.
pub fn quotes_protected_content(text: &str, ctx: &ToolUseContext) -> bool {
    let literals = quoted_literals(text);
    if literals.is_empty() {
        return false;
    }
    let (covered, complete) = crate::links::read_rule_paths(ctx);
    if covered.is_empty() {
        return !complete;
    }
    let mut search = Search { literals: &literals, files: 0, bytes: 0 };
    covered.iter().any(|path| search.path(path)) || !complete
}

struct Search<'a> {
    literals: &'a [&'a str],
    files: usize,
    bytes: u64,
}

impl Search<'_> {
    /// Whether the file at `path` (or a file in the folder, links not followed) holds a literal,
    /// or the budget ran out before it could be read (fail closed).
    fn path(&mut self, path: &Path) -> bool {
        let Ok(metadata) = std::fs::metadata(path) else { return false };
        if metadata.is_dir() {
            let Ok(entries) = std::fs::read_dir(path) else { return false };
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
                    continue;
                }
                if self.path(&entry.path()) {
                    return true;
                }
            }
            return false;
        }
        self.files += 1;
        self.bytes += metadata.len();
        if self.files > MAX_FILES || self.bytes > MAX_BYTES {
            return true;
        }
        let Ok(content) = std::fs::read(path) else { return false };
        self.literals.iter().any(|literal| contains(&content, literal.as_bytes()))
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && memchr::memmem::find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::ToolPermissionContext;
    use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
    use std::sync::Arc;

    #[test]
    fn a_literal_from_a_covered_file_is_found_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secret/deep")).unwrap();
        std::fs::write(root.join("secret/deep/consts.py"), "API_TOKEN = 'sk-9f1c-live'\n").unwrap();
        std::fs::write(root.join("public.py"), "NAME = 'hello world'\n").unwrap();
        let mut ctx = ToolUseContext::new(&root);
        let hover = "(variable) token: Literal['sk-9f1c-live']";
        assert!(!quotes_protected_content(hover, &ctx), "no rule, nothing is protected");
        ctx.permission_context = Arc::new(ToolPermissionContext::default().with_rule(
            PermissionBehavior::Deny,
            PermissionRuleSource::Session,
            "Read(./secret/**)",
        ));
        assert!(quotes_protected_content(hover, &ctx));
        assert!(!quotes_protected_content("(variable) name: Literal['hello world']", &ctx));
        assert!(!quotes_protected_content("def fetch() -> str", &ctx), "nothing quoted");
        // An ask rule protects its files as well.
        ctx.permission_context = Arc::new(ToolPermissionContext::default().with_rule(
            PermissionBehavior::Ask,
            PermissionRuleSource::Session,
            "Read(./secret/**)",
        ));
        assert!(quotes_protected_content(hover, &ctx));
    }
}
