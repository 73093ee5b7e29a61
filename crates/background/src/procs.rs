//! Finding and stopping every process a command started — background tasks and foreground
//! calls alike.
//!
//! A command starts as one process, its *root* (a task's shell leads its own session and process
//! group; a foreground call's program leads its own group), and everything it starts inherits a
//! *marker* in its environment (`KEY=value`: [`MARKER_VAR`]`=<task id>` for a task,
//! [`CALL_MARKER_VAR`]`=<call id>` for a foreground call) and its standard streams (the output
//! file, or the task's terminal). A command's processes ([`members`]) are every live process
//! that
//! - descends from the root (parent links in `/proc/<pid>/stat`, whatever session or group it
//!   moved to: `setsid`, a shell with job control), while the root lives;
//! - is in the root's group or session, while the root is not reaped (so its id cannot have been
//!   reused);
//! - carries the marker, which also finds children whose parent died first (a double fork,
//!   `setsid -f`) and anything left after the root was reaped;
//! - has the command's output file or terminal as its stdin, stdout or stderr, which finds such
//!   orphans even when they cleared their environment (`env -i`). The file must stay the
//!   command's while it is looked for: a task holds its terminal's master side meanwhile, since
//!   a terminal let go may be handed to someone else under the same name and inode.
//!
//! Only a process that left the tree, cleared its environment *and* let go of the command's
//! output (a daemon that does all three) escapes; catching it would take a cgroup or a PID
//! namespace, which the sandbox (bubblewrap's `--unshare-pid`) provides.
//!
//! Stopping ([`terminate`]) first stops (SIGSTOP) the roots that have started something, so a
//! shell cannot start its next command while the ones it started are being ended, and nothing
//! can slip out of the tree by its parent dying under it; sends SIGTERM to everything else and
//! waits up to a grace period for it to exit; then lets the roots take their SIGTERM (a shell
//! runs its `EXIT` trap); then freezes (SIGSTOP, until no new process shows up) and kills
//! (SIGKILL) whatever is left, until nothing is. Nothing here reaps: a
//! root is its starter's child (reaped by whoever waits for it), and every other process is
//! reaped by its own parent or, once orphaned, by init.
//!
//! Linux only (it reads `/proc`); elsewhere only the root's process group is signalled.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The environment variable that marks a background task's processes:
/// `AGENT_TOOLS_TASK_ID=<task id>`.
pub const MARKER_VAR: &str = "AGENT_TOOLS_TASK_ID";

/// The environment variable that marks a foreground call's processes:
/// `AGENT_TOOLS_CALL_ID=<call id>` (a fresh id per call, see [`new_call_id`]).
pub const CALL_MARKER_VAR: &str = "AGENT_TOOLS_CALL_ID";

/// How often [`terminate`] looks whether the processes are gone.
const POLL: Duration = Duration::from_millis(10);

/// How long [`terminate`] keeps sending SIGKILL after the grace period, at most.
pub(crate) const KILL_WINDOW: Duration = Duration::from_secs(5);

/// Most rounds of SIGSTOP before a SIGKILL round, when processes keep appearing (a fork bomb).
const FREEZE_ROUNDS: usize = 20;

/// A fresh id for a foreground call's marker ([`CALL_MARKER_VAR`]): `c` and 8 characters of
/// `[0-9a-z]`, random per process and call.
pub fn new_call_id() -> String {
    crate::text::new_task_id('c')
}

/// A process, named so that a reused pid is not taken for it: its pid and its start time (clock
/// ticks after boot, field 22 of `/proc/<pid>/stat`; 0 where there is no `/proc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessId {
    /// The process id.
    pub pid: i32,
    /// When it started, in clock ticks after boot (0 when unknown).
    pub start: u64,
}

impl ProcessId {
    /// The process with this pid as it is now (alive or a zombie not yet reaped); `None` when
    /// there is none. Without `/proc` (not Linux) the start time is 0 and the process is
    /// assumed to exist.
    pub fn of(pid: i32) -> Option<Self> {
        if !cfg!(target_os = "linux") {
            return Some(Self { pid, start: 0 });
        }
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let stat = parse_stat(&text)?;
        (stat.pid == pid).then_some(Self { pid, start: stat.start })
    }
}

/// A file or device by identity: its device and inode numbers (as `stat` reports them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    /// The device the file is on.
    pub dev: u64,
    /// Its inode number.
    pub ino: u64,
}

impl FileId {
    /// The identity of the file at `path` (symbolic links followed).
    ///
    /// # Errors
    /// When the file cannot be looked at.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::MetadataExt as _;
        let meta = std::fs::metadata(path)?;
        Ok(Self { dev: meta.dev(), ino: meta.ino() })
    }
}

/// One command's processes, as [`members`] and [`terminate`] find them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// The process the command was started as (the leader of its process group, and for a task
    /// of its session), while it has not been reaped.
    pub root: Option<ProcessId>,
    /// The environment entry (`KEY=value`, e.g. `AGENT_TOOLS_TASK_ID=b1234abcd`) every process of
    /// the command inherits.
    pub marker: Option<String>,
    /// The file or terminal the command's output goes to: a process with it as stdin, stdout or
    /// stderr belongs to the command. It must stay the command's for as long as the target is
    /// used: a removed file's inode number, or a terminal nobody holds, may be given to another.
    pub stdio: Option<FileId>,
}

impl Target {
    /// A background task's processes: its shell (while not reaped) and its marker
    /// (`AGENT_TOOLS_TASK_ID=<task_id>`).
    pub fn task(root: Option<ProcessId>, task_id: &str) -> Self {
        Self { root, marker: Some(format!("{MARKER_VAR}={task_id}")), stdio: None }
    }
}

/// A process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    pid: i32,
    state: char,
    parent: i32,
    group: i32,
    session: i32,
    start: u64,
}

impl Stat {
    fn is_dead(&self) -> bool {
        self.state == 'Z' || self.state == 'X'
    }
}

/// Parses a `/proc/<pid>/stat` line (the command name may hold spaces and parentheses).
fn parse_stat(text: &str) -> Option<Stat> {
    let (head, rest) = text.rsplit_once(") ")?;
    let pid = head.split_once(' ')?.0.parse().ok()?;
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    // Fields 7 to 21 (tty … itrealvalue), then the start time (field 22).
    let start = fields.nth(15)?.parse().ok()?;
    Some(Stat { pid, state, parent, group, session, start })
}

/// Every process `/proc` shows now (zombies included); empty without `/proc`.
fn table() -> Vec<Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut stats = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        // Processes come and go while we look: anything unreadable is skipped.
        if let Some(stat) = std::fs::read_to_string(entry.path().join("stat")).ok().as_deref().and_then(parse_stat)
            && stat.pid == pid
        {
            stats.push(stat);
        }
    }
    stats
}

/// Whether an environment block (`/proc/<pid>/environ`: `KEY=value` entries separated by NUL)
/// holds one of these entries exactly.
fn marked(environ: &[u8], markers: &HashSet<&str>) -> bool {
    environ.split(|byte| *byte == 0).any(|entry| std::str::from_utf8(entry).is_ok_and(|entry| markers.contains(entry)))
}

/// Whether the process's stdin, stdout or stderr is one of these files.
fn holds(pid: i32, files: &HashSet<FileId>) -> bool {
    (0..3).any(|fd| FileId::of(Path::new(&format!("/proc/{pid}/fd/{fd}"))).is_ok_and(|id| files.contains(&id)))
}

/// What the targets' processes are, from one look at `/proc`.
struct Found {
    /// Live members (roots included), never this process or init.
    live: Vec<i32>,
    /// The live roots among them.
    roots: HashSet<i32>,
}

fn find(targets: &[Target]) -> Found {
    let table = table();
    let me = i32::try_from(std::process::id()).unwrap_or(0);
    // Roots not reaped yet (alive or zombie, same start time): their ids are still theirs.
    let present: HashSet<i32> = targets
        .iter()
        .filter_map(|target| target.root)
        .filter(|root| table.iter().any(|stat| stat.pid == root.pid && stat.start == root.start))
        .map(|root| root.pid)
        .collect();
    let roots: HashSet<i32> =
        table.iter().filter(|stat| present.contains(&stat.pid) && !stat.is_dead()).map(|stat| stat.pid).collect();
    // Descendants of the live roots, by parent links.
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for stat in table.iter().filter(|stat| !stat.is_dead()) {
        children.entry(stat.parent).or_default().push(stat.pid);
    }
    let mut tree: HashSet<i32> = roots.clone();
    let mut queue: Vec<i32> = roots.iter().copied().collect();
    while let Some(pid) = queue.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            if tree.insert(*child) {
                queue.push(*child);
            }
        }
    }
    let markers: HashSet<&str> = targets.iter().filter_map(|target| target.marker.as_deref()).collect();
    let files: HashSet<FileId> = targets.iter().filter_map(|target| target.stdio).collect();
    let mut live = Vec::new();
    for stat in &table {
        if stat.pid <= 1 || stat.pid == me || stat.is_dead() {
            continue;
        }
        let belongs = tree.contains(&stat.pid)
            || present.contains(&stat.group)
            || present.contains(&stat.session)
            || (!markers.is_empty()
                && std::fs::read(format!("/proc/{}/environ", stat.pid)).is_ok_and(|env| marked(&env, &markers)))
            || (!files.is_empty() && holds(stat.pid, &files));
        if belongs {
            live.push(stat.pid);
        }
    }
    Found { live, roots }
}

/// The live processes (zombies excluded) that belong to the targets (see the module docs), never
/// this process or init. Empty without `/proc`.
pub fn members(targets: &[Target]) -> Vec<i32> {
    if !cfg!(target_os = "linux") {
        return Vec::new();
    }
    find(targets).live
}

fn signal(pids: &[i32], signal: Signal) {
    for pid in pids {
        let _ = kill(Pid::from_raw(*pid), signal);
    }
}

/// Stops every process of the targets (see the module docs) and blocks until they are gone:
///
/// 1. a root that has started something is stopped (SIGSTOP), so it starts nothing new and what
///    it started stays under it; every other process gets SIGTERM;
/// 2. up to `grace` for those to exit;
/// 3. then the stopped roots get SIGTERM (and SIGCONT) and what is left of `grace` — at least
///    [`ROOT_GRACE`] — to exit, so a shell still runs its `EXIT` trap;
/// 4. then whatever is left is frozen (SIGSTOP until no new process shows up) and killed
///    (SIGKILL), until none is, for at most a few seconds.
///
/// Returns the number of processes still found at the end (0 unless something outlived SIGKILL,
/// such as a process stuck in the kernel).
pub fn terminate(targets: &[Target], grace: Duration) -> usize {
    if targets.is_empty() {
        return 0;
    }
    if !cfg!(target_os = "linux") {
        return terminate_groups(targets, grace);
    }
    let found = find(targets);
    if found.live.is_empty() {
        return 0;
    }
    let deadline = Instant::now() + grace;
    let frozen: Vec<i32> = if found.live.iter().any(|pid| !found.roots.contains(pid)) {
        found.roots.iter().copied().collect()
    } else {
        Vec::new()
    };
    signal(&frozen, Signal::SIGSTOP);
    // Everything else gets SIGTERM, including what shows up while they exit (a child started just
    // before its root stopped, or by a SIGTERM handler).
    let mut termed: HashSet<i32> = frozen.iter().copied().collect();
    loop {
        let live = find(targets).live;
        let new: Vec<i32> = live.iter().copied().filter(|pid| !termed.contains(pid)).collect();
        signal(&new, Signal::SIGTERM);
        termed.extend(new);
        if live.iter().all(|pid| frozen.contains(pid)) || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(POLL);
    }
    if !frozen.is_empty() {
        signal(&frozen, Signal::SIGTERM);
        signal(&frozen, Signal::SIGCONT);
        wait_until(targets, deadline.max(Instant::now() + ROOT_GRACE), |found| found.roots.is_empty());
    }
    kill_all(targets, KILL_WINDOW)
}

/// The least time a stopped root gets to exit after its SIGTERM, however much of the grace
/// period its processes took.
pub const ROOT_GRACE: Duration = Duration::from_millis(200);

/// Polls until `done` holds for what is found, or `deadline` passes.
fn wait_until(targets: &[Target], deadline: Instant, done: impl Fn(&Found) -> bool) {
    while Instant::now() < deadline {
        if done(&find(targets)) {
            return;
        }
        std::thread::sleep(POLL);
    }
}

/// Kills every process of the targets at once, without a grace period (for a command that is
/// being abandoned): frozen, then SIGKILL until none is left (for at most `window`). Returns the
/// number still found at the end. Linux only; elsewhere the roots' groups get SIGKILL.
pub fn kill_now(targets: &[Target], window: Duration) -> usize {
    if !cfg!(target_os = "linux") {
        for root in targets.iter().filter_map(|target| target.root) {
            let _ = killpg(Pid::from_raw(root.pid), Signal::SIGKILL);
        }
        return 0;
    }
    kill_all(targets, window)
}

/// Freezes, then kills, until nothing is found or `window` passes.
fn kill_all(targets: &[Target], window: Duration) -> usize {
    let deadline = Instant::now() + window;
    loop {
        let found = freeze(targets);
        if found.is_empty() {
            return 0;
        }
        signal(&found, Signal::SIGKILL);
        if Instant::now() >= deadline {
            return members(targets).len();
        }
        std::thread::sleep(POLL);
    }
}

/// Stops (SIGSTOP) the targets' processes until a look finds none that is not stopped by us yet
/// (a stopped process starts nothing), and returns them.
fn freeze(targets: &[Target]) -> Vec<i32> {
    let mut stopped: HashSet<i32> = HashSet::new();
    for _ in 0..FREEZE_ROUNDS {
        let live = find(targets).live;
        let new: Vec<i32> = live.iter().copied().filter(|pid| !stopped.contains(pid)).collect();
        if new.is_empty() {
            return live;
        }
        signal(&new, Signal::SIGSTOP);
        stopped.extend(new);
    }
    find(targets).live
}

/// Without `/proc`: SIGTERM to the roots' groups, up to `grace` for them to empty, then SIGKILL.
fn terminate_groups(targets: &[Target], grace: Duration) -> usize {
    let groups: Vec<Pid> =
        targets.iter().filter_map(|target| target.root).map(|root| Pid::from_raw(root.pid)).collect();
    for group in &groups {
        let _ = killpg(*group, Signal::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && groups.iter().any(|group| killpg(*group, None).is_ok()) {
        std::thread::sleep(POLL);
    }
    for group in &groups {
        let _ = killpg(*group, Signal::SIGKILL);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line = "4242 (my (odd) name) S 1 4242 4243 0 -1 4194560 0 0 0 0 5 6 0 0 20 0 1 0 987654 1000 10";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat, Stat { pid: 4242, state: 'S', parent: 1, group: 4242, session: 4243, start: 987_654 });
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("12 (short) S 1 2 3"), None);
    }

    #[test]
    fn markers_match_exact_entries() {
        let markers: HashSet<&str> = ["AGENT_TOOLS_TASK_ID=b12345678"].into_iter().collect();
        assert!(marked(b"PATH=/bin\0AGENT_TOOLS_TASK_ID=b12345678\0HOME=/root\0", &markers));
        assert!(!marked(b"AGENT_TOOLS_TASK_ID=b123456789\0", &markers));
        assert!(!marked(b"X_AGENT_TOOLS_TASK_ID=b12345678\0", &markers));
        assert!(!marked(b"", &markers));
    }

    #[test]
    fn this_process_is_never_a_member() {
        let me = i32::try_from(std::process::id()).unwrap();
        let target = Target {
            root: nix::unistd::getpgid(None).ok().and_then(|group| ProcessId::of(group.as_raw())),
            marker: Some("AGENT_TOOLS_TASK_ID=bnone0000".into()),
            stdio: FileId::of(Path::new("/proc/self/fd/1")).ok(),
        };
        assert!(!members(&[target]).contains(&me));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_id_carries_its_start_time() {
        let me = i32::try_from(std::process::id()).unwrap();
        let id = ProcessId::of(me).unwrap();
        assert_eq!(id.pid, me);
        assert!(id.start > 0);
        assert_eq!(ProcessId::of(me), Some(id));
        assert_eq!(ProcessId::of(i32::MAX), None);
    }
}
