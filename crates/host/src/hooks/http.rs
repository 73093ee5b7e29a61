//! HTTP hooks: the settings' limits on them, the request and the answer (see the parent
//! module's docs).

use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use super::{CommandHook, HookRun, Hooks, MAX_OUTPUT_BYTES, timeout_secs};

/// The settings' limits on HTTP hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpPolicy {
    /// `allowedHttpHookUrls`: URL patterns (`*` matches any run of characters) an HTTP hook's
    /// URL must match; `None`: any URL (Claude Code's rule when no settings file sets it).
    pub allowed_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: the variables any hook's headers may use; `None`: those of
    /// the hook's own `allowedEnvVars`.
    pub allowed_env_vars: Option<Vec<String>>,
}

impl HttpPolicy {
    /// Whether an HTTP hook may POST to `url`.
    ///
    /// # Errors
    /// Why not, in words.
    pub fn check_url(&self, url: &str) -> Result<reqwest::Url, String> {
        let parsed = reqwest::Url::parse(url).map_err(|error| format!("the URL {url:?} is not valid: {error}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("the URL {url:?} is not http or https"));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!("the URL {url:?} carries credentials, which HTTP hooks may not"));
        }
        match &self.allowed_urls {
            None => Ok(parsed),
            Some(patterns) if patterns.iter().any(|pattern| url_matches(pattern, url)) => Ok(parsed),
            Some(_) => Err(format!("the URL {url:?} matches no pattern of the settings' allowedHttpHookUrls")),
        }
    }

    /// The variables a hook's headers may use: its `allowedEnvVars`, cut down to the settings'
    /// `httpHookAllowedEnvVars` when set.
    pub fn env_vars<'a>(&self, hook: &'a CommandHook) -> Vec<&'a str> {
        hook.allowed_env_vars
            .iter()
            .filter(|name| self.allowed_env_vars.as_ref().is_none_or(|allowed| allowed.contains(name)))
            .map(String::as_str)
            .collect()
    }
}

/// Whether `url` matches an `allowedHttpHookUrls` pattern: the whole URL, `*` matching any run
/// of characters (none included), everything else literally.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let pattern = pattern.trim();
    let expression = pattern.split('*').map(regex::escape).collect::<Vec<_>>().join(".*");
    Regex::new(&format!("^{expression}$")).is_ok_and(|regex| regex.is_match(url))
}

/// A header value with its `$NAME` and `${NAME}` filled in: the value of the variable for a
/// name of `allowed` (empty when unset), an empty string for any other name.
pub fn expand_header(value: &str, allowed: &[&str], lookup: impl Fn(&str) -> Option<String>) -> String {
    static REFERENCE: std::sync::LazyLock<Option<Regex>> =
        std::sync::LazyLock::new(|| Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)").ok());
    let Some(reference) = REFERENCE.as_ref() else { return value.to_owned() };
    reference
        .replace_all(value, |captures: &regex::Captures<'_>| {
            let name = captures.get(1).or_else(|| captures.get(2)).map_or("", |name| name.as_str());
            if allowed.contains(&name) { lookup(name).unwrap_or_default() } else { String::new() }
        })
        .into_owned()
}

impl Hooks {
    /// POSTs `input` to an HTTP hook's URL (see the module docs).
    pub(super) async fn run_http(&self, hook: &CommandHook, input: &Value) -> HookRun {
        let url = hook.url.as_deref().unwrap_or_default().trim();
        let failed = |why: String| {
            tracing::warn!(url, %why, "HTTP hook not run or failed");
            HookRun { status: Some(1), exit_code: None, stdout: String::new(), stderr: why, timed_out: false }
        };
        let parsed = match self.http.check_url(url) {
            Ok(parsed) => parsed,
            Err(why) => return failed(format!("HTTP hook refused: {why}")),
        };
        let headers = match self.headers(hook) {
            Ok(headers) => headers,
            Err(why) => return failed(format!("HTTP hook not run: {why}")),
        };
        let client = match http_client(&parsed) {
            Ok(client) => client,
            Err(why) => return failed(why),
        };
        let seconds = timeout_secs(hook);
        let request = client
            .post(parsed)
            .headers(headers)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(input.to_string());
        let exchange = async {
            let mut response = request.send().await.map_err(|error| format!("the request failed: {error}"))?;
            let status = response.status();
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|error| format!("the answer broke off: {error}"))? {
                let room = MAX_OUTPUT_BYTES.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if body.len() >= MAX_OUTPUT_BYTES {
                    break;
                }
            }
            Ok::<_, String>((status, String::from_utf8_lossy(&body).into_owned()))
        };
        match tokio::time::timeout(Duration::from_secs_f64(seconds), exchange).await {
            Err(_) => {
                tracing::warn!(url, seconds, "HTTP hook timed out");
                HookRun {
                    status: None,
                    exit_code: None,
                    stdout: String::new(),
                    stderr: format!("no answer within {seconds} s"),
                    timed_out: true,
                }
            }
            Ok(Err(why)) => failed(why),
            Ok(Ok((status, body))) if status.is_success() => {
                HookRun { status: Some(0), exit_code: None, stdout: body, stderr: String::new(), timed_out: false }
            }
            Ok(Ok((status, body))) => {
                let mut run = failed(format!("the hook answered HTTP {status}"));
                run.stdout = body;
                run
            }
        }
    }

    /// An HTTP hook's headers, their variables filled in.
    fn headers(&self, hook: &CommandHook) -> Result<reqwest::header::HeaderMap, String> {
        let allowed = self.http.env_vars(hook);
        let mut map = reqwest::header::HeaderMap::new();
        for (key, value) in &hook.headers {
            let value = expand_header(value, &allowed, |name| std::env::var(name).ok());
            let name = reqwest::header::HeaderName::from_bytes(key.as_bytes())
                .map_err(|_| format!("the header name {key:?} is not valid"))?;
            let value = reqwest::header::HeaderValue::from_str(&value)
                .map_err(|_| format!("the value of header {key:?} is not valid"))?;
            map.insert(name, value);
        }
        Ok(map)
    }
}

/// Whether an HTTP hook may not reach `ip` (Claude Code's SSRF guard for HTTP hooks): the
/// private, shared, link-local and unspecified ranges — `0.0.0.0/8`, `10.0.0.0/8`,
/// `100.64.0.0/10`, `169.254.0.0/16` (cloud metadata), `172.16.0.0/12`, `192.168.0.0/16`, `::`,
/// `fc00::/7`, `fe80::/10`, and an IPv4-mapped IPv6 address in one of them. Loopback stays
/// allowed (a local policy server is what HTTP hooks are most used for), and so is every other
/// address.
pub fn blocked_address(ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            a == 0
                || a == 10
                || (a == 100 && (64..128).contains(&b))
                || (a == 169 && b == 254)
                || (a == 172 && (16..32).contains(&b))
                || (a == 192 && b == 168)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return blocked_address(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_unspecified() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
        }
    }
}

/// Resolves an HTTP hook's host and refuses it when an address it has is one hooks may not
/// reach ([`blocked_address`]); the connection then goes to the addresses checked.
struct GuardedResolver;

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addresses: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addresses.iter().find(|address| blocked_address(address.ip())) {
                let why = format!("{host} resolves to {}, an address HTTP hooks may not reach", bad.ip());
                return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, why).into());
            }
            Ok(Box::new(addresses.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// A reqwest client for one HTTP hook: rustls with ring, no redirects, host names resolved
/// through the address guard ([`GuardedResolver`]), no proxy for a loopback host (through a
/// proxy it is the proxy that resolves, as in Claude Code).
///
/// # Errors
/// A URL whose host is an address hooks may not reach, or a client that cannot be made.
pub(super) fn http_client(url: &reqwest::Url) -> Result<reqwest::Client, String> {
    let literal = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
        _ => None,
    };
    if let Some(ip) = literal.filter(|ip| blocked_address(*ip)) {
        return Err(format!("HTTP hook refused: {ip} is an address HTTP hooks may not reach"));
    }
    // reqwest is built without a crypto provider of its own; a second install is refused
    // harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .dns_resolver(GuardedResolver)
        .user_agent(concat!("agent-tools/", env!("CARGO_PKG_VERSION")));
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let builder = if loopback { builder.no_proxy() } else { builder };
    builder.build().map_err(|error| format!("cannot make an HTTP client: {error}"))
}
