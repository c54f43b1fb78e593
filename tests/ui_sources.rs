//! The window asks its service what it has (issue 61), driven in `egui_kittest` with the
//! window's own KicksDB service started as `main` starts it (`service::start`), against the
//! mock KicksDB and two mock Shopify stores on real sockets:
//! - KicksDB mode shows both stores in *Where to buy*, and Settings names them as read by the
//!   service in this window;
//! - a restock at one store fires a restock alert in KicksDB mode;
//! - a "lowest ask at or below" alert in KicksDB mode without a store fires on the mock's
//!   price, and its check is recorded in the history (a source that is not a retailer is not
//!   asked for a retail price);
//! - the badge never says live for an answer kept by the service;
//! - the Real-time tab offers KicksDB's currencies only.
//!
//! The stores sell the pair under the mirror's slug, which is how a store is matched to a
//! product today (matching by style code is issue 63).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kittest::{has_label_containing, step_until};
use common::mock_kicksdb::data::{PAIRS, Pair};
use common::mock_kicksdb::{MockConfig, MockKicksdb, PlanGate};
use common::mock_storefront::{MockStorefront, sneaker};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use solescope::app::monitor::MonitorConfig;
use solescope::app::notify::{Notifier, NotifyError};
use solescope::app::{App, AppInit, AppState, Feed, KICKSDB_ACCOUNT, LiveLauncher, StartupStatus};
use solescope::app::{View, monitor::history_key};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::model::{AlertFiring, AlertKind, NewAlert, ProductRef, RetailerStores, StoreUrl};
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::userdb::UserDb;

/// Records notifications instead of showing them.
#[derive(Default)]
struct Recorded(Mutex<Vec<AlertFiring>>);

impl Notifier for Recorded {
    fn notify(&self, firing: &AlertFiring) -> Result<(), NotifyError> {
        self.0.lock().unwrap().push(firing.clone());
        Ok(())
    }
}

/// The Dunk Low 'Panda' of the mock KicksDB.
fn panda() -> &'static Pair {
    PAIRS.iter().find(|p| p.sku == "DD1391-100").unwrap()
}

/// Everything a test drives: the mock KicksDB, the stores, the window in KicksDB mode.
struct World {
    runtime: tokio::runtime::Runtime,
    mock: MockKicksdb,
    stores: Vec<MockStorefront>,
    dir: tempfile::TempDir,
    notified: Arc<Recorded>,
}

impl World {
    /// The mock KicksDB and `stores` mock stores, each selling the Panda under the mirror's
    /// slug at `price_minor` cents (the first at that, each next one 10 dollars dearer).
    fn new(stores: usize) -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let mock = MockKicksdb::start(MockConfig::default());
        let pair = panda();
        let stores = (0..stores)
            .map(|i| {
                let product = sneaker(
                    pair.slug,
                    7_000 + i as u64,
                    pair.title,
                    "USD",
                    2,
                    11_000 + 1_000 * i as i64,
                    &[8.0, 9.0, 10.0],
                );
                runtime.block_on(MockStorefront::start(vec![product]))
            })
            .collect();
        Self {
            runtime,
            mock,
            stores,
            dir: tempfile::tempdir().unwrap(),
            notified: Arc::default(),
        }
    }

    fn store_urls(&self) -> Vec<StoreUrl> {
        self.stores
            .iter()
            .map(|store| StoreUrl::parse(&store.base_url).unwrap())
            .collect()
    }

    fn db_path(&self) -> std::path::PathBuf {
        self.dir.path().join(UserDb::FILE_NAME)
    }

    /// The window in KicksDB mode on `view`, its service started as `main` starts it, reading
    /// the stores (the list Settings edits is the one the service reads).
    fn window(&self, view: View, query: &str) -> Harness<'static, App> {
        let stores = RetailerStores::new(self.store_urls());
        let key_store = Arc::new(MemoryKeyStore::new());
        key_store.set(KICKSDB_ACCOUNT, &self.mock.key()).unwrap();
        let mut app = App::new(AppInit {
            runtime: self.runtime.handle().clone(),
            key_store,
            // Nothing answers there: the window's service runs on KicksDB.
            startup: StartupStatus::ready("http://127.0.0.1:9")
                .with_retailer_stores(stores.clone()),
            state: AppState {
                feed: Feed::Kicksdb,
                view,
                last_query: query.to_owned(),
                ..AppState::default()
            },
            screenshot: None,
            user_db: Some(self.db_path()),
        })
        .with_live_launcher(launcher(
            self.mock.base_url(),
            self.dir.path().join("mirror.sqlite"),
            stores,
            self.runtime.handle().clone(),
        ));
        app.set_alert_notifier(
            self.notified.clone(),
            MonitorConfig {
                check_every: Duration::from_millis(200),
            },
        );
        let mut harness = Harness::builder()
            .with_size(egui::vec2(1400.0, 2400.0))
            .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
        solescope::app::images::install(&harness.ctx, self.runtime.handle().clone());
        step_until(&mut harness, "the first search", |h| {
            h.state().is_idle() && h.state().search_results().is_some()
        });
        harness
    }

    /// Adds an alert on the Panda straight into the user database.
    fn add_alert(&self, size: &str, kind: AlertKind, price_cents: Option<i64>) {
        let pair = panda();
        let db = UserDb::open(&self.db_path()).unwrap();
        let alert = NewAlert {
            product: ProductRef {
                product_id: pair.id.to_owned(),
                style_code: pair.sku.to_owned(),
                title: pair.title.to_owned(),
            },
            size: Some(size.to_owned()),
            kind,
            price_cents,
            currency: "USD".into(),
        };
        let mut db = db;
        db.add_alert(&alert, 0).unwrap();
    }
}

/// The launcher `main` gives the window, with the mock's address: the same start-up function.
fn launcher(
    mock_url: String,
    mirror: std::path::PathBuf,
    stores: RetailerStores,
    runtime: tokio::runtime::Handle,
) -> LiveLauncher {
    Arc::new(move |key: String| {
        let (mock_url, mirror, stores, runtime) = (
            mock_url.clone(),
            mirror.clone(),
            stores.clone(),
            runtime.clone(),
        );
        Box::pin(async move {
            // Stores' answers reused for a fifth of a second, not a minute: a restock shows
            // within the test's patience.
            let storefront = StorefrontConfig {
                cache_ttl: Duration::from_millis(200),
                min_interval: Duration::from_millis(20),
                ..StorefrontConfig::default()
            };
            // Each store's catalogue crawled and matched to the mirror, as the window does.
            let reading = StoreReading::with_crawl(
                stores,
                storefront,
                &mirror.with_extension("stores.sqlite"),
                &mirror,
                CrawlConfig::default(),
            )
            .map_err(|err| err.to_string())?;
            let handle = solescope::service::start::kicksdb_in_window(
                key,
                mock_url,
                &mirror,
                reading,
                solescope::model::budget::BudgetSettingsCell::default(),
            )
            .await?;
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

/// Opens the hit with the Panda's style code.
fn open_panda(harness: &mut Harness<'static, App>) {
    let index = harness
        .state()
        .search_results()
        .unwrap()
        .hits
        .iter()
        .position(|hit| hit.sku == panda().sku)
        .expect("the Panda among the hits");
    common::kittest::open_hit(harness, index);
}

#[test]
fn kicksdb_mode_shows_both_stores_in_where_to_buy_and_settings_names_them() {
    let world = World::new(2);
    let mut harness = world.window(View::Product, "dunk low");
    open_panda(&mut harness);
    harness.get_by_label("Compare marketplaces").click();
    let labels: Vec<String> = world
        .stores
        .iter()
        .map(|store| format!("{} retail", store.label()))
        .collect();
    step_until(&mut harness, "a column per store", |h| {
        h.state().is_idle() && labels.iter().all(|label| has_label_containing(h, label))
    });
    // Each store's price is in its column: 110.00 at the first, 120.00 at the second.
    assert!(has_label_containing(&harness, "110.00"));
    assert!(has_label_containing(&harness, "120.00"));

    harness.get_by_label("Settings").click();
    step_until(&mut harness, "the sources in Settings", |h| {
        has_label_containing(h, "retail from 2 stores")
    });
    assert!(has_label_containing(
        &harness,
        "Read by the service in this window"
    ));
    assert!(has_label_containing(&harness, "catalogue from KicksDB"));
    for store in &world.stores {
        assert!(
            has_label_containing(&harness, &store.label()),
            "{}",
            store.label()
        );
    }
}

/// Where to buy, where to sell on KicksDB with a plan without real-time lookups (resale-a is
/// refused): the sale is priced from the batched per-size prices the flip list sells at, not
/// left at "Sale at —". StockX asks 312.00 for US 8: paid out 274.56 at seller level 1 (9 % and
/// 3 % of 312.00 are 28.08 and 9.36), 164.56 over the first store's 110.00.
#[test]
fn kicksdb_mode_prices_the_sale_from_the_batched_per_size_prices() {
    let world = World::new(1);
    world
        .mock
        .set_plan_gates(vec![PlanGate::realtime_needs_pro()]);
    world.mock.set_ask_usd(panda().sku, "8", 312);
    let mut harness = world.window(View::Product, "dunk low");
    open_panda(&mut harness);
    harness.get_by_label("Compare marketplaces").click();
    let store = format!("{} retail", world.stores[0].label());
    step_until(&mut harness, "the sale priced and paid out", |h| {
        h.state().is_idle() && has_label_containing(h, "274.56") && has_label_containing(h, &store)
    });
    assert!(has_label_containing(&harness, "312.00"));
    assert!(has_label_containing(&harness, "164.56"));
}

#[test]
fn a_restock_at_one_store_fires_a_restock_alert_in_kicksdb_mode() {
    let world = World::new(2);
    // Size US 9 is the sold-out one at every mock store (the second size).
    world.add_alert("9", AlertKind::BackInStock, None);
    let mut harness = world.window(View::Alerts, "dunk low");
    step_until(&mut harness, "checks of both stores", |h| {
        h.state()
            .alert_monitor()
            .is_some_and(|monitor| monitor.status().checks >= 2)
    });
    assert!(
        world.notified.0.lock().unwrap().is_empty(),
        "sold out still"
    );
    let second = &world.stores[1];
    second.set_available(panda().slug, 7_001 * 10 + 2, true);
    let notified = Arc::clone(&world.notified);
    step_until(&mut harness, "the restock alert", |_| {
        !notified.0.lock().unwrap().is_empty()
    });
    let fired = world.notified.0.lock().unwrap().clone();
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0].size, "9");
    assert_eq!(
        fired[0].price_cents,
        Some(12_000),
        "the second store's price"
    );
}

#[test]
fn a_lowest_ask_alert_in_kicksdb_mode_without_a_store_fires_and_is_recorded() {
    let world = World::new(0);
    let pair = panda();
    let size = pair.sizes.iter().find(|s| s.ask_usd > 0).unwrap();
    // Far above any ask: fires on the first check of GOAT's asks.
    world.add_alert(size.us, AlertKind::AskAtOrBelow, Some(1_000_000));
    let mut harness = world.window(View::Alerts, "dunk low");
    let notified = Arc::clone(&world.notified);
    step_until(&mut harness, "the price alert", |_| {
        !notified.0.lock().unwrap().is_empty()
    });
    let status = harness.state().alert_monitor().unwrap().status();
    assert!(status.checks >= 1, "{status:?}");
    let fired = world.notified.0.lock().unwrap().clone();
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0].size, size.us);
    let key = history_key(&fired[0].product);
    let rows = UserDb::open(&world.db_path())
        .unwrap()
        .price_history(&key, &[])
        .unwrap();
    assert!(!rows.is_empty(), "the check's asks are in the history");
}

#[test]
fn the_badge_never_says_live_for_an_answer_the_service_kept() {
    let world = World::new(0);
    let mut harness = world.window(View::Product, "dunk low");
    open_panda(&mut harness);
    step_until(&mut harness, "the live badge", |h| {
        has_label_containing(h, "KicksDB live")
    });
    // A GOAT lookup, live.
    harness.get_by_label("Real-time").click();
    harness.step();
    harness.get_by_label("Look up").click();
    step_until(&mut harness, "GOAT's answer", |h| {
        h.state().is_idle() && h.state().resale_a().is_some()
    });
    assert!(has_label_containing(&harness, "KicksDB live"));

    // KicksDB out of reach: what the mirror holds answers, and says how old it is.
    world.mock.stop();
    harness.get_by_label("Search").click();
    harness.step();
    harness.get_by_label("Search").type_text(" panda");
    step_until(&mut harness, "the mirror's hits", |h| {
        h.state().is_idle() && has_label_containing(h, "KicksDB cached as of")
    });
    // The same GOAT lookup again is the answer kept from before (KicksDB is down): the badge
    // must not turn back to live.
    harness.get_by_label("Refresh").click();
    step_until(&mut harness, "the kept GOAT answer", |h| {
        h.state().is_idle()
    });
    assert!(harness.state().resale_a().is_some());
    assert!(
        !has_label_containing(&harness, "KicksDB live"),
        "a kept answer shown as live"
    );
    assert!(has_label_containing(&harness, "KicksDB cached as of"));
}

#[test]
fn the_real_time_tab_offers_kicksdbs_currencies_only() {
    let world = World::new(0);
    let mut harness = world.window(View::Realtime, "dunk low");
    step_until(&mut harness, "what the service offers", |h| {
        h.state().service_sources().is_some()
    });
    // KicksDB is not a retailer, and no store is read.
    assert!(
        harness
            .get_by_label("retailer-a (free)")
            .accesskit_node()
            .is_disabled()
    );
    harness.get_by_label("resale-b (pro)").click();
    harness.step();
    harness.get_by_label("Currency").click();
    for _ in 0..3 {
        harness.step();
    }
    let offered = harness
        .state()
        .service_sources()
        .unwrap()
        .realtime
        .resale_b
        .clone()
        .unwrap();
    for code in &offered.currencies {
        assert!(harness.query_by_label(code).is_some(), "{code} offered");
    }
    // The simulator's AUD is not one KicksDB gives.
    assert!(harness.query_by_label("AUD").is_none());
    assert!(!offered.currencies.iter().any(|c| c == "AUD"));
    assert!(offered.currencies.iter().any(|c| c == "DKK"));
}
