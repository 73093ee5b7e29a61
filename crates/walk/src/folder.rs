//! [`OpenFolder`]: files opened and inspected relative to their folder.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Opens (and looks up the modification time of) files relative to their folder, which stays
/// open from one file to the next. A walker thread gets the files of a folder one after another,
/// so the kernel then resolves one name per file instead of every component of its path — a
/// measurable part of searching thousands of small files.
///
/// Keep one per walker thread. Where folders cannot be opened (or off Unix) it falls back to
/// whole paths, with the same results.
///
/// ```
/// use agent_tools_walk::OpenFolder;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "x").unwrap();
/// let mut folder = OpenFolder::default();
/// let mut text = String::new();
/// let mut file = folder.open(&dir.path().join("a.txt")).unwrap();
/// std::io::Read::read_to_string(&mut file, &mut text).unwrap();
/// assert_eq!(text, "x");
/// assert!(folder.modified(&dir.path().join("a.txt")).is_ok());
/// ```
#[derive(Debug, Default)]
pub struct OpenFolder {
    #[cfg(unix)]
    open: Option<(PathBuf, std::os::fd::OwnedFd)>,
}

impl OpenFolder {
    /// Opens `path` for reading.
    ///
    /// # Errors
    /// What opening the file gives.
    pub fn open(&mut self, path: &Path) -> io::Result<File> {
        #[cfg(unix)]
        if let Some((folder, name)) = self.folder_of(path) {
            use nix::fcntl::{OFlag, openat};
            let flags = OFlag::O_RDONLY | OFlag::O_CLOEXEC | OFlag::O_NOCTTY;
            return Ok(File::from(openat(folder, name, flags, nix::sys::stat::Mode::empty())?));
        }
        File::open(path)
    }

    /// The modification time of `path` itself (a symbolic link is not followed).
    ///
    /// # Errors
    /// What looking the file up gives.
    pub fn modified(&mut self, path: &Path) -> io::Result<SystemTime> {
        #[cfg(unix)]
        if let Some((folder, name)) = self.folder_of(path) {
            use nix::fcntl::AtFlags;
            let stat = nix::sys::stat::fstatat(folder, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
            return Ok(system_time(stat.st_mtime, stat.st_mtime_nsec));
        }
        path.symlink_metadata()?.modified()
    }

    /// The open folder of `path` (opened now when it is not the one open already) and the name
    /// to look up in it; `None` when that folder cannot be opened.
    #[cfg(unix)]
    fn folder_of<'a>(&mut self, path: &'a Path) -> Option<(&std::os::fd::OwnedFd, &'a std::ffi::OsStr)> {
        use nix::fcntl::OFlag;
        use std::os::unix::ffi::OsStrExt;
        // Split at the last `/` by hand: `Path::parent` parses every component, and this runs
        // once per file. Paths from the walk are absolute, without `.`, `..` or a trailing `/`.
        let bytes = path.as_os_str().as_bytes();
        let slash = memchr::memrchr(b'/', bytes)?;
        let name = std::ffi::OsStr::from_bytes(&bytes[slash + 1..]);
        if slash == 0 || matches!(name.as_bytes(), b"" | b"." | b"..") {
            return None;
        }
        let folder = Path::new(std::ffi::OsStr::from_bytes(&bytes[..slash]));
        if self.open.as_ref().is_none_or(|(open, _)| open.as_os_str().as_bytes() != folder.as_os_str().as_bytes()) {
            self.open = None;
            let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
            let fd = nix::fcntl::open(folder, flags, nix::sys::stat::Mode::empty()).ok()?;
            self.open = Some((folder.to_path_buf(), fd));
        }
        self.open.as_ref().map(|(_, fd)| (fd, name))
    }
}

/// A `stat` time (seconds and nanoseconds since the epoch, either side of it) as a [`SystemTime`].
#[cfg(unix)]
fn system_time(seconds: i64, nanoseconds: i64) -> SystemTime {
    let nanos = std::time::Duration::from_nanos(u64::try_from(nanoseconds).unwrap_or(0));
    match u64::try_from(seconds) {
        Ok(seconds) => SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds) + nanos,
        Err(_) => SystemTime::UNIX_EPOCH - std::time::Duration::from_secs(seconds.unsigned_abs()) + nanos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn opens_and_dates_files_across_folders_like_whole_paths_do() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        for (name, text) in [("a.txt", "a"), ("sub/b.txt", "b"), ("c.txt", "c")] {
            std::fs::write(root.join(name), text).unwrap();
        }
        let mut folder = OpenFolder::default();
        for name in ["a.txt", "sub/b.txt", "c.txt", "sub/b.txt"] {
            let path = root.join(name);
            let mut text = String::new();
            folder.open(&path).unwrap().read_to_string(&mut text).unwrap();
            assert_eq!(text, std::fs::read_to_string(&path).unwrap());
            assert_eq!(folder.modified(&path).unwrap(), path.symlink_metadata().unwrap().modified().unwrap());
        }
        assert!(folder.open(&root.join("missing.txt")).is_err());
        assert!(folder.open(&root.join("nowhere/missing.txt")).is_err());
        assert!(folder.modified(&root.join("missing.txt")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_dated_themselves_and_times_before_1970_work() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        let mut folder = OpenFolder::default();
        assert_eq!(folder.modified(&link).unwrap(), link.symlink_metadata().unwrap().modified().unwrap());
        assert_eq!(system_time(-2, 500_000_000), SystemTime::UNIX_EPOCH - std::time::Duration::from_millis(1500));
    }
}
