//! `--input-format stream-json`: the Claude Agent SDK's protocol on stdin and stdout.

use std::process::ExitCode;

use super::AgentArgs;
use crate::GlobalOptions;

/// Runs the stream-json session.
pub(crate) async fn run(_options: &GlobalOptions, _args: &AgentArgs) -> ExitCode {
    crate::report(format_args!("--input-format stream-json is not implemented yet"));
    ExitCode::from(1)
}
