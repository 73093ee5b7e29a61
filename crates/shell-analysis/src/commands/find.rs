//! `find`: the paths before the expression are read; the expression may only test and print
//! (`-exec` and friends run another command, which is analysed as one).

use super::{Analysis, PathArg, PathUse, analyze, push_paths, retag};
use crate::parse::Word;
use crate::rules::find_exec_commands;

/// `find`: the paths before the expression are read; the expression may only test and print.
pub(super) fn find(args: &[Word], analysis: &mut Analysis) {
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

pub(super) fn prepend_find(args: &[Word]) -> Vec<Word> {
    let mut words = vec![Word { raw: "find".into(), value: "find".into(), ..Word::default() }];
    words.extend(args.iter().cloned());
    words
}

pub(super) fn is_newer_xy(value: &str) -> bool {
    value.len() == 8
        && value.starts_with("-newer")
        && value[6..].chars().all(|c| matches!(c, 'a' | 'B' | 'c' | 'm' | 't'))
}
