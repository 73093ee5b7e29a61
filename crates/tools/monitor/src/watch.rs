//! The watch itself, free of the tool contract: a [`LineListener`] on the task's output that
//! gathers lines into events and queues them, and the thread that flushes them and stops the
//! task at its deadline.
//!
//! - **Batching**: the first line of a batch opens a window ([`Settings::window`], 200 ms by
//!   default); every line that arrives before it closes joins the batch, and the batch is queued
//!   as one event when it does. Blank lines are not events (they stay in the output file).
//! - **Capping**: an event holds at most [`Settings::max_event_chars`] characters of lines; the
//!   lines that do not fit (and every line after them, so what is shown is the start, in order)
//!   are counted and the event says how many were left out. A single line longer than the cap is
//!   cut.
//! - **Joining**: while the previous event is still in the queue (the model has not been handed
//!   it yet), a new batch joins it instead of queueing another: the queue holds at most one event
//!   per watch, so a chatty command cannot flood it.
//! - **Ordering**: the output's end flushes what is left on the copying thread, before the task
//!   records its end — so the events come before the completion notification — and a timed-out
//!   notice waits (bounded) for that flush.
//! - **Deadline**: at the deadline the task is stopped through the registry and the timed-out
//!   notice is queued; a task that ended first (by itself, TaskStop, shutdown) gets none. The
//!   thread holds the registry weakly, so a session that drops its registry still stops the task.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use agent_tools_background::{LineListener, WeakTaskRegistry};
use agent_tools_core::NotificationQueue;

use crate::render;

/// How lines become events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// How long a batch stays open after its first line.
    pub window: Duration,
    /// Most characters of lines in one event (each line counts its characters and one for its
    /// line break).
    pub max_event_chars: usize,
}

/// How long the output's end waits for the task id (the copier can finish before
/// `spawn_shell` has returned it), and a timed-out notice for the output's end.
const SETTLE: Duration = Duration::from_secs(2);

/// Lines on their way to one event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Batch {
    /// The lines shown, in order.
    pub(crate) lines: Vec<String>,
    /// Characters they take (a line break each included).
    chars: usize,
    /// Lines left out (after the last shown one).
    pub(crate) dropped: usize,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }

    /// Adds a line if it fits within `max_chars`; once one does not, it and every later line
    /// are only counted. A first line longer than the cap is cut to it (and marked with `…`).
    fn add(&mut self, line: &str, max_chars: usize) {
        if self.dropped > 0 {
            self.dropped += 1;
            return;
        }
        let chars = line.chars().count() + 1;
        if self.chars + chars <= max_chars {
            self.lines.push(line.to_owned());
            self.chars += chars;
        } else if self.lines.is_empty() {
            let keep = max_chars.saturating_sub(2);
            let mut cut: String = line.chars().take(keep).collect();
            cut.push('…');
            self.lines.push(cut);
            self.chars = max_chars;
        } else {
            self.dropped = 1;
        }
    }

    /// Appends another batch's lines (within the cap) and its count of left-out lines.
    fn join(&mut self, later: Batch, max_chars: usize) {
        for line in &later.lines {
            self.add(line, max_chars);
        }
        self.dropped += later.dropped;
    }
}

/// The task being watched, once `spawn_shell` has returned it.
#[derive(Debug, Clone)]
struct Started {
    id: String,
    output_path: PathBuf,
}

#[derive(Debug, Default)]
struct State {
    task: Option<Started>,
    /// Lines since the last flush.
    batch: Batch,
    /// When the open batch's first line arrived.
    opened: Option<Instant>,
    /// What the last queued event holds, for a batch that joins it while it waits.
    queued: Batch,
    /// The output has ended and its last lines were flushed.
    ended: bool,
}

/// One watch: the listener on the task's output and the state its thread shares.
#[derive(Debug)]
pub(crate) struct Watch {
    description: String,
    queue: NotificationQueue,
    settings: Settings,
    state: Mutex<State>,
    changed: Condvar,
}

impl Watch {
    /// A watch whose events, named by `description`, go to `queue`.
    pub(crate) fn new(description: String, queue: NotificationQueue, settings: Settings) -> Self {
        Self { description, queue, settings, state: Mutex::default(), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is a few field writes and a queue push: a poisoned lock is consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>, timeout: Duration) -> MutexGuard<'a, State> {
        match self.changed.wait_timeout(state, timeout) {
            Ok((state, _)) => state,
            Err(poisoned) => poisoned.into_inner().0,
        }
    }

    /// Waits until `done(state)` holds or `limit` passes; returns the state, locked.
    fn wait_until(&self, limit: Duration, done: impl Fn(&State) -> bool) -> MutexGuard<'_, State> {
        let deadline = Instant::now() + limit;
        let mut state = self.lock();
        while !done(&state) {
            let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) else {
                break;
            };
            state = self.wait(state, left);
        }
        state
    }

    /// Records the task the registry started (its events can be queued from now on).
    pub(crate) fn started(&self, id: String, output_path: PathBuf) {
        self.lock().task = Some(Started { id, output_path });
        self.changed.notify_all();
    }

    /// Queues the open batch as an event (joining the last one if it is still queued), under
    /// the lock so events keep their order.
    fn flush(&self, state: &mut State) {
        state.opened = None;
        if state.batch.is_empty() {
            return;
        }
        let Some(task) = state.task.clone() else { return };
        let batch = std::mem::take(&mut state.batch);
        let key = render::event_key(&task.id);
        // A removed event had not been handed to the model: the new lines join it.
        let event = if self.queue.remove(&key) > 0 {
            let mut joined = std::mem::take(&mut state.queued);
            joined.join(batch, self.settings.max_event_chars);
            joined
        } else {
            batch
        };
        let text = render::event(&task.id, &self.description, &event.lines, event.dropped, &task.output_path);
        self.queue.push(key, text);
        state.queued = event;
    }

    /// The thread's work: flushes each batch when its window closes, and at `deadline` stops
    /// the task and queues the timed-out notice; returns when the output ends first.
    fn run(&self, registry: &WeakTaskRegistry, deadline: Instant, timeout_ms: u64) {
        let mut state = self.lock();
        loop {
            if state.ended {
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            let due = state.opened.map(|opened| opened + self.settings.window);
            if due.is_some_and(|due| due <= now) {
                self.flush(&mut state);
                continue;
            }
            let wake = due.map_or(deadline, |due| due.min(deadline));
            state = self.wait(state, wake - now);
        }
        let Some(task) = state.task.clone() else { return };
        drop(state);
        let Some(registry) = registry.upgrade() else { return };
        // A task that already ended (by itself, TaskStop, shutdown) is not "timed out".
        let stopped = registry.stop_blocking(&task.id);
        drop(registry);
        let Ok(snapshot) = stopped else { return };
        tracing::debug!(id = %task.id, timeout_ms, "monitor timed out; its task was stopped");
        // Its last lines first: they are flushed when the stopped command's output ends.
        let state = self.wait_until(SETTLE, |state| state.ended);
        self.queue.push(render::event_key(&task.id), render::timed_out(&snapshot, &self.description, timeout_ms));
        drop(state);
    }
}

impl LineListener for Watch {
    fn line(&self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let mut state = self.lock();
        state.batch.add(line, self.settings.max_event_chars);
        if state.opened.is_none() {
            state.opened = Some(Instant::now());
            drop(state);
            self.changed.notify_all();
        }
    }

    /// The last lines, at once (before the task's completion notification).
    fn end(&self) {
        let mut state = self.wait_until(SETTLE, |state| state.task.is_some());
        self.flush(&mut state);
        state.ended = true;
        drop(state);
        self.changed.notify_all();
    }
}

/// Starts the watch's thread: it flushes batches and, `timeout` after now, stops the task.
///
/// # Errors
/// When the thread cannot be started (the caller then stops the task).
pub(crate) fn arm(watch: Arc<Watch>, registry: WeakTaskRegistry, id: &str, timeout: Duration) -> std::io::Result<()> {
    let deadline = Instant::now() + timeout;
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    std::thread::Builder::new()
        .name(format!("monitor-{id}"))
        .stack_size(128 * 1024)
        .spawn(move || watch.run(&registry, deadline, timeout_ms))
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_keep_a_prefix_within_the_cap_and_count_the_rest() {
        let mut batch = Batch::default();
        for line in ["abc", "defg", "hij", "k"] {
            batch.add(line, 9);
        }
        assert_eq!(batch.lines, ["abc", "defg"]);
        assert_eq!(batch.dropped, 2, "`k` would fit, but nothing after a gap is shown");
        let mut long = Batch::default();
        long.add("0123456789", 6);
        assert_eq!(long.lines, ["0123…"]);
        long.add("x", 6);
        assert_eq!(long.dropped, 1);
    }

    #[test]
    fn a_later_batch_joins_within_the_cap() {
        let mut first = Batch::default();
        first.add("one", 12);
        let mut later = Batch::default();
        later.add("two", 12);
        later.add("three", 12);
        later.add("four", 12);
        assert_eq!((later.lines.len(), later.dropped), (2, 1));
        first.join(later, 12);
        assert_eq!(first.lines, ["one", "two"]);
        assert_eq!(first.dropped, 2);
    }

    #[test]
    fn lines_wait_for_the_task_id_and_flush_at_the_end() {
        let queue = NotificationQueue::default();
        let settings = Settings { window: Duration::from_secs(60), max_event_chars: 100 };
        let watch = Watch::new("Build log".into(), queue.clone(), settings);
        watch.line("first");
        watch.line("   ");
        watch.started("b12345678".into(), PathBuf::from("/t/b12345678.output"));
        watch.line("second");
        watch.end();
        let queued = queue.drain();
        assert_eq!(queued.len(), 1);
        assert_eq!(queued[0].key, "monitor:b12345678");
        assert_eq!(
            queued[0].text,
            "<task-notification>\n<task-id>b12345678</task-id>\n<kind>monitor</kind>\n<description>Build log</description>\n<event>\nfirst\nsecond\n</event>\n</task-notification>"
        );
    }
}
