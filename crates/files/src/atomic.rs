//! Writing a file so that it is either wholly old or wholly new, never half-written.
//!
//! Claude Code writes in place (`writeFileSync`); a crash, a full disk or a kill in the middle
//! leaves a truncated file. Here the new bytes go to a temporary file in the same folder, are
//! flushed to disk, get the old file's permissions (and owner, where allowed), and the temporary
//! file is then renamed over the target in one step. On any error the temporary file is removed
//! and the target is untouched.
//!
//! A process killed between creating its temporary file and the rename cannot remove it. The
//! temporary file's name says whose it is (`.<name>.<pid>.<random>.tmp`), so the next write of
//! the same target removes the ones whose process is gone (see [`stale_temp_files`]).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::file::is_missing;

/// Most characters of the target's name kept in the temporary file's name.
const TEMP_NAME_CHARS: usize = 32;

/// How old (by modification time) a temporary file in the older, pid-less form
/// (`.<name>.<random>.tmp`, written before the pid was part of the name) must be before it counts
/// as stale.
const LEGACY_STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// Length of the random part tempfile puts in a name.
const RANDOM_CHARS: usize = 6;

/// Most symbolic links followed to find the file to replace (Linux's own limit is 40).
const MAX_LINK_HOPS: usize = 40;

/// Where writing `path` must land: the file a symbolic link points to (so the link stays a link),
/// following links that point nowhere yet as well; `path` itself otherwise.
pub fn write_target(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(&current) {
                Ok(target) if target.is_absolute() => current = target,
                Ok(target) => {
                    current = current.parent().map_or_else(|| target.clone(), |parent| parent.join(&target));
                }
                Err(_) => return current,
            },
            _ => return current,
        }
    }
    current
}

/// Writes `bytes` to `path` atomically and returns the path of the file written (the target of
/// a symbolic link, see [`write_target`]).
///
/// Missing parent folders are created. An existing file keeps its permission bits (mode) and, when
/// the process may set it, its owner and group; a new file gets the default mode (`0o666` less the
/// umask), as a plain create would.
///
/// # Errors
/// Any I/O failure: the parent cannot be created (for example it is a file), the folder is not
/// writable, the existing file is not writable, the target is a folder or not a regular file, or
/// the disk is full. The original file is then unchanged.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let target = write_target(path);
    let parent = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(error) if is_missing(&error) => None,
        Err(error) => return Err(error),
    };
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "the path is a directory"));
        }
        if !meta.is_file() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "the path is not a regular file"));
        }
        // Honour a read-only file as an in-place write would (the rename alone would not).
        std::fs::OpenOptions::new().write(true).open(&target)?;
    } else {
        std::fs::create_dir_all(&parent)?;
    }

    // A hidden name beside the target, short enough for any file name the folder can hold, and
    // naming this process so that another can tell a leftover from a write in progress.
    let prefix = temp_prefix(&target);
    for stale in stale_temp_files(&target) {
        let _ = std::fs::remove_file(stale);
    }
    let prefix = format!("{prefix}{}.", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Created with the umask applied, like any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(&parent)?;
    temp.write_all(bytes)?;
    temp.flush()?;
    if let Some(meta) = &existing {
        keep_owner(temp.path(), meta);
        std::fs::set_permissions(temp.path(), meta.permissions())?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|error| error.error)?;
    // Make the rename itself durable; not every system can sync a folder, so failures are ignored.
    if let Ok(folder) = std::fs::File::open(&parent) {
        let _ = folder.sync_all();
    }
    Ok(target)
}

/// The start of the temporary files' names for `target`: `.`, up to [`TEMP_NAME_CHARS`]
/// characters of its file name, `.`.
fn temp_prefix(target: &Path) -> String {
    let name = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let short: String = name.chars().take(TEMP_NAME_CHARS).collect();
    format!(".{short}.")
}

/// The temporary files [`write_atomic`] left beside `target` (the file a write lands on, after
/// links) whose writer is gone: `.<name>.<pid>.<random>.tmp` where no process `pid` runs, and the
/// pid-less `.<name>.<random>.tmp` of older versions once unmodified for ten minutes. Files of
/// other names, of this process and of a process still running are never listed, so a write in
/// progress elsewhere is never disturbed (a pid another process took over since only delays the
/// removal until that process ends too).
pub fn stale_temp_files(target: &Path) -> Vec<PathBuf> {
    let parent = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let prefix = temp_prefix(target);
    let Ok(entries) = std::fs::read_dir(parent) else { return Vec::new() };
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(middle) =
            name.to_str().and_then(|n| n.strip_prefix(prefix.as_str())).and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let is_random = |part: &str| part.len() == RANDOM_CHARS && part.bytes().all(|b| b.is_ascii_alphanumeric());
        let gone = match middle.split_once('.') {
            Some((pid, random)) if is_random(random) => {
                pid.parse::<u32>().is_ok_and(|pid| pid != std::process::id() && !process_runs(pid))
            }
            None if is_random(middle) => entry
                .metadata()
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age >= LEGACY_STALE_AFTER),
            _ => false,
        };
        if gone && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            stale.push(entry.path());
        }
    }
    stale
}

/// Whether a process with this pid exists (when that cannot be told, it is assumed to).
#[cfg(target_os = "linux")]
fn process_runs(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn process_runs(_pid: u32) -> bool {
    true
}

/// Gives `path` the owner and group of `meta`, where the process is allowed to (best effort:
/// an unprivileged process can only keep its own user and groups).
#[cfg(unix)]
fn keep_owner(path: &Path, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt as _;
    if let Ok(current) = std::fs::metadata(path)
        && (current.uid() != meta.uid() || current.gid() != meta.gid())
    {
        let _ = std::os::unix::fs::chown(path, Some(meta.uid()), Some(meta.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_path: &Path, _meta: &std::fs::Metadata) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_creates_folders_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.txt");
        assert_eq!(write_atomic(&path, b"one").unwrap(), path);
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert!(leftovers(&dir.path().join("a/b")).is_empty());
        // The longest name a folder holds can still be replaced.
        let long = dir.path().join("n".repeat(255));
        write_atomic(&long, b"1").unwrap();
        write_atomic(&long, b"2").unwrap();
        assert_eq!(std::fs::read(&long).unwrap(), b"2");
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_and_follows_links() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.sh");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o754)).unwrap();
        let link = dir.path().join("link.sh");
        std::os::unix::fs::symlink("real.sh", &link).unwrap();
        assert_eq!(write_atomic(&link, b"new").unwrap(), real);
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777, 0o754);
        // A link to a file not there yet creates the file it names.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("sub/target.txt", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read(dir.path().join("sub/target.txt")).unwrap(), b"made");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn failures_leave_the_original_alone() {
        #[cfg(unix)]
        use std::os::unix::fs::FileTypeExt as _;
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, "i am a file").unwrap();
        assert!(write_atomic(&blocker.join("x.txt"), b"x").is_err());
        assert_eq!(std::fs::read(&blocker).unwrap(), b"i am a file");
        assert!(write_atomic(dir.path(), b"x").is_err());
        #[cfg(unix)]
        {
            // A named pipe is not a regular file: refused, never replaced.
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|status| status.success());
            if made {
                assert_eq!(write_atomic(&fifo, b"x").unwrap_err().kind(), io::ErrorKind::InvalidInput);
                assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
            }
        }
        assert!(leftovers(dir.path()).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn leftovers_of_writers_that_are_gone_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("notes.txt");
        std::fs::write(&target, "old").unwrap();
        // A writer that no longer runs (a pid above the kernel's maximum), this process, a writer
        // that runs (pid 1), an old and a new pid-less leftover, and names that are not ours.
        let dead = ".notes.txt.4194999.aB3dE9.tmp";
        let own = format!(".notes.txt.{}.Zz9Yy8.tmp", std::process::id());
        let running = ".notes.txt.1.Qq1Ww2.tmp";
        let legacy_old = ".notes.txt.Ab1Cd2.tmp";
        let legacy_new = ".notes.txt.Ef3Gh4.tmp";
        let other_target = ".notes.txt.md.4194999.aB3dE9.tmp";
        let not_ours = ".notes.txt.4194999.tmp";
        for name in [dead, own.as_str(), running, legacy_old, legacy_new, other_target, not_ours] {
            std::fs::write(dir.path().join(name), "partial").unwrap();
        }
        let ten_minutes_ago =
            filetime::FileTime::from_system_time(std::time::SystemTime::now() - std::time::Duration::from_secs(601));
        filetime::set_file_mtime(dir.path().join(legacy_old), ten_minutes_ago).unwrap();
        let mut found = stale_temp_files(&target);
        found.sort();
        let mut expected = vec![dir.path().join(legacy_old), dir.path().join(dead)];
        expected.sort();
        assert_eq!(found, expected);
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let mut left = leftovers(dir.path());
        let mut kept =
            vec![own, running.to_owned(), legacy_new.to_owned(), other_target.to_owned(), not_ours.to_owned()];
        kept.sort();
        left.sort();
        assert_eq!(left, kept);
    }
}
