//! The real-time request budget as the client sees it: taken from the `X-RateLimit-Limit`,
//! `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds) headers of real-time answers, or,
//! when a remote sends none, counted by the client in one-minute windows of
//! [`DEFAULT_REALTIME_PER_MINUTE`] (the spec's limit) starting at the first request of a window.

use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;

/// The spec's real-time limit, used when a remote does not report its own.
pub const DEFAULT_REALTIME_PER_MINUTE: u32 = 120;

/// Length of a locally counted window.
const LOCAL_WINDOW: Duration = Duration::from_secs(60);

/// Where the numbers of a [`Budget`] come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetSource {
    /// No real-time request has been made in the current window; the spec's limit is assumed.
    Assumed,
    /// The server's `X-RateLimit-*` headers on the last real-time answer.
    Server,
    /// The client's own count: the remote sends no `X-RateLimit-*` headers.
    Counted,
}

/// Real-time requests left, for the UI to show and to wait on instead of being refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in the current window.
    pub remaining: u32,
    /// When the current window ends and `remaining` goes back to `limit`.
    pub resets_at: Instant,
    /// Where these numbers come from.
    pub source: BudgetSource,
}

impl Budget {
    /// Time until the window resets (zero once it has).
    #[must_use]
    pub fn resets_in(&self) -> Duration {
        self.resets_at.saturating_duration_since(Instant::now())
    }

    /// Whether no real-time request may be made before [`resets_at`](Self::resets_at).
    #[must_use]
    pub fn is_spent(&self) -> bool {
        self.remaining == 0 && self.resets_at > Instant::now()
    }
}

/// The client's running account of the budget.
#[derive(Debug, Clone)]
pub(crate) struct BudgetTracker {
    budget: Budget,
}

impl BudgetTracker {
    pub(crate) fn new() -> Self {
        Self {
            budget: Self::fresh(DEFAULT_REALTIME_PER_MINUTE, Instant::now()),
        }
    }

    fn fresh(limit: u32, now: Instant) -> Budget {
        Budget {
            limit,
            remaining: limit,
            resets_at: now + LOCAL_WINDOW,
            source: BudgetSource::Assumed,
        }
    }

    /// The budget now: a window that has ended reads as a fresh one starting now.
    pub(crate) fn current(&self, now: Instant) -> Budget {
        if now >= self.budget.resets_at {
            Self::fresh(self.budget.limit, now)
        } else {
            self.budget
        }
    }

    /// Called before a real-time request: how long to wait when the budget is known to be spent.
    pub(crate) fn wait_needed(&self, now: Instant) -> Option<Duration> {
        let budget = self.current(now);
        (budget.remaining == 0).then(|| budget.resets_at.saturating_duration_since(now))
    }

    /// Records the answer to a real-time request: the server's headers when it sent them, else
    /// one request counted (refusals for key or tier are not counted: they spend no budget).
    pub(crate) fn record(&mut self, headers: &HeaderMap, status: u16, now: Instant) {
        if let Some(reported) = from_headers(headers, now) {
            self.budget = reported;
            return;
        }
        let mut budget = self.current(now);
        match status {
            401 | 403 => return,
            429 => {
                budget.remaining = 0;
                if let Some(wait) = retry_after(headers) {
                    budget.resets_at = now + wait;
                }
            }
            _ => {
                if budget.source == BudgetSource::Assumed {
                    // The first counted request opens the window.
                    budget.resets_at = now + LOCAL_WINDOW;
                }
                budget.remaining = budget.remaining.saturating_sub(1);
            }
        }
        budget.source = BudgetSource::Counted;
        self.budget = budget;
    }
}

/// The budget the `X-RateLimit-*` headers report, when all three are there and readable.
fn from_headers(headers: &HeaderMap, now: Instant) -> Option<Budget> {
    let limit = header_number(headers, "x-ratelimit-limit")?;
    let remaining = header_number(headers, "x-ratelimit-remaining")?;
    let reset_secs = header_number(headers, "x-ratelimit-reset")?;
    Some(Budget {
        limit: u32::try_from(limit).unwrap_or(u32::MAX),
        remaining: u32::try_from(remaining).unwrap_or(u32::MAX),
        resets_at: now + Duration::from_secs(reset_secs),
        source: BudgetSource::Server,
    })
}

fn header_number(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

pub(crate) use crate::upstream::body::retry_after;

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn server_headers_are_taken_as_they_are() {
        let mut tracker = BudgetTracker::new();
        let now = Instant::now();
        tracker.record(
            &headers(&[
                ("x-ratelimit-limit", "120"),
                ("x-ratelimit-remaining", "117"),
                ("x-ratelimit-reset", "42"),
            ]),
            200,
            now,
        );
        let budget = tracker.current(now);
        assert_eq!((budget.limit, budget.remaining), (120, 117));
        assert_eq!(budget.resets_at, now + Duration::from_secs(42));
        assert_eq!(budget.source, BudgetSource::Server);
    }

    #[test]
    fn without_headers_the_client_counts_and_the_window_resets() {
        let mut tracker = BudgetTracker::new();
        let start = Instant::now();
        for _ in 0..3 {
            tracker.record(&HeaderMap::new(), 200, start);
        }
        tracker.record(&HeaderMap::new(), 403, start);
        let budget = tracker.current(start);
        assert_eq!(budget.remaining, 117);
        assert_eq!(budget.source, BudgetSource::Counted);
        assert_eq!(budget.resets_at, start + LOCAL_WINDOW);
        let later = start + LOCAL_WINDOW;
        assert_eq!(tracker.current(later).remaining, 120);
        assert_eq!(tracker.wait_needed(later), None);
    }

    #[test]
    fn a_429_without_headers_empties_the_budget_until_retry_after() {
        let mut tracker = BudgetTracker::new();
        let now = Instant::now();
        tracker.record(&headers(&[("retry-after", "7")]), 429, now);
        assert_eq!(tracker.current(now).remaining, 0);
        assert_eq!(tracker.wait_needed(now), Some(Duration::from_secs(7)));
    }
}
