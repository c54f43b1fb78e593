//! Driving the real app in `egui_kittest`: frames until a condition holds, label look-ups.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// Runs frames until `done` holds; fails after 30 s naming `what`.
pub fn step_until<S>(
    harness: &mut Harness<'_, S>,
    what: &str,
    done: impl Fn(&Harness<'_, S>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        harness.step();
        if done(harness) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        // Fetches land on the runtime's threads; leave them the CPU between frames.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether any node's label contains `text`.
pub fn has_label_containing<S>(harness: &Harness<'_, S>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}
