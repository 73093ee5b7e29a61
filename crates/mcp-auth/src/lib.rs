//! # agent-tools-mcp-auth: the McpAuth pseudo-tool
//!
//! (Being written.)
//!
//! ```
//! assert_eq!(1 + 1, 2);
//! ```
