//! The real-time request budget: 120 requests per key per minute, shared by the two real-time
//! endpoints, in fixed windows aligned to the wall-clock minute.
//!
//! Written by hand rather than with `governor`: governor's GCRA refills continuously (one request
//! every 0.5 s at 120/min), so it cannot promise "exactly 120 per window" nor say when a window
//! resets, and the interface's `X-RateLimit-Remaining` / `X-RateLimit-Reset` headers need both.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// Keys tracked before stale windows are swept.
const SWEEP_AT: usize = 4096;

/// The state of one key's budget after a request was counted (or refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in this window.
    pub remaining: u32,
    /// Seconds until the window resets (at least 1).
    pub reset_secs: u64,
}

/// Fixed-window counters per key.
#[derive(Debug)]
pub struct WindowLimiter {
    limit: u32,
    window_secs: u64,
    windows: Mutex<HashMap<String, (u64, u32)>>,
}

impl WindowLimiter {
    /// `limit` requests per `window_secs` per key.
    pub fn new(limit: u32, window_secs: u64) -> Self {
        Self {
            limit,
            window_secs: window_secs.max(1),
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `key` now: `Ok` if allowed, `Err` with the budget if refused.
    pub fn check(&self, key: &str) -> Result<Budget, Budget> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.check_at(key, now)
    }

    /// [`check`](Self::check) at a given Unix time, for tests.
    pub fn check_at(&self, key: &str, now_secs: u64) -> Result<Budget, Budget> {
        let window = now_secs / self.window_secs;
        let reset_secs = ((window + 1) * self.window_secs - now_secs).max(1);
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        if windows.len() >= SWEEP_AT {
            windows.retain(|_, (w, _)| *w == window);
        }
        let entry = windows.entry(key.to_owned()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        let budget = |used: u32| Budget {
            limit: self.limit,
            remaining: self.limit.saturating_sub(used),
            reset_secs,
        };
        if entry.1 >= self.limit {
            return Err(budget(entry.1));
        }
        entry.1 += 1;
        Ok(budget(entry.1))
    }
}

/// At most `limit` events in any `window` (a sliding log): what an upstream that counts "per
/// minute" on its own clock can be trusted to accept. A fixed window would let twice the limit
/// through across a window's edge. Written by hand for the same reason as [`WindowLimiter`]:
/// the caller must learn how long until the next free slot.
#[derive(Debug)]
pub struct SlidingLimiter {
    limit: usize,
    window: std::time::Duration,
    sent: Mutex<std::collections::VecDeque<std::time::Instant>>,
}

impl SlidingLimiter {
    /// `limit` events per `window`.
    pub fn new(limit: u32, window: std::time::Duration) -> Self {
        Self {
            limit: limit.max(1) as usize,
            window,
            sent: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// Takes a slot now (`Ok`), or says how long until one frees (`Err`).
    pub fn try_take(&self) -> Result<(), std::time::Duration> {
        self.try_take_at(std::time::Instant::now())
    }

    /// [`try_take`](Self::try_take) at a given instant, for tests.
    pub fn try_take_at(&self, now: std::time::Instant) -> Result<(), std::time::Duration> {
        let mut sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        while sent
            .front()
            .is_some_and(|first| now.saturating_duration_since(*first) >= self.window)
        {
            sent.pop_front();
        }
        if sent.len() >= self.limit {
            let first = sent.front().copied().unwrap_or(now);
            return Err((first + self.window).saturating_duration_since(now));
        }
        sent.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sliding_limit_holds_across_a_window_edge() {
        let limiter = SlidingLimiter::new(3, std::time::Duration::from_secs(60));
        let t0 = std::time::Instant::now();
        let at = |secs: u64| t0 + std::time::Duration::from_secs(secs);
        assert!(limiter.try_take_at(at(50)).is_ok());
        assert!(limiter.try_take_at(at(58)).is_ok());
        assert!(limiter.try_take_at(at(59)).is_ok());
        // A fixed minute window would start afresh at 60: a sliding one waits for 50 + 60.
        assert_eq!(
            limiter.try_take_at(at(61)),
            Err(std::time::Duration::from_secs(49))
        );
        assert!(limiter.try_take_at(at(110)).is_ok());
        assert!(limiter.try_take_at(at(111)).is_err());
    }

    #[test]
    fn exactly_the_limit_passes_per_window_and_keys_are_independent() {
        let limiter = WindowLimiter::new(120, 60);
        let t = 1_800_000_000; // a window start
        for i in 0..120 {
            let budget = limiter.check_at("a", t + 10).unwrap();
            assert_eq!(budget.remaining, 119 - i);
        }
        let refused = limiter.check_at("a", t + 10).unwrap_err();
        assert_eq!(refused.remaining, 0);
        assert_eq!(refused.reset_secs, 50);
        assert_eq!(limiter.check_at("b", t + 10).unwrap().remaining, 119);
        // The next window starts afresh.
        assert_eq!(limiter.check_at("a", t + 60).unwrap().remaining, 119);
    }
}
