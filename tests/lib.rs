//! Cross-crate integration tests for agent-tools live in this package's test targets
//! (`turn.rs`, …); the library itself is empty.
