//! What the monitor may spend of the real-time budget, and when: a pure piece with the clock
//! passed in (the module's page says the rules).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{FIRST_BACKOFF, MAX_BACKOFF, SPEND_WINDOW, USER_FIRST_WAIT};
use crate::client::Budget;

/// The gate's answer: may the monitor make a real-time call now?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permit {
    /// Yes; call [`SpendGate::spent`] as the call goes out.
    Go,
    /// Not before this instant.
    WaitUntil(Instant),
    /// The app is offline: not until it is back.
    Paused,
}

/// What the monitor may spend, and when (pure: every method takes the time).
#[derive(Debug, Clone, Default)]
pub struct SpendGate {
    /// The monitor's budgeted calls in the last [`SPEND_WINDOW`].
    spent: VecDeque<Instant>,
    /// No call at all before this (after a 429 or an error).
    backoff_until: Option<Instant>,
    /// Network or server errors in a row.
    failures: u32,
}

impl SpendGate {
    /// The monitor's share of a window's `limit`: half, rounded down.
    #[must_use]
    pub fn share(limit: u32) -> usize {
        (limit / 2) as usize
    }

    /// Whether a call may go out at `now`. `budgeted` is whether it spends the real-time budget,
    /// `budget` the client's account of it, `user_waiting` whether a user lookup is in flight.
    pub fn permit(
        &mut self,
        now: Instant,
        budgeted: bool,
        budget: &Budget,
        user_waiting: bool,
        online: bool,
    ) -> Permit {
        if !online {
            return Permit::Paused;
        }
        if let Some(until) = self.backoff_until {
            if now < until {
                return Permit::WaitUntil(until);
            }
            self.backoff_until = None;
        }
        if !budgeted {
            return Permit::Go;
        }
        if user_waiting {
            return Permit::WaitUntil(now + USER_FIRST_WAIT);
        }
        while self
            .spent
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= SPEND_WINDOW)
        {
            self.spent.pop_front();
        }
        let share = Self::share(budget.limit);
        if self.spent.len() >= share {
            return match self.spent.front() {
                Some(oldest) => Permit::WaitUntil(*oldest + SPEND_WINDOW),
                // A share of zero (a limit of 0 or 1): the monitor never spends.
                None => Permit::WaitUntil(now + SPEND_WINDOW),
            };
        }
        let keep_for_user = budget.limit as usize - share;
        if budget.remaining as usize <= keep_for_user && budget.resets_at > now {
            return Permit::WaitUntil(budget.resets_at);
        }
        Permit::Go
    }

    /// A budgeted call went out at `now`.
    pub fn spent(&mut self, now: Instant) {
        self.spent.push_back(now);
    }

    /// A call was answered: back-off ends.
    pub fn succeeded(&mut self) {
        self.failures = 0;
        self.backoff_until = None;
    }

    /// A 429: no call until `retry_after` has passed (a minute when the server gave none).
    pub fn rate_limited(&mut self, now: Instant, retry_after: Option<Duration>) {
        self.backoff_until = Some(now + retry_after.unwrap_or(SPEND_WINDOW));
    }

    /// A network or server error: back off 5 s, 10 s, 20 s, ... up to [`MAX_BACKOFF`].
    pub fn failed(&mut self, now: Instant) {
        let wait = FIRST_BACKOFF
            .saturating_mul(1 << self.failures.min(16))
            .min(MAX_BACKOFF);
        self.failures = self.failures.saturating_add(1);
        self.backoff_until = Some(now + wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::BudgetSource;

    fn budget(now: Instant, limit: u32, remaining: u32) -> Budget {
        Budget {
            limit,
            remaining,
            resets_at: now + SPEND_WINDOW,
            source: BudgetSource::Server,
        }
    }

    /// Most calls in any `SPEND_WINDOW` of `times` (sorted).
    fn most_in_any_window(times: &[Instant]) -> usize {
        times
            .iter()
            .enumerate()
            .map(|(i, start)| {
                times[i..]
                    .iter()
                    .take_while(|t| t.saturating_duration_since(*start) < SPEND_WINDOW)
                    .count()
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_greedy_monitor_never_spends_more_than_half_of_any_minute() {
        let start = Instant::now();
        let mut gate = SpendGate::default();
        let mut calls = Vec::new();
        // Ten simulated minutes, asking every 100 ms; the server's window resets every minute and
        // the monitor is the only spender.
        let mut remaining = 120;
        let mut window_start = start;
        for tick in 0..6_000u64 {
            let now = start + Duration::from_millis(100 * tick);
            if now.duration_since(window_start) >= SPEND_WINDOW {
                window_start = now;
                remaining = 120;
            }
            let server = Budget {
                resets_at: window_start + SPEND_WINDOW,
                ..budget(now, 120, remaining)
            };
            if gate.permit(now, true, &server, false, true) == Permit::Go {
                gate.spent(now);
                calls.push(now);
                remaining -= 1;
            }
        }
        assert_eq!(most_in_any_window(&calls), 60);
        // It does spend its half: about 60 a minute over ten minutes.
        assert!(calls.len() >= 590, "{}", calls.len());
    }

    #[test]
    fn what_the_user_spent_comes_out_of_the_monitors_half() {
        let now = Instant::now();
        let mut gate = SpendGate::default();
        // The user spent 50 of 120: the monitor may spend 10 more, leaving the user 60.
        let mut remaining = 70;
        let mut spent = 0;
        while gate.permit(now, true, &budget(now, 120, remaining), false, true) == Permit::Go {
            gate.spent(now);
            remaining -= 1;
            spent += 1;
        }
        assert_eq!(spent, 10);
        assert_eq!(
            gate.permit(now, true, &budget(now, 120, remaining), false, true),
            Permit::WaitUntil(now + SPEND_WINDOW)
        );
    }

    #[test]
    fn a_user_lookup_in_flight_goes_first_and_free_calls_are_not_held_back() {
        let now = Instant::now();
        let mut gate = SpendGate::default();
        let full = budget(now, 120, 120);
        assert!(matches!(
            gate.permit(now, true, &full, true, true),
            Permit::WaitUntil(_)
        ));
        assert_eq!(gate.permit(now, false, &full, true, true), Permit::Go);
        assert_eq!(gate.permit(now, true, &full, false, true), Permit::Go);
    }

    #[test]
    fn offline_pauses_and_429_and_errors_back_off() {
        let now = Instant::now();
        let mut gate = SpendGate::default();
        let full = budget(now, 120, 120);
        assert_eq!(gate.permit(now, true, &full, false, false), Permit::Paused);
        assert_eq!(gate.permit(now, false, &full, false, false), Permit::Paused);

        gate.rate_limited(now, Some(Duration::from_secs(7)));
        assert_eq!(
            gate.permit(now, false, &full, false, true),
            Permit::WaitUntil(now + Duration::from_secs(7))
        );
        let later = now + Duration::from_secs(7);
        assert_eq!(gate.permit(later, true, &full, false, true), Permit::Go);

        // Errors in a row: 5 s, 10 s, 20 s, ... capped at five minutes; a success resets it.
        let mut waits = Vec::new();
        for _ in 0..8 {
            gate.failed(now);
            match gate.permit(now, true, &full, false, true) {
                Permit::WaitUntil(until) => waits.push(until - now),
                other => panic!("{other:?}"),
            }
        }
        let secs: Vec<u64> = waits.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, vec![5, 10, 20, 40, 80, 160, 300, 300]);
        gate.succeeded();
        assert_eq!(gate.permit(now, true, &full, false, true), Permit::Go);
    }
}
