//! Tests of the command analysis.

use super::flags::Kind;
use super::sed::sed_script_ok;
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
    assert_eq!(paths("tar czf out.tgz src docs"), [p(Write, "out.tgz"), p(tree(false), "src"), p(tree(false), "docs")]);
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
