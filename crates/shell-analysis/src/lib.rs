//! # agent-tools-shell-analysis: shell commands against `Bash(…)` rules, on a real parser
//!
//! The command analysis the shell tools share — Bash, PowerShell's Bash-like rules, and the
//! sandbox's decision of what may run unsandboxed. It is its own crate so that only the crates
//! that really analyse commands compile tree-sitter and tree-sitter-bash; the file tools check
//! paths with `agent-tools-permissions` alone. Path checks of the files a command reads and
//! writes come from there too.
//!
//! Shell commands against `Bash(…)` rules, on a real parser.
//!
//! A command line is parsed with tree-sitter-bash and walked with an allow-list of the
//! constructs this crate understands (see [`split_command`]): lists joined by `&&`, `||`, `;`,
//! `&` and line breaks, pipelines, `!`, simple commands with leading `VAR=value` assignments,
//! plain and quoted words, `$VAR`, and file redirections. Anything else — command or process
//! substitution, subshells and groups, functions, control structures, here-documents, ANSI-C
//! quoting, brace expansion, `eval`, `bash -c`, `source`, a parse error — makes the command *too
//! complex*: it is never read-only and never allowed by a rule or a mode, but deny rules (and ask
//! rules, and the always-ask safety checks) still see every command the walk could find inside.
//!
//! [`check_shell_command`] mirrors Claude Code's `bashToolHasPermission`. Each part of a
//! compound command is decided on its own, in this order:
//!
//! 1. a deny rule (exact, prefix or wildcard) → deny;
//! 2. an ask rule → ask (even in bypass mode);
//! 3. path constraints: redirections into files and the path arguments of commands that read
//!    (`cat`, `grep`, `git`, `cd` …) or write (`rm`, `cp`, `sed -i`, `tee` …) are checked with
//!    [`check_read_permission`](agent_tools_permissions::check_read_permission) or
//!    [`check_write_permission`](agent_tools_permissions::check_write_permission): `Read(…)`/`Edit(…)` deny and
//!    ask rules apply, paths outside the working directories need approval, writes need
//!    `acceptEdits` (or an `Edit(…)` allow rule), protected files (`.git/`, `.claude/`, shell
//!    start-up files) always ask, and removing `/`, `~`, `*`, `.`, a top-level folder or a
//!    working directory always asks;
//! 4. an allow rule → allow;
//! 5. `acceptEdits` mode → allow `mkdir touch rm rmdir mv cp sed`;
//! 6. a provably read-only command ([`is_read_only_command`]) → allow;
//! 7. otherwise the part needs approval.
//!
//! Any deny denies the whole command (the message names it); then any question that survives
//! bypass mode; a too-complex command, more than [`MAX_PARTS`] parts, more than one `cd`, or a
//! `cd` together with `git` need approval, and so does any `git` command in a folder the user has
//! not trusted (`ToolUseOptions::workspace_trusted`: git runs the programs a repository's own
//! configuration names); when every part is allowed the command is. A `cd`
//! into the working directory is dropped first. A command that needs approval comes back as
//! `passthrough` — the host's pipeline turns it into a question unless bypass mode or a
//! whole-tool `Bash` allow rule decides — with up to [`MAX_SUGGESTIONS`] rules to add to
//! `.claude/settings.local.json` (`Bash(npm test:*)`, or the exact command).
//!
//! Rules match *spellings* of each part (see [`candidates`]): the part as written, and — for
//! allow rules — without [`SAFE_ENV_VARS`] assignments and harmless wrappers (`timeout 30`,
//! `time`, `nice`, `nohup`, `stdbuf`); deny and ask rules see through every leading assignment
//! and every wrapper (`env`, `sudo`, `command`, `exec`, `xargs`, `watch` …), after quote removal
//! (`"rm" -rf` is `rm -rf`), into `find -exec`, and into the literal code of `bash -c '…'` and
//! `eval`.
//!
//! ```
//! use std::sync::Arc;
//! use agent_tools_core::{PermissionBehavior, PermissionRuleSource};
//! use agent_tools_core::{ToolPermissionContext, ToolUseContext};
//! use agent_tools_shell_analysis::{check_shell_command, is_read_only_command};
//! let rules = ToolPermissionContext::default()
//!     .with_rule(PermissionBehavior::Allow, PermissionRuleSource::Session, "Bash(npm test:*)")
//!     .with_rule(PermissionBehavior::Deny, PermissionRuleSource::Session, "Bash(rm:*)");
//! let project = tempfile::tempdir().unwrap();
//! std::fs::create_dir(project.path().join(".git")).unwrap(); // a repository
//! let mut ctx = ToolUseContext::new(project.path());
//! ctx.permission_context = Arc::new(rules);
//! // Each part on its own: an allowed `npm test`, a read-only `git status` — which runs
//! // unasked in a repository only when the user trusts its folder (git runs what the
//! // repository configures).
//! assert_eq!(check_shell_command("Bash", "npm test -- --watch && git status", &ctx).behavior(), "passthrough");
//! ctx.options.workspace_trusted = true;
//! assert_eq!(check_shell_command("Bash", "npm test -- --watch && git status", &ctx).behavior(), "allow");
//! // The deny rule sees through `sudo`, and denies the whole line.
//! assert_eq!(check_shell_command("Bash", "ls && sudo rm -rf build", &ctx).behavior(), "deny");
//! // A command substitution is too complex for any allow: it needs approval.
//! assert_eq!(check_shell_command("Bash", "npm test $(cat args)", &ctx).behavior(), "passthrough");
//! assert!(is_read_only_command("grep -rn TODO src | head -5", None));
//! ```

mod check;
mod commands;
pub mod messages;
mod parse;
mod rules;
mod verdict;

use agent_tools_core::PermissionMatcher;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{PermissionBehavior, PermissionResult};

pub use check::{ACCEPT_EDITS_COMMANDS, MAX_PARTS, MAX_SUGGESTIONS};
pub use rules::{SAFE_ENV_VARS, ShellPattern, Wildcard};
pub use verdict::{Verdict, asked_by_rule, too_complex};

use parse::{RedirectOp, parse_command};

/// One simple command of a compound command line (as [`split_command`] returns it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The command as written, without its redirections: assignments and words joined by one
    /// space.
    pub text: String,
    /// It sends output into a file: a `>`, `>>`, `&>` … redirection to anything but a device
    /// such as `/dev/null`.
    pub writes_file: bool,
}

/// A command line split into simple commands, or the construct that prevents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// The simple commands, in the order they run.
    Parts(Vec<Part>),
    /// The command uses this construct (`"command substitution"`, `"a subshell"`, `"a syntax
    /// error"` …), which hides commands or makes the parts depend on what runs.
    Complex(&'static str),
}

/// Splits a command line into the simple commands it runs, with tree-sitter-bash (see the
/// [crate docs](crate)). Never fails: what cannot be read is [`Split::Complex`].
///
/// ```
/// use agent_tools_shell_analysis::{split_command, Part, Split};
/// let split = split_command("git status && echo 'a; b' > out.txt");
/// assert_eq!(split, Split::Parts(vec![
///     Part { text: "git status".into(), writes_file: false },
///     Part { text: "echo 'a; b'".into(), writes_file: true },
/// ]));
/// assert_eq!(split_command("echo $(id)"), Split::Complex("command substitution"));
/// ```
pub fn split_command(command: &str) -> Split {
    let parsed = parse_command(command);
    if let Some(why) = parsed.complex {
        return Split::Complex(why);
    }
    Split::Parts(
        parsed
            .commands
            .iter()
            .map(|command| Part { text: command.text(), writes_file: writes_file(command) })
            .collect(),
    )
}

/// Whether a simple command sends output into a file: a `>`, `>>`, `&>` … redirection to
/// anything but a device such as `/dev/null`.
fn writes_file(command: &parse::SimpleCommand) -> bool {
    command.redirects.iter().any(|redirect| {
        matches!(redirect.op, RedirectOp::Write | RedirectOp::Append)
            && redirect.target.as_ref().is_none_or(|t| !(t.is_literal() && check::is_harmless_device(&t.value)))
    })
}

/// Whether the command may change the shell's working directory for the calls after it: it
/// runs `cd`, `pushd` or `popd` anywhere, or it cannot be read part by part. Such a command is
/// not run side by side with others even when it is read-only, so that the directory it ends
/// in carries over in the order of the calls (Claude Code's shell keeps the cwd globally).
///
/// ```
/// use agent_tools_shell_analysis::changes_working_directory;
/// assert!(changes_working_directory("cd src && ls"));
/// assert!(changes_working_directory("ls; pushd /tmp"));
/// assert!(!changes_working_directory("ls -la && git status"));
/// assert!(!changes_working_directory("echo cd"));
/// ```
pub fn changes_working_directory(command: &str) -> bool {
    let parsed = parse_command(command);
    parsed.complex.is_some()
        || parsed.commands.iter().any(|command| {
            command.words.first().is_some_and(|word| matches!(word.value.as_str(), "cd" | "pushd" | "popd"))
        })
}

/// The spellings of a command that `Bash(…)` rules of `behavior` are tested against (see the
/// [crate docs](crate)): the command trimmed, then for each simple command in it the forms the
/// rules of that behaviour see through.
///
/// ```
/// use agent_tools_core::PermissionBehavior;
/// use agent_tools_shell_analysis::candidates;
/// assert!(candidates("FOO=1 timeout 5 rm -rf /", PermissionBehavior::Deny).contains(&"rm -rf /".to_owned()));
/// assert!(!candidates("PATH=/tmp npm test", PermissionBehavior::Allow).contains(&"npm test".to_owned()));
/// ```
pub fn candidates(part: &str, behavior: PermissionBehavior) -> Vec<String> {
    let mut out = vec![part.trim().to_owned()];
    for command in parse_command(part).commands {
        for spelling in rules::spellings(&command, behavior) {
            if !out.contains(&spelling) {
                out.push(spelling);
            }
        }
    }
    out
}

/// The permission decision for a shell command under the `tool_name(…)` rules, the mode, and
/// the `Read(…)`/`Edit(…)` rules for its paths (see the [crate docs](crate) for the order).
///
/// Returns `Deny` (the message names the whole command), `Ask` (an ask rule or a safety check:
/// asked even in bypass mode), `Allow` (every part allowed; the reason lists each part's), or
/// `Passthrough` (needs approval, with suggested rules). Never panics, whatever the input.
pub fn check_shell_command(tool_name: &str, command: &str, ctx: &ToolUseContext) -> PermissionResult {
    check::check(tool_name, command, ctx)
}

/// Whether a command provably only reads, by Claude Code's read-only allow-list: every part is a
/// known command whose flags are all allow-listed (`git` only with read-only subcommands and
/// flags, `find` without `-exec`/`-delete`/`-fprint…`, `sed -n` with print commands only, `sort`
/// without `-o`, `xargs` only with a command that stays read-only whatever is appended…), with
/// no `$VAR` or unquoted glob in its words, no assignment, no redirection into a file, and no
/// `cd` together with `git`. A command too complex to check is not read-only.
///
/// With a context, every path the command reads must also be readable without asking (inside
/// the working directories, or allowed by a `Read(…)` rule, and not denied). Without one, paths
/// are not considered: `cat /etc/hosts` only reads.
///
/// Used for the Bash tool's `is_read_only` and `is_concurrency_safe`.
pub fn is_read_only_command(command: &str, ctx: Option<&ToolUseContext>) -> bool {
    check::read_only(command, ctx)
}

/// Whether a command may destroy data or do something that cannot be undone — conservative:
/// `true` whenever in doubt (a parse error, a command name computed when it runs, `eval "$x"`,
/// `source file`).
///
/// Destructive: `rm`, `rmdir`, `unlink`, `shred`, `truncate`, `mkfs*`, `wipefs`, `dd of=…`,
/// `mv` and `cp` (which overwrite) without `-n`, `ln -f`, `tee` without `-a`, `sed -i`, a `>`
/// redirection into a file, `find … -delete` or `-exec` of any of these, `xargs` with any of
/// these, `git reset --hard`, `git push --force`/`-f`/`--delete`/`+ref`, `git clean -f`,
/// `git checkout -- …`/`.`/`-f`, `git restore` (but not `--staged` alone), `git rm`,
/// `git branch -d/-D`, `git stash drop/clear`, `kill`/`pkill`, `docker rm`/`prune`,
/// `kubectl delete`, `terraform destroy`, `rsync --delete`, `crontab -r` — seen through
/// wrappers (`sudo`, `env`, `timeout` …) and inside `bash -c '…'`.
///
/// Used for the Bash tool's `is_destructive` (MCP's `destructiveHint` for a call).
pub fn is_destructive_command(command: &str) -> bool {
    check::destructive(command)
}

/// A matcher telling whether a `Bash(…)` rule pattern (`git push:*`, `rm *`, `npm test`) covers
/// any part of `command`, with the spellings deny rules see — Claude Code's
/// `preparePermissionMatcher` for hook conditions. The command is parsed once, here.
///
/// ```
/// use agent_tools_shell_analysis::shell_permission_matcher;
/// let matches = shell_permission_matcher("npm test && FOO=1 git push --force");
/// assert!(matches("git push:*"));
/// assert!(matches("npm test"));
/// assert!(!matches("rm:*"));
/// ```
pub fn shell_permission_matcher(command: &str) -> PermissionMatcher {
    let spellings = candidates(command, PermissionBehavior::Deny);
    Box::new(move |pattern: &str| {
        let pattern = ShellPattern::parse(pattern);
        spellings.iter().any(|spelling| pattern.matches(spelling))
    })
}

/// A matcher telling whether rule contents (`git diff:*`, `npm test`), together, cover *every*
/// part of `command` — what a sub-agent's tool restriction (`tools: Bash(git diff:*)` in its
/// definition) holds a call to. The command is parsed once, here.
///
/// Each simple command must be matched by one of the patterns under the spellings an *allow*
/// rule sees (as written, or without [`SAFE_ENV_VARS`] assignments and harmless wrappers such
/// as `timeout 30`), so a wrapper that could change what runs (`sudo`, `env`, `xargs`) is not
/// seen through. Stricter than an allow rule, the matcher also refuses a command with a part
/// that sends output into a file (`git diff > x`: the restriction names `git diff`, not writing
/// `x`), a command too complex to check part by part ([`Split::Complex`]: substitutions,
/// subshells, `bash -c`, …), an empty one, and one of more than [`MAX_PARTS`] parts.
///
/// ```
/// use agent_tools_shell_analysis::shell_restriction_matcher;
/// let allowed = ["git diff:*".to_owned(), "git log:*".to_owned()];
/// assert!(shell_restriction_matcher("git diff --stat && git log -1")(&allowed));
/// assert!(!shell_restriction_matcher("git diff; touch pwned")(&allowed));
/// assert!(!shell_restriction_matcher("git diff > out.patch")(&allowed));
/// assert!(!shell_restriction_matcher("git diff $(touch pwned)")(&allowed));
/// assert!(!shell_restriction_matcher("sudo git diff")(&allowed));
/// ```
pub fn shell_restriction_matcher(command: &str) -> agent_tools_core::RestrictionMatcher {
    let parsed = parse_command(command);
    let checkable = parsed.complex.is_none()
        && !parsed.opaque
        && !parsed.commands.is_empty()
        && parsed.commands.len() <= MAX_PARTS
        && parsed.commands.iter().all(|part| !part.nested && !writes_file(part));
    let parts: Vec<Vec<String>> = if checkable {
        parsed.commands.iter().map(|part| rules::spellings(part, PermissionBehavior::Allow)).collect()
    } else {
        Vec::new()
    };
    Box::new(move |contents: &[String]| {
        let patterns: Vec<ShellPattern> = contents.iter().map(|content| ShellPattern::parse(content)).collect();
        checkable
            && parts.iter().all(|spellings| {
                patterns.iter().any(|pattern| spellings.iter().any(|spelling| pattern.matches(spelling)))
            })
    })
}

#[cfg(test)]
mod tests;
