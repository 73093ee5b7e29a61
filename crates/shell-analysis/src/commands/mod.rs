//! What a command does with its arguments: whether it provably only reads, which arguments are
//! paths it reads or writes, and whether it destroys data.
//!
//! [`analyze`] dispatches on the command's name; the rules live by concern:
//!
//! - [`flags`]: the flag-spec language each command's flags are written in, and the scan that
//!   splits arguments into flags and operands by it;
//! - [`table`](mod@table): the table of commands with plain flag and operand rules (`cat`, `ls`, `cp`,
//!   `rm` …);
//! - [`programs`]: programs with rules of their own — grep, rg and other searchers, recursive
//!   copies and archives, interpreters and file readers, `file:` URLs, `cd`, `date`, `dd`, `jq`,
//!   `gh`, `docker`;
//! - [`find`](mod@find), [`sed`](mod@sed), [`xargs`](mod@xargs) and [`git`](mod@git): the four whose arguments are a language of
//!   their own.

mod find;
mod flags;
mod git;
mod programs;
mod sed;
mod table;
mod xargs;

#[cfg(test)]
mod tests;

use crate::parse::Word;
use crate::rules::{Unwrap, layers};
use find::find;
use flags::{flag_paths, piece, scan};
use git::git;
use programs::{
    FILE_READERS, INTERPRETERS, cd, copier, date, dd, docker, file_reader, file_urls, gh, grep, interpreter, jq,
    mentions, recursive_writer, rg, searcher, tar, zip,
};
use sed::sed;
use table::{DIFF, GREP, apply_table, table};
use xargs::{XARGS_SAFE, xargs};

/// Analyses a command after its wrappers (`sudo`, `env`, `timeout`, `xargs` …, see
/// [`layers`]), adding what the wrappers do to it: `xargs` appends arguments from its input
/// (files nobody sees here, unless the command only prints names), and `env -C`, `sudo -D` or
/// `chroot` run it in another folder (its relative paths are not where they seem), as does
/// `env -S`, which splits a string into a new command line.
pub(crate) fn analyze_command(words: &[Word]) -> Analysis {
    let starts = layers(words, Unwrap::Everything);
    let inner_start = starts.last().copied().unwrap_or(0);
    let inner = words.get(inner_start..).unwrap_or_default();
    let mut analysis = analyze(inner);
    for pair in starts.windows(2) {
        let layer = words.get(pair[0]..pair[1]).unwrap_or_default();
        let Some(name) = layer.first().map(|w| w.value.as_str()) else { continue };
        let has = |flags: &[&str]| {
            layer.iter().skip(1).any(|w| {
                flags.iter().any(|f| w.value == *f || (f.starts_with("--") && w.value.starts_with(&format!("{f}="))))
            })
        };
        let elsewhere = match name {
            "xargs" => {
                // `-a FILE` / `--arg-file=FILE`: the file whose lines become arguments is read
                // (and `xargs -a f echo` prints it).
                let mut words = layer.iter().skip(1);
                while let Some(word) = words.next() {
                    let value = word.value.as_str();
                    let file = if value == "-a" || value == "--arg-file" {
                        words.next().cloned()
                    } else if let Some(file) = value.strip_prefix("--arg-file=") {
                        Some(piece(word, file))
                    } else {
                        value
                            .strip_prefix("-a")
                            .filter(|f| !f.is_empty() && !value.starts_with("--"))
                            .map(|file| piece(word, file))
                    };
                    if let Some(file) = file {
                        analysis.paths.push(PathArg { path_use: PathUse::Read, word: file });
                    }
                }
                let names_only = XARGS_SAFE.contains(&inner.first().map(|w| w.value.as_str()).unwrap_or_default());
                !names_only
            }
            "env" => has(&["-C", "--chdir", "-S", "--split-string"]),
            "sudo" | "doas" => has(&["-D", "--chdir"]),
            "chroot" => true,
            _ => false,
        };
        if elsewhere {
            analysis.unseen_reads = true;
            analysis.unseen_writes = true;
        }
    }
    analysis
}

/// How a command uses a path argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathUse {
    /// Reads it (or lists it, or enters it).
    Read,
    /// Reads the files of a folder recursively, their contents (`grep -r`, `cp -r`, `tar c`):
    /// a deny rule for anything below it matters, and with `follow_links` so do the targets of
    /// the symbolic links inside.
    ReadTree {
        /// The command follows symbolic links met inside the folder (`grep -R`, `rg -L`).
        follow_links: bool,
    },
    /// Creates, changes or overwrites it.
    Write,
    /// Removes it (`rm`, `rmdir`): a write, and some targets are always dangerous.
    Remove,
    /// Changes a folder and everything in it (`chmod -R`, extracting an archive into it).
    WriteTree,
    /// Removes a folder with everything in it (`rm -r`).
    RemoveTree,
    /// Names a path a program this module does not understand may read (an argument of
    /// `openssl`, `perl`, `make` …): only `Read(…)` deny and ask rules are checked, so deny rules
    /// hold for such programs too without asking about every argument.
    Mention,
}

impl PathUse {
    /// Whether the command changes the path (rather than reading it).
    pub(crate) fn writes(self) -> bool {
        matches!(self, Self::Write | Self::Remove | Self::WriteTree | Self::RemoveTree)
    }

    /// Whether the command removes the path.
    pub(crate) fn removes(self) -> bool {
        matches!(self, Self::Remove | Self::RemoveTree)
    }
}

/// One path argument of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathArg {
    /// How it is used.
    pub path_use: PathUse,
    /// The word naming it.
    pub word: Word,
}

/// What [`analyze`] found out about one command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Analysis {
    /// Every flag and argument is understood and none writes, deletes, runs something or
    /// changes system state. Paths are not considered here.
    pub read_only: bool,
    /// Its path arguments.
    pub paths: Vec<PathArg>,
    /// Some of its paths cannot be seen (`xargs rm` takes them from its input).
    pub hidden_paths: bool,
    /// It reads files whose names are not on its command line: names from its input (`xargs
    /// cat`) or from a list file (`sort --files0-from=list`).
    pub unseen_reads: bool,
    /// It changes files whose names are not on its command line (`xargs rm`).
    pub unseen_writes: bool,
    /// git: it prints repository content not limited to the paths it names (`git show`,
    /// `git log -p`, `git grep`, `git cat-file -p`, `git archive`): any file in the repository,
    /// any version of it, can come out.
    pub repo_content: bool,
    /// git: the repository is not found from the working directory (`-C`, `--git-dir`,
    /// `--work-tree`).
    pub repo_elsewhere: bool,
    /// git: operands that limit [`Self::repo_content`] to themselves when each exists as a path
    /// (git then takes them as paths: `git grep x src`); when one does not, it may be a revision
    /// and the whole repository can come out.
    pub pathspec_candidates: Vec<Word>,
    /// git: paths inside the repository named by `rev:path` (relative to its root), read as
    /// trees.
    pub repo_paths: Vec<Word>,
    /// It deletes or overwrites data, or cannot be undone.
    pub destructive: bool,
    /// `sed` only: every script prints, deletes lines or substitutes without running or writing
    /// other files (so `acceptEdits` may run it).
    pub sed_edit_safe: bool,
}

/// Whether a word is shaped like a path outside the folder it is used in: absolute, from the
/// home folder, or climbing with `..`.
pub(crate) fn looks_like_outside_path(word: &Word) -> bool {
    let value = word.value.as_str();
    value.starts_with('/') || value.starts_with('~') || value.split('/').any(|part| part == "..")
}

fn push_paths<'a>(analysis: &mut Analysis, words: impl IntoIterator<Item = &'a Word>, path_use: PathUse) {
    for word in words {
        analysis.paths.push(PathArg { path_use, word: word.clone() });
    }
}

/// Analyses one command: `words` is the command name and its arguments, wrappers already
/// removed by the caller.
pub(crate) fn analyze(words: &[Word]) -> Analysis {
    let mut analysis = Analysis::default();
    let Some(first) = words.first() else { return analysis };
    let args = words.get(1..).unwrap_or_default();
    let name = first.value.as_str();
    let base = name.rsplit('/').next().unwrap_or_default();
    let bare = !name.contains('/') && first.is_literal();
    match base {
        "git" => git(args, &mut analysis),
        "find" => find(args, &mut analysis),
        "grep" | "egrep" | "fgrep" | "rgrep" => grep(base, args, &mut analysis),
        "rg" => rg(args, &mut analysis),
        "diff" => {
            if let Some(spec) = table("diff") {
                apply_table(spec, args, &mut analysis);
            }
            // Folders are compared file by file (recursively with `-r`), links followed unless
            // `--no-dereference`.
            let follow_links = !scan(args, DIFF, true).has_any(&["--no-dereference"]);
            retag(&mut analysis, PathUse::Read, PathUse::ReadTree { follow_links }, |_| true);
        }
        "cp" | "mv" | "ln" | "link" | "rm" | "chmod" | "chown" | "chgrp" => {
            if let Some(spec) = table(base) {
                apply_table(spec, args, &mut analysis);
                recursive_writer(base, spec, args, &mut analysis);
            }
        }
        "tar" | "bsdtar" | "gtar" => tar(args, &mut analysis),
        "zip" => zip(args, &mut analysis),
        "rsync" | "scp" => copier(base, args, &mut analysis),
        "ag" | "ack" | "ack-grep" | "pt" | "ugrep" | "ug" | "rga" | "sift" => searcher(base, args, &mut analysis),
        "zgrep" | "zegrep" | "zfgrep" | "bzgrep" | "xzgrep" | "zstdgrep" => {
            let scan = scan(args, GREP, true);
            let skip = usize::from(!scan.has(&["-e", "-f", "--regexp", "--file"]));
            flag_paths(&mut analysis, &scan);
            push_paths(&mut analysis, scan.operands.iter().skip(skip).copied(), PathUse::Read);
        }
        "source" | "." => push_paths(&mut analysis, args.iter().find(|w| !w.value.starts_with('-')), PathUse::Read),
        _ if INTERPRETERS.iter().any(|(name, _)| *name == base) => {
            interpreter(base, args, &mut analysis);
            mentions(args, &mut analysis);
        }
        _ if FILE_READERS.contains(&base) => file_reader(base, args, &mut analysis),
        "sed" | "gsed" => sed(args, &mut analysis),
        "xargs" => xargs(args, &mut analysis),
        "jq" => jq(args, &mut analysis),
        "cd" | "pushd" => cd(args, &mut analysis),
        "date" => date(args, &mut analysis),
        // `env` and `printenv` print the environment, secrets included: never read-only here,
        // as in Claude Code's list.
        "hostname" => {
            let scan = scan(
                args,
                "-f -s -i -I -d -A -a --fqdn --long --short --ip-address --all-ip-addresses --domain --alias --all-fqdns",
                true,
            );
            analysis.read_only = scan.clean(true) && scan.operands.is_empty();
        }
        "command" => {
            let scan = scan(args, "-v -V -p", false);
            analysis.read_only = scan.clean(true) && scan.has(&["-v", "-V"]);
        }
        "set" => {
            analysis.read_only =
                args.iter().all(|w| w.is_literal() && crate::parse::SAFE_SET_OPTIONS.contains(&w.value.as_str()));
        }
        "gh" => gh(args, &mut analysis),
        "docker" | "podman" => docker(args, &mut analysis),
        "kubectl" => analysis.destructive = args.iter().any(|w| w.value == "delete" || w.value == "drain"),
        "terraform" | "tofu" => {
            analysis.destructive = args.iter().any(|w| w.value == "destroy" || w.value == "-destroy")
        }
        "dd" => dd(args, &mut analysis),
        "crontab" => analysis.destructive = args.iter().any(|w| w.value == "-r"),
        "pyright" => {
            let scan = scan(
                args,
                "-p= --project= --pythonpath= --pythonplatform= --pythonversion= --level= --threads? --outputjson --stats --verbose --version --warnings --dependencies --lib --skipunannotated --createstub^= --writebaseline^ -w^ --watch^ --verifytypes= --ignoreexternal",
                true,
            );
            push_paths(&mut analysis, scan.operands.iter().copied(), PathUse::Read);
            analysis.read_only = scan.clean(true);
        }
        _ => match table(base) {
            Some(spec) => {
                apply_table(spec, args, &mut analysis);
                if matches!(base, "curl" | "wget") {
                    file_urls(args, &mut analysis);
                }
            }
            None => mentions(args, &mut analysis),
        },
    }
    // Only a bare, literal command name can be trusted to be the command in the table, and no
    // argument may expand into something else.
    let expands = args.iter().any(|w| w.variable || w.glob || w.dynamic);
    analysis.read_only &= bare && !expands;
    analysis
}

/// Changes the use of the paths `analysis` found with use `from` whose word `pick` selects.
fn retag(analysis: &mut Analysis, from: PathUse, to: PathUse, pick: impl Fn(&Word) -> bool) {
    for path in &mut analysis.paths {
        if path.path_use == from && pick(&path.word) {
            path.path_use = to;
        }
    }
}
