//! Workspace trust on the command line (the rules: [`agent_tools_settings::trust`]; what a
//! session withholds: [`agent_tools_host::session::trust`]): the `agent-tools trust` command and
//! the question on first use in a terminal.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::ExitCode;

use agent_tools_host::session::Gated;
use agent_tools_settings::trust::TrustStore;
use anyhow::Context as _;

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

/// `agent-tools trust [DIR] [--list] [--remove]`.
pub(crate) fn command(dir: Option<&Path>, list: bool, remove: bool) -> anyhow::Result<ExitCode> {
    let env = agent_tools_host::Environment::from_process();
    let home = env.home();
    let sources = agent_tools_host::session::trust::trust_sources(&env);
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
            "Trusted: {} (its .mcp.json servers, hooks, allow rules, defaultMode, additionalDirectories, sandbox settings, skills and language servers now apply)",
            real.display()
        )?;
    } else {
        writeln!(out, "Already trusted: {}", real.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
