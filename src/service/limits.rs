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

#[cfg(test)]
mod tests {
    use super::*;

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
