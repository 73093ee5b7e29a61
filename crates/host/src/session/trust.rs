//! Workspace trust as a session settles it: where trust is recorded, what an untrusted folder's
//! own configuration would have done ([`Gated`]), and recording a yes.
//!
//! The decision rules live in `agent_tools_settings::trust`; asking the user is the front end's
//! ([`WorkspaceTrust::Ask`](super::WorkspaceTrust::Ask)): a terminal, a dialog, or nobody.

use std::path::Path;

use agent_tools_settings::Withheld;
use agent_tools_settings::trust::{TrustSources, TrustStore};

use crate::environment::Environment;

/// Where trust is recorded: Claude Code's `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`)
/// and ours, `$XDG_CONFIG_HOME/agent-tools/trusted-folders.json` (else under `~/.config`).
pub fn trust_sources(env: &Environment) -> TrustSources {
    let home = env.home();
    let claude_json = env
        .absolute_path("CLAUDE_CONFIG_DIR")
        .map(|dir| dir.join(".claude.json"))
        .or_else(|| home.as_ref().map(|home| home.join(".claude.json")));
    let store = env
        .absolute_path("XDG_CONFIG_HOME")
        .or_else(|| home.as_ref().map(|home| home.join(".config")))
        .map(|dir| dir.join("agent-tools").join("trusted-folders.json"));
    TrustSources { claude_json, store, home }
}

/// What a folder's own configuration would do once trusted: what an untrusted folder does not
/// get.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Gated {
    /// What its settings files had that an untrusted folder does not get.
    pub withheld: Vec<Withheld>,
    /// The servers of its `.mcp.json`.
    pub servers: Vec<String>,
    /// Its `.claude/skills`, `.claude/commands` or `.claude/agents` folder holds something.
    pub skills: bool,
    /// LSP is on (`ENABLE_LSP_TOOL`, the user's `lsp.enabled`): language servers would start in
    /// it, and a server can run the folder's code (a TypeScript plugin, a build script).
    pub language_servers: bool,
    /// The folder's settings files were not read at all (`--setting-sources ""`,
    /// `--no-settings`): then its deny and ask rules do not apply either, and the message says so.
    pub settings_unread: bool,
}

impl Gated {
    /// Nothing would change: no question, no message.
    pub fn is_empty(&self) -> bool {
        self.withheld.is_empty() && self.servers.is_empty() && !self.skills && !self.language_servers
    }

    /// In words: `1 MCP server in .mcp.json (build); hooks and 2 allow rules in
    /// .claude/settings.json; its skills, commands and agents in .claude/`.
    pub fn describe(&self) -> String {
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
            parts.push("its skills, commands and agents in .claude/".to_owned());
        }
        if self.language_servers {
            parts.push("language servers (LSP), which can run its code".to_owned());
        }
        parts.join("; ")
    }

    /// The one message for an untrusted folder whose configuration was left out: what, and how
    /// to trust the folder.
    pub fn untrusted_message(&self, dir: &Path) -> String {
        let rules = if self.settings_unread {
            "Its settings files are not read in this run (so neither are their deny and ask rules)."
        } else {
            "Its deny and ask rules still apply."
        };
        format!(
            "{shown} is not a trusted folder, so its own configuration is not used: {what}. {rules} \
             To use it, run `agent-tools trust {shown}` (or pass --trust-workspace for one run).",
            shown = dir.display(),
            what = self.describe(),
        )
    }
}

fn join_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether the project keeps skills, legacy commands or custom agents of its own.
pub fn has_project_skills(project: &Path) -> bool {
    ["skills", "commands", "agents"].iter().any(|kind| {
        std::fs::read_dir(project.join(".claude").join(kind)).is_ok_and(|mut entries| entries.next().is_some())
    })
}

/// Records `dir` as trusted in our store.
///
/// # Errors
/// Why it could not be recorded (no home folder, or the store cannot be written), as a sentence.
pub fn remember(dir: &Path, sources: &TrustSources) -> Result<(), String> {
    let Some(store) = &sources.store else {
        return Err(format!("no home folder, so trust cannot be remembered; trusting {} for this run", dir.display()));
    };
    TrustStore::at(store)
        .add(dir)
        .map(drop)
        .map_err(|error| format!("cannot record trust in {}: {error}", store.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_an_untrusted_folder_misses_is_said_in_one_sentence() {
        let gated = Gated {
            withheld: vec![Withheld {
                file: ".claude/settings.json",
                items: vec!["hooks".into(), "2 allow rules".into(), "defaultMode".into()],
            }],
            servers: vec!["build".into()],
            skills: true,
            language_servers: false,
            settings_unread: false,
        };
        assert_eq!(
            gated.describe(),
            "1 MCP server in .mcp.json (build); hooks, 2 allow rules and defaultMode in .claude/settings.json; \
             its skills, commands and agents in .claude/"
        );
        let lsp = Gated { language_servers: true, ..Gated::default() };
        assert!(!lsp.is_empty());
        assert_eq!(lsp.describe(), "language servers (LSP), which can run its code");
        assert!(Gated::default().is_empty());
        let env = Environment::empty().with("HOME", "/home/me").with("XDG_CONFIG_HOME", "/cfg");
        let sources = trust_sources(&env);
        assert_eq!(sources.claude_json.as_deref(), Some(Path::new("/home/me/.claude.json")));
        assert_eq!(sources.store.as_deref(), Some(Path::new("/cfg/agent-tools/trusted-folders.json")));
        assert!(remember(Path::new("/p"), &trust_sources(&Environment::empty())).is_err());
    }
}
