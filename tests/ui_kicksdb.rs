//! The window on KicksDB, driven in `egui_kittest` against the mock KicksDB: pick KicksDB in
//! Settings, enter the key (masked, into the key store), search, open a product: the mock's
//! prices are shown with the source badge, the weekly chart without an invented rank line.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::kittest::{has_label_containing, step_until};
use common::mock_kicksdb::data::PAIRS;
use common::mock_kicksdb::{Endpoint, MockConfig, MockKicksdb};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use solescope::app::{AppInit, AppState, KICKSDB_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore, MemoryKeyStore};

#[test]
fn picking_kicksdb_in_settings_shows_its_prices_with_the_source_badge() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let key_store = Arc::new(MemoryKeyStore::new());
    let init = AppInit {
        runtime: runtime.handle().clone(),
        key_store: key_store.clone(),
        // The demo is not what this test looks at: an address nothing answers on.
        startup: StartupStatus::ready("http://127.0.0.1:9"),
        state: AppState {
            view: View::Settings,
            ..AppState::default()
        },
        screenshot: None,
        user_db: None,
    };
    let app = solescope::app::App::new(init).with_live_launcher(common::kittest::kicksdb_launcher(
        mock.base_url(),
        dir.path().join("mirror.sqlite"),
        None,
        solescope::model::budget::BudgetSettingsCell::default(),
        runtime.handle().clone(),
    ));
    let mut harness = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1400.0, 2000.0))
        .build_ui_state(|ui, app: &mut solescope::app::App| app.ui(ui), app);
    solescope::app::images::install(&harness.ctx, runtime.handle().clone());
    harness.step();
    harness.get_by_label("KicksDB (live)").click();
    step_until(&mut harness, "the ask for a key", |h| {
        has_label_containing(h, "No KicksDB key stored yet")
    });
    harness.get_by_label("KicksDB key").click();
    harness.step();
    harness.get_by_label("KicksDB key").type_text(&mock.key());
    harness.step();
    harness.get_by_label("Use this key").click();
    step_until(&mut harness, "the key checked by KicksDB", |h| {
        has_label_containing(h, "KicksDB accepted the key")
    });
    assert_eq!(
        key_store.get(KICKSDB_ACCOUNT).unwrap().as_deref(),
        Some(mock.key().as_str()),
        "the key is in the key store"
    );
    assert!(has_label_containing(&harness, "KicksDB live"), "the badge");
    assert!(has_label_containing(
        &harness,
        "requests to KicksDB with this key"
    ));
    let state = serde_json::to_string(&harness.state().state).unwrap();
    assert!(!state.contains(&mock.key()), "never in the persisted state");

    // Search: the mirror answers as you type, KicksDB once typing pauses.
    let pair = PAIRS.iter().find(|p| p.sku == "CU1110-010").unwrap();
    harness.get_by_label("Product").click();
    harness.step();
    harness.step();
    harness.get_by_role(Role::TextInput).click();
    harness.step();
    harness.get_by_role(Role::TextInput).type_text("black cat");
    step_until(&mut harness, "KicksDB's hits", |h| {
        h.state().is_idle()
            && h.state().search_results().is_some_and(|r| {
                r.query == "black cat" && r.hits.iter().any(|hit| hit.sku == pair.sku)
            })
    });
    assert!(
        mock.count(Endpoint::Search) >= 2,
        "the key check and the search"
    );
    let hit = common::kittest::open_hit(&mut harness, 0);
    assert_eq!(hit.sku, pair.sku);
    let product = harness.state().product().unwrap();
    let priced = pair.sizes.iter().find(|s| s.ask_usd > 0).unwrap();
    let variant = product
        .variants
        .iter()
        .find(|v| v.size == priced.us)
        .unwrap();
    assert!(
        (variant.price - f64::from(priced.ask_usd)).abs() < 1e-9,
        "the mock's price"
    );
    harness.step();
    assert!(
        has_label_containing(&harness, &format!("{}", priced.ask_usd)),
        "the price is on screen"
    );
    // The weekly chart: KicksDB's daily sales in weeks, no rank line.
    harness.get_by_label("Weekly orders").click();
    step_until(&mut harness, "the weekly series", |h| {
        h.state().is_idle() && h.state().orders_series().is_some()
    });
    harness.step();
    assert!(has_label_containing(
        &harness,
        "Rank: not given by this data source"
    ));
    assert!(mock.count(Endpoint::DailySales) >= 1);
    let _ = Duration::ZERO;
}

/// A window that starts in KicksDB mode (its saved state, or `--source kicksdb`) never builds
/// the demo catalogue: the work that builds it is given but not run, while the window searches
/// KicksDB. Picking the demo in Settings starts it.
#[test]
fn a_window_in_kicksdb_mode_never_builds_the_demo_catalogue() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = MockKicksdb::start(MockConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(KICKSDB_ACCOUNT, &mock.key()).unwrap();
    let built = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let startup = {
        let built = Arc::clone(&built);
        StartupStatus::new().with_start(Box::new(move |_wake| {
            built.store(true, std::sync::atomic::Ordering::SeqCst);
        }))
    };
    let init = AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        startup: startup.clone(),
        state: AppState {
            feed: solescope::app::Feed::Kicksdb,
            view: View::Product,
            last_query: "black cat".into(),
            ..AppState::default()
        },
        screenshot: None,
        user_db: None,
    };
    let app = solescope::app::App::new(init).with_live_launcher(common::kittest::kicksdb_launcher(
        mock.base_url(),
        dir.path().join("mirror.sqlite"),
        None,
        solescope::model::budget::BudgetSettingsCell::default(),
        runtime.handle().clone(),
    ));
    let mut harness = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, app: &mut solescope::app::App| app.ui(ui), app);
    solescope::app::images::install(&harness.ctx, runtime.handle().clone());
    step_until(&mut harness, "KicksDB's hits", |h| {
        h.state().is_idle()
            && h.state()
                .search_results()
                .is_some_and(|r| r.hits.iter().any(|hit| hit.sku == "CU1110-010"))
    });
    for _ in 0..10 {
        harness.step();
    }
    assert!(
        !built.load(std::sync::atomic::Ordering::SeqCst),
        "the demo catalogue was built in KicksDB mode"
    );
    assert!(!startup.started());

    harness.get_by_label("Settings").click();
    harness.step();
    harness.get_by_label("Demo catalogue (offline)").click();
    step_until(&mut harness, "the demo's preparation", |_| {
        built.load(std::sync::atomic::Ordering::SeqCst)
    });
}
