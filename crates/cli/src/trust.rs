//! Workspace trust on the command line (see [`agent_tools_settings::trust`]): where trust is
//! recorded, the `agent-tools trust` command, the question on first use in a terminal, and the
//! one message that says what an untrusted folder did not get and how to trust it.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_tools_settings::Withheld;
use agent_tools_settings::trust::{TrustSources, TrustStore};
use anyhow::Context as _;

/// Where trust is recorded: Claude Code's `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`)
/// and ours, `$XDG_CONFIG_HOME/agent-tools/trusted-folders.json` (else under `~/.config`).
pub(crate) fn sources(home: Option<&Path>) -> TrustSources {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|dir| dir.is_absolute());
    let claude_json = absolute("CLAUDE_CONFIG_DIR")
        .map(|dir| dir.join(".claude.json"))
        .or_else(|| home.map(|home| home.join(".claude.json")));
    let store = absolute("XDG_CONFIG_HOME")
        .or_else(|| home.map(|home| home.join(".config")))
        .map(|dir| dir.join("agent-tools").join("trusted-folders.json"));
    TrustSources { claude_json, store, home: home.map(Path::to_path_buf) }
}

/// What a folder's own configuration would do once trusted.
#[derive(Debug, Default)]
pub(crate) struct Gated {
    /// What its settings files had that an untrusted folder does not get.
    pub(crate) withheld: Vec<Withheld>,
    /// The servers of its `.mcp.json`.
    pub(crate) servers: Vec<String>,
    /// Its `.claude/skills` or `.claude/commands` folder holds something.
    pub(crate) skills: bool,
}

impl Gated {
    /// Nothing would change: no question, no message.
    pub(crate) fn is_empty(&self) -> bool {
        self.withheld.is_empty() && self.servers.is_empty() && !self.skills
    }

    /// In words: `1 MCP server in .mcp.json (build), hooks and 2 allow rules in
    /// .claude/settings.json, its skills`.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.servers.is_empty() {
            let count = self.servers.len();
            let noun = if count == 1 { "server" } else { "servers" };
            parts.push(format!("{count} MCP {noun} in .mcp.json ({})", self.servers.join(", ")));
        }
        for withheld in &self.withheld {
            parts.push(format!("{} in {}", join_words(&withheld.items), withheld.file));
        }
        if self.skills {
            parts.push("its skills and commands in .claude/".to_owned());
        }
        parts.join("; ")
    }
}

fn join_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether the project keeps skills or legacy commands of its own.
pub(crate) fn has_project_skills(project: &Path) -> bool {
    ["skills", "commands"].iter().any(|kind| {
        std::fs::read_dir(project.join(".claude").join(kind)).is_ok_and(|mut entries| entries.next().is_some())
    })
}

/// Asks on the terminal whether to trust `dir`; `true` on yes. Nothing is read when there is no
/// terminal (the caller checks first).
pub(crate) fn ask(dir: &Path, gated: &Gated) -> bool {
    ask_blocking(dir, gated).unwrap_or(false)
}

fn ask_blocking(dir: &Path, gated: &Gated) -> std::io::Result<bool> {
    let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = BufReader::new(tty);
    writeln!(out, "\n{} is a folder you have not trusted yet.", dir.display())?;
    writeln!(out, "Its own configuration can run programs or allow tool calls: {}.", gated.describe())?;
    writeln!(out, "Trust it only if you trust where its files came from.")?;
    for _ in 0..3 {
        write!(out, "Trust this folder? [y] yes, remember it; [n] no, run without its configuration: ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(false);
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Ok(true),
            "" | "n" | "no" => return Ok(false),
            _ => writeln!(out, "Please answer y or n.")?,
        }
    }
    Ok(false)
}

/// Records `dir` as trusted in our store; says so (or why not) on stderr.
pub(crate) fn remember(dir: &Path, sources: &TrustSources) -> bool {
    let Some(store) = &sources.store else {
        crate::report(format_args!(
            "agent-tools: no home folder, so trust cannot be remembered; trusting {} for this run",
            dir.display()
        ));
        return false;
    };
    match TrustStore::at(store).add(dir) {
        Ok(_) => true,
        Err(error) => {
            crate::report(format_args!("agent-tools: cannot record trust in {}: {error}", store.display()));
            false
        }
    }
}

/// The one message for an untrusted folder whose configuration was left out.
pub(crate) fn report_untrusted(dir: &Path, gated: &Gated) {
    crate::report(format_args!(
        "agent-tools: {shown} is not a trusted folder, so its own configuration is not used: {what}. Its deny and ask rules still apply. \
         To use it, run `agent-tools trust {shown}` (or pass --trust-workspace for one run).",
        shown = dir.display(),
        what = gated.describe(),
    ));
}

/// `agent-tools trust [DIR] [--list] [--remove]`.
pub(crate) fn command(dir: Option<&Path>, list: bool, remove: bool) -> anyhow::Result<ExitCode> {
    let home: Option<PathBuf> = std::env::var_os("HOME").map(Into::into);
    let sources = sources(home.as_deref());
    let store = sources.store.as_deref().map(TrustStore::at).context("no home folder: trust cannot be recorded")?;
    let mut out = std::io::stdout().lock();
    if list {
        let folders = store.folders();
        if folders.is_empty() {
            crate::report(format_args!(
                "agent-tools: no folder is trusted in {} (folders trusted in Claude Code count too, from {})",
                store.path().display(),
                sources
                    .claude_json
                    .as_deref()
                    .map_or_else(|| "~/.claude.json".into(), |path| path.display().to_string())
            ));
        }
        for folder in folders {
            writeln!(out, "{}", folder.display())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    if remove {
        let removed = store.remove(&dir).with_context(|| format!("cannot change {}", store.path().display()))?;
        let what =
            if removed { "Removed agent-tools' trust record for" } else { "agent-tools has no trust record for" };
        writeln!(out, "{what} {}", dir.display())?;
        match agent_tools_settings::trust::trusted_by(&dir, &sources) {
            Some(agent_tools_settings::trust::TrustedBy::ClaudeCode(folder)) => writeln!(
                out,
                "It is still trusted: Claude Code's record in {} trusts {}.",
                sources
                    .claude_json
                    .as_deref()
                    .map_or_else(|| "~/.claude.json".into(), |path| path.display().to_string()),
                folder.display()
            )?,
            Some(agent_tools_settings::trust::TrustedBy::AgentTools(folder)) => {
                writeln!(out, "It is still trusted through agent-tools' record for {}.", folder.display())?;
            }
            None => {}
        }
        return Ok(ExitCode::SUCCESS);
    }
    let real = dir.canonicalize().with_context(|| format!("{} is not a folder", dir.display()))?;
    anyhow::ensure!(real.is_dir(), "{} is not a folder", dir.display());
    let everything = real.parent().is_none()
        || home.as_deref().and_then(|home| home.canonicalize().ok()).as_deref() == Some(real.as_path());
    anyhow::ensure!(
        !everything,
        "{} holds every project below it; trust the project folders themselves",
        real.display()
    );
    let added = store.add(&real).with_context(|| format!("cannot change {}", store.path().display()))?;
    if added {
        writeln!(
            out,
            "Trusted: {} (its .mcp.json servers, hooks, allow rules, defaultMode, additionalDirectories, sandbox settings and skills now apply)",
            real.display()
        )?;
    } else {
        writeln!(out, "Already trusted: {}", real.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
