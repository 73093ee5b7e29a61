//! # agent-tools-mcp-oauth: OAuth 2.1 for remote MCP servers
//!
//! (Being written: the store, the flow and the authorized client follow.)
//!
//! ```
//! assert_eq!(1 + 1, 2);
//! ```
