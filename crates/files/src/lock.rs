//! Exclusive locks that hold across threads and processes, for files that several processes
//! read, change and write back (task lists, the trust record, OAuth tokens …).
//!
//! The lock is an advisory lock on a separate lock file (`flock(LOCK_EX)` on Unix, `LockFileEx`
//! on Windows, through [`std::fs::File::lock`]). The lock file is made once, empty, and never
//! replaced or removed, so every process locks the same file; the data file beside it is
//! replaced in one rename ([`crate::write_atomic`]), so readers that take no lock still see a
//! whole old or a whole new file. The lock belongs to one open of the lock file: two
//! [`FileLock`]s of one path exclude each other even inside one process, and the operating
//! system releases a lock when its holder exits, however it exits.
//!
//! The discipline for a read-modify-write: take the lock, read the file, change it, write it
//! with [`crate::write_atomic`], drop the lock.
//!
//! ```
//! use agent_tools_files::{FileLock, lock_path_beside, write_atomic};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let list = dir.path().join("list.txt");
//! let lock_file = lock_path_beside(&list);
//! assert_eq!(lock_file, dir.path().join(".list.txt.lock"));
//! {
//!     let _lock = FileLock::acquire(&lock_file).unwrap();
//!     assert!(FileLock::try_acquire(&lock_file).unwrap().is_none(), "held");
//!     let mut text = std::fs::read_to_string(&list).unwrap_or_default();
//!     text.push_str("one more\n");
//!     write_atomic(&list, text.as_bytes()).unwrap();
//! }
//! assert!(FileLock::try_acquire(&lock_file).unwrap().is_some(), "released when dropped");
//! ```

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// An exclusive lock on a lock file, held until this value is dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// Waits (blocking the thread) until the exclusive lock on `path` is free and takes it.
    /// The file is created empty (`0600` on Unix) if missing; its folder must exist.
    ///
    /// # Errors
    /// The lock file cannot be opened or created, or the system refuses the lock.
    pub fn acquire(path: &Path) -> io::Result<Self> {
        let file = open(path)?;
        file.lock()?;
        Ok(Self { file, path: path.to_path_buf() })
    }

    /// Takes the exclusive lock on `path` if nobody holds it; `Ok(None)` when someone does
    /// (this process or another). The file is created as by [`FileLock::acquire`].
    ///
    /// # Errors
    /// As [`FileLock::acquire`].
    pub fn try_acquire(path: &Path) -> io::Result<Option<Self>> {
        let file = open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self { file, path: path.to_path_buf() })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(error)) => Err(error),
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the file releases the lock as well; unlocking first says so explicitly.
        let _ = self.file.unlock();
    }
}

/// The lock file conventionally used for `target`: `.<name>.lock` in the same folder
/// (`/a/b/tasks.json` → `/a/b/.tasks.json.lock`), hidden, and never the target itself. A path
/// with no file name (`/`, `a/..`) gets `.lock` inside it.
pub fn lock_path_beside(target: &Path) -> PathBuf {
    let Some(file_name) = target.file_name() else { return target.join(".lock") };
    let mut name = std::ffi::OsString::from(".");
    name.push(file_name);
    name.push(".lock");
    target.with_file_name(name)
}

#[cfg(unix)]
fn open(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    OpenOptions::new().create(true).truncate(false).write(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).truncate(false).write(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_sits_beside_its_target() {
        assert_eq!(lock_path_beside(Path::new("/a/b/tasks.json")), Path::new("/a/b/.tasks.json.lock"));
        assert_eq!(lock_path_beside(Path::new("x")), Path::new(".x.lock"));
        assert_eq!(lock_path_beside(Path::new("/")), Path::new("/.lock"));
        assert_eq!(lock_path_beside(Path::new("a/..")), Path::new("a/../.lock"));
    }
}
