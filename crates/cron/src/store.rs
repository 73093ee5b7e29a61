//! Durable jobs on disk: `<project>/.claude/scheduled_tasks.json`, Claude Code's file and format.
//!
//! The file is `{"tasks": [ … ]}`, pretty-printed with two spaces and a final newline; each task
//! has `id`, `cron`, `prompt`, `createdAt` (ms since the Unix epoch) and optionally
//! `lastFiredAt`, `recurring: true` and `maxAgeMs`. Fields this crate does not know (Claude
//! Code's `createdBySessionId` and the like) are kept as they are when the file is rewritten.
//!
//! Every change runs under an exclusive lock on the `.claude` folder (an advisory `flock` on the
//! folder itself, so no lock file is left in the project), re-reads the file, and replaces it in
//! one rename
//! ([`agent_tools_files::write_atomic`]): two sessions of one project never lose each
//! other's jobs, and a reader never sees half a file.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The file's path inside a project.
pub const FILE: &str = ".claude/scheduled_tasks.json";

/// A scheduled job (one entry of the file, or a session-only job held in memory).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJob {
    /// Eight hex digits (the start of a UUID).
    pub id: String,
    /// The five-field expression, local time.
    pub cron: String,
    /// What enters the conversation when it fires.
    pub prompt: String,
    /// When it was made, ms since the Unix epoch.
    pub created_at: i64,
    /// When it last fired, ms since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fired_at: Option<i64>,
    /// Fires on every match (else once, then it is deleted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recurring: bool,
    /// Age in ms at which a recurring job fires one last time and ends (0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<i64>,
    /// The sub-agent that made it (session-only jobs); `None` for the main conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// Kept in the file (not serialized: where the job lives says it).
    #[serde(skip)]
    pub durable: bool,
    /// Fields of the file this crate does not know, kept on rewrite.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// It exists but is not `{"tasks": [...]}`: it is left as it is.
    #[error(
        "The scheduled tasks file ({0}) is not a list of tasks, so it was left unchanged. Repair or remove it, then try again."
    )]
    Unreadable(String),
    /// It is a symbolic link, which is not followed.
    #[error("The scheduled tasks file ({0}) is a symbolic link; it is not followed. Replace it with a file.")]
    Link(String),
    /// Reading, locking or writing failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
}

#[derive(Serialize, Deserialize)]
struct FileBody {
    tasks: Vec<Value>,
}

/// The durable jobs of one project.
#[derive(Debug, Clone)]
pub struct DurableStore {
    path: PathBuf,
}

impl DurableStore {
    /// The store of the project at `project_dir`.
    pub fn new(project_dir: &Path) -> Self {
        Self { path: project_dir.join(FILE) }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The jobs in the file (none when there is no file). Entries that are not jobs, or whose
    /// expression does not parse, are skipped (and kept in the file on rewrite).
    ///
    /// # Errors
    /// [`StoreError::Unreadable`] when the file is not `{"tasks": [...]}`; [`StoreError::Io`]
    /// when it cannot be read.
    pub fn load(&self) -> Result<Vec<CronJob>, StoreError> {
        Ok(self.read()?.0)
    }

    /// The jobs and the entries that are not (kept as they are). A job whose expression does
    /// not parse is still a job (listed, deletable; it can never fire).
    fn read(&self) -> Result<(Vec<CronJob>, Vec<Value>), StoreError> {
        match std::fs::symlink_metadata(&self.path) {
            // A link could lead the reads and writes anywhere (another project's jobs, a file
            // of the user's): it is not followed.
            Ok(meta) if meta.file_type().is_symlink() => return Err(StoreError::Link(FILE.to_owned())),
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
            Err(source) => return Err(self.io("read", source)),
        }
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
            Err(source) => return Err(self.io("read", source)),
        };
        if text.trim().is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let body: FileBody = serde_json::from_str(&text).map_err(|_| StoreError::Unreadable(FILE.to_owned()))?;
        let mut jobs = Vec::new();
        let mut others = Vec::new();
        for entry in body.tasks {
            match serde_json::from_value::<CronJob>(entry.clone()) {
                Ok(mut job) => {
                    job.durable = true;
                    job.agent_id = None;
                    jobs.push(job);
                }
                Err(_) => others.push(entry),
            }
        }
        Ok((jobs, others))
    }

    /// Runs `change` on the jobs under the folder's lock and writes the file back when it
    /// returns `true`. Returns what `change` returned. Nothing is made in the project (no
    /// `.claude/` folder, no file) unless the change writes.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be locked, read or written; it is then unchanged.
    pub fn update<R>(&self, change: impl FnOnce(&mut Vec<CronJob>) -> (bool, R)) -> Result<R, StoreError> {
        let folder = self.path.parent().map(Path::to_path_buf).unwrap_or_default();
        if !folder.is_dir() {
            // Nothing to lock or read yet: make the folder only for a change that writes.
            let mut added = Vec::new();
            let (changed, out) = change(&mut added);
            if !changed {
                return Ok(out);
            }
            std::fs::create_dir_all(&folder).map_err(|source| self.io("create the folder of", source))?;
            let _lock = self.lock(&folder)?;
            let (mut jobs, others) = self.read()?;
            jobs.extend(added);
            self.write(&jobs, others)?;
            return Ok(out);
        }
        let _lock = self.lock(&folder)?;
        let (mut jobs, others) = self.read()?;
        let (changed, out) = change(&mut jobs);
        if changed {
            self.write(&jobs, others)?;
        }
        Ok(out)
    }

    fn write(&self, jobs: &[CronJob], others: Vec<Value>) -> Result<(), StoreError> {
        let mut tasks: Vec<Value> = Vec::with_capacity(jobs.len() + others.len());
        for job in jobs {
            let mut job = job.clone();
            job.agent_id = None;
            tasks.push(serde_json::to_value(job).unwrap_or(Value::Null));
        }
        tasks.extend(others);
        let mut text = serde_json::to_string_pretty(&FileBody { tasks }).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        agent_tools_files::write_atomic(&self.path, text.as_bytes()).map_err(|source| self.io("write", source))?;
        Ok(())
    }

    /// An exclusive lock on the `.claude` folder itself (no lock file is left in the project).
    fn lock(&self, folder: &Path) -> Result<File, StoreError> {
        let handle = File::open(folder).map_err(|source| self.io("open the folder of", source))?;
        handle.lock().map_err(|source| self.io("lock the folder of", source))?;
        Ok(handle)
    }

    fn io(&self, action: &'static str, source: io::Error) -> StoreError {
        StoreError::Io { action, path: self.path.display().to_string(), source }
    }
}
