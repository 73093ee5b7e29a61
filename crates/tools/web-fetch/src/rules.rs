//! `WebFetch(domain:…)` rules.
//!
//! These rules live in the WebFetch crate because WebFetch is their only user (the host's
//! executor sees only the [`PermissionResult`] they give). Here they cost no crate of their
//! own and the tool needs no permission crate at all: a separate `agent-tools-web-rules` crate
//! would add a node to the graph for 300 lines, and keeping them in `agent-tools-permissions`
//! made WebFetch compile the path and shell checks it never calls.
//!
//! Mirrors Claude Code's WebFetch `checkPermissions`: the URL is reduced to the key
//! `domain:<hostname>` and looked up **by exact string** in the deny, then ask, then allow rules
//! of the tool (no wildcards, no sub-domain matching: a rule for `example.com` does not cover
//! `docs.example.com`); a URL on a pre-approved host is allowed. Anything else asks, offering
//! the rule `WebFetch(domain:<hostname>)` for `.claude/settings.local.json`.
//!
//! One deliberate difference: Claude Code consults its pre-approved hosts before the rules, so a
//! user's `WebFetch(domain:github.com)` deny rule does not stop a fetch from a pre-approved
//! `github.com/…` path. Here deny and ask rules come first: the user's rules always win.

use agent_tools_core::ToolUseContext;
use agent_tools_core::quote::quote;
use agent_tools_core::{
    PermissionBehavior, PermissionDecisionReason, PermissionResult, PermissionRule, PermissionRuleValue,
    PermissionUpdate, PermissionUpdateDestination,
};
use url::Url;

/// Why a URL has no rule key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlKeyError {
    /// The text is not an absolute URL.
    #[error("Invalid URL: {url} could not be parsed ({reason})")]
    Unparsable {
        /// The text given.
        url: String,
        /// The parser's reason.
        reason: String,
    },
    /// The URL has no host (`file:///x`, `mailto:a@b`).
    #[error("Invalid URL: {url} has no host name")]
    NoHost {
        /// The text given.
        url: String,
    },
}

/// The parsed URL and its rule key `domain:<hostname>` (lower case, as the URL parser leaves it;
/// international names in their `xn--` form, IPv6 addresses in brackets).
///
/// # Errors
/// [`UrlKeyError`] when `url` is not an absolute URL with a host.
pub fn domain_rule_key(url: &str) -> Result<(Url, String), UrlKeyError> {
    let parsed =
        Url::parse(url).map_err(|err| UrlKeyError::Unparsable { url: url.to_owned(), reason: err.to_string() })?;
    let host = match parsed.host_str() {
        Some(host) if !host.is_empty() => host.to_owned(),
        _ => return Err(UrlKeyError::NoHost { url: url.to_owned() }),
    };
    Ok((parsed, format!("domain:{host}")))
}

/// Hosts a fetch may reach without asking: `host` entries match the host exactly, and
/// `host/path` entries match that host when the URL's path is the prefix or continues it at a
/// `/` (so `github.com/anthropics` covers `/anthropics/x` but not `/anthropics-fork`).
///
/// Claude Code ships a list of documentation sites here; the WebFetch tool supplies ours. Empty by
/// default: nothing is pre-approved.
#[derive(Debug, Clone, Default)]
pub struct PreapprovedHosts {
    entries: Vec<(String, Option<String>)>,
}

impl PreapprovedHosts {
    /// A list from `host` or `host/path/prefix` entries (host compared case-insensitively).
    pub fn new<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let entries = entries
            .into_iter()
            .map(|entry| {
                let entry = entry.as_ref();
                match entry.split_once('/') {
                    Some((host, path)) => (host.to_ascii_lowercase(), Some(format!("/{}", path.trim_end_matches('/')))),
                    None => (entry.to_ascii_lowercase(), None),
                }
            })
            .collect();
        Self { entries }
    }

    /// Whether `url` is on a pre-approved host (and path).
    pub fn covers(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else { return false };
        let path = url.path();
        self.entries.iter().any(|(entry_host, prefix)| {
            entry_host == host
                && prefix.as_deref().is_none_or(|prefix| {
                    path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                })
        })
    }
}

/// The `WebFetch(domain:…)` rule of `behavior` with exactly this key, if any.
fn domain_rule(
    tool_name: &str,
    key: &str,
    behavior: PermissionBehavior,
    ctx: &ToolUseContext,
) -> Option<PermissionRule> {
    ctx.permission_context
        .content_rules(tool_name, behavior)
        .find(|rule| rule.rule_value.rule_content.as_deref() == Some(key))
}

/// May `tool_name` (normally `WebFetch`) fetch `url`? Deny rules, ask rules, pre-approved hosts,
/// allow rules (keyed `domain:<hostname>`); anything else asks with a rule suggestion.
///
/// A URL that cannot be parsed is denied here (the tool's `validate_input` reports it first).
pub fn check_web_fetch_permission(
    tool_name: &str,
    url: &str,
    preapproved: &PreapprovedHosts,
    ctx: &ToolUseContext,
) -> PermissionResult {
    let (parsed, key) = match domain_rule_key(url) {
        Ok(found) => found,
        Err(err) => {
            return PermissionResult::Deny {
                message: err.to_string(),
                decision_reason: PermissionDecisionReason::Other { reason: err.to_string() },
            };
        }
    };
    if let Some(rule) = domain_rule(tool_name, &key, PermissionBehavior::Deny, ctx) {
        return PermissionResult::Deny {
            message: fetch_denied(tool_name, &key),
            decision_reason: PermissionDecisionReason::Rule { rule },
        };
    }
    let suggestion = PermissionUpdate::AddRules {
        destination: PermissionUpdateDestination::LocalSettings,
        rules: vec![PermissionRuleValue { tool_name: tool_name.to_owned(), rule_content: Some(key.clone()) }],
        behavior: PermissionBehavior::Allow,
    };
    if let Some(rule) = domain_rule(tool_name, &key, PermissionBehavior::Ask, ctx) {
        return PermissionResult::Ask {
            message: fetch_needs_approval(tool_name, &key),
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
            suggestions: vec![suggestion],
            blocked_path: None,
        };
    }
    if preapproved.covers(&parsed) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Other { reason: "Preapproved host".to_owned() }),
        };
    }
    if let Some(rule) = domain_rule(tool_name, &key, PermissionBehavior::Allow, ctx) {
        return PermissionResult::Allow {
            updated_input: None,
            decision_reason: Some(PermissionDecisionReason::Rule { rule }),
        };
    }
    PermissionResult::Ask {
        message: fetch_needs_approval(tool_name, &key),
        updated_input: None,
        decision_reason: None,
        suggestions: vec![suggestion],
        blocked_path: None,
    }
}

/// A fetch refused by a `WebFetch(domain:…)` deny rule.
fn fetch_denied(tool_name: &str, key: &str) -> String {
    let key = quote(key);
    format!("Permission to use {tool_name} with {key} has been denied by your permission settings.")
}

/// A fetch that needs approval.
fn fetch_needs_approval(tool_name: &str, key: &str) -> String {
    let key = quote(key);
    format!("Claude requested permissions to use {tool_name} on {key}, but you haven't granted it yet.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_tools_core::{PermissionRuleSource, ToolPermissionContext};
    use std::sync::Arc;

    fn ctx(rules: &[(PermissionBehavior, &str)]) -> ToolUseContext {
        let mut permissions = ToolPermissionContext::default();
        for (behavior, rule) in rules {
            permissions = permissions.with_rule(*behavior, PermissionRuleSource::LocalSettings, *rule);
        }
        let mut ctx = ToolUseContext::new("/proj");
        ctx.permission_context = Arc::new(permissions);
        ctx
    }

    fn decide(url: &str, rules: &[(PermissionBehavior, &str)]) -> PermissionResult {
        check_web_fetch_permission("WebFetch", url, &PreapprovedHosts::default(), &ctx(rules))
    }

    #[test]
    fn the_key_is_the_lower_case_host_name() {
        assert_eq!(domain_rule_key("https://Example.COM/a?b#c").unwrap().1, "domain:example.com");
        assert_eq!(domain_rule_key("http://example.com:8080/").unwrap().1, "domain:example.com");
        assert_eq!(domain_rule_key("https://user:pw@docs.rs/x").unwrap().1, "domain:docs.rs");
        assert_eq!(domain_rule_key("https://bücher.de/").unwrap().1, "domain:xn--bcher-kva.de");
        assert_eq!(domain_rule_key("http://[::1]/").unwrap().1, "domain:[::1]");
        assert!(matches!(domain_rule_key("not a url"), Err(UrlKeyError::Unparsable { .. })));
        assert!(matches!(domain_rule_key("example.com/page"), Err(UrlKeyError::Unparsable { .. })));
        assert!(matches!(domain_rule_key("mailto:a@example.com"), Err(UrlKeyError::NoHost { .. })));
    }

    #[test]
    fn rules_match_the_exact_host_only() {
        let allow = [(PermissionBehavior::Allow, "WebFetch(domain:example.com)")];
        assert_eq!(decide("https://example.com/docs", &allow).behavior(), "allow");
        assert_eq!(decide("https://docs.example.com/", &allow).behavior(), "ask", "no sub-domain matching");
        assert_eq!(decide("https://example.com.evil.net/", &allow).behavior(), "ask");
        assert_eq!(decide("https://notexample.com/", &allow).behavior(), "ask");
        let wildcard = [(PermissionBehavior::Allow, "WebFetch(domain:*.example.com)")];
        assert_eq!(decide("https://docs.example.com/", &wildcard).behavior(), "ask", "no wildcards");
        let other_tool = [(PermissionBehavior::Allow, "Bash(domain:example.com)")];
        assert_eq!(decide("https://example.com/", &other_tool).behavior(), "ask");
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let all = [
            (PermissionBehavior::Allow, "WebFetch(domain:example.com)"),
            (PermissionBehavior::Ask, "WebFetch(domain:example.com)"),
            (PermissionBehavior::Deny, "WebFetch(domain:example.com)"),
        ];
        let denied = decide("https://example.com/", &all);
        assert_eq!(
            denied.message(),
            Some("Permission to use WebFetch with domain:example.com has been denied by your permission settings.")
        );
        assert_eq!(denied.behavior(), "deny");
        let asked = decide("https://example.com/", &all[..2]);
        assert_eq!(asked.behavior(), "ask");
        let PermissionResult::Ask { decision_reason: Some(PermissionDecisionReason::Rule { rule }), .. } = asked else {
            panic!("an ask rule decides: {asked:?}")
        };
        assert_eq!(rule.rule_behavior, PermissionBehavior::Ask);
    }

    #[test]
    fn an_unknown_host_asks_and_offers_a_local_rule() {
        let result = decide("https://crates.io/crates/url", &[]);
        let PermissionResult::Ask { message, suggestions, decision_reason: None, .. } = result else {
            panic!("expected a plain ask: {result:?}")
        };
        assert_eq!(
            message,
            "Claude requested permissions to use WebFetch on domain:crates.io, but you haven't granted it yet."
        );
        assert_eq!(
            suggestions,
            vec![PermissionUpdate::AddRules {
                destination: PermissionUpdateDestination::LocalSettings,
                rules: vec![PermissionRuleValue::parse("WebFetch(domain:crates.io)")],
                behavior: PermissionBehavior::Allow,
            }]
        );
        assert_eq!(decide("::", &[]).behavior(), "deny", "an unparsable URL is never fetched");
    }

    #[test]
    fn preapproved_hosts_match_host_and_path_at_a_segment_boundary() {
        let hosts = PreapprovedHosts::new(["doc.rust-lang.org", "github.com/anthropics"]);
        let covers = |url: &str| hosts.covers(&Url::parse(url).unwrap());
        assert!(covers("https://doc.rust-lang.org/std/"));
        assert!(covers("https://DOC.rust-lang.org/"));
        assert!(!covers("https://evil.doc.rust-lang.org/"));
        assert!(covers("https://github.com/anthropics"));
        assert!(covers("https://github.com/anthropics/claude-code/issues"));
        assert!(!covers("https://github.com/anthropics-fork/x"));
        assert!(!covers("https://github.com/other"));
        let fetch = |url: &str, rules: &[(PermissionBehavior, &str)]| {
            check_web_fetch_permission("WebFetch", url, &hosts, &ctx(rules)).behavior()
        };
        assert_eq!(fetch("https://github.com/anthropics/x", &[]), "allow");
        assert_eq!(fetch("https://github.com/someone/x", &[]), "ask");
        let deny = [(PermissionBehavior::Deny, "WebFetch(domain:github.com)")];
        assert_eq!(fetch("https://github.com/anthropics/x", &deny), "deny", "the user's deny rule wins");
        let ask = [(PermissionBehavior::Ask, "WebFetch(domain:doc.rust-lang.org)")];
        assert_eq!(fetch("https://doc.rust-lang.org/std/", &ask), "ask", "the user's ask rule wins");
    }
}
