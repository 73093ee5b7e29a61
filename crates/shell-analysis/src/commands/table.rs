//! The table of commands with plain flag and operand rules: for each, its flags (a [`flags`]
//! spec, strict or permissive), what its operands are (paths read or written, data, a pattern
//! then paths, sources then a target), whether it is read-only, and when it destroys data.
//!
//! [`flags`]: super::flags

use super::flags::{flag_paths, scan};
use super::{Analysis, PathUse, push_paths};
use crate::parse::Word;

/// What a table command does with its operands.
#[derive(Debug, Clone, Copy)]
pub(super) enum Operands {
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
pub(super) enum Destroys {
    Never,
    Always,
    /// Unless one of these flags is given (`cp -n`).
    Unless(&'static [&'static str]),
    /// Only with one of these flags (`ln -f`).
    With(&'static [&'static str]),
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Spec {
    pub(super) flags: &'static str,
    pub(super) strict: bool,
    pub(super) operands: Operands,
    pub(super) read_only: bool,
    pub(super) destroys: Destroys,
}

pub(super) const fn read(flags: &'static str, strict: bool, operands: Operands) -> Spec {
    Spec { flags, strict, operands, read_only: true, destroys: Destroys::Never }
}

pub(super) const fn write(flags: &'static str, operands: Operands, destroys: Destroys) -> Spec {
    Spec { flags, strict: false, operands, read_only: false, destroys }
}

pub(super) const HEAD_TAIL: &str = "-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated #";
pub(super) const CHECKSUM: &str = "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn -l= --length=";
pub(super) const GREP: &str = "-e: -f@ -m= -A= -B= -C= -d= -D= --regexp= --file@ --max-count= --after-context= --before-context= \
    --context= --label= --include= --exclude= --exclude-from@ --exclude-dir= --binary-files= --devices= --directories= \
    --color? --colour? --group-separator= --regexp: #";
pub(super) const RG: &str = "-e: -f@ -g: -A= -B= -C= -m= -t= -T= -j= -M= -r= -E= -d= --regexp= --file@ --glob= --iglob= \
    --after-context= --before-context= --context= --max-count= --type= --type-not= --type-add= --threads= --max-columns= \
    --replace: --sort= --sortr= --color= --colour= --colors= --max-depth= --max-filesize= --context-separator= \
    --field-match-separator= --field-context-separator= --path-separator= --encoding= --engine= --ignore-file@ \
    --dfa-size-limit= --regex-size-limit= --pre^= --pre-glob^= --hostname-bin^= -z^ --search-zip^ --hyperlink-format=";
pub(super) const LS: &str = "-I= -T= -w= --ignore= --hide= --format= --sort= --time= --time-style= --color? --block-size= \
    --quoting-style= --indicator-style= --tabsize= --width= --hyperlink?";
pub(super) const DIFF: &str = "-C= -U= -W= -I= -x= -X@ -S= -F= -D= --context? --unified? --width= --ignore-matching-lines= \
    --exclude= --exclude-from@ --starting-file= --from-file@ --to-file@ --horizon-lines= --color? --palette= \
    --tabsize= --label= --show-function-line= --line-format= --old-line-format= --new-line-format= \
    --unchanged-line-format= --old-group-format= --new-group-format= --changed-group-format= \
    --unchanged-group-format= --ifdef= #";
pub(super) const SORT: &str = "-k= -t= -S= -T= --key= --field-separator= --buffer-size= --temporary-directory= --parallel= \
    --batch-size= --files0-from& --random-source@ --sort= -o! --output! --compress-program^=";

/// The table of commands with plain flag and operand rules.
pub(super) fn table(name: &str) -> Option<Spec> {
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

pub(super) fn apply_table(spec: Spec, args: &[Word], analysis: &mut Analysis) {
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
