//! Writing a file so that it is either wholly old or wholly new, never half-written, and without
//! leaving temporary files behind, even when the writer is killed.
//!
//! Claude Code writes in place (`writeFileSync`); a crash, a full disk or a kill in the middle
//! leaves a truncated file. Here the new bytes go to a temporary file in the target's folder, are
//! flushed to disk, get the old file's permissions (and owner, where allowed), and the temporary
//! file then takes the target's name in one step. On any error the target is untouched and no
//! temporary file is left.
//!
//! ## No name before the bytes are all there (Linux)
//!
//! On Linux the temporary file is made without a name (`O_TMPFILE`), so a kill while it is written
//! or synced leaves nothing: the kernel frees an unnamed file with its last descriptor. Once it is
//! complete and synced it gets a name through `linkat` of `/proc/self/fd/N`:
//!
//! - a target that does not exist yet is linked under its own name directly, so no other name
//!   ever exists;
//! - an existing target cannot be replaced by a link (`linkat` never replaces a name), so the file
//!   is linked to a temporary name that is renamed over the target at once. A kill that lands
//!   from the start of the `linkat` to the start of the `rename` (tens of microseconds) leaves
//!   the temporary name, holding the complete new bytes, while the target is still the old file.
//!   That is the one window left: in `tests/atomic.rs`, where each of 400 kills lands within the
//!   first few milliseconds of a 2 MB write, about one kill in a hundred hits it. The next write of
//!   the same target removes what it left (see below); Linux has no call that links a file over
//!   an existing name, which would close it.
//!
//! Where unnamed files cannot be made (a filesystem answering `EOPNOTSUPP`, `EISDIR` or `EINVAL`,
//! no `/proc`, systems other than Linux), a named temporary file is created, written, synced and
//! renamed over the target; a kill while it is written leaves it until the next write of the
//! target.
//!
//! ## Leftovers
//!
//! A temporary name says whose it is: `.<name>.<pid>.<random>.tmp`, hidden, beside the target.
//! Every write of a target first removes the stale ones beside it, by a rule that never touches a
//! file another writer is still using (see [`remove_stale_temp_files`]).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::file::is_missing;

/// Most characters of the target's name kept in the temporary file's name.
const TEMP_NAME_CHARS: usize = 32;

/// How long a temporary file must have gone unmodified before it is stale whatever the pid in its
/// name says (pid-less names of older versions, pids of another pid namespace or host, a pid taken
/// over by another process). A live writer modifies its file as it writes it, and its last steps
/// (sync, link, rename) take seconds at worst.
const STALE_AFTER: Duration = Duration::from_secs(600);

/// Length of the random part of a temporary file's name.
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
/// A reader sees the whole old file or the whole new one, never a part, and a writer killed at
/// any moment leaves one of the two. On Linux the new bytes go to an unnamed file (`O_TMPFILE`)
/// that is named only once complete and synced, so a kill leaves no temporary file, but for the
/// instant between naming it and renaming it over an existing target; elsewhere, and on
/// filesystems without unnamed files, a named temporary file is written and renamed.
///
/// Stale temporary files beside the target are removed first: `.<name>.<pid>.<random>.tmp` (and
/// the pid-less `.<name>.<random>.tmp` of older versions) for the same target, once no process
/// holds the lock every writer keeps on its temporary file (`flock`, on Unix) and either no
/// process `<pid>` runs (Linux; a zombie does not count) or the file has not been modified for
/// ten minutes. A write in progress, in this process or another, is never disturbed.
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
    let parent = parent_of(&target);
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
    remove_stale_temp_files(&target);

    #[cfg(any(target_os = "linux", target_os = "android"))]
    let written = unnamed::write(&target, &parent, bytes, existing.as_ref())?;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let written = false;
    if !written {
        write_named(&target, &parent, bytes, existing.as_ref())?;
    }
    // Make the new name durable; not every system can sync a folder, so failures are ignored.
    if let Ok(folder) = File::open(&parent) {
        let _ = folder.sync_all();
    }
    Ok(target)
}

/// The folder `target` is in (`.` for a bare file name).
fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes through a named temporary file `.<name>.<pid>.<random>.tmp` (made by tempfile, which
/// removes it on any error), renamed over `target`: where unnamed files cannot be made.
fn write_named(target: &Path, parent: &Path, bytes: &[u8], existing: Option<&std::fs::Metadata>) -> io::Result<()> {
    // A hidden name beside the target, short enough for any file name the folder can hold, and
    // naming this process so that another can tell a leftover from a write in progress.
    let prefix = format!("{}{}.", temp_prefix(target), std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(RANDOM_CHARS);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Created with the umask applied, like any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(parent)?;
    hold_lock(temp.as_file());
    temp.write_all(bytes)?;
    temp.flush()?;
    finish(temp.as_file(), existing)?;
    temp.persist(target).map_err(|error| error.error)?;
    Ok(())
}

/// Gives the written temporary file the old file's owner and mode, when there is an old file, and
/// syncs it to disk.
fn finish(file: &File, existing: Option<&std::fs::Metadata>) -> io::Result<()> {
    if let Some(meta) = existing {
        // Owner first: changing it may clear set-user-id bits, which the mode then restores.
        keep_owner(file, meta);
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()
}

/// Takes a shared lock on a temporary file for as long as it is open, telling
/// [`remove_stale_temp_files`] in any process that its writer is alive (best effort: where
/// locks are not supported, pids and ages tell).
fn hold_lock(file: &File) {
    #[cfg(unix)]
    let _ = file.try_lock_shared();
    #[cfg(not(unix))]
    let _ = file;
}

/// Writing through a file without a name (`O_TMPFILE`), linked into place once complete.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod unnamed {
    use std::io::{self, Write as _};
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    use std::path::{Path, PathBuf};

    use nix::errno::Errno;
    use nix::fcntl::{AT_FDCWD, AtFlags, OFlag};

    use super::{finish, hold_lock, random_part, temp_prefix};

    /// Attempts at a free temporary name before giving up (each name is random, so a clash is
    /// already rare).
    const NAME_ATTEMPTS: usize = 16;

    /// Writes `bytes` over `target` through an unnamed file in `parent`: `Ok(false)` (nothing
    /// done) when unnamed files cannot be made there.
    pub(super) fn write(
        target: &Path,
        parent: &Path,
        bytes: &[u8],
        existing: Option<&std::fs::Metadata>,
    ) -> io::Result<bool> {
        // The unnamed file gets its name through its `/proc` link.
        if !Path::new("/proc/self/fd").is_dir() {
            return Ok(false);
        }
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .mode(0o666) // with the umask applied, like any new file
            .custom_flags(OFlag::O_TMPFILE.bits())
            .open(parent);
        let mut file = match opened {
            Ok(file) => file,
            Err(error) if unsupported(&error) => return Ok(false),
            Err(error) => return Err(error),
        };
        hold_lock(&file);
        file.write_all(bytes)?;
        finish(&file, existing)?;
        let fd_path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if existing.is_none() {
            // A new file: its own name is its first and only one.
            match link(&fd_path, target) {
                Ok(()) => return Ok(true),
                // Made by someone else meanwhile: replaced below, as an existing file is.
                Err(Errno::EEXIST) => {}
                Err(errno) => return Err(errno.into()),
            }
        }
        let prefix = format!("{}{}.", temp_prefix(target), std::process::id());
        for _ in 0..NAME_ATTEMPTS {
            let temp = parent.join(format!("{prefix}{}.tmp", random_part()));
            match link(&fd_path, &temp) {
                Ok(()) => {}
                Err(Errno::EEXIST) => continue,
                Err(errno) => return Err(errno.into()),
            }
            // A kill from here to the end of the rename leaves `temp` (complete, synced, and
            // still locked until this process is gone); the next write of the target removes it.
            return match std::fs::rename(&temp, target) {
                Ok(()) => Ok(true),
                Err(error) => {
                    let _ = std::fs::remove_file(&temp);
                    Err(error)
                }
            };
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name beside the file"))
    }

    /// Gives the file open at `fd_path` (`/proc/self/fd/N`) the name `name`; fails with `EEXIST`
    /// when `name` exists.
    fn link(fd_path: &Path, name: &Path) -> Result<(), Errno> {
        nix::unistd::linkat(AT_FDCWD, fd_path, AT_FDCWD, name, AtFlags::AT_SYMLINK_FOLLOW)
    }

    /// Whether opening an unnamed file failed because the system or the filesystem has none.
    fn unsupported(error: &io::Error) -> bool {
        error.raw_os_error().is_some_and(|code| {
            [Errno::EOPNOTSUPP, Errno::EISDIR, Errno::EINVAL, Errno::ENOSYS].iter().any(|errno| *errno as i32 == code)
        })
    }
}

/// Six random letters and digits for a temporary file's name (uniqueness is checked by the
/// creation itself; this only makes clashes rare).
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
fn random_part() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    use std::sync::atomic::{AtomicU64, Ordering};
    const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    static CALLS: AtomicU64 = AtomicU64::new(0);
    // Randomly keyed per call (std's RandomState), mixed with a counter, the pid and the time.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    let mut bits = hasher.finish();
    let mut part = String::with_capacity(RANDOM_CHARS);
    for _ in 0..RANDOM_CHARS {
        let index = usize::try_from(bits % 62).unwrap_or(0);
        part.push(char::from(ALPHABET.get(index).copied().unwrap_or(b'0')));
        bits /= 62;
    }
    part
}

/// The start of the temporary files' names for `target`: `.`, up to [`TEMP_NAME_CHARS`]
/// characters of its file name, `.`.
fn temp_prefix(target: &Path) -> String {
    let name = target.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let short: String = name.chars().take(TEMP_NAME_CHARS).collect();
    format!(".{short}.")
}

/// What a temporary file's name says of its writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    /// `.<name>.<pid>.<random>.tmp`: the writer's process id.
    Pid(u32),
    /// `.<name>.<random>.tmp`, of versions that did not name the writer.
    Unnamed,
}

/// Whether `name` is one of our temporary names for the target whose names start with `prefix`
/// ([`temp_prefix`]), and what it says of its writer.
fn temp_writer(name: &OsStr, prefix: &str) -> Option<Writer> {
    let middle = name.to_str()?.strip_prefix(prefix)?.strip_suffix(".tmp")?;
    let is_random = |part: &str| part.len() == RANDOM_CHARS && part.bytes().all(|b| b.is_ascii_alphanumeric());
    match middle.split_once('.') {
        Some((pid, random)) if is_random(random) => pid.parse::<u32>().ok().map(Writer::Pid),
        None if is_random(middle) => Some(Writer::Unnamed),
        _ => None,
    }
}

/// Removes the temporary files that earlier writes of `target` (the file a write lands on, after
/// links) left beside it, and returns how many. A file is removed only when all of these hold:
///
/// 1. its name is ours for this target: `.<name>.<pid>.<random>.tmp`, or the pid-less
///    `.<name>.<random>.tmp` of older versions (`<name>`: up to 32 characters of the target's
///    file name; `<random>`: six letters or digits), and it is a regular file;
/// 2. no process holds a lock on it (Unix): every writer holds a shared `flock` on its temporary
///    file from before it has a name (an unnamed file) or from just after it is created (a named
///    one) until it is renamed, and the kernel drops the lock when the writer dies, however it
///    dies. The check takes an exclusive lock without waiting and keeps it until the file is
///    removed;
/// 3. and its writer is gone, or has been quiet long enough: the pid in the name is not this
///    process's and no process with that pid runs (Linux: no `/proc/<pid>`, or a zombie), or the
///    file has not been modified for ten minutes ([`STALE_AFTER`]; the only way for pid-less
///    names, and for pids that mean nothing here or were taken over).
///
/// So a write in progress is never disturbed: its lock protects it everywhere the filesystem has
/// `flock` (including a writer in another pid namespace sharing the folder, whose pid means
/// nothing here), its live pid protects it in this pid namespace (including the instant between
/// a named file's creation and its lock), and a writer that has modified nothing for ten minutes
/// is not in the middle of a write. A file this process cannot open for the lock check is judged
/// by rule 3 alone. Files of other names, of other targets and of this process's own writes in
/// progress are never touched.
pub(crate) fn remove_stale_temp_files(target: &Path) -> usize {
    let parent = parent_of(target);
    let prefix = temp_prefix(target);
    let Ok(entries) = std::fs::read_dir(&parent) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let Some(writer) = temp_writer(&entry.file_name(), &prefix) else { continue };
        if entry.file_type().is_ok_and(|kind| kind.is_file()) && remove_if_stale(&entry.path(), writer) {
            removed += 1;
        }
    }
    removed
}

/// Removes the temporary file `path` if it is stale (rules 2 and 3 of [`remove_stale_temp_files`]).
fn remove_if_stale(path: &Path, writer: Writer) -> bool {
    #[cfg(unix)]
    let probe = {
        // Read and write where allowed: NFS emulates `flock` with byte-range locks, whose
        // exclusive kind needs a descriptor open for writing.
        let probe = std::fs::OpenOptions::new().read(true).write(true).open(path).or_else(|_| File::open(path)).ok();
        if let Some(file) = &probe
            && let Err(std::fs::TryLockError::WouldBlock) = file.try_lock()
        {
            // A writer holds it.
            return false;
        }
        probe
    };
    let gone = match writer {
        Writer::Pid(pid) => pid != std::process::id() && !process_runs(pid),
        Writer::Unnamed => false,
    };
    let quiet = || {
        std::fs::symlink_metadata(path)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= STALE_AFTER)
    };
    if !gone && !quiet() {
        return false;
    }
    #[cfg(unix)]
    if let Some(file) = &probe {
        // Still the file that was checked, not one renamed into its place since.
        use std::os::unix::fs::MetadataExt as _;
        let same = match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
            _ => false,
        };
        if !same {
            return false;
        }
    }
    // The lock (if taken) is released when `probe` closes, after the removal.
    std::fs::remove_file(path).is_ok()
}

/// Whether a process with this pid runs (when that cannot be told, it is assumed to). A zombie
/// (dead, not yet reaped) does not: it holds no files and writes nothing.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn process_runs(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    match std::fs::read(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // `pid (command) S …`: the state follows the last `)` and a space.
            let state = stat.iter().rposition(|byte| *byte == b')').and_then(|at| stat.get(at + 2));
            !matches!(state, Some(b'Z' | b'X'))
        }
        Err(error) => !is_missing(&error),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn process_runs(_pid: u32) -> bool {
    true
}

/// Gives `file` the owner and group of `meta`, where the process is allowed to (best effort:
/// an unprivileged process can only keep its own user and groups).
#[cfg(unix)]
fn keep_owner(file: &File, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt as _;
    if let Ok(current) = file.metadata()
        && (current.uid() != meta.uid() || current.gid() != meta.gid())
    {
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_file: &File, _meta: &std::fs::Metadata) {}

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
        // that runs (pid 1) fresh and quiet for ten minutes, an old and a new pid-less leftover, a
        // dead writer's file that some process still holds locked, and names that are not ours.
        let dead = ".notes.txt.4194999.aB3dE9.tmp";
        let own = format!(".notes.txt.{}.Zz9Yy8.tmp", std::process::id());
        let running = ".notes.txt.1.Qq1Ww2.tmp";
        let running_quiet = ".notes.txt.1.Rr3Tt4.tmp";
        let legacy_old = ".notes.txt.Ab1Cd2.tmp";
        let legacy_new = ".notes.txt.Ef3Gh4.tmp";
        let locked = ".notes.txt.4194998.Lk5Mn6.tmp";
        let other_target = ".notes.txt.md.4194999.aB3dE9.tmp";
        let not_ours = ".notes.txt.4194999.tmp";
        for name in [dead, own.as_str(), running, running_quiet, legacy_old, legacy_new, locked, other_target, not_ours]
        {
            std::fs::write(dir.path().join(name), "partial").unwrap();
        }
        let ten_minutes_ago =
            filetime::FileTime::from_system_time(std::time::SystemTime::now() - std::time::Duration::from_secs(601));
        for name in [legacy_old, running_quiet, locked] {
            filetime::set_file_mtime(dir.path().join(name), ten_minutes_ago).unwrap();
        }
        // A writer's lock: a shared one, on its own open file, as write_atomic holds it.
        let holder = File::open(dir.path().join(locked)).unwrap();
        holder.try_lock_shared().unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let mut kept = vec![
            own,
            running.to_owned(),
            legacy_new.to_owned(),
            locked.to_owned(),
            other_target.to_owned(),
            not_ours.to_owned(),
        ];
        kept.sort();
        assert_eq!(leftovers(dir.path()), kept);
        // Once its holder is gone, the locked one goes too.
        drop(holder);
        assert_eq!(remove_stale_temp_files(&target), 1);
        assert!(!dir.path().join(locked).exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_does_not_run() {
        assert!(process_runs(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited but not reaped: a zombie, which holds no files and writes nothing.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap().contains(") Z ") {
            assert!(std::time::Instant::now() < deadline, "the child never exited");
            std::thread::yield_now();
        }
        assert!(!process_runs(pid));
        child.wait().unwrap();
        assert!(!process_runs(pid));
    }

    #[test]
    fn the_named_fallback_writes_keeps_the_mode_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("named.txt");
        std::fs::write(&target, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        let meta = std::fs::metadata(&target).unwrap();
        write_named(&target, dir.path(), b"new", Some(&meta)).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777, 0o640);
        }
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn temporary_names_are_ours_only_when_they_fit_the_pattern() {
        let prefix = temp_prefix(Path::new("/x/notes.txt"));
        assert_eq!(prefix, ".notes.txt.");
        let writer = |name: &str| temp_writer(OsStr::new(name), &prefix);
        assert_eq!(writer(".notes.txt.42.aB3dE9.tmp"), Some(Writer::Pid(42)));
        assert_eq!(writer(".notes.txt.aB3dE9.tmp"), Some(Writer::Unnamed));
        assert_eq!(writer(".notes.txt.42.aB3dE.tmp"), None);
        assert_eq!(writer(".notes.txt.x.aB3dE9.tmp"), None);
        assert_eq!(writer(".notes.txt.md.42.aB3dE9.tmp"), None);
        assert_eq!(writer("notes.txt.42.aB3dE9.tmp"), None);
        let random = random_part();
        assert_eq!(random.len(), RANDOM_CHARS);
        assert_eq!(writer(&format!(".notes.txt.7.{random}.tmp")), Some(Writer::Pid(7)));
        assert_ne!(random_part(), random_part());
    }
}
