//! What a command does with its arguments: whether it provably only reads, which arguments are
//! paths it reads or writes, and whether it destroys data.
//!
//! Each command's flags are listed in a small spec string, one token per flag:
//!
//! | token | meaning |
//! |---|---|
//! | `-n` | a flag without a value |
//! | `-n=` | a flag with a value (`-n 5`, `-n5`, `--lines=5`, `--lines 5`); a value shaped like a path outside (`/x`, `~/x`, `../x`) is checked as a file read |
//! | `-e:` | a flag whose value is never a path (a script, a pattern) |
//! | `--color?` | a long flag whose value may only be attached (`--color=auto`) |
//! | `-f@` | the value is a file the command reads |
//! | `--files0-from&` | the value is a file *listing* the files the command reads (their names are unseen here) |
//! | `-o!` | the value is a file the command writes (never read-only) |
//! | `-exec^` / `--pre^=` | a flag that writes or runs something (never read-only) |
//! | `#` | `-5` style numeric flags |
//!
//! Long flags may be abbreviated (GNU `getopt_long` and git both accept `--outp` for
//! `--output`), so an abbreviation counts as the most dangerous flag it could stand for. In a
//! *strict* spec an unlisted flag makes the command not read-only; in a permissive one (for
//! commands with no dangerous flag beyond those listed) it is taken as a harmless switch.

use super::parse::Word;
use super::rules::{Unwrap, find_exec_commands, layers};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Plain,
    Optional,
    /// A value that is never a path (a script, a pattern, a header).
    Data,
    Value,
    ReadPath,
    /// A file listing the files the command reads.
    ListPath,
    Forbidden,
    ForbiddenValue,
    WritePath,
}

impl Kind {
    fn takes_value(self) -> bool {
        matches!(
            self,
            Self::Data | Self::Value | Self::ReadPath | Self::ListPath | Self::WritePath | Self::ForbiddenValue
        )
    }

    fn forbidden(self) -> bool {
        matches!(self, Self::Forbidden | Self::ForbiddenValue | Self::WritePath)
    }
}

fn parse_token(token: &str) -> (&str, Kind) {
    if let Some(name) = token.strip_suffix("^=") {
        (name, Kind::ForbiddenValue)
    } else if let Some(name) = token.strip_suffix('^') {
        (name, Kind::Forbidden)
    } else if let Some(name) = token.strip_suffix('=') {
        (name, Kind::Value)
    } else if let Some(name) = token.strip_suffix(':') {
        (name, Kind::Data)
    } else if let Some(name) = token.strip_suffix('?') {
        (name, Kind::Optional)
    } else if let Some(name) = token.strip_suffix('@') {
        (name, Kind::ReadPath)
    } else if let Some(name) = token.strip_suffix('&') {
        (name, Kind::ListPath)
    } else if let Some(name) = token.strip_suffix('!') {
        (name, Kind::WritePath)
    } else {
        (token, Kind::Plain)
    }
}

/// The kind of `flag` in `spec`; a long flag may be an abbreviation (the worst match counts).
fn lookup(spec: &str, flag: &str) -> Option<Kind> {
    let mut abbreviated: Option<Kind> = None;
    for token in spec.split_whitespace() {
        let (name, kind) = parse_token(token);
        if name == flag {
            return Some(kind);
        }
        if flag.starts_with("--") && flag.len() > 2 && name.starts_with(flag) {
            abbreviated = Some(abbreviated.map_or(kind, |seen| seen.max(kind)));
        }
    }
    abbreviated
}

#[derive(Debug, Clone)]
struct Flag {
    name: String,
    kind: Kind,
    value: Option<Word>,
}

#[derive(Debug, Default)]
struct Scan<'w> {
    flags: Vec<Flag>,
    operands: Vec<&'w Word>,
    /// A flag not in the spec (or a value given to a flag that takes none).
    unknown: bool,
    /// A word that may turn into a flag when it runs (`$X`, `-$X`).
    opaque: bool,
}

impl Scan<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|flag| names.contains(&flag.name.as_str()))
    }

    fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags.iter().filter(|f| names.contains(&f.name.as_str())).filter_map(|f| f.value.as_ref())
    }

    fn forbidden(&self) -> bool {
        self.flags.iter().any(|flag| flag.kind.forbidden())
    }

    /// Whether one of `names` was given; a long name also in any abbreviation of three letters
    /// or more (`--recur` for `--recursive`), as GNU `getopt_long` accepts.
    fn has_any(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|flag| {
            names.iter().any(|name| {
                flag.name == *name
                    || (name.starts_with("--")
                        && flag.name.starts_with("--")
                        && flag.name.len() > 4
                        && name.starts_with(flag.name.as_str()))
            })
        })
    }

    /// The values given to one of `names` (long names also abbreviated, as in [`Self::has_any`]).
    fn values_any<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Word> + 'a {
        self.flags
            .iter()
            .filter(move |flag| {
                names.iter().any(|name| {
                    flag.name == *name
                        || (name.starts_with("--")
                            && flag.name.starts_with("--")
                            && flag.name.len() > 4
                            && name.starts_with(flag.name.as_str()))
                })
            })
            .filter_map(|flag| flag.value.as_ref())
    }

    /// Nothing unknown, nothing forbidden, nothing that may expand into a flag.
    fn clean(&self, strict: bool) -> bool {
        !(self.forbidden() || self.opaque || (strict && self.unknown))
    }
}

/// A piece of `word` (an attached flag value) as a word of its own.
fn piece(word: &Word, text: &str) -> Word {
    Word {
        raw: text.to_owned(),
        value: text.to_owned(),
        variable: word.variable,
        glob: word.glob,
        tilde: text.starts_with('~'),
        dynamic: word.dynamic,
    }
}

/// Splits `args` into flags and operands by `spec`. With `permute`, flags may follow operands
/// (GNU style); without, the first operand ends the flags.
fn scan<'w>(args: &'w [Word], spec: &str, permute: bool) -> Scan<'w> {
    let mut out = Scan::default();
    let mut only_operands = false;
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let value = word.value.as_str();
        if word.variable || word.dynamic {
            out.opaque = true;
        }
        if only_operands || value == "-" || !value.starts_with('-') {
            out.operands.push(word);
            only_operands |= !permute;
            continue;
        }
        if value == "--" {
            only_operands = true;
            continue;
        }
        if value.starts_with("--") {
            let (name, attached) = match value.split_once('=') {
                Some((name, attached)) => (name, Some(attached)),
                None => (value, None),
            };
            let kind = lookup(spec, name);
            let flag_value = match kind {
                Some(kind) if kind.takes_value() => attached.map(|a| piece(word, a)).or_else(|| iter.next().cloned()),
                Some(_) | None => attached.map(|a| piece(word, a)),
            };
            if kind.is_none() || (attached.is_some() && kind == Some(Kind::Plain)) {
                out.unknown = true;
            }
            out.flags.push(Flag { name: name.to_owned(), kind: kind.unwrap_or(Kind::Plain), value: flag_value });
            continue;
        }
        let body = &value[1..];
        if body.chars().all(|c| c.is_ascii_digit()) && lookup(spec, "#").is_some() {
            out.flags.push(Flag { name: "-#".to_owned(), kind: Kind::Plain, value: Some(piece(word, body)) });
            continue;
        }
        for (index, c) in body.char_indices() {
            let name = format!("-{c}");
            let kind = lookup(spec, &name);
            let rest = &body[index + c.len_utf8()..];
            match kind {
                Some(kind) if kind.takes_value() || kind == Kind::Optional => {
                    let flag_value = if !rest.is_empty() {
                        Some(piece(word, rest))
                    } else if kind == Kind::Optional {
                        None
                    } else {
                        iter.next().cloned()
                    };
                    out.flags.push(Flag { name, kind, value: flag_value });
                    break;
                }
                Some(kind) => out.flags.push(Flag { name, kind, value: None }),
                None => {
                    out.unknown = true;
                    out.flags.push(Flag { name, kind: Kind::Plain, value: None });
                }
            }
        }
    }
    out
}

/// Whether a word is shaped like a path outside the folder it is used in: absolute, from the
/// home folder, or climbing with `..`.
pub(crate) fn looks_like_outside_path(word: &Word) -> bool {
    let value = word.value.as_str();
    value.starts_with('/') || value.starts_with('~') || value.split('/').any(|part| part == "..")
}

/// Flag values that are paths: declared ones, and any value shaped like a path outside.
fn flag_paths(analysis: &mut Analysis, scan: &Scan<'_>) {
    for flag in &scan.flags {
        let Some(value) = &flag.value else { continue };
        let path_use = match flag.kind {
            Kind::ReadPath => PathUse::Read,
            Kind::ListPath => {
                analysis.unseen_reads = true;
                PathUse::Read
            }
            Kind::WritePath => PathUse::Write,
            Kind::Data => continue,
            _ if looks_like_outside_path(value) => PathUse::Read,
            _ => continue,
        };
        analysis.paths.push(PathArg { path_use, word: value.clone() });
    }
}

fn push_paths<'a>(analysis: &mut Analysis, words: impl IntoIterator<Item = &'a Word>, path_use: PathUse) {
    for word in words {
        analysis.paths.push(PathArg { path_use, word: word.clone() });
    }
}

/// What a table command does with its operands.
#[derive(Debug, Clone, Copy)]
enum Operands {
    /// None allowed (any operand: not read-only).
    Nothing,
    /// Not paths.
    Data,
    /// All paths.
    Paths(PathUse),
    /// The first operand is a pattern or program unless one of these flags gives it; the rest
    /// are files read.
    PatternThenPaths(&'static str),
    /// The first operand is data (a mode, an owner, a size); the rest are paths.
    DataThenPaths(PathUse),
    /// `IN [OUT]`: the first is read, a second is written.
    InOut,
    /// `SOURCE… TARGET`: sources used so, the last one written — unless one of the flags
    /// names the target folder.
    SourcesThenTarget(PathUse, &'static str),
}

/// When a table command is destructive.
#[derive(Debug, Clone, Copy)]
enum Destroys {
    Never,
    Always,
    /// Unless one of these flags is given (`cp -n`).
    Unless(&'static [&'static str]),
    /// Only with one of these flags (`ln -f`).
    With(&'static [&'static str]),
}

#[derive(Debug, Clone, Copy)]
struct Spec {
    flags: &'static str,
    strict: bool,
    operands: Operands,
    read_only: bool,
    destroys: Destroys,
}

const fn read(flags: &'static str, strict: bool, operands: Operands) -> Spec {
    Spec { flags, strict, operands, read_only: true, destroys: Destroys::Never }
}

const fn write(flags: &'static str, operands: Operands, destroys: Destroys) -> Spec {
    Spec { flags, strict: false, operands, read_only: false, destroys }
}

const HEAD_TAIL: &str = "-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated #";
const CHECKSUM: &str = "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn -l= --length=";
const GREP: &str = "-e: -f@ -m= -A= -B= -C= -d= -D= --regexp= --file@ --max-count= --after-context= --before-context= \
    --context= --label= --include= --exclude= --exclude-from@ --exclude-dir= --binary-files= --devices= --directories= \
    --color? --colour? --group-separator= --regexp: #";
const RG: &str = "-e: -f@ -g: -A= -B= -C= -m= -t= -T= -j= -M= -r= -E= -d= --regexp= --file@ --glob= --iglob= \
    --after-context= --before-context= --context= --max-count= --type= --type-not= --type-add= --threads= --max-columns= \
    --replace: --sort= --sortr= --color= --colour= --colors= --max-depth= --max-filesize= --context-separator= \
    --field-match-separator= --field-context-separator= --path-separator= --encoding= --engine= --ignore-file@ \
    --dfa-size-limit= --regex-size-limit= --pre^= --pre-glob^= --hostname-bin^= -z^ --search-zip^ --hyperlink-format=";
const LS: &str = "-I= -T= -w= --ignore= --hide= --format= --sort= --time= --time-style= --color? --block-size= \
    --quoting-style= --indicator-style= --tabsize= --width= --hyperlink?";
const DIFF: &str = "-C= -U= -W= -I= -x= -X@ -S= -F= -D= --context? --unified? --width= --ignore-matching-lines= \
    --exclude= --exclude-from@ --starting-file= --from-file@ --to-file@ --horizon-lines= --color? --palette= \
    --tabsize= --label= --show-function-line= --line-format= --old-line-format= --new-line-format= \
    --unchanged-line-format= --old-group-format= --new-group-format= --changed-group-format= \
    --unchanged-group-format= --ifdef= #";
const SORT: &str = "-k= -t= -S= -T= --key= --field-separator= --buffer-size= --temporary-directory= --parallel= \
    --batch-size= --files0-from& --random-source@ --sort= -o! --output! --compress-program^=";

/// The table of commands with plain flag and operand rules.
fn table(name: &str) -> Option<Spec> {
    use Operands::*;
    use PathUse::{Read, Remove, Write};
    let spec = match name {
        // Print their arguments or facts about the system.
        "echo" | "printf" | "true" | "false" | ":" | "pwd" | "whoami" | "id" | "uname" | "nproc" | "uptime"
        | "groups" | "locale" | "which" | "type" | "expr" | "test" | "[" | "getconf" | "seq" | "cal" | "basename"
        | "dirname" | "realpath" | "readlink" | "sleep" | "tput" | "help" | "numfmt" | "tr" | "lsof" | "netstat"
        | "ps" | "arch" | "logname" | "tty" | "users" | "who" | "w" => read("", false, Data),
        "ss" => read("-K^ --kill^ -D! --diag!", false, Data),
        "free" => read("-s^= --seconds^= -c= --count=", false, Nothing),
        "pgrep" => read(
            "-l -a -f -x -n -o -c -v -i -d= -u= -U= -g= -G= -P= -s= -t= --list-name --list-full --full --exact \
             --newest --oldest --count --inverse --ignore-case --delimiter= --euid= --uid= --pgroup= --group= \
             --parent= --session= --terminal=",
            true,
            Data,
        ),
        "man" => read("-k -f -a -w -W --apropos --whatis --all --where --path -s= --sections=", true, Data),
        "info" => read("-a --all -k= --apropos= -w --where", true, Data),
        // Read the files they are given.
        "cat" | "tac" | "rev" | "nl" | "strings" | "od" | "hexdump" | "wc" | "stat" | "cut" | "paste" | "fold"
        | "expand" | "unexpand" | "fmt" | "comm" | "cmp" | "tsort" | "pr" | "base64" | "md5sum" | "sha1sum"
        | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum" | "cksum" | "sum" | "du" | "df"
        | "column" => read(
            match name {
                "nl" => "-b= -d= -f= -h= -i= -l= -n= -s= -v= -w=",
                "strings" => "-n= -t= -e= -T= --bytes= --radix= --encoding= --target= #",
                "od" => {
                    "-A= -j= -N= -t= -w? -S? --address-radix= --skip-bytes= --read-bytes= --format= --width? --endian= --strings?"
                }
                "hexdump" => "-e= -f@ -n= -s=",
                "stat" => "-c= --format= --printf=",
                "cut" => "-b= -c= -d= -f= --bytes= --characters= --delimiter= --fields= --output-delimiter=",
                "paste" => "-d= --delimiters=",
                "fold" | "fmt" => "-w= -p= -g= --width= --prefix= --goal= #",
                "expand" | "unexpand" => "-t= --tabs= #",
                "comm" => "--output-delimiter=",
                "cmp" => "-i= -n= --ignore-initial= --bytes=",
                "base64" => "-w= --wrap=",
                "wc" => "--files0-from&",
                "du" => {
                    "-B= -d= -t= --block-size= --max-depth= --threshold= --exclude= -X@ --exclude-from@ --files0-from& --time? --time-style="
                }
                "df" => "-B= -t= -x= --block-size= --type= --exclude-type= --output?",
                "column" => {
                    "-c= -s= -o= -N= -R= -l= -W= -H= -O= -E= -d= -r= -T= -i= -p= --separator= --output-separator= --columns= --table-columns= --output-width="
                }
                "pr" => {
                    "-h= -l= -w= -W= -o= -N= -e? -i? -n? -s? --header= --length= --width= --page-width= --indent= --first-line-number="
                }
                "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum" | "cksum"
                | "sum" => CHECKSUM,
                _ => "",
            },
            false,
            Paths(Read),
        ),
        "head" => read(HEAD_TAIL, true, Paths(Read)),
        "tail" => read(
            "-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated # -f^ -F^ --follow^ --retry^ --pid^= -s^= --sleep-interval^=",
            true,
            Paths(Read),
        ),
        "ls" | "dir" | "vdir" => read(LS, false, Paths(Read)),
        "tree" => read(
            "-L= -P= -I= -o! -H= -T= --charset= --filelimit= --timefmt= --sort= --fromfile@ -R^",
            false,
            Paths(Read),
        ),
        "file" => read(
            "-m@ -f& -F= -P= -e= --magic-file@ --files-from& --separator= --exclude= --parameter= -C^ --compile^",
            false,
            Paths(Read),
        ),
        "diff" => read(DIFF, false, Paths(Read)),
        "sort" => read(SORT, false, Paths(Read)),
        "uniq" => read(
            "-c -d -D? -f= -i -s= -u -w= -z --count --repeated --all-repeated? --skip-fields= --ignore-case \
             --skip-chars= --unique --zero-terminated --check-chars= --group?",
            true,
            InOut,
        ),
        "grep" | "egrep" | "fgrep" => read(GREP, false, PatternThenPaths("-e -f --regexp --file")),
        "rg" => read(RG, false, PatternThenPaths("-e -f --regexp --file --files --type-list")),
        "fd" | "fdfind" => read(
            "-d= -t= -e= -E= -j= -c= -S= -g= --max-depth= --min-depth= --exact-depth= --type= --extension= --exclude= \
             --threads= --color= --size= --changed-within= --changed-before= --owner= --base-directory@ --path-separator= \
             --search-path@ --max-results= --ignore-file@ --format= -x^= --exec^= -X^= --exec-batch^=",
            false,
            PatternThenPaths(""),
        ),
        // Write, create or remove the files they are given.
        "rm" | "rmdir" | "unlink" | "shred" => write(
            "--interactive? --preserve-root? -n= --iterations= -s= --size= --random-source@",
            Paths(Remove),
            Destroys::Always,
        ),
        "mkdir" => write("-m= --mode= --context?", Paths(Write), Destroys::Never),
        "touch" => write("-d= -t= -r@ --date= --reference@ --time=", Paths(Write), Destroys::Never),
        "tee" => write("--output-error?", Paths(Write), Destroys::Unless(&["-a", "--append"])),
        "truncate" => write("-s= -r@ --size= --reference@", Paths(Write), Destroys::Always),
        "chmod" | "chown" | "chgrp" => write("--reference@ --from=", DataThenPaths(Write), Destroys::Never),
        "cp" => write(
            "-t! -S= --target-directory! --suffix= --backup? --reflink? --sparse= --preserve? --no-preserve= --context? --update?",
            SourcesThenTarget(Read, "-t --target-directory"),
            Destroys::Unless(&["-n", "--no-clobber", "-i", "--interactive", "--update"]),
        ),
        "mv" => write(
            "-t! -S= --target-directory! --suffix= --backup? --context? --update?",
            SourcesThenTarget(Write, "-t --target-directory"),
            Destroys::Unless(&["-n", "--no-clobber", "-i", "--interactive", "--update"]),
        ),
        "ln" | "link" => write(
            "-t! -S= --target-directory! --suffix= --backup?",
            SourcesThenTarget(Write, "-t --target-directory"),
            Destroys::With(&["-f", "--force"]),
        ),
        "install" => write(
            "-t! -S= -m= -o= -g= --target-directory! --suffix= --mode= --owner= --group= --backup? --context?",
            SourcesThenTarget(Read, "-t --target-directory"),
            Destroys::Always,
        ),
        "awk" | "gawk" | "mawk" | "nawk" => write(
            "-F: -v: -f@ -e: -i= -l= --file@ --source: --include= --assign: --field-separator:",
            PatternThenPaths("-f -e --file --source"),
            Destroys::Never,
        ),
        "curl" => write(
            "-o! --output! --output-dir! -K@ --config@ -T@ --upload-file@ -b= -c! --cookie= --cookie-jar! -D! --dump-header! \
             --trace! --trace-ascii! --stderr! -d: --data: -H: --header: -X: --request: -u: --user: -A: -e: -x: -m: \
             --max-time: --connect-timeout: -w: -r: -F: --form: --url: --retry:",
            Data,
            Destroys::Never,
        ),
        "wget" => write(
            "-O! --output-document! -o! --output-file! -a! --append-output! -P! --directory-prefix! -i@ --input-file@ \
             -e= --execute= -t= --tries= -T= --timeout= -U= --user-agent= --header= --post-data= --post-file@",
            Data,
            Destroys::Never,
        ),
        "mkfs" | "wipefs" | "fdisk" | "sfdisk" | "parted" | "mkswap" => write("", Data, Destroys::Always),
        "kill" | "pkill" | "killall" | "shutdown" | "reboot" | "halt" | "poweroff" => write("", Data, Destroys::Always),
        "xxd" => read("-c= -g= -l= -o= -s= -n= -C?", false, InOut),
        _ if name.starts_with("mkfs.") => write("", Data, Destroys::Always),
        _ => return None,
    };
    Some(spec)
}

fn apply_table(spec: Spec, args: &[Word], analysis: &mut Analysis) {
    let scan = scan(args, spec.flags, true);
    flag_paths(analysis, &scan);
    let mut read_only = spec.read_only && scan.clean(spec.strict);
    match spec.operands {
        Operands::Nothing => {
            read_only &= scan.operands.is_empty();
        }
        Operands::Data => {}
        Operands::Paths(path_use) => push_paths(analysis, scan.operands.iter().copied(), path_use),
        Operands::PatternThenPaths(pattern_flags) => {
            let given: Vec<&str> = pattern_flags.split_whitespace().collect();
            let skip = usize::from(!scan.has(&given));
            push_paths(analysis, scan.operands.iter().skip(skip).copied(), PathUse::Read);
        }
        Operands::DataThenPaths(path_use) => {
            let skip = usize::from(!scan.has(&["--reference"]));
            push_paths(analysis, scan.operands.iter().skip(skip).copied(), path_use);
        }
        Operands::InOut => {
            push_paths(analysis, scan.operands.first().copied(), PathUse::Read);
            push_paths(analysis, scan.operands.get(1).copied(), PathUse::Write);
            read_only &= scan.operands.len() <= 1;
        }
        Operands::SourcesThenTarget(sources, target_flags) => {
            let given: Vec<&str> = target_flags.split_whitespace().collect();
            if scan.has(&given) || scan.operands.len() < 2 {
                push_paths(analysis, scan.operands.iter().copied(), sources);
            } else if let Some((target, rest)) = scan.operands.split_last() {
                push_paths(analysis, rest.iter().copied(), sources);
                push_paths(analysis, [*target], PathUse::Write);
            }
        }
    }
    analysis.read_only = read_only && !analysis.unseen_reads;
    analysis.destructive = match spec.destroys {
        Destroys::Never => false,
        Destroys::Always => true,
        Destroys::Unless(safe) => !scan.has(safe),
        Destroys::With(flags) => scan.has(flags),
    };
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
                args.iter().all(|w| w.is_literal() && super::parse::SAFE_SET_OPTIONS.contains(&w.value.as_str()));
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

/// `grep`: with `-r` / `-R` / `-d recurse` (or as `rgrep`) the operands after the pattern are
/// folders read recursively — the working directory when none is given — and `-R` follows
/// the links inside.
fn grep(name: &str, args: &[Word], analysis: &mut Analysis) {
    let Some(spec) = table("grep") else { return };
    apply_table(spec, args, analysis);
    let scan = scan(args, GREP, true);
    let follow_links = scan.has(&["-R"]) || scan.has_any(&["--dereference-recursive"]);
    let recursive = name == "rgrep"
        || follow_links
        || scan.has(&["-r"])
        || scan.has_any(&["--recursive"])
        || scan.values_any(&["-d", "--directories"]).any(|value| value.value == "recurse" || !value.is_literal());
    if !recursive {
        return;
    }
    let skip = usize::from(!scan.has(&["-e", "-f", "--regexp", "--file"]));
    recursive_operands(analysis, &scan.operands[skip.min(scan.operands.len())..], follow_links);
}

/// Marks `operands` (already pushed as plain reads) as folders read recursively, or adds the
/// working directory when there are none (what `grep -r`, `rg` and friends search then).
fn recursive_operands(analysis: &mut Analysis, operands: &[&Word], follow_links: bool) {
    if operands.is_empty() {
        let here = Word { raw: ".".into(), value: ".".into(), ..Word::default() };
        analysis.paths.push(PathArg { path_use: PathUse::ReadTree { follow_links }, word: here });
        return;
    }
    retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links }, |word| operands.contains(&word));
}

/// `rg`: every folder it is given (the working directory when none) is searched recursively;
/// `-L` follows links. `--files` only lists names.
fn rg(args: &[Word], analysis: &mut Analysis) {
    let Some(spec) = table("rg") else { return };
    apply_table(spec, args, analysis);
    let scan = scan(args, RG, true);
    if scan.has_any(&["--files", "--type-list"]) {
        return;
    }
    let follow_links = scan.has(&["-L"]) || scan.has_any(&["--follow"]);
    let skip = usize::from(!scan.has(&["-e", "-f", "--regexp", "--file"]));
    recursive_operands(analysis, &scan.operands[skip.min(scan.operands.len())..], follow_links);
}

/// `cp -r`, `mv`, `ln`, `rm -r`, `chmod -R` …: what the table says, plus the recursion. A
/// recursive copy reads its sources' trees; a move takes its sources (and, for a folder,
/// everything in it) away from the rules that named them, and a link gives them another
/// name, so their sources are reads too; `rm -r` removes whole trees, `chmod -R` changes them.
fn recursive_writer(name: &str, spec: Spec, args: &[Word], analysis: &mut Analysis) {
    let scan = scan(args, spec.flags, true);
    let sources: Vec<&Word> = if scan.has(&["-t"]) || scan.has_any(&["--target-directory"]) || scan.operands.len() < 2 {
        scan.operands.clone()
    } else {
        scan.operands[..scan.operands.len() - 1].to_vec()
    };
    match name {
        "cp" => {
            let recursive = scan.has(&["-r", "-R", "-a"]) || scan.has_any(&["--recursive", "--archive"]);
            let follow_links = scan.has(&["-L"]) || scan.has_any(&["--dereference"]);
            if recursive {
                retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links }, |word| sources.contains(&word));
            }
        }
        "mv" => push_paths(analysis, sources, PathUse::ReadTree { follow_links: false }),
        "ln" | "link" => {
            // A symbolic link's target is relative to the link's folder, not to where the
            // command runs: the paths it could name there are checked against deny rules too.
            let symbolic = scan.has(&["-s"]) || scan.has_any(&["--symbolic"]);
            let target = scan.operands.last().filter(|_| scan.operands.len() > 1);
            if symbolic && let Some(target) = target {
                let folder = target.value.rsplit_once('/').map_or("", |(folder, _)| folder);
                for source in sources.iter().filter(|w| !w.value.starts_with('/')) {
                    for base in [target.value.trim_end_matches('/'), folder] {
                        let joined =
                            if base.is_empty() { source.value.clone() } else { format!("{base}/{}", source.value) };
                        analysis.paths.push(PathArg { path_use: PathUse::Mention, word: piece(source, &joined) });
                    }
                }
            }
            push_paths(analysis, sources, PathUse::Read);
        }
        "rm" => {
            if scan.has(&["-r", "-R"]) || scan.has_any(&["--recursive"]) {
                retag(analysis, PathUse::Remove, PathUse::RemoveTree, |_| true);
            }
        }
        _ => {
            if scan.has(&["-R"]) || scan.has_any(&["--recursive"]) {
                retag(analysis, PathUse::Write, PathUse::WriteTree, |_| true);
            }
        }
    }
}

/// `tar`: in create, append and update modes the operands are read recursively (`-h` follows
/// links) and the `-f` archive is written; extraction writes into the working directory (or
/// `-C DIR`) and reads the archive; listing reads the archive. Names from `-T` lists, or
/// operands relative to a `-C` folder, are not seen here. Never read-only.
fn tar(args: &[Word], analysis: &mut Analysis) {
    #[derive(PartialEq)]
    enum Mode {
        Unknown,
        Create,
        Extract,
        List,
    }
    let mut mode = Mode::Unknown;
    let mut follow_links = false;
    let mut archive: Option<Word> = None;
    let mut directory: Option<Word> = None;
    let mut operands: Vec<&Word> = Vec::new();
    let mut iter = args.iter().enumerate().peekable();
    let mode_of = |c: char| match c {
        'c' | 'r' | 'u' | 'A' => Some(Mode::Create),
        'x' => Some(Mode::Extract),
        't' | 'd' => Some(Mode::List),
        _ => None,
    };
    while let Some((index, word)) = iter.next() {
        let value = word.value.as_str();
        if word.variable || word.dynamic {
            analysis.unseen_reads = true;
        }
        // Short letters: a first word without a dash is a bundle too (`tar czf out.tgz dir`).
        let bundle =
            if let Some(rest) = value.strip_prefix('-').filter(|rest| !rest.starts_with('-') && !rest.is_empty()) {
                Some(rest)
            } else if index == 0 && !value.starts_with('-') {
                Some(value)
            } else {
                None
            };
        if let Some(letters) = bundle {
            for (at, c) in letters.char_indices() {
                if let Some(m) = mode_of(c) {
                    mode = m;
                }
                match c {
                    'h' => follow_links = true,
                    'f' | 'C' | 'T' | 'X' | 'I' | 'N' | 'K' | 'L' | 'V' | 'b' | 'g' | 'H' => {
                        let attached = &letters[at + c.len_utf8()..];
                        let taken = if attached.is_empty() || index == 0 {
                            iter.next().map(|(_, w)| w.clone())
                        } else {
                            Some(piece(word, attached))
                        };
                        match c {
                            'f' => archive = taken,
                            'C' => directory = taken,
                            'T' => analysis.unseen_reads = true,
                            'X' => push_paths(analysis, taken.as_ref(), PathUse::Read),
                            'I' => analysis.unseen_writes = true,
                            _ => {}
                        }
                        if !(attached.is_empty() || index == 0) {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            continue;
        }
        if let Some(long) = value.strip_prefix("--") {
            let (name, attached) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            let takes = |full: &str| name.len() >= 3 && full.starts_with(name);
            let mut value_of = || attached.map(|a| piece(word, a)).or_else(|| iter.next().map(|(_, w)| w.clone()));
            if takes("create") || takes("append") || takes("update") || takes("concatenate") || takes("catenate") {
                mode = Mode::Create;
            } else if takes("extract") || takes("get") {
                mode = Mode::Extract;
            } else if takes("list") || takes("diff") || takes("compare") {
                mode = Mode::List;
            } else if takes("dereference") {
                follow_links = true;
            } else if takes("file") {
                archive = value_of();
            } else if takes("directory") {
                directory = value_of();
            } else if takes("files-from") {
                analysis.unseen_reads = true;
                let _ = value_of();
            } else if takes("exclude-from") {
                let file = value_of();
                push_paths(analysis, file.as_ref(), PathUse::Read);
            } else if takes("to-command")
                || takes("use-compress-program")
                || takes("checkpoint-action")
                || takes("info-script")
                || takes("new-volume-script")
                || takes("rsh-command")
            {
                // Runs a program: nothing it does is seen here.
                analysis.unseen_reads = true;
                analysis.unseen_writes = true;
            }
            continue;
        }
        operands.push(word);
    }
    let archive_file = archive.filter(|file| file.value != "-");
    match mode {
        Mode::Create => {
            push_paths(analysis, archive_file.as_ref(), PathUse::Write);
            if directory.is_some() {
                analysis.unseen_reads = true;
            } else {
                push_paths(analysis, operands, PathUse::ReadTree { follow_links });
            }
        }
        Mode::Extract => {
            push_paths(analysis, archive_file.as_ref(), PathUse::Read);
            let here = Word { raw: ".".into(), value: ".".into(), ..Word::default() };
            push_paths(analysis, [directory.as_ref().unwrap_or(&here)], PathUse::WriteTree);
            analysis.destructive = true;
        }
        Mode::List => push_paths(analysis, archive_file.as_ref(), PathUse::Read),
        Mode::Unknown => {
            analysis.unseen_reads = true;
            analysis.unseen_writes = true;
        }
    }
}

/// `zip ARCHIVE FILE…`: the archive is written, the files read — recursively with `-r`
/// (following links unless `-y`); `-@` takes the names from its input.
fn zip(args: &[Word], analysis: &mut Analysis) {
    let scan = scan(
        args,
        "-r -R -y --symlinks -@ -x= -i= -b= -n= -t= -tt= -P= -O= -Z= -s= -sp= -sb= -U= -I= --recurse-paths --recurse-patterns --out!",
        true,
    );
    flag_paths(analysis, &scan);
    let recursive = scan.has(&["-r", "-R"]) || scan.has_any(&["--recurse-paths", "--recurse-patterns"]);
    let follow_links = !(scan.has(&["-y"]) || scan.has_any(&["--symlinks"]));
    analysis.unseen_reads |= scan.has(&["-@"]);
    if let Some((archive, files)) = scan.operands.split_first() {
        push_paths(analysis, [*archive], PathUse::Write);
        let use_ = if recursive { PathUse::ReadTree { follow_links } } else { PathUse::Read };
        push_paths(analysis, files.iter().copied(), use_);
    }
}

/// Whether an `rsync` / `scp` operand names another machine (`host:path`, `user@host:path`,
/// `rsync://…`): not a local path.
fn is_remote(word: &Word) -> bool {
    let value = word.value.as_str();
    value.starts_with("rsync://")
        || value.split_once(':').is_some_and(|(before, _)| !before.contains('/') && !before.is_empty())
}

/// `rsync` and `scp`: the last operand is written, the others read — recursively for rsync
/// (whose `-a` is the usual way in) and for `scp -r`; `-L` makes rsync follow links. Remote
/// operands are not local paths; `--files-from` names are unseen.
fn copier(name: &str, args: &[Word], analysis: &mut Analysis) {
    let spec = if name == "rsync" {
        "-e: --rsh: --exclude= --include= --exclude-from@ --include-from@ --files-from& --filter= -f= --rsync-path:          --chmod= --log-file! --password-file@ --port= --bwlimit= --timeout= --temp-dir= -T= --compare-dest=          --copy-dest= --link-dest= --backup-dir= --suffix= --partial-dir= --max-size= --min-size= --modify-window=          -B= --block-size= --info= --debug= --out-format= --iconv= --chown= --usermap= --groupmap= --address=          --contimeout= --outbuf= --protocol= --checksum-choice= --compress-choice= --skip-compress= --max-delete=          --only-write-batch! --write-batch! --read-batch@ -M: --remote-option:"
    } else {
        "-i@ -F@ -P= -l= -o: -c= -J= -S: -D= -X="
    };
    let scan = scan(args, spec, true);
    flag_paths(analysis, &scan);
    if name == "rsync" {
        analysis.destructive = args.iter().any(|w| w.value.starts_with("--delete") || w.value.starts_with("--remove"));
    }
    let follow_links = name == "rsync" && (scan.has(&["-L"]) || scan.has_any(&["--copy-links"]));
    let recursive = name == "rsync" || scan.has(&["-r"]);
    let read = if recursive { PathUse::ReadTree { follow_links } } else { PathUse::Read };
    match scan.operands.split_last() {
        Some((target, sources)) if !sources.is_empty() => {
            push_paths(analysis, sources.iter().copied().filter(|w| !is_remote(w)), read);
            push_paths(analysis, [*target].into_iter().filter(|w| !is_remote(w)), PathUse::Write);
        }
        // One operand: rsync lists it.
        Some((only, _)) => push_paths(analysis, [*only].into_iter().filter(|w| !is_remote(w)), PathUse::Read),
        None => {}
    }
}

/// Recursive searchers beside grep and rg (`ag`, `ack`, `ugrep` …): the first operand is the
/// pattern (unless `-e` gives it), the rest are searched recursively — the working directory
/// when none is given. Flags are not understood, so never read-only.
fn searcher(name: &str, args: &[Word], analysis: &mut Analysis) {
    let spec = match name {
        "ag" | "pt" => "-f --follow -G: --file-search-regex: -g: --ignore= --ignore-dir= -A= -B= -C= -m= --depth=",
        "ack" | "ack-grep" => "-g: --match: -A= -B= -C= -m= --ignore-dir= --type= --ignore-file=",
        "rga" => RG,
        _ => "-e: -f@ -A= -B= -C= -m= -g: -d= -D= --include= --exclude= --exclude-dir= --include-dir=",
    };
    let scan = scan(args, spec, true);
    flag_paths(analysis, &scan);
    let follow_links = match name {
        "ag" => scan.has(&["-f"]) || scan.has_any(&["--follow"]),
        "ack" | "ack-grep" => scan.has_any(&["--follow"]),
        "ugrep" | "ug" => scan.has(&["-R"]) || scan.has_any(&["--dereference-recursive"]),
        "rga" => scan.has(&["-L"]) || scan.has_any(&["--follow"]),
        _ => true,
    };
    let skip = usize::from(!scan.has(&["-e", "--regexp", "--match"]));
    let operands = &scan.operands[skip.min(scan.operands.len())..];
    push_paths(analysis, operands.iter().copied(), PathUse::Read);
    recursive_operands(analysis, operands, follow_links);
}

/// Interpreters that run a script file given as their first operand, and the flags that give
/// the code on the command line instead (then no file is read).
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("bash", &["-c"]),
    ("sh", &["-c"]),
    ("zsh", &["-c"]),
    ("dash", &["-c"]),
    ("ksh", &["-c"]),
    ("fish", &["-c", "--command"]),
    ("python", &["-c", "-m"]),
    ("python2", &["-c", "-m"]),
    ("python3", &["-c", "-m"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("tclsh", &[]),
];

/// An interpreter reads (and runs) its script file: that file is a read, so a denied file is
/// not run to print its lines in an error message.
fn interpreter(name: &str, args: &[Word], analysis: &mut Analysis) {
    let code_flags = INTERPRETERS.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, flags)| *flags);
    if args
        .iter()
        .any(|w| code_flags.contains(&w.value.as_str()) || (w.value.starts_with("-c") && name.ends_with("sh")))
    {
        return;
    }
    push_paths(analysis, args.iter().find(|w| !w.value.starts_with('-')), PathUse::Read);
}

/// Programs that read (or show, convert, compress) the files they are given, beyond the
/// read-only table: their operands are checked as reads, so deny rules hold for them even in
/// bypass mode. Their flags are not understood, so they are never read-only.
const FILE_READERS: &[&str] = &[
    "gzip", "gunzip", "zcat", "zless", "zmore", "bzip2", "bunzip2", "bzcat", "bzless", "xz", "unxz", "xzcat", "lzma",
    "unlzma", "lzcat", "zstd", "unzstd", "zstdcat", "lz4", "lz4cat", "brotli", "base32", "basenc", "less", "more",
    "most", "bat", "batcat", "view", "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "iconv", "pandoc", "sqlite3",
    "xmllint", "yq", "mlr", "gpg", "split", "csplit", "look", "join", "shuf", "ptx", "enscript", "a2ps", "lp", "lpr",
];

/// Every argument of a program this module does not understand that could name a path: its
/// words and `--flag=value` values, and `file:` URLs, as [`PathUse::Mention`]s.
fn mentions(args: &[Word], analysis: &mut Analysis) {
    for word in args {
        let value = word.value.as_str();
        if word.variable || word.dynamic || value.is_empty() {
            continue;
        }
        if let Some(path) = file_url_path(value) {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: url_word(word, path) });
        } else if !value.starts_with('-') {
            analysis.paths.push(PathArg { path_use: PathUse::Mention, word: word.clone() });
        } else if let Some((_, attached)) = value.split_once('=')
            && !attached.is_empty()
        {
            analysis.paths.push(PathArg { path_use: PathUse::Mention, word: piece(word, attached) });
        }
    }
}

/// `curl` and `wget` read local files named by `file:` URLs.
fn file_urls(args: &[Word], analysis: &mut Analysis) {
    for word in args {
        let value =
            word.value.split_once('=').filter(|_| word.value.starts_with("--")).map_or(word.value.as_str(), |(_, v)| v);
        if let Some(path) = file_url_path(value) {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: url_word(word, path) });
        }
    }
}

/// The word for the path of a `file:` URL; one that cannot be known is marked so (like `$X`).
fn url_word(word: &Word, path: Option<String>) -> Word {
    match path {
        Some(path) => piece(word, &path),
        None => Word { variable: true, ..piece(word, word.value.as_str()) },
    }
}

/// The local path a `file:` URL names (`file:///a/b`, `file://localhost/a`, `file:/a`,
/// percent-decoded): `None` for a word that is no `file:` URL, `Some(None)` for one that names
/// another host or does not decode (a path that cannot be known here).
fn file_url_path(value: &str) -> Option<Option<String>> {
    let lower = value.get(..5)?.to_ascii_lowercase();
    if lower != "file:" {
        return None;
    }
    let rest = &value[5..];
    let path = if let Some(after) = rest.strip_prefix("//") {
        let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
        if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
            return Some(None);
        }
        path
    } else {
        rest
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    Some(percent_decode(path))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(byte);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn file_reader(_name: &str, args: &[Word], analysis: &mut Analysis) {
    for word in args {
        let value = word.value.as_str();
        if !value.starts_with('-') {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: word.clone() });
        } else if let Some((_, attached)) = value.split_once('=') {
            let value = piece(word, attached);
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: value });
        }
    }
}

fn cd(args: &[Word], analysis: &mut Analysis) {
    let scan = scan(args, "-L -P -e -@", false);
    match scan.operands.as_slice() {
        [] => {
            // `cd` alone goes home.
            let home = Word { raw: "~".into(), value: "~".into(), tilde: true, ..Word::default() };
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: home });
            analysis.read_only = scan.clean(true);
        }
        [target] if target.value == "-" => {
            // The previous directory is not known here.
            analysis.hidden_paths = true;
        }
        [target] => {
            push_paths(analysis, [*target], PathUse::Read);
            analysis.read_only = scan.clean(true);
        }
        _ => {}
    }
}

fn date(args: &[Word], analysis: &mut Analysis) {
    let scan = scan(
        args,
        "-u --utc --universal -R --rfc-email -I? --iso-8601? --rfc-3339= -d= --date= -r@ --reference@ -f@ --file@ --debug -s^= --set^=",
        true,
    );
    flag_paths(analysis, &scan);
    analysis.read_only = scan.clean(true) && scan.operands.iter().all(|w| w.value.starts_with('+'));
}

fn dd(args: &[Word], analysis: &mut Analysis) {
    for word in args {
        if let Some(input) = word.value.strip_prefix("if=") {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: piece(word, input) });
        }
        if let Some(output) = word.value.strip_prefix("of=") {
            analysis.paths.push(PathArg { path_use: PathUse::Write, word: piece(word, output) });
            analysis.destructive |= !super::check::is_harmless_device(output);
        }
    }
}

fn jq(args: &[Word], analysis: &mut Analysis) {
    const FLAGS: &str = "-r -j -c -n -s -e -S -C -M -a -R -0 -h -V --raw-output --raw-output0 --join-output \
        --compact-output --null-input --slurp --exit-status --sort-keys --color-output --monochrome-output \
        --ascii-output --raw-input --tab --indent= --seq --stream --stream-errors --unbuffered --help --version \
        -f@ --from-file@ -L= --library-path=";
    let mut known = true;
    let mut data_args = false;
    let mut from_file = false;
    let mut operands: Vec<&Word> = Vec::new();
    let mut index = 0;
    while let Some(word) = args.get(index) {
        index += 1;
        if word.variable || word.dynamic {
            known = false;
        }
        match word.value.as_str() {
            // `--arg name value`, `--argjson name json`.
            "--arg" | "--argjson" => index += 2,
            // `--slurpfile name file`, `--rawfile name file`.
            "--slurpfile" | "--rawfile" => {
                if let Some(file) = args.get(index + 1) {
                    analysis.paths.push(PathArg { path_use: PathUse::Read, word: file.clone() });
                }
                index += 2;
            }
            "--args" | "--jsonargs" => data_args = true,
            value if value.starts_with('-') && value != "-" => {
                let flag = scan(std::slice::from_ref(word), FLAGS, true);
                known &= !flag.unknown;
                let file_flag = flag.has(&["-f", "--from-file"]);
                from_file |= file_flag;
                flag_paths(analysis, &flag);
                // A value-taking flag without an attached value takes the next word.
                if flag.flags.iter().any(|f| f.kind.takes_value() && f.value.is_none()) {
                    if let (true, Some(file)) = (file_flag, args.get(index)) {
                        analysis.paths.push(PathArg { path_use: PathUse::Read, word: file.clone() });
                    }
                    index += 1;
                }
            }
            _ => operands.push(word),
        }
    }
    // The filter comes first (unless read from a file); after `--args` the rest are not files.
    if !data_args {
        push_paths(analysis, operands.iter().skip(usize::from(!from_file)).copied(), PathUse::Read);
    }
    analysis.read_only = known;
}

/// `find`: the paths before the expression are read; the expression may only test and print.
fn find(args: &[Word], analysis: &mut Analysis) {
    const WITH_VALUE: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-maxdepth",
        "-mindepth",
        "-regextype",
        "-fstype",
        "-lname",
        "-ilname",
        "-used",
        "-printf",
        "-context",
    ];
    const PATH_VALUE: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];
    const PLAIN: &[&str] = &[
        "-empty",
        "-nouser",
        "-nogroup",
        "-depth",
        "-prune",
        "-print",
        "-print0",
        "-ls",
        "-quit",
        "-true",
        "-false",
        "-not",
        "-a",
        "-and",
        "-o",
        "-or",
        "!",
        "(",
        ")",
        ",",
        "-follow",
        "-xdev",
        "-mount",
        "-readable",
        "-writable",
        "-executable",
        "-daystart",
        "-noleaf",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-d",
        "-nowarn",
        "-warn",
        "-help",
        "-version",
    ];
    const WRITES_FILE: &[&str] = &["-fprint", "-fprint0", "-fls"];
    let mut index = 0;
    let mut follow_links = false;
    let mut runs_commands = false;
    let mut deletes = false;
    // Leading options.
    while let Some(word) = args.get(index) {
        match word.value.as_str() {
            "-L" => {
                follow_links = true;
                index += 1;
            }
            "-H" | "-P" => index += 1,
            "-D" | "-O" => index += 2,
            value if value.starts_with("-O") => index += 1,
            _ => break,
        }
    }
    // Starting points.
    let mut starts: Vec<Word> = Vec::new();
    while let Some(word) = args.get(index) {
        let value = word.value.as_str();
        if value.starts_with('-') || matches!(value, "(" | "!" | ")" | ",") {
            break;
        }
        analysis.paths.push(PathArg { path_use: PathUse::Read, word: word.clone() });
        starts.push(word.clone());
        index += 1;
    }
    let mut read_only = true;
    while let Some(word) = args.get(index) {
        let value = word.value.as_str();
        index += 1;
        if word.variable || word.dynamic {
            read_only = false;
        }
        if WITH_VALUE.contains(&value) || is_newer_xy(value) {
            index += 1;
        } else if PATH_VALUE.contains(&value) {
            if let Some(file) = args.get(index) {
                analysis.paths.push(PathArg { path_use: PathUse::Read, word: file.clone() });
            }
            index += 1;
        } else if WRITES_FILE.contains(&value) || value == "-fprintf" {
            read_only = false;
            if let Some(file) = args.get(index) {
                analysis.paths.push(PathArg { path_use: PathUse::Write, word: file.clone() });
            }
            index += if value == "-fprintf" { 2 } else { 1 };
        } else if value == "-delete" {
            read_only = false;
            analysis.destructive = true;
            deletes = true;
        } else if matches!(value, "-exec" | "-execdir" | "-ok" | "-okdir") {
            read_only = false;
            runs_commands = true;
            while args.get(index).is_some_and(|w| !matches!(w.value.as_str(), ";" | "+")) {
                index += 1;
            }
            index += 1;
        } else if !PLAIN.contains(&value) {
            read_only = false;
        }
    }
    for inner in find_exec_commands(&prepend_find(args)) {
        let inner_analysis = analyze(inner);
        analysis.destructive |= inner_analysis.destructive;
        analysis.paths.extend(inner_analysis.paths.into_iter().filter(|p| p.word.value != "{}"));
        analysis.hidden_paths = true;
    }
    // A command run on what find finds may read any file below the starting points (`find .
    // -exec cat {} +`) or change it: the starting points are read (and written) as trees.
    if runs_commands {
        if starts.is_empty() {
            starts.push(Word { raw: ".".into(), value: ".".into(), ..Word::default() });
            analysis.paths.push(PathArg { path_use: PathUse::ReadTree { follow_links }, word: starts[0].clone() });
        }
        retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links }, |word| starts.contains(word));
        analysis.unseen_writes = true;
    }
    // `-delete` removes what matches anywhere below the starting points.
    if deletes {
        let trees: Vec<Word> = if starts.is_empty() {
            vec![Word { raw: ".".into(), value: ".".into(), ..Word::default() }]
        } else {
            starts.clone()
        };
        push_paths(analysis, trees.iter(), PathUse::WriteTree);
    }
    analysis.read_only = read_only;
}

fn prepend_find(args: &[Word]) -> Vec<Word> {
    let mut words = vec![Word { raw: "find".into(), value: "find".into(), ..Word::default() }];
    words.extend(args.iter().cloned());
    words
}

fn is_newer_xy(value: &str) -> bool {
    value.len() == 8
        && value.starts_with("-newer")
        && value[6..].chars().all(|c| matches!(c, 'a' | 'B' | 'c' | 'm' | 't'))
}

/// `sed`: scripts from `-e` or the first operand; files after. `-i` edits the files.
fn sed(args: &[Word], analysis: &mut Analysis) {
    let scan = scan(
        args,
        "-n --quiet --silent -e: --expression: -f@ --file@ -E -r --regexp-extended -s --separate -z --null-data \
         -u --unbuffered --posix -l= --line-length= --debug --sandbox -i? --in-place? -b --binary --follow-symlinks",
        true,
    );
    flag_paths(analysis, &scan);
    let in_place = scan.has(&["-i", "--in-place"]);
    let quiet = scan.has(&["-n", "--quiet", "--silent"]);
    let from_flags: Vec<&Word> = scan.values(&["-e", "--expression"]).collect();
    let from_file = scan.has(&["-f", "--file"]);
    let (scripts, files): (Vec<&Word>, Vec<&Word>) = if from_flags.is_empty() && !from_file {
        (scan.operands.first().copied().into_iter().collect(), scan.operands.iter().skip(1).copied().collect())
    } else {
        (from_flags, scan.operands.clone())
    };
    push_paths(analysis, files, if in_place { PathUse::Write } else { PathUse::Read });
    let literal = scripts.iter().all(|w| w.is_literal()) && !scripts.is_empty() && !from_file;
    let clean = scan.clean(true);
    analysis.read_only =
        clean && literal && quiet && !in_place && scripts.iter().all(|w| sed_script_ok(&w.value, false));
    analysis.sed_edit_safe = clean && literal && scripts.iter().all(|w| sed_script_ok(&w.value, true));
    analysis.destructive = in_place;
}

/// Whether every command of a sed script only prints (`p`, `=`, `l`, `q`) — or, with `edits`,
/// also deletes lines (`d`) or substitutes (`s/a/b/g`) without the `e` (run) and `w` (write)
/// flags. Anything else (`e`, `w`, `r`, `W`, `R`, blocks, labels) is refused.
pub(crate) fn sed_script_ok(script: &str, edits: bool) -> bool {
    let mut rest = script.trim();
    if rest.is_empty() {
        return true;
    }
    loop {
        rest = skip_address(rest);
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('!') {
            rest = after.trim_start();
        }
        let Some(command) = rest.chars().next() else { return true };
        rest = &rest[command.len_utf8()..];
        match command {
            'p' | 'P' | '=' | 'l' | 'q' | 'Q' => {}
            'd' | 'D' if edits => {}
            's' if edits => match skip_substitution(rest) {
                Some(after) => rest = after,
                None => return false,
            },
            _ => return false,
        }
        rest = rest.trim_start();
        match rest.chars().next() {
            None => return true,
            Some(';' | '\n') => rest = rest[1..].trim_start(),
            Some(_) => return false,
        }
        if rest.is_empty() {
            return true;
        }
    }
}

/// Skips a sed address (`12`, `$`, `/re/I`, `1,5`, `/a/,+3`, `0~2`).
fn skip_address(text: &str) -> &str {
    fn one(text: &str) -> &str {
        let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
        if digits > 0 {
            let rest = &text[digits..];
            if let Some(step) = rest.strip_prefix('~') {
                let more = step.find(|c: char| !c.is_ascii_digit()).unwrap_or(step.len());
                return &step[more..];
            }
            return rest;
        }
        if let Some(rest) = text.strip_prefix('$') {
            return rest;
        }
        if let Some(body) = text.strip_prefix('/') {
            let mut escaped = false;
            for (index, c) in body.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '/' => return body[index + 1..].trim_start_matches(['I', 'M']),
                    _ => {}
                }
            }
        }
        text
    }
    let rest = one(text.trim_start());
    match rest.trim_start().strip_prefix(',') {
        Some(second) => {
            let second = second.trim_start();
            let second = second.strip_prefix(['+', '~']).unwrap_or(second);
            one(second)
        }
        None => rest,
    }
}

/// Skips `/pattern/replacement/flags` after an `s` (any delimiter); `None` for the `e` and
/// `w` flags, a newline delimiter, or an unterminated command.
fn skip_substitution(text: &str) -> Option<&str> {
    let delimiter = text.chars().next().filter(|c| !matches!(c, '\\' | '\n' | ' '))?;
    let mut parts = 0;
    let mut escaped = false;
    let mut end = None;
    for (index, c) in text.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delimiter {
            parts += 1;
            if parts == 2 {
                end = Some(index + c.len_utf8());
                break;
            }
        }
    }
    let rest = &text[end?..];
    let flags_end =
        rest.find(|c: char| !matches!(c, 'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9')).unwrap_or(rest.len());
    Some(&rest[flags_end..])
}

/// Commands that stay read-only whatever `xargs` appends from its input: they only print
/// their arguments and never open a file. A command that reads the files its input names
/// (`xargs cat`, `xargs grep`) reads paths nobody can check before it runs: never read-only.
const XARGS_SAFE: &[&str] = &["basename", "dirname", "echo", "printf"];

fn xargs(args: &[Word], analysis: &mut Analysis) {
    let mut words = vec![Word { raw: "xargs".into(), value: "xargs".into(), ..Word::default() }];
    words.extend(args.iter().cloned());
    let starts = layers(&words, Unwrap::Everything);
    let inner_start = starts.get(1).copied();
    analysis.hidden_paths = true;
    match inner_start {
        // `xargs` alone runs `echo`.
        None => {
            let scan = scan(
                args,
                "-0 --null -r --no-run-if-empty -t --verbose -x --exit -d= -n= -L= -P= -s= -a@ --delimiter= --max-args= --max-lines= --max-procs= --max-chars= --arg-file@",
                true,
            );
            analysis.read_only = scan.clean(true) && scan.operands.is_empty();
        }
        Some(start) => {
            let xargs_flags = words.get(1..start).unwrap_or_default();
            let interactive =
                xargs_flags.iter().any(|w| matches!(w.value.as_str(), "-p" | "--interactive" | "-o" | "--open-tty"));
            let inner = words.get(start..).unwrap_or_default();
            let inner_analysis = analyze(inner);
            let name = inner.first().map(|w| w.value.as_str()).unwrap_or_default();
            let names_only = XARGS_SAFE.contains(&name) && inner.first().is_some_and(Word::is_literal);
            analysis.read_only = !interactive && names_only && inner_analysis.read_only;
            analysis.destructive = inner_analysis.destructive;
            analysis.paths = inner_analysis.paths;
            // What the input names is opened (or changed) by a command that takes files.
            analysis.unseen_reads = !names_only;
            analysis.unseen_writes = !names_only;
        }
    }
}

fn gh(args: &[Word], analysis: &mut Analysis) {
    const GROUPS: &[&str] = &["pr", "issue", "run", "repo", "release", "workflow", "label", "gist", "cache", "ruleset"];
    const ACTIONS: &[&str] = &["view", "list", "diff", "checks", "status"];
    let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
    let shape = match values.as_slice() {
        ["search", ..] => true,
        [group, action, ..] => GROUPS.contains(group) && ACTIONS.contains(action),
        _ => false,
    };
    analysis.read_only = shape && !values.iter().any(|v| matches!(*v, "-w" | "--web") || v.starts_with("--web="));
}

fn docker(args: &[Word], analysis: &mut Analysis) {
    let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
    analysis.read_only = matches!(
        values.as_slice(),
        ["ps", ..] | ["images", ..] | ["container", "ls" | "list", ..] | ["image", "ls" | "list", ..] | ["version", ..]
    );
    analysis.destructive = matches!(
        values.as_slice(),
        ["rm" | "rmi" | "kill", ..]
            | ["system" | "container" | "image" | "volume" | "network" | "builder", "prune" | "rm" | "remove", ..]
            | ["compose", "down" | "rm", ..]
    );
}

// ----- git -----

const DIFF_FLAGS: &str = "-p -u -s -z -U= --unified= --raw --patch --no-patch --patch-with-raw --patch-with-stat \
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
const LOG_FLAGS: &str = "-n= --max-count= --skip= --since= --after= --until= --before= --author= --committer= \
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
fn git_subcommand_flags(sub: &str, operands: &[&str]) -> Option<(String, bool)> {
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

fn git(args: &[Word], analysis: &mut Analysis) {
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
const GIT_PATCH_FLAGS: &[&str] = &[
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
const GIT_PATCH_PREFIXES: &[&str] =
    &["-U", "--unified", "--word-diff", "--color-words", "-L", "-G", "-S", "--find-object", "--pickaxe-regex"];

/// Flags that make `git diff` print names and counts only.
const GIT_SUMMARY_FLAGS: &[&str] = &[
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

fn git_flag_in(word: &Word, exact: &[&str], prefixes: &[&str]) -> bool {
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
fn object_like(value: &str) -> bool {
    (4..=64).contains(&value.len()) && value.chars().all(|c| c.is_ascii_hexdigit())
}

/// Limits what `git show`, `diff`, `log -p`, `grep` or `cat-file` print to the paths the command
/// names, when it names them so that nothing else can come out: `rev:path` operands (their
/// paths, relative to the repository root, or to the working directory for `./x`), and
/// pathspecs after `--` (or, for `grep` and `diff`, operands that exist as paths). Returns
/// whether it could: not with `--follow` (renames lead to other paths), an operand that may be
/// an object id, or a plain revision with no path to limit it (`git show HEAD`).
fn git_limit_to_paths(sub: &str, rest: &[Word], analysis: &mut Analysis) -> bool {
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

fn git_content(sub: &str, rest: &[Word], analysis: &mut Analysis) {
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
fn git_metadata_only(flags: &[&Word]) -> bool {
    !flags.is_empty() && flags.iter().all(|w| matches!(w.value.as_str(), "-t" | "-s" | "-e"))
}

fn git_destructive(sub: &str, rest: &[Word]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_command;

    fn analysis(source: &str) -> Analysis {
        let parsed = parse_command(source);
        analyze(&parsed.commands[0].words)
    }

    fn paths(source: &str) -> Vec<(PathUse, String)> {
        analysis(source).paths.into_iter().map(|p| (p.path_use, p.word.value)).collect()
    }

    #[test]
    fn flag_bundles_values_and_abbreviations_are_understood() {
        let parsed = parse_command("x -n5 -la --lines=3 --outp=f -- -z");
        let scan = scan(&parsed.commands[0].words[1..], "-n= -l -a --lines= --output!", true);
        let names: Vec<&str> = scan.flags.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["-n", "-l", "-a", "--lines", "--outp"]);
        assert_eq!(scan.flags[4].kind, Kind::WritePath, "an abbreviation of --output");
        assert_eq!(scan.operands.iter().map(|w| w.value.as_str()).collect::<Vec<_>>(), ["-z"]);
    }

    #[test]
    fn path_arguments_by_command() {
        use PathUse::{Mention, Read, Remove, RemoveTree, Write, WriteTree};
        let p = |u: PathUse, s: &str| (u, s.to_owned());
        let tree = |follow_links| PathUse::ReadTree { follow_links };
        assert_eq!(paths("cat a /etc/b"), [p(Read, "a"), p(Read, "/etc/b")]);
        assert_eq!(paths("grep -n foo src lib"), [p(Read, "src"), p(Read, "lib")]);
        assert!(analysis("xargs cat").unseen_reads);
        assert!(!analysis("xargs basename").unseen_reads);
        assert!(analysis("sort --files0-from=l").unseen_reads);
        // `rev:path` names the path it prints (checked from the repository root).
        let shown = analysis("git show HEAD:secret/a");
        assert!(!shown.repo_content);
        assert_eq!(shown.repo_paths.iter().map(|w| w.value.as_str()).collect::<Vec<_>>(), ["secret/a"]);
        assert!(analysis("git show HEAD").repo_content);
        assert!(analysis("git show 3f2a9c1 -- src").repo_content, "an object id could be any blob");
        assert!(!analysis("git show --stat HEAD~1").repo_content);
        assert!(analysis("git show --stat 3f2a9c1").repo_content);
        assert!(!analysis("git diff HEAD -- src").repo_content);
        assert!(analysis("git log -p --follow -- src").repo_content);
        let grep = analysis("git grep x src lib");
        assert!(grep.repo_content, "src and lib may be branches");
        assert_eq!(grep.pathspec_candidates.iter().map(|w| w.value.as_str()).collect::<Vec<_>>(), ["src", "lib"]);
        assert!(analysis("git log -p").repo_content);
        assert!(analysis("git log -Stoken --oneline").repo_content);
        assert!(!analysis("git log --oneline").repo_content);
        assert!(!analysis("git status").repo_content);
        assert!(analysis("git diff").repo_content);
        assert!(!analysis("git diff --stat").repo_content);
        assert!(analysis("git diff --stat -p").repo_content);
        assert!(analysis("git cat-file -p 3f2a9c1").repo_content);
        assert!(!analysis("git cat-file -p HEAD:x").repo_content, "a path, checked as such");
        assert!(!analysis("git cat-file -t HEAD").repo_content);
        assert!(analysis("git stash show").repo_content);
        assert!(analysis("git grep TOKEN").repo_content);
        assert!(analysis("git -C /x show").repo_elsewhere);
        assert_eq!(paths("grep -e foo -f /pats src"), [p(Read, "/pats"), p(Read, "src")]);
        assert_eq!(paths("head -n 5 a"), [p(Read, "a")]);
        assert_eq!(paths("rm -rf build /tmp/x"), [p(RemoveTree, "build"), p(RemoveTree, "/tmp/x")]);
        assert_eq!(paths("rm build"), [p(Remove, "build")]);
        assert_eq!(paths("grep -rn foo src lib"), [p(tree(false), "src"), p(tree(false), "lib")]);
        assert_eq!(paths("grep -R foo"), [p(tree(true), ".")]);
        assert_eq!(paths("grep --recur foo ."), [p(tree(false), ".")]);
        assert_eq!(paths("grep -d recurse foo src"), [p(tree(false), "src")]);
        assert_eq!(paths("rg -L foo src"), [p(tree(true), "src")]);
        assert_eq!(paths("rg foo"), [p(tree(false), ".")]);
        assert_eq!(paths("rg --files src"), [p(Read, "src")]);
        assert_eq!(paths("cp -r src out"), [p(tree(false), "src"), p(Write, "out")]);
        assert_eq!(paths("mv a b"), [p(Write, "a"), p(Write, "b"), p(tree(false), "a")]);
        assert_eq!(paths("ln a b"), [p(Write, "a"), p(Write, "b"), p(Read, "a")]);
        assert_eq!(paths("chmod -R 700 dir"), [p(WriteTree, "dir")]);
        assert_eq!(paths("diff -r a b"), [p(tree(true), "a"), p(tree(true), "b")]);
        assert_eq!(
            paths("tar czf out.tgz src docs"),
            [p(Write, "out.tgz"), p(tree(false), "src"), p(tree(false), "docs")]
        );
        assert_eq!(paths("tar -chf - src"), [p(tree(true), "src")]);
        assert_eq!(paths("tar xf in.tar"), [p(Read, "in.tar"), p(WriteTree, ".")]);
        assert_eq!(paths("zip -r out.zip src"), [p(Write, "out.zip"), p(tree(true), "src")]);
        assert_eq!(paths("rsync -a src host:dst"), [p(tree(false), "src")]);
        assert_eq!(paths("ag TOKEN"), [p(tree(false), ".")]);
        assert_eq!(paths("ag -f TOKEN src"), [p(tree(true), "src")]);
        assert_eq!(paths("find . -exec cat {} +"), [p(tree(false), ".")]);
        assert_eq!(paths("find src -name '*.o' -delete"), [p(Read, "src"), p(WriteTree, "src")]);
        assert_eq!(paths("bash script.sh x"), [p(Read, "script.sh"), p(Mention, "script.sh"), p(Mention, "x")]);
        assert_eq!(paths("python3 -c 'print(1)'"), [p(Mention, "print(1)")]);
        assert_eq!(paths("openssl enc -in k.pem --out=x"), [p(Mention, "enc"), p(Mention, "k.pem"), p(Mention, "x")]);
        assert_eq!(paths("curl -s file:///etc/%70asswd"), [p(Read, "/etc/passwd")]);
        assert!(analysis("curl file://server/share/x").paths[0].word.variable, "another host: not known here");
        assert_eq!(
            paths("ln -s ../secret/a pub/s"),
            [
                p(Write, "../secret/a"),
                p(Write, "pub/s"),
                p(Mention, "pub/s/../secret/a"),
                p(Mention, "pub/../secret/a"),
                p(Read, "../secret/a")
            ]
        );
        assert_eq!(paths("source env.sh"), [p(Read, "env.sh")]);
        assert_eq!(paths("gzip -dc a.gz"), [p(Read, "a.gz")]);
        assert_eq!(paths("git blame secret/a"), [p(Read, "secret/a")]);
        assert_eq!(
            paths("git diff --no-index /dev/null secret/a"),
            [p(tree(true), "/dev/null"), p(tree(true), "secret/a")]
        );
        assert_eq!(paths("git log -p -- src"), [p(tree(false), "src")]);
        assert_eq!(paths("cp a b dest"), [p(Read, "a"), p(Read, "b"), p(Write, "dest")]);
        assert_eq!(paths("cp -t dest a b"), [p(Write, "dest"), p(Read, "a"), p(Read, "b")]);
        assert_eq!(paths("mv a ~/b"), [p(Write, "a"), p(Write, "~/b"), p(tree(false), "a")]);
        assert_eq!(paths("sed -i 's/a/b/' f"), [p(Write, "f")]);
        assert_eq!(paths("sed -n 1p f"), [p(Read, "f")]);
        assert_eq!(paths("sort -o out in"), [p(Write, "out"), p(Read, "in")]);
        assert_eq!(paths("sort --outp=out in"), [p(Write, "out"), p(Read, "in")]);
        assert_eq!(paths("chmod +x a"), [p(Write, "a")]);
        assert_eq!(paths("find /etc . -name x -newer ref"), [p(Read, "/etc"), p(Read, "."), p(Read, "ref")]);
        assert_eq!(paths("find . -fprint out"), [p(Read, "."), p(Write, "out")]);
        assert_eq!(paths("git -C /elsewhere status"), [p(Read, "/elsewhere")]);
        assert_eq!(paths("git diff --no-index /etc/passwd x"), [p(tree(true), "/etc/passwd"), p(tree(true), "x")]);
        assert_eq!(paths("git log -- src"), [p(Read, "src")]);
        assert_eq!(paths("git log main..feature"), []);
        assert_eq!(paths("dd if=/dev/sda of=disk.img"), [p(Read, "/dev/sda"), p(Write, "disk.img")]);
        assert_eq!(paths("tee -a log"), [p(Write, "log")]);
        assert_eq!(paths("uniq in out"), [p(Read, "in"), p(Write, "out")]);
        assert_eq!(paths("jq .a f.json"), [p(Read, "f.json")]);
        assert_eq!(paths("awk '{print}' f"), [p(Read, "f")]);
        assert_eq!(paths("curl -o ~/.bashrc http://x"), [p(Write, "~/.bashrc")]);
        assert_eq!(paths("cd"), [p(Read, "~")]);
        assert_eq!(paths("wc --files0-from=/etc/list"), [p(Read, "/etc/list")]);
    }

    #[test]
    fn sed_scripts_that_print_or_substitute() {
        for script in ["p", "1p", "1,10p", "$p", "/re/p", "/a\\/b/,/c/p", "1~2p", "=", "5q", "1,3!p", "1p;3p"] {
            assert!(sed_script_ok(script, false), "{script}");
        }
        for script in ["s/a/b/", "1,5s/a/b/g", "s|a|b|2", "s/a\\/b/c/gi", "/x/d", "$d"] {
            assert!(!sed_script_ok(script, false), "print only: {script}");
            assert!(sed_script_ok(script, true), "{script}");
        }
        for script in [
            "e rm -rf /",
            "1e id",
            "s/a/b/e",
            "s/a/b/w out",
            "w out",
            "r /etc/passwd",
            "1,5w /tmp/x",
            "{p}",
            ":a",
            "s/a/b",
            "y/a/b/",
        ] {
            assert!(!sed_script_ok(script, true), "{script}");
        }
    }
}
