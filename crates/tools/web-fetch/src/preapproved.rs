//! The hosts WebFetch may reach without asking: documentation sites for programming languages,
//! libraries and tools, read-only reference material a coding agent looks up all the time.
//!
//! Claude Code ships a list of the same kind (`preapproved.ts`); this one is ours, smaller, and
//! kept to sites whose pages are documentation written by the project itself (package registries,
//! whose pages carry anyone's README, are left out). An entry is a host (`docs.rs`) or a host and a
//! path prefix (`github.com/rust-lang`), matched as [`PreapprovedHosts`] describes: the exact host
//! (no sub-domains), the path at a `/` boundary.

use crate::rules::PreapprovedHosts;

/// The entries, host or `host/path-prefix`.
pub const PREAPPROVED: &[&str] = &[
    // Languages and their standard libraries.
    "doc.rust-lang.org",
    "docs.rs",
    "docs.python.org",
    "peps.python.org",
    "developer.mozilla.org",
    "nodejs.org",
    "www.typescriptlang.org",
    "go.dev",
    "pkg.go.dev",
    "docs.oracle.com",
    "kotlinlang.org",
    "docs.swift.org",
    "en.cppreference.com",
    "ruby-doc.org",
    "www.php.net",
    "learn.microsoft.com",
    "hexdocs.pm",
    "www.haskell.org",
    // Frameworks and libraries.
    "react.dev",
    "vuejs.org",
    "angular.dev",
    "svelte.dev",
    "nextjs.org",
    "docs.djangoproject.com",
    "flask.palletsprojects.com",
    "fastapi.tiangolo.com",
    "numpy.org",
    "pandas.pydata.org",
    "docs.pytest.org",
    "tokio.rs",
    "expressjs.com",
    "tailwindcss.com",
    // Tools and platforms.
    "git-scm.com",
    "docs.github.com",
    "docs.docker.com",
    "kubernetes.io",
    "www.postgresql.org",
    "dev.mysql.com",
    "sqlite.org",
    "www.sqlite.org",
    "redis.io",
    "nginx.org",
    "docs.npmjs.com",
    "cmake.org",
    "www.gnu.org",
    "man7.org",
    // Protocols and model APIs.
    "modelcontextprotocol.io",
    "docs.anthropic.com",
    "docs.claude.com",
    "platform.claude.com",
    "code.claude.com",
    "github.com/anthropics",
];

/// [`PREAPPROVED`] as a [`PreapprovedHosts`] for the permission check.
pub fn preapproved_hosts() -> PreapprovedHosts {
    PreapprovedHosts::new(PREAPPROVED.iter().copied())
}
