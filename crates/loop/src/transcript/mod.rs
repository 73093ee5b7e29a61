//! Transcripts: a session's conversation, saved as it grows in Claude Code's layout and line
//! format, so `--continue` / `--resume` pick it up and what reads Claude Code's sessions reads
//! ours (the Agent SDKs' `list_sessions`, `get_session_messages`, `fork_session`, viewers), and
//! a session Claude Code wrote resumes here.
//!
//! **Layout** ([`paths`]): `<config dir>/projects/<slug of the working directory>/<session
//! id>.jsonl` (`$CLAUDE_CONFIG_DIR`, else `~/.claude`); a sub-agent's beside it in `<session
//! id>/subagents/agent-<agent id>.jsonl`, with `agent-<agent id>.meta.json`
//! (`{"agentType","description","toolUseId","parentAgentId"}`), and its background task's
//! output file a symbolic link to it, as Claude Code links them.
//!
//! **Lines** ([`Transcript`]): one JSON object per entry, chained by `uuid` / `parentUuid`
//! (`null` for the first), each with `type` (`user`, `assistant`, `system`), `message` (the
//! Messages API message), `sessionId`, `timestamp`, `cwd`, `version`, `gitBranch`,
//! `isSidechain`, `userType: "external"` and `entrypoint`. An answer is one entry per content
//! block sharing `message.id`; each `tool_result` is a `user` entry of its own (with
//! `toolUseResult`); the loop's injected context is `isMeta: true`; its system messages are
//! `system` entries carrying the message; a compaction is a `compact_boundary` entry followed by
//! the summary (`isCompactSummary: true`).
//!
//! **Writes.** Each record is one `write` of whole lines to the file opened with `O_APPEND`, so
//! two processes appending to one session (two `--continue` runs) never interleave their lines
//! (on a local file system; NFS does not honour `O_APPEND`). Only a kill during the write (or a
//! full disk) leaves a torn line; the next record then starts on a new line, so one torn line
//! never swallows the next. A file seeded whole ([`copy_into`]: a fork) is written aside and
//! renamed into place.
//!
//! **Loading** ([`load`], [`load_with_notices`], [`load_at`]) skips a torn last line (a kill
//! while it was written) and, with a notice, a torn line in the middle; takes the chain from the
//! last message (or the one `--resume-session-at` names) back to the start or to the last
//! compaction, with the calls and results of a parallel turn Claude Code wrote put back; then
//! [`repair`] makes the conversation a valid next request, as Claude Code's resume does for a
//! session killed mid-turn: a `tool_use` left without its `tool_result` (SIGKILL or SIGTERM
//! during a tool call) is answered with an error result saying the call was interrupted
//! ([`INTERRUPTED_BY_USER`]), results follow their call in
//! `tool_use` order, and a user message that would follow another user message joins it
//! ([`push_message`], as Claude Code merges consecutive user messages before each request), so
//! the prompt of the resumed run goes in the same user message as the last results. Sessions
//! saved in agent-tools' first format ([`legacy`]) still load.

use std::path::{Path, PathBuf};

use agent_tools_host::{Environment, Session};
use serde_json::{Map, Value, json};

use crate::agent::INTERRUPTED_BY_USER;
use crate::options::AgentOptions;

pub mod legacy;
pub mod paths;
mod reader;
mod repair;
mod writer;

pub use legacy::LEGACY_FILE_NAME;
pub use paths::{project_dir, project_slug, projects_dir, session_file, subagents_dir};
pub use repair::{Repaired, push_message, repair};
pub use writer::{Header, Transcript};

/// Why a transcript cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// No saved session has this id.
    #[error("No conversation found with session ID: {0}")]
    NotFound(String),
    /// No saved session was started in this directory.
    #[error("No conversation found to continue in {0}")]
    NothingToContinue(PathBuf),
    /// No entry of the transcript has this uuid (`--resume-session-at`).
    #[error("No message found with message.uuid of: {0}")]
    MessageNotFound(String),
    /// A new session's transcript already exists (`--session-id` of a saved session, a fork onto
    /// an existing file).
    #[error("Session ID {0} is already in use")]
    InUse(String),
    /// The file could not be read or written.
    #[error("transcript {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> TranscriptError + '_ {
    move |source| TranscriptError::Io { path: path.to_path_buf(), source }
}

/// A transcript read for resuming ([`load_with_notices`], [`load_at`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Loaded {
    /// The conversation from after the last compaction, [repaired](repair) for the next request.
    pub messages: Vec<Value>,
    /// What the user should be told (on stderr): torn lines in the middle that were skipped,
    /// calls answered as interrupted.
    pub notices: Vec<String>,
    /// The uuid of the last entry loaded: where the conversation goes on (`None` for the first
    /// format, or an empty conversation).
    pub leaf: Option<String>,
}

/// The conversation saved in the transcript at `path`, from after its last compaction,
/// [repaired](repair) so that it can be sent again: what `--continue` / `--resume` give
/// [`AgentOptions::resume`]. Torn lines and entries that are not messages are skipped.
///
/// # Errors
/// [`TranscriptError::Io`] when the file cannot be read.
pub fn load(path: &Path) -> Result<Vec<Value>, TranscriptError> {
    load_with_notices(path).map(|loaded| loaded.messages)
}

/// [`load`], with what the user should be told about it: the lines in the middle of the file
/// that are not whole records (a torn last line is expected after a kill and skipped quietly),
/// and the calls that had no result and are answered as interrupted.
///
/// # Errors
/// [`TranscriptError::Io`] when the file cannot be read.
pub fn load_with_notices(path: &Path) -> Result<Loaded, TranscriptError> {
    load_at(path, None)
}

/// [`load_with_notices`], the conversation cut after the entry `at` (`--resume-session-at`:
/// the chain from that entry back, whatever was written after it).
///
/// # Errors
/// [`TranscriptError::Io`] when the file cannot be read, [`TranscriptError::MessageNotFound`]
/// when no entry has the uuid `at`.
pub fn load_at(path: &Path, at: Option<&str>) -> Result<Loaded, TranscriptError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let (objects, torn) = reader::parse_lines(&bytes);
    let (saved, leaf) = if reader::is_legacy(&objects) {
        if let Some(uuid) = at {
            return Err(TranscriptError::MessageNotFound(uuid.to_owned()));
        }
        (legacy::messages(&objects), None)
    } else {
        let chain = reader::chain(&objects, at).map_err(TranscriptError::MessageNotFound)?;
        let leaf = chain.last().and_then(|entry| entry.get("uuid")).and_then(Value::as_str).map(str::to_owned);
        (reader::messages(&chain), leaf)
    };
    let repaired = repair(&saved);
    let mut notices = Vec::new();
    if !torn.is_empty() {
        let numbers = torn.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let (lines, are, were) = if torn.len() == 1 { ("line", "is", "was") } else { ("lines", "are", "were") };
        notices.push(format!(
            "Transcript {}: {lines} {numbers} {are} not whole (a write cut short) and {were} skipped.",
            path.display()
        ));
    }
    if !repaired.interrupted.is_empty() {
        let count = repaired.interrupted.len();
        let names = repaired.interrupted.iter().map(|(_, name)| name.as_str()).collect::<Vec<_>>().join(", ");
        let (calls, results, answered) = if count == 1 {
            ("a tool call".to_owned(), "its result was", "it is")
        } else {
            (format!("{count} tool calls"), "their results were", "they are")
        };
        notices.push(format!(
            "The session stopped during {calls} ({names}) before {results} saved; {answered} answered \"{INTERRUPTED_BY_USER}\"."
        ));
    }
    Ok(Loaded { messages: repaired.messages, notices, leaf })
}

/// A saved session found by [`find`] or [`latest`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// The session's id.
    pub id: String,
    /// Its transcript.
    pub path: PathBuf,
    /// Saved in agent-tools' first format ([`legacy`]): read only; resuming it goes on in a
    /// new transcript in Claude Code's layout ([`copy_into`]).
    pub legacy: bool,
}

/// Whether `path` is a file with something in it.
fn non_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.len() > 0)
}

/// The saved session `id`, as `--resume ID` looks for it: `<id>.jsonl` in the folders of `cwd`
/// ([`paths::project_dirs`]), else in any project's folder (as the Agent SDKs look without a
/// directory; a session Claude Code wrote included), else in agent-tools' first layout
/// (`<sessions dir>/<id>/transcript.jsonl`). Ids that are not plain names (letters, digits, `-`,
/// `_`) name nothing.
///
/// # Errors
/// [`TranscriptError::NotFound`] when there is none.
pub fn find(env: &Environment, cwd: &Path, id: &str) -> Result<Found, TranscriptError> {
    let not_found = || TranscriptError::NotFound(id.to_owned());
    if !agent_tools_host::session::is_plain_id(id) {
        return Err(not_found());
    }
    let file_name = format!("{id}.jsonl");
    if let Some(projects) = projects_dir(env) {
        let mut dirs = paths::project_dirs(&projects, cwd);
        let mut others: Vec<PathBuf> = std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .collect();
        others.sort();
        dirs.extend(others);
        if let Some(path) = dirs.into_iter().map(|dir| dir.join(&file_name)).find(|path| non_empty(path)) {
            return Ok(Found { id: id.to_owned(), path, legacy: false });
        }
    }
    legacy::find(&env.sessions_dir(), id)
        .map(|path| Found { id: id.to_owned(), path, legacy: true })
        .ok_or_else(not_found)
}

/// The most recently changed saved session started in `cwd` (what `--continue` picks): the
/// session files of `cwd`'s folders, sub-agents' and empty ones left out, and the sessions of
/// agent-tools' first layout started there.
///
/// # Errors
/// [`TranscriptError::NothingToContinue`] when there is none.
pub fn latest(env: &Environment, cwd: &Path) -> Result<Found, TranscriptError> {
    let mut best: Option<(std::time::SystemTime, Found)> = None;
    let mut consider = |time: std::time::SystemTime, found: Found| {
        if best.as_ref().is_none_or(|(best_time, _)| time > *best_time) {
            best = Some((time, found));
        }
    };
    if let Some(projects) = projects_dir(env) {
        for dir in paths::project_dirs(&projects, cwd) {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().filter_map(Result::ok) {
                let path = entry.path();
                let Some(id) =
                    path.file_name().and_then(|name| name.to_str()).and_then(|name| name.strip_suffix(".jsonl"))
                else {
                    continue;
                };
                if !agent_tools_host::session::is_plain_id(id) || !non_empty(&path) || is_sidechain_file(&path) {
                    continue;
                }
                let Ok(modified) = entry.metadata().and_then(|meta| meta.modified()) else { continue };
                consider(modified, Found { id: id.to_owned(), path: path.clone(), legacy: false });
            }
        }
    }
    let canonical = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if let Some((id, path, modified)) = legacy::latest(&env.sessions_dir(), &canonical) {
        consider(modified, Found { id, path, legacy: true });
    }
    best.map(|(_, found)| found).ok_or_else(|| TranscriptError::NothingToContinue(cwd.to_path_buf()))
}

/// Whether the first line of a transcript is a sub-agent's (`"isSidechain":true`), as the SDKs
/// tell a sidechain file from a session's.
fn is_sidechain_file(path: &Path) -> bool {
    use std::io::BufRead as _;
    let mut line = String::new();
    let Ok(file) = std::fs::File::open(path) else { return false };
    if std::io::BufReader::new(file).read_line(&mut line).is_err() {
        return false;
    }
    serde_json::from_str::<Value>(&line).is_ok_and(|entry| entry.get("isSidechain") == Some(&json!(true)))
}

/// Seeds the new transcript `dest` with the conversation of `source` (cut after the entry `at`
/// when given) and returns it loaded, as `--fork-session` (a new session id) and the resume of a
/// first-format session (the same id) need. Entries in Claude Code's format are copied with
/// their uuids, `sessionId` set to `header`'s and, when that differs, `forkedFrom`
/// (`{"sessionId","messageUuid"}`, as the SDKs' `fork_session` marks a fork); a first-format
/// conversation is written afresh with `header`. The file is written aside and renamed into
/// place: it is whole or absent.
///
/// # Errors
/// [`TranscriptError::InUse`] when `dest` already has content, [`TranscriptError::Io`] when a
/// file cannot be read or written, [`TranscriptError::MessageNotFound`] for an unknown `at`.
pub fn copy_into(source: &Path, dest: &Path, header: &Header, at: Option<&str>) -> Result<Loaded, TranscriptError> {
    if non_empty(dest) {
        return Err(TranscriptError::InUse(header.session_id.clone()));
    }
    let mut loaded = load_at(source, at)?;
    let folder = dest.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(folder).map_err(io_error(folder))?;
    let name = dest.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let aside = folder.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = write_copy(source, &aside, header, at);
    let renamed = written.and_then(|()| std::fs::rename(&aside, dest).map_err(io_error(dest)));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&aside);
    }
    renamed?;
    loaded.leaf = load_at(dest, None)?.leaf;
    Ok(loaded)
}

fn write_copy(source: &Path, aside: &Path, header: &Header, at: Option<&str>) -> Result<(), TranscriptError> {
    let bytes = std::fs::read(source).map_err(io_error(source))?;
    let (objects, _) = reader::parse_lines(&bytes);
    if reader::is_legacy(&objects) {
        let transcript = Transcript::open(aside, header.clone())?;
        for message in load_at(source, at)?.messages {
            transcript.message(&message)?;
        }
        return Ok(());
    }
    let chain = reader::chain(&objects, at).map_err(TranscriptError::MessageNotFound)?;
    let mut text = Vec::new();
    for entry in chain {
        let mut copy: Map<String, Value> = entry.clone();
        let original = entry.get("sessionId").and_then(Value::as_str).unwrap_or_default();
        if original != header.session_id {
            let uuid = entry.get("uuid").cloned().unwrap_or(Value::Null);
            copy.insert("forkedFrom".into(), json!({"sessionId": original, "messageUuid": uuid}));
        }
        copy.insert("sessionId".into(), json!(header.session_id));
        copy.insert("isSidechain".into(), json!(false));
        serde_json::to_writer(&mut text, &copy).map_err(|error| io_error(aside)(std::io::Error::other(error)))?;
        text.push(b'\n');
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(aside).map_err(io_error(aside))?;
    std::io::Write::write_all(&mut file, &text).map_err(io_error(aside))?;
    file.sync_all().map_err(io_error(aside))
}

/// The transcript an agent writes: none when [`AgentOptions::persist`] is off; else
/// [`AgentOptions::transcript_file`], or `<projects>/<slug>/<session id>.jsonl` for the session's
/// working directory (none without a config folder); a sub-agent's session writes a sidechain.
/// New entries continue from [`AgentOptions::transcript_parent`] when set.
pub(crate) fn for_agent(session: &Session, options: &AgentOptions) -> Result<Option<Transcript>, TranscriptError> {
    if !options.persist {
        return Ok(None);
    }
    let env = session.environment();
    let path = match &options.transcript_file {
        Some(file) => file.clone(),
        None => match projects_dir(env) {
            Some(projects) => session_file(&projects, session.project_dir(), session.id()),
            None => return Ok(None),
        },
    };
    let mut header = Header::new(env, session.id(), session.project_dir());
    if session.is_fork() {
        header = header.sidechain(session.agent_id());
    }
    let transcript = Transcript::open(&path, header)?;
    if let Some(parent) = &options.transcript_parent {
        transcript.continue_from(parent);
    }
    Ok(Some(transcript))
}

/// The uuid of the streamed `assistant` event of block `index` of answer `message_id`: the
/// block's transcript entry's ([`Transcript::block_uuid`]), a fresh one without a transcript.
pub(crate) fn event_uuid(transcript: Option<&Transcript>, message_id: Option<&str>, index: usize) -> String {
    transcript.map_or_else(|| uuid::Uuid::new_v4().to_string(), |transcript| transcript.block_uuid(message_id, index))
}

/// The uuid of the streamed `user` event of `result` (a `tool_result` block): its transcript
/// entry's ([`Transcript::result_uuid`]); a fresh one for anything else or without a transcript.
pub(crate) fn result_event_uuid(transcript: Option<&Transcript>, result: &Value) -> String {
    match (transcript, result.get("tool_use_id").and_then(Value::as_str)) {
        (Some(transcript), Some(call)) => transcript.result_uuid(call),
        _ => uuid::Uuid::new_v4().to_string(),
    }
}

/// Where a sub-agent's transcript goes, as Claude Code keeps them: when its caller's transcript
/// (`caller`, a `.jsonl`) is known, `agent-<agent_id>.jsonl` in the session's
/// [`subagents_dir`], with the sidecar `agent-<agent_id>.meta.json` holding `meta`, and the
/// background task's `output` file made a symbolic link to it (the output file is the agent's
/// transcript either way). Without a caller's transcript, or when the link cannot be made, the
/// transcript is the output file itself.
pub fn subagent_file(caller: Option<&Path>, agent_id: &str, output: &Path, meta: &Value) -> PathBuf {
    let dir = caller.filter(|path| path.extension().is_some_and(|ext| ext == "jsonl")).and_then(subagents_dir);
    let Some(dir) = dir.filter(|_| agent_tools_host::session::is_plain_id(agent_id)) else {
        return output.to_path_buf();
    };
    let file = dir.join(format!("agent-{agent_id}.jsonl"));
    match link_subagent(&dir, &file, output, meta) {
        Ok(()) => file,
        Err(error) => {
            tracing::warn!(%error, file = %file.display(), "the sub-agent's transcript stays in its output file");
            output.to_path_buf()
        }
    }
}

fn link_subagent(dir: &Path, file: &Path, output: &Path, meta: &Value) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let stem = file.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    write_atomically(&dir.join(format!("{stem}.meta.json")), meta.to_string().as_bytes())?;
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(file)?;
    #[cfg(unix)]
    {
        let aside = output.with_extension(format!("link-{}", uuid::Uuid::new_v4().simple()));
        std::os::unix::fs::symlink(file, &aside)?;
        if let Err(error) = std::fs::rename(&aside, output) {
            let _ = std::fs::remove_file(&aside);
            return Err(error);
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = output;
        Err(std::io::Error::other("no symbolic link for the output file on this platform"))
    }
}

/// Writes `bytes` to `path` through a file beside it renamed into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let aside = path.with_file_name(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = std::fs::write(&aside, bytes).and_then(|()| std::fs::rename(&aside, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&aside);
    }
    written
}

#[cfg(test)]
mod tests;
