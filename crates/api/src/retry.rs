//! When and how long to wait before trying a failed call again: [`RetryPolicy`], with Claude
//! Code's numbers (10 retries, 500 ms doubling to 32 s, up to 25 % jitter, the API's
//! `retry-after` honoured).

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use crate::error::ApiError;

/// The longest `retry-after` honoured: 60 s. A longer wait asked for is cut to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How often and how long to retry (Claude Code's `withRetry` defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Most retries after the first attempt (default 10: at most 11 attempts).
    pub max_retries: u32,
    /// The wait before the first retry when the error names none (default 500 ms); it
    /// doubles with each retry.
    pub base_delay: Duration,
    /// The longest backoff before jitter (default 32 s).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 10 retries, 500 ms doubling to 32 s.
    fn default() -> Self {
        Self { max_retries: 10, base_delay: Duration::from_millis(500), max_delay: Duration::from_secs(32) }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self { max_retries: 0, ..Self::default() }
    }

    /// The wait before retry number `attempt` (1-based) after `error`: the error's
    /// [`ApiError::retry_after`] when it carries one, honoured as given up to
    /// [`MAX_RETRY_AFTER`] (60 s), without jitter; else `base_delay × 2^(attempt−1)`, capped at
    /// `max_delay`, plus a random jitter of up to 25 % of that (as Claude Code: the jitter
    /// comes on top, so the longest wait is 1.25 × `max_delay`). Attempt 0 counts as 1.
    pub fn delay(&self, attempt: u32, error: &ApiError) -> Duration {
        if let Some(wait) = error.retry_after() {
            return wait.min(MAX_RETRY_AFTER);
        }
        let backoff = self.backoff(attempt);
        backoff + backoff.mul_f64(0.25 * unit_random())
    }

    /// Whether to retry after `error` and how long to wait first, for retry number `attempt`
    /// (1-based): `None` when the error is not [`ApiError::is_retryable`] or `attempt` is past
    /// `max_retries`; else [`RetryPolicy::delay`]. The one rule both [`RetryPolicy::run`] and a
    /// caller that retries by itself (the agent loop, for failures mid-stream) follow.
    pub fn wait_before(&self, attempt: u32, error: &ApiError) -> Option<Duration> {
        (error.is_retryable() && attempt <= self.max_retries).then(|| self.delay(attempt, error))
    }

    /// The wait before retry `attempt` without jitter or `retry-after`:
    /// `base_delay × 2^(attempt−1)` capped at `max_delay`.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(31);
        self.base_delay.saturating_mul(1u32 << doublings).min(self.max_delay)
    }

    /// Runs `call` until it succeeds, fails with an error that is not
    /// [`ApiError::is_retryable`], or `max_retries` retries have failed; before retry `n`
    /// (1-based) calls `on_retry(n, &error, wait)` and sleeps `wait` ([`RetryPolicy::delay`]).
    /// Needs a tokio runtime with its timer enabled.
    ///
    /// # Errors
    /// The last error of `call`.
    pub async fn run<T, F, Fut>(
        &self,
        mut on_retry: impl FnMut(u32, &ApiError, Duration),
        mut call: F,
    ) -> Result<T, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let mut attempt = 0u32;
        loop {
            let error = match call().await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            attempt += 1;
            let Some(wait) = self.wait_before(attempt, &error) else { return Err(error) };
            on_retry(attempt, &error, wait);
            drop(error);
            tokio::time::sleep(wait).await;
        }
    }
}

/// A number in `[0, 1)`, different each call (std's randomly keyed hasher: no dependency).
fn unit_random() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().build_hasher().finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_with_a_quarter_of_jitter() {
        let policy = RetryPolicy::default();
        let plain = ApiError::StreamEnded;
        assert_eq!(policy.backoff(1), Duration::from_millis(500));
        assert_eq!(policy.backoff(2), Duration::from_secs(1));
        assert_eq!(policy.backoff(7), Duration::from_secs(32));
        assert_eq!(policy.backoff(40), Duration::from_secs(32));
        for attempt in 1..=12 {
            let base = policy.backoff(attempt);
            for _ in 0..50 {
                let wait = policy.delay(attempt, &plain);
                assert!(wait >= base && wait <= base + base / 4, "{attempt}: {wait:?}");
            }
        }
    }

    #[test]
    fn retry_after_is_honoured_up_to_a_minute() {
        let policy = RetryPolicy::default();
        let asked = |secs: u64| ApiError::Status {
            endpoint: "e".into(),
            status: reqwest::StatusCode::TOO_MANY_REQUESTS,
            body: String::new(),
            retry_after: Some(Duration::from_secs(secs)),
        };
        assert_eq!(policy.delay(1, &asked(3)), Duration::from_secs(3));
        assert_eq!(policy.delay(9, &asked(45)), Duration::from_secs(45));
        assert_eq!(policy.delay(1, &asked(600)), MAX_RETRY_AFTER);
    }

    #[test]
    fn a_retry_comes_only_for_a_retryable_error_within_the_count() {
        let policy = RetryPolicy { max_retries: 2, ..RetryPolicy::default() };
        assert!(policy.wait_before(1, &ApiError::StreamEnded).is_some());
        assert!(policy.wait_before(2, &ApiError::StreamEnded).is_some());
        assert_eq!(policy.wait_before(3, &ApiError::StreamEnded), None, "past max_retries");
        assert_eq!(policy.wait_before(1, &ApiError::Stream("bad event".into())), None, "not retryable");
        assert_eq!(RetryPolicy::none().wait_before(1, &ApiError::StreamEnded), None);
    }
}
