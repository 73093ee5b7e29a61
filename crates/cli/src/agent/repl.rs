//! The chat on a terminal.

use std::process::ExitCode;

use super::AgentArgs;
use crate::GlobalOptions;

/// Runs the chat.
pub(crate) async fn run(options: &GlobalOptions, args: &AgentArgs, first: Option<String>) -> ExitCode {
    match first {
        Some(prompt) => super::headless::run(options, args, &prompt).await,
        None => ExitCode::from(2),
    }
}
