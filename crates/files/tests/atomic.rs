//! Atomic writes, observed from outside: the old file is never written in place (a hard link to
//! it keeps the old bytes), the new file is renamed into place from the same folder, a reader
//! running during large writes only ever sees a whole old or a whole new file, and a writer
//! killed at any moment leaves the old or the new file, never a truncated one, and no temporary
//! file that outlives the next write.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_tools_files::write_atomic;

/// Two contents of different sizes and bytes, so any mix or cut of them is told apart.
fn contents() -> (Vec<u8>, Vec<u8>) {
    (vec![b'o'; 3 << 20], vec![b'n'; 5 << 20])
}

fn is_whole(bytes: &[u8], old: &[u8], new: &[u8]) -> bool {
    bytes == old || bytes == new
}

#[cfg(unix)]
#[test]
fn the_old_file_is_never_written_in_place() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    fs::write(&path, "old\n").unwrap();
    // A second name for the old file's inode: an in-place write would change it too.
    let old_inode = dir.path().join("old-inode");
    fs::hard_link(&path, &old_inode).unwrap();
    let before = fs::metadata(&path).unwrap();
    write_atomic(&path, b"new\n").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new\n");
    assert_eq!(fs::read(&old_inode).unwrap(), b"old\n");
    let after = fs::metadata(&path).unwrap();
    // A new inode, renamed into place: made in the same folder (rename never crosses devices).
    assert_ne!(after.ino(), before.ino());
    assert_eq!(after.dev(), fs::metadata(dir.path()).unwrap().dev());
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["f.txt", "old-inode"]);
}

#[test]
fn a_reader_sees_the_old_or_the_new_file_never_a_part() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bin");
    let (old, new) = contents();
    fs::write(&path, &old).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (path, old, new, stop, reads) = (path.clone(), old.clone(), new.clone(), stop.clone(), reads.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                // The file is always there, and always whole.
                let bytes = fs::read(&path).unwrap();
                assert!(is_whole(&bytes, &old, &new), "a partial file of {} bytes was seen", bytes.len());
                reads.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let start = Instant::now();
    let mut writes = 0;
    while writes < 8 || (reads.load(Ordering::Relaxed) < 8 && start.elapsed() < Duration::from_secs(20)) {
        write_atomic(&path, if writes % 2 == 0 { &new } else { &old }).unwrap();
        writes += 1;
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
    assert!(reads.load(Ordering::Relaxed) > 0);
}

/// Environment variable that turns [`killed_writer_child`] into a writer looping on its target.
const CHILD_TARGET: &str = "AGENT_TOOLS_FILES_ATOMIC_CHILD_TARGET";

/// Environment variable telling [`killed_writer_child`] which content to write first (`new` or
/// `old`; then the other, in turn).
const CHILD_FIRST: &str = "AGENT_TOOLS_FILES_ATOMIC_CHILD_FIRST";

/// How many times [`a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file`] kills a writer.
const KILLS: usize = 400;

/// The killed writers' two contents: smaller than [`contents`], so that 400 writers (each synced
/// to disk) fit in seconds, and still megabytes each.
fn kill_contents() -> (Vec<u8>, Vec<u8>) {
    (vec![b'o'; 1 << 20], vec![b'n'; 2 << 20])
}

/// Not a test of its own (so it is ignored): run as a child process by the test below, it says
/// `writing` (at the end of a line of stdout: the harness may have begun the line) just before
/// its first write, then writes the two contents in turn (the one [`CHILD_FIRST`] names first),
/// saying `wrote` after each, until it is killed (or 20 s pass, or a write fails).
#[test]
#[ignore = "the child process of a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file"]
#[allow(clippy::print_stdout)]
fn killed_writer_child() {
    let target =
        std::env::var(CHILD_TARGET).expect("run by a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file");
    let (old, new) = kill_contents();
    let order = if std::env::var(CHILD_FIRST).as_deref() == Ok("old") { [&old, &new] } else { [&new, &old] };
    let deadline = Instant::now() + Duration::from_secs(20);
    println!("writing");
    for round in 0.. {
        if Instant::now() >= deadline || write_atomic(Path::new(&target), order[round % 2]).is_err() {
            break;
        }
        println!("wrote");
    }
}

/// Names in `dir` other than `data.bin`, which must all be the writers' temporary files.
fn temporary_files(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name != "data.bin" {
            assert!(name.starts_with(".data.bin.") && name.ends_with(".tmp"), "{name}");
            names.push(name);
        }
    }
    names
}

/// 400 writer processes, each killed (SIGKILL: no destructor, no cleanup) at a random moment of
/// its first writes, each first writing the content the target does not hold: the target is
/// always the whole old or the whole new content, and no temporary file survives. On Linux a
/// kill leaves a temporary file only in the instant between naming the complete file and
/// renaming it over the target (counted and printed); the next write removes it, so one last
/// write ends with none.
#[cfg(unix)]
#[test]
#[allow(clippy::print_stderr)]
fn a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file() {
    use std::io::{BufRead as _, Read as _};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("data.bin");
    let (old, new) = kill_contents();
    // The kills spread over about one and a half times what a write takes here (this disk, this
    // load), within 2 to 15 ms: some land before the first write ends, some after.
    let mut slowest = Duration::ZERO;
    for content in [&new, &old, &new, &old] {
        let start = Instant::now();
        write_atomic(&target, content).unwrap();
        slowest = slowest.max(start.elapsed());
    }
    let spread = (slowest * 3 / 2).clamp(Duration::from_millis(2), Duration::from_millis(15));
    let spread_micros = u64::try_from(spread.as_micros()).unwrap();
    let exe = std::env::current_exe().unwrap();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut random = seed;
    let mut next_delay = || {
        // xorshift64: the kill's moment varies; nothing is ordered by it.
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        Duration::from_micros(random % (spread_micros + 1))
    };
    let start = Instant::now();
    let (mut writes, mut written, mut changed, mut left_by_a_kill, mut most_at_once) = (0, 0, 0, 0, 0);
    for round in 0..KILLS {
        let before = fs::read(&target).unwrap();
        let first = if before == old { "new" } else { "old" };
        let mut child = Command::new(&exe)
            .args(["killed_writer_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(CHILD_TARGET, &target)
            .env(CHILD_FIRST, first)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the child is about to write, so the kill lands in its writes.
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.trim_end().ends_with("writing") {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "round {round} (seed {seed}): the writer never wrote");
        }
        // tidy:allow-sleep the moment of the kill is what varies from round to round.
        std::thread::sleep(next_delay());
        assert!(child.try_wait().unwrap().is_none(), "round {round}: the writer stopped before the kill");
        child.kill().unwrap();
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        child.wait().unwrap();
        let done = rest.lines().filter(|line| line.ends_with("wrote")).count();
        let (first, second) = if first == "new" { (&new, &old) } else { (&old, &new) };
        writes += done;
        written += done.div_ceil(2) * first.len() + done / 2 * second.len();
        let bytes = fs::read(&target).unwrap();
        assert!(is_whole(&bytes, &old, &new), "round {round} (seed {seed}): a partial file of {} bytes", bytes.len());
        changed += usize::from(bytes != before);
        let left = temporary_files(dir.path()).len();
        left_by_a_kill += usize::from(left > 0);
        most_at_once = most_at_once.max(left);
    }
    let after_kills = temporary_files(dir.path()).len();
    // The next write removes what the last kills left.
    write_atomic(&target, &new).unwrap();
    assert_eq!(temporary_files(dir.path()), Vec::<String>::new(), "seed {seed}");
    assert_eq!(fs::read(&target).unwrap(), new);
    eprintln!(
        "{KILLS} kills in {:.1} s (seed {seed}, kills spread over {} ms after the first write starts): {writes} writes \
         returned ({:.0} MB), the target changed by {changed} writers, a temporary file left by {left_by_a_kill} kills \
         (at most {most_at_once} at once, {after_kills} after the last kill), 0 after the next write",
        start.elapsed().as_secs_f64(),
        spread.as_millis(),
        written as f64 / f64::from(1 << 20),
    );
}
