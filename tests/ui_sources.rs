//! The window asks its service what it has, driven in `egui_kittest` with the window's own
//! KicksDB service started as `main` starts it (`service::start::spawn_kicksdb`), against the
//! mock KicksDB and mock Shopify stores on real sockets:
//! - KicksDB mode shows both stores in *Where to buy*, and Settings names them as read by the
//!   service in this window;
//! - a restock at one store fires a restock alert in KicksDB mode;
//! - a store that does not sell the product says so once, as information, not as an error;
//! - a "lowest ask at or below" alert in KicksDB mode without a store fires at the mock's
//!   lowest ask, and its check is recorded in the history (a source that is not a retailer is
//!   not asked for a retail price);
//! - the badge never says live for an answer kept by the service;
//! - the Real-time tab offers KicksDB's currencies only;
//! - a product's description keeps its paragraphs.
//!
//! The stores name the pair their own way (their own handles, never the catalogue's slug) and
//! are matched to the mirror's product by its style code, as real stores are: every test ends
//! by checking that no store was ever asked for one of the mirror's slugs.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kittest::{has_label_containing, step_until};
use common::mock_kicksdb::data::{PAIRS, Pair};
use common::mock_kicksdb::{MockConfig, MockKicksdb, PlanGate};
use common::mock_storefront::{MockProduct, MockStorefront, listed_shoe, sneaker};
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
    /// The mock KicksDB and `stores` mock stores, each selling the Panda under a handle of its
    /// own at 110 dollars, each next store 10 dollars dearer.
    fn new(stores: usize) -> Self {
        let pair = panda();
        Self::with_stores(
            (0..stores)
                .map(|i| {
                    vec![sneaker(
                        &panda_handle(i),
                        7_000 + i as u64,
                        pair.title,
                        "USD",
                        2,
                        11_000 + 1_000 * i as i64,
                        &[8.0, 9.0, 10.0],
                    )]
                })
                .collect(),
        )
    }

    /// The mock KicksDB and a mock store per list of products.
    fn with_stores(stores: Vec<Vec<MockProduct>>) -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let mock = MockKicksdb::start(MockConfig::default());
        let stores = stores
            .into_iter()
            .map(|products| runtime.block_on(MockStorefront::start(products)))
            .collect();
        Self {
            runtime,
            mock,
            stores,
            dir: tempfile::tempdir().unwrap(),
            notified: Arc::default(),
        }
    }

    /// Fails when a store was asked for any of the mirror's slugs: stores name products their
    /// own way, and are asked by the handles their catalogues gave.
    fn assert_no_store_was_asked_for_a_slug(&self) {
        for store in &self.stores {
            let asked: Vec<String> = store
                .seen()
                .into_iter()
                .map(|seen| seen.path)
                .filter(|path| PAIRS.iter().any(|pair| path.contains(pair.slug)))
                .collect();
            assert!(
                asked.is_empty(),
                "{} was asked for the catalogue's slugs: {asked:?}",
                store.label()
            );
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

    /// Steps until the service says every store's catalogue was read.
    fn until_stores_read(&self, harness: &mut Harness<'static, App>) {
        let count = self.stores.len();
        step_until(harness, "every store's catalogue read", |h| {
            h.state().service_sources().is_some_and(|sources| {
                let stores = sources.realtime.stores();
                stores.len() == count
                    && stores.iter().all(|store| {
                        store
                            .catalogue
                            .as_deref()
                            .is_some_and(|text| text.contains("products read"))
                    })
            })
        });
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

/// The launcher `main` gives the window, with the mock's address: the same start, the stores
/// read as the window reads them (each store's catalogue crawled and matched to the mirror).
fn launcher(
    mock_url: String,
    mirror: std::path::PathBuf,
    stores: RetailerStores,
    runtime: tokio::runtime::Handle,
) -> LiveLauncher {
    // Stores' answers reused for a fifth of a second, not a minute: a restock shows within the
    // test's patience.
    let storefront = StorefrontConfig {
        cache_ttl: Duration::from_millis(200),
        min_interval: Duration::from_millis(20),
        ..StorefrontConfig::default()
    };
    let reading = StoreReading::with_crawl(
        stores,
        storefront,
        &mirror.with_extension("stores.sqlite"),
        CrawlConfig {
            watch_interval: Duration::from_millis(200),
            ..CrawlConfig::default()
        },
    )
    .unwrap();
    common::kittest::kicksdb_launcher(
        mock_url,
        mirror,
        Some(reading),
        solescope::model::budget::BudgetSettingsCell::default(),
        runtime,
    )
}

/// The handle store `index` sells the Panda under: its own, never the mirror's slug.
fn panda_handle(index: usize) -> String {
    format!("nike-dunk-low-retro-white-black-{}", index + 1)
}

/// Opens the mirror's Panda (by its KicksDB id: a store's listing of it read before the mirror
/// had it is a store-only hit with the same code, until it is matched again).
fn open_panda(harness: &mut Harness<'static, App>) {
    let index = harness
        .state()
        .search_results()
        .unwrap()
        .hits
        .iter()
        .position(|hit| hit.id == panda().id)
        .expect("the Panda among the hits");
    common::kittest::open_hit(harness, index);
}

#[test]
fn kicksdb_mode_shows_both_stores_in_where_to_buy_and_settings_names_them() {
    let world = World::new(2);
    let mut harness = world.window(View::Product, "dunk low");
    world.until_stores_read(&mut harness);
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
    world.assert_no_store_was_asked_for_a_slug();
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
    world.until_stores_read(&mut harness);
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
    second.set_available(&panda_handle(1), 7_001 * 10 + 2, true);
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
    world.assert_no_store_was_asked_for_a_slug();
}

/// A store that does not carry the product: said once, naming the store once, as information
/// (not in the colour of an error), beside the other store's price.
#[test]
fn a_store_that_does_not_sell_the_product_says_so_once_and_not_as_an_error() {
    let pair = panda();
    let black_cat = PAIRS.iter().find(|p| p.sku == "CU1110-010").unwrap();
    let world = World::with_stores(vec![
        vec![sneaker(
            &panda_handle(0),
            7_000,
            pair.title,
            "USD",
            2,
            11_000,
            &[8.0, 9.0, 10.0],
        )],
        vec![listed_shoe(
            "aj4-retro-black-cat-2020",
            8_000,
            "Air Jordan 4 Retro 'Black Cat'",
            "Jordan",
            &[Some("CU1110-010-080".into()), Some("CU1110-010-090".into())],
            &[],
        )],
    ]);
    assert_ne!(black_cat.sku, pair.sku);
    let mut harness = world.window(View::Product, "dunk low");
    world.until_stores_read(&mut harness);
    open_panda(&mut harness);
    harness.get_by_label("Compare marketplaces").click();
    let other = world.stores[1].label();
    // Each store's answer: the first's price, the second's "not sold here".
    step_until(&mut harness, "both stores' answers", |h| {
        h.state().is_idle()
            && has_label_containing(h, "sells no product")
            && has_label_containing(h, "110.00")
    });
    let said: Vec<String> = harness
        .query_all_by_label_contains("sells no product")
        .filter_map(|node| common::kittest::text_of(&node.accesskit_node()))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0].matches(other.as_str()).count(), 1, "{said:?}");
    let error = harness.ctx.global_style().visuals.error_fg_color;
    let colours = common::kittest::text_colours(&harness, "sells no product");
    assert!(!colours.is_empty());
    assert!(
        colours.iter().all(|colour| *colour != error),
        "drawn as an error: {colours:?}"
    );
    world.assert_no_store_was_asked_for_a_slug();
}

/// StockX's descriptions are HTML paragraphs: the product view keeps them apart.
#[test]
fn a_product_s_description_keeps_its_paragraphs() {
    let world = World::new(0);
    let mut harness = world.window(View::Product, "dunk low");
    open_panda(&mut harness);
    let pair = panda();
    let expected = format!(
        "The {} in {}, first released on {}.\n\nStyle code {}.",
        pair.model, pair.colorway, pair.release_date, pair.sku
    );
    step_until(&mut harness, "the description", |h| {
        has_label_containing(h, "first released on")
    });
    let shown: Vec<String> = harness
        .query_all_by_label_contains("first released on")
        .filter_map(|node| common::kittest::text_of(&node.accesskit_node()))
        .collect();
    assert!(shown.contains(&expected), "{shown:?}");
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
    // StockX's lowest ask for the size on the mock, in cents (GOAT's is 6 % dearer).
    assert_eq!(
        fired[0].price_cents,
        Some(i64::from(size.ask_usd) * 100),
        "the alert fired at the size's lowest ask"
    );
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
