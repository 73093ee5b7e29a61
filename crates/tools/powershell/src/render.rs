//! PowerShell's own strings. The result text itself is the shared shell text
//! ([`agent_tools_shell::render`]): the output, `Exit code N` first for failures, the notes.

/// The error for a call when no `pwsh` was found (the host leaves the tool out then, so only a
/// tool built by hand with no program sees it).
pub const NOT_INSTALLED: &str = "PowerShell is not available: no pwsh program was found, so the command was not run. Install PowerShell 7 (pwsh), or use Bash.";

/// Why a removal always asks (the safety check's reason).
pub fn removal_reason(path: &str) -> String {
    format!("removing {path} is always confirmed")
}

/// Why a path of a read-only cmdlet cannot be checked before it runs.
pub fn unknown_read_path(command: &str, path: &str) -> String {
    format!(
        "The command `{command}` needs approval: the path `{path}` is a wildcard or a provider path (such as Env: or Variable:), so what it reads is only known when it runs."
    )
}
