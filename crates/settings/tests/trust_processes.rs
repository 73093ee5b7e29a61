//! The trust record changed by several processes at once (`agent-tools trust` in two terminals,
//! a session's trust prompt beside another): copies of this test binary each add folders (a
//! read-modify-write of the one file, under the lock beside it). Every folder is kept, and a
//! reader that takes no lock never meets a half-written file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Child;

use agent_tools_settings::trust::TrustStore;

const CHILD_RECORD: &str = "AGENT_TOOLS_TRUST_TEST_RECORD";
const CHILD_FOLDERS: &str = "AGENT_TOOLS_TRUST_TEST_FOLDERS";
const PROCESSES: usize = 4;
const ROUNDS: usize = 8;

/// One process: waits for `go` on stdin, then trusts its folders one at a time.
#[test]
#[ignore = "a child of processes_trusting_folders_at_once_keep_every_one"]
fn trusting_child() {
    let (Ok(record), Ok(folders)) = (std::env::var(CHILD_RECORD), std::env::var(CHILD_FOLDERS)) else { return };
    agent_tools_testkit::procs::await_release();
    let store = TrustStore::at(Path::new(&record));
    for folder in folders.split('\n') {
        assert!(store.add(Path::new(folder)).unwrap(), "{folder} was new");
    }
}

#[test]
fn processes_trusting_folders_at_once_keep_every_one() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("config/trusted-folders.json");
    let folders: Vec<Vec<PathBuf>> = (0..PROCESSES)
        .map(|writer| {
            (0..ROUNDS)
                .map(|round| {
                    let folder = dir.path().join(format!("projects/p{writer}-{round}"));
                    std::fs::create_dir_all(&folder).unwrap();
                    folder.canonicalize().unwrap()
                })
                .collect()
        })
        .collect();
    let mut children: Vec<Child> = folders
        .iter()
        .map(|mine| {
            let list: Vec<String> = mine.iter().map(|folder| folder.display().to_string()).collect();
            agent_tools_testkit::procs::test_role("trusting_child")
                .env(CHILD_RECORD, &record)
                .env(CHILD_FOLDERS, list.join("\n"))
                .spawn()
                .unwrap()
        })
        .collect();
    agent_tools_testkit::procs::release(&mut children);
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        // No lock here: the record is whole or absent.
        if let Ok(text) = std::fs::read_to_string(&record) {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(&text);
            assert!(parsed.is_ok(), "a reader met a half-written record: {text:?}");
        }
    }
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer failed");
    }
    let mut kept = TrustStore::at(&record).folders();
    kept.sort();
    let mut expected: Vec<PathBuf> = folders.into_iter().flatten().collect();
    expected.sort();
    assert_eq!(kept, expected, "every process's every folder");
}
