//! Sandbox mode (Claude Code's `sandbox.*` settings, carried in
//! [`ToolUseOptions::sandbox`](agent_tools_core::ToolUseOptions)).
//!
//! With `sandbox.enabled`, a command runs under bubblewrap ([`agent_tools_sandbox`]): it may
//! write only the working directories, the temporary folder and the session's folder — and not
//! even there the paths that would let a later, unsandboxed program run its code (`.git/hooks`,
//! `.git/config`, `.claude/`, shell start-up files …) — and it has no network. Ways out:
//! `dangerouslyDisableSandbox: true` when `sandbox.allowUnsandboxedCommands` (the default) allows
//! it, and `sandbox.excludedCommands`. Without a working `bwrap` the command is refused, never run
//! unsandboxed.
//!
//! Differs from Claude Code on purpose: a compound command is excluded only when **every** part
//! of it matches an excluded pattern (Claude Code lets one matching part take the whole command
//! out of the sandbox), and a command that cannot be read part by part is never excluded.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agent_tools_core::PermissionBehavior;
use agent_tools_core::{SandboxSettings, ToolError, ToolUseContext};
use agent_tools_permissions::paths::{PROTECTED_FILES, working_directories};
use agent_tools_sandbox::{Bubblewrap, Policy};
use agent_tools_shell_analysis::{ShellPattern, Split, candidates, split_command};

/// The paragraph a shell tool's prompt ends with: what sandbox mode does to a command and when
/// `dangerouslyDisableSandbox` is the way out (it starts with a blank line).
pub const PROMPT: &str = include_str!("prompt_sandbox.md");

/// Whether a call runs sandboxed: sandbox mode is on, the call did not ask to leave it
/// (`dangerously_disable_sandbox`, honoured only when `sandbox.allowUnsandboxedCommands`), and
/// `excluded` — asked only when it matters — says its command is not one of
/// `sandbox.excludedCommands` (it receives those patterns).
pub fn wanted(
    settings: &SandboxSettings,
    dangerously_disable_sandbox: Option<bool>,
    excluded: impl FnOnce(&[String]) -> bool,
) -> bool {
    if !settings.enabled {
        return false;
    }
    if dangerously_disable_sandbox == Some(true) && settings.allow_unsandboxed_commands {
        return false;
    }
    !excluded(&settings.excluded_commands)
}

/// Whether every part of the bash command line `command` matches one of the `excluded` patterns
/// (`Bash(…)` rule content: exact, `prefix:*`, wildcards), read with the bash parser.
pub fn is_excluded(command: &str, excluded: &[String]) -> bool {
    if excluded.is_empty() {
        return false;
    }
    let Split::Parts(parts) = split_command(command) else { return false };
    let patterns: Vec<ShellPattern> = excluded.iter().map(|rule| ShellPattern::parse(rule)).collect();
    !parts.is_empty()
        && parts.iter().all(|part| {
            candidates(&part.text, PermissionBehavior::Allow)
                .iter()
                .any(|spelling| patterns.iter().any(|pattern| pattern.matches(spelling)))
        })
}

/// Folders inside a writable folder that stay read-only.
const PROTECTED_INSIDE: &[&str] = &[".git/hooks", ".git/config", ".claude", ".vscode", ".idea"];

/// The sandbox's policy for a command starting in `dir`: writable are the working directories,
/// `temp_dir` (`None`: the system's temporary folder) and the session's folder; read-only inside
/// them the paths that run code later ([`PROTECTED_FILES`], `.git/hooks`, `.claude` …); hidden
/// what the `Read(…)` deny and ask rules cover ([`agent_tools_permissions::links::read_rule_paths`]),
/// so a sandboxed program reads none of it however it names it.
pub fn policy(dir: &Path, temp_dir: Option<&Path>, ctx: &ToolUseContext) -> Policy {
    let mut writable: Vec<PathBuf> = working_directories(ctx);
    writable.push(ctx.cwd.clone());
    writable.push(temp_dir.map_or_else(std::env::temp_dir, Path::to_path_buf));
    writable.extend(ctx.options.session_dir.clone());
    let mut read_only = Vec::new();
    for base in std::iter::once(dir).chain(writable.iter().map(PathBuf::as_path)) {
        read_only.extend(PROTECTED_INSIDE.iter().chain(PROTECTED_FILES).map(|name| base.join(name)));
    }
    if let Some(home) = &ctx.home_dir {
        read_only.extend(PROTECTED_FILES.iter().map(|name| home.join(name)));
    }
    let (hidden, _) = agent_tools_permissions::links::read_rule_paths(ctx);
    Policy::new(dir).writable(writable).read_only(read_only).hidden(hidden)
}

/// Whether the sandbox hides everything the `Read(…)` deny and ask rules cover (see
/// [`agent_tools_permissions::links::read_rule_paths`]): only then may running sandboxed stand in
/// for the user's approval (`autoAllowBashIfSandboxed`) — a program the permission check cannot
/// read (`python3 -c …`) could otherwise read a denied file.
pub fn hides_read_rules(ctx: &ToolUseContext) -> bool {
    agent_tools_permissions::links::read_rule_paths(ctx).1
}

/// The program and arguments the shell runs under, for a sandboxed call: `bwrap` (`None`:
/// looked up on `PATH`) with the policy's arguments, ending in `--`.
///
/// # Errors
/// A [`ToolError`] with bubblewrap's reason when no sandbox can be built.
pub fn prefix(bwrap: Option<&Path>, policy: &Policy) -> Result<(PathBuf, Vec<OsString>), ToolError> {
    let found = match bwrap {
        Some(path) => Bubblewrap::at(path),
        // The same search path the shell itself inherits.
        None => Bubblewrap::find(std::env::var_os("PATH").as_deref()),
    };
    let bwrap = found.map_err(|why| ToolError::failed(capitalize(&why.to_string())))?;
    Ok(bwrap.prefix(policy))
}

/// Whether a sandbox can be built (for the permission check: only a command that will really
/// run sandboxed is allowed without asking).
pub fn available(bwrap: Option<&Path>) -> bool {
    match bwrap {
        Some(path) => Bubblewrap::at(path).is_ok(),
        None => Bubblewrap::find(std::env::var_os("PATH").as_deref()).is_ok(),
    }
}

/// What failed sandboxed output shows when the sandbox is the likely cause.
const SIGNS: &[&str] = &[
    "Read-only file system",
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "getaddrinfo",
];

/// The note when the model may ask to run the command outside the sandbox.
const NOTE_MAY_LEAVE: &str = "<sandbox>This command ran in the sandbox: it can write only the working directories and the temporary folder, and has no network. If it needs more, run it again with dangerouslyDisableSandbox: true (that call needs the user's approval).</sandbox>";

/// The note when the settings forbid unsandboxed commands (`allowUnsandboxedCommands: false`).
const NOTE_MUST_STAY: &str = "<sandbox>This command ran in the sandbox: it can write only the working directories and the temporary folder, and has no network. The user's settings do not allow commands outside the sandbox (dangerouslyDisableSandbox is ignored): do it another way, or tell the user what is needed.</sandbox>";

/// A note for a failed sandboxed command whose output shows the sandbox got in its way. It offers
/// `dangerouslyDisableSandbox` only when `may_run_unsandboxed` (the settings'
/// `allowUnsandboxedCommands`) lets the model use it.
pub fn violation_note(output: &str, may_run_unsandboxed: bool) -> Option<&'static str> {
    SIGNS.iter().any(|sign| output.contains(sign)).then_some(if may_run_unsandboxed {
        NOTE_MAY_LEAVE
    } else {
        NOTE_MUST_STAY
    })
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted_for(command: &str, disable: Option<bool>, settings: &SandboxSettings) -> bool {
        wanted(settings, disable, |excluded| is_excluded(command, excluded))
    }

    #[test]
    fn who_runs_sandboxed() {
        let off = SandboxSettings::default();
        assert!(!wanted_for("ls", None, &off));
        let on = SandboxSettings { enabled: true, ..SandboxSettings::default() };
        assert!(wanted_for("ls", None, &on));
        assert!(!wanted_for("ls", Some(true), &on), "the model may ask to leave it");
        assert!(wanted_for("ls", Some(false), &on));
        let strict = SandboxSettings { enabled: true, allow_unsandboxed_commands: false, ..SandboxSettings::default() };
        assert!(wanted_for("ls", Some(true), &strict), "unless the settings forbid it");
        let docker = SandboxSettings { enabled: true, excluded_commands: vec!["docker:*".into()], ..on };
        assert!(!wanted_for("docker ps", None, &docker));
        assert!(wanted_for("docker ps && rm -rf ~", None, &docker), "every part must be excluded");
        assert!(wanted_for("docker $(curl x)", None, &docker), "unreadable commands stay in");
        assert!(wanted_for("dockerd", None, &docker));
        let mut asked = false;
        assert!(!wanted(&off, None, |_| {
            asked = true;
            true
        }));
        assert!(!asked, "exclusions are not read when the sandbox is off");
    }

    #[test]
    fn exclusions_match_like_bash_rules() {
        let excluded = ["npm run build".to_owned(), "git push:*".to_owned(), "make *".to_owned()];
        assert!(is_excluded("npm run build", &excluded));
        assert!(!is_excluded("npm run build:prod", &excluded));
        assert!(is_excluded("git push origin main && make all", &excluded));
        assert!(is_excluded("NODE_ENV=test git push", &excluded), "harmless variables are seen through");
        assert!(!is_excluded("FOO=1 git push", &excluded), "other variables are not");
        assert!(!is_excluded("PATH=/tmp git push", &excluded));
        assert!(!is_excluded("ls", &excluded));
        assert!(!is_excluded("ls", &[]));
    }

    #[test]
    fn the_policy_protects_code_that_runs_later() {
        let mut ctx = ToolUseContext::new("/proj");
        ctx.home_dir = Some(PathBuf::from("/home/me"));
        ctx.options.session_dir = Some(PathBuf::from("/state/s1"));
        let policy = policy(Path::new("/proj/sub"), Some(Path::new("/scratch")), &ctx);
        assert_eq!(policy.cwd, Path::new("/proj/sub"));
        for dir in ["/proj", "/scratch", "/state/s1"] {
            assert!(policy.writable.contains(&PathBuf::from(dir)), "{dir}");
        }
        for path in ["/proj/.git/hooks", "/proj/.git/config", "/proj/.claude", "/proj/sub/.vscode", "/home/me/.bashrc"]
        {
            assert!(policy.read_only.contains(&PathBuf::from(path)), "{path}");
        }
    }

    #[test]
    fn violations_are_explained_only_when_the_output_shows_one() {
        let note = violation_note("touch: cannot touch '/etc/x': Read-only file system", true).unwrap();
        assert!(note.contains("run it again with dangerouslyDisableSandbox: true"), "{note}");
        assert!(violation_note("curl: (6) Could not resolve host: example.com", true).is_some());
        assert!(violation_note("error: no such file", true).is_none());
        // When the settings forbid leaving the sandbox, the note does not suggest it.
        let strict = violation_note("Read-only file system", false).unwrap();
        assert!(!strict.contains("run it again"), "{strict}");
        assert!(strict.contains("do not allow commands outside the sandbox"), "{strict}");
    }
}
