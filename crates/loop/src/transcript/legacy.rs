//! agent-tools' first transcript format, read only (sessions saved before transcripts moved to
//! Claude Code's layout still resume): `<sessions dir>/<id>/transcript.jsonl` holding a header
//! line (`{"type":"session","session_id","cwd","model","version"}`), one
//! `{"type":"message","message":{"role","content"}}` line per message, and a `{"type":"compact"}`
//! line where the conversation was compacted.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The transcript's file name inside a session folder of the first format.
pub const LEGACY_FILE_NAME: &str = "transcript.jsonl";

/// The messages of the first format's lines from after the last compaction.
pub(super) fn messages(objects: &[Map<String, Value>]) -> Vec<Value> {
    let mut messages = Vec::new();
    for object in objects {
        match object.get("type").and_then(Value::as_str) {
            Some("message") => {
                if let Some(message) = object.get("message").filter(|m| m.get("role").is_some_and(Value::is_string)) {
                    messages.push(message.clone());
                }
            }
            Some("compact") => messages.clear(),
            _ => {}
        }
    }
    messages
}

/// The first-format transcript of session `id` under `sessions_dir`, if there is one.
pub(super) fn find(sessions_dir: &Path, id: &str) -> Option<PathBuf> {
    let file = sessions_dir.join(id).join(LEGACY_FILE_NAME);
    (agent_tools_host::session::is_plain_id(id) && file.is_file()).then_some(file)
}

/// The most recently changed first-format session started in `cwd`: its id, transcript and
/// change time.
pub(super) fn latest(sessions_dir: &Path, cwd: &Path) -> Option<(String, PathBuf, std::time::SystemTime)> {
    let mut best: Option<(String, PathBuf, std::time::SystemTime)> = None;
    for entry in std::fs::read_dir(sessions_dir).into_iter().flatten().filter_map(Result::ok) {
        let file = entry.path().join(LEGACY_FILE_NAME);
        let Ok(modified) = file.metadata().and_then(|meta| meta.modified()) else { continue };
        let Some(header) = header(&file) else { continue };
        let same_dir = header.get("cwd").and_then(Value::as_str).is_some_and(|dir| Path::new(dir) == cwd);
        let Some(id) = header.get("session_id").and_then(Value::as_str) else { continue };
        if same_dir && best.as_ref().is_none_or(|(_, _, time)| modified > *time) {
            best = Some((id.to_owned(), file, modified));
        }
    }
    best
}

/// A transcript's header line (only the first line is read: transcripts grow long).
fn header(file: &Path) -> Option<Value> {
    use std::io::BufRead as _;
    let mut line = String::new();
    std::io::BufReader::new(std::fs::File::open(file).ok()?).read_line(&mut line).ok()?;
    serde_json::from_str(&line).ok()
}
