//! A shell command's output → `tool_result` text (Bash's and PowerShell's, which Claude Code
//! words alike). The exact strings live here.

use agent_tools_core::ToolResultBlock;
use serde::Serialize;

/// What a shell tool's call produced (the MCP `structuredContent`; field names as Claude Code's
/// Bash `Out` where they exist).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShellOutput {
    /// The command's stdout and stderr, merged in the order they were written, as shown to the
    /// model: blank lines at both ends and trailing whitespace removed, cut in the middle when
    /// too long.
    pub stdout: String,
    /// The tool's own notes, one per line (the timeout, a working-directory reset); empty when
    /// there are none.
    pub stderr: String,
    /// True when the command was stopped before it finished (its timeout ran out).
    pub interrupted: bool,
    /// The exit code: the shell's own, 128 + N for a shell killed by signal N, and 143 when the
    /// timeout stopped it (0 for a command started in the background).
    pub exit_code: i32,
    /// True when the result is an error: the exit code means failure for this command (see
    /// [`crate::Interpretation`]: for Bash, `grep` finding nothing is not a failure) or the
    /// command was stopped.
    pub failed: bool,
    /// What a non-zero exit code that is not a failure means ("No matches found", "Files differ"
    /// …), as Claude Code's `returnCodeInterpretation`; for transcripts, the model does not see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_code_interpretation: Option<String>,
    /// True when the timeout stopped the command.
    pub timed_out: bool,
    /// True when part of the output was left out to keep the result within its limit.
    pub truncated: bool,
    /// Size of the whole output in bytes (before any cut).
    pub output_bytes: u64,
    /// The working directory after the call (the session's working directory for the next one).
    pub cwd: String,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
    /// The id of the background task the command became (`run_in_background`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_task_id: Option<String>,
    /// The file a background command's output goes to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_output_file: Option<String>,
    /// Where the whole output was saved when only its head and tail are shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persisted_output_path: Option<String>,
    /// Size in bytes of the whole output saved at [`ShellOutput::persisted_output_path`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persisted_output_size: Option<u64>,
}

impl ShellOutput {
    /// True when the result is an error (`Exit code N`, `is_error: true`): see
    /// [`ShellOutput::failed`].
    pub fn is_error(&self) -> bool {
        self.failed
    }
}

/// The result text: `Exit code N` first for errors, then the output, then the notes, then the
/// background line, one part per line. Empty for a successful command that printed nothing (the
/// executor then writes `(Bash completed with no output)`, or the tool's own name).
pub fn render(output: &ShellOutput) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(4);
    if output.is_error() {
        parts.push(exit_code_line(output.exit_code));
    }
    if !output.stdout.is_empty() {
        parts.push(output.stdout.clone());
    }
    if !output.stderr.is_empty() {
        parts.push(output.stderr.clone());
    }
    if let (Some(id), Some(file)) = (&output.background_task_id, &output.background_output_file) {
        parts.push(running_in_background(id, file));
    }
    parts.join("\n")
}

/// The result of a command started with `run_in_background` (Claude Code's text, which models
/// know: they act on the id and the path).
pub fn running_in_background(task_id: &str, output_file: &str) -> String {
    format!(
        "Command running in background with ID: {task_id}. Output is being written to: {output_file}. \
         You will be notified when it completes. To check interim output, use Read on that file path."
    )
}

/// The error for a background command that could not be started.
pub fn background_failed(error: &str) -> String {
    format!("Could not start the command in the background: {error}")
}

/// The first line of an error result.
pub fn exit_code_line(code: i32) -> String {
    format!("Exit code {code}")
}

/// The exit code reported for a command stopped at its timeout (128 + SIGTERM).
pub const TIMEOUT_EXIT_CODE: i32 = 143;

/// The note for a command stopped at its timeout: `Command timed out after 1s`, `… 1.5s`.
pub fn timed_out(timeout_ms: u64) -> String {
    format!("Command timed out after {}", seconds(timeout_ms))
}

/// A duration in milliseconds as seconds without trailing zeros: `1s`, `1.5s`, `0.25s`.
pub fn seconds(ms: u64) -> String {
    let whole = ms / 1000;
    let millis = ms % 1000;
    if millis == 0 {
        return format!("{whole}s");
    }
    let fraction = format!("{millis:03}");
    format!("{whole}.{}s", fraction.trim_end_matches('0'))
}

/// The note for a call that started in the original directory because the working directory
/// had disappeared.
pub fn cwd_reset(original: &str) -> String {
    format!("Shell cwd was reset to {original}")
}

/// The marker put where output was left out: `\n\n... [N lines (M characters) truncated] ...\n\n`,
/// with `note` on its own lines after the bracket when given (where the whole output was saved:
/// a `<persisted-output>` block).
pub fn truncation_marker_with(lines: u64, chars: u64, note: Option<&str>) -> String {
    let note = note.map(|note| format!("\n{note}")).unwrap_or_default();
    format!(
        "\n\n... [{lines} {} ({chars} {}) truncated] ...{note}\n\n",
        if lines == 1 { "line" } else { "lines" },
        if chars == 1 { "character" } else { "characters" }
    )
}

/// The longest [`truncation_marker_with`] can be without a note (both counts at `u64::MAX`).
pub const MAX_MARKER_CHARS: usize = 100;

/// The first line of the `<persisted-output>` block when the whole output could not be saved.
pub fn not_saved(size: &str) -> String {
    format!("Output too large ({size}). It could not be saved, so only its start and end are shown.")
}

/// The `tool_result` block for an output: [`render`]'s text, an error block (`is_error: true`,
/// like Claude Code's thrown errors) for `Exit code N` results.
pub fn to_block(output: &ShellOutput, tool_use_id: &str) -> ToolResultBlock {
    let text = render(output);
    if output.is_error() { ToolResultBlock::error(tool_use_id, text) } else { ToolResultBlock::text(tool_use_id, text) }
}

/// The error for a shell that could not be started.
pub fn spawn_failed(shell: &str, error: &str) -> String {
    format!("Could not run {shell}: {error}")
}

/// The error for a call whose working directory and original directory are both gone.
pub fn no_working_directory(cwd: &str, original: &str) -> String {
    format!(
        "The working directory {cwd} no longer exists, and neither does the original directory {original}. \
         Nothing was run."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str, stderr: &str, exit_code: i32, interrupted: bool) -> ShellOutput {
        ShellOutput {
            stdout: stdout.into(),
            stderr: stderr.into(),
            interrupted,
            exit_code,
            failed: exit_code != 0 || interrupted,
            return_code_interpretation: None,
            timed_out: interrupted,
            truncated: false,
            output_bytes: 0,
            cwd: "/".into(),
            duration_ms: 0,
            background_task_id: None,
            background_output_file: None,
            persisted_output_path: None,
            persisted_output_size: None,
        }
    }

    #[test]
    fn renders_background_starts_and_answers_that_are_not_errors() {
        let mut started = output("", "", 0, false);
        started.background_task_id = Some("b1234abcd".into());
        started.background_output_file = Some("/s/tasks/b1234abcd.output".into());
        assert_eq!(
            render(&started),
            "Command running in background with ID: b1234abcd. Output is being written to: /s/tasks/b1234abcd.output. You will be notified when it completes. To check interim output, use Read on that file path."
        );
        let mut no_match = output("", "", 1, false);
        no_match.failed = false;
        assert_eq!(render(&no_match), "");
        assert_eq!(
            truncation_marker_with(2, 9, Some("<persisted-output>\nX\n</persisted-output>")),
            "\n\n... [2 lines (9 characters) truncated] ...\n<persisted-output>\nX\n</persisted-output>\n\n"
        );
    }

    #[test]
    fn renders_success_errors_and_notes() {
        assert_eq!(render(&output("hello world", "", 0, false)), "hello world");
        assert_eq!(render(&output("", "", 0, false)), "");
        assert_eq!(render(&output("partial", "", 3, false)), "Exit code 3\npartial");
        assert_eq!(render(&output("", "", 1, false)), "Exit code 1");
        assert_eq!(render(&output("/w", "Shell cwd was reset to /w", 0, false)), "/w\nShell cwd was reset to /w");
        assert_eq!(
            render(&output("before", &timed_out(1000), TIMEOUT_EXIT_CODE, true)),
            "Exit code 143\nbefore\nCommand timed out after 1s"
        );
        assert_eq!(
            render(&output("", &timed_out(1000), TIMEOUT_EXIT_CODE, true)),
            "Exit code 143\nCommand timed out after 1s"
        );
    }

    #[test]
    fn seconds_drop_trailing_zeros() {
        assert_eq!(seconds(1000), "1s");
        assert_eq!(seconds(1500), "1.5s");
        assert_eq!(seconds(250), "0.25s");
        assert_eq!(seconds(600_000), "600s");
        assert_eq!(seconds(1), "0.001s");
    }

    #[test]
    fn markers_count_lines_and_characters() {
        assert_eq!(truncation_marker_with(5, 20, None), "\n\n... [5 lines (20 characters) truncated] ...\n\n");
        assert_eq!(truncation_marker_with(1, 1, None), "\n\n... [1 line (1 character) truncated] ...\n\n");
        assert!(truncation_marker_with(u64::MAX, u64::MAX, None).chars().count() <= MAX_MARKER_CHARS);
    }
}
