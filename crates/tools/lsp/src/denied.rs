//! Which result files a `Read(…)` deny rule covers: what a language server says about them
//! (locations, symbols, call-hierarchy items) is withheld, as Read, Glob and Grep withhold their
//! contents. The requested file itself went through the read check before the server was asked;
//! these checks are for the *other* files an answer names.
//!
//! Each URI is checked once per answer with [`agent_tools_permissions::check_read_permission`]
//! (which follows symbolic links and finds other hard links of the file): a file a deny rule
//! covers, one an ask rule covers (reading it would need the user), and one whose other hard
//! links could not all be checked are withheld. A URI that is not a `file://` URI names no file
//! on disk and is never withheld. When the permission context has no `Read(…)` deny or ask rule
//! nothing is checked at all, so answers are shown exactly as before.
//!
//! A hover names no source file, so the tool asks for the symbol's definition and checks that
//! instead; and since a readable symbol can carry what the server inferred from a denied file
//! (a variable assigned a denied constant shows the constant's literal type, `token:
//! Literal['…']`), a hover that quotes a literal found in a protected file is withheld too
//! ([`agent_tools_permissions::content::quotes_protected_content`]).

use std::collections::HashSet;

use agent_tools_core::PermissionBehavior;
use agent_tools_core::ToolUseContext;
use agent_tools_lsp::uri_to_path;

/// Whether the context restricts reads: at least one `Read(…)` content deny or ask rule
/// (`Read(./secret/**)`); without one no location can be withheld and none is checked.
pub fn has_read_restrictions(ctx: &ToolUseContext) -> bool {
    [PermissionBehavior::Deny, PermissionBehavior::Ask].into_iter().any(|behavior| {
        ctx.permission_context.content_rules(agent_tools_permissions::filesystem::READ_RULES, behavior).next().is_some()
    })
}

/// Whether what a server says about the file at `path` is withheld: a Read of it would be
/// refused or would need the user (a deny or ask rule, or hard links that could not all be
/// checked).
fn withheld(path: &std::path::Path, ctx: &ToolUseContext) -> bool {
    use agent_tools_core::PermissionResult;
    matches!(
        agent_tools_permissions::check_read_permission(path, ctx),
        PermissionResult::Deny { .. } | PermissionResult::Ask { .. }
    )
}

/// The URIs among `uris` (as the server spelt them) that name files a `Read(…)` deny or ask
/// rule covers (or that could not be cleared). Empty when the context has no such rule; URIs
/// that are not `file://` URIs are never in it.
pub fn denied_uris<'u>(uris: impl IntoIterator<Item = &'u str>, ctx: &ToolUseContext) -> HashSet<String> {
    let mut denied = HashSet::new();
    if !has_read_restrictions(ctx) {
        return denied;
    }
    let mut seen: HashSet<&str> = HashSet::new();
    for uri in uris {
        if seen.insert(uri)
            && let Some(path) = uri_to_path(uri)
            && withheld(&path, ctx)
        {
            denied.insert(uri.to_owned());
        }
    }
    denied
}

/// Keeps the `items` whose URI (`uri` of each) is in no read-denied file, in their order, and
/// returns how many were dropped (0, and `items` untouched, without `Read(…)` deny rules).
pub fn retain_readable<T>(items: &mut Vec<T>, uri: impl Fn(&T) -> &str, ctx: &ToolUseContext) -> usize {
    let denied = denied_uris(items.iter().map(&uri), ctx);
    if denied.is_empty() {
        return 0;
    }
    let before = items.len();
    items.retain(|item| !denied.contains(uri(item)));
    before - items.len()
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use agent_tools_core::{PermissionRuleSource, ToolPermissionContext};
    use agent_tools_lsp::path_to_uri;
    use lsp_types::{Location, Position, Range, Uri};

    use super::*;

    /// A project with `pub/use.py` and `secret/consts.py`, and a context in it carrying
    /// `rules` as deny rules.
    fn project(rules: &[&str]) -> (tempfile::TempDir, ToolUseContext) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (file, text) in [("pub/use.py", "x = 1\n"), ("secret/consts.py", "API_TOKEN = \"t\"\n")] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        let mut permissions = ToolPermissionContext::default();
        for rule in rules {
            permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, *rule);
        }
        let mut ctx = ToolUseContext::new(&root);
        ctx.permission_context = Arc::new(permissions);
        (dir, ctx)
    }

    fn at(path: &Path, line: u32) -> Location {
        let uri: Uri = path_to_uri(path).parse().unwrap();
        let start = Position { line, character: 0 };
        Location { uri, range: Range { start, end: start } }
    }

    fn shown(locations: &[Location], root: &Path) -> Vec<(String, u32)> {
        locations
            .iter()
            .map(|found| {
                let path = uri_to_path(found.uri.as_str()).unwrap();
                (path.strip_prefix(root).unwrap().to_string_lossy().into_owned(), found.range.start.line)
            })
            .collect()
    }

    #[test]
    fn locations_in_denied_files_are_dropped_and_counted() {
        let (_dir, ctx) = project(&["Read(./secret/**)"]);
        let root = ctx.cwd.clone();
        assert!(has_read_restrictions(&ctx));
        let mut locations = vec![
            at(&root.join("secret/consts.py"), 0),
            at(&root.join("pub/use.py"), 3),
            at(&root.join("secret/consts.py"), 5),
            at(&root.join("pub/use.py"), 7),
        ];
        let dropped = retain_readable(&mut locations, |found| found.uri.as_str(), &ctx);
        assert_eq!(dropped, 2);
        assert_eq!(shown(&locations, &root), [("pub/use.py".to_owned(), 3), ("pub/use.py".to_owned(), 7)]);
        // A file the rule does not name, and one that does not exist, are kept.
        let mut others = vec![at(&root.join("pub/use.py"), 1), at(&root.join("pub/gone.py"), 2)];
        assert_eq!(retain_readable(&mut others, |found| found.uri.as_str(), &ctx), 0);
        assert_eq!(others.len(), 2);
    }

    #[test]
    fn a_link_into_the_denied_folder_is_denied_too() {
        let (_dir, ctx) = project(&["Read(./secret/**)"]);
        let root = ctx.cwd.clone();
        std::os::unix::fs::symlink(root.join("secret/consts.py"), root.join("pub/alias.py")).unwrap();
        std::fs::hard_link(root.join("secret/consts.py"), root.join("pub/copy.py")).unwrap();
        let mut locations =
            vec![at(&root.join("pub/alias.py"), 0), at(&root.join("pub/copy.py"), 1), at(&root.join("pub/use.py"), 2)];
        assert_eq!(retain_readable(&mut locations, |found| found.uri.as_str(), &ctx), 2);
        assert_eq!(shown(&locations, &root), [("pub/use.py".to_owned(), 2)]);
    }

    #[test]
    fn without_read_deny_rules_nothing_is_dropped() {
        let (_dir, ctx) = project(&[]);
        let root = ctx.cwd.clone();
        assert!(!has_read_restrictions(&ctx));
        let mut locations = vec![at(&root.join("secret/consts.py"), 0)];
        assert_eq!(retain_readable(&mut locations, |found| found.uri.as_str(), &ctx), 0);
        assert_eq!(locations.len(), 1);
        // An Edit deny rule, or a Read rule naming the whole tool, is no Read content deny rule.
        let (_dir, ctx) = project(&["Edit(./secret/**)", "Read"]);
        assert!(!has_read_restrictions(&ctx));
        assert!(denied_uris([path_to_uri(&ctx.cwd.join("secret/consts.py")).as_str()], &ctx).is_empty());
    }

    #[test]
    fn uris_are_checked_once_and_other_schemes_are_kept() {
        let (_dir, ctx) = project(&["Read(./secret/**)"]);
        let secret = path_to_uri(&ctx.cwd.join("secret/consts.py"));
        let denied = denied_uris([secret.as_str(), secret.as_str(), "jdt://contents/x.class", "not a uri"], &ctx);
        assert_eq!(denied, HashSet::from([secret]));
    }
}
