//! SDK hook callbacks as command hooks.

use std::process::ExitCode;

/// `agent-tools hook-relay SOCKET ID`.
pub(crate) fn relay_main(_socket: &std::path::Path, _id: &str) -> ExitCode {
    ExitCode::from(1)
}
