//! `egui_kittest` tests of alerts and per-size history in the real app, against the in-process
//! service, with an in-memory key store and a user database in a temporary folder.

mod common;

use common::kittest::{has_label_containing, open_hit, step_until};

use std::sync::Arc;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use solescope::app::monitor::MonitorConfig;
use solescope::app::notify::{Notifier, NotifyError};
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::figures::product_key;
use solescope::model::AlertFiring;
use solescope::service::{self, ServiceConfig, ServiceState};
use solescope::userdb::UserDb;

/// Counts notifications instead of showing them.
#[derive(Default)]
struct Counted(std::sync::Mutex<Vec<AlertFiring>>);

impl Notifier for Counted {
    fn notify(&self, firing: &AlertFiring) -> Result<(), NotifyError> {
        self.0.lock().unwrap().push(firing.clone());
        Ok(())
    }
}

#[test]
fn lookups_fill_the_history_and_an_alert_set_in_the_tab_fires_with_a_badge() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "ui.sqlite", 60, 5);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let state = ServiceState::open(&ServiceConfig::new(&catalogue)).unwrap();
    let server = runtime
        .block_on(service::spawn("127.0.0.1:0", state))
        .unwrap();
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let mut app = App::new(AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(server.base_url()),
        state: AppState::default(),
        screenshot: None,
        user_db: None,
    });
    let db_path = dir.path().join(UserDb::FILE_NAME);
    app.open_user_db(db_path.clone());
    let counted = Arc::new(Counted::default());
    app.set_alert_notifier(
        counted.clone(),
        MonitorConfig {
            check_every: Duration::from_millis(200),
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 2400.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    solescope::app::images::install(&harness.ctx, runtime.handle().clone());
    step_until(&mut harness, "the first search", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    let hit = open_hit(&mut harness, 0);
    assert!(has_label_containing(&harness, "No size has a price yet"));

    // One call per source: the table fills, and both answers are in the history.
    let budget_before = harness.state().realtime_budget().unwrap();
    harness.get_by_label("Compare marketplaces").click();
    step_until(&mut harness, "the where-to-buy table", |h| {
        has_label_containing(h, "Payout resale-b")
            && !has_label_containing(h, "No size has a price yet")
    });
    assert!(has_label_containing(&harness, "Compare marketplaces again"));
    let budget_after = harness.state().realtime_budget().unwrap();
    assert_eq!(
        common::realtime_spent(&budget_before, &budget_after),
        1,
        "one budgeted call (resale-a)"
    );
    step_until(&mut harness, "the history chart", |h| {
        !has_label_containing(h, "No history yet")
    });
    let key = product_key(&hit.sku, &hit.id);
    let rows = UserDb::open(&db_path)
        .unwrap()
        .price_history(&key, &[])
        .unwrap();
    assert!(!rows.is_empty(), "the lookups were recorded under {key}");

    // An alert far above the current asks fires on the monitor's first check.
    harness.get_by_label("Alerts").click();
    harness.step();
    harness.state_mut().state.alerts.price = "100000".into();
    harness.step();
    harness.get_by_label("Add alert").click();
    harness.step();
    // Back on the product: the badge shows what fired meanwhile.
    harness.get_by_label("Product").click();
    step_until(&mut harness, "the alert to fire", |h| {
        h.state().alert_badge() == 1
    });
    step_until(&mut harness, "the badge", |h| {
        has_label_containing(h, "Alerts (1 new)")
    });
    let notified = counted.0.lock().unwrap().clone();
    assert_eq!(notified.len(), 1);
    assert_eq!(notified[0].product.title, hit.title);
    // It does not fire again while the price stays below the alert's.
    let checks = harness.state().alert_monitor().unwrap().status().checks;
    step_until(&mut harness, "more checks", |h| {
        h.state().alert_monitor().unwrap().status().checks >= checks + 3
    });
    assert_eq!(counted.0.lock().unwrap().len(), 1);

    harness.get_by_label_contains("Alerts (1 new)").click();
    step_until(&mut harness, "the alert history", |h| {
        has_label_containing(h, "waits for the price to move back")
    });
    assert_eq!(harness.state().alert_badge(), 0);
    let fired = &notified[0];
    assert!(has_label_containing(
        &harness,
        &format!("size {} · ", fired.size)
    ));
}
