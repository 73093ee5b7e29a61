//! The permission decision for a whole command line, part by part.

use std::path::{Component, Path, PathBuf};

use agent_tools_core::ToolUseContext;
use agent_tools_core::path::normalize;
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionMode, PermissionResult, PermissionRuleValue,
    PermissionUpdate, PermissionUpdateDestination,
};
use agent_tools_permissions::filesystem::{EDIT_RULES, READ_RULES, check_read_permission, check_write_permission};
use agent_tools_permissions::links::{LinkedDenials, multiply_linked_metadata};
use agent_tools_permissions::paths::{compile_rules, rule_below};

use super::commands::{Analysis, PathUse, analyze, analyze_command};
use super::parse::{ParsedCommand, RedirectOp, SimpleCommand, Word, parse_command};
use super::rules::{SAFE_ENV_VARS, Unwrap, layers, matching_rule, spellings, strip_all_wrappers};
use super::verdict::{Verdict, asked_by_rule, too_complex};
use crate::messages;

/// Most parts a compound command may have to be checked part by part.
pub const MAX_PARTS: usize = 50;

/// Most rules suggested with a question.
pub const MAX_SUGGESTIONS: usize = 5;

/// Commands `acceptEdits` mode runs without asking when their paths are inside the working
/// directories (Claude Code's list).
pub const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

/// Targets that are never files: writing or reading them changes nothing on disk.
pub(crate) fn is_harmless_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/full"
            | "/dev/random"
            | "/dev/urandom"
    ) || path.strip_prefix("/dev/fd/").is_some_and(|fd| fd.parse::<u32>().is_ok())
}

/// The directories a relative path may be relative to at some point of a compound command: the
/// working directory, and each directory a `cd` before it went to (paths are checked against
/// all of them, since a `cd` that fails leaves the shell where it was).
struct Cwds(Vec<PathBuf>);

impl Cwds {
    /// After a `cd`: a folder that exists and can be entered replaces the directories (the `cd`
    /// will succeed); anything else — a `cd` that may fail, or one in a pipeline or in the
    /// background, which runs in a subshell — is added to them.
    fn follow(&mut self, part: &SimpleCommand, ctx: &ToolUseContext) {
        let Some(Some(target)) = cd_target(part) else { return };
        let mut next = Vec::new();
        for cwd in &self.0 {
            let Some(dirs) = resolve(&target, cwd, ctx) else { continue };
            if part.isolated || !dirs.iter().all(|dir| enterable(dir)) {
                next.push(cwd.clone());
            }
            next.extend(dirs);
        }
        if next.is_empty() {
            return;
        }
        next.dedup();
        self.0 = next;
    }
}

/// A folder `cd` can enter: it exists, is readable and (on Unix) searchable by someone.
fn enterable(dir: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(dir) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return false;
        }
    }
    metadata.is_dir() && std::fs::read_dir(dir).is_ok()
}

fn home(ctx: &ToolUseContext) -> Option<&Path> {
    ctx.home_dir.as_deref()
}

/// The spellings of the path a word names, or `None` when it cannot be known before the command
/// runs (`$VAR`, globs, `~user`): the lexical form, and — when it climbs with `..` — the form
/// the kernel reaches by following links first (`link/..` is the link target's parent).
fn resolve(word: &Word, cwd: &Path, ctx: &ToolUseContext) -> Option<Vec<PathBuf>> {
    if word.variable || word.dynamic || word.glob {
        return None;
    }
    let value = word.value.as_str();
    let raw = if word.tilde {
        let home = home(ctx)?;
        if value == "~" { home.to_path_buf() } else { home.join(value.strip_prefix("~/")?) }
    } else if Path::new(value).is_absolute() {
        PathBuf::from(value)
    } else if value.is_empty() {
        return None;
    } else {
        cwd.join(value)
    };
    let lexical = normalize(&proc_view(&normalize(&raw), cwd)?);
    let mut out = vec![lexical.clone()];
    if raw.components().any(|c| c == Component::ParentDir) {
        // `None`: it climbs out of a per-process `/proc` entry only the shell knows.
        let physical = physical(&raw, cwd)?;
        if physical != lexical {
            out.push(physical);
        }
    }
    Some(out)
}

/// `path` resolved component by component as the kernel does: links are followed before `..`.
/// `/proc/self/cwd` and `/proc/self/root` are resolved as the command's shell sees them (its
/// working directory is `cwd`, not this process's); other per-process `/proc` links give `None`.
fn physical(path: &Path, cwd: &Path) -> Option<PathBuf> {
    let mut current = PathBuf::from("/");
    let mut exists = true;
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                if exists && let Ok(resolved) = std::fs::canonicalize(&current) {
                    current = resolved;
                }
                current.pop();
            }
            Component::Normal(name) => {
                current.push(name);
                let depth = current.components().count();
                if current.starts_with("/proc") && depth == 4 {
                    // `/proc/<process>/<entry>`: the shell's view, before the kernel's view of
                    // this process could be taken for it.
                    current = proc_view(&current, cwd)?;
                }
                // `/proc/self` is this process here, the shell there: never resolved.
                if current.starts_with("/proc") && depth == 3 {
                    continue;
                }
                if exists {
                    match std::fs::canonicalize(&current) {
                        Ok(resolved) => current = resolved,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    Some(current)
}

/// Whether removing this path is always dangerous: `/`, `~`, `*`, `.`, `..`, a top-level folder,
/// the home folder or one above it, a working directory or one above it — also as the folder
/// of a trailing `/*` (`~/*`, `/proj/*`).
fn dangerous_removal(word: &Word, cwd: &Path, ctx: &ToolUseContext) -> bool {
    let mut text = word.value.as_str();
    loop {
        let trimmed = text.trim_end_matches('/');
        let trimmed = trimmed.strip_suffix("/*").unwrap_or(trimmed);
        if trimmed == text {
            break;
        }
        text = trimmed;
    }
    if matches!(text, "" | "*" | "~" | "." | ".." | "$HOME" | "${HOME}" | "$PWD" | "${PWD}" | ".*") {
        return true;
    }
    let folder = Word { raw: text.to_owned(), value: text.to_owned(), ..word.clone() };
    let glob_left = text.contains(['*', '?', '[']);
    let Some(paths) = (!glob_left).then(|| resolve(&Word { glob: false, ..folder }, cwd, ctx)).flatten() else {
        return false;
    };
    let working = agent_tools_permissions::paths::working_directories(ctx);
    paths.iter().any(|path| {
        let depth = path.components().filter(|c| matches!(c, Component::Normal(_))).count();
        depth <= 1
            || home(ctx).is_some_and(|home| home.starts_with(path))
            || working.iter().any(|dir| normalize(dir).starts_with(path))
    })
}

/// The files a glob names, as bash expands it, when the wildcards are only in its last part
/// and the word is not quoted (`*.log`, `src/*.rs`); `None` when that cannot be known here.
/// No match leaves the word as it is, as bash does.
fn expand_glob(word: &Word, cwd: &Path, ctx: &ToolUseContext) -> Option<Vec<PathBuf>> {
    const MAX_MATCHES: usize = 1000;
    const MAX_NAME_PATTERN_BYTES: usize = 4096;
    if word.variable || word.dynamic || word.raw != word.value {
        return None;
    }
    let value = word.value.as_str();
    let (folder, pattern) = match value.rfind('/') {
        Some(at) => (&value[..=at], &value[at + 1..]),
        None => ("", value),
    };
    if folder.contains(['*', '?', '[']) || pattern.is_empty() {
        return None;
    }
    let folder_word = Word {
        raw: folder.to_owned(),
        value: if folder.is_empty() { ".".to_owned() } else { folder.to_owned() },
        glob: false,
        ..word.clone()
    };
    // No file name is longer than a few hundred bytes; a longer pattern is left unknown (and
    // would be slow to compile, or panic inside globset when it is huge).
    if pattern.len() > MAX_NAME_PATTERN_BYTES {
        return None;
    }
    let matcher = globset::GlobBuilder::new(pattern).literal_separator(true).build().ok()?.compile_matcher();
    let mut out = Vec::new();
    for dir in resolve(&folder_word, cwd, ctx)? {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.take(MAX_MATCHES * 10) {
            let name = entry.ok()?.file_name();
            let name = name.to_str()?;
            if name.starts_with('.') && !pattern.starts_with('.') {
                continue;
            }
            if matcher.is_match(name) {
                out.push(dir.join(name));
                if out.len() > MAX_MATCHES {
                    return None;
                }
            }
        }
        if out.is_empty() {
            out.push(dir.join(pattern));
        }
    }
    Some(out)
}

/// The verdict for one path argument (all its spellings, against every possible directory).
fn check_path(path_use: PathUse, word: &Word, cwds: &Cwds, ctx: &ToolUseContext, subject: Subject<'_>) -> Verdict {
    let command = subject.command;
    if word.is_literal() && is_harmless_device(&word.value) {
        return Verdict::Allow("a device".into());
    }
    let mut verdict = Verdict::Allow("inside the allowed paths".into());
    for cwd in &cwds.0 {
        if path_use.removes() && dangerous_removal(word, cwd, ctx) {
            return Verdict::Ask {
                message: messages::dangerous_removal(command, &word.value),
                reason: PermissionDecisionReason::SafetyCheck {
                    reason: format!("removing {} is always confirmed", word.value),
                    classifier_approvable: false,
                },
                blocked_path: Some(word.value.clone()),
            };
        }
        let resolved = if word.glob { expand_glob(word, cwd, ctx) } else { resolve(word, cwd, ctx) };
        let Some(spellings) = resolved else {
            let family = if path_use.writes() { EDIT_RULES } else { READ_RULES };
            return verdict.worse(unseen_verdict(family, messages::unknown_path(command, &word.raw), ctx));
        };
        for path in spellings {
            verdict = verdict.worse(check_one_path(path_use, &path, ctx, subject, 0));
        }
    }
    verdict
}

/// Most folder entries looked at to check the links inside a folder a command reads
/// recursively.
pub const MAX_TREE_ENTRIES: usize = 20_000;

/// How deep symbolic links out of a folder read recursively are followed to check their
/// targets.
const MAX_LINK_DEPTH: usize = 3;

fn check_one_path(path_use: PathUse, path: &Path, ctx: &ToolUseContext, subject: Subject<'_>, depth: usize) -> Verdict {
    if path_use == PathUse::Mention {
        return mention(path, ctx, subject);
    }
    let result = if path_use.writes() { check_write_permission(path, ctx) } else { check_read_permission(path, ctx) };
    let inside = agent_tools_permissions::paths::is_inside_working_directories(path, ctx);
    let verdict = Verdict::for_path(result, path, path_use.writes(), subject.tool_name, subject.command, inside);
    if matches!(verdict, Verdict::Deny { .. }) {
        return verdict;
    }
    match path_use {
        PathUse::ReadTree { follow_links } => verdict.worse(read_tree(path, follow_links, ctx, subject, depth)),
        PathUse::WriteTree | PathUse::RemoveTree => verdict.worse(write_tree(path, ctx, subject)),
        PathUse::Read | PathUse::Write | PathUse::Remove | PathUse::Mention => verdict,
    }
}

/// A path a program this module does not understand may read ([`PathUse::Mention`]): what a
/// `Read(…)` deny or ask rule says of it, and nothing else (the program needs approval anyway
/// unless a rule allows it; this keeps deny rules in force for it).
fn mention(path: &Path, ctx: &ToolUseContext, subject: Subject<'_>) -> Verdict {
    let result = check_read_permission(path, ctx);
    let ruled = match &result {
        PermissionResult::Deny { .. } => true,
        PermissionResult::Ask { decision_reason, .. } => matches!(
            decision_reason,
            Some(PermissionDecisionReason::Rule { .. } | PermissionDecisionReason::SafetyCheck { .. })
        ),
        _ => false,
    };
    if ruled {
        Verdict::for_path(result, path, false, subject.tool_name, subject.command, false)
    } else {
        Verdict::Allow("no rule names it".into())
    }
}

/// A path under `/proc` as the command's shell will see it: `/proc/self/cwd` (and
/// `thread-self`) is the shell's working directory `cwd`, `/proc/self/root` is `/`; other
/// per-process entries (`/proc/<pid>/cwd`, `/proc/self/fd/3` …) name what only the running
/// process knows: `None`. Anything else is returned as it is.
fn proc_view(path: &Path, cwd: &Path) -> Option<PathBuf> {
    let Ok(rest) = path.strip_prefix("/proc") else { return Some(path.to_path_buf()) };
    let mut parts = rest.components();
    let Some(Component::Normal(process)) = parts.next() else { return Some(path.to_path_buf()) };
    let process = process.to_string_lossy();
    let own = process == "self" || process == "thread-self";
    if !own && !process.chars().all(|c| c.is_ascii_digit()) {
        return Some(path.to_path_buf());
    }
    let entry = parts.next().map(|part| part.as_os_str().to_string_lossy().into_owned());
    let tail: PathBuf = parts.collect();
    match entry.as_deref() {
        Some("cwd") if own => Some(cwd.join(tail)),
        Some("root") if own => Some(Path::new("/").join(tail)),
        Some("cwd" | "root" | "fd" | "map_files" | "exe" | "task" | "fdinfo") => None,
        _ => Some(path.to_path_buf()),
    }
}

/// A question that survives bypass mode, because a deny (or ask) rule may stand behind it.
fn guarded(message: String, reason: String, path: Option<&Path>) -> Verdict {
    Verdict::Ask {
        message,
        reason: PermissionDecisionReason::SafetyCheck { reason, classifier_approvable: false },
        blocked_path: path.map(|path| path.display().to_string()),
    }
}

/// What cannot be checked before the command runs — a path known only then, names from the
/// command's input: a question, one that survives bypass mode when `family(…)` deny or ask
/// rules exist (any of them could be what the command reaches).
fn unseen_verdict(family: &str, message: String, ctx: &ToolUseContext) -> Verdict {
    guarding_rule(family, message.clone(), ctx).unwrap_or_else(|| Verdict::needs(message))
}

/// The question for paths that cannot be checked when `family(…)` deny or ask rules exist
/// (it survives bypass mode); `None` when there are none.
fn guarding_rule(family: &str, message: String, ctx: &ToolUseContext) -> Option<Verdict> {
    let rule = [PermissionBehavior::Deny, PermissionBehavior::Ask]
        .into_iter()
        .find_map(|behavior| ctx.permission_context.content_rules(family, behavior).next())?;
    let reason = format!("the paths cannot be checked against {}", rule.rule_value);
    Some(guarded(message, reason, None))
}

/// Files named by the command's input or a list file: a question that survives bypass mode
/// while `family(…)` deny or ask rules exist. Without such rules nothing here stops the
/// command — it is not read-only, so it needs approval unless a rule allows it (a
/// `Bash(npm run:*)` rule covers `xargs npm run build`, as in Claude Code).
fn unseen_names(family: &str, command: &str, ctx: &ToolUseContext) -> Verdict {
    guarding_rule(family, messages::unseen_paths(command), ctx)
        .unwrap_or_else(|| Verdict::Allow("no rule the unseen paths could break".into()))
}

/// A folder read recursively: no `Read(…)` deny or ask rule may match anything below it, no
/// file inside may be another hard link to a denied file, and — for a command that follows
/// links — the targets of the symbolic links leading out of it pass the same checks.
fn read_tree(dir: &Path, follow_links: bool, ctx: &ToolUseContext, subject: Subject<'_>, depth: usize) -> Verdict {
    let command = subject.command;
    if let Some(rule) = rule_below(READ_RULES, dir, ctx) {
        let shown = rule.rule_value.to_string();
        return guarded(
            messages::reads_below_rule(command, dir, &shown),
            format!("{} is read recursively and {shown} covers files below it", dir.display()),
            Some(dir),
        );
    }
    let Ok(metadata) = std::fs::metadata(dir) else { return Verdict::Allow("nothing there yet".into()) };
    if !metadata.is_dir() {
        return Verdict::Allow("a file".into());
    }
    let deny = compile_rules(READ_RULES, PermissionBehavior::Deny, ctx);
    let denials = (!deny.is_empty()).then(|| LinkedDenials::collect(&deny));
    if denials.as_ref().is_some_and(|denials| !denials.is_complete()) {
        return guarded(
            messages::reads_below_rule(command, dir, "a deny rule"),
            agent_tools_permissions::messages::unknown_links(dir),
            Some(dir),
        );
    }
    let hard_links = denials.as_ref().filter(|denials| !denials.is_empty());
    if hard_links.is_none() && !follow_links {
        return Verdict::Allow("nothing below it is denied".into());
    }
    if depth > MAX_LINK_DEPTH {
        return unseen_verdict(READ_RULES, messages::tree_too_large(command, dir), ctx);
    }
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut targets: Vec<PathBuf> = Vec::new();
    let mut budget = MAX_TREE_ENTRIES;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            if budget == 0 {
                return unseen_verdict(READ_RULES, messages::tree_too_large(command, dir), ctx);
            }
            budget -= 1;
            let Ok(metadata) = entry.metadata() else { continue };
            let path = entry.path();
            if metadata.is_dir() {
                stack.push(path);
            } else if metadata.file_type().is_symlink() {
                if follow_links
                    && let Ok(target) = std::fs::canonicalize(&path)
                    && !target.starts_with(&real)
                    && !targets.contains(&target)
                {
                    targets.push(target);
                }
            } else if let (Some(denials), Some(id)) = (hard_links, multiply_linked_metadata(&metadata))
                && let Some(rule) = denials.rule_for(id)
            {
                return Verdict::Deny {
                    message: messages::command_link_denied(subject.tool_name, command, &path),
                    reason: PermissionDecisionReason::Rule { rule: rule.clone() },
                };
            }
        }
    }
    let mut verdict = Verdict::Allow("nothing below it is denied".into());
    for target in targets {
        verdict = verdict.worse(check_one_path(PathUse::ReadTree { follow_links }, &target, ctx, subject, depth + 1));
    }
    verdict
}

/// A folder changed or removed with everything in it: no `Edit(…)` deny or ask rule may match
/// anything below it.
fn write_tree(dir: &Path, ctx: &ToolUseContext, subject: Subject<'_>) -> Verdict {
    match rule_below(EDIT_RULES, dir, ctx) {
        Some(rule) => {
            let shown = rule.rule_value.to_string();
            guarded(
                messages::changes_below_rule(subject.command, dir, &shown),
                format!("{} is changed recursively and {shown} covers files below it", dir.display()),
                Some(dir),
            )
        }
        None => Verdict::Allow("nothing below it is protected".into()),
    }
}

/// The first folder from `dir` upwards that holds a `.git` (folder or file): the repository
/// git finds from there.
fn repository_root(dir: &Path) -> Option<PathBuf> {
    let mut current = Some(dir);
    while let Some(folder) = current {
        if std::fs::symlink_metadata(folder.join(".git")).is_ok() {
            return Some(folder.to_path_buf());
        }
        current = folder.parent();
    }
    None
}

/// A git command that prints repository content (see `Analysis::repo_content`): no `Read(…)`
/// deny or ask rule may match anything in the repository.
fn repository_content(
    part: &SimpleCommand,
    analysis: &Analysis,
    cwds: &Cwds,
    ctx: &ToolUseContext,
    subject: Subject<'_>,
) -> Verdict {
    let command = subject.command;
    if analysis.repo_elsewhere || !part.assignments.is_empty() {
        return unseen_verdict(READ_RULES, messages::repository_elsewhere(command), ctx);
    }
    let tree = PathUse::ReadTree { follow_links: false };
    let mut verdict = Verdict::Allow("the paths it prints are allowed".into());
    // `rev:path`: the path inside the repository, from its root.
    for word in &analysis.repo_paths {
        for cwd in &cwds.0 {
            let root = repository_root(cwd).unwrap_or_else(|| cwd.clone());
            verdict = verdict.worse(check_path(tree, word, &Cwds(vec![root]), ctx, subject));
        }
    }
    if !analysis.repo_content {
        return verdict;
    }
    // `git grep x src`: operands that all exist as paths are what git searches.
    let candidates = &analysis.pathspec_candidates;
    let exist = |word: &Word| {
        cwds.0.iter().all(|cwd| resolve(word, cwd, ctx).is_some_and(|paths| paths.iter().all(|path| path.exists())))
    };
    if !candidates.is_empty() && candidates.iter().all(exist) {
        for word in candidates {
            verdict = verdict.worse(check_path(tree, word, cwds, ctx, subject));
        }
        return verdict;
    }
    for cwd in &cwds.0 {
        let Some(root) = repository_root(cwd) else { continue };
        if let Some(rule) = rule_below(READ_RULES, &root, ctx) {
            let shown = rule.rule_value.to_string();
            return guarded(
                messages::repository_content(command, &root, &shown),
                format!("git prints files of {} and {shown} covers files in it", root.display()),
                Some(&root),
            );
        }
    }
    verdict
}

/// The command being checked and the tool it was given to, for the messages of path verdicts.
#[derive(Clone, Copy)]
struct Subject<'a> {
    tool_name: &'a str,
    command: &'a str,
}

/// The path verdict for a part: its redirections and its path arguments.
fn path_constraints(
    part: &SimpleCommand,
    analysis: &Analysis,
    cwds: &Cwds,
    ctx: &ToolUseContext,
    subject: Subject<'_>,
) -> Verdict {
    let command = subject.command;
    let mut verdict = Verdict::Allow("no paths".into());
    for redirect in &part.redirects {
        let path_use = match redirect.op {
            RedirectOp::Write | RedirectOp::Append => PathUse::Write,
            RedirectOp::Read => PathUse::Read,
            RedirectOp::Duplicate | RedirectOp::HereString => continue,
        };
        match &redirect.target {
            Some(target) => verdict = verdict.worse(check_path(path_use, target, cwds, ctx, subject).beyond_rules()),
            None => verdict = verdict.worse(Verdict::needs(messages::command_needs_approval(command))),
        }
    }
    for path in &analysis.paths {
        verdict = verdict.worse(check_path(path.path_use, &path.word, cwds, ctx, subject));
    }
    if analysis.unseen_reads {
        verdict = verdict.worse(unseen_names(READ_RULES, command, ctx));
    }
    if analysis.unseen_writes {
        verdict = verdict.worse(unseen_names(EDIT_RULES, command, ctx));
    }
    if analysis.repo_content || !analysis.repo_paths.is_empty() {
        verdict = verdict.worse(repository_content(part, analysis, cwds, ctx, subject));
    }
    verdict
}

/// Whether a part provably only reads: no assignments, no file written by a redirection, and
/// the command (after harmless wrappers) passes [`analyze`]'s read-only test.
pub(crate) fn part_is_read_only(part: &SimpleCommand) -> bool {
    if !part.assignments.is_empty() || part.nested {
        return false;
    }
    let redirects_ok = part.redirects.iter().all(|redirect| match redirect.op {
        RedirectOp::Duplicate | RedirectOp::HereString | RedirectOp::Read => true,
        RedirectOp::Write | RedirectOp::Append => {
            redirect.target.as_ref().is_some_and(|t| t.is_literal() && is_harmless_device(&t.value))
        }
    });
    if !redirects_ok || part.words.is_empty() {
        return false;
    }
    let start = layers(&part.words, Unwrap::Harmless).last().copied().unwrap_or(0);
    let inner = part.words.get(start..).unwrap_or_default();
    // `nohup` writes `nohup.out` when it can.
    let wrappers_ok = part.words.get(..start).unwrap_or_default().iter().all(|w| w.value != "nohup");
    wrappers_ok && analyze(inner).read_only
}

/// The rule to suggest for a part: `Bash(prefix:*)` for `tool subcommand …`, else the exact
/// command.
fn suggested_rule(part: &SimpleCommand) -> String {
    /// Commands too powerful for a prefix rule.
    const EXACT_ONLY: &[&str] = &[
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "env",
        "sudo",
        "doas",
        "su",
        "xargs",
        "eval",
        "exec",
        "command",
        "builtin",
        "nohup",
        "timeout",
        "time",
        "nice",
        "watch",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "php",
        "deno",
        "bun",
        "rm",
        "rmdir",
        "mv",
        "cp",
        "dd",
        "chmod",
        "chown",
        "kill",
        "pkill",
        "killall",
        "find",
        "sed",
        "awk",
        "curl",
        "wget",
        "ssh",
        "scp",
        "tee",
        "ln",
        "truncate",
        "shred",
        "sudoedit",
        "osascript",
    ];
    /// git subcommands that rewrite or publish: only ever suggested exactly.
    const RISKY_GIT: &[&str] = &[
        "push",
        "reset",
        "clean",
        "checkout",
        "restore",
        "config",
        "rm",
        "branch",
        "stash",
        "rebase",
        "filter-branch",
        "gc",
        "reflog",
        "update-ref",
        "worktree",
    ];
    let safe_env = part.assignments.iter().all(|a| SAFE_ENV_VARS.contains(&a.name.as_str()));
    if !safe_env {
        return part.text();
    }
    let start = layers(&part.words, Unwrap::Harmless).last().copied().unwrap_or(0);
    let words = part.words.get(start..).unwrap_or_default();
    let exact = words.iter().map(|w| w.raw.as_str()).collect::<Vec<_>>().join(" ");
    let subcommand_like = |value: &str| {
        let mut chars = value.chars();
        chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    };
    match words {
        [name, sub, ..]
            if name.is_literal()
                && sub.is_literal()
                && !EXACT_ONLY.contains(&name.value.as_str())
                && !(name.value == "git" && RISKY_GIT.contains(&sub.value.as_str()))
                && subcommand_like(&sub.value) =>
        {
            format!("{} {}:*", name.raw, sub.raw)
        }
        _ => exact,
    }
}

/// Whether a part is `cd …` (after wrappers), and where it goes.
fn cd_target(part: &SimpleCommand) -> Option<Option<Word>> {
    let words = strip_all_wrappers(&part.words);
    if words.first().map(|w| w.value.as_str()) != Some("cd") {
        return None;
    }
    let analysis = analyze(words);
    if analysis.hidden_paths {
        return Some(None);
    }
    Some(analysis.paths.into_iter().next().map(|p| p.word))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    normalize(a) == normalize(b)
        || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Whether a git command may read a repository's configuration: it names another repository
/// (`-C`, `--git-dir`: `analysis.repo_elsewhere`), or a folder it may run in is inside a git
/// work tree. Outside every repository git reads none, so it runs nothing a repository
/// configures.
fn git_reads_a_repository(analysis: &Analysis, cwds: &Cwds) -> bool {
    analysis.repo_elsewhere || cwds.0.iter().any(|cwd| agent_tools_core::path::git_work_tree_top(cwd).is_some())
}

fn is_git(part: &SimpleCommand) -> bool {
    strip_all_wrappers(&part.words).first().is_some_and(|w| w.value.rsplit('/').next() == Some("git"))
}

/// One part's verdict: deny rules, ask rules, paths, allow rules, `acceptEdits`, read-only.
fn evaluate(part: &SimpleCommand, cwds: &Cwds, tool_name: &str, command: &str, ctx: &ToolUseContext) -> Verdict {
    if let Some(rule) =
        matching_rule(tool_name, PermissionBehavior::Deny, &spellings(part, PermissionBehavior::Deny), ctx)
    {
        return Verdict::Deny {
            message: messages::command_denied(tool_name, command),
            reason: PermissionDecisionReason::Rule { rule },
        };
    }
    if let Some(rule) =
        matching_rule(tool_name, PermissionBehavior::Ask, &spellings(part, PermissionBehavior::Ask), ctx)
    {
        return Verdict::Ask {
            message: messages::command_needs_approval(command),
            reason: PermissionDecisionReason::Rule { rule },
            blocked_path: None,
        };
    }
    let analysis = analyze_command(&part.words);
    let paths = path_constraints(part, &analysis, cwds, ctx, Subject { tool_name, command });
    if paths.rule_may_allow()
        && !part.nested
        && let Some(rule) =
            matching_rule(tool_name, PermissionBehavior::Allow, &spellings(part, PermissionBehavior::Allow), ctx)
    {
        return Verdict::Allow(format!("allowed by {}", rule.rule_value));
    }
    if !matches!(paths, Verdict::Allow(_)) {
        return paths;
    }
    if part.nested {
        return Verdict::needs(messages::command_needs_approval(command));
    }
    if let Some(rule) =
        matching_rule(tool_name, PermissionBehavior::Allow, &spellings(part, PermissionBehavior::Allow), ctx)
    {
        return Verdict::Allow(format!("allowed by {}", rule.rule_value));
    }
    if ctx.permission_context.mode == PermissionMode::AcceptEdits && accept_edits_covers(part) {
        return Verdict::Allow("acceptEdits mode allows file changes inside the working directories".into());
    }
    if part_is_read_only(part) {
        // A read-only git command still runs what the repository configures: only in a folder
        // the user trusts does it run unasked.
        if is_git(part) && !ctx.options.workspace_trusted && git_reads_a_repository(&analysis, cwds) {
            return Verdict::needs(messages::git_in_untrusted_folder(command));
        }
        return Verdict::Allow("only reads".into());
    }
    Verdict::needs(messages::command_needs_approval(command))
}

/// `acceptEdits` runs `mkdir touch rm rmdir mv cp sed` (paths already checked) when nothing
/// else can change what runs: harmless assignments and wrappers only, literal words, and for
/// `sed` scripts that print, delete or substitute.
fn accept_edits_covers(part: &SimpleCommand) -> bool {
    if !part.assignments.iter().all(|a| SAFE_ENV_VARS.contains(&a.name.as_str())) {
        return false;
    }
    let start = layers(&part.words, Unwrap::Harmless).last().copied().unwrap_or(0);
    let words = part.words.get(start..).unwrap_or_default();
    let Some(name) = words.first() else { return false };
    if !name.is_literal() || !ACCEPT_EDITS_COMMANDS.contains(&name.value.as_str()) {
        return false;
    }
    // Globs were expanded and checked with the paths; variables could not be.
    if words.iter().any(|w| w.variable || w.dynamic) {
        return false;
    }
    name.value != "sed" || analyze(words).sed_edit_safe
}

/// The permission decision (see the [module docs](super)).
pub(crate) fn check(tool_name: &str, command: &str, ctx: &ToolUseContext) -> PermissionResult {
    let parsed = parse_command(command);
    let trimmed = command.trim();
    // The whole line first: `Bash(exact command)` deny rules, and fragments of a line too long
    // to parse.
    let mut whole = vec![trimmed.to_owned()];
    if parsed.commands.is_empty() && parsed.complex.is_some() {
        whole.extend(rough_fragments(trimmed));
    }
    if let Some(rule) = matching_rule(tool_name, PermissionBehavior::Deny, &whole, ctx) {
        return PermissionResult::Deny {
            message: messages::command_denied(tool_name, command),
            decision_reason: PermissionDecisionReason::Rule { rule },
        };
    }
    let whole_ask = matching_rule(tool_name, PermissionBehavior::Ask, &whole, ctx);

    let (parts, cd_problem) = plan_parts(&parsed, ctx);
    let mut cwds = Cwds(vec![ctx.cwd.clone()]);
    let mut verdicts = Vec::with_capacity(parts.len());
    for part in &parts {
        verdicts.push(evaluate(part, &cwds, tool_name, command, ctx));
        cwds.follow(part, ctx);
    }

    // Any deny wins; then questions that survive bypass mode.
    if let Some(denied) =
        verdicts.iter().find(|v| matches!(v, Verdict::Deny { .. })).cloned().and_then(Verdict::into_result)
    {
        return denied;
    }
    if let Some(rule) = whole_ask {
        return asked_by_rule(command, rule);
    }
    if let Some(asked) =
        verdicts.iter().find(|v| matches!(v, Verdict::Ask { .. })).cloned().and_then(Verdict::into_result)
    {
        return asked;
    }
    if let Some(why) = parsed.complex {
        return too_complex(command, why);
    }
    if parts.len() > MAX_PARTS {
        return PermissionResult::passthrough(messages::too_many_parts(command, parts.len()));
    }
    if let Some(message) = cd_problem {
        return PermissionResult::Passthrough {
            message,
            decision_reason: Some(PermissionDecisionReason::Other { reason: "cd rules for compound commands".into() }),
            suggestions: Vec::new(),
            blocked_path: None,
        };
    }
    if !parts.is_empty() && verdicts.iter().all(|v| matches!(v, Verdict::Allow(_))) {
        let reasons = parts
            .iter()
            .zip(&verdicts)
            .filter_map(|(part, verdict)| match verdict {
                Verdict::Allow(reason) => Some((part.text(), reason.clone())),
                _ => None,
            })
            .collect();
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::SubcommandResults { reasons }),
        };
    }
    // Needs approval: the first blocked part's message, and rules that would allow the parts
    // no rule covers.
    let mut rules: Vec<PermissionRuleValue> = Vec::new();
    let mut path_suggestions = Vec::new();
    let mut first: Option<Verdict> = None;
    for (part, verdict) in parts.iter().zip(&verdicts) {
        let Verdict::Needs { suggestions, blocked_path, .. } = verdict else { continue };
        if first.is_none() {
            first = Some(verdict.clone());
        }
        if blocked_path.is_some() {
            for suggestion in suggestions {
                if !path_suggestions.contains(suggestion) {
                    path_suggestions.push(suggestion.clone());
                }
            }
        } else {
            let rule =
                PermissionRuleValue { tool_name: tool_name.to_owned(), rule_content: Some(suggested_rule(part)) };
            if rules.len() < MAX_SUGGESTIONS && !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    let mut suggestions = Vec::new();
    if !rules.is_empty() {
        suggestions.push(PermissionUpdate::AddRules {
            destination: PermissionUpdateDestination::LocalSettings,
            rules,
            behavior: PermissionBehavior::Allow,
        });
    }
    suggestions.extend(path_suggestions);
    match first {
        Some(Verdict::Needs { message, reason, blocked_path, .. }) => {
            PermissionResult::Passthrough { message, decision_reason: reason, suggestions, blocked_path }
        }
        _ => PermissionResult::Passthrough {
            message: messages::command_needs_approval(command),
            decision_reason: None,
            suggestions,
            blocked_path: None,
        },
    }
}

/// The parts to check, with `cd <working directory>` no-ops dropped, and the cd rule a compound
/// command breaks, if any: more than one `cd`, or a `cd` with `git` (a repository planted in
/// another folder could run its hooks).
fn plan_parts(parsed: &ParsedCommand, ctx: &ToolUseContext) -> (Vec<SimpleCommand>, Option<String>) {
    let mut parts = Vec::with_capacity(parsed.commands.len());
    let mut cds = 0;
    for part in &parsed.commands {
        if parsed.complex.is_none()
            && let Some(Some(target)) = cd_target(part)
            && part.redirects.is_empty()
            && resolve(&target, &ctx.cwd, ctx).is_some_and(|dirs| dirs.iter().all(|dir| same_dir(dir, &ctx.cwd)))
        {
            continue;
        }
        cds += usize::from(cd_target(part).is_some());
        parts.push(part.clone());
    }
    let problem = if parsed.complex.is_some() {
        None
    } else if cds > 1 {
        Some(messages::multiple_cd())
    } else if cds == 1 && parts.iter().any(is_git) {
        Some(messages::cd_with_git())
    } else {
        None
    };
    (parts, problem)
}

/// Rough pieces of a command that could not be parsed, for deny rules only.
fn rough_fragments(command: &str) -> Vec<String> {
    command
        .split([';', '&', '|', '\n', '(', ')', '`', '{', '}'])
        .map(|piece| piece.trim().trim_start_matches('$').trim().to_owned())
        .filter(|piece| !piece.is_empty())
        .take(1000)
        .collect()
}

/// Whether every part of a command provably only reads (see [`super::is_read_only_command`]).
pub(crate) fn read_only(command: &str, ctx: Option<&ToolUseContext>) -> bool {
    let parsed = parse_command(command);
    if parsed.complex.is_some() || parsed.commands.is_empty() {
        return false;
    }
    let cds = parsed.commands.iter().filter(|part| cd_target(part).is_some()).count();
    if cds > 1 || (cds == 1 && parsed.commands.iter().any(is_git)) {
        return false;
    }
    if !parsed.commands.iter().all(part_is_read_only) {
        return false;
    }
    let Some(ctx) = ctx else { return true };
    let mut cwds = Cwds(vec![ctx.cwd.clone()]);
    for part in &parsed.commands {
        let analysis = analyze_command(&part.words);
        // Only the verdict counts here, not its message: the tool name is Bash's, whose check this is.
        let subject = Subject { tool_name: "Bash", command };
        if !matches!(path_constraints(part, &analysis, &cwds, ctx, subject), Verdict::Allow(_)) {
            return false;
        }
        cwds.follow(part, ctx);
    }
    true
}

/// Whether a command may destroy data (see [`super::is_destructive_command`]).
pub(crate) fn destructive(command: &str) -> bool {
    let parsed = parse_command(command);
    if parsed.opaque {
        return true;
    }
    parsed.commands.iter().any(|part| {
        let truncates = part.redirects.iter().any(|redirect| {
            redirect.op == RedirectOp::Write
                && redirect.target.as_ref().is_none_or(|t| !(t.is_literal() && is_harmless_device(&t.value)))
        });
        truncates || analyze_command(&part.words).destructive
    })
}
