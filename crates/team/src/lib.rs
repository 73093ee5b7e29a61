//! # agent-tools-team: agent teams
//!
//! What TeamCreate, TeamDelete, SendMessage and the `agent-tools agent --teammate` process
//! share (Claude Code's agent swarms and its `spawnMultiAgent` backends):
//!
//! - the team's files in Claude Code's layout ([`files`]): `<teams dir>/<team>/config.json`
//!   ([`TeamFile`]: name, lead `team-lead@<team>`, members) and one mailbox per member,
//!   `inboxes/<name>.json` (a JSON array of [`Message`]), written atomically under a file lock;
//! - the name sanitiser that keeps every name inside the teams folder ([`sanitize_name`]) and
//!   the word slugs used when a team name is taken ([`word_slug`]);
//! - the session's team ([`state`]): the team a session leads, in its root app state, and who a
//!   tmux teammate's process is;
//! - the mailbox watcher that turns a mailbox into notifications ([`MailboxWatch`]);
//! - the tmux backend ([`tmux`]) and the tools' configuration ([`TeamConfig`]).
//!
//! The teams folder is always a parameter: a host passes `<config dir>/teams`
//! (`Environment::claude_config_dir()` in agent-tools-host); nothing here reads the environment.
//!
//! ```
//! use agent_tools_team::{Message, Team};
//! let dir = tempfile::tempdir().unwrap();
//! let (team, file) = Team::create(dir.path(), "Alpha Squad", Some("parser work"), None).unwrap();
//! assert_eq!((team.name(), file.lead_agent_id.as_str()), ("alpha-squad", "team-lead@alpha-squad"));
//! assert!(dir.path().join("alpha-squad/config.json").is_file());
//!
//! team.append_message("team-lead", Message::new("alice", "Parser done.", Some("parser done".into()))).unwrap();
//! let unread = team.take_unread("team-lead").unwrap();
//! assert_eq!(unread[0].render(), "<teammate-message teammate_id=\"alice\" summary=\"parser done\">\nParser done.\n</teammate-message>");
//! assert!(team.take_unread("team-lead").unwrap().is_empty(), "taken messages are marked read");
//! assert!(team.messages("team-lead").unwrap()[0].read);
//!
//! team.delete().unwrap();
//! assert!(!dir.path().join("alpha-squad").exists());
//! ```

mod config;
pub mod files;
mod name;
pub mod state;
pub mod tmux;
mod watch;

use std::path::{Path, PathBuf};

pub use crate::config::{DEFAULT_SHUTDOWN_GRACE, TeamConfig, TeammateMode, TmuxConfig};
pub use crate::files::{Backend, Member, Message, Team, TeamFile, now_ms};
pub use crate::name::{MAX_NAME_CHARS, sanitize_name, word_slug};
pub use crate::state::{ActiveTeam, Teammate, team_of};
pub use crate::watch::{DEFAULT_INTERVAL, MailboxWatch, notification_key};

/// The lead's name in a team (its mailbox is `inboxes/team-lead.json`, its agent id
/// `team-lead@<team>`), as in Claude Code.
pub const LEAD_NAME: &str = "team-lead";

/// The agent type of a teammate that was given none.
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// Why a team operation failed, in words a model can act on.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    /// A team or member name that [`sanitize_name`] refuses.
    #[error("invalid name {name:?}: {why}")]
    InvalidName {
        /// The name given.
        name: String,
        /// Why it is refused.
        why: String,
    },
    /// A team of this name exists already.
    #[error("a team named '{0}' already exists")]
    Exists(String),
    /// No such team (or it was deleted).
    #[error("no team named '{0}' (it may have been deleted)")]
    NotFound(String),
    /// The team has a member of this name already.
    #[error("the team already has a member named '{0}'")]
    MemberExists(String),
    /// A file another process keeps locked.
    #[error("{} stayed locked by another process for 5 s", .0.display())]
    Locked(PathBuf),
    /// A team file that is not what it should be.
    #[error("{} is not a valid team file: {why}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A file or folder that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// tmux could not do what was asked.
    #[error("{0}")]
    Tmux(String),
}

impl TeamError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io { path: path.to_path_buf(), source }
    }
}

/// The system prompt of teammate `name` of team `team` (in-process and tmux teammates alike):
/// who it is, who leads, and how it talks to them.
pub fn teammate_system_prompt(team: &str, name: &str) -> String {
    format!(
        "You are `{name}`, a teammate in the agent team `{team}`. The team's lead is `team-lead`: it gave you your task \
         and reads your reports.\n\n\
         - Work on your task with your tools, as a careful software engineer would.\n\
         - Report to the lead with the SendMessage tool (`to: \"team-lead\"`) when you have something it should know \
         before you finish; your final answer also reaches the lead.\n\
         - Messages from the lead and other teammates reach you as <teammate-message> or <agent-message> blocks \
         between your turns; read them and act on them. Address teammates by name with SendMessage.\n\
         - Your plain text is not seen by other agents: put anything they need in a message or your final answer.\n\
         - Keep your final answer short: what you did, what you found, what is left."
    )
}
