//! Driving the real app in `egui_kittest`: frames until a condition holds, label look-ups.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use solescope::app::{App, AppInit};
use solescope::model::SearchHit;

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

/// The real app in a 1400 x 2000 test window, with the image loaders on its runtime, before its
/// first frame.
pub fn app_harness(init: AppInit) -> Harness<'static, App> {
    let runtime = init.runtime.clone();
    let harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 2000.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), App::new(init));
    solescope::app::images::install(&harness.ctx, runtime);
    harness
}

/// Opens the hit at `index` of the shown results and waits until its product is shown.
pub fn open_hit(harness: &mut Harness<'_, App>, index: usize) -> SearchHit {
    let hit = harness.state().search_results().unwrap().hits[index].clone();
    harness
        .query_all_by_label(&hit.title)
        .next()
        .unwrap()
        .click();
    step_until(harness, "the product", |h| {
        h.state().is_idle() && h.state().product().is_some_and(|p| p.id == hit.id)
    });
    hit
}
