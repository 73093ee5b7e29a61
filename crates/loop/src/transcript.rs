//! Transcripts: a session's conversation, saved as it grows, so `--continue` and `--resume ID`
//! can pick it up.
//!
//! One JSON Lines file per session, `<session folder>/transcript.jsonl`: first a header line
//! (`{"type":"session","session_id","cwd","model","version"}`), then one line per message
//! (`{"type":"message","message":{"role","content"}}`), and a `{"type":"compact"}` line where the
//! conversation was compacted (loading starts after the last one).
//!
//! **Writes.** Each record is one `write` of a whole line to the file opened with `O_APPEND`, so
//! two processes appending to one session (two `--continue` runs) never interleave their lines
//! (on a local file system; NFS does not honour `O_APPEND`). Only a kill during the write (or a
//! full disk) leaves a torn line; the next record then starts on a new line, so one torn line
//! never swallows the next.
//!
//! **Loading** ([`load`], [`load_with_notices`]) skips a torn last line (a kill while it was
//! written) and, with a notice, a torn line in the middle; then [`repair`] makes the conversation
//! a valid next request, as Claude Code's resume does for a session killed mid-turn: a `tool_use`
//! left without its `tool_result` (SIGKILL or SIGTERM during a tool call) is answered with an
//! error result saying the call was interrupted ([`INTERRUPTED_BY_USER`]), results follow their
//! call in `tool_use` order, and a user message that would follow another user message joins it
//! ([`push_message`], as Claude Code merges consecutive user messages before each request), so
//! the prompt of the resumed run goes in the same user message as the last results.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::agent::INTERRUPTED_BY_USER;

/// The transcript's file name inside a session folder.
pub const FILE_NAME: &str = "transcript.jsonl";

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
    /// The file could not be read or written.
    #[error("transcript {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// An open transcript, appended to as the conversation grows.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    /// The file may end inside a line (a write cut short by a kill, ours or an earlier
    /// process's): the next record starts with a newline, so the torn line ends there.
    torn: AtomicBool,
}

impl Transcript {
    /// Opens (creating if needed) the transcript in `folder`; a new file gets its header.
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the folder or file cannot be created.
    pub fn open(folder: &Path, session_id: &str, cwd: &Path, model: &str) -> Result<Self, TranscriptError> {
        Self::open_file(&folder.join(FILE_NAME), session_id, cwd, model)
    }

    /// Opens (creating if needed) the transcript `path` (a sub-agent's task output file); a new
    /// or empty file gets its header.
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when its folder or the file cannot be created.
    pub fn open_file(path: &Path, session_id: &str, cwd: &Path, model: &str) -> Result<Self, TranscriptError> {
        let path = path.to_path_buf();
        let io = |source| TranscriptError::Io { path: path.clone(), source };
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        let transcript = Self { path: path.clone(), torn: AtomicBool::new(ends_inside_a_line(&path)) };
        if std::fs::metadata(&path).map_or(true, |meta| meta.len() == 0) {
            transcript.append(&json!({
                "type": "session", "session_id": session_id, "cwd": cwd, "model": model,
                "version": env!("CARGO_PKG_VERSION"),
            }))?;
        }
        Ok(transcript)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one message.
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the line cannot be written.
    pub fn message(&self, message: &Value) -> Result<(), TranscriptError> {
        self.append(&json!({"type": "message", "message": message}))
    }

    /// Marks a compaction: loading starts after this line.
    ///
    /// # Errors
    /// [`TranscriptError::Io`] when the line cannot be written.
    pub fn compacted(&self) -> Result<(), TranscriptError> {
        self.append(&json!({"type": "compact"}))
    }

    /// Appends one record as one `write` of a whole line (see the [module docs](self)).
    fn append(&self, line: &Value) -> Result<(), TranscriptError> {
        let io = |source| TranscriptError::Io { path: self.path.clone(), source };
        let torn = self.torn.load(Ordering::SeqCst);
        let mut text = Vec::with_capacity(256);
        if torn {
            text.push(b'\n');
        }
        serde_json::to_writer(&mut text, line).map_err(|error| io(std::io::Error::other(error)))?;
        text.push(b'\n');
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).map_err(io)?;
        match write_once(&file, &text) {
            Ok(()) => {
                if torn {
                    self.torn.store(false, Ordering::SeqCst);
                }
                Ok(())
            }
            Err(error) => {
                // Part of the line may be in the file: the next record starts on a line of its own.
                self.torn.store(true, Ordering::SeqCst);
                Err(io(error))
            }
        }
    }
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

/// A transcript read for resuming ([`load_with_notices`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Loaded {
    /// The conversation from after the last compaction, [repaired](repair) for the next request.
    pub messages: Vec<Value>,
    /// What the user should be told (on stderr): torn lines in the middle that were skipped,
    /// calls answered as interrupted.
    pub notices: Vec<String>,
}

/// The conversation saved in the transcript at `path`, from after its last compaction,
/// [repaired](repair) so that it can be sent again: what `--continue` / `--resume` give
/// [`AgentOptions::resume`](crate::AgentOptions::resume). Torn lines and lines that are not
/// messages are skipped.
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
    let bytes = std::fs::read(path).map_err(|source| TranscriptError::Io { path: path.to_path_buf(), source })?;
    let (saved, torn) = parse(&bytes);
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
    Ok(Loaded { messages: repaired.messages, notices })
}

/// The messages of a transcript's bytes from after the last compaction, and the (1-based)
/// numbers of the lines there that are not whole JSON: a line cut short. The last line is not
/// counted: without its newline it is the one a kill tore, and skipping it is expected.
fn parse(bytes: &[u8]) -> (Vec<Value>, Vec<usize>) {
    let mut messages = Vec::new();
    let mut torn = Vec::new();
    let lines: Vec<&[u8]> = bytes.split(|byte| *byte == b'\n').collect();
    let last = lines.len().saturating_sub(1);
    for (index, line) in lines.into_iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line) else {
            if index < last {
                torn.push(index + 1);
            }
            continue;
        };
        match entry.get("type").and_then(Value::as_str) {
            Some("message") => {
                if let Some(message) = entry.get("message").filter(|m| m.get("role").is_some_and(Value::is_string)) {
                    messages.push(message.clone());
                }
            }
            Some("compact") => {
                messages.clear();
                torn.clear();
            }
            _ => {}
        }
    }
    (messages, torn)
}

/// A conversation made valid for the next request ([`repair`]).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Repaired {
    /// The messages.
    pub messages: Vec<Value>,
    /// The calls that had no result and were answered as interrupted: `(tool_use id, tool name)`.
    pub interrupted: Vec<(String, String)>,
}

/// Makes a saved conversation one the Messages API accepts as it is, whatever a kill left (Claude
/// Code's repair of a resumed session, and its pairing of each `tool_use` with a `tool_result`
/// before a request):
///
/// - the message right after an assistant message with `tool_use` blocks is a user message that
///   starts with one `tool_result` per call, in `tool_use` order; a call without one (the
///   process was killed or terminated while it ran, or before its result was saved) gets an
///   error result, [`INTERRUPTED_BY_USER`], the text the loop gives a call a stopped turn left
///   without a result. System messages saved between a call and its results move after them;
/// - a `tool_result` that answers no call of the message before it is dropped;
/// - a user message that would follow another user message (only system messages between)
///   joins it ([`push_message`]): a prompt sent after a kill goes with the last results;
/// - messages with no role or no content, assistant messages before the first user message,
///   a `tool_use` without an id or outside an assistant message and a `tool_result` outside a
///   user message are dropped.
///
/// A valid conversation comes back unchanged, and repairing twice changes nothing more, so the
/// transcript itself is left as it was saved. Never panics, whatever the values hold.
pub fn repair(messages: &[Value]) -> Repaired {
    let mut repair = Repair::default();
    for message in messages {
        let Some(role) = message.get("role").and_then(Value::as_str) else { continue };
        let Some(mut blocks) = blocks_of(message) else { continue };
        // A call only an assistant makes, a result only a user gives; a call needs its id.
        blocks.retain(|block| match kind(block) {
            "tool_use" => role == "assistant" && id_of(block).is_some(),
            "tool_result" => role == "user",
            _ => true,
        });
        match role {
            "system" if blocks.is_empty() => {}
            "system" if repair.calls.is_empty() => repair.out.push(with_blocks(message, blocks)),
            "system" => repair.held.push(with_blocks(message, blocks)),
            "assistant" => {
                repair.answer(None);
                if !repair.seen_user {
                    continue;
                }
                if blocks.is_empty() {
                    continue;
                }
                repair.calls = blocks
                    .iter()
                    .filter(|block| kind(block) == "tool_use")
                    .filter_map(|block| {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                        Some((id_of(block)?.to_owned(), name))
                    })
                    .collect();
                repair.out.push(with_blocks(message, blocks));
            }
            "user" if !repair.calls.is_empty() => repair.answer(Some((message, blocks))),
            "user" => {
                let kept: Vec<Value> = blocks.iter().filter(|block| kind(block) != "tool_result").cloned().collect();
                if kept.is_empty() {
                    continue;
                }
                repair.seen_user = true;
                push_message(&mut repair.out, with_blocks(message, kept));
            }
            _ => {}
        }
    }
    repair.answer(None);
    Repaired { messages: repair.out, interrupted: repair.interrupted }
}

/// The state of [`repair`].
#[derive(Default)]
struct Repair {
    out: Vec<Value>,
    /// The calls of the last assistant message, until their results are placed.
    calls: Vec<(String, String)>,
    /// System messages saved after those calls, placed after their results.
    held: Vec<Value>,
    seen_user: bool,
    interrupted: Vec<(String, String)>,
}

impl Repair {
    /// Places the results of the waiting calls: those `user` (the message after the calls, with
    /// its blocks) holds, an interrupted error for the others; then the held system messages.
    fn answer(&mut self, user: Option<(&Value, Vec<Value>)>) {
        if self.calls.is_empty() {
            self.out.append(&mut self.held);
            return;
        }
        let (original, blocks) = match user {
            Some((message, blocks)) => (Some(message), blocks),
            None => (None, Vec::new()),
        };
        let (mut given, rest): (Vec<Value>, Vec<Value>) =
            blocks.iter().cloned().partition(|block| kind(block) == "tool_result");
        let mut content = Vec::with_capacity(self.calls.len() + rest.len());
        for (id, name) in self.calls.drain(..) {
            let found = given.iter().position(|block| block.get("tool_use_id").and_then(Value::as_str) == Some(&id));
            match found {
                Some(at) => content.push(given.remove(at)),
                None => {
                    content.push(interrupted_result(&id));
                    self.interrupted.push((id, name));
                }
            }
        }
        content.extend(rest);
        let message = match original {
            Some(message) => with_blocks(message, content),
            None => json!({"role": "user", "content": content}),
        };
        self.out.push(message);
        self.seen_user = true;
        self.out.append(&mut self.held);
    }
}

/// The error result of a call that has no result because the session stopped while it ran: what
/// the loop gives a call a stopped turn left without a result.
fn interrupted_result(id: &str) -> Value {
    let block = agent_tools_core::ToolResultBlock::error(id, INTERRUPTED_BY_USER);
    crate::results::tool_result_json(
        "",
        agent_tools_core::Capabilities::DEFAULT,
        &agent_tools_core::Invocation::refused(block),
    )
}

/// Appends `message` to `messages`, the conversation the loop sends: a user message whose
/// previous message (system messages aside) is a user message joins that one, its blocks after
/// the earlier ones (so results stay first), as Claude Code merges consecutive user messages
/// before a request. That happens when a prompt follows a turn that ended without an answer:
/// a kill or an interrupt during the stream or the calls, with the last results or prompt last.
pub fn push_message(messages: &mut Vec<Value>, message: Value) {
    if role(&message) == Some("user")
        && let Some(previous) = messages.iter_mut().rev().find(|earlier| role(earlier) != Some("system"))
        && role(previous) == Some("user")
        && previous.is_object()
    {
        let mut blocks = blocks_of(previous).unwrap_or_default();
        blocks.extend(blocks_of(&message).unwrap_or_default());
        *previous = with_blocks(previous, blocks);
        return;
    }
    messages.push(message);
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// A message's content as blocks (a string is one text block; empty text is no block, which the
/// API refuses; what is not an object with a type is left out), or `None` when it has no usable content (none, an
/// empty string or list, not a string or list).
fn blocks_of(message: &Value) -> Option<Vec<Value>> {
    match message.get("content")? {
        Value::String(text) if text.is_empty() => None,
        Value::String(text) => Some(vec![json!({"type": "text", "text": text})]),
        Value::Array(blocks) => {
            let blocks: Vec<Value> = blocks
                .iter()
                .filter(|block| match kind(block) {
                    "" => false,
                    "text" => block.get("text").and_then(Value::as_str).is_some_and(|text| !text.is_empty()),
                    _ => true,
                })
                .cloned()
                .collect();
            (!blocks.is_empty()).then_some(blocks)
        }
        _ => None,
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn id_of(block: &Value) -> Option<&str> {
    block.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())
}

/// `message` with `blocks` as its content: the message as it is when those are its blocks
/// already (a string content stays a string), else a copy with the blocks in place.
fn with_blocks(message: &Value, blocks: Vec<Value>) -> Value {
    if blocks_of(message).is_some_and(|own| own == blocks)
        && message.get("content").is_some_and(|content| content.as_array().is_none_or(|all| all.len() == blocks.len()))
    {
        return message.clone();
    }
    let mut message = message.clone();
    if let Some(fields) = message.as_object_mut() {
        fields.insert("content".into(), Value::Array(blocks));
    }
    message
}

/// The session folder of the saved session `id` under `sessions_dir`.
///
/// # Errors
/// [`TranscriptError::NotFound`] when there is none.
pub fn find(sessions_dir: &Path, id: &str) -> Result<PathBuf, TranscriptError> {
    let folder = sessions_dir.join(id);
    if agent_tools_host::session::is_plain_id(id) && folder.join(FILE_NAME).is_file() {
        Ok(folder)
    } else {
        Err(TranscriptError::NotFound(id.to_owned()))
    }
}

/// The id of the most recently changed saved session started in `cwd`.
///
/// # Errors
/// [`TranscriptError::NothingToContinue`] when there is none.
pub fn latest(sessions_dir: &Path, cwd: &Path) -> Result<String, TranscriptError> {
    let mut best: Option<(std::time::SystemTime, String)> = None;
    for entry in std::fs::read_dir(sessions_dir).into_iter().flatten().filter_map(Result::ok) {
        let file = entry.path().join(FILE_NAME);
        let Ok(meta) = file.metadata() else { continue };
        let Ok(modified) = meta.modified() else { continue };
        let Some(header) = header(&file) else { continue };
        let same_dir = header.get("cwd").and_then(Value::as_str).is_some_and(|dir| Path::new(dir) == cwd);
        let Some(id) = header.get("session_id").and_then(Value::as_str) else { continue };
        if same_dir && best.as_ref().is_none_or(|(time, _)| modified > *time) {
            best = Some((modified, id.to_owned()));
        }
    }
    best.map(|(_, id)| id).ok_or_else(|| TranscriptError::NothingToContinue(cwd.to_path_buf()))
}

/// A transcript's header line (only the first line is read: transcripts grow long).
fn header(file: &Path) -> Option<Value> {
    use std::io::BufRead as _;
    let mut line = String::new();
    std::io::BufReader::new(std::fs::File::open(file).ok()?).read_line(&mut line).ok()?;
    serde_json::from_str(&line).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use agent_tools_testkit::fake_api::message_problems;

    use super::*;

    fn call(id: &str, name: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": name, "input": {}})
    }

    fn result(id: &str, text: &str) -> Value {
        json!({"tool_use_id": id, "type": "tool_result", "content": text})
    }

    fn interrupted(id: &str) -> Value {
        json!({"type": "tool_result", "content": INTERRUPTED_BY_USER, "is_error": true, "tool_use_id": id})
    }

    fn user(content: Value) -> Value {
        json!({"role": "user", "content": content})
    }

    fn assistant(content: Value) -> Value {
        json!({"role": "assistant", "content": content})
    }

    fn system(text: &str) -> Value {
        json!({"role": "system", "content": [{"type": "text", "text": text}]})
    }

    /// The conversation followed by a prompt, as the loop sends it: valid for the Messages API.
    fn assert_sendable(messages: &[Value]) {
        let mut sent = messages.to_vec();
        push_message(&mut sent, user(json!([{"type": "text", "text": "go on"}])));
        let problems = message_problems(&Value::Array(sent.clone()));
        assert!(problems.is_empty(), "{problems:?} in {sent:#?}");
    }

    /// [`assert_sendable`], but two assistant messages in a row (the loop's own after a
    /// pause_turn; the API combines consecutive turns) are not a problem.
    fn assert_sendable_but_for_assistant_runs(messages: &[Value]) {
        let mut sent = messages.to_vec();
        push_message(&mut sent, user(json!([{"type": "text", "text": "go on"}])));
        let mut problems = message_problems(&Value::Array(sent.clone()));
        problems.retain(|problem| !problem.ends_with("a second assistant message in a row"));
        assert!(problems.is_empty(), "{problems:?} in {sent:#?}");
    }

    #[test]
    fn a_transcript_round_trips_from_its_last_compaction_and_skips_torn_lines() {
        let sessions = tempfile::tempdir().unwrap();
        let cwd = Path::new("/work/p");
        let folder = sessions.path().join("s1");
        let transcript = Transcript::open(&folder, "s1", cwd, "m").unwrap();
        transcript.message(&json!({"role": "user", "content": "old"})).unwrap();
        transcript.compacted().unwrap();
        transcript.message(&json!({"role": "user", "content": "summary"})).unwrap();
        transcript.message(&json!({"role": "assistant", "content": [{"type": "text", "text": "hi"}]})).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(transcript.path())
            .unwrap()
            .write_all(b"{\"type\":\"mess")
            .unwrap();
        let loaded = load_with_notices(transcript.path()).unwrap();
        assert_eq!(loaded.messages.len(), 2);
        assert_eq!(loaded.messages[0]["content"], "summary");
        assert!(loaded.notices.is_empty(), "a torn last line is expected after a kill: {:?}", loaded.notices);
        assert_eq!(find(sessions.path(), "s1").unwrap(), folder);
        assert!(matches!(find(sessions.path(), "../s1"), Err(TranscriptError::NotFound(_))));
        assert_eq!(latest(sessions.path(), cwd).unwrap(), "s1");
        assert!(matches!(latest(sessions.path(), Path::new("/elsewhere")), Err(TranscriptError::NothingToContinue(_))));
    }

    #[test]
    fn after_a_torn_line_the_next_record_starts_on_its_own_line_and_the_torn_one_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let first = Transcript::open_file(&path, "s", Path::new("/p"), "m").unwrap();
        first.message(&user(json!("one"))).unwrap();
        // A kill in the middle of a line, cut inside a UTF-8 character (é is two bytes).
        let whole = json!({"type": "message", "message": user(json!("café au lait"))}).to_string();
        let cut = whole.find('é').unwrap() + 1;
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(&whole.as_bytes()[..cut]).unwrap();
        let torn = load_with_notices(&path).unwrap();
        assert_eq!(torn.messages, [user(json!("one"))]);
        assert!(torn.notices.is_empty(), "{:?}", torn.notices);

        // The resumed run opens the transcript again and appends: its records stay whole.
        let second = Transcript::open_file(&path, "s", Path::new("/p"), "m").unwrap();
        second.message(&assistant(json!([{"type": "text", "text": "two"}]))).unwrap();
        second.message(&user(json!("three"))).unwrap();
        let loaded = load_with_notices(&path).unwrap();
        assert_eq!(loaded.messages.len(), 3, "{:?}", loaded.messages);
        assert_eq!(loaded.messages[2]["content"], "three");
        assert_eq!(loaded.notices.len(), 1, "{:?}", loaded.notices);
        assert!(loaded.notices[0].contains(": line 3 is not whole"), "{}", loaded.notices[0]);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned());
        assert!(text.ends_with("\"three\"}}\n"), "{text}");
        assert_eq!(text.lines().count(), 5, "header, one, the torn line, two, three: {text}");
    }

    #[test]
    fn a_call_left_without_its_result_is_answered_as_interrupted_in_tool_use_order() {
        let saved = [
            user(json!("run both")),
            system("environment"),
            assistant(json!([{"type": "text", "text": "Running."}, call("t1", "Bash"), call("t2", "Read")])),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages[..3], saved);
        assert_eq!(repaired.messages[3], user(json!([interrupted("t1"), interrupted("t2")])));
        assert_eq!(repaired.interrupted, [("t1".to_owned(), "Bash".to_owned()), ("t2".to_owned(), "Read".to_owned())]);
        assert_sendable(&repaired.messages);
        // The synthetic result is the loop's own for a call a stopped turn left without one.
        let loop_block = crate::results::tool_result_json(
            "Bash",
            agent_tools_core::Capabilities::DEFAULT,
            &agent_tools_core::Invocation::refused(agent_tools_core::ToolResultBlock::error("t1", INTERRUPTED_BY_USER)),
        );
        assert_eq!(loop_block.to_string(), interrupted("t1").to_string());

        // Results saved out of order, one missing, one answering nothing, a system message
        // between the call and them: in tool_use order, right after the call.
        let saved = [
            user(json!("go")),
            assistant(json!([call("a", "Bash"), call("b", "Grep"), call("c", "Read")])),
            system("hook output"),
            user(json!([result("c", "C"), result("zz", "orphan"), {"type": "text", "text": "note"}, result("a", "A")])),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages.len(), 4);
        assert_eq!(
            repaired.messages[2],
            user(json!([result("a", "A"), interrupted("b"), result("c", "C"), {"type": "text", "text": "note"}]))
        );
        assert_eq!(repaired.messages[3], system("hook output"));
        assert_eq!(repaired.interrupted, [("b".to_owned(), "Grep".to_owned())]);
        assert_sendable(&repaired.messages);
    }

    #[test]
    fn a_prompt_after_the_last_results_joins_their_message() {
        // Killed between the results and the next request: a prompt after them, then a
        // second run killed while its answer streamed, then a third prompt.
        let saved = [
            user(json!("list")),
            system("environment"),
            assistant(json!([call("t1", "Bash")])),
            user(json!([result("t1", "a.txt")])),
            system("# Environment update"),
            user(json!([{"type": "text", "text": "and now?"}])),
            user(json!("still there?")),
        ];
        let repaired = repair(&saved);
        assert_eq!(repaired.messages.len(), 5);
        assert_eq!(
            repaired.messages[3],
            user(json!([
                result("t1", "a.txt"),
                {"type": "text", "text": "and now?"},
                {"type": "text", "text": "still there?"},
            ]))
        );
        assert_eq!(repaired.messages[4], system("# Environment update"));
        assert!(repaired.interrupted.is_empty());
        assert_sendable(&repaired.messages);

        // The loop does the same as it goes, so what it sends is what a later resume loads.
        let mut live = Vec::new();
        for message in saved {
            push_message(&mut live, message);
        }
        assert_eq!(live, repaired.messages);
    }

    #[test]
    fn a_valid_conversation_is_unchanged_and_repairing_twice_changes_nothing_more() {
        let valid = [
            user(json!("hi")),
            system("environment"),
            assistant(json!([{"type": "text", "text": "Reading."}, call("t1", "Read")])),
            user(json!([result("t1", "text"), {"type": "text", "text": "Tool loaded."}])),
            assistant(json!([{"type": "text", "text": "Done."}])),
        ];
        assert_eq!(repair(&valid), Repaired { messages: valid.to_vec(), interrupted: Vec::new() });
        let odd = [
            json!({"role": "assistant", "content": [call("early", "Bash")]}),
            user(json!([result("early", "x")])),
            user(json!("first")),
            assistant(json!([])),
            assistant(json!([{"type": "tool_use", "name": "NoId", "input": {}}, call("t2", "Bash")])),
            json!({"role": "user"}),
            json!({"content": "no role"}),
        ];
        let once = repair(&odd);
        assert_eq!(
            once.messages,
            [user(json!("first")), assistant(json!([call("t2", "Bash")])), user(json!([interrupted("t2")]))]
        );
        assert_eq!(repair(&once.messages).messages, once.messages);
        assert_sendable(&once.messages);
    }

    /// A small deterministic generator (no new dependency): xorshift.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn any_saved_conversation_repairs_to_one_the_api_takes_without_a_panic() {
        let mut random = Random(0x9E37_79B9_7F4A_7C15);
        let ids = ["a", "b", "c", ""];
        let mut answered = 0;
        for _ in 0..3000 {
            let mut saved = Vec::new();
            for _ in 0..random.below(9) {
                let id = ids[random.below(ids.len())];
                let block = match random.below(7) {
                    0 => call(id, "Bash"),
                    1 => result(id, "r"),
                    2 => json!({"type": "text", "text": "t"}),
                    3 => json!({"type": "text", "text": ""}),
                    4 => json!(null),
                    5 => json!({"type": "tool_use", "id": 7}),
                    _ => json!({"type": "thinking", "thinking": "hm", "signature": "s"}),
                };
                let content = match random.below(5) {
                    0 => json!("plain"),
                    1 => json!(""),
                    2 => json!({"type": "text"}),
                    _ => json!([block, call(ids[random.below(3)], "Read")]),
                };
                let role = ["user", "user", "user", "assistant", "assistant", "assistant", "system", "tool", ""]
                    [random.below(9)];
                saved.push(match random.below(12) {
                    0 => json!(42),
                    1 => json!({"role": 5, "content": content}),
                    _ => json!({"role": role, "content": content}),
                });
            }
            let repaired = repair(&saved);
            assert_eq!(repair(&repaired.messages).messages, repaired.messages, "{saved:#?}");
            answered += repaired.interrupted.len();
            assert_sendable_but_for_assistant_runs(&repaired.messages);
        }
        assert!(answered > 200, "the cases cover calls without results: {answered}");
    }

    /// The other process of [`two_processes_appending_to_one_transcript_never_interleave_lines`]:
    /// when started by it, appends large records to the transcript it names.
    #[test]
    fn appending_writer() {
        let Some(path) = std::env::var_os("AGENT_TOOLS_TRANSCRIPT_WRITER") else { return };
        let writer = std::env::var("AGENT_TOOLS_TRANSCRIPT_WRITER_NAME").unwrap();
        let transcript = Transcript::open_file(Path::new(&path), "s", Path::new("/p"), "m").unwrap();
        for n in 0..200 {
            // 20 kB records: far beyond PIPE_BUF, each one `write`.
            let text = format!("{writer} {n} {}", writer.repeat(20_000 / writer.len()));
            transcript.message(&user(json!(text))).unwrap();
        }
    }

    #[test]
    fn two_processes_appending_to_one_transcript_never_interleave_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let exe = std::env::current_exe().unwrap();
        let writers: Vec<std::process::Child> = ["x", "y"]
            .iter()
            .map(|name| {
                std::process::Command::new(&exe)
                    .args(["--exact", "transcript::tests::appending_writer", "--test-threads=1", "--nocapture"])
                    .env("AGENT_TOOLS_TRANSCRIPT_WRITER", &path)
                    .env("AGENT_TOOLS_TRANSCRIPT_WRITER_NAME", name)
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut writer in writers {
            assert!(writer.wait().unwrap().success());
        }
        let bytes = std::fs::read(&path).unwrap();
        let (messages, torn) = parse(&bytes);
        assert!(torn.is_empty(), "torn lines {torn:?}");
        assert_eq!(messages.len(), 400);
        for name in ["x", "y"] {
            let texts: Vec<&str> = messages
                .iter()
                .filter_map(|message| message["content"].as_str())
                .filter(|text| text.starts_with(name))
                .collect();
            assert_eq!(texts.len(), 200, "{name}");
            for (n, text) in texts.iter().enumerate() {
                assert_eq!(
                    *text,
                    format!("{name} {n} {}", name.repeat(20_000)),
                    "{name}'s record {n} is whole and in order"
                );
            }
        }
    }
}
