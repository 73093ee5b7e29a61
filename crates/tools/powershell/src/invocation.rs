//! How `pwsh` is started for a command: the flags, the fixed script, and how the command and
//! the working-directory file reach the script.
//!
//! The command never becomes part of any script text. It travels in the environment variable
//! [`COMMAND_VAR`] (and the file for the final directory in [`CWD_FILE_VAR`]); the script — the
//! same constant for every call — reads both, removes them from the environment so the programs
//! the command starts do not inherit them, and runs the command with `Invoke-Expression`. We chose
//! this over `-EncodedCommand` because an encoded command would still have to splice the command
//! into a script (inside a quoted string whose quotes must be doubled) and base64 of UTF-16 makes
//! it three times longer against the same argument-size limit; through a variable, no character
//! of the command is ever read as syntax of ours, and there is nothing to escape.

use std::ffi::OsString;
use std::path::Path;

use agent_tools_shell::Argv;

/// The flags `pwsh` gets before the script: no banner, no profile scripts (nothing of the user's
/// start-up runs, and aliases are PowerShell's own), no prompts (a command that would ask fails
/// instead of waiting), then `-Command`.
pub const FLAGS: &[&str] = &["-NoLogo", "-NoProfile", "-NonInteractive", "-Command"];

/// The environment variable carrying the command to the script.
pub const COMMAND_VAR: &str = "AGENT_TOOLS_PWSH_COMMAND";

/// The environment variable carrying the path of the file the script writes the final working
/// directory to (absent for background tasks, which do not report one).
pub const CWD_FILE_VAR: &str = "AGENT_TOOLS_PWSH_CWD_FILE";

/// The script `pwsh -Command` runs (see the module docs for how the command gets there).
///
/// - The command runs in the script's own scope through `Invoke-Expression`, so `Set-Location`
///   and `exit` work as typed.
/// - `finally` writes `(Get-Location).ProviderPath` — the file-system path of where the command
///   ended — to the cwd file however the command ends: success, an error, or `exit N` (which
///   unwinds through `finally`).
/// - The exit status: 1 when a terminating error stopped the command (the error is printed on
///   stderr); else the last native program's non-zero `$LASTEXITCODE`; else 1 when the command's
///   last statement reported failure (`$?`, as `pwsh -Command` itself does); else 0. An `exit N`
///   in the command ends `pwsh` with N directly.
/// - Progress bars are turned off: nobody sees them, and they would clutter the output.
pub const SCRIPT: &str = r#"$__agent_tools_command = $env:AGENT_TOOLS_PWSH_COMMAND
$__agent_tools_cwd_file = $env:AGENT_TOOLS_PWSH_CWD_FILE
Remove-Item -LiteralPath Env:AGENT_TOOLS_PWSH_COMMAND, Env:AGENT_TOOLS_PWSH_CWD_FILE -ErrorAction Ignore
$ProgressPreference = 'SilentlyContinue'
$global:LASTEXITCODE = 0
$__agent_tools_failed = $false
$__agent_tools_ok = $true
try {
    Invoke-Expression -Command $__agent_tools_command
    $__agent_tools_ok = $?
} catch {
    $__agent_tools_failed = $true
    [Console]::Error.WriteLine(($_ | Out-String).TrimEnd())
} finally {
    if ($__agent_tools_cwd_file) {
        try { [System.IO.File]::WriteAllText($__agent_tools_cwd_file, (Get-Location).ProviderPath) } catch { }
    }
}
if ($__agent_tools_failed) { exit 1 }
if ($global:LASTEXITCODE) { exit $global:LASTEXITCODE }
if (-not $__agent_tools_ok) { exit 1 }
exit 0"#;

/// The arguments after `pwsh`: [`FLAGS`] then [`SCRIPT`].
pub fn args() -> Vec<OsString> {
    FLAGS.iter().copied().chain([SCRIPT]).map(OsString::from).collect()
}

/// What runs a foreground command: `pwsh -NoLogo -NoProfile -NonInteractive -Command SCRIPT`,
/// with the command and the cwd file in the environment.
pub fn foreground(pwsh: &Path, command: &str, cwd_file: &Path) -> Argv {
    Argv { program: pwsh.to_path_buf(), args: args(), env: Vec::new() }
        .env(COMMAND_VAR, command)
        .env(CWD_FILE_VAR, cwd_file)
}

/// The environment a background command needs (its arguments are [`args`]): the command, and no
/// cwd file.
pub fn background_env(command: &str) -> Vec<(OsString, OsString)> {
    vec![(COMMAND_VAR.into(), command.into())]
}
