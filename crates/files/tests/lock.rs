//! `FileLock` across real processes: several copies of this test binary append to one file
//! under the lock (read, change, `write_atomic`) at once; every line of every writer is kept,
//! in each writer's order, and a reader that takes no lock never sees a partial file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use agent_tools_files::{FileLock, lock_path_beside, write_atomic};

const CHILD_TARGET: &str = "AGENT_TOOLS_FILES_LOCK_TEST_TARGET";
const CHILD_NAME: &str = "AGENT_TOOLS_FILES_LOCK_TEST_NAME";
const WRITERS: usize = 4;
const ROUNDS: usize = 25;

/// One writer: `ROUNDS` read-modify-write cycles, each adding the line `<name> <n>`.
fn append_rounds(target: &Path, name: &str) {
    for n in 0..ROUNDS {
        let _lock = FileLock::acquire(&lock_path_beside(target)).unwrap();
        let mut text = fs::read_to_string(target).unwrap_or_default();
        text.push_str(&format!("{name} {n}\n"));
        write_atomic(target, text.as_bytes()).unwrap();
    }
}

#[test]
#[ignore = "a child of processes_appending_under_the_lock_lose_nothing"]
fn appending_child() {
    let (Ok(target), Ok(name)) = (std::env::var(CHILD_TARGET), std::env::var(CHILD_NAME)) else { return };
    append_rounds(Path::new(&target), &name);
}

fn spawn_writer(target: &Path, name: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["appending_child", "--exact", "--ignored", "--test-threads=1"])
        .env(CHILD_TARGET, target)
        .env(CHILD_NAME, name)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// The lines of `text` by writer; panics on a line no writer wrote whole.
fn lines_by_writer(text: &str) -> Vec<Vec<usize>> {
    assert!(text.is_empty() || text.ends_with('\n'), "a partial file: {text:?}");
    let mut by_writer = vec![Vec::new(); WRITERS];
    for line in text.lines() {
        let (name, n) = line.split_once(' ').unwrap_or_else(|| panic!("a torn line {line:?}"));
        let writer: usize = name.strip_prefix('w').and_then(|w| w.parse().ok()).expect("a writer's name");
        by_writer[writer].push(n.parse().expect("a round number"));
    }
    by_writer
}

#[test]
fn processes_appending_under_the_lock_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target: PathBuf = dir.path().join("shared.txt");
    let mut children: Vec<Child> = (0..WRITERS).map(|writer| spawn_writer(&target, &format!("w{writer}"))).collect();
    // Read without the lock while they write: always a whole file.
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        if let Ok(text) = fs::read_to_string(&target) {
            lines_by_writer(&text);
        }
    }
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer failed");
    }
    let by_writer = lines_by_writer(&fs::read_to_string(&target).unwrap());
    for (writer, rounds) in by_writer.iter().enumerate() {
        assert_eq!(*rounds, (0..ROUNDS).collect::<Vec<_>>(), "writer {writer} lost or reordered a line");
    }
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "shared.txt" && name != ".shared.txt.lock")
        .collect();
    assert!(names.is_empty(), "left behind: {names:?}");
}

#[test]
fn a_held_lock_excludes_a_second_open_of_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".x.lock");
    let held = FileLock::acquire(&path).unwrap();
    assert_eq!(held.path(), path);
    assert!(FileLock::try_acquire(&path).unwrap().is_none());
    // A waiter gets it the moment the holder lets go.
    let waiter = {
        let path = path.clone();
        std::thread::spawn(move || FileLock::acquire(&path).map(|_| ()))
    };
    drop(held);
    waiter.join().unwrap().unwrap();
    assert!(FileLock::try_acquire(&path).unwrap().is_some());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert_eq!(fs::read(&path).unwrap(), b"", "the lock file stays empty");
}

#[test]
fn a_lock_in_a_missing_folder_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing/.x.lock");
    assert!(FileLock::acquire(&path).is_err());
    assert!(FileLock::try_acquire(&path).is_err());
}
