//! Shell commands against `Bash(…)` rules.
//!
//! Rule content, as Claude Code's `shellRuleMatching.ts` reads it:
//! - `prefix:*` — the command is `prefix` or starts with `prefix ` (also after `xargs `):
//!   `Bash(npm run test:*)`;
//! - with an unescaped `*` — a wildcard over the whole command (`*` any characters, `\*` a star);
//!   a single trailing ` *` is optional, so `Bash(git *)` also matches bare `git`;
//! - anything else — the exact command.
//!
//! A command is checked part by part: it is split at `&&`, `||`, `;`, `|`, `&` and line breaks
//! outside quotes, and **every** part must be allowed for the command to be allowed, while **any**
//! part hitting a deny (or ask) rule denies (or asks for) the whole. Each part is tried as
//! written, without harmless wrappers (`timeout 5`, `time`, `nice -n 5`, `nohup`, `stdbuf -oL`),
//! and without leading `VAR=value` assignments — for allow rules only for a short list of
//! harmless variables, for deny and ask rules for any variable (so `X=1 rm -rf /` still hits
//! `Bash(rm:*)`). Command substitution (`$(…)`, backticks), process substitution, subshells and
//! here-documents cannot be checked part by part: such a command is never allowed by a rule
//! (deny rules still apply to it as a whole), and needs approval.

use agent_tools_core::ToolUseContext;
use agent_tools_core::permissions::{PermissionBehavior, PermissionDecisionReason, PermissionResult};
use regex::Regex;

use crate::messages;

/// One simple command of a compound command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The command as written, without its redirections.
    pub text: String,
    /// It sends output into a file (anything but `/dev/null` or another descriptor).
    pub writes_file: bool,
}

/// A command line split into simple commands, or the construct that prevents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// The simple commands, in order.
    Parts(Vec<Part>),
    /// The command uses this construct, which hides commands inside it.
    Complex(&'static str),
}

/// Splits a command line into its simple commands (see the module docs).
pub fn split_command(command: &str) -> Split {
    let chars: Vec<char> = command.chars().collect();
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut writes_file = false;
    let mut index = 0;
    let (mut single, mut double) = (false, false);
    let finish = |parts: &mut Vec<Part>, current: &mut String, writes_file: &mut bool| {
        let text = current.trim().to_owned();
        if !text.is_empty() {
            parts.push(Part { text, writes_file: *writes_file });
        }
        current.clear();
        *writes_file = false;
    };
    while index < chars.len() {
        let c = chars[index];
        let next = chars.get(index + 1).copied();
        if single {
            current.push(c);
            if c == '\'' {
                single = false;
            }
            index += 1;
            continue;
        }
        if c == '\\' {
            current.push(c);
            if let Some(escaped) = next {
                current.push(escaped);
            }
            index += 2;
            continue;
        }
        if c == '`' || (c == '$' && next == Some('(')) {
            return Split::Complex("command substitution");
        }
        if double {
            current.push(c);
            if c == '"' {
                double = false;
            }
            index += 1;
            continue;
        }
        match c {
            '\'' => {
                single = true;
                current.push(c);
            }
            '"' => {
                double = true;
                current.push(c);
            }
            '(' | ')' if c == '(' && matches!(current.chars().last(), Some('<' | '>')) => {
                return Split::Complex("process substitution");
            }
            '(' | ')' | '{' | '}' if current.trim().is_empty() || c == ')' || c == '(' => {
                return Split::Complex("a subshell or command group");
            }
            ';' | '\n' => finish(&mut parts, &mut current, &mut writes_file),
            '&' if next == Some('&') => {
                finish(&mut parts, &mut current, &mut writes_file);
                index += 1;
            }
            '|' if next == Some('|') => {
                finish(&mut parts, &mut current, &mut writes_file);
                index += 1;
            }
            '|' => {
                finish(&mut parts, &mut current, &mut writes_file);
                if next == Some('&') {
                    index += 1;
                }
            }
            '&' if next == Some('>') => {
                let (target, consumed) =
                    redirect_target(&chars, index + 2 + usize::from(chars.get(index + 2) == Some(&'>')));
                writes_file |= !is_harmless_target(&target);
                index = consumed;
                continue;
            }
            '&' if current.ends_with('>') || current.ends_with('<') => current.push(c),
            '&' => finish(&mut parts, &mut current, &mut writes_file),
            '<' if next == Some('<') => return Split::Complex("a here-document"),
            '>' => {
                // `2>`, `>`, `>>`, `>|`: drop the descriptor digit already copied.
                if current.ends_with(|d: char| d.is_ascii_digit())
                    && current.trim_end_matches(|d: char| d.is_ascii_digit()).ends_with(char::is_whitespace)
                {
                    current.pop();
                }
                let mut at = index + 1;
                if matches!(chars.get(at), Some('>' | '|')) {
                    at += 1;
                }
                if chars.get(at) == Some(&'(') {
                    return Split::Complex("process substitution");
                }
                let (target, consumed) = redirect_target(&chars, at);
                writes_file |= !is_harmless_target(&target);
                index = consumed;
                continue;
            }
            _ => current.push(c),
        }
        index += 1;
    }
    if single || double {
        return Split::Complex("an unclosed quote");
    }
    finish(&mut parts, &mut current, &mut writes_file);
    Split::Parts(parts)
}

/// The word after a redirection operator starting at `start`, and the index after it.
fn redirect_target(chars: &[char], start: usize) -> (String, usize) {
    let mut index = start;
    while chars.get(index).is_some_and(|c| *c == ' ' || *c == '\t') {
        index += 1;
    }
    let mut target = String::new();
    while let Some(c) = chars.get(index) {
        if c.is_whitespace() || matches!(c, ';' | '|' | '&' | '<' | '>') && !target.is_empty() {
            break;
        }
        target.push(*c);
        index += 1;
    }
    (target, index)
}

fn is_harmless_target(target: &str) -> bool {
    target == "/dev/null" || target.starts_with('&') || target.chars().all(|c| c.is_ascii_digit() || c == '-')
}

/// Variables whose leading assignment cannot change what an allowed command does.
pub const SAFE_ENV_VARS: &[&str] = &[
    "NODE_ENV",
    "LANG",
    "LANGUAGE",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
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

fn is_assignment(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    (!name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit()))
    .then_some(name)
}

fn strip_wrapper(command: &str) -> Option<&str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let first = *words.first()?;
    let rest_after = |n: usize| -> Option<&str> {
        let mut remaining = command.trim_start();
        for _ in 0..n {
            remaining = remaining.trim_start();
            let end = remaining.find(char::is_whitespace)?;
            remaining = &remaining[end..];
        }
        let remaining = remaining.trim_start();
        (!remaining.is_empty()).then_some(remaining)
    };
    match first {
        "time" | "nohup" => rest_after(1),
        "nice" => {
            if words.get(1) == Some(&"-n") {
                rest_after(3)
            } else if words.get(1).is_some_and(|w| w.starts_with('-')) {
                rest_after(2)
            } else {
                rest_after(1)
            }
        }
        "stdbuf" => {
            let flags = words[1..].iter().take_while(|w| w.starts_with('-')).count();
            rest_after(1 + flags)
        }
        "timeout" => {
            let flags = words[1..].iter().take_while(|w| w.starts_with('-')).count();
            let duration = words.get(1 + flags)?;
            duration.trim_end_matches(['s', 'm', 'h', 'd']).parse::<f64>().ok()?;
            rest_after(2 + flags)
        }
        _ => None,
    }
}

/// The spellings of one simple command to test against rules of `behavior`.
pub fn candidates(part: &str, behavior: PermissionBehavior) -> Vec<String> {
    let mut out = vec![part.trim().to_owned()];
    let mut index = 0;
    while index < out.len() {
        let current = out[index].clone();
        if let Some(stripped) = strip_wrapper(&current) {
            out.push(stripped.to_owned());
        }
        if let Some(first) = current.split_whitespace().next()
            && let Some(name) = is_assignment(first)
        {
            let stripping = behavior != PermissionBehavior::Allow || SAFE_ENV_VARS.contains(&name);
            if stripping {
                let rest = current.trim_start()[first.len()..].trim_start().to_owned();
                if !rest.is_empty() {
                    out.push(rest);
                }
            }
        }
        index += 1;
        if out.len() > 16 {
            break;
        }
    }
    out.dedup();
    out
}

/// A parsed `Bash(…)` rule.
#[derive(Debug, Clone)]
pub enum ShellPattern {
    /// The exact command.
    Exact(String),
    /// `prefix:*`.
    Prefix(String),
    /// A wildcard pattern, compiled.
    Wildcard(Regex),
}

impl ShellPattern {
    /// Parses rule content (see the module docs).
    pub fn parse(content: &str) -> Self {
        if let Some(prefix) = content.strip_suffix(":*") {
            return Self::Prefix(prefix.trim().to_owned());
        }
        let chars: Vec<char> = content.chars().collect();
        let mut regex = String::from("(?s)^");
        let mut stars = 0;
        let mut index = 0;
        let mut literal = String::new();
        while index < chars.len() {
            match chars[index] {
                '\\' if matches!(chars.get(index + 1), Some('*' | '\\')) => {
                    literal.push(chars[index + 1]);
                    index += 2;
                    continue;
                }
                '*' => {
                    regex.push_str(&regex::escape(&literal));
                    literal.clear();
                    regex.push_str(".*");
                    stars += 1;
                }
                c => literal.push(c),
            }
            index += 1;
        }
        if stars == 0 {
            return Self::Exact(literal);
        }
        regex.push_str(&regex::escape(&literal));
        regex.push('$');
        // `git *` also matches bare `git`.
        if stars == 1 && content.ends_with(" *") && !content.ends_with("\\ *") {
            regex = format!("{}(?: .*)?$", regex.trim_end_matches("\\ .*$").trim_end_matches(" .*$"));
        }
        match Regex::new(&regex) {
            Ok(compiled) => Self::Wildcard(compiled),
            Err(_) => Self::Exact(content.to_owned()),
        }
    }

    /// Whether the pattern matches one spelling of a command.
    pub fn matches(&self, command: &str) -> bool {
        match self {
            Self::Exact(exact) => command == exact,
            Self::Prefix(prefix) => {
                command == prefix
                    || command.starts_with(&format!("{prefix} "))
                    || command
                        .strip_prefix("xargs ")
                        .is_some_and(|rest| rest == prefix || rest.starts_with(&format!("{prefix} ")))
            }
            Self::Wildcard(regex) => regex.is_match(command),
        }
    }
}

/// The first `tool_name(…)` rule of `behavior` matching some spelling of `part`.
fn matching_rule(
    tool_name: &str,
    behavior: PermissionBehavior,
    part: &str,
    ctx: &ToolUseContext,
) -> Option<agent_tools_core::permissions::PermissionRule> {
    let spellings = candidates(part, behavior);
    ctx.permission_context.content_rules(tool_name, behavior).find(|rule| {
        let pattern = ShellPattern::parse(rule.rule_value.rule_content.as_deref().unwrap_or_default());
        spellings.iter().any(|spelling| pattern.matches(spelling))
    })
}

fn rule_matches_part(tool_name: &str, behavior: PermissionBehavior, part: &str, ctx: &ToolUseContext) -> bool {
    matching_rule(tool_name, behavior, part, ctx).is_some()
}

/// The permission decision for a shell command from the `tool_name(…)` rules: deny if any part
/// (or the whole) hits a deny rule, ask if any hits an ask rule, allow only when every part of
/// a command that can be split writes no file and either hits an allow rule or only reads
/// ([`is_read_only_command`]'s test); otherwise passthrough (the general permission system
/// decides, and asks in default mode).
pub fn check_shell_command(tool_name: &str, command: &str, ctx: &ToolUseContext) -> PermissionResult {
    let split = split_command(command);
    let parts: Vec<String> = match &split {
        Split::Parts(parts) => parts.iter().map(|part| part.text.clone()).collect(),
        Split::Complex(_) => Vec::new(),
    };
    let everything = std::iter::once(command.trim().to_owned()).chain(parts.iter().cloned()).collect::<Vec<_>>();
    if let Some(rule) = everything.iter().find_map(|part| matching_rule(tool_name, PermissionBehavior::Deny, part, ctx))
    {
        return PermissionResult::Deny {
            message: messages::command_denied(command),
            decision_reason: PermissionDecisionReason::Rule { rule },
        };
    }
    // An ask rule's question survives bypass mode and whole-tool allow rules, as Claude Code's.
    if let Some(rule) = everything.iter().find_map(|part| matching_rule(tool_name, PermissionBehavior::Ask, part, ctx))
    {
        return PermissionResult::Ask {
            message: messages::command_needs_approval(command),
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
            suggestions: Vec::new(),
            blocked_path: None,
        };
    }
    match split {
        Split::Complex(why) => PermissionResult::passthrough(messages::command_too_complex(command, why)),
        Split::Parts(parts) => {
            // Each part must be allowed on its own: by an allow rule, or by only reading.
            let allowed = !parts.is_empty()
                && parts.iter().all(|part| {
                    !part.writes_file
                        && (rule_matches_part(tool_name, PermissionBehavior::Allow, &part.text, ctx)
                            || part_is_read_only(&part.text, Some(ctx)))
                });
            if allowed {
                PermissionResult::Allow {
                    updated_input: None,
                    decision_reason: Some(PermissionDecisionReason::Other {
                        reason: "every part is allowed by a rule or only reads".into(),
                    }),
                }
            } else {
                PermissionResult::passthrough(messages::command_needs_approval(command))
            }
        }
    }
}

/// Commands that only read, whatever their (non-path) arguments: the conservative core of Claude
/// Code's read-only list. Anything not here is not read-only.
const READ_ONLY_COMMANDS: &[&str] = &[
    "pwd",
    "whoami",
    "id",
    "uname",
    "echo",
    "printf",
    "true",
    "false",
    "which",
    "type",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "nproc",
    "uptime",
    "wc",
    "head",
    "tail",
    "cat",
    "ls",
    "stat",
    "file",
    "du",
    "df",
    "tree",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "nl",
    "od",
    "hexdump",
    "strings",
    "tac",
    "rev",
    "fold",
    "expand",
    "unexpand",
    "column",
    "paste",
    "seq",
    "sleep",
    "test",
    "[",
    "groups",
    "locale",
    "cal",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "base64",
    "jq",
    "uniq",
];

/// `git` subcommands that only read.
const READ_ONLY_GIT: &[&str] =
    &["status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "grep", "describe", "shortlog", "cat-file"];

/// Flags that make an otherwise read-only command write, run something, or never end.
const WRITING_FLAGS: &[&str] = &[
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "-delete",
    "-fprint",
    "-fprint0",
    "-fprintf",
    "-fls",
    "-f",
    "--follow",
    "-F",
    "--output-dir",
    "--ext-diff",
    "--textconv",
];

/// Whether every part of `command` only reads: no hidden commands, no file redirections, each
/// part a known read-only command (git only with a read-only subcommand), no writing flags, no
/// `$` expansions, and no path argument outside the working directories (`ctx`; without one, no
/// absolute path, `~` or `..` at all). Leading variable assignments make a part not read-only.
///
/// This is deliberately narrow: a command it cannot prove read-only simply needs approval.
pub fn is_read_only_command(command: &str, ctx: Option<&ToolUseContext>) -> bool {
    let Split::Parts(parts) = split_command(command) else { return false };
    !parts.is_empty() && parts.iter().all(|part| !part.writes_file && part_is_read_only(&part.text, ctx))
}

fn part_is_read_only(part: &str, ctx: Option<&ToolUseContext>) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let Some(first) = words.first() else { return false };
    if is_assignment(first).is_some() || first.contains('/') {
        return false;
    }
    let arguments = &words[1..];
    let allowed = match *first {
        "git" => {
            arguments.iter().find(|word| !word.starts_with('-')).is_some_and(|sub| READ_ONLY_GIT.contains(sub))
                && !arguments.iter().any(|word| word.starts_with("-c") || word.starts_with("--exec") || *word == "-C")
        }
        "find" => true,
        "sort" => !arguments.iter().any(|word| word.starts_with("-o") || word.starts_with("--output")),
        "date" | "hostname" => arguments.iter().all(|word| word.starts_with('+') || *word == "-u" || *word == "-R"),
        name => READ_ONLY_COMMANDS.contains(&name),
    };
    allowed
        && !arguments.iter().any(|word| WRITING_FLAGS.contains(word) || word.contains('$'))
        && arguments.iter().all(|word| path_argument_is_inside(word, ctx))
}

/// Whether a word that may be a path stays inside the working directories.
fn path_argument_is_inside(word: &str, ctx: Option<&ToolUseContext>) -> bool {
    let word = word.trim_matches(|c| c == '\'' || c == '"');
    let word = word.split_once('=').map_or(word, |(_, value)| value);
    let looks_like_path = word.starts_with('/') || word.starts_with('~') || word.split('/').any(|part| part == "..");
    if !looks_like_path {
        return true;
    }
    let Some(ctx) = ctx else { return false };
    if word.starts_with('~') {
        return false;
    }
    crate::paths::is_inside_working_directories(&ctx.resolve_path(word), ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(command: &str) -> Vec<(String, bool)> {
        match split_command(command) {
            Split::Parts(parts) => parts.into_iter().map(|p| (p.text, p.writes_file)).collect(),
            Split::Complex(why) => vec![(format!("COMPLEX: {why}"), false)],
        }
    }

    #[test]
    fn splits_compound_commands_outside_quotes() {
        assert_eq!(parts("git status && rm -rf ~"), [("git status".into(), false), ("rm -rf ~".into(), false)]);
        assert_eq!(parts("a; b || c | d & e\nf"), ["a", "b", "c", "d", "e", "f"].map(|p| (p.to_owned(), false)));
        assert_eq!(parts("echo 'a && b' \"c; d\""), [("echo 'a && b' \"c; d\"".into(), false)]);
        assert_eq!(parts("echo a\\;b"), [("echo a\\;b".into(), false)]);
        assert_eq!(parts("ls 2>&1 | head"), [("ls".into(), false), ("head".into(), false)]);
        assert_eq!(parts("ls > /dev/null 2>&1"), [("ls".into(), false)]);
        assert_eq!(parts("echo hi > made.txt"), [("echo hi".into(), true)]);
        assert_eq!(parts("echo hi >> log &> out.txt"), [("echo hi".into(), true)]);
    }

    #[test]
    fn hidden_commands_are_complex() {
        for (command, why) in [
            ("echo $(rm -rf /)", "command substitution"),
            ("echo `id`", "command substitution"),
            ("echo \"$(whoami)\"", "command substitution"),
            ("diff <(ls a) <(ls b)", "process substitution"),
            ("(cd x && make)", "a subshell or command group"),
            ("cat <<EOF\nx\nEOF", "a here-document"),
            ("echo 'unclosed", "an unclosed quote"),
        ] {
            assert_eq!(split_command(command), Split::Complex(why), "{command}");
        }
        // Inside single quotes nothing is special.
        assert_eq!(parts("echo '$(x)'"), [("echo '$(x)'".into(), false)]);
    }

    #[test]
    fn patterns_match_like_claude_code() {
        let prefix = ShellPattern::parse("npm run test:*");
        assert!(prefix.matches("npm run test"));
        assert!(prefix.matches("npm run test -- --watch"));
        assert!(!prefix.matches("npm run testing"));
        assert!(prefix.matches("xargs npm run test"));
        let wildcard = ShellPattern::parse("git *");
        assert!(wildcard.matches("git"));
        assert!(wildcard.matches("git status"));
        assert!(!wildcard.matches("gitk"));
        let version = ShellPattern::parse("* --version");
        assert!(version.matches("node --version"));
        let exact = ShellPattern::parse("make test");
        assert!(exact.matches("make test"));
        assert!(!exact.matches("make test2"));
        let literal_star = ShellPattern::parse("echo \\*");
        assert!(literal_star.matches("echo *"));
        assert!(!literal_star.matches("echo x"));
    }

    #[test]
    fn only_provably_read_only_commands_are_read_only() {
        let ctx = ToolUseContext::new("/proj");
        for command in [
            "ls -la",
            "git status",
            "git log --oneline | head -5",
            "cat a.txt && wc -l b.txt",
            "grep -rni foo src",
            "grep -o x f",
            "find . -name '*.rs'",
            "echo hi",
            "pwd",
            "cat /proj/x",
            "date +%s",
        ] {
            assert!(is_read_only_command(command, Some(&ctx)), "{command}");
        }
        for command in [
            "rm x",
            "touch x",
            "ls > out.txt",
            "echo $(rm x)",
            "git push",
            "git commit -m x",
            "git -c core.pager=x log",
            "find . -delete",
            "find . -exec rm {} ;",
            "sort -o out x",
            "sed -n p f",
            "cat /etc/passwd",
            "cat ../../etc/passwd",
            "cat ~/.ssh/id_rsa",
            "tail -f log",
            "FOO=1 ls",
            "./script.sh",
            "ls; rm x",
            "echo $HOME",
            "date -s 2020-01-01",
            "npm test",
            "",
        ] {
            assert!(!is_read_only_command(command, Some(&ctx)), "{command}");
        }
        assert!(!is_read_only_command("cat /proj/x", None), "without a context, no absolute paths");
    }

    #[test]
    fn wrappers_and_assignments_are_seen_through() {
        let deny = candidates("FOO=1 timeout 5 nice -n 3 rm -rf /", PermissionBehavior::Deny);
        assert!(deny.iter().any(|c| c == "rm -rf /"), "{deny:?}");
        let allow = candidates("PATH=/evil npm test", PermissionBehavior::Allow);
        assert!(!allow.iter().any(|c| c == "npm test"), "PATH is not harmless: {allow:?}");
        let allow = candidates("NODE_ENV=test npm test", PermissionBehavior::Allow);
        assert!(allow.iter().any(|c| c == "npm test"));
    }
}
