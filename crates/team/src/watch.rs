//! A mailbox watcher: a thread that, every interval, takes a member's unread messages
//! ([`Team::take_unread`]) and queues each one, rendered ([`Message::render`]), on a
//! [`NotificationQueue`] under the key [`notification_key`] — how the lead (and a tmux
//! teammate) hears its mailbox between turns. A `shutdown_request` is not queued: it sets
//! [`MailboxWatch::shutdown_requested`]. The watcher stops when it is dropped or
//! [`MailboxWatch::stop`]ped, or by itself when the team's config is gone
//! ([`MailboxWatch::team_gone`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_tools_core::CancellationToken;
use agent_tools_core::NotificationQueue;

use crate::{Message, Team};

/// How often a watcher looks at its mailbox by default (500 ms).
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(500);

/// The notification key of team `team`'s messages: `team:<team>`.
pub fn notification_key(team: &str) -> String {
    format!("team:{team}")
}

#[derive(Debug, Default)]
struct Flags {
    shutdown: AtomicBool,
    gone: AtomicBool,
    stopped: AtomicBool,
}

/// A running mailbox watcher (see the module docs). Dropping it stops it.
#[derive(Debug)]
pub struct MailboxWatch {
    cancel: CancellationToken,
    flags: Arc<Flags>,
}

impl MailboxWatch {
    /// Watches `name`'s mailbox in `team`, queueing its messages on `queue`, every `interval`.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn start(team: Team, name: &str, queue: NotificationQueue, interval: Duration) -> std::io::Result<Self> {
        let cancel = CancellationToken::new();
        let flags = Arc::new(Flags::default());
        let (token, shared, name) = (cancel.clone(), Arc::clone(&flags), name.to_owned());
        std::thread::Builder::new().name(format!("team-mailbox-{name}")).spawn(move || {
            run(&team, &name, &queue, interval, &token, &shared);
            shared.stopped.store(true, Ordering::SeqCst);
        })?;
        Ok(Self { cancel, flags })
    }

    /// Stops the watcher (it ends within one interval's slice of 50 ms).
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// Whether a `shutdown_request` arrived.
    pub fn shutdown_requested(&self) -> bool {
        self.flags.shutdown.load(Ordering::SeqCst)
    }

    /// Whether the watcher found the team gone (its config file removed).
    pub fn team_gone(&self) -> bool {
        self.flags.gone.load(Ordering::SeqCst)
    }

    /// Whether the watcher's thread has ended.
    pub fn is_stopped(&self) -> bool {
        self.flags.stopped.load(Ordering::SeqCst)
    }
}

impl Drop for MailboxWatch {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn run(
    team: &Team,
    name: &str,
    queue: &NotificationQueue,
    interval: Duration,
    cancel: &CancellationToken,
    flags: &Flags,
) {
    let key = notification_key(team.name());
    let mut last_error = String::new();
    while !cancel.is_cancelled() {
        if !team.exists() {
            flags.gone.store(true, Ordering::SeqCst);
            return;
        }
        match team.take_unread(name) {
            Ok(messages) => {
                last_error.clear();
                for message in messages {
                    deliver(&message, &key, queue, flags);
                }
            }
            Err(error) => {
                // Said once per distinct error, not every interval.
                let text = error.to_string();
                if text != last_error {
                    tracing::warn!(team = team.name(), name, %text, "cannot read the mailbox");
                    last_error = text;
                }
            }
        }
        let mut waited = Duration::ZERO;
        while waited < interval && !cancel.is_cancelled() {
            let step = Duration::from_millis(50).min(interval - waited);
            std::thread::sleep(step);
            waited += step;
        }
    }
}

fn deliver(message: &Message, key: &str, queue: &NotificationQueue, flags: &Flags) {
    if message.is_shutdown_request() {
        flags.shutdown.store(true, Ordering::SeqCst);
        return;
    }
    queue.push(key, message.render());
}
