//! What an exit code means for the command that returned it (Claude Code's
//! `commandSemantics.ts`).
//!
//! Some commands use exit code 1 for an answer rather than a failure: `grep` and `rg` found no
//! match, `find` could not enter some folders, `diff` found differences, `test` / `[` found the
//! condition false. For those, 1 is not an error (the result shows the output without
//! `Exit code 1`) and 2 or more is. For every other command any non-zero code is an error.
//!
//! The command that decides is the first word of the **last** sub-command (after `;`, `&&`,
//! `||`, `|`, `&` or a newline), since that is whose exit code the shell returns: `cat log |
//! grep error` is a `grep`, `grep -q x f && make` is a `make`. Leading `NAME=value` assignments are
//! skipped (`LC_ALL=C grep …` is a `grep`). This is a heuristic for reporting, never used for
//! permissions.

pub use agent_tools_shell::Interpretation;

/// Interprets `exit_code` for `command` (see the module docs).
pub fn interpret(command: &str, exit_code: i32) -> Interpretation {
    let meaning_of_one = match base_command(command) {
        "grep" | "rg" => Some("No matches found"),
        "find" => Some("Some directories were inaccessible"),
        "diff" => Some("Files differ"),
        "test" | "[" => Some("Condition is false"),
        _ => None,
    };
    match meaning_of_one {
        Some(message) => {
            Interpretation { is_error: !(0..2).contains(&exit_code), message: (exit_code == 1).then_some(message) }
        }
        None => Interpretation::plain(exit_code),
    }
}

/// The first word of the last sub-command of `command`, after any `NAME=value` assignments;
/// empty when there is none.
pub fn base_command(command: &str) -> &str {
    let last = last_segment(command);
    let mut rest = last.trim_start();
    loop {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        if is_assignment(word) && end < rest.len() {
            rest = rest[end..].trim_start();
            continue;
        }
        return word;
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The last non-blank piece of `command` between unquoted `;`, `&`, `|` and newlines (`&&`,
/// `||`, `|&` included); `>&`, `<&` and `&>` are redirections, not separators.
fn last_segment(command: &str) -> &str {
    let bytes = command.as_bytes();
    let mut start = 0;
    let mut last = "";
    let mut quote: Option<u8> = None;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        match quote {
            Some(b'\'') => {
                if byte == b'\'' {
                    quote = None;
                }
            }
            Some(_) => match byte {
                b'\\' => index += 1,
                b'"' => quote = None,
                _ => {}
            },
            None => match byte {
                b'\\' => index += 1,
                b'\'' | b'"' => quote = Some(byte),
                b';' | b'|' | b'\n' => {
                    last = keep(&command[start..index], last);
                    start = index + 1;
                }
                b'&' => {
                    let redirection =
                        (index > 0 && matches!(bytes[index - 1], b'>' | b'<')) || bytes.get(index + 1) == Some(&b'>');
                    if !redirection {
                        last = keep(&command[start..index], last);
                        start = index + 1;
                    }
                }
                _ => {}
            },
        }
        index += 1;
    }
    keep(command.get(start..).unwrap_or(""), last)
}

fn keep<'a>(segment: &'a str, previous: &'a str) -> &'a str {
    if segment.trim().is_empty() { previous } else { segment }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_sub_commands_first_word_decides() {
        assert_eq!(base_command("grep -r foo ."), "grep");
        assert_eq!(base_command("cat log | grep error"), "grep");
        assert_eq!(base_command("grep -q x f && make"), "make");
        assert_eq!(base_command("make || grep x f"), "grep");
        assert_eq!(base_command("cd src; grep x f;"), "grep");
        assert_eq!(base_command("echo a &\nfind . -name x"), "find");
        assert_eq!(base_command("LC_ALL=C FOO=1 grep x f"), "grep");
        assert_eq!(base_command("grep x f 2>&1"), "grep");
        assert_eq!(base_command("grep x f &>/dev/null"), "grep");
        assert_eq!(base_command("grep 'a;b|c' f"), "grep");
        assert_eq!(base_command("echo \"x && y\"; diff a b"), "diff");
        assert_eq!(base_command("[ -f x ]"), "[");
        assert_eq!(base_command(""), "");
        assert_eq!(base_command("FOO=1"), "FOO=1");
    }

    #[test]
    fn exit_code_one_is_an_answer_for_some_commands() {
        for command in ["grep x f", "rg x", "find . -name x", "diff a b", "test -f x", "[ -d x ]"] {
            let one = interpret(command, 1);
            assert!(!one.is_error, "{command}");
            assert!(one.message.is_some(), "{command}");
            assert!(interpret(command, 2).is_error, "{command}");
            assert_eq!(interpret(command, 0), Interpretation { is_error: false, message: None });
        }
        assert_eq!(interpret("grep x f", 1).message, Some("No matches found"));
        assert_eq!(interpret("diff a b", 1).message, Some("Files differ"));
        assert!(interpret("ls nope", 1).is_error);
        assert!(interpret("grep x f | wc -l", 1).is_error);
        assert!(interpret("make", 2).is_error);
        assert!(!interpret("make", 0).is_error);
    }
}
