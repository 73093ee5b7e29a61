//! No input makes the shell classifier panic, and whatever it cannot read it never allows.
//!
//! Random strings (any characters, control characters and odd spaces included) and soups of
//! shell tokens (quotes, substitutions, redirections, operators, wrappers, paths) go through
//! `check_shell_command` in every mode and under allow, ask and deny rules, through
//! `is_read_only_command` (with and without a context), `is_destructive_command`,
//! `split_command`, `candidates` and the permission matcher. Besides not panicking:
//!
//! - a command `split_command` calls complex is never allowed, never read-only;
//! - a read-only command splits into parts, each of which is read-only on its own;
//! - a command that hits the `Bash(rm:*)` deny rule as a whole is denied.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use agent_tools_core::ToolUseContext;
use agent_tools_core::{
    PermissionBehavior, PermissionMode, PermissionResult, PermissionRuleSource, ToolPermissionContext,
};
use agent_tools_shell_analysis::{Split, candidates, shell_permission_matcher, split_command};
use agent_tools_shell_analysis::{check_shell_command, is_destructive_command, is_read_only_command};
use proptest::prelude::*;

/// A project folder with a few files and a link outside, made once for the whole run.
fn project() -> &'static PathBuf {
    static PROJECT: OnceLock<PathBuf> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let root = dir.canonicalize().unwrap();
        std::fs::create_dir_all(root.join("proj/src")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("proj/a.txt"), "a").unwrap();
        std::fs::write(root.join("proj/src/main.rs"), "fn main() {}").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("outside"), root.join("proj/portal")).unwrap();
        root.join("proj")
    })
}

fn ctx(mode: PermissionMode) -> ToolUseContext {
    let permissions = ToolPermissionContext { mode, ..Default::default() }
        .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Bash(rm:*)")
        .with_rule(PermissionBehavior::Ask, PermissionRuleSource::Session, "Bash(git push:*)")
        .with_rule(PermissionBehavior::Allow, PermissionRuleSource::Session, "Bash(echo:*)")
        .with_rule(PermissionBehavior::Allow, PermissionRuleSource::Session, "Bash(git *)")
        .with_rule(PermissionBehavior::Allow, PermissionRuleSource::Session, "Bash(* --version)")
        .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Read(./secret.txt)");
    let mut ctx = ToolUseContext::new(project());
    ctx.home_dir = Some(project().join("../home"));
    ctx.permission_context = Arc::new(permissions);
    ctx
}

const TOKENS: &[&str] = &[
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "\r",
    "\u{a0}",
    "\\\n",
    ";",
    "&&",
    "||",
    "|",
    "|&",
    "&",
    "$(",
    ")",
    "`",
    "'",
    "\"",
    "\\",
    "<(",
    ">(",
    "{",
    "}",
    "(",
    "[",
    "]",
    "[[",
    "]]",
    ">",
    ">>",
    "<",
    "<<",
    "<<-",
    "<<<",
    "2>&1",
    ">&",
    "&>",
    ">|",
    "$",
    "${",
    "$'",
    "$\"",
    "$((",
    "))",
    "*",
    "?",
    "~",
    "=",
    "#",
    "!",
    ",",
    "..",
    "-",
    "--",
    "rm",
    "git",
    "cd",
    "ls",
    "cat",
    "echo",
    "eval",
    "bash",
    "-c",
    "sh",
    "sed",
    "-i",
    "-n",
    "p",
    "s/a/b/",
    "find",
    "-exec",
    "-delete",
    "xargs",
    "env",
    "sudo",
    "timeout",
    "5",
    "nice",
    "time",
    "EOF",
    "x",
    "a.txt",
    "src",
    "portal",
    "/",
    "/etc",
    "/dev/null",
    "..",
    "-rf",
    "-f",
    "push",
    "--force",
    "status",
    "log",
    "-C",
    "--output=",
    "PATH=",
    "A=1",
    "$HOME",
    "$X",
    "a,b",
    "1",
    "\u{1F600}",
    "é",
    "if",
    "then",
    "fi",
    "for",
    "do",
    "done",
    "function",
    "()",
    "export",
    "[ -f",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[ -~\\n\\t\\r]{0,80}", token_soup()]
}

fn exercise(command: &str) {
    let split = split_command(command);
    let complex = matches!(split, Split::Complex(_));
    let read_only = is_read_only_command(command, None);
    let _ = is_read_only_command(command, Some(&ctx(PermissionMode::Default)));
    let _ = is_destructive_command(command);
    for behavior in [PermissionBehavior::Allow, PermissionBehavior::Deny, PermissionBehavior::Ask] {
        let _ = candidates(command, behavior);
    }
    let matcher = shell_permission_matcher(command);
    let _ = matcher("rm:*") || matcher("git *") || matcher(command);
    if read_only {
        let Split::Parts(parts) = &split else { panic!("read-only but complex: {command:?}") };
        assert!(!parts.is_empty(), "read-only with no parts: {command:?}");
    }
    let denied_whole = candidates(command, PermissionBehavior::Deny)
        .first()
        .is_some_and(|whole| whole == "rm" || whole.starts_with("rm "));
    for mode in
        [PermissionMode::Default, PermissionMode::AcceptEdits, PermissionMode::BypassPermissions, PermissionMode::Plan]
    {
        let result = check_shell_command("Bash", command, &ctx(mode));
        if complex {
            assert!(!matches!(result, PermissionResult::Allow { .. }), "complex but allowed: {command:?}");
        }
        if denied_whole {
            assert_eq!(result.behavior(), "deny", "{command:?} in {mode}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn no_input_panics_and_nothing_unreadable_is_allowed(command in any_text()) {
        exercise(&command);
    }

    #[test]
    fn prefixed_soups_keep_the_deny_rule(soup in token_soup()) {
        // `rm` first: every spelling of the command starts with it, so it must be denied.
        let command = format!("rm {soup}");
        exercise(&command);
        for mode in [PermissionMode::Default, PermissionMode::BypassPermissions] {
            let result = check_shell_command("Bash", &command, &ctx(mode));
            prop_assert_eq!(result.behavior(), "deny", "{:?}", command);
        }
    }
}

#[test]
fn pathological_inputs() {
    for command in [
        String::new(),
        "\0".to_owned(),
        "\\".to_owned(),
        "'".repeat(10_001),
        "$(".repeat(3000),
        "(".repeat(3000),
        "{ ".repeat(3000),
        "`".repeat(3001),
        "a\\\n".repeat(5000),
        "x ".repeat(40_000),
        format!("echo {}", "a;".repeat(5000)),
        format!("rm {}", "$(".repeat(2000)),
        "cat <<EOF\n".repeat(500),
        "\u{FEFF}ls".to_owned(),
        "ls\u{2028}rm x".to_owned(),
        // tree-sitter-bash's brace-range scanner read past `isdigit`'s table on these, and the
        // process died (SIGSEGV) before the refusal below.
        "echo {\u{1F600}".to_owned(),
        "echo {12\u{10FFFF}".to_owned(),
        "a {1..\u{E0000}".to_owned(),
        "for i in {1..3\u{FFFF}}; do :; done".to_owned(),
    ] {
        exercise(&command);
    }
}

#[test]
fn a_brace_before_a_character_the_scanner_cannot_read_is_complex_not_a_crash() {
    for command in ["echo {\u{1F600}", "ls {7\u{4E2D}", "cp {1..2\u{10FFFF}} x"] {
        assert!(matches!(split_command(command), Split::Complex(_)), "{command:?}");
        let result = check_shell_command("Bash", command, &ctx(PermissionMode::BypassPermissions));
        assert!(!matches!(result, PermissionResult::Allow { .. }), "{command:?}");
    }
    // Characters the table covers, and non-ASCII text away from a brace, still parse.
    for command in ["echo {é}", "echo café {1..3}", "echo {a,b} \u{1F600}"] {
        assert!(!matches!(split_command(command), Split::Complex(why) if why.contains("after `{`")), "{command:?}");
    }
}
