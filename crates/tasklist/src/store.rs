//! The task list on disk: one folder per list, one JSON file per task, a lock file, and the
//! high-water mark of ids (Claude Code's `utils/tasks.ts`).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::task::{NewTask, Task, TaskStatus};

/// The file holding the highest id ever given out in a list, so ids are never reused after a
/// task is deleted (Claude Code's `.highwatermark`).
pub const HIGH_WATER_MARK_FILE: &str = ".highwatermark";

/// The file every change to a list locks (an exclusive advisory lock, `flock` on Unix).
pub const LOCK_FILE: &str = ".lock";

/// Most characters kept of a list id in its folder name.
pub const MAX_COMPONENT_CHARS: usize = 128;

/// The folder name used for an empty list id.
pub const DEFAULT_LIST: &str = "default";

/// Why a task list operation failed. Every variant says what and where; none is a panic.
#[derive(Debug, thiserror::Error)]
pub enum TaskListError {
    /// A file or folder could not be read, written, locked or removed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `write`, `lock`, `create the folder` …).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },
    /// A task file that is not a valid task record (bad JSON, missing field, unknown status).
    #[error("task file {} is not a valid task: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (serde's message, with line and column).
        reason: String,
    },
    /// A task id that names no task of the list.
    #[error("Task #{id} not found")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// Every id up to `u64::MAX` has been used (only a hand-edited high-water mark gets here).
    #[error("no task ids are left in this list")]
    IdsExhausted,
    /// No folder for the list could be made (e.g. no temporary folder).
    #[error("cannot find a folder for the task list: {0}")]
    NoFolder(String),
    /// The blocking worker running the operation stopped (the runtime is shutting down).
    #[error("the task list operation was interrupted: {0}")]
    Interrupted(String),
}

fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> TaskListError + 'a {
    move |source| TaskListError::Io { action, path: path.to_path_buf(), source }
}

/// `input` made safe as one path component: every character outside `[A-Za-z0-9_-]` becomes `-`
/// (Claude Code's `sanitizePathComponent`, so `/`, `..` and NUL never reach a path), cut to
/// [`MAX_COMPONENT_CHARS`]; an empty result becomes [`DEFAULT_LIST`].
pub fn sanitize_component(input: &str) -> String {
    let safe: String = input
        .chars()
        .take(MAX_COMPONENT_CHARS)
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' })
        .collect();
    if safe.is_empty() { DEFAULT_LIST.to_owned() } else { safe }
}

/// Whether `id` can name a task file as it is: 1 to [`MAX_COMPONENT_CHARS`] characters of
/// `[A-Za-z0-9_-]`. Any other id names no task (it is never mapped onto another file).
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_COMPONENT_CHARS
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The tasks of a list that could be read, and the files that could not.
#[derive(Debug, Default)]
pub struct Listing {
    /// Every readable task, by id (numeric ids in numeric order, then any others by name).
    pub tasks: Vec<Task>,
    /// Task files skipped because they could not be read or parsed ([`TaskListError::Corrupt`]
    /// or [`TaskListError::Io`]), by file name.
    pub skipped: Vec<TaskListError>,
}

/// One task list: the folder `<root>/<sanitised list id>/`.
///
/// Reads need no lock (every write replaces a file in one rename, so a reader sees a whole old
/// or a whole new file). Every change runs in a [`Transaction`] holding the list's exclusive
/// lock, so concurrent creators — threads or processes — never get the same id, and
/// read-modify-write updates never lose each other's changes. The folder is created on the
/// first change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStore {
    dir: PathBuf,
    list_id: String,
}

impl TaskStore {
    /// The list `list_id` under `root` (the list id is sanitised with [`sanitize_component`]).
    /// Nothing is touched on disk.
    pub fn new(root: impl Into<PathBuf>, list_id: &str) -> Self {
        let list_id = sanitize_component(list_id);
        Self { dir: root.into().join(&list_id), list_id }
    }

    /// The list's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sanitised list id (the folder's name).
    pub fn list_id(&self) -> &str {
        &self.list_id
    }

    /// The file of task `id` (whether or not it exists); `None` for an id that
    /// [`is_valid_id`] refuses.
    pub fn task_path(&self, id: &str) -> Option<PathBuf> {
        is_valid_id(id).then(|| self.dir.join(format!("{id}.json")))
    }

    /// Task `id`, or `None` when there is no such task (or the id is not a valid id).
    ///
    /// # Errors
    /// [`TaskListError::Corrupt`] for a file that is not a task, [`TaskListError::Io`] when it
    /// cannot be read.
    pub fn get(&self, id: &str) -> Result<Option<Task>, TaskListError> {
        let Some(path) = self.task_path(id) else { return Ok(None) };
        read_task(&path, id)
    }

    /// Every task of the list (see [`Listing`]); an absent folder is an empty list.
    ///
    /// # Errors
    /// [`TaskListError::Io`] when the folder exists but cannot be listed. Unreadable task files
    /// are not errors: they are in [`Listing::skipped`].
    pub fn list(&self) -> Result<Listing, TaskListError> {
        let mut listing = Listing::default();
        for (id, path) in self.task_files()? {
            match read_task(&path, &id) {
                Ok(Some(task)) => listing.tasks.push(task),
                Ok(None) => {} // deleted meanwhile
                Err(error) => listing.skipped.push(error),
            }
        }
        listing.tasks.sort_by(|a, b| id_order(&a.id, &b.id));
        Ok(listing)
    }

    /// Creates a task with the next id, status `pending` and no links (Claude Code's
    /// `createTask`), and returns it.
    ///
    /// # Errors
    /// [`TaskListError::Io`] when the folder, lock or file cannot be made;
    /// [`TaskListError::IdsExhausted`].
    pub fn create(&self, new: NewTask) -> Result<Task, TaskListError> {
        self.transaction(|tx| tx.create(new))
    }

    /// Runs `change` while holding the list's exclusive lock (waiting for other holders, in
    /// this process or another), creating the folder first if needed.
    ///
    /// # Errors
    /// [`TaskListError::Io`] when the folder or lock file cannot be made or locked; whatever
    /// `change` returns.
    pub fn transaction<R>(
        &self,
        change: impl FnOnce(&mut Transaction<'_>) -> Result<R, TaskListError>,
    ) -> Result<R, TaskListError> {
        fs::create_dir_all(&self.dir).map_err(io_error("create the folder", &self.dir))?;
        let lock_path = self.dir.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_error("open", &lock_path))?;
        lock.lock().map_err(io_error("lock", &lock_path))?;
        let mut tx = Transaction { store: self, _lock: lock };
        change(&mut tx)
        // The lock is released when `tx` (and its file) is dropped.
    }

    /// The `(id, path)` of every `<id>.json` file with a valid id.
    fn task_files(&self) -> Result<Vec<(String, PathBuf)>, TaskListError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(io_error("list", &self.dir)(error)),
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|name| name.strip_suffix(".json")) else { continue };
            if is_valid_id(id) {
                files.push((id.to_owned(), entry.path()));
            }
        }
        Ok(files)
    }

    /// The highest id in use or ever used: numeric file names and the high-water mark.
    fn highest_id(&self) -> Result<u64, TaskListError> {
        let from_files = self.task_files()?.iter().filter_map(|(id, _)| id.parse::<u64>().ok()).max().unwrap_or(0);
        Ok(from_files.max(self.high_water_mark()))
    }

    /// The recorded high-water mark; 0 when absent or unreadable (the files still count).
    fn high_water_mark(&self) -> u64 {
        fs::read_to_string(self.dir.join(HIGH_WATER_MARK_FILE))
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0)
    }

    fn raise_high_water_mark(&self, id: u64) -> Result<(), TaskListError> {
        if id > self.high_water_mark() {
            write_atomically(&self.dir, &self.dir.join(HIGH_WATER_MARK_FILE), id.to_string().as_bytes())?;
        }
        Ok(())
    }
}

/// Numeric ids in numeric order, before any other ids (in name order).
fn id_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// Reads one task file; `None` when it does not exist.
fn read_task(path: &Path, id: &str) -> Result<Option<Task>, TaskListError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) if error.kind() == io::ErrorKind::InvalidData => {
            return Err(TaskListError::Corrupt { path: path.to_path_buf(), reason: "not UTF-8 text".into() });
        }
        Err(error) => return Err(io_error("read", path)(error)),
    };
    let mut task: Task = serde_json::from_str(&text)
        .map_err(|error| TaskListError::Corrupt { path: path.to_path_buf(), reason: error.to_string() })?;
    id.clone_into(&mut task.id);
    Ok(Some(task))
}

/// Writes `bytes` to `path` atomically ([`agent_tools_files::write_atomic`]: a kill leaves no
/// temporary file in `dir`).
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), TaskListError> {
    agent_tools_files::write_atomic(path, bytes).map(drop).map_err(io_error("write in", dir))
}

/// Changes to one list, made while its lock is held (see [`TaskStore::transaction`]).
#[derive(Debug)]
pub struct Transaction<'a> {
    store: &'a TaskStore,
    _lock: File,
}

impl Transaction<'_> {
    /// Task `id`, as [`TaskStore::get`].
    ///
    /// # Errors
    /// As [`TaskStore::get`].
    pub fn get(&self, id: &str) -> Result<Option<Task>, TaskListError> {
        self.store.get(id)
    }

    /// Task `id`, which must exist.
    ///
    /// # Errors
    /// [`TaskListError::NotFound`], or as [`TaskStore::get`].
    pub fn require(&self, id: &str) -> Result<Task, TaskListError> {
        self.store.get(id)?.ok_or_else(|| TaskListError::NotFound { id: id.to_owned() })
    }

    /// Every task, as [`TaskStore::list`].
    ///
    /// # Errors
    /// As [`TaskStore::list`].
    pub fn list(&self) -> Result<Listing, TaskListError> {
        self.store.list()
    }

    /// Creates a task with id = the highest id in use or ever used + 1, records that id as the
    /// high-water mark, and returns the task.
    ///
    /// # Errors
    /// [`TaskListError::Io`]; [`TaskListError::IdsExhausted`].
    pub fn create(&mut self, new: NewTask) -> Result<Task, TaskListError> {
        let next = self.store.highest_id()?.checked_add(1).ok_or(TaskListError::IdsExhausted)?;
        let task = Task {
            id: next.to_string(),
            subject: new.subject,
            description: new.description,
            active_form: new.active_form,
            owner: new.owner,
            status: TaskStatus::Pending,
            blocks: Vec::new(),
            blocked_by: Vec::new(),
            metadata: new.metadata,
        };
        self.put(&task)?;
        self.store.raise_high_water_mark(next)?;
        Ok(task)
    }

    /// Writes `task` to its file (creating or replacing it atomically).
    ///
    /// # Errors
    /// [`TaskListError::NotFound`] for an id [`is_valid_id`] refuses; [`TaskListError::Io`].
    pub fn put(&mut self, task: &Task) -> Result<(), TaskListError> {
        let path = self.store.task_path(&task.id).ok_or_else(|| TaskListError::NotFound { id: task.id.clone() })?;
        let mut json = serde_json::to_vec_pretty(task)
            .map_err(|error| TaskListError::Corrupt { path: path.clone(), reason: error.to_string() })?;
        json.push(b'\n');
        write_atomically(&self.store.dir, &path, &json)
    }

    /// Deletes task `id` (Claude Code's `deleteTask`): raises the high-water mark to its id so
    /// the id is never given out again, removes the file, and removes the id from the `blocks`
    /// and `blockedBy` of every other task. Returns false when there was no such task.
    ///
    /// # Errors
    /// [`TaskListError::Io`] when a file cannot be removed or rewritten.
    pub fn delete(&mut self, id: &str) -> Result<bool, TaskListError> {
        let Some(path) = self.store.task_path(id) else { return Ok(false) };
        if !path.exists() {
            return Ok(false);
        }
        if let Ok(number) = id.parse::<u64>() {
            self.store.raise_high_water_mark(number)?;
        }
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(error) => return Err(io_error("remove", &path)(error)),
        }
        for mut task in self.list()?.tasks {
            let before = (task.blocks.len(), task.blocked_by.len());
            task.blocks.retain(|other| other != id);
            task.blocked_by.retain(|other| other != id);
            if (task.blocks.len(), task.blocked_by.len()) != before {
                self.put(&task)?;
            }
        }
        Ok(true)
    }

    /// Records that task `blocker` blocks task `blocked`, on both sides (`blocker.blocks` gets
    /// `blocked`, `blocked.blockedBy` gets `blocker`; ids already there are not repeated) —
    /// Claude Code's `blockTask`, except that an unknown id is an error instead of a silent no-op.
    ///
    /// # Errors
    /// [`TaskListError::NotFound`] naming the missing task; [`TaskListError::Io`].
    pub fn link(&mut self, blocker: &str, blocked: &str) -> Result<(), TaskListError> {
        let mut from = self.require(blocker)?;
        let mut to = self.require(blocked)?;
        if !from.blocks.iter().any(|id| id == blocked) {
            from.blocks.push(blocked.to_owned());
            self.put(&from)?;
        }
        if !to.blocked_by.iter().any(|id| id == blocker) {
            to.blocked_by.push(blocker.to_owned());
            self.put(&to)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_sanitised() {
        assert_eq!(sanitize_component("abc-DEF_12"), "abc-DEF_12");
        assert_eq!(sanitize_component("../etc/passwd"), "---etc-passwd");
        assert_eq!(sanitize_component(".."), "--");
        assert_eq!(sanitize_component("a\0b"), "a-b");
        assert_eq!(sanitize_component(""), DEFAULT_LIST);
        assert_eq!(sanitize_component("é"), "-");
        assert_eq!(sanitize_component(&"x".repeat(500)).len(), MAX_COMPONENT_CHARS);
    }

    #[test]
    fn ids_are_checked_not_rewritten() {
        assert!(is_valid_id("12"));
        assert!(is_valid_id("a_b-c"));
        for bad in ["", "..", "1/2", "../1", "1.json", "a\0", "1 2"] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn numeric_ids_sort_numerically() {
        let mut ids = vec!["10", "b", "2", "1", "a"];
        ids.sort_by(|a, b| id_order(a, b));
        assert_eq!(ids, ["1", "2", "10", "a", "b"]);
    }
}
