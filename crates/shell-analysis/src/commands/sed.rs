//! `sed`: the scripts (from `-e` or the first operand) and the files after them; `-i` edits the
//! files, and a script is read-only only when every command in it only prints.

use super::flags::{flag_paths, scan};
use super::{Analysis, PathUse, push_paths};
use crate::parse::Word;

/// `sed`: scripts from `-e` or the first operand; files after. `-i` edits the files.
pub(super) fn sed(args: &[Word], analysis: &mut Analysis) {
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
pub(super) fn skip_address(text: &str) -> &str {
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
pub(super) fn skip_substitution(text: &str) -> Option<&str> {
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
