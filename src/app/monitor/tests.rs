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
