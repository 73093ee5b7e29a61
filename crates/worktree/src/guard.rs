//! Git calls in a folder the user has not trusted: nothing the repository configures runs.
//!
//! A repository's own configuration (`.git/config`, and the files it includes) can name programs
//! that git runs by itself during ordinary commands: `core.fsmonitor` during `git status`,
//! hooks (`post-checkout` on `git worktree add`, `reference-transaction` on any branch change),
//! clean and smudge filters on checkout and status, diff and merge drivers, credential helpers,
//! an ssh command, a pager or an editor. A cloned or downloaded folder is a stranger's, so the git
//! commands agent-tools runs on its own (the environment snapshot's `git status`, EnterWorktree,
//! an isolated agent's worktree, LSP's `git check-ignore`) must not start any of them before the
//! user trusted the folder.
//!
//! Git has no switch that ignores the repository's configuration, but command-line `-c` settings
//! override it. [`guard_args`] turns the names the configuration sets (`git config --list
//! --name-only -z`, which runs nothing) into `-c` settings that switch each program off, plus a
//! fixed list ([`FIXED`]) for the settings with fixed names. Settings given with `-c` reach the
//! git processes git starts itself (through `GIT_CONFIG_PARAMETERS`), and submodules are not
//! entered. The keys follow git-config's documentation of every setting that names a program
//! (checked against `git help --config` of git 2.47).

use std::ffi::OsString;

/// Settings with fixed names that stop a repository's configuration from running programs, or
/// from making git run more than asked: each `key=value` goes to git as `-c key=value`.
pub const FIXED: &[&str] = &[
    // The file-system monitor hook runs on every status, diff and checkout.
    "core.fsmonitor=false",
    // Hooks: no folder holds them.
    "core.hooksPath=/dev/null",
    "core.sshCommand=ssh",
    "core.gitProxy=",
    "core.askPass=",
    "core.editor=:",
    "sequence.editor=:",
    "core.pager=cat",
    "core.alternateRefsCommand=",
    // An empty helper clears the list of credential helpers.
    "credential.helper=",
    "diff.external=",
    "interactive.diffFilter=",
    "gpg.program=",
    "gpg.ssh.defaultKeyCommand=",
    "log.showSignature=false",
    // No background garbage collection or maintenance (gc runs `gc.recentObjectsHook`).
    "gc.auto=0",
    "maintenance.auto=false",
    // Submodules have configurations of their own: stay out of them.
    "submodule.recurse=false",
    "diff.ignoreSubmodules=all",
    "protocol.ext.allow=never",
    // A bare repository planted inside the project is never picked up as ours.
    "safe.bareRepository=explicit",
];

/// The value that switches off a setting of this (lowercase) section and key, for settings
/// whose middle part is a name the repository chose (`filter.<driver>.smudge`), or `None` when
/// the setting runs nothing.
fn neutral(section: &str, key: &str) -> Option<&'static str> {
    Some(match (section, key) {
        ("filter", "clean" | "smudge" | "process") => "",
        ("filter", "required") => "false",
        ("diff", "command" | "textconv") => "",
        ("merge", "driver") => "",
        ("credential", "helper") => "",
        ("gpg", "program") => "",
        ("remote", "uploadpack" | "receivepack" | "vcs" | "proxy") => "",
        ("difftool" | "mergetool" | "browser" | "man" | "guitool", "cmd" | "path") => "",
        ("pager", _) => "false",
        // Configured hooks (`hook.<name>.command`, newer git).
        ("hook", "command") => "",
        _ => return None,
    })
}

/// Why a repository's configuration cannot be made safe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// A setting's name cannot be overridden on git's command line (it holds `=`).
    #[error(
        "the repository configures `{0}`, which cannot be switched off for this call; trust the folder to let git run as configured"
    )]
    Unoverridable(String),
}

/// The `-c` arguments (`["-c", "core.fsmonitor=false", …]`) that keep git from running what the
/// configuration names, given the NUL-separated names `git config --list --name-only -z`
/// printed (`listed`; duplicates are fine).
///
/// # Errors
/// [`GuardError::Unoverridable`] when a setting that names a program cannot be given on the
/// command line: the caller must not run git then.
///
/// ```
/// use agent_tools_worktree::guard::guard_args;
/// let args = guard_args(b"core.bare\0filter.lfs.smudge\0filter.LFS.required\0user.name\0").unwrap();
/// let settings: Vec<String> = args.iter().skip(1).step_by(2).map(|a| a.to_string_lossy().into_owned()).collect();
/// assert!(settings.contains(&"core.hooksPath=/dev/null".to_owned()));
/// assert!(settings.contains(&"filter.lfs.smudge=".to_owned()));
/// assert!(settings.contains(&"filter.LFS.required=false".to_owned()));
/// assert!(!settings.iter().any(|s| s.starts_with("user.")));
/// assert!(guard_args(b"diff.a=b.textconv\0").is_err());
/// ```
pub fn guard_args(listed: &[u8]) -> Result<Vec<OsString>, GuardError> {
    let mut settings: Vec<String> = FIXED.iter().map(|&setting| setting.to_owned()).collect();
    for name in listed.split(|byte| *byte == 0).filter(|name| !name.is_empty()) {
        let name = String::from_utf8_lossy(name);
        let name = name.trim();
        // `section.subsection.key`: the section and key are case-insensitive, the subsection is
        // not; a two-part name (`pager.log`) has the part after the dot as its key.
        let Some((section, rest)) = name.split_once('.') else { continue };
        let key = rest.rsplit_once('.').map_or(rest, |(_, key)| key);
        let (section, key) = (section.to_ascii_lowercase(), key.to_ascii_lowercase());
        let Some(value) = neutral(&section, &key) else { continue };
        if section != "pager" && !rest.contains('.') {
            // `diff.external`, `credential.helper` and the like are in the fixed list.
            continue;
        }
        if name.contains('=') || name.contains('\n') {
            return Err(GuardError::Unoverridable(name.to_owned()));
        }
        let setting = format!("{name}={value}");
        if !settings.contains(&setting) {
            settings.push(setting);
        }
    }
    Ok(settings.into_iter().flat_map(|setting| [OsString::from("-c"), OsString::from(setting)]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(listed: &[u8]) -> Vec<String> {
        guard_args(listed).unwrap().iter().skip(1).step_by(2).map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn every_program_setting_a_repository_names_is_switched_off() {
        let listed = b"core.fsmonitor\0filter.evil.clean\0filter.evil.process\0diff.bin.textconv\0diff.bin.command\0\
                       merge.ours.driver\0credential.https://example.com.helper\0gpg.ssh.program\0pager.log\0\
                       remote.origin.uploadpack\0hook.audit.command\0include.path\0diff.bin.binary\0core.editor\0";
        let got = settings(listed);
        for expected in [
            "filter.evil.clean=",
            "filter.evil.process=",
            "diff.bin.textconv=",
            "diff.bin.command=",
            "merge.ours.driver=",
            "credential.https://example.com.helper=",
            "gpg.ssh.program=",
            "pager.log=false",
            "remote.origin.uploadpack=",
            "hook.audit.command=",
        ] {
            assert!(got.contains(&expected.to_owned()), "{expected} in {got:?}");
        }
        assert_eq!(got.len(), FIXED.len() + 10, "{got:?}");
        assert!(!got.iter().any(|s| s.starts_with("diff.bin.binary") || s.starts_with("include.")));
        assert_eq!(settings(b""), FIXED);
        assert_eq!(guard_args(b"filter.a=b.smudge\0"), Err(GuardError::Unoverridable("filter.a=b.smudge".into())));
    }
}
