//! A team's files, in Claude Code's layout:
//!
//! ```text
//! <teams dir>/<team>/config.json          the team: name, lead, members (TeamFile)
//! <teams dir>/<team>/inboxes/<name>.json  a member's mailbox: a JSON array of Message
//! <teams dir>/<team>/inboxes/<name>.json.lock   its lock file (never replaced)
//! <teams dir>/<team>/.config.lock          the config's lock file
//! ```
//!
//! Every write goes to a temporary file in the same folder, which is then renamed over the old
//! file ([`tempfile::NamedTempFile::persist`]), so a reader sees the old file or the new one,
//! never half of one. Read-modify-write cycles (appending a message, marking messages read,
//! adding a member) hold an exclusive lock on a separate lock file ([`std::fs::File::try_lock`],
//! retried for at most [`LOCK_TIMEOUT`]), so two processes — the lead and a tmux teammate —
//! never lose each other's messages. The lock file is never renamed over, so every process
//! locks the same file.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{LEAD_NAME, TeamError, sanitize_name};

/// The team's config file name.
pub const CONFIG_FILE: &str = "config.json";

/// The folder of the mailboxes, in the team's folder.
pub const INBOXES_DIR: &str = "inboxes";

/// The longest a lock is waited for before the operation fails with [`TeamError::Locked`].
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// The biggest mailbox or config file read, in bytes (a bigger one is refused, not read).
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// How a teammate runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backend {
    /// A background sub-agent in the lead's process (Claude Code's in-process teammates).
    #[serde(rename = "in-process")]
    InProcess,
    /// An `agent-tools agent --teammate` process in a tmux pane (Claude Code's tmux backend).
    #[serde(rename = "tmux")]
    Tmux,
}

impl Backend {
    /// `in-process` or `tmux`, as in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InProcess => "in-process",
            Self::Tmux => "tmux",
        }
    }
}

/// One teammate in the config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// `<name>@<team>`.
    pub agent_id: String,
    /// Its name (a [`sanitize_name`] name): its mailbox is `inboxes/<name>.json`.
    pub name: String,
    /// Its agent type (`general-purpose` unless given).
    pub agent_type: String,
    /// How it runs.
    pub backend: Backend,
    /// The background task running it (in-process members): its id in the session's task
    /// registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The tmux pane running it (tmux members), e.g. `%3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmux_pane: Option<String>,
    /// Its working directory.
    pub cwd: PathBuf,
}

/// The team's `config.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamFile {
    /// The team's name (its folder's name).
    pub name: String,
    /// What the team is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `team-lead@<team>`.
    pub lead_agent_id: String,
    /// The lead's agent type, when TeamCreate was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_agent_type: Option<String>,
    /// The teammates, in the order they joined (the lead is not one of them).
    #[serde(default)]
    pub members: Vec<Member>,
    /// When the team was made, in ms since the Unix epoch.
    pub created_at_ms: u64,
}

impl TeamFile {
    /// The member named `name`, if any.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|member| member.name == name)
    }
}

/// One message in a mailbox (Claude Code's mailbox entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who sent it: a member's name, or `team-lead`.
    pub from: String,
    /// The message: plain text, or a structured message as JSON text
    /// (`{"type":"shutdown_request",…}`).
    pub text: String,
    /// A 5–10 word summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// When it was sent, in ms since the Unix epoch.
    pub timestamp_ms: u64,
    /// Whether its recipient has taken it ([`Team::take_unread`]).
    #[serde(default)]
    pub read: bool,
}

/// `&`, `<`, `>` and `"` as entities, so a text cannot close the tag around it.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Message {
    /// A new unread message, stamped now.
    pub fn new(from: impl Into<String>, text: impl Into<String>, summary: Option<String>) -> Self {
        Self { from: from.into(), text: text.into(), summary, timestamp_ms: now_ms(), read: false }
    }

    /// The `type` of a structured message (its text is a JSON object with a string `type`),
    /// e.g. `shutdown_request`; `None` for plain text.
    pub fn structured_type(&self) -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(self.text.trim()).ok()?;
        value.get("type")?.as_str().map(str::to_owned)
    }

    /// Whether this asks its recipient to stop (`{"type":"shutdown_request"}`).
    pub fn is_shutdown_request(&self) -> bool {
        self.structured_type().as_deref() == Some("shutdown_request")
    }

    /// What the recipient's model reads:
    /// `<teammate-message teammate_id="FROM" summary="…">\nTEXT\n</teammate-message>` (Claude
    /// Code's tag; the summary attribute only when there is one; `FROM` and the summary
    /// escaped; the text as it is).
    pub fn render(&self) -> String {
        let summary = self.summary.as_deref().map(|summary| format!(" summary=\"{}\"", escape(summary)));
        format!(
            "<teammate-message teammate_id=\"{}\"{}>\n{}\n</teammate-message>",
            escape(&self.from),
            summary.unwrap_or_default(),
            self.text
        )
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// One team's folder: a cheap handle (its name and folder); the files are read when asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    name: String,
    dir: PathBuf,
}

/// Makes a private folder (0700 on Unix); `Ok(false)` when it already existed.
fn make_dir(path: &Path) -> io::Result<bool> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    match builder.create(path) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(error),
    }
}

/// Writes `bytes` to `path` atomically ([`agent_tools_files::write_atomic`]: on Linux an unnamed
/// file linked into place once complete, so a kill leaves no temporary file behind).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    agent_tools_files::write_atomic(path, bytes).map(drop)
}

/// An exclusive lock on a lock file, released when dropped (the file is closed).
struct Locked {
    _file: File,
}

fn lock(path: &Path) -> Result<Locked, TeamError> {
    let io_error = |error| TeamError::io(path, error);
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(path).map_err(io_error)?;
    let deadline = Instant::now() + LOCK_TIMEOUT;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Locked { _file: file }),
            Err(fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(fs::TryLockError::WouldBlock) => return Err(TeamError::Locked(path.to_path_buf())),
            Err(fs::TryLockError::Error(error)) => return Err(io_error(error)),
        }
    }
}

/// Reads a JSON file; `Ok(None)` when it does not exist.
fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, TeamError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(TeamError::io(path, error)),
    };
    let size = file.metadata().map_err(|error| TeamError::io(path, error))?.len();
    if size > MAX_FILE_BYTES {
        return Err(TeamError::Corrupt {
            path: path.to_path_buf(),
            why: format!("it is bigger than {MAX_FILE_BYTES} bytes"),
        });
    }
    let text = fs::read_to_string(path).map_err(|error| TeamError::io(path, error))?;
    if text.trim().is_empty() {
        return Err(TeamError::Corrupt { path: path.to_path_buf(), why: "it is empty".into() });
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|error| TeamError::Corrupt { path: path.to_path_buf(), why: error.to_string() })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TeamError> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|error| TeamError::Corrupt { path: path.to_path_buf(), why: error.to_string() })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes).map_err(|error| TeamError::io(path, error))
}

impl Team {
    /// Makes the team `name` (sanitised with [`sanitize_name`]) in `teams_dir` (made if
    /// missing): its folder, its `inboxes/` folder and its config with the lead
    /// `team-lead@<team>` and no members.
    ///
    /// # Errors
    /// [`TeamError::InvalidName`] for a name [`sanitize_name`] refuses, [`TeamError::Exists`]
    /// when the team's folder exists already, [`TeamError::Io`] when a folder or file cannot be
    /// made.
    pub fn create(
        teams_dir: &Path,
        name: &str,
        description: Option<&str>,
        lead_agent_type: Option<&str>,
    ) -> Result<(Self, TeamFile), TeamError> {
        let name = sanitize_name(name)?;
        fs::create_dir_all(teams_dir).map_err(|error| TeamError::io(teams_dir, error))?;
        let dir = teams_dir.join(&name);
        if !make_dir(&dir).map_err(|error| TeamError::io(&dir, error))? {
            return Err(TeamError::Exists(name));
        }
        let team = Self { name, dir };
        let inboxes = team.dir.join(INBOXES_DIR);
        make_dir(&inboxes).map_err(|error| TeamError::io(&inboxes, error))?;
        let file = TeamFile {
            name: team.name.clone(),
            description: description.map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned),
            lead_agent_id: team.agent_id(LEAD_NAME),
            lead_agent_type: lead_agent_type.map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned),
            members: Vec::new(),
            created_at_ms: now_ms(),
        };
        if let Err(error) = write_json(&team.config_path(), &file) {
            let _ = fs::remove_dir_all(&team.dir);
            return Err(error);
        }
        Ok((team, file))
    }

    /// [`Self::create`] with `wanted`, else (when that team exists) with random
    /// [`crate::word_slug`] names until one is free, as Claude Code does.
    ///
    /// # Errors
    /// As [`Self::create`]; [`TeamError::Exists`] only if 20 slugs in a row are taken.
    pub fn create_unique(
        teams_dir: &Path,
        wanted: &str,
        description: Option<&str>,
        lead_agent_type: Option<&str>,
    ) -> Result<(Self, TeamFile), TeamError> {
        match Self::create(teams_dir, wanted, description, lead_agent_type) {
            Err(TeamError::Exists(taken)) => {
                let mut last = TeamError::Exists(taken);
                for _ in 0..20 {
                    match Self::create(teams_dir, &crate::word_slug(), description, lead_agent_type) {
                        Err(TeamError::Exists(name)) => last = TeamError::Exists(name),
                        other => return other,
                    }
                }
                Err(last)
            }
            other => other,
        }
    }

    /// The existing team `name` in `teams_dir`.
    ///
    /// # Errors
    /// [`TeamError::InvalidName`] for a name that is not already sanitised (a tmux teammate's
    /// `--teammate` value must name the folder exactly), [`TeamError::NotFound`] when the team
    /// has no config file.
    pub fn open(teams_dir: &Path, name: &str) -> Result<Self, TeamError> {
        let team = Self { name: exact_name(name)?, dir: teams_dir.join(name) };
        if !team.exists() {
            return Err(TeamError::NotFound(name.to_owned()));
        }
        Ok(team)
    }

    /// The team's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The team's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `<team dir>/config.json`.
    pub fn config_path(&self) -> PathBuf {
        self.dir.join(CONFIG_FILE)
    }

    /// `<name>@<team>`, a member's (or the lead's) agent id.
    pub fn agent_id(&self, name: &str) -> String {
        format!("{name}@{}", self.name)
    }

    /// Whether the team still exists (its config file is there).
    pub fn exists(&self) -> bool {
        self.config_path().is_file()
    }

    /// `<team dir>/inboxes/<name>.json`.
    ///
    /// # Errors
    /// [`TeamError::InvalidName`] unless `name` is a sanitised name as it is.
    pub fn inbox_path(&self, name: &str) -> Result<PathBuf, TeamError> {
        let name = exact_name(name)?;
        Ok(self.dir.join(INBOXES_DIR).join(format!("{name}.json")))
    }

    /// The team's config.
    ///
    /// # Errors
    /// [`TeamError::NotFound`] when it is gone (the team was deleted), [`TeamError::Corrupt`]
    /// when it is not a team config, [`TeamError::Io`] when it cannot be read.
    pub fn load(&self) -> Result<TeamFile, TeamError> {
        read_json(&self.config_path())?.ok_or_else(|| TeamError::NotFound(self.name.clone()))
    }

    fn edit<R>(&self, change: impl FnOnce(&mut TeamFile) -> Result<R, TeamError>) -> Result<(R, TeamFile), TeamError> {
        let _lock = lock(&self.dir.join(".config.lock"))?;
        let mut file = self.load()?;
        let out = change(&mut file)?;
        write_json(&self.config_path(), &file)?;
        Ok((out, file))
    }

    /// Adds a member to the config and returns the config as it now is.
    ///
    /// # Errors
    /// [`TeamError::InvalidName`] for a name that is not sanitised or is `team-lead`,
    /// [`TeamError::MemberExists`] when the team has a member of that name, and the errors of
    /// [`Self::load`].
    pub fn add_member(&self, member: Member) -> Result<TeamFile, TeamError> {
        exact_name(&member.name)?;
        if member.name == LEAD_NAME {
            return Err(TeamError::InvalidName { name: member.name, why: format!("'{LEAD_NAME}' is the lead's name") });
        }
        self.edit(|file| {
            if file.member(&member.name).is_some() {
                return Err(TeamError::MemberExists(member.name));
            }
            file.members.push(member);
            Ok(())
        })
        .map(|((), file)| file)
    }

    /// Changes the member `name` with `change`; returns the config as it now is, or `None`
    /// when there is no such member (nothing is written then).
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn update_member(&self, name: &str, change: impl FnOnce(&mut Member)) -> Result<Option<TeamFile>, TeamError> {
        let (found, file) =
            self.edit(|file| Ok(file.members.iter_mut().find(|member| member.name == name).map(change).is_some()))?;
        Ok(found.then_some(file))
    }

    /// Removes the member `name` from the config; returns it, or `None` when there was none.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn remove_member(&self, name: &str) -> Result<Option<Member>, TeamError> {
        self.edit(|file| {
            let at = file.members.iter().position(|member| member.name == name);
            Ok(at.map(|at| file.members.remove(at)))
        })
        .map(|(removed, _)| removed)
    }

    /// Removes the team's folder and everything in it. A team already gone is no error.
    ///
    /// # Errors
    /// [`TeamError::Io`] when the folder cannot be removed.
    pub fn delete(&self) -> Result<(), TeamError> {
        match fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(TeamError::io(&self.dir, error)),
        }
    }

    /// Every message in `name`'s mailbox, oldest first (read or not); empty when it has none.
    ///
    /// # Errors
    /// [`TeamError::InvalidName`] (see [`Self::inbox_path`]), [`TeamError::Corrupt`] when the
    /// mailbox is not a JSON array of messages, [`TeamError::Io`].
    pub fn messages(&self, name: &str) -> Result<Vec<Message>, TeamError> {
        Ok(read_json(&self.inbox_path(name)?)?.unwrap_or_default())
    }

    /// Appends `message` to `to`'s mailbox (made if missing), under the mailbox's lock.
    ///
    /// # Errors
    /// [`TeamError::NotFound`] when the team is gone, [`TeamError::Locked`] when another
    /// process holds the mailbox's lock for longer than [`LOCK_TIMEOUT`], and the errors of
    /// [`Self::messages`].
    pub fn append_message(&self, to: &str, message: Message) -> Result<(), TeamError> {
        let path = self.inbox_path(to)?;
        if !self.exists() {
            return Err(TeamError::NotFound(self.name.clone()));
        }
        let _lock = lock(&lock_path(&path))?;
        let mut messages: Vec<Message> = read_json(&path)?.unwrap_or_default();
        messages.push(message);
        write_json(&path, &messages)
    }

    /// Takes `name`'s unread messages, oldest first, and marks them read in the mailbox (under
    /// its lock); empty, with nothing written, when there are none.
    ///
    /// # Errors
    /// As [`Self::append_message`], except that a missing team or mailbox is no error.
    pub fn take_unread(&self, name: &str) -> Result<Vec<Message>, TeamError> {
        let path = self.inbox_path(name)?;
        if !path.is_file() {
            return Ok(Vec::new());
        }
        let _lock = lock(&lock_path(&path))?;
        let mut messages: Vec<Message> = read_json(&path)?.unwrap_or_default();
        let unread: Vec<Message> = messages.iter().filter(|message| !message.read).cloned().collect();
        if unread.is_empty() {
            return Ok(unread);
        }
        for message in &mut messages {
            message.read = true;
        }
        write_json(&path, &messages)?;
        Ok(unread)
    }
}

fn lock_path(inbox: &Path) -> PathBuf {
    let mut name = inbox.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".lock");
    inbox.with_file_name(name)
}

/// `name` itself when it is a sanitised name as it stands.
fn exact_name(name: &str) -> Result<String, TeamError> {
    let clean = sanitize_name(name)?;
    if clean != name {
        return Err(TeamError::InvalidName {
            name: name.to_owned(),
            why: format!("use the sanitised form '{clean}' (lowercase letters, digits and '-')"),
        });
    }
    Ok(clean)
}
