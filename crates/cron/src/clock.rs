//! What the scheduler reads the time from and sleeps on: the system's clock, or a fake one that
//! tests move by hand.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A boxed future, as the clock's sleep returns.
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The wall clock of a scheduler, in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// The time now.
    fn now_ms(&self) -> i64;
    /// Returns once the time is `ms` or later (at once if it is already).
    fn sleep_until(&self, ms: i64) -> Sleep<'_>;
}

/// The system's clock, slept on with Tokio's timer. A sleep of more than a minute wakes after a
/// minute anyway (the scheduler looks again), so a wall clock that jumps is followed.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| i64::try_from(since.as_millis()).unwrap_or(0))
    }

    fn sleep_until(&self, ms: i64) -> Sleep<'_> {
        let wait = u64::try_from(ms.saturating_sub(self.now_ms())).unwrap_or(0).min(60_000);
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// A clock that only moves when told ([`FakeClock::advance`], [`FakeClock::set`]): sleepers wake
/// as soon as it reaches their time, with no real waiting.
#[derive(Debug)]
pub struct FakeClock {
    now: tokio::sync::watch::Sender<i64>,
}

impl FakeClock {
    /// A clock standing at `ms`.
    pub fn new(ms: i64) -> Self {
        Self { now: tokio::sync::watch::Sender::new(ms) }
    }

    /// Moves the clock `ms` forward and wakes whoever sleeps until then.
    pub fn advance(&self, ms: i64) {
        self.now.send_modify(|now| *now = now.saturating_add(ms));
    }

    /// Sets the clock to `ms` (it may go back).
    pub fn set(&self, ms: i64) {
        self.now.send_replace(ms);
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> i64 {
        *self.now.borrow()
    }

    fn sleep_until(&self, ms: i64) -> Sleep<'_> {
        let mut now = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as `self`, which outlives this future.
            let _ = now.wait_for(|now| *now >= ms).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_fake_clock_wakes_its_sleepers_when_moved() {
        let clock = std::sync::Arc::new(FakeClock::new(1_000));
        let sleeper = {
            let clock = std::sync::Arc::clone(&clock);
            tokio::spawn(async move { clock.sleep_until(5_000).await })
        };
        clock.advance(3_000);
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        clock.advance(1_000);
        sleeper.await.unwrap();
        assert_eq!(clock.now_ms(), 5_000);
    }
}
