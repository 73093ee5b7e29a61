//! Removing the folders of old sessions, as Claude Code removes old sessions at start-up
//! (`cleanupPeriodDays`, default 30).
//!
//! A session folder (`…/agent-tools/sessions/<id>/`) holds the output files of background tasks
//! and the results saved whole when they were cut. A folder is old when nothing in it has changed
//! for the period: its newest modification time (of the folder and everything in it) is older
//! than that. Whatever the period, a folder touched in the last hour is kept, so another
//! `agent-tools` still running (a `serve` with a dev server in the background) never loses its
//! files. Errors are ignored: cleaning up must never stop a session from starting.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Folders changed more recently than this are never removed.
const MIN_AGE: Duration = Duration::from_secs(60 * 60);

/// How deep the walk for the newest modification time goes (session folders are shallow).
const MAX_DEPTH: usize = 4;

/// Removes the session folders in `sessions` (the parent of every session folder) that have not
/// changed for `period_days` days, except `keep` (the current session's folder). Returns how many
/// it removed.
pub fn remove_old_sessions(sessions: &Path, keep: &Path, period_days: u64, now: SystemTime) -> usize {
    let period = Duration::from_secs(period_days.saturating_mul(24 * 60 * 60)).max(MIN_AGE);
    let Some(cutoff) = now.checked_sub(period) else { return 0 };
    let Ok(entries) = std::fs::read_dir(sessions) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        // Only real folders: a symlink here is not ours to follow.
        if path == keep || !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        if newest_change(&path, MAX_DEPTH).is_some_and(|newest| newest < cutoff)
            && std::fs::remove_dir_all(&path).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// The newest modification time of `path` and everything under it (to `depth` levels).
fn newest_change(path: &Path, depth: usize) -> Option<SystemTime> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let mut newest = meta.modified().ok()?;
    if meta.is_dir() && depth > 0 {
        for entry in std::fs::read_dir(path).ok()?.flatten() {
            match newest_change(&entry.path(), depth - 1) {
                Some(time) => newest = newest.max(time),
                // Unreadable: treat it as in use.
                None => return None,
            }
        }
    }
    Some(newest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use filetime::{FileTime, set_file_mtime};

    const DAY: u64 = 24 * 60 * 60;

    fn age(path: &Path, now: SystemTime, days: u64) {
        set_file_mtime(path, FileTime::from_system_time(now - Duration::from_secs(days * DAY))).unwrap();
    }

    #[test]
    fn only_sessions_idle_for_the_period_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let sessions = root.path();
        let now = SystemTime::now();
        let make = |name: &str, days: u64| {
            let dir = sessions.join(name);
            std::fs::create_dir_all(dir.join("tasks")).unwrap();
            let file = dir.join("tasks/b1.output");
            std::fs::write(&file, "out").unwrap();
            for path in [&file, &dir.join("tasks"), &dir] {
                age(path, now, days);
            }
            dir
        };
        let old = make("old", 40);
        let recent = make("recent", 3);
        let current = make("current", 90);
        // An old folder whose task output was written a minute ago is in use.
        let busy = make("busy", 60);
        set_file_mtime(busy.join("tasks/b1.output"), FileTime::from_system_time(now - Duration::from_secs(60)))
            .unwrap();
        std::fs::write(sessions.join("stray-file"), "x").unwrap();
        age(&sessions.join("stray-file"), now, 100);

        assert_eq!(remove_old_sessions(sessions, &current, 30, now), 1);
        assert!(!old.exists());
        assert!(recent.exists() && current.exists() && busy.exists());
        assert!(sessions.join("stray-file").exists(), "only folders are removed");

        // A shorter period takes the recent one too; a missing parent is no error.
        assert_eq!(remove_old_sessions(sessions, &current, 2, now), 1);
        assert!(!recent.exists());
        assert_eq!(remove_old_sessions(&sessions.join("missing"), &current, 30, now), 0);
    }

    #[test]
    fn a_period_of_zero_still_spares_the_last_hour() {
        let root = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let fresh = root.path().join("fresh");
        let stale = root.path().join("stale");
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::create_dir_all(&stale).unwrap();
        set_file_mtime(&stale, FileTime::from_system_time(now - Duration::from_secs(2 * 60 * 60))).unwrap();
        assert_eq!(remove_old_sessions(root.path(), Path::new("/none"), 0, now), 1);
        assert!(fresh.exists() && !stale.exists());
    }
}
