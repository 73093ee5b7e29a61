//! `git`: the read-only subcommands and their flags, what a subcommand prints of the
//! repository's files (so `Read(…)` deny rules hold for `git show` and `git log -p`), and the
//! destructive ones.

use super::flags::{flag_paths, piece, scan};
use super::programs::recursive_operands;
use super::{Analysis, PathArg, PathUse, looks_like_outside_path, retag};
use crate::parse::Word;

pub(super) const DIFF_FLAGS: &str = "-p -u -s -z -U= --unified= --raw --patch --no-patch --patch-with-raw --patch-with-stat \
    --stat? --numstat --shortstat --dirstat? --cumulative --dirstat-by-file? --summary --name-only --name-status \
    --submodule? --color? --no-color --word-diff? --word-diff-regex= --color-words? --color-moved? --no-color-moved \
    --color-moved-ws= --no-color-moved-ws --no-renames --rename-empty --no-rename-empty --check --full-index --binary \
    --abbrev? -B? -M? -C? --break-rewrites? --find-renames? --find-copies? --find-copies-harder -D \
    --irreversible-delete -l= -S= -G= --find-object= --pickaxe-all --pickaxe-regex -O@ --skip-to= --rotate-to= -R \
    --relative? --no-relative -a --text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w \
    --ignore-all-space --ignore-blank-lines -I= --ignore-matching-lines= --inter-hunk-context= -W --function-context \
    --exit-code --quiet --no-ext-diff --no-textconv --ignore-submodules? --src-prefix= --dst-prefix= --no-prefix \
    --default-prefix --line-prefix= --ita-invisible-in-index --ita-visible-in-index --minimal --patience --histogram \
    --anchored= --diff-algorithm= --diff-filter= --stat-width= --stat-name-width= --stat-graph-width= --stat-count= \
    --compact-summary --indent-heuristic --no-indent-heuristic --diff-merges= --no-diff-merges --combined-all-paths \
    --output-indicator-new= --output-indicator-old= --output-indicator-context= -1 -2 -3 -0 \
    --output! --ext-diff^ --textconv^";
pub(super) const LOG_FLAGS: &str = "-n= --max-count= --skip= --since= --after= --until= --before= --author= --committer= \
    --grep= --all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings -P \
    --perl-regexp --merges --no-merges --min-parents= --max-parents= --no-min-parents --no-max-parents --first-parent \
    --exclude-first-parent-only --all --branches? --tags? --remotes? --glob= --exclude= --reflog --walk-reflogs -g \
    --graph --oneline --decorate? --no-decorate --decorate-refs= --decorate-refs-exclude= --source --abbrev-commit \
    --no-abbrev-commit --format= --pretty? --date= --relative-date --reverse --follow --no-follow --topo-order \
    --date-order --author-date-order --parents --children --left-right --left-only --right-only --cherry-pick \
    --cherry-mark --cherry --boundary --simplify-by-decoration --full-history --dense --sparse --simplify-merges \
    --ancestry-path? --no-walk? --do-walk -L= --notes? --no-notes --show-signature --mailmap --no-mailmap --use-mailmap \
    --no-use-mailmap --encoding= --expand-tabs? --no-expand-tabs --log-size --full-diff --show-linear-break? \
    --show-pulls -m -c --cc -t --remerge-diff --count --bisect --not --single-worktree --since-as-filter= #";

/// Flags of a read-only git subcommand and whether the list is strict (unlisted flags refused),
/// or `None` when the subcommand may write.
pub(super) fn git_subcommand_flags(sub: &str, operands: &[&str]) -> Option<(String, bool)> {
    // Plumbing that only reads whatever its flags: only the listed flags are refused.
    let permissive = matches!(
        sub,
        "rev-parse"
            | "ls-files"
            | "ls-tree"
            | "describe"
            | "name-rev"
            | "for-each-ref"
            | "show-ref"
            | "merge-base"
            | "count-objects"
            | "check-ignore"
            | "check-attr"
            | "cherry"
            | "var"
            | "show-branch"
            | "verify-commit"
            | "verify-tag"
            | "ls-remote"
            | "grep"
    );
    let flags = match sub {
        "status" => "-s --short -b --branch --porcelain? --long -v --verbose -u? --untracked-files? --ignored? \
            --ignore-submodules? -z --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames \
            --find-renames? --show-stash --no-optional-locks"
            .to_owned(),
        "diff" | "diff-tree" | "diff-files" | "diff-index" => {
            format!(
                "{DIFF_FLAGS} --cached --staged --merge-base --no-index -r --root --stdin^ --name-only -t --cc -m -c"
            )
        }
        "log" | "whatchanged" | "show" | "rev-list" | "reflog" => {
            if sub == "reflog" && !matches!(operands.first(), None | Some(&"show")) {
                return None;
            }
            format!("{DIFF_FLAGS} {LOG_FLAGS} --objects --objects-edge --no-object-names --quiet --stdin^")
        }
        "shortlog" => format!("{LOG_FLAGS} -s -n -e -c -w? --summary --numbered --email --committer --group="),
        "blame" | "annotate" => {
            "-L= -l -t -S@ --reverse= --first-parent -p --porcelain --line-porcelain --incremental \
            --encoding= --contents@ --date= --progress --no-progress -M? -C? --ignore-rev= --ignore-revs-file@ \
            --color-lines --color-by-age -e --show-email -w -s -n --show-number -f --show-name --abbrev? -b --root \
            --show-stats -c"
                .to_owned()
        }
        "branch" => {
            let list = "-a --all -r --remotes -l --list -v -vv --verbose --contains? --no-contains? --merged? \
                --no-merged? --sort= --format= --points-at= --show-current --color? --no-color --column? --no-column \
                -i --ignore-case --abbrev? --no-abbrev --omit-empty";
            list.to_owned()
        }
        "tag" => "-l --list -n? --sort= --contains? --no-contains? --merged? --no-merged? --points-at= --format= \
            --color? -i --ignore-case --column? --no-column --omit-empty"
            .to_owned(),
        "remote" => {
            if !matches!(operands, [] | ["show", ..] | ["get-url", ..]) {
                return None;
            }
            "-v --verbose -n --push --all".to_owned()
        }
        "rev-parse" | "ls-files" | "ls-tree" | "describe" | "name-rev" | "for-each-ref" | "show-ref" | "merge-base"
        | "count-objects" | "check-ignore" | "check-attr" | "cherry" | "var" | "show-branch" | "verify-commit"
        | "verify-tag" => "--output^= --stdin^ --contents@".to_owned(),
        "ls-remote" => "--upload-pack^= -u^=".to_owned(),
        "grep" => "-O^ --open-files-in-pager^ --textconv^ -e= -f@ -A= -B= -C= -m= --max-count= --max-depth= \
            --after-context= --before-context= --context= --threads= --color? --column #"
            .to_owned(),
        "cat-file" => {
            "-t -s -e -p --textconv^ --filters^ --batch? --batch-check? --batch-command^ --batch-all-objects \
            --follow-symlinks --unordered --allow-unknown-type --buffer -Z"
                .to_owned()
        }
        "stash" => {
            if !matches!(operands.first(), Some(&"list" | &"show")) {
                return None;
            }
            format!("{DIFF_FLAGS} {LOG_FLAGS} --include-untracked --only-untracked -u")
        }
        "worktree" => {
            if operands.first() != Some(&"list") {
                return None;
            }
            "--porcelain -v --verbose -z --expire=".to_owned()
        }
        "config" => {
            // Only explicit reads: `--get…`, `--list`, or the newer `get` / `list` subcommands.
            "--get --get-all --get-regexp --get-urlmatch --list -l --show-origin --show-scope --name-only -z --null \
             --type= --bool --int --bool-or-int --path --expiry-date --default= --global --system --local --worktree \
             --file@ -f@ --blob= --includes --no-includes --all --regexp --value= --fixed-value --url="
                .to_owned()
        }
        "version" | "--version" => String::new(),
        _ => return None,
    };
    Some((flags, !permissive))
}

pub(super) fn git(args: &[Word], analysis: &mut Analysis) {
    let mut index = 0;
    let mut globals_ok = true;
    // Options before the subcommand.
    while let Some(word) = args.get(index) {
        let value = word.value.as_str();
        if !value.starts_with('-') || value == "--version" {
            break;
        }
        index += 1;
        match value {
            "--no-pager" | "-P" | "--no-optional-locks" | "--literal-pathspecs" | "--no-replace-objects" => {}
            "-C" | "--git-dir" | "--work-tree" => {
                if let Some(dir) = args.get(index) {
                    analysis.paths.push(PathArg { path_use: PathUse::Read, word: dir.clone() });
                }
                index += 1;
                globals_ok = false;
                analysis.repo_elsewhere = true;
            }
            "-c" | "--namespace" | "--super-prefix" | "--config-env" | "--exec-path" => {
                index += usize::from(!value.contains('='));
                globals_ok = false;
            }
            _ => {
                if let Some(dir) = value.strip_prefix("--git-dir=").or_else(|| value.strip_prefix("--work-tree=")) {
                    analysis.paths.push(PathArg { path_use: PathUse::Read, word: piece(word, dir) });
                    analysis.repo_elsewhere = true;
                }
                globals_ok = false;
            }
        }
    }
    let Some(sub) = args.get(index) else { return };
    let rest = args.get(index + 1..).unwrap_or_default();
    let sub_name = sub.value.as_str();
    // Operands that look like paths outside, and everything after `--`, are read.
    let mut after_dashes = false;
    for word in rest {
        if word.value == "--" {
            after_dashes = true;
            continue;
        }
        if after_dashes || looks_like_outside_path(word) {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: word.clone() });
        } else if let Some((_, value)) = word.value.split_once('=')
            && word.value.starts_with("--")
            && looks_like_outside_path(&piece(word, value))
        {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: piece(word, value) });
        }
    }
    git_content(sub_name, rest, analysis);
    // Files git writes whatever the subcommand: `--output`, `--output-directory`, and `-o` of
    // `archive` / `format-patch`.
    // git accepts any unambiguous prefix of a long option (`--outp`).
    let is_output =
        |name: &str| name.len() > 2 && ("--output".starts_with(name) || "--output-directory".starts_with(name));
    let mut words = rest.iter().peekable();
    while let Some(word) = words.next() {
        let value = word.value.as_str();
        let (name, attached) = value.split_once('=').map_or((value, None), |(n, v)| (n, Some(v)));
        let output = is_output(name) || (name == "-o" && matches!(sub_name, "archive" | "format-patch"));
        if !output {
            continue;
        }
        let file = match attached {
            Some(file) => Some(piece(word, file)),
            None => words.next().cloned(),
        };
        if let Some(file) = file {
            analysis.paths.push(PathArg { path_use: PathUse::Write, word: file });
        }
    }
    analysis.destructive = git_destructive(sub_name, rest);
    if !globals_ok || !sub.is_literal() {
        return;
    }
    let operand_values: Vec<&str> = rest.iter().map(|w| w.value.as_str()).filter(|v| !v.starts_with('-')).collect();
    let Some((flags, strict)) = git_subcommand_flags(sub_name, &operand_values) else { return };
    let scan = scan(rest, &flags, true);
    flag_paths(analysis, &scan);
    let mut read_only = scan.clean(strict);
    match sub_name {
        // A name after `git branch` / `git tag` creates one, unless listing.
        "branch" | "tag" => {
            read_only &= scan.operands.is_empty() || scan.has(&["-l", "--list"]);
        }
        "config" => {
            let reads = scan.has(&["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"]);
            let subcommand = scan.operands.first().map(|w| w.value.as_str());
            read_only &= match subcommand {
                Some("get") => true,
                Some("list") => scan.operands.len() == 1,
                _ => reads,
            };
        }
        _ => {}
    }
    analysis.read_only = read_only;
}

/// Flags that make a git command print file contents (patches, matching lines, pickaxe
/// searches, line histories); prefixes where the value is attached (`-U5`, `-Stoken`).
pub(super) const GIT_PATCH_FLAGS: &[&str] = &[
    "-p",
    "-u",
    "--patch",
    "--patch-with-stat",
    "--patch-with-raw",
    "--cc",
    "-c",
    "--function-context",
    "-W",
    "--check",
    "--remerge-diff",
    "--binary",
];
pub(super) const GIT_PATCH_PREFIXES: &[&str] =
    &["-U", "--unified", "--word-diff", "--color-words", "-L", "-G", "-S", "--find-object", "--pickaxe-regex"];

/// Flags that make `git diff` print names and counts only.
pub(super) const GIT_SUMMARY_FLAGS: &[&str] = &[
    "--stat",
    "--numstat",
    "--shortstat",
    "--name-only",
    "--name-status",
    "--summary",
    "--dirstat",
    "--dirstat-by-file",
    "--raw",
    "--quiet",
    "-s",
    "--no-patch",
    "--compact-summary",
];

pub(super) fn git_flag_in(word: &Word, exact: &[&str], prefixes: &[&str]) -> bool {
    let value = word.value.as_str();
    let name = value.split_once('=').map_or(value, |(name, _)| name);
    exact.contains(&name)
        || prefixes.iter().any(|prefix| value.starts_with(prefix) && value.len() > prefix.len())
        || prefixes.contains(&name)
}

/// What a git subcommand prints of the repository's files (see [`Analysis::repo_content`]):
/// `show`, `cat-file` (but `-t`/`-s`/`-e`), `grep`, `archive`, `bundle`, `clone`,
/// `fast-export`, `format-patch`, `unpack-file`, `checkout-index`, `worktree add`,
/// `range-diff` and `stash show` always can; `diff` unless it only summarises; `log`,
/// `whatchanged`, `reflog`, `diff-tree`, `diff-index` and `diff-files` with a patch or pickaxe
/// flag. `log -p -- paths` (without `--follow`) prints only those paths, checked as trees.
/// `diff --no-index a b` compares files, not the repository: its operands are read as trees.
/// `blame`'s operands are the files it prints.
/// A revision that may be an object id (4 to 64 hex digits): a blob's, whose content cannot be
/// tied to a path.
pub(super) fn object_like(value: &str) -> bool {
    (4..=64).contains(&value.len()) && value.chars().all(|c| c.is_ascii_hexdigit())
}

/// Limits what `git show`, `diff`, `log -p`, `grep` or `cat-file` print to the paths the command
/// names, when it names them so that nothing else can come out: `rev:path` operands (their
/// paths, relative to the repository root, or to the working directory for `./x`), and
/// pathspecs after `--` (or, for `grep` and `diff`, operands that exist as paths). Returns
/// whether it could: not with `--follow` (renames lead to other paths), an operand that may be
/// an object id, or a plain revision with no path to limit it (`git show HEAD`).
pub(super) fn git_limit_to_paths(sub: &str, rest: &[Word], analysis: &mut Analysis) -> bool {
    let dashes = rest.iter().position(|w| w.value == "--");
    let before = &rest[..dashes.unwrap_or(rest.len())];
    let after: Vec<&Word> = dashes.map_or(Vec::new(), |at| rest[at + 1..].iter().collect());
    if before.iter().any(|w| w.value == "--follow") {
        return false;
    }
    let mut operands: Vec<&Word> = before.iter().filter(|w| !w.value.starts_with('-')).collect();
    // `git grep` takes the pattern first (unless `-e` / `-f` gives it).
    if sub == "grep"
        && !before.iter().any(|w| matches!(w.value.as_str(), "-e" | "-f") || w.value.starts_with("--regexp"))
    {
        operands.drain(..operands.len().min(1));
    }
    let mut plain = Vec::new();
    for word in operands {
        if !word.is_literal() {
            return false;
        }
        match word.value.split_once(':') {
            // `:/text` searches commit messages: a revision.
            Some((_, path)) if path.starts_with('/') => plain.push(word),
            Some((_, "")) => return false,
            Some((_, path)) if path.starts_with("./") || path.starts_with("../") => {
                analysis
                    .paths
                    .push(PathArg { path_use: PathUse::ReadTree { follow_links: false }, word: piece(word, path) });
            }
            // `:0:path` names a path in the index.
            Some((_, path)) => {
                let path = path.split_once(':').filter(|(stage, _)| stage.len() == 1).map_or(path, |(_, p)| p);
                analysis.repo_paths.push(piece(word, path));
            }
            None if object_like(&word.value) => return false,
            None => plain.push(word),
        }
    }
    let named = !after.is_empty()
        || !analysis.repo_paths.is_empty()
        || analysis.paths.iter().any(|p| matches!(p.path_use, PathUse::ReadTree { .. }));
    retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links: false }, |w| after.contains(&w));
    if !after.is_empty() || (plain.is_empty() && named) {
        return true;
    }
    // No `--`: `git grep x src`, `git diff src` take an operand that exists as a path for one.
    if matches!(sub, "grep" | "diff") && !plain.is_empty() && after.is_empty() {
        analysis.pathspec_candidates = plain.into_iter().cloned().collect();
    }
    false
}

pub(super) fn git_content(sub: &str, rest: &[Word], analysis: &mut Analysis) {
    let flags: Vec<&Word> = rest.iter().take_while(|w| w.value != "--").filter(|w| w.value.starts_with('-')).collect();
    let patch = flags.iter().any(|w| git_flag_in(w, GIT_PATCH_FLAGS, GIT_PATCH_PREFIXES));
    let operands: Vec<&Word> = rest.iter().filter(|w| !w.value.starts_with('-')).collect();
    match sub {
        "show" | "grep" | "cat-file" if sub != "cat-file" || !git_metadata_only(&flags) => {
            let names_only = sub == "show"
                && flags.iter().any(|w| git_flag_in(w, GIT_SUMMARY_FLAGS, &["--stat", "--dirstat"]))
                && !patch;
            let limited = git_limit_to_paths(sub, rest, analysis);
            // `show --stat HEAD~1` prints names and counts of a commit (not of an object id).
            let names_of_commits = names_only
                && operands.iter().all(|w| w.is_literal() && !w.value.contains(':') && !object_like(&w.value));
            analysis.repo_content = !limited && !names_of_commits;
            if sub == "grep" && !limited && analysis.pathspec_candidates.is_empty() {
                // It searches the working tree too (untracked files with `--untracked` or
                // `--no-index`).
                recursive_operands(analysis, &[], false);
            }
        }
        "cat-file" => {}
        "archive" | "bundle" | "clone" | "fast-export" | "format-patch" | "unpack-file" | "checkout-index"
        | "range-diff" | "request-pull" => {
            analysis.repo_content = true;
        }
        // `stash list` takes log's flags (`-p`); `stash show` may print patches by configuration.
        "stash" => {
            analysis.repo_content = operands.first().is_some_and(|w| w.value == "show")
                || (operands.first().is_some_and(|w| w.value == "list") && patch)
        }
        // `-v` shows the staged changes, `-vv` the unstaged ones too.
        "status" => {
            analysis.repo_content = flags.iter().any(|w| {
                w.value == "--verbose" || (w.value.starts_with("-v") && w.value.chars().skip(1).all(|c| c == 'v'))
            })
        }
        "worktree" => analysis.repo_content = operands.first().is_some_and(|w| w.value == "add"),
        "diff" if flags.iter().any(|w| w.value == "--no-index") => {
            let files: Vec<&Word> = rest.iter().filter(|w| !w.value.starts_with('-') && w.value != "--").collect();
            for file in files {
                if !analysis.paths.iter().any(|p| p.word == *file) {
                    analysis.paths.push(PathArg { path_use: PathUse::Read, word: file.clone() });
                }
            }
            retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links: true }, |_| true);
        }
        "diff" => {
            let summary = flags.iter().any(|w| git_flag_in(w, GIT_SUMMARY_FLAGS, &["--stat", "--dirstat"]));
            if patch || !summary {
                analysis.repo_content = !git_limit_to_paths(sub, rest, analysis);
            }
        }
        "log" | "whatchanged" | "reflog" if patch => {
            analysis.repo_content = !git_limit_to_paths(sub, rest, analysis);
            analysis.pathspec_candidates.clear();
        }
        "diff-tree" | "diff-index" | "diff-files" => analysis.repo_content = patch,
        "blame" | "annotate" => {
            let files: Vec<&Word> = rest.iter().filter(|w| !w.value.starts_with('-') && w.value != "--").collect();
            for file in files {
                if !analysis.paths.iter().any(|p| p.word == *file) {
                    analysis.paths.push(PathArg { path_use: PathUse::Read, word: file.clone() });
                }
            }
        }
        _ => {}
    }
}

/// `git cat-file -t` / `-s` / `-e`: the type, size or existence of an object, not its content.
pub(super) fn git_metadata_only(flags: &[&Word]) -> bool {
    !flags.is_empty() && flags.iter().all(|w| matches!(w.value.as_str(), "-t" | "-s" | "-e"))
}

pub(super) fn git_destructive(sub: &str, rest: &[Word]) -> bool {
    let values: Vec<&str> = rest.iter().map(|w| w.value.as_str()).collect();
    let has = |flags: &[&str]| values.iter().any(|v| flags.contains(v));
    // A short-flag bundle containing `c` (`-fd`, `-xdf`).
    let bundle_has = |c: char| values.iter().any(|v| v.starts_with('-') && !v.starts_with("--") && v.contains(c));
    match sub {
        "reset" => has(&["--hard", "--merge", "--keep"]),
        "push" => {
            bundle_has('f')
                || bundle_has('d')
                || values.iter().any(|v| {
                    v.starts_with("--force")
                        || matches!(*v, "--delete" | "--mirror" | "--prune")
                        || (v.starts_with('+') && v.len() > 1)
                        || (v.starts_with(':') && v.len() > 1)
                })
        }
        "clean" => bundle_has('f') || has(&["--force"]),
        // `git checkout <ref> <path>` overwrites the path, as `git checkout -- <path>` does.
        "checkout" => {
            has(&["--", ".", "-f", "--force", "--ours", "--theirs", "-p", "--patch"])
                || bundle_has('f')
                || values.iter().filter(|v| !v.starts_with('-')).count() >= 2
        }
        "restore" => {
            let staged_only = has(&["--staged", "-S"]) && !has(&["--worktree", "-W"]);
            !staged_only
        }
        "switch" => has(&["--discard-changes", "-f", "--force", "-C", "--force-create"]),
        "rm" | "filter-branch" | "filter-repo" | "prune" | "replace" => true,
        "branch" => has(&["-D", "-d", "--delete", "-M", "-C"]) || (has(&["-f", "--force"]) && values.len() > 1),
        "tag" => has(&["-d", "--delete", "-f", "--force"]),
        "stash" => matches!(values.first(), Some(&"drop" | &"clear")),
        "reflog" => matches!(values.first(), Some(&"expire" | &"delete")),
        "gc" => values.iter().any(|v| v.starts_with("--prune")),
        "update-ref" => has(&["-d"]),
        "worktree" => matches!(values.first(), Some(&"remove" | &"prune")),
        "submodule" => has(&["deinit"]),
        _ => false,
    }
}
