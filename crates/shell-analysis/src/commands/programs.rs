//! Programs with rules of their own beyond the [`table`](mod@super::table): `grep`, `rg` and the
//! other recursive searchers; recursive copies, moves and removals, `tar`, `zip`, `rsync` and
//! `scp`; interpreters that run a script file and programs that read the files they are given;
//! `file:` URLs (`curl`, `wget`) and the paths any other program's arguments may mention;
//! `cd`, `date`, `dd`, `jq`, `gh` and `docker`.

use super::flags::{flag_paths, piece, scan};
use super::table::{GREP, RG, Spec, apply_table, table};
use super::{Analysis, PathArg, PathUse, push_paths, retag};
use crate::parse::Word;

/// `grep`: with `-r` / `-R` / `-d recurse` (or as `rgrep`) the operands after the pattern are
/// folders read recursively — the working directory when none is given — and `-R` follows
/// the links inside.
pub(super) fn grep(name: &str, args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn recursive_operands(analysis: &mut Analysis, operands: &[&Word], follow_links: bool) {
    if operands.is_empty() {
        let here = Word { raw: ".".into(), value: ".".into(), ..Word::default() };
        analysis.paths.push(PathArg { path_use: PathUse::ReadTree { follow_links }, word: here });
        return;
    }
    retag(analysis, PathUse::Read, PathUse::ReadTree { follow_links }, |word| operands.contains(&word));
}

/// `rg`: every folder it is given (the working directory when none) is searched recursively;
/// `-L` follows links. `--files` only lists names.
pub(super) fn rg(args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn recursive_writer(name: &str, spec: Spec, args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn tar(args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn zip(args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn is_remote(word: &Word) -> bool {
    let value = word.value.as_str();
    value.starts_with("rsync://")
        || value.split_once(':').is_some_and(|(before, _)| !before.contains('/') && !before.is_empty())
}

/// `rsync` and `scp`: the last operand is written, the others read — recursively for rsync
/// (whose `-a` is the usual way in) and for `scp -r`; `-L` makes rsync follow links. Remote
/// operands are not local paths; `--files-from` names are unseen.
pub(super) fn copier(name: &str, args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn searcher(name: &str, args: &[Word], analysis: &mut Analysis) {
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
pub(super) const INTERPRETERS: &[(&str, &[&str])] = &[
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
pub(super) fn interpreter(name: &str, args: &[Word], analysis: &mut Analysis) {
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
pub(super) const FILE_READERS: &[&str] = &[
    "gzip", "gunzip", "zcat", "zless", "zmore", "bzip2", "bunzip2", "bzcat", "bzless", "xz", "unxz", "xzcat", "lzma",
    "unlzma", "lzcat", "zstd", "unzstd", "zstdcat", "lz4", "lz4cat", "brotli", "base32", "basenc", "less", "more",
    "most", "bat", "batcat", "view", "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "iconv", "pandoc", "sqlite3",
    "xmllint", "yq", "mlr", "gpg", "split", "csplit", "look", "join", "shuf", "ptx", "enscript", "a2ps", "lp", "lpr",
];

/// Every argument of a program this module does not understand that could name a path: its
/// words and `--flag=value` values, and `file:` URLs, as [`PathUse::Mention`]s.
pub(super) fn mentions(args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn file_urls(args: &[Word], analysis: &mut Analysis) {
    for word in args {
        let value =
            word.value.split_once('=').filter(|_| word.value.starts_with("--")).map_or(word.value.as_str(), |(_, v)| v);
        if let Some(path) = file_url_path(value) {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: url_word(word, path) });
        }
    }
}

/// The word for the path of a `file:` URL; one that cannot be known is marked so (like `$X`).
pub(super) fn url_word(word: &Word, path: Option<String>) -> Word {
    match path {
        Some(path) => piece(word, &path),
        None => Word { variable: true, ..piece(word, word.value.as_str()) },
    }
}

/// The local path a `file:` URL names (`file:///a/b`, `file://localhost/a`, `file:/a`,
/// percent-decoded): `None` for a word that is no `file:` URL, `Some(None)` for one that names
/// another host or does not decode (a path that cannot be known here).
pub(super) fn file_url_path(value: &str) -> Option<Option<String>> {
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

pub(super) fn percent_decode(text: &str) -> Option<String> {
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

pub(super) fn file_reader(_name: &str, args: &[Word], analysis: &mut Analysis) {
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

pub(super) fn cd(args: &[Word], analysis: &mut Analysis) {
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

pub(super) fn date(args: &[Word], analysis: &mut Analysis) {
    let scan = scan(
        args,
        "-u --utc --universal -R --rfc-email -I? --iso-8601? --rfc-3339= -d= --date= -r@ --reference@ -f@ --file@ --debug -s^= --set^=",
        true,
    );
    flag_paths(analysis, &scan);
    analysis.read_only = scan.clean(true) && scan.operands.iter().all(|w| w.value.starts_with('+'));
}

pub(super) fn dd(args: &[Word], analysis: &mut Analysis) {
    for word in args {
        if let Some(input) = word.value.strip_prefix("if=") {
            analysis.paths.push(PathArg { path_use: PathUse::Read, word: piece(word, input) });
        }
        if let Some(output) = word.value.strip_prefix("of=") {
            analysis.paths.push(PathArg { path_use: PathUse::Write, word: piece(word, output) });
            analysis.destructive |= !crate::check::is_harmless_device(output);
        }
    }
}

pub(super) fn jq(args: &[Word], analysis: &mut Analysis) {
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

pub(super) fn gh(args: &[Word], analysis: &mut Analysis) {
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

pub(super) fn docker(args: &[Word], analysis: &mut Analysis) {
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
