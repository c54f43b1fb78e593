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
use solescope::app::{AppInit, AppState, KICKSDB_ACCOUNT, LiveLauncher, StartupStatus, View};
use solescope::client::{KeyStore, MemoryKeyStore};
use solescope::service::kicksdb::{Kicksdb, KicksdbConfig};
use solescope::service::marketplace::Marketplaces;
use solescope::service::source::CatalogueSource;
use solescope::service::{self, ServiceConfig, ServiceState};

/// What `main` gives the window: a launcher of the in-process KicksDB service, here pointed at
/// the mock, its mirror in `dir`.
fn launcher(
    mock_url: String,
    dir: std::path::PathBuf,
    runtime: tokio::runtime::Handle,
) -> LiveLauncher {
    Arc::new(move |key: String| {
        let mock_url = mock_url.clone();
        let mirror = dir.join("mirror.sqlite");
        let runtime = runtime.clone();
        Box::pin(async move {
            let state = tokio::task::spawn_blocking(move || {
                let mut live = KicksdbConfig::new(key, &mirror);
                live.base_url = mock_url;
                let source = Arc::new(Kicksdb::new(&live, None).map_err(|e| e.to_string())?);
                ServiceState::with_sources(
                    &ServiceConfig::new(&mirror),
                    Arc::new(Arc::clone(&source)) as Arc<dyn Marketplaces>,
                    Arc::new(source) as Arc<dyn CatalogueSource>,
                )
                .map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| e.to_string())??;
            let handle = runtime
                .spawn(service::spawn("127.0.0.1:0", state))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
            let url = handle.base_url();
            // The test's runtime outlives the window: the service runs until it ends.
            runtime.spawn(async move {
                let _handle = handle;
                std::future::pending::<()>().await;
            });
            Ok(url)
        })
    })
}

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
    let app = solescope::app::App::new(init).with_live_launcher(launcher(
        mock.base_url(),
        dir.path().to_path_buf(),
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
