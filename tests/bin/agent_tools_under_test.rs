//! The `agent-tools` program, built inside this package so its integration tests can start it as
//! a child process (`CARGO_BIN_EXE_agent-tools-under-test`) without depending on another
//! package's build.

fn main() -> std::process::ExitCode {
    agent_tools_cli::main()
}
