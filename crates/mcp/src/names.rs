//! API names for server tools: `mcp__<server>__<tool>`, always within the Messages API's limit.
//!
//! Claude Code builds `mcp__<server>__<tool>` from the normalised names and sends it as it is, so
//! one long name made every request of the session fail (`tools.48.custom.name: String should
//! have at most 64 characters`, anthropics/claude-code#955). Here a name is what Claude
//! Code would send whenever that fits in [`MAX_TOOL_NAME_CHARS`] characters of `[a-zA-Z0-9_-]`;
//! only a name that does not fit is shortened, deterministically, with a short hash of the raw
//! names so that two long names with the same start stay apart:
//!
//! - the server part is kept whole when it is at most [`MAX_SERVER_PART_CHARS`] characters, and
//!   otherwise cut to 38 characters plus `_` and 8 hex digits of a hash of the raw server name.
//!   This depends on the server alone, so every tool of a server has the same `mcp__<server>__`
//!   prefix and a server rule (`mcp__<server>`, `mcp__<server>__*`) covers all of them;
//! - the tool part is then cut to what is left and ends with `_` and 8 hex digits of a hash of
//!   the raw server and tool names.
//!
//! Within one session the names are also unique ([`NameAllocator`]): a name already taken (two
//! raw names that normalise alike, such as `get data` and `get.data`) gets the hashed suffix, the
//! first one keeping the plain name, in configuration and listing order.
//!
//! Calls always go to the server's raw tool name; permission rules, hooks' matchers and
//! ToolSearch name a tool by the name listed here (what `agent-tools list` shows).

use std::collections::HashSet;

/// Longest tool name the Messages API accepts (its pattern is `^[a-zA-Z0-9_-]{1,64}$` for
/// custom tools).
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// Longest server part kept whole in a shortened name: with `mcp__`, `__` and the 10 characters
/// of a shortest tool part (one character, `_`, 8 hex digits) it still fits in 64.
pub const MAX_SERVER_PART_CHARS: usize = MAX_TOOL_NAME_CHARS - PREFIX.len() - SEPARATOR.len() - 1 - SUFFIX_CHARS;

const PREFIX: &str = "mcp__";
const SEPARATOR: &str = "__";
/// `_` and 8 hex digits.
const SUFFIX_CHARS: usize = 9;

/// A name part as Claude Code normalises it for API tool names: every character outside
/// `[a-zA-Z0-9_-]` becomes `_` (one `_` per character, so the result is ASCII).
///
/// ```
/// assert_eq!(agent_tools_mcp::normalize_name("my server.v2"), "my_server_v2");
/// ```
pub fn normalize_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The API name of a server's tool on its own (see the module docs): `mcp__<server>__<tool>`
/// with both parts normalised, shortened with a hash suffix only when it would pass
/// [`MAX_TOOL_NAME_CHARS`]. Always matches `^[a-zA-Z0-9_-]{1,64}$`. Unique across a session only
/// through [`NameAllocator`].
///
/// ```
/// use agent_tools_mcp::mcp_tool_name;
/// assert_eq!(mcp_tool_name("my.case server", "weird/name.v2"), "mcp__my_case_server__weird_name_v2");
/// let long = mcp_tool_name("my.case server", "synchronize_all_customer_records_across_every_region_now");
/// assert_eq!(long.len(), 64);
/// assert!(long.starts_with("mcp__my_case_server__synchronize_all_customer_records_a"));
/// ```
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    let server_part = normalize_name(server);
    let tool_part = normalize_name(tool);
    if PREFIX.len() + server_part.len() + SEPARATOR.len() + tool_part.len() <= MAX_TOOL_NAME_CHARS {
        return format!("{PREFIX}{server_part}{SEPARATOR}{tool_part}");
    }
    hashed_name(server, tool, 0)
}

/// The shortened form: whole (or hashed) server part, tool part cut to fit and ended with a hash
/// of the raw names and `salt` (0 for the first try).
fn hashed_name(server: &str, tool: &str, salt: u32) -> String {
    let server_part = server_part(server);
    let room = MAX_TOOL_NAME_CHARS - PREFIX.len() - server_part.len() - SEPARATOR.len() - SUFFIX_CHARS;
    let tool_part = normalize_name(tool);
    let kept = &tool_part[..tool_part.len().min(room)];
    let hash = short_hash(&[server.as_bytes(), tool.as_bytes()], salt);
    format!("{PREFIX}{server_part}{SEPARATOR}{kept}_{hash}")
}

/// The server part of every name of `server`: normalised, and when longer than
/// [`MAX_SERVER_PART_CHARS`], cut with a hash of the raw name.
fn server_part(server: &str) -> String {
    let part = normalize_name(server);
    if part.len() <= MAX_SERVER_PART_CHARS {
        return part;
    }
    format!("{}_{}", &part[..MAX_SERVER_PART_CHARS - SUFFIX_CHARS], short_hash(&[server.as_bytes()], 0))
}

/// 8 lowercase hex digits of a 64-bit FNV-1a hash of the parts (each followed by a 0 byte) and
/// the salt: fixed by the algorithm, so names do not change between builds or Rust versions.
fn short_hash(parts: &[&[u8]], salt: u32) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |byte: u8| {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for part in parts {
        part.iter().copied().for_each(&mut feed);
        feed(0);
    }
    if salt > 0 {
        salt.to_le_bytes().into_iter().for_each(&mut feed);
    }
    format!("{:08x}", (hash ^ (hash >> 32)) & 0xffff_ffff)
}

/// Hands out the API names of one session's tools: each [`mcp_tool_name`] unless it is taken, in
/// which case the hashed form, with the salt raised until the name is free. The same
/// configuration and listings always give the same names.
#[derive(Debug, Default)]
pub struct NameAllocator {
    taken: HashSet<String>,
}

impl NameAllocator {
    /// An allocator with nothing taken.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `name` as used (a name outside MCP, such as `ListMcpResourcesTool`).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// The name for `server`'s tool `tool`, now taken.
    pub fn allocate(&mut self, server: &str, tool: &str) -> String {
        let mut name = mcp_tool_name(server, tool);
        let mut salt = 0;
        while self.taken.contains(&name) {
            name = hashed_name(server, tool, salt);
            salt = salt.saturating_add(1);
            if salt == u32::MAX {
                break;
            }
        }
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        (1..=MAX_TOOL_NAME_CHARS).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }

    #[test]
    fn names_that_fit_are_claude_codes() {
        assert_eq!(mcp_tool_name("my.server", "get weather/now"), "mcp__my_server__get_weather_now");
        assert_eq!(mcp_tool_name("ok-name_1", "tool-2"), "mcp__ok-name_1__tool-2");
        assert_eq!(normalize_name("é"), "_");
        assert_eq!(mcp_tool_name("", ""), "mcp____");
        // Exactly 64 stays as it is.
        let tool = "t".repeat(64 - "mcp__s__".len());
        assert_eq!(mcp_tool_name("s", &tool), format!("mcp__s__{tool}"));
    }

    /// The 56-character tool of `my.case server` is 77
    /// characters once prefixed.
    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let tool = "synchronize_all_customer_records_across_every_region_now";
        let name = mcp_tool_name("my.case server", tool);
        assert_eq!(name, "mcp__my_case_server__synchronize_all_customer_records_a_7515e5ef");
        assert!(valid(&name));
        assert_eq!(mcp_tool_name("my.case server", tool), name, "deterministic");
        // One character more is another hash, not the same cut name.
        let other = mcp_tool_name("my.case server", &format!("{tool}!"));
        assert_ne!(other, name);
        assert_eq!(other.len(), 64);
    }

    #[test]
    fn long_server_names_share_one_prefix() {
        let server = format!("{}.internal", "very-long-server-name".repeat(4));
        let a = mcp_tool_name(&server, "a");
        let b = mcp_tool_name(&server, &"b".repeat(80));
        let prefix = |name: &str| name[..name.rfind("__").unwrap_or(0)].to_owned();
        assert_eq!(prefix(&a), prefix(&b));
        assert_eq!(prefix(&a).len(), PREFIX.len() + MAX_SERVER_PART_CHARS);
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert!(a.starts_with("mcp__very-long-server-name") && a.contains("__a_"), "{a}");
    }

    #[test]
    fn every_name_is_valid_whatever_the_input() {
        for server in ["", "s", "日本語のサーバー", &"x".repeat(300), "a b/c.d"] {
            for tool in ["", "t", "ツール", &"y".repeat(300), "weird/name.v2", "get data"] {
                let name = mcp_tool_name(server, tool);
                assert!(valid(&name), "{server:?} {tool:?} -> {name}");
            }
        }
    }

    #[test]
    fn collisions_get_a_deterministic_suffix() {
        let mut names = NameAllocator::new();
        assert_eq!(names.allocate("srv", "get data"), "mcp__srv__get_data");
        let second = names.allocate("srv", "get.data");
        assert_eq!(second, "mcp__srv__get_data_88142a71");
        // Two servers whose names normalise alike.
        assert_eq!(names.allocate("a.b", "x"), "mcp__a_b__x");
        let other = names.allocate("a b", "x");
        assert!(other.starts_with("mcp__a_b__x_") && other.len() == "mcp__a_b__x_".len() + 8, "{other}");
        // The same order gives the same names.
        let mut again = NameAllocator::new();
        assert_eq!(again.allocate("srv", "get data"), "mcp__srv__get_data");
        assert_eq!(again.allocate("srv", "get.data"), second);
        // A reserved name is never handed out.
        let mut reserved = NameAllocator::new();
        reserved.reserve("mcp__s__t");
        assert_ne!(reserved.allocate("s", "t"), "mcp__s__t");
    }

    #[test]
    fn a_hash_collision_moves_on_to_the_next_salt() {
        let mut names = NameAllocator::new();
        let tool = "z".repeat(100);
        let first = names.allocate("s", &tool);
        // Take what the next salts would give, so the allocator has to go further.
        names.reserve(&hashed_name("s", &tool, 0));
        names.reserve(&hashed_name("s", &tool, 1));
        let next = names.allocate("s", &tool);
        assert_ne!(next, first);
        assert_eq!(next, hashed_name("s", &tool, 2));
        assert!(valid(&next));
    }
}
