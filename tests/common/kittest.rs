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

/// The launcher `main` gives the window for KicksDB, pointed at `mock_url` with the mirror at
/// `mirror`: the same start (`service::start::spawn_kicksdb`), the stores read through `stores`
/// (none when `None`), the budget's settings shared through `budget`. The service runs on
/// `runtime` until the test's runtime ends.
pub fn kicksdb_launcher(
    mock_url: String,
    mirror: std::path::PathBuf,
    stores: Option<solescope::service::storefront::StoreReading>,
    budget: solescope::model::budget::BudgetSettingsCell,
    runtime: tokio::runtime::Handle,
) -> solescope::app::LiveLauncher {
    use solescope::service::kicksdb::KicksdbConfig;
    use solescope::service::{ServiceConfig, start};
    std::sync::Arc::new(move |key: String| {
        let mut live = KicksdbConfig::new(key, &mirror);
        live.base_url.clone_from(&mock_url);
        live.budget.settings = budget.clone();
        let mut config = ServiceConfig::new(&mirror);
        config.store_reading.clone_from(&stores);
        let runtime = runtime.clone();
        Box::pin(async move {
            let handle = start::spawn_kicksdb(config, live, "127.0.0.1:0")
                .await
                .map_err(|err| format!("{err:#}"))?;
            let url = handle.base_url();
            runtime.spawn(async move {
                let _handle = handle;
                std::future::pending::<()>().await;
            });
            Ok(url)
        })
    })
}

/// The colour each piece of text containing `needle` was drawn in during the last frame.
pub fn text_colours<S>(harness: &Harness<'_, S>, needle: &str) -> Vec<egui::Color32> {
    fn walk(shape: &egui::Shape, needle: &str, found: &mut Vec<egui::Color32>) {
        match shape {
            egui::Shape::Vec(shapes) => {
                for shape in shapes {
                    walk(shape, needle, found);
                }
            }
            egui::Shape::Text(text) if text.galley.text().contains(needle) => {
                let section = text
                    .galley
                    .job
                    .sections
                    .first()
                    .map_or(egui::Color32::PLACEHOLDER, |s| s.format.color);
                found.push(text.override_text_color.unwrap_or(
                    if section == egui::Color32::PLACEHOLDER {
                        text.fallback_color
                    } else {
                        section
                    },
                ));
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    for clipped in &harness.output().shapes {
        walk(&clipped.shape, needle, &mut found);
    }
    found
}

/// A node's text: a label keeps its text as its value in AccessKit, any other widget as its
/// label.
pub fn text_of(node: &egui_kittest::kittest::AccessKitNode<'_>) -> Option<String> {
    if node.role() == egui::accesskit::Role::Label {
        node.value()
    } else {
        node.label()
    }
}
