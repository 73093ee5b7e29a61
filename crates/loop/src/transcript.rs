//! Transcripts: a session's conversation, saved as it grows, so `--continue` and `--resume ID`
//! can pick it up.
//!
//! One JSON Lines file per session, `<session folder>/transcript.jsonl`: first a header line
//! (`{"type":"session","session_id","cwd","model","version"}`), then one line per message
//! (`{"type":"message","message":{"role","content"}}`), and a `{"type":"compact"}` line where the
//! conversation was compacted (loading starts after the last one). Each line is appended with a
//! single write, so a crash leaves at most a torn last line, which loading skips.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

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
        let transcript = Self { path: path.clone() };
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

    fn append(&self, line: &Value) -> Result<(), TranscriptError> {
        let mut text = line.to_string();
        text.push('\n');
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .map_err(|source| TranscriptError::Io { path: self.path.clone(), source })
    }
}

/// The messages saved in the transcript at `path`, from after its last compaction; torn or
/// foreign lines are skipped.
///
/// # Errors
/// [`TranscriptError::Io`] when the file cannot be read.
pub fn load(path: &Path) -> Result<Vec<Value>, TranscriptError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| TranscriptError::Io { path: path.to_path_buf(), source })?;
    let mut messages = Vec::new();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        match entry.get("type").and_then(Value::as_str) {
            Some("message") => {
                if let Some(message) = entry.get("message").filter(|m| m.get("role").is_some()) {
                    messages.push(message.clone());
                }
            }
            Some("compact") => messages.clear(),
            _ => {}
        }
    }
    Ok(messages)
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
    use super::*;

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
        let messages = load(transcript.path()).unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["content"], "summary");
        assert_eq!(find(sessions.path(), "s1").unwrap(), folder);
        assert!(matches!(find(sessions.path(), "../s1"), Err(TranscriptError::NotFound(_))));
        assert_eq!(latest(sessions.path(), cwd).unwrap(), "s1");
        assert!(matches!(latest(sessions.path(), Path::new("/elsewhere")), Err(TranscriptError::NothingToContinue(_))));
    }
}
