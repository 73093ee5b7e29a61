//! `xargs`: the command it runs with arguments from its input, which nobody sees here — only a
//! command that merely prints its arguments stays read-only.

use super::flags::scan;
use super::{Analysis, analyze};
use crate::parse::Word;
use crate::rules::{Unwrap, layers};

/// Commands that stay read-only whatever `xargs` appends from its input: they only print
/// their arguments and never open a file. A command that reads the files its input names
/// (`xargs cat`, `xargs grep`) reads paths nobody can check before it runs: never read-only.
pub(super) const XARGS_SAFE: &[&str] = &["basename", "dirname", "echo", "printf"];

pub(super) fn xargs(args: &[Word], analysis: &mut Analysis) {
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
