//! Writing a transcript in Claude Code's line format ([`Transcript`]).

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use agent_tools_api::AssistantMessage;
use agent_tools_host::Environment;
use serde_json::{Map, Value, json};

use super::{TranscriptError, paths, reader};
use crate::agent::{CONTINUE_AFTER_MAX_TOKENS, STRUCTURED_OUTPUT_REMINDER};

/// What every entry of one transcript carries besides its own fields (Claude Code's
/// `sessionId`, `cwd`, `version`, `gitBranch`, `entrypoint`, and for a sub-agent's sidechain
/// `isSidechain: true` with its `agentId`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// The session's id (`sessionId`).
    pub session_id: String,
    /// The working directory (`cwd`).
    pub cwd: PathBuf,
    /// The writer's version (`version`): this crate's.
    pub version: String,
    /// The git branch checked out in `cwd` (`gitBranch`, left out when unknown).
    pub git_branch: Option<String>,
    /// How the program was started (`entrypoint`): `CLAUDE_CODE_ENTRYPOINT` when set (the Agent
    /// SDKs set `sdk-py` / `sdk-ts`), else `cli`.
    pub entrypoint: String,
    /// A sub-agent's transcript (a sidechain): `Some` with its agent id (empty when it has
    /// none); `None` for a session's own.
    pub agent_id: Option<String>,
}

impl Header {
    /// The header of session `session_id` working in `cwd`, with the branch read from the
    /// repository and the entry point from `env`.
    pub fn new(env: &Environment, session_id: &str, cwd: &Path) -> Self {
        Self {
            session_id: session_id.to_owned(),
            cwd: cwd.to_path_buf(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            git_branch: paths::git_branch(cwd),
            entrypoint: env.text("CLAUDE_CODE_ENTRYPOINT").unwrap_or_else(|| "cli".to_owned()),
            agent_id: None,
        }
    }

    /// The same header for sub-agent `agent_id`'s sidechain.
    pub fn sidechain(mut self, agent_id: Option<&str>) -> Self {
        self.agent_id = Some(agent_id.unwrap_or_default().to_owned());
        self
    }
}

/// What the writer keeps between entries.
#[derive(Debug, Default)]
struct State {
    /// The uuid the next entry's `parentUuid` names.
    parent: Option<String>,
    /// The next plain user entry is a compaction's summary.
    summary_next: bool,
    /// The structured results of calls, by `tool_use` id, until their `tool_result` is written
    /// (`toolUseResult`).
    results: HashMap<String, Value>,
    /// The entry that made each call, by `tool_use` id (`sourceToolAssistantUUID`).
    callers: HashMap<String, String>,
    /// The uuids written so far: a derived uuid is used once.
    written: HashSet<String>,
}

/// An open transcript in Claude Code's format, appended to as the conversation grows (see the
/// [module docs](super)): each call writes whole lines, one entry per line, each chained to the
/// one before by `parentUuid`.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    header: Header,
    /// The file may end inside a line (a write cut short by a kill, ours or an earlier
    /// process's): the next record starts with a newline, so the torn line ends there.
    torn: AtomicBool,
    /// Makes the uuids derived from message and call ids this transcript's own.
    salt: u128,
    state: Mutex<State>,
}

impl Transcript {
    /// Opens the transcript at `path` (its folders created now, the file with its first entry);
    /// new entries continue from the file's last message (none for a new file).
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the folders cannot be created, or an existing file cannot be
    /// read.
    pub fn open(path: &Path, header: Header) -> Result<Self, TranscriptError> {
        let io = |source| TranscriptError::Io { path: path.to_path_buf(), source };
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        let parent = match std::fs::metadata(path) {
            Ok(meta) if meta.len() > 0 => {
                let bytes = std::fs::read(path).map_err(io)?;
                reader::tip(&reader::parse_lines(&bytes).0)
            }
            _ => None,
        };
        Ok(Self {
            path: path.to_path_buf(),
            header,
            torn: AtomicBool::new(ends_inside_a_line(path)),
            salt: uuid::Uuid::new_v4().as_u128(),
            state: Mutex::new(State { parent, ..State::default() }),
        })
    }

    /// New entries continue from the entry `uuid` (`--resume-session-at`: the conversation goes
    /// on from there, a new branch of the same file).
    pub fn continue_from(&self, uuid: &str) {
        self.state().parent = Some(uuid.to_owned());
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What every entry carries.
    pub fn header(&self) -> &Header {
        &self.header
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The uuid of block `index` of the answer `message_id`: the one its streamed `assistant`
    /// event carries and its transcript entry gets, so a uuid an SDK saw live names the entry
    /// (`resume_session_at`). A fresh one without a message id.
    pub fn block_uuid(&self, message_id: Option<&str>, index: usize) -> String {
        match message_id {
            Some(id) => self.derived_uuid(&["block", id, &index.to_string()]),
            None => new_uuid(),
        }
    }

    /// The uuid of the `tool_result` of call `tool_use_id`: its streamed `user` event's and its
    /// entry's.
    pub fn result_uuid(&self, tool_use_id: &str) -> String {
        self.derived_uuid(&["result", tool_use_id])
    }

    fn derived_uuid(&self, parts: &[&str]) -> String {
        use std::hash::{Hash as _, Hasher as _};
        let mut bytes = [0u8; 16];
        for (half, seed) in [(0usize, 0x0a11_u16), (8, 0x0b22)] {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (self.salt, seed, parts).hash(&mut hasher);
            bytes[half..half + 8].copy_from_slice(&hasher.finish().to_le_bytes());
        }
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }

    /// Keeps the structured result of call `tool_use_id` (what the SDK's `tool_use_result`
    /// carries) for its `tool_result` entry's `toolUseResult`.
    pub fn note_result(&self, tool_use_id: &str, data: Value) {
        self.state().results.insert(tool_use_id.to_owned(), data);
    }

    /// Appends a message of the conversation (`{"role","content"}`), as Claude Code records it:
    ///
    /// - a user message as `user` entries: one per `tool_result` block (with `toolUseResult` when
    ///   [noted](Self::note_result) and `sourceToolAssistantUUID`), the loop's injected context
    ///   (`<system-reminder>` blocks, the reminders it sends after an answer cut at
    ///   `max_tokens`, without a structured answer, or blocked by a Stop hook) as entries with
    ///   `isMeta: true`, the rest as one entry (`isCompactSummary: true` right after a
    ///   [compaction](Self::compacted)); reading the entries back joins them again;
    /// - an assistant message as [`Transcript::answer`] does, without the API's metadata;
    /// - a system message (the loop's context inside the conversation) as a `system` entry with
    ///   `subtype: "informational"`, its text as `content`, and the message itself as
    ///   `message`, which SDK readers leave aside and resuming puts back.
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the lines cannot be written.
    pub fn message(&self, message: &Value) -> Result<(), TranscriptError> {
        let Some(content) = message.get("content") else { return Ok(()) };
        match message.get("role").and_then(Value::as_str) {
            Some("user") => self.user(content),
            Some("assistant") => {
                let blocks = content.as_array().cloned().unwrap_or_default();
                self.assistant(&blocks, None, &json!({}))
            }
            Some("system") => {
                let text = content_text(content);
                let fields = fields([
                    ("subtype", json!("informational")),
                    ("content", json!(text)),
                    ("isMeta", json!(false)),
                    ("level", json!("info")),
                    ("message", message.clone()),
                ]);
                self.write(vec![("system", fields, None)], false)
            }
            _ => Ok(()),
        }
    }

    /// Appends the model's answer `api`: one `assistant` entry per content block, each with the
    /// whole API message but for `content` (`id`, `model`, `stop_reason`, `usage` …), as Claude
    /// Code writes a streamed answer; the entries' uuids are the ones the streamed events
    /// carried ([`Transcript::block_uuid`]).
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the lines cannot be written.
    pub fn answer(&self, api: &AssistantMessage) -> Result<(), TranscriptError> {
        let mut meta = api.to_json();
        if let Some(fields) = meta.as_object_mut() {
            fields.remove("content");
        }
        self.assistant(&api.content, api.id.as_deref(), &meta)
    }

    fn assistant(&self, blocks: &[Value], id: Option<&str>, meta: &Value) -> Result<(), TranscriptError> {
        let id = id.map_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()), str::to_owned);
        let mut entries = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            if !block.get("type").is_some_and(Value::is_string) {
                continue;
            }
            let mut message = Map::new();
            message.insert("id".into(), json!(id));
            message.insert("type".into(), json!("message"));
            message.insert("role".into(), json!("assistant"));
            if let Some(model) = meta.get("model") {
                message.insert("model".into(), model.clone());
            }
            message.insert("content".into(), json!([block]));
            for key in ["stop_reason", "stop_sequence", "usage"] {
                if let Some(value) = meta.get(key) {
                    message.insert(key.into(), value.clone());
                }
            }
            let uuid = self.block_uuid(Some(&id), index);
            entries.push(("assistant", fields([("message", Value::Object(message))]), Some(uuid)));
        }
        self.write(entries, false)
    }

    fn user(&self, content: &Value) -> Result<(), TranscriptError> {
        let blocks = match content {
            Value::String(text) if text.is_empty() => return Ok(()),
            Value::String(text) => {
                let meta = is_meta_text(text);
                let summary = !meta && std::mem::take(&mut self.state().summary_next);
                let mut entry = fields([("message", json!({"role": "user", "content": text}))]);
                mark(&mut entry, meta, summary);
                return self.write(vec![("user", entry, None)], false);
            }
            Value::Array(blocks) => blocks,
            _ => return Ok(()),
        };
        let mut entries = Vec::new();
        let mut group: Vec<Value> = Vec::new();
        let mut group_meta = false;
        let mut st = self.state();
        for block in blocks {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
            if kind == "tool_result" {
                entries.extend(user_entry(&mut group, group_meta, &mut st));
                let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
                let mut entry = fields([("message", json!({"role": "user", "content": [block]}))]);
                if let Some(data) = st.results.remove(id) {
                    entry.insert("toolUseResult".into(), data);
                }
                if let Some(caller) = st.callers.get(id) {
                    entry.insert("sourceToolAssistantUUID".into(), json!(caller));
                }
                let uuid = (!id.is_empty()).then(|| self.result_uuid(id));
                entries.push(("user", entry, uuid));
                continue;
            }
            let meta = kind == "text" && block.get("text").and_then(Value::as_str).is_some_and(is_meta_text);
            if meta != group_meta {
                entries.extend(user_entry(&mut group, group_meta, &mut st));
                group_meta = meta;
            }
            group.push(block.clone());
        }
        entries.extend(user_entry(&mut group, group_meta, &mut st));
        if entries.iter().any(|(_, entry, _)| is_result(entry)) {
            // A round's results are written: what was kept for it is not needed any more.
            st.results.clear();
            st.callers.clear();
        }
        drop(st);
        self.write(entries, false)
    }

    /// Marks a compaction, as Claude Code writes it: a `system` entry with `subtype:
    /// "compact_boundary"`, `parentUuid: null` (the chain of what follows starts here, so loading
    /// starts after it), `logicalParentUuid` naming the entry before, and `compactMetadata`
    /// (`trigger`: `auto` or `manual`, `preTokens`: the context's size before, in tokens). The
    /// next user message is the summary (`isCompactSummary: true`).
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the line cannot be written.
    pub fn compacted(&self, trigger: &str, pre_tokens: u64) -> Result<(), TranscriptError> {
        let entry = fields([
            ("subtype", json!("compact_boundary")),
            ("content", json!("Conversation compacted")),
            ("isMeta", json!(false)),
            ("level", json!("info")),
            ("compactMetadata", json!({"trigger": trigger, "preTokens": pre_tokens})),
        ]);
        self.write(vec![("system", entry, None)], true)?;
        self.state().summary_next = true;
        Ok(())
    }

    /// Writes entries (type, own fields, uuid if chosen) as whole lines in one `write`, each
    /// chained to the one before; `boundary`: the first starts a new chain (`parentUuid: null`,
    /// `logicalParentUuid` naming the previous entry). A failed write leaves the chain where it
    /// was, so the next entry links to the last whole one.
    fn write(
        &self,
        entries: Vec<(&str, Map<String, Value>, Option<String>)>,
        boundary: bool,
    ) -> Result<(), TranscriptError> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut st = self.state();
        let before = st.parent.clone();
        let mut text = Vec::with_capacity(512);
        let torn = self.torn.load(Ordering::SeqCst);
        if torn {
            text.push(b'\n');
        }
        let mut new_uuids = Vec::with_capacity(entries.len());
        for (index, (kind, own, uuid)) in entries.into_iter().enumerate() {
            let uuid =
                uuid.filter(|uuid| !st.written.contains(uuid) && !new_uuids.contains(uuid)).unwrap_or_else(new_uuid);
            let mut entry = Map::new();
            if boundary && index == 0 {
                entry.insert("parentUuid".into(), Value::Null);
                entry.insert("logicalParentUuid".into(), json!(st.parent));
            } else {
                entry.insert("parentUuid".into(), json!(st.parent));
            }
            entry.insert("isSidechain".into(), json!(self.header.agent_id.is_some()));
            entry.insert("userType".into(), json!("external"));
            entry.insert("entrypoint".into(), json!(self.header.entrypoint));
            entry.insert("cwd".into(), json!(self.header.cwd));
            entry.insert("sessionId".into(), json!(self.header.session_id));
            entry.insert("version".into(), json!(self.header.version));
            if let Some(branch) = &self.header.git_branch {
                entry.insert("gitBranch".into(), json!(branch));
            }
            if let Some(agent) = &self.header.agent_id {
                entry.insert("agentId".into(), json!(agent));
            }
            entry.insert("type".into(), json!(kind));
            let (extra, rest): (Vec<_>, Vec<_>) = own
                .into_iter()
                .partition(|(key, _)| matches!(key.as_str(), "toolUseResult" | "sourceToolAssistantUUID"));
            entry.extend(rest);
            entry.insert("uuid".into(), json!(uuid));
            entry.insert("timestamp".into(), json!(timestamp()));
            entry.extend(extra);
            if kind == "assistant" {
                for call in tool_use_ids(&entry) {
                    st.callers.insert(call, uuid.clone());
                }
            }
            serde_json::to_writer(&mut text, &entry).map_err(|error| TranscriptError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(error),
            })?;
            text.push(b'\n');
            st.parent = Some(uuid.clone());
            new_uuids.push(uuid);
        }
        match self.append(&text) {
            Ok(()) => {
                if torn {
                    self.torn.store(false, Ordering::SeqCst);
                }
                st.written.extend(new_uuids);
                Ok(())
            }
            Err(error) => {
                // Part of the lines may be in the file: the next record starts on a line of its own.
                self.torn.store(true, Ordering::SeqCst);
                st.parent = before;
                Err(error)
            }
        }
    }

    fn append(&self, bytes: &[u8]) -> Result<(), TranscriptError> {
        let io = |source| TranscriptError::Io { path: self.path.clone(), source };
        let file = open_append(&self.path).map_err(io)?;
        write_once(&file, bytes).map_err(io)
    }
}

/// The file opened to append (created if missing; only its owner may read it, as Claude Code
/// creates its transcripts).
fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(key, value)| (key.to_owned(), value)).collect()
}

/// The `user` entry of the blocks gathered in `group` (taken), if any: meta context, or the
/// user's words (the compaction's summary when one is awaited).
fn user_entry(
    group: &mut Vec<Value>,
    meta: bool,
    st: &mut State,
) -> Option<(&'static str, Map<String, Value>, Option<String>)> {
    if group.is_empty() {
        return None;
    }
    let summary = !meta && std::mem::take(&mut st.summary_next);
    let mut entry = fields([("message", json!({"role": "user", "content": std::mem::take(group)}))]);
    mark(&mut entry, meta, summary);
    Some(("user", entry, None))
}

fn mark(entry: &mut Map<String, Value>, meta: bool, summary: bool) {
    if meta {
        entry.insert("isMeta".into(), json!(true));
    }
    if summary {
        entry.insert("isVisibleInTranscriptOnly".into(), json!(true));
        entry.insert("isCompactSummary".into(), json!(true));
    }
}

fn is_result(entry: &Map<String, Value>) -> bool {
    entry.get("message").and_then(|message| message.get("content")).and_then(Value::as_array).is_some_and(|blocks| {
        blocks.iter().any(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
    })
}

fn tool_use_ids(entry: &Map<String, Value>) -> Vec<String> {
    let Some(blocks) = entry.get("message").and_then(|message| message.get("content")).and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|block| block.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Whether a user text is context the loop put in rather than the user's words (Claude Code's
/// `isMeta`): a `<system-reminder>` (memory files, hooks' context), or one of the loop's
/// reminders to the model.
fn is_meta_text(text: &str) -> bool {
    text.starts_with("<system-reminder>")
        || text == CONTINUE_AFTER_MAX_TOKENS
        || text == STRUCTURED_OUTPUT_REMINDER
        || ["Stop hook feedback:\n", "SubagentStop hook feedback:\n"].iter().any(|prefix| text.starts_with(prefix))
}

/// The text of a message's content (its text blocks joined by blank lines).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            blocks.iter().filter_map(|block| block.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n")
        }
        _ => String::new(),
    }
}

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Now, as Claude Code writes it: ISO 8601 in UTC with milliseconds (`2025-06-01T12:00:00.000Z`).
pub(super) fn timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Writes `bytes` with a single `write` call (retried only when nothing was written because a
/// signal came first). With `O_APPEND` the kernel puts the whole buffer at the end of the file
/// at once, so another process's line cannot land inside it; a short write (a full disk, a
/// kill) is an error, and the rest is not written after it, where it could land after another
/// process's line.
fn write_once(mut file: &std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    let written = loop {
        match file.write(bytes) {
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            other => break other?,
        }
    };
    if written == bytes.len() {
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::WriteZero,
            format!("only {written} of the line's {} bytes were written", bytes.len()),
        ))
    }
}

/// Whether the file at `path` is not empty and its last byte is not a newline: its last line
/// was torn (a kill while it was written).
fn ends_inside_a_line(path: &Path) -> bool {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else { return false };
    if file.seek(SeekFrom::End(-1)).is_err() {
        return false;
    }
    let mut last = [0u8; 1];
    file.read_exact(&mut last).is_ok() && last[0] != b'\n'
}
