//! Stores as catalogues in the window, driven in `egui_kittest`: the demo's service
//! reading two mock Shopify stores that name their products their own way (no handle is a
//! catalogue slug; more than one page each; a decoy titled like the Panda), their catalogues
//! crawled and matched by style code. *Where to buy* on the Dunk Low 'Panda' shows both stores'
//! prices and stock, and a restock at the second store fires a restock alert.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kittest::{has_label_containing, open_hit, step_until};
use common::mock_storefront::{MockStorefront, sneaker_store};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use solescope::app::monitor::MonitorConfig;
use solescope::app::notify::{Notifier, NotifyError};
use solescope::app::{App, AppInit, AppState, LOCAL_DEMO_ACCOUNT, StartupStatus, View};
use solescope::client::{KeyStore as _, MemoryKeyStore};
use solescope::model::{AlertFiring, AlertKind, NewAlert, ProductRef, RetailerStores, StoreUrl};
use solescope::service::storefront::crawl::CrawlConfig;
use solescope::service::storefront::{StoreReading, StorefrontConfig};
use solescope::service::{self, ServiceState};
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

/// The Panda's handle at the mock stores, and the variant id of its sold-out US 8.
const PANDA_HANDLE: &str = "nike-dunk-low-retro-white-black-panda";
const PANDA_US8: u64 = 9_100_000_000_001 * 10 + 2;

/// Two mock stores crawled by the demo's service over a generated catalogue.
struct Served {
    dir: tempfile::TempDir,
    catalogue: std::path::PathBuf,
    runtime: tokio::runtime::Runtime,
    stores: Vec<MockStorefront>,
    list: RetailerStores,
    server: service::ServerHandle,
}

impl Served {
    /// The window on this service with the demo's pro key, its user database in the test's
    /// folder, starting from `state`.
    fn window(&self, state: AppState) -> Harness<'static, App> {
        let key_store = Arc::new(MemoryKeyStore::new());
        key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
        common::kittest::app_harness(AppInit {
            runtime: self.runtime.handle().clone(),
            key_store,
            startup: StartupStatus::ready(self.server.base_url())
                .with_retailer_stores(self.list.clone()),
            state,
            screenshot: None,
            user_db: Some(self.dir.path().join(UserDb::FILE_NAME)),
        })
    }

    /// Waits until the service says both stores' catalogues were read.
    fn both_read(&self) {
        self.runtime.block_on(async {
            let url = format!("{}/api/v2/sources", self.server.base_url());
            let started = std::time::Instant::now();
            loop {
                let text = reqwest::Client::new()
                    .get(&url)
                    .header("Authorization", "demo-pro")
                    .send()
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap();
                if text.matches("products read").count() >= 2 {
                    return;
                }
                assert!(started.elapsed() < Duration::from_secs(60), "{text}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
    }
}

fn serve_two_stores() -> Served {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = common::catalogue(dir.path(), "ui.sqlite", 2_000, 11);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stores: Vec<MockStorefront> = (0..2)
        .map(|_| runtime.block_on(MockStorefront::start(sneaker_store(&[]))))
        .collect();
    let list = RetailerStores::new(
        stores
            .iter()
            .map(|store| StoreUrl::parse(&store.base_url).unwrap()),
    );
    let reading = StoreReading::with_crawl(
        list.clone(),
        StorefrontConfig {
            cache_ttl: Duration::from_millis(200),
            min_interval: Duration::from_millis(20),
            ..StorefrontConfig::default()
        },
        &dir.path().join("stores.sqlite"),
        CrawlConfig {
            watch_interval: Duration::from_millis(100),
            ..CrawlConfig::default()
        },
    )
    .unwrap();
    let mut config = common::config(&catalogue);
    config.store_reading = Some(reading);
    let state = ServiceState::open(&config).unwrap();
    let server = runtime
        .block_on(async { service::spawn("127.0.0.1:0", state).await })
        .unwrap();

    Served {
        dir,
        catalogue,
        runtime,
        stores,
        list,
        server,
    }
}

#[test]
fn where_to_buy_shows_both_stores_and_a_restock_at_the_second_fires() {
    let Served {
        dir,
        catalogue,
        runtime,
        stores,
        list,
        server,
    } = serve_two_stores();
    // An alert on the Panda's sold-out US 8, set before the window opens.
    let panda: (String, String) = rusqlite::Connection::open(&catalogue)
        .unwrap()
        .query_row(
            "SELECT id, title FROM products WHERE sku = 'DD1391-100'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    let db_path = dir.path().join(UserDb::FILE_NAME);
    UserDb::open(&db_path)
        .unwrap()
        .add_alert(
            &NewAlert {
                product: ProductRef {
                    product_id: panda.0.clone(),
                    style_code: "DD1391-100".into(),
                    title: panda.1.clone(),
                },
                size: Some("8".into()),
                kind: AlertKind::BackInStock,
                price_cents: None,
                currency: "USD".into(),
            },
            0,
        )
        .unwrap();

    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let mut app = App::new(AppInit {
        runtime: runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(server.base_url()).with_retailer_stores(list),
        state: AppState {
            view: View::Product,
            last_query: "dunk low panda".into(),
            ..AppState::default()
        },
        screenshot: None,
        user_db: Some(db_path),
    });
    let notified = Arc::new(Recorded::default());
    app.set_alert_notifier(
        notified.clone(),
        MonitorConfig {
            check_every: Duration::from_millis(200),
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 2400.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    solescope::app::images::install(&harness.ctx, runtime.handle().clone());
    step_until(&mut harness, "both stores' catalogues read", |h| {
        h.state().service_sources().is_some_and(|sources| {
            let stores = sources.realtime.stores();
            stores.len() == 2
                && stores.iter().all(|store| {
                    store
                        .catalogue
                        .as_deref()
                        .is_some_and(|text| text.contains("products read"))
                })
        })
    });
    step_until(&mut harness, "the search", |h| {
        h.state().is_idle() && h.state().search_results().is_some()
    });
    let index = harness
        .state()
        .search_results()
        .unwrap()
        .hits
        .iter()
        .position(|hit| hit.sku == "DD1391-100")
        .expect("the Panda among the hits");
    open_hit(&mut harness, index);

    harness.get_by_label("Compare marketplaces").click();
    let columns: Vec<String> = stores
        .iter()
        .map(|store| format!("{} retail", store.label()))
        .collect();
    step_until(&mut harness, "a column per store with its prices", |h| {
        h.state().is_idle()
            && columns.iter().all(|label| has_label_containing(h, label))
            && h.query_all_by_label_contains("110.00 USD").count() >= 2
    });
    assert!(has_label_containing(&harness, "sold out"), "the stock too");
    assert!(notified.0.lock().unwrap().is_empty(), "sold out still");
    // The price history's legend (a checkbox per line) names each store's line by its store.
    let legend = |h: &Harness<'_, App>| -> Vec<String> {
        h.query_all_by_role(egui::accesskit::Role::CheckBox)
            .filter_map(|node| node.accesskit_node().label())
            .filter(|label| label.contains(" · "))
            .collect()
    };
    let store_lines: Vec<String> = stores.iter().map(|s| format!(" · {}", s.label())).collect();
    step_until(&mut harness, "a history line per store", |h| {
        let legend = legend(h);
        store_lines
            .iter()
            .all(|line| legend.iter().any(|entry| entry.ends_with(line.as_str())))
    });
    let shown = legend(&harness);
    assert!(
        !shown.iter().any(|entry| entry.contains("retailer-a")),
        "a store's line named by the source, not the store: {shown:?}"
    );

    stores[1].set_available(PANDA_HANDLE, PANDA_US8, true);
    let recorded = Arc::clone(&notified);
    step_until(&mut harness, "the restock alert", |_| {
        !recorded.0.lock().unwrap().is_empty()
    });
    let fired = notified.0.lock().unwrap().clone();
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0].size, "8");
    drop(harness);
    drop(server);
}

/// A sneaker only the stores sell (their Vans: no catalogue product has its code) is found by
/// the window's search, says where it is sold, and opens with its store's sizes and prices.
#[test]
fn a_store_only_sneaker_is_found_by_search_and_opened() {
    let served = serve_two_stores();
    // Both stores read (their shelves filled) before the window opens and searches.
    served.both_read();
    let mut harness = served.window(AppState {
        last_query: "vans old skool colorway 7".into(),
        ..AppState::default()
    });
    step_until(&mut harness, "the store-only Vans among the hits", |h| {
        h.state().is_idle()
            && h.state().search_results().is_some_and(|page| {
                page.hits
                    .iter()
                    .any(|hit| hit.title == "Vans Old Skool Colorway 7")
            })
    });
    assert!(has_label_containing(&harness, "retail only"));
    let index = harness
        .state()
        .search_results()
        .unwrap()
        .hits
        .iter()
        .position(|hit| hit.title == "Vans Old Skool Colorway 7")
        .unwrap();
    let hit = open_hit(&mut harness, index);
    assert!(hit.id.starts_with("store-"), "{}", hit.id);
    let product = harness.state().product().unwrap().clone();
    assert_eq!(product.title, "Vans Old Skool Colorway 7");
    assert!(!product.variants.is_empty());
    drop(harness);
    drop(served);
}

/// The search narrowed to what the first store has in stock: its Panda listed in any size, not
/// once the user types the size it has sold out (US 8), and again in a size it has (US 7, the
/// positive control: US 8 is sold out for every shoe of the mock store, so an empty list alone
/// would prove nothing); the catalogue's other Dunks never.
#[test]
fn the_search_narrowed_to_a_store_and_a_size_in_the_window() {
    let served = serve_two_stores();
    let first = served.stores[0].label();
    served.both_read();
    let mut harness = served.window(AppState {
        last_query: "dunk low".into(),
        in_stock_at: first.clone(),
        ..AppState::default()
    });
    let skus = |h: &egui_kittest::Harness<'_, App>| -> Option<Vec<String>> {
        let page = h.state().search_results()?;
        Some(page.hits.iter().map(|hit| hit.sku.clone()).collect())
    };
    step_until(&mut harness, "the store's Dunks", |h| {
        h.state().is_idle() && skus(h).is_some_and(|s| s.iter().any(|c| c == "DD1391-100"))
    });
    let listed = skus(&harness).unwrap();
    assert!(listed.len() < 10, "only the store's: {listed:?}");
    assert!(
        has_label_containing(&harness, "In stock at"),
        "the filter is shown open"
    );
    // Focused by a click, then typed into, as a user does.
    let size_box = (egui::accesskit::Role::TextInput, "Size (US)");
    harness
        .get_by_role_and_label(size_box.0, size_box.1)
        .click();
    harness.step();
    harness
        .get_by_role_and_label(size_box.0, size_box.1)
        .type_text("8");
    harness.step();
    assert_eq!(harness.state().state.size_filter, "8");
    step_until(&mut harness, "the Panda gone in US 8", |h| {
        h.state().is_idle() && skus(h).is_some_and(|s| !s.iter().any(|c| c == "DD1391-100"))
    });
    // The size changed to one the store has: the Panda is back, and only the store's shoes.
    harness
        .get_by_role_and_label(size_box.0, size_box.1)
        .click();
    harness.step();
    harness.key_press(egui::Key::Backspace);
    harness.step();
    harness
        .get_by_role_and_label(size_box.0, size_box.1)
        .type_text("7");
    harness.step();
    assert_eq!(harness.state().state.size_filter, "7");
    step_until(&mut harness, "the Panda back in US 7", |h| {
        h.state().is_idle() && skus(h).is_some_and(|s| s.iter().any(|c| c == "DD1391-100"))
    });
    let in_7 = skus(&harness).unwrap();
    assert!(in_7.len() < 10, "only the store's: {in_7:?}");
    drop(harness);
    drop(served);
}

/// Settings in a 1280 x 800 window with both stores read: nothing runs off the window's right
/// edge (the service's sources wrap), and each store's status reads as a line or two of text
/// (not a narrow column of word pieces).
#[test]
fn settings_are_readable_in_a_1280_by_800_window() {
    const WIDTH: f32 = 1280.0;
    let served = serve_two_stores();
    served.both_read();
    let key_store = Arc::new(MemoryKeyStore::new());
    key_store.set(LOCAL_DEMO_ACCOUNT, "demo-pro").unwrap();
    let app = App::new(AppInit {
        runtime: served.runtime.handle().clone(),
        key_store,
        startup: StartupStatus::ready(served.server.base_url())
            .with_retailer_stores(served.list.clone()),
        state: AppState {
            view: View::Settings,
            ..AppState::default()
        },
        screenshot: None,
        user_db: Some(served.dir.path().join(UserDb::FILE_NAME)),
    });
    let mut harness = Harness::builder()
        .with_size(egui::vec2(WIDTH, 800.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    solescope::app::images::install(&harness.ctx, served.runtime.handle().clone());
    step_until(&mut harness, "both stores' readings in Settings", |h| {
        h.state().is_idle()
            && h.query_all_by_label_contains("products read").count() >= 2
            && has_label_containing(h, "retail from 2 stores")
    });
    // Grids size their columns from the frame before: let the layout settle.
    for _ in 0..4 {
        harness.step();
    }
    let past_the_edge: Vec<(String, f32)> = harness
        .query_all_by(|node| {
            common::kittest::text_of(node).is_some_and(|text| !text.trim().is_empty())
        })
        .filter(|node| node.rect().max.x > WIDTH + 0.5)
        .map(|node| {
            let text = common::kittest::text_of(&node.accesskit_node()).unwrap_or_default();
            (text.chars().take(60).collect(), node.rect().max.x)
        })
        .collect();
    assert!(
        past_the_edge.is_empty(),
        "text past the window's right edge ({WIDTH} px): {past_the_edge:?}"
    );
    let line = harness.ctx.global_style().text_styles[&egui::TextStyle::Body].size * 1.5;
    let readings: Vec<egui::Rect> = harness
        .query_all_by_label_contains("products read")
        .map(|node| node.rect())
        .collect();
    assert_eq!(readings.len(), 2, "{readings:?}");
    for rect in readings {
        assert!(
            rect.height() <= 2.0 * line && rect.width() >= 300.0,
            "a store's reading drawn {:.0} x {:.0} px (at most two lines of {line:.0} px, at least 300 px wide)",
            rect.width(),
            rect.height()
        );
    }
    drop(harness);
    drop(served);
}
