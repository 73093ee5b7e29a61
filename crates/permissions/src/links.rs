//! Hard links: one file, several names.
//!
//! `Read(…)` and `Edit(…)` rules name paths, so a second name for a denied file
//! (`ln secret/a pub/hard`) would carry its content past them. Here a file is denied when any of
//! its names is: a regular file with more than one link whose device and inode belong to a file
//! a deny rule covers is denied too.
//!
//! Finding a file's other names means walking folders, so the cost is bounded: only files with
//! `st_nlink > 1` are ever looked up, only the deny rules' scopes (the folders holding everything
//! they can match, [`CompiledRule::scopes`]) are walked, and at most [`MAX_SCOPE_ENTRIES`]
//! entries are visited. Past that bound the answer is [`LinkVerdict::Unknown`], which the checks
//! turn into a question rather than a guess.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionBehavior, PermissionRule};

use crate::paths::{CompiledRule, compile_rules};

/// Most folder entries visited to collect the denied files' identities, over all rules.
pub const MAX_SCOPE_ENTRIES: usize = 50_000;

/// A file's identity on this machine: device and inode numbers.
pub type FileId = (u64, u64);

/// The identity of `path` (symbolic links followed) when it is a regular file with more than
/// one link; `None` for anything else, or off Unix.
pub fn multiply_linked(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().as_ref().and_then(multiply_linked_metadata)
}

/// [`multiply_linked`] from metadata already read.
pub fn multiply_linked_metadata(metadata: &std::fs::Metadata) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        (metadata.is_file() && metadata.nlink() > 1).then(|| (metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

/// The identities of the multiply-linked files a set of deny rules covers.
#[derive(Debug, Clone, Default)]
pub struct LinkedDenials {
    ids: HashMap<FileId, PermissionRule>,
    complete: bool,
}

impl LinkedDenials {
    /// Walks the rules' scopes (without following links, hidden files and ignored files
    /// included) and records every multiply-linked regular file a rule covers, with the rule.
    /// Stops after [`MAX_SCOPE_ENTRIES`] entries; the result then says it is incomplete.
    pub fn collect(rules: &[CompiledRule]) -> Self {
        let mut out = Self { ids: HashMap::new(), complete: true };
        let mut budget = MAX_SCOPE_ENTRIES;
        for rule in rules {
            // A rule's roots come in two spellings (as given, links resolved): one walk each
            // folder.
            let mut walked: Vec<PathBuf> = Vec::new();
            for scope in rule.scopes() {
                let real = std::fs::canonicalize(scope).unwrap_or_else(|_| scope.to_path_buf());
                if walked.contains(&real) {
                    continue;
                }
                walked.push(real);
                if !out.walk(rule, scope, &mut budget) {
                    out.complete = false;
                    return out;
                }
            }
        }
        out
    }

    /// Walks one scope for one rule; `false` when the budget ran out.
    fn walk(&mut self, rule: &CompiledRule, scope: &Path, budget: &mut usize) -> bool {
        let Ok(metadata) = std::fs::symlink_metadata(scope) else { return true };
        if !metadata.is_dir() {
            self.consider(rule, scope, &metadata);
            return true;
        }
        let mut stack = vec![scope.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if *budget == 0 {
                    return false;
                }
                *budget -= 1;
                let Ok(metadata) = entry.metadata() else { continue };
                let path = entry.path();
                if metadata.is_dir() {
                    stack.push(path);
                } else {
                    self.consider(rule, &path, &metadata);
                }
            }
        }
        true
    }

    fn consider(&mut self, rule: &CompiledRule, path: &Path, metadata: &std::fs::Metadata) {
        if let Some(id) = multiply_linked_metadata(metadata)
            && !self.ids.contains_key(&id)
            && rule.covers_spelling(path, false, true)
        {
            self.ids.insert(id, rule.rule.clone());
        }
    }

    /// The deny rule covering another name of the file `id`, if any.
    pub fn rule_for(&self, id: FileId) -> Option<&PermissionRule> {
        self.ids.get(&id)
    }

    /// Whether every scope was walked to the end.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// No denied file has another name (as far as the walk got).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// What the hard links of a path come to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkVerdict {
    /// Not another name of a denied file (or a file with only one name).
    Clear,
    /// Another name of a file this deny rule covers.
    Denied(PermissionRule),
    /// A multiply-linked file whose other names could not all be checked.
    Unknown,
}

/// Whether `path` is another name of a file a `family(…)` deny rule (`Read`, `Edit`) covers.
/// Costs one `stat` unless the path is a multiply-linked regular file and such rules exist.
pub fn linked_denial(family: &str, path: &Path, ctx: &ToolUseContext) -> LinkVerdict {
    let Some(id) = multiply_linked(path) else { return LinkVerdict::Clear };
    let rules = compile_rules(family, PermissionBehavior::Deny, ctx);
    if rules.is_empty() {
        return LinkVerdict::Clear;
    }
    let denials = LinkedDenials::collect(&rules);
    match denials.rule_for(id) {
        Some(rule) => LinkVerdict::Denied(rule.clone()),
        None if !denials.is_complete() => LinkVerdict::Unknown,
        None => LinkVerdict::Clear,
    }
}

/// What a sandboxed command must not see for the `Read(…)` deny and ask rules to hold: every
/// existing path such a rule covers (a covered folder as a whole), with links resolved — and
/// whether that list is complete. It is not when a rule's scope is too large to walk
/// ([`MAX_SCOPE_ENTRIES`]) or a covered file has other hard links (they could be anywhere).
/// A sandbox that hides only part of them must not stand in for the user's approval.
pub fn read_rule_paths(ctx: &ToolUseContext) -> (Vec<PathBuf>, bool) {
    let rules: Vec<CompiledRule> = [PermissionBehavior::Deny, PermissionBehavior::Ask]
        .into_iter()
        .flat_map(|behavior| compile_rules(crate::filesystem::READ_RULES, behavior, ctx))
        .collect();
    if rules.is_empty() {
        return (Vec::new(), true);
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut budget = MAX_SCOPE_ENTRIES;
    let mut complete = true;
    'rules: for rule in &rules {
        for scope in rule.scopes() {
            let Ok(metadata) = std::fs::symlink_metadata(scope) else { continue };
            let mut push = |path: &Path| {
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                if !found.contains(&real) {
                    found.push(real);
                }
            };
            if rule.covers_spelling(scope, metadata.is_dir(), true) {
                push(scope);
                continue;
            }
            if !metadata.is_dir() {
                continue;
            }
            let mut stack = vec![scope.to_path_buf()];
            while let Some(dir) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else { continue };
                for entry in entries.flatten() {
                    if budget == 0 {
                        complete = false;
                        break 'rules;
                    }
                    budget -= 1;
                    let path = entry.path();
                    let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                    if rule.covers_spelling(&path, is_dir, false) {
                        push(&path);
                    } else if is_dir {
                        stack.push(path);
                    }
                }
            }
        }
    }
    let deny = compile_rules(crate::filesystem::READ_RULES, PermissionBehavior::Deny, ctx);
    let links = LinkedDenials::collect(&deny);
    complete &= links.is_complete() && links.is_empty();
    (found, complete)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use agent_tools_core::PermissionRuleSource;
    use agent_tools_core::ToolPermissionContext;
    use std::sync::Arc;

    fn ctx(root: &Path, rules: &[&str]) -> ToolUseContext {
        let mut permissions = ToolPermissionContext::default();
        for rule in rules {
            permissions = permissions.with_rule(PermissionBehavior::Deny, PermissionRuleSource::ProjectSettings, *rule);
        }
        let mut ctx = ToolUseContext::new(root);
        ctx.permission_context = Arc::new(permissions);
        ctx
    }

    #[test]
    fn a_second_name_of_a_denied_file_is_denied() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secret")).unwrap();
        std::fs::create_dir_all(root.join("pub")).unwrap();
        std::fs::write(root.join("secret/a"), "TOKEN").unwrap();
        std::fs::write(root.join("pub/plain"), "x").unwrap();
        std::fs::hard_link(root.join("secret/a"), root.join("pub/hard")).unwrap();
        std::fs::write(root.join("pub/own"), "y").unwrap();
        std::fs::hard_link(root.join("pub/own"), root.join("pub/own2")).unwrap();
        let ctx = ctx(&root, &["Read(./secret/**)"]);
        assert!(matches!(linked_denial("Read", &root.join("pub/hard"), &ctx), LinkVerdict::Denied(_)));
        assert_eq!(linked_denial("Read", &root.join("pub/plain"), &ctx), LinkVerdict::Clear);
        assert_eq!(linked_denial("Read", &root.join("pub/own2"), &ctx), LinkVerdict::Clear, "linked, not denied");
        assert_eq!(linked_denial("Edit", &root.join("pub/hard"), &ctx), LinkVerdict::Clear, "no Edit rules");
        // A link to a file a slash-less pattern names anywhere below the project.
        std::fs::write(root.join("pub/prod.env"), "K=1").unwrap();
        std::fs::hard_link(root.join("pub/prod.env"), root.join("notes.txt")).unwrap();
        let ctx = super::tests::ctx(&root, &["Read(*.env)"]);
        assert!(matches!(linked_denial("Read", &root.join("notes.txt"), &ctx), LinkVerdict::Denied(_)));
    }

    #[test]
    fn what_a_sandbox_must_hide_is_every_covered_path_when_they_can_all_be_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for file in ["secret/a", "pub/a", "pub/prod.env", "deep/x/.env", "deep/x/keep"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "k").unwrap();
        }
        let ctx = ctx(&root, &["Read(./secret/**)", "Read(*.env)", "Read(./missing/**)"]);
        let (mut paths, complete) = read_rule_paths(&ctx);
        paths.sort();
        assert_eq!(paths, [root.join("deep/x/.env"), root.join("pub/prod.env"), root.join("secret")]);
        assert!(complete);
        // A second name of a denied file could be anywhere: the list is not complete.
        std::fs::hard_link(root.join("secret/a"), root.join("pub/h")).unwrap();
        assert!(!read_rule_paths(&ctx).1);
        assert_eq!(read_rule_paths(&super::tests::ctx(&root, &[])), (Vec::new(), true));
    }

    #[test]
    fn a_scope_too_large_to_walk_leaves_the_answer_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let big = root.join("big");
        std::fs::create_dir_all(&big).unwrap();
        for i in 0..=MAX_SCOPE_ENTRIES {
            std::fs::write(big.join(i.to_string()), "").unwrap();
        }
        std::fs::write(root.join("f"), "x").unwrap();
        std::fs::hard_link(root.join("f"), root.join("g")).unwrap();
        let ctx = ctx(&root, &["Read(./big/**)"]);
        assert_eq!(linked_denial("Read", &root.join("g"), &ctx), LinkVerdict::Unknown);
    }
}
