//! Which URLs WebFetch fetches, and how: Claude Code's URL checks (a parsable absolute URL of at
//! most 2,000 characters, no user name or password, a host name with a dot), its upgrade of
//! `http:` to `https:`, and its rule for which redirects may be followed without asking.
//!
//! Deliberate differences: loopback hosts (`localhost`, `127.0.0.0/8`, `[::1]`) are allowed and
//! fetched as given, over plain `http:` too, so local development servers can be read; and a
//! private-network IP address (`10/8`, `172.16/12`, `192.168/16`, IPv6 `fc00::/7`) keeps its
//! `http:`, since machines on a LAN rarely serve https (Claude Code upgrades every `http:`).

use std::net::{IpAddr, Ipv4Addr};

use url::{Host, Url};

/// Longest URL accepted, in characters (Claude Code's `MAX_URL_LENGTH`).
pub const MAX_URL_CHARS: usize = 2_000;

/// Why a URL is refused; the message tells the model what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Not an absolute URL.
    #[error(
        "Invalid URL \"{url}\": it could not be parsed ({reason}). Give a full URL with its scheme, such as https://example.com/page."
    )]
    Unparsable {
        /// The text given.
        url: String,
        /// The parser's reason.
        reason: String,
    },
    /// A scheme other than `http` or `https`.
    #[error("Invalid URL \"{url}\": only http:// and https:// URLs can be fetched, not {scheme}:.")]
    Scheme {
        /// The text given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// Longer than [`MAX_URL_CHARS`].
    #[error("Invalid URL: it is {chars} characters long; at most {MAX_URL_CHARS} are accepted.")]
    TooLong {
        /// Its length in characters.
        chars: usize,
    },
    /// A user name or password in the URL.
    #[error("Invalid URL \"{url}\": URLs with a user name or password are not fetched. Remove the credentials.")]
    Credentials {
        /// The URL with the credentials replaced by `***`.
        url: String,
    },
    /// A host name without a dot that is not a loopback host.
    #[error(
        "Invalid URL \"{url}\": the host name \"{host}\" has no dot. Use the full public host name (such as example.com); of the local hosts only localhost, 127.0.0.1 and [::1] can be fetched."
    )]
    SingleLabelHost {
        /// The text given.
        url: String,
        /// Its host.
        host: String,
    },
}

/// Whether `host` is this machine's loopback: `localhost` (or a name under `.localhost`),
/// `127.0.0.0/8`, `::1`, or an IPv4-mapped loopback address.
pub fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4: Ipv4Addr| IpAddr::V4(v4).is_loopback())
        }
    }
}

/// Whether `host` is an IP address of a private network (`10.0.0.0/8`, `172.16.0.0/12`,
/// `192.168.0.0/16`, IPv6 unique-local `fc00::/7`): such hosts keep a plain `http:`.
pub fn is_private_address(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(_) => false,
        Host::Ipv4(ip) => ip.is_private(),
        Host::Ipv6(ip) => {
            (ip.segments()[0] & 0xfe00) == 0xfc00 || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_private())
        }
    }
}

/// Whether the URL's host is loopback (see [`is_loopback`]).
pub fn url_is_loopback(url: &Url) -> bool {
    url.host().is_some_and(|host| is_loopback(&host))
}

/// Checks `text` and returns the URL to request: the parsed URL, upgraded from `http:` to
/// `https:` unless its host is loopback or a private-network address.
///
/// # Errors
/// [`UrlError`] for a URL Claude Code refuses (unparsable, too long, credentials, a host without
/// a dot) or a scheme other than http(s); loopback hosts are accepted.
pub fn check_url(text: &str) -> Result<Url, UrlError> {
    let chars = text.chars().count();
    if chars > MAX_URL_CHARS {
        return Err(UrlError::TooLong { chars });
    }
    // The URL is quoted back with its control characters escaped (a NUL the model sent must
    // not come back raw).
    let quoted = || agent_tools_core::quote::quote(text).into_owned();
    let mut url = Url::parse(text).map_err(|err| UrlError::Unparsable { url: quoted(), reason: err.to_string() })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(UrlError::Scheme { url: quoted(), scheme: url.scheme().to_owned() });
    }
    if !url.username().is_empty() || url.password().is_some() {
        let mut shown = url.clone();
        let _ = shown.set_username("***");
        let _ = shown.set_password(None);
        return Err(UrlError::Credentials { url: shown.to_string() });
    }
    let Some(host) = url.host() else {
        return Err(UrlError::Unparsable { url: quoted(), reason: "no host name".to_owned() });
    };
    let loopback = is_loopback(&host);
    if let Host::Domain(name) = host
        && !loopback
        && !name.trim_end_matches('.').contains('.')
    {
        return Err(UrlError::SingleLabelHost { url: quoted(), host: name.to_owned() });
    }
    if !loopback && !is_private_address(&host) && url.scheme() == "http" {
        // Upgrading the scheme of a special URL cannot fail; an explicit `:443`-style port stays.
        let _ = url.set_scheme("https");
    }
    Ok(url)
}

/// A host name with one leading `www.` removed.
fn without_www(host: &str) -> &str {
    host.strip_prefix("www.").unwrap_or(host)
}

/// Whether a redirect from `from` to `to` may be followed without asking (Claude Code's
/// `isPermittedRedirect`): same scheme, same port, no credentials, and the same host once a
/// leading `www.` is removed from both.
pub fn is_permitted_redirect(from: &Url, to: &Url) -> bool {
    from.scheme() == to.scheme()
        && from.port_or_known_default() == to.port_or_known_default()
        && to.username().is_empty()
        && to.password().is_none()
        && match (from.host_str(), to.host_str()) {
            (Some(a), Some(b)) => without_www(a).eq_ignore_ascii_case(without_www(b)),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn public_http_is_upgraded_and_loopback_is_kept() {
        assert_eq!(check_url("http://example.com/a?b").map(|u| u.to_string()), Ok("https://example.com/a?b".into()));
        assert_eq!(check_url("https://docs.rs/").map(|u| u.to_string()), Ok("https://docs.rs/".into()));
        assert_eq!(check_url("http://localhost:8080/x").map(|u| u.to_string()), Ok("http://localhost:8080/x".into()));
        assert_eq!(check_url("http://127.0.0.5/").map(|u| u.to_string()), Ok("http://127.0.0.5/".into()));
        assert_eq!(check_url("http://[::1]:9/").map(|u| u.to_string()), Ok("http://[::1]:9/".into()));
        // Private-network addresses keep http; public ones do not.
        for kept in ["http://10.0.0.1/", "http://172.20.1.2:8080/x", "http://192.168.1.10/", "http://[fd12::1]/"] {
            assert_eq!(check_url(kept).map(|u| u.to_string()), Ok(kept.into()));
        }
        for upgraded in ["http://172.32.0.1/", "http://8.8.8.8/", "http://[2001:db8::1]/", "http://192.0.2.1:81/"] {
            assert_eq!(check_url(upgraded).map(|u| u.scheme().to_owned()), Ok("https".into()), "{upgraded}");
        }
    }

    #[test]
    fn claude_codes_refusals() {
        assert!(matches!(check_url("not a url"), Err(UrlError::Unparsable { .. })));
        // A control character the model sent is quoted escaped, never raw.
        let text = check_url("a\u{0}b").unwrap_err().to_string();
        assert!(text.starts_with("Invalid URL \"a\\0b\""), "{text}");
        assert!(matches!(check_url("example.com/page"), Err(UrlError::Unparsable { .. })));
        assert!(matches!(check_url("ftp://example.com/"), Err(UrlError::Scheme { .. })));
        assert!(matches!(check_url("file:///etc/passwd"), Err(UrlError::Scheme { .. })));
        let long = format!("https://example.com/{}", "a".repeat(2_000));
        assert_eq!(check_url(&long), Err(UrlError::TooLong { chars: 2_020 }));
        let creds = check_url("https://user:secret@example.com/").unwrap_err();
        assert!(!creds.to_string().contains("secret"), "{creds}");
        assert!(matches!(creds, UrlError::Credentials { .. }));
        assert!(matches!(check_url("http://intranet/wiki"), Err(UrlError::SingleLabelHost { .. })));
    }

    #[test]
    fn redirects_within_the_host_are_permitted() {
        let from = url("https://example.com/docs");
        assert!(is_permitted_redirect(&from, &url("https://example.com/docs/")));
        assert!(is_permitted_redirect(&from, &url("https://www.example.com/x")));
        assert!(is_permitted_redirect(&url("https://www.example.com/"), &url("https://example.com/x")));
        assert!(is_permitted_redirect(&from, &url("https://example.com:443/x")));
        assert!(!is_permitted_redirect(&from, &url("http://example.com/docs")));
        assert!(!is_permitted_redirect(&from, &url("https://example.com:8443/docs")));
        assert!(!is_permitted_redirect(&from, &url("https://other.com/docs")));
        assert!(!is_permitted_redirect(&from, &url("https://docs.example.com/")));
        assert!(!is_permitted_redirect(&from, &url("https://u:p@example.com/")));
        assert!(!is_permitted_redirect(&url("http://localhost:1/a"), &url("http://127.0.0.1:1/a")));
    }
}
