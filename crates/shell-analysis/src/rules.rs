//! `Bash(…)` rule content, and the spellings of a simple command that rules are matched against.

use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionBehavior, PermissionRule};

use super::parse::{SimpleCommand, Word};

/// A parsed `Bash(…)` rule.
///
/// Mirrors Claude Code's `shellRuleMatching.ts`: `prefix:*` is a prefix rule, content with an
/// unescaped `*` a wildcard, anything else an exact command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellPattern {
    /// The exact command.
    Exact(String),
    /// `prefix:*`: the command is `prefix`, starts with `prefix ` (a word boundary), or is
    /// `xargs prefix …`.
    Prefix(String),
    /// A wildcard pattern.
    Wildcard(Wildcard),
}

/// A wildcard pattern: literal pieces around `*`s, anchored at both ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wildcard {
    /// The literal pieces; a `*` stands between each two.
    pieces: Vec<String>,
    /// `git *` — a single trailing ` *` — also matches the bare `git`.
    optional_tail: Option<String>,
}

impl Wildcard {
    fn matches(&self, text: &str) -> bool {
        if self.optional_tail.as_deref() == Some(text) {
            return true;
        }
        let Some((first, rest)) = self.pieces.split_first() else { return true };
        let Some(mut remaining) = text.strip_prefix(first.as_str()) else { return false };
        let Some((last, middle)) = rest.split_last() else { return remaining.is_empty() };
        for piece in middle {
            match remaining.find(piece.as_str()) {
                Some(at) => remaining = &remaining[at + piece.len()..],
                None => return false,
            }
        }
        remaining.len() >= last.len() && remaining.ends_with(last.as_str())
    }
}

impl ShellPattern {
    /// Parses rule content: `npm run test:*` → [`ShellPattern::Prefix`], `git *` →
    /// [`ShellPattern::Wildcard`] (`\*` is a literal star, `\\` a backslash), anything else →
    /// [`ShellPattern::Exact`]. Never fails.
    pub fn parse(content: &str) -> Self {
        if let Some(prefix) = content.strip_suffix(":*") {
            return Self::Prefix(prefix.trim().to_owned());
        }
        let mut pieces = vec![String::new()];
        let mut chars = content.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some('*' | '\\')) => {
                    if let (Some(escaped), Some(piece)) = (chars.next(), pieces.last_mut()) {
                        piece.push(escaped);
                    }
                }
                '*' => pieces.push(String::new()),
                c => {
                    if let Some(piece) = pieces.last_mut() {
                        piece.push(c);
                    }
                }
            }
        }
        if pieces.len() == 1 {
            return Self::Exact(pieces.pop().unwrap_or_default());
        }
        // `git *`: one star, at the end, after a space — the space and star are optional.
        let optional_tail = match pieces.as_slice() {
            [head, tail] if tail.is_empty() && head.ends_with(' ') && content.ends_with(" *") => {
                Some(head.trim_end_matches(' ').to_owned())
            }
            _ => None,
        };
        Self::Wildcard(Wildcard { pieces, optional_tail })
    }

    /// Whether the pattern matches one spelling of a command.
    pub fn matches(&self, command: &str) -> bool {
        match self {
            Self::Exact(exact) => command == exact,
            Self::Prefix(prefix) => {
                let covers = |text: &str| {
                    text == prefix || text.strip_prefix(prefix.as_str()).is_some_and(|rest| rest.starts_with(' '))
                };
                covers(command) || command.strip_prefix("xargs ").is_some_and(covers)
            }
            Self::Wildcard(wildcard) => wildcard.matches(command),
        }
    }
}

/// Variables whose leading assignment cannot change what an allowed command does: an allow rule
/// sees through `NODE_ENV=test npm test`, but not through `PATH=… npm test` or `LD_PRELOAD=…`.
pub const SAFE_ENV_VARS: &[&str] = &[
    "NODE_ENV",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_COLLATE",
    "LC_NUMERIC",
    "LC_TIME",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "TZ",
    "CI",
    "DEBUG",
    "COLUMNS",
    "LINES",
];

/// How far a command is unwrapped to find the command that really runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unwrap {
    /// For allow rules: only wrappers that cannot change what the inner command does
    /// (`timeout N`, `time`, `nice`, `nohup`, `stdbuf`).
    Harmless,
    /// For deny and ask rules, path checks and the destructive test: also `env`, `command`,
    /// `builtin`, `exec`, `sudo`, `doas`, `pkexec`, `xargs`, `watch`, `ionice`, `setsid`,
    /// `coproc`, `unbuffer`, `chroot DIR`, `busybox`.
    Everything,
}

fn is_duration(text: &str) -> bool {
    let number = text.trim_end_matches(['s', 'm', 'h', 'd']);
    !number.is_empty() && number.parse::<f64>().is_ok_and(f64::is_finite)
}

fn is_assignment_word(word: &Word) -> bool {
    word.value.split_once('=').is_some_and(|(name, _)| is_variable_name(name))
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Skips leading flags: `takes_value` lists the flags whose value is the next word (or attached
/// to a short flag). Returns the index of the first word after the flags, or `None` when a flag
/// is not understood.
fn skip_flags(words: &[Word], start: usize, takes_value: &[&str], no_value: &[&str]) -> Option<usize> {
    let mut index = start;
    while let Some(word) = words.get(index) {
        let value = word.value.as_str();
        if !word.is_literal() && value.starts_with('-') {
            return None;
        }
        if value == "--" {
            return Some(index + 1);
        }
        if !value.starts_with('-') || value == "-" {
            return Some(index);
        }
        if let Some((name, _)) = value.split_once('=')
            && value.starts_with("--")
        {
            if !takes_value.contains(&name) {
                return None;
            }
            index += 1;
            continue;
        }
        if takes_value.contains(&value) {
            index += 2;
            continue;
        }
        if no_value.contains(&value) {
            index += 1;
            continue;
        }
        // `-n5`: a short flag with its value attached.
        if !value.starts_with("--") && takes_value.iter().any(|flag| flag.len() == 2 && value.starts_with(flag)) {
            index += 1;
            continue;
        }
        return None;
    }
    Some(index)
}

/// The index of the wrapped command when `words` starts with a wrapper of this level.
fn unwrap_once(words: &[Word], level: Unwrap) -> Option<usize> {
    let first = words.first()?;
    if !first.is_literal() {
        return None;
    }
    let next = match first.value.as_str() {
        "time" => skip_flags(words, 1, &[], &["-p"])?,
        "nohup" => skip_flags(words, 1, &[], &[])?,
        "nice" => skip_flags(words, 1, &["-n", "--adjustment"], &[]).or_else(|| {
            // `nice -5 cmd`
            words.get(1).filter(|w| w.value.strip_prefix('-').is_some_and(|n| n.parse::<i32>().is_ok())).map(|_| 2)
        })?,
        "stdbuf" => skip_flags(words, 1, &["-i", "-o", "-e", "--input", "--output", "--error"], &[])?,
        "timeout" => {
            let at = skip_flags(
                words,
                1,
                &["-s", "-k", "--signal", "--kill-after"],
                &["--preserve-status", "--foreground", "-v", "--verbose"],
            )?;
            let duration = words.get(at)?;
            if !duration.is_literal() || !is_duration(&duration.value) {
                return None;
            }
            at + 1
        }
        _ if level == Unwrap::Harmless => return None,
        "env" => {
            let mut at = skip_flags(
                words,
                1,
                &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
                &["-i", "--ignore-environment", "-0", "--null"],
            )?;
            if words.get(at).is_some_and(|w| w.value == "-") {
                at += 1;
            }
            while words.get(at).is_some_and(is_assignment_word) {
                at += 1;
            }
            at
        }
        "command" | "builtin" => skip_flags(words, 1, &[], &["-p"])?,
        "exec" => skip_flags(words, 1, &["-a"], &["-c", "-l"])?,
        "sudo" | "doas" => skip_flags(
            words,
            1,
            &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir"],
            &["-E", "-H", "-n", "-S", "-k", "-K", "-b", "-P", "-A", "-i", "-s", "--preserve-env", "--"],
        )?,
        "xargs" => skip_flags(
            words,
            1,
            &[
                "-d",
                "-n",
                "-L",
                "-I",
                "-P",
                "-s",
                "-E",
                "-a",
                "--delimiter",
                "--max-args",
                "--max-lines",
                "--replace",
                "--max-procs",
                "--max-chars",
                "--eof",
                "--arg-file",
            ],
            &[
                "-0",
                "--null",
                "-r",
                "--no-run-if-empty",
                "-t",
                "--verbose",
                "-x",
                "--exit",
                "-p",
                "--interactive",
                "-o",
            ],
        )?,
        "watch" => skip_flags(
            words,
            1,
            &["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
            &[
                "-t",
                "--no-title",
                "-b",
                "--beep",
                "-e",
                "--errexit",
                "-g",
                "--chgexit",
                "-c",
                "--color",
                "-x",
                "--exec",
                "-p",
                "--precise",
            ],
        )?,
        "ionice" => skip_flags(words, 1, &["-c", "-n", "--class", "--classdata"], &["-t", "--ignore"])?,
        "setsid" => skip_flags(words, 1, &[], &["-c", "-f", "-w", "--ctty", "--fork", "--wait"])?,
        "busybox" | "coproc" | "pkexec" | "unbuffer" => 1,
        "chroot" => skip_flags(words, 1, &["--userspec", "--groups"], &["--skip-chdir"])? + 1,
        _ => return None,
    };
    (next > 0 && next < words.len()).then_some(next)
}

/// The start of each layer of wrappers: `[0]` for an unwrapped command, `[0, 2]` for
/// `timeout 5 …` (`timeout 5 nice ls` → `[0, 2, 3]`).
pub(crate) fn layers(words: &[Word], level: Unwrap) -> Vec<usize> {
    let mut starts = vec![0];
    let mut at = 0;
    while starts.len() < 16 {
        let Some(next) = words.get(at..).and_then(|rest| unwrap_once(rest, level)) else { break };
        at += next;
        starts.push(at);
    }
    starts
}

/// The command that really runs after every wrapper is removed.
pub(crate) fn strip_all_wrappers(words: &[Word]) -> &[Word] {
    let start = layers(words, Unwrap::Everything).last().copied().unwrap_or(0);
    words.get(start..).unwrap_or_default()
}

/// The commands `find` runs with `-exec`/`-execdir`/`-ok`/`-okdir` (up to `;` or `+`).
pub(crate) fn find_exec_commands(words: &[Word]) -> Vec<&[Word]> {
    let mut out = Vec::new();
    if words.first().is_none_or(|w| w.value.rsplit('/').next() != Some("find")) {
        return out;
    }
    let mut index = 1;
    while index < words.len() {
        if matches!(words[index].value.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = index + 1;
            let mut end = start;
            while end < words.len() && !matches!(words[end].value.as_str(), ";" | "+") {
                end += 1;
            }
            if end > start {
                out.push(&words[start..end]);
            }
            index = end;
        }
        index += 1;
    }
    out
}

fn join<'w>(words: impl Iterator<Item = &'w str>) -> String {
    let mut out = String::new();
    for word in words {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The spellings of one simple command that rules of `behavior` are matched against.
///
/// Every rule sees the command as written (assignments and words, without redirections). Allow
/// rules also see it without leading assignments of [`SAFE_ENV_VARS`] and without harmless
/// wrappers (`timeout 30 npm test` → `npm test`). Deny and ask rules see through any leading
/// assignment and every wrapper ([`Unwrap::Everything`]), match the words after quote removal as
/// well (`"rm" -rf` → `rm -rf`), and see the commands `find -exec` runs.
pub(crate) fn spellings(command: &SimpleCommand, behavior: PermissionBehavior) -> Vec<String> {
    let allow = behavior == PermissionBehavior::Allow;
    let mut out = Vec::new();
    let mut push = |text: String| {
        if !text.is_empty() && !out.contains(&text) {
            out.push(text);
        }
    };
    push(command.text());
    let strip_assignments =
        !allow || command.assignments.iter().all(|assignment| SAFE_ENV_VARS.contains(&assignment.name.as_str()));
    if !strip_assignments {
        return out;
    }
    let level = if allow { Unwrap::Harmless } else { Unwrap::Everything };
    let mut segments: Vec<&[Word]> = vec![&command.words];
    if !allow {
        segments.extend(find_exec_commands(strip_all_wrappers(&command.words)));
    }
    for segment in segments {
        for start in layers(segment, level) {
            let words = segment.get(start..).unwrap_or_default();
            push(join(words.iter().map(|w| w.raw.as_str())));
            if !allow {
                push(join(words.iter().map(|w| w.value.as_str())));
                // `/bin/rm -rf x` is `rm -rf x` to a deny rule.
                if let Some((first, rest)) = words.split_first()
                    && let Some((_, base)) = first.value.rsplit_once('/')
                    && !base.is_empty()
                {
                    push(join(std::iter::once(base).chain(rest.iter().map(|w| w.value.as_str()))));
                }
            }
        }
    }
    out
}

/// The first `tool_name(…)` rule of `behavior` matching one of `spellings`.
pub(crate) fn matching_rule(
    tool_name: &str,
    behavior: PermissionBehavior,
    spellings: &[String],
    ctx: &ToolUseContext,
) -> Option<PermissionRule> {
    if spellings.is_empty() {
        return None;
    }
    ctx.permission_context.content_rules(tool_name, behavior).find(|rule| {
        let pattern = ShellPattern::parse(rule.rule_value.rule_content.as_deref().unwrap_or_default());
        spellings.iter().any(|spelling| pattern.matches(spelling))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_command;

    fn spelled(source: &str, behavior: PermissionBehavior) -> Vec<String> {
        let parsed = parse_command(source);
        spellings(&parsed.commands[0], behavior)
    }

    #[test]
    fn prefix_rules_match_at_a_word_boundary() {
        let prefix = ShellPattern::parse("npm run test:*");
        assert_eq!(prefix, ShellPattern::Prefix("npm run test".into()));
        assert!(prefix.matches("npm run test"));
        assert!(prefix.matches("npm run test -- --watch"));
        assert!(!prefix.matches("npm run testing"));
        assert!(!prefix.matches("npm run test;rm x"));
        assert!(prefix.matches("xargs npm run test"));
        assert!(!prefix.matches("xargs npm run testing"));
    }

    #[test]
    fn wildcards_are_anchored_and_a_trailing_space_star_is_optional() {
        let git = ShellPattern::parse("git *");
        assert!(git.matches("git"));
        assert!(git.matches("git status"));
        assert!(!git.matches("gitk"));
        assert!(!git.matches("xgit status"));
        let version = ShellPattern::parse("* --version");
        assert!(version.matches("node --version"));
        assert!(!version.matches("node --version && rm x"));
        assert!(!version.matches("node --versions"));
        let middle = ShellPattern::parse("git * main");
        assert!(middle.matches("git push origin main"));
        assert!(!middle.matches("git push origin main2"));
        assert!(!middle.matches("git main"), "the star needs its surrounding spaces");
        let star = ShellPattern::parse("echo \\*");
        assert_eq!(star, ShellPattern::Exact("echo *".into()));
        assert!(star.matches("echo *"));
        assert!(!star.matches("echo x"));
        let newline = ShellPattern::parse("echo *");
        assert!(newline.matches("echo a\nb"), "a star spans line breaks");
        let two = ShellPattern::parse("a*b*c");
        assert!(two.matches("abc") && two.matches("a-b-c") && !two.matches("acb"));
        assert!(ShellPattern::parse("*").matches("anything at all"));
    }

    #[test]
    fn exact_rules_match_only_the_exact_command() {
        let exact = ShellPattern::parse("make test");
        assert!(exact.matches("make test"));
        assert!(!exact.matches("make test2"));
        assert!(!exact.matches("make test "));
    }

    #[test]
    fn allow_spellings_strip_only_harmless_assignments_and_wrappers() {
        use PermissionBehavior::Allow;
        assert_eq!(spelled("NODE_ENV=test npm test", Allow), ["NODE_ENV=test npm test", "npm test"]);
        assert_eq!(spelled("PATH=/evil npm test", Allow), ["PATH=/evil npm test"]);
        assert_eq!(spelled("LD_PRELOAD=x.so ls", Allow), ["LD_PRELOAD=x.so ls"]);
        assert_eq!(
            spelled("timeout -s KILL 30 nice -n 5 npm test", Allow),
            ["timeout -s KILL 30 nice -n 5 npm test", "nice -n 5 npm test", "npm test"]
        );
        assert_eq!(spelled("env rm -rf /", Allow), ["env rm -rf /"], "env is not harmless");
        assert_eq!(spelled("sudo ls", Allow), ["sudo ls"]);
        assert_eq!(spelled("timeout x ls", Allow), ["timeout x ls"], "not a duration");
        assert_eq!(spelled("ls > out.txt", Allow), ["ls"], "redirections are not part of the spelling");
    }

    #[test]
    fn deny_spellings_see_through_everything() {
        use PermissionBehavior::Deny;
        let all = spelled("FOO=1 timeout 5 nice -n 3 rm -rf /", Deny);
        assert!(all.contains(&"rm -rf /".to_owned()), "{all:?}");
        for (source, inner) in [
            ("PATH=/x rm a", "rm a"),
            ("env -i FOO=1 rm a", "rm a"),
            ("sudo -u root rm a", "rm a"),
            ("command rm a", "rm a"),
            ("exec rm a", "rm a"),
            ("xargs -0 rm", "rm"),
            ("nohup rm a", "rm a"),
            ("\"rm\" -rf a", "rm -rf a"),
            ("\\rm a", "rm a"),
            ("find . -name x -exec rm -f {} \\;", "rm -f {}"),
            ("watch -n 1 rm a", "rm a"),
            ("/bin/rm -rf a", "rm -rf a"),
            ("coproc rm a", "rm a"),
            ("pkexec rm a", "rm a"),
            ("chroot /srv rm a", "rm a"),
        ] {
            let got = spelled(source, Deny);
            assert!(got.contains(&inner.to_owned()), "{source}: {got:?}");
        }
        assert!(!spelled("echo rm", Deny).contains(&"rm".to_owned()));
    }
}
