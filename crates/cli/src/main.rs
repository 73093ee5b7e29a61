//! The `agent-tools` binary; everything is in the `agent_tools_cli` library.

fn main() -> std::process::ExitCode {
    agent_tools_cli::main()
}
